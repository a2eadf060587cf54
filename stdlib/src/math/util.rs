//! Helpers shared by the numeric families (math, agg, stats, random, linalg): typed
//! slice passes that skip nulls, f64 matrix extraction, and small value constructors.

use crate::util::{col, describe};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::null::Native;
use beluga_runtime::value::{Dict, DictVals, Key, Matrix};
use beluga_runtime::{with_numeric, DataType, Error, Result, Value};
use ahash::AHashMap;
use std::sync::Arc;

/// True for types the numeric aggregates accept (BOOL, integral, floating, VOID).
pub fn is_num(t: DataType) -> bool {
    t.is_numeric() || t == DataType::Void
}

/// Error unless the column is numeric (or VOID).
pub fn need_num(name: &str, c: &Column) -> Result<()> {
    if is_num(c.ty) { Ok(()) } else { Err(Error::unsupported(name, c.ty)) }
}

fn valid_of<T: Native>(v: &[T]) -> Vec<f64> {
    v.iter().filter(|x| !x.is_null()).map(|x| x.to_f64()).collect()
}

/// Non-null values as f64 (one typed pass).
pub fn valid_f64(c: &Column) -> Vec<f64> {
    with_numeric!(&*c.data, v => valid_of(v)).unwrap_or_default()
}

fn nan_of<T: Native>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| if x.is_null() { f64::NAN } else { x.to_f64() }).collect()
}

/// All values as f64 with NaN for nulls (one typed pass; strings give NaN).
pub fn nan_f64(c: &Column) -> Vec<f64> {
    with_numeric!(&*c.data, v => nan_of(v)).unwrap_or_else(|| vec![f64::NAN; c.len()])
}

/// Pairs (x, y) where both are non-null.
pub fn valid_pairs(x: &Column, y: &Column) -> (Vec<f64>, Vec<f64>) {
    let a = nan_f64(x);
    let b = nan_f64(y);
    let mut p = Vec::with_capacity(a.len());
    let mut q = Vec::with_capacity(a.len());
    for (&u, &v) in a.iter().zip(&b) {
        if !u.is_nan() && !v.is_nan() {
            p.push(u);
            q.push(v);
        }
    }
    (p, q)
}

/// A DOUBLE scalar (NaN/inf become null).
pub fn dbl(v: f64) -> Value {
    Value::double(v)
}

/// A DOUBLE null scalar.
pub fn dnull() -> Value {
    Value::null_of(DataType::Double)
}

/// A DOUBLE vector from f64 values (NaN/inf become null).
pub fn dvec(v: Vec<f64>) -> Value {
    Value::Vector(dcol(v))
}

/// A DOUBLE column from f64 values (NaN/inf become null).
pub fn dcol(v: Vec<f64>) -> Column {
    Column::from_vec(DataType::Double, v.into_iter().map(f64::from_f64).collect::<Vec<f64>>())
}

/// A DOUBLE matrix (column-major values).
pub fn dmat(data: Vec<f64>, rows: usize, cols: usize) -> Value {
    Value::Matrix(Arc::new(Matrix { data: dcol(data), rows, cols, row_labels: None, col_labels: None, indexed: false }))
}

/// A numeric argument as an f64 matrix (column-major): matrix, vector (one column), scalar (1x1),
/// or a table of numeric columns. Nulls become NaN.
pub fn mat_arg(name: &str, v: &Value) -> Result<(Vec<f64>, usize, usize)> {
    match v {
        Value::Matrix(m) => {
            need_num(name, &m.data)?;
            Ok((nan_f64(&m.data), m.rows, m.cols))
        }
        Value::Table(t) => {
            let rows = t.rows();
            let mut out = Vec::with_capacity(rows * t.ncols());
            for c in &t.cols {
                need_num(name, c)?;
                out.extend(nan_f64(c));
            }
            Ok((out, rows, t.ncols()))
        }
        Value::Tuple(items) => {
            // a tuple of equal-length vectors is a list of columns
            let mut out = Vec::new();
            let mut rows = None;
            for it in items.iter() {
                let c = col(name, it)?;
                need_num(name, &c)?;
                if *rows.get_or_insert(c.len()) != c.len() {
                    return Err(Error::size(format!("The columns passed to [{name}] must have the same length")));
                }
                out.extend(nan_f64(&c));
            }
            Ok((out, rows.unwrap_or(0), items.len()))
        }
        other => {
            let c = col(name, other)?;
            need_num(name, &c)?;
            let n = c.len();
            Ok((nan_f64(&c), n, 1))
        }
    }
}

/// A numeric vector argument as f64 (NaN for nulls).
pub fn vec_arg(name: &str, v: &Value) -> Result<Vec<f64>> {
    let c = col(name, v)?;
    need_num(name, &c)?;
    Ok(nan_f64(&c))
}

/// A numeric scalar argument.
pub fn f64_arg(name: &str, v: &Value, what: &str) -> Result<f64> {
    match v {
        Value::Scalar(c) if is_num(c.ty) => c.f64_at(0).ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] can't be null"))),
        _ => Err(Error::arg(format!("The {what} argument of [{name}] must be a numeric scalar"))),
    }
}

/// Optional boolean argument (absent or VOID gives the default).
pub fn bool_opt(args: &[Value], i: usize, default: bool) -> bool {
    match args.get(i) {
        Some(Value::Void) | None => default,
        Some(v) => v.as_bool().unwrap_or(default),
    }
}

/// Build a dictionary with STRING keys in the given order (printed in insertion order).
pub fn str_dict(pairs: Vec<(&str, Value)>) -> Result<Value> {
    let mut keys = StrCol::with_capacity(pairs.len(), 0);
    let mut index = AHashMap::with_capacity(pairs.len());
    let mut vals = Vec::with_capacity(pairs.len());
    for (i, (k, v)) in pairs.into_iter().enumerate() {
        keys.push(k);
        index.insert(Key::S(Arc::from(k)), i);
        vals.push(v);
    }
    let all_scalar = vals.iter().all(|v| matches!(v, Value::Scalar(_)));
    let (vals, val_type) = match beluga_runtime::eval::unify_scalars(&vals)? {
        Some(Value::Vector(c)) if all_scalar && !vals.is_empty() => {
            let t = c.ty;
            (DictVals::Col(c), t)
        }
        _ => (DictVals::Any(vals), DataType::Any),
    };
    Ok(Value::Dict(Arc::new(Dict {
        keys: Column::new(DataType::String, ColData::Str(keys)),
        vals,
        index,
        ordered: true,
        key_type: DataType::String,
        val_type,
    })))
}

/// Look a STRING key up in a dictionary.
pub fn dict_get(d: &Dict, key: &str) -> Option<Value> {
    let &i = d.index.get(&Key::S(Arc::from(key)))?;
    Some(match &d.vals {
        DictVals::Col(c) => Value::Scalar(c.slice(i, i + 1)),
        DictVals::Any(v) => v[i].clone(),
    })
}

/// Apply a two-argument column aggregate to vectors (→ scalar) or column by column to
/// matrices/tables of the same shape (→ vector / one-row table).
/// A DECIMAL column as DOUBLE (the two-column statistics compute in DOUBLE); others as they are.
pub fn undecimal(c: &Column) -> Column {
    if c.ty.decimal_scale().is_some() {
        beluga_runtime::column::f64_column(beluga_runtime::kernels::decimal::to_f64(c))
    } else {
        c.clone()
    }
}

pub fn aggregate2(name: &str, x: &Value, y: &Value, f: &dyn Fn(&Column, &Column) -> Result<Value>) -> Result<Value> {
    // DECIMAL arguments (wavg of prices, corr of amounts) are statistics in DOUBLE
    let f = &|a: &Column, b: &Column| f(&undecimal(a), &undecimal(b));
    match (x, y) {
        (Value::Matrix(a), Value::Matrix(b)) => {
            if a.cols != b.cols || a.rows != b.rows {
                return Err(Error::size(format!("The arguments of [{name}] must have the same shape")));
            }
            let items: Vec<Value> = (0..a.cols).map(|c| f(&a.column(c), &b.column(c))).collect::<Result<_>>()?;
            Ok(beluga_runtime::eval::unify_scalars(&items)?.unwrap_or(Value::tuple(items)))
        }
        (Value::Matrix(a), other) => {
            let yc = col(name, other)?;
            let items: Vec<Value> = (0..a.cols).map(|c| f(&a.column(c), &yc)).collect::<Result<_>>()?;
            Ok(beluga_runtime::eval::unify_scalars(&items)?.unwrap_or(Value::tuple(items)))
        }
        (Value::Table(a), Value::Table(b)) => {
            if a.ncols() != b.ncols() {
                return Err(Error::size(format!("The arguments of [{name}] must have the same shape")));
            }
            let mut cols = Vec::with_capacity(a.ncols());
            for (p, q) in a.cols.iter().zip(&b.cols) {
                match f(p, q)? {
                    Value::Scalar(s) => cols.push(s),
                    _ => cols.push(Column::nulls(DataType::Double, 1)),
                }
            }
            Ok(Value::table(beluga_runtime::Table::new(a.names.clone(), cols)?))
        }
        (Value::Table(a), other) => {
            let yc = col(name, other)?;
            let mut cols = Vec::with_capacity(a.ncols());
            for p in &a.cols {
                match f(p, &yc)? {
                    Value::Scalar(s) => cols.push(s),
                    _ => cols.push(Column::nulls(DataType::Double, 1)),
                }
            }
            Ok(Value::table(beluga_runtime::Table::new(a.names.clone(), cols)?))
        }
        (a, b) => {
            let xc = col(name, a)?;
            let yc = col(name, b)?;
            if xc.len() != yc.len() && xc.len() != 1 && yc.len() != 1 {
                return Err(Error::size(format!(
                    "The two arguments of [{name}] must have the same length ({} vs {})",
                    xc.len(),
                    yc.len()
                )));
            }
            // broadcast a scalar operand
            let n = xc.len().max(yc.len());
            let xc = if xc.len() == 1 && n > 1 { broadcast(&xc, n) } else { xc };
            let yc = if yc.len() == 1 && n > 1 { broadcast(&yc, n) } else { yc };
            f(&xc, &yc)
        }
    }
}

/// Repeat a one-element column n times.
pub fn broadcast(c: &Column, n: usize) -> Column {
    c.take_usize(&vec![0; n])
}

/// Error for a value of the wrong form.
pub fn form_err(name: &str, v: &Value) -> Error {
    Error::unsupported(name, describe(v))
}

/// Element-wise map of an f64 → f64 function over a column, keeping nulls (DOUBLE result).
pub fn map_col(c: &Column, f: impl Fn(f64) -> f64) -> Column {
    let x = nan_f64(c);
    let out = beluga_runtime::guard::collect_chunked(x.len(), |r, out| {
        out.extend(x[r].iter().map(|&a| if a.is_nan() { f64::NULL } else { f64::from_f64(f(a)) }))
    });
    Column::from_vec(DataType::Double, out)
}

/// Short text of a number without trailing zeros (`25` for 25.0, `2.5` for 2.5).
pub fn trim_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// Error when a requested output size is unreasonably large (guards allocations).
pub fn check_size(name: &str, n: usize) -> Result<()> {
    if n > (1usize << 31) {
        return Err(Error::arg(format!("The result of [{name}] would be too large")));
    }
    Ok(())
}
