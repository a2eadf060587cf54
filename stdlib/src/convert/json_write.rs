//! Builtins: `toJson` (DolphinDB's self-describing JSON with `name`, `form`, `type`,
//! `size`, `value`) and `toStdJson` (plain JSON). `name` is the variable written at the call
//! site (`toJson(x)` ⇒ `"name":"x"`, funcs/t/toJson.md), empty for an expression.

use beluga_runtime::CallCtx;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::fmt::format_elem;
use beluga_runtime::registry::{f, Builtin, Kind};
use beluga_runtime::value::DictVals;
use beluga_runtime::{DataType, Error, Result, Value};
use std::fmt::Write;

use crate::util::describe;

pub(crate) fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Element i as a JSON value: numbers and BOOL bare, everything else a string, null → null.
/// `std`: temporal values use a space between date and time (`2012.06.13 13:30:10`).
fn push_elem(out: &mut String, c: &Column, i: usize, std: bool) {
    if c.is_null(i) {
        out.push_str("null");
        return;
    }
    let t = c.ty;
    if t == DataType::Bool || (t.is_numeric() && t != DataType::Char) {
        let s = format_elem(c, i);
        match &*c.data {
            ColData::F64(v) if !v[i].is_finite() => out.push_str("null"),
            ColData::F32(v) if !v[i].is_finite() => out.push_str("null"),
            ColData::F64(v) => {
                let _ = write!(out, "{}", v[i]);
            }
            ColData::F32(v) => {
                let _ = write!(out, "{}", v[i]);
            }
            _ => out.push_str(&s),
        }
        return;
    }
    let mut s = format_elem(c, i);
    if std && t.is_temporal() {
        s = s.replacen('T', " ", 1);
    }
    push_json_str(out, &s);
}

fn type_name(t: DataType) -> String {
    t.name().to_ascii_lowercase()
}

/// The most elements `toJson` writes of a vector, set, matrix or dictionary.
const JSON_MAX_ELEMS: usize = 300_000;
/// The most rows `toJson` writes of a table.
const JSON_MAX_ROWS: usize = 100_000;

fn col_json(out: &mut String, name: &str, c: &Column) {
    col_json_max(out, name, c, JSON_MAX_ELEMS)
}

/// A column as a JSON vector object, cut after `max` elements (DolphinDB's `toJson` limits).
fn col_json_max(out: &mut String, name: &str, c: &Column, max: usize) {
    let n = c.len().min(max);
    out.push_str("{\"name\":");
    push_json_str(out, name);
    let _ = write!(out, ",\"form\":\"vector\",\"type\":\"{}\",\"size\":\"{}\",\"value\":[", type_name(c.ty), n);
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        push_elem(out, c, i, false);
    }
    out.push_str("]}");
}

fn to_json_value(out: &mut String, name: &str, v: &Value) -> Result<()> {
    match v {
        Value::Void => out.push_str("{\"name\":\"\",\"form\":\"scalar\",\"type\":\"void\",\"size\":\"1\",\"value\":null}"),
        Value::Scalar(c) => {
            out.push_str("{\"name\":");
            push_json_str(out, name);
            let _ = write!(out, ",\"form\":\"scalar\",\"type\":\"{}\",\"size\":\"1\",\"value\":", type_name(c.ty));
            if c.is_null(0) {
                out.push_str("null");
            } else {
                push_json_str(out, &format_elem(c, 0));
            }
            out.push('}');
        }
        Value::Vector(c) => col_json(out, name, c),
        Value::Pair(c) => {
            col_json(out, name, c);
            let k = out.rfind("\"form\":\"vector\"").unwrap_or(0);
            out.replace_range(k..k + 15, "\"form\":\"pair\"");
        }
        Value::Set(s) => {
            col_json(out, name, &s.items);
            let k = out.rfind("\"form\":\"vector\"").unwrap_or(0);
            out.replace_range(k..k + 15, "\"form\":\"set\"");
        }
        Value::Matrix(m) => {
            out.push_str("{\"name\":");
            push_json_str(out, name);
            let _ = write!(
                out,
                ",\"form\":\"matrix\",\"type\":\"{}\",\"size\":\"{}\",\"rows\":\"{}\",\"cols\":\"{}\",\"value\":[",
                type_name(m.data.ty),
                m.rows * m.cols,
                m.rows,
                m.cols
            );
            for i in 0..m.data.len().min(JSON_MAX_ELEMS) {
                if i > 0 {
                    out.push(',');
                }
                push_elem(out, &m.data, i, false);
            }
            out.push_str("]}");
        }
        Value::Table(t) => {
            out.push_str("{\"name\":");
            push_json_str(out, name);
            let _ = write!(out, ",\"form\":\"table\",\"size\":\"{}\",\"value\":[", t.rows().min(JSON_MAX_ROWS));
            for (k, (n, c)) in t.names.iter().zip(&t.cols).enumerate() {
                if k > 0 {
                    out.push(',');
                }
                col_json_max(out, n, c, JSON_MAX_ROWS);
            }
            out.push_str("]}");
        }
        Value::Dict(d) => {
            out.push_str("{\"name\":");
            push_json_str(out, name);
            let _ = write!(out, ",\"form\":\"dictionary\",\"type\":\"{}\",\"size\":\"{}\",\"value\":[", type_name(d.val_type), d.keys.len());
            col_json(out, "key", &d.keys);
            out.push(',');
            match &d.vals {
                DictVals::Col(c) => col_json(out, "value", c),
                DictVals::Any(items) => to_json_value(out, "value", &Value::tuple(items.clone()))?,
            }
            out.push_str("]}");
        }
        Value::Tuple(items) => {
            out.push_str("{\"name\":");
            push_json_str(out, name);
            let _ = write!(out, ",\"form\":\"vector\",\"type\":\"any\",\"size\":\"{}\",\"value\":[", items.len());
            for (k, x) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                to_json_value(out, "", x)?;
            }
            out.push_str("]}");
        }
        other => return Err(Error::unsupported("toJson", describe(other))),
    }
    Ok(())
}

fn to_json(ctx: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mut out = String::new();
    to_json_value(&mut out, ctx.arg_name(0).unwrap_or(""), &a[0])?;
    Ok(Value::string(&out))
}

fn std_json(out: &mut String, v: &Value) -> Result<()> {
    let list = |out: &mut String, c: &Column| {
        out.push('[');
        for i in 0..c.len() {
            if i > 0 {
                out.push_str(", ");
            }
            push_elem(out, c, i, true);
        }
        out.push(']');
    };
    match v {
        Value::Void => out.push_str("null"),
        Value::Scalar(c) => push_elem(out, c, 0, true),
        Value::Vector(c) => list(out, c),
        Value::Set(s) => {
            // sets print newest first in DolphinDB
            let idx: Vec<usize> = (0..s.items.len()).rev().collect();
            let c = s.items.take_usize(&idx);
            out.push('[');
            for i in 0..c.len() {
                if i > 0 {
                    out.push(',');
                }
                push_elem(out, &c, i, true);
            }
            out.push(']');
        }
        Value::Tuple(items) => {
            out.push('[');
            for (k, x) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                std_json(out, x)?;
            }
            out.push(']');
        }
        Value::Table(t) => {
            out.push('[');
            for r in 0..t.rows() {
                if r > 0 {
                    out.push(',');
                }
                out.push('{');
                for (k, (n, c)) in t.names.iter().zip(&t.cols).enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    push_json_str(out, n);
                    out.push_str(": ");
                    push_elem(out, c, r, true);
                }
                out.push('}');
            }
            out.push(']');
        }
        Value::Dict(d) => {
            out.push('{');
            let order: Vec<usize> = if d.ordered { (0..d.keys.len()).collect() } else { (0..d.keys.len()).rev().collect() };
            for (k, &i) in order.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                push_json_str(out, &format_elem(&d.keys, i));
                out.push_str(": ");
                match &d.vals {
                    DictVals::Col(c) => push_elem(out, c, i, true),
                    DictVals::Any(items) => std_json(out, &items[i])?,
                }
            }
            out.push('}');
        }
        other => return Err(Error::unsupported("toStdJson", describe(other))),
    }
    Ok(())
}

fn to_std_json(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if matches!(a[0].data_type(), DataType::Uuid | DataType::IpAddr | DataType::Int128) || matches!(a[0], Value::Matrix(_) | Value::Pair(_)) {
        return Err(Error::unsupported("toStdJson", describe(&a[0])));
    }
    let mut out = String::new();
    std_json(&mut out, &a[0])?;
    Ok(Value::string(&out))
}

pub const DEFS: &[Builtin] = &[
    f("toJson", Kind::System, 1, 1, to_json),
    f("toStdJson", Kind::System, 1, 1, to_std_json),
];
