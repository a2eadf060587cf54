//! Text of single elements: floating point (§3.1.1), CHAR, BOOL, binary types, typed-null
//! literals. It sits below the kernels (casts to STRING and string concatenation use it)
//! and below the printer (`fmt`, which re-exports it), so kernels never import `fmt`.

use crate::column::{ColData, Column};
use crate::null::Native;
use crate::temporal::format_temporal;
use crate::types::DataType;

/// Magnitudes at or above this print in scientific form (`6.02098E6`).
pub const SCI_UPPER: f64 = 1e6;
/// Non-zero magnitudes at or below this print in scientific form (`2.757998E-16`).
pub const SCI_LOWER: f64 = 1e-6;
/// Digits after the point, before trailing zeros are removed.
pub const FLOAT_DECIMALS: usize = 6;

/// Console form of a DOUBLE: up to 6 decimals with trailing zeros removed
/// (`0.841471`, `4.5`, `2`), or `0.######E0` scientific form when |x| >= 1e6 or
/// 0 < |x| <= 1e-6 (`6.02098E6`, `2.757998E-16`). Null (and NaN) → empty string.
pub fn format_double(x: f64) -> String {
    if x.is_nan() {
        // a stored NaN is a value (null.rs)
        return "NaN".into();
    }
    if x.is_null() {
        return String::new();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if a >= SCI_UPPER || a <= SCI_LOWER {
        let s = format!("{:.*e}", FLOAT_DECIMALS, x);
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = trim_fraction(mant);
        format!("{mant}E{exp}")
    } else {
        let s = format!("{:.*}", FLOAT_DECIMALS, x);
        let t = trim_fraction(&s);
        if t == "-0" { "0".into() } else { t.to_string() }
    }
}

/// Console form of a FLOAT (same rule as DOUBLE, applied to the widened value).
pub fn format_float(x: f32) -> String {
    if x.is_null() && !x.is_nan() {
        return String::new();
    }
    format_double(x as f64)
}

fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// CHAR element text without quotes: the character when printable ASCII, else its code.
pub fn char_text(c: i8) -> String {
    if (32..=126).contains(&c) {
        (c as u8 as char).to_string()
    } else {
        c.to_string()
    }
}

/// CHAR as printed in a scalar echo or a vector: `'a'` (non-printable: the code).
pub fn char_quoted(c: i8) -> String {
    if (32..=126).contains(&c) {
        format!("'{}'", c as u8 as char)
    } else {
        c.to_string()
    }
}

fn hex32(v: i128) -> String {
    format!("{:032x}", v as u128)
}

/// 128-bit types: INT128 as 32 hex digits, UUID as 8-4-4-4-12, IPADDR as dotted IPv4
/// when the upper 96 bits are zero, else IPv6, COMPLEX as `re+imi` (`2.3+4i`, `1-3i`).
pub fn format_i128(ty: DataType, v: i128) -> String {
    match ty {
        DataType::Uuid => {
            let h = hex32(v);
            format!(
                "{}-{}-{}-{}-{}",
                &h[0..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..32]
            )
        }
        DataType::IpAddr => {
            let u = v as u128;
            if u >> 32 == 0 {
                std::net::Ipv4Addr::from(u as u32).to_string()
            } else {
                std::net::Ipv6Addr::from(u).to_string()
            }
        }
        DataType::Int128 => hex32(v),
        DataType::Complex => {
            // real part in the low 8 bytes, imaginary part in the high 8 bytes
            let u = v as u128;
            let re = f64::from_bits(u as u64);
            let im = f64::from_bits((u >> 64) as u64);
            let ims = format_double(im);
            let sign = if ims.starts_with('-') { "" } else { "+" };
            format!("{}{sign}{ims}i", format_double(re))
        }
        _ => v.to_string(),
    }
}

/// DECIMAL text: the unscaled integer with exactly `scale` decimals (`142.00`, `-0.05`).
/// The caller handles nulls (the column's `DataType` does not carry the scale).
pub fn format_decimal(unscaled: i128, scale: u32) -> String {
    if scale == 0 {
        return unscaled.to_string();
    }
    let p = 10u128.pow(scale);
    let a = unscaled.unsigned_abs();
    let sign = if unscaled < 0 { "-" } else { "" };
    format!("{sign}{}.{:0w$}", a / p, a % p, w = scale as usize)
}

/// The null literal a typed null scalar echoes as (`00i`, `00F`, `00d` ...); empty for
/// types without one (STRING, SYMBOL ...).
pub fn null_literal(ty: DataType) -> &'static str {
    use DataType::*;
    match ty {
        Bool => "00b",
        Char => "00c",
        Short => "00h",
        Int => "00i",
        Long => "00l",
        Date => "00d",
        Month => "00M",
        Time => "00t",
        Minute => "00m",
        Second => "00s",
        DateTime => "00D",
        Timestamp => "00T",
        NanoTime => "00n",
        NanoTimestamp => "00N",
        Float => "00f",
        Double => "00F",
        _ => "",
    }
}

/// Text of element `i` as it appears inside a vector or a table cell, without quotes
/// (null → empty string). Also the result of `string(x)` for one element.
pub fn format_elem(col: &Column, i: usize) -> String {
    if let ColData::Array(a) = &*col.data {
        return array_row_text(a, i);
    }
    // a NaN is a value and prints as `NaN` (null.rs)
    if col.is_null_strict(i) {
        return String::new();
    }
    if col.ty.is_temporal() {
        return format_temporal(col.ty, col.i64_at(i).unwrap_or(0));
    }
    if let Some(s) = col.ty.decimal_scale() {
        return format_decimal(col.unscaled_at(i).unwrap_or(0), s as u32);
    }
    match &*col.data {
        ColData::Str(s) => s.get(i).to_string(),
        ColData::Sym(s) => s.get(i).to_string(),
        ColData::F64(v) => format_double(v[i]),
        ColData::F32(v) => format_float(v[i]),
        ColData::I8(v) => match col.ty {
            DataType::Bool => (if v[i] != 0 { "true" } else { "false" }).into(),
            DataType::Char => char_text(v[i]),
            _ => v[i].to_string(),
        },
        ColData::I16(v) => v[i].to_string(),
        ColData::I32(v) => v[i].to_string(),
        ColData::I64(v) => v[i].to_string(),
        ColData::I128(v) => format_i128(col.ty, v[i]),
        ColData::Array(a) => array_row_text(a, i),
    }
}

/// Row `r` of an array vector as a table cell shows it: `[1,2,3]` (nulls empty).
pub fn array_row_text(a: &crate::column::ArrayVec, r: usize) -> String {
    let mut s = String::from("[");
    for p in a.offsets[r]..a.offsets[r + 1] {
        if p > a.offsets[r] {
            s.push(',');
        }
        s.push_str(&format_elem_quoted(&a.data, p));
    }
    s.push(']');
    s
}

/// Element text as it appears inside a vector, pair or tuple: strings double-quoted,
/// chars single-quoted, nulls empty.
pub fn format_elem_quoted(col: &Column, i: usize) -> String {
    if let ColData::Array(a) = &*col.data {
        return array_row_text(a, i);
    }
    if col.is_null_strict(i) {
        return String::new();
    }
    match &*col.data {
        ColData::Str(s) => format!("\"{}\"", s.get(i)),
        ColData::Sym(s) => format!("\"{}\"", s.get(i)),
        ColData::I8(v) if col.ty == DataType::Char => char_quoted(v[i]),
        _ => format_elem(col, i),
    }
}

/// A scalar as the console echoes it: strings raw, chars quoted, typed nulls as their
/// null literal (`00i`).
pub fn format_scalar(col: &Column) -> String {
    if col.is_empty() {
        return String::new();
    }
    if col.is_null_strict(0) {
        return null_literal(col.ty).to_string();
    }
    match &*col.data {
        ColData::I8(v) if col.ty == DataType::Char => char_quoted(v[0]),
        _ => format_elem(col, 0),
    }
}
