//! Matrices in give matrices out: every element-wise builtin (kind Elementwise in the
//! registry) and the binary operators, applied to a labelled dates × securities matrix, must
//! return a matrix of the same shape with the same row and column labels. Factor libraries
//! are written on such matrices; a flat vector or lost labels silently break them.

use beluga_runtime::{Interpreter, Value};
use beluga_runtime::registry::Kind;
use beluga_tests::{registry, with_stack};

/// Element-wise builtins that must accept a numeric matrix (the common unary math and the
/// null helpers): an error from one of these fails the test.
const MUST: &[&str] = &[
    "abs", "sign", "signum", "log", "log2", "log10", "log1p", "exp", "exp2", "expm1", "sqrt",
    "cbrt", "square", "pow", "round", "floor", "ceil", "clip", "nullFill", "isNull", "isValid",
    "neg", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
    "iif", "add", "sub", "mul", "div", "mod", "ratio", "gt", "ge", "lt", "le", "eq", "ne",
    "and", "or", "not", "max", "min", "isNanInf", "signbit", "deg2rad", "rad2deg", "in",
];

/// Moving, cumulative and series builtins whose manual pages accept a matrix (computed
/// column by column): each must succeed in one of the usual call shapes.
const MUST_ORDERED: &[&str] = &[
    "cumsum", "cumprod", "cummax", "cummin", "cumavg", "cumstd", "cumstdp", "cumvar", "cumvarp",
    "cumcount", "cumrank", "cumfirstNot", "cumlastNot", "cummed", "cumpercentile", "cumnunique",
    "cumPositiveStreak", "deltas", "ratios", "percentChange", "prev", "next", "move", "ffill",
    "bfill", "rank", "mavg", "msum", "msum2", "mmax", "mmin", "mstd", "mstdp", "mvar", "mvarp",
    "mcount", "mmed", "mprod", "mrank", "mskew", "mkurtosis", "mpercentile", "mfirst", "mlast",
    "mimax", "mimin", "mmad", "mcorr", "mcovar", "mbeta", "mwavg", "mwsum", "ema", "wma", "sma",
    "dema", "tema", "trima", "kama", "t3", "wilder", "gema", "ewmMean", "ewmVar", "ewmStd",
    "mavgTopN", "msumTopN", "mstdTopN", "mvarTopN",
    "mcorrTopN", "mcovarTopN", "mbetaTopN", "mwsumTopN", "cumsumTopN", "cumavgTopN",
    "cumstdTopN", "cumvarTopN", "cumcorrTopN", "cumbetaTopN", "cumwsumTopN", "mfirstNot",
    "mlastNot", "mimaxLast", "miminLast", "mmaxPositiveStreak",
];

const SETUP: &str = "m = matrix(1.5 -2.0 NULL 4.25, -0.5 3.0 2.0 -1.0, 0.0 1.0 -3.5 2.5)
m.rename!(2024.01.02 2024.01.03 2024.01.04 2024.01.05, `AAA`BBB`CCC)
";

/// (rows, cols, row labels, column labels) of a matrix value, printed for comparison.
fn shape(i: &Interpreter, v: &Value) -> Option<(usize, usize, String, String)> {
    match v {
        Value::Matrix(m) => Some((
            m.rows,
            m.cols,
            m.row_labels.as_ref().map(|l| i.format(l)).unwrap_or_default(),
            m.col_labels.as_ref().map(|l| i.format(l)).unwrap_or_default(),
        )),
        _ => None,
    }
}

/// Registered as element-wise but not element-wise on a matrix argument: the row-wise
/// reductions (a matrix gives one value per row), and polynomial evaluation whose first
/// argument is the coefficient vector.
fn not_elementwise(name: &str) -> bool {
    (name.starts_with("row") && name != "rowNames") || matches!(name, "poly1d" | "polyPredict")
}

/// Calls to try for one builtin: unary, with a scalar, with the matrix itself.
fn calls(name: &str) -> Vec<String> {
    match name {
        // unary ones: an extra argument means another function (max(m) is an aggregate)
        "not" => vec!["not(m > 0)".into()],
        "max" | "min" => vec![format!("{name}(m, 2)"), format!("{name}(m, m)")],
        "iif" => vec!["iif(m > 0, m, -m)".into(), "iif(m > 0, 1, -1)".into(), "iif(m > 0, m, 0)".into()],
        "clip" => vec!["clip(m, -1, 2)".into()],
        "nullFill" => vec!["nullFill(m, 0.0)".into()],
        _ => vec![format!("{name}(m)"), format!("{name}(m, 2)"), format!("{name}(m, m)")],
    }
}

/// Runs `src`: true when it succeeded, false when the builtin refused the call. A panic
/// caught at the statement is a bug, never a refusal: it is recorded in `wrong` as `what`.
fn accepted(i: &mut Interpreter, src: &str, what: &str, wrong: &mut Vec<String>) -> bool {
    match i.run_source(src, None) {
        Ok(()) => true,
        Err(e) => {
            if e.message.contains("a bug in Beluga") {
                wrong.push(format!("{what}: {}", e.message));
            }
            false
        }
    }
}

#[test]
fn elementwise_builtins_keep_matrix_shape_and_labels() {
    let out = with_stack(|| {
        let reg = registry();
        let mut names: Vec<&'static str> =
            reg.defs.iter().filter(|b| b.kind == Kind::Elementwise).map(|b| b.name).collect();
        names.extend(MUST.iter().copied());
        names.sort();
        names.dedup();
        let mut i = Interpreter::with_registry(reg);
        i.run_source(SETUP, None).expect("setup");
        let want = shape(&i, i.get_var("m").expect("m")).expect("m is a matrix");
        let (mut checked, mut wrong, mut missing) = (0usize, Vec::new(), Vec::new());
        for name in names.iter().filter(|n| !not_elementwise(n)) {
            let mut any_ok = false;
            for call in calls(name) {
                if !accepted(&mut i, &format!("r__ = {call}"), &call, &mut wrong) {
                    continue;
                }
                any_ok = true;
                checked += 1;
                let r = i.get_var("r__").expect("r__").clone();
                let got = shape(&i, &r);
                if got.as_ref() != Some(&want) {
                    wrong.push(format!("{call}: {:?} (a {:?})", got, r.form()));
                }
            }
            if !any_ok && MUST.contains(name) {
                missing.push(name.to_string());
            }
        }
        // the operators, each with a scalar on either side and the matrix on both
        // (`**` is the matrix product and `& | ^` are bitwise on integers: not element-wise here)
        for op in ["+", "-", "*", "/", "%", ">", ">=", "<", "<=", "==", "!=", "&&", "||"] {
            for call in [format!("m {op} 2"), format!("2 {op} m"), format!("m {op} m")] {
                match i.run_source(&format!("r__ = {call}"), None) {
                    Err(e) => missing.push(format!("{call}: {}", e.message)),
                    Ok(()) => {
                        checked += 1;
                        let r = i.get_var("r__").expect("r__").clone();
                        let got = shape(&i, &r);
                        if got.as_ref() != Some(&want) {
                            wrong.push(format!("{call}: {got:?}"));
                        }
                    }
                }
            }
        }
        (checked, wrong, missing)
    });
    let (checked, wrong, missing) = out;
    println!("matrix forms: {checked} calls checked, {} wrong, {} failing", wrong.len(), missing.len());
    assert!(checked > 100, "too few element-wise calls succeeded: {checked}");
    for w in wrong.iter().chain(&missing) {
        println!("  {w}");
    }
    assert!(wrong.is_empty(), "results that are not the same labelled matrix:\n{}", wrong.join("\n"));
    assert!(missing.is_empty(), "element-wise builtins that reject a numeric matrix:\n{}", missing.join("\n"));
}

/// Order-sensitive builtins (kind VectorToVector: moving, cumulative, TopN, fills, ranks)
/// applied to a labelled matrix work column by column: whichever of the usual call shapes a
/// builtin accepts, its result is a matrix of the same shape with the same labels. Those
/// that reorder or reshape by design are listed in `reshapes`.
#[test]
fn order_sensitive_builtins_keep_matrix_shape_and_labels() {
    // results that are not one value per cell by design: a reordering (labels follow the
    // rows), a selection, or a vector per column
    let reshapes = |n: &str| {
        matches!(
            n,
            "reverse" | "sort" | "sort!" | "shuffle" | "shuffle!" | "distinct" | "topRange" | "lowRange"
                | "movingWindowIndex" | "movingWindowData" | "movingTopNIndex" | "tmovingWindowData"
                | "reverse!" | "isort" | "isort!" | "removeHead!" | "removeTail!" | "csort"
        ) || n.starts_with("tm")
            // higher-order: the first argument is a function, not data
            || matches!(n, "moving" | "movingValid" | "iterate")
            // vector-only by their pages (funcs/m/mrank.md: mslr, mmse; linearTimeTrend gives
            // two outputs) or bucketing a vector into groups
            || matches!(n, "linearTimeTrend" | "qcut" | "segment" | "volumeBar" | "isDuplicated")
    };
    let out = with_stack(move || {
        let reg = registry();
        let mut names: Vec<&'static str> =
            reg.defs.iter().filter(|b| b.kind == Kind::VectorToVector).map(|b| b.name).collect();
        names.extend(MUST_ORDERED.iter().copied());
        names.sort();
        names.dedup();
        let mut i = Interpreter::with_registry(reg);
        i.run_source(SETUP, None).expect("setup");
        let want = shape(&i, i.get_var("m").expect("m")).expect("m is a matrix");
        let (mut checked, mut wrong, mut missing) = (0usize, Vec::new(), Vec::new());
        for name in names.iter().filter(|n| !reshapes(n)) {
            let shapes = [
                "(m)", "(m, 3)", "(m, m)", "(m, m, 3)", "(m, 3, 2)", "(m, m, 3, 2)", "(m, 3, 0.5)",
                // two series and the sorting key S: mcorrTopN(X, Y, S, window, top), cumbetaTopN(X, Y, S, top)
                "(m, m, m, 3, 2)", "(m, m, m, 2)",
            ];
            let mut any_ok = false;
            for args in shapes {
                // each call on a fresh copy: `!` builtins change their argument
                let call = format!("m2__ = m; r__ = {name}{}", args.replace("m", "m2__"));
                if !accepted(&mut i, &call, &format!("{name}{args}"), &mut wrong) {
                    continue;
                }
                checked += 1;
                any_ok = true;
                let r = i.get_var("r__").expect("r__").clone();
                let got = shape(&i, &r);
                if got.as_ref() != Some(&want) {
                    wrong.push(format!("{name}{args}: {:?} (a {:?})", got, r.form()));
                }
                break;
            }
            if !any_ok && MUST_ORDERED.contains(name) {
                missing.push(name.to_string());
            }
        }
        // the pairwise exponentially weighted statistics take their second series by keyword
        for call in ["ewmCov(m, com=0.5, other=m)", "ewmCorr(m, span=3, other=m)", "ewmCov(m, alpha=0.3, other=m.col(0))"] {
            match i.run_source(&format!("r__ = {call}"), None) {
                Err(e) => missing.push(format!("{call}: {}", e.message)),
                Ok(()) => {
                    checked += 1;
                    let r = i.get_var("r__").expect("r__").clone();
                    if shape(&i, &r).as_ref() != Some(&want) {
                        wrong.push(format!("{call}: {:?}", shape(&i, &r)));
                    }
                }
            }
        }
        (checked, wrong, missing)
    });
    let (checked, wrong, missing) = out;
    println!("order-sensitive matrix forms: {checked} builtins checked, {} wrong, {} failing", wrong.len(), missing.len());
    assert!(checked > 80, "too few order-sensitive calls succeeded: {checked}");
    assert!(missing.is_empty(), "moving/cumulative builtins that reject a numeric matrix:\n{}", missing.join("\n"));
    assert!(wrong.is_empty(), "results that are not the same labelled matrix:\n{}", wrong.join("\n"));
}
