//! The parallel paths of the window dispatch and of the element-wise builtins against
//! sequential or scalar references: matrix columns run on rayon must give each column's
//! own vector result, rowRank's row chunks the naive per-row count, iif on a long input the
//! per-element choice. Sizes are above the parallel thresholds with odd tails and NULLs.

use crate::window_tests::interp;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Value};
use std::sync::Arc;

fn matrix(rows: usize, cols: usize, f: impl Fn(usize) -> f64) -> Value {
    let data: Vec<f64> = (0..rows * cols).map(f).collect();
    Value::Matrix(Arc::new(Matrix { data: Column::from_vec(DataType::Double, data), rows, cols, row_labels: None, col_labels: None, indexed: false }))
}

/// Equal element by element: nulls in the same places, values bit for bit.
fn same(a: &Column, b: &Column, what: &str) {
    assert_eq!(a.ty, b.ty, "{what}: type");
    assert_eq!(a.len(), b.len(), "{what}: length");
    for i in 0..a.len() {
        assert_eq!(a.is_null(i), b.is_null(i), "{what}: null at {i}");
        if !a.is_null(i) {
            assert_eq!(a.f64_at(i).map(f64::to_bits), b.f64_at(i).map(f64::to_bits), "{what}: value at {i}");
        }
    }
}

fn mat(v: &Value) -> &Matrix {
    match v {
        Value::Matrix(m) => m,
        other => panic!("not a matrix: {other:?}"),
    }
}

#[test]
fn matrix_window_columns_in_parallel_equal_each_column_alone() {
    // 301 x 57 = 17,157 elements (above PAR_COLS_MIN), nulls every 13th, ties from the modulus
    let (rows, cols) = (301, 57);
    assert!(rows * cols >= crate::window::PAR_COLS_MIN);
    let m = matrix(rows, cols, |k| if k % 13 == 0 { f64::NULL } else { ((k * 7919) % 1009) as f64 / 10.0 });
    let m2 = matrix(rows, cols, |k| if k % 17 == 5 { f64::NULL } else { ((k * 104729) % 997) as f64 });
    let int = |v: i64| Value::Scalar(Column::from_vec(DataType::Long, vec![v]));
    let yes = Value::bool(true);
    let calls: Vec<(&str, Vec<Value>)> = vec![
        ("mrank", vec![m.clone(), yes.clone(), int(20)]),
        ("mrank", vec![m.clone(), Value::bool(false), int(7), Value::bool(false)]),
        ("mmax", vec![m.clone(), int(20)]),
        ("mavg", vec![m.clone(), int(5), int(2)]),
        ("mstd", vec![m.clone(), int(9)]),
        ("mcorr", vec![m.clone(), m2.clone(), int(20)]),
        ("cumsum", vec![m.clone()]),
        ("cummax", vec![m.clone()]),
        ("mmed", vec![m.clone(), int(6)]),
    ];
    let mut i = interp();
    for (name, args) in calls {
        let whole = i.call_builtin_by_name(name, args.clone()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let whole = mat(&whole);
        assert_eq!((whole.rows, whole.cols), (rows, cols), "{name}: shape");
        for c in 0..cols {
            let col_args: Vec<Value> = args
                .iter()
                .map(|a| match a {
                    Value::Matrix(x) => Value::Vector(x.column(c)),
                    other => other.clone(),
                })
                .collect();
            let alone = match i.call_builtin_by_name(name, col_args).unwrap_or_else(|e| panic!("{name}: {e:?}")) {
                Value::Vector(v) => v,
                other => panic!("{name}: {other:?}"),
            };
            same(&whole.column(c), &alone, &format!("{name} column {c}"));
        }
    }
}

#[test]
fn matrix_window_error_is_reported_from_the_parallel_path() {
    let m = Value::Matrix(Arc::new(Matrix {
        data: Column::from_vec(DataType::String, beluga_runtime::column::StrCol::from_iter(std::iter::repeat_n("a", 200 * 50))),
        rows: 200,
        cols: 50,
        row_labels: None,
        col_labels: None,
        indexed: false,
    }));
    let r = interp().call_builtin_by_name("mavg", vec![m, Value::Scalar(Column::from_vec(DataType::Long, vec![3i64]))]);
    assert!(r.is_err(), "mavg over a SYMBOL matrix must fail");
}

#[test]
fn row_rank_equals_a_naive_count() {
    // 203 x 91 = 18,473 elements: row chunks on rayon, rows ranked by sorting; 611 x 30:
    // rows ranked by counting. Nulls, ties; every ties method but 'first', both orders, NaN
    // ranked first or ignored.
    let v = |k: usize| if k % 11 == 3 { f64::NULL } else { ((k * 7919) % 53) as f64 - 20.0 };
    let s = |x: &str| Value::Scalar(Column::from_vec(DataType::String, beluga_runtime::column::StrCol::from_iter([x])));
    let mut i = interp();
    for (rows, cols) in [(203usize, 91usize), (611, 30)] {
        let m = matrix(rows, cols, v);
        for asc in [true, false] {
            for ignore_na in [true, false] {
                for ties in ["min", "max", "average"] {
                    let args = vec![m.clone(), Value::bool(asc), Value::Void, Value::bool(ignore_na), s(ties)];
                    let got = i.call_builtin_by_name("rowRank", args).expect("rowRank");
                    let got = mat(&got);
                    for r in 0..rows {
                        let row: Vec<f64> = (0..cols).map(|c| v(c * rows + r)).collect();
                        // null ranks first (ascending) / last (descending) when not ignored
                        let before = |y: f64, x: f64| match (y.is_null(), x.is_null()) {
                            (true, true) => false,
                            (true, false) => asc,
                            (false, true) => !asc,
                            (false, false) => if asc { y < x } else { y > x },
                        };
                        let pool: Vec<f64> = row.iter().copied().filter(|y| !ignore_na || !y.is_null()).collect();
                        for (c, &x) in row.iter().enumerate() {
                            let k = c * rows + r;
                            if x.is_null() && ignore_na {
                                assert!(got.data.is_null(k), "{rows}x{cols} row {r} col {c}: null in, null out");
                                continue;
                            }
                            let lt = pool.iter().filter(|&&y| before(y, x)).count() as f64;
                            let eq = pool.iter().filter(|&&y| !before(y, x) && !before(x, y)).count() as f64;
                            let want = match ties {
                                "min" => lt,
                                "max" => lt + eq - 1.0,
                                _ => lt + (eq - 1.0) / 2.0,
                            };
                            assert_eq!(got.data.f64_at(k), Some(want), "{rows}x{cols} row {r} col {c} asc {asc} ignoreNA {ignore_na} {ties}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn iif_long_input_equals_the_per_element_choice() {
    let n = beluga_runtime::kernels::par::PAR_STREAM_MIN + 12_345;
    let cond: Vec<i8> = (0..n).map(|k| if k % 29 == 0 { i8::NULL } else { ((k * 7) % 3 == 0) as i8 }).collect();
    let t: Vec<f64> = (0..n).map(|k| if k % 31 == 0 { f64::NULL } else { k as f64 * 0.5 }).collect();
    let e: Vec<f64> = (0..n).map(|k| -(k as f64)).collect();
    let cv = Value::Vector(Column::from_vec(DataType::Bool, cond.clone()));
    let tv = Value::Vector(Column::from_vec(DataType::Double, t.clone()));
    let mut i = interp();
    for scalar_else in [false, true] {
        let ev = if scalar_else {
            Value::Scalar(Column::from_vec(DataType::Double, vec![2.5]))
        } else {
            Value::Vector(Column::from_vec(DataType::Double, e.clone()))
        };
        let got = match i.call_builtin_by_name("iif", vec![cv.clone(), tv.clone(), ev]).expect("iif") {
            Value::Vector(c) => c,
            other => panic!("{other:?}"),
        };
        assert_eq!(got.len(), n);
        for k in 0..n {
            let want = if cond[k] == i8::NULL {
                None
            } else if cond[k] != 0 {
                if t[k].is_null() { None } else { Some(t[k]) }
            } else {
                Some(if scalar_else { 2.5 } else { e[k] })
            };
            let have = if got.is_null(k) { None } else { got.f64_at(k) };
            assert_eq!(have, want, "row {k}");
        }
    }
}
