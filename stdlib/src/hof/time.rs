//! Builtins: higher-order functions over time windows (tmoving, twindow) and the time-axis
//! helpers they share with `tmove`.

use beluga_runtime::CallCtx;
use crate::hof::{func_args, scalars_to_vector};
use crate::util::{col, describe, opt};
use beluga_runtime::column::Column;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::temporal::{civil_from_days, days_from_civil, days_in_month};
use beluga_runtime::{DataType, Error, Result, Value};
use beluga_runtime::temporal::{type_unit_ns as unit_ns, duration_unit_ns as duration_ns};



fn per_day(t: DataType) -> i64 {
    match t {
        DataType::DateHour => 24,
        DataType::DateTime => 86_400,
        DataType::Timestamp => 86_400_000,
        DataType::NanoTimestamp => 86_400_000_000_000,
        _ => 1,
    }
}

/// An offset on a time axis: a count of the axis' units, or calendar months.
#[derive(Clone, Copy, Debug)]
pub enum Offset {
    Units(i64),
    Months(i64),
}

/// Convert an INT or DURATION offset to the units of a time axis of type `ty`.
pub fn offset_of(name: &str, ty: DataType, v: &Value) -> Result<Offset> {
    match v {
        Value::Duration(n, u) => {
            if ty == DataType::Month {
                return match &**u {
                    "M" => Ok(Offset::Units(*n)),
                    "y" => Ok(Offset::Units(n * 12)),
                    _ => Err(Error::arg(format!("[{name}] the unit '{u}' can't be used with a MONTH time column"))),
                };
            }
            let tu = unit_ns(ty).ok_or_else(|| Error::arg(format!("[{name}] a DURATION needs a temporal time column, not {ty}")))?;
            if matches!(&**u, "M" | "y") {
                if ty.day_modulus().is_some() {
                    return Err(Error::arg(format!("[{name}] the unit '{u}' needs a date-carrying time column")));
                }
                return Ok(Offset::Months(if &**u == "y" { n * 12 } else { *n }));
            }
            let d = duration_ns(u).ok_or_else(|| Error::arg(format!("[{name}] the unit '{u}' is not supported")))?;
            let total = d.checked_mul(*n).ok_or_else(|| Error::arg(format!("[{name}] the duration is too large")))?;
            if total % tu != 0 {
                return Err(Error::arg(format!("[{name}] the duration {n}{u} is finer than the unit of {ty}")));
            }
            Ok(Offset::Units(total / tu))
        }
        other => other
            .as_i64()
            .map(Offset::Units)
            .ok_or_else(|| Error::arg(format!("[{name}] a window must be an integer or a DURATION, not {}", describe(other)))),
    }
}

/// `t + off` on an axis of type `ty`.
pub fn shift_time(t: i64, off: Offset, ty: DataType) -> i64 {
    match off {
        Offset::Units(k) => t.saturating_add(k),
        Offset::Months(m) => {
            let pd = per_day(ty);
            let (day, rest) = (t.div_euclid(pd), t.rem_euclid(pd));
            let (y, mo, d) = civil_from_days(day);
            let total = y * 12 + (mo as i64 - 1) + m;
            let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) as u32 + 1);
            days_from_civil(ny, nm, d.min(days_in_month(ny, nm))) * pd + rest
        }
    }
}

fn neg(off: Offset) -> Offset {
    match off {
        Offset::Units(k) => Offset::Units(-k),
        Offset::Months(m) => Offset::Months(-m),
    }
}

/// Values of a time axis (sorted, without nulls) as i64 in its own units.
pub fn time_axis(name: &str, t: &Column) -> Result<Vec<i64>> {
    if !(t.ty.is_integral() || t.ty.is_temporal()) || t.ty == DataType::Bool {
        return Err(Error::arg(format!("The time column of [{name}] must be a temporal or integral vector")));
    }
    let v = as_native::<i64>(t).into_owned();
    if v.iter().any(|x| x.is_null()) {
        return Err(Error::arg(format!("The time column of [{name}] must not contain null values")));
    }
    if v.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::arg(format!("The time column of [{name}] must be non-decreasing")));
    }
    Ok(v)
}

/// Window starts of `(T[i] - window, T[i]]`: the first row whose time is after `T[i] - window`.
pub fn time_starts(name: &str, t: &Column, window: &Value) -> Result<Vec<usize>> {
    let tv = time_axis(name, t)?;
    let off = offset_of(name, t.ty, window)?;
    if matches!(off, Offset::Units(k) | Offset::Months(k) if k <= 0) {
        return Err(Error::arg(format!("The window of [{name}] must be positive")));
    }
    let mut starts = Vec::with_capacity(tv.len());
    let mut j = 0usize;
    for (i, &ti) in tv.iter().enumerate() {
        let lo = shift_time(ti, neg(off), t.ty);
        while j < i && tv[j] <= lo {
            j += 1;
        }
        starts.push(j);
    }
    Ok(starts)
}

fn rows(v: &Value, a: usize, b: usize) -> Value {
    match v {
        Value::Vector(c) | Value::Pair(c) => Value::Vector(c.slice(a, b)),
        Value::Table(t) => Value::table(t.slice(a, b)),
        other => other.clone(),
    }
}

fn tmoving(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let t = col("tmoving", &args[1])?;
    let fargs = func_args(&args[2]);
    let starts = time_starts("tmoving", &t, &args[3])?;
    let mut out = Vec::with_capacity(starts.len());
    for (k, &s) in starts.iter().enumerate() {
        i.check_interrupt()?;
        let call: Vec<Value> = fargs.iter().map(|a| rows(a, s, k + 1)).collect();
        out.push(i.call_value(&f, call)?);
    }
    scalars_to_vector(out)
}

fn range_pair(name: &str, v: &Value) -> Result<(Value, Value)> {
    match v {
        Value::Pair(c) => Ok((Value::Scalar(c.slice(0, 1)), Value::Scalar(c.slice(1, 2)))),
        Value::Tuple(items) if items.len() == 2 => Ok((items[0].clone(), items[1].clone())),
        other => Err(Error::arg(format!("The range argument of [{name}] must be a pair, not {}", describe(other)))),
    }
}

fn twindow(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let t = col("twindow", &args[2])?;
    let tv = time_axis("twindow", &t)?;
    let (a, b) = range_pair("twindow", &args[3])?;
    let (d1, d2) = (offset_of("twindow", t.ty, &a)?, offset_of("twindow", t.ty, &b)?);
    let prevailing = match opt(&args, 4) {
        None => 0,
        Some(v) => v.as_i64().filter(|p| (0..=2).contains(p)).ok_or_else(|| Error::arg("The prevailing argument of [twindow] must be 0, 1 or 2"))?,
    };
    let tv = match opt(&args, 5) {
        None => tv,
        Some(p) => {
            if prevailing == 2 {
                return Err(Error::arg("[twindow] takes no excludedPeriod when prevailing = 2"));
            }
            if matches!(d1, Offset::Months(_)) || matches!(d2, Offset::Months(_)) {
                return Err(Error::arg("The range of [twindow] must have a fixed length when excludedPeriod is given"));
            }
            excluded_axis(&t, &tv, p)?
        }
    };
    let zero = |o: Offset| matches!(o, Offset::Units(0) | Offset::Months(0));
    let n = tv.len();
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        i.check_interrupt()?;
        let lo = shift_time(tv[k], d1, t.ty);
        let hi = shift_time(tv[k], d2, t.ty);
        let mut s = tv.partition_point(|&x| x < lo);
        let mut e = tv.partition_point(|&x| x <= hi);
        match prevailing {
            1 => {
                if s < n && tv[s] == lo {
                    s = tv.partition_point(|&x| x <= lo) - 1;
                } else if s > 0 {
                    s -= 1;
                }
            }
            2 => {
                if zero(d1) {
                    s = k;
                }
                if zero(d2) {
                    e = k + 1;
                }
            }
            _ => {}
        }
        if s >= e {
            out.push(Value::Void);
            continue;
        }
        let call: Vec<Value> = fargs.iter().map(|x| rows(x, s, e)).collect();
        out.push(i.call_value(&f, call)?);
    }
    scalars_to_vector(out)
}

/// The time axis of `twindow` with the daily `excludedPeriod` (s, e) taken out: every
/// time after s on its day moves back by the part of (s, e) it passed, and every earlier
/// day by the whole length, so that a window measured on this axis spans only the times
/// outside the period (a 5-minute window just after a lunch break reaches back before
/// it). T must hold no time strictly inside the period (funcs/t/twindow.md).
fn excluded_axis(t: &Column, tv: &[i64], period: &Value) -> Result<Vec<i64>> {
    let bad = || Error::arg("The excludedPeriod of [twindow] must be a pair of TIME, NANOTIME, MINUTE or SECOND values, start before end");
    let Value::Pair(c) = period else { return Err(bad()) };
    if !matches!(c.ty, DataType::Time | DataType::NanoTime | DataType::Minute | DataType::Second) {
        return Err(bad());
    }
    if !matches!(t.ty, DataType::Timestamp | DataType::NanoTimestamp | DataType::Time | DataType::NanoTime) {
        return Err(Error::arg("With excludedPeriod, T of [twindow] must be TIMESTAMP, NANOTIMESTAMP, TIME or NANOTIME"));
    }
    let (Some(pu), Some(tu)) = (unit_ns(c.ty), unit_ns(t.ty)) else { return Err(bad()) };
    let (Some(a), Some(b)) = (c.i64_at(0), c.i64_at(1)) else { return Err(bad()) };
    // the period in T's units
    let (s, e) = (a * pu / tu, b * pu / tu);
    if s >= e {
        return Err(bad());
    }
    let len = e - s;
    let day = 86_400_000_000_000 / tu;
    let dated = matches!(t.ty, DataType::Timestamp | DataType::NanoTimestamp);
    tv.iter()
        .map(|&x| {
            let (d, tod) = if dated { (x.div_euclid(day), x.rem_euclid(day)) } else { (0, x) };
            if tod > s && tod < e {
                return Err(Error::arg("T of [twindow] must not contain times inside excludedPeriod"));
            }
            Ok(x - d * len - (tod - s).clamp(0, len))
        })
        .collect()
}

pub const DEFS: &[Builtin] = &[
    fp("tmoving", Kind::VectorToVector, 4, 4, tmoving, &["func", "T", "funcArgs", "window"]),
    fp("twindow", Kind::VectorToVector, 4, 6, twindow, &["func", "funcArgs", "T", "range", "prevailing", "excludedPeriod"]),
];
