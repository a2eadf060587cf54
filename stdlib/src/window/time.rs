//! Time windows: the rows j <= i with T[j] in (temporalAdd(T[i], -window), T[i]] for every
//! row i of a non-decreasing time column T (two pointers, O(n)). `window` is an integer in the
//! units of T, or a DURATION: fixed units (ns..w) converted to T's unit, calendar months and
//! years (M, y) and business days (B) stepped on the calendar.

use crate::window::{Bounds, Slice, WinLen};
use beluga_runtime::null::Native;
use beluga_runtime::temporal::{civil_from_days, days_from_civil, days_in_month};
use beluga_runtime::{DataType, Error, Result};
use beluga_runtime::temporal::{duration_unit_ns as dur_ns, type_unit_ns as unit_ns};

/// Lower bound (exclusive) of the window ending at time `t`: `temporalAdd(t, -window)`.
enum Lower {
    /// t - w in the type's own units
    Fixed(i64),
    /// calendar months back (M, y) on a date-carrying type
    Months(i64, DataType),
    /// business days back
    BDays(i64, DataType),
}

fn lower_rule(name: &str, ty: DataType, w: &WinLen) -> Result<Lower> {
    match w {
        WinLen::Int(n) => Ok(Lower::Fixed(*n)),
        WinLen::Dur(n, u) => {
            if ty == DataType::Month {
                return match &**u {
                    "M" => Ok(Lower::Fixed(*n)),
                    "y" => Ok(Lower::Fixed(n * 12)),
                    _ => Err(dur_err(name, ty, u)),
                };
            }
            let Some(tu) = unit_ns(ty) else {
                return Err(dur_err(name, ty, u));
            };
            match &**u {
                "M" | "y" if ty.day_modulus().is_none() => Ok(Lower::Months(if &**u == "y" { n * 12 } else { *n }, ty)),
                "B" if ty.day_modulus().is_none() => Ok(Lower::BDays(*n, ty)),
                unit => {
                    let d = dur_ns(unit).ok_or_else(|| dur_err(name, ty, u))?;
                    let total = d.checked_mul(*n).ok_or_else(|| dur_err(name, ty, u))?;
                    if total % tu != 0 {
                        return Err(dur_err(name, ty, u));
                    }
                    Ok(Lower::Fixed(total / tu))
                }
            }
        }
    }
}

fn dur_err(name: &str, ty: DataType, u: &str) -> Error {
    Error::arg(format!("[{name}] the window unit '{u}' is incompatible with a {ty} time column"))
}

/// Units per day and the day number of a date-carrying value (for calendar arithmetic).
fn per_day(ty: DataType) -> i64 {
    match ty {
        DataType::Date => 1,
        DataType::DateHour => 24,
        DataType::DateTime => 86_400,
        DataType::Timestamp => 86_400_000,
        DataType::NanoTimestamp => 86_400_000_000_000,
        _ => 1,
    }
}

fn months_back(t: i64, months: i64, ty: DataType) -> i64 {
    let pd = per_day(ty);
    let (day, rest) = (t.div_euclid(pd), t.rem_euclid(pd));
    let (y, m, d) = civil_from_days(day);
    let total = y * 12 + (m as i64 - 1) - months;
    let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) as u32 + 1);
    let nd = d.min(days_in_month(ny, nm));
    days_from_civil(ny, nm, nd) * pd + rest
}

fn bdays_back(t: i64, n: i64, ty: DataType) -> i64 {
    let pd = per_day(ty);
    let (mut day, rest) = (t.div_euclid(pd), t.rem_euclid(pd));
    // whole weeks first (5 business days each), then at most 4 more business days
    day -= (n / 5) * 7;
    let mut left = n % 5;
    // 1970-01-01 was a Thursday: weekday = (day + 3) mod 7 with Monday = 0
    while left > 0 {
        day -= 1;
        if (day + 3).rem_euclid(7) < 5 {
            left -= 1;
        }
    }
    day * pd + rest
}

/// Window starts of a time axis: row i covers the rows j <= i with `T[j] > temporalAdd(T[i], -window)`.
pub fn time_bounds(name: &str, t: &Slice, w: &WinLen) -> Result<Bounds> {
    time_bounds_ex(name, t, w, false)
}

/// [`time_bounds`], optionally including rows exactly at the left boundary (`[lo, t]`).
pub fn time_bounds_ex(name: &str, t: &Slice, w: &WinLen, left_closed: bool) -> Result<Bounds> {
    let ty = t.ty();
    if !(ty.is_integral() || ty.is_temporal()) || ty == DataType::Bool {
        return Err(Error::arg(format!("The time column of [{name}] must be a temporal or integral vector")));
    }
    let rule = lower_rule(name, ty, w)?;
    let tv = t.i64s();
    let mut starts = Vec::with_capacity(tv.len());
    let mut j = 0usize;
    for i in 0..tv.len() {
        let ti = tv[i];
        if ti.is_null() {
            return Err(Error::arg(format!("The time column of [{name}] must not contain null values")));
        }
        if i > 0 && ti < tv[i - 1] {
            return Err(Error::arg(format!("The time column of [{name}] must be non-decreasing")));
        }
        let lo = match rule {
            Lower::Fixed(k) => ti.saturating_sub(k),
            Lower::Months(m, ty) => months_back(ti, m, ty),
            Lower::BDays(b, ty) => bdays_back(ti, b, ty),
        };
        while j < i && (tv[j] < lo || (!left_closed && tv[j] == lo)) {
            j += 1;
        }
        starts.push(j);
    }
    Ok(Bounds::Starts(starts))
}

