//! DECIMAL32/64/128 kernels: exact fixed-point values stored as unscaled integers
//! (i32/i64/i128) with the scale carried in the type (`DataType::Decimal32(scale)`).
//!
//! Every operation widens to i128, computes with checked integer arithmetic and narrows
//! back; nothing goes through a float unless a FLOAT/DOUBLE operand asks for it.
//! Rules (DolphinDB manual, funcs/d/decimal32.md, decimalMultiply.md and the DECIMAL
//! tutorial): add/sub keep the larger scale, mul adds the scales (moving to a wider type
//! when the value or the scale needs it), div and mod keep the larger scale (quotient
//! truncated toward zero); an integer operand is a scale-0 decimal (INT and narrower as
//! DECIMAL32, LONG as DECIMAL64); a FLOAT/DOUBLE operand makes the result DOUBLE.
//! Overflow is an error ("Decimal math overflow"), never a wrap. Text and numbers round
//! extra digits half away from zero (numbers on their shortest text).

use crate::column::{ColData, Column, StrCol};
use crate::error::{Error, Result};
use crate::kernels::arith::ArithOp;
use crate::kernels::cmp::CmpOp;
use crate::null::Native;
use crate::types::DataType;

/// Null of the unscaled i128 working form (and of DECIMAL128 storage).
pub const NULL: i128 = crate::null::DECIMAL_NULL;

pub fn is_decimal(t: DataType) -> bool {
    t.decimal_scale().is_some()
}

fn overflow() -> Error {
    Error::runtime("Decimal math overflow")
}

#[inline]
pub fn pow10(s: u32) -> i128 {
    10i128.pow(s)
}

/// Storage width in bits: DECIMAL32 and integers up to INT are 32, LONG and DECIMAL64 64.
fn width(t: DataType) -> u32 {
    match t {
        DataType::Decimal64(_) | DataType::Long => 64,
        DataType::Decimal128(_) => 128,
        _ => 32,
    }
}

fn make(width: u32, scale: u8) -> DataType {
    match width {
        32 => DataType::Decimal32(scale),
        64 => DataType::Decimal64(scale),
        _ => DataType::Decimal128(scale),
    }
}

fn scale_of(t: DataType) -> u8 {
    t.decimal_scale().unwrap_or(0)
}

/// Smallest width ≥ `w` whose maximum scale admits `s`.
fn width_for_scale(w: u32, s: u8) -> u32 {
    if s > 18 {
        128
    } else if s > 9 {
        w.max(64)
    } else {
        w
    }
}

fn fits(width: u32, x: i128) -> bool {
    match width {
        32 => x > i32::MIN as i128 && x <= i32::MAX as i128,
        64 => x > i64::MIN as i128 && x <= i64::MAX as i128,
        // DECIMAL128 holds at most 38 digits (DECIMAL_Calculation_Characteristics: a product
        // of 39 digits is a "Decimal math overflow" although it would fit an i128)
        _ => x != NULL && x.unsigned_abs() < 10u128.pow(38),
    }
}

/// Unscaled values of a DECIMAL or integral column as i128 (`NULL` for nulls).
pub fn unscaled(col: &Column) -> Vec<i128> {
    fn w<T: Native + Into<i128>>(v: &[T]) -> Vec<i128> {
        v.iter().map(|&x| if x.is_null() { NULL } else { x.into() }).collect()
    }
    crate::match_int!(&*col.data, v => w(v),
        ColData::I128(v) if is_decimal(col.ty) => v.clone(),
        ColData::I128(v) => v.iter().map(|&x| if x == 0 { NULL } else { x }).collect(),
        _ => vec![NULL; col.len()],
    )
}

/// Build a DECIMAL column of type `ty` from i128 unscaled values; a value that does not
/// fit the width is an overflow error.
pub fn from_unscaled(ty: DataType, v: Vec<i128>) -> Result<Column> {
    let wd = width(ty);
    if v.iter().any(|&x| x != NULL && !fits(wd, x)) {
        return Err(overflow());
    }
    Ok(match wd {
        32 => Column::from_vec(ty, v.iter().map(|&x| if x == NULL { i32::NULL } else { x as i32 }).collect::<Vec<i32>>()),
        64 => Column::from_vec(ty, v.iter().map(|&x| if x == NULL { i64::NULL } else { x as i64 }).collect::<Vec<i64>>()),
        _ => Column::from_vec(ty, v),
    })
}

/// Values as f64 (NaN for null).
pub fn to_f64(col: &Column) -> Vec<f64> {
    let p = pow10(scale_of(col.ty) as u32) as f64;
    unscaled(col).into_iter().map(|x| if x == NULL { f64::NAN } else { x as f64 / p }).collect()
}

/// Unscaled value of element i (None when null): [`Column::unscaled_at`].
pub fn unscaled_at(col: &Column, i: usize) -> Option<i128> {
    col.unscaled_at(i)
}

/// `a / b` rounded half away from zero.
fn div_round(a: i128, b: i128) -> i128 {
    let q = a / b;
    let r = a % b;
    if r.unsigned_abs() * 2 >= b.unsigned_abs() {
        if (a < 0) != (b < 0) { q - 1 } else { q + 1 }
    } else {
        q
    }
}

/// How [`round_to`] treats the digits it drops.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RoundMode {
    /// half away from zero (`round`)
    HalfAway,
    /// toward -infinity (`floor`)
    Floor,
    /// toward +infinity (`ceil`)
    Ceil,
}

/// `round`/`floor`/`ceil` of a DECIMAL column to `digits` places after the point, exactly.
/// The result keeps the width; its scale is `min(scale, max(digits, 0))` (`round(3.14159P, 2)`
/// is the DECIMAL `3.14`); a negative `digits` rounds to tens, hundreds, ... at scale 0.
pub fn round_to(col: &Column, digits: i32, mode: RoundMode) -> Result<Column> {
    let s = col.ty.decimal_scale().unwrap_or(0) as i32;
    let to = digits.clamp(0, s);
    let drop = s - digits.min(s); // decimal digits removed from the unscaled value
    let d = pow10(drop.min(38) as u32);
    let back = pow10((to - digits.min(to)) as u32); // > 1 only for negative digits
    let v: Vec<i128> = unscaled(col)
        .into_iter()
        .map(|x| {
            if x == NULL || drop == 0 {
                return x;
            }
            let q = x.div_euclid(d);
            let r = x.rem_euclid(d);
            let q = match mode {
                RoundMode::Floor => q,
                RoundMode::Ceil => if r != 0 { q + 1 } else { q },
                RoundMode::HalfAway => div_round(x, d),
            };
            q * back
        })
        .collect();
    from_unscaled(col.ty.with_scale(to as u8), v)
}

/// Change the scale of unscaled values: multiply exactly (overflow is an error) or
/// divide, rounding half away from zero (`round`) or truncating toward zero.
pub fn rescale(v: &[i128], from: u8, to: u8, round: bool) -> Result<Vec<i128>> {
    if from == to {
        return Ok(v.to_vec());
    }
    if to > from {
        let m = pow10((to - from) as u32);
        v.iter().map(|&x| if x == NULL { Ok(NULL) } else { x.checked_mul(m).ok_or_else(overflow) }).collect()
    } else {
        let d = pow10((from - to) as u32);
        Ok(v.iter().map(|&x| if x == NULL { NULL } else if round { div_round(x, d) } else { x / d }).collect())
    }
}

/// Parse decimal text to an unscaled value at `scale`, extra digits truncated.
/// Accepts a sign, digits, one point and an exponent (`1.5e3`); None when not a number.
pub fn parse_text(s: &str, scale: u8, round: bool) -> Option<i128> {
    let s = s.trim();
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(p) => (&body[..p], body[p + 1..].parse::<i32>().ok()?),
        None => (body, 0),
    };
    let (ip, fp) = match mant.split_once('.') {
        Some((a, b)) => (a, b),
        None => (mant, ""),
    };
    if ip.is_empty() && fp.is_empty() {
        return None;
    }
    if !ip.bytes().all(|c| c.is_ascii_digit()) || !fp.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // all digits with the point moved by the exponent: value = digits * 10^(exp - fp.len())
    let digits: String = format!("{ip}{fp}");
    let digits = digits.trim_start_matches('0');
    let shift = exp as i64 - fp.len() as i64 + scale as i64; // unscaled = digits * 10^shift
    let mut acc: i128 = 0;
    let keep = if shift >= 0 { digits.len() } else { (digits.len() as i64 + shift).max(0) as usize };
    for c in digits[..keep].bytes() {
        acc = acc.checked_mul(10)?.checked_add((c - b'0') as i128)?;
    }
    if shift > 0 {
        acc = acc.checked_mul(10i128.checked_pow(shift as u32)?)?;
    } else if round && keep < digits.len() && digits.as_bytes()[keep] >= b'5' {
        acc = acc.checked_add(1)?;
    }
    Some(if neg { -acc } else { acc })
}

/// A float as an unscaled value at `scale`: its shortest text rounded half away from zero.
pub fn from_f64(x: f64, scale: u8) -> Option<i128> {
    if !x.is_finite() {
        return None;
    }
    parse_text(&format!("{x}"), scale, true)
}

/// Cast any numeric, text or DECIMAL column to the DECIMAL type `to`.
pub fn cast_to(col: &Column, to: DataType) -> Result<Column> {
    let s = scale_of(to);
    if s > to.decimal_max_scale() {
        return Err(Error::arg(format!(
            "Scale out of bound (valid range: [0, {}], but get: {s})",
            to.decimal_max_scale()
        )));
    }
    let from = col.ty;
    let v: Vec<i128> = if is_decimal(from) {
        rescale(&unscaled(col), scale_of(from), s, true)?
    } else if from.is_literal() {
        // extra digits of text round half away from zero, as DolphinDB does since 2.00.10
        // (funcs/d/decimal64.md, note; tests/DISPUTED.md)
        (0..col.len()).map(|i| parse_text(col.str_at(i).unwrap_or(""), s, true).unwrap_or(NULL)).collect()
    } else if from.is_floating() {
        let f = col.to_f64_vec().unwrap_or_default();
        let mut out = Vec::with_capacity(f.len());
        for x in f {
            if x.is_nan() || x.is_null() {
                out.push(NULL);
            } else {
                out.push(from_f64(x, s).ok_or_else(overflow)?);
            }
        }
        out
    } else if from.is_integral() || from.is_temporal() || from == DataType::Void {
        rescale(&unscaled(col), 0, s, false)?
    } else {
        return Err(Error::type_err(format!("Cannot convert {from} to {}", to.full_name())));
    };
    from_unscaled(to, v)
}

/// Cast a DECIMAL column to a non-DECIMAL type: floats divide, integers truncate toward
/// zero, text uses the fixed-point form.
pub fn cast_from(col: &Column, to: DataType) -> Result<Option<Column>> {
    let s = scale_of(col.ty);
    Ok(Some(match to {
        DataType::Double => Column::from_vec(to, to_f64(col).into_iter().map(f64::from_f64).collect::<Vec<f64>>()),
        DataType::Float => Column::from_vec(to, to_f64(col).into_iter().map(|x| f32::from_f64(x)).collect::<Vec<f32>>()),
        DataType::Bool | DataType::Char | DataType::Short | DataType::Int | DataType::Long => {
            let ints = rescale(&unscaled(col), s, 0, false)?;
            let longs: Vec<i64> = ints
                .iter()
                .map(|&x| if x == NULL || x <= i64::MIN as i128 || x > i64::MAX as i128 { i64::NULL } else { x as i64 })
                .collect();
            let l = Column::from_vec(DataType::Long, longs);
            if to == DataType::Bool {
                let v = unscaled(col);
                Column::from_vec(to, v.iter().map(|&x| if x == NULL { i8::NULL } else { (x != 0) as i8 }).collect::<Vec<i8>>())
            } else {
                crate::kernels::cast::cast_column(&l, to)?
            }
        }
        DataType::String | DataType::Symbol => return Ok(None),
        _ => return Err(Error::type_err(format!("Cannot convert {} to {to}", col.ty))),
    }))
}

/// Text of each element (nulls empty).
pub fn to_strings(col: &Column) -> StrCol {
    let s = scale_of(col.ty) as u32;
    let mut out = StrCol::with_capacity(col.len(), col.len() * 8);
    for x in unscaled(col) {
        if x == NULL {
            out.push("");
        } else {
            out.push(&crate::elemfmt::format_decimal(x, s));
        }
    }
    out
}

/// Arithmetic where at least one side is DECIMAL. Returns None when the other side is not
/// a number (the caller reports the type error).
pub fn arith(op: ArithOp, a: &Column, sa: bool, b: &Column, sb: bool) -> Result<Option<Column>> {
    let (ta, tb) = (a.ty, b.ty);
    let numeric = |t: DataType| is_decimal(t) || t.is_integral() || t.is_floating() || t == DataType::Void;
    if !numeric(ta) || !numeric(tb) {
        return Ok(None);
    }
    let n = if sa && sb { 1 } else if sa { b.len() } else { a.len() };
    // a float operand or `ratio`: DOUBLE
    if ta.is_floating() || tb.is_floating() || op == ArithOp::Ratio {
        let x = if is_decimal(ta) { crate::column::f64_column(to_f64(a)) } else { a.clone() };
        let y = if is_decimal(tb) { crate::column::f64_column(to_f64(b)) } else { b.clone() };
        return crate::kernels::arith::arith(op, &x, sa, &y, sb).map(Some);
    }
    let (s1, s2) = (scale_of(ta), scale_of(tb));
    let w = width(ta).max(width(tb));
    if ta == DataType::Void || tb == DataType::Void {
        let t = if is_decimal(ta) { ta } else { tb };
        return Ok(Some(Column::nulls(t, n)));
    }
    let x = unscaled(a);
    let y = unscaled(b);
    let at = |v: &[i128], s: bool, i: usize| if s { v[0] } else { v[i] };
    let (scale, vals, grow) = match op {
        ArithOp::Add | ArithOp::Sub => {
            let s = s1.max(s2);
            let x = rescale(&x, s1, s, false)?;
            let y = rescale(&y, s2, s, false)?;
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let (p, q) = (at(&x, sa, i), at(&y, sb, i));
                out.push(if p == NULL || q == NULL {
                    NULL
                } else if op == ArithOp::Add {
                    p.checked_add(q).ok_or_else(overflow)?
                } else {
                    p.checked_sub(q).ok_or_else(overflow)?
                });
            }
            (s, out, false)
        }
        ArithOp::Mul => {
            let s = s1 as u32 + s2 as u32;
            if s > 38 {
                return Err(Error::arg(format!("Scale out of bound (valid range: [0, 38], but get: {s})")));
            }
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let (p, q) = (at(&x, sa, i), at(&y, sb, i));
                out.push(if p == NULL || q == NULL { NULL } else { p.checked_mul(q).ok_or_else(overflow)? });
            }
            (s as u8, out, true)
        }
        ArithOp::Div | ArithOp::Mod | ArithOp::Ratio => {
            let s = s1.max(s2);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let (p, q) = (at(&x, sa, i), at(&y, sb, i));
                if p == NULL || q == NULL || q == 0 {
                    out.push(NULL);
                    continue;
                }
                out.push(if op == ArithOp::Mod {
                    // both at scale s, floor modulo with the divisor's sign
                    let p = p.checked_mul(pow10((s - s1) as u32)).ok_or_else(overflow)?;
                    let q = q.checked_mul(pow10((s - s2) as u32)).ok_or_else(overflow)?;
                    let r = p % q;
                    if r != 0 && ((r < 0) != (q < 0)) { r + q } else { r }
                } else {
                    // (p/10^s1) / (q/10^s2) at scale s = p * 10^(s + s2 - s1) / q
                    let e = s as i32 + s2 as i32 - s1 as i32;
                    let num = p.checked_mul(pow10(e as u32)).ok_or_else(overflow)?;
                    num / q
                });
            }
            (s, out, false)
        }
    };
    let mut wd = width_for_scale(w, scale);
    if grow {
        while wd < 128 && vals.iter().any(|&v| v != NULL && !fits(wd, v)) {
            wd *= 2;
        }
    }
    from_unscaled(make(wd, scale), vals).map(Some)
}

/// Comparison where at least one side is DECIMAL: both sides at the larger scale, exact;
/// against a float, in f64. None when the other side is not a number.
pub fn compare(op: CmpOp, a: &Column, sa: bool, b: &Column, sb: bool) -> Result<Option<Column>> {
    let (ta, tb) = (a.ty, b.ty);
    let ok = |t: DataType| is_decimal(t) || t.is_integral() || t.is_floating() || t == DataType::Void;
    if !ok(ta) || !ok(tb) {
        return Ok(None);
    }
    if ta.is_floating() || tb.is_floating() {
        let x = if is_decimal(ta) { crate::column::f64_column(to_f64(a)) } else { a.clone() };
        let y = if is_decimal(tb) { crate::column::f64_column(to_f64(b)) } else { b.clone() };
        return crate::kernels::cmp::compare(op, &x, sa, &y, sb).map(Some);
    }
    let (s1, s2) = (scale_of(ta), scale_of(tb));
    let s = s1.max(s2);
    let x = rescale(&unscaled(a), s1, s, false)?;
    let y = rescale(&unscaled(b), s2, s, false)?;
    let n = if sa && sb { 1 } else if sa { b.len() } else { a.len() };
    let out: Vec<i8> = (0..n)
        .map(|i| {
            let p = if sa { x[0] } else { x[i] };
            let q = if sb { y[0] } else { y[i] };
            op.test(p.cmp(&q)) as i8
        })
        .collect();
    Ok(Some(Column::from_vec(DataType::Bool, out)))
}

/// Unary minus.
pub fn neg(a: &Column) -> Result<Column> {
    let v: Vec<i128> = unscaled(a).into_iter().map(|x| if x == NULL { NULL } else { -x }).collect();
    from_unscaled(a.ty, v)
}

// ---------------------------------------------------------------- aggregates

/// Sum of a DECIMAL column, one size wider (DECIMAL32 → DECIMAL64 → DECIMAL128) as the
/// manual's DECIMAL tutorial shows; null when every element is null.
pub fn sum(col: &Column) -> Result<Column> {
    let t = col.ty;
    let out_ty = make(width(t).saturating_mul(2).min(128), scale_of(t));
    let mut acc: i128 = 0;
    let mut any = false;
    for x in unscaled(col) {
        if x != NULL {
            acc = acc.checked_add(x).ok_or_else(overflow)?;
            any = true;
        }
    }
    from_unscaled(out_ty, vec![if any { acc } else { NULL }])
}

/// Running sum (same widening as `sum`); nulls stay null.
pub fn cumsum(col: &Column) -> Result<Column> {
    let t = col.ty;
    let out_ty = make(width(t).saturating_mul(2).min(128), scale_of(t));
    let mut acc: i128 = 0;
    let mut out = Vec::with_capacity(col.len());
    for x in unscaled(col) {
        if x == NULL {
            out.push(NULL);
        } else {
            acc = acc.checked_add(x).ok_or_else(overflow)?;
            out.push(acc);
        }
    }
    from_unscaled(out_ty, out)
}

/// Min or max keeping the type; null when every element is null.
pub fn extreme(col: &Column, max: bool) -> Result<Column> {
    let best = unscaled(col).into_iter().filter(|&x| x != NULL).reduce(|p, q| if (q > p) == max { q } else { p });
    from_unscaled(col.ty, vec![best.unwrap_or(NULL)])
}

/// Mean as DOUBLE: the exact integer sum divided once (the manual's DECIMAL tutorial).
pub fn avg(col: &Column) -> f64 {
    let p = pow10(scale_of(col.ty) as u32) as f64;
    let mut acc: i128 = 0;
    let mut n = 0u64;
    for x in unscaled(col) {
        if x != NULL {
            acc = acc.saturating_add(x);
            n += 1;
        }
    }
    // one division by n·10^scale: the correctly rounded quotient when both fit 2^53, so
    // `avg` of 123.0003 .. 123.0300 (DECIMAL64(4)) equals 123.01515 as the manual shows
    // (dividing by 10^scale first rounds twice and gives 123.01514999999999)
    if n == 0 { f64::NULL } else { acc as f64 / (p * n as f64) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d32(v: Vec<i32>, s: u8) -> Column {
        Column::from_vec(DataType::Decimal32(s), v)
    }

    #[test]
    fn parse_truncates_and_rounds() {
        assert_eq!(parse_text("3.1415926535", 4, false), Some(31415));
        assert_eq!(parse_text("3.1415926535", 4, true), Some(31416));
        assert_eq!(parse_text("-1.5", 0, true), Some(-2));
        assert_eq!(parse_text("142", 2, false), Some(14200));
        assert_eq!(parse_text("1.5e2", 1, false), Some(1500));
        assert_eq!(parse_text("abc", 1, false), None);
        assert_eq!(from_f64(1.0 / 7.0, 6), Some(142857));
        assert_eq!(from_f64(0.145, 2), Some(15));
    }

    #[test]
    fn add_mul_div_scales() {
        let a = d32(vec![14200], 2);
        let b = d32(vec![142857], 6);
        let s = arith(ArithOp::Add, &a, true, &b, true).unwrap().unwrap();
        assert_eq!(s.ty, DataType::Decimal32(6));
        assert_eq!(unscaled(&s), vec![142142857]);
        let m = arith(ArithOp::Mul, &a, true, &b, true).unwrap().unwrap();
        assert_eq!(m.ty, DataType::Decimal32(8));
        assert_eq!(unscaled(&m), vec![2028569400]);
        // 1.00 / 3 = 0.33 (scale 2, truncated)
        let d = arith(ArithOp::Div, &d32(vec![100], 2), true, &Column::from_vec(DataType::Int, vec![3]), true)
            .unwrap()
            .unwrap();
        assert_eq!(unscaled(&d), vec![33]);
        assert_eq!(d.ty, DataType::Decimal32(2));
    }

    #[test]
    fn overflow_is_an_error() {
        let a = d32(vec![2_000_000_000], 0);
        assert!(arith(ArithOp::Add, &a, true, &a, true).is_err());
        // mul moves to a wider type instead
        let m = arith(ArithOp::Mul, &a, true, &a, true).unwrap().unwrap();
        assert_eq!(m.ty, DataType::Decimal64(0));
    }

    #[test]
    fn sums_widen() {
        let a = d32(vec![150, i32::NULL, 275], 2);
        let s = sum(&a).unwrap();
        assert_eq!(s.ty, DataType::Decimal64(2));
        assert_eq!(unscaled(&s), vec![425]);
        assert_eq!(unscaled(&cumsum(&a).unwrap()), vec![150, NULL, 425]);
        assert_eq!(unscaled(&extreme(&a, true).unwrap()), vec![275]);
        assert!((avg(&a) - 2.125).abs() < 1e-12);
    }
}
