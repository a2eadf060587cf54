//! Integer accumulation for reductions over many elements: sum, prod, cumsum, cumprod, msum,
//! mprod, rowSum, rowProd and their grouped forms all go through this one rule, so no sum
//! or product of integers can come back as a wrapped (wrong, often negative) number.
//!
//! - The result type of a sum or product of BOOL/CHAR/SHORT/INT/LONG is LONG, of
//!   FLOAT/DOUBLE it is DOUBLE (funcs/c/cumsum.md and funcs/c/cumprod.md of the 3.00 manual:
//!   "LONG/DOUBLE"); see [`acc_type`].
//! - Sums are accumulated exactly in i128 (no realistic input can overflow that); products in
//!   i128 clamped to [`OVER`] as soon as they leave LONG's range (a later zero still gives 0).
//! - A final value outside LONG's range (or on LONG's null pattern) is NULL ([`to_long`]):
//!   the same rule the manual gives for DOUBLE overflow (progr/data_types.md, note 7).
//!
//! Element-wise `+ - *` on two INTs or LONGs are NOT covered: they wrap in two's complement as
//! the manual documents (progr/data_types.md, "整数溢出": `x+3` on INT max is -2147483646).

use crate::null::Native;
use crate::types::DataType;

/// The type of a sum/product of values of type `t`: LONG for integral types and BOOL,
/// DOUBLE for everything else (FLOAT, DOUBLE).
pub fn acc_type(t: DataType) -> DataType {
    match t {
        DataType::Bool | DataType::Char | DataType::Short | DataType::Int | DataType::Long => DataType::Long,
        _ => DataType::Double,
    }
}

/// An exact accumulator as a LONG element: NULL when it does not fit (or is LONG's null).
#[inline(always)]
pub fn to_long(v: i128) -> i64 {
    if v > i64::MIN as i128 && v <= i64::MAX as i128 { v as i64 } else { i64::NULL }
}

/// Marker of a product that left LONG's range.
pub const OVER: i128 = i128::MAX;

/// Exact product of two product accumulators (each either within LONG's range or [`OVER`]):
/// zero absorbs, [`OVER`] propagates, a product outside LONG's range becomes [`OVER`].
#[inline(always)]
pub fn mul(a: i128, b: i128) -> i128 {
    if a == 0 || b == 0 {
        return 0;
    }
    if a == OVER || b == OVER {
        return OVER;
    }
    let p = a * b; // both fit in i64, so the product fits in i128
    if p > i64::MIN as i128 && p <= i64::MAX as i128 { p } else { OVER }
}

/// Exact sum of the non-null elements and their count.
pub fn sum<T: Native>(v: &[T]) -> (i128, usize) {
    let (mut s, mut n) = (0i128, 0usize);
    // chunk by chunk (same summation order) so a long column can be interrupted
    let poll = crate::guard::Poll::new();
    for part in v.chunks(crate::guard::CHUNK) {
        poll.now();
        for &x in part {
            if !x.is_null() {
                s += x.to_i64() as i128;
                n += 1;
            }
        }
    }
    (s, n)
}

/// Exact (clamped) product of the non-null elements and their count.
pub fn prod<T: Native>(v: &[T]) -> (i128, usize) {
    let (mut p, mut n) = (1i128, 0usize);
    for &x in v {
        if !x.is_null() {
            p = mul(p, x.to_i64() as i128);
            n += 1;
        }
    }
    (p, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_products_never_wrap() {
        let (s, n) = sum(&[i64::MAX, i64::MAX, i64::NULL]);
        assert_eq!((s, n), (2 * i64::MAX as i128, 2));
        assert!(to_long(s).is_null());
        assert_eq!(to_long(sum(&[1_000_000_000i32; 3]).0), 3_000_000_000);
        let (p, _) = prod(&[10_000_000_000i64, 10_000_000_000, 10_000_000_000]);
        assert_eq!(p, OVER);
        assert!(to_long(p).is_null());
        assert_eq!(prod(&[i64::MAX, 2, 0]).0, 0);
        assert_eq!(to_long(prod(&[-3i32, 5, 7]).0), -105);
        assert_eq!(acc_type(DataType::Short), DataType::Long);
        assert_eq!(acc_type(DataType::Float), DataType::Double);
    }
}
