//! Builtins: `temporalAdd` (units ns us ms s m H d w M y B and trading calendars),
//! `temporalDiff`, `temporalDeltas`, `temporalSeq`, `transFreq`, `asFreq`/`asfreq`.
//! All arithmetic is on the integer encodings.

use beluga_runtime::CallCtx;
use beluga_runtime::column::Column;
use beluga_runtime::eval::ops;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::temporal::{civil_from_days, days_from_civil, days_in_month, MS_PER_DAY, NS_PER_DAY};
use beluga_runtime::types::Physical;
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

use crate::string::{common_len, Arg};
use crate::temporal_cal::{require_calendar, Calendar};
use crate::temporal_core::{bday_date, bday_index, bday_on_or_after, bday_on_or_before, date_col, temporal_col, unit_ns};
use crate::temporal_period::date_rule;
use crate::util::{describe, opt, str_arg};

/// A time unit of `temporalAdd`/`temporalDiff`.
#[derive(Clone, Debug)]
enum Unit {
    /// fixed length in nanoseconds
    Fixed(i64),
    Months(i64),
    Business,
    Market(Calendar),
}

use beluga_runtime::temporal::duration_unit_ns as fixed_unit;

/// A unit or rule argument: a string, or a CHAR such as `'M'`.
fn text_arg(name: &str, v: &Value, what: &str) -> Result<String> {
    if let Value::Scalar(c) = v {
        if c.ty == DataType::Char {
            if let Some(x) = c.i64_at(0) {
                return Ok(((x as u8) as char).to_string());
            }
        }
    }
    Ok(str_arg(name, v, what)?.to_string())
}

fn parse_unit(i: &mut CallCtx, u: &str) -> Result<Unit> {
    if let Some(ns) = fixed_unit(u) {
        return Ok(Unit::Fixed(ns));
    }
    Ok(match u {
        "M" => Unit::Months(1),
        "y" => Unit::Months(12),
        "B" => Unit::Business,
        _ => Unit::Market(require_calendar(i, u)?),
    })
}

/// Units per day of a date-carrying type (MONTH: None).
fn per_day(ty: DataType) -> Option<i64> {
    Some(match ty {
        DataType::Date => 1,
        DataType::DateHour => 24,
        DataType::DateTime => 86_400,
        DataType::Timestamp => MS_PER_DAY,
        DataType::NanoTimestamp => NS_PER_DAY,
        _ => return None,
    })
}

/// Add `n` months to day number `d`, clamping the day to the target month's length.
fn add_months_days(d: i64, n: i64) -> i64 {
    let (y, m, dd) = civil_from_days(d);
    // beyond ±100 million years nothing is representable: null
    if n.unsigned_abs() > 1_200_000_000 {
        return i64::NULL;
    }
    let mi = y * 12 + m as i64 - 1 + n;
    let (ny, nm) = (mi.div_euclid(12), mi.rem_euclid(12) as u32 + 1);
    days_from_civil(ny, nm, dd.min(days_in_month(ny, nm)))
}

/// Move weekday-aligned day `d` by `n` business days (weekends roll back for n >= 0,
/// forward for n < 0).
fn add_bdays(d: i64, n: i64) -> i64 {
    let base = if n >= 0 { bday_on_or_before(d) } else { bday_on_or_after(d) };
    bday_index(base).checked_add(n).filter(|t| t.unsigned_abs() < 1 << 50).map(bday_date).unwrap_or(i64::NULL)
}

/// Whether `unit` applies to values of type `ty` (checked once, before the kernels).
fn check_unit(name: &str, ty: DataType, unit: Option<&Unit>) -> Result<()> {
    let ok = match unit {
        None => true,
        Some(Unit::Fixed(_)) => unit_ns(ty).is_some(),
        Some(Unit::Months(_)) => ty == DataType::Month || per_day(ty).is_some(),
        Some(Unit::Business | Unit::Market(_)) => per_day(ty).is_some(),
    };
    if ok { Ok(()) } else { Err(Error::arg(format!("The unit of [{name}] is not supported for {ty}"))) }
}

/// `v` (a non-null value of type `ty`) plus `n` units (the unit checked by `check_unit`).
fn add_one(ty: DataType, v: i64, n: i64, unit: &Unit) -> i64 {
    match unit {
        Unit::Fixed(ns) => {
            let tu = unit_ns(ty).unwrap_or(1);
            let delta = (n as i128 * *ns as i128 / tu as i128) as i64;
            let r = v.wrapping_add(delta);
            match ty.day_modulus() {
                Some(m) => r.rem_euclid(m),
                None => r,
            }
        }
        Unit::Months(k) => {
            if ty == DataType::Month {
                return v.saturating_add(n.saturating_mul(*k));
            }
            let pd = per_day(ty).unwrap_or(1);
            let (d, t) = (v.div_euclid(pd), v.rem_euclid(pd));
            let nd = add_months_days(d, n.saturating_mul(*k));
            if nd.is_null() { nd } else { nd.saturating_mul(pd).saturating_add(t) }
        }
        Unit::Business | Unit::Market(_) => {
            let pd = per_day(ty).unwrap_or(1);
            let (d, t) = (v.div_euclid(pd), v.rem_euclid(pd));
            let nd = match unit {
                Unit::Market(c) => c.add(d, n).unwrap_or(i64::NULL),
                _ => add_bdays(d, n),
            };
            if nd.is_null() { nd } else { nd.saturating_mul(pd).saturating_add(t) }
        }
    }
}

fn temporal_add(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (amount, unit_name) = match (&a[1], opt(&a, 2)) {
        (Value::Duration(n, u), _) => (Value::long(*n), u.to_string()),
        (v, Some(u)) => (v.clone(), text_arg("temporalAdd", u, "unit")?),
        (v, None) => {
            return Err(Error::arg(format!(
                "The duration argument of [temporalAdd] must be a DURATION when no unit is given, not {}",
                describe(v)
            )))
        }
    };
    let unit = parse_unit(i, &unit_name)?;
    let nv = Arg::of("temporalAdd", &amount)?;
    if !nv.col.ty.is_integral() {
        return Err(Error::arg("The duration argument of [temporalAdd] must be an integer"));
    }
    let apply = |c: &Column, n: &Arg, len: usize, scalar_x: bool| -> Result<Column> {
        if !c.ty.is_temporal() {
            return Err(Error::unsupported("temporalAdd", c.ty));
        }
        check_unit("temporalAdd", c.ty, Some(&unit))?;
        let raw = as_native::<i64>(c);
        let nn = as_native::<i64>(&n.col);
        let mut out = Vec::with_capacity(len);
        for k in 0..len {
            let v = raw[if scalar_x { 0 } else { k }];
            let m = nn[n.idx(k)];
            out.push(if v.is_null() || m.is_null() { i64::NULL } else { add_one(c.ty, v, m, &unit) });
        }
        Ok(temporal_col(c.ty, out))
    };
    if nv.scalar {
        return ops::unary_col(&a[0], &|c: &Column| apply(c, &nv, c.len(), false));
    }
    let x = Arg::of("temporalAdd", &a[0])?;
    let n = common_len("temporalAdd", &[&x, &nv])?;
    Ok(Value::Vector(apply(&x.col, &nv, n, x.scalar)?))
}

// ---------------------------------------------------------------- differences

/// Difference `x - y` (both non-null, of type `ty`) in `unit` (None: the type's own unit;
/// the unit checked by `check_unit`).
fn diff_one(ty: DataType, x: i64, y: i64, unit: Option<&Unit>) -> i64 {
    let pd = per_day(ty).unwrap_or(1);
    match unit {
        None => x.wrapping_sub(y),
        Some(Unit::Fixed(ns)) => {
            let tu = unit_ns(ty).unwrap_or(1);
            ((x as i128 - y as i128) * tu as i128 / *ns as i128) as i64
        }
        Some(Unit::Months(k)) => {
            let mi = |v: i64| -> i64 {
                if ty == DataType::Month {
                    return v;
                }
                let (yy, m, _) = civil_from_days(v.div_euclid(pd));
                yy * 12 + m as i64 - 1
            };
            if *k == 12 { mi(x).div_euclid(12) - mi(y).div_euclid(12) } else { mi(x) - mi(y) }
        }
        Some(Unit::Business) => {
            bday_index(bday_on_or_before(x.div_euclid(pd))) - bday_index(bday_on_or_before(y.div_euclid(pd)))
        }
        Some(Unit::Market(c)) => match (c.floor_index(x.div_euclid(pd)), c.floor_index(y.div_euclid(pd))) {
            (Some(p), Some(q)) => p - q,
            _ => i64::NULL,
        },
    }
}

/// INT for 4-byte temporal types and coarse units, LONG for 8-byte types in sub-second units.
fn diff_type(ty: DataType, unit: Option<&Unit>) -> DataType {
    let long = ty.physical() == Physical::I64
        && match unit {
            None => true,
            Some(Unit::Fixed(ns)) => *ns < 1_000_000_000,
            _ => false,
        };
    if long { DataType::Long } else { DataType::Int }
}

fn diff_col(ty: DataType, v: Vec<i64>) -> Column {
    match ty {
        DataType::Long => Column::from_vec(ty, v),
        _ => Column::from_vec(
            DataType::Int,
            v.iter().map(|&x| if x.is_null() { i32::NULL } else { <i32 as Native>::from_i64(x) }).collect::<Vec<i32>>(),
        ),
    }
}

fn unit_arg(i: &mut CallCtx, name: &str, a: &[Value], k: usize) -> Result<Option<Unit>> {
    match opt(a, k) {
        None => Ok(None),
        Some(v) => Ok(Some(parse_unit(i, &text_arg(name, v, "unit")?)?)),
    }
}

fn temporal_diff(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let unit = unit_arg(i, "temporalDiff", &a, 2)?;
    let x = Arg::of("temporalDiff", &a[0])?;
    let y = Arg::of("temporalDiff", &a[1])?;
    let ty = x.col.ty;
    if !ty.is_temporal() {
        return Err(Error::unsupported("temporalDiff", ty));
    }
    let ycol = if y.col.ty == ty { y.col.clone() } else { beluga_runtime::kernels::cast::cast_column(&y.col, ty)? };
    check_unit("temporalDiff", ty, unit.as_ref())?;
    let n = common_len("temporalDiff", &[&x, &y])?;
    let (xv, yv) = (as_native::<i64>(&x.col), as_native::<i64>(&ycol));
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let (p, q) = (xv[x.idx(k)], yv[y.idx(k)]);
        out.push(if p.is_null() || q.is_null() { i64::NULL } else { diff_one(ty, p, q, unit.as_ref()) });
    }
    let c = diff_col(diff_type(ty, unit.as_ref()), out);
    Ok(if x.scalar && y.scalar { Value::Scalar(c) } else { Value::Vector(c) })
}

fn temporal_deltas(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let unit = unit_arg(i, "temporalDeltas", &a, 1)?;
    crate::util::vector_fn("temporalDeltas", &a[0], &|c: &Column| {
        if !c.ty.is_temporal() {
            return Err(Error::unsupported("temporalDeltas", c.ty));
        }
        check_unit("temporalDeltas", c.ty, unit.as_ref())?;
        let v = as_native::<i64>(c);
        let mut out = Vec::with_capacity(v.len());
        for k in 0..v.len() {
            if k == 0 || v[k].is_null() || v[k - 1].is_null() {
                out.push(i64::NULL);
            } else {
                out.push(diff_one(c.ty, v[k], v[k - 1], unit.as_ref()));
            }
        }
        Ok(diff_col(diff_type(c.ty, unit.as_ref()), out))
    })
}

// ---------------------------------------------------------------- resampling rules

/// A resampling rule: `[k]code`.
enum Rule {
    /// fixed step in nanoseconds
    Fixed(i64),
    /// a period family (`M`, `QS` …), k periods per step
    Date(crate::temporal_period::DateRule, i64),
    /// k trading days of a calendar
    Market(Calendar, i64),
}

fn parse_rule(i: &mut CallCtx, name: &str, s: &str) -> Result<Rule> {
    let digits = s.bytes().take_while(|b| b.is_ascii_digit()).count();
    let k: i64 = if digits == 0 { 1 } else { s[..digits].parse().map_err(|_| Error::arg(format!("Invalid rule '{s}' for [{name}]")))? };
    if k <= 0 {
        return Err(Error::arg(format!("The multiple in rule '{s}' of [{name}] must be positive")));
    }
    let code = &s[digits..];
    // pandas-style aliases of the fixed DURATION units, then the one unit table
    let unit = match code {
        "D" => "d",
        "min" | "T" => "m",
        "S" => "s",
        "L" => "ms",
        "U" => "us",
        "N" => "ns",
        c => c,
    };
    let fixed = fixed_unit(unit);
    if let Some(ns) = fixed {
        return Ok(Rule::Fixed(ns.saturating_mul(k)));
    }
    if let Some((r, _)) = date_rule(code) {
        return Ok(Rule::Date(r, k));
    }
    Ok(Rule::Market(require_calendar(i, code)?, k))
}

/// Bin parameters of a fixed rule on values of type `ty`: step in the type's units.
fn fixed_step(name: &str, ty: DataType, ns: i64) -> Result<i64> {
    let tu = unit_ns(ty).ok_or_else(|| Error::unsupported(name, ty))?;
    if ns % tu != 0 {
        return Err(Error::arg(format!("The rule of [{name}] is finer than the precision of {ty}")));
    }
    Ok(ns / tu)
}

#[derive(Clone, Copy)]
struct Bins {
    origin: i64,
    step: i64,
    closed_right: bool,
    label_right: bool,
}

impl Bins {
    fn index(&self, v: i64) -> i64 {
        let r = v.wrapping_sub(self.origin);
        if self.closed_right { -((-r).div_euclid(self.step)) - 1 } else { r.div_euclid(self.step) }
    }
    fn label(&self, b: i64) -> i64 {
        self.origin.wrapping_add((b + self.label_right as i64).wrapping_mul(self.step))
    }
}

/// Resolve `closed`, `label` and `origin` for a fixed rule over values `vals` of type `ty`.
/// A `closed`/`label` argument: Some(true) for 'right', Some(false) for 'left'.
fn side_arg(name: &str, v: Option<&Value>, what: &str) -> Result<Option<bool>> {
    match v {
        None => Ok(None),
        Some(v) => match str_arg(name, v, what)? {
            "left" => Ok(Some(false)),
            "right" => Ok(Some(true)),
            other => Err(Error::arg(format!("The {what} argument of [{name}] must be 'left' or 'right', not '{other}'"))),
        },
    }
}

fn bins(name: &str, ty: DataType, step: i64, a: &[Value], k: usize, first: i64, last: i64) -> Result<Bins> {
    let closed = side_arg(name, opt(a, k), "closed")?;
    let label = side_arg(name, opt(a, k + 1), "label")?;
    let pd = per_day(ty).unwrap_or(0);
    let day_floor = |v: i64| if pd > 0 { v.div_euclid(pd) * pd } else { 0 };
    let (origin, end_origin) = match opt(a, k + 2) {
        None => (day_floor(first), false),
        Some(Value::Scalar(c)) if c.ty.is_literal() => match c.str_at(0).unwrap_or("") {
            "epoch" => (0, false),
            "start" => (first, false),
            "start_day" => (day_floor(first), false),
            "end" => (last, true),
            "end_day" => (if pd > 0 { -((-last).div_euclid(pd)) * pd } else { 0 }, true),
            other => return Err(Error::arg(format!("Invalid origin '{other}' for [{name}]"))),
        },
        Some(Value::Scalar(c)) if c.ty.is_temporal() => {
            let o = beluga_runtime::kernels::cast::cast_column(c, ty)?;
            (o.i64_at(0).unwrap_or(0), false)
        }
        Some(other) => return Err(Error::arg(format!("Invalid origin for [{name}]: {}", describe(other)))),
    };
    Ok(Bins {
        origin,
        step,
        closed_right: closed.unwrap_or(end_origin),
        label_right: label.unwrap_or(end_origin),
    })
}

/// Day numbers of a temporal column (for date and market rules).
fn dated_days(name: &str, c: &Column) -> Result<Vec<i64>> {
    crate::temporal_core::days_of(name, c)
}

fn first_last(v: &[i64]) -> (i64, i64) {
    let first = v.iter().copied().find(|x| !x.is_null()).unwrap_or(0);
    let last = v.iter().rev().copied().find(|x| !x.is_null()).unwrap_or(first);
    (first, last)
}

/// Bin labels of every element of `c` under `rule` (transFreq).
fn trans_column(name: &str, c: &Column, rule: &Rule, a: &[Value], k: usize) -> Result<Column> {
    match rule {
        Rule::Fixed(ns) => {
            let step = fixed_step(name, c.ty, *ns)?;
            let v = as_native::<i64>(c);
            let (first, last) = first_last(&v);
            let b = bins(name, c.ty, step, a, k, first, last)?;
            let out: Vec<i64> = v.iter().map(|&x| if x.is_null() { x } else { b.label(b.index(x)) }).collect();
            Ok(temporal_col(c.ty, out))
        }
        Rule::Date(r, n) => {
            let d = dated_days(name, c)?;
            let (closed, label) = (side_arg(name, opt(a, k), "closed")?, side_arg(name, opt(a, k + 1), "label")?);
            if closed.is_some() || label.is_some() {
                // Bins run between consecutive anchors of the rule (month ends, week ends,
                // month starts...); end-style rules default to (A[q-1], A[q]] named A[q],
                // start-style ones to [A[q], A[q+1]) named A[q].
                if *n > 1 {
                    return Err(Error::arg(format!("[{name}] closed and label with a multi-period rule are not supported")));
                }
                let (cr, lr) = (closed.unwrap_or(r.ceil), label.unwrap_or(r.ceil));
                let out: Vec<i64> = d
                    .iter()
                    .map(|&x| {
                        if x.is_null() {
                            return x;
                        }
                        let f = (r.index)(x);
                        let on_anchor = (r.date)(f) == x;
                        // q: the bin starting at anchor A[q]
                        let q = match (r.ceil, cr) {
                            (true, true) => f - 1,
                            (true, false) => if on_anchor { f } else { f - 1 },
                            (false, false) => f,
                            (false, true) => if on_anchor { f - 1 } else { f },
                        };
                        (r.date)(if lr { q + 1 } else { q })
                    })
                    .collect();
                return Ok(date_col(&out));
            }
            let (first, _) = first_last(&d);
            let p0 = (r.index)(first);
            Ok(date_col(&d.iter().map(|&x| if x.is_null() { x } else { r.apply(x, p0, *n) }).collect::<Vec<i64>>()))
        }
        Rule::Market(cal, n) => {
            let d = dated_days(name, c)?;
            let (first, _) = first_last(&d);
            let t0 = cal.floor_index(first).unwrap_or(0);
            let out: Vec<i64> = d
                .iter()
                .map(|&x| {
                    if x.is_null() {
                        return x;
                    }
                    match cal.floor_index(x) {
                        Some(t) => cal.date_of_index(t0 + (t - t0).div_euclid(*n) * n).unwrap_or(i64::NULL),
                        None => i64::NULL,
                    }
                })
                .collect();
            Ok(date_col(&out))
        }
    }
}

/// Every bin label from the first to the last of `labels` (the sorted distinct labels
/// `transFreq` gave rows under `rule`): the bins without rows in between included, as
/// `resample` lists them (funcs/r/resample.md: empty months show a null).
pub(crate) fn all_labels(i: &mut CallCtx, name: &str, rule: &str, labels: &Column) -> Result<Column> {
    const MAX: i64 = 50_000_000;
    if labels.len() < 2 {
        return Ok(labels.clone());
    }
    let too_long = || Error::arg(format!("The result of [{name}] is too long"));
    match parse_rule(i, name, rule)? {
        Rule::Fixed(ns) => {
            let step = fixed_step(name, labels.ty, ns)?;
            let v = as_native::<i64>(labels);
            let (first, last) = first_last(&v);
            if (last - first) / step > MAX {
                return Err(too_long());
            }
            Ok(temporal_col(labels.ty, (0..=(last - first) / step).map(|k| first + k * step).collect()))
        }
        Rule::Date(r, n) => {
            let d = dated_days(name, labels)?;
            let (first, last) = first_last(&d);
            let (p0, p1) = ((r.index)(first), (r.index)(last));
            if (p1 - p0) / n > MAX {
                return Err(too_long());
            }
            Ok(date_col(&(0..=(p1 - p0) / n).map(|j| (r.date)(p0 + j * n)).collect::<Vec<i64>>()))
        }
        Rule::Market(cal, n) => {
            let d = dated_days(name, labels)?;
            let (first, last) = first_last(&d);
            let (Some(t0), Some(t1)) = (cal.floor_index(first), cal.floor_index(last)) else { return Ok(labels.clone()) };
            if (t1 - t0) / n > MAX {
                return Err(too_long());
            }
            Ok(date_col(&(0..=(t1 - t0) / n).filter_map(|j| cal.date_of_index(t0 + j * n)).collect::<Vec<i64>>()))
        }
    }
}

fn trans_freq(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let rule = parse_rule(i, "transFreq", &text_arg("transFreq", &a[1], "rule")?)?;
    ops::unary_col(&a[0], &|c: &Column| trans_column("transFreq", c, &rule, &a, 2))
}

/// Labels of every bin between `start` and `end` (both values of type `ty`).
fn seq_labels(name: &str, ty: DataType, start: i64, end: i64, rule: &Rule, a: &[Value], k: usize) -> Result<Column> {
    const MAX: i64 = 50_000_000;
    match rule {
        Rule::Fixed(ns) => {
            let step = fixed_step(name, ty, *ns)?;
            let b = bins(name, ty, step, a, k, start, end)?;
            let (b0, b1) = (b.index(start), b.index(end));
            if b1.checked_sub(b0).is_none_or(|d| d > MAX) {
                return Err(Error::arg(format!("The result of [{name}] is too long")));
            }
            Ok(temporal_col(ty, (b0..=b1).map(|x| b.label(x)).collect()))
        }
        Rule::Date(r, n) => {
            let pd = per_day(ty).ok_or_else(|| Error::unsupported(name, ty))?;
            let (d0, d1) = (start.div_euclid(pd), end.div_euclid(pd));
            let (p0, p1) = ((r.index)(d0), (r.index)(d1));
            if (p1 - p0) / n > MAX {
                return Err(Error::arg(format!("The result of [{name}] is too long")));
            }
            let days: Vec<i64> = (0..=((p1 - p0).max(-1) / n)).map(|j| (r.date)(p0 + j * n)).collect();
            Ok(temporal_col(ty, days.iter().map(|&d| d * pd).collect()))
        }
        Rule::Market(cal, n) => {
            let pd = per_day(ty).ok_or_else(|| Error::unsupported(name, ty))?;
            let (d0, d1) = (start.div_euclid(pd), end.div_euclid(pd));
            if d1 - d0 > MAX {
                return Err(Error::arg(format!("The result of [{name}] is too long")));
            }
            let days: Vec<i64> = cal.between(d0, d1).into_iter().step_by((*n).max(1) as usize).collect();
            Ok(temporal_col(ty, days.iter().map(|&d| d * pd).collect()))
        }
    }
}

fn temporal_seq(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "temporalSeq";
    let rule = parse_rule(i, name, &text_arg(name, &a[2], "rule")?)?;
    let (s, e) = match (&a[0], &a[1]) {
        (Value::Scalar(s), Value::Scalar(e)) if s.ty.is_temporal() => {
            let e = if e.ty == s.ty { e.clone() } else { beluga_runtime::kernels::cast::cast_column(e, s.ty)? };
            (s.clone(), e)
        }
        (x, _) => return Err(Error::arg(format!("The start and end of [{name}] must be temporal scalars, not {}", describe(x)))),
    };
    let (Some(sv), Some(ev)) = (s.i64_at(0), e.i64_at(0)) else {
        return Err(Error::arg(format!("The start and end of [{name}] can't be null")));
    };
    if ev < sv {
        return Err(Error::arg(format!("The end of [{name}] must be greater than the start")));
    }
    Ok(Value::Vector(seq_labels(name, s.ty, sv, ev, &rule, &a, 3)?))
}

/// `asFreq(X, rule)`: X is an indexed series/matrix (a matrix whose row labels are a sorted
/// temporal vector); the result is reindexed on the rule's labels from the first to the
/// last label, taking the value of an exactly matching row and null elsewhere.
fn as_freq(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "asFreq";
    let m = match &a[0] {
        Value::Matrix(m) => m.clone(),
        other => return Err(Error::arg(format!("The first argument of [{name}] must be an indexed series or matrix, not {}", describe(other)))),
    };
    let labels = match m.row_labels.as_deref() {
        Some(Value::Vector(c)) if c.ty.is_temporal() => c.clone(),
        _ => return Err(Error::arg(format!("The index of the argument of [{name}] must be temporal"))),
    };
    let lv = as_native::<i64>(&labels);
    let (first, last) = first_last(&lv);
    let new_index = match &a[1] {
        Value::Vector(c) if c.ty.is_temporal() => {
            if c.ty == labels.ty { c.clone() } else { beluga_runtime::kernels::cast::cast_column(c, labels.ty)? }
        }
        v => {
            let rule = parse_rule(i, name, &text_arg(name, v, "rule")?)?;
            let seq = seq_labels(name, labels.ty, first, last, &rule, &a, 2)?;
            if seq.ty == labels.ty { seq } else { beluga_runtime::kernels::cast::cast_column(&seq, labels.ty)? }
        }
    };
    let nv = as_native::<i64>(&new_index);
    // row of each new label in the (sorted) index
    let rows: Vec<i64> = nv
        .iter()
        .map(|x| {
            let p = lv.partition_point(|y| y < x);
            if p < lv.len() && lv[p] == *x { p as i64 } else { -1 }
        })
        .collect();
    let mut cols = Vec::with_capacity(m.cols);
    for c in 0..m.cols {
        cols.push(m.column(c).take(&rows));
    }
    let refs: Vec<&Column> = cols.iter().collect();
    let data = Column::concat(m.data.ty, &refs);
    Ok(Value::Matrix(Arc::new(Matrix {
        data,
        rows: rows.len(),
        cols: m.cols,
        row_labels: Some(Box::new(Value::Vector(new_index))),
        col_labels: m.col_labels.clone(),
        indexed: m.indexed,
    })))
}

pub const DEFS: &[Builtin] = &[
    fp("asFreq", Kind::System, 2, 5, as_freq, &["X", "rule", "closed", "label", "origin"]),
    fp("asfreq", Kind::System, 2, 5, as_freq, &["X", "rule", "closed", "label", "origin"]),
    fp("datetimeAdd", Kind::Elementwise, 2, 3, temporal_add, &["obj", "duration", "unit"]),
    fp("temporalAdd", Kind::Elementwise, 2, 3, temporal_add, &["obj", "duration", "unit"]),
    fp("temporalDeltas", Kind::VectorToVector, 1, 2, temporal_deltas, &["X", "unit"]),
    fp("temporalDiff", Kind::Elementwise, 2, 3, temporal_diff, &["X", "Y", "unit"]),
    fp("temporalSeq", Kind::System, 3, 6, temporal_seq, &["start", "end", "rule", "closed", "label", "origin"]),
    fp("transFreq", Kind::Elementwise, 2, 5, trans_freq, &["X", "rule", "closed", "label", "origin"]),
];

#[cfg(test)]
mod tests {
    use crate::string::run;

    #[test]
    fn temporal_arith_add() {
        assert_eq!(run("temporalAdd(2017.01.16, 1, \"w\")"), "2017.01.23");
        assert_eq!(run("temporalAdd(2016.12M, 2, \"M\")"), "2017.02M");
        assert_eq!(run("temporalAdd(13:30m, -15, \"m\")"), "13:15m");
        assert_eq!(run("temporalAdd(2012.07.31T13:30:10.008,-1,'M')"), "2012.06.30T13:30:10.008");
        assert_eq!(run("temporalAdd(13:30:10.008007006,100,\"ns\")"), "13:30:10.008007106");
        assert_eq!(run("temporalAdd([12:23:34, 23:34:45], 10m)"), "[12:33:34,23:44:45]");
        assert_eq!(run("temporalAdd(2021.08.06, 4B)"), "2021.08.12");
        assert_eq!(run("temporalAdd(datetime(2020.08.31), -2M)"), "2020.06.30T00:00:00");
        assert_eq!(run("temporalAdd(datetime(2020.02.29), 4y)"), "2024.02.29T00:00:00");
        assert_eq!(
            run("addMarketHoliday(\"DCBA\",2022.01.03 2022.01.05)\ntemporalAdd(2022.01.01,1,\"DCBA\")"),
            "2022.01.04"
        );
        assert_eq!(
            run("addMarketHoliday(\"CFFX\",[2023.01.02])\ntemporalAdd([2023.01.01, 2023.01.02, 2023.01.03, 2023.01.04],2,`CFFX)"),
            "[2023.01.04,2023.01.04,2023.01.05,2023.01.06]"
        );
    }

    #[test]
    fn temporal_arith_diff_seq() {
        assert_eq!(run("temporalDiff([13:30:49,13:30:39], 13:30:00)"), "[49,39]");
        assert_eq!(
            run("temporalDiff([2019.12.31, 2020.01.03, 2020.01.10, 2020.01.15, 2020.01.17], 2019.12.30, \"B\")"),
            "[1,4,9,12,14]"
        );
        assert_eq!(run("temporalDeltas(2020.01.01 2020.01.03 2020.02.01, \"d\")"), "[,2,29]");
        assert_eq!(
            run("temporalSeq(start=2022.01.01 00:01:00, end=2022.01.01 00:08:00, rule=\"3min\")"),
            "[2022.01.01T00:00:00,2022.01.01T00:03:00,2022.01.01T00:06:00]"
        );
        assert_eq!(run("temporalSeq(2022.01.15, 2022.04.02, \"M\")"), "[2022.01.31,2022.02.28,2022.03.31,2022.04.30]");
        assert_eq!(run("transFreq(2020.01.01T00:14:00 2020.01.01T00:16:00, \"15min\")"), "[2020.01.01T00:00:00,2020.01.01T00:15:00]");
        assert_eq!(run("transFreq(2020.01.05 2020.02.11, \"MS\")"), "[2020.01.01,2020.02.01]");
    }
}
