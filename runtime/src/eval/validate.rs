//! Checks made after parsing and before running a segment, as DolphinDB does at parse time:
//! a function may not modify a parameter that is not declared `mutable`.

use crate::error::{Error, Result};
use beluga_lang::ast::{Expr, ExprKind, FuncBody, FuncDef, Stmt, StmtKind};

pub fn check(stmts: &[Stmt]) -> Result<()> {
    for s in stmts {
        walk_stmt(s, &mut |d| check_def(d))?;
    }
    Ok(())
}

/// Visit every function definition (named or lambda) reachable from a statement.
fn walk_stmt(s: &Stmt, f: &mut dyn FnMut(&FuncDef) -> Result<()>) -> Result<()> {
    match &s.kind {
        StmtKind::Def(d) => {
            f(d)?;
            if let FuncBody::Block(b) = &d.body {
                for x in b {
                    walk_stmt(x, f)?;
                }
            }
        }
        StmtKind::Block(b) | StmtKind::Transaction(b) => {
            for x in b {
                walk_stmt(x, f)?;
            }
        }
        StmtKind::If(_, a, b) => {
            walk_stmt(a, f)?;
            if let Some(b) = b {
                walk_stmt(b, f)?;
            }
        }
        StmtKind::For(_, _, b) | StmtKind::While(_, b) | StmtKind::DoWhile(b, _) | StmtKind::Timer(_, b) => walk_stmt(b, f)?,
        StmtKind::Try(a, _, b) => {
            walk_stmt(a, f)?;
            walk_stmt(b, f)?;
        }
        _ => {}
    }
    Ok(())
}

fn check_def(d: &FuncDef) -> Result<()> {
    let readonly: Vec<&str> = d.params.iter().filter(|p| !p.mutable).map(|p| p.name.as_str()).collect();
    if readonly.is_empty() {
        return Ok(());
    }
    let FuncBody::Block(body) = &d.body else { return Ok(()) };
    for s in body {
        check_stmt(s, &readonly)?;
    }
    Ok(())
}

fn base_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        ExprKind::Index(b, _) | ExprKind::Member(b, _) => base_name(b),
        _ => None,
    }
}

fn modified(name: &str, s: &Stmt) -> Error {
    Error::syntax(format!("Constant variable [{name}] can't be modified."), s.span)
}

fn check_stmt(s: &Stmt, ro: &[&str]) -> Result<()> {
    match &s.kind {
        StmtKind::Assign(targets, _, _) => {
            for t in targets {
                if let Some(n) = base_name(t) {
                    if ro.contains(&n) {
                        return Err(modified(n, s));
                    }
                }
            }
        }
        StmtKind::Expr(e) => {
            let first = match &e.kind {
                ExprKind::Method(t, f, _) if f.ends_with('!') => Some(t.as_ref()),
                ExprKind::Call(f, args) => match (&f.kind, args.first()) {
                    (ExprKind::Ident(n), Some(beluga_lang::ast::Arg::Pos(Some(a)))) if n.ends_with('!') => Some(a),
                    _ => None,
                },
                _ => None,
            };
            if let Some(n) = first.and_then(|a| match &a.kind {
                ExprKind::Ident(n) => Some(n.as_str()),
                _ => None,
            }) {
                if ro.contains(&n) {
                    return Err(modified(n, s));
                }
            }
        }
        StmtKind::Block(b) => {
            for x in b {
                check_stmt(x, ro)?;
            }
        }
        StmtKind::If(_, a, b) => {
            check_stmt(a, ro)?;
            if let Some(b) = b {
                check_stmt(b, ro)?;
            }
        }
        StmtKind::For(v, _, b) => {
            if ro.contains(&v.as_str()) {
                return Err(modified(v, s));
            }
            check_stmt(b, ro)?;
        }
        StmtKind::While(_, b) | StmtKind::DoWhile(b, _) => check_stmt(b, ro)?,
        StmtKind::Try(a, _, b) => {
            check_stmt(a, ro)?;
            check_stmt(b, ro)?;
        }
        _ => {}
    }
    Ok(())
}
