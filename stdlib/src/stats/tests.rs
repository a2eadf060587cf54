//! Tests of correlation, distributions, regression, models, random numbers and linear algebra.

use crate::agg_tests::{check, run};

#[test]
fn correlation_and_distance() {
    let xy = "x = 7 4 5 8 9 3 3 5 2 6 12 1 0 -5 32; y = 1.1 7 8 9 9 5 4 8.6 2 1 -9 -3 5 8 13; ";
    check(&[
        (&format!("{xy}corr(x, y)"), "0.238769"),
        (&format!("{xy}covar(x, y)"), "10.881429"),
        (&format!("{xy}wcovar(x, y, iterate(1, 0.9, 15))"), "4.201899"),
        ("beta(0.1 4.2 5.6 8.8 22.1 35.6 77.2, 1 3 5 7 11 16 23)", "3.378632"),
        ("covarp(1 2 3, 1 2 4)", "1"),
        ("kendall(1 2 3 4 5, 5 6 7 8 7)", "0.737865"),
        ("spearmanr(1 2 3 4 5, 5 6 7 8 7)", "0.820783"),
        ("mutualInfo([NULL,4,NULL,NULL,-82,97,NULL,56,5,-92], [NULL,53,NULL,18,97,-4,-73,NULL,NULL,24])", "2.302585"),
        ("mutualInfo(1..12$3:4, 1..3)", "[1.098612,1.098612,1.098612,1.098612]"),
        ("cosine(1 2 3, 4 5 6)", "0.974632"),
        ("euclidean(1 2 3, 4 5 6)", "5.196152"),
        ("minkowski(1 2 3, 4 5 6, 1)", "9"),
        ("seuclidean(1 2, 3 4, 1 4)", "2.236068"),
        ("mahalanobis(1 2, 3 4, 1 0 0 4$2:2)", "2.236068"),
        ("autocorr(1 2 3 4 5 4 3 2 1, 1)", "0.539683"),
        ("acf(1 2 3 4 5 4 3 2 1, 2)", "[0.539683,-0.013492]"),
        ("corrMatrix(1 2 3 2 4 6$3:2)", "#0 #1\n-- --\n1  1 \n1  1"),
        ("covarMatrix(1 2 3 2 4 6$3:2)", "#0 #1\n-- --\n1  2 \n2  4"),
        ("crossStat(1 NULL 2 3, 4 3 NULL 2)", "(2,4,6,10,20,10)"),
    ]);
}

#[test]
fn distributions() {
    check(&[
        ("cdfNormal(0, 1, 1.96)", "0.975002"),
        ("invNormal(0, 1, 0.975)", "1.959964"),
        ("invNormal(0, 1, 0.5)", "0"),
        ("cdfStudent(5, 2.0)", "0.94903"),
        ("invStudent(5, 0.975)", "2.570582"),
        ("cdfChiSquare(3, 7.81)", "0.949894"),
    ]);
    let out = run("r = tTest(1 2 3 4 5 6 7 8 9 10, , 5.0); r[`tValue]");
    assert_eq!(out.trim(), "0.522233");
}

#[test]
fn regression_and_models() {
    let xy = "x1 = 1 3 5 7 11 16 23; y = 0.1 4.2 5.6 8.8 22.1 35.6 77.2; ";
    check(&[
        (&format!("{xy}ols(y, x1)"), "[-9.912821,3.378632]"),
        (&format!("{xy}residual(y, x1, ols(y, x1))"), "[6.634188,3.976923,-1.380342,-4.937607,-5.152137,-8.545299,9.404274]"),
        ("polyFit([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 0.8, 0.9, 0.1, -0.8, -1.0], 3)", "[-0.039683,1.693122,-0.813492,0.087037]"),
        ("poly1d([5,4,3,2], [2.0,5.0,3.0,3.0,4.0,5.0])", "[41,350,98,98,197,350]"),
        ("polynomial(1 2 3, 1 2)", "[3,5,7]"),
        ("m = linearInterpolateFit(0 1 2, 0 10 20); predict(m, 0.5 3)", "[5,30]"),
        ("m = cubicHermiteSplineFit(0 1, 0 1, 1 1); predict(m, 0.5)", "0.5"),
        ("m = kroghInterpolateFit(0 1 2, 1 3 7); predict(m, 3)", "13"),
        ("m = polyFit(0 1 2, 1 3 5, 1, true); predict(m, 3)", "7"),
    ]);
}

#[test]
fn descriptive() {
    check(&[
        ("histogram([3,4,5,6,7,8,9], 3)", "H->[2,2,3]\nedges->[3,5,7,9]"),
        ("histogram([3,4,5,6,7,8,9], [3,6,9], [4,8], true)", "H->[0.133333,0.2]\nedges->[3,6,9]"),
        ("stat(5 7 4 3 2 1 7 8 9 NULL)[`Avg]", "5.111111"),
        ("ewmMean(1 2 3 NULL 5, 0.5)", "[1,1.75,2.615385,2.615385,4.670213]"),
        ("ewmStd(1 2 3 4 5, 1)", "[,0.707107,0.963624,1.177164,1.345243]"),
        ("boxcox(1 2 3 4, 0.5)", "[0,0.828427,1.464102,2]"),
    ]);
}

#[test]
fn random_is_seeded() {
    let a = run("setRandomSeed(42); rand(100, 5)");
    let b = run("setRandomSeed(42); rand(100, 5)");
    assert_eq!(a, b);
    check(&[
        ("setRandomSeed(1); x = rand(10, 1000); min(x) >= 0 && max(x) < 10", "true"),
        ("setRandomSeed(1); abs(avg(norm(0, 1, 20000))) < 0.05", "true"),
        ("setRandomSeed(1); abs(avg(randPoisson(50.0, 20000)) - 50) < 0.5", "true"),
        ("setRandomSeed(1); abs(avg(randBinomial(100, 0.3, 20000)) - 30) < 0.5", "true"),
        ("setRandomSeed(1); abs(avg(randGamma(2.0, 3.0, 20000)) - 6) < 0.2", "true"),
        ("setRandomSeed(1); x = rand(`a`b`c, 10); count(x)", "10"),
        ("setRandomSeed(1); count(rand(10, 2:3))", "6"),
        ("rand(0, 3)", "Error: The first argument of [rand] must be positive"),
    ]);
}

#[test]
fn linear_algebra() {
    check(&[
        ("det(1 2 3 4$2:2)", "-2"),
        ("inverse(1 2 3 4$2:2)", "#0 #1  \n-- ----\n-2 1.5 \n1  -0.5"),
        ("solve(1 2 3 4$2:2, 5 6)", "[-1,2]"),
        ("A = 2 5 8 7 5 2 2 8 7 5 6 6 5 4 4 8$4:4; P, L, U = lu(A); U", "#0 #1   #2   #3      \n-- ---- ---- --------\n8  2    6    4       \n0  6.25 0.75 4.5     \n0  0    4.96 0.76    \n0  0    0    0.782258"),
        ("B = 2 5 7 5 5 2 5 4 8 2 6 4$4:3; qr(B, \"r\")[0]", "[-10.148892,0,0,0]"),
        ("cholesky(4 2 2 3$2:2)", "#0 #1      \n-- --------\n2  0       \n1  1.414214"),
        ("svd(2 1 0 1 3 1 0 1 4 1 2 3$3:4, , false)", "[6.029042,3,1.284776]"),
        ("eig(1 1 2 7 9 3 5 7 0$3:3)[`values]", "[1.716868,10.17262,-1.889488]"),
        ("matrixRank(1 2 2 4$2:2)", "1"),
        ("diag(1..9$3:3)", "[1,5,9]"),
        ("gram(1 2 3 4$2:2)", "#0 #1\n-- --\n5  11\n11 25"),
    ]);
}
