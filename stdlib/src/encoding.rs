//! Builtins: hashes and encodings — `md5`, `gmd5`, `crc32`, `base64Encode`,
//! `base64Decode`, `convertEncode`, `toUTF8`, `fromUTF8`, `oneHot`.
//!
//! Strings are stored as UTF-8, so the character-set functions handle UTF-8, ASCII and
//! Latin-1 (ISO-8859-1); other encodings (GBK, EUC-CN ...) accept ASCII text only and
//! report non-ASCII text as unsupported. `base64Decode` output that is not valid UTF-8 is decoded lossily.

use beluga_runtime::CallCtx;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::eval::ops;
use beluga_runtime::fmt::format_elem;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Table, Value};

use crate::string::{check_text, strings_to, text_map};
use crate::util::{describe, opt, str_arg};

// ---------------------------------------------------------------- MD5 (RFC 1321)

/// One MD5 implementation serves `md5` and the row hashes (row_md5.rs).
use crate::row_md5::md5;

/// The digest as the INT128 whose 32 hex digits print as the usual hex digest.
fn md5_i128(data: &[u8]) -> i128 {
    i128::from_be_bytes(md5(data))
}

fn md5_fn(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::unary_col(&a[0], &|c: &Column| {
        check_text("md5", c)?;
        let v: Vec<i128> = strings_to(c, &mut |s| md5_i128(s.as_bytes()));
        Ok(Column::from_vec(DataType::Int128, v))
    })
}

/// `gmd5(X)`: MD5 of each element's text (any scalar type), as INT128.
fn gmd5(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::unary_col(&a[0], &|c: &Column| {
        let v: Vec<i128> = match &*c.data {
            ColData::Str(_) | ColData::Sym(_) => strings_to(c, &mut |s| md5_i128(s.as_bytes())),
            _ => (0..c.len()).map(|i| md5_i128(format_elem(c, i).as_bytes())).collect(),
        };
        Ok(Column::from_vec(DataType::Int128, v))
    })
}

// ---------------------------------------------------------------- CRC-32 (IEEE 802.3)

fn crc_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    for (n, e) in t.iter_mut().enumerate() {
        let mut c = n as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB88320 ^ (c >> 1) } else { c >> 1 };
        }
        *e = c;
    }
    t
}

fn crc32_bytes(t: &[u32; 256], init: u32, data: &[u8]) -> u32 {
    let mut c = !init;
    for &b in data {
        c = t[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// `crc32(str, [cksum=0])`: CRC-32 as INT (the unsigned value reinterpreted).
fn crc32(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let init = match opt(&a, 1) {
        None => 0u32,
        Some(v) => v.as_i64().ok_or_else(|| Error::arg("The cksum argument of [crc32] must be an integer"))? as u32,
    };
    let t = crc_table();
    ops::unary_col(&a[0], &|c: &Column| {
        check_text("crc32", c)?;
        let v: Vec<i32> = strings_to(c, &mut |s| crc32_bytes(&t, init, s.as_bytes()) as i32);
        Ok(Column::from_vec(DataType::Int, v))
    })
}

// ---------------------------------------------------------------- Base64

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn b64_encode(data: &[u8], out: &mut String) {
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = ((b[0] as u32) << 16) | ((b[1] as u32) << 8) | b[2] as u32;
        out.push(B64[(n >> 18) as usize & 63] as char);
        out.push(B64[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 { B64[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if chunk.len() > 2 { B64[n as usize & 63] as char } else { '=' });
    }
}

/// Decode Base64 (whitespace ignored); None on invalid input.
fn b64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    let mut pad = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => {
                pad += 1;
                continue;
            }
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        if pad > 0 {
            return None;
        }
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

fn base64_encode(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_map("base64Encode", &a[0], &|s, o| b64_encode(s.as_bytes(), o))
}

fn base64_decode(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let err = std::cell::Cell::new(false);
    let r = text_map("base64Decode", &a[0], &|s, o| match b64_decode(s) {
        Some(b) => o.push_str(&String::from_utf8_lossy(&b)),
        None => err.set(true),
    })?;
    if err.get() {
        return Err(Error::arg("The argument of [base64Decode] is not valid Base64"));
    }
    Ok(r)
}

// ---------------------------------------------------------------- character sets

#[derive(Clone, Copy, PartialEq, Eq)]
enum Charset {
    Utf8,
    Ascii,
    Latin1,
    /// another ASCII-compatible encoding (gbk, euc-cn, ...): only ASCII text converts
    Other,
}

fn charset(enc: &str) -> Charset {
    match enc.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
        "utf8" => Charset::Utf8,
        "ascii" | "usascii" => Charset::Ascii,
        "latin1" | "iso88591" => Charset::Latin1,
        _ => Charset::Other,
    }
}

/// Text is kept as UTF-8 internally, so converting between encodings leaves the characters
/// unchanged; it checks that the target (or, for another encoding, the text) can hold them.
/// Non-ASCII text in encodings other than UTF-8/ASCII/Latin-1 (e.g. GBK) is unsupported.
fn transcode(name: &str, v: &Value, from: Charset, to: Charset, enc: &str) -> Result<Value> {
    let bad = std::cell::Cell::new(false);
    let other = std::cell::Cell::new(false);
    let r = text_map(name, v, &|s, o| {
        if (from == Charset::Other || to == Charset::Other) && !s.is_ascii() {
            other.set(true);
        }
        let lossy = match to {
            Charset::Ascii => !s.is_ascii(),
            Charset::Latin1 => s.chars().any(|c| c as u32 > 255),
            _ => false,
        };
        if lossy {
            bad.set(true);
        }
        o.push_str(s);
    })?;
    if other.get() {
        return Err(Error::arg(format!("[{name}] can't convert non-ASCII text with the encoding '{enc}' (only UTF-8, ASCII and Latin-1 are supported)")));
    }
    if bad.get() {
        return Err(Error::arg(format!("[{name}]: the text has characters the target encoding can't represent")));
    }
    Ok(r)
}

fn convert_encode(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let src = str_arg("convertEncode", &a[1], "srcEncode")?.to_string();
    let dst = str_arg("convertEncode", &a[2], "destEncode")?.to_string();
    transcode("convertEncode", &a[0], charset(&src), charset(&dst), &format!("{src}/{dst}"))
}

fn to_utf8(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let enc = str_arg("toUTF8", &a[1], "encode")?.to_string();
    transcode("toUTF8", &a[0], charset(&enc), Charset::Utf8, &enc)
}

fn from_utf8(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let enc = str_arg("fromUTF8", &a[1], "encode")?.to_string();
    transcode("fromUTF8", &a[0], Charset::Utf8, charset(&enc), &enc)
}

// ---------------------------------------------------------------- one-hot

/// `oneHot(obj, encodingColumns)`: replace each listed column by one INT column per
/// distinct value (in order of first appearance), named `<column>_<value>`.
fn one_hot(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let Value::Table(t) = &a[0] else { return Err(Error::unsupported("oneHot", describe(&a[0]))) };
    let names: Vec<String> = match &a[1] {
        Value::Scalar(c) | Value::Vector(c) if c.ty.is_literal() => (0..c.len()).map(|i| c.str_at(i).unwrap_or("").to_string()).collect(),
        other => return Err(Error::arg(format!("The encodingColumns of [oneHot] must be strings, not {}", describe(other)))),
    };
    for n in &names {
        if t.col_index(n).is_none() {
            return Err(Error::arg(format!("[oneHot]: the table has no column '{n}'")));
        }
    }
    let mut out_names = Vec::new();
    let mut out_cols = Vec::new();
    for (name, col) in t.names.iter().zip(&t.cols) {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            out_names.push(name.clone());
            out_cols.push(col.clone());
            continue;
        }
        let mut seen: ahash::AHashMap<beluga_runtime::value::Key, usize> = ahash::AHashMap::new();
        let mut codes = Vec::with_capacity(col.len());
        let mut firsts = Vec::new();
        for i in 0..col.len() {
            let k = beluga_runtime::value::Key::of(col, i);
            let n = seen.len();
            let code = *seen.entry(k).or_insert_with(|| {
                firsts.push(i);
                n
            });
            codes.push(code);
        }
        for (j, &i) in firsts.iter().enumerate() {
            out_names.push(format!("{name}_{}", format_elem(col, i)));
            out_cols.push(Column::from_vec(DataType::Int, codes.iter().map(|&c| (c == j) as i32).collect::<Vec<i32>>()));
        }
    }
    Ok(Value::table(Table::new(out_names, out_cols)?))
}

/// Hex text of bytes.
#[cfg(test)]
fn hex_string(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub const DEFS: &[Builtin] = &[
    f("base64Decode", Kind::Elementwise, 1, 1, base64_decode),
    f("base64Encode", Kind::Elementwise, 1, 1, base64_encode),
    fp("convertEncode", Kind::Elementwise, 3, 3, convert_encode, &["str", "srcEncode", "destEncode"]),
    fp("crc32", Kind::Elementwise, 1, 2, crc32, &["str", "cksum"]),
    fp("fromUTF8", Kind::Elementwise, 2, 2, from_utf8, &["str", "encode"]),
    f("gmd5", Kind::Elementwise, 1, 1, gmd5),
    f("md5", Kind::Elementwise, 1, 1, md5_fn),
    fp("oneHot", Kind::System, 2, 2, one_hot, &["obj", "encodingColumns"]),
    fp("toUTF8", Kind::Elementwise, 2, 2, to_utf8, &["str", "encode"]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::string::run;

    #[test]
    fn encoding_known_vectors() {
        assert_eq!(hex_string(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex_string(&md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(hex_string(&md5(&[b'a'; 200])), hex_string(&md5(&[b'a'; 200])));
        assert_eq!(crc32_bytes(&crc_table(), 0, b"123456789"), 0xCBF43926);
        let mut s = String::new();
        b64_encode(b"hello world", &mut s);
        assert_eq!(s, "aGVsbG8gd29ybGQ=");
        assert_eq!(b64_decode(&s).unwrap(), b"hello world");
        assert_eq!(run("string(md5(`e))"), "e1671797c52e15f763380b45e841ec32");
        assert_eq!(run("base64Decode(base64Encode(\"DolphinDB\"))"), "DolphinDB");
        assert_eq!(run("crc32(\"123456789\")"), "-873187034");
        assert_eq!(run("fromUTF8([\"hello\",\"world\"],\"euc-cn\")"), "[\"hello\",\"world\"]");
        assert!(run("toUTF8(\"é\", \"gbk\")").contains("can't convert non-ASCII text"));
    }
}
