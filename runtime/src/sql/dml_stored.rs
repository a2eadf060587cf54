//! `update` and `delete` on stored tables, partition by partition: only the partitions the
//! `where` conditions may reach are read (all their columns), the statement runs on each of
//! them, and only the partitions with matched rows are written back, in one commit through
//! the table's `TableSource::rewrite`. This is exact when every condition and every
//! `set` expression is row-wise; anything else (context by, `from` joins, aggregates or
//! order-sensitive functions, new columns) returns None and runs on the whole table.

use super::dml::scatter;
use super::frame::{apply_where, eval_in, to_column, Frame};
use super::plan::{is_rowwise, names_in, rewrite_count_star};
use super::source::{identity, qualify};
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::table::Table;
use crate::table_source::{table_source, PartRows, TableSource};
use crate::value::Value;
use ahash::AHashSet;
use beluga_lang::ast::{DeleteStmt, Expr, ExprKind, UpdateStmt};
use std::sync::Arc;

/// The stored table an update/delete targets and its column names.
struct Target {
    name: String,
    handle: Value,
    names: Vec<String>,
    cols: AHashSet<String>,
}

impl Target {
    /// An empty table with the stored columns' names (for qualified names).
    fn shape(&self) -> Result<Table> {
        Table::new(self.names.clone(), self.names.iter().map(|_| Column::nulls(crate::types::DataType::Int, 0)).collect())
    }

    fn source(&self) -> Result<&dyn TableSource> {
        table_source(&self.handle).ok_or_else(|| Error::runtime("This handle is not a stored table"))
    }
}

fn target(i: &mut Interpreter, e: &Expr) -> Option<Target> {
    let ExprKind::Ident(name) = &e.kind else {
        return None;
    };
    let handle @ Value::Handle(_) = i.resolve(name).ok()? else {
        return None;
    };
    let names: Vec<String> = table_source(&handle)?.schema().ok()?.into_iter().map(|(n, _)| n).collect();
    let cols = names.iter().map(|s| s.to_ascii_lowercase()).collect();
    Some(Target { name: name.clone(), handle, names, cols })
}

/// Every partition the conditions may reach: (version, partition ids, tables).
fn partitions(i: &mut Interpreter, t: &Target, conds: &[Expr]) -> Result<PartRows> {
    let mut preds = super::lower::lower_preds(i, &t.names, conds);
    preds.extend(super::lower::key_fn_preds(i, t.source()?, &preds));
    t.source()?.read_partitions(&preds)
}

/// Write back the changed partitions (`changed[k]` = new rows of partition k, if changed).
fn commit(t: &Target, version: u64, parts: &[String], changed: Vec<Option<Table>>) -> Result<()> {
    let mut keep_parts = Vec::new();
    let mut tables = Vec::new();
    for (k, c) in changed.into_iter().enumerate() {
        if let Some(tab) = c {
            keep_parts.push(parts.get(k).cloned().unwrap_or_default());
            tables.push(Arc::new(tab));
        }
    }
    if tables.is_empty() {
        return Ok(());
    }
    t.source()?.rewrite(version, &keep_parts, &tables)
}

fn all_rowwise(i: &Interpreter, t: &Target, es: &[Expr]) -> bool {
    let is_col = |n: &str| t.cols.contains(&n.to_ascii_lowercase());
    es.iter().all(|e| is_rowwise(i, e, &is_col))
}

/// Conditions or expressions with qualified names (`t.x`) resolved against the table's own name.
fn qualified(t: &Target, es: impl Iterator<Item = Expr>) -> Result<Vec<Expr>> {
    let shape = t.shape()?;
    let quals = vec![(t.name.clone(), identity(&shape))];
    Ok(es.map(|e| rewrite_count_star(&qualify(&e, &shape, &quals))).collect())
}

/// Run `change` on every reachable partition with rows matching `conds` (given the frame of
/// the matched rows, tracking their source rows) and commit the partitions it changed.
fn rewrite_matching(
    i: &mut Interpreter,
    t: &Target,
    needed: &AHashSet<String>,
    conds: &[Expr],
    mut change: impl FnMut(&mut Interpreter, &Table, &Frame) -> Result<Table>,
) -> Result<Option<()>> {
    let PartRows { version, parts, tables } = partitions(i, t, conds)?;
    let tables: Vec<Arc<Table>> = tables.into_iter().map(Arc::new).collect();
    let mut changed = Vec::with_capacity(tables.len());
    for table in &tables {
        let mut frame = Frame::from_table(table, needed, false);
        frame.track = true;
        let frame = apply_where(i, frame, conds)?;
        changed.push(if frame.rows == 0 { None } else { Some(change(i, table, &frame)?) });
    }
    commit(t, version, &parts, changed).map(Some)
}

/// `update` of a stored table by partitions; None when the statement needs the whole table.
pub(crate) fn update(i: &mut Interpreter, u: &UpdateStmt) -> Result<Option<()>> {
    if u.from.is_some() || !u.context_by.is_empty() || !u.csort.is_empty() || u.having.is_some() {
        return Ok(None);
    }
    let Some(t) = target(i, &u.table) else {
        return Ok(None);
    };
    let mut needed = AHashSet::new();
    u.sets.iter().for_each(|(_, e)| names_in(e, &mut needed));
    u.where_.iter().for_each(|e| names_in(e, &mut needed));
    let conds = qualified(&t, u.where_.iter().cloned())?;
    let set_exprs = qualified(&t, u.sets.iter().map(|(_, e)| e.clone()))?;
    if !all_rowwise(i, &t, &conds) || !all_rowwise(i, &t, &set_exprs) {
        return Ok(None);
    }
    rewrite_matching(i, &t, &needed, &conds, |i, table, frame| {
        let rows = frame.source_rows();
        let mut cols = table.cols.clone();
        for ((col, _), e) in u.sets.iter().zip(&set_exprs) {
            let v = eval_in(i, frame.scope(), e)?;
            let vals = to_column(&v, frame.rows, "an update expression")?;
            let k = table.col_index(col).ok_or_else(|| Error::name(format!("Unrecognized column name [{col}]")))?;
            cols[k] = scatter(&cols[k], &rows, &vals)?;
        }
        Table::new(table.names.clone(), cols)
    })
}

/// `delete` from a stored table by partitions; None when it needs the whole table.
pub(crate) fn delete(i: &mut Interpreter, d: &DeleteStmt) -> Result<Option<()>> {
    let Some(t) = target(i, &d.table) else {
        return Ok(None);
    };
    let mut needed = AHashSet::new();
    d.where_.iter().for_each(|e| names_in(e, &mut needed));
    let conds = qualified(&t, d.where_.iter().cloned())?;
    if !all_rowwise(i, &t, &conds) {
        return Ok(None);
    }
    rewrite_matching(i, &t, &needed, &conds, |_, table, frame| {
        let mut gone = vec![false; table.rows()];
        for r in frame.source_rows() {
            gone[r] = true;
        }
        let keep: Vec<usize> = (0..table.rows()).filter(|&r| !gone[r]).collect();
        Ok(table.take_usize(&keep))
    })
}
