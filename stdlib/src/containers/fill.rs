//! Builtins: null handling (ffill, bfill, lfill and their `!` forms, nullFill, nullFill!,
//! fill!, ifNull, ifValid, isNanInf, countNanInf, nanInfFill, interpolate, mask, isNothing).
//!
//! Fills build a source index per element and gather once (`take_usize`), so one generic
//! pass serves every column type, including SYMBOL and STRING.

use beluga_runtime::CallCtx;
use crate::util::{col, describe, int_arg, opt};
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

/// Null flags of a column, one typed pass.
pub fn null_flags(c: &Column) -> Vec<bool> {
    fn f<T: Native>(v: &[T]) -> Vec<bool> {
        v.iter().map(|x| x.is_null()).collect()
    }
    match &*c.data {
        ColData::I8(v) => f(v),
        ColData::I16(v) => f(v),
        ColData::I32(v) => f(v),
        ColData::I64(v) => f(v),
        ColData::F32(v) => f(v),
        ColData::F64(v) => f(v),
        ColData::I128(v) => f(v),
        ColData::Sym(s) => s.codes.iter().map(|&k| s.dict.get(k).is_empty()).collect(),
        ColData::Str(s) => (0..s.len()).map(|k| s.offsets[k] == s.offsets[k + 1]).collect(),
        ColData::Array(a) => (0..a.rows()).map(|r| c.is_null(r)).collect(),
    }
}

/// Apply a column → column function to every column of a vector, matrix or table (same form).
fn per_column(name: &str, v: &Value, f: &dyn Fn(&Column) -> Result<Column>) -> Result<Value> {
    match v {
        Value::Matrix(m) => {
            let cols: Vec<Column> = (0..m.cols).map(|c| f(&m.column(c))).collect::<Result<_>>()?;
            let refs: Vec<&Column> = cols.iter().collect();
            let ty = cols.first().map(|c| c.ty).unwrap_or(m.data.ty);
            Ok(Value::Matrix(Arc::new(Matrix { data: Column::concat(ty, &refs), ..(**m).clone() })))
        }
        Value::Table(t) => {
            let mut out = (**t).clone();
            for c in out.cols.iter_mut() {
                *c = f(c)?;
            }
            Ok(Value::table(out))
        }
        Value::Vector(c) => Ok(Value::Vector(f(c)?)),
        Value::Pair(c) => Ok(Value::Pair(f(c)?)),
        Value::Scalar(c) => Ok(Value::Scalar(f(c)?)),
        Value::Tuple(items) => Ok(Value::tuple(items.iter().map(|x| per_column(name, x, f)).collect::<Result<_>>()?)),
        // an array vector fills as a table column of it does: each row is one element, a
        // null row (empty or `[null]`) takes a whole neighbouring row
        Value::ArrayVector(a) => match f(&Column::from_array(a.clone()))?.as_array() {
            Some(out) => Ok(Value::ArrayVector(out.clone())),
            None => Err(Error::unsupported(name, describe(v))),
        },
        other => Err(Error::unsupported(name, describe(other))),
    }
}

fn limit_arg(name: &str, args: &[Value]) -> Result<usize> {
    match opt(args, 1) {
        None => Ok(usize::MAX),
        Some(v) => {
            let k = int_arg(name, v, "limit")?;
            if k <= 0 {
                return Err(Error::arg(format!("The limit argument of [{name}] must be a positive integer")));
            }
            Ok(k as usize)
        }
    }
}

fn ffill_col(c: &Column, limit: usize) -> Column {
    let nulls = null_flags(c);
    if !nulls.iter().any(|&b| b) {
        return c.clone();
    }
    let mut idx: Vec<usize> = (0..c.len()).collect();
    let mut last: Option<usize> = None;
    let mut run = 0usize;
    for k in 0..c.len() {
        if nulls[k] {
            run += 1;
            if let Some(l) = last {
                if run <= limit {
                    idx[k] = l;
                }
            }
        } else {
            last = Some(k);
            run = 0;
        }
    }
    c.take_usize(&idx)
}

fn bfill_col(c: &Column, limit: usize) -> Column {
    let nulls = null_flags(c);
    if !nulls.iter().any(|&b| b) {
        return c.clone();
    }
    let mut idx: Vec<usize> = (0..c.len()).collect();
    let mut next: Option<usize> = None;
    let mut run = 0usize;
    for k in (0..c.len()).rev() {
        if nulls[k] {
            run += 1;
            if let Some(l) = next {
                if run <= limit {
                    idx[k] = l;
                }
            }
        } else {
            next = Some(k);
            run = 0;
        }
    }
    c.take_usize(&idx)
}

/// Linear interpolation of interior null runs (leading and trailing nulls stay).
fn lfill_col(c: &Column) -> Result<Column> {
    if !(c.ty.is_numeric() || c.ty.is_temporal()) {
        // non-numeric columns of a table are left as they are
        return Ok(c.clone());
    }
    fn run<T: Native>(v: &[T]) -> Option<Vec<T>> {
        let mut out = v.to_vec();
        let mut prev: Option<usize> = None;
        let mut changed = false;
        for k in 0..v.len() {
            if v[k].is_null() {
                continue;
            }
            if let Some(p) = prev {
                if k > p + 1 {
                    let (a, b) = (v[p].to_f64(), v[k].to_f64());
                    let span = (k - p) as f64;
                    for (j, o) in out.iter_mut().enumerate().take(k).skip(p + 1) {
                        *o = T::from_f64(a + (b - a) * (j - p) as f64 / span);
                    }
                    changed = true;
                }
            }
            prev = Some(k);
        }
        if changed { Some(out) } else { None }
    }
    let data = match &*c.data {
        ColData::I8(v) => run(v).map(ColData::I8),
        ColData::I16(v) => run(v).map(ColData::I16),
        ColData::I32(v) => run(v).map(ColData::I32),
        ColData::I64(v) => run(v).map(ColData::I64),
        ColData::F32(v) => run(v).map(ColData::F32),
        ColData::F64(v) => run(v).map(ColData::F64),
        _ => None,
    };
    Ok(match data {
        Some(d) => Column::new(c.ty, d),
        None => c.clone(),
    })
}

fn ffill(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let limit = limit_arg("ffill", &args)?;
    per_column("ffill", &args[0], &|c| Ok(ffill_col(c, limit)))
}

fn bfill(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let limit = limit_arg("bfill", &args)?;
    per_column("bfill", &args[0], &|c| Ok(bfill_col(c, limit)))
}

fn lfill(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    per_column("lfill", &args[0], &lfill_col)
}

// ------------------------------------------------------------------ element selection

/// Element k of `y` (broadcast when y has one element), or an error when lengths differ.
fn pick_from(x: &Column, y: &Column, choose_y: &[bool]) -> Result<Column> {
    let n = x.len();
    if y.len() != 1 && y.len() != n {
        return Err(Error::size(format!("The two arguments must have the same length ({n} vs {})", y.len())));
    }
    let y = if y.ty != x.ty && !(y.ty.is_literal() && x.ty.is_literal()) {
        if x.ty.is_numeric() && y.ty.is_literal() {
            return Err(Error::type_err(format!("Can't fill a {} column with {} values", x.ty, y.ty)));
        }
        cast_column(y, x.ty)?
    } else {
        y.clone()
    };
    if !choose_y.iter().any(|&b| b) {
        return Ok(x.clone());
    }
    let combined = Column::concat(x.ty, &[x, &y]);
    let idx: Vec<usize> = (0..n).map(|k| if choose_y[k] { n + if y.len() == 1 { 0 } else { k } } else { k }).collect();
    Ok(combined.take_usize(&idx))
}

/// The data column of a fill value (scalar, vector, matrix).
fn fill_col(name: &str, v: &Value) -> Result<Column> {
    match v {
        Value::Matrix(m) => Ok(m.data.clone()),
        other => col(name, other),
    }
}

fn null_fill(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = &args[0];
    let y = &args[1];
    if let Value::Table(_) = x {
        if !y.is_scalar() {
            return Err(Error::arg("The fill value of [nullFill] for a table must be a scalar"));
        }
    }
    // two array vectors of the same shape: each null cell of X takes Y's cell (the Level-2
    // tutorial's nullFill(price.rowAt(left), prevPrice.rowAt(right)))
    if let (Value::ArrayVector(a), Value::ArrayVector(b)) = (x, y) {
        if a.offsets != b.offsets {
            return Err(Error::size("The two array vectors of [nullFill] must have rows of the same lengths"));
        }
        let data = pick_from(&a.data, &b.data, &strict_null_flags(&a.data))?;
        return Ok(Value::ArrayVector(Arc::new(a.with_data(data))));
    }
    let yc = fill_col("nullFill", y)?;
    match x {
        Value::Matrix(m) => {
            let data = pick_from(&m.data, &yc, &strict_null_flags(&m.data))?;
            Ok(Value::Matrix(Arc::new(Matrix { data, ..(**m).clone() })))
        }
        // null cells of an array vector (or of a table's array-vector column) are replaced
        // one by one; the row shapes stay
        Value::ArrayVector(a) => Ok(Value::ArrayVector(Arc::new(fill_array_cells(a, &yc)?))),
        _ => per_column("nullFill", x, &|c| match c.as_array() {
            Some(a) => Ok(Column::from_array(Arc::new(fill_array_cells(a, &yc)?))),
            None => pick_from(c, &yc, &strict_null_flags(c)),
        }),
    }
}

/// `nullFill` of an array vector: every null cell of the flat data takes the scalar `y`.
fn fill_array_cells(a: &beluga_runtime::value::ArrayVec, y: &Column) -> Result<beluga_runtime::value::ArrayVec> {
    if y.len() != 1 {
        return Err(Error::arg("The fill value of [nullFill] for an array vector must be a scalar"));
    }
    let data = pick_from(&a.data, y, &strict_null_flags(&a.data))?;
    Ok(beluga_runtime::value::ArrayVec::new(a.offsets.clone(), data))
}

/// NULL elements only: `nullFill` leaves a NaN alone (a value, not a null: null.rs).
fn strict_null_flags(c: &Column) -> Vec<bool> {
    let mut f = null_flags(c);
    if c.ty.is_floating() {
        f.iter_mut().enumerate().filter(|(i, _)| c.is_nan_at(*i)).for_each(|(_, x)| *x = false);
    }
    f
}

fn if_null_impl(args: &[Value], valid: bool) -> Result<Value> {
    let name = if valid { "ifValid" } else { "ifNull" };
    let yc = fill_col(name, &args[1])?;
    let f = |c: &Column| -> Result<Column> {
        let nulls = null_flags(c);
        // ifValid: X where valid, else Y; ifNull: X where null, else Y
        let choose: Vec<bool> = if valid { nulls } else { nulls.iter().map(|b| !b).collect() };
        pick_from(c, &yc, &choose)
    };
    match &args[0] {
        Value::Matrix(m) => Ok(Value::Matrix(Arc::new(Matrix { data: f(&m.data)?, ..(**m).clone() }))),
        other => per_column(name, other, &f),
    }
}

fn if_null(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if_null_impl(&args, false)
}

fn if_valid(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if_null_impl(&args, true)
}

/// `fill!(obj, index, value)` = `obj[index] = value` (a tuple index addresses matrix rows/cells).
fn fill_inplace(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (obj, idx, v) = (args[0].clone(), args[1].clone(), args[2].clone());
    match (&obj, &idx) {
        (Value::Matrix(m), Value::Tuple(t)) => {
            let r = t.first().cloned().unwrap_or(Value::Void);
            let c = match t.get(1) {
                Some(c) if !matches!(c, Value::Void) => c.clone(),
                _ => Value::Pair(Column::from_vec(DataType::Int, vec![0i32, m.cols as i32])),
            };
            i.assign_index(obj.clone(), &[Some(r), Some(c)], v)
        }
        _ => i.assign_index(obj, &[Some(idx)], v),
    }
}

// ------------------------------------------------------------------ NaN and infinity

fn nan_inf_flags(c: &Column, include_null: bool) -> Vec<bool> {
    match &*c.data {
        ColData::F64(v) => v.iter().map(|&x| x.is_nan() || x.is_infinite() || (include_null && x.is_null())).collect(),
        ColData::F32(v) => v.iter().map(|&x| x.is_nan() || x.is_infinite() || (include_null && x.is_null())).collect(),
        _ => {
            if include_null {
                null_flags(c)
            } else {
                vec![false; c.len()]
            }
        }
    }
}

fn is_nan_inf(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let include_null = opt(&args, 1).and_then(|v| v.as_bool()).unwrap_or(false);
    per_column("isNanInf", &args[0], &|c| {
        let f = nan_inf_flags(c, include_null);
        Ok(Column::from_vec(DataType::Bool, f.into_iter().map(|b| b as i8).collect::<Vec<i8>>()))
    })
}

fn count_nan_inf(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let include_null = opt(&args, 1).and_then(|v| v.as_bool()).unwrap_or(false);
    let count = |c: &Column| nan_inf_flags(c, include_null).into_iter().filter(|&b| b).count() as i32;
    match &args[0] {
        Value::Table(t) => Ok(Value::int(t.cols.iter().map(count).sum())),
        Value::Matrix(m) => Ok(Value::int(count(&m.data))),
        other => Ok(Value::int(count(&col("countNanInf", other)?))),
    }
}

fn nan_inf_fill(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let yc = fill_col("nanInfFill", &args[1])?;
    per_column("nanInfFill", &args[0], &|c| {
        if !c.ty.is_floating() {
            return Ok(c.clone());
        }
        // NaN counts as null for floats, so replace by position, not through the null path
        let flags = nan_inf_flags(c, false);
        pick_from(c, &yc, &flags)
    })
}

fn mask(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let cond = fill_col("mask", &args[1])?;
    let f = |c: &Column| -> Result<Column> {
        if cond.len() != c.len() && cond.len() != 1 {
            return Err(Error::size("The condition of [mask] must have the same size as X"));
        }
        let flags: Vec<bool> = (0..c.len()).map(|k| cond.i64_at(if cond.len() == 1 { 0 } else { k }).map(|x| x != 0).unwrap_or(false)).collect();
        pick_from(c, &Column::nulls(c.ty, 1), &flags)
    };
    match &args[0] {
        Value::Matrix(m) => Ok(Value::Matrix(Arc::new(Matrix { data: f(&m.data)?, ..(**m).clone() }))),
        other => per_column("mask", other, &f),
    }
}

fn is_nothing(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    // arguments that were not passed arrive as VOID; an explicit NULL is indistinguishable
    Ok(Value::bool(matches!(args.first(), None | Some(Value::Void))))
}

// ------------------------------------------------------------------ interpolate

#[derive(Clone, Copy, PartialEq)]
enum Method {
    Linear,
    Pad,
    Backfill,
    Nearest,
}

fn interpolate_col(c: &Column, method: Method, limit: usize, dir: &str, area: &str, index: Option<&[f64]>) -> Result<Column> {
    if !(c.ty.is_numeric() || c.ty.is_temporal()) {
        return Err(Error::unsupported("interpolate", c.ty));
    }
    let v = as_native::<f64>(c);
    let n = v.len();
    let valid: Vec<usize> = (0..n).filter(|&k| !v[k].is_null()).collect();
    let pos = |k: usize| index.map(|ix| ix[k]).unwrap_or(k as f64);
    let mut out: Vec<f64> = v.iter().map(|&x| if x.is_null() { f64::NULL } else { x }).collect();
    let (first, last) = match (valid.first(), valid.last()) {
        (Some(&a), Some(&b)) => (a, b),
        _ => return Ok(Column::from_vec(DataType::Double, out)),
    };
    // distance of each null to the previous / next valid element, for limit and direction
    let mut run_fwd = vec![0usize; n];
    let mut run_bwd = vec![0usize; n];
    let mut r = 0;
    for k in 0..n {
        r = if v[k].is_null() { r + 1 } else { 0 };
        run_fwd[k] = r;
    }
    r = 0;
    for k in (0..n).rev() {
        r = if v[k].is_null() { r + 1 } else { 0 };
        run_bwd[k] = r;
    }
    let mut vi = 0usize;
    for k in 0..n {
        if !v[k].is_null() {
            continue;
        }
        while vi < valid.len() && valid[vi] < k {
            vi += 1;
        }
        let prev = if vi > 0 { Some(valid[vi - 1]) } else { None };
        let next = valid.get(vi).copied();
        let inside = k > first && k < last;
        if (area == "inside" && !inside) || (area == "outside" && inside) {
            continue;
        }
        let ok = match dir {
            "forward" => prev.is_some() && run_fwd[k] <= limit,
            "backward" => next.is_some() && run_bwd[k] <= limit,
            _ => (prev.is_some() && run_fwd[k] <= limit) || (next.is_some() && run_bwd[k] <= limit),
        };
        if !ok {
            continue;
        }
        let val = match (method, prev, next) {
            (Method::Linear, Some(p), Some(q)) => {
                let (x0, x1) = (pos(p), pos(q));
                if x1 == x0 { v[p] } else { v[p] + (v[q] - v[p]) * (pos(k) - x0) / (x1 - x0) }
            }
            (Method::Linear, Some(p), None) => v[p],
            (Method::Linear, None, Some(q)) if dir != "forward" => v[q],
            (Method::Pad, Some(p), _) => v[p],
            (Method::Backfill, _, Some(q)) => v[q],
            (Method::Nearest, Some(p), Some(q)) => {
                if pos(k) - pos(p) <= pos(q) - pos(k) { v[p] } else { v[q] }
            }
            (Method::Nearest, Some(p), None) => v[p],
            (Method::Nearest, None, Some(q)) => v[q],
            _ => continue,
        };
        out[k] = val;
    }
    Ok(Column::from_vec(DataType::Double, out))
}

fn interpolate(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let method = match opt(&args, 1).and_then(|v| v.as_str()).unwrap_or("linear") {
        "linear" | "values" | "index" => Method::Linear,
        "pad" | "ffill" => Method::Pad,
        "backfill" | "bfill" => Method::Backfill,
        "nearest" => Method::Nearest,
        other => return Err(Error::arg(format!("The method '{other}' of [interpolate] is not supported"))),
    };
    let limit = match opt(&args, 2) {
        Some(v) => int_arg("interpolate", v, "limit")?.max(0) as usize,
        None => usize::MAX,
    };
    let dir = opt(&args, 4).and_then(|v| v.as_str()).unwrap_or("forward").to_string();
    let area = opt(&args, 5).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let index: Option<Vec<f64>> = match opt(&args, 6) {
        Some(v) => Some(crate::util::f64s(&col("interpolate", v)?)),
        None => None,
    };
    per_column("interpolate", &args[0], &|c| interpolate_col(c, method, limit, &dir, &area, index.as_deref()))
}

pub const DEFS: &[Builtin] = &[
    fp("bfill", Kind::VectorToVector, 1, 2, bfill, &["obj", "limit"]),
    fp("bfill!", Kind::System, 1, 2, bfill, &["obj", "limit"]),
    fp("countNanInf", Kind::Aggregate, 1, 2, count_nan_inf, &["X", "includeNull"]),
    fp("ffill", Kind::VectorToVector, 1, 2, ffill, &["obj", "limit"]),
    fp("ffill!", Kind::System, 1, 2, ffill, &["obj", "limit"]),
    fp("fill!", Kind::System, 3, 3, fill_inplace, &["obj", "index", "value"]),
    fp("ifNull", Kind::Elementwise, 2, 2, if_null, &["X", "Y"]),
    fp("ifValid", Kind::Elementwise, 2, 2, if_valid, &["X", "Y"]),
    fp(
        "interpolate",
        Kind::VectorToVector,
        1,
        7,
        interpolate,
        &["X", "method", "limit", "inplace", "limitDirection", "limitArea", "index"],
    ),
    fp("isNanInf", Kind::Elementwise, 1, 2, is_nan_inf, &["X", "includeNull"]),
    fp("isNothing", Kind::System, 0, 1, is_nothing, &["X"]),
    fp("lfill", Kind::VectorToVector, 1, 1, lfill, &["obj"]),
    fp("lfill!", Kind::System, 1, 1, lfill, &["obj"]),
    fp("mask", Kind::Elementwise, 2, 2, mask, &["X", "Y"]),
    fp("nanInfFill", Kind::Elementwise, 2, 2, nan_inf_fill, &["X", "Y"]),
    fp("nullFill", Kind::Elementwise, 2, 2, null_fill, &["X", "Y"]),
    fp("nullFill!", Kind::System, 2, 2, null_fill, &["X", "Y"]),
];
