//! Builtins: order-sensitive vector transforms (move, prev, next, deltas, ratios, tmove,
//! prevState, nextState, valueChanged, segment, topRange, lowRange, maxPositiveStreak,
//! sumbars, replace, replace!, zscore, winsorize, winsorize!, stretch, hashBucket,
//! conditionalFilter, talibNull).

use beluga_runtime::CallCtx;
use crate::order::sort_keys;
use crate::util::{col, describe, int_arg, opt};
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::kernels::arith::{arith, as_native, ArithOp};
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

/// Apply a column function to a vector, each matrix column, each table column or tuple
/// member (the one form-keeping walk is `util::vector_fn`).
pub fn by_column(name: &str, v: &Value, f: &dyn Fn(&Column) -> Result<Column>) -> Result<Value> {
    crate::util::vector_fn(name, v, f)
}

/// Shift a column by `k` positions (positive: later), filling with nulls.
pub fn shift(c: &Column, k: i64) -> Column {
    let idx: Vec<i64> = (0..c.len() as i64).map(|i| i - k).collect();
    c.take(&idx)
}

fn steps_arg(name: &str, args: &[Value], i: usize, default: i64) -> Result<i64> {
    match opt(args, i) {
        None => Ok(default),
        Some(v) => int_arg(name, v, "steps"),
    }
}

/// Shift a vector, matrix columns, table columns, or the rows of an array vector (a row
/// shifted in from outside is empty: its elements are NULL to rowAt and row functions).
fn shift_value(name: &str, v: &Value, k: i64) -> Result<Value> {
    if let Value::ArrayVector(a) = v {
        let idx: Vec<i64> = (0..a.rows() as i64).map(|i| i - k).collect();
        return Ok(Value::ArrayVector(Arc::new(a.take(&idx))));
    }
    by_column(name, v, &|c| Ok(shift(c, k)))
}

fn move_(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(Value::Duration(..)) = opt(&args, 1) {
        return move_by_time(&args[0], &args[1]);
    }
    let k = steps_arg("move", &args, 1, 1)?;
    shift_value("move", &args[0], k)
}

/// `move(X, duration)` on an indexed series or matrix (funcs/m/move.md): each row takes the
/// value of the last row whose time label is at or before its own label minus the duration
/// (`temporalAdd(t, -steps)`), NULL when there is none; one gather for all columns.
fn move_by_time(x: &Value, steps: &Value) -> Result<Value> {
    let m = match x {
        Value::Matrix(m) => m,
        other => {
            return Err(Error::arg(format!(
                "[move] a DURATION steps needs an indexed series or matrix with a time index, not {}",
                describe(other)
            )))
        }
    };
    let labels = match m.row_labels.as_deref() {
        Some(Value::Vector(c)) if c.len() == m.rows && c.ty.is_temporal() => c,
        _ => return Err(Error::arg("[move] a DURATION steps needs an indexed series or matrix with a time index")),
    };
    let w = crate::window::win_len("move", steps)?;
    let bounds = crate::window::time_bounds("move", &crate::window::Slice::whole(labels), &w)?;
    // time_bounds gives, per row, the first row whose label is after `t - steps`: the row
    // before it is the last one at or before `t - steps`
    let from: Vec<i64> = match bounds {
        crate::window::Bounds::Starts(st) => st.iter().map(|&j| j as i64 - 1).collect(),
        _ => return Err(Error::arg("[move] unexpected window bounds")),
    };
    let idx: Vec<i64> = (0..m.cols)
        .flat_map(|c| from.iter().map(move |&j| if j < 0 { -1 } else { (c * m.rows) as i64 + j }))
        .collect();
    Ok(Value::Matrix(Arc::new(Matrix { data: m.data.take(&idx), ..(**m).clone() })))
}

fn prev(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    shift_value("prev", &args[0], 1)
}

fn next(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    shift_value("next", &args[0], -1)
}

fn numeric_check(name: &str, c: &Column) -> Result<()> {
    if c.ty.is_numeric() || c.ty.is_temporal() {
        Ok(())
    } else {
        Err(Error::unsupported(name, c.ty))
    }
}

/// `deltas` of DOUBLE, FLOAT, INT and LONG data as one pass over the whole buffer:
/// `x[i] - x[i-k]` with arith's own subtraction (same null rules and results), and the
/// first `k` rows of every `rows`-long column null (a matrix is column-major, so one pass
/// serves all its columns). None for other types, k <= 0 or an empty input.
fn deltas_fast(c: &Column, k: i64, rows: usize) -> Option<Column> {
    use beluga_runtime::kernels::arith::ArithNative;
    beluga_runtime::simd_fn! {
        // binary_map's rule (a null operand gives null, else arith's subtraction), with
        // non-short-circuit tests so the loop vectorises (AVX-512/AVX2 when present)
        fn sub_lagged[T: ArithNative](out: &mut Vec<T>, a: &[T], b: &[T]) -> () {
            out.extend(a.iter().zip(b).map(|(&p, &q)| if p.is_null() | q.is_null() { T::NULL } else { T::sub(p, q) }))
        }
    }
    fn go<T: ArithNative>(x: &[T], k: usize, rows: usize) -> Vec<T> {
        let n = x.len();
        if k >= n {
            return vec![T::NULL; n];
        }
        let mut out = Vec::with_capacity(n);
        out.resize(k, T::NULL);
        sub_lagged(&mut out, &x[k..], &x[..n - k]);
        if rows < n {
            for start in (rows..n).step_by(rows) {
                let end = (start + k.min(rows)).min(n);
                out[start..end].iter_mut().for_each(|v| *v = T::NULL);
            }
        }
        out
    }
    if k <= 0 || rows == 0 || c.is_empty() {
        return None;
    }
    let k = k as usize;
    let data = match (c.ty, &*c.data) {
        (DataType::Double, ColData::F64(x)) => ColData::F64(go(x, k, rows)),
        (DataType::Float, ColData::F32(x)) => ColData::F32(go(x, k, rows)),
        (DataType::Long, ColData::I64(x)) => ColData::I64(go(x, k, rows)),
        (DataType::Int, ColData::I32(x)) => ColData::I32(go(x, k, rows)),
        _ => return None,
    };
    Some(Column::new(c.ty, data))
}

fn deltas(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let k = steps_arg("deltas", &args, 1, 1)?;
    match &args[0] {
        Value::Vector(c) => {
            if let Some(r) = deltas_fast(c, k, c.len()) {
                return Ok(Value::Vector(r));
            }
        }
        Value::Matrix(m) => {
            if let Some(r) = deltas_fast(&m.data, k, m.rows) {
                return Ok(Value::Matrix(Arc::new(Matrix { data: r, ..(**m).clone() })));
            }
        }
        _ => {}
    }
    by_column("deltas", &args[0], &|c| {
        numeric_check("deltas", c)?;
        let c = if c.ty == DataType::Bool { cast_column(c, DataType::Int)? } else { c.clone() };
        arith(ArithOp::Sub, &c, false, &shift(&c, k), false)
    })
}

fn ratios(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let k = steps_arg("ratios", &args, 1, 1)?;
    by_column("ratios", &args[0], &|c| {
        numeric_check("ratios", c)?;
        arith(ArithOp::Ratio, c, false, &shift(c, k), false)
    })
}

/// `tmove(T, X, window)`: X at the last time not after `T[i] - window`.
fn tmove(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = col("tmove", &args[0])?;
    let x = col("tmove", &args[1])?;
    if t.len() != x.len() {
        return Err(Error::size("The T and X arguments of [tmove] must have the same length"));
    }
    let starts = crate::hof_time::time_starts("tmove", &t, &args[2])?;
    let idx: Vec<i64> = starts.iter().map(|&s| s as i64 - 1).collect();
    Ok(Value::Vector(x.take(&idx)))
}

// ------------------------------------------------------------------ runs and states

/// Start of the run of equal keys containing each element.
fn run_starts(keys: &[u64]) -> Vec<usize> {
    let mut out = Vec::with_capacity(keys.len());
    for k in 0..keys.len() {
        if k > 0 && keys[k] == keys[k - 1] {
            let s = out[k - 1];
            out.push(s);
        } else {
            out.push(k);
        }
    }
    out
}

fn state_col(c: &Column, prev: bool) -> Column {
    let keys = sort_keys(c);
    let n = keys.len();
    let mut idx = vec![-1i64; n];
    if prev {
        // the value of the run before the current run
        let mut last_other: i64 = -1;
        for k in 0..n {
            if k > 0 && keys[k] != keys[k - 1] {
                last_other = k as i64 - 1;
            }
            idx[k] = last_other;
        }
    } else {
        let mut next_other: i64 = -1;
        for k in (0..n).rev() {
            if k + 1 < n && keys[k] != keys[k + 1] {
                next_other = k as i64 + 1;
            }
            idx[k] = next_other;
        }
    }
    c.take(&idx)
}

fn prev_state(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    by_column("prevState", &args[0], &|c| Ok(state_col(c, true)))
}

fn next_state(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    by_column("nextState", &args[0], &|c| Ok(state_col(c, false)))
}

fn value_changed(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let mode = opt(&args, 1).and_then(|v| v.as_str()).unwrap_or("prev").to_ascii_lowercase();
    if !matches!(mode.as_str(), "prev" | "next" | "either" | "both") {
        return Err(Error::arg("The mode argument of [valueChanged] must be prev, next, either or both"));
    }
    by_column("valueChanged", &args[0], &|c| {
        let keys = sort_keys(c);
        let n = keys.len();
        let out: Vec<i8> = (0..n)
            .map(|k| {
                let p = k > 0 && keys[k] != keys[k - 1];
                let q = k + 1 < n && keys[k] != keys[k + 1];
                (match mode.as_str() {
                    "prev" => p,
                    "next" => q,
                    "either" => p || q,
                    _ => p && q,
                }) as i8
            })
            .collect();
        Ok(Column::from_vec(DataType::Bool, out))
    })
}

fn segment(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let offset = opt(&args, 1).and_then(|v| v.as_bool()).unwrap_or(true);
    let c = col("segment", &args[0])?;
    let keys = sort_keys(&c);
    let out: Vec<i32> = if offset {
        run_starts(&keys).into_iter().map(|s| s as i32).collect()
    } else {
        let mut id = -1i32;
        (0..keys.len())
            .map(|k| {
                if k == 0 || keys[k] != keys[k - 1] {
                    id += 1;
                }
                id
            })
            .collect()
    };
    Ok(Value::Vector(Column::from_vec(DataType::Int, out)))
}

/// For each element, how many consecutive preceding elements it dominates
/// (`top`: are strictly smaller; otherwise: strictly larger). Monotonic stack, O(n).
fn range_col(c: &Column, top: bool) -> Column {
    let keys = sort_keys(c);
    let mut stack: Vec<usize> = Vec::new();
    let mut out = vec![i32::NULL; keys.len()];
    for k in 0..keys.len() {
        if keys[k] == 0 {
            stack.clear();
            stack.push(k);
            continue;
        }
        while let Some(&t) = stack.last() {
            // only strictly smaller (topRange) / larger (lowRange) neighbours count (funcs/t/topRange.md)
            let dominated = if top { keys[t] < keys[k] } else { keys[t] > keys[k] } && keys[t] != 0;
            if dominated {
                stack.pop();
            } else {
                break;
            }
        }
        out[k] = match stack.last() {
            Some(&t) => (k - t - 1) as i32,
            None => k as i32,
        };
        stack.push(k);
    }
    Column::from_vec(DataType::Int, out)
}

fn top_range(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    by_column("topRange", &args[0], &|c| Ok(range_col(c, true)))
}

fn low_range(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    by_column("lowRange", &args[0], &|c| Ok(range_col(c, false)))
}

fn max_positive_streak(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    crate::util::aggregate("maxPositiveStreak", &args[0], &|c: &Column| {
        if !(c.ty.is_integral()) {
            return Err(Error::unsupported("maxPositiveStreak", c.ty));
        }
        let v = as_native::<i64>(c);
        let (mut cur, mut best) = (0i64, 0i64);
        for &x in v.iter() {
            if !x.is_null() && x > 0 {
                cur += x;
                best = best.max(cur);
            } else {
                cur = 0;
            }
        }
        Ok(if c.ty == DataType::Long { Value::long(best) } else { Value::int(best as i32) })
    })
}

/// `sumbars(X, Y)`: how many elements, counting back from each position, are needed for
/// their sum to reach Y (0 when the whole prefix falls short).
fn sumbars(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let y = args[1].as_f64().ok_or_else(|| Error::arg("The Y argument of [sumbars] must be a number"))?;
    by_column("sumbars", &args[0], &|c| {
        numeric_check("sumbars", c)?;
        let v = as_native::<f64>(c);
        let mut prefix = Vec::with_capacity(v.len() + 1);
        prefix.push(0.0);
        let mut s = 0.0;
        for &x in v.iter() {
            if !x.is_null() {
                if x < 0.0 {
                    return Err(Error::arg("The X argument of [sumbars] must not contain negative values"));
                }
                s += x;
            }
            prefix.push(s);
        }
        let out: Vec<i32> = (0..v.len())
            .map(|i| {
                if v[i].is_null() {
                    return i32::NULL;
                }
                // largest j with prefix[i+1] - prefix[j] >= y
                let target = prefix[i + 1] - y;
                if target < 0.0 {
                    return 0;
                }
                let j = prefix[..=i + 1].partition_point(|&p| p <= target);
                (i + 1 - (j - 1)) as i32
            })
            .collect();
        Ok(Column::from_vec(DataType::Int, out))
    })
}

// ------------------------------------------------------------------ replace

fn replace_col(c: &Column, old: &Column, new: &Column) -> Result<Column> {
    let eq = beluga_runtime::kernels::cmp::compare(beluga_runtime::kernels::cmp::CmpOp::Eq, c, false, old, true)?;
    let flags: Vec<bool> = match &*eq.data {
        ColData::I8(v) => v.iter().map(|&b| b == 1).collect(),
        _ => vec![false; c.len()],
    };
    if !flags.iter().any(|&b| b) {
        return Ok(c.clone());
    }
    let new = if new.ty != c.ty && !(new.ty.is_literal() && c.ty.is_literal()) { cast_column(new, c.ty)? } else { new.clone() };
    let n = c.len();
    let combined = Column::concat(c.ty, &[c, &new]);
    let idx: Vec<usize> = (0..n).map(|k| if flags[k] { n } else { k }).collect();
    Ok(combined.take_usize(&idx))
}

fn replace(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let old = col("replace", &args[1])?;
    let new = col("replace", &args[2])?;
    if old.len() != 1 || new.len() != 1 {
        return Err(Error::arg("replace: oldValue and newValue must be scalars"));
    }
    by_column("replace", &args[0], &|c| replace_col(c, &old, &new))
}

// ------------------------------------------------------------------ statistics transforms

fn zscore(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    by_column("zscore", &args[0], &|c| {
        numeric_check("zscore", c)?;
        let v = as_native::<f64>(c);
        let valid: Vec<f64> = v.iter().copied().filter(|x| !x.is_null()).collect();
        let n = valid.len() as f64;
        let mean = valid.iter().sum::<f64>() / n;
        let var = valid.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
        let sd = var.sqrt();
        let out: Vec<f64> = v
            .iter()
            .map(|&x| if x.is_null() || !(sd > 0.0) || valid.len() < 2 { f64::NULL } else { (x - mean) / sd })
            .collect();
        Ok(Column::from_vec(DataType::Double, out))
    })
}

fn winsorize(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let lim = col("winsorize", &args[1])?;
    let (lo, hi) = match lim.len() {
        1 => (lim.f64_at(0), lim.f64_at(0)),
        2 => (lim.f64_at(0), lim.f64_at(1)),
        _ => return Err(Error::arg("The limit argument of [winsorize] must be a scalar or a pair of fractions")),
    };
    let (lo, hi) = (lo.unwrap_or(0.0), hi.unwrap_or(0.0));
    if !(0.0..=1.0).contains(&lo) || !(0.0..=1.0).contains(&hi) {
        return Err(Error::arg("The limits of [winsorize] must be between 0 and 1"));
    }
    let inclusive = opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(true);
    by_column("winsorize", &args[0], &|c| {
        numeric_check("winsorize", c)?;
        let keys = sort_keys(c);
        let order: Vec<usize> = crate::order::argsort_keys(&keys, true).into_iter().filter(|&k| keys[k] != 0).collect();
        let n = order.len();
        if n == 0 {
            return Ok(c.clone());
        }
        let count = |f: f64| -> usize {
            let x = f * n as f64;
            (if inclusive { x.floor() } else { x.round() }) as usize
        };
        let (nlo, nhi) = (count(lo).min(n), count(hi).min(n));
        let mut idx: Vec<usize> = (0..c.len()).collect();
        if nlo > 0 && nlo < n {
            let floor_at = order[nlo];
            for &k in &order[..nlo] {
                idx[k] = floor_at;
            }
        }
        if nhi > 0 && nhi < n {
            let cap_at = order[n - nhi - 1];
            for &k in &order[n - nhi..] {
                idx[k] = cap_at;
            }
        }
        Ok(c.take_usize(&idx))
    })
}

fn stretch(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let c = match &args[0] {
        Value::Vector(c) => c.clone(),
        other => return Err(Error::unsupported("stretch", describe(other))),
    };
    let n = int_arg("stretch", &args[1], "newSize")?;
    if n < 0 {
        return Err(Error::arg("The newSize argument of [stretch] must be non-negative"));
    }
    if n > 2_000_000_000 {
        return Err(Error::arg("The newSize argument of [stretch] is too large"));
    }
    let (n, len) = (n as usize, c.len());
    if len == 0 {
        return Ok(Value::Vector(c));
    }
    let (q, r) = (n / len, n % len);
    let mut idx = Vec::with_capacity(n);
    for k in 0..len {
        let reps = q + usize::from(k < r);
        idx.extend(std::iter::repeat(k).take(reps));
    }
    Ok(Value::Vector(c.take_usize(&idx)))
}

fn hash_bucket(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let b = int_arg("hashBucket", &args[1], "buckets")?;
    if b <= 0 {
        return Err(Error::arg("The buckets argument of [hashBucket] must be positive"));
    }
    let c = col("hashBucket", &args[0])?;
    let out: Vec<i32> = match &*c.data {
        ColData::Str(_) | ColData::Sym(_) => (0..c.len())
            .map(|k| {
                // FNV-1a over the UTF-8 bytes
                let mut h: u32 = 0x811c_9dc5;
                for &byte in c.str_at(k).unwrap_or("").as_bytes() {
                    h ^= byte as u32;
                    h = h.wrapping_mul(0x0100_0193);
                }
                (h as i64 % b) as i32
            })
            .collect(),
        _ => {
            if !(c.ty.is_integral() || c.ty.is_temporal()) {
                return Err(Error::unsupported("hashBucket", c.ty));
            }
            let v = as_native::<i64>(&c);
            v.iter().map(|&x| if x.is_null() { i32::NULL } else { x.rem_euclid(b) as i32 }).collect()
        }
    };
    let r = Column::from_vec(DataType::Int, out);
    Ok(if args[0].is_scalar() { Value::Scalar(r) } else { Value::Vector(r) })
}

fn conditional_filter(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = col("conditionalFilter", &args[0])?;
    let cond = col("conditionalFilter", &args[1])?;
    if x.len() != cond.len() && cond.len() != 1 {
        return Err(Error::size("X and condition of [conditionalFilter] must have the same length"));
    }
    let d = match &args[2] {
        Value::Dict(d) => d.clone(),
        other => return Err(Error::arg(format!("The filterMap of [conditionalFilter] must be a dictionary, not {}", describe(other)))),
    };
    let mut out = Vec::with_capacity(x.len());
    for k in 0..x.len() {
        let key = Value::Scalar(cond.slice(if cond.len() == 1 { 0 } else { k }, if cond.len() == 1 { 1 } else { k + 1 }));
        let allowed = i.index_value(Value::Dict(d.clone()), vec![key])?;
        let hit = match &allowed {
            Value::Void => false,
            a => {
                let r = beluga_runtime::eval::ops::in_values(&Value::Scalar(x.slice(k, k + 1)), a)?;
                r.as_bool().unwrap_or(false)
            }
        };
        out.push(hit as i8);
    }
    Ok(Value::Vector(Column::from_vec(DataType::Bool, out)))
}

fn talib_null(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let cols: Vec<Column> = args.iter().map(|v| col("talibNull", v)).collect::<Result<_>>()?;
    let n = cols.first().map(|c| c.len()).unwrap_or(0);
    if cols.iter().any(|c| c.len() != n) {
        return Err(Error::size("The arguments of [talibNull] must have the same length"));
    }
    // the first position from which every argument is non-null
    let start = cols
        .iter()
        .map(|c| (0..c.len()).find(|&k| !c.is_null(k)).unwrap_or(n))
        .max()
        .unwrap_or(0);
    let out: Vec<Value> = cols
        .iter()
        .map(|c| {
            let idx: Vec<i64> = (0..n as i64).map(|k| if (k as usize) < start { -1 } else { k }).collect();
            Value::Vector(c.take(&idx))
        })
        .collect();
    Ok(if out.len() == 1 { out.into_iter().next().unwrap_or(Value::Void) } else { Value::tuple(out) })
}

pub const DEFS: &[Builtin] = &[
    fp("conditionalFilter", Kind::System, 3, 3, conditional_filter, &["X", "condition", "filterMap"]),
    fp("deltas", Kind::VectorToVector, 1, 2, deltas, &["X", "n"]),
    fp("hashBucket", Kind::Elementwise, 2, 2, hash_bucket, &["X", "buckets"]),
    fp("lowRange", Kind::VectorToVector, 1, 1, low_range, &["X"]),
    fp("maxPositiveStreak", Kind::Aggregate, 1, 1, max_positive_streak, &["X"]),
    fp("move", Kind::VectorToVector, 2, 2, move_, &["X", "steps"]),
    fp("next", Kind::VectorToVector, 1, 1, next, &["X"]),
    fp("nextState", Kind::VectorToVector, 1, 1, next_state, &["X"]),
    fp("prev", Kind::VectorToVector, 1, 1, prev, &["X"]),
    fp("prevState", Kind::VectorToVector, 1, 1, prev_state, &["X"]),
    fp("ratios", Kind::VectorToVector, 1, 2, ratios, &["X", "n"]),
    fp("replace", Kind::Elementwise, 3, 3, replace, &["obj", "oldValue", "newValue"]),
    fp("replace!", Kind::System, 3, 3, replace, &["obj", "oldValue", "newValue"]),
    fp("segment", Kind::VectorToVector, 1, 2, segment, &["X", "segmentOffset"]),
    fp("stretch", Kind::System, 2, 2, stretch, &["X", "newSize"]),
    fp("sumbars", Kind::VectorToVector, 2, 2, sumbars, &["X", "Y"]),
    fp("talibNull", Kind::System, 1, u8::MAX, talib_null, &[]),
    fp("tmove", Kind::VectorToVector, 3, 3, tmove, &["T", "X", "window"]),
    fp("topRange", Kind::VectorToVector, 1, 1, top_range, &["X"]),
    fp("valueChanged", Kind::VectorToVector, 1, 2, value_changed, &["X", "mode"]),
    fp("winsorize", Kind::VectorToVector, 2, 4, winsorize, &["X", "limit", "inclusive", "nanPolicy"]),
    fp("winsorize!", Kind::System, 2, 4, winsorize, &["X", "limit", "inclusive", "nanPolicy"]),
    fp("zscore", Kind::VectorToVector, 1, 1, zscore, &["X"]),
];
