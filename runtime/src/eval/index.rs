//! Indexing `x[i]`, slicing, and indexed assignment `x[i] = v`.

use super::expr::build_dict;
use super::{ops, Interpreter};
use crate::column::{ColData, Column};
use crate::error::{Error, Result};
use crate::null::Native;
use crate::table::Table;
use crate::types::DataType;
use crate::value::{Dict, DictVals, Key, Matrix, Value};
use beluga_lang::ast::Expr;
use std::sync::Arc;

/// How an index value selects positions of a sequence of length n.
enum Sel {
    One(i64),
    Many(Vec<i64>),
}

fn is_open_pair(c: &Column) -> bool {
    c.ty == DataType::Int && c.len() == 2
}

/// Positions selected by an index value over a sequence of length `n`.
fn selection(idx: &Value, n: usize) -> Result<Sel> {
    match idx {
        Value::Scalar(c) if c.ty.is_numeric() || c.ty.is_temporal() => Ok(Sel::One(c.i64_at(0).unwrap_or(-1))),
        Value::Void => Ok(Sel::One(-1)),
        Value::Pair(c) => {
            let a = c.i64_at(0);
            let b = c.i64_at(1);
            let _ = is_open_pair(c);
            let (a, b) = (a.unwrap_or(0), b.unwrap_or(n as i64));
            let v: Vec<i64> = if a <= b { (a..b).collect() } else { (b..a).rev().collect() };
            Ok(Sel::Many(v))
        }
        Value::Vector(c) if c.ty == DataType::Bool => {
            let v: Vec<i64> = (0..c.len()).filter(|&i| c.i64_at(i).map(|x| x != 0).unwrap_or(false)).map(|i| i as i64).collect();
            Ok(Sel::Many(v))
        }
        Value::Vector(c) if c.ty.is_numeric() => {
            Ok(Sel::Many((0..c.len()).map(|i| c.i64_at(i).unwrap_or(-1)).collect()))
        }
        _ => Err(Error::arg(format!("Invalid index: {}", ops::describe(idx)))),
    }
}

impl Interpreter {
    pub fn eval_index(&mut self, t: &Expr, idx: &[Option<Expr>]) -> Result<Value> {
        let tv = self.eval(t)?;
        if let Value::Function(_) = &tv {
            let args: Vec<Value> = idx
                .iter()
                .map(|e| e.as_ref().map(|e| self.eval(e)).unwrap_or(Ok(Value::Void)))
                .collect::<Result<_>>()?;
            return self.call_value(&tv, args);
        }
        let mut vals = Vec::with_capacity(idx.len());
        for e in idx {
            vals.push(match e {
                Some(e) => {
                    let v = self.eval(e)?;
                    // a predicate index filters: dates[x -> weekday(x) > 1]
                    if let Value::Function(_) = v {
                        let mask = self.call_value(&v, vec![tv.clone()])?;
                        mask
                    } else {
                        v
                    }
                }
                None => Value::Void,
            });
        }
        if idx.len() == 2 && idx[0].is_none() {
            return self.index_all_rows(tv, vals.pop().unwrap_or(Value::Void));
        }
        self.index_value(tv, vals)
    }

    /// `x[, j]`: column selection for matrices/tables, element j of every tuple member.
    fn index_all_rows(&mut self, tv: Value, j: Value) -> Result<Value> {
        match &tv {
            Value::Tuple(t) => {
                let items: Vec<Value> = t.iter().map(|x| self.index_value(x.clone(), vec![j.clone()])).collect::<Result<_>>()?;
                Ok(super::unify_scalars(&items)?.unwrap_or(Value::tuple(items)))
            }
            // `t[, 1]`: every row, columns by position (not row 1)
            Value::Table(_) => self.index2(tv, &Value::Void, &j),
            // `m[, j]` keeps the matrix form: a scalar j is an n×1 sub-matrix (the manual's
            // matrix page: `m[1]` is a vector, `m[,1]` a one-column matrix)
            Value::Matrix(m) if j.is_scalar() => match selection(&j, m.cols)? {
                Sel::One(k) if k >= 0 && (k as usize) < m.cols => sub_matrix(m, None, Some(&[k])),
                Sel::One(k) => Err(Error::arg(format!("The column index {k} is out of range"))),
                Sel::Many(v) => sub_matrix(m, None, Some(&v)),
            },
            Value::Matrix(_) => self.index_value(tv, vec![j]),
            _ => self.index_value(tv, vec![j]),
        }
    }

    pub fn eval_index_arg(&mut self, e: &Expr, _target: &str) -> Result<Value> {
        self.eval(e)
    }

    /// `target[idx...]` on evaluated values.
    pub fn index_value(&mut self, target: Value, idx: Vec<Value>) -> Result<Value> {
        if idx.len() == 2 {
            return self.index2(target, &idx[0], &idx[1]);
        }
        let i = idx.into_iter().next().unwrap_or(Value::Void);
        match &target {
            Value::Vector(c) | Value::Pair(c) => Ok(match selection(&i, c.len())? {
                Sel::One(k) => Value::Scalar(c.take(&[k])),
                Sel::Many(v) => Value::Vector(c.take(&v)),
            }),
            Value::Tuple(t) => Ok(match selection(&i, t.len())? {
                Sel::One(k) => {
                    if k >= 0 && (k as usize) < t.len() {
                        t[k as usize].clone()
                    } else {
                        Value::Void
                    }
                }
                Sel::Many(v) => Value::tuple(
                    v.iter()
                        .map(|&k| if k >= 0 && (k as usize) < t.len() { t[k as usize].clone() } else { Value::Void })
                        .collect(),
                ),
            }),
            Value::Matrix(m) => match selection(&i, m.cols)? {
                Sel::One(k) => {
                    if k >= 0 && (k as usize) < m.cols {
                        Ok(Value::Vector(m.column(k as usize)))
                    } else {
                        Err(Error::arg(format!("The column index {k} is out of range")))
                    }
                }
                Sel::Many(v) => sub_matrix(m, None, Some(&v)),
            },
            Value::Table(t) => self.index_table(t, &i),
            Value::Dict(d) => dict_get(d, &i),
            Value::Set(s) => ops::in_values(&i, &Value::Set(s.clone())),
            Value::Scalar(_) => Ok(target.clone()),
            // `INT[]`: the array-vector type
            Value::Type(t) if matches!(i, Value::Void) => match crate::value::array_type(*t) {
                Some((name, id)) => Ok(Value::Constant(name, id)),
                None => Err(Error::type_err(format!("{t} has no array vector type"))),
            },
            // `a[a > 3]`, `at(a, a > 3)`: a BOOL array vector of the same shape filters
            // within every row
            Value::ArrayVector(a) if matches!(&i, Value::ArrayVector(_)) => {
                let Value::ArrayVector(m) = &i else { unreachable!() };
                if m.offsets != a.offsets || m.data.ty != DataType::Bool {
                    return Err(Error::arg("An array vector index must be a BOOL array vector of the same shape"));
                }
                let mut offsets = Vec::with_capacity(a.offsets.len());
                offsets.push(0usize);
                let mut pos = Vec::new();
                for r in 0..a.rows() {
                    for p in a.offsets[r]..a.offsets[r + 1] {
                        if m.data.i64_at(p) == Some(1) {
                            pos.push(p as i64);
                        }
                    }
                    offsets.push(pos.len());
                }
                Ok(Value::ArrayVector(Arc::new(crate::value::ArrayVec::new(offsets, a.data.take(&pos)))))
            }
            // array vectors (tutorials/Array_Vector.md): a scalar index is a column (element k
            // of every row, null where a row is shorter), a vector index selects rows, and a
            // pair `a:b` selects columns a..b-1 of every row, padded with nulls to b-a when
            // the end is given (`1:` keeps what each row has)
            Value::ArrayVector(a) => match &i {
                Value::Vector(c) if c.ty.is_numeric() && c.ty != DataType::Bool => {
                    let rows: Vec<i64> = (0..c.len()).map(|k| c.i64_at(k).unwrap_or(-1)).collect();
                    Ok(Value::ArrayVector(Arc::new(a.take(&rows))))
                }
                Value::Pair(c) => {
                    let lo = c.i64_at(0).unwrap_or(0);
                    let hi = c.i64_at(1);
                    if lo < 0 || hi.is_some_and(|h| h <= lo) {
                        return Err(Error::arg("An array vector column range a:b needs 0 <= a < b"));
                    }
                    let mut offsets = Vec::with_capacity(a.offsets.len());
                    offsets.push(0usize);
                    let mut pos = Vec::new();
                    for r in 0..a.rows() {
                        let len = a.row_len(r) as i64;
                        let base = a.offsets[r] as i64;
                        match hi {
                            Some(h) => pos.extend((lo..h).map(|k| if k < len { base + k } else { -1 })),
                            None => pos.extend((lo..len).map(|k| base + k)),
                        }
                        offsets.push(pos.len());
                    }
                    Ok(Value::ArrayVector(Arc::new(crate::value::ArrayVec::new(offsets, a.data.take(&pos)))))
                }
                _ => Ok(match selection(&i, a.width())? {
                    Sel::One(k) => {
                        if k >= 0 && (k as usize) < a.width() {
                            Value::Vector(a.padded()[k as usize].clone())
                        } else {
                            Value::Vector(Column::nulls(a.data.ty, a.rows()))
                        }
                    }
                    Sel::Many(v) => Value::ArrayVector(Arc::new(a.take(&v))),
                }),
            },
            // a stored table is indexed as its loaded rows (`pt[0:20]`, `pt[`col]`)
            Value::Handle(h) if h.table_source().is_some() => {
                let t = match h.table_source() {
                    Some(src) => src.table()?,
                    None => return Err(Error::runtime("internal: the table source went away")),
                };
                self.index_value(Value::table(t), vec![i])
            }
            other => Err(Error::type_err(format!("{} can't be indexed", ops::describe(other)))),
        }
    }

    fn index2(&mut self, target: Value, i: &Value, j: &Value) -> Result<Value> {
        match &target {
            Value::Matrix(m) => {
                let rows = match selection(i, m.rows) {
                    Ok(s) if !matches!(i, Value::Void) => Some(s),
                    _ => None,
                };
                let cols = match selection(j, m.cols) {
                    Ok(s) if !matches!(j, Value::Void) => Some(s),
                    _ => None,
                };
                match (&rows, &cols) {
                    (Some(Sel::One(r)), Some(Sel::One(c))) => {
                        let (r, c) = (*r, *c);
                        if r < 0 || c < 0 || r as usize >= m.rows || c as usize >= m.cols {
                            return Ok(Value::null_of(m.data.ty));
                        }
                        Ok(Value::Scalar(m.data.take(&[(c as usize * m.rows + r as usize) as i64])))
                    }
                    (rs, cs) => {
                        let rv = rs.as_ref().map(|s| match s {
                            Sel::One(x) => vec![*x],
                            Sel::Many(v) => v.clone(),
                        });
                        let cv = cs.as_ref().map(|s| match s {
                            Sel::One(x) => vec![*x],
                            Sel::Many(v) => v.clone(),
                        });
                        let sub = sub_matrix(m, rv.as_deref(), cv.as_deref())?;
                        // one column selected by scalar → vector
                        if let (Some(Sel::One(_)), Value::Matrix(sm)) = (cs, &sub) {
                            return Ok(Value::Vector(sm.data.clone()));
                        }
                        // `m[i, ]` (all columns) stays a 1×n matrix; `m[i, cols]` is a vector
                        if let (Some(Sel::One(_)), Value::Matrix(sm)) = (rs, &sub) {
                            if !matches!(j, Value::Void) {
                                return Ok(Value::Vector(sm.data.clone()));
                            }
                        }
                        Ok(sub)
                    }
                }
            }
            Value::Table(t) => {
                // t[rows, cols]
                let sub = if matches!(i, Value::Void) { (**t).clone() } else {
                    match self.index_table(t, i)? {
                        Value::Table(x) => (*x).clone(),
                        Value::Dict(_) => {
                            let k = i.as_i64().unwrap_or(0);
                            t.take(&[k])
                        }
                        _ => (**t).clone(),
                    }
                };
                // columns by position: t[:, 1:4], t[rows, [0, 2]], t[rows, 1]
                let by_position = match j {
                    Value::Pair(c) => c.ty.is_numeric() || c.ty == DataType::Void,
                    Value::Vector(c) => c.ty.is_numeric() && c.ty != DataType::Bool,
                    Value::Scalar(c) => c.ty.is_numeric() && c.ty != DataType::Bool,
                    _ => false,
                };
                if by_position {
                    let n = sub.ncols();
                    let pick = |k: i64| -> Result<usize> {
                        let k = if k < 0 { k + n as i64 } else { k };
                        if k < 0 || k as usize >= n {
                            return Err(Error::arg(format!("The column index {k} is out of range (the table has {n} columns)")));
                        }
                        Ok(k as usize)
                    };
                    return match selection(j, n)? {
                        // one row and one column: the cell; rows and one column: a
                        // one-column table (`t1[1:3, 1]`, progr/data_types_forms/Table.md)
                        Sel::One(k) => {
                            let k = pick(k)?;
                            let c = sub.cols[k].clone();
                            if i.is_scalar() && c.len() == 1 {
                                Ok(Value::Scalar(c))
                            } else {
                                Ok(Value::table(Table::new(vec![sub.names[k].clone()], vec![c])?))
                            }
                        }
                        Sel::Many(v) => {
                            let ks: Vec<usize> = v.iter().map(|&k| pick(k)).collect::<Result<_>>()?;
                            let names: Vec<String> = ks.iter().map(|&k| sub.names[k].clone()).collect();
                            let cols: Vec<_> = ks.iter().map(|&k| sub.cols[k].clone()).collect();
                            Ok(Value::table(Table::new(names, cols)?))
                        }
                    };
                }
                let r = self.index_table(&Arc::new(sub), j)?;
                Ok(r)
            }
            // `x[r, c]`: rows r (a scalar is one row), then column c of them
            Value::ArrayVector(_) => {
                let rows = match i {
                    Value::Scalar(c) if c.ty.is_numeric() => Value::Vector(c.clone()),
                    other => other.clone(),
                };
                let sub = self.index_value(target.clone(), vec![rows])?;
                self.index_value(sub, vec![j.clone()])
            }
            Value::Tuple(t) => {
                let row = self.index_value(target.clone(), vec![i.clone()])?;
                match &row {
                    Value::Tuple(items) if !i.is_scalar() => {
                        let _ = t;
                        let items: Vec<Value> = items.iter().map(|x| self.index_value(x.clone(), vec![j.clone()])).collect::<Result<_>>()?;
                        Ok(Value::tuple(items))
                    }
                    _ => self.index_value(row, vec![j.clone()]),
                }
            }
            _ => {
                let row = self.index_value(target, vec![i.clone()])?;
                self.index_value(row, vec![j.clone()])
            }
        }
    }

    fn index_table(&mut self, t: &Arc<Table>, i: &Value) -> Result<Value> {
        if i.data_type().is_literal() {
            let c = i.column().cloned().ok_or_else(|| Error::arg("Invalid column index"))?;
            if i.is_scalar() {
                let name = c.str_at(0).unwrap_or("");
                return t
                    .column(name)
                    .map(|c| Value::of_column(c.clone()))
                    .ok_or_else(|| Error::name(format!("Unrecognized column name [{name}]")));
            }
            // several columns: a tuple of the column vectors
            let mut cols = Vec::new();
            for k in 0..c.len() {
                let name = c.str_at(k).unwrap_or("");
                let col = t.column(name).ok_or_else(|| Error::name(format!("Unrecognized column name [{name}]")))?;
                cols.push(Value::of_column(col.clone()));
            }
            return Ok(Value::tuple(cols));
        }
        match selection(i, t.rows())? {
            Sel::One(k) => {
                // a row as an ordered dictionary
                let keys: Vec<Value> = t.names.iter().map(|n| Value::string(n)).collect();
                let vals: Vec<Value> = t.cols.iter().map(|c| Value::Scalar(c.take(&[k]))).collect();
                let d = build_dict(&keys, vals, false)?;
                Ok(d)
            }
            Sel::Many(v) => Ok(Value::table(t.take(&v))),
        }
    }

    /// `target[idx] = v` on values; returns the updated target.
    pub fn assign_index(&mut self, target: Value, idx: &[Option<Value>], v: Value) -> Result<Value> {
        let i = idx.first().cloned().flatten().unwrap_or(Value::Void);
        // `d[k1, k2, k3] = [v1, v2, v3]` (funcs/i/in.md): several keys of a typed dictionary
        // at once; an ANY dictionary with two indexes keeps the nested `d[k1][k2]` meaning
        if let Value::Dict(d) = &target {
            if idx.len() >= 3 || (idx.len() == 2 && d.val_type != DataType::Any) {
                let keys: Vec<Value> = idx
                    .iter()
                    .map(|k| k.clone().ok_or_else(|| Error::arg("A dictionary key can't be empty")))
                    .collect::<Result<_>>()?;
                let n = keys.len();
                let mut d = (**d).clone();
                for (k, key) in keys.iter().enumerate() {
                    let part = match &v {
                        Value::Vector(c) if c.len() == n => Value::Scalar(c.slice(k, k + 1)),
                        Value::Tuple(t) if t.len() == n => t[k].clone(),
                        other => other.clone(),
                    };
                    d = dict_set(d, key, &part)?;
                }
                return Ok(Value::Dict(Arc::new(d)));
            }
        }
        if idx.len() == 2 {
            let j = idx[1].clone().unwrap_or(Value::Void);
            return match target {
                Value::Table(t) => {
                    // t[`col, rowsOrMask] = v
                    let mut t = Arc::unwrap_or_clone(t);
                    let name = i.as_str().ok_or_else(|| Error::arg("The first index of a table assignment must be a column name"))?.to_string();
                    let col = match t.column(&name) {
                        Some(c) => c.clone(),
                        None => Column::nulls(v.data_type(), t.rows()),
                    };
                    let pos = positions(&selection(&j, t.rows())?, t.rows())?;
                    let newc = set_elements(&col, &pos, &v)?;
                    t.set_column(&name, newc)?;
                    Ok(Value::table(t))
                }
                Value::Matrix(m) => {
                    let mut m = Arc::unwrap_or_clone(m);
                    // an empty slot (`m[i,] = X`, `m[,j] = X`) stands for every row or column
                    let rs = if idx[0].is_none() { (0..m.rows).collect() } else { positions(&selection(&i, m.rows)?, m.rows)? };
                    let cs = if idx[1].is_none() { (0..m.cols).collect() } else { positions(&selection(&j, m.cols)?, m.cols)? };
                    let mut pos = Vec::new();
                    for &c in &cs {
                        for &r in &rs {
                            pos.push(c * m.rows + r);
                        }
                    }
                    m.data = set_elements(&m.data, &pos, &v)?;
                    Ok(Value::Matrix(Arc::new(m)))
                }
                Value::ArrayVector(a) => {
                    let rows_all = idx[0].is_none();
                    Ok(Value::ArrayVector(Arc::new(assign_array_cells(&a, if rows_all { None } else { Some(&i) }, &j, &v)?)))
                }
                other => {
                    let inner = self.index_value(other.clone(), vec![i.clone()])?;
                    let updated = self.assign_index(inner, &[Some(j)], v)?;
                    self.assign_index(other, &[Some(i)], updated)
                }
            };
        }
        match target {
            Value::Vector(c) => {
                let pos = positions(&selection(&i, c.len())?, c.len())?;
                Ok(Value::Vector(set_elements(&c, &pos, &v)?))
            }
            Value::Pair(c) => {
                let pos = positions(&selection(&i, c.len())?, c.len())?;
                Ok(Value::Pair(set_elements(&c, &pos, &v)?))
            }
            Value::Tuple(t) => {
                let mut t = Arc::unwrap_or_clone(t);
                let pos = positions(&selection(&i, t.len())?, t.len())?;
                for (k, p) in pos.iter().enumerate() {
                    t[*p] = match (&v, pos.len()) {
                        (_, 1) => v.clone(),
                        (Value::Tuple(vs), _) => vs.get(k).cloned().unwrap_or(Value::Void),
                        (Value::Vector(c), _) => Value::Scalar(c.slice(k, k + 1)),
                        _ => v.clone(),
                    };
                }
                Ok(Value::tuple(t))
            }
            Value::Table(t) => {
                let mut t = Arc::unwrap_or_clone(t);
                if let Some(c) = i.column().filter(|c| c.ty.is_literal()) {
                    let names: Vec<String> = (0..c.len()).map(|k| c.str_at(k).unwrap_or("").to_string()).collect();
                    for (k, name) in names.iter().enumerate() {
                        let part = if names.len() == 1 {
                            v.clone()
                        } else {
                            match &v {
                                Value::Tuple(vs) => vs.get(k).cloned().unwrap_or(Value::Void),
                                other => other.clone(),
                            }
                        };
                        let col = match part {
                            Value::Vector(c) => c,
                            Value::Scalar(c) => {
                                let n = if t.ncols() == 0 { 1 } else { t.rows() };
                                c.take(&vec![0; n])
                            }
                            Value::Void => Column::nulls(DataType::Double, t.rows()),
                            // an array vector becomes an `ELEM[]` column, as in table(av as c)
                            Value::ArrayVector(a) => Column::from_array(a),
                            other => return Err(Error::arg(format!("Can't assign {} to a table column", ops::describe(&other)))),
                        };
                        t.set_column(name, col)?;
                    }
                    return Ok(Value::table(t));
                }
                Err(Error::arg("A table can only be assigned by column name"))
            }
            Value::Dict(d) => Ok(Value::Dict(Arc::new(dict_set(Arc::unwrap_or_clone(d), &i, &v)?))),
            Value::Matrix(m) => {
                let mut m = Arc::unwrap_or_clone(m);
                let cs = positions(&selection(&i, m.cols)?, m.cols)?;
                let mut pos = Vec::new();
                for &c in &cs {
                    for r in 0..m.rows {
                        pos.push(c * m.rows + r);
                    }
                }
                m.data = set_elements(&m.data, &pos, &v)?;
                Ok(Value::Matrix(Arc::new(m)))
            }
            other => Err(Error::type_err(format!("{} can't be assigned by index", ops::describe(&other)))),
        }
    }
}

/// `a[rowIndex, colIndex] = v` on an array vector (progr/data_types_forms/arrayVector.md):
/// rows are a scalar or a pair (all rows when omitted), columns a scalar or a pair; `v` is
/// a scalar (every cell), a vector as long as the columns (the same cells of every row), or
/// a vector/tuple as long as the rows (one scalar or one column-length vector per row).
/// A cell past the end of its row is an error.
fn assign_array_cells(a: &crate::value::ArrayVec, rows: Option<&Value>, cols: &Value, v: &Value) -> Result<crate::value::ArrayVec> {
    let nrows = a.rows();
    let rs: Vec<usize> = match rows {
        None => (0..nrows).collect(),
        Some(r) => positions(&selection(r, nrows)?, nrows)?,
    };
    let cs: Vec<i64> = match selection(cols, a.width())? {
        Sel::One(k) => vec![k],
        Sel::Many(v) => v,
    };
    let mut pos = Vec::with_capacity(rs.len() * cs.len());
    for &r in &rs {
        for &c in &cs {
            if c < 0 || c as usize >= a.row_len(r) {
                return Err(Error::arg(format!("The column index {c} is out of range for row {r} of the array vector")));
            }
            pos.push(a.offsets[r] + c as usize);
        }
    }
    let (nr, nc) = (rs.len(), cs.len());
    // the value of cell (row k, column q) as an index into one flat column of values
    let (vals, idx): (Column, Vec<i64>) = match v {
        Value::Scalar(c) => (c.clone(), vec![0; nr * nc]),
        Value::Vector(c) if c.len() == nc => (c.clone(), (0..nr).flat_map(|_| 0..nc as i64).collect()),
        Value::Vector(c) if c.len() == nr => (c.clone(), (0..nr as i64).flat_map(|k| std::iter::repeat(k).take(nc)).collect()),
        Value::Tuple(items) if items.len() == nr => {
            let mut parts = Vec::with_capacity(nr);
            let mut idx = Vec::with_capacity(nr * nc);
            let mut base = 0i64;
            for it in items.iter() {
                let c = it.column().cloned().ok_or_else(|| Error::arg("Each element of the new values must be a scalar or a vector"))?;
                match c.len() {
                    1 => idx.extend(std::iter::repeat(base).take(nc)),
                    l if l == nc => idx.extend(base..base + nc as i64),
                    _ => return Err(Error::size("Each vector of the new values must have one value per column index")),
                }
                base += c.len() as i64;
                parts.push(c);
            }
            let ty = parts.first().map(|c| c.ty).unwrap_or(a.data.ty);
            let refs: Vec<&Column> = parts.iter().collect();
            (Column::concat(ty, &refs), idx)
        }
        other => {
            return Err(Error::arg(format!(
                "The new value of an array-vector assignment must be a scalar, a vector or a tuple matching the indices, not {}",
                ops::describe(other)
            )))
        }
    };
    let data = set_elements(&a.data, &pos, &Value::Vector(vals.take(&idx)))?;
    Ok(crate::value::ArrayVec::new(a.offsets.clone(), data))
}

fn positions(sel: &Sel, n: usize) -> Result<Vec<usize>> {
    let check = |k: i64| -> Result<usize> {
        if k < 0 || k as usize >= n {
            Err(Error::arg(format!("Index {k} out of range (size {n}); use append! to add elements")))
        } else {
            Ok(k as usize)
        }
    };
    match sel {
        Sel::One(k) => Ok(vec![check(*k)?]),
        Sel::Many(v) => v.iter().map(|&k| check(k)).collect(),
    }
}

/// Write `v` (scalar broadcast or one value per position) into positions of `col`.
pub fn set_elements(col: &Column, pos: &[usize], v: &Value) -> Result<Column> {
    let src = match v {
        Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => c.clone(),
        Value::Void => Column::nulls(col.ty, 1),
        other => return Err(Error::arg(format!("Can't assign {} to vector elements", ops::describe(other)))),
    };
    if src.len() != 1 && src.len() != pos.len() {
        return Err(Error::size(format!(
            "The number of values ({}) doesn't match the number of positions ({})",
            src.len(),
            pos.len()
        )));
    }
    let src = if src.ty != col.ty && !(src.ty.is_literal() && col.ty.is_literal()) {
        crate::kernels::cast::cast_column(&src, col.ty)?
    } else {
        src
    };
    fn scatter<T: Native>(dst: &mut [T], src: &[T], pos: &[usize]) {
        for (k, &p) in pos.iter().enumerate() {
            dst[p] = if src.len() == 1 { src[0] } else { src[k] };
        }
    }
    let mut out = col.clone();
    crate::zip_numeric!((out.data_mut(), &*src.data), (d, s) => scatter(d, s, pos),
        (ColData::Sym(d), _) => {
            for (k, &p) in pos.iter().enumerate() {
                let s = src.str_at(if src.len() == 1 { 0 } else { k }).unwrap_or("").to_string();
                let code = Arc::make_mut(&mut d.dict).intern(&s);
                d.codes[p] = code;
            }
        },
        (ColData::Str(d), _) => {
            let mut texts: Vec<String> = d.iter().map(|s| s.to_string()).collect();
            for (k, &p) in pos.iter().enumerate() {
                texts[p] = src.str_at(if src.len() == 1 { 0 } else { k }).unwrap_or("").to_string();
            }
            *d = crate::column::StrCol::from_iter(texts.iter().map(|s| s.as_str()));
        },
        _ => return Err(Error::type_err(format!("Can't assign {} values to a {} vector", src.ty, col.ty))),
    );
    Ok(out)
}

fn sub_matrix(m: &Matrix, rows: Option<&[i64]>, cols: Option<&[i64]>) -> Result<Value> {
    let rv: Vec<i64> = rows.map(|r| r.to_vec()).unwrap_or_else(|| (0..m.rows as i64).collect());
    let cv: Vec<i64> = cols.map(|c| c.to_vec()).unwrap_or_else(|| (0..m.cols as i64).collect());
    let mut idx = Vec::with_capacity(rv.len() * cv.len());
    for &c in &cv {
        for &r in &rv {
            if c < 0 || r < 0 || c as usize >= m.cols || r as usize >= m.rows {
                idx.push(-1);
            } else {
                idx.push(c * m.rows as i64 + r);
            }
        }
    }
    let pick_labels = |l: &Option<Box<Value>>, sel: &[i64]| -> Option<Box<Value>> {
        l.as_ref().and_then(|v| v.column().map(|c| Box::new(Value::Vector(c.take(sel)))))
    };
    Ok(Value::Matrix(Arc::new(Matrix {
        data: m.data.take(&idx),
        rows: rv.len(),
        cols: cv.len(),
        row_labels: pick_labels(&m.row_labels, &rv),
        col_labels: pick_labels(&m.col_labels, &cv),
        indexed: m.indexed,
    })))
}

pub fn dict_get(d: &Dict, i: &Value) -> Result<Value> {
    let kc = match i {
        Value::Scalar(c) | Value::Vector(c) => c.clone(),
        Value::Void => Column::nulls(d.key_type, 1),
        other => return Err(Error::arg(format!("Invalid dictionary key: {}", ops::describe(other)))),
    };
    let kc = if kc.ty != d.key_type && !(kc.ty.is_literal() && d.key_type.is_literal()) {
        crate::kernels::cast::cast_column(&kc, d.key_type).unwrap_or(kc)
    } else {
        kc
    };
    let found: Vec<i64> = (0..kc.len()).map(|k| d.index.get(&Key::of(&kc, k)).map(|&p| p as i64).unwrap_or(-1)).collect();
    match &d.vals {
        DictVals::Col(c) => {
            let r = c.take(&found);
            Ok(if i.is_scalar() { Value::Scalar(r) } else { Value::Vector(r) })
        }
        DictVals::Any(vs) => {
            let items: Vec<Value> = found.iter().map(|&p| if p >= 0 { vs[p as usize].clone() } else { Value::Void }).collect();
            if i.is_scalar() {
                Ok(items.into_iter().next().unwrap_or(Value::Void))
            } else {
                Ok(super::unify_scalars(&items)?.unwrap_or(Value::tuple(items)))
            }
        }
    }
}

/// Insert or update keys of a dictionary.
/// `x[i] = s` done in place for one scalar index and a scalar of the element's own type
/// (a vector element, or a typed dictionary's entry): loops that fill a vector or a state
/// dictionary element by element cost O(1) per assignment, where the general path
/// ([`Interpreter::assign_index`]) builds a new object (20,000 `d[k] = v` took 2.5 s).
/// Everything is checked before anything changes, so an error leaves `x` as it was;
/// `Ok(false)`: not this case, nothing touched. An object shared with another variable is
/// copied once by `make_mut`, then owned.
pub fn assign_scalar_in_place(x: &mut Value, i: &Value, v: &Value) -> Result<bool> {
    let (Value::Scalar(k), Value::Scalar(s)) = (i, v) else { return Ok(false) };
    if k.len() != 1 || s.len() != 1 {
        return Ok(false);
    }
    /// element `p` of `dst` := element 0 of `src`, both of one numeric physical type
    fn put(dst: &mut ColData, p: usize, src: &ColData) -> bool {
        crate::zip_numeric!((dst, src), (d, s) => { d[p] = s[0]; true }, _ => false)
    }
    let numeric = |c: &Column| c.ty == s.ty && !matches!(&*c.data, ColData::Str(_) | ColData::Sym(_) | ColData::Array(_));
    match x {
        Value::Vector(c) => {
            if !numeric(c) || !k.ty.is_integral() {
                return Ok(false);
            }
            let Some(p) = k.i64_at(0).filter(|&p| p >= 0 && (p as usize) < c.len()) else { return Ok(false) };
            Ok(put(c.data_mut(), p as usize, &s.data))
        }
        Value::Dict(d) => {
            let DictVals::Col(vals) = &d.vals else { return Ok(false) };
            let key_fits = k.ty == d.keys.ty || (k.ty.is_literal() && d.keys.ty.is_literal());
            if !numeric(vals) || !key_fits || d.keys.ty == DataType::Void || d.val_type == DataType::Any {
                return Ok(false);
            }
            let key = Key::of(k, 0);
            let d = Arc::make_mut(d);
            let DictVals::Col(vals) = &mut d.vals else { unreachable!("checked above") };
            match d.index.get(&key) {
                Some(&p) => Ok(put(vals.data_mut(), p, &s.data)),
                None => {
                    d.index.insert(key, d.keys.len());
                    d.keys.append(k);
                    vals.append(s);
                    Ok(true)
                }
            }
        }
        _ => Ok(false),
    }
}

pub fn dict_set(mut d: Dict, i: &Value, v: &Value) -> Result<Dict> {
    let kc = match i {
        Value::Scalar(c) | Value::Vector(c) => c.clone(),
        other => return Err(Error::arg(format!("Invalid dictionary key: {}", ops::describe(other)))),
    };
    let kc = if kc.ty != d.keys.ty && !(kc.ty.is_literal() && d.keys.ty.is_literal()) && d.keys.ty != DataType::Void {
        let cast = crate::kernels::cast::cast_column(&kc, d.keys.ty)?;
        // a key that does not convert (`d["abc"]` on INT keys) is an error, not a null key
        if let Some(r) = (0..kc.len()).find(|&r| cast.is_null(r) && !kc.is_null(r)) {
            return Err(Error::type_err(format!(
                "The {} key {:?} can't be converted to the dictionary's key type {}",
                kc.ty,
                kc.str_at(r).map(str::to_string).unwrap_or_else(|| kc.f64_at(r).map(|x| x.to_string()).unwrap_or_default()),
                d.keys.ty
            )));
        }
        cast
    } else {
        kc
    };
    let n = kc.len();
    let part = |k: usize| -> Value {
        if n == 1 {
            return v.clone();
        }
        match v {
            Value::Vector(c) if c.len() == n => Value::Scalar(c.slice(k, k + 1)),
            Value::Tuple(t) if t.len() == n => t[k].clone(),
            other => other.clone(),
        }
    };
    for k in 0..n {
        let key = Key::of(&kc, k);
        let val = part(k);
        let pos = match d.index.get(&key) {
            Some(&p) => p,
            None => {
                let p = d.keys.len();
                if d.keys.len() == 0 && d.keys.ty == DataType::Void {
                    d.keys = Column::nulls(kc.ty, 0);
                    d.key_type = kc.ty;
                }
                let kslice = kc.slice(k, k + 1);
                let kslice = if kslice.ty != d.keys.ty && !(kslice.ty.is_literal() && d.keys.ty.is_literal()) {
                    crate::kernels::cast::cast_column(&kslice, d.keys.ty)?
                } else {
                    kslice
                };
                d.keys.append(&kslice);
                d.index.insert(key, p);
                // grow values with a null
                match &mut d.vals {
                    DictVals::Col(c) => {
                        let t = c.ty;
                        c.append(&Column::nulls(t, 1));
                    }
                    DictVals::Any(a) => a.push(Value::Void),
                }
                p
            }
        };
        // store the value, converting to the value column type or falling back to ANY
        let fits = match (&d.vals, &val) {
            (DictVals::Col(c), Value::Scalar(s)) => s.ty == c.ty || (s.ty.is_numeric() && c.ty.is_numeric()) || (s.ty.is_literal() && c.ty.is_literal()),
            (DictVals::Col(_), Value::Void) => true,
            _ => false,
        };
        if let DictVals::Col(c) = &d.vals {
            if !fits || (c.ty != val.data_type() && c.ty.is_numeric() && val.data_type().is_floating() && !c.ty.is_floating() && d.val_type != DataType::Any) {
                let c = c.clone();
                let items: Vec<Value> = (0..c.len()).map(|k| Value::Scalar(c.slice(k, k + 1))).collect();
                d.vals = DictVals::Any(items);
                if !fits {
                    d.val_type = DataType::Any;
                }
            }
        }
        match &mut d.vals {
            DictVals::Col(c) => {
                let newc = set_elements(c, &[pos], &val)?;
                *c = newc;
            }
            DictVals::Any(a) => a[pos] = val,
        }
    }
    // an ANY dictionary whose values all share one scalar type becomes typed again
    if let DictVals::Any(a) = &d.vals {
        if d.val_type != DataType::Any && a.iter().all(|x| matches!(x, Value::Scalar(_) | Value::Void)) {
            if let Some(Value::Vector(c)) = super::unify_scalars(a)? {
                d.val_type = c.ty;
                d.vals = DictVals::Col(c);
            }
        }
    }
    Ok(d)
}
