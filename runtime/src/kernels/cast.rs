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

use crate::column::{ColData, Column, StrCol, SymCol};
use crate::error::{Error, Result};
use crate::elemfmt::format_elem;
use crate::kernels::parse::{TemporalPattern, parse_bool, parse_f64_prefix, parse_int_prefix, parse_temporal};
use crate::null::Native;
use crate::temporal::convert_temporal;
use crate::types::{Category, DataType, Physical};
use crate::value::{Key, Matrix, SetVal, Value};
use ahash::AHashMap;
use std::cell::Cell;
use std::sync::Arc;

fn cannot(from: DataType, to: DataType, why: &str) -> Error {
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
    match &*col.data {
        ColData::I8(v) => convert(v, mode),
        ColData::I16(v) => convert(v, mode),
        ColData::I32(v) => convert(v, mode),
        ColData::I64(v) => convert(v, mode),
        ColData::F32(v) => convert(v, mode),
        ColData::F64(v) => convert(v, mode),
        // callers only pass numeric storage
        _ => vec![D::NULL; col.len()],
    }
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
        (_, Physical::I8) => ColData::I8(convert_from(col, mode)),
        (_, Physical::I16) => ColData::I16(convert_from(col, mode)),
        (_, Physical::I32) => ColData::I32(convert_from(col, mode)),
        (_, Physical::I64) => ColData::I64(convert_from(col, mode)),
        (_, Physical::F32) => ColData::F32(convert_from(col, mode)),
        (_, Physical::F64) => ColData::F64(convert_from(col, mode)),
        _ => return Err(cannot(col.ty, to, "")),
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
    v.iter()
        .map(|&x| if x.is_null() { D::NULL } else { convert_temporal(from, to, x.to_i64()).map_or(D::NULL, fit::<D>) })
        .collect()
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

// ---------------------------------------------------------------- values

/// Convert a value to type `to`, keeping its form: scalar, vector, pair, matrix and set
/// convert their elements; VOID becomes the typed null; a tuple converts element-wise;
/// a DURATION converts to its text (`string(duration("20H"))` ⇒ "20H").
pub fn cast_value(v: &Value, to: DataType) -> Result<Value> {
    Ok(match v {
        Value::Void if to == DataType::Void => Value::Void,
        Value::Void if to.physical() == Physical::None => return Err(cannot(DataType::Void, to, "")),
        Value::Void => Value::null_of(to),
        // ANY is the type of a tuple: a vector becomes the tuple of its elements, a tuple or a
        // scalar stays as it is (`cast(1 2 3, ANY)` ⇒ `(1,2,3)`)
        Value::Vector(c) | Value::Pair(c) if to == DataType::Any && c.ty != DataType::Any => {
            Value::tuple((0..c.len()).map(|i| Value::Scalar(c.take_usize(&[i]))).collect())
        }
        Value::Tuple(_) | Value::Scalar(_) if to == DataType::Any => v.clone(),
        Value::Scalar(c) => Value::Scalar(cast_column(c, to)?),
        Value::Vector(c) => Value::Vector(cast_column(c, to)?),
        Value::Pair(c) => Value::Pair(cast_column(c, to)?),
        Value::Matrix(m) => Value::Matrix(Arc::new(Matrix {
            data: cast_column(&m.data, to)?,
            rows: m.rows,
            cols: m.cols,
            row_labels: m.row_labels.clone(),
            col_labels: m.col_labels.clone(),
        })),
        Value::Set(s) => {
            let items = cast_column(&s.items, to)?;
            let mut index = AHashMap::with_capacity(items.len());
            let mut keep = Vec::with_capacity(items.len());
            for i in 0..items.len() {
                let k = Key::of(&items, i);
                if !index.contains_key(&k) {
                    index.insert(k, keep.len());
                    keep.push(i);
                }
            }
            let items = if keep.len() == items.len() { items } else { items.take_usize(&keep) };
            Value::Set(Arc::new(SetVal { items, index }))
        }
        Value::Tuple(items) => {
            Value::Tuple(Arc::new(items.iter().map(|x| cast_value(x, to)).collect::<Result<Vec<_>>>()?))
        }
        Value::Type(t) => cast_value(&Value::int(t.id()), to)?,
        Value::Constant(_, n) => cast_value(&Value::int(*n), to)?,
        Value::Duration(n, unit) if to.is_literal() => cast_value(&Value::string(&format!("{n}{unit}")), to)?,
        other => return Err(cannot(other.data_type(), to, "")),
    })
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
    fn cast_values_keep_form() {
        let v = cast_value(&Value::Void, Int).unwrap();
        assert!(matches!(&v, Value::Scalar(c) if c.ty == Int && c.is_null(0)));
        assert!(matches!(cast_value(&Value::Void, Void).unwrap(), Value::Void));
        let v = cast_value(&Value::double(8.9), Int).unwrap();
        assert_eq!(v.as_i64(), Some(9));
        assert_eq!(v.data_type(), Int);
        let p = cast_value(&Value::Pair(col(Int, vec![1, 2])), Double).unwrap();
        assert!(matches!(&p, Value::Pair(c) if c.ty == Double));
        let vv = cast_value(&Value::string_vec(["IBM", "MS"]), Symbol).unwrap();
        assert!(matches!(&vv, Value::Vector(c) if c.ty == Symbol && c.len() == 2));
        let m = Value::Matrix(Arc::new(Matrix {
            data: col(Int, vec![1, 2, 3, 4]),
            rows: 2,
            cols: 2,
            row_labels: None,
            col_labels: None,
        }));
        assert!(matches!(cast_value(&m, Double).unwrap(), Value::Matrix(m) if m.data.ty == Double && m.rows == 2));
        let t = cast_value(&Value::tuple(vec![Value::int(1), Value::string("2")]), Long).unwrap();
        assert!(matches!(&t, Value::Tuple(x) if x[1].as_i64() == Some(2) && x[0].data_type() == Long));
        let set = SetVal { items: col(Double, vec![1.1, 1.2, 2.0]), index: AHashMap::new() };
        let s = cast_value(&Value::Set(Arc::new(set)), Int).unwrap();
        assert!(matches!(&s, Value::Set(s) if s.items.len() == 2 && s.index.len() == 2));
        let d = cast_value(&Value::Duration(20, Arc::from("H")), String).unwrap();
        assert_eq!(d.as_str(), Some("20H"));
        assert_eq!(cast_value(&Value::string("a"), Any).unwrap().as_str(), Some("a"));
        let t = cast_value(&Value::Vector(col(Int, vec![4, 5])), Any).unwrap();
        assert!(matches!(&t, Value::Tuple(x) if x.len() == 2 && x[1].as_i64() == Some(5)));
        assert!(cast_value(&Value::int(1), Uuid).is_err());
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
