//! Builtins: taking parts of containers (head, tail, ifirstNot, ilastNot, at, subarray, slice, cell, cells, row, col, drop, cut, flatten,
//! dropna, shuffle, shuffle!).

use beluga_runtime::CallCtx;
use crate::util::{aggregate, col, describe, int_arg, opt};
use beluga_runtime::column::Column;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

fn sub_matrix_cols(m: &Matrix, a: usize, b: usize) -> Value {
    let col_labels = m.col_labels.as_ref().and_then(|l| l.column().map(|c| Box::new(Value::Vector(c.slice(a, b)))));
    Value::Matrix(Arc::new(Matrix {
        data: m.data.slice(a * m.rows, b * m.rows),
        rows: m.rows,
        cols: b - a,
        row_labels: m.row_labels.clone(),
        col_labels,
        indexed: m.indexed,
    }))
}

fn sub_matrix_rows(m: &Matrix, a: usize, b: usize) -> Value {
    let idx: Vec<usize> = (0..m.cols).flat_map(|c| (a..b).map(move |r| c * m.rows + r)).collect();
    let row_labels = m.row_labels.as_ref().and_then(|l| l.column().map(|c| Box::new(Value::Vector(c.slice(a, b)))));
    Value::Matrix(Arc::new(Matrix {
        data: m.data.take_usize(&idx),
        rows: b - a,
        cols: m.cols,
        row_labels,
        col_labels: m.col_labels.clone(),
        indexed: m.indexed,
    }))
}

/// Elements [a, b) of a sequence-like value (vector elements, matrix columns, table rows, tuple items).
fn range_of(name: &str, v: &Value, a: usize, b: usize) -> Result<Value> {
    Ok(match v {
        Value::Vector(c) => Value::Vector(c.slice(a, b)),
        Value::Pair(c) => Value::Vector(c.slice(a, b)),
        Value::Matrix(m) => sub_matrix_cols(m, a.min(m.cols), b.min(m.cols)),
        Value::Table(t) => Value::table(t.slice(a, b)),
        Value::Tuple(t) => Value::tuple(t[a.min(t.len())..b.min(t.len())].to_vec()),
        other => return Err(Error::unsupported(name, describe(other))),
    })
}

fn len_of(v: &Value) -> usize {
    match v {
        Value::Matrix(m) => m.cols,
        other => other.size(),
    }
}

/// One element: a scalar, a matrix column, a table row (dict), a tuple item.
fn element_of(i: &mut CallCtx, v: &Value, k: usize) -> Result<Value> {
    match v {
        Value::Vector(c) | Value::Pair(c) => {
            if k < c.len() { Ok(Value::Scalar(c.slice(k, k + 1))) } else { Ok(Value::null_of(c.ty)) }
        }
        Value::Table(_) => i.index_value(v.clone(), vec![Value::long(k as i64)]),
        _ => i.element(v, k),
    }
}

fn head_tail(i: &mut CallCtx, args: &[Value], head: bool) -> Result<Value> {
    let name = if head { "head" } else { "tail" };
    let x = &args[0];
    if let Value::Scalar(_) = x {
        return Ok(x.clone());
    }
    let n = len_of(x);
    match opt(args, 1) {
        None => {
            if n == 0 {
                return Ok(match x {
                    Value::Vector(c) => Value::null_of(c.ty),
                    _ => Value::Void,
                });
            }
            element_of(i, x, if head { 0 } else { n - 1 })
        }
        Some(v) => {
            let k = int_arg(name, v, "n")?;
            let k = if k < 0 { n.saturating_sub(k.unsigned_abs() as usize) } else { (k as usize).min(n) };
            if head { range_of(name, x, 0, k) } else { range_of(name, x, n - k, n) }
        }
    }
}

fn head(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    head_tail(i, &args, true)
}

fn tail(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    head_tail(i, &args, false)
}

/// Position of the first (or last) element that is not null and not equal to `skip`.
fn find_not(c: &Column, skip: Option<&Column>, from_start: bool) -> Result<Option<usize>> {
    let excluded: Option<Vec<bool>> = match skip {
        None => None,
        Some(k) => {
            let eq = beluga_runtime::kernels::cmp::compare(beluga_runtime::kernels::cmp::CmpOp::Eq, c, false, k, true)?;
            Some((0..eq.len()).map(|j| eq.i64_at(j) == Some(1)).collect())
        }
    };
    let ok = |j: usize| !c.is_null(j) && !excluded.as_ref().map(|e| e[j]).unwrap_or(false);
    Ok(if from_start { (0..c.len()).find(|&j| ok(j)) } else { (0..c.len()).rev().find(|&j| ok(j)) })
}

fn first_not_impl(args: &[Value], from_start: bool, index: bool) -> Result<Value> {
    let name = match (from_start, index) {
        (true, false) => "firstNot",
        (false, false) => "lastNot",
        (true, true) => "ifirstNot",
        (false, true) => "ilastNot",
    };
    let skip = match opt(args, 1) {
        Some(v) if !index => Some(col(name, v)?),
        _ => None,
    };
    aggregate(name, &args[0], &|c: &Column| {
        let p = find_not(c, skip.as_ref(), from_start)?;
        Ok(if index {
            Value::int(p.map(|k| k as i32).unwrap_or(-1))
        } else {
            match p {
                Some(k) => Value::Scalar(c.slice(k, k + 1)),
                None => Value::null_of(c.ty),
            }
        })
    })
}

/// ifirstNot/ilastNot of a tuple of equal-length vectors: the first (last) position where
/// no vector is null, or -1.
fn tuple_index_not(name: &str, items: &[Value], from_start: bool) -> Result<Value> {
    let cols: Vec<Column> = items.iter().map(|v| col(name, v)).collect::<Result<_>>()?;
    let n = cols.first().map_or(0, |c| c.len());
    if cols.iter().any(|c| c.len() != n) {
        return Err(Error::size(format!("The vectors passed to [{name}] must have the same length")));
    }
    let ok = |j: usize| cols.iter().all(|c| !c.is_null(j));
    let p = if from_start { (0..n).find(|&j| ok(j)) } else { (0..n).rev().find(|&j| ok(j)) };
    Ok(Value::int(p.map_or(-1, |k| k as i32)))
}

fn ifirst_not(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Tuple(items) => tuple_index_not("ifirstNot", items, true),
        _ => first_not_impl(&args, true, true),
    }
}
fn ilast_not(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Tuple(items) => tuple_index_not("ilastNot", items, false),
        _ => first_not_impl(&args, false, true),
    }
}

// ------------------------------------------------------------------ indexing functions

fn at(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match args.len() {
        1 => {
            let c = col("at", &args[0])?;
            let idx: Vec<i32> = if c.ty == DataType::Bool {
                (0..c.len()).filter(|&k| c.i64_at(k) == Some(1)).map(|k| k as i32).collect()
            } else if c.ty.is_integral() {
                // an integer vector: index k repeated X[k] times (`at(2 3 -1 0 1)` is [0,0,1,1,1,4])
                let total: u128 = (0..c.len()).map(|k| c.i64_at(k).unwrap_or(0).max(0) as u128).sum();
                if total > 2_000_000_000 {
                    return Err(Error::arg(format!("at: the result would have {total} elements")));
                }
                (0..c.len())
                    .flat_map(|k| std::iter::repeat_n(k as i32, c.i64_at(k).unwrap_or(0).max(0) as usize))
                    .collect()
            } else {
                return Err(Error::arg("at(X) with one argument needs a BOOL or integer vector"));
            };
            Ok(Value::Vector(Column::from_vec(DataType::Int, idx)))
        }
        n => match (&args[0], &args[1]) {
            (Value::Function(_), _) => i.call_value(&args[0], args[1..].to_vec()),
            // a (row, column) tuple index on a matrix or table
            (Value::Matrix(_) | Value::Table(_), Value::Tuple(t)) if n == 2 && t.len() == 2 => {
                i.index_value(args[0].clone(), t.to_vec())
            }
            _ => i.index_value(args[0].clone(), args[1..].to_vec()),
        },
    }
}

/// Start and end of a pair range over n elements (open ends from nulls).
fn pair_range(name: &str, v: &Value, n: usize) -> Result<(usize, usize)> {
    let c = match v {
        Value::Pair(c) => c.clone(),
        _ => return Err(Error::arg(format!("The range argument of [{name}] must be a pair"))),
    };
    let a = c.i64_at(0).unwrap_or(0).max(0) as usize;
    let b = c.i64_at(1).map(|b| b.max(0) as usize).unwrap_or(n);
    Ok((a.min(n), b.min(n).max(a.min(n))))
}

fn subarray(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Vector(c) => {
            let (a, b) = pair_range("subarray", &args[1], c.len())?;
            Ok(Value::Vector(c.slice(a, b)))
        }
        Value::Matrix(m) => {
            let (a, b) = pair_range("subarray", &args[1], m.rows)?;
            Ok(sub_matrix_rows(m, a, b))
        }
        Value::Table(t) => {
            let (a, b) = pair_range("subarray", &args[1], t.rows())?;
            Ok(Value::table(t.slice(a, b)))
        }
        other => Err(Error::unsupported("subarray", describe(other))),
    }
}

fn slice(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    // slice(obj, index) is obj[index]: on a matrix, a column (scalar) or columns (vector or
    // pair); slice(obj, rows, cols) is obj[rows, cols] (funcs/s/slice.md, matrix.md §2.2.1)
    i.index_value(args[0].clone(), args[1..].to_vec())
}

fn cell_at(i: &mut CallCtx, obj: &Value, r: i64, c: i64) -> Result<Value> {
    match obj {
        Value::Matrix(m) => {
            if r < 0 || c < 0 || r as usize >= m.rows || c as usize >= m.cols {
                return Ok(Value::null_of(m.data.ty));
            }
            let k = c as usize * m.rows + r as usize;
            Ok(Value::Scalar(m.data.slice(k, k + 1)))
        }
        Value::Table(t) => {
            if c < 0 || c as usize >= t.ncols() {
                return Err(Error::arg(format!("The column index {c} is out of range")));
            }
            let col = &t.cols[c as usize];
            Ok(Value::Scalar(col.take(&[r])))
        }
        other => {
            let _ = i;
            Err(Error::unsupported("cell", describe(other)))
        }
    }
}

fn cell(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let r = int_arg("cell", &args[1], "row")?;
    let c = int_arg("cell", &args[2], "col")?;
    cell_at(i, &args[0], r, c)
}

fn cells(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let rc = col("cells", &args[1])?;
    let cc = col("cells", &args[2])?;
    if rc.len() != cc.len() {
        return Err(Error::size("The row and column indices of [cells] must have the same length"));
    }
    let items: Vec<Value> = (0..rc.len())
        .map(|k| cell_at(i, &args[0], rc.i64_at(k).unwrap_or(-1), cc.i64_at(k).unwrap_or(-1)))
        .collect::<Result<_>>()?;
    Ok(beluga_runtime::eval::unify_scalars(&items)?.unwrap_or(Value::tuple(items)))
}

fn row(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    // a pair of row positions: those rows as a matrix (tutorials/matrix.md §2.2.1 m.row(0:2))
    if let (Value::Matrix(m), Value::Pair(_)) = (&args[0], &args[1]) {
        let (a, b) = pair_range("row", &args[1], m.rows)?;
        return Ok(sub_matrix_rows(m, a, b));
    }
    let k = int_arg("row", &args[1], "index")?;
    match &args[0] {
        Value::Matrix(m) => {
            if k < 0 || k as usize >= m.rows {
                return Err(Error::arg(format!("The row index {k} is out of range")));
            }
            let idx: Vec<usize> = (0..m.cols).map(|c| c * m.rows + k as usize).collect();
            Ok(Value::Vector(m.data.take_usize(&idx)))
        }
        Value::Table(_) => i.index_value(args[0].clone(), vec![Value::long(k)]),
        Value::ArrayVector(a) => {
            if k < 0 || k as usize >= a.rows() {
                return Err(Error::arg(format!("The row index {k} is out of range")));
            }
            Ok(Value::Vector(a.row(k as usize)))
        }
        // a tuple of equal-length vectors (columnar tuple): element k of each
        Value::Tuple(items) => {
            let cells: Vec<Value> = items
                .iter()
                .map(|v| match v {
                    Value::Vector(c) if k >= 0 && (k as usize) < c.len() => Ok(Value::Scalar(c.slice(k as usize, k as usize + 1))),
                    Value::Vector(c) => Ok(Value::null_of(c.ty)),
                    other => Err(Error::unsupported("row", describe(other))),
                })
                .collect::<Result<_>>()?;
            Ok(beluga_runtime::eval::unify_scalars(&cells)?.unwrap_or(Value::tuple(cells)))
        }
        other => Err(Error::unsupported("row", describe(other))),
    }
}

fn col_fn(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let k = int_arg("col", &args[1], "index")?;
    let (n, get): (usize, Box<dyn Fn(usize) -> Column>) = match &args[0] {
        Value::Matrix(m) => (m.cols, Box::new(move |c| m.column(c))),
        Value::Table(t) => (t.ncols(), Box::new(move |c| t.cols[c].clone())),
        Value::Tuple(items) => {
            return items.get(k.max(0) as usize).filter(|_| k >= 0).cloned().ok_or_else(|| Error::arg(format!("The column index {k} is out of range")));
        }
        other => return Err(Error::unsupported("col", describe(other))),
    };
    if k < 0 || k as usize >= n {
        return Err(Error::arg(format!("The column index {k} is out of range")));
    }
    Ok(Value::Vector(get(k as usize)))
}

// ------------------------------------------------------------------ drop, cut, flatten

fn drop(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = &args[0];
    let k = int_arg("drop", &args[1], "count")?;
    let n = len_of(x);
    let m = (k.unsigned_abs() as usize).min(n);
    if k >= 0 { range_of("drop", x, m, n) } else { range_of("drop", x, 0, n - m) }
}

fn cut(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = &args[0];
    if x.is_scalar() {
        return Ok(Value::tuple(vec![x.clone()]));
    }
    let n = len_of(x);
    let starts: Vec<usize> = match &args[1] {
        Value::Scalar(_) => {
            let size = int_arg("cut", &args[1], "size")?;
            if size <= 0 {
                return Err(Error::arg("The size argument of [cut] must be positive"));
            }
            (0..n).step_by(size as usize).collect()
        }
        Value::Vector(c) => {
            let mut v = Vec::with_capacity(c.len());
            for k in 0..c.len() {
                let p = c.i64_at(k).ok_or_else(|| Error::arg("The cutPositions of [cut] can't be null"))?;
                if p < 0 || p as usize > n || v.last().map(|&l: &usize| l > p as usize).unwrap_or(false) {
                    return Err(Error::arg("The cutPositions of [cut] must be increasing indices within X"));
                }
                v.push(p as usize);
            }
            v
        }
        other => return Err(Error::arg(format!("The second argument of [cut] must be a size or positions, not {}", describe(other)))),
    };
    let scalar_parts = matches!(&args[1], Value::Scalar(_)) && args[1].as_i64() == Some(1) && matches!(x, Value::Vector(_));
    let mut out = Vec::with_capacity(starts.len());
    for (k, &a) in starts.iter().enumerate() {
        let b = starts.get(k + 1).copied().unwrap_or(n);
        if scalar_parts {
            if let Value::Vector(c) = x {
                out.push(Value::Scalar(c.slice(a, a + 1)));
            }
        } else {
            out.push(range_of("cut", x, a, b)?);
        }
    }
    Ok(Value::tuple(out))
}

fn flatten_into(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Tuple(items) => items.iter().for_each(|x| flatten_into(x, out)),
        Value::Vector(c) | Value::Pair(c) => out.extend((0..c.len()).map(|k| Value::Scalar(c.slice(k, k + 1)))),
        Value::Matrix(m) => out.extend((0..m.data.len()).map(|k| Value::Scalar(m.data.slice(k, k + 1)))),
        other => out.push(other.clone()),
    }
}

fn flatten(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    flatten_value(&args[0])
}

/// `flatten(X)`: a matrix or a tuple without tuple elements becomes one vector; a tuple
/// that holds tuples stays a tuple whose tuple elements are flattened by the same rule, so
/// each call removes one level of nesting (`flatten((1,(2,(3,4)),8))` is `(1,(2,[3,4]),8)`).
fn flatten_value(v: &Value) -> Result<Value> {
    match v {
        Value::Matrix(m) => Ok(Value::Vector(m.data.clone())),
        Value::Vector(_) | Value::Scalar(_) => Ok(v.clone()),
        Value::Tuple(items) if items.iter().any(|x| matches!(x, Value::Tuple(_))) => {
            let out: Vec<Value> = items
                .iter()
                .map(|x| if matches!(x, Value::Tuple(_)) { flatten_value(x) } else { Ok(x.clone()) })
                .collect::<Result<_>>()?;
            Ok(Value::tuple(out))
        }
        Value::Tuple(items) => {
            // fast path: a tuple of vectors of one type concatenates directly
            if let Some(first) = items.first().and_then(|v| v.column()) {
                let ty = first.ty;
                if items.iter().all(|v| matches!(v, Value::Vector(c) | Value::Scalar(c) if c.ty == ty)) {
                    let cols: Vec<&Column> = items.iter().filter_map(|v| v.column()).collect();
                    return Ok(Value::Vector(Column::concat(ty, &cols)));
                }
            }
            let mut out = Vec::new();
            flatten_into(v, &mut out);
            Ok(beluga_runtime::eval::unify_scalars(&out)?.unwrap_or(Value::tuple(out)))
        }
        Value::ArrayVector(a) => Ok(Value::Vector(a.data.clone())),
        other => Err(Error::unsupported("flatten", describe(other))),
    }
}

fn dropna(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let by_row = opt(&args, 1).and_then(|v| v.as_bool()).unwrap_or(true);
    let thresh = opt(&args, 2).map(|v| int_arg("dropna", v, "thresh")).transpose()?;
    match &args[0] {
        Value::Vector(c) => {
            let keep: Vec<usize> = (0..c.len()).filter(|&k| !c.is_null(k)).collect();
            Ok(Value::Vector(c.take_usize(&keep)))
        }
        Value::Matrix(m) => {
            let valid = |r: usize, c: usize| !m.data.is_null(c * m.rows + r);
            if by_row {
                let keep: Vec<usize> = (0..m.rows)
                    .filter(|&r| {
                        let cnt = (0..m.cols).filter(|&c| valid(r, c)).count();
                        match thresh {
                            Some(t) => cnt as i64 >= t,
                            None => cnt == m.cols,
                        }
                    })
                    .collect();
                let idx: Vec<usize> = (0..m.cols).flat_map(|c| keep.iter().map(move |&r| c * m.rows + r)).collect();
                let row_labels = m.row_labels.as_ref().and_then(|l| l.column().map(|c| Box::new(Value::Vector(c.take_usize(&keep)))));
                Ok(Value::Matrix(Arc::new(Matrix {
                    data: m.data.take_usize(&idx),
                    rows: keep.len(),
                    cols: m.cols,
                    row_labels,
                    col_labels: m.col_labels.clone(),
                    indexed: m.indexed,
                })))
            } else {
                let keep: Vec<usize> = (0..m.cols)
                    .filter(|&c| {
                        let cnt = (0..m.rows).filter(|&r| valid(r, c)).count();
                        match thresh {
                            Some(t) => cnt as i64 >= t,
                            None => cnt == m.rows,
                        }
                    })
                    .collect();
                let idx: Vec<usize> = keep.iter().flat_map(|&c| (0..m.rows).map(move |r| c * m.rows + r)).collect();
                let col_labels = m.col_labels.as_ref().and_then(|l| l.column().map(|c| Box::new(Value::Vector(c.take_usize(&keep)))));
                Ok(Value::Matrix(Arc::new(Matrix {
                    data: m.data.take_usize(&idx),
                    rows: m.rows,
                    cols: keep.len(),
                    row_labels: m.row_labels.clone(),
                    col_labels,
                    indexed: m.indexed,
                })))
            }
        }
        Value::Table(t) => {
            let keep: Vec<usize> = (0..t.rows())
                .filter(|&r| {
                    let cnt = t.cols.iter().filter(|c| !c.is_null(r)).count();
                    match thresh {
                        Some(th) => cnt as i64 >= th,
                        None => cnt == t.ncols(),
                    }
                })
                .collect();
            Ok(Value::table(t.take_usize(&keep)))
        }
        other => Err(Error::unsupported("dropna", describe(other))),
    }
}

// ------------------------------------------------------------------ shuffle

fn permutation(i: &mut CallCtx, n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for k in (1..n).rev() {
        let j = (i.next_u64() % (k as u64 + 1)) as usize;
        p.swap(k, j);
    }
    p
}

fn shuffle(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Vector(c) => {
            let p = permutation(i, c.len());
            Ok(Value::Vector(c.take_usize(&p)))
        }
        Value::Matrix(m) => {
            let p = permutation(i, m.data.len());
            Ok(Value::Matrix(Arc::new(Matrix { data: m.data.take_usize(&p), ..(**m).clone() })))
        }
        Value::Tuple(t) => {
            let p = permutation(i, t.len());
            Ok(Value::tuple(p.iter().map(|&k| t[k].clone()).collect()))
        }
        Value::Table(t) => {
            let p = permutation(i, t.rows());
            Ok(Value::table(t.take_usize(&p)))
        }
        Value::Scalar(_) => Ok(args[0].clone()),
        other => Err(Error::unsupported("shuffle", describe(other))),
    }
}

pub const DEFS: &[Builtin] = &[
    fp("at", Kind::System, 1, 3, at, &["X", "index"]),
    fp("cell", Kind::System, 3, 3, cell, &["obj", "row", "col"]),
    fp("cells", Kind::System, 3, 3, cells, &["obj", "row", "col"]),
    fp("col", Kind::System, 2, 2, col_fn, &["obj", "index"]),
    fp("cut", Kind::System, 2, 2, cut, &["X", "size"]),
    fp("drop", Kind::System, 2, 2, drop, &["obj", "count"]),
    fp("dropna", Kind::System, 1, 3, dropna, &["X", "byRow", "thresh"]),
    fp("flatten", Kind::System, 1, 1, flatten, &["X"]),
    fp("head", Kind::System, 1, 2, head, &["X", "n"]),
    fp("ifirstNot", Kind::Aggregate, 1, 1, ifirst_not, &["X"]),
    fp("ilastNot", Kind::Aggregate, 1, 1, ilast_not, &["X"]),
    fp("row", Kind::System, 2, 2, row, &["obj", "index"]),
    fp("shuffle", Kind::System, 1, 1, shuffle, &["X"]),
    fp("shuffle!", Kind::System, 1, 1, shuffle, &["X"]),
    fp("slice", Kind::System, 2, 3, slice, &["obj", "rowIndex", "colIndex"]),
    fp("subarray", Kind::System, 2, 2, subarray, &["X", "range"]),
    fp("tail", Kind::System, 1, 2, tail, &["X", "n"]),
];
