//! Operators as functions (`add(1, 2)` shares the kernels of `1 + 2` in runtime::eval::ops),
//! bitwise and logical operators, element-wise max/min (`max(X, Y)`, `maxIgnoreNull`),
//! `pow`, `dot`, and set algebra (`intersection`, `symmetricDifference`, set `-`/`|`).

use beluga_runtime::CallCtx;
use crate::math_util::form_err;
use beluga_runtime::column::{ColData, Column, StrCol, SymCol};
use beluga_runtime::eval::ops::{self, elementwise, make_set, unary_col};
use beluga_runtime::kernels::arith::{self, as_native, binary_map, ArithOp, LogicOp};
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::kernels::cmp::CmpOp;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::types::common_type;
use beluga_runtime::value::{Key, SetVal};
use beluga_runtime::{DataType, Error, Result, Value};

// ------------------------------------------------------------------ arithmetic & comparison

fn arith_fn(op: ArithOp, a: &[Value]) -> Result<Value> {
    ops::arith_values(op, &a[0], &a[1])
}

fn add(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    arith_fn(ArithOp::Add, &a)
}
fn sub(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if let (Value::Set(x), Value::Set(y)) = (&a[0], &a[1]) {
        return set_minus(x, y);
    }
    arith_fn(ArithOp::Sub, &a)
}
fn mul(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    arith_fn(ArithOp::Mul, &a)
}
fn div(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    arith_fn(ArithOp::Div, &a)
}
fn ratio(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    arith_fn(ArithOp::Ratio, &a)
}
fn modulo(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    arith_fn(ArithOp::Mod, &a)
}
fn neg(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::neg_value(&a[0])
}

fn cmp_fn(op: CmpOp, a: &[Value]) -> Result<Value> {
    ops::compare_values(op, &a[0], &a[1])
}
fn eq(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    cmp_fn(CmpOp::Eq, &a)
}
fn ne(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    cmp_fn(CmpOp::Ne, &a)
}
fn lt(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    cmp_fn(CmpOp::Lt, &a)
}
fn le(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    cmp_fn(CmpOp::Le, &a)
}
fn gt(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    cmp_fn(CmpOp::Gt, &a)
}
fn ge(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    cmp_fn(CmpOp::Ge, &a)
}

fn and(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    elementwise(&a[0], &a[1], &|x, sx, y, sy| arith::logic(LogicOp::And, x, sx, y, sy))
}
fn or(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    elementwise(&a[0], &a[1], &|x, sx, y, sy| arith::logic(LogicOp::Or, x, sx, y, sy))
}
fn not(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::not_value(&a[0])
}

/// Logical exclusive or: any null operand gives null.
fn xor(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    elementwise(&a[0], &a[1], &|x, sx, y, sy| {
        if x.ty.is_literal() || y.ty.is_literal() {
            return Err(Error::type_err("The xor operator is not supported for strings"));
        }
        check_len("xor", x, sx, y, sy)?;
        let p = as_native::<f64>(x);
        let q = as_native::<f64>(y);
        let r: Vec<i8> = binary_map(&p, &q, sx, sy, |u, v| ((u != 0.0) != (v != 0.0)) as i8);
        Ok(Column::from_vec(DataType::Bool, r))
    })
}

fn check_len(name: &str, x: &Column, sx: bool, y: &Column, sy: bool) -> Result<()> {
    if !sx && !sy && x.len() != y.len() {
        return Err(Error::size(format!(
            "The size of the two operands of {name} must be the same ({} vs {})",
            x.len(),
            y.len()
        )));
    }
    Ok(())
}

// ------------------------------------------------------------------ bitwise

#[derive(Clone, Copy, PartialEq)]
enum Bit {
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

impl Bit {
    fn name(self) -> &'static str {
        match self {
            Bit::And => "bitAnd",
            Bit::Or => "bitOr",
            Bit::Xor => "bitXor",
            Bit::Shl => "lshift",
            Bit::Shr => "rshift",
        }
    }
}

/// Integer bitwise kernel (same result types as the `& | ^ << >>` operators).
fn bitwise(op: Bit, a: &Column, sa: bool, b: &Column, sb: bool) -> Result<Column> {
    let ok = |t: DataType| t.is_integral() || t == DataType::Void;
    if !ok(a.ty) || !ok(b.ty) {
        return Err(Error::type_err(format!(
            "The {} operator only supports integral types, not {} and {}",
            op.name(),
            a.ty,
            b.ty
        )));
    }
    check_len(op.name(), a, sa, b, sb)?;
    let long = a.ty == DataType::Long || b.ty == DataType::Long;
    let x = as_native::<i64>(a);
    let y = as_native::<i64>(b);
    let r = binary_map(&x, &y, sa, sb, |p: i64, q: i64| match op {
        Bit::And => p & q,
        Bit::Or => p | q,
        Bit::Xor => p ^ q,
        Bit::Shl => p.wrapping_shl(q as u32),
        Bit::Shr => p.wrapping_shr(q as u32),
    });
    if long {
        return Ok(Column::from_vec(DataType::Long, r));
    }
    let ty = if a.ty == b.ty && !matches!(op, Bit::Shl | Bit::Shr) { a.ty } else { DataType::Int };
    let ty = if ty == DataType::Void { DataType::Int } else { ty };
    Ok(Column::from_vec(DataType::Long, r).cast_int_like(ty))
}

fn bit_fn(op: Bit, a: &[Value]) -> Result<Value> {
    if let (Value::Set(x), Value::Set(y)) = (&a[0], &a[1]) {
        return match op {
            Bit::And => set_intersect(x, y),
            Bit::Or => set_union(x, y),
            Bit::Xor => set_symdiff(x, y),
            _ => Err(Error::type_err(format!("The {} operator is not supported for sets", op.name()))),
        };
    }
    elementwise(&a[0], &a[1], &|x, sx, y, sy| bitwise(op, x, sx, y, sy))
}

fn bit_and(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    bit_fn(Bit::And, &a)
}
fn bit_or(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    bit_fn(Bit::Or, &a)
}
fn bit_xor(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    bit_fn(Bit::Xor, &a)
}
fn lshift(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    bit_fn(Bit::Shl, &a)
}
fn rshift(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    bit_fn(Bit::Shr, &a)
}

/// `~x`: bitwise complement of integers (logical not for BOOL); null stays null.
fn bit_not(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    fn inv<T: Native + std::ops::Not<Output = T>>(v: &[T]) -> Vec<T> {
        v.iter().map(|&x| if x.is_null() { x } else { !x }).collect()
    }
    unary_col(&a[0], &|c: &Column| {
        Ok(match &*c.data {
            ColData::I8(v) if c.ty == DataType::Bool => {
                Column::from_vec(c.ty, v.iter().map(|&x| if x.is_null() { x } else { (x == 0) as i8 }).collect::<Vec<i8>>())
            }
            ColData::I8(v) if c.ty.is_integral() => Column::from_vec(c.ty, inv(v)),
            ColData::I16(v) if c.ty.is_integral() => Column::from_vec(c.ty, inv(v)),
            ColData::I32(v) if c.ty.is_integral() => Column::from_vec(c.ty, inv(v)),
            ColData::I64(v) if c.ty.is_integral() => Column::from_vec(c.ty, inv(v)),
            _ if c.ty == DataType::Void => Column::nulls(DataType::Int, c.len()),
            _ => return Err(Error::unsupported("bitNot", c.ty)),
        })
    })
}

// ------------------------------------------------------------------ element-wise max / min

fn pick<T: Native>(a: &[T], b: &[T], sa: bool, sb: bool, want_max: bool, ignore_null: bool) -> Vec<T> {
    let n = if sa && sb { 1 } else if sa { b.len() } else { a.len() };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let x = a[if sa { 0 } else { i }];
        let y = b[if sb { 0 } else { i }];
        let r = match (x.is_null(), y.is_null()) {
            (true, true) => T::NULL,
            // null is the smallest value: max ignores it; min returns it (unless ignoring nulls)
            (true, false) => if want_max || ignore_null { y } else { T::NULL },
            (false, true) => if want_max || ignore_null { x } else { T::NULL },
            _ => {
                if (want_max && y > x) || (!want_max && y < x) { y } else { x }
            }
        };
        out.push(r);
    }
    out
}

fn pick_str(a: &Column, b: &Column, sa: bool, sb: bool, want_max: bool, ignore_null: bool) -> Column {
    let n = if sa && sb { 1 } else if sa { b.len() } else { a.len() };
    let mut chosen: Vec<&str> = Vec::with_capacity(n);
    for i in 0..n {
        let x = a.str_at(if sa { 0 } else { i }).unwrap_or("");
        let y = b.str_at(if sb { 0 } else { i }).unwrap_or("");
        let r = match (x.is_empty(), y.is_empty()) {
            (true, false) => if want_max || ignore_null { y } else { "" },
            (false, true) => if want_max || ignore_null { x } else { "" },
            _ => {
                if (want_max && y > x) || (!want_max && y < x) { y } else { x }
            }
        };
        chosen.push(r);
    }
    if a.ty == DataType::Symbol && b.ty == DataType::Symbol {
        Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(chosen)))
    } else {
        Column::new(DataType::String, ColData::Str(StrCol::from_iter(chosen)))
    }
}

/// Column kernel of element-wise max/min with DolphinDB's null rules.
pub fn extreme_kernel(name: &str, a: &Column, sa: bool, b: &Column, sb: bool, want_max: bool, ignore_null: bool) -> Result<Column> {
    check_len(name, a, sa, b, sb)?;
    if a.ty.is_literal() || b.ty.is_literal() {
        if !(a.ty.is_literal() || a.ty == DataType::Void) || !(b.ty.is_literal() || b.ty == DataType::Void) {
            return Err(Error::type_err(format!("The function [{name}] can't compare {} with {}", a.ty, b.ty)));
        }
        return Ok(pick_str(a, b, sa, sb, want_max, ignore_null));
    }
    let ty = if a.ty.is_temporal() && b.ty.is_temporal() && a.ty != b.ty {
        if beluga_runtime::kernels::arith::unit_rank(a.ty) >= beluga_runtime::kernels::arith::unit_rank(b.ty) { a.ty } else { b.ty }
    } else if a.ty.is_temporal() && (b.ty.is_integral() || b.ty == DataType::Void) {
        a.ty
    } else if b.ty.is_temporal() && (a.ty.is_integral() || a.ty == DataType::Void) {
        b.ty
    } else {
        common_type(a.ty, b.ty).ok_or_else(|| Error::type_err(format!("The function [{name}] can't compare {} with {}", a.ty, b.ty)))?
    };
    let ty = if ty == DataType::Void { DataType::Double } else { ty };
    let conv = |c: &Column| -> Result<Column> {
        if c.ty == ty {
            Ok(c.clone())
        } else if c.ty.is_temporal() && ty.is_temporal() {
            beluga_runtime::kernels::temporal_to(c, ty)
        } else if ty.is_temporal() {
            Ok(Column::from_vec(ty, as_native::<i64>(c).into_owned()).retag_physical())
        } else {
            cast_column(c, ty)
        }
    };
    let (a, b) = (conv(a)?, conv(b)?);
    Ok(match (&*a.data, &*b.data) {
        (ColData::I8(x), ColData::I8(y)) => Column::from_vec(ty, pick(x, y, sa, sb, want_max, ignore_null)),
        (ColData::I16(x), ColData::I16(y)) => Column::from_vec(ty, pick(x, y, sa, sb, want_max, ignore_null)),
        (ColData::I32(x), ColData::I32(y)) => Column::from_vec(ty, pick(x, y, sa, sb, want_max, ignore_null)),
        (ColData::I64(x), ColData::I64(y)) => Column::from_vec(ty, pick(x, y, sa, sb, want_max, ignore_null)),
        (ColData::F32(x), ColData::F32(y)) => Column::from_vec(ty, pick(x, y, sa, sb, want_max, ignore_null)),
        (ColData::F64(x), ColData::F64(y)) => Column::from_vec(ty, pick(x, y, sa, sb, want_max, ignore_null)),
        _ => return Err(Error::unsupported(name, ty)),
    })
}

/// `max(X, Y)` / `min(X, Y)` / `maxIgnoreNull` / `minIgnoreNull` on any forms.
pub fn elem_extreme(name: &str, x: &Value, y: &Value, want_max: bool, ignore_null: bool) -> Result<Value> {
    elementwise(x, y, &|a, sa, b, sb| extreme_kernel(name, a, sa, b, sb, want_max, ignore_null))
}

fn max_ignore_null(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    elem_extreme("maxIgnoreNull", &a[0], &a[1], true, true)
}
fn min_ignore_null(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    elem_extreme("minIgnoreNull", &a[0], &a[1], false, true)
}

// ------------------------------------------------------------------ pow, dot

/// `pow(X, Y)`: X to the power Y, always DOUBLE (nulls, NaN and overflow give null).
pub fn pow_values(x: &Value, y: &Value) -> Result<Value> {
    elementwise(x, y, &|a, sa, b, sb| {
        let ok = |t: DataType| t.is_numeric() || t == DataType::Void;
        if !ok(a.ty) || !ok(b.ty) {
            return Err(Error::unsupported("pow", if ok(a.ty) { b.ty } else { a.ty }));
        }
        check_len("pow", a, sa, b, sb)?;
        let p = as_native::<f64>(a);
        let q = as_native::<f64>(b);
        Ok(Column::from_vec(DataType::Double, pow_kernel(&p, &q, sa, sb)))
    })
}

/// `pow` over f64 slices (either may be one broadcast value) through the vectorised
/// `kernels::vmath` pow, chunked (in parallel on long inputs), then the null rule: a null
/// operand, a NaN or an infinite result gives NULL.
fn pow_kernel(p: &[f64], q: &[f64], sa: bool, sb: bool) -> Vec<f64> {
    use beluga_runtime::kernels::{par, vmath};
    use std::mem::MaybeUninit;
    let n = if sa && sb { 1 } else if sa { q.len() } else { p.len() };
    let fill = |start: usize, o: &mut [MaybeUninit<f64>]| {
        let r = start..start + o.len();
        let (x, y) = (if sa { &p[..1] } else { &p[r.clone()] }, if sb { &q[..1] } else { &q[r] });
        match (sa, sb) {
            (_, true) => {
                if sa {
                    vmath::pow_slice(x, y, o)
                } else {
                    vmath::pow_slice_scalar(x, y[0], o)
                }
            }
            (true, false) => {
                let xs = vec![x[0]; o.len()];
                vmath::pow_slice(&xs, y, o)
            }
            (false, false) => vmath::pow_slice(x, y, o),
        }
        // SAFETY: the pow kernel above wrote every element of `o`
        pow_null_rule(unsafe { par::assume_init_mut(o) }, x, y, sa, sb);
    };
    // SAFETY: `fill` writes every element of each part (the pow kernels' contract)
    unsafe { par::build_vec(n, par::PAR_MATH_MIN, &fill) }
}

beluga_runtime::simd_fn! {
    /// `pow`'s null rule on results `o` of operands `x`, `y` (a flagged one broadcast):
    /// a null operand, a NaN or an infinite result gives NULL; branch-free so it vectorises.
    fn pow_null_rule(o: &mut [f64], x: &[f64], y: &[f64], sa: bool, sb: bool) -> () {
        let fix = |v: f64, u: f64, w: f64| if u.is_null() | w.is_null() | !v.is_finite() { f64::NULL } else { v };
        match (sa, sb) {
            (false, false) => o.iter_mut().zip(x).zip(y).for_each(|((d, &u), &w)| *d = fix(*d, u, w)),
            (true, false) => o.iter_mut().zip(y).for_each(|(d, &w)| *d = fix(*d, x[0], w)),
            (false, true) => o.iter_mut().zip(x).for_each(|(d, &u)| *d = fix(*d, u, y[0])),
            (true, true) => o.iter_mut().for_each(|d| *d = fix(*d, x[0], y[0])),
        }
    }
}

fn pow(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    pow_values(&a[0], &a[1])
}

fn dot(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match (&a[0], &a[1]) {
        (x, y) if x.is_scalar() || y.is_scalar() => ops::arith_values(ArithOp::Mul, x, y),
        // inner product of two vectors: pairs with a null are skipped
        (Value::Vector(p), Value::Vector(q)) => {
            if p.len() != q.len() {
                return Err(Error::size("The two vectors of [dot] must have the same length"));
            }
            if !(p.ty.is_numeric() && q.ty.is_numeric()) {
                return Err(Error::unsupported("dot", if p.ty.is_numeric() { q.ty } else { p.ty }));
            }
            if p.ty.is_integral() && q.ty.is_integral() {
                let (u, v) = (as_native::<i64>(p), as_native::<i64>(q));
                let s = u.iter().zip(v.iter()).filter(|(a, b)| !a.is_null() && !b.is_null()).fold(0i64, |s, (a, b)| s.wrapping_add(a.wrapping_mul(*b)));
                let long = p.ty == DataType::Long || q.ty == DataType::Long;
                return Ok(if long { Value::long(s) } else { Value::int(s as i32) });
            }
            let (u, v) = (as_native::<f64>(p), as_native::<f64>(q));
            Ok(Value::double(u.iter().zip(v.iter()).filter(|(a, b)| !a.is_null() && !b.is_null()).map(|(a, b)| a * b).sum()))
        }
        (x, y) => ops::dot(x, y),
    }
}

// ------------------------------------------------------------------ sets

fn as_set(name: &str, v: &Value) -> Result<SetVal> {
    match v {
        Value::Set(s) => Ok((**s).clone()),
        Value::Scalar(c) | Value::Vector(c) => match make_set(c.clone()) {
            Value::Set(s) => Ok((*s).clone()),
            _ => Err(form_err(name, v)),
        },
        other => Err(form_err(name, other)),
    }
}

fn keep(x: &SetVal, pred: impl Fn(&Key) -> bool) -> Vec<usize> {
    (0..x.items.len()).filter(|&i| pred(&Key::of(&x.items, i))).collect()
}

fn join_sets(x: &SetVal, a: &[usize], y: &SetVal, b: &[usize]) -> Result<Value> {
    let ty = x.items.ty;
    let p = x.items.take_usize(a);
    let q = y.items.take_usize(b);
    let q = if q.ty != ty { cast_column(&q, ty)? } else { q };
    Ok(make_set(Column::concat(ty, &[&p, &q])))
}

/// The members of `x` also in `y`, taken in `y`'s print order (reverse insertion), so the
/// result prints as DolphinDB's does (`set(5 3 4 6) & set(8 9 4 6)` prints `set(4,6)`).
pub fn set_intersect(x: &SetVal, y: &SetVal) -> Result<Value> {
    let b: Vec<usize> = (0..y.items.len()).rev().filter(|&i| x.index.contains_key(&Key::of(&y.items, i))).collect();
    join_sets(x, &[], y, &b)
}

pub fn set_minus(x: &SetVal, y: &SetVal) -> Result<Value> {
    join_sets(x, &keep(x, |k| !y.index.contains_key(k)), y, &[])
}

pub fn set_union(x: &SetVal, y: &SetVal) -> Result<Value> {
    let all: Vec<usize> = (0..x.items.len()).collect();
    join_sets(x, &all, y, &keep(y, |k| !x.index.contains_key(k)))
}

pub fn set_symdiff(x: &SetVal, y: &SetVal) -> Result<Value> {
    join_sets(x, &keep(x, |k| !y.index.contains_key(k)), y, &keep(y, |k| !x.index.contains_key(k)))
}

fn intersection(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    set_intersect(&as_set("intersection", &a[0])?, &as_set("intersection", &a[1])?)
}

fn symmetric_difference(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    set_symdiff(&as_set("symmetricDifference", &a[0])?, &as_set("symmetricDifference", &a[1])?)
}

const XY: &[&str] = &["X", "Y"];

pub const DEFS: &[Builtin] = &[
    fp("add", Kind::Elementwise, 2, 2, add, XY),
    fp("and", Kind::Elementwise, 2, 2, and, XY),
    fp("bitAnd", Kind::Elementwise, 2, 2, bit_and, XY),
    fp("bitNot", Kind::Elementwise, 1, 1, bit_not, &["X"]),
    fp("bitOr", Kind::Elementwise, 2, 2, bit_or, XY),
    fp("bitXor", Kind::Elementwise, 2, 2, bit_xor, XY),
    fp("div", Kind::Elementwise, 2, 2, div, XY),
    fp("dot", Kind::System, 2, 2, dot, XY),
    fp("eq", Kind::Elementwise, 2, 2, eq, XY),
    fp("ge", Kind::Elementwise, 2, 2, ge, XY),
    fp("gt", Kind::Elementwise, 2, 2, gt, XY),
    fp("intersection", Kind::System, 2, 2, intersection, XY),
    fp("le", Kind::Elementwise, 2, 2, le, XY),
    fp("lshift", Kind::Elementwise, 2, 2, lshift, &["X", "bits"]),
    fp("lt", Kind::Elementwise, 2, 2, lt, XY),
    fp("maxIgnoreNull", Kind::Elementwise, 2, 2, max_ignore_null, XY),
    fp("minIgnoreNull", Kind::Elementwise, 2, 2, min_ignore_null, XY),
    fp("mod", Kind::Elementwise, 2, 2, modulo, XY),
    fp("mul", Kind::Elementwise, 2, 2, mul, XY),
    fp("ne", Kind::Elementwise, 2, 2, ne, XY),
    fp("neg", Kind::Elementwise, 1, 1, neg, &["X"]),
    fp("not", Kind::Elementwise, 1, 1, not, &["X"]),
    fp("or", Kind::Elementwise, 2, 2, or, XY),
    fp("pow", Kind::Elementwise, 2, 2, pow, XY),
    fp("power", Kind::Elementwise, 2, 2, pow, XY),
    fp("ratio", Kind::Elementwise, 2, 2, ratio, XY),
    fp("rshift", Kind::Elementwise, 2, 2, rshift, &["X", "bits"]),
    fp("sub", Kind::Elementwise, 2, 2, sub, XY),
    fp("symmetricDifference", Kind::System, 2, 2, symmetric_difference, XY),
    fp("xor", Kind::Elementwise, 2, 2, xor, XY),
];
