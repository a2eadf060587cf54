//! Script tests of the row-wise functions (expected outputs from DolphinDB's documentation).

use crate::window_tests::check;

#[test]
fn reductions() {
    check("rowSum([1,2,3], [[3,4,5],[4,5,6]], table(7 8 9 as id, 8 9 10 as code))", "[23,28,33]");
    check("m = matrix([4.5 2.6 1.5, 1.5 4.8 5.9, 4.9 2.0 NULL])\nrowSum(m)\nrowAvg(m)\nrowCount(m)\nrowSize(m)", "[10.9,9.4,7.4]\n[3.633333,3.133333,3.7]\n[3,3,2]\n[3,3,3]");
    check("m = matrix([4.5 2.6 1.5, 1.5 4.8 5.9, 4.9 2.0 NULL])\nrowStd(m)\nrowVar(m)\nrowSum2(m)\nrowProd(m)", "[1.858315,1.474223,3.11127]\n[3.453333,2.173333,9.68]\n[46.51,33.8,37.06]\n[33.075,24.96,8.85]");
    check("typestr(rowSum(1 2, 3 4))\ntypestr(rowSum(1 2, 3.0 4))\ntypestr(rowProd(1 2, 3 4))", "FAST LONG VECTOR\nFAST DOUBLE VECTOR\nFAST LONG VECTOR");
    check("rowMax(1 2 3, 3 2 1)\nrowMin(2021.01.01 2021.01.05, 2021.01.03 2021.01.02)", "[3,2,3]\n[2021.01.01,2021.01.02]");
    check("m=matrix([4.5 2.6 1.5 3.2, 1.5 4.8 5.9 1.7, 4.9 2.0 NULL 5.5])\nrowImax(m)\nrowImin(m)", "[2,1,1,2]\n[1,2,0,1]");
    check("rowAnd(true false, true true)\nrowOr(false false, true false)\nrowXor(true true, true false, true false)", "[true,false]\n[true,false]\n[true,true]");
    check("rowSkew(matrix(1 2 3, 4 5 9, 7 8 1))\nrowCount(`a`b, [\"x\", \"\"])", "[0,0,0.528005]\n[2,1]");
}

#[test]
fn binary() {
    check(
        "m1=matrix([4.5 2.6 1.5, 1.5 4.8 5.9, 4.9 2.0 NULL])\nm2=matrix(49.6 NULL 29.52, 50.32 51.29 26.23, NULL 74.97 23.75)\nrowBeta(m1, m2)",
        "[-4.166667,-0.118243,-1.337386]",
    );
    check("rowTanimoto(3.6 5.2 6.3, 8.6 4.8 5.5)\nrowDot(13.5 15.2 6.3, 18.6 14.8 15.5)", "[0.446748,0.006369,0.018135]\n[251.1,224.96,97.65]");
    check("m=matrix(23 56 47, 112 94 59)\nm1=matrix(11 15 89, 52 41 63)\nrowTanimoto(m,m1)\nrowDot(m, m1)", "[0.381224,0.488894,0.183884]\n[6077,4694,7900]");
    check("m1=matrix(2 -1 4, 8 3 2, 9 0 1)\nm2=matrix(8 11 10, 8 17 4, 14 6 4)\nrowWavg(m1, m2)\nrowWsum(m1, m2)", "[6.866667,1.176471,2.888889]\n[206,40,52]");
    check("rowEuclidean(1 2, matrix(1 4, 2 6))", "[0,5]");
    check("rowCorr(1 2, 1 2 3)", "Error: The arguments of [rowCorr] must have the same number of rows");
}

#[test]
fn shaped() {
    check("m1=matrix(2 -1 4, 8 3 2, 9 0 1)\nm2=matrix(8 11 10, 8 17 4, 14 6 4)\nrowCumwsum(m1, m2)", "#0  #1 #2\n--- -- ---\n16  80 206\n-11 40 40\n40  48 52");
    check("rowCumsum(matrix(2 -1 4, 8 3 2, 9 0 1))", "#0 #1 #2\n-- -- --\n2  10 19\n-1 2  2\n4  6  7");
    check("rowMove(matrix([4.5 2.6 1.5, 1.5 4.8 5.9, 4.9 2.0 NULL]), -2)", "#0  #1 #2\n--- -- --\n4.9\n2\n");
    check("rowPrev((1 2 3, 4 5 6))\nrowNext((1 2 3, 4 5 6))", "([,,],[1,2,3])\n([4,5,6],[,,])");
    check("m=matrix(3 1 2 4 7 6 9 8 5, 9 NULL 2 3 5 6 3 2 8).transpose()\nrowRank(m, groupNum=3)", "#0 #1 #2 #3 #4 #5 #6 #7 #8\n-- -- -- -- -- -- -- -- --\n0  0  0  1  2  1  2  2  1\n2     0  0  1  1  0  0  2");
    check("rowDenseRank(matrix(1 3 3, 6 5 6, NULL 0 9), ignoreNA=false)", "#0 #1 #2\n-- -- --\n1  2  0\n1  2  0\n0  1  2");
    check("m = matrix(3.1 4.5 2.2, 4.2 4.3 5.1, 6.2 7.1 2.2, 1.8 6.1 5.3, 7.1 8.4 3.5)\nrowAt(m, 4 0 2)\nrowAt(m, m>6)", "[7.1,4.5,2.2]\n[[6.2,7.1],[7.1,6.1,8.4],[]]");
    check("rowAt(matrix(true false false, false true false, true true false))", "[[0,2],[1,2],[]]");
}

#[test]
fn columnar_tuples() {
    check(
        "rowGmd5((1 2 3, 4 5, 6 7 8, 9 10))",
        "[2a1dd1e1e59d0a384c26951e316cd7e6,678157bbe4fd35371e047b4cadf9c46a,ff93cd8c0033f2ab93726d48661d1221,10986ac9310ecb2f10c3a5524eb38999]",
    );
    check(
        "rowAlign((9.00 8.98 8.97 8.96 8.95, 8.99 8.97 8.95 8.93 8.91), (NULL, 9.00 8.98 8.97 8.96 8.95), \"bid\")",
        "(([0,1,2,3,4],[-1,0,-1,1,-1,2]),([-1,-1,-1,-1,-1],[0,-1,1,2,3,4]))",
    );
}
