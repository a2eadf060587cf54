//! Builtins: type conversion — `bool` … `nanotimestamp`, `datehour`, `string`, `symbol`,
//! `blob`, `cast`, `uuid`, `ipaddr`, `int128`, `duration`, `parseInteger`, `symbolCode`,
//! `hex`, `highLong`/`lowLong`/`highDouble`/`lowDouble`, `deg2rad`/`rad2deg`,
//! `temporalParse`/`datetimeParse`/`temporalFormat`, and the DECIMAL constructors.
//!
//! Conversions go through `ops::cast_value` and `kernels::cast::cast_column`; this file adds
//! what the cast kernel does not cover (text → 128-bit types, DURATION, radix parsing).
//! Called with no argument, a conversion function returns the typed null.
//!
//! DECIMAL32/64/128 are exact scaled integers (`kernels::decimal`); the constructors here
//! only check the scale argument and call the cast.

use beluga_runtime::CallCtx;
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::eval::ops;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::kernels::cast::{cast_column, temporal_format_column, temporal_parse_column};
use beluga_runtime::ops::cast_value;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};

use crate::string::{check_text, str_col, strings_to};
use crate::util::{describe, map_f64, opt, str_arg};

// ---------------------------------------------------------------- plain conversions

fn conv(ty: DataType, a: &[Value]) -> Result<Value> {
    match a.first() {
        None => Ok(Value::null_of(ty)),
        Some(Value::ArrayVector(av)) => conv_array(ty, av),
        Some(Value::Vector(c)) if c.as_array().is_some() => {
            let out = conv_array(ty, c.as_array().expect("array column"))?;
            Ok(match out {
                Value::ArrayVector(av) => Value::Vector(Column::from_array(av)),
                other => other,
            })
        }
        Some(v) => cast_value(v, ty),
    }
}

/// A conversion of an array vector: the cells convert to `ty` and the rows keep their
/// shape (`double(a)` of an INT[] is a DOUBLE[]); `string`/`symbol`, whose array type
/// the manual does not list, give one text per row in the console form (`[1,,3]`).
fn conv_array(ty: DataType, av: &std::sync::Arc<beluga_runtime::value::ArrayVec>) -> Result<Value> {
    use beluga_runtime::value::ArrayVec;
    if ty.is_literal() {
        let mut out = StrCol::with_capacity(av.rows(), 0);
        for r in 0..av.rows() {
            out.push(&beluga_runtime::elemfmt::array_row_text(av, r));
        }
        return cast_value(&Value::Vector(Column::new(DataType::String, ColData::Str(out))), ty);
    }
    if DataType::array_of(ty).is_none() {
        return Err(Error::type_err(format!("Cannot convert an array vector to {}", ty.full_name())));
    }
    let data = cast_column(&av.data, ty)?;
    Ok(Value::ArrayVector(std::sync::Arc::new(ArrayVec::new(av.offsets.clone(), data))))
}

fn to_bool(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Bool, &a)
}
fn to_char(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Char, &a)
}
fn to_short(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Short, &a)
}
fn to_int(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Int, &a)
}
fn to_long(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Long, &a)
}
fn to_float(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Float, &a)
}
fn to_double(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Double, &a)
}
fn to_string(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    // metacode converts to its console form `< expr >`
    if let Some(Value::Code(e)) = a.first() {
        return Ok(Value::string(&format!("< {} >", beluga_runtime::fmt::expr_text(e))));
    }
    // a function converts to its name: string(avg) is "avg"
    if let Some(Value::Function(f)) = a.first() {
        return Ok(Value::string(&i.func_name(f)));
    }
    conv(DataType::String, &a)
}
fn to_symbol(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Symbol, &a)
}
fn to_blob(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if let Some(v) = a.first() {
        if !matches!(v.data_type(), DataType::String | DataType::Blob | DataType::Symbol | DataType::Void) {
            return Err(Error::unsupported("blob", describe(v)));
        }
        if v.data_type() == DataType::Symbol {
            return cast_value(&cast_value(v, DataType::String)?, DataType::Blob);
        }
    }
    conv(DataType::Blob, &a)
}
fn to_date(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Date, &a)
}
fn to_month(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Month, &a)
}
fn to_time(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Time, &a)
}
fn to_minute(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Minute, &a)
}
fn to_second(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Second, &a)
}
fn to_datetime(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::DateTime, &a)
}
fn to_timestamp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::Timestamp, &a)
}
fn to_nanotime(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::NanoTime, &a)
}
fn to_nanotimestamp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::NanoTimestamp, &a)
}
fn to_datehour(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    conv(DataType::DateHour, &a)
}

/// `cast(X, type)` / `X $ type` / `X $ rows:cols`.
fn cast(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::cast(&a[0], &a[1])
}

// ---------------------------------------------------------------- 128-bit types

fn parse_hex128(s: &str, dashes: bool) -> Option<i128> {
    let mut v: u128 = 0;
    let mut n = 0;
    for c in s.bytes() {
        if dashes && c == b'-' {
            continue;
        }
        let d = (c as char).to_digit(16)?;
        v = (v << 4) | d as u128;
        n += 1;
    }
    (n == 32).then_some(v as i128)
}

fn parse_uuid(s: &str) -> Option<i128> {
    let t = s.trim();
    if t.len() == 36 {
        let b = t.as_bytes();
        if b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
            return None;
        }
    } else if t.len() != 32 {
        return None;
    }
    parse_hex128(t, true)
}

fn parse_ip(s: &str) -> Option<i128> {
    let t = s.trim();
    if let Ok(v4) = t.parse::<std::net::Ipv4Addr>() {
        return Some(u32::from(v4) as i128);
    }
    t.parse::<std::net::Ipv6Addr>().ok().map(|v6| u128::from(v6) as i128)
}

fn parse_int128(s: &str) -> Option<i128> {
    let t = s.trim();
    let t = t.strip_prefix("0x").unwrap_or(t);
    parse_hex128(t, false)
}

/// Text → UUID / IPADDR / INT128 (unparsable text is null; the 128-bit types convert among
/// themselves by reinterpretation).
fn to_binary(name: &str, ty: DataType, a: &[Value], parse: fn(&str) -> Option<i128>) -> Result<Value> {
    let Some(v) = a.first() else { return Ok(Value::null_of(ty)) };
    ops::unary_col(v, &|c: &Column| {
        let data: Vec<i128> = match &*c.data {
            ColData::Str(_) | ColData::Sym(_) => strings_to(c, &mut |s| if s.is_empty() { 0 } else { parse(s).unwrap_or(0) }),
            ColData::I128(v) => v.clone(),
            _ if c.ty == DataType::Void => vec![0; c.len()],
            _ => return Err(Error::unsupported(name, c.ty)),
        };
        Ok(Column::from_vec(ty, data))
    })
}

fn uuid(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    to_binary("uuid", DataType::Uuid, &a, parse_uuid)
}
fn ipaddr(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    to_binary("ipaddr", DataType::IpAddr, &a, parse_ip)
}
fn int128(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    to_binary("int128", DataType::Int128, &a, parse_int128)
}

/// High or low 64 bits of 16-byte values, as LONG or as the DOUBLE with those bits.
fn half(name: &str, a: &[Value], high: bool, double: bool) -> Result<Value> {
    ops::unary_col(&a[0], &|c: &Column| {
        let ColData::I128(v) = &*c.data else { return Err(Error::unsupported(name, c.ty)) };
        let bits: Vec<u64> = v.iter().map(|&x| if high { ((x as u128) >> 64) as u64 } else { x as u64 }).collect();
        Ok(if double {
            Column::from_vec(
                DataType::Double,
                v.iter().zip(&bits).map(|(&x, &b)| if x == 0 { f64::NULL } else { f64::from_bits(b) }).collect::<Vec<f64>>(),
            )
        } else {
            Column::from_vec(
                DataType::Long,
                v.iter().zip(&bits).map(|(&x, &b)| if x == 0 { i64::NULL } else { b as i64 }).collect::<Vec<i64>>(),
            )
        })
    })
}

fn high_long(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    half("highLong", &a, true, false)
}
fn low_long(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    half("lowLong", &a, false, false)
}
fn high_double(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    half("highDouble", &a, true, true)
}
fn low_double(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    half("lowDouble", &a, false, true)
}

// ---------------------------------------------------------------- hex

fn push_hex(out: &mut String, bytes: &[u8], reverse: bool) {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut put = |b: u8| {
        out.push(D[(b >> 4) as usize] as char);
        out.push(D[(b & 15) as usize] as char);
    };
    if reverse {
        bytes.iter().rev().for_each(|&b| put(b));
    } else {
        bytes.iter().for_each(|&b| put(b));
    }
}

/// `hex(X, [reverse=false])`: big-endian hexadecimal of each value's bytes (reversed on request).
fn hex(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let reverse = match opt(&a, 1) {
        None => false,
        Some(v) => v.as_bool().ok_or_else(|| Error::arg("The reverse argument of [hex] must be a boolean"))?,
    };
    ops::unary_col(&a[0], &|c: &Column| {
        let mut out = StrCol::with_capacity(c.len(), c.len() * 16);
        let mut buf = String::new();
        for i in 0..c.len() {
            buf.clear();
            match &*c.data {
                ColData::I8(v) => push_hex(&mut buf, &v[i].to_be_bytes(), reverse),
                ColData::I16(v) => push_hex(&mut buf, &v[i].to_be_bytes(), reverse),
                ColData::I32(v) => push_hex(&mut buf, &v[i].to_be_bytes(), reverse),
                ColData::I64(v) => push_hex(&mut buf, &v[i].to_be_bytes(), reverse),
                ColData::F32(v) => push_hex(&mut buf, &v[i].to_be_bytes(), reverse),
                ColData::F64(v) => push_hex(&mut buf, &v[i].to_be_bytes(), reverse),
                ColData::I128(v) => push_hex(&mut buf, &v[i].to_be_bytes(), reverse),
                ColData::Str(_) | ColData::Sym(_) => push_hex(&mut buf, c.str_at(i).unwrap_or("").as_bytes(), reverse),
                ColData::Array(_) => return Err(Error::unsupported("hex", c.ty)),
            }
            out.push(&buf);
        }
        Ok(str_col(out))
    })
}

// ---------------------------------------------------------------- parsing

/// Leading integer of `s` in `radix` (DolphinDB's parseInteger rules): leading blanks and
/// zeros are skipped, a sign may follow the blanks, `0x` is allowed in radix 16, parsing
/// stops at the first invalid character. Ok(None) for empty text or overflow; Err when no
/// digit precedes the first invalid character.
fn parse_radix_prefix(s: &str, radix: u32) -> std::result::Result<Option<i64>, ()> {
    let t = s.trim_start();
    if t.is_empty() {
        return Ok(None);
    }
    let (neg, mut body) = match t.as_bytes()[0] {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if radix == 16 {
        body = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")).unwrap_or(body);
    }
    let mut acc: i128 = 0;
    let mut n = 0;
    for c in body.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        acc = acc * radix as i128 + d as i128;
        if acc > i64::MAX as i128 {
            return Ok(None);
        }
        n += 1;
    }
    if n == 0 {
        return Err(());
    }
    Ok(Some(if neg { -(acc as i64) } else { acc as i64 }))
}

/// `parseInteger(X, type, [radix=10])` into CHAR/SHORT/INT/LONG (out of range → null).
fn parse_integer(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "parseInteger";
    let ty = match &a[1] {
        Value::Type(t) => *t,
        Value::Scalar(c) if c.ty.is_literal() => DataType::from_name(c.str_at(0).unwrap_or(""))
            .ok_or_else(|| Error::arg("The type argument of [parseInteger] must be an integral type"))?,
        other => return Err(Error::arg(format!("The type argument of [{name}] must be a data type, not {}", describe(other)))),
    };
    if !matches!(ty, DataType::Char | DataType::Short | DataType::Int | DataType::Long) {
        return Err(Error::arg(format!("The type argument of [{name}] must be CHAR, SHORT, INT or LONG, not {ty}")));
    }
    let radix = match opt(&a, 2) {
        None => 10,
        Some(v) => match v.as_i64() {
            Some(r) if (2..=16).contains(&r) => r as u32,
            _ => return Err(Error::arg(format!("The radix argument of [{name}] must be an integer in [2, 16]"))),
        },
    };
    let lim: i64 = match ty {
        DataType::Char => i8::MAX as i64,
        DataType::Short => i16::MAX as i64,
        DataType::Int => i32::MAX as i64,
        _ => i64::MAX,
    };
    ops::unary_col(&a[0], &|c: &Column| {
        check_text(name, c)?;
        let mut bad = false;
        let v: Vec<i64> = strings_to(c, &mut |s| match parse_radix_prefix(s, radix) {
            Ok(Some(x)) if x.abs() <= lim => x,
            Ok(_) => i64::NULL,
            Err(()) => {
                bad = true;
                i64::NULL
            }
        });
        if bad {
            return Err(Error::arg("Invalid string to parse."));
        }
        cast_column(&Column::from_vec(DataType::Long, v), ty)
    })
}

fn symbol_code(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::unary_col(&a[0], &|c: &Column| match &*c.data {
        ColData::Sym(s) => Ok(Column::from_vec(DataType::Int, s.codes.iter().map(|&x| x as i32).collect::<Vec<i32>>())),
        _ => Err(Error::unsupported("symbolCode", c.ty)),
    })
}

/// `duration("20H")`: a DURATION from text (`[-]n` followed by a unit or a calendar name).
fn duration(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if let Value::Duration(..) = &a[0] {
        return Ok(a[0].clone());
    }
    let s = str_arg("duration", &a[0], "X")?.trim();
    let neg = s.starts_with('-');
    let body = if neg { &s[1..] } else { s };
    let k = body.bytes().take_while(|b| b.is_ascii_digit()).count();
    let unit = &body[k..];
    let valid = matches!(unit, "ns" | "us" | "ms" | "s" | "m" | "H" | "d" | "w" | "M" | "y" | "B")
        || (unit.len() == 4 && unit.bytes().all(|b| b.is_ascii_uppercase()));
    if k == 0 || !valid {
        return Err(Error::arg(format!("Invalid DURATION '{s}'")));
    }
    let n: i64 = body[..k].parse().map_err(|_| Error::arg(format!("Invalid DURATION '{s}'")))?;
    Ok(Value::Duration(if neg { -n } else { n }, unit.into()))
}

// ---------------------------------------------------------------- temporal parse/format

fn temporal_parse(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let fmt = str_arg("temporalParse", &a[1], "format")?.to_string();
    ops::unary_col(&a[0], &|c: &Column| {
        if c.ty == DataType::Void {
            return temporal_parse_column(&Column::nulls(DataType::String, c.len()), &fmt);
        }
        temporal_parse_column(c, &fmt)
    })
}

fn temporal_format(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let fmt = str_arg("temporalFormat", &a[1], "format")?.to_string();
    ops::unary_col(&a[0], &|c: &Column| temporal_format_column(c, &fmt))
}

// ---------------------------------------------------------------- decimals (DOUBLE-backed)

fn scale_arg(name: &str, a: &[Value], max: i64) -> Result<i32> {
    match a.get(1).and_then(|v| v.as_i64()) {
        Some(s) if (0..=max).contains(&s) => Ok(s as i32),
        _ => Err(Error::arg(format!("The scale argument of [{name}] must be an integer in [0, {max}]"))),
    }
}

/// `decimal32/64/128(X, scale)`: X (number, text or DECIMAL) as the DECIMAL type of that
/// width with `scale` digits; text truncates extra digits, numbers round (kernels::decimal).
fn decimal_like(name: &str, a: &[Value], ty: DataType) -> Result<Value> {
    let scale = scale_arg(name, a, ty.decimal_max_scale() as i64)?;
    let to = ty.with_scale(scale as u8);
    ops::unary_col(&a[0], &|c: &Column| beluga_runtime::kernels::decimal::cast_to(c, to))
}

fn decimal32(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    decimal_like("decimal32", &a, DataType::Decimal32(0))
}
fn decimal64(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    decimal_like("decimal64", &a, DataType::Decimal64(0))
}
fn decimal128(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    decimal_like("decimal128", &a, DataType::Decimal128(0))
}

/// `decimalMultiply(X, Y, targetScale)`: X*Y exactly, then brought to `targetScale`
/// (rounded) when the manual's conditions allow it (funcs/d/decimalMultiply.md): both
/// DECIMAL with min(S1,S2) <= scale <= S1+S2, or one DECIMAL whose scale equals it;
/// otherwise the plain product.
/// `decimalScale(X)`: the scale of a DECIMAL scalar or vector (INT); other types are an error.
fn decimal_scale(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match a[0].data_type().decimal_scale() {
        Some(s) if !matches!(a[0], Value::Tuple(_) | Value::Dict(_) | Value::Table(_)) => Ok(Value::int(s as i32)),
        _ => Err(Error::arg(format!(
            "The argument of [decimalScale] must be a DECIMAL scalar or vector, not {}",
            crate::util::describe(&a[0])
        ))),
    }
}

fn decimal_multiply(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let scale = match a[2].as_i64() {
        Some(s) if (0..=38).contains(&s) => s as u8,
        _ => return Err(Error::arg("The targetScale argument of [decimalMultiply] must be an integer in [0, 38]")),
    };
    let sx = a[0].data_type().decimal_scale();
    let sy = a[1].data_type().decimal_scale();
    if sx.is_none() && sy.is_none() {
        return Err(Error::arg("At least one argument of [decimalMultiply] must be DECIMAL"));
    }
    let prod = ops::arith_values(beluga_runtime::kernels::arith::ArithOp::Mul, &a[0], &a[1])?;
    let applies = match (sx, sy) {
        (Some(p), Some(q)) => scale >= p.min(q) && scale <= p + q,
        (Some(p), None) | (None, Some(p)) => scale == p,
        _ => false,
    };
    if !applies || prod.data_type().decimal_scale().is_none() {
        return Ok(prod);
    }
    let to = prod.data_type().with_scale(scale);
    ops::unary_col(&prod, &|c: &Column| beluga_runtime::kernels::decimal::cast_to(c, to))
}

// ---------------------------------------------------------------- angles

fn deg2rad(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    map_f64("deg2rad", &a[0], &|x| x.to_radians())
}
fn rad2deg(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    map_f64("rad2deg", &a[0], &|x| x.to_degrees())
}

// ---------------------------------------------------------------- COMPLEX and POINT

/// `complex(real, image)` / `point(x, y)`: two DOUBLEs packed in 16 bytes, the first in the
/// low 8 bytes (what `lowDouble` returns) and the second in the high 8 bytes.
fn pack_doubles(name: &str, ty: DataType, a: &[Value]) -> Result<Value> {
    let x = crate::string::Arg::of(name, &a[0])?;
    let y = crate::string::Arg::of(name, &a[1])?;
    for c in [&x.col, &y.col] {
        if !(c.ty.is_numeric() || c.ty == DataType::Void) {
            return Err(Error::unsupported(name, c.ty));
        }
    }
    let n = crate::string::common_len(name, &[&x, &y])?;
    let (xv, yv) = (as_native::<f64>(&x.col), as_native::<f64>(&y.col));
    let out: Vec<i128> = (0..n)
        .map(|i| {
            let (p, q) = (xv[x.idx(i)], yv[y.idx(i)]);
            if p.is_null() || q.is_null() {
                0
            } else {
                (((q.to_bits() as u128) << 64) | p.to_bits() as u128) as i128
            }
        })
        .collect();
    let c = Column::new(ty, ColData::I128(out));
    Ok(if x.scalar && y.scalar { Value::Scalar(c) } else { Value::Vector(c) })
}

fn complex(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    pack_doubles("complex", DataType::Complex, &a)
}

fn point(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    pack_doubles("point", DataType::Point, &a)
}

pub const DEFS: &[Builtin] = &[
    f("blob", Kind::Elementwise, 0, 1, to_blob),
    f("bool", Kind::Elementwise, 0, 1, to_bool),
    fp("cast", Kind::Elementwise, 2, 2, cast, &["X", "type"]),
    f("char", Kind::Elementwise, 0, 1, to_char),
    fp("complex", Kind::Elementwise, 2, 2, complex, &["real", "image"]),
    f("date", Kind::Elementwise, 0, 1, to_date),
    f("datehour", Kind::Elementwise, 0, 1, to_datehour),
    fp("datetimeParse", Kind::Elementwise, 2, 2, temporal_parse, &["X", "format"]),
    f("datetime", Kind::Elementwise, 0, 1, to_datetime),
    fp("decimal128", Kind::Elementwise, 2, 2, decimal128, &["X", "scale"]),
    fp("decimal32", Kind::Elementwise, 2, 2, decimal32, &["X", "scale"]),
    fp("decimal64", Kind::Elementwise, 2, 2, decimal64, &["X", "scale"]),
    fp("decimalMultiply", Kind::Elementwise, 3, 3, decimal_multiply, &["X", "Y", "targetScale"]),
    fp("decimalScale", Kind::System, 1, 1, decimal_scale, &["X"]),
    f("deg2rad", Kind::Elementwise, 1, 1, deg2rad),
    f("double", Kind::Elementwise, 0, 1, to_double),
    f("duration", Kind::Elementwise, 1, 1, duration),
    f("float", Kind::Elementwise, 0, 1, to_float),
    fp("hex", Kind::Elementwise, 1, 2, hex, &["X", "reverse"]),
    f("highDouble", Kind::Elementwise, 1, 1, high_double),
    f("highLong", Kind::Elementwise, 1, 1, high_long),
    f("int", Kind::Elementwise, 0, 1, to_int),
    f("int128", Kind::Elementwise, 0, 1, int128),
    f("ipaddr", Kind::Elementwise, 0, 1, ipaddr),
    f("long", Kind::Elementwise, 0, 1, to_long),
    f("lowDouble", Kind::Elementwise, 1, 1, low_double),
    f("lowLong", Kind::Elementwise, 1, 1, low_long),
    f("minute", Kind::Elementwise, 0, 1, to_minute),
    f("month", Kind::Elementwise, 0, 1, to_month),
    f("nanotime", Kind::Elementwise, 0, 1, to_nanotime),
    f("nanotimestamp", Kind::Elementwise, 0, 1, to_nanotimestamp),
    fp("parseInt", Kind::Elementwise, 2, 3, parse_integer, &["X", "type", "radix"]),
    fp("parseInteger", Kind::Elementwise, 2, 3, parse_integer, &["X", "type", "radix"]),
    fp("point", Kind::Elementwise, 2, 2, point, &["X", "Y"]),
    f("rad2deg", Kind::Elementwise, 1, 1, rad2deg),
    f("second", Kind::Elementwise, 0, 1, to_second),
    f("short", Kind::Elementwise, 0, 1, to_short),
    f("string", Kind::Elementwise, 0, 1, to_string),
    f("symbol", Kind::Elementwise, 0, 1, to_symbol),
    f("symbolCode", Kind::Elementwise, 1, 1, symbol_code),
    fp("datetimeFormat", Kind::Elementwise, 2, 2, temporal_format, &["X", "format"]),
    fp("temporalFormat", Kind::Elementwise, 2, 2, temporal_format, &["X", "format"]),
    fp("temporalParse", Kind::Elementwise, 2, 2, temporal_parse, &["X", "format"]),
    f("time", Kind::Elementwise, 0, 1, to_time),
    f("timestamp", Kind::Elementwise, 0, 1, to_timestamp),
    f("uuid", Kind::Elementwise, 0, 1, uuid),
];

#[cfg(test)]
mod tests {
    use crate::string::run;

    #[test]
    fn convert_basic() {
        assert_eq!(run("int()"), "00i");
        assert_eq!(run("int(`10.9)"), "10");
        assert_eq!(run("short(65578)"), "42");
        assert_eq!(run("char(99)"), "'c'");
        assert_eq!(run("bool(`true`false)"), "[true,false]");
        assert_eq!(run("string(10)"), "10");
        assert_eq!(run("string(<x + 1>)"), "< x + 1 >");
        assert_eq!(run("date(2012.12.03 01:22:01)"), "2012.12.03");
        assert_eq!(run("date(2016.03M)"), "2016.03.01");
        assert_eq!(run("month(`2012.12)"), "2012.12M");
        assert_eq!(run("second(\"19:36:12\")"), "19:36:12");
        assert_eq!(run("nanotime(12:06:09 13:08:01)"), "[12:06:09.000000000,13:08:01.000000000]");
        assert_eq!(run("datehour(2012.06.13 13:30:10)"), "2012.06.13T13");
        assert_eq!(run("timestamp(2012.01M)"), "2012.01.01T00:00:00.000");
        assert_eq!(run("cast(8.9, INT)"), "9");
        assert_eq!(run("uuid(\"5d212a78-cc48-e3b1-4235-b4d91473ee87\")"), "5d212a78-cc48-e3b1-4235-b4d91473ee87");
        assert_eq!(run("ipaddr(\"192.168.1.13\")"), "192.168.1.13");
        assert_eq!(run("int128(\"e1671797c52e15f763380b45e841ec32\")"), "e1671797c52e15f763380b45e841ec32");
        assert_eq!(run("string(duration(\"20H\"))"), "20H");
        assert_eq!(run("hex(16 25)"), "[\"00000010\",\"00000019\"]");
        assert_eq!(run("hex(16 25, true)"), "[\"10000000\",\"19000000\"]");
        assert_eq!(run("hex(123.456)"), "405edd2f1a9fbe77");
        assert_eq!(run("parseInteger(\"ff\", INT, 16)"), "255");
        assert_eq!(run("parseInteger([\"101\", \"\"], LONG, 2)"), "[5,]");
        assert_eq!(
            run("parseInteger([\" \", \"000\", \"012\", \" 12\",\"12a\", \"1a2\",\"+12a\", \"-12\"], INT)"),
            "[,0,12,12,12,1,12,-12]"
        );
        assert_eq!(run("parseInteger([\"012\", \" 12\",\"12a\", \"1a2\",\"1A2\", \"-1A2\"], INT, 11)"), "[13,13,153,233,233,-233]");
        assert_eq!(run("parseInteger([\"0x16\", \"0X16\"], INT)"), "[0,0]");
        assert!(run("parseInteger(\"a12\", INT)").contains("Invalid string to parse."));
        assert_eq!(run("symbolCode(symbol(`a`b`a))"), "[1,2,1]");
        assert_eq!(run("temporalParse(\"14-02-2018\", \"dd-MM-yyyy\")"), "2018.02.14");
        assert_eq!(run("temporalFormat(2018.02.14, \"dd-MMM-yy\")"), "14-FEB-18");
        // text rounds extra digits since 2.00.10 (funcs/d/decimal64.md, note)
        assert_eq!(run("decimal32(\"3.1415926535\", 4)"), "3.1416");
        assert_eq!(run("symbol([\"1.341\", \"4.5677\"])$DECIMAL64(2)"), "[1.34,4.57]");
        assert_eq!(run("deg2rad(180)"), "3.141593");
        assert_eq!(run("lowDouble(complex(2, 5))"), "2");
        assert_eq!(run("highDouble(point(1.5, 2.5))"), "2.5");
    }
}

// The family's other files (stdlib/src/convert/); lib.rs keeps the old flat paths as aliases.
pub mod build;
pub mod json;
pub mod json_write;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, build::DEFS, json::DEFS, json_write::DEFS].iter().for_each(|defs| r.extend(defs));
}
