//! In-memory tables: ordered, named, equal-length typed columns.

use crate::column::Column;
use crate::error::{Error, Result};

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub names: Vec<String>,
    pub cols: Vec<Column>,
    /// Key columns of a keyed/indexed table (empty for a plain table).
    pub keys: Vec<String>,
    /// Name used for join prefixes (`t2_x`), when known.
    pub name: Option<String>,
}

impl Table {
    pub fn new(names: Vec<String>, cols: Vec<Column>) -> Result<Table> {
        if names.len() != cols.len() {
            return Err(Error::runtime("table: names and columns differ in count"));
        }
        if let Some(first) = cols.first() {
            let n = first.len();
            for (name, c) in names.iter().zip(&cols) {
                if c.len() != n {
                    return Err(Error::size(format!(
                        "The length of column {name} ({}) differs from the table length ({n})",
                        c.len()
                    )));
                }
            }
        }
        Ok(Table { names, cols, keys: Vec::new(), name: None })
    }
    pub fn rows(&self) -> usize {
        self.cols.first().map(|c| c.len()).unwrap_or(0)
    }
    pub fn ncols(&self) -> usize {
        self.cols.len()
    }
    pub fn col_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name).or_else(|| {
            self.names.iter().position(|n| n.eq_ignore_ascii_case(name))
        })
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.col_index(name).map(|i| &self.cols[i])
    }
    /// Add or replace a column.
    pub fn set_column(&mut self, name: &str, col: Column) -> Result<()> {
        if !self.cols.is_empty() && col.len() != self.rows() {
            return Err(Error::size(format!(
                "The length of the new column {name} ({}) must equal the table length ({})",
                col.len(),
                self.rows()
            )));
        }
        match self.col_index(name) {
            Some(i) => self.cols[i] = col,
            None => {
                self.names.push(name.to_string());
                self.cols.push(col);
            }
        }
        Ok(())
    }
    pub fn take(&self, idx: &[i64]) -> Table {
        Table {
            names: self.names.clone(),
            cols: self.cols.iter().map(|c| c.take(idx)).collect(),
            keys: self.keys.clone(),
            name: self.name.clone(),
        }
    }
    pub fn take_usize(&self, idx: &[usize]) -> Table {
        Table {
            names: self.names.clone(),
            cols: self.cols.iter().map(|c| c.take_usize(idx)).collect(),
            keys: self.keys.clone(),
            name: self.name.clone(),
        }
    }
    pub fn filter(&self, mask: &[bool]) -> Table {
        let idx: Vec<usize> = mask.iter().enumerate().filter(|(_, m)| **m).map(|(i, _)| i).collect();
        self.take_usize(&idx)
    }
    pub fn slice(&self, start: usize, end: usize) -> Table {
        Table {
            names: self.names.clone(),
            cols: self.cols.iter().map(|c| c.slice(start, end)).collect(),
            keys: self.keys.clone(),
            name: self.name.clone(),
        }
    }
}
