//! In-memory tables: ordered, named, equal-length typed columns.

use crate::column::Column;
use crate::types::DataType;
use crate::value::Value;
use crate::error::{Error, Result};

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub names: Vec<String>,
    pub cols: Vec<Column>,
    /// Key columns of a keyed/indexed table (empty for a plain table).
    pub keys: Vec<String>,
    /// Name used for join prefixes (`t2_x`), when known.
    pub name: Option<String>,
    /// A keyed table's key index and options (keyindex.rs); empty for a plain table.
    pub keyed: crate::keyindex::KeyState,
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
        Ok(Table { names, cols, keys: Vec::new(), name: None, keyed: Default::default() })
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
            keyed: self.keyed.without_index(),
        }
    }
    pub fn take_usize(&self, idx: &[usize]) -> Table {
        Table {
            names: self.names.clone(),
            cols: self.cols.iter().map(|c| c.take_usize(idx)).collect(),
            keys: self.keys.clone(),
            name: self.name.clone(),
            keyed: self.keyed.without_index(),
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
            keyed: self.keyed.without_index(),
        }
    }
}

/// Build a table from already-evaluated columns and names (used by the interpreter for `table(x as a, y)`).
pub fn table_from(names: Vec<String>, vals: Vec<Value>) -> Result<Value> {
    let mut out_names = Vec::new();
    let mut cols = Vec::new();
    let mut n: Option<usize> = None;
    for v in &vals {
        let len = match v {
            Value::Vector(c) | Value::Pair(c) => Some(c.len()),
            Value::ArrayVector(a) => Some(a.rows()),
            Value::Matrix(m) => Some(m.rows),
            Value::Table(t) => Some(t.rows()),
            Value::Tuple(t) => t.first().map(|x| x.size()),
            _ => None,
        };
        if n.is_none() {
            n = len;
        }
    }
    let n = n.unwrap_or(1);
    for (name, v) in names.into_iter().zip(vals) {
        match v {
            Value::Vector(c) | Value::Pair(c) => {
                out_names.push(name);
                cols.push(c);
            }
            Value::Scalar(c) => {
                out_names.push(name);
                cols.push(c.take(&vec![0; n]));
            }
            Value::Void => {
                out_names.push(name);
                cols.push(Column::nulls(DataType::Void, n));
            }
            Value::Matrix(m) => {
                for k in 0..m.cols {
                    out_names.push(format!("C{k}"));
                    cols.push(m.column(k));
                }
            }
            Value::Table(t) => {
                for (nm, c) in t.names.iter().zip(&t.cols) {
                    out_names.push(nm.clone());
                    cols.push(c.clone());
                }
            }
            Value::Tuple(items) => {
                for (k, it) in items.iter().enumerate() {
                    let c = it.column().cloned().ok_or_else(|| Error::arg("table: tuple elements must be vectors"))?;
                    out_names.push(format!("C{k}"));
                    cols.push(c);
                }
            }
            // an array vector becomes an `ELEM[]` column sharing its offsets and data
            Value::ArrayVector(a) => {
                out_names.push(name);
                cols.push(Column::from_array(a));
            }
            other => return Err(Error::arg(format!("table: can't make a column from {}", crate::value::describe(&other)))),
        }
    }
    Ok(Value::table(Table::new(out_names, cols)?))
}

