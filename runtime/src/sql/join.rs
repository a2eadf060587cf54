//! Join kernels shared by the SQL join syntax and the join builtins (`ej`, `lj`, `lsj`,
//! `fj`, `cj`, `sej`): shared key ids for both sides, a hash join producing row-index
//! pairs, and assembly of the result table with DolphinDB's column layout (§6.12).

use super::keys::{dense_ids, Groups};
use crate::column::{ColData, Column};
use crate::error::{Error, Result};
use crate::kernels::cast::cast_column;
use crate::kernels::temporal_to;
use crate::kernels::arith::unit_rank;
use crate::table::Table;
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
        super::keys::group_ids(&refs)
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

/// Which right columns a join result keeps and how it names them.
pub struct Layout<'a> {
    /// Right key columns (dropped from the result unless listed in `keep_right`).
    pub right_keys: &'a [usize],
    /// Right key columns kept anyway (`fj` keeps all, `aj` the ordered key).
    pub keep_right: &'a [usize],
    /// Prefix for right columns whose names collide with left ones (`t2` → `t2_x`).
    pub right_name: &'a str,
    /// Left key columns filled from the right key where the left row is missing (right join).
    pub coalesce_keys: Option<&'a [usize]>,
}

/// Assemble the result of index pairs: left columns, then the kept right columns.
/// Returns the table and, per right column, its name in the result (None = dropped).
pub fn assemble(left: &Table, right: &Table, li: &[i64], ri: &[i64], layout: &Layout) -> Result<(Table, Vec<Option<String>>)> {
    let mut names: Vec<String> = left.names.clone();
    let par = li.len() >= super::frame::PAR_MIN_LEN;
    let take_all = |cols: &[Column], idx: &[i64]| -> Vec<Column> {
        if par {
            cols.par_iter().map(|c| c.take(idx)).collect()
        } else {
            cols.iter().map(|c| c.take(idx)).collect()
        }
    };
    // every left row once, in order (aj, lj without duplicates): share the left columns
    let identity = li.len() == left.rows() && li.par_iter().enumerate().all(|(k, &l)| l == k as i64);
    let mut cols: Vec<Column> = if identity { left.cols.clone() } else { take_all(&left.cols, li) };
    if let Some(lk) = layout.coalesce_keys {
        for (k, &lc) in lk.iter().enumerate() {
            let rc = layout.right_keys[k];
            let from_right = right.cols[rc].take(ri);
            let (a, b) = align_key_types(&cols[lc], &from_right)?;
            let n = a.len();
            let both = Column::concat(a.ty, &[&a, &b]);
            let pick: Vec<usize> = li.iter().enumerate().map(|(row, &l)| if l < 0 { n + row } else { row }).collect();
            let merged = both.take_usize(&pick);
            cols[lc] = if merged.ty != left.cols[lc].ty { cast_column(&merged, left.cols[lc].ty).unwrap_or(merged) } else { merged };
        }
    }
    let mut right_names = Vec::with_capacity(right.ncols());
    let mut kept: Vec<Column> = Vec::with_capacity(right.ncols());
    for (k, (n, c)) in right.names.iter().zip(&right.cols).enumerate() {
        if layout.right_keys.contains(&k) && !layout.keep_right.contains(&k) {
            right_names.push(None);
            continue;
        }
        let mut name = n.clone();
        if names.iter().any(|x| x.eq_ignore_ascii_case(&name)) {
            name = format!("{}_{}", layout.right_name, n);
        }
        names.push(name.clone());
        kept.push(c.clone());
        right_names.push(Some(name));
    }
    cols.extend(take_all(&kept, ri));
    let mut t = Table::new(names, cols)?;
    t.name = None;
    Ok((t, right_names))
}

/// Column indices of key names in a table.
pub fn key_indices(t: &Table, names: &[String], side: &str) -> Result<Vec<usize>> {
    names
        .iter()
        .map(|n| {
            t.col_index(n)
                .ok_or_else(|| Error::name(format!("The {side} table doesn't have the join column {n}")))
        })
        .collect()
}

/// The prefix for colliding right columns: the right table's name, else `rhs`.
pub fn right_prefix(t: &Table) -> String {
    t.name.clone().unwrap_or_else(|| "rhs".to_string())
}

/// Equi-join of two tables on key names (the common entry point of ej/lj/lsj/fj/sej and
/// `a [inner|left|full] join b on …`).
pub fn equi_join(
    left: &Table,
    right: &Table,
    lkeys: &[String],
    rkeys: &[String],
    kind: EquiKind,
    lkeep: Option<&[bool]>,
    rkeep: Option<&[bool]>,
    right_name: &str,
) -> Result<(Table, Vec<Option<String>>)> {
    let lk = key_indices(left, lkeys, "left")?;
    let rk = key_indices(right, rkeys, "right")?;
    let lcols: Vec<&Column> = lk.iter().map(|&k| &left.cols[k]).collect();
    let rcols: Vec<&Column> = rk.iter().map(|&k| &right.cols[k]).collect();
    let (lids, rids, n) = shared_key_ids(&lcols, &rcols)?;
    let (li, ri) = equi_pairs(&lids, &rids, n, kind, lkeep, rkeep);
    let keep: Vec<usize> = if kind == EquiKind::Full { rk.clone() } else { vec![] };
    assemble(left, right, &li, &ri, &Layout { right_keys: &rk, keep_right: &keep, right_name, coalesce_keys: None })
}

/// Right outer join: every right row, matched with all left rows; key columns coalesced.
pub fn right_join(
    left: &Table,
    right: &Table,
    lkeys: &[String],
    rkeys: &[String],
    right_name: &str,
) -> Result<(Table, Vec<Option<String>>)> {
    let lk = key_indices(left, lkeys, "left")?;
    let rk = key_indices(right, rkeys, "right")?;
    let lcols: Vec<&Column> = lk.iter().map(|&k| &left.cols[k]).collect();
    let rcols: Vec<&Column> = rk.iter().map(|&k| &right.cols[k]).collect();
    let (lids, rids, n) = shared_key_ids(&lcols, &rcols)?;
    let (ri, li) = equi_pairs(&rids, &lids, n, EquiKind::Left, None, None);
    assemble(left, right, &li, &ri, &Layout { right_keys: &rk, keep_right: &[], right_name, coalesce_keys: Some(&lk) })
}

/// Cartesian product of two tables.
pub fn cross_join(left: &Table, right: &Table, right_name: &str) -> Result<(Table, Vec<Option<String>>)> {
    // two index vectors plus every output column, charged before anything is built
    let row_bytes = 16 + left.cols.iter().chain(&right.cols).map(|c| crate::guard::elem_bytes(c.ty)).sum::<usize>();
    crate::guard::need2(left.rows(), right.rows(), row_bytes)?;
    // left-major product without index vectors: each left value repeated, the right tiled
    let (nl, nr) = (left.rows(), right.rows());
    let mut names: Vec<String> = left.names.clone();
    let mut right_names = Vec::with_capacity(right.ncols());
    for n in &right.names {
        let name = if names.iter().any(|x| x.eq_ignore_ascii_case(n)) { format!("{right_name}_{n}") } else { n.clone() };
        names.push(name.clone());
        right_names.push(Some(name));
    }
    let jobs: Vec<(&Column, bool)> = left.cols.iter().map(|c| (c, true)).chain(right.cols.iter().map(|c| (c, false))).collect();
    let build = |&(c, is_left): &(&Column, bool)| if is_left { repeat_each(c, nr) } else { tile(c, nl) };
    let cols: Vec<Column> =
        if nl.saturating_mul(nr) >= super::frame::PAR_MIN_LEN { jobs.par_iter().map(build).collect() } else { jobs.iter().map(build).collect() };
    let mut t = Table::new(names, cols)?;
    t.name = None;
    Ok((t, right_names))
}

/// Every value of a column `times` times in a row (`[a, b]`, 2 → `[a, a, b, b]`).
fn repeat_each(c: &Column, times: usize) -> Column {
    fn rep<T: Copy>(v: &[T], times: usize) -> Vec<T> {
        let mut out = Vec::with_capacity(v.len() * times);
        for &x in v {
            out.extend(std::iter::repeat_n(x, times));
        }
        out
    }
    let data = crate::map_numeric!(&*c.data, v => rep(v, times),
        ColData::Sym(s) => ColData::Sym(crate::column::SymCol { codes: rep(&s.codes, times), dict: s.dict.clone() }),
        ColData::Str(_) | ColData::Array(_) => {
            let idx: Vec<usize> = (0..c.len()).flat_map(|k| std::iter::repeat_n(k, times)).collect();
            return c.take_usize(&idx);
        }
    );
    Column::new(c.ty, data)
}

/// A whole column `times` times over (`[a, b]`, 2 → `[a, b, a, b]`).
fn tile(c: &Column, times: usize) -> Column {
    fn til<T: Copy>(v: &[T], times: usize) -> Vec<T> {
        let mut out = Vec::with_capacity(v.len() * times);
        for _ in 0..times {
            out.extend_from_slice(v);
        }
        out
    }
    let data = crate::map_numeric!(&*c.data, v => til(v, times),
        ColData::Sym(s) => ColData::Sym(crate::column::SymCol { codes: til(&s.codes, times), dict: s.dict.clone() }),
        ColData::Str(_) | ColData::Array(_) => {
            let idx: Vec<usize> = (0..times).flat_map(|_| 0..c.len()).collect();
            return c.take_usize(&idx);
        }
    );
    Column::new(c.ty, data)
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
    fn null_keys_never_match() {
        let l = ints(vec![<i32 as crate::null::Native>::NULL, 1]);
        let r = ints(vec![<i32 as crate::null::Native>::NULL, 1]);
        let (a, b, n) = shared_key_ids(&[&l], &[&r]).unwrap();
        assert_eq!(equi_pairs(&a, &b, n, EquiKind::Inner, None, None), (vec![1], vec![1]));
    }
}
