//! `rank`, `denseRank`, `rank` of a matrix and `rowRank`/`rowDenseRank` against naive
//! O(n^2) definitions on pseudo-random data with ties, NULLs and infinities: every ties
//! method, both orders, NULLs ranked or ignored, percent, groupNum. Lengths cross the
//! sort's paths (packed pairs below the radix threshold, packed and wide radix above).

use crate::window_tests::interp;
use beluga_runtime::column::{Column, StrCol};
use beluga_runtime::null::Native;
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Value};
use std::sync::Arc;

/// Deterministic values: ~10% NULL, ~3% +-inf, the rest `spread` distinct levels (ties).
fn data(n: usize, seed: u64, spread: u64, wide: bool) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match s % 100 {
                0..=9 => f64::NULL,
                10 => f64::INFINITY,
                11 | 12 => f64::NEG_INFINITY,
                _ if wide => ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e6,
                _ => ((s >> 20) % spread) as f64 / 4.0 - (spread as f64) / 8.0,
            }
        })
        .collect()
}

fn str_arg(x: &str) -> Value {
    Value::Scalar(Column::from_vec(DataType::String, StrCol::from_iter([x])))
}

/// The naive rank of element `i` among `v` (None = not ranked): NULL below everything,
/// -inf below every other value (`rank` keeps NULL first, see order.rs).
#[allow(clippy::too_many_arguments)]
fn naive(v: &[f64], i: usize, asc: bool, ignore_na: bool, ties: &str, percent: bool, dense: bool, group: Option<usize>) -> Option<f64> {
    let x = v[i];
    if x.is_null() && ignore_na {
        return None;
    }
    let ranked: Vec<usize> = (0..v.len()).filter(|&j| !ignore_na || !v[j].is_null()).collect();
    // a total order: NULL smallest, then the values
    let less = |a: f64, b: f64| match (a.is_null(), b.is_null()) {
        (true, true) => false,
        (true, false) => true,
        (false, true) => false,
        _ => a < b,
    };
    let before = |a: f64, b: f64| if asc { less(a, b) } else { less(b, a) };
    let eq = |a: f64, b: f64| !less(a, b) && !less(b, a);
    let lt = ranked.iter().filter(|&&j| before(v[j], x)).count();
    let n_eq = ranked.iter().filter(|&&j| eq(v[j], x)).count();
    let m = ranked.len();
    if let Some(g) = group {
        // sorted position lt; the first m % g groups hold one element more
        let (q, r) = (m / g, m % g);
        let mut start = 0;
        for k in 0..g {
            let size = q + (k < r) as usize;
            if lt < start + size {
                return Some(k as f64);
            }
            start += size;
        }
        return Some(g as f64);
    }
    let distinct_before = {
        let mut seen: Vec<f64> = Vec::new();
        for &j in &ranked {
            if before(v[j], x) && !seen.iter().any(|&s| eq(s, v[j])) {
                seen.push(v[j]);
            }
        }
        seen.len()
    };
    let r = if dense {
        distinct_before as f64
    } else {
        match ties {
            "min" => lt as f64,
            "max" => (lt + n_eq - 1) as f64,
            "average" => lt as f64 + (n_eq - 1) as f64 / 2.0,
            _ => (lt + ranked.iter().filter(|&&j| j < i && eq(v[j], x)).count()) as f64,
        }
    };
    if percent {
        let denom = if dense {
            let mut d: Vec<f64> = Vec::new();
            for &j in &ranked {
                if !d.iter().any(|&s| eq(s, v[j])) {
                    d.push(v[j]);
                }
            }
            d.len()
        } else {
            m
        };
        return Some((r + 1.0) / denom as f64);
    }
    Some(r)
}

fn check(got: &Column, want: &[Option<f64>], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, w) in want.iter().enumerate() {
        match w {
            None => assert!(got.is_null(k), "{what}: null expected at {k}"),
            Some(w) => assert_eq!(got.f64_at(k), Some(*w), "{what}: at {k}"),
        }
    }
}

#[test]
fn rank_equals_the_naive_definition() {
    let mut i = interp();
    for (n, spread, wide, full) in [(1, 5, false, true), (2, 3, false, true), (37, 9, false, true), (330, 40, false, true), (5000, 300, false, false), (4500, 0, true, false)] {
        let v = data(n, n as u64 + 7, spread.max(1), wide);
        let x = Value::Vector(Column::from_vec(DataType::Double, v.clone()));
        for asc in [true, false] {
            for ignore_na in [true, false] {
                for ties in ["min", "max", "average", "first"] {
                    for percent in if full { vec![false, true] } else { vec![false] } {
                        if !full && (ties == "max" || ties == "average") && !ignore_na {
                            continue; // the long inputs: fewer combinations (O(n^2) reference)
                        }
                        let args = vec![x.clone(), Value::bool(asc), Value::Void, Value::bool(ignore_na), str_arg(ties), Value::bool(percent)];
                        let Value::Vector(got) = i.call_builtin_by_name("rank", args).expect("rank") else { panic!("rank: not a vector") };
                        let want: Vec<Option<f64>> = (0..n).map(|k| naive(&v, k, asc, ignore_na, ties, percent, false, None)).collect();
                        check(&got, &want, &format!("rank n={n} asc={asc} ignoreNA={ignore_na} {ties} percent={percent}"));
                    }
                }
                if full {
                    let dr = vec![x.clone(), Value::bool(asc), Value::bool(ignore_na), Value::bool(true)];
                    let Value::Vector(got) = i.call_builtin_by_name("denseRank", dr).expect("denseRank") else { panic!() };
                    let want: Vec<Option<f64>> = (0..n).map(|k| naive(&v, k, asc, ignore_na, "min", true, true, None)).collect();
                    check(&got, &want, &format!("denseRank percent n={n} asc={asc} ignoreNA={ignore_na}"));
                    let g = Value::Scalar(Column::from_vec(DataType::Long, vec![7i64]));
                    let args = vec![x.clone(), Value::bool(asc), g, Value::bool(ignore_na)];
                    let Value::Vector(got) = i.call_builtin_by_name("rank", args).expect("rank groupNum") else { panic!() };
                    let want: Vec<Option<f64>> = (0..n).map(|k| naive(&v, k, asc, ignore_na, "min", false, false, Some(7))).collect();
                    check(&got, &want, &format!("rank groupNum=7 n={n} asc={asc} ignoreNA={ignore_na}"));
                }
            }
        }
    }
}

fn matrix(rows: usize, cols: usize, v: Vec<f64>) -> Value {
    Value::Matrix(Arc::new(Matrix { data: Column::from_vec(DataType::Double, v), rows, cols, row_labels: None, col_labels: None, indexed: false }))
}

#[test]
fn matrix_rank_by_column_and_row_rank_equal_the_naive_definition() {
    let mut i = interp();
    // 330 x 150 (the benchmark's shape: columns in parallel, rows of 150 sorted) and a
    // small one (rows of 20 ranked by counting)
    for (rows, cols) in [(330usize, 150usize), (40, 20)] {
        let v = data(rows * cols, 99, 60, false);
        let m = matrix(rows, cols, v.clone());
        for asc in [true, false] {
            for ties in ["min", "max", "average", "first"] {
                let args = vec![m.clone(), Value::bool(asc), Value::Void, Value::bool(true), str_arg(ties)];
                let Value::Matrix(got) = i.call_builtin_by_name("rank", args).expect("rank") else { panic!("rank of a matrix") };
                for c in (0..cols).step_by(7) {
                    let col = &v[c * rows..(c + 1) * rows];
                    let want: Vec<Option<f64>> = (0..rows).map(|k| naive(col, k, asc, true, ties, false, false, None)).collect();
                    check(&got.column(c), &want, &format!("rank(m) column {c} asc={asc} {ties}"));
                }
                for ignore_na in [true, false] {
                    for percent in [false, true] {
                        let args = vec![m.clone(), Value::bool(asc), Value::Void, Value::bool(ignore_na), str_arg(ties), Value::bool(percent)];
                        let Value::Matrix(got) = i.call_builtin_by_name("rowRank", args).expect("rowRank") else { panic!("rowRank") };
                        for r in (0..rows).step_by(5) {
                            let row: Vec<f64> = (0..cols).map(|c| v[c * rows + r]).collect();
                            let want: Vec<Option<f64>> = (0..cols).map(|c| naive(&row, c, asc, ignore_na, ties, percent, false, None)).collect();
                            let got_row = Column::from_vec(DataType::Double, (0..cols).map(|c| got.data.f64_at(c * rows + r).unwrap_or(f64::NULL)).collect::<Vec<f64>>());
                            check(&got_row, &want, &format!("rowRank {rows}x{cols} row {r} asc={asc} ignoreNA={ignore_na} {ties} percent={percent}"));
                        }
                    }
                }
            }
            let args = vec![m.clone(), Value::bool(asc), Value::bool(false), Value::bool(true)];
            let Value::Matrix(got) = i.call_builtin_by_name("rowDenseRank", args).expect("rowDenseRank") else { panic!() };
            for r in (0..rows).step_by(5) {
                let row: Vec<f64> = (0..cols).map(|c| v[c * rows + r]).collect();
                let want: Vec<Option<f64>> = (0..cols).map(|c| naive(&row, c, asc, false, "min", true, true, None)).collect();
                let got_row = Column::from_vec(DataType::Double, (0..cols).map(|c| got.data.f64_at(c * rows + r).unwrap_or(f64::NULL)).collect::<Vec<f64>>());
                check(&got_row, &want, &format!("rowDenseRank {rows}x{cols} row {r} asc={asc}"));
            }
        }
    }
}
