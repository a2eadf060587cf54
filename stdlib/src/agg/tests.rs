//! Tests of the aggregate family (agg.rs, agg_group.rs, agg_stats.rs, agg_order.rs): scripts
//! through the interpreter with exact printed output, plus grouped-vs-slice properties.

use beluga_runtime::column::Column;
use beluga_runtime::{DataType, Value};

/// Run REPL text with every stdlib builtin registered; returns the printed output.
pub fn run(src: &str) -> String {
    let mut r = beluga_runtime::Registry::new();
    crate::register(&mut r);
    let mut i = beluga_runtime::Interpreter::new(r);
    i.run_repl_text(src)
}

/// Assert that each `script => expected output` pair prints exactly as given.
pub fn check(cases: &[(&str, &str)]) {
    for (src, want) in cases {
        // error lines are compared without the console's "Error: " prefix
        let norm = |t: &str| {
            t.trim_end().lines().map(|l| l.trim_end().trim_start_matches("Error: ")).collect::<Vec<_>>().join("\n")
        };
        assert_eq!(norm(&run(src)), norm(want), "script: {src}");
    }
}

#[test]
fn sums_and_means() {
    check(&[
        ("sum(1 2 3 NULL 4)", "10"),
        ("sum(1 NULL 2)", "3"),
        ("sum(1.5 2.5 NULL)", "4"),
        ("sum(1 2 3 4 5 6$3:2)", "[6,15]"),
        ("avg(1 2 3 NULL)", "2"),
        ("avg(1 2 3 4 5 6$3:2)", "[2,5]"),
        ("mean(2 4)", "3"),
        ("sum2(1 2 3)", "14"),
        ("sum2(1 NULL NULL)", "1"),
        ("sum2(1.5 4.6 7.8)", "84.25"),
        ("sum3(1 2)", "9"),
        ("sum4(1 2)", "17"),
        ("prod(1 2 NULL 3)", "6"),
        ("prod(1 2 3 4 5 6$3:2)", "[6,120]"),
        ("difference(12.3 15.6 17.8)", "5.5"),
        ("difference(2 4 2)", "0"),
    ]);
}

#[test]
fn empty_and_all_null() {
    check(&[
        ("x = 1 2 3; sum(x[x > 5])", "00l"),
        ("x = 1.0 2.0; avg(x[x > 5])", "00F"),
        ("x = 1 2 3; max(x[x > 5])", "00i"),
        ("x = 1 2 3; count(x[x > 5])", "0"),
        ("std(1)", "00F"),
        ("stdp(1)", "0"),
        ("med(NULL NULL)", "00F"),
        ("imax(NULL NULL)", "-1"),
    ]);
}

#[test]
fn min_max_count() {
    check(&[
        ("max(1 2 3)", "3"),
        ("max(7.8 9 5.4)", "9"),
        ("min(2.0 1.1 0.1 NULL)", "0.1"),
        ("max(1 2 3, 2)", "[2,2,3]"),
        ("min(1 2 3, 2)", "[1,2,2]"),
        ("max(1 2 3 4 5 6$3:2)", "[3,6]"),
        ("max(`abb`aac`aaa)", "abb"),
        ("min(`abb`aac`aaa)", "aaa"),
        ("max(2012.01.01 2013.01.01)", "2013.01.01"),
        ("max(1 NULL 3, NULL 2 NULL)", "[1,2,3]"),
        ("min(1 NULL 3, NULL 2 NULL)", "[,,]"),
        ("minIgnoreNull(1 NULL 3, NULL 2 NULL)", "[1,2,3]"),
        ("count(3 NULL 5 6)", "3"),
        ("count(1 2 3 NULL 4 5$2:3)", "5"),
        ("sum(2012.01.01 2013.01.01)", "Error: The function [sum] is not supported for DATE"),
    ]);
}

#[test]
fn first_last_not() {
    check(&[
        ("first(`hello`world)", "hello"),
        ("last(1 2 3)", "3"),
        ("first(1 2 3 4 5 6$3:2)", "[1,4]"),
        ("last(1 2 3 4 5 6$3:2)", "[3,6]"),
        ("firstNot(0 0 0 6 1, 0)", "6"),
        ("firstNot(NULL 0 3 2 1, 0)", "3"),
        ("firstNot(NULL 0 1 6)", "0"),
        ("lastNot(1 6 0 0 0 2 3 0 NULL, 0)", "3"),
        ("lastNot(1 6 0 0 0 2 3 0 NULL)", "0"),
    ]);
}

#[test]
fn dispersion_and_shape() {
    check(&[
        ("std(1 2 3)", "1"),
        ("stdp(1 2 3)", "0.816497"),
        ("var(1 1 1)", "0"),
        ("varp(1 3 5 7 9 1 4 7 10 13$5:2)", "[8,18]"),
        ("std(1 3 5 7 9 1 4 7 10 13$5:2)", "[3.162278,4.743416]"),
        ("skew(1 2 3 4 5 6 7 8 9 10 1 2 3 4 5 6 7 8 9 100$10:2)", "[0,2.630084]"),
        ("kurtosis(1 2 3 4 5 6 7 8 9 10 1 2 3 4 5 6 7 8 9 100$10:2)", "[1.775758,7.997553]"),
        ("mad([85, 90, 95, NULL])", "3.333333"),
        ("mad(1 2 3 4 100, true)", "1"),
        ("sem(1 2 3 4)", "0.645497"),
        ("rms(3 4)", "3.535534"),
    ]);
}

#[test]
fn order_statistics() {
    check(&[
        ("med(3 6 1 5 9)", "5"),
        ("med(1 2 10 4 5 NULL$3:2)", "[2,4.5]"),
        ("a = [6, 47, 49, 15, 42, 41, 7, 39, 43, 40, 36]; percentile(a, 50)", "40"),
        ("a = [6, 47, 49, 15, 42, 41, 7, 39, 43, 40, 36]; percentile(a, 54)", "40.4"),
        ("a = [6, 47, 49, 15, 42, 41, 7, 39, 43, 40, 36]; percentile(a, 25, \"lower\")", "15"),
        ("a = [6, 47, 49, 15, 42, 41, 7, 39, 43, 40, 36]; percentile(a, 75, \"higher\")", "43"),
        ("a = [6, 47, 49, 15, 42, 41, 7, 39, 43, 40, 36]; percentile(a, 5, \"midpoint\")", "6.5"),
        ("a = [6, 47, 49, 15, 42, 41, 7, 39, 43, 40, 36]; percentile(a, 5, \"nearest\")", "6"),
        ("a = [6, 47, 49, 15, 42, 41, 7, 39, 43, 40, 36]; quantile(a, 0.75, 'lower')", "42"),
        ("percentile(1 2 5 3 4 5 4 1 2 3$5:2, 75)", "[4,4]"),
        ("quantileSeries(1..10, 0.1 0.5 0.9)", "[1.9,5.5,9.1]"),
        ("mode(1 3 3 3 4 5 5)", "3"),
        ("mode(1 1 2 2 2 3 4 4 5 6 6 6$6:2)", "[2,6]"),
        ("nunique([1,3,1,-6,NULL,2,NULL,1])", "5"),
        ("nunique([1,3,1,-6,NULL,2,NULL,1], true)", "4"),
        ("percentileRank(2 3 4 4 5, 4)", "66.666667"),
        ("percentileRank(2 3 4 4 5, 4, \"rank\")", "70"),
        ("percentileRank(1 5 8, 6)", "66.666667"),
        ("qcut([1,2,3,4,5,6,7,8,9,10], 4)", "[0,0,0,1,1,2,2,3,3,3]"),
        ("qcut([1,2,3,4,5,6,7,8,9,10], [0, 0.3, 0.7, 1.0])", "[0,0,0,1,1,1,1,2,2,2]"),
    ]);
}

#[test]
fn positional_and_weighted() {
    check(&[
        ("imax(1.2 2 NULL 6 -1 6)", "3"),
        ("imin(1.2 2 NULL -1 6 -1)", "3"),
        ("imax(1 2 3 6 5 4$3:2)", "[2,0]"),
        ("imin(5 3 1 6 4 1$3:2)", "[2,2]"),
        ("atImax(3 5 1 2, 9 7 5 3)", "7"),
        ("atImin(3 5 1 2, 9 7 5 3)", "5"),
        ("wavg(1 NULL 1, 1 1 1)", "1"),
        ("wsum(7 8 9, 1 2 3)", "50"),
        ("wsum2(1 2, 3 4)", "19"),
        ("contextCount(1 NULL 3, 1 2 NULL)", "1"),
        ("contextSum(1 2 3, 1 NULL 1)", "4"),
        ("contextSum2(1 2 3, 1 NULL 1)", "10"),
        ("demean(1 2 3)", "[-1,0,1]"),
        ("percentChange(1 2 4 8)", "[,1,1,1]"),
        ("wc(\"This is a 7th generation iphone!\")", "6"),
    ]);
}

/// Tiny deterministic generator for the property tests.
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 33
}

/// The capability slots of the registered rows (the kernels the SQL planner finds).
fn registry() -> beluga_runtime::Registry {
    let mut r = beluga_runtime::Registry::new();
    crate::register(&mut r);
    r
}

/// Grouped kernels agree with the whole-column kernels applied to each group's slice.
#[test]
fn grouped_matches_slices() {
    let r = registry();
    let mut seed = 7u64;
    for round in 0..20 {
        let n = (lcg(&mut seed) % 60) as usize;
        let ng = 1 + (lcg(&mut seed) % 5) as usize;
        let gid: Vec<u32> = (0..n).map(|_| (lcg(&mut seed) % ng as u64) as u32).collect();
        let ints: Vec<i32> = (0..n).map(|_| if lcg(&mut seed) % 7 == 0 { i32::MIN } else { (lcg(&mut seed) % 100) as i32 - 50 }).collect();
        let col = if round % 2 == 0 {
            Column::from_vec(DataType::Int, ints)
        } else {
            Column::from_vec(DataType::Double, ints.iter().map(|&x| if x == i32::MIN { -f64::MAX } else { x as f64 / 4.0 }).collect::<Vec<f64>>())
        };
        for name in ["sum", "avg", "min", "max", "count", "first", "last", "firstNot", "lastNot", "std", "var", "stdp", "varp", "prod", "sum2"] {
            let kernel = r.caps(name).and_then(|c| c.grouped).expect("kernel");
            let g = kernel(&col, &gid, ng).expect("takes the column").expect("ok");
            for k in 0..ng {
                let idx: Vec<usize> = (0..n).filter(|&i| gid[i] == k as u32).collect();
                let part = col.take_usize(&idx);
                let want = match name {
                    "sum" => crate::agg::sum_col(&part).unwrap(),
                    "avg" => crate::agg::avg_col(&part).unwrap(),
                    "min" => crate::agg::min_col(&part).unwrap(),
                    "max" => crate::agg::max_col(&part).unwrap(),
                    "count" => Value::int(crate::agg::count_col(&part) as i32),
                    "first" => crate::agg::first_col(&part),
                    "last" => crate::agg::last_col(&part),
                    "firstNot" => crate::agg::first_not_col(&part, None, false),
                    "lastNot" => crate::agg::first_not_col(&part, None, true),
                    "std" => crate::agg_stats::std_col("std", &part, false).unwrap(),
                    "stdp" => crate::agg_stats::std_col("stdp", &part, true).unwrap(),
                    "var" => crate::agg_stats::var_col("var", &part, false).unwrap(),
                    "varp" => crate::agg_stats::var_col("varp", &part, true).unwrap(),
                    "prod" => crate::agg::prod_col(&part).unwrap(),
                    _ => crate::agg::sum_pow_col("sum2", &part, 2).unwrap(),
                };
                let want = match want {
                    Value::Scalar(c) => c,
                    Value::Void => Column::nulls(DataType::Double, 1),
                    other => panic!("unexpected {other:?}"),
                };
                let (a, b) = (g.f64_at(k), want.f64_at(0));
                let same = match (a, b) {
                    (None, None) => true,
                    (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
                    _ => false,
                };
                assert!(same, "{name} group {k}: grouped {a:?} vs slice {b:?}");
                assert_eq!(g.ty, want.ty, "{name} result type");
            }
        }
    }
}

#[test]
fn grouped2_matches_slices() {
    let mut seed = 11u64;
    let n = 80;
    let gid: Vec<u32> = (0..n).map(|_| (lcg(&mut seed) % 4) as u32).collect();
    let x: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 1000) as f64 / 10.0).collect();
    let y: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 1000) as f64 / 7.0).collect();
    let (cx, cy) = (Column::from_vec(DataType::Double, x), Column::from_vec(DataType::Double, y));
    let r = registry();
    for name in ["wavg", "wsum", "corr", "covar", "covarp", "beta"] {
        let kernel = r.caps(name).and_then(|c| c.grouped2).expect("kernel");
        let g = kernel(&cx, &cy, &gid, 4).expect("takes the columns").expect("ok");
        for k in 0..4u32 {
            let idx: Vec<usize> = (0..n).filter(|&i| gid[i] == k).collect();
            let (px, py) = (cx.take_usize(&idx), cy.take_usize(&idx));
            let want = match name {
                "wavg" => crate::agg_stats::wavg_col(&px, &py).unwrap(),
                "wsum" => crate::agg_stats::wsum_col(&px, &py).unwrap(),
                "corr" => crate::stats::corr_col(&px, &py).unwrap(),
                "covar" => crate::stats::covar_col(&px, &py, false).unwrap(),
                "covarp" => crate::stats::covar_col(&px, &py, true).unwrap(),
                _ => crate::stats::beta_col(&px, &py).unwrap(),
            };
            let (a, b) = (g.f64_at(k as usize).unwrap(), want.as_f64().unwrap());
            assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{name}: {a} vs {b}");
        }
    }
    assert!(r.caps("med").expect("registered").grouped.is_none());
}
