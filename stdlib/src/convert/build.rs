//! Builtins that build or reshape data forms: `matrix`, `transpose`/`flip`, `reverse`,
//! `enlist`, `syncDict`, `bigarray`, `arrayVector`, `fixedLengthArrayVector`, `subtuple`,
//! `makeKey`, `makeSortedKey`, indexed series/matrices (`indexedSeries`,
//! `setIndexedSeries!`, `setIndexedMatrix!`, `isIndexedSeries`, `isIndexedMatrix`),
//! `isOrderedDict`.
//!
//! `arrayVector` and `fixedLengthArrayVector` build `Value::ArrayVector` (row offsets over
//! one flat column; `a[i]` is row i). An indexed series/matrix is a matrix with row labels
//! (the runtime keeps no separate "indexed" flag).

use beluga_runtime::CallCtx;
use ahash::AHashMap;
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::eval::unify_scalars;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::types::common_type;
use beluga_runtime::value::{ArrayVec, Dict, DictVals, Key, Matrix};
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

use crate::util::{describe, opt};

fn elem(c: &Column, i: usize) -> Value {
    Value::Scalar(c.slice(i, i + 1))
}

fn matrix_value(data: Column, rows: usize, cols: usize) -> Value {
    Value::Matrix(Arc::new(Matrix { data, rows, cols, row_labels: None, col_labels: None, indexed: false }))
}

/// Columns of one `matrix` argument.
fn matrix_columns(v: &Value, out: &mut Vec<Column>) -> Result<()> {
    match v {
        Value::Vector(c) | Value::Pair(c) | Value::Scalar(c) => out.push(c.clone()),
        Value::Matrix(m) => (0..m.cols).for_each(|j| out.push(m.column(j))),
        Value::Table(t) => out.extend(t.cols.iter().cloned()),
        Value::Tuple(items) => {
            for x in items.iter() {
                matrix_columns(x, out)?;
            }
        }
        // an array vector whose rows have one length is a matrix of those rows
        // (tutorials/Array_Vector.md: matrix([1 2 3, 4 5 6] as INT[]) is 2×3)
        Value::ArrayVector(av) => {
            let w = if av.rows() == 0 { 0 } else { av.row_len(0) };
            if (0..av.rows()).any(|r| av.row_len(r) != w) {
                return Err(Error::arg("[matrix] needs the rows of an array vector to have one length"));
            }
            for j in 0..w {
                let pos: Vec<i64> = (0..av.rows()).map(|r| (av.offsets[r] + j) as i64).collect();
                out.push(av.data.take(&pos));
            }
        }
        other => return Err(Error::arg(format!("The arguments of [matrix] must be vectors, matrices, tuples, tables or array vectors, not {}", describe(other)))),
    }
    Ok(())
}

/// `matrix(X1, [X2], ...)` (columns side by side) or
/// `matrix(dataType, rows, cols, [columnsCapacity], [defaultValue])`.
fn matrix(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    if let Some(v) = a.first_mut() {
        *v = crate::core::type_from_function(i, std::mem::replace(v, Value::Void));
    }
    if let Value::Type(ty) = &a[0] {
        let rows = a.get(1).and_then(|v| v.as_i64()).filter(|&r| r >= 0);
        let cols = a.get(2).and_then(|v| v.as_i64()).filter(|&c| c >= 0);
        let (Some(rows), Some(cols)) = (rows, cols) else {
            return Err(Error::arg("matrix(dataType, rows, cols) needs non-negative rows and cols"));
        };
        let n = (rows as usize).checked_mul(cols as usize).filter(|&n| n <= 1 << 31).ok_or_else(|| Error::arg("The matrix is too large"))?;
        beluga_runtime::guard::need_col(n, *ty)?;
        let fill = match opt(&a, 4) {
            Some(v) => v.clone(),
            None if ty.is_literal() => Value::string(""),
            None => Value::int(0),
        };
        let one = match &fill {
            Value::Scalar(c) => cast_column(c, *ty)?,
            Value::Void => Column::nulls(*ty, 1),
            other => return Err(Error::arg(format!("The defaultValue of [matrix] must be a scalar, not {}", describe(other)))),
        };
        return Ok(matrix_value(repeat_first(&one, n), rows as usize, cols as usize));
    }
    let mut cols = Vec::new();
    for v in &a {
        matrix_columns(v, &mut cols)?;
    }
    let Some(first) = cols.first() else { return Err(Error::arg("[matrix] needs at least one column")) };
    let rows = first.len();
    let mut ty = first.ty;
    for c in &cols {
        if c.len() != rows {
            return Err(Error::size(format!("The columns of [matrix] must have the same length ({rows} vs {})", c.len())));
        }
        ty = common_type(ty, c.ty).ok_or_else(|| Error::type_err(format!("[matrix] can't combine {ty} and {}", c.ty)))?;
    }
    let cast: Vec<Column> = cols.iter().map(|c| if c.ty == ty { Ok(c.clone()) } else { cast_column(c, ty) }).collect::<Result<_>>()?;
    let refs: Vec<&Column> = cast.iter().collect();
    Ok(matrix_value(Column::concat(ty, &refs), rows, cast.len()))
}

/// A column of `n` copies of the first element of `c`.
fn repeat_first(c: &Column, n: usize) -> Column {
    let data = match &*c.data {
        ColData::I8(v) => ColData::I8(vec![v[0]; n]),
        ColData::I16(v) => ColData::I16(vec![v[0]; n]),
        ColData::I32(v) => ColData::I32(vec![v[0]; n]),
        ColData::I64(v) => ColData::I64(vec![v[0]; n]),
        ColData::F32(v) => ColData::F32(vec![v[0]; n]),
        ColData::F64(v) => ColData::F64(vec![v[0]; n]),
        ColData::I128(v) => ColData::I128(vec![v[0]; n]),
        ColData::Sym(s) => ColData::Sym(beluga_runtime::column::SymCol { codes: vec![s.codes[0]; n], dict: s.dict.clone() }),
        ColData::Str(s) => {
            let x = s.get(0);
            let mut out = StrCol::with_capacity(n, x.len() * n);
            for _ in 0..n {
                out.push(x);
            }
            ColData::Str(out)
        }
        ColData::Array(_) => return c.take_usize(&vec![0; n]),
    };
    Column::new(c.ty, data)
}

/// Transpose of a column-major `rows × cols` column.
fn transpose_data(c: &Column, rows: usize, cols: usize) -> Column {
    let idx: Vec<usize> = (0..rows).flat_map(|r| (0..cols).map(move |k| k * rows + r)).collect();
    c.take_usize(&idx)
}

fn transpose(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match &a[0] {
        Value::Matrix(m) => Ok(Value::Matrix(Arc::new(Matrix {
            data: transpose_data(&m.data, m.rows, m.cols),
            rows: m.cols,
            cols: m.rows,
            row_labels: m.col_labels.clone(),
            col_labels: m.row_labels.clone(),
            indexed: false,
        }))),
        Value::Vector(c) => Ok(matrix_value(c.clone(), 1, c.len())),
        Value::Tuple(items) => {
            let cols: Vec<Column> = items
                .iter()
                .map(|v| match v {
                    Value::Vector(c) => Ok(c.clone()),
                    other => Err(Error::arg(format!("Every element of the tuple must be a vector to transpose, not {}", describe(other)))),
                })
                .collect::<Result<_>>()?;
            let n = cols.first().map(|c| c.len()).unwrap_or(0);
            if cols.iter().any(|c| c.len() != n) {
                return Err(Error::size("The vectors of the tuple must have the same length to transpose"));
            }
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let row: Vec<Value> = cols.iter().map(|c| elem(c, i)).collect();
                out.push(unify_scalars(&row)?.unwrap_or_else(|| Value::tuple(row)));
            }
            Ok(Value::tuple(out))
        }
        Value::Table(t) => {
            let keys = Column::new(DataType::String, ColData::Str(StrCol::from_iter(t.names.iter().map(|s| s.as_str()))));
            let vals: Vec<Value> = t.cols.iter().map(|c| Value::Vector(c.clone())).collect();
            Ok(Value::Dict(Arc::new(make_dict(keys, vals, true))))
        }
        Value::Dict(d) => {
            if !d.keys.ty.is_literal() {
                return Err(Error::arg("The keys of a dictionary must be strings to transpose it into a table"));
            }
            let vals: Vec<Value> = match &d.vals {
                DictVals::Col(c) => (0..c.len()).map(|i| elem(c, i)).collect(),
                DictVals::Any(v) => v.clone(),
            };
            let mut names = Vec::with_capacity(vals.len());
            let mut cols = Vec::with_capacity(vals.len());
            for (i, v) in vals.iter().enumerate() {
                names.push(d.keys.str_at(i).unwrap_or("").to_string());
                cols.push(match v {
                    Value::Vector(c) | Value::Scalar(c) => c.clone(),
                    other => return Err(Error::arg(format!("The values of the dictionary must be scalars or vectors, not {}", describe(other)))),
                });
            }
            Ok(Value::table(Table::new(names, cols)?))
        }
        other => Err(Error::unsupported("transpose", describe(other))),
    }
}

/// A dictionary from a key column and one value per key (first occurrence order).
fn make_dict(keys: Column, vals: Vec<Value>, ordered: bool) -> Dict {
    let mut index = AHashMap::with_capacity(keys.len());
    for i in 0..keys.len() {
        index.insert(Key::of(&keys, i), i);
    }
    let key_type = keys.ty;
    let (vals, val_type) = match unify_scalars(&vals) {
        Ok(Some(Value::Vector(c))) if !vals.is_empty() && vals.iter().all(|v| matches!(v, Value::Scalar(_))) => {
            let t = c.ty;
            (DictVals::Col(c), t)
        }
        _ => (DictVals::Any(vals), DataType::Any),
    };
    Dict { keys, vals, index, ordered, key_type, val_type }
}

fn reverse(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let rev = |n: usize| -> Vec<usize> { (0..n).rev().collect() };
    match &a[0] {
        Value::Vector(c) => Ok(Value::Vector(c.take_usize(&rev(c.len())))),
        Value::Pair(c) => Ok(Value::Pair(c.take_usize(&rev(c.len())))),
        Value::Scalar(_) | Value::Void => Ok(a[0].clone()),
        Value::Tuple(items) => Ok(Value::tuple(items.iter().rev().cloned().collect())),
        Value::Table(t) => Ok(Value::table(t.take_usize(&rev(t.rows())))),
        Value::Matrix(m) => {
            // rows in reverse order within each column
            let idx: Vec<usize> = (0..m.cols).flat_map(|c| (0..m.rows).rev().map(move |r| c * m.rows + r)).collect();
            let row_labels = match m.row_labels.as_deref() {
                Some(Value::Vector(l)) => Some(Box::new(Value::Vector(l.take_usize(&rev(l.len()))))),
                other => other.cloned().map(Box::new),
            };
            Ok(Value::Matrix(Arc::new(Matrix { data: m.data.take_usize(&idx), row_labels, ..(**m).clone() })))
        }
        other => Err(Error::unsupported("reverse", describe(other))),
    }
}

/// `enlist(X)`: a scalar becomes a one-element vector, anything else a one-element tuple.
fn enlist(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match &a[0] {
        Value::Scalar(c) => Ok(Value::Vector(c.clone())),
        other => Ok(Value::tuple(vec![other.clone()])),
    }
}

fn sync_dict(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    i.call_builtin_by_name("dict", a)
}

fn bigarray(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    i.call_builtin_by_name("array", a)
}

/// `arrayVector(index, value)`: rows end at the offsets in `index`.
fn array_vector(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (Value::Vector(idx), Value::Vector(vals)) = (&a[0], &a[1]) else {
        return Err(Error::arg("The arguments of [arrayVector] must be an index vector and a value vector"));
    };
    if !idx.ty.is_integral() {
        return Err(Error::arg("The index of [arrayVector] must be an integral vector"));
    }
    let ends = as_native::<i64>(idx);
    let mut start = 0usize;
    for &e in ends.iter() {
        if e.is_null() || e < start as i64 || e as usize > vals.len() {
            return Err(Error::arg("The index of [arrayVector] must be increasing offsets within the value vector"));
        }
        start = e as usize;
    }
    if ends.is_empty() {
        return Err(Error::arg("The index of [arrayVector] must not be empty"));
    }
    // values past the last index are left out (funcs/a/arrayVector.md: the largest index
    // must not exceed the length of value)
    let vals = &vals.slice(0, start);
    if beluga_runtime::value::array_type(vals.ty).is_none() {
        return Err(Error::type_err(format!("[arrayVector] does not support {} values", vals.ty)));
    }
    let mut offsets = Vec::with_capacity(ends.len() + 1);
    offsets.push(0usize);
    offsets.extend(ends.iter().map(|&e| e as usize));
    Ok(Value::ArrayVector(Arc::new(ArrayVec::new(offsets, vals.clone()))))
}

/// `fixedLengthArrayVector(args...)`: each argument (a vector, a tuple of vectors, or a
/// table) contributes columns; all columns must have the same length.
fn fixed_length_array_vector(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mut cols = Vec::new();
    for v in &a {
        matrix_columns(v, &mut cols)?;
    }
    let n = cols.first().map(|c| c.len()).unwrap_or(0);
    let mut ty = cols.first().map(|c| c.ty).unwrap_or(DataType::Int);
    for c in &cols {
        if c.len() != n {
            return Err(Error::size("The vectors of [fixedLengthArrayVector] must have the same length"));
        }
        ty = common_type(ty, c.ty).ok_or_else(|| Error::type_err("[fixedLengthArrayVector] needs values of one type"))?;
    }
    if beluga_runtime::value::array_type(ty).is_none() {
        return Err(Error::type_err(format!("[fixedLengthArrayVector] does not support {ty} values")));
    }
    let out: Vec<Column> =
        cols.iter().map(|c| if c.ty == ty { Ok(c.clone()) } else { cast_column(c, ty) }).collect::<Result<_>>()?;
    // row r is (col0[r], col1[r], ...): gather the column-major concatenation row-major
    let w = out.len();
    let refs: Vec<&Column> = out.iter().collect();
    let all = Column::concat(ty, &refs);
    let idx: Vec<i64> = (0..n).flat_map(|r| (0..w).map(move |c| (c * n + r) as i64)).collect();
    let offsets: Vec<usize> = (0..=n).map(|r| r * w).collect();
    Ok(Value::ArrayVector(Arc::new(ArrayVec::new(offsets, all.take(&idx)))))
}

/// `subtuple(X, range)`: slice every vector of a tuple by the pair `range` ([a, b)).
fn subtuple(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let Value::Tuple(items) = &a[0] else { return Err(Error::unsupported("subtuple", describe(&a[0]))) };
    let (lo, hi) = match &a[1] {
        Value::Pair(c) => (c.i64_at(0), c.i64_at(1)),
        other => return Err(Error::arg(format!("The range of [subtuple] must be a pair, not {}", describe(other)))),
    };
    let out: Vec<Value> = items
        .iter()
        .map(|v| match v {
            Value::Vector(c) => {
                let n = c.len() as i64;
                let s = lo.unwrap_or(0).clamp(0, n) as usize;
                let e = hi.unwrap_or(n).clamp(0, n) as usize;
                Ok(Value::Vector(c.slice(s, e.max(s))))
            }
            other => Err(Error::arg(format!("The elements of [subtuple]'s tuple must be vectors, not {}", describe(other)))),
        })
        .collect::<Result<_>>()?;
    Ok(Value::tuple(out))
}

// ---------------------------------------------------------------- composite keys

/// Append the key bytes of element i: text raw (sorted keys: terminated by NUL so shorter
/// prefixes sort first), numbers as fixed-width hexadecimal (sorted keys: sign-flipped so
/// that text order follows numeric order).
fn push_key(out: &mut String, c: &Column, i: usize, sorted: bool) {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut hex = |bytes: &[u8]| {
        for &b in bytes {
            out.push(D[(b >> 4) as usize] as char);
            out.push(D[(b & 15) as usize] as char);
        }
    };
    let flip = |neg_bit: bool| if sorted && neg_bit { 0x80u8 } else { 0 };
    match &*c.data {
        ColData::Array(a) => out.push_str(&beluga_runtime::elemfmt::array_row_text(a, i)),
        ColData::Str(_) | ColData::Sym(_) => {
            out.push_str(c.str_at(i).unwrap_or(""));
            if sorted {
                out.push('\u{1}');
            }
        }
        ColData::I8(v) => hex(&[(v[i] as u8) ^ flip(true)]),
        ColData::I16(v) => {
            let mut b = v[i].to_be_bytes();
            b[0] ^= flip(true);
            hex(&b)
        }
        ColData::I32(v) => {
            let mut b = v[i].to_be_bytes();
            b[0] ^= flip(true);
            hex(&b)
        }
        ColData::I64(v) => {
            let mut b = v[i].to_be_bytes();
            b[0] ^= flip(true);
            hex(&b)
        }
        ColData::I128(v) => hex(&v[i].to_be_bytes()),
        ColData::F32(v) => {
            let x = v[i].to_bits();
            let k = if sorted { if x >> 31 == 1 { !x } else { x | (1 << 31) } } else { x };
            hex(&k.to_be_bytes())
        }
        ColData::F64(v) => {
            let x = v[i].to_bits();
            let k = if sorted { if x >> 63 == 1 { !x } else { x | (1 << 63) } } else { x };
            hex(&k.to_be_bytes())
        }
    }
}

fn make_key_impl(name: &str, a: &[Value], sorted: bool) -> Result<Value> {
    let mut cols = Vec::with_capacity(a.len());
    let mut n: Option<usize> = None;
    let mut all_scalar = true;
    for v in a {
        let (c, s) = match v {
            Value::Scalar(c) => (c.clone(), true),
            Value::Vector(c) => (c.clone(), false),
            other => return Err(Error::arg(format!("The arguments of [{name}] must be scalars or vectors, not {}", describe(other)))),
        };
        if !s {
            all_scalar = false;
            match n {
                Some(m) if m != c.len() => return Err(Error::size(format!("The vectors of [{name}] must have the same length"))),
                _ => n = Some(c.len()),
            }
        }
        cols.push((c, s));
    }
    let n = n.unwrap_or(1);
    let mut out = StrCol::with_capacity(n, 0);
    let mut buf = String::new();
    for i in 0..n {
        buf.clear();
        for (c, s) in &cols {
            push_key(&mut buf, c, if *s { 0 } else { i }, sorted);
        }
        out.push(&buf);
    }
    let c = Column::new(DataType::Blob, ColData::Str(out));
    Ok(if all_scalar { Value::Scalar(c) } else { Value::Vector(c) })
}

fn make_key(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    make_key_impl("makeKey", &a, false)
}

fn make_sorted_key(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    make_key_impl("makeSortedKey", &a, true)
}

// ---------------------------------------------------------------- indexed series

fn sorted_labels(name: &str, c: &Column) -> Result<()> {
    let v = as_native::<f64>(c);
    if c.ty.is_literal() {
        let ok = (1..c.len()).all(|i| c.str_at(i - 1) <= c.str_at(i));
        return if ok { Ok(()) } else { Err(Error::arg(format!("The index of [{name}] must be sorted in ascending order"))) };
    }
    if v.windows(2).any(|w| w[0] > w[1]) {
        return Err(Error::arg(format!("The index of [{name}] must be sorted in ascending order")));
    }
    Ok(())
}

/// `indexedSeries(index, value)`: a one-column matrix labelled by a sorted index.
fn indexed_series(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (Value::Vector(idx), Value::Vector(vals)) = (&a[0], &a[1]) else {
        return Err(Error::arg("The arguments of [indexedSeries] must be two vectors"));
    };
    if idx.len() != vals.len() {
        return Err(Error::size("The index and the values of [indexedSeries] must have the same length"));
    }
    sorted_labels("indexedSeries", idx)?;
    Ok(Value::Matrix(Arc::new(Matrix {
        data: vals.clone(),
        rows: vals.len(),
        cols: 1,
        row_labels: Some(Box::new(Value::Vector(idx.clone()))),
        col_labels: None,
        indexed: true,
    })))
}

fn row_labels_of(m: &Matrix) -> Option<&Column> {
    match m.row_labels.as_deref() {
        Some(Value::Vector(c)) => Some(c),
        _ => None,
    }
}

fn is_indexed_series(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::bool(matches!(&a[0], Value::Matrix(m) if m.indexed && m.cols == 1 && row_labels_of(m).is_some())))
}

fn is_indexed_matrix(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::bool(matches!(&a[0], Value::Matrix(m) if m.indexed && row_labels_of(m).is_some() && m.col_labels.is_some())))
}

fn set_indexed(name: &str, a: &[Value], series: bool) -> Result<Value> {
    let Value::Matrix(m) = &a[0] else { return Err(Error::unsupported(name, describe(&a[0]))) };
    let on = opt(a, 1).and_then(|v| v.as_bool()).unwrap_or(true);
    if !on {
        return Ok(Value::Matrix(Arc::new(Matrix { indexed: false, ..(**m).clone() })));
    }
    let Some(labels) = row_labels_of(m) else {
        return Err(Error::arg(format!("The matrix of [{name}] must have row labels")));
    };
    if series && m.cols != 1 {
        return Err(Error::arg(format!("[{name}] needs a matrix with one column")));
    }
    if !series && m.col_labels.is_none() {
        return Err(Error::arg(format!("The matrix of [{name}] must have column labels")));
    }
    sorted_labels(name, labels)?;
    Ok(Value::Matrix(Arc::new(Matrix { indexed: true, ..(**m).clone() })))
}

fn set_indexed_series(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    set_indexed("setIndexedSeries!", &a, true)
}

fn set_indexed_matrix(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    set_indexed("setIndexedMatrix!", &a, false)
}

fn is_ordered_dict(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::bool(matches!(&a[0], Value::Dict(d) if d.ordered)))
}

/// `toArray(X)`: an aggregate that makes the values of X one row of an array vector, so
/// `select toArray(v) from t group by k` gives an `ELEM[]` column (arrayVector.md).
fn to_array(ctx: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match &a[0] {
        // a matrix: its cells column by column (best_practice_for_factor_calculation.md §6.2
        // keeps a per-group correlation matrix as one row)
        Value::Matrix(m) => to_array(ctx, vec![Value::Vector(m.data.clone())]),
        Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => {
            if DataType::array_of(c.ty).is_none() {
                return Err(Error::type_err(format!("toArray: {} values cannot form an array vector", c.ty)));
            }
            Ok(Value::ArrayVector(Arc::new(ArrayVec::new(vec![0, c.len()], c.clone()))))
        }
        // an array vector's rows joined into one row
        Value::ArrayVector(av) => Ok(Value::ArrayVector(Arc::new(ArrayVec::new(vec![0, av.data.len()], av.data.clone())))),
        other => Err(Error::type_err(format!("toArray: expects a vector, not {}", describe(other)))),
    }
}

/// `ungroup(t)`: each row of a table with array-vector columns becomes one row per element
/// (the other columns repeated); rows of the array columns must have equal lengths.
fn ungroup(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let Value::Table(t) = &a[0] else {
        return Err(Error::type_err(format!("ungroup: expects a table, not {}", describe(&a[0]))));
    };
    let arrays: Vec<&Arc<ArrayVec>> = t.cols.iter().filter_map(|c| c.as_array()).collect();
    let Some(first) = arrays.first() else { return Ok(a[0].clone()) };
    for (c, name) in t.cols.iter().zip(&t.names) {
        if let Some(av) = c.as_array() {
            if av.offsets != first.offsets {
                return Err(Error::size(format!("ungroup: the rows of array-vector column {name} differ in length from the others")));
            }
        }
    }
    let idx: Vec<usize> = (0..first.rows()).flat_map(|r| std::iter::repeat_n(r, first.row_len(r))).collect();
    let cols: Vec<Column> = t
        .cols
        .iter()
        .map(|c| match c.as_array() {
            Some(av) => av.data.clone(),
            None => c.take_usize(&idx),
        })
        .collect();
    Ok(Value::table(Table::new(t.names.clone(), cols)?))
}

pub const DEFS: &[Builtin] = &[
    fp("arrayVector", Kind::System, 2, 2, array_vector, &["index", "value"]),
    fp("bigarray", Kind::System, 1, 4, bigarray, &["dataType", "initialSize", "capacity", "defaultValue"]),
    f("enlist", Kind::System, 1, 1, enlist),
    f("fixedLengthArrayVector", Kind::System, 1, u8::MAX, fixed_length_array_vector),
    f("toArray", Kind::Aggregate, 1, 1, to_array),
    f("ungroup", Kind::System, 1, 1, ungroup),
    f("flip", Kind::System, 1, 1, transpose),
    fp("indexedSeries", Kind::System, 2, 2, indexed_series, &["index", "value"]),
    f("isIndexedMatrix", Kind::System, 1, 1, is_indexed_matrix),
    f("isIndexedSeries", Kind::System, 1, 1, is_indexed_series),
    f("isOrderedDict", Kind::System, 1, 1, is_ordered_dict),
    f("makeKey", Kind::Elementwise, 1, u8::MAX, make_key),
    f("makeSortedKey", Kind::Elementwise, 1, u8::MAX, make_sorted_key),
    f("matrix", Kind::System, 1, u8::MAX, matrix),
    f("reverse", Kind::VectorToVector, 1, 1, reverse),
    fp("setIndexedMatrix!", Kind::System, 1, 2, set_indexed_matrix, &["X", "on"]),
    fp("setIndexedSeries!", Kind::System, 1, 2, set_indexed_series, &["X", "on"]),
    fp("subtuple", Kind::System, 2, 2, subtuple, &["X", "range"]),
    fp("syncDict", Kind::System, 2, 3, sync_dict, &["keyObj", "valueObj", "ordered"]),
    f("transpose", Kind::System, 1, 1, transpose),
];

#[cfg(test)]
mod tests {
    use crate::string::run;

    #[test]
    fn convert_build_forms() {
        assert_eq!(run("m = matrix(1 2 3, 4 5 6)\nm[1]"), "[4,5,6]");
        assert_eq!(run("m = matrix(1 2, 4.5 5)\nm[0]"), "[1,2]");
        assert_eq!(run("m = matrix(INT, 2, 2, , 7)\nm[1]"), "[7,7]");
        assert_eq!(run("m = matrix([1 2 3, 4 5 6])\nm[1]"), "[4,5,6]");
        assert_eq!(run("t = transpose(1..6 $ 3:2)\nt[0]"), "[1,4]");
        assert_eq!(run("transpose((`A`B`C, 1 2 3))"), "((\"A\",1),(\"B\",2),(\"C\",3))");
        assert_eq!(run("reverse(1 2 3)"), "[3,2,1]");
        assert_eq!(run("enlist(3)"), "[3]");
        assert_eq!(run("a = arrayVector(2 5, 1 2 3 4 5)\na[1]"), "[2,4]");
        assert_eq!(run("a = arrayVector(2 5, 1 2 3 4 5)\na[2]"), "[,5]");
        assert_eq!(run("a = arrayVector(2 5, 1 2 3 4 5)\nrow(a, 1)"), "[3,4,5]");
        assert_eq!(run("arrayVector(2 5, 1 2 3 4 5)"), "[[1,2],[3,4,5]]");
        assert_eq!(run("fixedLengthArrayVector(1 2, 3 4, 5 6)"), "[[1,3,5],[2,4,6]]");
        assert_eq!(run("makeKey(`a1,`b1,`c1)"), "a1b1c1");
        assert_eq!(run("subtuple((1 2 3, 4 5 6), 1:3)"), "([2,3],[5,6])");
        assert_eq!(run("s = indexedSeries(2020.01.01 2020.01.03, 1 2)\nisIndexedSeries(s)"), "true");
    }
}
