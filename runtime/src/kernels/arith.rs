//! Element-wise arithmetic on columns: promote, then dispatch once on the common physical
//! type; scalar operands are broadcast without being materialised.

use crate::column::{ColData, Column, StrCol};
use crate::error::{Error, Result};
use crate::null::Native;
use crate::types::{promote_arith, DataType, Physical};
use std::borrow::Cow;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Ratio,
}

impl ArithOp {
    pub fn name(self) -> &'static str {
        match self {
            ArithOp::Add => "add",
            ArithOp::Sub => "sub",
            ArithOp::Mul => "mul",
            ArithOp::Div => "div",
            ArithOp::Mod => "mod",
            ArithOp::Ratio => "ratio",
        }
    }
}

/// Native types arithmetic is computed in.
pub trait ArithNative: Native {
    fn add(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    /// floor division for integers, true division for floats; division by zero → null
    fn div(a: Self, b: Self) -> Self;
    /// floor modulo (sign of the divisor); zero divisor → null
    fn rem(a: Self, b: Self) -> Self;
}

macro_rules! arith_int {
    ($t:ty) => {
        impl ArithNative for $t {
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self {
                a.wrapping_sub(b)
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                if b == 0 {
                    return Self::NULL;
                }
                let q = a.wrapping_div(b);
                if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q }
            }
            #[inline(always)]
            fn rem(a: Self, b: Self) -> Self {
                if b == 0 {
                    return Self::NULL;
                }
                let r = a.wrapping_rem(b);
                if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r }
            }
        }
    };
}
arith_int!(i32);
arith_int!(i64);

macro_rules! arith_float {
    ($t:ty) => {
        impl ArithNative for $t {
            #[inline(always)]
            fn add(a: Self, b: Self) -> Self {
                fin(a + b, a, b)
            }
            #[inline(always)]
            fn sub(a: Self, b: Self) -> Self {
                fin(a - b, a, b)
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                fin(a * b, a, b)
            }
            #[inline(always)]
            fn div(a: Self, b: Self) -> Self {
                if b == 0.0 { Self::NULL } else { fin(a / b, a, b) }
            }
            #[inline(always)]
            fn rem(a: Self, b: Self) -> Self {
                if b == 0.0 {
                    return Self::NULL;
                }
                let r = a % b;
                fin(if r != 0.0 && ((r < 0.0) != (b < 0.0)) { r + b } else { r }, a, b)
            }
        }
    };
}

/// A float result: finite results are kept; NaN/±Infinity only when an operand already was
/// NaN/±Infinity (IEEE propagation), never created from finite operands (null.rs).
#[inline(always)]
fn fin<T: Native + FloatLike>(x: T, a: T, b: T) -> T {
    if x.finite() || !(a.finite() && b.finite()) { x } else { T::NULL }
}
pub trait FloatLike {
    fn finite(self) -> bool;
}
// inline: called per element from the vectorised loops of other crates (an out-of-line
// call there kept `deltas` from vectorising: 4x slower)
impl FloatLike for f64 {
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
}
impl FloatLike for f32 {
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
}
arith_float!(f32);
arith_float!(f64);

/// Apply `f` element-wise with null propagation; a side flagged scalar is broadcast.
#[inline]
pub fn binary_map<A: Native, B: Native, O: Native>(
    a: &[A],
    b: &[B],
    sa: bool,
    sb: bool,
    f: impl Fn(A, B) -> O,
) -> Vec<O> {
    // chunked so a long column can be interrupted between chunks (guard::poll unwinds)
    use crate::guard::collect_chunked;
    match (sa, sb) {
        (false, false) => collect_chunked(a.len().min(b.len()), |r, out| {
            out.extend(a[r.clone()].iter().zip(&b[r]).map(|(&x, &y)| if x.is_null() || y.is_null() { O::NULL } else { f(x, y) }))
        }),
        (true, false) => {
            let x = a[0];
            if x.is_null() {
                return vec![O::NULL; b.len()];
            }
            collect_chunked(b.len(), |r, out| out.extend(b[r].iter().map(|&y| if y.is_null() { O::NULL } else { f(x, y) })))
        }
        (false, true) => {
            let y = b[0];
            if y.is_null() {
                return vec![O::NULL; a.len()];
            }
            collect_chunked(a.len(), |r, out| out.extend(a[r].iter().map(|&x| if x.is_null() { O::NULL } else { f(x, y) })))
        }
        (true, true) => {
            let (x, y) = (a[0], b[0]);
            vec![if x.is_null() || y.is_null() { O::NULL } else { f(x, y) }]
        }
    }
}

/// Values of a numeric/temporal column converted to native type D (nulls kept).
pub fn as_native<D: Native>(col: &Column) -> Cow<'_, [D]> {
    if col.ty.decimal_scale().is_some() {
        // DECIMAL: the value, not the unscaled integer
        let v = crate::kernels::decimal::to_f64(col);
        return Cow::Owned(v.into_iter().map(|x| if x.is_nan() { D::NULL } else { D::from_f64_keep_inf(x) }).collect());
    }
    fn conv<S: Native, D: Native>(v: &[S], float_src: bool) -> Vec<D> {
        if float_src {
            v.iter().map(|&x| if x.is_null() { D::NULL } else { D::from_f64_keep_inf(x.to_f64()) }).collect()
        } else {
            v.iter().map(|&x| if x.is_null() { D::NULL } else { D::from_i64(x.to_i64()) }).collect()
        }
    }
    // borrow when the physical type already matches
    macro_rules! try_borrow {
        ($v:expr) => {{
            let any: &dyn std::any::Any = $v;
            if let Some(s) = any.downcast_ref::<Vec<D>>() {
                return Cow::Borrowed(s.as_slice());
            }
        }};
    }
    match &*col.data {
        ColData::I8(v) => {
            try_borrow!(v);
            Cow::Owned(conv::<i8, D>(v, false))
        }
        ColData::I16(v) => {
            try_borrow!(v);
            Cow::Owned(conv::<i16, D>(v, false))
        }
        ColData::I32(v) => {
            try_borrow!(v);
            Cow::Owned(conv::<i32, D>(v, false))
        }
        ColData::I64(v) => {
            try_borrow!(v);
            Cow::Owned(conv::<i64, D>(v, false))
        }
        ColData::F32(v) => {
            try_borrow!(v);
            Cow::Owned(conv::<f32, D>(v, true))
        }
        ColData::F64(v) => {
            try_borrow!(v);
            Cow::Owned(conv::<f64, D>(v, true))
        }
        ColData::I128(v) => Cow::Owned(conv::<i128, D>(v, false)),
        ColData::Sym(s) => Cow::Owned(vec![D::NULL; s.codes.len()]),
        ColData::Str(s) => Cow::Owned(vec![D::NULL; s.len()]),
        // an array row is not one number: callers reject `ELEM[]` columns by type first
        ColData::Array(a) => Cow::Owned(vec![D::NULL; a.rows()]),
    }
}

fn run<T: ArithNative>(op: ArithOp, a: &[T], b: &[T], sa: bool, sb: bool) -> Vec<T> {
    match op {
        ArithOp::Add => binary_map(a, b, sa, sb, T::add),
        ArithOp::Sub => binary_map(a, b, sa, sb, T::sub),
        ArithOp::Mul => binary_map(a, b, sa, sb, T::mul),
        ArithOp::Div | ArithOp::Ratio => binary_map(a, b, sa, sb, T::div),
        ArithOp::Mod => binary_map(a, b, sa, sb, T::rem),
    }
}

/// Compute in the physical type of `ty` and tag the result with `ty`.
fn compute(op: ArithOp, ty: DataType, a: &Column, sa: bool, b: &Column, sb: bool) -> Column {
    match ty.physical() {
        Physical::I32 | Physical::I8 | Physical::I16 => {
            let r = run::<i32>(op, &as_native(a), &as_native(b), sa, sb);
            let ty = if matches!(ty, DataType::Bool | DataType::Char | DataType::Short) { DataType::Int } else { ty };
            Column::from_vec(ty, r)
        }
        Physical::I64 => Column::from_vec(ty, run::<i64>(op, &as_native(a), &as_native(b), sa, sb)),
        Physical::F32 => Column::from_vec(ty, run::<f32>(op, &as_native(a), &as_native(b), sa, sb)),
        _ => Column::from_vec(DataType::Double, run::<f64>(op, &as_native(a), &as_native(b), sa, sb)),
    }
}

/// Wrap time-of-day values modulo one day.
fn wrap_day(mut c: Column) -> Column {
    if let Some(m) = c.ty.day_modulus() {
        match c.data_mut() {
            ColData::I32(v) => v.iter_mut().for_each(|x| {
                if !x.is_null() {
                    *x = (*x as i64).rem_euclid(m) as i32
                }
            }),
            ColData::I64(v) => v.iter_mut().for_each(|x| {
                if !x.is_null() {
                    *x = x.rem_euclid(m)
                }
            }),
            _ => {}
        }
    }
    c
}

fn type_error(op: ArithOp, a: DataType, b: DataType) -> Error {
    let what = if a.is_literal() || b.is_literal() { "string" } else { "of incompatible types" };
    if what == "string" {
        Error::type_err(format!("Arguments for {} method can not be string.", op.name()))
    } else {
        Error::type_err(format!("The {} operator is not supported between {} and {}", op.name(), a, b))
    }
}

/// Arithmetic on two columns; `sa`/`sb` mark scalar (broadcast) operands.
pub fn arith(op: ArithOp, a: &Column, sa: bool, b: &Column, sb: bool) -> Result<Column> {
    // a broadcast operand must hold its one value (callers may pass an empty vector as one)
    if (sa && a.is_empty()) || (sb && b.is_empty()) {
        return Err(Error::size(format!("{}: a scalar operand is empty", op.name())));
    }
    if !sa && !sb && a.len() != b.len() {
        return Err(Error::size(format!(
            "The size of the two operands of {} must be the same ({} vs {})",
            op.name(),
            a.len(),
            b.len()
        )));
    }
    let (ta, tb) = (a.ty, b.ty);
    // string concatenation
    if op == ArithOp::Add && (ta.is_literal() || tb.is_literal()) {
        return Ok(concat_strings(a, sa, b, sb));
    }
    if ta.is_literal() || tb.is_literal() {
        return Err(type_error(op, ta, tb));
    }
    if ta.decimal_scale().is_some() || tb.decimal_scale().is_some() {
        if let Some(c) = crate::kernels::decimal::arith(op, a, sa, b, sb)? {
            return Ok(c);
        }
        return Err(type_error(op, ta, tb));
    }
    if op == ArithOp::Ratio {
        let ty = if ta == DataType::Float && tb == DataType::Float { DataType::Float } else { DataType::Double };
        return Ok(compute(op, ty, a, sa, b, sb));
    }
    // temporal arithmetic
    if ta.is_temporal() || tb.is_temporal() {
        return temporal_arith(op, a, sa, b, sb);
    }
    let ty = promote_arith(ta, tb).ok_or_else(|| type_error(op, ta, tb))?;
    if ty == DataType::Void {
        let n = if sa && sb { 1 } else if sa { b.len() } else { a.len() };
        return Ok(Column::nulls(DataType::Double, n));
    }
    Ok(compute(op, ty, a, sa, b, sb))
}

fn temporal_arith(op: ArithOp, a: &Column, sa: bool, b: &Column, sb: bool) -> Result<Column> {
    let (ta, tb) = (a.ty, b.ty);
    let int_like = |t: DataType| t.is_integral() || t == DataType::Void;
    match op {
        ArithOp::Add | ArithOp::Sub if ta.is_temporal() && int_like(tb) => {
            Ok(wrap_day(shift_temporal(op, ta, a, sa, b, sb)))
        }
        ArithOp::Add if tb.is_temporal() && int_like(ta) => Ok(wrap_day(shift_temporal(op, tb, a, sa, b, sb))),
        // two values of one temporal type add their counts (the streaming tutorials' idiom
        // `2018.10.08T01:01:01.001 + timestamp(1..n)` shifts by n milliseconds)
        ArithOp::Add if ta == tb => Ok(wrap_day(shift_temporal(op, ta, a, sa, b, sb))),
        ArithOp::Sub if ta == tb => {
            let ty = if ta.physical() == Physical::I64 { DataType::Long } else { DataType::Int };
            Ok(compute(op, ty, a, sa, b, sb))
        }
        ArithOp::Sub if ta.is_temporal() && tb.is_temporal() => {
            // convert the coarser operand to the finer type, then subtract
            let fine = if unit_rank(ta) >= unit_rank(tb) { ta } else { tb };
            let ca = crate::kernels::temporal_to(a, fine)?;
            let cb = crate::kernels::temporal_to(b, fine)?;
            let ty = if fine.physical() == Physical::I64 { DataType::Long } else { DataType::Int };
            Ok(compute(op, ty, &ca, sa, &cb, sb))
        }
        _ => {
            // other operations on temporal values work on the underlying integers
            if ta.is_temporal() && tb.is_temporal() && op == ArithOp::Add {
                return Err(Error::type_err(format!(
                    "The add operator is not supported between {ta} and {tb}"
                )));
            }
            let pa = if ta.is_temporal() { phys_int(ta) } else { ta };
            let pb = if tb.is_temporal() { phys_int(tb) } else { tb };
            let ty = promote_arith(pa, pb).ok_or_else(|| type_error(op, ta, tb))?;
            Ok(compute(op, ty, a, sa, b, sb))
        }
    }
}

/// Temporal ± integer: computed exactly (in i128); a time of day (MINUTE, SECOND, TIME,
/// NANOTIME) wraps modulo one day, any other result outside the type's storage range is NULL,
/// never a wrapped date in another era.
fn shift_temporal(op: ArithOp, ty: DataType, a: &Column, sa: bool, b: &Column, sb: bool) -> Column {
    let sub = op == ArithOp::Sub;
    let day = ty.day_modulus().map(|m| m as i128);
    let exact = move |x: i64, y: i64| {
        let v = if sub { x as i128 - y as i128 } else { x as i128 + y as i128 };
        day.map_or(v, |m| v.rem_euclid(m))
    };
    if ty.physical() == Physical::I64 {
        let r = binary_map(&as_native::<i64>(a), &as_native::<i64>(b), sa, sb, |x: i64, y: i64| {
            let v = exact(x, y);
            if v > i64::MIN as i128 && v <= i64::MAX as i128 { v as i64 } else { i64::NULL }
        });
        return Column::from_vec(ty, r);
    }
    let r = binary_map(&as_native::<i64>(a), &as_native::<i64>(b), sa, sb, |x: i64, y: i64| {
        let v = exact(x, y);
        if v > i32::MIN as i128 && v <= i32::MAX as i128 { v as i32 } else { i32::NULL }
    });
    Column::from_vec(ty, r)
}

fn phys_int(t: DataType) -> DataType {
    if t.physical() == Physical::I64 { DataType::Long } else { DataType::Int }
}

/// Fineness of a temporal unit (larger = finer).
pub fn unit_rank(t: DataType) -> u8 {
    match t {
        DataType::Month => 1,
        DataType::Date => 2,
        DataType::DateHour => 3,
        DataType::Minute => 4,
        DataType::DateTime | DataType::Second => 5,
        DataType::Timestamp | DataType::Time => 6,
        DataType::NanoTimestamp | DataType::NanoTime => 7,
        _ => 0,
    }
}

fn concat_strings(a: &Column, sa: bool, b: &Column, sb: bool) -> Column {
    let n = if sa && sb { 1 } else if sa { b.len() } else { a.len() };
    let mut out = StrCol::with_capacity(n, 0);
    let mut buf = String::new();
    for i in 0..n {
        let ia = if sa { 0 } else { i };
        let ib = if sb { 0 } else { i };
        buf.clear();
        buf.push_str(&crate::elemfmt::format_elem(a, ia));
        buf.push_str(&crate::elemfmt::format_elem(b, ib));
        out.push(&buf);
    }
    Column::new(DataType::String, ColData::Str(out))
}

/// Unary minus.
pub fn neg(a: &Column) -> Result<Column> {
    fn n<T: Native + std::ops::Neg<Output = T>>(v: &[T]) -> Vec<T> {
        v.iter().map(|&x| if x.is_null() { x } else { -x }).collect()
    }
    let ty = a.ty;
    if ty.decimal_scale().is_some() {
        return crate::kernels::decimal::neg(a);
    }
    Ok(match &*a.data {
        ColData::I8(_) | ColData::I16(_) => Column::from_vec(DataType::Int, n::<i32>(&as_native(a))),
        ColData::I32(v) => Column::from_vec(if ty.is_temporal() { DataType::Int } else { ty }, n(v)),
        ColData::I64(v) => Column::from_vec(if ty.is_temporal() { DataType::Long } else { ty }, n(v)),
        ColData::F32(v) => Column::from_vec(ty, n(v)),
        ColData::F64(v) => Column::from_vec(ty, n(v)),
        _ => return Err(Error::type_err(format!("The neg operator is not supported for {}", ty))),
    })
}

/// Logical not: null stays null (as BOOL null).
pub fn not(a: &Column) -> Result<Column> {
    if a.ty.is_literal() {
        return Err(Error::type_err("The not operator is not supported for strings"));
    }
    let v: Vec<f64> = as_native::<f64>(a).into_owned();
    Ok(Column::from_vec(
        DataType::Bool,
        v.iter().map(|&x| if x.is_null() { i8::NULL } else { (x == 0.0) as i8 }).collect::<Vec<i8>>(),
    ))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    And,
    Or,
}

/// `and`/`or` with DolphinDB's null rules (§2.5).
pub fn logic(op: LogicOp, a: &Column, sa: bool, b: &Column, sb: bool) -> Result<Column> {
    if a.ty.is_literal() || b.ty.is_literal() {
        return Err(Error::type_err("Logical operators are not supported for strings"));
    }
    if !sa && !sb && a.len() != b.len() {
        return Err(Error::size("The size of the two operands of a logical operator must be the same"));
    }
    if let (ColData::I8(x), ColData::I8(y)) = (&*a.data, &*b.data) {
        if !sa && !sb {
            // BOOL and BOOL: one branch-free pass over the bytes (null is i8::MIN)
            let out: Vec<i8> = match op {
                LogicOp::And => x
                    .iter()
                    .zip(y)
                    .map(|(&p, &q)| if p == i8::MIN || q == i8::MIN { i8::MIN } else { (p != 0 && q != 0) as i8 })
                    .collect(),
                LogicOp::Or => x
                    .iter()
                    .zip(y)
                    .map(|(&p, &q)| {
                        let (pn, qn) = (p == i8::MIN, q == i8::MIN);
                        if pn && qn { i8::MIN } else { ((!pn && p != 0) || (!qn && q != 0)) as i8 }
                    })
                    .collect(),
            };
            return Ok(Column::from_vec(DataType::Bool, out));
        }
    }
    let x = as_native::<f64>(a);
    let y = as_native::<f64>(b);
    let n = if sa && sb { 1 } else if sa { y.len() } else { x.len() };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let p = x[if sa { 0 } else { i }];
        let q = y[if sb { 0 } else { i }];
        let (pn, qn) = (p.is_null(), q.is_null());
        let r = match op {
            LogicOp::And => {
                if pn || qn {
                    i8::NULL
                } else {
                    (p != 0.0 && q != 0.0) as i8
                }
            }
            LogicOp::Or => match (pn, qn) {
                (true, true) => i8::NULL,
                (true, false) => (q != 0.0) as i8,
                (false, true) => (p != 0.0) as i8,
                _ => (p != 0.0 || q != 0.0) as i8,
            },
        };
        out.push(r);
    }
    Ok(Column::from_vec(DataType::Bool, out))
}
