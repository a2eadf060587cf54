//! Ordered joins: the as-of match of `aj` and the windows of `wj`/`pwj`. Both sides are
//! grouped by their equality-key ids with one stable counting sort each; the right groups
//! are ordered by time (already true for DolphinDB's sorted right tables, sorted otherwise)
//! and their times laid out contiguously. Each left group then walks its right group with
//! a galloping search that resumes where the previous left row stopped (a merge when the
//! left times are increasing, a binary search when they are not), groups in parallel.

use super::{align_key_types, NO_ID};
use crate::kernels::order::codes;
use crate::column::Column;
use crate::error::{Error, Result};
use crate::kernels::arith::as_native;
use crate::null::Native;
use crate::types::DataType;
use rayon::prelude::*;

/// Rows grouped by key id (stable counting sort, rows failing `keep` or without an id left
/// out): CSR offsets `off` (n + 1), the row numbers, and each grouped row's ordered key.
struct Grouped<K> {
    off: Vec<usize>,
    rows: Vec<usize>,
    keys: Vec<K>,
}

fn group<K: Copy + Default>(ids: &[u32], n: usize, key: &[K], keep: impl Fn(usize) -> bool) -> Grouped<K> {
    let mut off = vec![0usize; n + 1];
    for (r, &g) in ids.iter().enumerate() {
        if g != NO_ID && keep(r) {
            off[g as usize + 1] += 1;
        }
    }
    for g in 0..n {
        off[g + 1] += off[g];
    }
    let total = off[n];
    let mut pos = off[..n].to_vec();
    let mut rows = vec![0usize; total];
    let mut keys = vec![K::default(); total];
    for (r, &g) in ids.iter().enumerate() {
        if g != NO_ID && keep(r) {
            let p = &mut pos[g as usize];
            rows[*p] = r;
            keys[*p] = key[r];
            *p += 1;
        }
    }
    Grouped { off, rows, keys }
}

/// Consecutive group ranges `[b0, b1)` holding roughly equal numbers of rows, for rayon.
fn chunks(off: &[usize]) -> Vec<(usize, usize)> {
    let n = off.len() - 1;
    let total = off[n];
    let target = (total / (8 * rayon::current_num_threads().max(1))).max(1 << 14);
    let mut out = Vec::new();
    let mut b0 = 0;
    for b in 0..n {
        if off[b + 1] - off[b0] >= target {
            out.push((b0, b + 1));
            b0 = b + 1;
        }
    }
    if b0 < n || out.is_empty() {
        out.push((b0, n));
    }
    out
}

/// Split `v` (laid out by `off`) into one mutable piece per chunk of groups.
fn split_chunks<'a, T>(off: &[usize], parts: &[(usize, usize)], mut v: &'a mut [T]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(parts.len());
    for &(b0, b1) in parts {
        let (head, tail) = std::mem::take(&mut v).split_at_mut(off[b1] - off[b0]);
        out.push(head);
        v = tail;
    }
    out
}

impl<K: Copy + Ord + Send + Sync> Grouped<K> {
    /// Order every group by key (stable: equal keys keep their row order) unless it already is.
    fn sort_groups(&mut self) {
        let parts = chunks(&self.off);
        let off = &self.off;
        let rows = split_chunks(off, &parts, &mut self.rows);
        let keys = split_chunks(off, &parts, &mut self.keys);
        parts.into_par_iter().zip(rows).zip(keys).for_each(|(((b0, b1), rows), keys)| {
            let base = off[b0];
            for b in b0..b1 {
                let (s, e) = (off[b] - base, off[b + 1] - base);
                let k = &mut keys[s..e];
                if k.windows(2).all(|w| w[0] <= w[1]) {
                    continue;
                }
                let mut pairs: Vec<(K, usize)> = k.iter().copied().zip(rows[s..e].iter().copied()).collect();
                pairs.sort_by_key(|p| p.0);
                for (j, (kk, r)) in pairs.into_iter().enumerate() {
                    k[j] = kk;
                    rows[s + j] = r;
                }
            }
        });
    }
}

/// Number of leading elements of `v` satisfying the monotone `pred` (true then false), given
/// that the first `from` do: an exponential search outward from `from`.
fn gallop<K: Copy>(v: &[K], from: usize, pred: impl Fn(K) -> bool) -> usize {
    let n = v.len();
    let mut lo = from.min(n);
    let mut step = 1;
    loop {
        let probe = lo + step - 1;
        if probe >= n {
            return lo + v[lo..].partition_point(|&x| pred(x));
        }
        if pred(v[probe]) {
            lo = probe + 1;
            step *= 2;
        } else {
            return lo + v[lo..probe].partition_point(|&x| pred(x));
        }
    }
}

/// For every grouped left row (in group order), `f(left key, right keys of its group,
/// resume state)` computed group by group in parallel; the answers scattered back to left
/// row order, `none` for left rows without a group.
fn per_left<K, T, S>(left: &Grouped<K>, right: &Grouped<K>, nl: usize, none: T, init: S, f: impl Fn(K, usize, &[K], &mut S) -> T + Sync) -> Vec<T>
where
    K: Copy + Ord + Send + Sync,
    T: Copy + Send + Sync,
    S: Copy + Send + Sync,
{
    let parts = chunks(&left.off);
    let mut res = vec![none; left.rows.len()];
    let pieces = split_chunks(&left.off, &parts, &mut res);
    parts.into_par_iter().zip(pieces).for_each(|((b0, b1), out)| {
        let base = left.off[b0];
        for b in b0..b1 {
            let (rs, re) = (right.off[b], right.off[b + 1]);
            let rk = &right.keys[rs..re];
            let mut st = init;
            for k in left.off[b]..left.off[b + 1] {
                out[k - base] = f(left.keys[k], rs, rk, &mut st);
            }
        }
    });
    let mut out = vec![none; nl];
    for (k, &l) in left.rows.iter().enumerate() {
        out[l] = res[k];
    }
    out
}

/// The as-of match on ordered keys: the last right row (in group order) with key ≤ the left one.
fn asof_core<K: Copy + Ord + Default + Send + Sync>(
    lids: &[u32],
    lkey: &[K],
    lkeep: impl Fn(usize) -> bool,
    rids: &[u32],
    rkey: &[K],
    rkeep: impl Fn(usize) -> bool,
    n: usize,
) -> Vec<i64> {
    let mut right = group(rids, n, rkey, rkeep);
    right.sort_groups();
    let left = group(lids, n, lkey, lkeep);
    // state: (previous left key, matches of the previous left row)
    let rrows = &right.rows;
    per_left(&left, &right, lids.len(), -1i64, None, |t, rs, rk, st: &mut Option<(K, usize)>| {
        let from = match *st {
            Some((pt, p)) if pt <= t => p,
            _ => 0,
        };
        let p = gallop(rk, from, |x| x <= t);
        *st = Some((t, p));
        if p == 0 {
            -1
        } else {
            rrows[rs + p - 1] as i64
        }
    })
}

fn is_sorted(v: &[i64]) -> bool {
    v.par_windows(2).all(|w| w[0] <= w[1])
}

/// The as-of match when both sides are ordered by time (the usual trades/quotes layout):
/// one merge pass in time order remembering the last right row of every key id, O(n + m)
/// with no grouping. Right rows come before left rows of the same time (`≤`), and a later
/// right row of equal time replaces an earlier one (the last such row).
fn asof_merge(lids: &[u32], lt: &[i64], rids: &[u32], rt: &[i64], n: usize) -> Vec<i64> {
    let mut last = vec![-1i64; n];
    let mut out = vec![-1i64; lids.len()];
    let mut r = 0;
    for (l, (&g, &t)) in lids.iter().zip(lt).enumerate() {
        if t.is_null() || g == NO_ID {
            continue;
        }
        while r < rt.len() && rt[r] <= t {
            let h = rids[r];
            if h != NO_ID && !rt[r].is_null() {
                last[h as usize] = r as i64;
            }
            r += 1;
        }
        out[l] = last[g as usize];
    }
    out
}

/// For each left row, the right row with the same equality keys and the largest ordered
/// key ≤ the left one (the last such row on ties); −1 when there is none.
pub fn asof_rows(lids: &[u32], ltime: &Column, rids: &[u32], rtime: &Column, n: usize) -> Result<Vec<i64>> {
    let (a, b) = align_key_types(ltime, rtime)?;
    if (a.ty.is_temporal() || a.ty.is_integral()) && (b.ty.is_temporal() || b.ty.is_integral()) {
        let (lt, rt) = (as_native::<i64>(&a), as_native::<i64>(&b));
        if is_sorted(&lt) && is_sorted(&rt) {
            return Ok(asof_merge(lids, &lt, rids, &rt, n));
        }
        return Ok(asof_core(lids, &lt, |l| !lt[l].is_null(), rids, &rt, |r| !rt[r].is_null(), n));
    }
    let both = Column::concat(a.ty, &[&a, &b]);
    let c = codes(&both);
    let nl = a.len();
    let (lkey, rkey) = c.code.split_at(nl);
    let (lnull, rnull) = c.null.split_at(nl);
    Ok(asof_core(lids, lkey, |l| !lnull[l], rids, rkey, |r| !rnull[r], n))
}

/// Windows of right rows per left row: `rows` lists right rows bucketed by key and sorted
/// by time; left row k uses `rows[ranges[k].0..ranges[k].1]`.
pub struct Windows {
    pub rows: Vec<usize>,
    pub ranges: Vec<(usize, usize)>,
    /// Group offsets into `rows` (no window crosses a group boundary).
    pub groups: Vec<usize>,
}

/// Integer times of an ordered key (temporal or integral), nulls as `i64::MIN`.
pub fn time_values(c: &Column) -> Result<Vec<i64>> {
    if !(c.ty.is_temporal() || c.ty.is_integral()) {
        return Err(Error::type_err(format!("The window join column must be temporal or integral, not {}", c.ty)));
    }
    Ok(as_native::<i64>(c).into_owned())
}

/// Window bounds in the time column's unit: an integer pair, or DURATION values
/// (`-5s:0s`) converted to the column's unit.
pub fn duration_in_unit(n: i64, unit: &str, ty: DataType) -> Result<i64> {
    let Some(ns) = crate::temporal::duration_unit_ns(unit) else {
        return Err(Error::arg(format!("The duration unit {unit} is not supported in a window")));
    };
    let ns = ns as i128;
    let unit_ns: i128 = match ty {
        DataType::NanoTime | DataType::NanoTimestamp => 1,
        DataType::Time | DataType::Timestamp => 1_000_000,
        DataType::Second | DataType::DateTime => 1_000_000_000,
        DataType::Minute => 60_000_000_000,
        DataType::DateHour => 3_600_000_000_000,
        DataType::Date => 86_400_000_000_000,
        _ => return Ok(n),
    };
    let v = n as i128 * ns;
    if v % unit_ns != 0 {
        return Err(Error::arg(format!("The duration {n}{unit} is finer than the unit of {ty}")));
    }
    Ok((v / unit_ns) as i64)
}

/// For each left row with time t, right rows of its bucket with time in [t+w1, t+w2].
/// `prevailing` (pwj): the window starts at the last right row with time ≤ t+w1 when there is one.
pub fn window_rows(
    lids: &[u32],
    ltime: &[i64],
    rids: &[u32],
    rtime: &[i64],
    n: usize,
    w1: i64,
    w2: i64,
    prevailing: bool,
) -> Windows {
    let mut right = group(rids, n, rtime, |r| !rtime[r].is_null());
    right.sort_groups();
    let left = group(lids, n, ltime, |l| !ltime[l].is_null());
    // state: (previous left time, its window start, its window end) within the group
    let ranges = per_left(&left, &right, lids.len(), (0, 0), None, |t, rs, rk, st: &mut Option<(i64, usize, usize)>| {
        let (from_lo, from_hi) = match *st {
            Some((pt, lo, hi)) if pt <= t => (lo, hi),
            _ => (0, 0),
        };
        let lo_t = t.saturating_add(w1);
        let hi_t = t.saturating_add(w2);
        let mut lo = gallop(rk, from_lo, |x| x < lo_t);
        let next = lo;
        if prevailing {
            lo = gallop(rk, lo, |x| x <= lo_t).saturating_sub(1);
        }
        let hfrom = if w1 <= w2 { from_hi.max(next) } else { from_hi };
        let hi = gallop(rk, hfrom, |x| x <= hi_t);
        *st = Some((t, next, hi));
        if hi <= lo {
            (rs, rs)
        } else {
            (rs + lo, rs + hi)
        }
    });
    Windows { rows: right.rows, ranges, groups: right.off }
}

/// Window `0:0` of `wj`/`pwj`: for each left row, the right rows of its bucket with time in
/// [the previous left time of the same keys, t) (from the start of time for the first).
pub fn previous_windows(lids: &[u32], lt: &[i64], rids: &[u32], rt: &[i64], n: usize) -> Windows {
    let all = window_rows(lids, lt, rids, rt, n, i64::MIN / 4, 0, false);
    let mut prev: ahash::AHashMap<u32, i64> = ahash::AHashMap::new();
    let ranges = all
        .ranges
        .iter()
        .enumerate()
        .map(|(l, &(s, e))| {
            let t = lt[l];
            let from = prev.insert(lids[l], t).unwrap_or(i64::NULL);
            let bucket = &all.rows[s..e];
            let lo = bucket.partition_point(|&r| rt[r] < from);
            let hi = bucket.partition_point(|&r| rt[r] < t);
            if hi <= lo {
                (s, s)
            } else {
                (s + lo, s + hi)
            }
        })
        .collect();
    Windows { rows: all.rows, ranges, groups: all.groups }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge path (both sides sorted) and the grouped path agree with a naive scan on
    /// random data with ties, null times and keys without an id.
    #[test]
    fn merge_and_grouped_match_naive() {
        let mut x = 0x9e3779b97f4a7c15u64;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..300 {
            let (nl, nr, n) = (1 + rnd(40) as usize, rnd(40) as usize, 1 + rnd(4) as usize);
            let id = |v: u64| if v == n as u64 { NO_ID } else { v as u32 };
            let lids: Vec<u32> = (0..nl).map(|_| id(rnd(n as u64 + 1))).collect();
            let rids: Vec<u32> = (0..nr).map(|_| id(rnd(n as u64 + 1))).collect();
            let mut lt: Vec<i64> = (0..nl).map(|_| if rnd(8) == 0 { i64::NULL } else { rnd(30) as i64 }).collect();
            let mut rt: Vec<i64> = (0..nr).map(|_| if rnd(8) == 0 { i64::NULL } else { rnd(30) as i64 }).collect();
            lt.sort();
            rt.sort();
            let want: Vec<i64> = (0..nl)
                .map(|l| {
                    if lt[l].is_null() || lids[l] == NO_ID {
                        return -1;
                    }
                    (0..nr).filter(|&r| rids[r] == lids[l] && !rt[r].is_null() && rt[r] <= lt[l]).last().map(|r| r as i64).unwrap_or(-1)
                })
                .collect();
            assert_eq!(asof_merge(&lids, &lt, &rids, &rt, n), want);
            let grouped = asof_core(&lids, &lt, |l| !lt[l].is_null(), &rids, &rt, |r| !rt[r].is_null(), n);
            assert_eq!(grouped, want);
            let (cl, cr) = (Column::from_vec(DataType::Long, lt.clone()), Column::from_vec(DataType::Long, rt.clone()));
            assert_eq!(asof_rows(&lids, &cl, &rids, &cr, n).unwrap(), want);
        }
    }

    #[test]
    fn asof_last_not_after() {
        let l = Column::from_vec(DataType::Date, vec![0, 31, 59, 90, 120]);
        let r = Column::from_vec(DataType::Date, vec![31, 46, 120, 120]);
        let got = asof_rows(&[0; 5], &l, &[0; 4], &r, 1).unwrap();
        assert_eq!(got, vec![-1, 0, 1, 1, 3]);
    }

    #[test]
    fn windows_plain_and_prevailing() {
        let rt = vec![1i64, 2, 3, 7, 8, 9, 10];
        let w = window_rows(&[0, 0], &[6, 7], &[0; 7], &rt, 1, -1, 1, false);
        assert_eq!(w.ranges, vec![(3, 4), (3, 5)]);
        let p = window_rows(&[0, 0], &[6, 7], &[0; 7], &rt, 1, -1, 1, true);
        assert_eq!(p.ranges, vec![(2, 4), (2, 5)]);
        assert_eq!(duration_in_unit(-5, "s", DataType::Time).unwrap(), -5000);
    }
}
