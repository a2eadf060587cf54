//! Byte-level text parsing shared by casts, `temporalParse`/`temporalFormat` and CSV import:
//! numbers with DolphinDB's prefix rules (`int("10.9")` ⇒ 10), temporal literals in every
//! accepted spelling, and the `yyyy MM dd HH mm ss SSS nnnnnn` patterns.
//! No allocation per parsed value; nothing here knows about columns.

use crate::error::{Error, Result};
use crate::null::Native;
use crate::temporal::{MS_PER_DAY, NS_PER_DAY, civil_from_days, days_from_civil, days_in_month};
use crate::types::{DataType, Physical};

const NS_PER_SEC: i64 = 1_000_000_000;
const MONTH_NAMES: [&[u8; 3]; 12] =
    [b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV", b"DEC"];

// ---------------------------------------------------------------- numbers

/// Leading integer of `s` (after blanks and an optional sign), stopping at the first
/// non-digit: `"10.9"` ⇒ 10, `"120.9c"` ⇒ 120, `"abc"` ⇒ None. Saturates at the i64 range.
pub fn parse_int_prefix(s: &str) -> Option<i64> {
    let b = s.trim_start().as_bytes();
    let (neg, start) = match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let mut acc: i64 = 0;
    let mut n = 0;
    for &c in &b[start..] {
        if !c.is_ascii_digit() {
            break;
        }
        let d = (c - b'0') as i64;
        acc = if neg { acc.saturating_mul(10).saturating_sub(d) } else { acc.saturating_mul(10).saturating_add(d) };
        n += 1;
    }
    (n > 0).then_some(acc)
}

/// Leading floating-point number of `s` (`"10.9xyz"` ⇒ 10.9, `"1e3"` ⇒ 1000), or
/// `inf`/`infinity`/`nan` (any case, optional sign). None when no number starts `s`.
pub fn parse_f64_prefix(s: &str) -> Option<f64> {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut p = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let int_digits = count_digits(b, p);
    p += int_digits;
    let mut frac_digits = 0;
    if b.get(p) == Some(&b'.') {
        frac_digits = count_digits(b, p + 1);
        if int_digits + frac_digits > 0 {
            p += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        let sign = if b.first() == Some(&b'-') { -1.0 } else { 1.0 };
        let rest = &t[usize::from(matches!(b.first(), Some(b'-' | b'+')))..];
        let word = |w: &str| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w);
        return if word("inf") {
            Some(sign * f64::INFINITY)
        } else if word("nan") {
            Some(f64::NAN)
        } else {
            None
        };
    }
    if matches!(b.get(p), Some(b'e' | b'E')) {
        let q = p + 1 + usize::from(matches!(b.get(p + 1), Some(b'-' | b'+')));
        let k = count_digits(b, q);
        if k > 0 {
            p = q + k;
        }
    }
    t[..p].parse::<f64>().ok()
}

/// `true`/`false` (any case), otherwise a number: nonzero ⇒ true. None when unparsable.
pub fn parse_bool(s: &str) -> Option<bool> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("true") {
        Some(true)
    } else if t.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        parse_f64_prefix(t).filter(|f| !f.is_nan()).map(|f| f != 0.0)
    }
}

fn count_digits(b: &[u8], p: usize) -> usize {
    b.get(p..).map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count())
}

/// Digits starting at `p` (at most `max`): (value, count), None when there are none.
fn digits(b: &[u8], p: usize, max: usize) -> Option<(i64, usize)> {
    let n = count_digits(b, p).min(max);
    if n == 0 {
        return None;
    }
    let v = b[p..p + n].iter().fold(0i64, |a, &c| a.saturating_mul(10).saturating_add((c - b'0') as i64));
    Some((v, n))
}

// ---------------------------------------------------------------- temporal literals

/// Broken-down civil fields of one temporal value.
#[derive(Clone, Copy, Debug)]
struct Fields {
    /// a full date (year, month, day) is present
    has_day: bool,
    /// a year and month are present (true whenever has_day)
    has_month: bool,
    has_time: bool,
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nanos: u32,
}

impl Default for Fields {
    fn default() -> Fields {
        Fields {
            has_day: false,
            has_month: false,
            has_time: false,
            year: 1970,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
            nanos: 0,
        }
    }
}

impl Fields {
    fn valid(&self) -> bool {
        (1..=12).contains(&self.month)
            && self.day >= 1
            && self.day <= days_in_month(self.year, self.month)
            && self.hour < 24
            && self.minute < 60
            && self.second < 60
    }
    fn tod_ns(&self) -> i64 {
        (self.hour as i64 * 3600 + self.minute as i64 * 60 + self.second as i64) * NS_PER_SEC + self.nanos as i64
    }
}

/// `v` if it is a non-null value of `ty`'s physical integer type.
fn fits(ty: DataType, v: i64) -> Option<i64> {
    match ty.physical() {
        Physical::I32 => {
            let x = <i32 as Native>::from_i64(v);
            (!x.is_null() && x as i64 == v).then_some(v)
        }
        _ => (!v.is_null()).then_some(v),
    }
}

/// Encode fields as a value of temporal type `ty` (LANGUAGE.md §2.2). Date-carrying types
/// need a full date (MONTH a year and month); time-of-day types need a time.
fn build(ty: DataType, f: &Fields) -> Option<i64> {
    use DataType::*;
    if !f.valid() {
        return None;
    }
    let dated = || f.has_day.then(|| days_from_civil(f.year, f.month, f.day));
    let v = match ty {
        Month => return f.has_month.then(|| f.year * 12 + f.month as i64 - 1).and_then(|v| fits(ty, v)),
        Date => dated()?,
        DateHour => dated()? * 24 + f.hour as i64,
        DateTime => dated()? * 86_400 + f.tod_ns() / NS_PER_SEC,
        Timestamp => dated()?.checked_mul(MS_PER_DAY)? + f.tod_ns() / 1_000_000,
        NanoTimestamp => dated()?.checked_mul(NS_PER_DAY)?.checked_add(f.tod_ns())?,
        Time | Minute | Second | NanoTime if !f.has_time => return None,
        Time => f.tod_ns() / 1_000_000,
        Minute => f.hour as i64 * 60 + f.minute as i64,
        Second => f.tod_ns() / NS_PER_SEC,
        NanoTime => f.tod_ns(),
        _ => return None,
    };
    fits(ty, v)
}

/// Parse a time of day at `p`: `H[H]:MM[:SS[.f{1,9}]]`, with an optional `m` suffix after
/// minutes or `s` after seconds. `bare_hour` also accepts a lone hour (`2012.06.13T13`).
/// Returns the position after the time.
fn parse_time(b: &[u8], p: usize, f: &mut Fields, bare_hour: bool) -> Option<usize> {
    let (h, k) = digits(b, p, 2)?;
    let mut p = p + k;
    f.hour = h as u32;
    f.has_time = true;
    if b.get(p) != Some(&b':') {
        return bare_hour.then_some(p);
    }
    let (m, k) = digits(b, p + 1, 2)?;
    p += 1 + k;
    f.minute = m as u32;
    match b.get(p) {
        Some(b'm') => return Some(p + 1),
        Some(b':') => {}
        _ => return Some(p),
    }
    let (s, k) = digits(b, p + 1, 2)?;
    p += 1 + k;
    f.second = s as u32;
    match b.get(p) {
        Some(b's') => Some(p + 1),
        Some(b'.') => {
            let (frac, k) = digits(b, p + 1, 9)?;
            if count_digits(b, p + 1) > 9 {
                return None;
            }
            f.nanos = (frac * 10i64.pow(9 - k as u32)) as u32;
            Some(p + 1 + k)
        }
        _ => Some(p),
    }
}

/// Split a temporal literal into fields. Accepted spellings: dates `2012.06.13`,
/// `2012-06-13`, `2012/06/13`, `20120613`; months `2012.06M`, `2012.06`, `2012-06`; times
/// `13:30m`, `13:30`, `9:30:00`, `13:30:10s`, `13:30:10.008` (1–9 fraction digits); and
/// a date joined to a time (or a bare hour) by `T` or one space.
fn parse_literal(b: &[u8]) -> Option<Fields> {
    let mut f = Fields::default();
    let (a, n) = digits(b, 0, 18)?;
    let mut p = n;
    match b.get(p) {
        Some(b':') => {
            let e = parse_time(b, 0, &mut f, false)?;
            return (e == b.len()).then_some(f);
        }
        Some(&sep @ (b'.' | b'-' | b'/')) if n == 4 => {
            f.year = a;
            let (m, k) = digits(b, p + 1, 2)?;
            p += 1 + k;
            f.month = m as u32;
            f.has_month = true;
            match b.get(p) {
                Some(&c) if c == sep => {
                    let (d, k) = digits(b, p + 1, 2)?;
                    p += 1 + k;
                    f.day = d as u32;
                    f.has_day = true;
                }
                Some(b'M') if sep == b'.' => p += 1,
                _ => {}
            }
        }
        _ if n == 8 => {
            f.year = a / 10_000;
            f.month = (a / 100 % 100) as u32;
            f.day = (a % 100) as u32;
            f.has_month = true;
            f.has_day = true;
        }
        _ => return None,
    }
    if p == b.len() {
        return Some(f);
    }
    if !f.has_day || !matches!(b[p], b'T' | b' ') {
        return None;
    }
    let e = parse_time(b, p + 1, &mut f, true)?;
    (e == b.len()).then_some(f)
}

/// Parse text as a value of temporal type `ty` (its count of units since the epoch or
/// midnight). Any accepted literal spelling is converted to `ty`: `date("2012.06.13T13:30:10")`
/// keeps the date, `second(...)` the time of day. Invalid text or fields ⇒ None.
pub fn parse_temporal(ty: DataType, s: &str) -> Option<i64> {
    let f = parse_literal(s.trim().as_bytes())?;
    build(ty, &f)
}

// ---------------------------------------------------------------- temporalParse / temporalFormat

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Year,
    Month,
    MonthName,
    Day,
    Hour,
    Hour12,
    Minute,
    Second,
    AmPm,
    /// `SSS` (milliseconds) or `nnnnnn`/`nnnnnnnnn`: fraction digits of the second
    Frac,
}

#[derive(Clone, Debug)]
enum Tok {
    Lit(String),
    F(Field, usize),
}

/// A compiled `temporalParse`/`temporalFormat` pattern (`yyyy.MM.dd HH:mm:ss.SSS` …). Every
/// character other than `y M d H h m s a S n` is a separator that must match exactly.
#[derive(Clone, Debug)]
pub struct TemporalPattern {
    toks: Vec<Tok>,
    ty: DataType,
}

impl TemporalPattern {
    /// Compile `fmt`. `strict` (temporalParse) requires `SSS` and six or nine `n`.
    pub fn new(fmt: &str, strict: bool) -> Result<TemporalPattern> {
        let bad = |why: &str| Error::arg(format!("Invalid temporal format: '{fmt}'. {why}"));
        let cs: Vec<char> = fmt.chars().collect();
        let mut toks = Vec::new();
        let (mut has_date, mut has_day, mut has_month, mut has_time, mut has_min, mut has_sec) =
            (false, false, false, false, false, false);
        let mut frac: Option<char> = None;
        let mut i = 0;
        while i < cs.len() {
            let c = cs[i];
            let run = cs[i..].iter().take_while(|&&x| x == c).count();
            let field = match c {
                'y' => Field::Year,
                'M' if run >= 3 => Field::MonthName,
                'M' => Field::Month,
                'd' => Field::Day,
                'H' => Field::Hour,
                'h' => Field::Hour12,
                'm' => Field::Minute,
                's' => Field::Second,
                'a' => Field::AmPm,
                'S' | 'n' => Field::Frac,
                _ => {
                    match toks.last_mut() {
                        Some(Tok::Lit(l)) => l.push(c),
                        _ => toks.push(Tok::Lit(c.to_string())),
                    }
                    i += 1;
                    continue;
                }
            };
            if strict && c == 'S' && run != 3 {
                return Err(bad("Millisecond (S) must have three digits."));
            }
            if strict && c == 'n' && run != 6 && run != 9 {
                return Err(bad("Nanosecond (n) must have six or nine digits."));
            }
            match field {
                Field::Year => has_date = true,
                Field::Month | Field::MonthName => (has_date, has_month) = (true, true),
                Field::Day => (has_date, has_day) = (true, true),
                Field::Hour | Field::Hour12 => has_time = true,
                Field::Minute => (has_time, has_min) = (true, true),
                Field::Second => (has_time, has_sec) = (true, true),
                Field::Frac => (has_time, frac) = (true, Some(c)),
                Field::AmPm => {}
            }
            toks.push(Tok::F(field, run));
            i += run;
        }
        use DataType::*;
        let ty = match (has_date, has_time, frac) {
            (_, false, None) if has_month && !has_day => Month,
            (_, false, None) => Date,
            (false, _, Some('n')) => NanoTime,
            (false, _, Some(_)) => Time,
            (false, _, None) if has_sec => Second,
            (false, _, None) => Minute,
            (true, _, Some('n')) => NanoTimestamp,
            (true, _, Some(_)) => Timestamp,
            (true, _, None) if has_min || has_sec => DateTime,
            (true, _, None) => DateHour,
        };
        Ok(TemporalPattern { toks, ty })
    }

    /// The temporal type `parse` produces.
    pub fn result_type(&self) -> DataType {
        self.ty
    }

    /// Parse `s` against the pattern. A field followed directly by another field reads
    /// exactly as many digits as its letters; otherwise it reads the whole digit run
    /// (`"2-19-6"` with `H-m-s`). A 1–2 digit year is 2000–2039 / 1940–1999. Fractions
    /// need exactly 3, 6 or 9 digits. Mismatch or invalid fields ⇒ None.
    pub fn parse(&self, s: &str) -> Option<i64> {
        let b = s.trim().as_bytes();
        let mut f = Fields::default();
        let mut p = 0;
        let (mut h12, mut pm) = (None, None);
        for (i, tok) in self.toks.iter().enumerate() {
            let (field, w) = match tok {
                Tok::Lit(l) => {
                    if !b[p..].starts_with(l.as_bytes()) {
                        return None;
                    }
                    p += l.len();
                    continue;
                }
                Tok::F(field, w) => (*field, *w),
            };
            match field {
                Field::MonthName => {
                    let word = b.get(p..p + 3)?;
                    let m = MONTH_NAMES.iter().position(|n| word.eq_ignore_ascii_case(&n[..]))?;
                    f.month = m as u32 + 1;
                    p += 3;
                }
                Field::AmPm => {
                    let word = b.get(p..p + 2)?;
                    pm = Some(if word.eq_ignore_ascii_case(b"PM") {
                        true
                    } else if word.eq_ignore_ascii_case(b"AM") {
                        false
                    } else {
                        return None;
                    });
                    p += 2;
                }
                _ => {
                    let fixed = matches!(self.toks.get(i + 1), Some(Tok::F(..)));
                    let (v, k) = digits(b, p, if fixed { w } else { 18 })?;
                    if (fixed || field == Field::Frac) && k != w {
                        return None;
                    }
                    p += k;
                    let v32 = u32::try_from(v).ok()?;
                    match field {
                        Field::Year if k <= 2 => f.year = if v < 40 { 2000 + v } else { 1900 + v },
                        Field::Year => f.year = v,
                        Field::Month => f.month = v32,
                        Field::Day => f.day = v32,
                        Field::Hour => f.hour = v32,
                        Field::Hour12 => h12 = Some(v32),
                        Field::Minute => f.minute = v32,
                        Field::Second => f.second = v32,
                        _ => f.nanos = (v * 10i64.pow(9u32.saturating_sub(w as u32))) as u32,
                    }
                }
            }
        }
        if p != b.len() {
            return None;
        }
        if let Some(h) = h12 {
            if h > 12 {
                return None;
            }
            f.hour = h % 12 + if pm == Some(true) { 12 } else { 0 };
        } else if pm == Some(true) && f.hour < 12 {
            f.hour += 12;
        }
        f.has_day = true;
        f.has_month = true;
        f.has_time = true;
        build(self.ty, &f)
    }

    /// Format a non-null value of temporal type `ty`. Missing parts print as 1970.01.01 /
    /// midnight. `y` is the full year, `yy` two digits, `yyyy` four; one letter is unpadded,
    /// two are zero-padded; `MMM` is `JAN`…; `hh` is 0–11 with `aa` AM/PM; `S…`/`n…` print
    /// that many leading digits of the nanosecond fraction.
    pub fn format(&self, ty: DataType, v: i64) -> String {
        let Some(f) = decompose(ty, v) else { return String::new() };
        let mut out = String::with_capacity(24);
        let frac = format!("{:09}", f.nanos);
        for tok in &self.toks {
            let (field, w) = match tok {
                Tok::Lit(l) => {
                    out.push_str(l);
                    continue;
                }
                Tok::F(field, w) => (*field, *w),
            };
            let num = |out: &mut String, x: i64| {
                if w >= 2 {
                    out.push_str(&format!("{:02}", x));
                } else {
                    out.push_str(&x.to_string());
                }
            };
            match field {
                Field::Year if w == 2 => out.push_str(&format!("{:02}", f.year.rem_euclid(100))),
                Field::Year if w == 1 => out.push_str(&f.year.to_string()),
                Field::Year => out.push_str(&format!("{:04}", f.year)),
                Field::Month => num(&mut out, f.month as i64),
                Field::MonthName => out.push_str(std::str::from_utf8(MONTH_NAMES[f.month as usize - 1]).unwrap_or("")),
                Field::Day => num(&mut out, f.day as i64),
                Field::Hour => num(&mut out, f.hour as i64),
                Field::Hour12 => num(&mut out, (f.hour % 12) as i64),
                Field::Minute => num(&mut out, f.minute as i64),
                Field::Second => num(&mut out, f.second as i64),
                Field::AmPm => out.push_str(if f.hour >= 12 { "PM" } else { "AM" }),
                Field::Frac => out.push_str(&frac[..w.min(9)]),
            }
        }
        out
    }
}

/// Civil fields of a non-null temporal value.
fn decompose(ty: DataType, v: i64) -> Option<Fields> {
    use DataType::*;
    let (days, tod) = match ty {
        Month => {
            let mut f = Fields { year: v.div_euclid(12), month: v.rem_euclid(12) as u32 + 1, ..Fields::default() };
            f.has_month = true;
            return Some(f);
        }
        Date => (v, 0),
        DateHour => (v.div_euclid(24), v.rem_euclid(24) * 3600 * NS_PER_SEC),
        DateTime => (v.div_euclid(86_400), v.rem_euclid(86_400) * NS_PER_SEC),
        Timestamp => (v.div_euclid(MS_PER_DAY), v.rem_euclid(MS_PER_DAY) * 1_000_000),
        NanoTimestamp => (v.div_euclid(NS_PER_DAY), v.rem_euclid(NS_PER_DAY)),
        Time => (0, (v * 1_000_000).rem_euclid(NS_PER_DAY)),
        Minute => (0, (v * 60 * NS_PER_SEC).rem_euclid(NS_PER_DAY)),
        Second => (0, (v * NS_PER_SEC).rem_euclid(NS_PER_DAY)),
        NanoTime => (0, v.rem_euclid(NS_PER_DAY)),
        _ => return None,
    };
    let (year, month, day) = civil_from_days(days);
    let secs = tod / NS_PER_SEC;
    Some(Fields {
        has_day: true,
        has_month: true,
        has_time: true,
        year,
        month,
        day,
        hour: (secs / 3600) as u32,
        minute: (secs / 60 % 60) as u32,
        second: (secs % 60) as u32,
        nanos: (tod % NS_PER_SEC) as u32,
    })
}

/// `temporalParse(s, fmt)` for one string: the result type implied by `fmt` and the value
/// (None when `s` does not match). Err when `fmt` itself is invalid (`H:m:s.S`).
pub fn parse_temporal_format(s: &str, fmt: &str) -> Result<(DataType, Option<i64>)> {
    let pat = TemporalPattern::new(fmt, true)?;
    Ok((pat.ty, pat.parse(s)))
}

/// `temporalFormat(v, fmt)` for one non-null value of temporal type `ty`
/// (a null sentinel or a non-temporal `ty` gives the empty string).
pub fn format_temporal_pattern(ty: DataType, v: i64, fmt: &str) -> String {
    let null = if ty.physical() == Physical::I32 { <i32 as Native>::NULL as i64 } else { <i64 as Native>::NULL };
    match TemporalPattern::new(fmt, false) {
        Ok(p) if v != null => p.format(ty, v),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temporal::format_temporal;
    use DataType::*;

    fn show(ty: DataType, s: &str) -> Option<std::string::String> {
        parse_temporal(ty, s).map(|v| format_temporal(ty, v))
    }

    #[test]
    fn cast_parse_numbers() {
        assert_eq!(parse_int_prefix("10.9"), Some(10));
        assert_eq!(parse_int_prefix(" -12x"), Some(-12));
        assert_eq!(parse_int_prefix("abc"), None);
        assert_eq!(parse_int_prefix(""), None);
        assert_eq!(parse_int_prefix("99999999999999999999"), Some(i64::MAX));
        assert_eq!(parse_f64_prefix("10.9"), Some(10.9));
        assert_eq!(parse_f64_prefix("1e3x"), Some(1000.0));
        assert_eq!(parse_f64_prefix("-.5"), Some(-0.5));
        assert_eq!(parse_f64_prefix("2e"), Some(2.0));
        assert_eq!(parse_f64_prefix("-inf"), Some(f64::NEG_INFINITY));
        assert!(parse_f64_prefix("nan").unwrap().is_nan());
        assert_eq!(parse_f64_prefix("."), None);
        assert_eq!(parse_bool("TRUE"), Some(true));
        assert_eq!(parse_bool("false"), Some(false));
        assert_eq!(parse_bool("0"), Some(false));
        assert_eq!(parse_bool("2.5"), Some(true));
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn cast_parse_temporal_literals() {
        for s in ["2012.06.13", "2012-06-13", "2012/06/13", "20120613", " 2012.06.13 "] {
            assert_eq!(show(Date, s).as_deref(), Some("2012.06.13"), "{s}");
        }
        assert_eq!(show(Month, "2012.06M").as_deref(), Some("2012.06M"));
        assert_eq!(show(Month, "2012.12").as_deref(), Some("2012.12M"));
        assert_eq!(show(Month, "2012-06-13").as_deref(), Some("2012.06M"));
        assert_eq!(show(Second, "13:30:10").as_deref(), Some("13:30:10"));
        assert_eq!(show(Second, "9:30:00").as_deref(), Some("09:30:00"));
        assert_eq!(show(Second, "13:30:10s").as_deref(), Some("13:30:10"));
        assert_eq!(show(Time, "13:30:10.008").as_deref(), Some("13:30:10.008"));
        assert_eq!(show(Time, "13:30:10.5").as_deref(), Some("13:30:10.500"));
        assert_eq!(show(Minute, "13:30m").as_deref(), Some("13:30m"));
        assert_eq!(show(Minute, "13:30").as_deref(), Some("13:30m"));
        assert_eq!(show(NanoTime, "13:30:10.008007006").as_deref(), Some("13:30:10.008007006"));
        assert_eq!(show(DateTime, "2012.06.13T13:30:10").as_deref(), Some("2012.06.13T13:30:10"));
        assert_eq!(show(DateTime, "2012.06.13 13:30:10").as_deref(), Some("2012.06.13T13:30:10"));
        assert_eq!(show(DateTime, "2012.06.13").as_deref(), Some("2012.06.13T00:00:00"));
        assert_eq!(show(Timestamp, "2012.06.13T13:30:10.008").as_deref(), Some("2012.06.13T13:30:10.008"));
        assert_eq!(
            show(NanoTimestamp, "2012.12.03 13:30:10.008007006").as_deref(),
            Some("2012.12.03T13:30:10.008007006")
        );
        assert_eq!(show(DateHour, "2012.06.13T13").as_deref(), Some("2012.06.13T13"));
        assert_eq!(show(Date, "2012.06.13T13:30:10").as_deref(), Some("2012.06.13"));
        assert_eq!(show(Second, "2012.06.13T13:30:10").as_deref(), Some("13:30:10"));
        // invalid text, fields, or missing parts
        for (ty, s) in [
            (Date, ""),
            (Date, "2012.13.01"),
            (Date, "2013.02.29"),
            (Date, "2012.06"),
            (Date, "abc"),
            (Date, "2012.06.13x"),
            (Date, "2012.06-13"),
            (Second, "25:00:00"),
            (Second, "13:60:00"),
            (Second, "2012.06.13"),
            (DateTime, "13:30:10"),
            (Time, "13:30:10.0000000001"),
            (DateTime, "2040.01.01T00:00:00"),
        ] {
            assert_eq!(parse_temporal(ty, s), None, "{ty} {s}");
        }
        assert_eq!(show(Date, "2000.02.29").as_deref(), Some("2000.02.29"));
    }

    fn tp(s: &str, fmt: &str) -> Option<std::string::String> {
        let (ty, v) = parse_temporal_format(s, fmt).unwrap();
        v.map(|v| format_temporal(ty, v))
    }

    #[test]
    fn cast_temporal_parse_patterns() {
        assert_eq!(tp("14-02-2018", "dd-MM-yyyy").as_deref(), Some("2018.02.14"));
        assert_eq!(tp("14-02-2018", "dd/MM/yyyy"), None);
        assert_eq!(tp("14//02//2018", "dd//MM//yyyy").as_deref(), Some("2018.02.14"));
        assert_eq!(tp("14//02//2018", "dd/MM/yyyy"), None);
        assert_eq!(tp("14-02-18", "d-M-y").as_deref(), Some("2018.02.14"));
        assert_eq!(tp("2-4-18", "d-M-yy").as_deref(), Some("2018.04.02"));
        assert_eq!(tp("2018/2/6 02:33:01 PM", "y/M/d h:m:s a").as_deref(), Some("2018.02.06T14:33:01"));
        assert_eq!(tp("02-FEB-2018", "d-MMM-y").as_deref(), Some("2018.02.02"));
        assert_eq!(tp("02-feb-2018", "d-MMM-y").as_deref(), Some("2018.02.02"));
        assert_eq!(tp("02-FEB-2018", "d-M-y"), None);
        assert_eq!(tp("13:30:10.001", "H:m:s.SSS").as_deref(), Some("13:30:10.001"));
        assert_eq!(tp("13:30:10.008001", "H:m:s.nnnnnn").as_deref(), Some("13:30:10.008001000"));
        assert_eq!(tp("2018/2/6 13:30:10.001", "y/M/d H:m:s.SSS").as_deref(), Some("2018.02.06T13:30:10.001"));
        assert_eq!(tp("2018/2/6 13:30:10.01", "y/M/d H:m:s.SSS"), None);
        assert_eq!(
            tp("2018/2/6 13:30:10.000001", "y/M/d H:m:s.nnnnnn").as_deref(),
            Some("2018.02.06T13:30:10.000001000")
        );
        assert_eq!(tp("2018/2/6 13:30:10.0000010", "y/M/d H:m:s.nnnnnn"), None);
        assert_eq!(tp("2-19-6", "H-m-s").as_deref(), Some("02:19:06"));
        assert_eq!(tp("002-019-006", "H-m-s").as_deref(), Some("02:19:06"));
        assert_eq!(tp("20180214", "yyyyMMdd").as_deref(), Some("2018.02.14"));
        assert_eq!(tp("122506", "MMddyy").as_deref(), Some("2006.12.25"));
        assert_eq!(tp("155950", "HHmmss").as_deref(), Some("15:59:50"));
        assert_eq!(tp("035901PM", "hhmmssaa").as_deref(), Some("15:59:01"));
        assert_eq!(tp("12:00:00 AM", "hh:mm:ss aa").as_deref(), Some("00:00:00"));
        assert_eq!(
            tp("02062018155956001000001", "MMddyyyyHHmmssnnnnnnnnn").as_deref(),
            Some("2018.02.06T15:59:56.001000001")
        );
        assert_eq!(tp("2018.13.01", "yyyy.MM.dd"), None);
        assert_eq!(tp("", "yyyy.MM.dd"), None);
        assert_eq!(parse_temporal_format("x", "yyyy.MM").unwrap().0, Month);
        assert_eq!(parse_temporal_format("x", "HH:mm").unwrap().0, Minute);
        assert_eq!(parse_temporal_format("x", "yyyy.MM.dd HH").unwrap().0, DateHour);
        let e = parse_temporal_format("13:30:10.001", "H:m:s.S").unwrap_err();
        assert!(e.message.contains("Millisecond (S) must have three digits"), "{}", e.message);
        assert!(parse_temporal_format("13:30:10.008001", "H:m:s.n").is_err());
    }

    #[test]
    fn cast_temporal_format_patterns() {
        let d = parse_temporal(Date, "2018.02.14").unwrap();
        assert_eq!(format_temporal_pattern(Date, d, "dd-MM-yyyy"), "14-02-2018");
        assert_eq!(format_temporal_pattern(Date, d, "dd-MMM-yy"), "14-FEB-18");
        let s = parse_temporal(Second, "02:19:06").unwrap();
        assert_eq!(format_temporal_pattern(Second, s, "HH.mm.ss"), "02.19.06");
        let t = parse_temporal(Timestamp, "2018.02.06T13:30:10.001").unwrap();
        assert_eq!(format_temporal_pattern(Timestamp, t, "y-M-d-H-m-s-SSS"), "2018-2-6-13-30-10-001");
        let s = parse_temporal(Second, "14:19:06").unwrap();
        assert_eq!(format_temporal_pattern(Second, s, "hhmmssaa"), "021906PM");
        let n = parse_temporal(NanoTimestamp, "2018.02.06T13:30:10.001002003").unwrap();
        assert_eq!(
            format_temporal_pattern(NanoTimestamp, n, "yyyy.MM.dd nnnnnnnnn|nnnnnn"),
            "2018.02.06 001002003|001002"
        );
        let m = parse_temporal(Month, "2016.02M").unwrap();
        assert_eq!(format_temporal_pattern(Month, m, "yyyy/MM/dd"), "2016/02/01");
        assert_eq!(format_temporal_pattern(Date, <i32 as Native>::NULL as i64, "yyyy"), "");
        assert_eq!(format_temporal_pattern(Timestamp, i64::NULL, "yyyy"), "");
    }
}
