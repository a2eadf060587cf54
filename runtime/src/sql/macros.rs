//! SQL macro variables (DolphinDB 2.00.12/3.00: progr/macrovariations): `_$name` stands for
//! the column whose name the STRING variable `name` holds, `_$$names` for the columns a
//! STRING vector names. The pre-pass reads them as the identifiers `_$name` / `_$$names`;
//! before a query runs they are replaced by plain column names: a `_$$` select or grouping
//! item becomes one item per column, a `_$$` argument one argument per column (anywhere
//! else it is a tuple of the columns), a `_$` alias takes the variable's value.

use super::plan::map_expr;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::value::Value;
use beluga_lang::ast::{Arg, Expr, ExprKind, OrderItem, SelectItem, SelectQuery};

const ONE: &str = "_$";
const MANY: &str = "_$$";

fn is_macro(n: &str) -> bool {
    n.starts_with(ONE)
}

/// Whether the query (not counting nested queries) uses a macro variable.
pub(crate) fn uses_macros(q: &SelectQuery) -> bool {
    let mut found = false;
    let mut probe = |e: &Expr| {
        let _ = map_expr(e, &mut |x| {
            if matches!(&x.kind, ExprKind::Ident(n) if is_macro(n)) {
                found = true;
            }
            None
        });
    };
    for it in q.items.iter().chain(q.group.iter().flat_map(|g| g.1.iter())).chain(q.cgroup.iter()) {
        probe(&it.expr);
    }
    for e in &q.where_ {
        probe(e);
    }
    for o in q.order.iter().chain(q.csort.iter()) {
        probe(&o.expr);
    }
    if let Some(h) = &q.having {
        probe(h);
    }
    found || q.items.iter().any(|it| it.alias.iter().any(|a| is_macro(a)))
}

/// The column names a macro variable holds (`_$`: exactly one).
fn names(i: &Interpreter, macro_name: &str) -> Result<Vec<String>> {
    let (var, many) = match macro_name.strip_prefix(MANY) {
        Some(v) => (v, true),
        None => (&macro_name[ONE.len()..], false),
    };
    let v = i.resolve(var).map_err(|_| Error::name(format!("The macro variable [{var}] is not defined")))?;
    let bad = || Error::arg(format!("The macro variable [{var}] must hold {}", if many { "a STRING vector of column names" } else { "a STRING column name" }));
    let out: Vec<String> = match &v {
        Value::Scalar(c) if c.ty.is_literal() && !many => vec![c.str_at(0).ok_or_else(bad)?.to_string()],
        Value::Vector(c) if c.ty.is_literal() && many => (0..c.len()).map(|k| c.str_at(k).unwrap_or("").to_string()).collect(),
        Value::Scalar(c) if c.ty.is_literal() && many => vec![c.str_at(0).ok_or_else(bad)?.to_string()],
        _ => return Err(bad()),
    };
    Ok(out)
}

fn ident(n: &str, like: &Expr) -> Expr {
    Expr::new(ExprKind::Ident(n.to_string()), like.span)
}

/// An expression with its macros replaced.
fn expand_expr(i: &Interpreter, e: &Expr) -> Result<Expr> {
    let mut err: Option<Error> = None;
    let out = map_expr(e, &mut |x| {
        let r: Result<Option<Expr>> = (|| match &x.kind {
            ExprKind::Ident(n) if is_macro(n) => {
                let ns = names(i, n)?;
                Ok(Some(if n.starts_with(MANY) {
                    Expr::new(ExprKind::Tuple(ns.iter().map(|c| ident(c, x)).collect()), x.span)
                } else {
                    ident(&ns[0], x)
                }))
            }
            ExprKind::Call(g, args) if args.iter().any(|a| matches!(a, Arg::Pos(Some(Expr { kind: ExprKind::Ident(n), .. })) if n.starts_with(MANY))) => {
                let mut out = Vec::with_capacity(args.len());
                for a in args {
                    match a {
                        Arg::Pos(Some(Expr { kind: ExprKind::Ident(n), .. })) if n.starts_with(MANY) => {
                            out.extend(names(i, n)?.iter().map(|c| Arg::Pos(Some(ident(c, x)))));
                        }
                        Arg::Pos(Some(a)) => out.push(Arg::Pos(Some(expand_expr(i, a)?))),
                        Arg::Pos(None) => out.push(Arg::Pos(None)),
                        Arg::Named(k, a) => out.push(Arg::Named(k.clone(), expand_expr(i, a)?)),
                    }
                }
                Ok(Some(Expr::new(ExprKind::Call(Box::new(expand_expr(i, g)?), out), x.span)))
            }
            _ => Ok(None),
        })();
        match r {
            Ok(v) => v,
            Err(e) => {
                err.get_or_insert(e);
                None
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

fn expand_items(i: &Interpreter, items: &[SelectItem]) -> Result<Vec<SelectItem>> {
    let mut out = Vec::with_capacity(items.len());
    for it in items {
        if let ExprKind::Ident(n) = &it.expr.kind {
            if n.starts_with(MANY) {
                for c in names(i, n)? {
                    out.push(SelectItem { expr: ident(&c, &it.expr), alias: vec![] });
                }
                continue;
            }
        }
        let mut alias = Vec::with_capacity(it.alias.len());
        for a in &it.alias {
            if is_macro(a) {
                alias.extend(names(i, a)?);
            } else {
                alias.push(a.clone());
            }
        }
        out.push(SelectItem { expr: expand_expr(i, &it.expr)?, alias });
    }
    Ok(out)
}

fn expand_order(i: &Interpreter, items: &[OrderItem]) -> Result<Vec<OrderItem>> {
    items.iter().map(|o| Ok(OrderItem { expr: expand_expr(i, &o.expr)?, ..o.clone() })).collect()
}

/// The query with every macro variable replaced by the column names it holds.
pub(crate) fn expand(i: &Interpreter, q: &SelectQuery) -> Result<SelectQuery> {
    let mut out = q.clone();
    out.items = expand_items(i, &q.items)?;
    out.where_ = q.where_.iter().map(|e| expand_expr(i, e)).collect::<Result<_>>()?;
    if let Some((k, g)) = &q.group {
        out.group = Some((*k, expand_items(i, g)?));
    }
    out.cgroup = expand_items(i, &q.cgroup)?;
    out.order = expand_order(i, &q.order)?;
    out.csort = expand_order(i, &q.csort)?;
    if let Some(h) = &q.having {
        out.having = Some(expand_expr(i, h)?);
    }
    Ok(out)
}
