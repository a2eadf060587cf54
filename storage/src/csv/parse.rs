//! Parsing records straight into typed column builders (no `String` per field), and
//! merging the columns of chunks parsed in parallel.

use super::lexer::{blank_line, field_bytes, plain_rows, record, Dialect, Field, Rec};
use beluga_runtime::column::{ColData, Column, StrCol, SymCol, SymbolDict};
use beluga_runtime::kernels::parse::{parse_bool, parse_f64_prefix, parse_int_prefix, parse_temporal, TemporalPattern};
use beluga_runtime::null::Native;
use beluga_runtime::types::Physical;
use beluga_runtime::DataType;
use std::sync::Arc;

/// A column to load: which field of the record, its name, type and optional temporal format.
#[derive(Clone)]
pub struct ColSpec {
    pub field: usize,
    pub name: String,
    pub ty: DataType,
    pub fmt: Option<Arc<TemporalPattern>>,
}

/// A parse failure inside a chunk: record index within the chunk, column, message.
#[derive(Debug)]
pub struct ParseErr {
    pub rec: usize,
    pub col: Option<usize>,
    pub msg: String,
}

enum Builder {
    /// BOOL/CHAR, integer, temporal and floating columns: the column's own storage
    /// (`ColData::I8` .. `ColData::F64`), filled in place.
    Num(ColData),
    Sym { codes: Vec<u32>, index: SymIndex },
    Str(StrCol),
}

/// The first 16 bytes of a field as two little-endian words, bytes past its end zero.
#[inline]
fn words_of(b: &[u8]) -> [u64; 2] {
    let mut t = [0u8; 16];
    let k = b.len().min(16);
    t[..k].copy_from_slice(&b[..k]);
    [u64::from_le_bytes(t[..8].try_into().unwrap_or_default()), u64::from_le_bytes(t[8..].try_into().unwrap_or_default())]
}

/// `words_of(&buf[s..e])`, read as two unaligned loads when 16 bytes follow `s` in `buf`.
#[inline]
fn words_at(buf: &[u8], s: usize, e: usize) -> [u64; 2] {
    let Some(w) = buf.get(s..s + 16) else { return words_of(&buf[s..e]) };
    let lo = u64::from_le_bytes(w[..8].try_into().unwrap_or_default());
    let hi = u64::from_le_bytes(w[8..].try_into().unwrap_or_default());
    let len = e - s;
    let keep = |n: usize| if n >= 8 { !0u64 } else { (1u64 << (8 * n)) - 1 };
    [lo & keep(len), if len <= 8 { 0 } else { hi & keep(len - 8) }]
}

#[inline]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

/// Hash of a field from its first two words (`words_of`), its length and, past 16
/// bytes, the rest of its bytes.
#[inline]
fn sym_hash(w: [u64; 2], b: &[u8]) -> u64 {
    const K: [u64; 3] = [0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344, 0xA409_3822_299F_31D0];
    let mut h = fold_mul(w[0] ^ K[0], w[1] ^ K[1] ^ b.len() as u64);
    if b.len() > 16 {
        for c in b[16..].chunks(8) {
            let mut t = [0u8; 8];
            t[..c.len()].copy_from_slice(c);
            h = fold_mul(h ^ u64::from_le_bytes(t), K[2]);
        }
    }
    fold_mul(h, K[2])
}

/// The distinct texts of a SYMBOL column of one parsed piece and their codes (code 0 is
/// the empty text, never looked up): an open-addressing table of (hash tag, code) slots.
/// A field's bytes are hashed once; a hit compares the first 16 bytes as two words (the
/// whole text for short ones, which symbols mostly are) instead of a `memcmp` call, so a
/// column whose value changes on every row (`device_id`) costs one hash and one probe.
struct SymIndex {
    /// (hash >> 32) << 32 | code; 0 = empty slot
    slots: Vec<u64>,
    /// per code: its first words and its length
    keys: Vec<([u64; 2], usize)>,
    names: Vec<Vec<u8>>,
    /// the previous field's words, length and code (sorted files repeat a symbol)
    last: ([u64; 2], usize, u32),
}

impl SymIndex {
    fn new() -> SymIndex {
        SymIndex { slots: vec![0; 1024], keys: vec![([0, 0], 0)], names: vec![Vec::new()], last: ([0, 0], 0, 0) }
    }

    /// The code of `b` (not empty), whose first words are `w`; Err(()) for a new text
    /// that is not valid UTF-8.
    #[inline(always)]
    fn code(&mut self, b: &[u8], w: [u64; 2]) -> Result<u32, ()> {
        if b.len() <= 16 && w == self.last.0 && b.len() == self.last.1 {
            return Ok(self.last.2);
        }
        let h = sym_hash(w, b);
        let tag = h & !0xFFFF_FFFF;
        let mask = self.slots.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                break;
            }
            if s & !0xFFFF_FFFF == tag {
                let c = s as u32;
                let k = c as usize;
                if self.keys[k] == (w, b.len()) && (b.len() <= 16 || self.names[k][16..] == b[16..]) {
                    self.last = (w, b.len(), c);
                    return Ok(c);
                }
            }
            i = (i + 1) & mask;
        }
        std::str::from_utf8(b).map_err(|_| ())?;
        let c = self.names.len() as u32;
        self.names.push(b.to_vec());
        self.keys.push((w, b.len()));
        self.slots[i] = tag | c as u64;
        if self.names.len() * 2 > self.slots.len() {
            self.grow();
        }
        self.last = (w, b.len(), c);
        Ok(c)
    }

    fn grow(&mut self) {
        let mut slots = vec![0u64; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for (c, (n, (w, _))) in self.names.iter().zip(&self.keys).enumerate().skip(1) {
            let h = sym_hash(*w, n);
            let mut i = (h as usize) & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = (h & !0xFFFF_FFFF) | c as u64;
        }
        self.slots = slots;
    }
}

fn trim(b: &[u8]) -> &[u8] {
    let s = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    let e = b.iter().rposition(|c| !c.is_ascii_whitespace()).map(|k| k + 1).unwrap_or(s);
    &b[s..e.max(s)]
}

/// `[-]digits` (at most 18): one pass, no trimming; `None` for anything else.
#[inline]
fn int_plain(b: &[u8]) -> Option<i64> {
    let (neg, d) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    if d.is_empty() || d.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in d {
        let x = c.wrapping_sub(b'0');
        if x >= 10 {
            return None;
        }
        v = v * 10 + x as i64;
    }
    Some(if neg { -v } else { v })
}

/// Integer text: plain digits fast, otherwise DolphinDB's prefix rule (`10.9` ⇒ 10).
#[inline]
pub fn int_field(b: &[u8]) -> Option<i64> {
    if let Some(v) = int_plain(b) {
        return Some(v);
    }
    let b = trim(b);
    if b.is_empty() {
        return None;
    }
    let (neg, digits) = match b[0] {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if !digits.is_empty() && digits.len() <= 18 && digits.iter().all(|c| c.is_ascii_digit()) {
        let mut v: i64 = 0;
        for &c in digits {
            v = v * 10 + (c - b'0') as i64;
        }
        return Some(if neg { -v } else { v });
    }
    std::str::from_utf8(b).ok().and_then(parse_int_prefix)
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `[-]digits[.digits]` with at most 15 digits: the integer of the digits divided by a
/// power of ten is exact in both operands, so one division gives the correctly rounded
/// value (Clinger's fast path, the same result as `str::parse`).
#[inline]
fn simple_decimal(b: &[u8]) -> Option<f64> {
    let (neg, d) = match b.first()? {
        b'-' => (true, &b[1..]),
        _ => (false, b),
    };
    if d.is_empty() || d.len() > 16 {
        return None;
    }
    let mut m: u64 = 0;
    let mut ndig = 0;
    let mut frac: Option<usize> = None;
    for (k, &c) in d.iter().enumerate() {
        let x = c.wrapping_sub(b'0');
        if x < 10 {
            m = m * 10 + x as u64;
            ndig += 1;
        } else if c == b'.' && frac.is_none() {
            frac = Some(k);
        } else {
            return None;
        }
    }
    if ndig == 0 || ndig > 15 {
        return None;
    }
    let scale = frac.map_or(0, |k| d.len() - k - 1);
    let v = m as f64 / POW10[scale];
    Some(if neg { -v } else { v })
}

#[inline]
pub fn float_field(b: &[u8]) -> Option<f64> {
    if let Some(v) = simple_decimal(b) {
        return Some(v);
    }
    let b = trim(b);
    if b.is_empty() {
        return None;
    }
    if let Some(v) = simple_decimal(b) {
        return Some(v);
    }
    let s = std::str::from_utf8(b).ok()?;
    s.parse::<f64>().ok().or_else(|| parse_f64_prefix(s))
}

/// Fields that did not hold what their column's type expects, counted per column of a
/// chunk: the import keeps DolphinDB's lenient reading (an integer column takes the
/// integer prefix of `1.7` or `1e3`, text that is no number becomes NULL, as does a number
/// out of the column's range) and reports the counts after the import instead of silently.
/// Each count carries the chunk-relative record of its first occurrence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColNote {
    /// read by the prefix rule (`1.7`, `1e3`, `0x10` in an integer column; `12abc` in a float one)
    pub converted: (u64, usize),
    /// not empty, yet stored as NULL (no number, out of range)
    pub nulled: (u64, usize),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    pub cols: Vec<ColNote>,
    /// records with fewer / more fields than the file's header, with the first of each
    pub short: (u64, usize),
    pub long: (u64, usize),
}

#[inline]
fn note(slot: &mut (u64, usize), r: usize) {
    if slot.0 == 0 {
        slot.1 = r;
    }
    slot.0 += 1;
}

impl Notes {
    /// Add the notes of a later chunk whose first record is `offset` records after this one's.
    pub fn absorb(&mut self, o: &Notes, offset: usize) {
        let add = |a: &mut (u64, usize), b: (u64, usize)| {
            if b.0 > 0 {
                if a.0 == 0 {
                    a.1 = b.1 + offset;
                }
                a.0 += b.0;
            }
        };
        if self.cols.len() < o.cols.len() {
            self.cols.resize(o.cols.len(), ColNote::default());
        }
        for (a, b) in self.cols.iter_mut().zip(&o.cols) {
            add(&mut a.converted, b.converted);
            add(&mut a.nulled, b.nulled);
        }
        add(&mut self.short, o.short);
        add(&mut self.long, o.long);
    }

    /// One line per kind of issue, records numbered from line `first_line`; empty when clean.
    pub fn report(&self, file: &str, names: &[String], first_line: usize) -> Vec<String> {
        let mut out = Vec::new();
        let at = |n: (u64, usize)| first_line + n.1;
        let s = |n: u64| if n == 1 { "" } else { "s" };
        for (k, c) in self.cols.iter().enumerate() {
            let name = names.get(k).map(|s| s.as_str()).unwrap_or("?");
            if c.converted.0 > 0 {
                let n = c.converted.0;
                out.push(format!("{file}: column {name}: {n} field{} read by their numeric prefix (first at line {})", s(n), at(c.converted)));
            }
            if c.nulled.0 > 0 {
                let n = c.nulled.0;
                out.push(format!("{file}: column {name}: {n} field{} not a number of the column's type, stored as NULL (first at line {})", s(n), at(c.nulled)));
            }
        }
        if self.short.0 > 0 {
            let n = self.short.0;
            out.push(format!("{file}: {n} record{} with fewer fields than the header, missing fields are NULL (first at line {})", s(n), at(self.short)));
        }
        if self.long.0 > 0 {
            let n = self.long.0;
            out.push(format!("{file}: {n} record{} with more fields than the header, extra fields ignored (first at line {})", s(n), at(self.long)));
        }
        out
    }
}

/// `int_field`, noting fields read by the prefix rule or made NULL.
#[inline]
fn int_noted(t: &[u8], r: usize, n: &mut ColNote) -> Option<i64> {
    if let Some(v) = int_plain(t) {
        return Some(v);
    }
    let v = int_field(t);
    let tt = trim(t);
    if !tt.is_empty() {
        let digits = tt.strip_prefix(b"-").or_else(|| tt.strip_prefix(b"+")).unwrap_or(tt);
        match v {
            None => note(&mut n.nulled, r),
            Some(_) if digits.is_empty() || !digits.iter().all(|c| c.is_ascii_digit()) => note(&mut n.converted, r),
            Some(_) => {}
        }
    }
    v
}

/// An integer narrowed to the column's width; out of range is NULL, and noted.
#[inline]
fn narrow<T: TryFrom<i64> + Native>(v: Option<i64>, r: usize, n: &mut ColNote) -> T {
    match v {
        None => T::NULL,
        Some(x) => T::try_from(x).ok().filter(|y: &T| !y.is_null()).unwrap_or_else(|| {
            note(&mut n.nulled, r);
            T::NULL
        }),
    }
}

/// `float_field`, noting fields read by their prefix or made NULL.
#[inline]
fn float_noted(t: &[u8], r: usize, n: &mut ColNote) -> Option<f64> {
    if let Some(v) = simple_decimal(t) {
        return Some(v);
    }
    let b = trim(t);
    if b.is_empty() {
        return None;
    }
    if let Some(v) = simple_decimal(b) {
        return Some(v);
    }
    let Ok(s) = std::str::from_utf8(b) else {
        note(&mut n.nulled, r);
        return None;
    };
    if let Ok(v) = s.parse::<f64>() {
        return Some(v);
    }
    let v = parse_f64_prefix(s);
    note(if v.is_some() { &mut n.converted } else { &mut n.nulled }, r);
    v
}

fn char_field(b: &[u8]) -> Option<i8> {
    match b.len() {
        0 => None,
        1 if !b[0].is_ascii_digit() => Some(b[0] as i8),
        _ => int_field(b).and_then(|v| i8::try_from(v).ok()).filter(|v| !v.is_null()),
    }
}

impl Builder {
    fn new(ty: DataType, cap: usize) -> Builder {
        if ty.decimal_scale().is_some() {
            // DECIMAL fields are kept as text and converted exactly in `finish`
            return Builder::Str(StrCol::with_capacity(cap, cap * 8));
        }
        match ty.physical() {
            Physical::I8 | Physical::I16 | Physical::I32 | Physical::I64 | Physical::F32 | Physical::F64 => Builder::Num(ColData::empty(ty, cap)),
            Physical::Sym => Builder::Sym { codes: Vec::with_capacity(cap), index: SymIndex::new() },
            _ => Builder::Str(StrCol::with_capacity(cap, cap * 8)),
        }
    }

    /// Append one field of record `r`; Err(()) for text that is not valid UTF-8.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, spec: &ColSpec, text: &[u8], memo: &mut DateMemo, r: usize, n: &mut ColNote) -> Result<(), ()> {
        let ty = spec.ty;
        match self {
            Builder::Num(ColData::I8(v)) => v.push(match ty {
                DataType::Bool => std::str::from_utf8(trim(text)).ok().filter(|s| !s.is_empty()).and_then(parse_bool).map(|b| b as i8).unwrap_or(i8::NULL),
                _ => char_field(text).unwrap_or(i8::NULL),
            }),
            Builder::Num(ColData::I16(v)) => v.push(narrow(int_noted(text, r, n), r, n)),
            Builder::Num(ColData::I32(v)) => v.push(if ty.is_temporal() {
                temporal(spec, text, memo).and_then(|x| i32::try_from(x).ok()).unwrap_or(i32::NULL)
            } else {
                narrow(int_noted(text, r, n), r, n)
            }),
            Builder::Num(ColData::I64(v)) => v.push(if ty.is_temporal() { temporal(spec, text, memo).unwrap_or(i64::NULL) } else { int_noted(text, r, n).unwrap_or(i64::NULL) }),
            Builder::Num(ColData::F32(v)) => v.push(float_noted(text, r, n).map(f32::from_f64_keep_inf).unwrap_or(f32::NULL)),
            Builder::Num(ColData::F64(v)) => v.push(float_noted(text, r, n).map(f64::from_f64_keep_inf).unwrap_or(f64::NULL)),
            // `new` makes no other numeric storage
            Builder::Num(_) => {}
            Builder::Sym { codes, index } => {
                codes.push(if text.is_empty() { 0 } else { index.code(text, words_of(text))? });
            }
            Builder::Str(s) => {
                let t = std::str::from_utf8(text).map_err(|_| ())?;
                s.push(t);
            }
        }
        Ok(())
    }

    /// Append field `f` of every record of a block of `nf` field ranges per record (text
    /// without quotes) whose first record is record `base` of the chunk; Err(record) for
    /// text that is not valid UTF-8.
    #[allow(clippy::too_many_arguments)]
    fn push_column(&mut self, spec: &ColSpec, buf: &[u8], ranges: &[(u32, u32)], nf: usize, f: usize, memo: &mut DateMemo, base: usize, n: &mut ColNote) -> Result<(), usize> {
        let fields = ranges.iter().skip(f).step_by(nf).map(|&(s, e)| &buf[s as usize..e as usize]).enumerate().map(|(j, t)| (base + j, t));
        let ty = spec.ty;
        match self {
            Builder::Num(ColData::I16(v)) => v.extend(fields.map(|(r, t)| narrow::<i16>(int_noted(t, r, n), r, n))),
            Builder::Num(ColData::I32(v)) if ty.is_temporal() => v.extend(fields.map(|(_, t)| temporal(spec, t, memo).and_then(|x| i32::try_from(x).ok()).unwrap_or(i32::NULL))),
            Builder::Num(ColData::I32(v)) => v.extend(fields.map(|(r, t)| narrow::<i32>(int_noted(t, r, n), r, n))),
            Builder::Num(ColData::I64(v)) if ty.is_temporal() => v.extend(fields.map(|(_, t)| temporal(spec, t, memo).unwrap_or(i64::NULL))),
            Builder::Num(ColData::I64(v)) => v.extend(fields.map(|(r, t)| int_noted(t, r, n).unwrap_or(i64::NULL))),
            Builder::Num(ColData::F32(v)) => v.extend(fields.map(|(r, t)| float_noted(t, r, n).map(f32::from_f64).unwrap_or(f32::NULL))),
            Builder::Num(ColData::F64(v)) => v.extend(fields.map(|(r, t)| float_noted(t, r, n).unwrap_or(f64::NULL))),
            Builder::Sym { codes, index } => {
                for (j, &(s, e)) in ranges.iter().skip(f).step_by(nf).enumerate() {
                    let (s, e) = (s as usize, e as usize);
                    codes.push(if s == e { 0 } else { index.code(&buf[s..e], words_at(buf, s, e)).map_err(|_| j)? });
                }
            }
            _ => {
                for (r, t) in fields {
                    self.push(spec, t, memo, r, n).map_err(|_| r - base)?;
                }
            }
        }
        Ok(())
    }

    fn push_null(&mut self) {
        match self {
            Builder::Num(d) => beluga_runtime::match_numeric!(d, v: T => v.push(T::NULL), _ => {}),
            Builder::Sym { codes, .. } => codes.push(0),
            Builder::Str(s) => s.push(""),
        }
    }

    fn finish(self, ty: DataType) -> Column {
        let data = match self {
            Builder::Num(d) => d,
            Builder::Sym { codes, index } => {
                let mut dict = SymbolDict::default();
                for n in index.names.iter().skip(1) {
                    // validated as UTF-8 when first seen
                    dict.intern(std::str::from_utf8(n).unwrap_or(""));
                }
                ColData::Sym(SymCol { codes, dict: Arc::new(dict) })
            }
            Builder::Str(s) => {
                if ty.physical() != Physical::Str {
                    // UUID, IPADDR, INT128…: parsed from their text form
                    let n = s.len();
                    let text = Column::new(DataType::String, ColData::Str(s));
                    return beluga_runtime::kernels::cast::cast_column(&text, ty).unwrap_or_else(|_| Column::nulls(ty, n));
                }
                ColData::Str(s)
            }
        };
        Column::new(ty, data)
    }
}

/// The last date text of a temporal column and its day number: CSV files repeat dates
/// (a daily TAQ file holds one), so most fields skip date parsing.
#[derive(Default)]
struct DateMemo {
    key: Vec<u8>,
    days: Option<i64>,
}

impl DateMemo {
    #[inline]
    fn days(&mut self, b: &[u8]) -> Option<i64> {
        if self.key.as_slice() != b {
            self.key.clear();
            self.key.extend_from_slice(b);
            self.days = std::str::from_utf8(b).ok().and_then(|s| parse_temporal(DataType::Date, s).or_else(|| super::infer::yymmdd(s)));
        }
        self.days
    }
}

#[inline]
fn two(b: &[u8]) -> Option<i64> {
    let (x, y) = (b[0].wrapping_sub(b'0'), b[1].wrapping_sub(b'0'));
    (x < 10 && y < 10).then_some((x * 10 + y) as i64)
}

/// Seconds of the day of exactly `H:MM:SS` or `HH:MM:SS` (a valid time), else None.
#[inline]
fn hms(b: &[u8]) -> Option<i64> {
    let (h, r) = match b.len() {
        7 => ((b[0].wrapping_sub(b'0') < 10).then_some((b[0] - b'0') as i64)?, &b[1..]),
        8 => (two(b)?, &b[2..]),
        _ => return None,
    };
    if r[0] != b':' || r[3] != b':' {
        return None;
    }
    let (m, s) = (two(&r[1..3])?, two(&r[4..6])?);
    (h < 24 && m < 60 && s < 60).then_some(h * 3600 + m * 60 + s)
}

/// Fast paths for the common shapes of temporal fields (same values as `parse_temporal`,
/// which handles everything else): DATE text repeated from the previous row, times of day
/// `H:MM:SS`, and `<date> HH:MM:SS` / `<date>THH:MM:SS` with a 10-character date.
#[inline]
fn temporal_fast(ty: DataType, t: &[u8], memo: &mut DateMemo) -> Option<Option<i64>> {
    match ty {
        DataType::Date => Some(memo.days(t)),
        DataType::Second => hms(t).map(Some),
        DataType::Time => hms(t).map(|s| Some(s * 1000)),
        DataType::DateTime | DataType::Timestamp if t.len() == 19 && (t[10] == b' ' || t[10] == b'T') => {
            let tod = hms(&t[11..])?;
            let d = memo.days(&t[..10])?;
            let secs = d * 86_400 + tod;
            if ty == DataType::Timestamp {
                return Some(Some(secs * 1000));
            }
            // DATETIME is 32-bit; i32::MIN is its null
            Some(i32::try_from(secs).ok().filter(|v| !v.is_null()).map(i64::from))
        }
        _ => None,
    }
}

#[inline]
fn temporal(spec: &ColSpec, text: &[u8], memo: &mut DateMemo) -> Option<i64> {
    let t = trim(text);
    if spec.fmt.is_none() {
        if let Some(v) = temporal_fast(spec.ty, t, memo) {
            return v;
        }
    }
    let s = std::str::from_utf8(t).ok()?;
    if s.is_empty() {
        return None;
    }
    match &spec.fmt {
        Some(p) => {
            let v = p.parse(s)?;
            if p.result_type() == spec.ty {
                Some(v)
            } else {
                beluga_runtime::temporal::convert_temporal(p.result_type(), spec.ty, v).ok()
            }
        }
        None => parse_temporal(spec.ty, s),
    }
}

/// Records split at once before their columns are parsed (a block of field ranges stays
/// in the cache).
const BLOCK_ROWS: usize = 1024;

/// `parse_chunk` for text without quotes and a one-byte delimiter: split a block of records
/// into field ranges, then parse the block column by column (one type dispatch per column
/// and block, not per field).
fn parse_plain(buf: &[u8], c: u8, specs: &[ColSpec], est: usize, width: usize, notes: &mut Notes) -> Result<(Vec<Column>, usize), ParseErr> {
    let nf = specs.iter().map(|s| s.field + 1).max().unwrap_or(0);
    let mut builders: Vec<Builder> = specs.iter().map(|s| Builder::new(s.ty, est)).collect();
    let mut memos: Vec<DateMemo> = specs.iter().map(|_| DateMemo::default()).collect();
    let mut ranges: Vec<(u32, u32)> = Vec::with_capacity(BLOCK_ROWS * nf);
    let mut counts: Vec<u32> = Vec::with_capacity(BLOCK_ROWS);
    let (mut pos, mut recs) = (0, 0);
    let poll = beluga_runtime::guard::Poll::new();
    while pos < buf.len() {
        // an interrupt unwinds out between blocks of records
        poll.now();
        ranges.clear();
        counts.clear();
        let (next, rows) = plain_rows(buf, pos, c, nf, &mut ranges, BLOCK_ROWS, &mut counts);
        for (k, spec) in specs.iter().enumerate() {
            builders[k]
                .push_column(spec, buf, &ranges, nf, spec.field, &mut memos[k], recs, &mut notes.cols[k])
                .map_err(|r| ParseErr { rec: recs + r, col: Some(k), msg: "the text is not valid UTF-8".into() })?;
        }
        if width > 0 {
            for (j, &f) in counts.iter().enumerate() {
                match (f as usize).cmp(&width) {
                    std::cmp::Ordering::Less => note(&mut notes.short, recs + j),
                    std::cmp::Ordering::Greater => note(&mut notes.long, recs + j),
                    std::cmp::Ordering::Equal => {}
                }
            }
        }
        recs += rows;
        if next == pos {
            break;
        }
        pos = next;
    }
    Ok((builders.into_iter().zip(specs).map(|(b, s)| b.finish(s.ty)).collect(), recs))
}

/// Parse every record of `buf` (which holds whole records) into columns.
/// Returns the columns and the number of records.
pub fn parse_chunk(buf: &[u8], d: &Dialect, specs: &[ColSpec]) -> Result<(Vec<Column>, usize), ParseErr> {
    parse_chunk_noted(buf, d, specs, 0).map(|(c, n, _)| (c, n))
}

/// `parse_chunk`, also counting the fields read leniently or made NULL, and records whose
/// number of fields differs from `width` (the header's; 0 when unknown).
pub fn parse_chunk_noted(buf: &[u8], d: &Dialect, specs: &[ColSpec], width: usize) -> Result<(Vec<Column>, usize, Notes), ParseErr> {
    parse_piece_noted(buf, d, specs, width, true)
}

/// `parse_chunk_noted` of a piece of a buffer already known to hold no quote when
/// `maybe_quoted` is false (`boundaries_quoted` scanned it): the piece is not scanned again.
pub fn parse_piece_noted(buf: &[u8], d: &Dialect, specs: &[ColSpec], width: usize, maybe_quoted: bool) -> Result<(Vec<Column>, usize, Notes), ParseErr> {
    let mut notes = Notes { cols: vec![ColNote::default(); specs.len()], ..Notes::default() };
    let (cols, n) = parse_chunk_into(buf, d, specs, width, maybe_quoted, &mut notes)?;
    Ok((cols, n, notes))
}

fn parse_chunk_into(buf: &[u8], d: &Dialect, specs: &[ColSpec], width: usize, maybe_quoted: bool, notes: &mut Notes) -> Result<(Vec<Column>, usize), ParseErr> {
    // rows estimated from the line length of the first 16 KiB, generously: capacity that
    // is never written costs nothing, a regrown builder copies its values
    let head = &buf[..buf.len().min(16 << 10)];
    let lines = head.iter().filter(|&&b| b == b'\n').count().max(1);
    let est = buf.len() / (head.len() / lines).max(1) * 5 / 4 + 16;
    if d.delim.len() == 1 && !specs.is_empty() && buf.len() < u32::MAX as usize && !(maybe_quoted && buf.contains(&b'"')) {
        return parse_plain(buf, d.delim[0], specs, est, width, notes);
    }
    parse_records(buf, d, specs, est, width, notes)
}

/// `parse_chunk` for any text: one record at a time, quotes and multi-byte delimiters.
fn parse_records(buf: &[u8], d: &Dialect, specs: &[ColSpec], est: usize, width: usize, notes: &mut Notes) -> Result<(Vec<Column>, usize), ParseErr> {
    let mut builders: Vec<Builder> = specs.iter().map(|s| Builder::new(s.ty, est)).collect();
    let mut memos: Vec<DateMemo> = specs.iter().map(|_| DateMemo::default()).collect();
    let mut fields: Vec<Field> = Vec::with_capacity(specs.len() + 4);
    let mut scratch = Vec::new();
    let mut p = 0;
    let mut recs = 0;
    // an interrupt unwinds out of a long chunk (tested every guard::CHUNK records)
    let poll = beluga_runtime::guard::Poll::new();
    while p < buf.len() {
        poll.at(recs);
        if let Some(q) = blank_line(buf, p) {
            p = q;
            continue;
        }
        match record(buf, p, d, &mut fields) {
            Rec::Unterminated => {
                return Err(ParseErr { rec: recs, col: None, msg: "a quoted field is not closed".into() });
            }
            Rec::Next(q) => p = q,
        }
        if width > 0 && fields.len() != width {
            note(if fields.len() < width { &mut notes.short } else { &mut notes.long }, recs);
        }
        for (k, spec) in specs.iter().enumerate() {
            match fields.get(spec.field) {
                Some(f) => {
                    let raw = &buf[f.start..f.end];
                    let escaped = f.quoted && raw.contains(&b'"');
                    let text = if escaped { field_bytes(buf, f, &mut scratch) } else { raw };
                    if builders[k].push(spec, text, &mut memos[k], recs, &mut notes.cols[k]).is_err() {
                        return Err(ParseErr { rec: recs, col: Some(k), msg: "the text is not valid UTF-8".into() });
                    }
                }
                None => builders[k].push_null(),
            }
        }
        recs += 1;
    }
    Ok((builders.into_iter().zip(specs).map(|(b, s)| b.finish(s.ty)).collect(), recs))
}

/// Concatenate the columns of consecutive chunks (symbol bases merged).
pub fn merge(chunks: Vec<Vec<Column>>, specs: &[ColSpec]) -> Vec<Column> {
    let mut out = Vec::with_capacity(specs.len());
    for (k, spec) in specs.iter().enumerate() {
        let parts: Vec<&Column> = chunks.iter().map(|c| &c[k]).collect();
        if parts.len() == 1 {
            out.push(parts[0].clone());
            continue;
        }
        out.push(concat(spec.ty, &parts));
    }
    out
}

/// Fast concatenation of columns of one type (symbol codes remapped into one base).
pub fn concat(ty: DataType, parts: &[&Column]) -> Column {
    let n: usize = parts.iter().map(|c| c.len()).sum();
    match ty.physical() {
        Physical::Sym => {
            let mut dict: Option<Arc<SymbolDict>> = None;
            let mut codes = Vec::with_capacity(n);
            for c in parts {
                let ColData::Sym(s) = &*c.data else { continue };
                match &mut dict {
                    None => {
                        dict = Some(s.dict.clone());
                        codes.extend_from_slice(&s.codes);
                    }
                    Some(d) if Arc::ptr_eq(d, &s.dict) => codes.extend_from_slice(&s.codes),
                    Some(d) => {
                        let dm = Arc::make_mut(d);
                        let remap: Vec<u32> = s.dict.names.iter().map(|x| dm.intern(x)).collect();
                        codes.extend(s.codes.iter().map(|&k| remap[k as usize]));
                    }
                }
            }
            Column::new(ty, ColData::Sym(SymCol { codes, dict: dict.unwrap_or_default() }))
        }
        Physical::Str => {
            let bytes: usize = parts.iter().map(|c| if let ColData::Str(s) = &*c.data { s.bytes.len() } else { 0 }).sum();
            let mut out = StrCol::with_capacity(n, bytes);
            for c in parts {
                if let ColData::Str(s) = &*c.data {
                    let base = out.bytes.len();
                    out.bytes.extend_from_slice(&s.bytes);
                    out.offsets.extend(s.offsets[1..].iter().map(|&o| o + base));
                }
            }
            Column::new(ty, ColData::Str(out))
        }
        _ => Column::concat(ty, parts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_fast_path_agrees_with_the_parser() {
        let mut texts: Vec<String> = ["0", "-0", "1.", ".5", "-.5", "44.72", "3.432016154613", "123456789012345", "1234567890123456", "0.1", "9.999999999999999", "-26.110000000000003", "1e5", "1.2.3", "-", ".", "+1.5", "12a"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut x: u64 = 88172645463325252;
        for _ in 0..20000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 15 + 1) as usize;
            let m = x % 10u64.pow(digits as u32);
            let s = format!("{m:0digits$}");
            let k = (x >> 40) as usize % (digits + 1);
            texts.push(format!("{}{}.{}", if x & 1 == 1 { "-" } else { "" }, &s[..k], &s[k..]));
        }
        for t in &texts {
            let want = t.parse::<f64>().ok();
            if let Some(v) = simple_decimal(t.as_bytes()) {
                assert_eq!(Some(v.to_bits()), want.map(f64::to_bits), "{t}");
            }
        }
        // the generated ones (at most 15 digits) all take the fast path
        assert!(texts[18..].iter().all(|t| simple_decimal(t.as_bytes()).is_some()));
        assert_eq!(simple_decimal(b"1e5"), None);
    }

    #[test]
    fn temporal_fast_paths_agree_with_the_parser() {
        let texts = [
            "20070801", "2007.08.01", "2007-08-01", "2007/08/01", "2016.02.30", "2016.02.29", "20070832", "", "x",
            "9:30:56", "09:30:56", "23:59:59", "24:00:00", "9:60:00", "9:30:60", "9:3:56", "9:30:56.5", "19:30",
            "2016-11-15 07:00:00", "2016-11-15T07:00:00", "2016.11.15T23:59:59", "2016.11.15 24:00:00",
            "2016-02-30 07:00:00", "2016-11-15 7:00:00", "2016-11-15x07:00:00", "1969-12-31 23:59:59", "2100-01-01 00:00:00",
        ];
        for ty in [DataType::Date, DataType::Second, DataType::Time, DataType::DateTime, DataType::Timestamp, DataType::Minute] {
            let spec = ColSpec { field: 0, name: "t".into(), ty, fmt: None };
            let mut memo = DateMemo::default();
            for _ in 0..2 {
                for t in texts {
                    let want = if t.is_empty() { None } else { parse_temporal(ty, t) };
                    assert_eq!(temporal(&spec, t.as_bytes(), &mut memo), want, "{ty} {t:?}");
                }
            }
        }
        assert_eq!(hms(b"9:30:56"), Some(9 * 3600 + 30 * 60 + 56));
    }

    #[test]
    fn block_parse_matches_record_parse() {
        let specs: Vec<ColSpec> = [DataType::Symbol, DataType::Date, DataType::Second, DataType::Double, DataType::Int, DataType::Char, DataType::String, DataType::Long, DataType::DateTime, DataType::Bool]
            .iter()
            .enumerate()
            .map(|(k, &ty)| ColSpec { field: k, name: format!("c{k}"), ty, fmt: None })
            .collect();
        let mut text = String::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let syms = ["IBM", "MSFT", "", "A B", "é"];
        for r in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let nf = if r % 97 == 5 { (x % 10) as usize } else { 10 };
            let fields = [
                syms[(r / 50) % 5].to_string(),
                if x % 9 == 0 { "2007.08.02".into() } else { "20070801".into() },
                format!("{}:{:02}:{:02}", x % 24, (x >> 8) % 61, (x >> 16) % 60),
                format!("{}.{}", (x >> 20) % 1000, (x >> 30) % 100),
                if x % 11 == 0 { " 42 ".into() } else { format!("-{}", (x >> 3) % 100000) },
                ["N", "", "7", "300"][(x % 4) as usize].into(),
                ["", "text", "x,y"][(x % 2) as usize].into(),
                format!("{}", x >> 12),
                "2016-11-15 07:00:00".into(),
                ["true", "0", "", "x"][(x % 4) as usize].into(),
            ];
            text.push_str(&fields[..nf].join(","));
            text.push_str(if r % 13 == 0 { "\r\n" } else { "\n" });
            if r % 500 == 7 {
                text.push('\n');
            }
        }
        let b = text.as_bytes();
        let d = Dialect::new(",");
        let (mut n1, mut n2) = (Notes { cols: vec![ColNote::default(); specs.len()], ..Notes::default() }, Notes::default());
        n2.cols = n1.cols.clone();
        let (a, na) = parse_plain(b, b',', &specs, 16, specs.len(), &mut n1).unwrap();
        let (c, nc) = parse_records(b, &d, &specs, 16, specs.len(), &mut n2).unwrap();
        // both paths count the same lenient fields and odd-width records
        assert_eq!(n1, n2);
        assert!(n1.short.0 > 0, "{n1:?}");
        // records cut to no fields with an empty first one are blank lines, skipped by both
        assert_eq!(na, nc);
        assert!((2990..=3000).contains(&na), "{na}");
        for (k, (p, q)) in a.iter().zip(&c).enumerate() {
            for r in 0..na {
                assert_eq!(beluga_runtime::fmt::format_elem(p, r), beluga_runtime::fmt::format_elem(q, r), "column {k} row {r}");
            }
        }
        // invalid UTF-8 is reported at its record and column
        let bad = b"IBM,1\nMSFT,2\n\xff,3\n";
        let e = parse_chunk(bad, &d, &specs[..1]).unwrap_err();
        assert_eq!((e.rec, e.col), (2, Some(0)));
    }

    /// Texts of 1-40 bytes (past the 16 compared as words, sharing their first 16 bytes,
    /// differing only in length), looked up from inside a buffer and near its end, keep
    /// one code each across the table's growth.
    #[test]
    fn symbol_index_codes_are_stable() {
        let texts: Vec<String> = (0..5000).map(|k| format!("{:0>w$}", k, w = 1 + k % 40)).collect();
        let mut buf = Vec::new();
        let mut at = Vec::new();
        for t in &texts {
            at.push((buf.len(), buf.len() + t.len()));
            buf.extend_from_slice(t.as_bytes());
        }
        let mut ix = SymIndex::new();
        let mut codes = Vec::new();
        for round in 0..2 {
            for (k, &(s, e)) in at.iter().enumerate() {
                let c = ix.code(&buf[s..e], words_at(&buf, s, e)).unwrap();
                assert_eq!(words_at(&buf, s, e), words_of(texts[k].as_bytes()));
                if round == 0 {
                    codes.push(c);
                } else {
                    assert_eq!(c, codes[k], "{}", texts[k]);
                }
                assert_eq!(ix.names[c as usize], texts[k].as_bytes());
            }
        }
        let distinct: std::collections::HashSet<&String> = texts.iter().collect();
        assert_eq!(ix.names.len(), distinct.len() + 1);
        assert!(ix.code(b"\xff\xfe", words_of(b"\xff\xfe")).is_err());
    }

    #[test]
    fn typed_parse() {
        let specs = vec![
            ColSpec { field: 0, name: "s".into(), ty: DataType::Symbol, fmt: None },
            ColSpec { field: 1, name: "d".into(), ty: DataType::Date, fmt: None },
            ColSpec { field: 2, name: "t".into(), ty: DataType::Second, fmt: None },
            ColSpec { field: 3, name: "x".into(), ty: DataType::Double, fmt: None },
            ColSpec { field: 4, name: "c".into(), ty: DataType::Char, fmt: None },
            ColSpec { field: 5, name: "n".into(), ty: DataType::Int, fmt: None },
        ];
        let text = b"IBM,20070801,9:30:00,1.5,N,7\nNA,2007.08.02,16:00:01,,B,x\n\"IBM\",,,abc,,\n";
        let (cols, n) = parse_chunk(text, &Dialect::new(","), &specs).unwrap();
        assert_eq!(n, 3);
        let ColData::Sym(s) = &*cols[0].data else { panic!() };
        assert_eq!(s.codes, vec![1, 2, 1]);
        assert_eq!(s.dict.get(2), "NA");
        assert_eq!(cols[1].i64_at(0), Some(13726));
        assert!(cols[1].is_null(2));
        assert_eq!(cols[2].i64_at(0), Some(9 * 3600 + 30 * 60));
        assert!(cols[3].is_null(1) && cols[3].is_null(2));
        assert_eq!(cols[4].i64_at(0), Some(b'N' as i64));
        assert!(cols[5].is_null(1));
    }
}
