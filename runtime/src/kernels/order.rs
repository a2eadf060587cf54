//! Stable multi-key sorting, the one sorting kernel for SQL (order by, csort, ordering of
//! groups) and for the sorting builtins (sort, isort, rank, ...). Each key is turned into an
//! order-preserving `u64` code once (integers and temporals by value, floats by their total
//! order, strings and symbols by rank; null is 0), so the comparator never looks at types.

use crate::column::{ColData, Column};
use crate::error::{Error, Result};
use crate::null::Native;
use rayon::prelude::*;
use std::cmp::Ordering;

/// One sort key: a column, direction and null placement (None = nulls smallest).
pub struct SortKey<'a> {
    pub col: &'a Column,
    pub asc: bool,
    pub nulls_first: Option<bool>,
}

/// Order codes of a column: non-null values map to codes that compare like the values.
pub struct Codes {
    pub code: Vec<u64>,
    pub null: Vec<bool>,
}

const SIGN: u64 = 1 << 63;

/// The code of -Infinity: the smallest non-null float code. The manual puts -inf below NULL
/// (progr/data_mani/sort_null.md: `-float("inf") < NULL` is true), so where NULL takes its
/// default place (the smallest value) a -inf goes before it: first ascending, last
/// descending. Explicit NULLS FIRST/LAST place NULL at the very end given.
const NEG_INF_KEY: u64 = !f64::NEG_INFINITY.to_bits();

fn is_float(c: &Column) -> bool {
    matches!(&*c.data, ColData::F64(_) | ColData::F32(_))
}

#[inline(always)]
fn int_key<T: Native>(x: T) -> u64 {
    if x.is_null() { 0 } else { (x.to_i64() as u64) ^ SIGN }
}

/// Floats by their total order (-0.0 equals 0.0); the NULL sentinel is 0. A NaN is a value
/// of its own, above +Infinity (every NaN payload is one value), as numpy sorts it: the
/// manual places NULL first and -inf below NULL and says nothing of NaN (tests/DISPUTED.md).
#[inline(always)]
fn float_key(x: f64) -> u64 {
    if x.is_nan() {
        return f64::NAN.to_bits() | SIGN;
    }
    if x.is_null() {
        return 0;
    }
    let b = (x + 0.0).to_bits();
    if b & SIGN != 0 { !b } else { b | SIGN }
}

/// Dense 1-based ranks of `n` items ordered by `cmp` (null items, flagged by `is_null`, get 0).
fn dense_keys_by(n: usize, is_null: impl Fn(usize) -> bool, cmp: impl Fn(usize, usize) -> Ordering) -> Vec<u64> {
    let mut idx: Vec<usize> = (0..n).filter(|&i| !is_null(i)).collect();
    let poll = crate::guard::Poll::new();
    idx.sort_by(|&a, &b| {
        poll.now();
        cmp(a, b)
    });
    let mut out = vec![0u64; n];
    let mut rank = 0u64;
    for (k, &i) in idx.iter().enumerate() {
        if k == 0 || cmp(idx[k - 1], i) != Ordering::Equal {
            rank += 1;
        }
        out[i] = rank;
    }
    out
}

/// Order-preserving keys of every element: equal values get equal keys, null gets 0 and
/// every non-null value a key above 0 (integers and temporals by value, floats by total
/// order, INT128-backed types unsigned, strings and symbols by dense byte-order rank).
pub fn sort_keys(c: &Column) -> Vec<u64> {
    use crate::guard::map_polled;
    crate::match_int!(&*c.data, v => map_polled(v, |&x| int_key(x)),
        ColData::F32(v) => map_polled(v, |&x| if crate::null::is_null_strict(x) { 0 } else { float_key(x as f64) }),
        ColData::F64(v) => map_polled(v, |&x| float_key(x)),
        ColData::I128(v) => dense_keys_by(v.len(), |i| v[i] == 0, |a, b| (v[a] as u128).cmp(&(v[b] as u128))),
        ColData::Str(s) => dense_keys_by(s.len(), |i| s.get(i).is_empty(), |a, b| s.get(a).cmp(s.get(b))),
        ColData::Sym(s) => {
            // rank the symbol base once, then map codes
            let names = &s.dict.names;
            let rank = dense_keys_by(names.len(), |i| names[i].is_empty(), |a, b| names[a].cmp(&names[b]));
            map_polled(&s.codes, |&c| rank.get(c as usize).copied().unwrap_or(0))
        },
        // array rows order lexicographically by their elements' keys (an empty row is null)
        ColData::Array(a) => {
            let k = sort_keys(&a.data);
            let row = |i: usize| &k[a.offsets[i]..a.offsets[i + 1]];
            dense_keys_by(a.rows(), |i| a.row_len(i) == 0, |x, y| row(x).cmp(row(y)))
        }
    )
}

/// `sort_keys` with the null flags split out (a key of 0 is exactly a null).
pub fn codes(c: &Column) -> Codes {
    let code = sort_keys(c);
    let null = code.iter().map(|&k| k == 0).collect();
    Codes { code, null }
}

/// Stable argsort of keys (ascending, or descending with nulls last).
pub fn argsort_keys(keys: &[u64], asc: bool) -> Vec<usize> {
    if keys.len() > u32::MAX as usize {
        let mut idx: Vec<usize> = (0..keys.len()).collect();
        let poll = crate::guard::Poll::new();
        idx.sort_by_key(|&i| {
            poll.now();
            if asc { keys[i] } else { !keys[i] }
        });
        return idx;
    }
    // (key, position) pairs: sorting them unstably is a stable sort of the keys
    // every O(n) step polls: at tens of millions each runs for most of a second
    let flip = if asc { 0 } else { u64::MAX };
    let mut p: Vec<(u64, u32)> = crate::guard::collect_chunked(keys.len(), |r, out| out.extend(r.clone().map(|i| (keys[i] ^ flip, i as u32))));
    sort_pairs(&mut p, &mut Vec::new());
    crate::guard::map_polled(&p, |&(_, i)| i as usize)
}

/// Pairs from which [`sort_pairs`] sorts by radix instead of comparisons.
const RADIX_MIN: usize = 1 << 12;

/// Sort (key, position) pairs whose positions ascend in input order into (key, position)
/// order, i.e. stably by key. The keys are taken relative to their minimum, so only the
/// bits in which they differ count: when those and the position's bits fit in 64, each
/// pair is packed into one `u64` (half the bytes to move, one integer compare); `packed`
/// is scratch for that (reused across calls by per-row callers). From [`RADIX_MIN`] pairs
/// an LSD radix sort on digits of up to 11 bits (doubles of one sign and a few binades:
/// 5 passes instead of 8 bytewise), below it `sort_unstable`. Each radix pass tests the
/// session's interrupt flag.
pub fn sort_pairs(p: &mut Vec<(u64, u32)>, packed: &mut Vec<u64>) {
    let n = p.len();
    if n < 2 {
        return;
    }
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for piece in p.chunks(crate::guard::CHUNK) {
        crate::guard::poll();
        for &(k, _) in piece {
            lo = lo.min(k);
            hi = hi.max(k);
        }
    }
    let kbits = 64 - (hi - lo).leading_zeros();
    if kbits == 0 {
        return; // one key: input order is the order
    }
    let poll = crate::guard::Poll::new();
    let pbits = 32 - p[n - 1].1.max(1).leading_zeros();
    if kbits + pbits <= 64 {
        packed.clear();
        for piece in p.chunks(crate::guard::CHUNK) {
            poll.now();
            packed.extend(piece.iter().map(|&(k, i)| ((k - lo) << pbits) | i as u64));
        }
        if n >= RADIX_MIN {
            radix_sort(packed, |&e| e >> pbits, kbits, &poll);
        } else {
            packed.sort_unstable();
        }
        let mask = (1u64 << pbits) - 1;
        for (dp, ep) in p.chunks_mut(crate::guard::CHUNK).zip(packed.chunks(crate::guard::CHUNK)) {
            poll.now();
            for (d, &e) in dp.iter_mut().zip(ep) {
                *d = ((e >> pbits) + lo, (e & mask) as u32);
            }
        }
    } else if n >= RADIX_MIN {
        radix_sort(p, |e| e.0 - lo, kbits, &poll);
    } else {
        p.sort_unstable();
    }
}

/// Stable LSD radix sort of `v` by `key(e)`, a number below `2^bits` (bits >= 1): the
/// fewest passes of at most 11-bit digits, all histograms in one pass, and a digit in
/// which every key agrees skipped. O(n) per pass against the O(n log n) comparisons of a
/// sort (1M doubles: ~4x faster).
fn radix_sort<T: Copy + Default>(v: &mut Vec<T>, key: impl Fn(&T) -> u64, bits: u32, poll: &crate::guard::Poll) {
    const MAX_DIGIT: u32 = 11;
    let n = v.len();
    let passes = bits.div_ceil(MAX_DIGIT) as usize;
    let digit = bits.div_ceil(passes as u32);
    let (size, mask) = (1usize << digit, (1u64 << digit) - 1);
    let mut hist = vec![0u32; passes * size];
    // the flag is tested every POLL_ROWS elements, so an interrupt of a sort of tens of
    // millions waits for a fraction of one pass, not for the histogram or a whole pass
    const POLL_ROWS: usize = 1 << 20;
    for piece in v.chunks(POLL_ROWS) {
        poll.now();
        for e in piece {
            let k = key(e);
            for (d, h) in hist.chunks_exact_mut(size).enumerate() {
                h[((k >> (digit as usize * d)) & mask) as usize] += 1;
            }
        }
    }
    // the scratch half is hundreds of MB of fresh pages at tens of millions: filled in
    // polled chunks too
    let mut other: Vec<T> = crate::guard::collect_chunked(n, |r, out| out.resize(out.len() + r.len(), T::default()));
    let mut in_v = true;
    for (d, h) in hist.chunks_exact(size).enumerate() {
        if h.iter().any(|&c| c as usize == n) {
            continue;
        }
        poll.now();
        let mut off = vec![0usize; size];
        let mut acc = 0usize;
        for (o, &c) in off.iter_mut().zip(h) {
            *o = acc;
            acc += c as usize;
        }
        let (src, dst): (&[T], &mut [T]) = if in_v { (&v[..], &mut other[..]) } else { (&other[..], &mut v[..]) };
        let shift = digit as usize * d;
        for piece in src.chunks(POLL_ROWS) {
            poll.now();
            for e in piece {
                let b = ((key(e) >> shift) & mask) as usize;
                dst[off[b]] = *e;
                off[b] += 1;
            }
        }
        in_v = !in_v;
    }
    if !in_v {
        *v = other;
    }
}

/// Stable argsort of a column (nulls first ascending, last descending; a float -inf below
/// NULL, see [`NEG_INF_KEY`]).
pub fn argsort(c: &Column, asc: bool) -> Vec<usize> {
    let keys = sort_keys(c);
    let mut idx = argsort_keys(&keys, asc);
    if is_float(c) {
        // the nulls and the -inf block are adjacent: swap the two blocks
        let nn = keys.iter().filter(|&&k| k == 0).count();
        let ni = keys.iter().filter(|&&k| k == NEG_INF_KEY).count();
        if nn > 0 && ni > 0 {
            if asc {
                idx[..nn + ni].rotate_left(nn);
            } else {
                let n = idx.len();
                idx[n - nn - ni..].rotate_left(ni);
            }
        }
    }
    idx
}

/// Stable lexicographic argsort over several key columns of equal length; `asc` gives the
/// direction per key (the last entry repeats for further keys).
pub fn argsort_multi(cols: &[Column], asc: &[bool]) -> Result<Vec<usize>> {
    let n = cols.first().map(|c| c.len()).unwrap_or(0);
    if cols.iter().any(|c| c.len() != n) {
        return Err(Error::size("All sort keys must have the same length"));
    }
    if cols.len() == 1 {
        return Ok(argsort(&cols[0], asc.first().copied().unwrap_or(true)));
    }
    let last = asc.last().copied().unwrap_or(true);
    let keys: Vec<SortKey> =
        cols.iter().enumerate().map(|(k, col)| SortKey { col, asc: asc.get(k).copied().unwrap_or(last), nulls_first: None }).collect();
    Ok(sort_perm(&keys, n))
}

struct Prepared {
    codes: Codes,
    asc: bool,
    nulls_first: bool,
    /// a float key with NULL in its default place: -inf sorts below NULL
    inf_low: bool,
}

impl Prepared {
    #[inline]
    fn cmp(&self, a: usize, b: usize) -> Ordering {
        match (self.codes.null[a], self.codes.null[b]) {
            (true, true) => Ordering::Equal,
            (true, false) if self.inf_low && self.codes.code[b] == NEG_INF_KEY => {
                if self.asc { Ordering::Greater } else { Ordering::Less }
            }
            (false, true) if self.inf_low && self.codes.code[a] == NEG_INF_KEY => {
                if self.asc { Ordering::Less } else { Ordering::Greater }
            }
            (true, false) => {
                if self.nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (false, true) => {
                if self.nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            _ => {
                let o = self.codes.code[a].cmp(&self.codes.code[b]);
                if self.asc {
                    o
                } else {
                    o.reverse()
                }
            }
        }
    }
}

const PAR_SORT_MIN: usize = 1 << 16;

fn prepare(keys: &[SortKey]) -> Vec<Prepared> {
    keys.iter()
        .map(|k| Prepared {
            codes: codes(k.col),
            asc: k.asc,
            // nulls are the smallest value: first ascending, last descending
            nulls_first: k.nulls_first.unwrap_or(k.asc),
            inf_low: k.nulls_first.is_none() && is_float(k.col),
        })
        .collect()
}

/// One key folded into a single sortable number: null placement, then the direction-adjusted code.
fn wide_key(p: &Prepared, r: usize) -> u128 {
    if p.codes.null[r] {
        if p.nulls_first { p.inf_low as u128 } else { 2u128 << 64 }
    } else if p.inf_low && p.codes.code[r] == NEG_INF_KEY {
        if p.asc { 0 } else { (2u128 << 64) + 1 }
    } else {
        let c = if p.asc { p.codes.code[r] } else { !p.codes.code[r] };
        (1u128 << 64) | c as u128
    }
}

/// Stable sort of the row indices `rows` by the keys. With one key the rows are sorted as
/// (key, position) pairs without a comparator closure; several keys compare key by key.
pub fn sort_rows(keys: &[SortKey], rows: &mut [usize]) {
    sort_rows_top(keys, rows, usize::MAX)
}

/// Like `sort_rows`, but only the first `k` positions need to be in order (top-N): a
/// selection step puts the k smallest first, then only those are sorted.
pub fn sort_rows_top(keys: &[SortKey], rows: &mut [usize], k: usize) {
    if keys.is_empty() || rows.len() < 2 {
        return;
    }
    if k > 0 && k <= STREAM_TOP_MAX && rows.len() >= STREAM_TOP_MIN_ROWS && k < rows.len() / 4 && stream_top(keys, rows, k) {
        return;
    }
    sort_rows_prefix(keys, rows, k)
}

/// Top-N queries ask for at most this many rows to go through the streaming selection.
const STREAM_TOP_MAX: usize = 1 << 12;
/// Below this many rows the plain selection is as cheap.
pub(crate) const STREAM_TOP_MIN_ROWS: usize = 1 << 12;

/// Top-N by one streaming pass over the first key, computed per row on the fly (no code
/// vector, no pair vector of the whole input): a buffer of at most `2k` candidates is cut
/// back to the best `k` whenever it fills, and the worst kept key becomes a threshold that
/// rejects most rows with one comparison. With one key that decides the answer; with more,
/// every row tying the threshold stays a candidate and the candidates (gathered into small
/// key columns) are sorted by all keys. False when the first key's type has no per-row
/// code or ties overflow the buffer: the caller then sorts the ordinary way.
fn stream_top(keys: &[SortKey], rows: &mut [usize], k: usize) -> bool {
    let exact = keys.len() == 1;
    let Some(mut cand) = first_key_candidates(&keys[0], rows, k, exact) else {
        return false;
    };
    if exact {
        if cand.len() > k {
            cand.select_nth_unstable(k - 1);
            cand.truncate(k);
        }
        cand.sort_unstable();
        let sorted: Vec<usize> = cand.iter().map(|&(_, pos)| rows[pos]).collect();
        rows[..sorted.len()].copy_from_slice(&sorted);
        return true;
    }
    // candidates in input order keep the sort stable
    let mut pos: Vec<usize> = cand.iter().map(|&(_, p)| p).collect();
    pos.sort_unstable();
    let sub: Vec<usize> = pos.iter().map(|&p| rows[p]).collect();
    let cols: Vec<Column> = keys.iter().map(|key| key.col.take_usize(&sub)).collect();
    let sub_keys: Vec<SortKey> = keys.iter().zip(&cols).map(|(key, c)| SortKey { col: c, asc: key.asc, nulls_first: key.nulls_first }).collect();
    let mut local: Vec<usize> = (0..sub.len()).collect();
    sort_rows_prefix(&sub_keys, &mut local, k);
    let take = k.min(local.len());
    for (dst, &l) in rows[..take].iter_mut().zip(&local[..take]) {
        *dst = sub[l];
    }
    true
}

/// The rows (as (wide key, position in `rows`)) that can be among the first `k` by one key.
fn first_key_candidates(key: &SortKey, rows: &[usize], k: usize, exact: bool) -> Option<Vec<(u128, usize)>> {
    let (asc, nf) = (key.asc, key.nulls_first.unwrap_or(key.asc));
    let inf_low = key.nulls_first.is_none() && is_float(key.col);
    let wide = move |null: bool, code: u64| -> u128 {
        if null {
            if nf { inf_low as u128 } else { 2u128 << 64 }
        } else if inf_low && code == NEG_INF_KEY {
            if asc { 0 } else { (2u128 << 64) + 1 }
        } else {
            (1u128 << 64) | (if asc { code } else { !code }) as u128
        }
    };
    crate::match_int!(&*key.col.data, v => candidates(rows, k, exact, |r| {
            let x = v[r];
            wide(x.is_null(), int_key(x))
        }),
        ColData::F64(v) => candidates(rows, k, exact, |r| {
            let x = v[r];
            wide(crate::null::is_null_strict(x), float_key(x))
        }),
        ColData::F32(v) => candidates(rows, k, exact, |r| {
            let x = v[r];
            wide(crate::null::is_null_strict(x), float_key(x as f64))
        }),
        ColData::Sym(s) => {
            let names = &s.dict.names;
            let rank = dense_keys_by(names.len(), |i| names[i].is_empty(), |a, b| names[a].cmp(&names[b]));
            candidates(rows, k, exact, |r| {
                let c = s.codes[r] as usize;
                wide(names[c].is_empty(), rank[c])
            })
        },
        _ => None,
    )
}

/// The streaming selection behind `first_key_candidates` (see `stream_top`).
fn candidates(rows: &[usize], k: usize, exact: bool, key: impl Fn(usize) -> u128) -> Option<Vec<(u128, usize)>> {
    let cap = (2 * k).max(64);
    let mut buf: Vec<(u128, usize)> = Vec::with_capacity(cap + 1);
    let mut thr = u128::MAX;
    let mut have_thr = false;
    for (pos, &r) in rows.iter().enumerate() {
        let w = key(r);
        // a later row loses a tie with the k-th kept row when the key is the whole order
        if have_thr && (w > thr || (exact && w == thr)) {
            continue;
        }
        buf.push((w, pos));
        if buf.len() >= cap {
            buf.select_nth_unstable(k - 1);
            thr = buf[k - 1].0;
            have_thr = true;
            if exact {
                buf.truncate(k);
            } else {
                buf.retain(|&(x, _)| x <= thr);
                // many ties at the threshold: cutting back would repeat too often
                if buf.len() * 4 > cap * 3 {
                    return None;
                }
            }
        }
    }
    Some(buf)
}

/// `sort_rows_top` without the streaming path.
fn sort_rows_prefix(keys: &[SortKey], rows: &mut [usize], k: usize) {
    if keys.is_empty() || rows.len() < 2 {
        return;
    }
    let prepared = prepare(keys);
    let n = rows.len();
    // every comparison tests the session's interrupt flag (one relaxed load); an interrupt
    // unwinds out of the sort, on rayon's workers too (guard::catch / exec_top catch it)
    let poll = crate::guard::Poll::new();
    let top = k < n / 4;
    if prepared.len() == 1 {
        let p = &prepared[0];
        let mut pairs: Vec<(u128, usize)> = rows.iter().enumerate().map(|(pos, &r)| (wide_key(p, r), pos)).collect();
        let cmp = |a: &(u128, usize), b: &(u128, usize)| {
            poll.now();
            a.cmp(b)
        };
        select_sort(&mut pairs, top, k, cmp);
        let sorted: Vec<usize> = pairs.iter().map(|&(_, pos)| rows[pos]).collect();
        rows[..sorted.len()].copy_from_slice(&sorted);
        return;
    }
    let cmp = |a: &(usize, usize), b: &(usize, usize)| {
        poll.now();
        for p in &prepared {
            let o = p.cmp(a.0, b.0);
            if o != Ordering::Equal {
                return o;
            }
        }
        a.1.cmp(&b.1)
    };
    let mut pairs: Vec<(usize, usize)> = rows.iter().enumerate().map(|(pos, &r)| (r, pos)).collect();
    select_sort(&mut pairs, top, k, cmp);
    for (dst, (r, _)) in rows.iter_mut().zip(pairs) {
        *dst = r;
    }
}

/// Keep only the `k` smallest of `pairs` when `top`, then sort what is kept (on rayon when
/// long): the one selection-then-sort step both key layouts of `sort_rows_prefix` share.
fn select_sort<T: Send>(pairs: &mut Vec<T>, top: bool, k: usize, cmp: impl Fn(&T, &T) -> Ordering + Sync) {
    if top {
        pairs.select_nth_unstable_by(k, &cmp);
        pairs.truncate(k);
    }
    if pairs.len() >= PAR_SORT_MIN {
        pairs.par_sort_unstable_by(&cmp);
    } else {
        pairs.sort_unstable_by(&cmp);
    }
}

/// Permutation that sorts all rows of equal-length key columns.
pub fn sort_perm(keys: &[SortKey], n: usize) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..n).collect();
    sort_rows(keys, &mut rows);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    #[test]
    fn nulls_and_directions() {
        let c = Column::from_vec(DataType::Int, vec![5, 3, i32::NULL, i32::NULL, 1, 6, 8]);
        let k = |asc, nf| vec![SortKey { col: &c, asc, nulls_first: nf }];
        assert_eq!(sort_perm(&k(true, None), 7), vec![2, 3, 4, 1, 0, 5, 6]);
        assert_eq!(sort_perm(&k(true, Some(false)), 7), vec![4, 1, 0, 5, 6, 2, 3]);
        assert_eq!(sort_perm(&k(false, None), 7), vec![6, 5, 0, 1, 4, 2, 3]);
        assert_eq!(sort_perm(&k(false, Some(true)), 7), vec![2, 3, 6, 5, 0, 1, 4]);
        let f = Column::from_vec(DataType::Double, vec![-1.5, 2.0, -0.0, f64::NULL]);
        assert_eq!(sort_perm(&[SortKey { col: &f, asc: true, nulls_first: None }], 4), vec![3, 0, 2, 1]);
        // -inf below NULL (progr/data_mani/sort_null.md) unless NULLS FIRST/LAST is given
        let g = Column::from_vec(DataType::Double, vec![1.0, f64::NULL, f64::NEG_INFINITY, f64::NULL, f64::NEG_INFINITY]);
        let fk = |asc, nf| vec![SortKey { col: &g, asc, nulls_first: nf }];
        assert_eq!(sort_perm(&fk(true, None), 5), vec![2, 4, 1, 3, 0]);
        assert_eq!(sort_perm(&fk(false, None), 5), vec![0, 1, 3, 2, 4]);
        assert_eq!(sort_perm(&fk(true, Some(true)), 5), vec![1, 3, 2, 4, 0]);
        assert_eq!(argsort(&g, true), vec![2, 4, 1, 3, 0]);
        assert_eq!(argsort(&g, false), vec![0, 1, 3, 2, 4]);
        // the two-key comparator path
        let id = Column::from_vec(DataType::Int, vec![1, 1, 1, 1, 1]);
        let two = vec![SortKey { col: &id, asc: true, nulls_first: None }, SortKey { col: &g, asc: true, nulls_first: None }];
        assert_eq!(sort_perm(&two, 5), vec![2, 4, 1, 3, 0]);
    }
}

#[cfg(test)]
mod radix_tests {
    use super::*;

    /// The radix path against the comparison sort of the same pairs: duplicates, keys that
    /// differ only in one byte, the full range, odd lengths around the threshold.
    #[test]
    fn radix_argsort_equals_comparison_sort() {
        for n in [2, 3, 150, RADIX_MIN - 1, RADIX_MIN, RADIX_MIN + 1, 100_003] {
            let families: Vec<Vec<u64>> = vec![
                (0..n as u64).map(|i| (i * 7919) % 97).collect(),
                (0..n as u64).map(|i| 0x4000_0000_0000_0000 | ((i * 104729) % 251) << 16).collect(),
                (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect(),
                (0..n as u64).map(|i| if i % 3 == 0 { 0 } else { u64::MAX - i % 5 }).collect(),
                vec![42; n],
                // doubles 1..101 (a 55-bit key range: packed below RADIX_MIN, 11-bit digits above)
                (0..n as u64).map(|i| float_key(((i * 7919) % 10007) as f64 / 100.0 + 1.0)).collect(),
                // a range that needs exactly 64 - position bits, and one bit more
                (0..n as u64).map(|i| (i % 7) << (64 - (32 - (n as u32 - 1).leading_zeros()) - 3)).collect(),
                (0..n as u64).map(|i| (i % 7) << (64 - (32 - (n as u32 - 1).leading_zeros()) - 2)).collect(),
            ];
            for keys in families {
                for asc in [true, false] {
                    let mut want: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, &k)| (if asc { k } else { !k }, i as u32)).collect();
                    want.sort_unstable();
                    let want: Vec<usize> = want.into_iter().map(|(_, i)| i as usize).collect();
                    assert_eq!(argsort_keys(&keys, asc), want, "n={n} asc={asc}");
                    // the pair sort itself, without and with room to pack
                    let mut p: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, &k)| (if asc { k } else { !k }, i as u32)).collect();
                    sort_pairs(&mut p, &mut Vec::new());
                    assert_eq!(p.iter().map(|&(_, i)| i as usize).collect::<Vec<_>>(), want);
                    assert!(p.iter().all(|&(k, i)| k == if asc { keys[i as usize] } else { !keys[i as usize] }));
                }
            }
        }
    }
}
