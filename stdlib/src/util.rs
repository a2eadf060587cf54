//! Argument helpers shared by every builtin family. Use these instead of writing new ones.

use beluga_runtime::column::{ColData, Column};
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::kernels::par;
use beluga_runtime::null::Native;
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

/// The column of a scalar, vector or pair argument (VOID → one DOUBLE null).
pub fn col(name: &str, v: &Value) -> Result<Column> {
    match v {
        Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => Ok(c.clone()),
        Value::Void => Ok(Column::nulls(DataType::Double, 1)),
        Value::Matrix(m) => Ok(m.data.clone()),
        Value::Type(t) => Ok(Column::from_vec(DataType::Int, vec![t.id()])),
        other => Err(Error::unsupported(name, describe(other))),
    }
}

pub fn describe(v: &Value) -> String {
    beluga_runtime::eval::ops::describe(v)
}

/// Values as f64 with NaN for nulls (slow path for non-f64 storage).
pub fn f64s(c: &Column) -> Vec<f64> {
    as_native::<f64>(c).iter().map(|&x| if x.is_null() { f64::NAN } else { x }).collect()
}

/// Wrap a result column in the form of the original argument (scalar, vector, pair, matrix).
pub fn like_form(orig: &Value, c: Column) -> Value {
    match orig {
        Value::Scalar(_) | Value::Void | Value::Type(_) => Value::Scalar(c),
        Value::Pair(_) => Value::Pair(c),
        Value::Matrix(m) => Value::Matrix(Arc::new(Matrix { data: c, ..(**m).clone() })),
        _ => Value::Vector(c),
    }
}

/// Element-wise f64 → f64 function over any numeric form (tuples, dicts and tables too); DOUBLE result.
pub fn map_f64<F: Fn(f64) -> f64 + Sync + ?Sized>(name: &str, v: &Value, f: &F) -> Result<Value> {
    map_f64_slices(name, v, PAR_MAP_MIN, &|x, o| beluga_runtime::kernels::vmath::map_slice(x, o, &|a| f(a)))
}

/// `map_f64` with the function given as a whole-slice kernel (`out[i] = f(x[i])`, e.g.
/// `kernels::vmath::ln_slice`), run over chunks (in parallel from `par_min` elements),
/// each chunk followed by a vectorised pass applying the null rule of runtime/src/null.rs:
/// NULL in gives NULL; a NaN in gives NaN and an Infinity in gives what IEEE 754 says
/// (exp(inf) is inf); finite operands never create NaN/Infinity (log(-1) is NULL).
pub fn map_f64_slices(
    name: &str,
    v: &Value,
    par_min: usize,
    block: &(dyn Fn(&[f64], &mut [std::mem::MaybeUninit<f64>]) + Sync),
) -> Result<Value> {
    beluga_runtime::eval::ops::unary_col(v, &|c: &Column| {
        if !(c.ty.is_numeric() || c.ty == DataType::Void) {
            return Err(Error::unsupported(name, c.ty));
        }
        let x = as_native::<f64>(c);
        let fill = |start: usize, o: &mut [std::mem::MaybeUninit<f64>]| {
            let i = &x[start..start + o.len()];
            block(i, o);
            // SAFETY: `block` wrote every element of `o`
            null_rule(unsafe { par::assume_init_mut(o) }, i);
        };
        // SAFETY: `fill` writes every element of each part (block's contract)
        let out = unsafe { par::build_vec(x.len(), par_min, &fill) };
        Ok(Column::from_vec(DataType::Double, out))
    })
}

beluga_runtime::simd_fn! {
    /// `map_f64_slices`' null rule on results `o` of inputs `i`, branch-free so it
    /// vectorises (on AVX-512/AVX2 when the CPU has them).
    fn null_rule(o: &mut [f64], i: &[f64]) -> () {
        for (d, &a) in o.iter_mut().zip(i) {
            let r = *d;
            let keep = r.is_finite() | a.is_infinite();
            let r = if (a == f64::NULL) | !keep { f64::NULL } else { r };
            *d = if a.is_nan() { a } else { r };
        }
    }
}

/// Element counts from which `map_f64` runs on rayon.
pub use beluga_runtime::kernels::par::PAR_MAP_MIN;

/// Integer argument (e.g. a window size or count).
pub fn int_arg(name: &str, v: &Value, what: &str) -> Result<i64> {
    v.as_i64().ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] must be an integer")))
}

/// String argument.
pub fn str_arg<'a>(name: &str, v: &'a Value, what: &str) -> Result<&'a str> {
    v.as_str().ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] must be a string")))
}

/// Optional argument: absent or VOID gives None.
pub fn opt(args: &[Value], i: usize) -> Option<&Value> {
    args.get(i).filter(|v| !matches!(v, Value::Void))
}

/// Apply an aggregate column → scalar function to a vector, to each column of a matrix
/// (→ vector) or of a table (→ one-row table), as DolphinDB's aggregates do.
pub fn aggregate(name: &str, v: &Value, f: &dyn Fn(&Column) -> Result<Value>) -> Result<Value> {
    match v {
        Value::Matrix(m) => {
            let items: Vec<Value> = (0..m.cols).map(|c| f(&m.column(c))).collect::<Result<_>>()?;
            Ok(beluga_runtime::eval::unify_scalars(&items)?.unwrap_or(Value::tuple(items)))
        }
        Value::Table(t) => {
            let mut cols = Vec::with_capacity(t.ncols());
            for c in &t.cols {
                match f(c)? {
                    Value::Scalar(s) => cols.push(s),
                    Value::Void => cols.push(Column::nulls(DataType::Double, 1)),
                    other => return Err(Error::unsupported(name, describe(&other))),
                }
            }
            Ok(Value::table(Table::new(t.names.clone(), cols)?))
        }
        Value::Tuple(items) => {
            let items: Vec<Value> = items.iter().map(|x| aggregate(name, x, f)).collect::<Result<_>>()?;
            Ok(Value::tuple(items))
        }
        other => f(&col(name, other)?),
    }
}

/// Apply a vector → same-length vector function to a vector, to each column of a matrix
/// or of a table (keeping the form).
pub fn vector_fn(name: &str, v: &Value, f: &dyn Fn(&Column) -> Result<Column>) -> Result<Value> {
    match v {
        Value::Matrix(m) => {
            let cols: Vec<Column> = (0..m.cols).map(|c| f(&m.column(c))).collect::<Result<_>>()?;
            let ty = cols.first().map(|c| c.ty).unwrap_or(m.data.ty);
            let refs: Vec<&Column> = cols.iter().collect();
            Ok(Value::Matrix(Arc::new(Matrix { data: Column::concat(ty, &refs), ..(**m).clone() })))
        }
        Value::Table(t) => {
            let cols: Vec<Column> = t.cols.iter().map(|c| f(c)).collect::<Result<_>>()?;
            // checked like any new table, then keeping the key columns and the join name
            let checked = Table::new(t.names.clone(), cols)?;
            Ok(Value::table(Table { keys: t.keys.clone(), name: t.name.clone(), keyed: t.keyed.without_index(), ..checked }))
        }
        Value::Tuple(items) => {
            let items: Vec<Value> = items.iter().map(|x| vector_fn(name, x, f)).collect::<Result<_>>()?;
            Ok(Value::tuple(items))
        }
        other => Ok(like_form(other, f(&col(name, other)?)?)),
    }
}

/// Elements from which the columns of a matrix (or the segments of `context by`) are
/// computed on rayon: below it the scheduling costs more than the second core gives.
pub const PAR_COLS_MIN: usize = 1 << 13;

/// `f(0..n)` in order: the columns (or segments), `total` elements together, in parallel
/// when there are several and `total` is at least [`PAR_COLS_MIN`]. `f` keeps no state
/// between calls (a window kernel builds its state per call), so the results are the
/// sequential ones; the first error in column order is returned, an interrupt reaches the
/// workers through the session's flag.
pub fn per_column<T: Send>(n: usize, total: usize, f: &(dyn Fn(usize) -> Result<T> + Sync)) -> Result<Vec<T>> {
    if n < 2 || total < PAR_COLS_MIN || rayon::current_num_threads() < 2 {
        return (0..n).map(f).collect();
    }
    use rayon::prelude::*;
    let poll = beluga_runtime::guard::Poll::new();
    let each: Vec<Result<T>> = beluga_runtime::guard::catch(|| {
        Ok((0..n)
            .into_par_iter()
            .with_max_len(n.div_ceil(rayon::current_num_threads() * 4).max(1))
            .map(|c| {
                poll.scope(|| {
                    poll.now();
                    f(c)
                })
            })
            .collect())
    })?;
    each.into_iter().collect()
}

/// [`vector_fn`] with the columns of a matrix computed in parallel ([`per_column`]): for
/// kernels that keep no state between columns.
pub fn vector_fn_par(name: &str, v: &Value, f: &(dyn Fn(&Column) -> Result<Column> + Sync)) -> Result<Value> {
    match v {
        Value::Matrix(m) => {
            let cols = per_column(m.cols, m.data.len(), &|c| f(&m.column(c)))?;
            let ty = cols.first().map(|c| c.ty).unwrap_or(m.data.ty);
            let refs: Vec<&Column> = cols.iter().collect();
            Ok(Value::Matrix(Arc::new(Matrix { data: Column::concat(ty, &refs), ..(**m).clone() })))
        }
        other => vector_fn(name, other, f),
    }
}

/// True when the column stores f64 directly (fast paths).
pub fn as_f64_slice(c: &Column) -> Option<&[f64]> {
    match &*c.data {
        ColData::F64(v) => Some(v),
        _ => None,
    }
}
