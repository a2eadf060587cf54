//! Partitioning functions: `createPartitionedTable(..., partitionColumns="f(ts, 6, 8)")` and
//! `create table ... partitioned by f(ts, 6, 8)` partition a table by what a function returns
//! for a column rather than by the column's own values (manual: funcs/c/createPartitionedTable,
//! progr/sql/create, example 6). The call names exactly one column of the table; its other
//! arguments are constant scalars. The call's text is kept in the table's manifest
//! (`TableOpts::part_fns`) and evaluated in the appending session, so user functions work
//! and the function is looked up again after the database is reopened.
//!
//! Queries never prune such a level by the column's values (a partition holds the rows whose
//! function value, not column value, lies in the scheme); block statistics of the column
//! itself still skip data.

use beluga_lang::ast::{Arg, Expr, ExprKind, UnOp};
use beluga_runtime::{CallCtx, Column, Error, Result, Value};

/// Whether a partitioning column entry is a function call rather than a column name.
pub fn is_call(s: &str) -> bool {
    s.contains('(')
}

fn parse(text: &str) -> Result<Expr> {
    beluga_lang::parse_expr(text, &|_| false).map_err(|e| Error::arg(format!("The partitioning function '{text}' does not parse: {e}")))
}

fn constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_) => true,
        ExprKind::Unary(UnOp::Neg, x) => matches!(x.kind, ExprKind::Lit(_)),
        _ => false,
    }
}

/// Check the call `text` against the table's columns: (function name, index of the column
/// it is applied to, the column's name as written in the call).
pub fn check(text: &str, names: &[String]) -> Result<(String, usize, String)> {
    let e = parse(text)?;
    let bad = |why: &str| Error::arg(format!("The partitioning function '{text}' {why}"));
    let ExprKind::Call(f, args) = &e.kind else {
        return Err(bad("must be a function call such as f(col, 3)"));
    };
    let ExprKind::Ident(fname) = &f.kind else {
        return Err(bad("must call a function by name"));
    };
    let mut col: Option<(usize, String)> = None;
    for a in args {
        let Arg::Pos(Some(x)) = a else {
            return Err(bad("takes positional arguments only"));
        };
        if let ExprKind::Ident(n) = &x.kind {
            let Some(k) = names.iter().position(|c| c.eq_ignore_ascii_case(n)) else {
                return Err(bad(&format!("names {n}, which is not a column of the table")));
            };
            if col.is_some() {
                return Err(bad("must have exactly one argument that is a partitioning column"));
            }
            col = Some((k, n.clone()));
        } else if !constant(x) {
            return Err(bad("may have only constant scalars besides the partitioning column"));
        }
    }
    let (k, n) = col.ok_or_else(|| bad("must have exactly one argument that is a partitioning column"))?;
    Ok((fname.clone(), k, n))
}

/// Evaluate the partitioning call `text` on the column's values `col` in session `i`: one
/// value per row.
pub fn apply(i: &mut CallCtx, text: &str, col: &Column) -> Result<Column> {
    let e = parse(text)?;
    let ExprKind::Call(_, args) = &e.kind else {
        return Err(Error::arg(format!("The partitioning function '{text}' must be a function call")));
    };
    let ident = args
        .iter()
        .find_map(|a| match a {
            Arg::Pos(Some(Expr { kind: ExprKind::Ident(n), .. })) => Some(n.clone()),
            _ => None,
        })
        .ok_or_else(|| Error::arg(format!("The partitioning function '{text}' names no column")))?;
    let mut scope = ahash::AHashMap::new();
    scope.insert(ident, Value::vector(col.clone()));
    let out = i.eval_with_columns(scope, &e).map_err(|err| Error::runtime(format!("The partitioning function '{text}' failed: {err}")))?;
    let n = col.len();
    match out {
        Value::Vector(c) if c.len() == n => Ok(c),
        Value::Scalar(c) if n == 1 => Ok(c),
        other => Err(Error::runtime(format!(
            "The partitioning function '{text}' must return one value per row ({n}), not {}",
            beluga_runtime::value::describe(&other)
        ))),
    }
}
