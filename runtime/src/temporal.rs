//! Temporal encodings (LANGUAGE.md §2.2): integer civil-date arithmetic, formatting and
//! conversion between temporal types. No per-element chrono objects in kernels.

use crate::types::DataType;

pub const MS_PER_DAY: i64 = 86_400_000;
pub const NS_PER_DAY: i64 = 86_400_000_000_000;

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// (year, month 1-12, day 1-31) of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if is_leap(y) {
                29
            } else {
                28
            }
        }
    }
}

fn fmt_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{:04}.{:02}.{:02}", y, m, d)
}

fn fmt_hms(secs: i64) -> String {
    format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// Console form of a non-null temporal value.
pub fn format_temporal(ty: DataType, v: i64) -> String {
    match ty {
        DataType::Date => fmt_date(v),
        DataType::Month => {
            let y = v.div_euclid(12);
            let m = v.rem_euclid(12) + 1;
            format!("{:04}.{:02}M", y, m)
        }
        DataType::Time => format!("{}.{:03}", fmt_hms(v / 1000), v % 1000),
        DataType::Minute => format!("{:02}:{:02}m", v / 60, v % 60),
        DataType::Second => fmt_hms(v),
        DataType::DateTime => {
            format!("{}T{}", fmt_date(v.div_euclid(86_400)), fmt_hms(v.rem_euclid(86_400)))
        }
        DataType::Timestamp => {
            let ms = v.rem_euclid(MS_PER_DAY);
            format!("{}T{}.{:03}", fmt_date(v.div_euclid(MS_PER_DAY)), fmt_hms(ms / 1000), ms % 1000)
        }
        DataType::NanoTime => format!("{}.{:09}", fmt_hms(v / 1_000_000_000), v % 1_000_000_000),
        DataType::NanoTimestamp => {
            let ns = v.rem_euclid(NS_PER_DAY);
            format!(
                "{}T{}.{:09}",
                fmt_date(v.div_euclid(NS_PER_DAY)),
                fmt_hms(ns / 1_000_000_000),
                ns % 1_000_000_000
            )
        }
        DataType::DateHour => {
            format!("{}T{:02}", fmt_date(v.div_euclid(24)), v.rem_euclid(24))
        }
        _ => v.to_string(),
    }
}

/// Nanoseconds in one unit of a temporal type (None for MONTH, which has no fixed length).
pub fn type_unit_ns(ty: DataType) -> Option<i64> {
    unit_ns(ty).map(|(_, u)| u)
}

/// Nanoseconds in one DURATION unit with a fixed length (`ns us ms s m H d w`; `h` is
/// read as `H`). The one unit table: SQL windows, `temporalAdd`, time windows, `bar` and
/// the resample rules all read it. Calendar units (`M y B`, exchange calendars) have no
/// fixed length and give None.
pub fn duration_unit_ns(unit: &str) -> Option<i64> {
    Some(match unit {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "H" | "h" => 3_600_000_000_000,
        "d" => NS_PER_DAY,
        "w" => 7 * NS_PER_DAY,
        _ => return None,
    })
}

/// Whether a temporal type carries a date, and its unit in nanoseconds (None for MONTH,
/// whose unit has no fixed length, and non-temporal types).
pub fn unit_ns(ty: DataType) -> Option<(bool, i64)> {
    Some(match ty {
        DataType::Date => (true, NS_PER_DAY),
        DataType::DateHour => (true, 3_600_000_000_000),
        DataType::DateTime => (true, 1_000_000_000),
        DataType::Timestamp => (true, 1_000_000),
        DataType::NanoTimestamp => (true, 1),
        DataType::Time => (false, 1_000_000),
        DataType::Minute => (false, 60_000_000_000),
        DataType::Second => (false, 1_000_000_000),
        DataType::NanoTime => (false, 1),
        _ => return None,
    })
}

/// Convert a non-null temporal value between temporal types (truncating to the coarser
/// unit). Returns Err(()) when the conversion is not meaningful (date-only → time of day).
pub fn convert_temporal(from: DataType, to: DataType, v: i64) -> Result<i64, ()> {
    if from == to {
        return Ok(v);
    }
    if to == DataType::Month {
        let days = match from {
            DataType::Month => return Ok(v),
            _ => {
                let (dated, u) = unit_ns(from).ok_or(())?;
                if !dated {
                    return Err(());
                }
                (v as i128 * u as i128).div_euclid(NS_PER_DAY as i128) as i64
            }
        };
        let (y, m, _) = civil_from_days(days);
        return Ok(y * 12 + m as i64 - 1);
    }
    let ns: i128 = if from == DataType::Month {
        let y = v.div_euclid(12);
        let m = v.rem_euclid(12) as u32 + 1;
        days_from_civil(y, m, 1) as i128 * NS_PER_DAY as i128
    } else {
        let (_, u) = unit_ns(from).ok_or(())?;
        v as i128 * u as i128
    };
    let (from_dated, _) = if from == DataType::Month { (true, 0) } else { unit_ns(from).ok_or(())? };
    let (to_dated, tu) = unit_ns(to).ok_or(())?;
    if to_dated && !from_dated {
        return Err(());
    }
    let ns = if !to_dated && from_dated { ns.rem_euclid(NS_PER_DAY as i128) } else { ns };
    if !to_dated && from == DataType::Date {
        return Err(());
    }
    Ok(ns.div_euclid(tu as i128) as i64)
}

/// The type of a temporal literal (`2012.06.13` is a DATE): shared by the evaluator and
/// the printer of expressions.
pub fn temporal_type(t: beluga_lang::ast::TemporalType) -> DataType {
    use beluga_lang::ast::TemporalType as T;
    match t {
        T::Date => DataType::Date,
        T::Month => DataType::Month,
        T::Time => DataType::Time,
        T::Minute => DataType::Minute,
        T::Second => DataType::Second,
        T::DateTime => DataType::DateTime,
        T::Timestamp => DataType::Timestamp,
        T::NanoTime => DataType::NanoTime,
        T::NanoTimestamp => DataType::NanoTimestamp,
        T::DateHour => DataType::DateHour,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn civil_roundtrip() {
        for d in [-800_000i64, -1, 0, 1, 15_000, 19_000, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
        assert_eq!(format_temporal(DataType::Date, days_from_civil(2012, 6, 13)), "2012.06.13");
    }
    #[test]
    fn conversions() {
        let dt = days_from_civil(2012, 6, 13) * 86_400 + 13 * 3600 + 30 * 60 + 10;
        assert_eq!(
            format_temporal(DataType::Timestamp, convert_temporal(DataType::DateTime, DataType::Timestamp, dt).unwrap()),
            "2012.06.13T13:30:10.000"
        );
        assert_eq!(format_temporal(DataType::Month, convert_temporal(DataType::DateTime, DataType::Month, dt).unwrap()), "2012.06M");
        assert_eq!(format_temporal(DataType::Second, convert_temporal(DataType::DateTime, DataType::Second, dt).unwrap()), "13:30:10");
        assert!(convert_temporal(DataType::Date, DataType::Second, 5).is_err());
    }
}
