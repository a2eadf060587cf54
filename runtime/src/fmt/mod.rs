//! Console printing (LANGUAGE.md §3).

use crate::column::{ColData, Column};
use crate::null::Native;
use crate::temporal::format_temporal;

/// Text of element `i` as it appears inside a vector or a table cell, without quotes
/// (null → empty string). Also the result of `string(x)` for one element.
pub fn format_elem(col: &Column, i: usize) -> String {
    if col.is_null(i) {
        return String::new();
    }
    if col.ty.is_temporal() {
        return format_temporal(col.ty, col.i64_at(i).unwrap_or(0));
    }
    match &*col.data {
        ColData::Str(s) => s.get(i).to_string(),
        ColData::Sym(s) => s.get(i).to_string(),
        ColData::F64(v) => format_double(v[i]),
        ColData::F32(v) => format_double(v[i] as f64),
        ColData::I8(v) if col.ty == crate::types::DataType::Bool => (if v[i] != 0 { "true" } else { "false" }).into(),
        ColData::I8(v) => v[i].to_string(),
        ColData::I16(v) => v[i].to_string(),
        ColData::I32(v) => v[i].to_string(),
        ColData::I64(v) => v[i].to_string(),
        ColData::I128(v) => v[i].to_string(),
    }
}

/// Floating-point console form (provisional; see §3.1.1).
pub fn format_double(x: f64) -> String {
    if x.is_null() {
        return String::new();
    }
    let s = format!("{:.6}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}
