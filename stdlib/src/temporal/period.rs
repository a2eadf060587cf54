//! Builtins: period boundaries — `monthBegin/End`, `quarterBegin/End`, `yearBegin/End`,
//! `semiannualBegin/End`, `semiMonthBegin/End`, `weekBegin/End`, the `business*` variants,
//! `businessDay`, `weekOfMonth`, `lastWeekOfMonth`, `fy5253`, `fy5253Quarter`.
//!
//! Each function maps a day number to a *period index* and back to the period's boundary
//! date. With `n > 1`, periods are grouped into blocks of `n` starting at the period of
//! `offset` (default: the smallest element of X): begin-style functions take the block's
//! first period (floor), forward end-style functions the block's last (ceil), and the
//! roll-back functions (`semiMonthEnd`, `weekOfMonth`, `lastWeekOfMonth`) floor.
//! Results are DATE.

use beluga_runtime::CallCtx;
use beluga_runtime::column::Column;
use beluga_runtime::eval::ops;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::temporal::{civil_from_days, days_from_civil};
use beluga_runtime::{Error, Result, Value};

use crate::temporal_core::{
    bday_date, bday_index, bday_on_or_after, bday_on_or_before, date_col, day_of_month_index, days_of, dow,
    month_index, month_last_day,
};
use crate::util::opt;

/// Integer parameter at position i (default when absent), checked against a range.
fn int_param(name: &str, a: &[Value], i: usize, dflt: i64, lo: i64, hi: i64, what: &str) -> Result<i64> {
    match opt(a, i) {
        None => Ok(dflt),
        Some(v) => match v.as_i64() {
            Some(x) if (lo..=hi).contains(&x) => Ok(x),
            _ => Err(Error::arg(format!("The {what} argument of [{name}] must be an integer in [{lo}, {hi}]"))),
        },
    }
}

fn bool_param(name: &str, a: &[Value], i: usize, dflt: bool, what: &str) -> Result<bool> {
    match opt(a, i) {
        None => Ok(dflt),
        Some(v) => v.as_bool().ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] must be a boolean"))),
    }
}

/// A period family: `index(day)` → period number, `date(period)` → boundary day, and
/// whether blocks of n periods align forward (end-style functions).
pub(crate) struct DateRule {
    pub index: Box<dyn Fn(i64) -> i64>,
    pub date: Box<dyn Fn(i64) -> i64>,
    pub ceil: bool,
}

impl DateRule {
    fn new(index: impl Fn(i64) -> i64 + 'static, date: impl Fn(i64) -> i64 + 'static, ceil: bool) -> DateRule {
        DateRule { index: Box::new(index), date: Box::new(date), ceil }
    }

    /// Boundary of the block of `n` periods (anchored at period `p0`) containing day `d`.
    pub fn apply(&self, d: i64, p0: i64, n: i64) -> i64 {
        if n <= 1 {
            return (self.date)((self.index)(d));
        }
        let k = (self.index)(d).wrapping_sub(p0);
        let b = if self.ceil { -((-k).div_euclid(n)) } else { k.div_euclid(n) };
        match b.checked_mul(n).and_then(|x| x.checked_add(p0)) {
            Some(p) => (self.date)(p),
            None => i64::NULL,
        }
    }
}

/// Run a period function over X (argument 0) with `offset`/`n` at `off_pos`/`off_pos + 1`.
fn period_apply(name: &str, a: &[Value], off_pos: usize, rule: &DateRule) -> Result<Value> {
    let n = int_param(name, a, off_pos + 1, 1, 1, i64::MAX, "n")?;
    let offset_day: Option<i64> = match (n > 1, opt(a, off_pos)) {
        (true, Some(v)) => {
            let c = match v {
                Value::Scalar(c) => c.clone(),
                _ => return Err(Error::arg(format!("The offset argument of [{name}] must be a temporal scalar"))),
            };
            let d = days_of(name, &c)?;
            d.first().copied().filter(|x| !x.is_null())
        }
        _ => None,
    };
    ops::unary_col(&a[0], &|c: &Column| {
        let days = days_of(name, c)?;
        let anchor = if n > 1 { offset_day.or_else(|| days.iter().copied().filter(|d| !d.is_null()).min()) } else { None };
        let p0 = anchor.map(|d| (rule.index)(d)).unwrap_or(0);
        let out: Vec<i64> = days.iter().map(|&d| if d.is_null() { d } else { rule.apply(d, p0, n) }).collect();
        Ok(date_col(&out))
    })
}

/// Periods of `len` months. Begin-style: periods start at `month` (1–12), index = floor.
/// End-style: periods end at `month`, index = the first period ending at or after the day.
fn months_rule(len: i64, month: i64, begin: bool, business: bool) -> DateRule {
    if begin {
        DateRule::new(
            move |d| (month_index(d) - (month - 1)).div_euclid(len),
            move |p| {
                let d = day_of_month_index(p * len + month - 1, 1);
                if business { bday_on_or_after(d) } else { d }
            },
            false,
        )
    } else {
        DateRule::new(
            move |d| -((-(month_index(d) - (month - 1))).div_euclid(len)),
            move |p| {
                let d = month_last_day(p * len + month - 1);
                if business { bday_on_or_before(d) } else { d }
            },
            true,
        )
    }
}

/// Shared body of month/quarter/semiannual/year begin and end functions.
fn months_fn(name: &str, a: &[Value], len: i64, has_month_arg: bool, begin: bool, business: bool) -> Result<Value> {
    let month = if !has_month_arg {
        if begin { 1 } else { 12 }
    } else if begin {
        int_param(name, a, 1, 1, 1, 12, "startingMonth")?
    } else {
        int_param(name, a, 1, 12, 1, 12, "endingMonth")?
    };
    let off = if has_month_arg { 2 } else { 1 };
    period_apply(name, a, off, &months_rule(len, month, begin, business))
}

fn month_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("monthBegin", &a, 1, false, true, false)
}
fn month_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("monthEnd", &a, 1, false, false, false)
}
fn quarter_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("quarterBegin", &a, 3, true, true, false)
}
fn quarter_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("quarterEnd", &a, 3, true, false, false)
}
fn semiannual_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("semiannualBegin", &a, 6, true, true, false)
}
fn semiannual_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("semiannualEnd", &a, 6, true, false, false)
}
fn year_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("yearBegin", &a, 12, true, true, false)
}
fn year_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("yearEnd", &a, 12, true, false, false)
}
fn business_month_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("businessMonthBegin", &a, 1, false, true, true)
}
fn business_month_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("businessMonthEnd", &a, 1, false, false, true)
}
fn business_quarter_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("businessQuarterBegin", &a, 3, true, true, true)
}
fn business_quarter_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("businessQuarterEnd", &a, 3, true, false, true)
}
fn business_year_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("businessYearBegin", &a, 12, true, true, true)
}
fn business_year_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    months_fn("businessYearEnd", &a, 12, true, false, true)
}

fn semi_month_begin_rule(dom: i64) -> DateRule {
    DateRule::new(
        move |d| 2 * month_index(d) + (civil_from_days(d).2 as i64 >= dom) as i64,
        move |p| day_of_month_index(p.div_euclid(2), if p.rem_euclid(2) == 0 { 1 } else { dom as u32 }),
        false,
    )
}

/// Roll back to the latest semi-month end: odd index 2m+1 is day `dom` of month m, even
/// index 2m the last day of month m-1.
fn semi_month_end_rule(dom: i64) -> DateRule {
    DateRule::new(
        move |d| 2 * month_index(d) + (civil_from_days(d).2 as i64 >= dom) as i64,
        move |p| {
            if p.rem_euclid(2) == 1 {
                day_of_month_index(p.div_euclid(2), dom as u32)
            } else {
                month_last_day(p.div_euclid(2) - 1)
            }
        },
        false,
    )
}

fn semi_month_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let dom = int_param("semiMonthBegin", &a, 1, 15, 2, 27, "dayOfMonth")?;
    period_apply("semiMonthBegin", &a, 2, &semi_month_begin_rule(dom))
}

fn semi_month_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let dom = int_param("semiMonthEnd", &a, 1, 15, 2, 27, "dayOfMonth")?;
    period_apply("semiMonthEnd", &a, 2, &semi_month_end_rule(dom))
}

fn week_begin_rule(w: i64) -> DateRule {
    DateRule::new(move |d| (d - (w - 3)).div_euclid(7), move |p| p * 7 + w - 3, false)
}

fn week_end_rule(w: i64) -> DateRule {
    DateRule::new(move |d| -((-(d - (w - 3))).div_euclid(7)), move |p| p * 7 + w - 3, true)
}

fn week_begin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let w = int_param("weekBegin", &a, 1, 0, 0, 6, "weekday")?;
    period_apply("weekBegin", &a, 2, &week_begin_rule(w))
}

fn week_end(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let w = int_param("weekEnd", &a, 1, 6, 0, 6, "weekday")?;
    period_apply("weekEnd", &a, 2, &week_end_rule(w))
}

fn business_day_rule() -> DateRule {
    DateRule::new(|d| bday_index(bday_on_or_before(d)), bday_date, false)
}

fn business_day(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    period_apply("businessDay", &a, 1, &business_day_rule())
}

/// The `week`-th (0-based) `weekday` of month index `mi`.
fn nth_weekday(mi: i64, week: i64, w: i64) -> i64 {
    let first = day_of_month_index(mi, 1);
    first + (w - dow(first)).rem_euclid(7) + 7 * week
}

/// The last `weekday` of month index `mi`.
fn last_weekday(mi: i64, w: i64) -> i64 {
    let last = month_last_day(mi);
    last - (dow(last) - w).rem_euclid(7)
}

fn week_of_month_rule(week: i64, w: i64) -> DateRule {
    DateRule::new(
        move |d| {
            let mi = month_index(d);
            if d >= nth_weekday(mi, week, w) { mi } else { mi - 1 }
        },
        move |p| nth_weekday(p, week, w),
        false,
    )
}

fn last_week_of_month_rule(w: i64) -> DateRule {
    DateRule::new(
        move |d| {
            let mi = month_index(d);
            if d >= last_weekday(mi, w) { mi } else { mi - 1 }
        },
        move |p| last_weekday(p, w),
        false,
    )
}

fn week_of_month(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let week = int_param("weekOfMonth", &a, 1, 0, 0, 3, "week")?;
    let w = int_param("weekOfMonth", &a, 2, 0, 0, 6, "weekday")?;
    period_apply("weekOfMonth", &a, 3, &week_of_month_rule(week, w))
}

fn last_week_of_month(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let w = int_param("lastWeekOfMonth", &a, 1, 0, 0, 6, "weekday")?;
    period_apply("lastWeekOfMonth", &a, 2, &last_week_of_month_rule(w))
}

/// Start of 52-53-week fiscal year `y`: the `weekday` nearest to (or the last one on or
/// before) the last day of `starting_month`.
fn fy_start(y: i64, w: i64, sm: i64, nearest: bool) -> i64 {
    let last = month_last_day(y * 12 + sm - 1);
    let back = (dow(last) - w).rem_euclid(7);
    if nearest && back > 3 { last - back + 7 } else { last - back }
}

/// Fiscal year containing day `d`.
fn fy_of(d: i64, w: i64, sm: i64, nearest: bool) -> i64 {
    let mut y = civil_from_days(d).0;
    if d < fy_start(y, w, sm, nearest) {
        y -= 1;
    } else if d >= fy_start(y + 1, w, sm, nearest) {
        y += 1;
    }
    y
}

fn fy_rule(w: i64, sm: i64, nearest: bool) -> DateRule {
    DateRule::new(move |d| fy_of(d, w, sm, nearest), move |y| fy_start(y, w, sm, nearest), false)
}

fn fy5253(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let w = int_param("fy5253", &a, 1, 0, 0, 6, "weekday")?;
    let sm = int_param("fy5253", &a, 2, 1, 1, 12, "startingMonth")?;
    let nearest = bool_param("fy5253", &a, 3, true, "nearest")?;
    period_apply("fy5253", &a, 4, &fy_rule(w, sm, nearest))
}

/// Start of quarter `q` (0–3) of fiscal year `y`: 13-week quarters, the 53rd week (if any)
/// added to quarter `extra` (1–4).
fn fy_quarter_start(y: i64, q: i64, w: i64, sm: i64, nearest: bool, extra: i64) -> i64 {
    let s = fy_start(y, w, sm, nearest);
    let long = (fy_start(y + 1, w, sm, nearest) - s) / 7 == 53;
    let mut d = s + 91 * q;
    if long && q >= extra {
        d += 7;
    }
    d
}

fn fy_quarter_rule(w: i64, sm: i64, nearest: bool, extra: i64) -> DateRule {
    DateRule::new(
        move |d| {
            let y = fy_of(d, w, sm, nearest);
            let mut q = 3;
            while q > 0 && d < fy_quarter_start(y, q, w, sm, nearest, extra) {
                q -= 1;
            }
            y * 4 + q
        },
        move |p| fy_quarter_start(p.div_euclid(4), p.rem_euclid(4), w, sm, nearest, extra),
        false,
    )
}

fn fy5253_quarter(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "fy5253Quarter";
    let w = int_param(name, &a, 1, 0, 0, 6, "weekday")?;
    let sm = int_param(name, &a, 2, 1, 1, 12, "startingMonth")?;
    let extra = int_param(name, &a, 3, 1, 1, 4, "qtrWithExtraWeek")?;
    let nearest = bool_param(name, &a, 4, true, "nearest")?;
    period_apply(name, &a, 5, &fy_quarter_rule(w, sm, nearest, extra))
}

/// The period family of a resampling rule code (`"M"`, `"QS"`, `"W"` …) with default
/// parameters, and whether its intervals are closed/labelled on the right by default.
pub(crate) fn date_rule(code: &str) -> Option<(DateRule, bool)> {
    Some(match code {
        "B" => (business_day_rule(), false),
        "W" => (week_end_rule(6), true),
        "WOM" => (week_of_month_rule(0, 0), false),
        "LWOM" => (last_week_of_month_rule(0), false),
        "M" => (months_rule(1, 12, false, false), true),
        "MS" => (months_rule(1, 1, true, false), false),
        "BM" => (months_rule(1, 12, false, true), true),
        "BMS" => (months_rule(1, 1, true, true), false),
        "SM" => (semi_month_end_rule(15), false),
        "SMS" => (semi_month_begin_rule(15), false),
        "Q" => (months_rule(3, 12, false, false), true),
        "QS" => (months_rule(3, 1, true, false), false),
        "BQ" => (months_rule(3, 12, false, true), true),
        "BQS" => (months_rule(3, 1, true, true), false),
        "REQ" => (fy_quarter_rule(0, 1, true, 1), false),
        "A" => (months_rule(12, 12, false, false), true),
        "AS" => (months_rule(12, 1, true, false), false),
        "BA" => (months_rule(12, 12, false, true), true),
        "BAS" => (months_rule(12, 1, true, true), false),
        "RE" => (fy_rule(0, 1, true), false),
        "SA" => (months_rule(6, 12, false, false), true),
        "SAS" => (months_rule(6, 1, true, false), false),
        _ => return None,
    })
}

/// Day number of a civil date (tests and other temporal files).
#[allow(dead_code)]
pub(crate) fn ymd(y: i64, m: u32, d: u32) -> i64 {
    days_from_civil(y, m, d)
}

const P_X_OFF_N: &[&str] = &["X", "offset", "n"];
const P_START: &[&str] = &["X", "startingMonth", "offset", "n"];
const P_END: &[&str] = &["X", "endingMonth", "offset", "n"];
const P_DOM: &[&str] = &["X", "dayOfMonth", "offset", "n"];
const P_WD: &[&str] = &["X", "weekday", "offset", "n"];

pub const DEFS: &[Builtin] = &[
    fp("businessDay", Kind::Elementwise, 1, 3, business_day, P_X_OFF_N),
    fp("businessMonthBegin", Kind::Elementwise, 1, 3, business_month_begin, P_X_OFF_N),
    fp("businessMonthEnd", Kind::Elementwise, 1, 3, business_month_end, P_X_OFF_N),
    fp("businessQuarterBegin", Kind::Elementwise, 1, 4, business_quarter_begin, P_START),
    fp("businessQuarterEnd", Kind::Elementwise, 1, 4, business_quarter_end, P_END),
    fp("businessYearBegin", Kind::Elementwise, 1, 4, business_year_begin, P_START),
    fp("businessYearEnd", Kind::Elementwise, 1, 4, business_year_end, P_END),
    fp("fy5253", Kind::Elementwise, 1, 6, fy5253, &["X", "weekday", "startingMonth", "nearest", "offset", "n"]),
    fp(
        "fy5253Quarter",
        Kind::Elementwise,
        1,
        7,
        fy5253_quarter,
        &["X", "weekday", "startingMonth", "qtrWithExtraWeek", "nearest", "offset", "n"],
    ),
    fp("lastWeekOfMonth", Kind::Elementwise, 1, 4, last_week_of_month, P_WD),
    fp("monthBegin", Kind::Elementwise, 1, 3, month_begin, P_X_OFF_N),
    fp("monthEnd", Kind::Elementwise, 1, 3, month_end, P_X_OFF_N),
    fp("quarterBegin", Kind::Elementwise, 1, 4, quarter_begin, P_START),
    fp("quarterEnd", Kind::Elementwise, 1, 4, quarter_end, P_END),
    fp("semiannualBegin", Kind::Elementwise, 1, 4, semiannual_begin, P_START),
    fp("semiannualEnd", Kind::Elementwise, 1, 4, semiannual_end, P_END),
    fp("semiMonthBegin", Kind::Elementwise, 1, 4, semi_month_begin, P_DOM),
    fp("semiMonthEnd", Kind::Elementwise, 1, 4, semi_month_end, P_DOM),
    fp("weekBegin", Kind::Elementwise, 1, 4, week_begin, P_WD),
    fp("weekEnd", Kind::Elementwise, 1, 4, week_end, P_WD),
    fp("weekOfMonth", Kind::Elementwise, 1, 5, week_of_month, &["X", "week", "weekday", "offset", "n"]),
    fp("yearBegin", Kind::Elementwise, 1, 4, year_begin, P_START),
    fp("yearEnd", Kind::Elementwise, 1, 4, year_end, P_END),
];

#[cfg(test)]
mod tests {
    use crate::string::run;

    #[test]
    fn temporal_period_boundaries() {
        assert_eq!(run("monthBegin(2016.12.06)"), "2016.12.01");
        assert_eq!(run("monthEnd(2016.12.06)"), "2016.12.31");
        assert_eq!(run("yearBegin(2012.06.12, 10)"), "2011.10.01");
        assert_eq!(run("yearBegin(2012.06.12, 1, 2009.04.03, 2)"), "2011.01.01");
        assert_eq!(run("yearEnd(2012.06.12, 3)"), "2013.03.31");
        assert_eq!(run("yearEnd(2012.06.12, 12, 2009.04.03, 2)"), "2013.12.31");
        assert_eq!(run("quarterBegin(2012.06.13 10:10:10.008, 5)"), "2012.05.01");
        assert_eq!(run("quarterEnd(2012.06.13 10:10:10.008, 5)"), "2012.08.31");
        assert_eq!(run("weekBegin(2017.12.01..2017.12.08, 4)"), "[2017.12.01,2017.12.01,2017.12.01,2017.12.01,2017.12.01,2017.12.01,2017.12.01,2017.12.08]");
        assert_eq!(run("businessDay(2019.01.06)"), "2019.01.04");
        assert_eq!(run("businessYearBegin(2011.06.02)"), "2011.01.03");
        assert_eq!(run("businessQuarterEnd(2012.04.12, 8, 2011.08.01, 3)"), "2012.05.31");
        assert_eq!(run("businessMonthBegin(2018.09.12, 2018.07.12, 3)"), "2018.07.02");
        assert_eq!(run("semiMonthBegin(2012.06.24)"), "2012.06.15");
        assert_eq!(run("semiMonthEnd(2012.06.12)"), "2012.05.31");
        assert_eq!(run("semiMonthBegin(2012.06.16, 16)"), "2012.06.16");
        assert_eq!(run("lastWeekOfMonth(2019.11.24,2)"), "2019.10.30");
        assert_eq!(run("lastWeekOfMonth(2019.11.29,2)"), "2019.11.27");
        assert_eq!(run("weekOfMonth(2019.11.01,2,4)"), "2019.10.18");
        assert_eq!(run("weekOfMonth(2019.11.20,2,4)"), "2019.11.15");
        assert_eq!(run("fy5253(2016.11.01,0,1,true)"), "2016.02.01");
        assert_eq!(run("fy5253(2016.11.01,0,1,false)"), "2016.01.25");
        assert_eq!(run("fy5253Quarter(2019.12.01,0,1,1,true)"), "2019.11.04");
        assert_eq!(run("fy5253Quarter(2019.12.01,0,1,4,true)"), "2019.10.28");
        assert_eq!(run("semiannualEnd(2025.10.10 10:10:10.008, 3)"), "2026.03.31");
        assert_eq!(
            run("semiannualEnd([2024.04.20,2024.05.31,2024.07.07,2024.10.24,2025.01.19], 12, 2024.01.01, 2)"),
            "[2024.06.30,2024.06.30,2025.06.30,2025.06.30,2025.06.30]"
        );
        assert_eq!(
            run("businessQuarterEnd(2011.07.24 2011.10.22 2012.01.20, , 2010.06.01, 2)"),
            "[2011.12.30,2011.12.30,2012.06.29]"
        );
        assert_eq!(
            run("weekOfMonth(2012.01.02 2012.02.03 2012.03.07 2012.04.08, 3, 4, 2012.01.01, 2)"),
            "[2011.12.23,2011.12.23,2012.02.24,2012.02.24]"
        );
        assert_eq!(
            run("fy5253(2011.10.25 2012.10.25 2013.10.25 2014.10.25,0,1,true,2011.10.01,2)"),
            "[2011.01.31,2011.01.31,2013.01.28,2013.01.28]"
        );
    }
}
