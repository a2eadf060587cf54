//! The kernels of SQL window functions (`f(args) over (…)`, progr/sql/analyticFunction.md).
//! `sql/window.rs` owns the clause: it sorts the rows into partitions, computes the frame
//! of each row and calls the kernel it finds for `f`. A kernel is found on a row: the
//! SQL-only analytic functions (row_number, rank, …, first_value) are the rows of
//! [`OVER_ROWS`]; an aggregate builtin (sum, avg, min, …) carries its kernel in the
//! `over` slot of its builtin row (`Builtin::over`). A function with neither is called
//! on each row's frame. Adding a window function means adding a row here or a slot on
//! its builtin row; `window.rs` does not change.

use super::frame::to_column;
use crate::column::{f64_column, Column};
use crate::error::{Error, Result};
use crate::kernels::cast::cast_column;
use crate::registry::{OverInput, OverKernel};
use crate::types::DataType;
use crate::value::Value;

/// A SQL-only window function: its name (matched without case) and kernel.
pub struct OverRow {
    pub name: &'static str,
    pub kernel: OverKernel,
}

const fn ranking(name: &'static str, k: crate::registry::RankingKernel) -> OverRow {
    OverRow { name, kernel: OverKernel::Ranking(k) }
}

const fn framed(name: &'static str, k: crate::registry::FramedKernel) -> OverRow {
    OverRow { name, kernel: OverKernel::Framed(k) }
}

/// The analytic functions that exist only with `over` (no builtin of that name).
pub const OVER_ROWS: &[OverRow] = &[
    ranking("row_number", row_number),
    ranking("rank", rank),
    ranking("dense_rank", dense_rank),
    ranking("percent_rank", percent_rank),
    ranking("cume_dist", cume_dist),
    ranking("ntile", ntile),
    ranking("lag", lag),
    ranking("lead", lead),
    framed("first_value", first_value),
    framed("last_value", last_value),
    framed("nth_value", nth_value),
];

/// The SQL-only row of a lower-case name.
pub fn over_row(lname: &str) -> Option<&'static OverRow> {
    OVER_ROWS.iter().find(|r| r.name == lname)
}

/// Argument `k` as a column of the sorted rows.
fn arg_col(inp: &OverInput, k: usize, what: &str) -> Result<Column> {
    let v = inp.args.get(k).ok_or_else(|| Error::arg(format!("{}: missing argument {what}", inp.name)))?;
    Ok(to_column(v, inp.n, what)?.take_usize(inp.perm))
}

/// Argument `k` as a column of the sorted rows (aggregates over a frame).
fn frame_arg(inp: &OverInput, k: usize) -> Result<Column> {
    let v = inp.args.get(k).ok_or_else(|| Error::arg(format!("{}: missing argument", inp.name)))?;
    Ok(to_column(v, inp.n, "a window function argument")?.take_usize(inp.perm))
}

fn scalar_arg(inp: &OverInput, k: usize) -> Option<i64> {
    inp.args.get(k).and_then(|v| if let Value::Scalar(_) = v { v.as_i64() } else { None })
}

/// The ranking functions, one pass over each partition's peer runs.
#[derive(Clone, Copy, PartialEq)]
enum Rank {
    RowNumber,
    Rank,
    Dense,
    Percent,
    Cume,
}

fn ranks(inp: &OverInput, how: Rank) -> Result<Column> {
    let n = inp.n;
    let mut ints = vec![0i64; n];
    let mut dbl = vec![0f64; n];
    for w in inp.seg.windows(2) {
        let (s, e) = (w[0], w[1]);
        let mut dense = 0i64;
        let mut last_peer = usize::MAX;
        for k in s..e {
            if inp.peer_lo[k] != last_peer {
                dense += 1;
                last_peer = inp.peer_lo[k];
            }
            let rank = (inp.peer_lo[k] - s + 1) as i64;
            match how {
                Rank::RowNumber => ints[k] = (k - s + 1) as i64,
                Rank::Rank => ints[k] = rank,
                Rank::Dense => ints[k] = dense,
                Rank::Percent => dbl[k] = if e - s <= 1 { 0.0 } else { (rank - 1) as f64 / (e - s - 1) as f64 },
                Rank::Cume => dbl[k] = (inp.peer_hi[k] - s) as f64 / (e - s) as f64,
            }
        }
    }
    Ok(if matches!(how, Rank::Percent | Rank::Cume) { f64_column(dbl) } else { Column::from_vec(DataType::Long, ints) })
}

pub fn row_number(inp: &OverInput) -> Result<Column> {
    ranks(inp, Rank::RowNumber)
}
pub fn rank(inp: &OverInput) -> Result<Column> {
    ranks(inp, Rank::Rank)
}
pub fn dense_rank(inp: &OverInput) -> Result<Column> {
    ranks(inp, Rank::Dense)
}
pub fn percent_rank(inp: &OverInput) -> Result<Column> {
    ranks(inp, Rank::Percent)
}
pub fn cume_dist(inp: &OverInput) -> Result<Column> {
    ranks(inp, Rank::Cume)
}

/// `ntile(buckets)`: bucket numbers 1..=buckets, the first buckets one row larger.
pub fn ntile(inp: &OverInput) -> Result<Column> {
    let buckets = scalar_arg(inp, 0).filter(|&b| b > 0).ok_or_else(|| Error::arg("ntile: the number of groups must be a positive integer"))?;
    let mut v = vec![0i64; inp.n];
    for w in inp.seg.windows(2) {
        let (s, e) = (w[0], w[1]);
        let cnt = (e - s) as i64;
        let (q, r) = (cnt / buckets, cnt % buckets);
        for k in s..e {
            let j = (k - s) as i64;
            // the first r buckets hold q+1 rows
            v[k] = if j < r * (q + 1) { j / (q + 1) + 1 } else { r + (j - r * (q + 1)) / q.max(1) + 1 };
        }
    }
    Ok(Column::from_vec(DataType::Long, v))
}

pub fn lag(inp: &OverInput) -> Result<Column> {
    shift(inp, true)
}
pub fn lead(inp: &OverInput) -> Result<Column> {
    shift(inp, false)
}

/// `lag`/`lead(x, [offset=1], [default])` within the partition.
fn shift(inp: &OverInput, back: bool) -> Result<Column> {
    let n = inp.n;
    let x = arg_col(inp, 0, "the value")?;
    let off = match inp.args.get(1) {
        Some(Value::Void) | None => 1,
        Some(_) => scalar_arg(inp, 1).ok_or_else(|| Error::arg(format!("{}: offset must be an integer", inp.name)))?,
    };
    let dflt = inp.args.get(2).filter(|v| !matches!(v, Value::Void));
    let ext_len = x.len() as i64;
    let mut idx = vec![-1i64; n];
    for k in 0..n {
        let p = inp.part_of[k];
        let (s, e) = (inp.seg[p] as i64, inp.seg[p + 1] as i64);
        let t = if back { k as i64 - off } else { k as i64 + off };
        idx[k] = if t >= s && t < e { t } else if dflt.is_some() { ext_len } else { -1 };
    }
    Ok(match dflt {
        Some(d) => {
            let dc = cast_column(&to_column(d, 1, "the default")?, x.ty)?;
            Column::concat(x.ty, &[&x, &dc]).take(&idx)
        }
        None => x.take(&idx),
    })
}

/// The value at position `pick(lo, hi)` of each frame (−1 = none).
fn nth_of(inp: &OverInput, x: Column, lo: &[usize], hi: &[usize], pick: impl Fn(usize, usize) -> i64) -> Result<Column> {
    let idx: Vec<i64> = (0..inp.n).map(|k| if lo[k] >= hi[k] { -1 } else { pick(lo[k], hi[k]) }).collect();
    Ok(x.take(&idx))
}

pub fn first_value(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    nth_of(inp, frame_arg(inp, 0)?, lo, hi, |l, _| l as i64)
}
pub fn last_value(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    nth_of(inp, frame_arg(inp, 0)?, lo, hi, |_, h| h as i64 - 1)
}
pub fn nth_value(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    let x = frame_arg(inp, 0)?;
    let nth = inp.args.get(1).and_then(|v| v.as_i64()).filter(|&k| k >= 1).ok_or_else(|| Error::arg("nth_value: N must be a positive integer"))?;
    nth_of(inp, x, lo, hi, |l, h| {
        let t = l as i64 + nth - 1;
        if t < h as i64 {
            t
        } else {
            -1
        }
    })
}

/// The running-sum family, from prefix sums over the sorted rows.
#[derive(Clone, Copy, PartialEq)]
enum Sums {
    Sum,
    Avg,
    Count,
    Sum2,
}

fn sums(inp: &OverInput, lo: &[usize], hi: &[usize], how: Sums) -> Result<Column> {
    let n = inp.n;
    let x = frame_arg(inp, 0)?;
    let f = x.to_f64_vec().ok_or_else(|| Error::type_err(format!("{} over a window needs a numeric argument", inp.name)))?;
    let sq = how == Sums::Sum2;
    let mut cnt = vec![0i64; n + 1];
    let mut sf = vec![0f64; n + 1];
    let ints = x.ty.is_integral() && how == Sums::Sum;
    let mut si = vec![0i64; n + 1];
    for k in 0..n {
        let v = f[k];
        let ok = !v.is_nan();
        cnt[k + 1] = cnt[k] + i64::from(ok);
        sf[k + 1] = sf[k] + if ok { if sq { v * v } else { v } } else { 0.0 };
        if ints {
            si[k + 1] = si[k].wrapping_add(x.i64_at(k).unwrap_or(0));
        }
    }
    if how == Sums::Count {
        return Ok(Column::from_vec(DataType::Long, (0..n).map(|k| cnt[hi[k]] - cnt[lo[k]]).collect::<Vec<i64>>()));
    }
    if ints {
        return Ok(Column::from_vec(
            DataType::Long,
            (0..n).map(|k| if cnt[hi[k]] == cnt[lo[k]] { i64::MIN } else { si[hi[k]].wrapping_sub(si[lo[k]]) }).collect::<Vec<i64>>(),
        ));
    }
    // a frame's sum as a difference of prefix sums; re-add short frames directly so that
    // cancellation does not leave noise
    Ok(f64_column(
        (0..n)
            .map(|k| {
                let c = cnt[hi[k]] - cnt[lo[k]];
                if c == 0 {
                    return f64::NAN;
                }
                let s = if hi[k] - lo[k] <= 64 {
                    f[lo[k]..hi[k]].iter().filter(|v| !v.is_nan()).map(|v| if sq { v * v } else { *v }).sum()
                } else {
                    sf[hi[k]] - sf[lo[k]]
                };
                if how == Sums::Avg {
                    s / c as f64
                } else {
                    s
                }
            })
            .collect(),
    ))
}

pub fn sum(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    sums(inp, lo, hi, Sums::Sum)
}
pub fn avg(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    sums(inp, lo, hi, Sums::Avg)
}
pub fn count(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    sums(inp, lo, hi, Sums::Count)
}
pub fn sum2(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    sums(inp, lo, hi, Sums::Sum2)
}

/// Sliding extremes with a monotonic deque (frame ends never decrease within a
/// partition): the value (`min`/`max`) or its position in the frame (`imin`/`imax`).
fn extreme(inp: &OverInput, lo: &[usize], hi: &[usize], is_max: bool, index: bool) -> Result<Column> {
    let n = inp.n;
    let x = frame_arg(inp, 0)?;
    let f = x.to_f64_vec().ok_or_else(|| Error::type_err(format!("{} over a window needs a numeric argument", inp.name)))?;
    let mut best = vec![-1i64; n];
    let mut dq: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    let mut pushed = 0usize;
    let mut cur_part = usize::MAX;
    for k in 0..n {
        if inp.part_of[k] != cur_part {
            cur_part = inp.part_of[k];
            dq.clear();
            pushed = inp.seg[cur_part];
        }
        while pushed < hi[k] {
            let v = f[pushed];
            if !v.is_nan() {
                // keep the first of equal extremes (imin/imax: leftmost)
                while let Some(&b) = dq.back() {
                    if (is_max && f[b] < v) || (!is_max && f[b] > v) {
                        dq.pop_back();
                    } else {
                        break;
                    }
                }
                dq.push_back(pushed);
            }
            pushed += 1;
        }
        while let Some(&b) = dq.front() {
            if b < lo[k] {
                dq.pop_front();
            } else {
                break;
            }
        }
        best[k] = dq.front().map(|&b| b as i64).unwrap_or(-1);
    }
    if index {
        Ok(Column::from_vec(DataType::Long, (0..n).map(|k| if best[k] < 0 { i64::MIN } else { best[k] - lo[k] as i64 }).collect::<Vec<i64>>()))
    } else {
        Ok(x.take(&best))
    }
}

pub fn min(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    extreme(inp, lo, hi, false, false)
}
pub fn max(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    extreme(inp, lo, hi, true, false)
}
pub fn imin(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    extreme(inp, lo, hi, false, true)
}
pub fn imax(inp: &OverInput, lo: &[usize], hi: &[usize]) -> Result<Column> {
    extreme(inp, lo, hi, true, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `window.rs` looks rows up by the lower-cased name, so a row spelled otherwise or
    /// listed twice could never be reached.
    #[test]
    fn rows_are_lower_case_and_unique() {
        for (k, r) in OVER_ROWS.iter().enumerate() {
            assert_eq!(r.name, r.name.to_ascii_lowercase());
            assert!(OVER_ROWS[..k].iter().all(|q| q.name != r.name), "{} listed twice", r.name);
            assert!(over_row(r.name).is_some());
        }
        assert!(over_row("sum").is_none(), "aggregates carry their kernel on their builtin row");
    }
}
