//! Property tests: every window family against a naive O(n·w) reference, on a few hundred
//! deterministic random cases with nulls (a small xorshift generator; proptest is not a
//! dependency).

use crate::window::{run, PrepFn};
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Value};

/// xorshift64*.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// Small integers (many ties) or doubles, with about `null_pct`% nulls.
    pub fn values(&mut self, n: usize, null_pct: u64, ints: bool) -> Vec<f64> {
        (0..n)
            .map(|_| {
                if self.below(100) < null_pct {
                    f64::NAN
                } else if ints {
                    self.below(11) as f64 - 5.0
                } else {
                    (self.below(20001) as f64 - 10000.0) / 100.0
                }
            })
            .collect()
    }
}

pub fn int_col(v: &[f64]) -> Value {
    Value::Vector(Column::from_vec(DataType::Int, v.iter().map(|&x| if x.is_nan() { i32::NULL } else { x as i32 }).collect::<Vec<i32>>()))
}
pub fn dbl_col(v: &[f64]) -> Value {
    Value::Vector(Column::from_vec(DataType::Double, v.iter().map(|&x| if x.is_nan() { f64::NULL } else { x }).collect::<Vec<f64>>()))
}
pub fn int(v: i64) -> Value {
    Value::long(v)
}

/// Run a prep function and read the result as f64 (NaN = null).
pub fn eval(f: PrepFn, args: &[Value]) -> Vec<f64> {
    match run(f(args).expect("prep")).expect("run") {
        Value::Vector(c) => (0..c.len()).map(|i| c.f64_at(i).unwrap_or(f64::NAN)).collect(),
        other => panic!("unexpected {other:?}"),
    }
}

pub fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-6 * (1.0 + a.abs().max(b.abs()))
}

pub fn assert_close(what: &str, got: &[f64], want: &[f64], input: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for i in 0..got.len() {
        assert!(close(got[i], want[i]), "{what}: row {i}: got {} want {}\ninput {:?}\ngot  {:?}\nwant {:?}", got[i], want[i], input, got, want);
    }
}

// ---- naive references over a window's non-null values

pub fn nn(w: &[f64]) -> Vec<f64> {
    w.iter().copied().filter(|x| !x.is_nan()).collect()
}
pub fn sum(w: &[f64]) -> f64 {
    let v = nn(w);
    if v.is_empty() { f64::NAN } else { v.iter().sum() }
}
pub fn avg(w: &[f64]) -> f64 {
    let v = nn(w);
    if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }
}
pub fn var(w: &[f64], pop: bool) -> f64 {
    let v = nn(w);
    let n = v.len() as f64;
    if v.is_empty() || (!pop && v.len() < 2) {
        return f64::NAN;
    }
    let m = v.iter().sum::<f64>() / n;
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / if pop { n } else { n - 1.0 }
}
pub fn central(v: &[f64], k: i32) -> f64 {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    v.iter().map(|x| (x - m).powi(k)).sum::<f64>() / n
}
pub fn skew(w: &[f64]) -> f64 {
    let v = nn(w);
    if v.is_empty() {
        return f64::NAN;
    }
    let m2 = central(&v, 2);
    if m2 <= 1e-12 { f64::NAN } else { central(&v, 3) / m2.powf(1.5) }
}
pub fn kurt(w: &[f64]) -> f64 {
    let v = nn(w);
    if v.len() < 3 {
        return f64::NAN;
    }
    let m2 = central(&v, 2);
    if m2 <= 1e-12 { f64::NAN } else { central(&v, 4) / (m2 * m2) }
}
pub fn sorted(w: &[f64]) -> Vec<f64> {
    let mut v = nn(w);
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}
pub fn med(w: &[f64]) -> f64 {
    let v = sorted(w);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
pub fn pct_linear(w: &[f64], p: f64) -> f64 {
    let v = sorted(w);
    if v.is_empty() {
        return f64::NAN;
    }
    let pos = (v.len() - 1) as f64 * p / 100.0;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Reference rolling over count windows with DolphinDB's m-function gating.
pub fn naive_m(v: &[f64], w: usize, min_periods: Option<usize>, f: impl Fn(&[f64]) -> f64) -> Vec<f64> {
    (0..v.len())
        .map(|i| {
            let s = (i + 1).saturating_sub(w);
            let win = &v[s..=i];
            let cnt = win.iter().filter(|x| !x.is_nan()).count();
            let open = match min_periods {
                None => i + 1 >= w,
                Some(p) => cnt >= p,
            };
            if open { f(win) } else { f64::NAN }
        })
        .collect()
}

/// Reference rolling over time windows (t - w, t].
pub fn naive_tm(t: &[i64], v: &[f64], w: i64, f: impl Fn(&[f64]) -> f64) -> Vec<f64> {
    (0..v.len())
        .map(|i| {
            let s = (0..=i).find(|&j| t[j] > t[i] - w).unwrap_or(i);
            f(&v[s..=i])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cum;
    use crate::tm;
    use crate::topn;
    use crate::window_fns as wf;

    type Ref = fn(&[f64]) -> f64;

    const CASES: u64 = 300;

    #[test]
    fn moving_unary_matches_naive() {
        let fams: &[(&str, PrepFn, Ref)] = &[
            ("msum", wf::p_msum, sum),
            ("mavg", wf::p_mavg, avg),
            ("mvar", wf::p_mvar, |w| var(w, false)),
            ("mvarp", wf::p_mvarp, |w| var(w, true)),
            ("mstd", wf::p_mstd, |w| var(w, false).sqrt()),
            ("mstdp", wf::p_mstdp, |w| var(w, true).sqrt()),
            ("msum2", wf::p_msum2, |w| if nn(w).is_empty() { f64::NAN } else { nn(w).iter().map(|x| x * x).sum() }),
            ("mmax", wf::p_mmax, |w| sorted(w).last().copied().unwrap_or(f64::NAN)),
            ("mmin", wf::p_mmin, |w| sorted(w).first().copied().unwrap_or(f64::NAN)),
            ("mmed", wf::p_mmed, med),
            ("mskew", wf::p_mskew, skew),
            ("mkurtosis", wf::p_mkurtosis, kurt),
            ("mprod", wf::p_mprod, |w| if nn(w).is_empty() { f64::NAN } else { nn(w).iter().product() }),
            ("mfirst", wf::p_mfirst, |w| w[0]),
            ("mlast", wf::p_mlast, |w| w[w.len() - 1]),
            ("mfirstNot", wf::p_mfirst_not, |w| nn(w).first().copied().unwrap_or(f64::NAN)),
            ("mlastNot", wf::p_mlast_not, |w| nn(w).last().copied().unwrap_or(f64::NAN)),
            ("mimax", wf::p_mimax, |w| {
                let m = sorted(w).last().copied();
                m.and_then(|m| w.iter().position(|&x| x == m)).map(|p| p as f64).unwrap_or(f64::NAN)
            }),
            ("mimin", wf::p_mimin, |w| {
                let m = sorted(w).first().copied();
                m.and_then(|m| w.iter().position(|&x| x == m)).map(|p| p as f64).unwrap_or(f64::NAN)
            }),
            ("mmad", wf::p_mmad, |w| {
                let v = nn(w);
                if v.is_empty() {
                    return f64::NAN;
                }
                let m = avg(w);
                v.iter().map(|x| (x - m).abs()).sum::<f64>() / v.len() as f64
            }),
        ];
        let mut rng = Rng::new(7);
        for case in 0..CASES {
            let n = rng.below(40) as usize;
            let w = 1 + rng.below(8) as usize;
            let mp = if rng.below(2) == 0 { None } else { Some(1 + rng.below(w as u64) as usize) };
            let ints = case % 2 == 0;
            let v = rng.values(n, 25, ints);
            let x = if ints { int_col(&v) } else { dbl_col(&v) };
            for (name, f, r) in fams {
                if *name == "mprod" && !ints {
                    continue;
                }
                let mut args = vec![x.clone(), int(w as i64)];
                if mp.is_some() && matches!(*name, "mskew" | "mkurtosis" | "mmad") {
                    args.push(Value::Void);
                }
                if let Some(p) = mp {
                    args.push(int(p as i64));
                }
                let got = eval(*f, &args);
                let want = naive_m(&v, w, mp, r);
                assert_close(&format!("{name} w={w} mp={mp:?}"), &got, &want, &v);
            }
        }
    }

    #[test]
    fn mmed_abs_deviation_and_percentile_match_naive() {
        let mut rng = Rng::new(11);
        for case in 0..CASES {
            let n = rng.below(40) as usize;
            let w = 1 + rng.below(9) as usize;
            let v = rng.values(n, 20, case % 3 != 0);
            let x = dbl_col(&v);
            let got = eval(wf::p_mmad, &[x.clone(), int(w as i64), Value::bool(true)]);
            let want = naive_m(&v, w, None, |win| {
                let m = med(win);
                let d: Vec<f64> = nn(win).iter().map(|x| (x - m).abs()).collect();
                med(&d)
            });
            assert_close("mmad(useMedian)", &got, &want, &v);
            let p = rng.below(101) as f64;
            let got = eval(wf::p_mpercentile, &[x.clone(), Value::double(p), int(w as i64)]);
            let want = naive_m(&v, w, None, |win| pct_linear(win, p));
            assert_close(&format!("mpercentile p={p}"), &got, &want, &v);
        }
    }

    #[test]
    fn mrank_matches_naive() {
        let mut rng = Rng::new(13);
        for _ in 0..CASES {
            let n = rng.below(30) as usize;
            let w = 1 + rng.below(6) as usize;
            let v = rng.values(n, 20, true);
            let asc = rng.below(2) == 0;
            let ignore_na = rng.below(2) == 0;
            let got = eval(wf::p_mrank, &[int_col(&v), Value::bool(asc), int(w as i64), Value::bool(ignore_na)]);
            let want = naive_m(&v, w, None, |win| {
                let cur = win[win.len() - 1];
                if cur.is_nan() && ignore_na {
                    return f64::NAN;
                }
                // nulls are the minimum when they take part
                let key = |x: f64| if x.is_nan() { f64::NEG_INFINITY } else { x };
                let pool: Vec<f64> = win.iter().copied().filter(|x| !ignore_na || !x.is_nan()).map(key).collect();
                let c = key(cur);
                pool.iter().filter(|&&x| if asc { x < c } else { x > c }).count() as f64
            });
            assert_close(&format!("mrank asc={asc} ignoreNA={ignore_na}"), &got, &want, &v);
        }
    }

    #[test]
    fn moving_pairs_match_naive() {
        let mut rng = Rng::new(17);
        for _ in 0..CASES {
            let n = rng.below(30) as usize;
            let w = 2 + rng.below(6) as usize;
            let x = rng.values(n, 20, false);
            let y = rng.values(n, 20, false);
            let pairs = |s: usize, e: usize| -> Vec<(f64, f64)> { (s..e).filter(|&i| !x[i].is_nan() && !y[i].is_nan()).map(|i| (x[i], y[i])).collect() };
            let stat = |kind: &str, p: &[(f64, f64)]| -> f64 {
                let n = p.len() as f64;
                if p.is_empty() {
                    return f64::NAN;
                }
                let mx = p.iter().map(|a| a.0).sum::<f64>() / n;
                let my = p.iter().map(|a| a.1).sum::<f64>() / n;
                let cxy: f64 = p.iter().map(|a| (a.0 - mx) * (a.1 - my)).sum();
                let cxx: f64 = p.iter().map(|a| (a.0 - mx).powi(2)).sum();
                let cyy: f64 = p.iter().map(|a| (a.1 - my).powi(2)).sum();
                match kind {
                    "covar" => if p.len() < 2 { f64::NAN } else { cxy / (n - 1.0) },
                    "corr" => if p.len() < 2 || cxx * cyy == 0.0 { f64::NAN } else { cxy / (cxx * cyy).sqrt() },
                    "beta" => if cyy == 0.0 { f64::NAN } else { cxy / cyy },
                    "wsum" => p.iter().map(|a| a.0 * a.1).sum(),
                    _ => unreachable!(),
                }
            };
            for (kind, f) in [("covar", wf::p_mcovar as PrepFn), ("corr", wf::p_mcorr), ("beta", wf::p_mbeta), ("wsum", wf::p_mwsum)] {
                let got = eval(f, &[dbl_col(&x), dbl_col(&y), int(w as i64)]);
                let want: Vec<f64> = (0..n).map(|i| if i + 1 < w { f64::NAN } else { stat(kind, &pairs(i + 1 - w, i + 1)) }).collect();
                assert_close(&format!("m{kind} w={w}"), &got, &want, &x);
            }
        }
    }

    #[test]
    fn ranges_and_streaks_match_naive() {
        let mut rng = Rng::new(19);
        for _ in 0..CASES {
            let n = rng.below(30) as usize;
            let w = 2 + rng.below(6) as usize;
            let v = rng.values(n, 20, true);
            let lt = |a: f64, b: f64| match (a.is_nan(), b.is_nan()) {
                (true, true) => false,
                (true, false) => true,
                (false, true) => false,
                _ => a < b,
            };
            let count_run = |win: &[f64], top: bool| -> f64 {
                let cur = win[win.len() - 1];
                let mut k = 0;
                for &p in win[..win.len() - 1].iter().rev() {
                    if (top && lt(p, cur)) || (!top && lt(cur, p)) {
                        k += 1;
                    } else {
                        break;
                    }
                }
                k as f64
            };
            let got = eval(wf::p_mtop_range, &[int_col(&v), int(w as i64)]);
            assert_close("mTopRange", &got, &naive_m(&v, w, None, |win| count_run(win, true)), &v);
            let got = eval(wf::p_mlow_range, &[int_col(&v), int(w as i64)]);
            assert_close("mLowRange", &got, &naive_m(&v, w, None, |win| count_run(win, false)), &v);
            let got = eval(crate::window_misc::p_mmax_positive_streak, &[int_col(&v), int(w as i64)]);
            let want = naive_m(&v, w, None, |win| {
                let (mut best, mut run) = (0.0f64, 0.0);
                for &x in win {
                    run = if !x.is_nan() && x > 0.0 { run + x } else { 0.0 };
                    best = best.max(run);
                }
                best
            });
            assert_close("mmaxPositiveStreak", &got, &want, &v);
        }
    }

    #[test]
    fn time_windows_match_naive() {
        let mut rng = Rng::new(23);
        for _ in 0..CASES {
            let n = rng.below(30) as usize;
            let mut t = Vec::with_capacity(n);
            let mut cur = rng.below(5) as i64;
            for _ in 0..n {
                cur += rng.below(3) as i64;
                t.push(cur);
            }
            let w = 1 + rng.below(6) as i64;
            let v = rng.values(n, 20, false);
            let tc = Value::Vector(Column::from_vec(DataType::Long, t.clone()));
            let x = dbl_col(&v);
            let fams: &[(&str, PrepFn, Ref)] = &[
                ("tmsum", tm::p_tmsum, sum),
                ("tmavg", tm::p_tmavg, avg),
                ("tmvar", tm::p_tmvar, |w| var(w, false)),
                ("tmmax", tm::p_tmmax, |w| sorted(w).last().copied().unwrap_or(f64::NAN)),
                ("tmmin", tm::p_tmmin, |w| sorted(w).first().copied().unwrap_or(f64::NAN)),
                ("tmmed", tm::p_tmmed, med),
                ("tmcount", tm::p_tmcount, |w| nn(w).len() as f64),
                ("tmfirst", tm::p_tmfirst, |w| w[0]),
                ("tmlast", tm::p_tmlast, |w| w[w.len() - 1]),
            ];
            for (name, f, r) in fams {
                let got = eval(*f, &[tc.clone(), x.clone(), int(w)]);
                assert_close(&format!("{name} w={w}"), &got, &naive_tm(&t, &v, w, r), &v);
            }
        }
    }

    #[test]
    fn cumulative_matches_naive() {
        let fams: &[(&str, PrepFn, Ref)] = &[
            ("cumsum", cum::p_cumsum, sum),
            ("cumavg", cum::p_cumavg, avg),
            ("cumvar", cum::p_cumvar, |w| var(w, false)),
            ("cumstdp", cum::p_cumstdp, |w| var(w, true).sqrt()),
            ("cummax", cum::p_cummax, |w| sorted(w).last().copied().unwrap_or(f64::NAN)),
            ("cummin", cum::p_cummin, |w| sorted(w).first().copied().unwrap_or(f64::NAN)),
            ("cummed", cum::p_cummed, med),
            ("cumcount", cum::p_cumcount, |w| nn(w).len() as f64),
            ("cumfirstNot", cum::p_cumfirst_not, |w| nn(w).first().copied().unwrap_or(f64::NAN)),
            ("cumlastNot", cum::p_cumlast_not, |w| nn(w).last().copied().unwrap_or(f64::NAN)),
        ];
        let mut rng = Rng::new(29);
        for case in 0..CASES {
            let n = rng.below(40) as usize;
            let ints = case % 2 == 0;
            let v = rng.values(n, 25, ints);
            let x = if ints { int_col(&v) } else { dbl_col(&v) };
            for (name, f, r) in fams {
                let got = eval(*f, &[x.clone()]);
                let want: Vec<f64> = (0..n).map(|i| r(&v[..=i])).collect();
                assert_close(name, &got, &want, &v);
            }
        }
    }

    #[test]
    fn topn_matches_naive() {
        let mut rng = Rng::new(31);
        for _ in 0..CASES {
            let n = rng.below(30) as usize;
            let w = 1 + rng.below(7) as usize;
            let top = 1 + rng.below(4) as usize;
            let x = rng.values(n, 15, false);
            let s = rng.values(n, 15, true);
            let asc = rng.below(2) == 0;
            for (name, f, r, latest) in [
                ("msumTopN", topn::p_msum_top_n as crate::window::PrepFn, sum as Ref, false),
                ("mavgTopN", topn::p_mavg_top_n, avg as Ref, false),
                ("mstdTopN", topn::p_mstd_top_n, (|w: &[f64]| var(w, false).sqrt()) as Ref, false),
                ("mskewTopN", topn::p_mskew_top_n, skew as Ref, true),
            ] {
                let mut args = vec![dbl_col(&x), int_col(&s), int(w as i64), int(top as i64)];
                if name == "mskewTopN" {
                    args.push(Value::bool(true));
                }
                args.push(Value::bool(asc));
                let got = eval(f, &args);
                let want: Vec<f64> = (0..n)
                    .map(|i| {
                        let st = (i + 1).saturating_sub(w);
                        let mut idx: Vec<usize> = (st..=i).filter(|&j| !s[j].is_nan()).collect();
                        idx.sort_by(|&p, &q| {
                            let c = s[p].partial_cmp(&s[q]).unwrap();
                            let c = if asc { c } else { c.reverse() };
                            c.then(if latest { q.cmp(&p) } else { p.cmp(&q) })
                        });
                        let sel: Vec<f64> = idx.iter().take(top).map(|&j| x[j]).collect();
                        r(&sel)
                    })
                    .collect();
                assert_close(&format!("{name} w={w} top={top} asc={asc}"), &got, &want, &x);
            }
        }
    }

    #[test]
    fn segmented_equals_per_segment_calls() {
        let mut rng = Rng::new(37);
        for _ in 0..100 {
            let n = rng.below(40) as usize;
            let v = rng.values(n, 20, true);
            let mut segs = Vec::new();
            let mut s = 0;
            while s < n {
                let e = (s + 1 + rng.below(8) as usize).min(n);
                segs.push((s, e));
                s = e;
            }
            let preps: [(&str, crate::window::PrepFn); 6] = [
                ("msum", crate::window_fns::p_msum),
                ("mavg", crate::window_fns::p_mavg),
                ("cumsum", crate::cum::p_cumsum),
                ("cummax", crate::cum::p_cummax),
                ("mrank", crate::window_fns::p_mrank),
                ("ema", crate::ta::p_ema),
            ];
            for (name, f) in preps {
                let extra: Vec<Value> = match name {
                    "mrank" => vec![Value::bool(true), int(3)],
                    "cumsum" | "cummax" => vec![],
                    _ => vec![int(3)],
                };
                let mut args = vec![int_col(&v)];
                args.extend(extra.iter().cloned());
                let whole = match crate::window::segmented(f, &args, &segs).expect("ok") {
                    Value::Vector(c) => (0..c.len()).map(|i| c.f64_at(i).unwrap_or(f64::NAN)).collect::<Vec<f64>>(),
                    _ => panic!(),
                };
                let mut want = Vec::new();
                for &(s, e) in &segs {
                    let mut a = vec![int_col(&v[s..e])];
                    a.extend(extra.iter().cloned());
                    want.extend(eval(f, &a));
                }
                assert_close(&format!("segmented {name}"), &whole, &want, &v);
            }
        }
    }
}
