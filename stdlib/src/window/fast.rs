//! Fast paths for the most common moving windows: `msum`/`mavg` of a DOUBLE vector with
//! an integer window and the default minPeriods. One tight loop with a running sum (the
//! general driver in window_kernels.rs pays a dynamic call per element); results are
//! identical up to rounding, checked against the general driver in the tests below.

use beluga_runtime::column::{ColData, Column};
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Result, Value};

/// Recompute the running sum exactly every this many steps (bounds the drift of `s += x; s -= y`).
const RESYNC: usize = 4096;

/// The result of `mavg` (`avg`) or `msum` when a fast path applies, else None.
pub fn try_fast(avg: bool, a: &[Value]) -> Option<Result<Value>> {
    if a.len() != 2 {
        return None;
    }
    let Value::Vector(c) = &a[0] else { return None };
    let w = match &a[1] {
        Value::Scalar(s) if s.ty.is_integral() && s.ty != DataType::Bool => s.i64_at(0)?,
        _ => return None,
    };
    if w <= 0 {
        return None;
    }
    let w = w as usize;
    let out = match (c.ty, &*c.data) {
        (DataType::Double, ColData::F64(x)) => rolling_sum(x, w, avg),
        // mavg of integers (msum keeps the integer type: the general driver): exact sums
        (DataType::Char, ColData::I8(x)) if avg => rolling_avg_int(x, w),
        (DataType::Short, ColData::I16(x)) if avg => rolling_avg_int(x, w),
        (DataType::Int, ColData::I32(x)) if avg => rolling_avg_int(x, w),
        (DataType::Long, ColData::I64(x)) if avg => rolling_avg_int(x, w),
        _ => return None,
    };
    Some(Ok(Value::Vector(Column::from_vec(DataType::Double, out))))
}

/// `mavg` (`avg`) over any numeric slice, or `msum` (`sum`) over a DOUBLE one, with a count
/// window of `w` rows and the default gate; None for other types and kinds.
pub fn count_window(avg: bool, sum: bool, x: &crate::window::Slice, w: usize) -> Option<Column> {
    let r = x.off..x.off + x.len;
    let out = match (x.ty(), &*x.col.data) {
        (DataType::Double, ColData::F64(v)) if avg || sum => rolling_sum(&v[r], w, avg),
        (DataType::Char, ColData::I8(v)) if avg => rolling_avg_int(&v[r], w),
        (DataType::Short, ColData::I16(v)) if avg => rolling_avg_int(&v[r], w),
        (DataType::Int, ColData::I32(v)) if avg => rolling_avg_int(&v[r], w),
        (DataType::Long, ColData::I64(v)) if avg => rolling_avg_int(&v[r], w),
        _ => return None,
    };
    Some(Column::from_vec(DataType::Double, out))
}

/// `mavg` of an integer vector: the window's sum kept exactly in an i128, so each result is
/// the correctly rounded quotient of the exact sum by the count (no drift, no re-sum).
fn rolling_avg_int<T: Native + Into<i64>>(x: &[T], w: usize) -> Vec<f64> {
    let n = x.len();
    let mut out = vec![f64::NULL; n];
    let (mut s, mut cnt) = (0i128, 0usize);
    for i in 0..n {
        let v = x[i];
        if !v.is_null() {
            s += v.into() as i128;
            cnt += 1;
        }
        if i >= w {
            let u = x[i - w];
            if !u.is_null() {
                s -= u.into() as i128;
                cnt -= 1;
            }
        }
        if cnt > 0 && i + 1 >= w {
            out[i] = s as f64 / cnt as f64;
        }
    }
    out
}

fn rolling_sum(x: &[f64], w: usize, avg: bool) -> Vec<f64> {
    let n = x.len();
    let mut out = vec![f64::NULL; n];
    // Neumaier-compensated running sum: `c` carries the low-order bits each add/remove loses,
    // so a window that returns to constant values sums to exactly w·value.
    let (mut s, mut c, mut cnt) = (0.0f64, 0.0f64, 0usize);
    let acc = |s: &mut f64, c: &mut f64, v: f64| {
        let t = *s + v;
        *c += if s.abs() >= v.abs() { (*s - t) + v } else { (v - t) + *s };
        *s = t;
    };
    for i in 0..n {
        let v = x[i];
        if !v.is_null() {
            acc(&mut s, &mut c, v);
            cnt += 1;
        }
        if i >= w {
            let u = x[i - w];
            if !u.is_null() {
                acc(&mut s, &mut c, -u);
                cnt -= 1;
            }
        }
        if i % RESYNC == RESYNC - 1 {
            let lo = (i + 1).saturating_sub(w);
            s = 0.0;
            c = 0.0;
            for &v in x[lo..=i].iter().filter(|v| !v.is_null()) {
                acc(&mut s, &mut c, v);
            }
        }
        if cnt == 0 {
            s = 0.0;
            c = 0.0;
        } else if i + 1 >= w {
            let t = s + c;
            out[i] = if avg { t / cnt as f64 } else { t };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_matches_general_driver() {
        let mut seed: u64 = 0x9E3779B97F4A7C15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..200 {
            let n = (next() % 300) as usize;
            let x: Vec<f64> = (0..n)
                .map(|_| if next() % 5 == 0 { f64::NULL } else { (next() % 2000) as f64 / 7.0 - 100.0 })
                .collect();
            let w = 1 + (next() % 12) as i64;
            // mavg of INT and LONG vectors: the exact-integer path against the general driver
            let xi: Vec<i32> = x.iter().map(|v| if v.is_null() { i32::NULL } else { (v * 7.0).round() as i32 * 1000 }).collect();
            let xl: Vec<i64> = xi.iter().map(|&v| if v.is_null() { i64::NULL } else { v as i64 * 1_000_000_007 }).collect();
            for c in [Column::from_vec(DataType::Int, xi), Column::from_vec(DataType::Long, xl)] {
                let args = vec![Value::Vector(c), Value::int(w as i32)];
                let fast = try_fast(true, &args).expect("applies").expect("ok");
                let slow = crate::window::call_prep(crate::window_fns::p_mavg, &args).expect("general");
                let (Value::Vector(a), Value::Vector(b)) = (&fast, &slow) else { panic!("forms") };
                assert_eq!(a.ty, b.ty);
                for i in 0..a.len() {
                    match (a.f64_at(i), b.f64_at(i)) {
                        (None, None) => {}
                        (Some(p), Some(q)) => assert!((p - q).abs() <= 1e-9 * (1.0f64).max(q.abs()), "case {case} int mavg w={w} i={i}: {p} vs {q}"),
                        other => panic!("case {case} int mavg w={w} i={i}: {other:?}"),
                    }
                }
            }
            for (name, avg, prep) in [("msum", false, crate::window_fns::p_msum as crate::window::PrepFn), ("mavg", true, crate::window_fns::p_mavg)] {
                let args = vec![Value::Vector(Column::from_vec(DataType::Double, x.clone())), Value::int(w as i32)];
                let fast = try_fast(avg, &args).expect("applies").expect("ok");
                let slow = crate::window::call_prep(prep, &args).expect("general");
                let (Value::Vector(a), Value::Vector(b)) = (&fast, &slow) else { panic!("forms") };
                assert_eq!(a.len(), b.len());
                for i in 0..a.len() {
                    match (a.f64_at(i), b.f64_at(i)) {
                        (None, None) => {}
                        (Some(p), Some(q)) => assert!((p - q).abs() <= 1e-9 * (1.0f64).max(q.abs()), "case {case} {name} w={w} i={i}: {p} vs {q}"),
                        other => panic!("case {case} {name} w={w} i={i}: {other:?}"),
                    }
                }
            }
        }
    }
}
