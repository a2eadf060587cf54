//! What stored tables do with the predicates the SQL planner lowered (`Pred`, see
//! `beluga_runtime::table_source`): partition pruning from predicates on the partitioning
//! columns, block skipping from per-block min/max, and row filters (`col op constant`,
//! `between`, `in`, `col op col`) that `load` evaluates per segment in parallel while
//! loading, so only matching rows of the referenced columns are materialised. The
//! executor applies every `where` condition again; storage never sees the syntax.

pub use crate::load::{count_rows, load, load_partitions, load_whole_partitions};

use crate::catalog::TableMeta;
use crate::partition::{conform, Level};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::kernels::cmp::{compare, CmpOp};
use beluga_runtime::table_source::Pred;
use beluga_runtime::{DataType, Error, Result, Value};

/// Drop every cached column and table state (`clearAllCache`).
pub fn clear_cache() {
    crate::cache::clear();
}

/// A predicate with its columns resolved to positions in the table.
#[derive(Clone, Debug)]
pub(crate) enum Filter {
    Cmp(usize, CmpOp, Column),
    Between(usize, Column, Column),
    In(usize, Value),
    ColCmp(usize, CmpOp, usize),
    /// partition level `.0` (partitioned by a function of a column) may hold only these
    /// function values (`TableSource::key_functions`); prunes partitions, tests no row
    Key(usize, Column),
}

impl Filter {
    pub(crate) fn cols(&self) -> Vec<usize> {
        match self {
            Filter::Cmp(c, ..) | Filter::Between(c, ..) | Filter::In(c, _) => vec![*c],
            Filter::ColCmp(a, _, b) => vec![*a, *b],
            Filter::Key(..) => vec![],
        }
    }

    /// Resolve a predicate's column names against the table.
    pub(crate) fn of(meta: &TableMeta, p: &Pred) -> Result<Filter> {
        let col = |n: &str| meta.col_index(n).ok_or_else(|| Error::name(format!("Unrecognized column name [{n}]")));
        Ok(match p {
            Pred::Cmp { col: c, op, value } => Filter::Cmp(col(c)?, *op, value.clone()),
            Pred::Between { col: c, lo, hi } => Filter::Between(col(c)?, lo.clone(), hi.clone()),
            Pred::In { col: c, values } => match meta.opts.part_fns.iter().position(|f| f == c) {
                Some(l) if meta.col_index(c).is_none() => {
                    let v = match values {
                        Value::Vector(v) | Value::Scalar(v) => v.clone(),
                        Value::Set(s) => s.items.clone(),
                        _ => return Err(Error::arg(format!("Partition values of {c} must be a vector"))),
                    };
                    Filter::Key(l, v)
                }
                _ => Filter::In(col(c)?, values.clone()),
            },
            Pred::ColCmp { left, op, right } => Filter::ColCmp(col(left)?, *op, col(right)?),
        })
    }

    pub(crate) fn all(meta: &TableMeta, preds: &[Pred]) -> Result<Vec<Filter>> {
        preds.iter().map(|p| Filter::of(meta, p)).collect()
    }
}

fn dated(t: DataType) -> bool {
    matches!(t, DataType::Date | DataType::DateHour | DataType::DateTime | DataType::Timestamp | DataType::NanoTimestamp)
}

/// May a constant of type `c` prune a partitioning column of type `col`?
fn prunable(col: DataType, c: DataType) -> bool {
    col == c
        || (col.is_literal() && c.is_literal())
        || (dated(col) && dated(c))
        || (col.is_integral() && c.is_integral() && !col.is_temporal() && !c.is_temporal())
}

/// Partitions kept by the filters on partitioning columns.
pub(crate) fn prune(meta: &TableMeta, levels: &[Level], filters: &[Filter]) -> Vec<bool> {
    let mut level_keep: Vec<Option<Vec<bool>>> = vec![None; levels.len()];
    for (l, pc) in meta.part_cols.iter().enumerate() {
        let Some(ci) = meta.col_index(pc) else {
            continue;
        };
        let Some(level) = levels.get(l) else { continue };
        if meta.opts.part_fn(l).is_some() {
            // partitioned by a function of the column: its values say nothing of the scheme,
            // the function's values of equality constants do (`Filter::Key`)
            for f in filters {
                let Filter::Key(fl, vals) = f else { continue };
                if *fl != l {
                    continue;
                }
                let Ok(k) = conform(vals, level.key_type(), pc) else { continue };
                let Ok(keep) = level.prune_in(&k) else { continue };
                let slot = &mut level_keep[l];
                *slot = Some(match slot.take() {
                    None => keep,
                    Some(old) => old.iter().zip(&keep).map(|(a, b)| *a && *b).collect(),
                });
            }
            continue;
        }
        let col_ty = meta.types[ci];
        let key_ty = level.key_type();
        let conv = |c: &Column| -> Option<Column> {
            if !prunable(col_ty, c.ty) {
                return None;
            }
            let c = if c.ty.is_temporal() && col_ty.is_temporal() && c.ty != col_ty {
                beluga_runtime::kernels::temporal_to(c, col_ty).ok()?
            } else {
                c.clone()
            };
            conform(&c, key_ty, pc).ok()
        };
        for f in filters {
            let keep = match f {
                Filter::Cmp(c, op, v) if *c == ci && !v.is_null(0) => {
                    let Some(k) = conv(v) else { continue };
                    match op {
                        CmpOp::Eq => level.prune_in(&k),
                        CmpOp::Lt | CmpOp::Le => level.prune_range(None, Some(&k)),
                        CmpOp::Gt | CmpOp::Ge => level.prune_range(Some(&k), None),
                        CmpOp::Ne => continue,
                    }
                }
                Filter::Between(c, lo, hi) if *c == ci && !lo.is_null(0) => {
                    let (Some(a), Some(b)) = (conv(lo), conv(hi)) else {
                        continue;
                    };
                    level.prune_range(Some(&a), if hi.is_null(0) { None } else { Some(&b) })
                }
                Filter::In(c, v) if *c == ci => {
                    let col = match v {
                        Value::Vector(c) | Value::Scalar(c) => c.clone(),
                        Value::Set(s) => s.items.clone(),
                        _ => continue,
                    };
                    if col.is_empty() {
                        Ok(vec![false; level.count()])
                    } else {
                        let Some(k) = conv(&col) else { continue };
                        level.prune_in(&k)
                    }
                }
                _ => continue,
            };
            let Ok(keep) = keep else { continue };
            let slot = &mut level_keep[l];
            *slot = Some(match slot.take() {
                None => keep,
                Some(old) => old.iter().zip(&keep).map(|(a, b)| *a && *b).collect(),
            });
        }
    }
    meta.parts
        .iter()
        .map(|p| {
            p.key.iter().enumerate().all(|(l, &k)| match &level_keep.get(l) {
                Some(Some(m)) => m.get(k as usize).copied().unwrap_or(true),
                _ => true,
            })
        })
        .collect()
}

/// Rows of `col` satisfying `op` against a scalar (same semantics as the SQL comparison).
fn cmp_mask(col: &Column, op: CmpOp, v: &Column) -> Option<Vec<bool>> {
    if let ColData::Sym(s) = &*col.data {
        // `sym = 'text'`: one lookup of the text's code, then a comparison of codes (instead
        // of comparing every name of the table's symbol base, for every segment)
        if op == CmpOp::Eq && v.ty.is_literal() && v.len() == 1 {
            if let Some(x) = v.str_at(0).filter(|x| !x.is_empty()) {
                return Some(match s.dict.index.get(x) {
                    Some(&c) => s.codes.iter().map(|&k| k == c).collect(),
                    None => vec![false; s.codes.len()],
                });
            }
        }
        if v.ty.is_literal() && s.dict.names.len() < col.len() {
            let names = Column::new(DataType::String, ColData::Str(StrCol::from_iter(s.dict.names.iter().map(|n| &**n))));
            let per = compare(op, &names, false, v, true).ok()?;
            let ColData::I8(m) = &*per.data else {
                return None;
            };
            return Some(s.codes.iter().map(|&k| m[k as usize] == 1).collect());
        }
    }
    let r = compare(op, col, false, v, true).ok()?;
    match &*r.data {
        ColData::I8(m) => Some(m.iter().map(|&b| b == 1).collect()),
        _ => None,
    }
}

pub(crate) fn filter_mask(f: &Filter, cols: &[Option<Column>]) -> Option<Vec<bool>> {
    match f {
        Filter::Cmp(c, op, v) => cmp_mask(cols[*c].as_ref()?, *op, v),
        Filter::Between(c, lo, hi) => {
            let col = cols[*c].as_ref()?;
            let a = cmp_mask(col, CmpOp::Ge, lo)?;
            let b = cmp_mask(col, CmpOp::Le, hi)?;
            Some(a.iter().zip(&b).map(|(x, y)| *x && *y).collect())
        }
        Filter::In(c, v) => {
            let col = cols[*c].as_ref()?;
            if let ColData::Sym(s) = &*col.data {
                // literal values go to in_values below, which looks each one up in the
                // dictionary's index; other values are evaluated once per name
                if s.dict.names.len() < col.len() && !v.column().is_some_and(|c| c.ty.is_literal()) {
                    let names =
                        Value::Vector(Column::new(DataType::String, ColData::Str(StrCol::from_iter(s.dict.names.iter().map(|n| &**n)))));
                    let per = beluga_runtime::eval::ops::in_values(&names, v).ok()?;
                    let ColData::I8(m) = &*per.column()?.data else {
                        return None;
                    };
                    return Some(s.codes.iter().map(|&k| m[k as usize] == 1).collect());
                }
            }
            let r = beluga_runtime::eval::ops::in_values(&Value::Vector(col.clone()), v).ok()?;
            match &*r.column()?.data {
                ColData::I8(m) if m.len() == col.len() => Some(m.iter().map(|&b| b == 1).collect()),
                _ => None,
            }
        }
        Filter::Key(..) => None,
        Filter::ColCmp(a, op, b) => {
            let r = compare(*op, cols[*a].as_ref()?, false, cols[*b].as_ref()?, false).ok()?;
            match &*r.data {
                ColData::I8(m) => Some(m.iter().map(|&b| b == 1).collect()),
                _ => None,
            }
        }
    }
}

/// Blocks of a file that may satisfy a filter, from their min/max.
pub(crate) fn block_keep(f: &Filter, ty: DataType, blocks: &[crate::column_file::BlockMeta]) -> Option<Vec<bool>> {
    let as_key = |v: &Column| -> Option<i64> {
        if v.is_null(0) || v.ty != ty {
            return None;
        }
        if ty.is_floating() {
            return v.f64_at(0).map(|x| x.to_bits() as i64);
        }
        if ty.is_integral() || ty.is_temporal() {
            return v.i64_at(0);
        }
        None
    };
    let within = |b: &crate::column_file::BlockMeta, lo: Option<i64>, hi: Option<i64>| -> bool {
        if !b.has_stats {
            return true;
        }
        // only `<`/`<=` (no lower bound) hold for NULL, which sorts below every value
        if lo.is_none() && (b.has_nulls || !b.nulls_known) {
            return true;
        }
        if ty.is_floating() {
            let (mn, mx) = (f64::from_bits(b.min as u64), f64::from_bits(b.max as u64));
            lo.is_none_or(|l| mx >= f64::from_bits(l as u64)) && hi.is_none_or(|h| mn <= f64::from_bits(h as u64))
        } else {
            lo.is_none_or(|l| b.max >= l) && hi.is_none_or(|h| b.min <= h)
        }
    };
    let (lo, hi) = match f {
        Filter::Cmp(_, CmpOp::Eq, v) => (Some(as_key(v)?), Some(as_key(v)?)),
        Filter::Cmp(_, CmpOp::Gt | CmpOp::Ge, v) => (Some(as_key(v)?), None),
        Filter::Cmp(_, CmpOp::Lt | CmpOp::Le, v) => (None, Some(as_key(v)?)),
        Filter::Between(_, lo, hi) => (Some(as_key(lo)?), Some(as_key(hi)?)),
        _ => return None,
    };
    Some(blocks.iter().map(|b| within(b, lo, hi)).collect())
}

/// Whether a block's statistics prove that every row of it satisfies `f` (integer-like
/// columns only: float statistics leave NaN out, and a NULL fails every comparison a
/// block is allowed to skip here, so a block must be known to hold none).
pub(crate) fn block_all(f: &Filter, ty: DataType, b: &crate::column_file::BlockMeta) -> bool {
    if !b.has_stats || !b.nulls_known || b.has_nulls || !(ty.is_integral() || ty.is_temporal()) || ty.decimal_scale().is_some() {
        return false;
    }
    let key = |v: &Column| -> Option<i64> { (!v.is_null(0) && v.ty == ty && v.len() == 1).then(|| v.i64_at(0)).flatten() };
    match f {
        Filter::Cmp(_, op, v) => match (op, key(v)) {
            (CmpOp::Eq, Some(x)) => b.min == x && b.max == x,
            (CmpOp::Ge, Some(x)) => b.min >= x,
            (CmpOp::Gt, Some(x)) => b.min > x,
            (CmpOp::Le, Some(x)) => b.max <= x,
            (CmpOp::Lt, Some(x)) => b.max < x,
            _ => false,
        },
        Filter::Between(_, lo, hi) => matches!((key(lo), key(hi)), (Some(l), Some(h)) if b.min >= l && b.max <= h),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{block_keep, Filter};
    use crate::column_file::{encode, ColumnFile};
    use beluga_runtime::column::Column;
    use beluga_runtime::kernels::cmp::CmpOp;
    use beluga_runtime::null::Native;
    use beluga_runtime::DataType;

    /// `x < c` skips a block whose min is above c only when the block is known to hold no
    /// null (NULL sorts below every value); `>=` never keeps a block for its nulls.
    #[test]
    fn less_than_skips_blocks_only_without_nulls() {
        let b = crate::column_file::BLOCK_ROWS;
        // block 0: 0..b; block 1: b..2b with a null; block 2: 2b..3b without nulls
        let v: Vec<i64> = (0..3 * b as i64).map(|k| if k == b as i64 + 5 { i64::NULL } else { k }).collect();
        let f = ColumnFile::open(encode(&Column::from_vec(DataType::Long, v)), "x.col").unwrap();
        let flags: Vec<(bool, bool)> = f.blocks.iter().map(|m| (m.nulls_known, m.has_nulls)).collect();
        assert_eq!(flags, vec![(true, false), (true, true), (true, false)]);
        let lt = |op, c: i64| block_keep(&Filter::Cmp(0, op, Column::from_vec(DataType::Long, vec![c])), DataType::Long, &f.blocks).unwrap();
        assert_eq!(lt(CmpOp::Lt, 10), vec![true, true, false]);
        assert_eq!(lt(CmpOp::Le, 2 * b as i64), vec![true, true, true]);
        assert_eq!(lt(CmpOp::Ge, 2 * b as i64), vec![false, false, true]);
        // a file written before the flag (stats byte 1): nulls unknown, nothing skipped by `<`
        let mut old = f.blocks.clone();
        old.iter_mut().for_each(|m| m.nulls_known = false);
        let keep = block_keep(&Filter::Cmp(0, CmpOp::Lt, Column::from_vec(DataType::Long, vec![10i64])), DataType::Long, &old).unwrap();
        assert_eq!(keep, vec![true, true, true]);
    }
}
