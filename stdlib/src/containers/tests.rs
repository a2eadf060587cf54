//! Tests of the data-manipulation families (containers*, order*, reshape*, table, hof*,
//! meta, system*): scripts run through the interpreter with exact printed output, plus
//! property tests of the sort, rank and grouping kernels against naive references.

#[cfg(test)]
mod tests {
    use crate::containers::group_ids;
    use crate::order::{argsort, argsort_multi};
    use beluga_runtime::column::Column;
    use beluga_runtime::null::Native;
    use beluga_runtime::DataType;

    fn session() -> beluga_runtime::Interpreter {
        let mut r = beluga_runtime::Registry::new();
        crate::register(&mut r);
        beluga_runtime::Interpreter::new(r)
    }

    fn run(src: &str) -> String {
        session().run_repl_text(src)
    }

    /// Each (script, expected output) pair runs in a fresh session.
    fn check(cases: &[(&str, &str)]) {
        for (src, want) in cases {
            let got = run(src);
            assert_eq!(got.trim_end(), want.trim_end(), "script: {src}");
        }
    }

    #[test]
    fn sorting() {
        check(&[
            ("sort(9 1 5)", "[1,5,9]"),
            ("sort(9 1 5, false)", "[9,5,1]"),
            ("sort(3 2 NULL 5)", "[,2,3,5]"),
            ("sort(3 2 NULL 5, false)", "[5,3,2,]"),
            ("x = 9 1 5; sort!(x); x", "[1,5,9]\n[1,5,9]"),
            ("sort(`b`c`a)", "[\"a\",\"b\",\"c\"]"),
            ("sort(2.5 NULL -1.0)", "[,-1,2.5]"),
            ("isort(4 1 3 2)", "[1,3,2,0]"),
            ("isort(4 1 3 2, false)", "[0,2,3,1]"),
            ("isort([2 2 1 1, 2 1 1 2])", "[2,3,1,0]"),
            ("isort([2 2 1 1, 2 1 1 2], [0,0])", "[0,1,3,2]"),
            ("isortTop(4 1 3 2 0, 2)", "[4,1]"),
            ("isSorted(NULL 1 2 3)", "true"),
            ("isSorted(1 5 2 4)", "false"),
            ("isSorted(9 7 5 3, false)", "true"),
        ]);
    }

    #[test]
    fn ranking() {
        check(&[
            ("rank(45 16 32 21)", "[3,0,2,1]"),
            ("rank(45 16 32 21, false)", "[0,3,1,2]"),
            ("rank(1 2 2 NULL 3)", "[0,1,1,,3]"),
            ("rank(1 2 2 NULL 3, ignoreNA=false)", "[1,2,2,0,4]"),
            ("rank(1 2 2 3, tiesMethod='max')", "[0,2,2,3]"),
            ("rank(1 2 2 3, tiesMethod='average')", "[0,1.5,1.5,3]"),
            ("rank(1 2 2 3, tiesMethod='first')", "[0,1,2,3]"),
            ("rank(1 2 3 4 5 6, groupNum=4)", "[0,0,1,1,2,3]"),
            ("denseRank(1 5 5 6 8 8 9)", "[0,1,1,2,3,3,4]"),
        ]);
    }

    #[test]
    fn searching() {
        check(&[
            ("binsrch(1..100, 12 6 88 102)", "[11,5,87,-1]"),
            ("asof(1..100, 60 200 -10)", "[59,99,-1]"),
            ("asof(0 0 0 1 1 1 1 2 2 3, 1)", "6"),
            ("find(7 3 3 5, 3)", "1"),
            ("find(7 3 3 5 6, 2 4 5)", "[-1,-1,3]"),
            ("find(table(1 3 5 7 9 as id), 2 3)", "[-1,1]"),
            ("lowerBound(1 3 5 7, 4 7 8)", "[2,3,4]"),
            ("searchK(4 1 NULL 3 2, 2)", "2"),
            ("bucket(9 23 54 36 46 12, 12:54, 2)", "[,0,,1,1,0]"),
            ("bucket(9 23 54 36 46 12, 12:54, 2, 1)", "[0,1,3,2,2,1]"),
            ("cutPoints(2 3 1 4, 2)", "[1,3,5]"),
            ("cutPoints(1 2 3 4, 2, 1 1 1 3)", "[1,4,5]"),
            ("digitize(-1 0 1 2 3 4 5 6, 1 3 5)", "[0,0,1,1,2,2,3,3]"),
            ("digitize(-1 0 1 2 3 4 5 6, 1 3 5, true)", "[0,0,0,1,1,2,2,3]"),
            ("firstHit(<, NULL 3.2 4.5 1.2 NULL 7.8 0.6 9.1, 2.5)", "1.2"),
            ("ifirstHit(>, NULL 3.2 4.5 1.2, 10.0)", "-1"),
        ]);
    }

    #[test]
    fn null_filling() {
        check(&[
            ("ffill(1 2 3 NULL NULL NULL 4 5 6)", "[1,2,3,3,3,3,4,5,6]"),
            ("ffill(1 2 3 NULL NULL NULL 4 5 6, 1)", "[1,2,3,3,,,4,5,6]"),
            ("bfill(1 2 3 NULL NULL NULL 4 5 6, 2)", "[1,2,3,,4,4,4,5,6]"),
            ("x = 1 NULL 3; bfill!(x); x", "[1,3,3]\n[1,3,3]"),
            ("lfill(NULL 1.5 NULL NULL 4.5)", "[,1.5,2.5,3.5,4.5]"),
            ("lfill(1 NULL NULL 6)", "[1,3,4,6]"),
            ("nullFill(1 NULL NULL 6 NULL 7, 0)", "[1,0,0,6,0,7]"),
            ("nullFill(1 NULL NULL 6 NULL 7, 1..6)", "[1,2,3,6,5,7]"),
            ("ifNull(1 2 NULL, 7 8 9)", "[7,8,]"),
            ("ifValid(1 2 NULL, 7 8 9)", "[1,2,9]"),
            ("ffill(`a``b``)", "[\"a\",\"a\",\"b\",\"b\",\"b\"]"),
            ("interpolate(1.0 NULL 3.0 NULL)", "[1,2,3,3]"),
        ]);
    }

    #[test]
    fn shifting() {
        check(&[
            ("deltas(7 4 5 8 9)", "[,-3,1,3,1]"),
            ("ratios(2 3 6)", "[,1.5,2]"),
            ("prev(3 9 5)", "[,3,9]"),
            ("next(1..3)", "[2,3,]"),
            ("move(3 9 5 1 4 9, 3)", "[,,,3,9,5]"),
            ("move(3 9 5 1 4 9, -2)", "[5,1,4,9,,]"),
            ("prevState(1 1 2 2 3)", "[,,1,1,2]"),
            ("nextState(1 1 2 2 3)", "[2,2,3,3,]"),
            ("valueChanged(1 2 3 3, \"both\")", "[false,true,false,false]"),
            ("segment(1 1 2 4 4 5 2 5 NULL NULL)", "[0,0,2,3,3,5,6,7,8,8]"),
            ("segment(1 1 2 4 4 5 2 5 NULL NULL, false)", "[0,0,1,2,2,3,4,5,6,6]"),
            ("topRange([13.5, 13.6, 13.4, 13.3, 13.5, 13.9, 13.1, 20.1, 20.2, 20.3])", "[0,1,0,0,2,5,0,7,8,9]"),
            ("lowRange([13.5, 13.6, 13.4, 13.3, 13.5, 13.9, 13.1, 20.1, 20.2, 20.3])", "[0,0,2,3,0,0,6,0,0,0]"),
            ("maxPositiveStreak(1 0 -1 1 2 2 2 1 0 -1 0 2)", "8"),
            ("replace(1 1 3, 1, 2)", "[2,2,3]"),
            ("winsorize(1..10, 0.1)", "[2,2,3,4,5,6,7,8,9,9]"),
            ("winsorize(1..10, 0.12 0.17, false)", "[2,2,3,4,5,6,7,8,8,8]"),
            ("stretch(1 NULL 2 3, 11)", "[1,1,1,,,,2,2,2,3,3]"),
            ("tmove(1 1 1 2 5 6, 1 4 NULL -1 NULL 4, 3)", "[,,,,-1,-1]"),
            ("bar(0..7, 3)", "[0,0,0,3,3,3,6,6]"),
            ("bar(13:30:10 13:31:59, 1m)", "[13:30:00,13:31:00]"),
            ("bar(2020.05.15, 3M)", "2020.04.01"),
            ("bar(1 3 4, 3, 'right')", "[3,3,6]"),
            ("sessionWindow(1 2 3 10 11 30, 5)", "[1,1,1,10,10,30]"),
        ]);
    }

    #[test]
    fn containers() {
        check(&[
            ("x = 1 2 3; pop!(x); x", "3\n[1,2]"),
            ("y = 11..20; y.removeHead!(3); y", "[14,15,16,17,18,19,20]\n[14,15,16,17,18,19,20]"),
            ("y = 11..15; y.removeTail!(2); y", "[11,12,13]\n[11,12,13]"),
            ("y = 11..15; y = remove!(y, 0 2); y", "[12,14,15]"),
            ("z = dict(1..6, 11..16); z = erase!(z, 1..4); size(z)", "2"),
            ("s = set(1 2 3); s = erase!(s, 2); size(s)", "2"),
            ("t = table(1..5 as x); t = erase!(t, <x <= 3>); t.x", "[4,5]"),
            ("isDuplicated([1,3,1,-6,NULL,2,NULL,1])", "[false,false,true,false,false,false,true,true]"),
            ("isDuplicated([1,3,1,NULL,NULL,1], 2)", "[true,false,true,true,true,true]"),
            ("groups(1 2 1, \"vector\")", "([0,2],[1])"),
            ("cut(1..10, 3)", "([1,2,3],[4,5,6],[7,8,9],[10])"),
            ("cut(1..10, 2 7)", "([3,4,5,6,7],[8,9,10])"),
            ("flatten([1, [2,3]])", "[1,2,3]"),
            ("head(1..10)", "1"),
            ("tail(1..10, 2)", "[9,10]"),
            ("drop(1..5, -2)", "[1,2,3]"),
            ("subarray(1..100, 95:)", "[96,97,98,99,100]"),
            ("at(7 3 3 5 == 3)", "[1,2]"),
            ("dropna(1 NULL 2 NULL)", "[1,2]"),
            ("ifirstNot(NULL NULL 3)", "2"),
            ("imaxLast(1 3 2 3 NULL)", "3"),
            ("size(union(set(1 2), set(2 3)))", "3"),
            ("x = dict(1 2 3, 1 1 1); x = dictUpdate!(x, add, 2 3, 1 2); x[3]", "3"),
            ("coevent(`A`B`A, 1 2 10, 2)", "event1 event2 hits\n------ ------ ----\nA      B      1"),
        ]);
    }

    #[test]
    fn tables() {
        check(&[
            ("t = table(1 2 as x, 3 4 as y); columnNames(t)", "[\"x\",\"y\"]"),
            ("t = table(1 2 as x, 3 4 as y); t = dropColumns!(t, `x); columnNames(t)", "[\"y\"]"),
            ("t = table(1 2 as x, 3 4 as y); t = rename!(t, `x, `a); columnNames(t)", "[\"a\",\"y\"]"),
            ("t = table(1 2 as a, 3 4 as b, 5 6 as c); t = reorderColumns!(t, `c`a); columnNames(t)", "[\"c\",\"a\",\"b\"]"),
            ("t = table(3 1 2 as x); t = sortBy!(t, `x); t.x", "[1,2,3]"),
            ("t = table(3 1 2 as x); t = sortBy!(t, `x, false); t.x", "[3,2,1]"),
            ("unionAll(table(1 2 as x), table(3 4 as x)).x", "[1,2,3,4]"),
            ("kt = keyedTable(`k, table(1 2 1 as k, 10 20 30 as v)); kt.v", "[30,20]"),
            (
                "kt = keyedTable(`k, table(1 2 as k, 10 20 as v)); kt = upsert!(kt, table(2 3 as k, 200 300 as v)); kt.v",
                "[10,200,300]",
            ),
            (
                "kt = keyedTable(`k, table(1 2 as k, 10 20 as v)); kt = upsert!(kt, table(2 as k, int(NULL) as v), ignoreNull=true); kt.v",
                "[10,20]",
            ),
            ("kt = keyedTable(`k, table(1 2 as k, 10 20 as v)); sliceByKey(kt, 2).v", "[20]"),
        ]);
    }

    #[test]
    fn higher_order() {
        check(&[
            ("contextby(sum, 1 2 3 4, `a`b`a`b)", "[4,6,4,6]"),
            ("contextby(cumsum, 1 2 3 4, `a`b`a`b)", "[1,2,4,6]"),
            ("contextby(cumsum, 1 2 3 4, `a`a`a`a, 4 3 2 1)", "[10,9,7,4]"),
            ("segmentby(cumsum, 1 2 3 0 3 2 1 4 5, 1 1 1 -1 -1 -1 1 1 1)", "[1,3,6,0,3,5,1,5,10]"),
            ("window(min, 5 4 NULL -1 2 4, 1:3)", "[-1,-1,-1,2,4,]"),
            ("moving(def(x): sum(x), 2 1 3 7 6 5 4, 3)", "[,,6,11,16,18,15]"),
            ("rolling(def(x): sum(x), 1..6, 3, 2)", "[6,12]"),
            ("withNullFill(add, 0 1 NULL NULL 2, 1 NULL 2 NULL 3, 0)", "[1,1,2,,5]"),
            ("byRow(def(x): max(x), matrix(1 3 4 2, 1 2 2 1))", "[1,3,4,2]"),
            ("nullCompare(eq, 1 NULL 3, 1 2 NULL)", "[true,,]"),
            ("f = compose(sum, sqrt); f(1 2 6)", "3"),
            ("aggrTopN(sum, 1 2 3 4 5, 5 4 3 2 1, 2)", "9"),
            ("tmoving(def(x): sum(x), 1 1 1 2 5 6, 1 4 2 -1 2 4, 3)", "[1,5,7,6,2,6]"),
            (
                "t = 2021.01.02 2021.01.02 2021.01.06 2021.03.09 2021.03.10 2021.03.12 2021.03.12; x = -5 5 NULL -1 2 4 -8; twindow(min, x, t, 0:3, true)",
                "[5,5,,-8,-8,-8,-8]",
            ),
            ("movingValid(def(x): sum(x), 1 NULL 2 3, 2)", "[,,3,5]"),
            ("nothrowCall(def(x){ throw \"bad\" }, 1)", ""),
        ]);
    }

    #[test]
    fn metaprogramming() {
        check(&[
            ("eval(expr(6, <, 8))", "true"),
            ("expr(6, <, 8)", "< 6 < 8 >"),
            ("a = 6; b = 9; eval(expr(<a>, +, <b>))", "15"),
            ("c = parseExpr(\"1+2\"); typestr(c); c.eval()", "CODE\n3"),
            ("a = 1; eval(parseExpr(\"a + x\", dict(`x, [100])))", "101"),
            ("binaryExpr(1 2.2 3, 1 2 3, *).eval()", "[1,4.4,9]"),
            ("eval(makeCall(sum, 1 2 3))", "6"),
            ("unifiedExpr((1, 2, 3), (add, mul)).eval()", "9"),
            ("sqlCol(`a`b)", "(< a >,< b >)"),
            ("syntax(isort)", "isort(X, [ascending])"),
        ]);
    }

    #[test]
    fn system() {
        check(&[
            ("x = 5; defined(`x`nope)", "[true,false]"),
            ("x = 5; undef(`x); defined(`x)", "false"),
            ("f = partial(add, 1); f(2)", "3"),
            ("memSize(1..10)", "40"),
            ("getOSBit()", "64"),
        ]);
    }

    // ---------------------------------------------------------------- property tests

    /// Deterministic pseudo-random integers with nulls.
    fn sample(n: usize, seed: u64, range: i32) -> Vec<i32> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x % 11 == 0 { i32::NULL } else { (x % range as u64) as i32 - range / 2 }
            })
            .collect()
    }

    #[test]
    fn argsort_matches_stable_reference() {
        for seed in 1..40u64 {
            let v = sample(200, seed, 20);
            let c = Column::from_vec(DataType::Int, v.clone());
            for asc in [true, false] {
                let got = argsort(&c, asc);
                let mut want: Vec<usize> = (0..v.len()).collect();
                // nulls are the smallest values; stable in both directions
                let key = |i: usize| if v[i].is_null() { i64::MIN } else { v[i] as i64 };
                if asc {
                    want.sort_by_key(|&i| key(i));
                } else {
                    want.sort_by(|&a, &b| key(b).cmp(&key(a)));
                }
                assert_eq!(got, want, "seed {seed} asc {asc}");
            }
        }
    }

    #[test]
    fn multi_key_sort_matches_reference() {
        for seed in 1..20u64 {
            let a = sample(150, seed, 5);
            let b = sample(150, seed * 7 + 3, 5);
            let cols = [Column::from_vec(DataType::Int, a.clone()), Column::from_vec(DataType::Int, b.clone())];
            let got = argsort_multi(&cols, &[false, true]).unwrap();
            let mut want: Vec<usize> = (0..a.len()).collect();
            let k = |v: &[i32], i: usize| if v[i].is_null() { i64::MIN } else { v[i] as i64 };
            want.sort_by(|&x, &y| k(&a, y).cmp(&k(&a, x)).then(k(&b, x).cmp(&k(&b, y))));
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn rank_matches_naive_min_ties() {
        let mut s = session();
        for seed in 1..10u64 {
            let v = sample(60, seed, 8);
            let text: Vec<String> = v.iter().map(|x| if x.is_null() { "NULL".into() } else { x.to_string() }).collect();
            let got = s.run_repl_text(&format!("rank([{}])", text.join(",")));
            let want: Vec<String> = v
                .iter()
                .map(|&x| {
                    if x.is_null() {
                        String::new()
                    } else {
                        v.iter().filter(|&&y| !y.is_null() && y < x).count().to_string()
                    }
                })
                .collect();
            assert_eq!(got.trim(), format!("[{}]", want.join(",")), "seed {seed}");
        }
    }

    #[test]
    fn group_ids_match_first_appearance() {
        for seed in 1..20u64 {
            let v = sample(300, seed, 15);
            let (ids, g, firsts) = group_ids(&[Column::from_vec(DataType::Int, v.clone())]).unwrap();
            let mut seen: Vec<i32> = Vec::new();
            for (r, &x) in v.iter().enumerate() {
                let id = match seen.iter().position(|&y| y == x) {
                    Some(p) => p,
                    None => {
                        seen.push(x);
                        seen.len() - 1
                    }
                };
                assert_eq!(ids[r] as usize, id);
            }
            assert_eq!(g, seen.len());
            assert_eq!(firsts.len(), g);
        }
    }

    #[test]
    fn empty_and_all_null_inputs() {
        check(&[
            ("sort(array(INT, 0))", "[]"),
            ("rank(array(INT, 0))", "[]"),
            ("ffill(array(INT, 0))", "[]"),
            ("isort(00i 00i)", "[0,1]"),
            ("rank(00i 00i)", "[,]"),
            ("deltas(00i 00i)", "[,]"),
            ("segment(00i 00i)", "[0,0]"),
            ("cutPoints(00i 00i, 1)", "The X argument of [cutPoints] has no valid elements"),
        ]);
    }
}
