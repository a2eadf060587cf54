//! Shared integer kernels for the temporal builtins: splitting temporal columns into day
//! numbers and time of day, building DATE results, weekday arithmetic. Everything works on
//! the integer encodings (LANGUAGE.md §2.2); no chrono objects per element.

use beluga_runtime::column::{ColData, Column};
use beluga_runtime::eval::ops;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::null::Native;
use beluga_runtime::temporal::{civil_from_days, days_from_civil, days_in_month, MS_PER_DAY, NS_PER_DAY};
use beluga_runtime::{DataType, Error, Result, Value};
pub(crate) use beluga_runtime::temporal::{type_unit_ns as unit_ns};


/// Types that carry a time of day.
pub(crate) fn has_time(ty: DataType) -> bool {
    use DataType::*;
    matches!(ty, DateHour | DateTime | Timestamp | NanoTimestamp | Time | Minute | Second | NanoTime)
}

/// Day number of month index `mi` (= year*12 + month-1), day `d` (clamped to the month).
#[inline]
pub(crate) fn day_of_month_index(mi: i64, d: u32) -> i64 {
    let y = mi.div_euclid(12);
    let m = mi.rem_euclid(12) as u32 + 1;
    days_from_civil(y, m, d.min(days_in_month(y, m)))
}

/// Month index (year*12 + month-1) of a day number.
#[inline]
pub(crate) fn month_index(days: i64) -> i64 {
    let (y, m, _) = civil_from_days(days);
    y * 12 + m as i64 - 1
}

/// Last day of month index `mi`.
#[inline]
pub(crate) fn month_last_day(mi: i64) -> i64 {
    day_of_month_index(mi, 31)
}

/// Weekday with Monday = 0 … Sunday = 6 (1970-01-01 was a Thursday).
#[inline]
pub(crate) fn dow(days: i64) -> i64 {
    (days + 3).rem_euclid(7)
}

/// Day numbers of the elements of a date-carrying column (MONTH: its first day); nulls are
/// `i64::NULL`. Err for other types.
pub(crate) fn days_of(name: &str, c: &Column) -> Result<Vec<i64>> {
    use DataType::*;
    let raw = as_native::<i64>(c);
    let per_day: i64 = match c.ty {
        Date => 1,
        DateHour => 24,
        DateTime => 86_400,
        Timestamp => MS_PER_DAY,
        NanoTimestamp => NS_PER_DAY,
        Month => {
            return Ok(raw.iter().map(|&v| if v.is_null() { i64::NULL } else { day_of_month_index(v, 1) }).collect());
        }
        t => return Err(Error::unsupported(name, t)),
    };
    if per_day == 1 {
        return Ok(raw.into_owned());
    }
    Ok(raw.iter().map(|&v| if v.is_null() { v } else { v.div_euclid(per_day) }).collect())
}

/// Nanoseconds since midnight of the elements of a column with a time of day (DATE: 0);
/// nulls are `i64::NULL`. Err for MONTH and non-temporal types.
pub(crate) fn tod_ns_of(name: &str, c: &Column) -> Result<Vec<i64>> {
    let u = match c.ty {
        DataType::Date => 0,
        t if has_time(t) => unit_ns(t).unwrap_or(1),
        t => return Err(Error::unsupported(name, t)),
    };
    let raw = as_native::<i64>(c);
    if u > 0 && NS_PER_DAY % u == 0 {
        // (v * u) mod day = (v mod units-per-day) * u: no 128-bit arithmetic per row
        let per_day = NS_PER_DAY / u;
        return Ok(raw.iter().map(|&v| if v.is_null() { v } else { v.rem_euclid(per_day) * u }).collect());
    }
    Ok(raw
        .iter()
        .map(|&v| {
            if v.is_null() {
                v
            } else if u == 0 {
                0
            } else {
                (v as i128 * u as i128).rem_euclid(NS_PER_DAY as i128) as i64
            }
        })
        .collect())
}

/// A DATE column from day numbers (null / out of range → null).
pub(crate) fn date_col(days: &[i64]) -> Column {
    Column::from_vec(
        DataType::Date,
        days.iter().map(|&d| if d.is_null() { i32::NULL } else { <i32 as Native>::from_i64(d) }).collect::<Vec<i32>>(),
    )
}

/// Element-wise `days → i32` (INT result, nulls kept) over any form of `v`.
pub(crate) fn day_int(name: &str, v: &Value, f: &dyn Fn(i64) -> i32) -> Result<Value> {
    ops::unary_col(v, &|c: &Column| {
        let d = days_of(name, c)?;
        let r: Vec<i32> = d.iter().map(|&x| if x.is_null() { i32::NULL } else { f(x) }).collect();
        Ok(Column::from_vec(DataType::Int, r))
    })
}

/// Element-wise `days → bool` (BOOL result, nulls kept) over any form of `v`.
pub(crate) fn day_bool(name: &str, v: &Value, f: &dyn Fn(i64) -> bool) -> Result<Value> {
    ops::unary_col(v, &|c: &Column| {
        let d = days_of(name, c)?;
        let r: Vec<i8> = d.iter().map(|&x| if x.is_null() { i8::NULL } else { f(x) as i8 }).collect();
        Ok(Column::from_vec(DataType::Bool, r))
    })
}

/// Element-wise INT result `f(n)` of the time of day counted in whole units of `unit_ns`
/// nanoseconds (`hour`: units of an hour), over any form of `v`; nulls stay null.
pub(crate) fn tod_int<F: Fn(i64) -> i32>(name: &str, v: &Value, unit_ns: i64, f: &F) -> Result<Value> {
    use beluga_runtime::kernels::cast::Rescale;
    ops::unary_col(v, &|c: &Column| {
        // a plan exists only for DATE and the types with a time of day (not MONTH)
        let fast = match (Rescale::to_unit(c.ty, unit_ns, true), &*c.data) {
            (Some(p), ColData::I32(x)) => p.apply::<_, i64>(x),
            (Some(p), ColData::I64(x)) => p.apply::<_, i64>(x),
            _ => None,
        };
        let n = match fast {
            Some(n) => n,
            None => tod_ns_of(name, c)?.iter().map(|&t| if t.is_null() { t } else { t.div_euclid(unit_ns) }).collect(),
        };
        let r: Vec<i32> = n.iter().map(|&x| if x.is_null() { i32::NULL } else { f(x) }).collect();
        Ok(Column::from_vec(DataType::Int, r))
    })
}

/// Build a column of temporal type `ty` from i64 values (narrowing to i32 storage, values
/// out of range become null).
pub(crate) fn temporal_col(ty: DataType, v: Vec<i64>) -> Column {
    match ty.physical() {
        beluga_runtime::types::Physical::I32 => Column::from_vec(
            ty,
            v.iter()
                .map(|&x| {
                    if x.is_null() {
                        i32::NULL
                    } else {
                        let y = <i32 as Native>::from_i64(x);
                        if y as i64 == x { y } else { i32::NULL }
                    }
                })
                .collect::<Vec<i32>>(),
        ),
        _ => Column::from_vec(ty, v),
    }
}

/// Business-day index of a weekday (Monday–Friday) day number.
#[inline]
pub(crate) fn bday_index(days: i64) -> i64 {
    let w = (days + 3).div_euclid(7);
    w * 5 + dow(days).min(4)
}

/// Day number of a business-day index.
#[inline]
pub(crate) fn bday_date(idx: i64) -> i64 {
    idx.div_euclid(5) * 7 + idx.rem_euclid(5) - 3
}

/// The weekday on or before `days` (Saturday/Sunday → Friday).
#[inline]
pub(crate) fn bday_on_or_before(days: i64) -> i64 {
    match dow(days) {
        5 => days - 1,
        6 => days - 2,
        _ => days,
    }
}

/// The weekday on or after `days` (Saturday/Sunday → Monday).
#[inline]
pub(crate) fn bday_on_or_after(days: i64) -> i64 {
    match dow(days) {
        5 => days + 2,
        6 => days + 1,
        _ => days,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporal_core_business_days_roundtrip() {
        for d in -3000..3000i64 {
            if dow(d) < 5 {
                assert_eq!(bday_date(bday_index(d)), d, "{d}");
                assert_eq!(bday_index(d + if dow(d) == 4 { 3 } else { 1 }), bday_index(d) + 1);
            }
        }
        assert_eq!(dow(0), 3);
        assert_eq!(month_last_day(2012 * 12 + 1), days_from_civil(2012, 2, 29));
    }
}
