//! Type conversion (`cast`, `$`, and the `int()`/`date()`/`string()`… functions):
//! one vectorized loop per physical pair, generic over `Native` (LANGUAGE.md §2.2, §2.4).
//!
//! * numeric → numeric: integers wrap when narrowed (`short(65578)` ⇒ 42, a wrap onto the
//!   sentinel is null); floats round half away from zero, out of range ⇒ null;
//!   → BOOL is "nonzero". Temporal ↔ numeric uses the raw count of units.
//! * temporal ↔ temporal: `temporal::convert_temporal` (truncating to the coarser unit).
//! * STRING/SYMBOL → numbers take the leading number (`int("10.9")` ⇒ 10), → temporal
//!   accepts every literal spelling; unparsable ⇒ null.
//! * anything → STRING/SYMBOL uses the console element form (`elemfmt::format_elem`).
//!
//! Whole values (matrices, sets, tuples) convert in `ops::cast_value`, above the kernels.

use crate::column::{ColData, Column, StrCol, SymCol};
use crate::error::{Error, Result};
use crate::elemfmt::format_elem;
use crate::kernels::parse::{TemporalPattern, parse_bool, parse_f64_prefix, parse_int_prefix, parse_temporal};
use crate::null::Native;
use crate::temporal::convert_temporal;
use crate::types::{Category, DataType, Physical};
use std::cell::Cell;
use std::mem::MaybeUninit;

pub(crate) fn cannot(from: DataType, to: DataType, why: &str) -> Error {
    Error::type_err(format!("Cannot convert {from} to {to}{why}"))
}

/// Types that behave as plain numbers in a cast: BOOL, CHAR, SHORT, INT, LONG, FLOAT,
/// DOUBLE and the temporal types (as their raw counts).
fn is_numberish(t: DataType) -> bool {
    matches!(t.category(), Category::Logical | Category::Integral | Category::Floating | Category::Temporal)
}

/// Convert a column to type `to`. Nulls stay null; see the module docs for the rules.
pub fn cast_column(col: &Column, to: DataType) -> Result<Column> {
    let from = col.ty;
    if from == to {
        return Ok(col.clone());
    }
    // array vectors convert element-wise to another array type, and only to one
    if let (Some(a), Some(e)) = (col.as_array(), to.array_elem()) {
        return Ok(Column::from_array(std::sync::Arc::new(a.with_data(cast_column(&a.data, e)?))));
    }
    if from.array_elem().is_some() || to.array_elem().is_some() {
        return Err(cannot(from, to, ""));
    }
    if from == DataType::Void {
        if to.physical() == Physical::None {
            return Err(cannot(from, to, ""));
        }
        return Ok(Column::nulls(to, col.len()));
    }
    if to.decimal_scale().is_some() {
        return crate::kernels::decimal::cast_to(col, to);
    }
    if from.decimal_scale().is_some() {
        if let Some(c) = crate::kernels::decimal::cast_from(col, to)? {
            return Ok(c);
        }
    }
    match to {
        DataType::String if from.decimal_scale().is_some() => {
            return Ok(Column::new(to, ColData::Str(crate::kernels::decimal::to_strings(col))))
        }
        DataType::String => return Ok(Column::new(to, ColData::Str(to_strings(col)?))),
        DataType::Symbol => return to_symbols(col),
        DataType::Blob if from == DataType::String => return Ok(Column { ty: to, data: col.data.clone() }),
        _ => {}
    }
    if from.is_literal() {
        if is_numberish(to) {
            return from_text(col, to);
        }
        return Err(cannot(from, to, ""));
    }
    if !is_numberish(from) || !is_numberish(to) {
        return Err(cannot(from, to, ""));
    }
    if from.is_temporal() && to.is_temporal() {
        return temporal_cast(col, to);
    }
    numeric_cast(col, to)
}

// ---------------------------------------------------------------- numbers

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// integer → integer (wrapping) or integer → float
    FromInt,
    /// float → integer (rounding, out of range ⇒ null) or float → float
    FromFloat,
    /// anything → BOOL: nonzero
    ToBool,
}

/// One loop per (source, destination) instantiation; null handling lives here.
fn convert<S: Native, D: Native>(v: &[S], mode: Mode) -> Vec<D> {
    match mode {
        Mode::FromInt => v.iter().map(|&x| if x.is_null() { D::NULL } else { D::from_i64(x.to_i64()) }).collect(),
        Mode::FromFloat => v.iter().map(|&x| if x.is_null() { D::NULL } else { D::from_f64(x.to_f64()) }).collect(),
        Mode::ToBool => {
            v.iter().map(|&x| if x.is_null() { D::NULL } else { D::from_i64((x != S::ZERO) as i64) }).collect()
        }
    }
}

fn convert_from<D: Native>(col: &Column, mode: Mode) -> Vec<D> {
    // callers only pass numeric storage (128-bit types never reach here)
    crate::match_int!(&*col.data, v => convert(v, mode),
        ColData::F32(v) => convert(v, mode),
        ColData::F64(v) => convert(v, mode),
        _ => vec![D::NULL; col.len()],
    )
}

fn numeric_cast(col: &Column, to: DataType) -> Result<Column> {
    let mode = if to == DataType::Bool {
        Mode::ToBool
    } else if col.ty.is_floating() {
        Mode::FromFloat
    } else {
        Mode::FromInt
    };
    // FLOAT ↔ DOUBLE keep NaN and infinities (an imported `float("inf")` stays infinite;
    // null.rs has the rule)
    let data = match (&*col.data, to.physical()) {
        (ColData::F32(v), Physical::F64) => {
            ColData::F64(v.iter().map(|&x| if x.is_null() && !x.is_nan() { f64::NULL } else { x as f64 }).collect())
        }
        (ColData::F64(v), Physical::F32) => {
            ColData::F32(v.iter().map(|&x| if x.is_null() && !x.is_nan() { f32::NULL } else { x as f32 }).collect())
        }
        (_, Physical::I128) => return Err(cannot(col.ty, to, "")),
        (_, p) => crate::map_physical!(p, T => convert_from::<T>(col, mode),
            _ => return Err(cannot(col.ty, to, "")),
        ),
    };
    Ok(Column::new(to, data))
}

// ---------------------------------------------------------------- temporal ↔ temporal

/// `r` as a `D`, or null when it does not fit.
#[inline]
fn fit<D: Native>(r: i64) -> D {
    let d = D::from_i64(r);
    if d.to_i64() == r { d } else { D::NULL }
}

fn retime<S: Native, D: Native>(v: &[S], from: DataType, to: DataType) -> Vec<D> {
    if let Some(plan) = Rescale::between(from, to) {
        if let Some(out) = plan.apply(v) {
            return out;
        }
    }
    v.iter()
        .map(|&x| if x.is_null() { D::NULL } else { convert_temporal(from, to, x.to_i64()).map_or(D::NULL, fit::<D>) })
        .collect()
}

/// A conversion between two temporal types with fixed units, as integer steps in the
/// source's units: with `per_day` > 0 keep the time of day (`v mod per_day`, floored),
/// then multiply by `mul` (to a finer unit) or floor-divide by `div` (to a coarser one).
/// Every unit divides the next (ns, ms, s, minute, hour, day), so the factors are exact.
///
/// Why: `convert_temporal` per element works in 128-bit arithmetic with a run-time
/// divisor (a library call per row: `minute(time)` of 4M rows took ~25 ms); these steps
/// are one pass that vectorises.
#[derive(Clone, Copy, Debug)]
pub struct Rescale {
    per_day: i64,
    mul: i64,
    div: i64,
}

/// 2^53: below it an i64 converts to f64 exactly, and `floor(v / d)` computed in f64 is the
/// exact floor division for every divisor d >= 1 (a quotient that is not an integer lies at
/// least 1/d from one, more than the rounding error |v / d| * 2^-53 < 1/d).
const EXACT_F64: i64 = 1 << 53;

impl Rescale {
    /// The plan from `from` to `to`, both with a fixed unit (not MONTH), or None.
    pub fn between(from: DataType, to: DataType) -> Option<Rescale> {
        let (from_dated, _) = crate::temporal::unit_ns(from)?;
        let (to_dated, ut) = crate::temporal::unit_ns(to)?;
        if (to_dated && !from_dated) || (!to_dated && from == DataType::Date) {
            return None;
        }
        Rescale::to_unit(from, ut, from_dated && !to_dated)
    }

    /// The plan from `from` to a count of `unit_ns` nanoseconds: of the time of day when
    /// `tod`, else since the epoch.
    pub fn to_unit(from: DataType, unit_ns: i64, tod: bool) -> Option<Rescale> {
        let (_, uf) = crate::temporal::unit_ns(from)?;
        let per_day = if tod { crate::temporal::NS_PER_DAY / uf } else { 0 };
        if uf >= unit_ns {
            (uf % unit_ns == 0).then_some(Rescale { per_day, mul: uf / unit_ns, div: 1 })
        } else {
            (unit_ns % uf == 0).then_some(Rescale { per_day, mul: 1, div: unit_ns / uf })
        }
    }

    /// The converted values (nulls, and results that do not fit `D`, become null), or None
    /// when a value is outside the range where the fast steps are exact (|v| >= 2^53, or
    /// a product that could overflow): the caller then converts element by element.
    pub fn apply<S: Native + Sync, D: Native + Send>(self, v: &[S]) -> Option<Vec<D>> {
        let bound = if std::mem::size_of::<S>() <= 4 { 1i64 << 31 } else { max_abs(v) };
        if bound >= EXACT_F64 {
            return None;
        }
        let reach = if self.per_day > 0 { self.per_day.min(bound) } else { bound };
        reach.checked_mul(self.mul)?;
        let fill = |start: usize, o: &mut [MaybeUninit<D>]| rescale_part(&v[start..start + o.len()], self, o);
        // SAFETY: rescale_part writes every element of its part
        Some(unsafe { crate::kernels::par::build_vec(v.len(), crate::kernels::par::PAR_MAP_MIN, &fill) })
    }
}

crate::simd_fn! {
    /// Largest |v| of the non-null values (0 for none), saturating at i64::MAX.
    fn max_abs[S: Native](v: &[S]) -> i64 {
        let (mut lo, mut hi) = (0i64, 0i64);
        for &x in v {
            let y = if x.is_null() { 0 } else { x.to_i64() };
            lo = lo.min(y);
            hi = hi.max(y);
        }
        hi.max(lo.saturating_neg())
    }
}

crate::simd_fn! {
    fn rescale_part[S: Native, D: Native](v: &[S], p: Rescale, out: &mut [MaybeUninit<D>]) -> () {
        let (pd, pdf, dvf) = (p.per_day, p.per_day as f64, p.div as f64);
        // SAFETY: x is an i64 and the divisors are >= 1, so the floored quotient is finite
        // and within i64 (exact for the non-null values, |x| < 2^53 as `apply` checked);
        // an unchecked cast vectorises where `as` (saturating, NaN -> 0) does not
        let floor_div = |x: i64, d: f64| unsafe { (x as f64 / d).floor().to_int_unchecked::<i64>() };
        // wrapping: only a null's sentinel can overflow here, and its result is discarded
        let tod = |x: i64| if pd > 0 { x.wrapping_sub(floor_div(x, pdf).wrapping_mul(pd)) } else { x };
        let put = |o: &mut MaybeUninit<D>, x: S, y: i64| {
            let d = D::from_i64(y);
            o.write(if x.is_null() || d.to_i64() != y { D::NULL } else { d });
        };
        if p.div > 1 {
            for (o, &x) in out.iter_mut().zip(v) {
                put(o, x, floor_div(tod(x.to_i64()), dvf));
            }
        } else {
            for (o, &x) in out.iter_mut().zip(v) {
                put(o, x, tod(x.to_i64()).wrapping_mul(p.mul));
            }
        }
    }
}

fn temporal_cast(col: &Column, to: DataType) -> Result<Column> {
    let from = col.ty;
    let date_only = matches!(from, DataType::Date | DataType::Month);
    if date_only && to.day_modulus().is_some() {
        return Err(cannot(from, to, ": the source has no time of day"));
    }
    if convert_temporal(from, to, 0).is_err() {
        return Err(cannot(from, to, ": the source has no date"));
    }
    let data = match (&*col.data, to.physical()) {
        (ColData::I32(v), Physical::I32) => ColData::I32(retime(v, from, to)),
        (ColData::I32(v), Physical::I64) => ColData::I64(retime(v, from, to)),
        (ColData::I64(v), Physical::I32) => ColData::I32(retime(v, from, to)),
        (ColData::I64(v), Physical::I64) => ColData::I64(retime(v, from, to)),
        _ => return Err(cannot(from, to, "")),
    };
    Ok(Column::new(to, data))
}

// ---------------------------------------------------------------- text → values

/// Parse every element of a STRING/SYMBOL column with `f` (a SYMBOL's distinct names are
/// parsed once when the symbol base is not much larger than the column).
fn parse_each<D: Native>(col: &Column, f: impl Fn(&str) -> D) -> Vec<D> {
    match &*col.data {
        ColData::Str(s) => (0..s.len()).map(|i| f(s.get(i))).collect(),
        ColData::Sym(s) if s.dict.names.len() <= 2 * s.codes.len() + 16 => {
            let table: Vec<D> = s.dict.names.iter().map(|n| f(n)).collect();
            s.codes.iter().map(|&c| table[c as usize]).collect()
        }
        ColData::Sym(s) => s.codes.iter().map(|&c| f(s.dict.get(c))).collect(),
        _ => vec![D::NULL; col.len()],
    }
}

fn parse_int<D: Native>(s: &str) -> D {
    parse_int_prefix(s).map_or(D::NULL, fit::<D>)
}

fn from_text(col: &Column, to: DataType) -> Result<Column> {
    let data = match to {
        DataType::Bool => ColData::I8(parse_each(col, |s| parse_bool(s).map_or(i8::NULL, |b| b as i8))),
        DataType::Char => {
            let bad = Cell::new(false);
            let v = parse_each(col, |s| parse_char(s, &bad));
            if bad.get() {
                return Err(Error::runtime("Failed to convert the string to CHAR"));
            }
            ColData::I8(v)
        }
        DataType::Short => ColData::I16(parse_each(col, parse_int::<i16>)),
        DataType::Int => ColData::I32(parse_each(col, parse_int::<i32>)),
        DataType::Long => ColData::I64(parse_each(col, parse_int::<i64>)),
        // text "nan"/"inf" keeps the IEEE value (funcs/i/isNanInf.md: float(`nan) is NaN)
        DataType::Float => ColData::F32(parse_each(col, |s| match parse_f64_prefix(s) {
            Some(x) if !x.is_finite() => x as f32,
            Some(x) => f32::from_f64(x),
            None => f32::NULL,
        })),
        DataType::Double => ColData::F64(parse_each(col, |s| match parse_f64_prefix(s) {
            Some(x) if !x.is_finite() => x,
            Some(x) => f64::from_f64(x),
            None => f64::NULL,
        })),
        t if t.is_temporal() => match t.physical() {
            Physical::I32 => ColData::I32(parse_each(col, |s| parse_temporal(t, s).map_or(i32::NULL, fit::<i32>))),
            _ => ColData::I64(parse_each(col, |s| parse_temporal(t, s).unwrap_or(i64::NULL))),
        },
        _ => return Err(cannot(col.ty, to, "")),
    };
    Ok(Column::new(to, data))
}

/// CHAR from text: a number is taken as the character code (`char("99")` ⇒ 'c'; outside
/// -127..127 is an error), a single non-digit ASCII character is itself (`char("a")`),
/// anything else is null.
fn parse_char(s: &str, bad: &Cell<bool>) -> i8 {
    let b = s.as_bytes();
    if b.len() == 1 && !b[0].is_ascii_digit() && b[0].is_ascii() {
        return b[0] as i8;
    }
    match parse_int_prefix(s) {
        Some(v) if (-127..=127).contains(&v) => v as i8,
        Some(_) => {
            bad.set(true);
            i8::NULL
        }
        None => i8::NULL,
    }
}

// ---------------------------------------------------------------- values → text

/// Text form of element i (STRING conversion): the console element form without quotes.
fn push_text(out: &mut StrCol, col: &Column, i: usize) {
    match &*col.data {
        ColData::Str(s) => out.push(s.get(i)),
        ColData::Sym(s) => out.push(s.get(i)),
        _ => out.push(&format_elem(col, i)),
    }
}

fn check_textable(col: &Column, to: DataType) -> Result<()> {
    let from = col.ty;
    let ok = is_numberish(from) || matches!(from.category(), Category::Literal | Category::Binary | Category::Nothing);
    if ok { Ok(()) } else { Err(cannot(from, to, "")) }
}

fn to_strings(col: &Column) -> Result<StrCol> {
    check_textable(col, DataType::String)?;
    if let ColData::Str(s) = &*col.data {
        return Ok(s.clone());
    }
    let mut out = StrCol::with_capacity(col.len(), col.len() * 8);
    for i in 0..col.len() {
        push_text(&mut out, col, i);
    }
    Ok(out)
}

fn to_symbols(col: &Column) -> Result<Column> {
    check_textable(col, DataType::Symbol)?;
    let sym = match &*col.data {
        ColData::Sym(s) => s.clone(),
        ColData::Str(s) => SymCol::from_iter(s.iter()),
        _ => {
            let strs = to_strings(col)?;
            SymCol::from_iter(strs.iter())
        }
    };
    Ok(Column::new(DataType::Symbol, ColData::Sym(sym)))
}

// ---------------------------------------------------------------- temporalParse / temporalFormat

/// `temporalParse(X, format)` over a STRING/SYMBOL column. Err for an invalid format.
pub fn temporal_parse_column(col: &Column, fmt: &str) -> Result<Column> {
    if !col.ty.is_literal() {
        return Err(Error::arg(format!("temporalParse expects STRING or SYMBOL, not {}", col.ty)));
    }
    let pat = TemporalPattern::new(fmt, true)?;
    let ty = pat.result_type();
    let data = match ty.physical() {
        Physical::I32 => ColData::I32(parse_each(col, |s| pat.parse(s).map_or(i32::NULL, fit::<i32>))),
        _ => ColData::I64(parse_each(col, |s| pat.parse(s).unwrap_or(i64::NULL))),
    };
    Ok(Column::new(ty, data))
}

/// `temporalFormat(X, format)` over a temporal column: a STRING column (null ⇒ "").
pub fn temporal_format_column(col: &Column, fmt: &str) -> Result<Column> {
    if !col.ty.is_temporal() {
        return Err(Error::arg(format!("temporalFormat expects a temporal argument, not {}", col.ty)));
    }
    let pat = TemporalPattern::new(fmt, false)?;
    let mut out = StrCol::with_capacity(col.len(), col.len() * fmt.len());
    for i in 0..col.len() {
        match col.i64_at(i) {
            Some(v) => out.push(&pat.format(col.ty, v)),
            None => out.push(""),
        }
    }
    Ok(Column::new(DataType::String, ColData::Str(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::IntoColData;
    use crate::temporal::days_from_civil;
    use DataType::*;

    fn col<V: IntoColData>(ty: DataType, v: V) -> Column {
        Column::from_vec(ty, v)
    }
    fn strs(ty: DataType, v: &[&str]) -> Column {
        match ty {
            Symbol => Column::new(ty, ColData::Sym(SymCol::from_iter(v.iter().copied()))),
            _ => Column::new(ty, ColData::Str(StrCol::from_iter(v.iter().copied()))),
        }
    }
    fn texts(c: &Column) -> Vec<std::string::String> {
        let s = cast_column(c, String).unwrap();
        (0..s.len()).map(|i| s.str_at(i).unwrap().to_string()).collect()
    }
    fn i32s(c: &Column) -> Vec<i32> {
        match &*c.data {
            ColData::I32(v) => v.clone(),
            d => panic!("not I32: {d:?}"),
        }
    }
    fn i64s(c: &Column) -> Vec<i64> {
        match &*c.data {
            ColData::I64(v) => v.clone(),
            d => panic!("not I64: {d:?}"),
        }
    }
    fn i8s(c: &Column) -> Vec<i8> {
        match &*c.data {
            ColData::I8(v) => v.clone(),
            d => panic!("not I8: {d:?}"),
        }
    }
    fn i16s(c: &Column) -> Vec<i16> {
        match &*c.data {
            ColData::I16(v) => v.clone(),
            d => panic!("not I16: {d:?}"),
        }
    }
    fn f64s(c: &Column) -> Vec<f64> {
        match &*c.data {
            ColData::F64(v) => v.clone(),
            d => panic!("not F64: {d:?}"),
        }
    }

    #[test]
    fn cast_numeric_to_numeric() {
        let d = col(Double, vec![8.9, -2.5, 2.5, f64::NULL, 3e10, -0.4]);
        let r = cast_column(&d, Int).unwrap();
        assert_eq!(r.ty, Int);
        assert_eq!(i32s(&r), vec![9, -3, 3, i32::NULL, i32::NULL, 0]);
        assert_eq!(i64s(&cast_column(&d, Long).unwrap()), vec![9, -3, 3, i64::NULL, 30_000_000_000, 0]);
        // integers wrap when narrowed; a wrap onto the sentinel is null
        let l = col(Long, vec![2_147_483_647, 2_147_483_648, i64::NULL]);
        assert_eq!(i32s(&cast_column(&l, Int).unwrap()), vec![2_147_483_647, i32::NULL, i32::NULL]);
        let i = col(Int, vec![32768, 65578, 32789, 5, i32::NULL]);
        assert_eq!(i16s(&cast_column(&i, Short).unwrap()), vec![i16::NULL, 42, -32747, 5, i16::NULL]);
        // widening keeps nulls
        let c = col(Char, vec![99i8, i8::NULL]);
        assert_eq!(i64s(&cast_column(&c, Long).unwrap()), vec![99, i64::NULL]);
        let f = cast_column(&col(Int, vec![1, i32::NULL]), Double).unwrap();
        assert_eq!(f64s(&f)[0], 1.0);
        assert!(f.is_null(1));
        let fl = cast_column(&col(Double, vec![1.5, f64::NULL, f64::INFINITY]), Float).unwrap();
        assert_eq!(fl.ty, Float);
        assert!(fl.is_null(1) && !fl.is_null(2));
        assert!(cast_column(&fl, Double).unwrap().is_null(1));
        // → BOOL is nonzero
        let b = cast_column(&col(Double, vec![100.2, 0.0, f64::NULL]), Bool).unwrap();
        assert_eq!(i8s(&b), vec![1, 0, i8::NULL]);
        assert_eq!(i8s(&cast_column(&col(Int, vec![0, -3]), Bool).unwrap()), vec![0, 1]);
        assert_eq!(i32s(&cast_column(&col(Bool, vec![1i8, 0, i8::NULL]), Int).unwrap()), vec![1, 0, i32::NULL]);
        // empty
        let e = cast_column(&col(Double, Vec::<f64>::new()), Int).unwrap();
        assert_eq!((e.ty, e.len()), (Int, 0));
    }

    #[test]
    fn cast_integral_temporal() {
        assert_eq!(texts(&cast_column(&col(Int, vec![1]), Date).unwrap()), ["1970.01.02"]);
        assert_eq!(texts(&cast_column(&col(Int, vec![1]), DateHour).unwrap()), ["1970.01.01T01"]);
        assert_eq!(texts(&cast_column(&col(Int, vec![1]), NanoTimestamp).unwrap()), ["1970.01.01T00:00:00.000000001"]);
        assert_eq!(texts(&cast_column(&col(Int, vec![61, i32::NULL]), Second).unwrap()), ["00:01:01", ""]);
        assert_eq!(texts(&cast_column(&col(Long, vec![1_000_000_000]), NanoTime).unwrap()), ["00:00:01.000000000"]);
        let d = days_from_civil(2012, 1, 1) as i32;
        assert_eq!(i64s(&cast_column(&col(Date, vec![d, i32::NULL]), Long).unwrap()), vec![d as i64, i64::NULL]);
        assert_eq!(f64s(&cast_column(&col(Date, vec![d]), Double).unwrap()), vec![d as f64]);
        assert_eq!(texts(&cast_column(&col(Double, vec![1.6]), Date).unwrap()), ["1970.01.03"]);
    }

    #[test]
    fn rescale_matches_the_exact_conversion_for_every_pair() {
        // every unit-based temporal pair, on values around the epoch (negative ones are
        // before 1970), at the i32 edges, far out in i64, and nulls: the vectorised steps
        // give exactly what the 128-bit element-wise conversion gives
        let types = [Date, DateHour, DateTime, Timestamp, NanoTimestamp, Time, Minute, Second, NanoTime];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut v64: Vec<i64> = vec![0, 1, -1, 59, 60, -60, 86_399, 86_400, -86_400, 86_401, 3_599, 3_600, i64::NULL];
        v64.extend([i32::MAX as i64, i32::MIN as i64 + 1, (1 << 53) - 1, -(1 << 53) + 1, 1 << 53, i64::MAX, i64::MIN + 1]);
        for _ in 0..2000 {
            let r = next();
            let scale = [1_000i64, 100_000, 100_000_000, 1 << 40, 1 << 62][(r % 5) as usize];
            v64.push((next() % (2 * scale as u64)) as i64 - scale);
        }
        let v32: Vec<i32> = v64.iter().map(|&x| if x.is_null() { i32::NULL } else { x as i32 }).collect();
        let mut fast = 0;
        for &from in &types {
            for &to in &types {
                let Some(plan) = Rescale::between(from, to) else { continue };
                let exact = |x: i64| convert_temporal(from, to, x).map_or(i64::NULL, |y| y);
                match from.physical() {
                    Physical::I32 => {
                        // a product that could overflow (DATEHOUR -> NANOTIMESTAMP) declines
                        let Some(got) = plan.apply::<i32, i64>(&v32) else { continue };
                        fast += 1;
                        for (&x, &g) in v32.iter().zip(&got) {
                            let want = if x.is_null() { i64::NULL } else { exact(x as i64) };
                            assert_eq!(g, want, "{from} -> {to} of {x}");
                        }
                    }
                    _ => {
                        // large values send a column back to the exact path; check the part below 2^53
                        let small: Vec<i64> = v64.iter().copied().filter(|x| x.is_null() || x.unsigned_abs() < (1 << 53)).collect();
                        let Some(got) = plan.apply::<i64, i64>(&small) else { continue };
                        fast += 1;
                        for (&x, &g) in small.iter().zip(&got) {
                            let want = if x.is_null() { i64::NULL } else { exact(x) };
                            assert_eq!(g, want, "{from} -> {to} of {x}");
                        }
                        assert!(plan.apply::<i64, i64>(&[1 << 53]).is_none(), "2^53 must leave the fast path");
                    }
                }
            }
        }
        assert!(fast >= 40, "only {fast} pairs took the fast path");
        // a narrowing that does not fit is null, as in the element-wise path
        let p = Rescale::between(NanoTimestamp, DateTime).unwrap();
        let big = (i32::MAX as i64 + 10) * 1_000_000_000;
        assert_eq!(p.apply::<i64, i32>(&[big]).map(|v| v[0]), None); // beyond 2^53: exact path decides
        let p = Rescale::between(Timestamp, DateTime).unwrap();
        assert_eq!(p.apply::<i64, i32>(&[(i32::MAX as i64 + 10) * 1000]).unwrap(), vec![i32::NULL]);
    }

    #[test]
    fn cast_temporal_temporal() {
        let dt = (days_from_civil(2012, 6, 13) * 86_400 + 13 * 3600 + 30 * 60 + 10) as i32;
        let c = col(DateTime, vec![dt, i32::NULL]);
        assert_eq!(texts(&cast_column(&c, Timestamp).unwrap()), ["2012.06.13T13:30:10.000", ""]);
        assert_eq!(texts(&cast_column(&c, Date).unwrap()), ["2012.06.13", ""]);
        assert_eq!(texts(&cast_column(&c, Month).unwrap()), ["2012.06M", ""]);
        assert_eq!(texts(&cast_column(&c, Second).unwrap()), ["13:30:10", ""]);
        assert_eq!(texts(&cast_column(&c, DateHour).unwrap()), ["2012.06.13T13", ""]);
        let m = col(Month, vec![2016 * 12 + 2]);
        assert_eq!(texts(&cast_column(&m, Date).unwrap()), ["2016.03.01"]);
        assert_eq!(texts(&cast_column(&m, Timestamp).unwrap()), ["2016.03.01T00:00:00.000"]);
        let e = cast_column(&col(Date, vec![0]), Second).unwrap_err();
        assert!(e.message.contains("DATE") && e.message.contains("SECOND"), "{}", e.message);
        assert!(cast_column(&m, Minute).is_err());
        assert!(cast_column(&col(Second, vec![5]), DateTime).is_err());
        // out of the target's range ⇒ null
        let far = col(Date, vec![days_from_civil(2100, 1, 1) as i32]);
        assert!(cast_column(&far, DateTime).unwrap().is_null(0));
        let e = cast_column(&col(Date, Vec::<i32>::new()), Timestamp).unwrap();
        assert_eq!((e.ty, e.len()), (Timestamp, 0));
    }

    #[test]
    fn cast_text_to_numbers() {
        for ty in [String, Symbol] {
            let s = strs(ty, &["10.9", "-3", "abc", "", "2147483648", "120.9c"]);
            assert_eq!(i32s(&cast_column(&s, Int).unwrap()), vec![10, -3, i32::NULL, i32::NULL, i32::NULL, 120]);
            assert_eq!(i16s(&cast_column(&s, Short).unwrap())[5], 120);
            assert_eq!(i64s(&cast_column(&s, Long).unwrap())[4], 2_147_483_648);
            let d = cast_column(&s, Double).unwrap();
            assert_eq!(f64s(&d)[0], 10.9);
            assert!(d.is_null(2) && d.is_null(3));
        }
        let b = strs(String, &["true", "false", "1", "0", "x", ""]);
        assert_eq!(i8s(&cast_column(&b, Bool).unwrap()), vec![1, 0, 1, 0, i8::NULL, i8::NULL]);
        let f = cast_column(&strs(String, &["inf", "-inf", "123"]), Float).unwrap();
        assert!(
            matches!(&*f.data, ColData::F32(v) if v[0] == f32::INFINITY && v[1] == f32::NEG_INFINITY && v[2] == 123.0)
        );
        let l = cast_column(&strs(String, &["9223372036854775808"]), Long).unwrap();
        assert_eq!(i64s(&l), vec![i64::MAX]);
        let c = cast_column(&strs(String, &["99", "a", ""]), Char).unwrap();
        assert_eq!(i8s(&c), vec![99, 97, i8::NULL]);
        assert!(cast_column(&strs(String, &["990"]), Char).is_err());
        let e = cast_column(&strs(String, &[]), Int).unwrap();
        assert_eq!((e.ty, e.len()), (Int, 0));
    }

    #[test]
    fn cast_text_to_temporal() {
        let s = strs(String, &["2012.06.13", "2012-06-13", "20120613", "bad", ""]);
        assert_eq!(texts(&cast_column(&s, Date).unwrap()), ["2012.06.13", "2012.06.13", "2012.06.13", "", ""]);
        let sym = strs(Symbol, &["13:30:10", "9:30:00", "13:30:10.008", "x"]);
        assert_eq!(texts(&cast_column(&sym, Second).unwrap()), ["13:30:10", "09:30:00", "13:30:10", ""]);
        assert_eq!(texts(&cast_column(&sym, Time).unwrap()), ["13:30:10.000", "09:30:00.000", "13:30:10.008", ""]);
        let ts = strs(String, &["2012.06.13T13:30:10.008", "2012.06.13 13:30:10"]);
        assert_eq!(
            texts(&cast_column(&ts, Timestamp).unwrap()),
            ["2012.06.13T13:30:10.008", "2012.06.13T13:30:10.000"]
        );
        assert_eq!(texts(&cast_column(&ts, NanoTimestamp).unwrap())[0], "2012.06.13T13:30:10.008000000");
        assert_eq!(
            texts(&cast_column(&strs(String, &["2012.06M", "2012.12"]), Month).unwrap()),
            ["2012.06M", "2012.12M"]
        );
        assert_eq!(texts(&cast_column(&strs(String, &["13:30m"]), Minute).unwrap()), ["13:30m"]);
    }

    #[test]
    fn cast_to_text() {
        let i = col(Int, vec![10, i32::NULL, -5]);
        assert_eq!(texts(&i), ["10", "", "-5"]);
        let s = cast_column(&i, Symbol).unwrap();
        assert_eq!(s.ty, Symbol);
        assert_eq!((s.str_at(0), s.str_at(1)), (Some("10"), Some("")));
        assert_eq!(texts(&col(Double, vec![108.5])), ["108.5"]);
        assert_eq!(texts(&col(Char, vec![99i8, i8::NULL])), ["c", ""]);
        assert_eq!(texts(&col(Bool, vec![1i8, 0])), ["true", "false"]);
        let d = days_from_civil(2012, 6, 13) as i32;
        assert_eq!(texts(&col(Date, vec![d])), ["2012.06.13"]);
        // STRING ↔ SYMBOL
        let x = strs(String, &["XOM", "y", ""]);
        let y = cast_column(&x, Symbol).unwrap();
        assert!(matches!(&*y.data, ColData::Sym(_)));
        assert_eq!(texts(&y), ["XOM", "y", ""]);
        assert!(y.is_null(2));
        assert_eq!(cast_column(&strs(String, &[]), Symbol).unwrap().len(), 0);
    }

    #[test]
    fn cast_temporal_parse_format_columns() {
        let c = temporal_parse_column(&strs(String, &["14-02-2018", "bad", ""]), "dd-MM-yyyy").unwrap();
        assert_eq!(c.ty, Date);
        assert_eq!(texts(&c), ["2018.02.14", "", ""]);
        assert!(temporal_parse_column(&strs(String, &["x"]), "H:m:s.S").is_err());
        let f = temporal_format_column(&c, "yyyy/MM/dd").unwrap();
        assert_eq!(texts(&f), ["2018/02/14", "", ""]);
    }
}
