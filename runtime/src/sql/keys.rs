//! Group ids: every row gets the dense id of its key combination, ids numbered in order of
//! first appearance. One typed pass per key column (run detection when the column is
//! sorted, a direct-index table for small integer ranges and symbols, ahash otherwise),
//! then pairwise combination of the per-key ids.

use crate::column::{ColData, Column};
use crate::null::Native;
use ahash::AHashMap;
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
    for r in 0..n {
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
    for r in 0..n {
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

/// Float keys: all nulls (sentinel or NaN) are one key, -0.0 equals 0.0.
fn floats(v: &[f64]) -> (Vec<u32>, usize) {
    by_map(v.len(), |r| {
        let x = v[r];
        if x.is_null() {
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
            let w: Vec<f64> = v.iter().map(|&x| if x.is_null() { f64::NULL } else { x as f64 }).collect();
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

/// Group ids for one or more equal-length key columns.
pub fn group_ids(keys: &[&Column]) -> Groups {
    let n = keys.first().map(|c| c.len()).unwrap_or(0);
    let (mut ids, mut k) = match keys.first() {
        Some(c) => dense_ids(c),
        None => (vec![0; n], if n > 0 { 1 } else { 0 }),
    };
    for c in keys.iter().skip(1) {
        let (b, nb) = dense_ids(c);
        let (x, nx) = combine(&ids, k, &b, nb);
        ids = x;
        k = nx;
    }
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
    Groups { gid: ids, n: k, first }
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
        let f = Column::from_vec(DataType::Double, vec![0.0, -0.0, f64::NAN, f64::NULL]);
        assert_eq!(group_ids(&[&f]).gid, vec![0, 0, 1, 1]);
    }

    #[test]
    fn counting_sort_is_stable() {
        let (perm, off) = bucket_perm(&[1, 0, 1, 0, 2], 3);
        assert_eq!(perm, vec![1, 3, 0, 2, 4]);
        assert_eq!(off, vec![0, 2, 4, 5]);
    }
}
