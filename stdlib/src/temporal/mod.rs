//! Builtins: temporal components (`year`, `monthOfYear`, `dayOfMonth`, `weekday`, `hour`,
//! `millisecond` …), calendar predicates (`isLeapYear`, `isMonthEnd` …), `concatDateTime`,
//! `now` and `today`. All kernels work on the integer encodings.

use beluga_runtime::CallCtx;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::temporal::{civil_from_days, days_from_civil, days_in_month, is_leap, MS_PER_DAY, NS_PER_DAY};
use beluga_runtime::{DataType, Error, Result, Value};

use crate::string::Arg;
use crate::temporal_core::{day_bool, day_int, dow, tod_int, temporal_col};
use crate::util::opt;

const NS_PER_SEC: i64 = 1_000_000_000;

// ---------------------------------------------------------------- date components

fn year(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_int("year", &a[0], &|d| civil_from_days(d).0 as i32)
}

fn month_of_year(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_int("monthOfYear", &a[0], &|d| civil_from_days(d).1 as i32)
}

fn day_of_month(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_int("dayOfMonth", &a[0], &|d| civil_from_days(d).2 as i32)
}

fn day_of_year(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_int("dayOfYear", &a[0], &|d| {
        let (y, _, _) = civil_from_days(d);
        (d - days_from_civil(y, 1, 1) + 1) as i32
    })
}

fn quarter_of_year(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_int("quarterOfYear", &a[0], &|d| ((civil_from_days(d).1 - 1) / 3 + 1) as i32)
}

/// `weekday(X, [startFromSunday=true])`: Sunday = 0 by default, else Monday = 0.
fn weekday(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let sunday = match opt(&a, 1) {
        None => true,
        Some(v) => v.as_bool().ok_or_else(|| Error::arg("The startFromSunday argument of [weekday] must be a boolean"))?,
    };
    if sunday {
        day_int("weekday", &a[0], &|d| ((dow(d) + 1) % 7) as i32)
    } else {
        day_int("weekday", &a[0], &|d| dow(d) as i32)
    }
}

fn day_of_week(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_int("dayOfWeek", &a[0], &|d| dow(d) as i32)
}

/// ISO-8601 week number.
fn iso_week(d: i64) -> i32 {
    let thursday = d - dow(d) + 3;
    let (y, _, _) = civil_from_days(thursday);
    ((thursday - days_from_civil(y, 1, 1)) / 7 + 1) as i32
}

fn week_of_year(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_int("weekOfYear", &a[0], &iso_week)
}

fn is_leap_year(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_bool("isLeapYear", &a[0], &|d| is_leap(civil_from_days(d).0))
}

fn days_in_month_fn(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_int("daysInMonth", &a[0], &|d| {
        let (y, m, _) = civil_from_days(d);
        days_in_month(y, m) as i32
    })
}

fn is_month_start(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_bool("isMonthStart", &a[0], &|d| civil_from_days(d).2 == 1)
}

fn is_month_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_bool("isMonthEnd", &a[0], &|d| {
        let (y, m, dd) = civil_from_days(d);
        dd == days_in_month(y, m)
    })
}

fn is_quarter_start(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_bool("isQuarterStart", &a[0], &|d| {
        let (_, m, dd) = civil_from_days(d);
        dd == 1 && (m - 1) % 3 == 0
    })
}

fn is_quarter_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_bool("isQuarterEnd", &a[0], &|d| {
        let (y, m, dd) = civil_from_days(d);
        m % 3 == 0 && dd == days_in_month(y, m)
    })
}

fn is_year_start(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_bool("isYearStart", &a[0], &|d| {
        let (_, m, dd) = civil_from_days(d);
        m == 1 && dd == 1
    })
}

fn is_year_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    day_bool("isYearEnd", &a[0], &|d| {
        let (_, m, dd) = civil_from_days(d);
        m == 12 && dd == 31
    })
}

// ---------------------------------------------------------------- time-of-day components

fn hour(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    tod_int("hour", &a[0], 3600 * NS_PER_SEC, &|h| h as i32)
}

fn hour_of_day(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    tod_int("hourOfDay", &a[0], 3600 * NS_PER_SEC, &|h| h as i32)
}

fn minute_of_hour(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    tod_int("minuteOfHour", &a[0], 60 * NS_PER_SEC, &|m| (m % 60) as i32)
}

fn second_of_minute(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    tod_int("secondOfMinute", &a[0], NS_PER_SEC, &|s| (s % 60) as i32)
}

fn millisecond(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    tod_int("millisecond", &a[0], 1_000_000, &|ms| (ms % 1000) as i32)
}

fn microsecond(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    tod_int("microsecond", &a[0], 1_000, &|us| (us % 1_000_000) as i32)
}

fn nanosecond(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    tod_int("nanosecond", &a[0], 1, &|ns| (ns % NS_PER_SEC) as i32)
}

// ---------------------------------------------------------------- combining and clocks

/// `concatDateTime(date, time)`: DATE + SECOND/MINUTE → DATETIME, + TIME → TIMESTAMP,
/// + NANOTIME → NANOTIMESTAMP.
fn concat_date_time(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let d = Arg::of("concatDateTime", &a[0])?;
    let t = Arg::of("concatDateTime", &a[1])?;
    if d.col.ty != DataType::Date {
        return Err(Error::arg(format!("The first argument of [concatDateTime] must be DATE, not {}", d.col.ty)));
    }
    let (out_ty, per_day, scale) = match t.col.ty {
        DataType::Second => (DataType::DateTime, 86_400i64, 1i64),
        DataType::Minute => (DataType::DateTime, 86_400, 60),
        DataType::Time => (DataType::Timestamp, MS_PER_DAY, 1),
        DataType::NanoTime => (DataType::NanoTimestamp, NS_PER_DAY, 1),
        other => {
            return Err(Error::arg(format!(
                "The second argument of [concatDateTime] must be SECOND, MINUTE, TIME or NANOTIME, not {other}"
            )))
        }
    };
    let n = crate::string::common_len("concatDateTime", &[&d, &t])?;
    let dv = beluga_runtime::kernels::arith::as_native::<i64>(&d.col);
    let tv = beluga_runtime::kernels::arith::as_native::<i64>(&t.col);
    let out: Vec<i64> = (0..n)
        .map(|i| {
            let (x, y) = (dv[d.idx(i)], tv[t.idx(i)]);
            if x.is_null() || y.is_null() {
                i64::NULL
            } else {
                x.saturating_mul(per_day).saturating_add(y * scale)
            }
        })
        .collect();
    let c = temporal_col(out_ty, out);
    Ok(if d.scalar && t.scalar { Value::Scalar(c) } else { Value::Vector(c) })
}

/// Local wall-clock time as nanoseconds since 1970-01-01 (naive local time).
pub(crate) fn local_now_ns() -> i64 {
    let now = chrono::Local::now();
    let naive = now.naive_local();
    naive.and_utc().timestamp_nanos_opt().unwrap_or(0)
}

fn now(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let nano = match opt(&a, 0) {
        None => false,
        Some(v) => v.as_bool().ok_or_else(|| Error::arg("The argument of [now] must be a boolean"))?,
    };
    let ns = local_now_ns();
    Ok(if nano {
        Value::scalar(DataType::NanoTimestamp, vec![ns])
    } else {
        Value::scalar(DataType::Timestamp, vec![ns.div_euclid(1_000_000)])
    })
}

fn today(_: &mut CallCtx, _: Vec<Value>) -> Result<Value> {
    let days = local_now_ns().div_euclid(NS_PER_DAY);
    Ok(Value::Scalar(temporal_col(DataType::Date, vec![days])))
}

/// Days of a DATE scalar (helper for tests and other temporal files).
#[allow(dead_code)]
pub(crate) fn date_value(y: i64, m: u32, d: u32) -> Value {
    Value::Scalar(Column::from_vec(DataType::Date, vec![days_from_civil(y, m, d) as i32]))
}

pub const DEFS: &[Builtin] = &[
    fp("concatDateTime", Kind::Elementwise, 2, 2, concat_date_time, &["date", "time"]),
    f("dayOfMonth", Kind::Elementwise, 1, 1, day_of_month),
    f("dayOfWeek", Kind::Elementwise, 1, 1, day_of_week),
    f("dayOfYear", Kind::Elementwise, 1, 1, day_of_year),
    f("daysInMonth", Kind::Elementwise, 1, 1, days_in_month_fn),
    f("hour", Kind::Elementwise, 1, 1, hour),
    f("hourOfDay", Kind::Elementwise, 1, 1, hour_of_day),
    f("isLeapYear", Kind::Elementwise, 1, 1, is_leap_year),
    f("isMonthEnd", Kind::Elementwise, 1, 1, is_month_end),
    f("isMonthStart", Kind::Elementwise, 1, 1, is_month_start),
    f("isQuarterEnd", Kind::Elementwise, 1, 1, is_quarter_end),
    f("isQuarterStart", Kind::Elementwise, 1, 1, is_quarter_start),
    f("isYearEnd", Kind::Elementwise, 1, 1, is_year_end),
    f("isYearStart", Kind::Elementwise, 1, 1, is_year_start),
    f("microsecond", Kind::Elementwise, 1, 1, microsecond),
    f("millisecond", Kind::Elementwise, 1, 1, millisecond),
    f("minuteOfHour", Kind::Elementwise, 1, 1, minute_of_hour),
    f("monthOfYear", Kind::Elementwise, 1, 1, month_of_year),
    f("nanosecond", Kind::Elementwise, 1, 1, nanosecond),
    fp("now", Kind::System, 0, 1, now, &["nanoTimestamp"]),
    f("quarterOfYear", Kind::Elementwise, 1, 1, quarter_of_year),
    f("secondOfMinute", Kind::Elementwise, 1, 1, second_of_minute),
    f("today", Kind::System, 0, 0, today),
    fp("weekday", Kind::Elementwise, 1, 2, weekday, &["X", "startFromSunday"]),
    f("weekOfYear", Kind::Elementwise, 1, 1, week_of_year),
    f("year", Kind::Elementwise, 1, 1, year),
];

#[cfg(test)]
mod tests {
    use crate::string::run;

    #[test]
    fn temporal_components() {
        assert_eq!(run("year(2012.12.03 2011.11.05)"), "[2012,2011]");
        assert_eq!(run("monthOfYear(2012.07.02)"), "7");
        assert_eq!(run("dayOfYear([2011.12.31,2012.12.31])"), "[365,366]");
        assert_eq!(run("weekday(2012.12.05)"), "3");
        assert_eq!(run("weekday(2012.12.05, false)"), "2");
        assert_eq!(run("dayOfWeek(2013.05.23T12:00:00)"), "3");
        assert_eq!(run("weekOfYear([2012.06.12T12:30:00,2012.10.28T12:35:00,2013.01.06T12:36:47,2013.04.06T08:02:14])"), "[24,43,1,14]");
        assert_eq!(run("hour(2012.12.03 01:22:01)"), "1");
        assert_eq!(run("minuteOfHour(01:02:03.456)"), "2");
        assert_eq!(run("millisecond([2012.12.03 01:22:01.456120300, 2012.12.03 01:25:08.000234000])"), "[456,0]");
        assert_eq!(run("nanosecond(13:30:10.008)"), "8000000");
        assert_eq!(run("isLeapYear([2012.01.01,2013.01.01])"), "[true,false]");
        assert_eq!(run("daysInMonth([2012.02.01,2013.12.05])"), "[29,31]");
        assert_eq!(run("isMonthEnd([2012.05.30,2012.05.31])"), "[false,true]");
        assert_eq!(run("year(00d)"), "00i");
        assert_eq!(run("concatDateTime(2019.06.15, 13:25:10)"), "2019.06.15T13:25:10");
        assert_eq!(run("concatDateTime(2019.06.15 2019.06.16, [13:25:10.001, 13:25:12.002])"), "[2019.06.15T13:25:10.001,2019.06.16T13:25:12.002]");
        assert_eq!(run("year(today()) > 2020"), "true");
    }
}

// The family's other files (stdlib/src/temporal/); lib.rs keeps the old flat paths as aliases.
pub mod arith;
pub mod cal;
pub mod base;
pub mod period;
pub mod tz;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, arith::DEFS, cal::DEFS, period::DEFS, tz::DEFS].iter().for_each(|defs| r.extend(defs));
}
