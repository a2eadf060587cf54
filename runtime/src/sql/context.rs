//! `context by` (§6.5): a stable permutation makes every group contiguous (groups ordered
//! by key, rows in original or `csort` order), items run per segment (row-wise items and
//! lifted aggregates on whole columns), `having` filters rows or whole groups, and
//! `top`/`limit` apply per group.

use super::exec::{group_order_keys, limit_slice, limit_values, Output, Prepared};
use super::frame::{eval_in, to_column, to_mask, Frame, Scope};
use super::group::{eval_keys, GroupEval, KeyCol};
use super::keys::{bucket_dest, bucket_perm, group_ids};
use super::order::{sort_perm, sort_rows, SortKey};
use crate::column::Column;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::Interpreter;
use crate::value::Value;
use beluga_lang::ast::{Expr, SelectItem};

/// Grouping of a frame for context by: permutation, segment offsets and group of each
/// permuted row (groups numbered in key order).
pub(crate) struct Segments {
    /// Row order: a destination per source row (no csort) or a gather permutation.
    order: RowOrder,
    pub offsets: Vec<usize>,
    pub pgid: Vec<u32>,
    pub keys: Vec<KeyCol>,
}

enum RowOrder {
    Dest(Vec<u32>),
    Perm(Vec<usize>),
}

impl Segments {
    /// The source row of every row of the grouped frame.
    fn source_rows(&self) -> Vec<usize> {
        match &self.order {
            RowOrder::Perm(p) => p.clone(),
            RowOrder::Dest(d) => {
                let mut src = vec![0usize; d.len()];
                for (s, &t) in d.iter().enumerate() {
                    src[t as usize] = s;
                }
                src
            }
        }
    }

    /// The frame with every group contiguous.
    pub fn apply(&self, frame: &Frame) -> Frame {
        match &self.order {
            RowOrder::Dest(d) => frame.scatter(d),
            RowOrder::Perm(p) => frame.take(p),
        }
    }
}

pub(crate) fn segments(i: &mut Interpreter, frame: &Frame, g: &[SelectItem], csort: &[beluga_lang::ast::OrderItem]) -> Result<Segments> {
    let (kcols, knames) = eval_keys(i, frame, g)?;
    let refs: Vec<&Column> = kcols.iter().collect();
    let groups = group_ids(&refs);
    let n = groups.n;
    let firsts: Vec<Column> = kcols.iter().map(|c| c.take_usize(&groups.first)).collect();
    let sk: Vec<SortKey> = firsts.iter().map(|c| SortKey { col: c, asc: true, nulls_first: None }).collect();
    let gorder = sort_perm(&sk, n);
    let mut rank = vec![0u32; n];
    for (r, &g) in gorder.iter().enumerate() {
        rank[g] = r as u32;
    }
    let gid = &groups.gid;
    let bucket: Vec<u32> = super::par::map_rows(gid.len(), |r| rank[gid[r] as usize]);
    let (order, offsets) = if csort.is_empty() && bucket.len() < u32::MAX as usize {
        let (dest, offsets) = bucket_dest(&bucket, n);
        (RowOrder::Dest(dest), offsets)
    } else {
        let (mut perm, offsets) = bucket_perm(&bucket, n);
        if !csort.is_empty() {
            let scope = frame.scope();
            let mut ccols = Vec::with_capacity(csort.len());
            for o in csort {
                let v = eval_in(i, scope.clone(), &o.expr)?;
                ccols.push(to_column(&v, frame.rows, "a csort expression")?);
            }
            let keys: Vec<SortKey> = ccols.iter().zip(csort).map(|(c, o)| SortKey { col: c, asc: o.asc, nulls_first: o.nulls_first }).collect();
            for g in 0..n {
                sort_rows(&keys, &mut perm[offsets[g]..offsets[g + 1]]);
            }
        }
        (RowOrder::Perm(perm), offsets)
    };
    drop(bucket);
    // groups are contiguous in key order: the group of permuted row r is its segment
    let mut pgid = vec![0u32; frame.rows];
    for g in 0..n {
        pgid[offsets[g]..offsets[g + 1]].fill(g as u32);
    }
    let keys = firsts
        .iter()
        .zip(knames)
        .map(|(c, (name, text))| KeyCol { name, text, col: c.take_usize(&gorder) })
        .collect();
    Ok(Segments { order, offsets, pgid, keys })
}

pub(crate) fn context(i: &mut Interpreter, p: &Prepared, frame: &Frame, g: &[SelectItem]) -> Result<Output> {
    if matches!(p.top, Some((_, Some(_)))) {
        return Err(Error::new(ErrorKind::Syntax, "top with a range (a:b) can't be used together with context by"));
    }
    let seg = segments(i, frame, g, &p.csort)?;
    let n = seg.offsets.len() - 1;
    let pframe = seg.apply(frame);
    let rows = pframe.rows;
    let mut ev = GroupEval::new(&pframe, &seg.pgid, n, &seg.keys, true, Some(seg.offsets.clone()));
    let exprs: Vec<(&Expr, usize)> = p.items.iter().map(|it| (&it.expr, it.width())).collect();
    let results = ev.eval_items(i, &exprs)?;
    let (mut names, mut cols) = (Vec::new(), Vec::new());
    for (it, parts) in p.items.iter().zip(results) {
        super::exec::push_named(&mut names, &mut cols, it, parts);
    }
    let mut extra = Scope::new();
    for (nm, c) in names.iter().zip(&cols) {
        extra.insert(nm.clone(), Value::Vector(c.clone()));
    }
    ev.extra = extra;
    let mut mask: Option<Vec<bool>> = None;
    if let Some(h) = &p.having {
        let r = ev.eval_items(i, &[(h, 1)])?;
        let c = r.into_iter().next().and_then(|v| v.into_iter().next()).ok_or_else(|| Error::runtime("having"))?;
        mask = to_mask(&Value::Vector(c), rows)?;
    }
    let limit = limit_values(i, p)?;
    let mut keep: Option<Vec<usize>> = None;
    if mask.is_some() || limit.is_some() {
        let mut sel = Vec::with_capacity(rows);
        for s in 0..n {
            let part: Vec<usize> = (seg.offsets[s]..seg.offsets[s + 1]).filter(|&r| mask.as_ref().is_none_or(|m| m[r])).collect();
            match limit {
                Some((off, cnt)) => sel.extend(limit_slice(&part, off, cnt)),
                None => sel.extend(part),
            }
        }
        // `limit` (unlike `top`) keeps the kept rows in the table's order
        // (progr/sql/contextBy.md: `context by sym limit 2` lists C, MS, MS, IBM, IBM, C)
        if p.limit.is_some() && p.csort.is_empty() && p.order.is_empty() {
            let source = seg.source_rows();
            sel.sort_unstable_by_key(|&r| source[r]);
        }
        keep = Some(sel);
    }
    let order = group_order_keys(&mut ev, i, &p.order)?;
    Ok(Output { names, cols, rows, keep, order, scalar: false, limited: limit.is_some() })
}
