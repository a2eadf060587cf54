//! Series analysis: isMonotonic(Increasing|Decreasing), isPeak, isValley, zigzag.

use beluga_runtime::CallCtx;
use crate::util::{describe, vector_fn};
use crate::window::{num_arg, opt_bool, Slice};
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::cmp::Ordering;

/// Order of elements i and j of a column, nulls first (the minimum).
fn cmp_at(c: &Column, i: usize, j: usize) -> Ordering {
    match (c.is_null(i), c.is_null(j)) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => match (c.str_at(i), c.str_at(j)) {
            (Some(a), Some(b)) => a.cmp(b),
            _ => match (c.i64_at(i), c.i64_at(j)) {
                (Some(a), Some(b)) if !c.ty.is_floating() => a.cmp(&b),
                _ => c.f64_at(i).partial_cmp(&c.f64_at(j)).unwrap_or(Ordering::Equal),
            },
        },
    }
}

fn monotonic(name: &str, a: &[Value], increasing: bool) -> Result<Value> {
    let c = match &a[0] {
        Value::Scalar(_) | Value::Void => return Ok(Value::bool(true)),
        Value::Vector(c) => c,
        other => return Err(Error::unsupported(name, describe(other))),
    };
    let ok = (1..c.len()).all(|i| {
        let o = cmp_at(c, i - 1, i);
        if increasing { o != Ordering::Greater } else { o != Ordering::Less }
    });
    Ok(Value::bool(ok))
}

fn is_monotonic_increasing(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    monotonic("isMonotonicIncreasing", &a, true)
}
fn is_monotonic_decreasing(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    monotonic("isMonotonicDecreasing", &a, false)
}

/// Peaks (or valleys) of a series: a run of equal values whose two neighbours exist, are
/// non-null and strictly lower (higher). A single element is flagged; a longer plateau is
/// flagged at its middle (left of the two middles) when `strict` is false, not at all otherwise.
pub fn peaks(v: &[f64], strict: bool, valley: bool) -> Vec<i8> {
    let n = v.len();
    let mut out = vec![0i8; n];
    let mut a = 0;
    while a < n {
        let mut b = a;
        while b + 1 < n && !v[a].is_nan() && v[b + 1] == v[a] {
            b += 1;
        }
        let x = v[a];
        if !x.is_nan() && a > 0 && b + 1 < n && !v[a - 1].is_nan() && !v[b + 1].is_nan() {
            let beyond = |y: f64| if valley { y > x } else { y < x };
            if beyond(v[a - 1]) && beyond(v[b + 1]) && (a == b || !strict) {
                out[a + (b - a) / 2] = 1;
            }
        }
        a = b + 1;
    }
    out
}

fn peak_fn(name: &str, a: &[Value], valley: bool) -> Result<Value> {
    let strict = opt_bool(name, a, 1, "strict", true)?;
    let f = |c: &Column| -> Result<Column> {
        if !(c.ty.is_numeric() || c.ty == DataType::Bool) {
            return Err(Error::unsupported(name, c.ty));
        }
        Ok(Column::from_vec(DataType::Bool, peaks(&Slice::whole(c).f64s(), strict, valley)))
    };
    match &a[0] {
        Value::Table(t) => {
            // only numeric columns are computed; the others are kept
            let cols: Vec<Column> = t.cols.iter().map(|c| if c.ty.is_numeric() { f(c) } else { Ok(c.clone()) }).collect::<Result<_>>()?;
            Ok(Value::table(Table::new(t.names.clone(), cols)?))
        }
        other => vector_fn(name, other, &f),
    }
}

fn is_peak(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    peak_fn("isPeak", &a, false)
}
fn is_valley(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    peak_fn("isValley", &a, true)
}

/// Zig-zag turning points of a (high, low) series: a new trend is confirmed when the price
/// moves by at least `change` (a percent if `pct`) from the last extreme (or, with `retrace`,
/// retraces that fraction of the previous move). The result holds the extreme values at
/// the turning points and nulls elsewhere.
pub fn zigzag_points(high: &[f64], low: &[f64], change: f64, pct: bool, retrace: bool, last_extreme: bool) -> Vec<f64> {
    let n = high.len();
    let mut out = vec![f64::NAN; n];
    let start = (0..n).find(|&i| !high[i].is_nan() && !low[i].is_nan()).unwrap_or(n);
    if n - start < 2 {
        return out;
    }
    let ch = if pct { change / 100.0 } else { change };
    let mid = |i: usize| (high[i] + low[i]) / 2.0;
    // reference point (previous extreme) and candidate extreme of the current swing
    let (mut ref_v, mut ref_i) = (mid(start), start);
    let (mut cand_v, mut cand_i) = (mid(start + 1), start + 1);
    let mut trend = 0i8;
    for i in (start + 1)..n {
        if high[i].is_nan() || low[i].is_nan() {
            continue;
        }
        let (mut lo_edge, mut hi_edge) = if pct { (cand_v * (1.0 - ch), cand_v * (1.0 + ch)) } else { (cand_v - ch, cand_v + ch) };
        let top = cand_v.max(high[i]);
        let bottom = cand_v.min(low[i]);
        if trend == 0 {
            if retrace && pct {
                trend = if cand_v >= ref_v { 1 } else { -1 };
            } else {
                if bottom <= lo_edge {
                    trend = -1;
                }
                if top >= hi_edge {
                    trend = 1;
                }
            }
        }
        if trend == -1 {
            if low[i] == bottom && (last_extreme || i == 0 || low[i] != low[i - 1]) {
                cand_v = low[i];
                cand_i = i;
            }
            if retrace && pct {
                hi_edge = cand_v + (ref_v - cand_v) * ch;
            }
            if high[i] >= hi_edge {
                out[ref_i] = ref_v;
                ref_v = cand_v;
                ref_i = cand_i;
                cand_v = high[i];
                cand_i = i;
                trend = 1;
                continue;
            }
        }
        if trend == 1 {
            if high[i] == top && (last_extreme || i == 0 || high[i] != high[i - 1]) {
                cand_v = high[i];
                cand_i = i;
            }
            if retrace && pct {
                lo_edge = cand_v - (cand_v - ref_v) * ch;
            }
            if low[i] <= lo_edge {
                out[ref_i] = ref_v;
                ref_v = cand_v;
                ref_i = cand_i;
                cand_v = low[i];
                cand_i = i;
                trend = -1;
            }
        }
    }
    out[ref_i] = ref_v;
    out[cand_i] = cand_v;
    out
}

fn zigzag(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "zigzag";
    let change = match crate::util::opt(&a, 1) {
        None => 10.0,
        Some(_) => num_arg(name, &a, 1, "change")?,
    };
    let pct = opt_bool(name, &a, 2, "percent", true)?;
    let retrace = opt_bool(name, &a, 3, "retrace", false)?;
    let last = opt_bool(name, &a, 4, "lastExtreme", true)?;
    let (high, low) = match &a[0] {
        Value::Vector(c) => {
            let v = Slice::whole(c).f64s();
            (v.clone(), v)
        }
        Value::Matrix(m) if m.cols == 2 => {
            let h = Slice { col: &m.data, off: 0, len: m.rows }.f64s();
            let l = Slice { col: &m.data, off: m.rows, len: m.rows }.f64s();
            (h, l)
        }
        other => return Err(Error::unsupported(name, describe(other))),
    };
    let r = zigzag_points(&high, &low, change, pct, retrace, last);
    Ok(Value::Vector(Column::from_vec(DataType::Double, r.into_iter().map(f64::from_f64).collect::<Vec<f64>>())))
}

pub const DEFS: &[Builtin] = &[
    fp("isMonotonic", Kind::Aggregate, 1, 1, is_monotonic_increasing, &["X"]),
    fp("isMonotonicDecreasing", Kind::Aggregate, 1, 1, is_monotonic_decreasing, &["X"]),
    fp("isMonotonicIncreasing", Kind::Aggregate, 1, 1, is_monotonic_increasing, &["X"]),
    fp("isPeak", Kind::VectorToVector, 1, 2, is_peak, &["X", "strict"]),
    fp("isValley", Kind::VectorToVector, 1, 2, is_valley, &["X", "strict"]),
    fp("zigzag", Kind::VectorToVector, 1, 5, zigzag, &["HL", "change", "percent", "retrace", "lastExtreme"]),
];
