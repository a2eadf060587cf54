//! `update`, `delete` and `insert into` (§6.11): the table variable is read, changed column
//! by column (only touched columns are rebuilt) and written back.

use super::context::segments;
use super::frame::{apply_where, eval_in, mask_rows, to_column, to_mask, ColBuilder, Frame};
use super::group::GroupEval;
use super::plan::{names_in, rewrite_count_star};
use super::source::{as_table, eval_from, identity, qualify, Need, Source};
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::kernels::cast::cast_column;
use crate::table::Table;
use crate::table_source::table_source;
use crate::types::DataType;
use crate::value::Value;
use ahash::AHashSet;
use super::plan::map_expr;
use beluga_lang::ast::{DeleteStmt, Expr, ExprKind, FromItem, InsertSource, InsertStmt, UpdateStmt};
use std::sync::Arc;

/// Where an update/delete/insert writes: a table variable, or a stored table's handle.
enum Dest {
    Var(String),
    Handle(Value),
}

/// The destination and current table of an update/delete/insert target.
fn target(i: &mut Interpreter, e: &Expr, needed: &AHashSet<String>) -> Result<(Dest, Arc<Table>)> {
    // update/delete rewrite whole tables: every column is loaded
    let need = Need { names: needed.clone(), all: true, push: vec![], top_desc: None };
    let name = match &e.kind {
        ExprKind::Ident(n) => n.clone(),
        _ => return Err(Error::syntax("The target of update/delete/insert must be a table variable", e.span)),
    };
    let v = i.resolve(&name).map_err(|_| Error::name(format!("Can't recognize table {name}")))?;
    let dest = if matches!(v, Value::Handle(_)) { Dest::Handle(v.clone()) } else { Dest::Var(name) };
    Ok((dest, as_table(i, v, &need)?))
}

/// Write the new table back: to the variable, or through `TableSource::overwrite` for a
/// stored table.
fn store(i: &mut Interpreter, dest: &Dest, old: &Table, names: Vec<String>, cols: Vec<Column>) -> Result<()> {
    let mut t = Table::new(names, cols)?;
    t.keys = old.keys.clone();
    t.name = old.name.clone();
    t.keyed = old.keyed.without_index();
    match dest {
        Dest::Var(name) => i.set_var_mutated(name, Value::table(t)),
        Dest::Handle(h) => {
            let src = table_source(h).ok_or_else(|| Error::runtime("This stored table can't be modified by update/delete"))?;
            src.overwrite(&t)
        }
    }
}

/// Replace rows `rows` of `col` by `vals` (in that order); a vectorized scatter.
pub(crate) fn scatter(col: &Column, rows: &[usize], vals: &Column) -> Result<Column> {
    let vals = if vals.ty == DataType::Void && col.ty != DataType::Void {
        Column::nulls(col.ty, vals.len())
    } else if vals.ty != col.ty && col.ty != DataType::Void {
        cast_column(vals, col.ty)?
    } else {
        vals.clone()
    };
    let ty = if col.ty == DataType::Void { vals.ty } else { col.ty };
    let base = if col.ty == DataType::Void { Column::nulls(ty, col.len()) } else { col.clone() };
    let n = base.len();
    let mut pick: Vec<usize> = (0..n).collect();
    for (k, &r) in rows.iter().enumerate() {
        pick[r] = n + k;
    }
    Ok(Column::concat(ty, &[&base, &vals]).take_usize(&pick))
}

pub(crate) fn update(i: &mut Interpreter, u: &UpdateStmt) -> Result<()> {
    // a stored table rewrites only the partitions it changes
    if super::dml_stored::update(i, u)?.is_some() {
        return Ok(());
    }
    let mut needed = AHashSet::new();
    for (_, e) in &u.sets {
        names_in(e, &mut needed);
    }
    u.where_.iter().for_each(|e| names_in(e, &mut needed));
    u.context_by.iter().for_each(|it| names_in(&it.expr, &mut needed));
    u.csort.iter().for_each(|o| names_in(&o.expr, &mut needed));
    u.having.iter().for_each(|e| names_in(e, &mut needed));
    let (dest, table) = target(i, &u.table, &needed)?;
    // a keyed or indexed table's keys name its rows: DolphinDB refuses to rewrite them
    if let Some((c, _)) = u.sets.iter().find(|(c, _)| table.keys.iter().any(|k| k.eq_ignore_ascii_case(c))) {
        return Err(Error::runtime(format!("Can't update a key column: {c}")));
    }
    let qname = match &u.table.kind {
        ExprKind::Ident(n) => n.clone(),
        _ => String::new(),
    };
    let mut src = Source { table: table.clone(), quals: vec![(qname, identity(&table))], consumed: 0 };
    if let Some(from) = &u.from {
        let joined = eval_from(i, from, &Need { names: needed.clone(), all: false, push: vec![], top_desc: None })?;
        if joined.table.rows() != table.rows() {
            return Err(Error::runtime(
                "update … from needs a join result with one row per row of the updated table (e.g. lj with unique right keys)",
            ));
        }
        src = joined;
    }
    let q = |e: &Expr| rewrite_count_star(&qualify(e, &src.table, &src.quals));
    let mut frame = Frame::from_table(&src.table, &needed, false);
    frame.track = true;
    let conds: Vec<Expr> = u.where_.iter().map(q).collect();
    let frame = apply_where(i, frame, &conds)?;
    let sets: Vec<(String, Expr)> = u.sets.iter().map(|(c, e)| (c.clone(), q(e))).collect();
    let (rows, values): (Vec<usize>, Vec<Column>) = if u.context_by.is_empty() {
        let mut vals = Vec::with_capacity(sets.len());
        for (_, e) in &sets {
            let v = eval_in(i, frame.scope(), e)?;
            vals.push(to_column(&v, frame.rows, "an update expression")?);
        }
        (frame.source_rows(), vals)
    } else {
        let by: Vec<_> = u.context_by.iter().map(|it| beluga_lang::ast::SelectItem { expr: q(&it.expr), alias: it.alias.clone() }).collect();
        let csort: Vec<_> = u
            .csort
            .iter()
            .map(|o| beluga_lang::ast::OrderItem { expr: q(&o.expr), asc: o.asc, nulls_first: o.nulls_first })
            .collect();
        let seg = segments(i, &frame, &by, &csort)?;
        let n = seg.offsets.len() - 1;
        let pframe = seg.apply(&frame);
        let mut ev = GroupEval::new(&pframe, &seg.pgid, n, &seg.keys, true, Some(seg.offsets.clone()));
        let exprs: Vec<(&Expr, usize)> = sets.iter().map(|(_, e)| (e, 1)).collect();
        let mut vals: Vec<Column> = ev.eval_items(i, &exprs)?.into_iter().map(|mut v| v.remove(0)).collect();
        let mut rows = pframe.source_rows();
        if let Some(h) = &u.having {
            let h = q(h);
            let m = ev.eval_items(i, &[(&h, 1)])?.remove(0).remove(0);
            if let Some(mask) = to_mask(&Value::Vector(m), pframe.rows)? {
                let keep = mask_rows(&mask);
                rows = keep.iter().map(|&k| rows[k]).collect();
                vals = vals.iter().map(|c| c.take_usize(&keep)).collect();
            }
        }
        (rows, vals)
    };
    let mut names = table.names.clone();
    let mut cols = table.cols.clone();
    let nrows = table.rows();
    for ((col, _), vals) in sets.iter().zip(values) {
        match table.col_index(col) {
            Some(k) => cols[k] = scatter(&cols[k], &rows, &vals)?,
            None => {
                let ty = if vals.ty == DataType::Void { DataType::Double } else { vals.ty };
                let base = Column::nulls(ty, nrows);
                names.push(col.clone());
                cols.push(scatter(&base, &rows, &vals)?);
            }
        }
    }
    store(i, &dest, &table, names, cols)
}

pub(crate) fn delete(i: &mut Interpreter, d: &DeleteStmt) -> Result<()> {
    if super::dml_stored::delete(i, d)?.is_some() {
        return Ok(());
    }
    let mut needed = AHashSet::new();
    d.where_.iter().for_each(|e| names_in(e, &mut needed));
    let (dest, table) = target(i, &d.table, &needed)?;
    let qname = match &d.table.kind {
        ExprKind::Ident(n) => n.clone(),
        _ => String::new(),
    };
    if let Some(from) = &d.from {
        let gone = joined_rows(i, &qname, &table, from, &d.where_, needed)?;
        let keep: Vec<usize> = (0..table.rows()).filter(|&r| !gone[r]).collect();
        let t = table.take_usize(&keep);
        return store(i, &dest, &table, t.names, t.cols);
    }
    let quals = vec![(qname, identity(&table))];
    let conds: Vec<Expr> = d.where_.iter().map(|e| rewrite_count_star(&qualify(e, &table, &quals))).collect();
    let mut frame = Frame::from_table(&table, &needed, false);
    frame.track = true;
    let frame = apply_where(i, frame, &conds)?;
    let mut gone = vec![false; table.rows()];
    for r in frame.source_rows() {
        gone[r] = true;
    }
    let keep: Vec<usize> = (0..table.rows()).filter(|&r| !gone[r]).collect();
    let t = table.take_usize(&keep);
    store(i, &dest, &table, t.names, t.cols)
}

/// Column that numbers the rows of the target of `delete t from join(…)`.
const ROW_ID: &str = "__delete_row_id__";
/// Name the numbered target goes by while the join is evaluated.
const NUMBERED: &str = "__delete_target__";

/// `delete t from joiner(t, …) where …`: which rows of t the join and the conditions keep.
/// The join runs on t with its rows numbered (every mention of t in the from clause is
/// the numbered copy), so the surviving numbers name the rows to delete.
fn joined_rows(i: &mut Interpreter, name: &str, table: &Table, from: &FromItem, conds: &[Expr], mut needed: AHashSet<String>) -> Result<Vec<bool>> {
    let n = table.rows();
    let mut numbered = table.clone();
    numbered.names.push(ROW_ID.into());
    numbered.cols.push(Column::from_vec(DataType::Long, (0..n as i64).collect::<Vec<i64>>()));
    let rename = |e: &Expr| {
        map_expr(e, &mut |x| match &x.kind {
            ExprKind::Ident(v) if v == name => Some(Expr::new(ExprKind::Ident(NUMBERED.into()), x.span)),
            _ => None,
        })
    };
    fn rename_from(f: &FromItem, r: &dyn Fn(&Expr) -> Expr) -> FromItem {
        match f {
            FromItem::Table(e, a) => FromItem::Table(r(e), a.clone()),
            FromItem::Join(a, k, b, on) => FromItem::Join(Box::new(rename_from(a, r)), *k, Box::new(rename_from(b, r)), on.as_ref().map(r)),
        }
    }
    let from = rename_from(from, &rename);
    needed.insert(ROW_ID.into());
    i.set_var(NUMBERED, Value::table(numbered))?;
    let picked = (|| -> Result<Vec<usize>> {
        let src = eval_from(i, &from, &Need { names: needed.clone(), all: true, push: vec![], top_desc: None })?;
        if src.table.col_index(ROW_ID).is_none() {
            return Err(Error::runtime(format!("delete {name} from …: the join must keep the rows of {name} (its left table)")));
        }
        let conds: Vec<Expr> = conds.iter().map(|e| rewrite_count_star(&qualify(e, &src.table, &src.quals))).collect();
        let frame = apply_where(i, Frame::from_table(&src.table, &needed, false), &conds)?;
        let col = match frame.index(ROW_ID) {
            Some(k) => frame.cols[k].clone(),
            None => return Err(Error::runtime("delete … from: the row numbers were lost in the join")),
        };
        Ok((0..col.len()).filter_map(|k| col.i64_at(k)).filter(|&r| r >= 0 && (r as usize) < n).map(|r| r as usize).collect())
    })();
    if let Some(f) = i.frames.last_mut() {
        f.vars.remove(NUMBERED);
    }
    i.globals.remove(NUMBERED);
    let mut gone = vec![false; n];
    for r in picked? {
        gone[r] = true;
    }
    Ok(gone)
}

pub(crate) fn insert(i: &mut Interpreter, s: &InsertStmt) -> Result<()> {
    let (dest, table) = target(i, &s.table, &AHashSet::new())?;
    let targets: Vec<usize> = if s.columns.is_empty() {
        (0..table.ncols()).collect()
    } else {
        s.columns
            .iter()
            .map(|c| table.col_index(c).ok_or_else(|| Error::name(format!("Unrecognized column name [{c}]"))))
            .collect::<Result<_>>()?
    };
    let new: Vec<Column> = match &s.source {
        InsertSource::Values(rows) => {
            let mut builders: Vec<ColBuilder> = targets.iter().map(|_| ColBuilder::new()).collect();
            for row in rows {
                if row.len() != targets.len() {
                    return Err(Error::size(format!(
                        "The number of values ({}) doesn't match the number of columns ({})",
                        row.len(),
                        targets.len()
                    )));
                }
                // a value for an `ELEM[]` column is its rows (a vector is one row, a tuple one per element)
                let vals: Vec<Value> = row
                    .iter()
                    .zip(&targets)
                    .map(|(e, &k)| {
                        let v = i.eval(e)?;
                        match table.cols[k].ty.array_elem() {
                            Some(el) => Ok(Value::ArrayVector(Arc::new(crate::value::ArrayVec::rows_of(&v, el)?))),
                            None => Ok(v),
                        }
                    })
                    .collect::<Result<_>>()?;
                let n = vals
                    .iter()
                    .filter_map(|v| match v {
                        Value::Vector(c) => Some(c.len()),
                        Value::ArrayVector(a) => Some(a.rows()),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(1);
                for (b, v) in builders.iter_mut().zip(&vals) {
                    b.push(v, n, "an inserted value")?;
                }
            }
            builders.into_iter().map(|b| b.finish()).collect::<Result<_>>()?
        }
        InsertSource::Select(q) => {
            let v = super::select(i, q)?;
            let t = match v {
                Value::Table(t) => t,
                other => return Err(Error::type_err(format!("insert into … select needs a table, not {}", crate::eval::ops::describe(&other)))),
            };
            if t.ncols() != targets.len() {
                return Err(Error::size(format!(
                    "The query returns {} columns but {} are inserted",
                    t.ncols(),
                    targets.len()
                )));
            }
            t.cols.clone()
        }
    };
    let m = new.first().map(|c| c.len()).unwrap_or(0);
    // the new rows in the table's column order and types
    let mut rows_in: Vec<Column> = Vec::with_capacity(table.ncols());
    for (k, col) in table.cols.iter().enumerate() {
        rows_in.push(match targets.iter().position(|&t| t == k) {
            Some(p) => {
                let v = &new[p];
                if v.len() != m {
                    return Err(Error::size("The inserted columns have different lengths"));
                }
                if v.ty == col.ty {
                    v.clone()
                } else if v.ty == DataType::Void {
                    Column::nulls(col.ty, m)
                } else {
                    cast_column(v, col.ty).map_err(|_| {
                        Error::type_err(format!("Incompatible type. Expected: {}, Actual: {}", col.ty, v.ty))
                    })?
                }
            }
            None => Column::nulls(col.ty, m),
        });
    }
    if let (Dest::Handle(h), true) = (&dest, table.keys.is_empty()) {
        let rows = Table::new(table.names.clone(), rows_in)?;
        // a stream table or streaming engine appends in the session (stdlib's stream/)
        if let Value::Handle(hh) = h {
            if let Some(r) = hh.session_append(i, &Value::table(rows.clone())) {
                return r.map(|_| ());
            }
        }
        let rows_in = rows.cols;
        // a stored table appends the new rows through its table source
        let src = table_source(h).ok_or_else(|| Error::runtime("This stored table can't be appended to"))?;
        let rows = Table::new(table.names.clone(), rows_in)?;
        return src.append(&rows).map(|_| ());
    }
    if let Dest::Var(name) = &dest {
        // append in place: take the table from every holder (its variable, the shared
        // registry, a `share t as st` alias) so the columns grow without a copy; other
        // sessions wait on the shared name until it is back
        let want = Arc::as_ptr(&table);
        drop(table);
        // a builtin's in-place result left over from an earlier call (`tableInsert` offers
        // one that nothing collects) would be a second reference and force a copy
        i.inplace_out = None;
        if let Some((v, held)) = i.take_table_for_update(name) {
            match v {
                // the table the new rows were checked against
                Value::Table(mut t) if std::ptr::eq(Arc::as_ptr(&t), want) => {
                    let tm = Arc::make_mut(&mut t);
                    // a keyed table upserts through its key index (O(rows inserted))
                    let r = if tm.keys.is_empty() {
                        for (c, n) in tm.cols.iter_mut().zip(&rows_in) {
                            c.append(n);
                        }
                        Ok(())
                    } else {
                        crate::keyindex::key_positions(tm).and_then(|ki| crate::keyindex::upsert(tm, &ki, &rows_in, false)).map(|_| ())
                    };
                    i.put_back_table(Value::Table(t), held);
                    return r;
                }
                v => i.put_back_table(v, held),
            }
        }
        let (_, table) = target(i, &s.table, &AHashSet::new())?;
        let cols = if table.keys.is_empty() { append_rows(&table.cols, &rows_in) } else { upsert_rows(&table, &rows_in)? };
        let names = table.names.clone();
        return store(i, &dest, &table, names, cols);
    }
    let cols = if table.keys.is_empty() { append_rows(&table.cols, &rows_in) } else { upsert_rows(&table, &rows_in)? };
    let names = table.names.clone();
    store(i, &dest, &table, names, cols)
}

fn append_rows(old: &[Column], new: &[Column]) -> Vec<Column> {
    old.iter()
        .zip(new)
        .map(|(c, n)| {
            let mut c = c.clone();
            c.append(n);
            c
        })
        .collect()
}

/// Keyed tables held elsewhere than a variable: the upsert on a copy (copy on write).
fn upsert_rows(t: &Table, new: &[Column]) -> Result<Vec<Column>> {
    let mut out = t.clone();
    let ki = crate::keyindex::key_positions(&out)?;
    crate::keyindex::upsert(&mut out, &ki, new, false)?;
    Ok(out.cols)
}
