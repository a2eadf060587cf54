//! Element-wise math: abs, signum, square, reciprocal, roots, exponentials, logarithms,
//! trigonometry, rounding and clip. Functions of f64 return DOUBLE; abs/floor/ceil/round
//! keep integral types; nulls propagate; NaN and infinities become null.

use beluga_runtime::kernels::decimal as dec;
use beluga_runtime::CallCtx;
use crate::util::{map_f64, map_f64_slices, opt};
use beluga_runtime::kernels::par::PAR_MATH_MIN;
use beluga_runtime::kernels::vmath;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::eval::ops::{elementwise, unary_col};
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};

fn num_col(name: &str, c: &Column) -> Result<()> {
    if c.ty.is_numeric() || c.ty == DataType::Void {
        Ok(())
    } else {
        Err(Error::unsupported(name, c.ty))
    }
}

/// Apply `op` to float columns, leave integral columns unchanged (floor/ceil/round).
fn float_only(name: &str, v: &Value, op: fn(f64) -> f64) -> Result<Value> {
    fn go<T: Native>(v: &[T], op: fn(f64) -> f64) -> Vec<T> {
        v.iter().map(|&x| if x.is_null() { x } else { T::from_f64(op(x.to_f64())) }).collect()
    }
    unary_col(v, &|c: &Column| {
        num_col(name, c)?;
        Ok(match &*c.data {
            ColData::F32(x) => Column::from_vec(c.ty, go(x, op)),
            ColData::F64(x) => Column::from_vec(c.ty, go(x, op)),
            _ if c.ty == DataType::Void => Column::nulls(DataType::Double, c.len()),
            _ => c.clone(),
        })
    })
}

fn abs(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    fn go<T: Native + PartialOrd>(v: &[T], neg: fn(T) -> T) -> Vec<T> {
        v.iter().map(|&x| if x.is_null() || x >= T::ZERO { x } else { neg(x) }).collect()
    }
    unary_col(&a[0], &|c: &Column| {
        num_col("abs", c)?;
        Ok(match &*c.data {
            ColData::I8(x) => Column::from_vec(c.ty, go(x, |v: i8| v.wrapping_neg())),
            ColData::I16(x) => Column::from_vec(c.ty, go(x, |v: i16| v.wrapping_neg())),
            ColData::I32(x) => Column::from_vec(c.ty, go(x, |v: i32| v.wrapping_neg())),
            ColData::I64(x) => Column::from_vec(c.ty, go(x, |v: i64| v.wrapping_neg())),
            ColData::F32(x) => Column::from_vec(c.ty, go(x, |v: f32| -v)),
            ColData::F64(x) => Column::from_vec(c.ty, go(x, |v: f64| -v)),
            _ => return Err(Error::unsupported("abs", c.ty)),
        })
    })
}

/// `signum`: -1, 0 or 1 as INT (null stays null).
fn signum(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    unary_col(&a[0], &|c: &Column| {
        num_col("signum", c)?;
        let x = as_native::<f64>(c);
        let r: Vec<i32> = x
            .iter()
            .map(|&v| if v.is_null() { i32::NULL } else if v > 0.0 { 1 } else if v < 0.0 { -1 } else { 0 })
            .collect();
        Ok(Column::from_vec(DataType::Int, r))
    })
}

/// `signbit`: whether the sign bit is set (BOOL).
fn signbit(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    unary_col(&a[0], &|c: &Column| {
        num_col("signbit", c)?;
        let x = as_native::<f64>(c);
        let r: Vec<i8> = x.iter().map(|&v| if v.is_null() { i8::NULL } else { v.is_sign_negative() as i8 }).collect();
        Ok(Column::from_vec(DataType::Bool, r))
    })
}

macro_rules! f64_fns {
    ($($fname:ident => $name:literal, $body:expr;)*) => {
        $(fn $fname(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
            map_f64($name, &a[0], &$body)
        })*
    };
}

f64_fns! {
    square => "square", |x: f64| x * x;
    reciprocal => "reciprocal", |x: f64| 1.0 / x;
    sqrt => "sqrt", |x: f64| x.sqrt();
    cbrt => "cbrt", |x: f64| x.cbrt();
    exp2 => "exp2", |x: f64| x.exp2();
    expm1 => "expm1", |x: f64| x.exp_m1();
    log10 => "log10", |x: f64| x.log10();
    log2 => "log2", |x: f64| x.log2();
    log1p => "log1p", |x: f64| x.ln_1p();
    sin => "sin", |x: f64| x.sin();
    cos => "cos", |x: f64| x.cos();
    tan => "tan", |x: f64| x.tan();
    asin => "asin", |x: f64| x.asin();
    acos => "acos", |x: f64| x.acos();
    atan => "atan", |x: f64| x.atan();
    sinh => "sinh", |x: f64| x.sinh();
    cosh => "cosh", |x: f64| x.cosh();
    tanh => "tanh", |x: f64| x.tanh();
    asinh => "asinh", |x: f64| x.asinh();
    acosh => "acosh", |x: f64| x.acosh();
    atanh => "atanh", |x: f64| x.atanh();
}

/// `exp(X)`: e^X through the vectorised polynomial of `kernels::vmath`.
fn exp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    map_f64_slices("exp", &a[0], PAR_MATH_MIN, &vmath::exp_slice)
}

/// `log(X, [base])`: natural logarithm, or logarithm in `base`.
fn log(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match opt(&a, 1) {
        None => map_f64_slices("log", &a[0], PAR_MATH_MIN, &vmath::ln_slice),
        Some(b) => {
            let base = crate::math_util::f64_arg("log", b, "base")?;
            if base <= 0.0 || base == 1.0 {
                return Err(Error::arg("The base of [log] must be a positive number other than 1"));
            }
            let lb = base.ln();
            map_f64_slices("log", &a[0], PAR_MATH_MIN, &move |x, o| {
                vmath::ln_slice(x, o);
                for d in o.iter_mut() {
                    // SAFETY: ln_slice wrote every element
                    d.write(unsafe { d.assume_init() } / lb);
                }
            })
        }
    }
}

/// `float_only` for the rounding family, with DECIMAL columns rounded exactly at `digits`
/// places (`kernels::decimal::round_to`) instead of passing through unchanged.
fn rounding(name: &str, v: &Value, op: fn(f64) -> f64, digits: i32, mode: dec::RoundMode) -> Result<Value> {
    if v.data_type().decimal_scale().is_some() {
        return unary_col(v, &|c: &Column| dec::round_to(c, digits, mode));
    }
    float_only(name, v, op)
}

fn floor(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    rounding("floor", &a[0], f64::floor, 0, dec::RoundMode::Floor)
}
fn ceil(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    rounding("ceil", &a[0], f64::ceil, 0, dec::RoundMode::Ceil)
}

/// `round(X, [precision])`: half away from zero; with a precision the result is DOUBLE.
fn round(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match opt(&a, 1) {
        None => rounding("round", &a[0], f64::round, 0, dec::RoundMode::HalfAway),
        Some(p) => {
            let d = crate::util::int_arg("round", p, "precision")?;
            if !(-10..=16).contains(&d) {
                return Err(Error::arg("The precision of [round] must be between 0 and 10"));
            }
            if a[0].data_type().decimal_scale().is_some() {
                return rounding("round", &a[0], f64::round, d as i32, dec::RoundMode::HalfAway);
            }
            let s = 10f64.powi(d as i32);
            map_f64("round", &a[0], &move |x: f64| (x * s).round() / s)
        }
    }
}

/// Clip kernel: bound X from below (`lower`) or above by B, keeping X's type. A null scalar
/// bound leaves X unchanged; a null element of a vector bound makes the result null.
fn clip_kernel(a: &Column, sa: bool, b: &Column, sb: bool, lower: bool) -> Result<Column> {
    let ok = |t: DataType| t.is_numeric() || t.is_temporal() || t == DataType::Void;
    if !ok(a.ty) || !ok(b.ty) {
        return Err(Error::unsupported("clip", if ok(a.ty) { b.ty } else { a.ty }));
    }
    if (a.ty.is_temporal() || b.ty.is_temporal()) && a.ty != b.ty && b.ty != DataType::Void {
        return Err(Error::type_err(format!("The bounds of [clip] must have the same type as X ({})", a.ty)));
    }
    if !sa && !sb && a.len() != b.len() {
        return Err(Error::size("The bounds of [clip] must be scalars or have the same length as X"));
    }
    let ty = if a.ty == DataType::Void { DataType::Double } else { a.ty };
    let ca = if a.ty == ty { a.clone() } else { cast_column(a, ty)? };
    let cb = if b.ty == ty { b.clone() } else { cast_column(b, ty)? };
    fn go<T: Native>(x: &[T], y: &[T], sa: bool, sb: bool, lower: bool) -> Vec<T> {
        let n = if sa && sb { 1 } else if sa { y.len() } else { x.len() };
        (0..n)
            .map(|i| {
                let v = x[if sa { 0 } else { i }];
                let bnd = y[if sb { 0 } else { i }];
                if v.is_null() {
                    v
                } else if bnd.is_null() {
                    if sb { v } else { T::NULL }
                } else if (lower && v < bnd) || (!lower && v > bnd) {
                    bnd
                } else {
                    v
                }
            })
            .collect()
    }
    Ok(match (&*ca.data, &*cb.data) {
        (ColData::I8(x), ColData::I8(y)) => Column::from_vec(ty, go(x, y, sa, sb, lower)),
        (ColData::I16(x), ColData::I16(y)) => Column::from_vec(ty, go(x, y, sa, sb, lower)),
        (ColData::I32(x), ColData::I32(y)) => Column::from_vec(ty, go(x, y, sa, sb, lower)),
        (ColData::I64(x), ColData::I64(y)) => Column::from_vec(ty, go(x, y, sa, sb, lower)),
        (ColData::F32(x), ColData::F32(y)) => Column::from_vec(ty, go(x, y, sa, sb, lower)),
        (ColData::F64(x), ColData::F64(y)) => Column::from_vec(ty, go(x, y, sa, sb, lower)),
        _ => return Err(Error::unsupported("clip", ty)),
    })
}

/// `clip(X, Y, Z)`: limit X to [Y, Z] (applied as min(max(X, Y), Z)).
pub fn clip_value(x: &Value, lo: &Value, hi: &Value) -> Result<Value> {
    let r = elementwise(x, lo, &|a, sa, b, sb| clip_kernel(a, sa, b, sb, true))?;
    elementwise(&r, hi, &|a, sa, b, sb| clip_kernel(a, sa, b, sb, false))
}

fn clip(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    clip_value(&a[0], &a[1], &a[2])
}

pub const DEFS: &[Builtin] = &[
    f("abs", Kind::Elementwise, 1, 1, abs),
    f("acos", Kind::Elementwise, 1, 1, acos),
    f("acosh", Kind::Elementwise, 1, 1, acosh),
    f("asin", Kind::Elementwise, 1, 1, asin),
    f("asinh", Kind::Elementwise, 1, 1, asinh),
    f("atan", Kind::Elementwise, 1, 1, atan),
    f("atanh", Kind::Elementwise, 1, 1, atanh),
    f("cbrt", Kind::Elementwise, 1, 1, cbrt),
    f("ceil", Kind::Elementwise, 1, 1, ceil),
    fp("clip", Kind::Elementwise, 3, 3, clip, &["X", "Y", "Z"]),
    fp("clip!", Kind::Elementwise, 3, 3, clip, &["X", "Y", "Z"]),
    f("cos", Kind::Elementwise, 1, 1, cos),
    f("cosh", Kind::Elementwise, 1, 1, cosh),
    f("exp", Kind::Elementwise, 1, 1, exp),
    f("exp2", Kind::Elementwise, 1, 1, exp2),
    f("expm1", Kind::Elementwise, 1, 1, expm1),
    f("floor", Kind::Elementwise, 1, 1, floor),
    fp("log", Kind::Elementwise, 1, 2, log, &["X", "Y"]),
    f("log10", Kind::Elementwise, 1, 1, log10),
    f("log1p", Kind::Elementwise, 1, 1, log1p),
    f("log2", Kind::Elementwise, 1, 1, log2),
    f("reciprocal", Kind::Elementwise, 1, 1, reciprocal),
    fp("round", Kind::Elementwise, 1, 2, round, &["X", "precision"]),
    f("signbit", Kind::Elementwise, 1, 1, signbit),
    f("signum", Kind::Elementwise, 1, 1, signum),
    // `sign` is the name factor scripts use for signum (same -1/0/1 INT, null stays null)
    f("sign", Kind::Elementwise, 1, 1, signum),
    f("sin", Kind::Elementwise, 1, 1, sin),
    f("sinh", Kind::Elementwise, 1, 1, sinh),
    f("sqrt", Kind::Elementwise, 1, 1, sqrt),
    f("square", Kind::Elementwise, 1, 1, square),
    f("tan", Kind::Elementwise, 1, 1, tan),
    f("tanh", Kind::Elementwise, 1, 1, tanh),
];

// The family's other files (stdlib/src/math/); lib.rs keeps the old flat paths as aliases.
pub mod calc;
pub mod ops;
pub mod util;
#[cfg(test)]
pub(crate) mod tests;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, calc::DEFS, ops::DEFS].iter().for_each(|defs| r.extend(defs));
}
