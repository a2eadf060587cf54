//! SQL join clauses and the tables the join builtins return: `a [inner|left|full|right|
//! cross] join b on …` and `ej`/`lj`/`lsj`/`fj`/`cj`/`sej`/`aj` assemble their result here
//! with DolphinDB's column layout (§6.12). The row matching itself (key ids, hash
//! equi-join pairs, as-of and window search) is in `crate::kernels::join`; its names are
//! re-exported here so `sql::join::` paths keep working.

pub use crate::kernels::join::{align_key_types, cross_pairs, equi_pairs, lookup_rows, rows_by_id, shared_key_ids, EquiKind, NO_ID};
use crate::column::{ColData, Column};
use crate::error::{Error, Result};
use crate::kernels::cast::cast_column;
use crate::table::Table;
use rayon::prelude::*;

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
    let (kept, right_names) = right_columns(right, layout, &mut names);
    cols.extend(take_all(&kept, ri));
    let mut t = Table::new(names, cols)?;
    t.name = None;
    Ok((t, right_names))
}

/// The right columns a result keeps, their names appended to `names`, and per right
/// column its name in the result (None = dropped).
fn right_columns(right: &Table, layout: &Layout, names: &mut Vec<String>) -> (Vec<Column>, Vec<Option<String>>) {
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
    (kept, right_names)
}

/// `assemble` for `lookup_rows`' 32-bit rows: the left columns shared when every left row
/// is kept in order (`li` None), else gathered; the right ones gathered at `ri`.
fn assemble_lookup(left: &Table, right: &Table, li: Option<&[u32]>, ri: &[u32], layout: &Layout) -> Result<(Table, Vec<Option<String>>)> {
    let par = ri.len() >= super::frame::PAR_MIN_LEN;
    let take_all = |cols: &[Column], idx: &[u32]| -> Vec<Column> {
        if par {
            cols.par_iter().map(|c| c.take_u32(idx)).collect()
        } else {
            cols.iter().map(|c| c.take_u32(idx)).collect()
        }
    };
    let mut names: Vec<String> = left.names.clone();
    let mut cols: Vec<Column> = match li {
        None => left.cols.clone(),
        Some(li) => take_all(&left.cols, li),
    };
    let (kept, right_names) = right_columns(right, layout, &mut names);
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

/// The key columns of both sides by name and their shared ids.
struct KeyIds {
    lk: Vec<usize>,
    rk: Vec<usize>,
    lids: Vec<u32>,
    rids: Vec<u32>,
    n: usize,
}

fn key_ids(left: &Table, right: &Table, lkeys: &[String], rkeys: &[String]) -> Result<KeyIds> {
    let lk = key_indices(left, lkeys, "left")?;
    let rk = key_indices(right, rkeys, "right")?;
    let lcols: Vec<&Column> = lk.iter().map(|&k| &left.cols[k]).collect();
    let rcols: Vec<&Column> = rk.iter().map(|&k| &right.cols[k]).collect();
    let (lids, rids, n) = shared_key_ids(&lcols, &rcols)?;
    Ok(KeyIds { lk, rk, lids, rids, n })
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
    let KeyIds { lk: _, rk, lids, rids, n } = key_ids(left, right, lkeys, rkeys)?;
    let keep: Vec<usize> = if kind == EquiKind::Full { rk.clone() } else { vec![] };
    let layout = Layout { right_keys: &rk, keep_right: &keep, right_name, coalesce_keys: None };
    // at most one right row per key: one 32-bit right row per result row, no pair vectors
    if let Some((li, ri)) = lookup_rows(&lids, &rids, n, kind, lkeep, rkeep) {
        drop(lids);
        return assemble_lookup(left, right, li.as_deref(), &ri, &layout);
    }
    let (li, ri) = equi_pairs(&lids, &rids, n, kind, lkeep, rkeep);
    assemble(left, right, &li, &ri, &layout)
}

/// Right outer join: every right row, matched with all left rows; key columns coalesced.
pub fn right_join(
    left: &Table,
    right: &Table,
    lkeys: &[String],
    rkeys: &[String],
    right_name: &str,
) -> Result<(Table, Vec<Option<String>>)> {
    let KeyIds { lk, rk, lids, rids, n } = key_ids(left, right, lkeys, rkeys)?;
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
