//! Comparisons. Nulls compare as the minimum of their type (§2.5); `==` treats null as a value.

use crate::column::{ColData, Column};
use crate::error::{Error, Result};
use crate::kernels::arith::{as_native, unit_rank};
use crate::null::Native;
use crate::types::DataType;
use std::cmp::Ordering;
use std::mem::MaybeUninit;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    #[inline(always)]
    pub fn test(self, o: Ordering) -> bool {
        match self {
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
        }
    }
}

fn cmp_map<T: Copy>(op: CmpOp, a: &[T], b: &[T], sa: bool, sb: bool, ord: impl Fn(T, T) -> Ordering) -> Vec<i8> {
    match (sa, sb) {
        (false, false) => a.iter().zip(b).map(|(&x, &y)| op.test(ord(x, y)) as i8).collect(),
        (true, false) => b.iter().map(|&y| op.test(ord(a[0], y)) as i8).collect(),
        (false, true) => a.iter().map(|&x| op.test(ord(x, b[0])) as i8).collect(),
        (true, true) => vec![op.test(ord(a[0], b[0])) as i8],
    }
}

/// `cmp_map` with the operator resolved outside the loop and a plain comparison of the
/// (normalised) values inside, so the loop vectorizes. Valid where `norm` maps values to a
/// type whose natural order is the null-smallest order (integers as they are; doubles with
/// NaN mapped to the null sentinel, below every value but -inf).
fn cmp_fast<T: Copy + PartialOrd + Sync>(op: CmpOp, a: &[T], b: &[T], sa: bool, sb: bool, norm: impl Fn(T) -> T + Copy + Sync) -> Vec<i8> {
    crate::simd_fn! {
        // compiled for AVX-512/AVX2 when the CPU has them (8 doubles per compare); writes
        // every element of `o` (`a`/`b` the part's operands, or one broadcast value)
        fn run[T: Copy](o: &mut [MaybeUninit<i8>], a: &[T], b: &[T], sa: bool, sb: bool, f: impl Fn(T, T) -> bool) -> () {
            match (sa, sb) {
                (false, false) => o.iter_mut().zip(a).zip(b).for_each(|((d, &x), &y)| {
                    d.write(f(x, y) as i8);
                }),
                (true, false) => {
                    let x = a[0];
                    o.iter_mut().zip(b).for_each(|(d, &y)| {
                        d.write(f(x, y) as i8);
                    })
                }
                (false, true) => {
                    let y = b[0];
                    o.iter_mut().zip(a).for_each(|(d, &x)| {
                        d.write(f(x, y) as i8);
                    })
                }
                (true, true) => o.iter_mut().for_each(|d| {
                    d.write(f(a[0], b[0]) as i8);
                }),
            }
        }
    }
    // generic over the comparison so each operator's loop is compiled (and vectorised) whole
    fn go<T: Copy + Sync>(a: &[T], b: &[T], sa: bool, sb: bool, f: impl Fn(T, T) -> bool + Copy + Sync) -> Vec<i8> {
        let n = if sa && sb { 1 } else if sa { b.len() } else { a.len() };
        let fill = |start: usize, o: &mut [MaybeUninit<i8>]| {
            let r = start..start + o.len();
            let (x, y) = (if sa { &a[..1] } else { &a[r.clone()] }, if sb { &b[..1] } else { &b[r] });
            run(o, x, y, sa, sb, f)
        };
        // SAFETY: `run` writes every element of its part
        unsafe { crate::kernels::par::build_vec(n, crate::kernels::par::PAR_STREAM_MIN, &fill) }
    }
    match op {
        CmpOp::Lt => go(a, b, sa, sb, move |x, y| norm(x) < norm(y)),
        CmpOp::Le => go(a, b, sa, sb, move |x, y| norm(x) <= norm(y)),
        CmpOp::Gt => go(a, b, sa, sb, move |x, y| norm(x) > norm(y)),
        CmpOp::Ge => go(a, b, sa, sb, move |x, y| norm(x) >= norm(y)),
        CmpOp::Eq => go(a, b, sa, sb, move |x, y| norm(x) == norm(y)),
        CmpOp::Ne => go(a, b, sa, sb, move |x, y| norm(x) != norm(y)),
    }
}

/// NaN as the null sentinel: then `partial_cmp` is `ord_f64`.
#[inline(always)]
fn norm_f64(x: f64) -> f64 {
    if x.is_nan() { f64::NULL } else { x }
}

/// Total order on f64 with null (sentinel or NaN) smallest.
#[inline(always)]
pub fn ord_f64(x: f64, y: f64) -> Ordering {
    match (x.is_null(), y.is_null()) {
        (true, true) => Ordering::Equal,
        // -inf (imported from outside) sorts below null
        (true, false) => if y == f64::NEG_INFINITY { Ordering::Greater } else { Ordering::Less },
        (false, true) => if x == f64::NEG_INFINITY { Ordering::Less } else { Ordering::Greater },
        _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// The type two different temporal types are compared in: the finer of the two, the
/// coarser converted to it (`2023.01.04T13:30:10.001 > 2023.01.04` compares timestamps).
/// MONTH compares only with MONTH, and a date-time never with a time of day, although
/// both conversions exist (tutorials/ddb_comparison_rules_of_time_types.md, section 3).
pub fn comparable_temporal(ta: DataType, tb: DataType) -> Result<DataType> {
    let dated = |t: DataType| !matches!(t, DataType::Minute | DataType::Second | DataType::Time | DataType::NanoTime);
    if ta == DataType::Month || tb == DataType::Month {
        let other = if ta == DataType::Month { tb } else { ta };
        return Err(Error::type_err(format!(
            "Can't compare {ta} with {tb}: a MONTH compares only with a MONTH (convert the {other} with month())"
        )));
    }
    if dated(ta) != dated(tb) {
        return Err(Error::type_err(format!(
            "Can't compare {ta} with {tb}: a time of day has no date (convert with time(), second() or minute())"
        )));
    }
    Ok(if unit_rank(ta) >= unit_rank(tb) { ta } else { tb })
}

/// Compare two columns element-wise (BOOL result).
pub fn compare(op: CmpOp, a: &Column, sa: bool, b: &Column, sb: bool) -> Result<Column> {
    // a broadcast operand must hold its one value (callers may pass an empty vector as one)
    if (sa && a.is_empty()) || (sb && b.is_empty()) {
        return Err(Error::size("comparison: a scalar operand is empty"));
    }
    if !sa && !sb && a.len() != b.len() {
        return Err(Error::size(format!(
            "The size of the two operands of comparison must be the same ({} vs {})",
            a.len(),
            b.len()
        )));
    }
    let (ta, tb) = (a.ty, b.ty);
    if ta.decimal_scale().is_some() || tb.decimal_scale().is_some() {
        if let Some(c) = crate::kernels::decimal::compare(op, a, sa, b, sb)? {
            return Ok(c);
        }
        return Err(Error::type_err(format!("Can't compare {ta} with {tb}")));
    }
    let out = if ta.is_literal() || tb.is_literal() {
        if !(ta.is_literal() || ta == DataType::Void) || !(tb.is_literal() || tb == DataType::Void) {
            return Err(Error::type_err(format!("Can't compare {ta} with {tb}")));
        }
        match (&*a.data, &*b.data) {
            (ColData::Sym(x), ColData::Sym(y))
                if std::sync::Arc::ptr_eq(&x.dict, &y.dict) && matches!(op, CmpOp::Eq | CmpOp::Ne) =>
            {
                cmp_map(op, &x.codes, &y.codes, sa, sb, |p, q| p.cmp(&q))
            }
            // a symbol vector against one string: compare each dictionary entry once, then
            // look the answer up by code (no string per row)
            (ColData::Sym(x), _) if sb && !sa && x.dict.names.len() <= x.codes.len().max(64) => {
                let y = b.str_at(0).unwrap_or("");
                let by_code: Vec<i8> = x.dict.names.iter().map(|s| op.test((**s).cmp(y)) as i8).collect();
                x.codes.iter().map(|&c| by_code.get(c as usize).copied().unwrap_or(0)).collect()
            }
            (_, ColData::Sym(y)) if sa && !sb && y.dict.names.len() <= y.codes.len().max(64) => {
                let x = a.str_at(0).unwrap_or("");
                let by_code: Vec<i8> = y.dict.names.iter().map(|s| op.test(x.cmp(&**s)) as i8).collect();
                y.codes.iter().map(|&c| by_code.get(c as usize).copied().unwrap_or(0)).collect()
            }
            _ => {
                let n = if sa && sb { 1 } else if sa { b.len() } else { a.len() };
                (0..n)
                    .map(|i| {
                        let x = a.str_at(if sa { 0 } else { i }).unwrap_or("");
                        let y = b.str_at(if sb { 0 } else { i }).unwrap_or("");
                        op.test(x.cmp(y)) as i8
                    })
                    .collect()
            }
        }
    } else if ta.is_floating() || tb.is_floating() {
        let x = as_native::<f64>(a);
        let y = as_native::<f64>(b);
        cmp_fast(op, &x, &y, sa, sb, norm_f64)
    } else {
        // integral / temporal: align temporal units first
        let (ca, cb);
        let (a, b) = if ta.is_temporal() && tb.is_temporal() && ta != tb {
            let fine = comparable_temporal(ta, tb)?;
            ca = crate::kernels::temporal_to(a, fine)?;
            cb = crate::kernels::temporal_to(b, fine)?;
            (&ca, &cb)
        } else {
            (a, b)
        };
        match (&*a.data, &*b.data) {
            (ColData::I32(x), ColData::I32(y)) => cmp_fast(op, x, y, sa, sb, |v| v),
            (ColData::I64(x), ColData::I64(y)) => cmp_fast(op, x, y, sa, sb, |v| v),
            (ColData::I16(x), ColData::I16(y)) => cmp_fast(op, x, y, sa, sb, |v| v),
            (ColData::I8(x), ColData::I8(y)) => cmp_fast(op, x, y, sa, sb, |v| v),
            _ => {
                let x = as_native::<i64>(a);
                let y = as_native::<i64>(b);
                cmp_fast(op, &x, &y, sa, sb, |v| v)
            }
        }
    };
    Ok(Column::from_vec(DataType::Bool, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bools(c: &Column) -> Vec<i8> {
        match &*c.data {
            ColData::I8(v) => v.clone(),
            _ => panic!("not BOOL storage"),
        }
    }

    /// The parallel, uninitialised-buffer comparison against the scalar order `ord_f64`
    /// (null smallest, NaN as null, -inf below null) over every operator and broadcast
    /// form, on a length above the parallel threshold with an odd tail.
    #[test]
    fn parallel_compare_matches_scalar_order() {
        let n = crate::kernels::par::PAR_STREAM_MIN + 4_099;
        let pick = |k: usize, s: usize| match (k * s) % 23 {
            0 => f64::NULL,
            1 => f64::NAN,
            2 => f64::NEG_INFINITY,
            3 => f64::INFINITY,
            4 => -0.0,
            r => (r % 7) as f64 - 3.0,
        };
        let a: Vec<f64> = (0..n).map(|k| pick(k, 5)).collect();
        let b: Vec<f64> = (0..n).map(|k| pick(k, 7)).collect();
        let ca = Column::from_vec(DataType::Double, a.clone());
        let cb = Column::from_vec(DataType::Double, b.clone());
        let one = |x: f64| Column::from_vec(DataType::Double, vec![x]);
        for op in [CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Eq, CmpOp::Ne] {
            let got = bools(&compare(op, &ca, false, &cb, false).unwrap());
            let want: Vec<i8> = a.iter().zip(&b).map(|(&x, &y)| op.test(ord_f64(x, y)) as i8).collect();
            assert_eq!(got, want, "{op:?} vector-vector");
            for s in [f64::NULL, 0.0, 1.0, f64::NEG_INFINITY] {
                let got = bools(&compare(op, &ca, false, &one(s), true).unwrap());
                let want: Vec<i8> = a.iter().map(|&x| op.test(ord_f64(x, s)) as i8).collect();
                assert_eq!(got, want, "{op:?} vector-scalar {s}");
                let got = bools(&compare(op, &one(s), true, &cb, false).unwrap());
                let want: Vec<i8> = b.iter().map(|&y| op.test(ord_f64(s, y)) as i8).collect();
                assert_eq!(got, want, "{op:?} scalar-vector {s}");
            }
        }
        // integers (null = the minimum) through the same path
        let ia: Vec<i32> = (0..n as i32).map(|k| if k % 19 == 0 { i32::NULL } else { k % 11 }).collect();
        let ib: Vec<i32> = (0..n as i32).map(|k| if k % 23 == 0 { i32::NULL } else { k % 13 }).collect();
        let got = bools(&compare(CmpOp::Ge, &Column::from_vec(DataType::Int, ia.clone()), false, &Column::from_vec(DataType::Int, ib.clone()), false).unwrap());
        let want: Vec<i8> = ia.iter().zip(&ib).map(|(x, y)| (x >= y) as i8).collect();
        assert_eq!(got, want);
        // short and empty inputs stay on the calling thread
        assert_eq!(bools(&compare(CmpOp::Lt, &one(1.0), true, &one(2.0), true).unwrap()), vec![1]);
        let empty = Column::from_vec(DataType::Double, Vec::<f64>::new());
        assert!(bools(&compare(CmpOp::Lt, &empty, false, &empty, false).unwrap()).is_empty());
    }
}
