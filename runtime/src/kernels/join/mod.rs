//! Row matching of the joins, shared by the SQL join clauses (`runtime::sql::join`
//! assembles their result tables) and the join builtins (`ej`, `lj`, `lsj`, `fj`, `sej`,
//! `aj`, `wj`, `pwj`, keyed `in`): shared key ids for both sides, hash equi-join matching
//! into row-index pairs, and (in `asof`) the as-of and window-join searches.

pub mod asof;

use crate::column::{ColData, Column};
use crate::error::{Error, Result};
use crate::kernels::arith::unit_rank;
use crate::kernels::cast::cast_column;
use crate::kernels::group::{dense_ids, group_ids, Groups};
use crate::kernels::temporal_to;
use crate::types::{common_type, DataType};
use rayon::prelude::*;
use std::sync::Arc;

/// Which rows an equi-join keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EquiKind {
    /// `ej`: matching pairs only, left order then right order.
    Inner,
    /// `lj`: every left row with all its matches (or none).
    Left,
    /// `lsj`: every left row with its first match (or none).
    LeftSemi,
    /// `fj`: `lj` plus unmatched right rows at the end.
    Full,
}

/// No key id (a null key never matches).
pub const NO_ID: u32 = u32::MAX;

/// Bring a pair of key columns to one type so equal values get equal ids.
pub fn align_key_types(a: &Column, b: &Column) -> Result<(Column, Column)> {
    if a.ty == b.ty {
        return Ok((a.clone(), b.clone()));
    }
    if a.ty.is_literal() && b.ty.is_literal() {
        // SYMBOL vs STRING compare by text
        return Ok((cast_column(a, DataType::String)?, cast_column(b, DataType::String)?));
    }
    if a.ty.is_temporal() && b.ty.is_temporal() {
        let fine = if unit_rank(a.ty) >= unit_rank(b.ty) { a.ty } else { b.ty };
        return Ok((temporal_to(a, fine)?, temporal_to(b, fine)?));
    }
    let ty = match common_type(a.ty, b.ty) {
        Some(t) => t,
        None if (a.ty.is_temporal() && b.ty.is_integral()) || (a.ty.is_integral() && b.ty.is_temporal()) => DataType::Long,
        None => {
            return Err(Error::type_err(format!(
                "The join columns must have compatible types, not {} and {}",
                a.ty, b.ty
            )))
        }
    };
    Ok((cast_column(a, ty)?, cast_column(b, ty)?))
}

/// Dense ids over the union of left and right keys (multi-column keys combined); rows
/// with a null in any key get `NO_ID`. Returns (left ids, right ids, number of ids).
pub fn shared_key_ids(left: &[&Column], right: &[&Column]) -> Result<(Vec<u32>, Vec<u32>, usize)> {
    if left.len() != right.len() || left.is_empty() {
        return Err(Error::arg("The join needs the same number (at least one) of left and right key columns"));
    }
    if let ([a], [b]) = (left, right) {
        if let Some(ids) = symbol_key_ids(a, b) {
            return Ok(ids);
        }
    }
    let nl = left[0].len();
    let mut parts: Vec<Column> = Vec::with_capacity(left.len());
    let mut null = vec![false; nl + right[0].len()];
    for (a, b) in left.iter().zip(right) {
        let (a, b) = align_key_types(a, b)?;
        let both = Column::concat(a.ty, &[&a, &b]);
        let poll = crate::guard::Poll::new();
        for (k, flag) in null.iter_mut().enumerate() {
            poll.at(k);
            if both.is_null_strict(k) {
                *flag = true;
            }
        }
        parts.push(both);
    }
    let refs: Vec<&Column> = parts.iter().collect();
    let Groups { mut gid, n, .. } = if refs.len() == 1 {
        let (ids, n) = dense_ids(refs[0]);
        Groups { gid: ids, n, first: vec![] }
    } else {
        group_ids(&refs)
    };
    for (g, &isnull) in gid.iter_mut().zip(&null) {
        if isnull {
            *g = NO_ID;
        }
    }
    let right_ids = gid.split_off(nl);
    Ok((gid, right_ids, n))
}

/// Shared ids of one SYMBOL key column on each side without hashing rows: a left row's id
/// is its code; the right dictionary is mapped onto the left one once (right-only symbols
/// get ids past the left dictionary). The null symbol (code 0) gets `NO_ID`.
fn symbol_key_ids(a: &Column, b: &Column) -> Option<(Vec<u32>, Vec<u32>, usize)> {
    let (ColData::Sym(l), ColData::Sym(r)) = (&*a.data, &*b.data) else {
        return None;
    };
    let nl = l.dict.names.len();
    let mut n = nl;
    let lmap: Vec<u32> = l.dict.names.iter().enumerate().map(|(c, s)| if s.is_empty() { NO_ID } else { c as u32 }).collect();
    let map: Vec<u32> = if Arc::ptr_eq(&l.dict, &r.dict) {
        lmap.clone()
    } else {
        r.dict
            .names
            .iter()
            .map(|s| match l.dict.index.get(s) {
                _ if s.is_empty() => NO_ID,
                Some(&c) => c,
                None => {
                    n += 1;
                    (n - 1) as u32
                }
            })
            .collect()
    };
    if n >= NO_ID as usize {
        return None;
    }
    let id = |c: u32, m: &[u32]| m.get(c as usize).copied().unwrap_or(NO_ID);
    let lids: Vec<u32> = l.codes.par_iter().map(|&c| id(c, &lmap)).collect();
    let rids: Vec<u32> = r.codes.par_iter().map(|&c| id(c, &map)).collect();
    Some((lids, rids, n))
}

/// Right rows grouped by id, in right order: CSR offsets (n + 1) and row numbers.
pub fn rows_by_id(ids: &[u32], n: usize, keep: Option<&[bool]>) -> (Vec<usize>, Vec<usize>) {
    let mut off = vec![0usize; n + 1];
    let poll = crate::guard::Poll::new();
    for (r, &g) in ids.iter().enumerate() {
        poll.at(r);
        if g != NO_ID && keep.is_none_or(|k| k[r]) {
            off[g as usize + 1] += 1;
        }
    }
    for i in 0..n {
        off[i + 1] += off[i];
    }
    let mut pos = off.clone();
    let mut rows = vec![0usize; off[n]];
    for (r, &g) in ids.iter().enumerate() {
        poll.at(r);
        if g != NO_ID && keep.is_none_or(|k| k[r]) {
            rows[pos[g as usize]] = r;
            pos[g as usize] += 1;
        }
    }
    (off, rows)
}

/// Row pairs of an equi-join (−1 = no row, filled with nulls). `lkeep`/`rkeep` are the
/// left/right filters: a filtered-out left row is dropped by `Inner` and kept unmatched by
/// the outer kinds; a filtered-out right row never matches.
pub fn equi_pairs(
    lids: &[u32],
    rids: &[u32],
    n: usize,
    kind: EquiKind,
    lkeep: Option<&[bool]>,
    rkeep: Option<&[bool]>,
) -> (Vec<i64>, Vec<i64>) {
    let (off, rows) = rows_by_id(rids, n, rkeep);
    let mut li = Vec::with_capacity(lids.len());
    let mut ri = Vec::with_capacity(lids.len());
    let mut matched = if kind == EquiKind::Full { vec![false; rids.len()] } else { vec![] };
    // long joins are interruptible: the flag is tested every guard::CHUNK left rows
    let poll = crate::guard::Poll::new();
    for (l, &g) in lids.iter().enumerate() {
        poll.at(l);
        let ok = lkeep.is_none_or(|k| k[l]) && g != NO_ID;
        let m: &[usize] = if ok { &rows[off[g as usize]..off[g as usize + 1]] } else { &[] };
        match kind {
            EquiKind::Inner => {
                for &r in m {
                    li.push(l as i64);
                    ri.push(r as i64);
                }
            }
            EquiKind::LeftSemi => {
                li.push(l as i64);
                ri.push(m.first().map(|&r| r as i64).unwrap_or(-1));
            }
            EquiKind::Left | EquiKind::Full => {
                if m.is_empty() {
                    li.push(l as i64);
                    ri.push(-1);
                }
                for &r in m {
                    li.push(l as i64);
                    ri.push(r as i64);
                    if kind == EquiKind::Full {
                        matched[r] = true;
                    }
                }
            }
        }
    }
    if kind == EquiKind::Full {
        for (r, &m) in matched.iter().enumerate() {
            if !m {
                li.push(-1);
                ri.push(r as i64);
            }
        }
    }
    (li, ri)
}

/// The rows of an equi-join whose right side has at most one row per key (a lookup in a
/// dimension table: the usual `ej`/`lj` on a unique key) as 32-bit row numbers, when the
/// row counts fit: the left rows (None: every left row, in order) and, for each, its right
/// row (`u32::MAX`: none, filled with nulls). `LeftSemi` takes each key's first right row
/// and needs no uniqueness. None (use `equi_pairs`) for `Full`, for a key with several
/// right rows under `Inner`/`Left`, or for tables of 2^32 - 1 rows or more.
pub fn lookup_rows(
    lids: &[u32],
    rids: &[u32],
    n: usize,
    kind: EquiKind,
    lkeep: Option<&[bool]>,
    rkeep: Option<&[bool]>,
) -> Option<(Option<Vec<u32>>, Vec<u32>)> {
    if kind == EquiKind::Full || lids.len() >= u32::MAX as usize || rids.len() >= u32::MAX as usize {
        return None;
    }
    // the right row of each key id
    let mut of_id = vec![u32::MAX; n];
    for (r, &g) in rids.iter().enumerate() {
        if g == NO_ID || rkeep.is_some_and(|k| !k[r]) {
            continue;
        }
        let slot = &mut of_id[g as usize];
        if *slot != u32::MAX {
            if kind != EquiKind::LeftSemi {
                return None;
            }
            continue;
        }
        *slot = r as u32;
    }
    let poll = crate::guard::Poll::new();
    let ri: Vec<u32> = lids
        .iter()
        .enumerate()
        .map(|(l, &g)| {
            poll.at(l);
            if g == NO_ID || lkeep.is_some_and(|k| !k[l]) { u32::MAX } else { of_id[g as usize] }
        })
        .collect();
    if kind != EquiKind::Inner || !ri.contains(&u32::MAX) {
        return Some((None, ri));
    }
    let li: Vec<u32> = (0..ri.len() as u32).filter(|&l| ri[l as usize] != u32::MAX).collect();
    let ri = li.iter().map(|&l| ri[l as usize]).collect();
    Some((Some(li), ri))
}

/// Cartesian product pairs, left-major.
pub fn cross_pairs(nl: usize, nr: usize) -> (Vec<i64>, Vec<i64>) {
    let mut li = Vec::with_capacity(nl * nr);
    let mut ri = Vec::with_capacity(nl * nr);
    let poll = crate::guard::Poll::new();
    for l in 0..nl {
        poll.now();
        for r in 0..nr {
            li.push(l as i64);
            ri.push(r as i64);
        }
    }
    (li, ri)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: Vec<i32>) -> Column {
        Column::from_vec(DataType::Int, v)
    }

    #[test]
    fn pairs_of_each_kind() {
        let l = ints(vec![1, 2, 3, 3]);
        let r = ints(vec![5, 3, 1]);
        let (a, b, n) = shared_key_ids(&[&l], &[&r]).unwrap();
        assert_eq!(equi_pairs(&a, &b, n, EquiKind::Inner, None, None), (vec![0, 2, 3], vec![2, 1, 1]));
        assert_eq!(equi_pairs(&a, &b, n, EquiKind::Left, None, None), (vec![0, 1, 2, 3], vec![2, -1, 1, 1]));
        assert_eq!(equi_pairs(&a, &b, n, EquiKind::Full, None, None), (vec![0, 1, 2, 3, -1], vec![2, -1, 1, 1, 0]));
        let (a2, b2, n2) = shared_key_ids(&[&r], &[&l]).unwrap();
        assert_eq!(equi_pairs(&a2, &b2, n2, EquiKind::LeftSemi, None, None), (vec![0, 1, 2], vec![-1, 2, 0]));
    }

    #[test]
    fn lookups_agree_with_pairs() {
        let wide = |v: &[u32]| v.iter().map(|&x| if x == u32::MAX { -1 } else { x as i64 }).collect::<Vec<i64>>();
        let null = <i32 as crate::null::Native>::NULL;
        let l = ints(vec![1, 2, 3, 3, null, 5]);
        let r = ints(vec![5, 3, 1, null]);
        let (a, b, n) = shared_key_ids(&[&l], &[&r]).unwrap();
        let lkeep = [true, true, true, false, true, true];
        let rkeep = [true, true, false, true];
        for kind in [EquiKind::Inner, EquiKind::Left, EquiKind::LeftSemi] {
            for (lk, rk) in [(None, None), (Some(&lkeep[..]), None), (None, Some(&rkeep[..])), (Some(&lkeep[..]), Some(&rkeep[..]))] {
                let (li, ri) = lookup_rows(&a, &b, n, kind, lk, rk).unwrap();
                let li = li.unwrap_or_else(|| (0..l.len() as u32).collect());
                assert_eq!((wide(&li), wide(&ri)), equi_pairs(&a, &b, n, kind, lk, rk), "{kind:?} {lk:?} {rk:?}");
            }
        }
        // a key with two right rows: pairs for ej/lj, the first for lsj
        let r2 = ints(vec![3, 1, 3]);
        let (a, b, n) = shared_key_ids(&[&l], &[&r2]).unwrap();
        assert!(lookup_rows(&a, &b, n, EquiKind::Inner, None, None).is_none());
        assert!(lookup_rows(&a, &b, n, EquiKind::Left, None, None).is_none());
        assert!(lookup_rows(&a, &b, n, EquiKind::Full, None, None).is_none());
        let (li, ri) = lookup_rows(&a, &b, n, EquiKind::LeftSemi, None, None).unwrap();
        assert_eq!((li, wide(&ri)), (None, vec![1, -1, 0, 0, -1, -1]));
    }

    #[test]
    fn null_keys_never_match() {
        let l = ints(vec![<i32 as crate::null::Native>::NULL, 1]);
        let r = ints(vec![<i32 as crate::null::Native>::NULL, 1]);
        let (a, b, n) = shared_key_ids(&[&l], &[&r]).unwrap();
        assert_eq!(equi_pairs(&a, &b, n, EquiKind::Inner, None, None), (vec![1], vec![1]));
    }
}
