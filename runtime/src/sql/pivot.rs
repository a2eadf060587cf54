//! `pivot by` (§6.6) and `cgroup by` (§6.7).
//!
//! pivot: rows keyed by the sorted distinct combinations of all but the last pivot
//! expression, one column per sorted distinct value of the last one. A non-aggregate item
//! is evaluated with every referenced column bound to its pivoted matrix (the last value
//! of a cell wins), so `select price …` and `select rowSum(ffill(price)) …` both work; an
//! aggregate item is computed per occupied cell.

use super::exec::{finish_output, result_scope, Output, Prepared};
use super::frame::{eval_in, to_column, Frame, Scope};
use super::group::{eval_keys, GroupEval, KeyCol};
use super::keys::group_ids;
use super::par;
use super::order::{sort_perm, sort_rows, SortKey};
use super::plan::{is_aggregate_call, map_expr, walk};
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::types::DataType;
use crate::value::{Matrix, Value};
use beluga_lang::ast::{Expr, ExprKind, SelectItem};
use std::sync::Arc;

fn has_aggregate(i: &Interpreter, e: &Expr, frame: &Frame) -> bool {
    let mut found = false;
    walk(e, &mut |x| {
        if let ExprKind::Call(g, _) = &x.kind {
            if is_aggregate_call(i, g, &|n| frame.has(n)) {
                found = true;
            }
        }
    });
    found
}

/// Dense ranks of the sorted distinct combinations of key columns: (rank per row, number
/// of distinct values, first row of each rank).
fn sorted_ranks(keys: &[Column]) -> (Vec<u32>, usize, Vec<usize>) {
    let refs: Vec<&Column> = keys.iter().collect();
    let g = group_ids(&refs);
    let firsts: Vec<Column> = keys.iter().map(|c| c.take_usize(&g.first)).collect();
    let sk: Vec<SortKey> = firsts.iter().map(|c| SortKey { col: c, asc: true, nulls_first: None }).collect();
    let order = sort_perm(&sk, g.n);
    if order.iter().enumerate().all(|(r, &k)| r == k) {
        // first appearance is already key order (e.g. a sorted column)
        return (g.gid, g.n, g.first);
    }
    let mut rank = vec![0u32; g.n];
    for (r, &k) in order.iter().enumerate() {
        rank[k] = r as u32;
    }
    let first: Vec<usize> = order.iter().map(|&k| g.first[k]).collect();
    let gid = g.gid;
    (par::map_rows(gid.len(), |r| rank[gid[r] as usize]), g.n, first)
}

/// An aggregate item per occupied cell of the `nrow x ncol` matrix (column-major `cell`
/// per row), as a column-major vector with nulls in empty cells.
fn cell_aggregate(i: &mut Interpreter, frame: &Frame, e: &Expr, cell: &[u32], ncells: usize) -> Result<Column> {
    let keys: Vec<KeyCol> = vec![];
    let counts = par::group_counts(cell, ncells);
    if counts.iter().all(|&c| c > 0) {
        // every cell occupied: the cell number is the group id
        let mut ev = GroupEval::new(frame, cell, ncells, &keys, false, None);
        let r = ev.eval_items(i, &[(e, 1)])?;
        return r.into_iter().next().and_then(|v| v.into_iter().next()).ok_or_else(|| Error::runtime("pivot"));
    }
    let cg = group_ids(&[&Column::from_vec(DataType::Int, cell.iter().map(|&x| x as i32).collect::<Vec<i32>>())]);
    let mut ev = GroupEval::new(frame, &cg.gid, cg.n, &keys, false, None);
    let r = ev.eval_items(i, &[(e, 1)])?;
    let vals = r.into_iter().next().and_then(|v| v.into_iter().next()).ok_or_else(|| Error::runtime("pivot"))?;
    let mut pick = vec![-1i64; ncells];
    for (gk, &row) in cg.first.iter().enumerate() {
        pick[cell[row] as usize] = gk as i64;
    }
    Ok(vals.take(&pick))
}

fn label_text(c: &Column, k: usize) -> String {
    if c.is_null(k) {
        return "NULL".to_string();
    }
    match c.str_at(k) {
        Some(s) => s.to_string(),
        None => crate::fmt::format_elem(c, k),
    }
}

pub(crate) fn pivot(i: &mut Interpreter, p: &Prepared, frame: &Frame, g: &[SelectItem]) -> Result<Value> {
    if g.len() < 2 {
        return Err(Error::arg("pivot by needs at least two columns: row keys and the column key"));
    }
    let (kcols, knames) = eval_keys(i, frame, g)?;
    let (rkeys, ckey) = kcols.split_at(kcols.len() - 1);
    let (rrank, nrow, rfirst) = sorted_ranks(rkeys);
    let (crank, ncol, cfirst) = sorted_ranks(ckey);
    let cvals = ckey[0].take_usize(&cfirst);
    let cnames: Vec<String> = (0..ncol).map(|k| label_text(&cvals, k)).collect();
    let ncells = nrow.checked_mul(ncol).filter(|&c| c <= u32::MAX as usize).ok_or_else(|| Error::size("pivot by: too many cells"))?;
    // column-major cell position of every row
    let cell: Vec<u32> = par::map_rows(rrank.len(), |r| crank[r] * nrow as u32 + rrank[r]);
    drop((rrank, crank));
    let mut last: Option<Vec<i64>> = None;
    let mut item_vals: Vec<Value> = Vec::with_capacity(p.items.len());
    for it in &p.items {
        if it.width() > 1 {
            return Err(Error::arg("pivot by: a select item can't fill several columns (as `a`b...); select each value separately"));
        }
        let top_aggregate = matches!(&it.expr.kind, ExprKind::Call(g, _) if is_aggregate_call(i, g, &|n| frame.has(n)));
        let v = if has_aggregate(i, &it.expr, frame) && top_aggregate {
            let data = cell_aggregate(i, frame, &it.expr, &cell, ncells)?;
            Value::Matrix(Arc::new(Matrix { data, rows: nrow, cols: ncol, row_labels: None, col_labels: None, indexed: false }))
        } else {
            // `rowSum(ffill(last(x)))`: every aggregate inside is first computed per cell as a
            // matrix, then the rest of the item runs on matrices (columns bound to their
            // pivoted matrices, the last value of a cell winning)
            let mut aggs: Vec<Expr> = Vec::new();
            let body = if has_aggregate(i, &it.expr, frame) {
                map_expr(&it.expr, &mut |x| match &x.kind {
                    ExprKind::Call(g, _) if is_aggregate_call(i, g, &|n| frame.has(n)) => {
                        aggs.push(x.clone());
                        Some(Expr::new(ExprKind::Ident(format!("__pivot_cell{}", aggs.len() - 1)), x.span))
                    }
                    _ => None,
                })
            } else {
                it.expr.clone()
            };
            let last = last.get_or_insert_with(|| {
                let mut l = vec![-1i64; ncells];
                for (row, &c) in cell.iter().enumerate() {
                    l[c as usize] = row as i64;
                }
                l
            });
            let mut scope = Scope::new();
            for (n, c) in frame.names.iter().zip(&frame.cols) {
                let m = Matrix { data: c.take(last), rows: nrow, cols: ncol, row_labels: None, col_labels: None, indexed: false };
                scope.insert(n.clone(), Value::Matrix(Arc::new(m)));
            }
            for (a, k) in &frame.aliases {
                if let Some(v) = scope.get(&frame.names[*k]).cloned() {
                    scope.insert(a.clone(), v);
                }
            }
            for (k, a) in aggs.iter().enumerate() {
                let data = cell_aggregate(i, frame, a, &cell, ncells)?;
                let m = Matrix { data, rows: nrow, cols: ncol, row_labels: None, col_labels: None, indexed: false };
                scope.insert(format!("__pivot_cell{k}"), Value::Matrix(Arc::new(m)));
            }
            eval_in(i, scope, &body)?
        };
        item_vals.push(v);
    }
    let row_keys: Vec<Column> = rkeys.iter().map(|c| c.take_usize(&rfirst)).collect();
    if p.exec && item_vals.len() == 1 {
        if let Value::Matrix(m) = &item_vals[0] {
            let mut m = (**m).clone();
            if m.data.ty.is_integral() && m.data.ty != DataType::Bool {
                m.data = crate::kernels::cast::cast_column(&m.data, DataType::Double)?;
            }
            if row_keys.len() == 1 {
                m.row_labels = Some(Box::new(Value::Vector(row_keys[0].clone())));
            }
            m.col_labels = Some(Box::new(Value::Vector(cvals)));
            return Ok(Value::Matrix(Arc::new(m)));
        }
    }
    let (mut names, mut cols): (Vec<String>, Vec<Column>) = (Vec::new(), Vec::new());
    for (k, c) in row_keys.iter().enumerate() {
        names.push(knames[k].0.clone());
        cols.push(c.clone());
    }
    let multi = p.items.len() > 1;
    for (it, v) in p.items.iter().zip(&item_vals) {
        let base = it.names.first().cloned().unwrap_or_default();
        match v {
            Value::Matrix(m) if m.rows == nrow => {
                for c in 0..m.cols {
                    let cn = cnames.get(c).cloned().unwrap_or_else(|| format!("C{c}"));
                    names.push(if multi { format!("{base}_{cn}") } else { cn });
                    cols.push(m.column(c));
                }
            }
            other => {
                names.push(base);
                cols.push(to_column(other, nrow, "a pivot item")?);
            }
        }
    }
    let rows = nrow;
    let order = if p.order.is_empty() {
        vec![]
    } else {
        let scope = result_scope(Scope::new(), &names, &cols);
        super::exec::order_keys(i, &p.order, &scope, rows)?
    };
    let out = Output { names, cols, rows, keep: None, order, scalar: false, limited: false };
    finish_output(i, p, out)
}

/// `cgroup by`: for the i-th distinct value of the cgroup key (ascending), the aggregates
/// over all rows (of the group) whose key is ≤ that value.
pub(crate) fn cgroup(i: &mut Interpreter, p: &Prepared, frame: &Frame, g: &[SelectItem]) -> Result<Value> {
    if p.order.is_empty() {
        return Err(Error::arg("cgroup by requires an order by clause"));
    }
    let (gcols, gnames) = eval_keys(i, frame, g)?;
    let (ccols, cnames) = eval_keys(i, frame, &p.cgroup)?;
    let grefs: Vec<&Column> = gcols.iter().collect();
    let groups = if grefs.is_empty() {
        super::keys::Groups { gid: vec![0; frame.rows], n: 1, first: vec![0] }
    } else {
        group_ids(&grefs)
    };
    let ck = SortKey { col: &ccols[0], asc: true, nulls_first: None };
    let (mut perm, _) = super::keys::bucket_perm(&groups.gid, groups.n);
    let sizes = groups.sizes();
    let mut start = 0;
    let mut spans = Vec::with_capacity(groups.n);
    for s in &sizes {
        sort_rows(std::slice::from_ref(&ck), &mut perm[start..start + s]);
        spans.push((start, start + s));
        start += s;
    }
    let pframe = frame.take(&perm);
    let pc = ccols[0].take_usize(&perm);
    let codes = super::order::codes(&pc);
    // one output row per (group, distinct cgroup value): prefix of the group's rows
    let (mut out_rows, mut ends) = (Vec::new(), Vec::new());
    for &(s, e) in &spans {
        let mut r = s;
        while r < e {
            let mut q = r + 1;
            while q < e && codes.code[q] == codes.code[r] && codes.null[q] == codes.null[r] {
                q += 1;
            }
            out_rows.push((s, q));
            ends.push(q - 1);
            r = q;
        }
    }
    let mut builders: Vec<super::frame::ColBuilder> = p.items.iter().map(|_| super::frame::ColBuilder::new()).collect();
    for &(s, e) in &out_rows {
        i.check_interrupt()?;
        let scope = pframe.slice_scope(s, e);
        for (b, it) in builders.iter_mut().zip(&p.items) {
            let v = eval_in(i, scope.clone(), &it.expr)?;
            b.push(&v, 1, "a cgroup by item")?;
        }
    }
    let (mut names, mut cols) = (Vec::new(), Vec::new());
    let gperm: Vec<usize> = ends.iter().map(|&k| perm[k]).collect();
    for (c, (n, _)) in gcols.iter().zip(&gnames) {
        names.push(n.clone());
        cols.push(c.take_usize(&gperm));
    }
    names.push(cnames[0].0.clone());
    cols.push(pc.take_usize(&ends));
    for (b, it) in builders.into_iter().zip(&p.items) {
        names.push(it.names.first().cloned().unwrap_or_default());
        cols.push(b.finish()?);
    }
    let rows = out_rows.len();
    let scope = result_scope(Scope::new(), &names, &cols);
    let order = super::exec::order_keys(i, &p.order, &scope, rows)?;
    let out = Output { names, cols, rows, keep: None, order, scalar: false, limited: false };
    finish_output(i, p, out)
}
