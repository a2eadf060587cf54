//! Script tests of the window families (m*, tm*, cum*, TopN, TA-lib, finance, series) run
//! through the interpreter; expected outputs are DolphinDB's documented results.

use beluga_runtime::{Interpreter, Registry};

pub fn interp() -> Interpreter {
    let mut r = Registry::new();
    crate::register(&mut r);
    Interpreter::new(r)
}

/// Run `src` and compare its console output with `want` (one line per echoed value). Error
/// lines compare without their "Error: " prefix (the REPL's echo format is not ours).
pub fn check(src: &str, want: &str) {
    let mut i = interp();
    let out = i.run_repl_text(src);
    let norm = |s: &str| s.trim_end().lines().map(|l| l.strip_prefix("Error: ").unwrap_or(l).to_string()).collect::<Vec<_>>().join("\n");
    assert_eq!(norm(&out), norm(want), "script:\n{src}");
}

#[test]
fn msum_family() {
    check("X = 2 1 3 7 6 5 4\nY = 2 1 3 NULL 6 5 4\nmsum(X, 3)\nmsum(Y, 3)\nmsum(Y, 3, minPeriods=1)", "[,,6,11,16,18,15]\n[,,6,4,9,11,15]\n[2,3,6,4,9,11,15]");
    check("typestr(msum(1 2 3, 2))\ntypestr(msum(1.0 2 3, 2))\ntypestr(msum(1l 2 3, 2))", "FAST LONG VECTOR\nFAST DOUBLE VECTOR\nFAST LONG VECTOR");
    check("msum2(2 1 3 NULL 6 5 4, 3)", "[,,14,10,45,61,77]");
    check("mprod(2 1 3 NULL 6 5 4, 3, 1)", "[2,2,6,3,18,30,120]");
}

#[test]
fn mavg_window_weights_and_matrix() {
    check("mavg(7 4 6 0 -5 32 9 8, 4)", "[,,,4.25,1.25,8.25,9,11]");
    check("mavg(7 4 6 NULL -5 32 9 8, 2 3 5)", "[,,5.6,5.2,-1.857143,18.125,13.1,13.1]");
    check("mavg(matrix(1 6 2 9 4 5, 11 12 18 23 21 10), 3)[1]", "[,,13.666667,17.666667,20.666667,18]");
}

#[test]
fn moments() {
    check("mstd(1 2 5 4 3, 3, 2)\nmvar(1..6, 5)\nmvarp(1..6, 5, 2)", "[,0.707107,2.081666,1.527525,1]\n[,,,,2.5,2.5]\n[,0.25,0.666667,1.25,2,2]");
    check("mskew(1 2 3 10 100 4 3, 3)", "[,,0,0.665469,0.69381,0.697217,0.706851]");
    check("m=matrix(1111 323 43 51 6, 2 9 12 32 400)\nm.mkurtosis(4, false)-3", "#0       #1\n-------- --------\n\n\n\n2.504252 2.366838\n3.675552 3.941262");
}

#[test]
fn extremes_and_positions() {
    check("mmax(2 1 3 NULL 6 5 4, 3)\nmmin(2 1 3 NULL 6 5 4, 3, minPeriods=1)", "[,,3,3,6,6,6]\n[2,1,1,1,3,5,4]");
    check("mimax(1.2 2 NULL 6 -1 6, 3)\nmimax(1.2 2 NULL 6 -1 6, 3, 1)\nmimin(1.2 2 NULL 6 -1 -1, 3)", "[,,1,2,1,0]\n[0,1,1,2,1,0]\n[,,0,0,2,1]");
    check("mifirstNot(NULL NULL 2 3 4 8 NULL 5 -2 3 -1 0 NULL, 3)", "[,,2,1,0,0,0,0,1,0,0,0,0]");
    check("mfirstNot(X=NULL 2 NULL 4 5, window=2)\nmlastNot(NULL 2 NULL 4 5, 2)", "[,2,2,4,4]\n[,2,2,4,5]");
    check("mfirst(`a`b`c, 2)\nmlast(`a`b`c, 2)", "[,\"a\",\"b\"]\n[,\"b\",\"c\"]");
    check("mcount(1 2 3 NULL 5, 3)\nmcount(1 2 3 NULL 5, 3, minPeriods=3)", "[1,2,3,2,2]\n[,,3,,]");
}

#[test]
fn order_statistics() {
    check("mmed(2 1 3 NULL 6 5 4, 3)", "[,,2,2,4.5,5.5,5]");
    check("x=2 1 3 7 6 5 4\nmpercentile(x, percent=15, window=3, interpolation=\"midpoint\")\nmpercentile(x, 5, 3, \"nearest\")", "[,,1.5,2,4.5,5.5,4.5]\n[,,1,1,3,5,4]");
    check("X = 3 2 4 4 4 NULL 1\nmrank(X, ascending=false, window=3, ignoreNA=false, tiesMethod='average', minPeriods=2)", "[,1,0,0.5,1,2,1]");
    check("mrank(matrix(1 2 5 3 4, 5 4 1 2 3), true, 3, percent=true)[1]", "[,,0.333333,0.666667,1]");
    check("x = 7 4 6 0 -5 32\nmmad(x, window=3)\nmmad(x, window=3, useMedian=true)", "[,,1.111111,2.222222,3.777778,15.333333]\n[,,1,2,5,5]");
    check("mmad(NULL NULL 2 5 1 7 -3 0, window=3, minPeriods=2)", "[,,,1.5,1.555556,2.222222,3.555556,3.777778]");
}

#[test]
fn ranges_and_streaks() {
    check("x = [NULL, 3.1, NULL, 3.0, 2.9, 2.8, 3.1, NULL, 3.2]\nmTopRange(x, window=3)\nmLowRange(x, window=3, minPeriods=2)", "[,,0,1,0,0,2,0,2]\n[,,,0,1,2,0,2,0]");
    check("mmaxPositiveStreak(5 NULL 3 2 1 5 10 9 NULL 9 10 -1 NULL, 5)", "[,,,,6,11,21,27,25,24,19,19,19]");
}

#[test]
fn pairs_and_regressions() {
    check("mcorr(1..8, 9 5 3 4 5 4 7 1, 5, 3)", "[,,-0.981981,-0.834497,-0.624038,0,0.834058,-0.29173]");
    check("mwavg(2.1 2.2 2.3 2.5 2.6 2.8 2.7 2.5, 10 20 10 40 10 40 10 20, 4)", "[,,,2.35,2.4125,2.61,2.65,2.6875]");
    check("mslr(1 4 3 9 5 4, 12 31 29 88 67 76, 4)", "([,,,0.177052,0.712557,0.15],[,,,0.101824,0.084418,0.078462])");
    check(
        "x=0.011 0.006 -0.008 0.012 -0.016 -0.023 0.018\ny=0.016 0.009 -0.012 0.022 0.003 -0.056 0.002\nmmse(y, x, 5, 3)",
        "([,,1.479381,1.594701,0.818182,1.692379,1.188532],[,,2.806415E-8,0.000003,0.000055,0.000231,0.000332])",
    );
}

#[test]
fn moving_window_rows() {
    check("movingWindowData(-1 3 -4 0 5, 3, true)", "[[,,-1],[,-1,3],[-1,3,-4],[3,-4,0],[-4,0,5]]");
    check("movingTopNIndex(X=2 5 6 1 2 4, window=4, top=2, ascending=false, fixed=true)", "[[,0],[1,0],[2,1],[2,1],[2,1],[2,5]]");
}

#[test]
fn time_windows() {
    check("tmsum(1 1 3 5 8 15 15 20, 5 2 4 1 2 8 9 10, 3)", "[5,7,11,5,2,8,17,10]");
    check("T = 2021.01.02 2021.01.02 2021.01.04 2021.01.05 2021.01.07 2021.01.08\ntmavg(T, 1 4 2 -1 2 4, 1w)", "[1,2.5,2.333333,1.5,1.6,2]");
    check("tmcount(1 1 1 2 5 6, 1 4 NULL -1 NULL 4, 3)\ntmfirst(1 1 1 2 5 6, 1 4 NULL -1 NULL 4, 3)", "[1,2,2,3,0,1]\n[1,1,1,1,,]");
    check("tmrank(1 1 3 5 8 15 15 20, 5 2 4 1 2 8 9 10, ascending=true, window=3)", "[0,0,1,0,0,0,1,0]");
    check("tmsum(2021.01.31 2021.02.28 2021.03.31, 1 2 3, 1M)", "[1,3,3]");
    check("T = 2022.01.01T09:00:00 + 1 1 2 3 6 7\ntmovingWindowData(T, 1..6, 3s, leftClosed=true)", "[[1],[1,2],[1,2,3],[1,2,3,4],[4,5],[5,6]]");
    check("tmsum(3 2 1, 1 2 3, 2)", "Error: The time column of [tmsum] must be non-decreasing");
}

#[test]
fn cumulative() {
    check("cumsum(1 2 NULL NULL 3)\ncumavg([2,3,NULL,4])\ncummax(7 4 5 8 9)\ncumcount(1 NULL 2)", "[1,3,3,3,6]\n[2,2.5,2.5,3]\n[7,7,7,8,9]\n[1,1,2]");
    check("cumrank(1 3 2 2 4 NULL, , false, 'max')\ncumdenseRank(1 3 2 3 4, percent=true, norm=\"minmax\")", "[0,1,1,2,4,0]\n[1,1,0.5,1,1]");
    check("x=[NULL,1,2,6,NULL,3,4,NULL]\ncumfirstNot(x, 1)\ncumlastNot(x, 4)", "[,,2,2,2,2,2,2]\n[,1,2,6,6,3,3,3]");
    check("cumnunique([NULL, 1, 2, -6, 0, 1, 2], true)\ncumPositiveStreak(1 0 -1 1 2 2 2 1 0 -1 0 2)", "[0,1,2,3,4,4,4]\n[1,0,0,1,3,5,7,8,0,0,0,2]");
    check("cumpercentile(1..10, 25, 'nearest')\ncumbeta(1 6 9 8 15 23 34, 1 3 5 7 11 16 23)", "[1,1,1,2,2,2,2,3,3,3]\n[,2.5,2,1.2,1.256757,1.365322,1.440948]");
    check("cumsum(5)\ncumsum(matrix(1 2 3, 4 5 6))[1]", "5\n[4,9,15]");
    check("dynamicGroupCumcount(0 0 1 0, NULL NULL 0 NULL, 3)", "([1,2,1,2],[0,0,1,1],[0,0,0,0])");
    check("dynamicGroupCumsum(2 4 8, NULL NULL 2, 0 0 1, NULL NULL 0, 3)", "([2,6,4],[0,0,8],[0,0,0])");
}

#[test]
fn top_n() {
    check(
        "X = [2, 1, 5, 3, 4, 3, 1, 9, 0, 5, 2, 3]\nS = [5, 8, 1, 9, 7, 3, 1, NULL, 0, 8, 7, 7]\ncumsumTopN(X, S, top=3)",
        "[2,3,8,8,11,10,9,9,6,6,6,6]",
    );
    check(
        "X = [2, 1, 4, 3, 4, 3, 1]\nS = [5, 8, 1, 1, 1, 3, 1]\nmsumTopN(X, S, window=6, top=3)\nmsumTopN(X, S, window=6, top=3, tiesMethod=`latest)\nmsumTopN(X, S, window=6, top=3, tiesMethod=`all)",
        "[2,3,7,9,11,11,11]\n[2,3,7,9,11,11,8]\n[2,3,7,9,11,11,12]",
    );
    check("msumTopN(NULL 1 2 3 4 NULL 5, 3 5 1 1 5 2 4, 4, 2)", "[,1,2,5,5,5,3]");
    check("T=13:30m 13:34m 13:36m 13:37m 13:38m\ntmsumTopN(T, 2 1 5 3 4, 5 8 1 9 7, window=4, top=3)", "[2,1,6,9,12]");
    check(
        "x = [2,,8,0,4,,6,3,5,7]\ns = [,1,8,7,9,6,5,0,4,3]\nmpercentileTopN(x, s, percent=15, window=6, top=3, interpolation=\"midpoint\")",
        "[,,8,4,4,0,6,4.5,4,4]",
    );
    check("mbetaTopN(NULL 3 8 4 0, 2 3 1 7 3, 5 NULL 8 9 4, 3, 2)", "[,,,-0.666667,-4]");
    check("mskewTopN(1 2 3 10 100 4 3, 0.3 0.5 0.1 0.1 0.5 0.2 0.4, 6, 4)", "[,0,0,1.018234,1.132548,0.795046,1.08952]");
    check("cumkurtosisTopN(1 2 3 10 100 4 3, 0.3 0.5 0.1 0.1 0.5 0.2 0.4, 6)", "[,,1.5,2.2304,3.215271,4.152537,4.155418]");
}

#[test]
fn ta_lib() {
    check("x=12.1 12.2 12.6 12.8 11.9 11.6 11.2\nema(x,3)\nema(x,3, warmup=true)\ndema(x,3)\ntrima(x,3)", "[,,12.3,12.55,12.225,11.9125,11.55625]\n[12.1,12.2,12.466667,12.633333,12.266667,11.933333,11.566667]\n[,,,,12.091667,11.689583,11.266667]\n[,,12.275,12.55,12.525,12.05,11.575]");
    check("t3(12.1 12.2 12.6 12.8 11.9 11.6 11.2 16.9 55.6 5.6 3.3 66 6 57, 3, 0.5)", "[,,,,,,,,,,,,26.844686,33.209041]");
    check("kama([51.65, 81.18, 43.37, 11.26, 82.79, 13.4, 81.87, 63.53, 21.28, 94.23], 5)", "[,,,,,81.006144,81.009907,80.793626,80.344572,80.456788]");
    check("linearTimeTrend(3 3 5 7 8 9, 3)", "([,,2.666667,3,5.166667,7],[,,1,2,1.5,1])");
    check("sma(NULL NULL NULL 1 2 3 4, 3)\nma(1 2 3 4, 2, 0)", "[,,,,,2,3]\n[,1.5,2.5,3.5]");
}

#[test]
fn finance_and_series() {
    check("x = [36,96,42,100,59,86,25,64,72]\ncummdd(x)\nmaxDrawdown(x)\nmdd(x, false)", "[0,0,0.5625,0.5625,0.5625,0.5625,0.75,0.75,0.75]\n0.75\n75");
    check("trueRange(11.48 12.26 12.24, 10.91 11.18 11.71, 11.38 12.1 11.89)", "[,1.08,0.53]");
    check("isPeak([1, 2.2, 2.2, 2.2, 1.6, 1, 1.2], false)\nisValley(1 0 1 2 1 3)", "[false,false,true,false,false,false,false]\n[false,true,false,false,true,false]");
    check("isMonotonicIncreasing([NULL,1,3,5])\nisMonotonic([1,3,NULL])\nisMonotonicDecreasing(3 2 2 1)", "true\nfalse\ntrue");
    check("zigzag(1.2 3 3.1 14 14.5 14.7 25.0 17.8 19 10)", "[1.2,,,,,,25,,,10]");
}

#[test]
fn errors_and_edges() {
    check("msum(1 2 3, 0)", "Error: window of [msum] must be a positive integer or a DURATION");
    check("msum(1 2 3, 2, 5)", "Error: minPeriods of [msum] must be no greater than window");
    check("msum(\"a\" \"b\", 2)", "Error: The function [msum] is not supported for STRING");
    check("mcorr(1 2 3, 1 2, 2)", "Error: The arguments of [mcorr] must have the same length");
    check("msum(1 2 3, 2d)", "Error: [msum] a DURATION window needs an indexed series or matrix (X with a time index)");
    check("x = array(INT, 0)\nmsum(x, 3)\ncummed(x)\ntmsum(x, x, 3)", "[]\n[]\n[]");
    check("n = take(00i, 3)\nmsum(n, 2)\ncumsum(n)\ncumcount(n)\nmrank(n, true, 2)", "[,,]\n[,,]\n[0,0,0]\n[,,]");
    check("msum((1 2 3, 4 5 6), 2)", "([,3,5],[,9,11])");
    check("mavg(table(1 2 3 as a, `x`y`z as b), 2)", "a   b\n--- -\n    x\n1.5 y\n2.5 z");
}

#[test]
fn context_by_segments() {
    check(
        "t = table(`a`b`a`b`a`b as sym, 1 10 2 20 3 30 as qty)\nselect sym, qty, msum(qty, 2) as m, cumsum(qty) as c, mrank(qty, false, 2) as r from t context by sym",
        "sym qty m  c  r\n--- --- -- -- -\na   1      1\na   2   3  3  0\na   3   5  6  0\nb   10     10\nb   20  30 30 0\nb   30  50 60 0",
    );
    // the kernel on its own: offsets are group boundaries
    let c = beluga_runtime::Column::from_vec(beluga_runtime::DataType::Int, vec![1, 2, 3, 10, 20]);
    let mut reg = beluga_runtime::Registry::new();
    crate::register(&mut reg);
    let kernel = reg.caps("cumsum").and_then(|c| c.segmented).expect("cumsum carries a segmented kernel");
    let r = kernel(&c, &[], &[0, 3, 5]).expect("one column").expect("ok");
    assert_eq!((0..5).map(|i| r.i64_at(i).unwrap_or(-1)).collect::<Vec<_>>(), vec![1, 3, 6, 10, 30]);
    assert!(reg.caps("movingWindowData").expect("registered").segmented.is_none());
}
