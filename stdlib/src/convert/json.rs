//! Builtins: JSON — `toJson`/`fromJson` (DolphinDB's self-describing form with `name`,
//! `form`, `type`, `size`, `value`), `toStdJson`/`fromStdJson` (plain JSON),
//! `jsonExtract`, `parseJsonTable`/`parsejsonTable`. A small recursive-descent JSON parser
//! lives here (no serde in the workspace).
//!
//! The writers (`toJson`, `toStdJson`) are in `convert_json_write`.

use beluga_runtime::CallCtx;
use ahash::AHashMap;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::eval::unify_scalars;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::value::{Dict, DictVals, Key};
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::fmt::Write;

use crate::convert_json_write::push_json_str;
use std::sync::Arc;

use crate::util::{describe, opt, str_arg};

// ---------------------------------------------------------------- parser

#[derive(Clone, Debug)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// the number and, when written without fraction/exponent, its integer value
    Num(f64, Option<i64>),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

struct P<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> P<'a> {
    fn err(&self, what: &str) -> Error {
        Error::arg(format!("Invalid JSON at position {}: {what}", self.i))
    }
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn lit(&mut self, w: &str, v: Json) -> Result<Json> {
        if self.b[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.err("unexpected token"))
        }
    }
    fn value(&mut self, depth: usize) -> Result<Json> {
        if depth > 512 {
            return Err(self.err("nesting too deep"));
        }
        self.ws();
        let Some(&c) = self.b.get(self.i) else { return Err(self.err("unexpected end")) };
        match c {
            b'n' => self.lit("null", Json::Null),
            b't' => self.lit("true", Json::Bool(true)),
            b'f' => self.lit("false", Json::Bool(false)),
            b'"' => Ok(Json::Str(self.string()?)),
            b'[' => {
                self.i += 1;
                let mut v = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(v));
                        }
                        _ => return Err(self.err("expected , or ]")),
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut v = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(v));
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return Err(self.err("expected a key"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return Err(self.err("expected :"));
                    }
                    self.i += 1;
                    let x = self.value(depth + 1)?;
                    v.push((k, x));
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(v));
                        }
                        _ => return Err(self.err("expected , or }")),
                    }
                }
            }
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.err("unexpected character")),
        }
    }
    fn number(&mut self) -> Result<Json> {
        let s = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        let mut int = true;
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'0'..=b'9' => {}
                b'.' | b'e' | b'E' | b'+' | b'-' => int = false,
                _ => break,
            }
            self.i += 1;
        }
        let t = std::str::from_utf8(&self.b[s..self.i]).map_err(|_| self.err("bad number"))?;
        let f: f64 = t.parse().map_err(|_| self.err("bad number"))?;
        Ok(Json::Num(f, if int { t.parse::<i64>().ok() } else { None }))
    }
    fn string(&mut self) -> Result<String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.b.get(self.i) else { return Err(self.err("unterminated string")) };
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.b.get(self.i) else { return Err(self.err("bad escape")) };
                    self.i += 1;
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'/' => out.push(b'/'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let h = std::str::from_utf8(self.b.get(self.i..self.i + 4).ok_or_else(|| self.err("bad \\u"))?)
                                .map_err(|_| self.err("bad \\u"))?;
                            let mut cp = u32::from_str_radix(h, 16).map_err(|_| self.err("bad \\u"))?;
                            self.i += 4;
                            if (0xD800..0xDC00).contains(&cp) && self.b.get(self.i..self.i + 2) == Some(b"\\u") {
                                let h2 = std::str::from_utf8(self.b.get(self.i + 2..self.i + 6).unwrap_or(b"0000")).unwrap_or("0000");
                                if let Ok(lo) = u32::from_str_radix(h2, 16) {
                                    if (0xDC00..0xE000).contains(&lo) {
                                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                        self.i += 6;
                                    }
                                }
                            }
                            let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(self.err("bad escape")),
                    }
                }
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.err("invalid UTF-8"))
    }
}

pub(crate) fn parse_json(s: &str) -> Result<Json> {
    let mut p = P { b: s.as_bytes(), i: 0 };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.b.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(v)
}

// ---------------------------------------------------------------- reading

/// A JSON scalar as a DolphinDB scalar (numbers: LONG when integral, else DOUBLE).
fn json_scalar(j: &Json) -> Option<Value> {
    Some(match j {
        Json::Null => Value::Void,
        Json::Bool(b) => Value::bool(*b),
        Json::Num(_, Some(i)) => Value::long(*i),
        Json::Num(f, None) => Value::double(*f),
        Json::Str(s) => Value::string(s),
        _ => return None,
    })
}

/// Plain JSON → DolphinDB: objects become dictionaries (STRING keys, insertion order),
/// arrays typed vectors when their elements unify, else tuples.
fn from_std(j: &Json) -> Result<Value> {
    Ok(match j {
        Json::Arr(items) => {
            let vals: Vec<Value> = items.iter().map(from_std).collect::<Result<_>>()?;
            if !vals.is_empty() && vals.iter().all(|v| matches!(v, Value::Scalar(_) | Value::Void)) && !vals.iter().all(|v| matches!(v, Value::Void)) {
                if let Some(v) = unify_scalars(&vals)? {
                    return Ok(v);
                }
            }
            Value::tuple(vals)
        }
        Json::Obj(kv) => {
            let keys = Column::new(
                DataType::String,
                ColData::Str(beluga_runtime::column::StrCol::from_iter(kv.iter().map(|(k, _)| k.as_str()))),
            );
            let vals: Vec<Value> = kv.iter().map(|(_, v)| from_std(v)).collect::<Result<_>>()?;
            let mut index = AHashMap::with_capacity(keys.len());
            for i in 0..keys.len() {
                index.insert(Key::of(&keys, i), i);
            }
            Value::Dict(Arc::new(Dict {
                keys,
                vals: DictVals::Any(vals),
                index,
                ordered: true,
                key_type: DataType::String,
                val_type: DataType::Any,
            }))
        }
        other => json_scalar(other).unwrap_or(Value::Void),
    })
}

fn from_std_json(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    from_std(&parse_json(str_arg("fromStdJson", &a[0], "X")?)?)
}

fn obj_get<'a>(kv: &'a [(String, Json)], k: &str) -> Option<&'a Json> {
    kv.iter().find(|(n, _)| n == k).map(|(_, v)| v)
}

/// A column of type `ty` from JSON values (text parsed as by a cast).
fn json_column(ty: DataType, items: &[Json]) -> Result<Column> {
    let mut text = beluga_runtime::column::StrCol::with_capacity(items.len(), 0);
    let mut nums: Vec<f64> = Vec::with_capacity(items.len());
    let all_num = items.iter().all(|j| matches!(j, Json::Num(..) | Json::Null | Json::Bool(_)));
    for j in items {
        match j {
            Json::Null => {
                text.push("");
                nums.push(f64::NAN);
            }
            Json::Bool(b) => {
                text.push(if *b { "true" } else { "false" });
                nums.push(*b as i64 as f64);
            }
            Json::Num(f, i) => {
                text.push(&i.map(|x| x.to_string()).unwrap_or_else(|| f.to_string()));
                nums.push(*f);
            }
            Json::Str(s) => {
                text.push(s);
                nums.push(f64::NAN);
            }
            _ => return Err(Error::arg("Nested JSON values can't form a typed vector")),
        }
    }
    if all_num && (ty.is_numeric() && ty != DataType::Char) {
        return cast_column(&beluga_runtime::column::f64_column(nums), ty);
    }
    cast_column(&Column::new(DataType::String, ColData::Str(text)), ty)
}

/// DolphinDB-form JSON → value.
fn from_dolphin(j: &Json) -> Result<Value> {
    let Json::Obj(kv) = j else { return Err(Error::arg("[fromJson] expects a JSON object with form, type and value")) };
    let form = match obj_get(kv, "form") {
        Some(Json::Str(s)) => s.as_str(),
        _ => return Err(Error::arg("[fromJson]: missing \"form\"")),
    };
    let ty = match obj_get(kv, "type") {
        Some(Json::Str(s)) => DataType::from_name(s),
        _ => None,
    };
    let value = obj_get(kv, "value").unwrap_or(&Json::Null);
    let items = |v: &Json| -> Vec<Json> {
        match v {
            Json::Arr(x) => x.clone(),
            other => vec![other.clone()],
        }
    };
    Ok(match form {
        "scalar" => {
            let t = ty.unwrap_or(DataType::String);
            if t == DataType::Void || matches!(value, Json::Null) {
                Value::null_of(t)
            } else {
                Value::Scalar(json_column(t, &[value.clone()])?)
            }
        }
        "vector" | "pair" | "set" if ty == Some(DataType::Any) => {
            Value::tuple(items(value).iter().map(from_dolphin).collect::<Result<_>>()?)
        }
        "vector" | "pair" | "set" => {
            let c = json_column(ty.unwrap_or(DataType::String), &items(value))?;
            match form {
                "pair" => Value::Pair(c),
                "set" => beluga_runtime::eval::ops::make_set(c),
                _ => Value::Vector(c),
            }
        }
        "matrix" => {
            let c = json_column(ty.unwrap_or(DataType::Double), &items(value))?;
            let num = |k: &str| match obj_get(kv, k) {
                Some(Json::Str(s)) => s.parse::<usize>().ok(),
                Some(Json::Num(_, Some(i))) => Some(*i as usize),
                _ => None,
            };
            let rows = num("rows").unwrap_or(c.len());
            let cols = num("cols").unwrap_or(1);
            if rows * cols != c.len() {
                return Err(Error::arg("[fromJson]: the matrix shape doesn't match its values"));
            }
            beluga_runtime::eval::ops::reshape(&Value::Vector(c), rows as i64, cols as i64)?
        }
        "table" => {
            let mut names = Vec::new();
            let mut cols = Vec::new();
            for (k, col) in items(value).iter().enumerate() {
                let name = match col {
                    Json::Obj(ckv) => match obj_get(ckv, "name") {
                        Some(Json::Str(s)) if !s.is_empty() => s.clone(),
                        _ => format!("col{k}"),
                    },
                    _ => format!("col{k}"),
                };
                match from_dolphin(col)? {
                    Value::Vector(c) | Value::Scalar(c) => {
                        names.push(name);
                        cols.push(c);
                    }
                    other => return Err(Error::arg(format!("[fromJson]: a table column can't be {}", describe(&other)))),
                }
            }
            Value::table(Table::new(names, cols)?)
        }
        "dictionary" => {
            let parts = items(value);
            let (Some(k), Some(v)) = (parts.first(), parts.get(1)) else {
                return Err(Error::arg("[fromJson]: a dictionary needs key and value vectors"));
            };
            let keys = match from_dolphin(k)? {
                Value::Vector(c) => c,
                other => return Err(Error::arg(format!("[fromJson]: dictionary keys can't be {}", describe(&other)))),
            };
            let vals: Vec<Value> = match from_dolphin(v)? {
                Value::Vector(c) => (0..c.len()).map(|i| Value::Scalar(c.slice(i, i + 1))).collect(),
                Value::Tuple(t) => t.to_vec(),
                other => return Err(Error::arg(format!("[fromJson]: dictionary values can't be {}", describe(&other)))),
            };
            if vals.len() != keys.len() {
                return Err(Error::arg("[fromJson]: dictionary keys and values differ in length"));
            }
            let mut index = AHashMap::with_capacity(keys.len());
            for i in 0..keys.len() {
                index.insert(Key::of(&keys, i), i);
            }
            let key_type = keys.ty;
            let (vals, val_type) = match unify_scalars(&vals)? {
                Some(Value::Vector(c)) if !vals.is_empty() && vals.iter().all(|x| matches!(x, Value::Scalar(_))) => {
                    let t = c.ty;
                    (DictVals::Col(c), t)
                }
                _ => (DictVals::Any(vals), DataType::Any),
            };
            Value::Dict(Arc::new(Dict { keys, vals, index, ordered: false, key_type, val_type }))
        }
        other => return Err(Error::arg(format!("[fromJson]: unknown form '{other}'"))),
    })
}

fn from_json(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    from_dolphin(&parse_json(str_arg("fromJson", &a[0], "X")?)?)
}

/// `jsonExtract(json, location, type)`: the value at `location` (a key, an array index, or
/// a vector/tuple path of them) converted to `type`; missing → null.
fn json_extract(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let ty = match &a[2] {
        Value::Type(t) => *t,
        Value::Scalar(c) if c.ty.is_literal() => {
            DataType::from_name(c.str_at(0).unwrap_or("")).ok_or_else(|| Error::arg("Unknown type for [jsonExtract]"))?
        }
        other => return Err(Error::arg(format!("The type argument of [jsonExtract] must be a data type, not {}", describe(other)))),
    };
    let path: Vec<Value> = match &a[1] {
        Value::Scalar(_) => vec![a[1].clone()],
        Value::Vector(c) => (0..c.len()).map(|i| Value::Scalar(c.slice(i, i + 1))).collect(),
        Value::Tuple(t) => t.to_vec(),
        other => return Err(Error::arg(format!("The location of [jsonExtract] can't be {}", describe(other)))),
    };
    let one = |s: &str| -> Result<Json> {
        let mut cur = match parse_json(s) {
            Ok(j) => j,
            Err(_) => return Ok(Json::Null),
        };
        for step in &path {
            cur = match (&cur, step.as_str(), step.as_i64()) {
                (Json::Obj(kv), Some(k), _) => obj_get(kv, k).cloned().unwrap_or(Json::Null),
                (Json::Arr(v), None, Some(i)) => {
                    let i = if i < 0 { v.len() as i64 + i } else { i - 1 };
                    v.get(i.max(0) as usize).filter(|_| i >= 0).cloned().unwrap_or(Json::Null)
                }
                _ => Json::Null,
            };
        }
        Ok(cur)
    };
    let as_text = |j: Json| -> Json {
        match j {
            Json::Arr(_) | Json::Obj(_) if ty.is_literal() => {
                let mut s = String::new();
                write_json(&mut s, &j);
                Json::Str(s)
            }
            Json::Arr(_) | Json::Obj(_) => Json::Null,
            other => other,
        }
    };
    match &a[0] {
        Value::Scalar(c) if c.ty.is_literal() => {
            let j = as_text(one(c.str_at(0).unwrap_or(""))?);
            Ok(Value::Scalar(json_column(ty, &[j])?))
        }
        Value::Vector(c) if c.ty.is_literal() => {
            let js: Vec<Json> = (0..c.len()).map(|i| one(c.str_at(i).unwrap_or("")).map(as_text)).collect::<Result<_>>()?;
            Ok(Value::Vector(json_column(ty, &js)?))
        }
        other => Err(Error::unsupported("jsonExtract", describe(other))),
    }
}

fn write_json(out: &mut String, j: &Json) {
    match j {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Num(_, Some(i)) => {
            let _ = write!(out, "{i}");
        }
        Json::Num(f, None) => {
            let _ = write!(out, "{f}");
        }
        Json::Str(s) => push_json_str(out, s),
        Json::Arr(v) => {
            out.push('[');
            for (k, x) in v.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_json(out, x);
            }
            out.push(']');
        }
        Json::Obj(kv) => {
            out.push('{');
            for (k, (n, x)) in kv.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                push_json_str(out, n);
                out.push(':');
                write_json(out, x);
            }
            out.push('}');
        }
    }
}

/// `parseJsonTable(json, [schema], [keyCaseSensitive=true])`: rows from a JSON array of
/// objects or from newline-delimited objects. Without a schema, columns appear in order of
/// first appearance with types inferred (LONG, DOUBLE, BOOL, else STRING); a schema table
/// gives column names (first column) and types (second column).
fn parse_json_table(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "parseJsonTable";
    let text = str_arg(name, &a[0], "json")?;
    let case_sensitive = opt(&a, 2).and_then(|v| v.as_bool()).unwrap_or(true);
    let rows: Vec<Vec<(String, Json)>> = match parse_json(text) {
        Ok(Json::Arr(v)) => v
            .into_iter()
            .map(|r| match r {
                Json::Obj(kv) => Ok(kv),
                _ => Err(Error::arg(format!("[{name}]: every row must be a JSON object"))),
            })
            .collect::<Result<_>>()?,
        Ok(Json::Obj(kv)) => vec![kv],
        _ => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| match parse_json(l)? {
                Json::Obj(kv) => Ok(kv),
                _ => Err(Error::arg(format!("[{name}]: every row must be a JSON object"))),
            })
            .collect::<Result<_>>()?,
    };
    let norm = |s: &str| if case_sensitive { s.to_string() } else { s.to_ascii_lowercase() };
    let (names, types): (Vec<String>, Vec<Option<DataType>>) = match opt(&a, 1) {
        Some(Value::Table(s)) if s.ncols() >= 2 => {
            let n: Vec<String> = (0..s.rows()).map(|i| s.cols[0].str_at(i).unwrap_or("").to_string()).collect();
            let t: Vec<Option<DataType>> = (0..s.rows())
                .map(|i| match s.cols[1].str_at(i) {
                    Some(x) => DataType::from_name(x),
                    None => s.cols[1].i64_at(i).and_then(|id| DataType::from_id(id as i32)),
                })
                .collect();
            (n, t)
        }
        Some(other) => return Err(Error::arg(format!("The schema of [{name}] must be a table of names and types, not {}", describe(other)))),
        None => {
            let mut n: Vec<String> = Vec::new();
            for r in &rows {
                for (k, _) in r {
                    if !n.iter().any(|x| norm(x) == norm(k)) {
                        n.push(k.clone());
                    }
                }
            }
            let t = vec![None; n.len()];
            (n, t)
        }
    };
    let mut cols = Vec::with_capacity(names.len());
    for (n, t) in names.iter().zip(&types) {
        let vals: Vec<Json> = rows
            .iter()
            .map(|r| r.iter().find(|(k, _)| norm(k) == norm(n)).map(|(_, v)| v.clone()).unwrap_or(Json::Null))
            .map(|j| match j {
                Json::Arr(_) | Json::Obj(_) => {
                    let mut s = String::new();
                    write_json(&mut s, &j);
                    Json::Str(s)
                }
                other => other,
            })
            .collect();
        let ty = t.unwrap_or_else(|| {
            let mut ty = DataType::Void;
            for v in &vals {
                let vt = match v {
                    Json::Null => continue,
                    Json::Bool(_) => DataType::Bool,
                    Json::Num(_, Some(_)) => DataType::Long,
                    Json::Num(_, None) => DataType::Double,
                    _ => DataType::String,
                };
                ty = match (ty, vt) {
                    (DataType::Void, x) => x,
                    (a, b) if a == b => a,
                    (DataType::Long, DataType::Double) | (DataType::Double, DataType::Long) => DataType::Double,
                    _ => DataType::String,
                };
            }
            if ty == DataType::Void { DataType::String } else { ty }
        });
        cols.push(json_column(ty, &vals)?);
    }
    Ok(Value::table(Table::new(names, cols)?))
}

pub const DEFS: &[Builtin] = &[
    f("fromJson", Kind::System, 1, 1, from_json),
    f("fromStdJson", Kind::System, 1, 1, from_std_json),
    fp("jsonExtract", Kind::Elementwise, 3, 3, json_extract, &["json", "location", "type"]),
    fp("parseJsonTable", Kind::System, 1, 3, parse_json_table, &["json", "schema", "keyCaseSensitive"]),
    fp("parsejsonTable", Kind::System, 1, 3, parse_json_table, &["json", "schema", "keyCaseSensitive"]),
];

#[cfg(test)]
mod tests {
    use crate::string::run;

    #[test]
    fn convert_json_round_trips() {
        assert_eq!(run("toJson(1 2 3)"), "{\"name\":\"\",\"form\":\"vector\",\"type\":\"int\",\"size\":\"3\",\"value\":[1,2,3]}");
        assert_eq!(run("fromJson(toJson(1 2 3))"), "[1,2,3]");
        assert_eq!(run("x = fromJson(toJson(table(1 2 3 as id, 10 20 30 as val)))\nx.val"), "[10,20,30]");
        assert_eq!(run("toStdJson(1 2 3)"), "[1, 2, 3]");
        assert_eq!(
            run("toStdJson(table(1 2 3 as id, 10 20 30 as val))"),
            "[{\"id\": 1,\"val\": 10},{\"id\": 2,\"val\": 20},{\"id\": 3,\"val\": 30}]"
        );
        assert_eq!(run("toStdJson(2012.06.13T13:30:10)"), "\"2012.06.13 13:30:10\"");
        assert_eq!(run("fromStdJson(\"[1, 2, 3]\")"), "[1,2,3]");
        assert_eq!(run("d = fromStdJson(\"{\\\"a\\\": 1.5, \\\"b\\\": [1,2]}\")\nd[`a]"), "1.5");
        assert_eq!(run("jsonExtract(\"{\\\"a\\\": {\\\"b\\\": 7}}\", [\"a\", \"b\"], INT)"), "7");
        assert_eq!(run("t = parseJsonTable(\"[{\\\"x\\\": 1, \\\"y\\\": \\\"a\\\"}, {\\\"x\\\": 2}]\")\nt.x"), "[1,2]");
    }
}
