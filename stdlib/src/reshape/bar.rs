//! Builtins: bucketing values into bars (bar, dailyAlignedBar, volumeBar, sessionWindow).

use beluga_runtime::CallCtx;
use crate::util::{col, describe, opt};
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::temporal::{civil_from_days, days_from_civil};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;
use beluga_runtime::temporal::{type_unit_ns as unit_ns, duration_unit_ns as duration_ns};



/// Units of a day-carrying type per day (DATE 1, DATETIME 86400 ...).
fn per_day(t: DataType) -> Option<i64> {
    use DataType::*;
    Some(match t {
        Date => 1,
        DateHour => 24,
        DateTime => 86_400,
        Timestamp => 86_400_000,
        NanoTimestamp => 86_400_000_000_000,
        _ => return None,
    })
}

/// How to bucket: a fixed step in X's units, or calendar months.
enum Step {
    Units(i64),
    Months(i64),
}

fn step_of(name: &str, ty: DataType, interval: &Value) -> Result<Step> {
    match interval {
        Value::Duration(n, u) => {
            if *n <= 0 {
                return Err(Error::arg(format!("The interval of [{name}] must be positive")));
            }
            if ty == DataType::Month {
                return match &**u {
                    "M" => Ok(Step::Units(*n)),
                    "y" => Ok(Step::Units(n * 12)),
                    _ => Err(Error::arg(format!("[{name}] the unit '{u}' can't be used with a MONTH vector"))),
                };
            }
            if matches!(&**u, "M" | "y") {
                if per_day(ty).is_none() {
                    return Err(Error::arg(format!("[{name}] the unit '{u}' needs a date-carrying X")));
                }
                return Ok(Step::Months(if &**u == "y" { n * 12 } else { *n }));
            }
            let un = unit_ns(ty).ok_or_else(|| Error::arg(format!("[{name}] a DURATION interval needs a temporal X, not {ty}")))?;
            let d = duration_ns(u).ok_or_else(|| Error::arg(format!("[{name}] the unit '{u}' is not supported")))?;
            let total = d.checked_mul(*n).ok_or_else(|| Error::arg(format!("[{name}] the interval is too large")))?;
            if total % un != 0 {
                return Err(Error::arg(format!("[{name}] the interval {n}{u} is finer than the unit of {ty}")));
            }
            Ok(Step::Units(total / un))
        }
        v => {
            let k = v.as_i64().filter(|k| *k > 0).ok_or_else(|| Error::arg(format!("The interval of [{name}] must be a positive number or a DURATION")))?;
            Ok(Step::Units(k))
        }
    }
}

fn bar_int<T: Native>(v: &[T], step: i64, right: bool) -> Vec<T> {
    let f = |&x: &T| {
        if x.is_null() {
            return T::NULL;
        }
        let a = x.to_i64();
        let r = a.rem_euclid(step);
        T::from_i64(if right && r != 0 { a - r + step } else { a - r })
    };
    if v.len() >= 1 << 16 {
        use rayon::prelude::*;
        return v.par_iter().map(f).collect();
    }
    v.iter().map(f).collect()
}

fn bar_months(v: &[i64], ty: DataType, months: i64, right: bool) -> Vec<i64> {
    let pd = per_day(ty).unwrap_or(1);
    v.iter()
        .map(|&x| {
            if x.is_null() {
                return i64::NULL;
            }
            let (day, rest) = (x.div_euclid(pd), x.rem_euclid(pd));
            let (y, m, d) = civil_from_days(day);
            let idx = y * 12 + m as i64 - 1;
            let on_boundary = d == 1 && rest == 0 && idx.rem_euclid(months) == 0;
            let mut b = idx - idx.rem_euclid(months);
            if right && !on_boundary {
                b += months;
            }
            days_from_civil(b.div_euclid(12), (b.rem_euclid(12) + 1) as u32, 1) * pd
        })
        .collect()
}

fn bar_col(c: &Column, interval: &Value, right: bool) -> Result<Column> {
    let ty = c.ty;
    if !(ty.is_numeric() || ty.is_temporal()) || ty == DataType::Bool {
        return Err(Error::unsupported("bar", ty));
    }
    if ty.is_floating() {
        let step = interval.as_f64().filter(|s| *s > 0.0).ok_or_else(|| Error::arg("The interval of [bar] must be positive"))?;
        let v = as_native::<f64>(c);
        let out: Vec<f64> = v
            .iter()
            .map(|&x| {
                if x.is_null() {
                    return f64::NULL;
                }
                let q = (x / step).floor();
                let b = q * step;
                if right && b != x { b + step } else { b }
            })
            .collect();
        let out = Column::from_vec(DataType::Double, out);
        return if ty == DataType::Float { beluga_runtime::kernels::cast::cast_column(&out, ty) } else { Ok(out) };
    }
    match step_of("bar", ty, interval)? {
        Step::Units(s) => Ok(Column::new(
            ty,
            match &*c.data {
                ColData::I8(v) => ColData::I8(bar_int(v, s, right)),
                ColData::I16(v) => ColData::I16(bar_int(v, s, right)),
                ColData::I32(v) => ColData::I32(bar_int(v, s, right)),
                ColData::I64(v) => ColData::I64(bar_int(v, s, right)),
                _ => return Err(Error::unsupported("bar", ty)),
            },
        )),
        Step::Months(m) => {
            let v = as_native::<i64>(c);
            Ok(Column::from_vec(ty, bar_months(&v, ty, m, right)).retag_physical())
        }
    }
}

fn bar(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let right = match opt(&args, 2).and_then(|v| v.as_str()) {
        None | Some("left") => false,
        Some("right") => true,
        Some(other) => return Err(Error::arg(format!("The closed argument of [bar] must be 'left' or 'right', not '{other}'"))),
    };
    let interval = args[1].clone();
    match &args[0] {
        Value::Matrix(m) => Ok(Value::Matrix(Arc::new(Matrix { data: bar_col(&m.data, &interval, right)?, ..(**m).clone() }))),
        Value::Scalar(c) => Ok(Value::Scalar(bar_col(c, &interval, right)?)),
        Value::Vector(c) => Ok(Value::Vector(bar_col(c, &interval, right)?)),
        Value::Pair(c) => Ok(Value::Pair(bar_col(c, &interval, right)?)),
        other => Err(Error::unsupported("bar", describe(other))),
    }
}

// ------------------------------------------------------------------ dailyAlignedBar

/// The time-of-day type matching a temporal X, and the units per day.
fn day_clock(name: &str, ty: DataType) -> Result<(DataType, i64)> {
    use DataType::*;
    Ok(match ty {
        Second | DateTime => (Second, 86_400),
        Time | Timestamp => (Time, 86_400_000),
        NanoTime | NanoTimestamp => (NanoTime, 86_400_000_000_000),
        Minute => (Minute, 1_440),
        other => return Err(Error::unsupported(name, other)),
    })
}

fn daily_aligned_bar(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let name = "dailyAlignedBar";
    let x = col(name, &args[0])?;
    let (clock, day) = day_clock(name, x.ty)?;
    let starts_c = col(name, &args[1])?;
    let to_clock = |c: &Column| -> Result<Vec<i64>> {
        let c = if c.ty != clock { beluga_runtime::kernels::temporal_to(c, clock)? } else { c.clone() };
        Ok(as_native::<i64>(&c).into_owned())
    };
    let starts = to_clock(&starts_c)?;
    if starts.is_empty() || starts.iter().any(|s| s.is_null()) || starts.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::arg("The timeOffset of [dailyAlignedBar] must be non-null and increasing"));
    }
    let n = match step_of(name, clock, &args[2])? {
        Step::Units(s) => s,
        Step::Months(_) => return Err(Error::arg("The window of [dailyAlignedBar] can't be measured in months")),
    };
    let ends: Option<Vec<i64>> = match opt(&args, 3) {
        Some(v) => {
            let e = to_clock(&col(name, v)?)?;
            if e.len() != starts.len() {
                return Err(Error::arg("timeEnd of [dailyAlignedBar] must have the same length as timeOffset"));
            }
            Some(e)
        }
        None => None,
    };
    let merge = opt(&args, 4).and_then(|v| v.as_bool()).unwrap_or(false);
    let with_date = per_day(x.ty).is_some();
    let v = as_native::<i64>(&x);
    let out: Vec<i64> = v
        .iter()
        .map(|&t| {
            if t.is_null() {
                return i64::NULL;
            }
            let (date, tod) = if with_date { (t.div_euclid(day), t.rem_euclid(day)) } else { (0, t.rem_euclid(day)) };
            // the session whose start is the last one not after tod; before the first start the
            // value belongs to the last session, begun the day before (overnight sessions)
            let k = starts.partition_point(|&s| s <= tod);
            let (si, sdate) = if k == 0 { (starts.len() - 1, date - 1) } else { (k - 1, date) };
            let start_abs = sdate * day + starts[si];
            let t_abs = date * day + tod;
            let mut b = t_abs - (t_abs - start_abs).rem_euclid(n);
            if merge {
                if let Some(e) = &ends {
                    // the session end falls on a window start: it joins the previous window
                    let end_abs = if e[si] > starts[si] { sdate * day + e[si] } else { (sdate + 1) * day + e[si] };
                    if t_abs == end_abs && b == t_abs && b > start_abs {
                        b -= n;
                    }
                }
            }
            if with_date { b } else { b.rem_euclid(day) }
        })
        .collect();
    let out = Column::from_vec(x.ty, out).retag_physical();
    Ok(if args[0].is_scalar() { Value::Scalar(out) } else { Value::Vector(out) })
}

// ------------------------------------------------------------------ volumeBar, sessionWindow

fn volume_bar(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = col("volumeBar", &args[0])?;
    if !x.ty.is_numeric() {
        return Err(Error::unsupported("volumeBar", x.ty));
    }
    let interval = args[1].as_f64().filter(|v| *v > 0.0).ok_or_else(|| Error::arg("The interval of [volumeBar] must be positive"))?;
    let label = opt(&args, 2).and_then(|v| v.as_str()).unwrap_or("seq").to_string();
    let v = crate::util::f64s(&x);
    let total: f64 = v.iter().filter(|a| !a.is_nan()).sum();
    let threshold = if interval < 1.0 { interval * total } else { interval };
    let mut group = 0i64;
    let mut cum = 0.0;
    let mut ids = Vec::with_capacity(v.len());
    let mut group_start_cum = vec![0.0];
    let mut group_end_cum: Vec<f64> = Vec::new();
    let mut running = 0.0;
    for &a in &v {
        let a = if a.is_nan() { 0.0 } else { a };
        ids.push(group);
        cum += a;
        running += a;
        if cum >= threshold {
            group_end_cum.push(running);
            group += 1;
            cum = 0.0;
            group_start_cum.push(running);
        }
    }
    group_end_cum.push(running);
    match label.as_str() {
        "seq" => Ok(Value::Vector(Column::from_vec(DataType::Long, ids))),
        "left" | "right" => {
            let src = if label == "left" { &group_start_cum } else { &group_end_cum };
            let out: Vec<f64> = ids.iter().map(|&g| src[g as usize]).collect();
            Ok(Value::Vector(Column::from_vec(DataType::Double, out)))
        }
        other => Err(Error::arg(format!("The label of [volumeBar] must be 'seq', 'left' or 'right', not '{other}'"))),
    }
}

fn session_window(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = col("sessionWindow", &args[0])?;
    if !(x.ty.is_integral() || x.ty.is_temporal()) {
        return Err(Error::unsupported("sessionWindow", x.ty));
    }
    let gap = match step_of("sessionWindow", x.ty, &args[1])? {
        Step::Units(s) => s,
        Step::Months(_) => return Err(Error::arg("The sessionGap of [sessionWindow] can't be measured in months")),
    };
    let v = as_native::<i64>(&x);
    let mut out = Vec::with_capacity(v.len());
    let mut start = i64::NULL;
    let mut prev = i64::NULL;
    for &t in v.iter() {
        if t.is_null() {
            out.push(i64::NULL);
            continue;
        }
        if prev.is_null() || t - prev > gap {
            start = t;
        }
        prev = t;
        out.push(start);
    }
    Ok(Value::Vector(Column::from_vec(x.ty, out).retag_physical()))
}

pub const DEFS: &[Builtin] = &[
    fp("bar", Kind::Elementwise, 2, 3, bar, &["X", "interval", "closed"]),
    fp("dailyAlignedBar", Kind::Elementwise, 3, 5, daily_aligned_bar, &["X", "timeOffset", "n", "timeEnd", "mergeSessionEnd"]),
    fp("sessionWindow", Kind::VectorToVector, 2, 2, session_window, &["X", "sessionGap"]),
    fp("volumeBar", Kind::VectorToVector, 2, 3, volume_bar, &["X", "interval", "label"]),
];
