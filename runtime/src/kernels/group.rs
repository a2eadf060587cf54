//! Group ids (the one grouping kernel, used by SQL `group by`/`context by`/pivot/joins
//! and by the grouping builtins): every row gets the dense id of its key combination, ids numbered in order of
//! first appearance. One typed pass per key column (run detection when the column is
//! sorted, a direct-index table for small integer ranges and symbols, ahash otherwise),
//! then pairwise combination of the per-key ids.

use crate::column::{ColData, Column};
use crate::null::Native;
use ahash::AHashMap;
use std::borrow::Cow;
use std::hash::Hash;

/// Group id per row, number of groups and the first row of each group.
#[derive(Clone, Debug, Default)]
pub struct Groups {
    pub gid: Vec<u32>,
    pub n: usize,
    pub first: Vec<usize>,
}

impl Groups {
    /// Rows per group.
    pub fn sizes(&self) -> Vec<usize> {
        let mut s = vec![0usize; self.n];
        for &g in &self.gid {
            s[g as usize] += 1;
        }
        s
    }
}

const UNSET: u32 = u32::MAX;

fn by_map<K: Hash + Eq>(n: usize, key: impl Fn(usize) -> K) -> (Vec<u32>, usize) {
    let mut map: AHashMap<K, u32> = AHashMap::new();
    let mut ids = Vec::with_capacity(n);
    // hashing a big key column is interruptible: the flag is tested every guard::CHUNK rows
    let poll = crate::guard::Poll::new();
    for r in 0..n {
        poll.at(r);
        let next = map.len() as u32;
        ids.push(*map.entry(key(r)).or_insert(next));
    }
    let k = map.len();
    (ids, k)
}

fn by_table(n: usize, size: usize, slot: impl Fn(usize) -> usize) -> (Vec<u32>, usize) {
    let mut table = vec![UNSET; size];
    let mut ids = Vec::with_capacity(n);
    let mut k = 0u32;
    let poll = crate::guard::Poll::new();
    for r in 0..n {
        poll.at(r);
        let s = &mut table[slot(r)];
        if *s == UNSET {
            *s = k;
            k += 1;
        }
        ids.push(*s);
    }
    (ids, k as usize)
}

/// Integers: runs when sorted, a table when the value range is small, else a hash map.
fn ints<T: Native + Into<i64>>(v: &[T]) -> (Vec<u32>, usize) {
    let n = v.len();
    if n == 0 {
        return (vec![], 0);
    }
    if v.windows(2).all(|w| w[0] <= w[1]) {
        let mut ids = Vec::with_capacity(n);
        let mut k = 0u32;
        ids.push(0);
        for w in v.windows(2) {
            if w[0] != w[1] {
                k += 1;
            }
            ids.push(k);
        }
        return (ids, k as usize + 1);
    }
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for &x in v {
        let x: i64 = x.into();
        lo = lo.min(x);
        hi = hi.max(x);
    }
    let range = (hi as i128 - lo as i128) as u128 + 1;
    if range <= (4 * n as u128).max(1 << 12) && range <= 1 << 24 {
        return by_table(n, range as usize, |r| (Into::<i64>::into(v[r]) - lo) as usize);
    }
    by_map(n, |r| Into::<i64>::into(v[r]))
}

/// Float keys: the NULL sentinels are one key, every NaN is one other key (a NaN is a value,
/// tests/DISPUTED.md), -0.0 equals 0.0.
fn floats(v: &[f64]) -> (Vec<u32>, usize) {
    by_map(v.len(), |r| {
        let x = v[r];
        if x.is_nan() {
            f64::NAN.to_bits()
        } else if x.is_null() {
            u64::MAX
        } else {
            (x + 0.0).to_bits()
        }
    })
}

/// Dense first-appearance ids of one key column.
pub fn dense_ids(c: &Column) -> (Vec<u32>, usize) {
    let n = c.len();
    match &*c.data {
        ColData::I8(v) => by_table(n, 256, |r| v[r] as u8 as usize),
        ColData::I16(v) => by_table(n, 65536, |r| v[r] as u16 as usize),
        ColData::I32(v) => ints(v),
        ColData::I64(v) => ints(v),
        ColData::F32(v) => {
            let w: Vec<f64> = v.iter().map(|&x| if crate::null::is_null_strict(x) { f64::NULL } else { x as f64 }).collect();
            floats(&w)
        }
        ColData::F64(v) => floats(v),
        ColData::I128(v) => by_map(n, |r| v[r]),
        ColData::Sym(s) => {
            // codes may differ for equal text only across dictionaries; within one column they are unique
            let size = s.dict.names.len();
            by_table(n, size.max(1), |r| s.codes[r] as usize)
        }
        ColData::Str(s) => by_map(n, |r| s.get(r)),
        // array rows group by their whole content
        ColData::Array(a) => by_map(n, |r| crate::elemfmt::array_row_text(a, r)),
    }
}

/// Combine two id vectors into ids of the pair, first-appearance order.
fn combine(a: &[u32], na: usize, b: &[u32], nb: usize) -> (Vec<u32>, usize) {
    let n = a.len();
    let prod = na as u128 * nb as u128;
    if prod <= (4 * n as u128).max(1 << 12) && prod <= 1 << 26 {
        return by_table(n, prod as usize, |r| a[r] as usize * nb + b[r] as usize);
    }
    by_map(n, |r| ((a[r] as u64) << 32) | b[r] as u64)
}

/// A key column seen as a small dense slot per row (`0..size`), computed on the fly, or
/// first-appearance ids when its values are not a small dense range.
enum Slots<'a> {
    Codes(&'a [u32]),
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32], i64),
    I64(&'a [i64], i64),
    Ids(Vec<u32>),
}

impl<'a> Slots<'a> {
    /// The slot of every row (symbol codes and ids as they are, integers offset).
    fn into_vec(self) -> Cow<'a, [u32]> {
        use super::par::map_rows;
        match self {
            Slots::Codes(v) => Cow::Borrowed(v),
            Slots::Ids(v) => Cow::Owned(v),
            Slots::I8(v) => Cow::Owned(map_rows(v.len(), |r| v[r] as u8 as u32)),
            Slots::I16(v) => Cow::Owned(map_rows(v.len(), |r| v[r] as u16 as u32)),
            Slots::I32(v, lo) => Cow::Owned(map_rows(v.len(), |r| (v[r] as i64 - lo) as u32)),
            Slots::I64(v, lo) => Cow::Owned(map_rows(v.len(), |r| (v[r] - lo) as u32)),
        }
    }
}

/// Largest direct-index table for `n` rows.
fn table_limit(n: usize) -> u128 {
    ((4 * n as u128).max(1 << 12)).min(1 << 26)
}

fn min_max<T: Native + Into<i64>>(v: &[T]) -> (i64, i64) {
    let fold = |s: &[T]| s.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &x| {
        let x: i64 = x.into();
        (lo.min(x), hi.max(x))
    });
    if v.len() < super::par::PAR_MIN {
        return fold(v);
    }
    use rayon::prelude::*;
    v.par_chunks(v.len().div_ceil(8)).map(fold).reduce(|| (i64::MAX, i64::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)))
}

/// Run ids of an ascending column (None when it is not sorted), in parallel chunks.
fn sorted_runs<T: Native>(v: &[T]) -> Option<(Vec<u32>, usize)> {
    use rayon::prelude::*;
    let n = v.len();
    if n == 0 {
        return Some((vec![], 0));
    }
    let parts = super::par::chunks_for(n) * 4;
    let chunk = n.div_ceil(parts).max(1);
    // per chunk: sorted inside and against the previous element, and the number of changes
    let stats: Vec<Option<u32>> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let (s, e) = (c * chunk, ((c + 1) * chunk).min(n));
            let mut changes = 0u32;
            for r in s.max(1)..e {
                if v[r - 1] > v[r] {
                    return None;
                }
                changes += u32::from(v[r - 1] != v[r]);
            }
            Some(changes)
        })
        .collect();
    let mut base = Vec::with_capacity(stats.len());
    let mut acc = 0u32;
    for s in &stats {
        base.push(acc);
        acc += (*s)?;
    }
    let mut ids = vec![0u32; n];
    ids.par_chunks_mut(chunk).enumerate().for_each(|(c, out)| {
        let s = c * chunk;
        let mut k = base[c];
        for (j, o) in out.iter_mut().enumerate() {
            let r = s + j;
            if r > 0 && v[r - 1] != v[r] {
                k += 1;
            }
            *o = k;
        }
    });
    Some((ids, acc as usize + 1))
}

fn key_slots(c: &Column) -> (Slots<'_>, usize) {
    let n = c.len();
    let small = |lo: i64, hi: i64| {
        let range = (hi as i128 - lo as i128) as u128 + 1;
        (n > 0 && range <= (4 * n as u128).max(1 << 12) && range <= 1 << 24).then_some(range as usize)
    };
    match &*c.data {
        ColData::I8(v) => (Slots::I8(v), 256),
        ColData::I16(v) => (Slots::I16(v), 65536),
        ColData::I32(v) => {
            let (lo, hi) = min_max(v);
            match small(lo, hi) {
                Some(size) => (Slots::I32(v, lo), size),
                None => {
                    let (ids, k) = sorted_runs(v).unwrap_or_else(|| ints(v));
                    (Slots::Ids(ids), k)
                }
            }
        }
        ColData::I64(v) => {
            let (lo, hi) = min_max(v);
            match small(lo, hi) {
                Some(size) => (Slots::I64(v, lo), size),
                None => {
                    let (ids, k) = sorted_runs(v).unwrap_or_else(|| ints(v));
                    (Slots::Ids(ids), k)
                }
            }
        }
        // codes may differ for equal text only across dictionaries; within one column they are unique
        ColData::Sym(s) => (Slots::Codes(&s.codes), s.dict.names.len().max(1)),
        _ => {
            let (ids, k) = dense_ids(c);
            (Slots::Ids(ids), k)
        }
    }
}

/// First-appearance numbering of per-row slots `0..size`: ids, number of ids and the first
/// row of each id. Large inputs run in parallel chunks (first rows merged by minimum, so
/// the numbering is the same as a sequential pass).
fn number_slots(slots: &[u32], size: usize) -> Groups {
    let n = slots.len();
    let parts = super::par::chunks_for(n);
    if parts == 1 || size.saturating_mul(parts) > n {
        let mut table = vec![UNSET; size];
        let mut gid = Vec::with_capacity(n);
        let mut first = Vec::new();
        let poll = crate::guard::Poll::new();
        for (r, &x) in slots.iter().enumerate() {
            poll.at(r);
            let s = &mut table[x as usize];
            if *s == UNSET {
                *s = first.len() as u32;
                first.push(r);
            }
            gid.push(*s);
        }
        let k = first.len();
        return Groups { gid, n: k, first };
    }
    use rayon::prelude::*;
    let chunk = n.div_ceil(parts);
    let poll = crate::guard::Poll::new();
    let firsts: Vec<Vec<usize>> = slots
        .par_chunks(chunk)
        .enumerate()
        .map(|(p, part)| {
            let mut t = vec![usize::MAX; size];
            for (j, &x) in part.iter().enumerate() {
                poll.at(j);
                let s = &mut t[x as usize];
                if *s == usize::MAX {
                    *s = p * chunk + j;
                }
            }
            t
        })
        .collect();
    let mut order: Vec<(usize, usize)> = Vec::new();
    for s in 0..size {
        let r = firsts.iter().map(|t| t[s]).min().unwrap_or(usize::MAX);
        if r != usize::MAX {
            order.push((r, s));
        }
    }
    order.sort_unstable();
    let mut remap = vec![0u32; size];
    for (k, &(_, s)) in order.iter().enumerate() {
        remap[s] = k as u32;
    }
    let mut gid = vec![0u32; n];
    gid.par_chunks_mut(chunk).zip(slots.par_chunks(chunk)).for_each(|(out, part)| {
        poll.now();
        for (o, &x) in out.iter_mut().zip(part) {
            *o = remap[x as usize];
        }
    });
    Groups { gid, n: order.len(), first: order.into_iter().map(|(r, _)| r).collect() }
}

fn first_rows(ids: &[u32], k: usize) -> Vec<usize> {
    let mut first = vec![usize::MAX; k];
    let mut seen = 0;
    for (r, &g) in ids.iter().enumerate() {
        if seen == k {
            break;
        }
        if first[g as usize] == usize::MAX {
            first[g as usize] = r;
            seen += 1;
        }
    }
    first
}

/// Group ids for one or more equal-length key columns.
pub fn group_ids(keys: &[&Column]) -> Groups {
    let n = keys.first().map(|c| c.len()).unwrap_or(0);
    if keys.is_empty() {
        let k = usize::from(n > 0);
        return Groups { gid: vec![0; n], n: k, first: vec![0; k] };
    }
    let mut slots: Vec<(Slots, usize)> = keys.iter().map(|c| key_slots(c)).collect();
    if let [(Slots::Ids(ids), k)] = slots.as_mut_slice() {
        // already first-appearance ids
        let (gid, k) = (std::mem::take(ids), *k);
        let first = first_rows(&gid, k);
        return Groups { gid, n: k, first };
    }
    let prod = slots.iter().fold(1u128, |p, (_, s)| p.saturating_mul(*s as u128));
    if prod <= table_limit(n) {
        // one direct-index table over the mixed-radix slot of all keys
        let mut it = slots.into_iter();
        let Some((s0, _)) = it.next() else { return Groups::default() };
        let mut comb = s0.into_vec();
        for (s, size) in it {
            let v = s.into_vec();
            let size = size as u32;
            let c = &comb;
            comb = Cow::Owned(super::par::map_rows(n, |r| c[r] * size + v[r]));
        }
        return number_slots(&comb, prod as usize);
    }
    // too many combinations for a table: first-appearance ids per key, combined pairwise
    let mut acc: Option<(Vec<u32>, usize)> = None;
    for (s, size) in slots {
        let (ids, k) = match s {
            Slots::Ids(v) => (v, size),
            other => {
                let g = number_slots(&other.into_vec(), size);
                (g.gid, g.n)
            }
        };
        acc = Some(match acc {
            None => (ids, k),
            Some((a, na)) => combine(&a, na, &ids, k),
        });
    }
    let (gid, k) = acc.unwrap_or_default();
    let first = first_rows(&gid, k);
    Groups { gid, n: k, first }
}

/// Stable counting sort of rows by bucket as a destination per row (`dest[r]` = position
/// of row r in bucket order) and the start offset of every bucket (`nb + 1` entries).
pub fn bucket_dest(bucket: &[u32], nb: usize) -> (Vec<u32>, Vec<usize>) {
    let counts = super::par::group_counts(bucket, nb);
    let mut offsets = vec![0usize; nb + 1];
    for i in 0..nb {
        offsets[i + 1] = offsets[i] + counts[i] as usize;
    }
    let mut pos: Vec<u32> = offsets[..nb].iter().map(|&o| o as u32).collect();
    let mut dest = Vec::with_capacity(bucket.len());
    for &b in bucket {
        let p = &mut pos[b as usize];
        dest.push(*p);
        *p += 1;
    }
    (dest, offsets)
}

/// Stable counting sort of rows by a per-row bucket (`0..nb`): the permutation and the
/// start offset of every bucket (`nb + 1` entries).
pub fn bucket_perm(bucket: &[u32], nb: usize) -> (Vec<usize>, Vec<usize>) {
    let mut offsets = vec![0usize; nb + 1];
    for &b in bucket {
        offsets[b as usize + 1] += 1;
    }
    for i in 0..nb {
        offsets[i + 1] += offsets[i];
    }
    let mut pos = offsets.clone();
    let mut perm = vec![0usize; bucket.len()];
    for (r, &b) in bucket.iter().enumerate() {
        perm[pos[b as usize]] = r;
        pos[b as usize] += 1;
    }
    (perm, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    #[test]
    fn ids_first_appearance() {
        let a = Column::from_vec(DataType::Int, vec![5, 3, 5, 1, 3]);
        let g = group_ids(&[&a]);
        assert_eq!(g.gid, vec![0, 1, 0, 2, 1]);
        assert_eq!(g.first, vec![0, 1, 3]);
        let big = Column::from_vec(DataType::Long, vec![1i64 << 40, 7, 1 << 40, i64::NULL, i64::NULL]);
        assert_eq!(group_ids(&[&big]).gid, vec![0, 1, 0, 2, 2]);
    }

    #[test]
    fn ids_two_keys_and_sorted_runs() {
        let a = Column::from_vec(DataType::Int, vec![1, 1, 2, 2, 2]);
        let b = Column::new(DataType::String, ColData::Str(crate::column::StrCol::from_iter(["x", "y", "x", "x", "y"])));
        let g = group_ids(&[&a, &b]);
        assert_eq!(g.gid, vec![0, 1, 2, 2, 3]);
        assert_eq!(g.n, 4);
        // -0.0 is 0.0; a NaN is its own group, apart from NULL, and every NaN is one group
        let f = Column::from_vec(DataType::Double, vec![0.0, -0.0, f64::NAN, f64::NULL, -f64::NAN, f64::NULL]);
        assert_eq!(group_ids(&[&f]).gid, vec![0, 0, 1, 2, 1, 2]);
    }

    #[test]
    fn parallel_paths_match_sequential_numbering() {
        let n = super::super::par::PAR_MIN * 2 + 123;
        // symbols: first appearance order differs from code order
        let names: Vec<String> = (0..n).map(|r| format!("S{}", (r * 7919 + 13) % 977)).collect();
        let sym = Column::new(DataType::Symbol, ColData::Sym(crate::column::SymCol::from_iter(names.iter().map(|s| s.as_str()))));
        let g = group_ids(&[&sym]);
        let (want, k) = by_map(n, |r| names[r].clone());
        assert_eq!((g.gid.clone(), g.n), (want, k));
        assert_eq!(g.first, first_rows(&g.gid, k));
        // sorted wide-range longs split at chunk boundaries, plus a small-range second key
        let v: Vec<i64> = (0..n as i64).map(|r| (r / 1000) * 1_000_000_007).collect();
        let d: Vec<i32> = (0..n as i32).map(|r| r % 7).collect();
        let a = Column::from_vec(DataType::Long, v.clone());
        let b = Column::from_vec(DataType::Int, d.clone());
        let g1 = group_ids(&[&a]);
        assert_eq!(g1.n, (n - 1) / 1000 + 1);
        assert!(g1.gid.iter().enumerate().all(|(r, &x)| x as usize == r / 1000));
        let g2 = group_ids(&[&a, &b]);
        let (want2, k2) = by_map(n, |r| (v[r], d[r]));
        assert_eq!((g2.gid, g2.n), (want2, k2));
        assert_eq!(sorted_runs(&[3i64, 2]), None);
    }

    #[test]
    fn counting_sort_is_stable() {
        let (perm, off) = bucket_perm(&[1, 0, 1, 0, 2], 3);
        assert_eq!(perm, vec![1, 3, 0, 2, 4]);
        assert_eq!(off, vec![0, 2, 4, 5]);
    }
}
