//! Stable multi-key sorting (order by, csort, ordering of groups). Each key is turned into
//! an order-preserving `u64` code once (integers and temporals by value, floats by their
//! total order, strings and symbols by rank), so the comparator never looks at types.

use crate::column::{ColData, Column};
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
pub(crate) struct Codes {
    pub code: Vec<u64>,
    pub null: Vec<bool>,
}

fn int_code(x: i64) -> u64 {
    (x as u64) ^ (1u64 << 63)
}

fn float_code(x: f64) -> u64 {
    let b = (x + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1u64 << 63)
    }
}

/// Dense ranks of strings in byte order.
fn text_ranks<'s>(items: &[&'s str]) -> Vec<u64> {
    let mut idx: Vec<u32> = (0..items.len() as u32).collect();
    let poll = crate::guard::Poll::new();
    idx.sort_unstable_by(|&a, &b| {
        poll.now();
        items[a as usize].cmp(items[b as usize])
    });
    let mut rank = vec![0u64; items.len()];
    let mut r = 0u64;
    for w in 0..idx.len() {
        if w > 0 && items[idx[w] as usize] != items[idx[w - 1] as usize] {
            r += 1;
        }
        rank[idx[w] as usize] = r;
    }
    rank
}

pub(crate) fn codes(c: &Column) -> Codes {
    let n = c.len();
    let mut null = vec![false; n];
    let code: Vec<u64> = match &*c.data {
        ColData::I8(v) => ints(v, &mut null),
        ColData::I16(v) => ints(v, &mut null),
        ColData::I32(v) => ints(v, &mut null),
        ColData::I64(v) => ints(v, &mut null),
        ColData::I128(v) => {
            // second-tier types: order by the high 64 bits, then exact ties are rare
            v.iter()
                .enumerate()
                .map(|(i, &x)| {
                    null[i] = x.is_null();
                    int_code((x >> 64) as i64)
                })
                .collect()
        }
        ColData::F32(v) => v
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                null[i] = x.is_null();
                float_code(x as f64)
            })
            .collect(),
        ColData::F64(v) => v
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                null[i] = x.is_null();
                float_code(x)
            })
            .collect(),
        ColData::Sym(s) => {
            let names: Vec<&str> = s.dict.names.iter().map(|a| &**a).collect();
            let rank = text_ranks(&names);
            s.codes
                .iter()
                .enumerate()
                .map(|(i, &k)| {
                    null[i] = names[k as usize].is_empty();
                    rank[k as usize]
                })
                .collect()
        }
        ColData::Str(s) => {
            let items: Vec<&str> = s.iter().collect();
            for (i, x) in items.iter().enumerate() {
                null[i] = x.is_empty();
            }
            text_ranks(&items)
        }
    };
    Codes { code, null }
}

fn ints<T: Native>(v: &[T], null: &mut [bool]) -> Vec<u64> {
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            null[i] = x.is_null();
            int_code(x.to_i64())
        })
        .collect()
}

struct Prepared {
    codes: Codes,
    asc: bool,
    nulls_first: bool,
}

impl Prepared {
    #[inline]
    fn cmp(&self, a: usize, b: usize) -> Ordering {
        match (self.codes.null[a], self.codes.null[b]) {
            (true, true) => Ordering::Equal,
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
        })
        .collect()
}

/// One key folded into a single sortable number: null placement, then the direction-adjusted code.
fn wide_key(p: &Prepared, r: usize) -> u128 {
    if p.codes.null[r] {
        if p.nulls_first { 0 } else { 2u128 << 64 }
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
        if top {
            pairs.select_nth_unstable_by(k, cmp);
            pairs.truncate(k);
        }
        if pairs.len() >= PAR_SORT_MIN {
            pairs.par_sort_unstable_by(cmp);
        } else {
            pairs.sort_unstable_by(cmp);
        }
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
    if top {
        pairs.select_nth_unstable_by(k, cmp);
        pairs.truncate(k);
    }
    if pairs.len() >= PAR_SORT_MIN {
        pairs.par_sort_unstable_by(cmp);
    } else {
        pairs.sort_unstable_by(cmp);
    }
    for (dst, (r, _)) in rows.iter_mut().zip(pairs) {
        *dst = r;
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
    }
}
