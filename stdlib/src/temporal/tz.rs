//! Builtins: time zones — `convertTZ`, `gmtime`, `localtime`.
//!
//! Zones are read from the system's compiled tz database (TZif files under `$TZDIR` or
//! `/usr/share/zoneinfo`), including the POSIX TZ rule in the file footer for instants
//! after the last listed transition. `UTC`, `GMT` and fixed offsets such as `UTC+8` or
//! `GMT-05:30` need no file. The session's local zone (`gmtime`/`localtime`) is the
//! process's: `$TZ` when set, else `/etc/localtime`.
//! Offsets are computed per element with integer arithmetic on the encodings.

use beluga_runtime::CallCtx;
use ahash::AHashMap;
use beluga_runtime::column::Column;
use beluga_runtime::eval::ops;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::temporal::{civil_from_days, days_from_civil, days_in_month, is_leap};
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::{Arc, Mutex, OnceLock};

use crate::temporal_core::temporal_col;
use crate::util::str_arg;

/// One DST rule date of a POSIX TZ string.
#[derive(Clone, Copy, Debug)]
enum RuleDate {
    /// Mm.w.d: month, week 1-5 (5 = last), weekday 0 = Sunday
    Mwd(u32, u32, u32),
    /// Jn: day 1-365, February 29 never counted
    Julian1(u32),
    /// n: day 0-365, counting February 29
    Julian0(u32),
}

#[derive(Clone, Debug)]
struct PosixTz {
    std_off: i64,
    dst: Option<(i64, RuleDate, i64, RuleDate, i64)>,
}

#[derive(Clone, Debug)]
pub(crate) struct Zone {
    trans: Vec<i64>,
    idx: Vec<u8>,
    offsets: Vec<i64>,
    footer: Option<PosixTz>,
    /// offset before the first transition
    initial: i64,
}

fn parse_posix_offset(s: &[u8], i: &mut usize) -> Option<i64> {
    let mut sign = 1;
    match s.get(*i) {
        Some(b'+') => *i += 1,
        Some(b'-') => {
            sign = -1;
            *i += 1
        }
        _ => {}
    }
    let mut parts = [0i64; 3];
    for (k, p) in parts.iter_mut().enumerate() {
        if k > 0 {
            if s.get(*i) != Some(&b':') {
                break;
            }
            *i += 1;
        }
        let st = *i;
        while s.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
        if st == *i {
            return None;
        }
        *p = std::str::from_utf8(&s[st..*i]).ok()?.parse().ok()?;
    }
    Some(sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]))
}

fn parse_posix_name(s: &[u8], i: &mut usize) -> Option<()> {
    if s.get(*i) == Some(&b'<') {
        while *i < s.len() && s[*i] != b'>' {
            *i += 1;
        }
        *i += 1;
        return Some(());
    }
    let st = *i;
    while s.get(*i).is_some_and(|c| c.is_ascii_alphabetic()) {
        *i += 1;
    }
    (*i - st >= 3).then_some(())
}

fn parse_rule_date(s: &[u8], i: &mut usize) -> Option<(RuleDate, i64)> {
    let num = |i: &mut usize| -> Option<u32> {
        let st = *i;
        while s.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
        std::str::from_utf8(&s[st..*i]).ok()?.parse().ok()
    };
    let d = match s.get(*i)? {
        b'M' => {
            *i += 1;
            let m = num(i)?;
            *i += 1;
            let w = num(i)?;
            *i += 1;
            let d = num(i)?;
            RuleDate::Mwd(m, w, d)
        }
        b'J' => {
            *i += 1;
            RuleDate::Julian1(num(i)?)
        }
        _ => RuleDate::Julian0(num(i)?),
    };
    let t = if s.get(*i) == Some(&b'/') {
        *i += 1;
        parse_posix_offset(s, i)?
    } else {
        7200
    };
    Some((d, t))
}

fn parse_posix(tz: &str) -> Option<PosixTz> {
    let s = tz.as_bytes();
    let mut i = 0;
    parse_posix_name(s, &mut i)?;
    let std_off = -parse_posix_offset(s, &mut i)?;
    if i >= s.len() {
        return Some(PosixTz { std_off, dst: None });
    }
    parse_posix_name(s, &mut i)?;
    let dst_off = if s.get(i).is_some_and(|&c| c != b',') { -parse_posix_offset(s, &mut i)? } else { std_off + 3600 };
    if s.get(i) != Some(&b',') {
        return Some(PosixTz { std_off, dst: None });
    }
    i += 1;
    let (a, ta) = parse_rule_date(s, &mut i)?;
    if s.get(i) != Some(&b',') {
        return None;
    }
    i += 1;
    let (b, tb) = parse_rule_date(s, &mut i)?;
    Some(PosixTz { std_off, dst: Some((dst_off, a, ta, b, tb)) })
}

/// Day number of a rule date in year `y`.
fn rule_day(y: i64, r: RuleDate) -> i64 {
    match r {
        RuleDate::Mwd(m, w, d) => {
            let first = days_from_civil(y, m, 1);
            let dow_first = (first + 4).rem_euclid(7) as u32; // Sunday = 0
            let mut day = 1 + (d + 7 - dow_first) % 7 + 7 * (w.max(1) - 1);
            let dim = days_in_month(y, m);
            while day > dim {
                day -= 7;
            }
            days_from_civil(y, m, day)
        }
        RuleDate::Julian1(n) => {
            let base = days_from_civil(y, 1, 1) + n as i64 - 1;
            if is_leap(y) && n >= 60 { base + 1 } else { base }
        }
        RuleDate::Julian0(n) => days_from_civil(y, 1, 1) + n as i64,
    }
}

impl PosixTz {
    fn offset_at(&self, t: i64) -> i64 {
        let Some((dst_off, a, ta, b, tb)) = self.dst else { return self.std_off };
        let (y, _, _) = civil_from_days((t + self.std_off).div_euclid(86_400));
        let start = rule_day(y, a) * 86_400 + ta - self.std_off;
        let end = rule_day(y, b) * 86_400 + tb - dst_off;
        // northern rules start before they end within the year; southern ones wrap
        let in_dst = if start < end { t >= start && t < end } else { !(t >= end && t < start) };
        if in_dst { dst_off } else { self.std_off }
    }
}

fn read_be(b: &[u8], at: usize, n: usize) -> Option<i64> {
    let s = b.get(at..at + n)?;
    Some(match n {
        4 => i32::from_be_bytes([s[0], s[1], s[2], s[3]]) as i64,
        _ => i64::from_be_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]),
    })
}

/// Parse a TZif file (version 1 data, or the 64-bit block and footer of versions 2+).
fn parse_tzif(b: &[u8]) -> Option<Zone> {
    if b.get(0..4)? != b"TZif" {
        return None;
    }
    let version = *b.get(4)?;
    let counts = |at: usize| -> Option<[usize; 6]> {
        let mut c = [0usize; 6];
        for (k, x) in c.iter_mut().enumerate() {
            *x = read_be(b, at + 20 + 4 * k, 4)? as usize;
        }
        Some(c)
    };
    let c1 = counts(0)?;
    let v1_len = c1[3] * 5 + c1[4] * 6 + c1[5] + c1[2] * 8 + c1[1] + c1[0];
    let (start, c, tsize) = if version >= b'2' {
        let h2 = 44 + v1_len;
        (h2 + 44, counts(h2)?, 8)
    } else {
        (44, c1, 4)
    };
    let [isut, isstd, leap, timecnt, typecnt, charcnt] = c;
    if c.iter().any(|&n| n > b.len()) {
        return None;
    }
    let mut p = start;
    let mut trans = Vec::with_capacity(timecnt);
    for k in 0..timecnt {
        trans.push(read_be(b, p + k * tsize, tsize)?);
    }
    p += timecnt * tsize;
    let idx = b.get(p..p + timecnt)?.to_vec();
    p += timecnt;
    let mut offsets = Vec::with_capacity(typecnt);
    let mut first_std = None;
    for k in 0..typecnt {
        let off = read_be(b, p + 6 * k, 4)?;
        let isdst = *b.get(p + 6 * k + 4)?;
        if isdst == 0 && first_std.is_none() {
            first_std = Some(off);
        }
        offsets.push(off);
    }
    p += typecnt * 6 + charcnt + leap * (tsize + 4) + isstd + isut;
    let footer = if version >= b'2' {
        let rest = b.get(p..).unwrap_or(&[]);
        let text = std::str::from_utf8(rest).ok().map(|s| s.trim_matches('\n'));
        text.filter(|s| !s.is_empty()).and_then(parse_posix)
    } else {
        None
    };
    if idx.iter().any(|&i| i as usize >= offsets.len()) {
        return None;
    }
    let initial = first_std.or_else(|| offsets.first().copied()).unwrap_or(0);
    Some(Zone { trans, idx, offsets, footer, initial })
}

impl Zone {
    fn fixed(off: i64) -> Zone {
        Zone { trans: vec![], idx: vec![], offsets: vec![off], footer: None, initial: off }
    }

    /// UTC offset (seconds east) at UTC instant `t` (seconds).
    fn offset_at(&self, t: i64) -> i64 {
        if self.trans.is_empty() || t >= *self.trans.last().unwrap_or(&i64::MAX) {
            if let Some(f) = &self.footer {
                return f.offset_at(t);
            }
        }
        let k = self.trans.partition_point(|&x| x <= t);
        if k == 0 {
            return self.initial;
        }
        self.offsets[self.idx[k - 1] as usize]
    }

    /// UTC instant of a local wall-clock time (the earlier one in an overlap).
    fn utc_of_local(&self, local: i64) -> i64 {
        let o1 = self.offset_at(local.wrapping_sub(self.offset_at(local)));
        let u = local.wrapping_sub(o1);
        let o2 = self.offset_at(u);
        if o2 == o1 { u } else { local.wrapping_sub(o2.max(o1)) }
    }
}

/// Fixed offsets: `UTC`, `GMT`, `Z`, `UTC+8`, `GMT-05:30`, `+08:00`.
fn fixed_offset(name: &str) -> Option<i64> {
    let up = name.trim().to_ascii_uppercase();
    let rest = up.strip_prefix("UTC").or_else(|| up.strip_prefix("GMT")).unwrap_or(&up);
    if rest.is_empty() || rest == "Z" {
        return Some(0);
    }
    let (sign, body) = match rest.as_bytes().first()? {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        _ => return None,
    };
    let (h, m) = match body.split_once(':') {
        Some((h, m)) => (h.parse::<i64>().ok()?, m.parse::<i64>().ok()?),
        None if body.len() == 4 => (body[..2].parse().ok()?, body[2..].parse().ok()?),
        None => (body.parse().ok()?, 0),
    };
    (h <= 14 && m < 60).then_some(sign * (h * 3600 + m * 60))
}

fn zone_cache() -> &'static Mutex<AHashMap<String, Arc<Zone>>> {
    static C: OnceLock<Mutex<AHashMap<String, Arc<Zone>>>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(AHashMap::new()))
}

fn load_zone_file(path: &std::path::Path) -> Option<Zone> {
    std::fs::read(path).ok().and_then(|b| parse_tzif(&b))
}

/// The zone named `name` (tz database name or fixed offset).
pub(crate) fn zone(name: &str) -> Result<Arc<Zone>> {
    if let Some(off) = fixed_offset(name) {
        return Ok(Arc::new(Zone::fixed(off)));
    }
    if let Ok(c) = zone_cache().lock() {
        if let Some(z) = c.get(name) {
            return Ok(z.clone());
        }
    }
    let bad = || Error::arg(format!("Unknown time zone '{name}'"));
    if name.is_empty() || name.contains("..") || name.starts_with('/') {
        return Err(bad());
    }
    let dir = std::env::var_os("TZDIR").map(std::path::PathBuf::from).unwrap_or_else(|| "/usr/share/zoneinfo".into());
    let z = Arc::new(load_zone_file(&dir.join(name)).ok_or_else(bad)?);
    if let Ok(mut c) = zone_cache().lock() {
        c.insert(name.to_string(), z.clone());
    }
    Ok(z)
}

/// The process's local zone: `$TZ` (a name or `:name`), else `/etc/localtime`, else UTC.
fn local_zone() -> Arc<Zone> {
    if let Ok(tz) = std::env::var("TZ") {
        let name = tz.trim_start_matches(':');
        if let Ok(z) = zone(name) {
            return z;
        }
        if let Some(p) = parse_posix(name) {
            return Arc::new(Zone { trans: vec![], idx: vec![], offsets: vec![p.std_off], initial: p.std_off, footer: Some(p) });
        }
    }
    load_zone_file(std::path::Path::new("/etc/localtime")).map(Arc::new).unwrap_or_else(|| Arc::new(Zone::fixed(0)))
}

/// Units per second of the types a zone conversion accepts.
fn per_sec(name: &str, ty: DataType) -> Result<i64> {
    Ok(match ty {
        DataType::DateTime => 1,
        DataType::Timestamp => 1_000,
        DataType::NanoTimestamp => 1_000_000_000,
        t => return Err(Error::unsupported(name, t)),
    })
}

/// Re-express local times of `from` as local times of `to`.
fn shift(name: &str, v: &Value, from: &Zone, to: &Zone) -> Result<Value> {
    ops::unary_col(v, &|c: &Column| {
        let ps = per_sec(name, c.ty)?;
        let raw = as_native::<i64>(c);
        let out: Vec<i64> = raw
            .iter()
            .map(|&x| {
                if x.is_null() {
                    return x;
                }
                let (secs, frac) = (x.div_euclid(ps), x.rem_euclid(ps));
                let utc = from.utc_of_local(secs);
                utc.wrapping_add(to.offset_at(utc)).wrapping_mul(ps).wrapping_add(frac)
            })
            .collect();
        Ok(temporal_col(c.ty, out))
    })
}

fn convert_tz(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let from = zone(str_arg("convertTZ", &a[1], "srcTZ")?)?;
    let to = zone(str_arg("convertTZ", &a[2], "destTZ")?)?;
    shift("convertTZ", &a[0], &from, &to)
}

fn gmtime(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    shift("gmtime", &a[0], &local_zone(), &Zone::fixed(0))
}

fn localtime(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    shift("localtime", &a[0], &Zone::fixed(0), &local_zone())
}

pub const DEFS: &[Builtin] = &[
    fp("convertTZ", Kind::Elementwise, 3, 3, convert_tz, &["obj", "srcTZ", "destTZ"]),
    f("gmtime", Kind::Elementwise, 1, 1, gmtime),
    f("localtime", Kind::Elementwise, 1, 1, localtime),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::string::run;

    #[test]
    fn temporal_tz_rules() {
        let p = parse_posix("EST5EDT,M3.2.0,M11.1.0").unwrap();
        let z = Zone { trans: vec![], idx: vec![], offsets: vec![-18000], initial: -18000, footer: Some(p) };
        // 2021-07-01 12:00 UTC is EDT, 2021-01-01 is EST
        let jul = days_from_civil(2021, 7, 1) * 86_400 + 12 * 3600;
        let jan = days_from_civil(2021, 1, 1) * 86_400 + 12 * 3600;
        assert_eq!(z.offset_at(jul), -14_400);
        assert_eq!(z.offset_at(jan), -18_000);
        // DST starts 2021-03-14 07:00 UTC
        let start = days_from_civil(2021, 3, 14) * 86_400 + 7 * 3600;
        assert_eq!(z.offset_at(start - 1), -18_000);
        assert_eq!(z.offset_at(start), -14_400);
        assert_eq!(fixed_offset("UTC+8"), Some(28_800));
        assert_eq!(fixed_offset("GMT-05:30"), Some(-19_800));
        assert_eq!(run("convertTZ(2016.04.25T08:25:45, \"UTC\", \"UTC+8\")"), "2016.04.25T16:25:45");
        if std::path::Path::new("/usr/share/zoneinfo/America/New_York").exists() {
            assert_eq!(
                run("convertTZ(2016.04.25T08:25:45.123, \"America/New_York\", \"Asia/Shanghai\")"),
                "2016.04.25T20:25:45.123"
            );
            assert_eq!(run("convertTZ(2016.01.25T08:25:45, \"America/New_York\", \"UTC\")"), "2016.01.25T13:25:45");
            assert_eq!(run("convertTZ(2050.07.01T12:00:00.000, \"UTC\", \"America/New_York\")"), "2050.07.01T08:00:00.000");
        }
    }
}
