//! Trading calendars: `addMarketHoliday`, `updateMarketHoliday`, `deleteMarketHoliday`,
//! `getMarketCalendar`, `getTradingCalendarType`, `listAllMarkets`, and the trading-day
//! arithmetic that `temporalAdd`, `temporalDiff`, `transFreq` and `temporalSeq` use.
//!
//! Calendars live in the session (`Interpreter::ext`); no exchange calendars are built in,
//! so a market must be registered with `addMarketHoliday` before use. A "holidayDate"
//! calendar trades on weekdays that are not listed holidays; a "tradingDate" calendar
//! trades exactly on the listed dates.

use beluga_runtime::CallCtx;
use ahash::AHashMap;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};

use crate::temporal_core::{bday_date, bday_index, date_col, days_of, dow};
use crate::util::{describe, opt, str_arg};

const EXT_KEY: &str = "texttime.marketCalendars";

#[derive(Clone, Debug)]
pub(crate) struct Calendar {
    /// true: `dates` are the trading days; false: `dates` are weekday holidays.
    pub trading_dates: bool,
    /// sorted, unique day numbers
    pub dates: Vec<i64>,
}

type Store = AHashMap<String, Calendar>;

fn store(i: &mut CallCtx) -> &mut Store {
    let entry = i.ext().entry(EXT_KEY).or_insert_with(|| Box::new(Store::new()));
    if !entry.is::<Store>() {
        *entry = Box::new(Store::new());
    }
    // the entry was just checked to hold a Store
    entry.downcast_mut::<Store>().expect("calendar store type")
}

/// The calendar registered under `name`, if any.
pub(crate) fn calendar(i: &mut CallCtx, name: &str) -> Option<Calendar> {
    store(i).get(name).cloned()
}

/// A market name as used in units and rules: the registered calendar, or an error.
pub(crate) fn require_calendar(i: &mut CallCtx, name: &str) -> Result<Calendar> {
    calendar(i, name).ok_or_else(|| Error::arg(format!("The trading calendar '{name}' doesn't exist")))
}

impl Calendar {
    fn holiday(&self, d: i64) -> bool {
        self.dates.binary_search(&d).is_ok()
    }

    pub fn is_trading(&self, d: i64) -> bool {
        if self.trading_dates { self.holiday(d) } else { dow(d) < 5 && !self.holiday(d) }
    }

    /// Number of listed dates <= d.
    fn rank(&self, d: i64) -> i64 {
        self.dates.partition_point(|&x| x <= d) as i64
    }

    /// Trading-day index of a trading day `d` (consecutive trading days differ by 1).
    fn index(&self, d: i64) -> i64 {
        if self.trading_dates { self.rank(d) - 1 } else { bday_index(d) - self.rank(d) }
    }

    /// The trading day with index `t` (None when outside a trading-date list).
    fn date(&self, t: i64) -> Option<i64> {
        if self.trading_dates {
            return usize::try_from(t).ok().and_then(|k| self.dates.get(k).copied());
        }
        let mut h = 0i64;
        loop {
            let d = bday_date(t + h);
            let r = self.rank(d);
            if r == h {
                if self.holiday(d) {
                    h += 1;
                    continue;
                }
                return Some(d);
            }
            h = r;
        }
    }

    /// The trading day on or before `d` (None before the first listed trading day).
    pub fn on_or_before(&self, d: i64) -> Option<i64> {
        if self.trading_dates {
            let k = self.rank(d);
            return if k == 0 { None } else { Some(self.dates[k as usize - 1]) };
        }
        let mut x = d;
        while !self.is_trading(x) {
            x -= 1;
        }
        Some(x)
    }

    /// The trading day on or after `d`.
    pub fn on_or_after(&self, d: i64) -> Option<i64> {
        if self.trading_dates {
            let k = self.dates.partition_point(|&x| x < d);
            return self.dates.get(k).copied();
        }
        let mut x = d;
        while !self.is_trading(x) {
            x += 1;
        }
        Some(x)
    }

    /// `d` moved by `n` trading days; a non-trading `d` first rolls back (n >= 0) or
    /// forward (n < 0) to a trading day.
    pub fn add(&self, d: i64, n: i64) -> Option<i64> {
        let base = if self.is_trading(d) {
            d
        } else if n >= 0 {
            self.on_or_before(d)?
        } else {
            self.on_or_after(d)?
        };
        self.date(self.index(base).checked_add(n).filter(|t| t.unsigned_abs() < 1 << 50)?)
    }

    /// Trading-day index of the trading day on or before `d`.
    pub fn floor_index(&self, d: i64) -> Option<i64> {
        self.on_or_before(d).map(|x| self.index(x))
    }

    pub fn date_of_index(&self, t: i64) -> Option<i64> {
        self.date(t)
    }

    /// Trading days in [a, b].
    pub fn between(&self, a: i64, b: i64) -> Vec<i64> {
        if self.trading_dates {
            let lo = self.dates.partition_point(|&x| x < a);
            let hi = self.dates.partition_point(|&x| x <= b);
            return self.dates[lo..hi.max(lo)].to_vec();
        }
        (a..=b).filter(|&d| self.is_trading(d)).collect()
    }
}

fn market_name(name: &str, v: &Value) -> Result<String> {
    Ok(str_arg(name, v, "marketName")?.to_string())
}

fn date_list(name: &str, v: &Value) -> Result<Vec<i64>> {
    let c = match v {
        Value::Scalar(c) | Value::Vector(c) => c.clone(),
        other => return Err(Error::arg(format!("The holiday argument of [{name}] must be a DATE vector, not {}", describe(other)))),
    };
    if !matches!(c.ty, DataType::Date | DataType::DateTime | DataType::Timestamp | DataType::NanoTimestamp) {
        return Err(Error::arg(format!("The holiday argument of [{name}] must be a DATE vector, not {}", c.ty)));
    }
    let mut d: Vec<i64> = days_of(name, &c)?.into_iter().filter(|x| !x.is_null()).collect();
    d.sort_unstable();
    d.dedup();
    Ok(d)
}

fn add_market_holiday(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = market_name("addMarketHoliday", &a[0])?;
    let dates = date_list("addMarketHoliday", &a[1])?;
    let trading = match opt(&a, 2) {
        None => false,
        Some(v) => match str_arg("addMarketHoliday", v, "dateType")? {
            "holidayDate" => false,
            "tradingDate" => true,
            other => return Err(Error::arg(format!("The dateType of [addMarketHoliday] must be 'holidayDate' or 'tradingDate', not '{other}'"))),
        },
    };
    let s = store(i);
    if s.contains_key(&name) {
        return Err(Error::arg(format!("The added market '{name}' already exists.")));
    }
    s.insert(name, Calendar { trading_dates: trading, dates });
    Ok(Value::Void)
}

fn update_market_holiday(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = market_name("updateMarketHoliday", &a[0])?;
    let dates = date_list("updateMarketHoliday", &a[1])?;
    match store(i).get_mut(&name) {
        Some(c) => {
            c.dates = dates;
            Ok(Value::Void)
        }
        None => Err(Error::arg(format!("The trading calendar '{name}' doesn't exist"))),
    }
}

fn delete_market_holiday(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = market_name("deleteMarketHoliday", &a[0])?;
    match store(i).remove(&name) {
        Some(_) => Ok(Value::Void),
        None => Err(Error::arg(format!("The trading calendar '{name}' doesn't exist"))),
    }
}

fn list_all_markets(i: &mut CallCtx, _: Vec<Value>) -> Result<Value> {
    let mut names: Vec<String> = store(i).keys().cloned().collect();
    names.sort();
    Ok(Value::string_vec(names.iter().map(|s| s.as_str())))
}

fn get_trading_calendar_type(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = market_name("getTradingCalendarType", &a[0])?;
    let c = require_calendar(i, &name)?;
    Ok(Value::string(if c.trading_dates { "tradingDate" } else { "holidayDate" }))
}

fn one_day(name: &str, v: &Value) -> Result<Option<i64>> {
    match v {
        Value::Scalar(c) => Ok(days_of(name, c)?.first().copied().filter(|d| !d.is_null())),
        other => Err(Error::arg(format!("The date arguments of [{name}] must be temporal scalars, not {}", describe(other)))),
    }
}

fn get_market_calendar(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = market_name("getMarketCalendar", &a[0])?;
    let c = require_calendar(i, &name)?;
    let (lo_dflt, hi_dflt) = match (c.dates.first(), c.dates.last()) {
        (Some(&f), Some(&l)) => {
            let (fy, _, _) = beluga_runtime::temporal::civil_from_days(f);
            let (ly, _, _) = beluga_runtime::temporal::civil_from_days(l);
            (beluga_runtime::temporal::days_from_civil(fy, 1, 1), beluga_runtime::temporal::days_from_civil(ly, 12, 31))
        }
        _ => return Ok(Value::Vector(Column::from_vec(DataType::Date, Vec::<i32>::new()))),
    };
    let lo = match opt(&a, 1) {
        Some(v) => one_day("getMarketCalendar", v)?.unwrap_or(lo_dflt),
        None => lo_dflt,
    };
    let hi = match opt(&a, 2) {
        Some(v) => one_day("getMarketCalendar", v)?.unwrap_or(hi_dflt),
        None => hi_dflt,
    };
    if hi < lo {
        return Ok(Value::Vector(Column::from_vec(DataType::Date, Vec::<i32>::new())));
    }
    if hi - lo > 1_000_000 {
        return Err(Error::arg("The date range of [getMarketCalendar] is too large"));
    }
    Ok(Value::Vector(date_col(&c.between(lo, hi))))
}

pub const DEFS: &[Builtin] = &[
    fp("addMarketHoliday", Kind::System, 2, 3, add_market_holiday, &["marketName", "holiday", "dateType"]),
    fp("deleteMarketHoliday", Kind::System, 1, 1, delete_market_holiday, &["marketName"]),
    fp("getMarketCalendar", Kind::System, 1, 3, get_market_calendar, &["marketName", "startDate", "endDate"]),
    fp("getTradingCalendarType", Kind::System, 1, 1, get_trading_calendar_type, &["marketName"]),
    fp("listAllMarkets", Kind::System, 0, 0, list_all_markets, &[]),
    fp("updateMarketHoliday", Kind::System, 2, 2, update_market_holiday, &["marketName", "holiday"]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::string::run;

    #[test]
    fn temporal_cal_trading_days() {
        let d0 = beluga_runtime::temporal::days_from_civil(2022, 1, 1);
        let cal = Calendar { trading_dates: false, dates: vec![d0 + 2, d0 + 4] };
        // naive reference: step one trading day at a time
        for start in d0 - 20..d0 + 20 {
            for n in 0..8 {
                let mut x = cal.on_or_before(start).unwrap();
                for _ in 0..n {
                    x += 1;
                    while !cal.is_trading(x) {
                        x += 1;
                    }
                }
                assert_eq!(cal.add(start, n), Some(x), "{start} {n}");
            }
        }
        assert_eq!(
            run("addMarketHoliday(\"DCBA\",2022.01.03 2022.01.05)\ngetMarketCalendar(\"DCBA\", 2022.01.01, 2022.01.10)"),
            "[2022.01.04,2022.01.06,2022.01.07,2022.01.10]"
        );
    }
}
