//! The working set of a query: the referenced columns of the source (shared `Arc`s until
//! rows are selected), the scopes that bind them for evaluation, `where` filtering, and a
//! builder that concatenates per-group results into one typed column.

use super::plan::COUNT_STAR;
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::kernels::cast::cast_column;
use crate::null::Native;
use crate::table::Table;
use crate::types::{common_type, DataType};
use crate::value::Value;
use ahash::{AHashMap, AHashSet};
use beluga_lang::ast::Expr;
use rayon::prelude::*;

/// Row counts above which column-parallel work goes to rayon.
pub(crate) const PAR_MIN_LEN: usize = 1 << 16;

pub(crate) type Scope = AHashMap<String, Value>;

#[derive(Clone, Debug, Default)]
pub(crate) struct Frame {
    /// Column names as in the source table, in source order.
    pub names: Vec<String>,
    pub cols: Vec<Column>,
    pub rows: usize,
    /// Other spellings used by the query (names are case-insensitive) → column index.
    pub aliases: Vec<(String, usize)>,
    /// Row numbers in the source table (None = all rows, in order); kept up to date only
    /// when `track` is set (update/delete need them, select does not).
    pub rowid: Option<Vec<usize>>,
    pub track: bool,
}

impl Frame {
    /// The referenced columns of a table (all of them when `all`).
    pub fn from_table(t: &Table, needed: &AHashSet<String>, all: bool) -> Frame {
        let mut f = Frame { rows: t.rows(), ..Frame::default() };
        let lower: AHashSet<String> = needed.iter().map(|n| n.to_ascii_lowercase()).collect();
        for (n, c) in t.names.iter().zip(&t.cols) {
            if all || needed.contains(n) || lower.contains(&n.to_ascii_lowercase()) {
                f.names.push(n.clone());
                f.cols.push(c.clone());
            }
        }
        for n in needed {
            if !f.names.iter().any(|x| x == n) {
                if let Some(k) = f.names.iter().position(|x| x.eq_ignore_ascii_case(n)) {
                    f.aliases.push((n.clone(), k));
                }
            }
        }
        f
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.names
            .iter()
            .position(|n| n == name)
            .or_else(|| self.aliases.iter().find(|(a, _)| a == name).map(|(_, k)| *k))
            .or_else(|| self.names.iter().position(|n| n.eq_ignore_ascii_case(name)))
    }

    pub fn has(&self, name: &str) -> bool {
        self.index(name).is_some()
    }

    /// Only the columns a set of names refers to (aliases kept).
    pub fn subset(&self, names: &AHashSet<String>) -> Frame {
        let keep: Vec<usize> = (0..self.names.len())
            .filter(|&k| {
                names.contains(&self.names[k])
                    || self.aliases.iter().any(|(a, j)| *j == k && names.contains(a))
                    || names.iter().any(|n| n.eq_ignore_ascii_case(&self.names[k]))
            })
            .collect();
        let pos = |k: usize| keep.iter().position(|&x| x == k);
        Frame {
            names: keep.iter().map(|&k| self.names[k].clone()).collect(),
            cols: keep.iter().map(|&k| self.cols[k].clone()).collect(),
            rows: self.rows,
            aliases: self.aliases.iter().filter_map(|(a, k)| pos(*k).map(|p| (a.clone(), p))).collect(),
            rowid: self.rowid.clone(),
            track: self.track,
        }
    }

    /// Bindings of every column (plus the row count for `count(*)`).
    pub fn scope(&self) -> Scope {
        bind(&self.names, &self.aliases, self.cols.iter().cloned(), self.rows)
    }

    /// Bindings of rows [start, end) (per-group evaluation over a permuted frame).
    pub fn slice_scope(&self, start: usize, end: usize) -> Scope {
        bind(&self.names, &self.aliases, self.cols.iter().map(|c| c.slice(start, end)), end - start)
    }

    /// The rows at `idx`, in that order.
    /// The frame with row r moved to position `dest[r]` (`dest` a permutation).
    pub fn scatter(&self, dest: &[u32]) -> Frame {
        let cols: Vec<Column> = if dest.len() >= PAR_MIN_LEN && self.cols.len() > 1 {
            self.cols.par_iter().map(|c| super::par::scatter(c, dest)).collect()
        } else {
            self.cols.iter().map(|c| super::par::scatter(c, dest)).collect()
        };
        let rowid = if self.track {
            let mut out = vec![0usize; dest.len()];
            for (r, &d) in dest.iter().enumerate() {
                out[d as usize] = self.rowid.as_ref().map_or(r, |v| v[r]);
            }
            Some(out)
        } else {
            None
        };
        Frame { names: self.names.clone(), cols, rows: dest.len(), aliases: self.aliases.clone(), rowid, track: self.track }
    }

    pub fn take(&self, idx: &[usize]) -> Frame {
        let cols: Vec<Column> = if idx.len() >= PAR_MIN_LEN && self.cols.len() > 1 {
            self.cols.par_iter().map(|c| super::par::take(c, idx)).collect()
        } else {
            self.cols.iter().map(|c| super::par::take(c, idx)).collect()
        };
        let rowid = if self.track {
            Some(match &self.rowid {
                Some(r) => idx.iter().map(|&k| r[k]).collect(),
                None => idx.to_vec(),
            })
        } else {
            None
        };
        Frame { names: self.names.clone(), cols, rows: idx.len(), aliases: self.aliases.clone(), rowid, track: self.track }
    }

    /// Source row numbers of the current rows (the frame must have been built with `track`).
    pub fn source_rows(&self) -> Vec<usize> {
        match &self.rowid {
            Some(r) => r.clone(),
            None => (0..self.rows).collect(),
        }
    }
}

fn bind(names: &[String], aliases: &[(String, usize)], cols: impl Iterator<Item = Column>, rows: usize) -> Scope {
    let mut s = Scope::with_capacity(names.len() + aliases.len() + 1);
    let cols: Vec<Column> = cols.collect();
    for (n, c) in names.iter().zip(&cols) {
        s.insert(n.clone(), Value::of_column(c.clone()));
    }
    for (a, k) in aliases {
        s.insert(a.clone(), Value::of_column(cols[*k].clone()));
    }
    s.insert(COUNT_STAR.to_string(), Value::int(rows as i32));
    s
}

/// Evaluate with a scope of column bindings pushed (popped on every path).
pub(crate) fn eval_in(i: &mut Interpreter, scope: Scope, e: &Expr) -> Result<Value> {
    i.col_scopes.push(scope);
    let r = i.eval(e);
    i.col_scopes.pop();
    r
}

/// Row selection of a condition's value: None when every row is kept.
pub(crate) fn to_mask(v: &Value, rows: usize) -> Result<Option<Vec<bool>>> {
    let col = match v {
        Value::Void => return Ok(Some(vec![false; rows])),
        Value::Scalar(_) => {
            return Ok(if crate::eval::ops::truthy(v)? { None } else { Some(vec![false; rows]) });
        }
        Value::Vector(c) => c,
        Value::Table(t) if t.ncols() == 1 => &t.cols[0],
        _ => return Err(Error::type_err("The where condition must be a logical expression")),
    };
    if col.len() != rows {
        if col.len() == 1 {
            return to_mask(&Value::Scalar(col.clone()), rows);
        }
        return Err(Error::size(format!(
            "The result of the where condition has {} rows but the table has {rows}",
            col.len()
        )));
    }
    if !(col.ty.is_numeric() || col.ty == DataType::Void) {
        return Err(Error::type_err(format!("The where condition must be BOOL, not {}", col.ty)));
    }
    let mask: Vec<bool> = match &*col.data {
        crate::column::ColData::I8(v) => v.iter().map(|&x| x != 0 && !x.is_null()).collect(),
        _ => crate::kernels::arith::as_native::<i64>(col).iter().map(|&x| x != 0 && !x.is_null()).collect(),
    };
    Ok(if mask.iter().all(|&m| m) { None } else { Some(mask) })
}

pub(crate) fn mask_rows(mask: &[bool]) -> Vec<usize> {
    mask.iter().enumerate().filter(|(_, m)| **m).map(|(k, _)| k).collect()
}

/// Apply comma-separated `where` conditions in order: each sees only the surviving rows.
pub(crate) fn apply_where(i: &mut Interpreter, mut frame: Frame, conds: &[Expr]) -> Result<Frame> {
    for c in conds {
        let v = eval_in(i, frame.scope(), c)?;
        if let Some(mask) = to_mask(&v, frame.rows)? {
            // every row passes (the usual case when the scan of a stored table already
            // applied this condition): the frame as is, not a copy of every column
            if !mask.iter().all(|&b| b) {
                frame = frame.take(&mask_rows(&mask));
            }
        }
    }
    Ok(frame)
}

/// Concatenates per-group results (scalars or vectors) into one column, promoting types.
#[derive(Default)]
pub struct ColBuilder {
    parts: Vec<Column>,
    /// Whether every part so far has the first part's type (fast append path).
    same: bool,
}

impl ColBuilder {
    pub fn new() -> ColBuilder {
        ColBuilder { parts: Vec::new(), same: true }
    }

    /// Add one group's value; `len` is the row count it must fill (scalars broadcast).
    pub fn push(&mut self, v: &Value, len: usize, what: &str) -> Result<()> {
        let col = match v {
            Value::Void => Column::nulls(DataType::Void, len),
            Value::Scalar(c) => {
                if len == 1 {
                    c.clone()
                } else {
                    c.take_usize(&vec![0; len])
                }
            }
            Value::Vector(c) | Value::Pair(c) if c.len() == len => c.clone(),
            Value::Vector(c) if c.len() == 1 => c.take_usize(&vec![0; len]),
            // an array vector (`toArray` per group, a row function's array result) is an `ELEM[]` column
            Value::ArrayVector(a) if a.rows() == len => Column::from_array(a.clone()),
            Value::ArrayVector(a) if a.rows() == 1 => Column::from_array(a.clone()).take_usize(&vec![0; len]),
            Value::Table(t) if t.ncols() == 1 && t.rows() == len => t.cols[0].clone(),
            other => {
                return Err(Error::size(format!(
                    "The result of {what} must be a scalar or a vector of the group size ({len}), not {} of size {}",
                    crate::eval::ops::describe(other),
                    other.size()
                )))
            }
        };
        if let Some(f) = self.parts.first() {
            if f.ty != col.ty {
                self.same = false;
            }
        }
        self.parts.push(col);
        Ok(())
    }

    pub fn finish(self) -> Result<Column> {
        if self.parts.is_empty() {
            return Ok(Column::nulls(DataType::Double, 0));
        }
        let mut ty = self.parts[0].ty;
        if !self.same {
            ty = DataType::Void;
            for p in &self.parts {
                ty = common_type(ty, p.ty).ok_or_else(|| {
                    Error::type_err(format!("The per-group results have incompatible types {ty} and {}", p.ty))
                })?;
            }
        }
        if self.parts.len() == 1 {
            return Ok(self.parts.into_iter().next().unwrap_or_else(|| Column::nulls(ty, 0)));
        }
        let conv: Vec<Column> = self
            .parts
            .iter()
            .map(|p| {
                if p.ty == ty {
                    Ok(p.clone())
                } else if p.ty == DataType::Void {
                    Ok(Column::nulls(ty, p.len()))
                } else {
                    cast_column(p, ty)
                }
            })
            .collect::<Result<_>>()?;
        let refs: Vec<&Column> = conv.iter().collect();
        Ok(Column::concat(ty, &refs))
    }
}

/// A scalar broadcast to `n` rows, or a vector checked to have `n` rows.
pub(crate) fn to_column(v: &Value, n: usize, what: &str) -> Result<Column> {
    let mut b = ColBuilder::new();
    b.push(v, n, what)?;
    b.finish()
}
