//! Property tests of the SQL kernels against naive references on pseudo-random data.

use super::asof::{asof_rows, window_rows};
use super::join::{equi_pairs, shared_key_ids, EquiKind};
use super::keys::group_ids;
use super::order::{sort_perm, SortKey};
use crate::column::{ColData, Column, StrCol};
use crate::null::Native;
use crate::types::DataType;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
}

fn ints(r: &mut Rng, n: usize, range: u64, null_every: u64) -> Vec<i32> {
    (0..n).map(|_| if r.below(null_every) == 0 { i32::NULL } else { r.below(range) as i32 }).collect()
}

const CASES: usize = 60;

#[test]
fn group_ids_match_naive() {
    let mut r = Rng(0x9e3779b97f4a7c15);
    for case in 0..CASES {
        let n = r.below(200) as usize;
        let range = if case % 3 == 0 { 1 << 40 } else { 1 + r.below(20) as u64 };
        let a: Vec<i64> = (0..n).map(|_| if r.below(9) == 0 { i64::NULL } else { r.below(range) }).collect();
        let b: Vec<String> = (0..n).map(|_| format!("s{}", r.below(4))).collect();
        let ca = Column::from_vec(DataType::Long, a.clone());
        let cb = Column::new(DataType::String, ColData::Str(StrCol::from_iter(b.iter().map(|s| s.as_str()))));
        let g = group_ids(&[&ca, &cb]);
        // naive: id = index of the first row with the same pair
        let mut firsts: Vec<usize> = Vec::new();
        for k in 0..n {
            let f = (0..=k).find(|&j| a[j] == a[k] && b[j] == b[k]).unwrap_or(k);
            if f == k {
                firsts.push(k);
            }
            let id = firsts.iter().position(|&x| x == f).unwrap_or(usize::MAX);
            assert_eq!(g.gid[k] as usize, id, "case {case} row {k}");
        }
        assert_eq!(g.first, firsts);
    }
}

#[test]
fn equi_join_matches_nested_loops() {
    let mut r = Rng(12345);
    for case in 0..CASES {
        let (nl, nr) = (r.below(40) as usize, r.below(40) as usize);
        let range = 1 + r.below(10) as u64;
        let l = ints(&mut r, nl, range, 7);
        let rt = ints(&mut r, nr, range, 7);
        let (cl, cr) = (Column::from_vec(DataType::Int, l.clone()), Column::from_vec(DataType::Int, rt.clone()));
        let (li, ri, n) = shared_key_ids(&[&cl], &[&cr]).unwrap();
        for kind in [EquiKind::Inner, EquiKind::Left, EquiKind::LeftSemi, EquiKind::Full] {
            let got = equi_pairs(&li, &ri, n, kind, None, None);
            let (mut el, mut er) = (Vec::new(), Vec::new());
            let mut matched = vec![false; nr];
            for (a, &x) in l.iter().enumerate() {
                let m: Vec<usize> = (0..nr).filter(|&b| !x.is_null() && rt[b] == x).collect();
                match kind {
                    EquiKind::Inner => m.iter().for_each(|&b| {
                        el.push(a as i64);
                        er.push(b as i64)
                    }),
                    EquiKind::LeftSemi => {
                        el.push(a as i64);
                        er.push(m.first().map(|&b| b as i64).unwrap_or(-1));
                    }
                    _ => {
                        if m.is_empty() {
                            el.push(a as i64);
                            er.push(-1);
                        }
                        for &b in &m {
                            el.push(a as i64);
                            er.push(b as i64);
                            matched[b] = true;
                        }
                    }
                }
            }
            if kind == EquiKind::Full {
                for (b, &m) in matched.iter().enumerate() {
                    if !m {
                        el.push(-1);
                        er.push(b as i64);
                    }
                }
            }
            assert_eq!(got, (el, er), "case {case} {kind:?}");
        }
    }
}

#[test]
fn asof_and_windows_match_naive() {
    let mut r = Rng(777);
    for case in 0..CASES {
        let (nl, nr) = (1 + r.below(30) as usize, r.below(30) as usize);
        let lk: Vec<i32> = (0..nl).map(|_| r.below(3) as i32).collect();
        let rk: Vec<i32> = (0..nr).map(|_| r.below(3) as i32).collect();
        let lt: Vec<i64> = (0..nl).map(|_| if r.below(10) == 0 { i64::NULL } else { r.below(50) }).collect();
        let mut rt: Vec<i64> = (0..nr).map(|_| r.below(50)).collect();
        rt.sort();
        let (ckl, ckr) = (Column::from_vec(DataType::Int, lk.clone()), Column::from_vec(DataType::Int, rk.clone()));
        let (li, ri, n) = shared_key_ids(&[&ckl], &[&ckr]).unwrap();
        let (ctl, ctr) = (Column::from_vec(DataType::Long, lt.clone()), Column::from_vec(DataType::Long, rt.clone()));
        let got = asof_rows(&li, &ctl, &ri, &ctr, n).unwrap();
        for a in 0..nl {
            let want = if lt[a].is_null() {
                -1
            } else {
                (0..nr).filter(|&b| rk[b] == lk[a] && rt[b] <= lt[a]).last().map(|b| b as i64).unwrap_or(-1)
            };
            assert_eq!(got[a], want, "aj case {case} row {a}");
        }
        let (w1, w2) = (-(r.below(10)), r.below(5));
        for prevailing in [false, true] {
            let w = window_rows(&li, &lt, &ri, &rt, n, w1, w2, prevailing);
            for a in 0..nl {
                let (s, e) = w.ranges[a];
                let mut got: Vec<usize> = w.rows[s..e].to_vec();
                got.sort();
                let want: Vec<usize> = if lt[a].is_null() {
                    vec![]
                } else {
                    let (lo, hi) = (lt[a] + w1, lt[a] + w2);
                    let same: Vec<usize> = (0..nr).filter(|&b| rk[b] == lk[a]).collect();
                    let mut inside: Vec<usize> = same.iter().copied().filter(|&b| rt[b] >= lo && rt[b] <= hi).collect();
                    if prevailing {
                        // the window starts at the last row at or before t+w1 (only that one)
                        if let Some(&p) = same.iter().filter(|&&b| rt[b] <= lo).last() {
                            inside.retain(|&b| rt[b] > lo);
                            if rt[p] <= hi {
                                inside.insert(0, p);
                            }
                        }
                    }
                    inside.sort();
                    inside
                };
                assert_eq!(got, want, "window case {case} row {a} prevailing {prevailing}");
            }
        }
    }
}

#[test]
fn sort_is_stable_and_ordered() {
    let mut r = Rng(4242);
    for case in 0..CASES {
        let n = r.below(100) as usize;
        let a = ints(&mut r, n, 5, 6);
        let b: Vec<f64> = (0..n).map(|_| if r.below(8) == 0 { f64::NULL } else { r.below(7) as f64 / 2.0 }).collect();
        let (ca, cb) = (Column::from_vec(DataType::Int, a.clone()), Column::from_vec(DataType::Double, b.clone()));
        let asc = case % 2 == 0;
        let perm = sort_perm(&[SortKey { col: &ca, asc, nulls_first: None }, SortKey { col: &cb, asc: !asc, nulls_first: Some(false) }], n);
        let mut want: Vec<usize> = (0..n).collect();
        want.sort_by(|&x, &y| {
            let o1 = a[x].cmp(&a[y]);
            let o1 = if asc { o1 } else { o1.reverse() };
            let key = |v: f64| if v.is_null() { (1, 0.0) } else { (0, v) };
            let (p, q) = (key(b[x]), key(b[y]));
            let o2 = p.0.cmp(&q.0).then_with(|| {
                let o = p.1.partial_cmp(&q.1).unwrap_or(std::cmp::Ordering::Equal);
                if asc { o.reverse() } else { o }
            });
            o1.then(o2)
        });
        assert_eq!(perm, want, "case {case}");
    }
}

#[test]
fn top_n_equals_full_sort_prefix() {
    use super::order::sort_rows_top;
    let mut r = Rng(99);
    for case in 0..CASES {
        let n = 2 + r.below(300) as usize;
        let a = ints(&mut r, n, 6, 5);
        let b = ints(&mut r, n, 50, 9);
        let (ca, cb) = (Column::from_vec(DataType::Int, a), Column::from_vec(DataType::Int, b));
        let keys1 = [SortKey { col: &cb, asc: case % 2 == 0, nulls_first: None }];
        let keys2 = [SortKey { col: &ca, asc: true, nulls_first: Some(false) }, SortKey { col: &cb, asc: false, nulls_first: None }];
        for keys in [&keys1[..], &keys2[..]] {
            let full = sort_perm(keys, n);
            let k = r.below(n as u64 / 3 + 1) as usize;
            let mut rows: Vec<usize> = (0..n).collect();
            sort_rows_top(keys, &mut rows, k);
            assert_eq!(&rows[..k], &full[..k], "case {case} k {k}");
        }
    }
}

#[test]
fn streaming_top_n_equals_full_sort_prefix() {
    use super::order::sort_rows_top;
    let mut r = Rng(7);
    for case in 0..12 {
        let n = 5000 + r.below(20000) as usize;
        // few distinct values in `a` (ties decided by `b`), many in `b`, some nulls
        let a = ints(&mut r, n, 8, 5);
        let b = ints(&mut r, n, 100000, 9);
        let f: Vec<f64> = (0..n).map(|k| if k % 97 == 3 { f64::NULL } else { (r.below(1000) as f64) / 7.0 - 50.0 }).collect();
        let (ca, cb, cf) = (Column::from_vec(DataType::Int, a), Column::from_vec(DataType::Int, b), Column::from_vec(DataType::Double, f));
        let keys1 = [SortKey { col: &cb, asc: case % 2 == 0, nulls_first: None }];
        let keys2 = [SortKey { col: &ca, asc: true, nulls_first: Some(false) }, SortKey { col: &cb, asc: false, nulls_first: None }];
        let keys3 = [SortKey { col: &cf, asc: case % 3 == 0, nulls_first: None }, SortKey { col: &cb, asc: true, nulls_first: None }];
        let keys4 = [SortKey { col: &cf, asc: false, nulls_first: None }];
        for keys in [&keys1[..], &keys2[..], &keys3[..], &keys4[..]] {
            // a subset of the rows, not in order, as after a where clause
            let sel: Vec<usize> = (0..n).rev().filter(|k| k % 3 != 1).collect();
            let mut full = sel.clone();
            super::order::sort_rows(keys, &mut full);
            for k in [1usize, 5, 20, 100] {
                let mut rows = sel.clone();
                sort_rows_top(keys, &mut rows, k);
                assert_eq!(&rows[..k], &full[..k], "case {case} k {k}");
            }
        }
    }
}

#[test]
fn top_n_floats_desc() {
    use super::order::sort_rows_top;
    let c = Column::from_vec(DataType::Double, vec![5.0, 3.0, f64::NULL, 9.0, 1.0, 9.0, 2.0, 8.0, 7.0, 6.0]);
    let keys = [SortKey { col: &c, asc: false, nulls_first: None }];
    let mut rows: Vec<usize> = (0..10).collect();
    sort_rows_top(&keys, &mut rows, 3);
    assert_eq!(&rows[..3], &[3, 5, 7]);
}

#[test]
fn union_distinct_and_all() {
    use crate::table::Table;
    use crate::value::Value;
    let t = |ids: Vec<i32>, v: Vec<f64>, name: &str| {
        Value::table(Table::new(vec!["id".into(), name.into()], vec![Column::from_vec(DataType::Int, ids), Column::from_vec(DataType::Double, v)]).unwrap())
    };
    let a = t(vec![1, 2, 3, 3], vec![7.8, 4.6, 5.1, 0.1], "v1");
    let b = t(vec![5, 3, 3], vec![3.2, 5.1, 0.1], "v2");
    let ids = |v: &Value| match v {
        Value::Table(t) => (0..t.rows()).map(|r| t.cols[0].i64_at(r).unwrap_or(-1)).collect::<Vec<_>>(),
        _ => vec![],
    };
    let u = super::union(&a, &b, false).unwrap();
    assert_eq!(ids(&u), vec![1, 2, 3, 3, 5]);
    let ua = super::union(&a, &b, true).unwrap();
    assert_eq!(ids(&ua), vec![1, 2, 3, 3, 5, 3, 3]);
    if let Value::Table(t) = &u {
        assert_eq!(t.names, vec!["id".to_string(), "v1".to_string()]);
    }
}

#[test]
fn with_names_earlier_results() {
    use crate::table::Table;
    use crate::value::Value;
    use beluga_lang::ast::{ExprKind, StmtKind};
    let mut i = crate::Interpreter::new(crate::Registry::new());
    let t = Table::new(vec!["id".into()], vec![Column::from_vec(DataType::Int, vec![1, 2, 3, 4])]).unwrap();
    i.set_var("t1", Value::table(t)).unwrap();
    let src = "with tmp as (select * from t1 where id > 1), tmp2 as (select * from tmp where id < 4) exec id from tmp2";
    let stmts = i.parse(src).unwrap();
    let StmtKind::Expr(e) = &stmts[0].kind else { panic!("not an expression") };
    let ExprKind::With(ctes, body) = &e.kind else { panic!("not a with") };
    let r = super::with_queries(&mut i, ctes, body).unwrap();
    assert_eq!(crate::fmt::to_console(&r, &|_| String::new()), "[2,3]");
    assert!(i.col_scopes.is_empty());
}
