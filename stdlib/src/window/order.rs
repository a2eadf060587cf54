//! Order statistics over sliding windows: median, percentile, rank and mean/median absolute
//! deviation, on a Fenwick tree over the ranks of the slice's values (values are
//! coordinate-compressed once per slice, O(n log n); each add/remove/query is O(log n)).

use crate::window::Window;
use beluga_runtime::null::Native;
use beluga_runtime::{Error, Result};
use std::cmp::Ordering;

/// Fenwick (binary indexed) tree of counts.
#[derive(Clone)]
pub struct Fenwick {
    t: Vec<i64>,
    log: usize,
}

impl Fenwick {
    pub fn new(n: usize) -> Fenwick {
        let mut log = 1;
        while (1usize << log) <= n {
            log += 1;
        }
        Fenwick { t: vec![0; n + 1], log }
    }
    #[inline]
    pub fn add(&mut self, pos: usize, d: i64) {
        let mut i = pos + 1;
        while i < self.t.len() {
            self.t[i] += d;
            i += i & i.wrapping_neg();
        }
    }
    /// Sum over positions `[0, pos)`.
    #[inline]
    pub fn prefix(&self, pos: usize) -> i64 {
        let mut i = pos.min(self.t.len() - 1);
        let mut s = 0;
        while i > 0 {
            s += self.t[i];
            i -= i & i.wrapping_neg();
        }
        s
    }
    /// Position of the k-th (0-based) unit, i.e. the smallest `pos` with `prefix(pos + 1) > k`.
    #[inline]
    pub fn kth(&self, k: i64) -> usize {
        let mut pos = 0usize;
        let mut rem = k;
        for b in (0..self.log).rev() {
            let next = pos + (1 << b);
            if next < self.t.len() && self.t[next] <= rem {
                pos = next;
                rem -= self.t[next];
            }
        }
        pos
    }
}

/// Fenwick tree of f64 sums (for mean absolute deviation and the TopN aggregates).
#[derive(Clone)]
pub struct FenwickF<const K: usize> {
    t: Vec<[f64; K]>,
}

impl<const K: usize> FenwickF<K> {
    pub fn new(n: usize) -> Self {
        FenwickF { t: vec![[0.0; K]; n + 1] }
    }
    #[inline]
    pub fn add(&mut self, pos: usize, d: &[f64; K], sign: f64) {
        let mut i = pos + 1;
        while i < self.t.len() {
            for k in 0..K {
                self.t[i][k] += sign * d[k];
            }
            i += i & i.wrapping_neg();
        }
    }
    #[inline]
    pub fn prefix(&self, pos: usize) -> [f64; K] {
        let mut i = pos.min(self.t.len() - 1);
        let mut s = [0.0; K];
        while i > 0 {
            for k in 0..K {
                s[k] += self.t[i][k];
            }
            i -= i & i.wrapping_neg();
        }
        s
    }
}

/// Total order on native values (nulls excluded by the callers).
#[inline]
pub fn cmp_native<T: Native>(a: T, b: T) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// Dense ranks of the non-null values of a slice (u32::MAX for null) and the sorted distinct values.
pub fn dense_ranks<T: Native>(v: &[T]) -> (Vec<u32>, Vec<T>) {
    let mut idx: Vec<u32> = (0..v.len() as u32).filter(|&i| !v[i as usize].is_null()).collect();
    idx.sort_unstable_by(|&a, &b| cmp_native(v[a as usize], v[b as usize]));
    let mut rk = vec![u32::MAX; v.len()];
    let mut vals: Vec<T> = Vec::new();
    for &i in &idx {
        let x = v[i as usize];
        if vals.last().map(|&l| cmp_native(l, x) != Ordering::Equal).unwrap_or(true) {
            vals.push(x);
        }
        rk[i as usize] = (vals.len() - 1) as u32;
    }
    (rk, vals)
}

/// Percentile interpolation methods: the one enum of `agg::order`, parsed in one place.
pub use crate::agg_order::Interp;

pub fn interp_arg(name: &str, s: &str) -> Result<Interp> {
    Interp::parse(name, s)
}

/// Percentile `p` (0..100) of `n` sorted values read through `at(k)`.
pub fn percentile_of(n: usize, p: f64, how: Interp, at: impl Fn(usize) -> f64) -> f64 {
    let pos = (n - 1) as f64 * p / 100.0;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    let frac = pos - lo as f64;
    let (a, b) = (at(lo), if frac > 0.0 { at(hi) } else { f64::NAN });
    if frac == 0.0 {
        return a;
    }
    match how {
        Interp::Linear => a + (b - a) * frac,
        Interp::Lower => a,
        Interp::Higher => b,
        Interp::Nearest => {
            if frac > 0.5 {
                b
            } else {
                a
            }
        }
        Interp::Midpoint => (a + b) / 2.0,
    }
}

/// How ties are ranked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ties {
    Min,
    Max,
    Average,
    First,
}

pub fn ties_arg(name: &str, s: &str, first_ok: bool) -> Result<Ties> {
    Ok(match s {
        "min" => Ties::Min,
        "max" => Ties::Max,
        "average" => Ties::Average,
        "first" if first_ok => Ties::First,
        _ => return Err(Error::arg(format!("The tiesMethod argument of [{name}] must be 'min', 'max' or 'average'"))),
    })
}

/// Rank options.
#[derive(Clone, Copy, Debug)]
pub struct RankOpt {
    pub asc: bool,
    pub ignore_na: bool,
    pub ties: Ties,
    pub percent: bool,
}

/// What an [`OrderStat`] state reports.
#[derive(Clone, Copy, Debug)]
pub enum OrdOp {
    Med,
    Pct(f64, Interp),
    /// rank of the window's last element
    Rank(RankOpt),
    /// mean absolute deviation (false) or median absolute deviation (true)
    Mad(bool),
}

pub struct OrderStat<'a, T> {
    v: &'a [T],
    rk: Vec<u32>,
    vals: Vec<T>,
    bit: Fenwick,
    sums: Option<FenwickF<1>>,
    n: usize,
    nnull: usize,
    op: OrdOp,
}

impl<'a, T: Native> OrderStat<'a, T> {
    pub fn new(v: &'a [T], op: OrdOp) -> Self {
        let (rk, vals) = dense_ranks(v);
        let bit = Fenwick::new(vals.len());
        let sums = matches!(op, OrdOp::Mad(false)).then(|| FenwickF::new(vals.len()));
        OrderStat { v, rk, vals, bit, sums, n: 0, nnull: 0, op }
    }
    /// k-th smallest (0-based) value in the window.
    #[inline]
    fn kth(&self, k: usize) -> f64 {
        self.vals[self.bit.kth(k as i64)].to_f64()
    }
    fn median(&self) -> f64 {
        let n = self.n;
        if n % 2 == 1 {
            self.kth(n / 2)
        } else {
            (self.kth(n / 2 - 1) + self.kth(n / 2)) / 2.0
        }
    }
    /// Number of window values strictly below `m`.
    fn below(&self, m: f64) -> usize {
        let r = self.vals.partition_point(|x| x.to_f64() < m);
        self.bit.prefix(r) as usize
    }
    /// k-th smallest (0-based) of |x - m| over the window.
    fn kth_dist(&self, m: f64, k: usize) -> f64 {
        let cb = self.below(m);
        let a_len = cb; // distances of the values below m, ascending: m - kth(cb - 1 - j)
        let b_len = self.n - cb; // distances of the others, ascending: kth(cb + j) - m
        let a = |j: usize| m - self.kth(cb - 1 - j);
        let b = |j: usize| self.kth(cb + j) - m;
        // take i from A and k + 1 - i from B: smallest i with A[i] >= B[k - i]
        let mut lo = (k + 1).saturating_sub(b_len);
        let mut hi = a_len.min(k + 1);
        while lo < hi {
            let i = (lo + hi) / 2;
            let j = k + 1 - i;
            if a(i) < b(j - 1) {
                lo = i + 1;
            } else {
                hi = i;
            }
        }
        let j = k + 1 - lo;
        let ra = if lo > 0 { a(lo - 1) } else { f64::NEG_INFINITY };
        let rb = if j > 0 { b(j - 1) } else { f64::NEG_INFINITY };
        ra.max(rb)
    }
    fn rank(&self, i: usize, o: RankOpt) -> Option<f64> {
        let (less, eq) = if self.v[i].is_null() {
            (0, 0)
        } else {
            let r = self.rk[i] as usize;
            let less = self.bit.prefix(r) as usize;
            (less, self.bit.prefix(r + 1) as usize - less)
        };
        rank_of(o, self.v[i].is_null(), less, eq, self.n, self.nnull)
    }
}

/// Rank of a window's last element from its counts: `less`/`eq` non-null values below /
/// equal to it, `n` non-null values and `nnull` nulls in the window.
#[inline]
fn rank_of(o: RankOpt, null: bool, less: usize, eq: usize, n: usize, nnull: usize) -> Option<f64> {
    let total = n + if o.ignore_na { 0 } else { nnull };
    let (lo, hi) = if null {
        if o.ignore_na {
            return None;
        }
        if o.asc { (0, nnull - 1) } else { (n, n + nnull - 1) }
    } else {
        let nulls = if o.ignore_na { 0 } else { nnull };
        if o.asc {
            (nulls + less, nulls + less + eq - 1)
        } else {
            let greater = n - less - eq;
            (greater, greater + eq - 1)
        }
    };
    let r = match o.ties {
        Ties::Min | Ties::First => lo as f64,
        Ties::Max => hi as f64,
        Ties::Average => (lo + hi) as f64 / 2.0,
    };
    Some(if o.percent { (r + 1.0) / total as f64 } else { r })
}

/// Windows at most this long rank by a direct scan ([`ScanRank`]) instead of the
/// sorted-ranks Fenwick tree of [`OrderStat`].
pub const SCAN_RANK_MAX: usize = 64;

/// Rank of the last element of a short count window by scanning the window: no sort of
/// the whole column and no tree (mrank(x, true, 20) on 1M rows: O(n·w) compares that stay
/// in cache, against an O(n log n) sort plus Fenwick updates with cache misses). Same order
/// as [`dense_ranks`] (`partial_cmp`, nulls apart).
pub struct ScanRank<'a, T> {
    v: &'a [T],
    n: usize,
    nnull: usize,
    o: RankOpt,
}

impl<'a, T: Native> ScanRank<'a, T> {
    pub fn new(v: &'a [T], o: RankOpt) -> Self {
        ScanRank { v, n: 0, nnull: 0, o }
    }
}

impl<T: Native> Window for ScanRank<'_, T> {
    type Out = f64;
    fn add(&mut self, i: usize) {
        if self.v[i].is_null() {
            self.nnull += 1;
        } else {
            self.n += 1;
        }
    }
    fn remove(&mut self, i: usize) {
        if self.v[i].is_null() {
            self.nnull -= 1;
        } else {
            self.n -= 1;
        }
    }
    fn get(&mut self, s: usize, e: usize) -> Option<f64> {
        let x = self.v[e - 1];
        if x.is_null() {
            return rank_of(self.o, true, 0, 0, self.n, self.nnull);
        }
        // x is neither null nor NaN, so for a non-null y `cmp_native(y, x)` is Less exactly
        // when y < x and Equal exactly when y == x: counted without branches
        let (mut less, mut eq) = (0usize, 0usize);
        for &y in &self.v[s..e] {
            let ok = !y.is_null();
            less += (ok & (y < x)) as usize;
            eq += (ok & (y == x)) as usize;
        }
        rank_of(self.o, false, less, eq, self.n, self.nnull)
    }
    fn count(&self) -> usize {
        self.n
    }
}

impl<T: Native> Window for OrderStat<'_, T> {
    type Out = f64;
    fn add(&mut self, i: usize) {
        let r = self.rk[i];
        if r == u32::MAX {
            self.nnull += 1;
            return;
        }
        self.bit.add(r as usize, 1);
        if let Some(s) = &mut self.sums {
            s.add(r as usize, &[self.v[i].to_f64()], 1.0);
        }
        self.n += 1;
    }
    fn remove(&mut self, i: usize) {
        let r = self.rk[i];
        if r == u32::MAX {
            self.nnull -= 1;
            return;
        }
        self.bit.add(r as usize, -1);
        if let Some(s) = &mut self.sums {
            s.add(r as usize, &[self.v[i].to_f64()], -1.0);
        }
        self.n -= 1;
    }
    fn get(&mut self, _: usize, e: usize) -> Option<f64> {
        if let OrdOp::Rank(o) = self.op {
            return self.rank(e - 1, o);
        }
        if self.n == 0 {
            return None;
        }
        let n = self.n;
        Some(match self.op {
            OrdOp::Med => self.median(),
            OrdOp::Pct(p, how) => percentile_of(n, p, how, |k| self.kth(k)),
            OrdOp::Mad(false) => {
                let sums = self.sums.as_ref()?;
                let total = sums.prefix(self.vals.len())[0];
                let mean = total / n as f64;
                let r = self.vals.partition_point(|x| x.to_f64() < mean);
                let cnt_below = self.bit.prefix(r) as f64;
                let sum_below = sums.prefix(r)[0];
                let dev = (total - sum_below - mean * (n as f64 - cnt_below)) + (mean * cnt_below - sum_below);
                dev / n as f64
            }
            OrdOp::Mad(true) => {
                let m = self.median();
                if n % 2 == 1 {
                    self.kth_dist(m, n / 2)
                } else {
                    (self.kth_dist(m, n / 2 - 1) + self.kth_dist(m, n / 2)) / 2.0
                }
            }
            OrdOp::Rank(_) => return None,
        })
    }
    fn count(&self) -> usize {
        self.n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::{roll_vec, Bounds, Gate};

    /// The branch-free scan of [`ScanRank`] against the sorted-tree [`OrderStat`] on the
    /// same short windows: nulls, NaN (null), ties, -0.0 and every rank option.
    #[test]
    fn scan_rank_equals_order_stat() {
        let v: Vec<f64> = (0..997)
            .map(|k| match (k * 7919) % 31 {
                0 => f64::NULL,
                1 => f64::NAN,
                2 => -0.0,
                3 => 0.0,
                r => ((r * 13) % 9) as f64 - 4.0,
            })
            .collect();
        let iv: Vec<i32> = (0..997).map(|k| if k % 17 == 0 { i32::NULL } else { (k * 31 % 7) as i32 }).collect();
        for asc in [true, false] {
            for ignore_na in [true, false] {
                for ties in [Ties::Min, Ties::Max, Ties::Average, Ties::First] {
                    for percent in [false, true] {
                        let o = RankOpt { asc, ignore_na, ties, percent };
                        for (w, gate) in [(1, Gate::Warmup(1)), (5, Gate::Warmup(5)), (20, Gate::MinCount(3)), (64, Gate::Warmup(64))] {
                            let b = Bounds::Count(w);
                            let bits = |r: Vec<f64>| r.into_iter().map(f64::to_bits).collect::<Vec<u64>>();
                            let scan = roll_vec(&mut ScanRank::new(&v, o), v.len(), &b, gate, |r| r);
                            let tree = roll_vec(&mut OrderStat::new(&v, OrdOp::Rank(o)), v.len(), &b, gate, |r| r);
                            assert_eq!(bits(scan), bits(tree), "f64 {o:?} w={w}");
                            let scan = roll_vec(&mut ScanRank::new(&iv, o), iv.len(), &b, gate, |r| r);
                            let tree = roll_vec(&mut OrderStat::new(&iv, OrdOp::Rank(o)), iv.len(), &b, gate, |r| r);
                            assert_eq!(bits(scan), bits(tree), "i32 {o:?} w={w}");
                        }
                    }
                }
            }
        }
    }
}
