//! Query analysis on the syntax tree: which names a query references, rewriting of
//! qualified names (`t2.x`), result column names (§6.3) and the row-wise test that decides
//! whether an expression can run once on whole columns or must run per group.

use crate::eval::Interpreter;
use crate::registry::Kind;
use crate::value::Value;
use ahash::AHashSet;
use beluga_lang::ast::*;

/// Name bound to the row count of the current scope; `count(*)` is rewritten to it.
pub(crate) const COUNT_STAR: &str = "__count_star__";

fn walk_args(args: &[Arg], f: &mut dyn FnMut(&Expr)) {
    for a in args {
        match a {
            Arg::Pos(Some(e)) | Arg::Named(_, e) => walk(e, f),
            Arg::Pos(None) => {}
        }
    }
}

/// Visit every sub-expression, pre-order, including nested queries.
pub fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Vector(v) | ExprKind::Tuple(v) | ExprKind::Compare(v, _) => v.iter().for_each(|x| walk(x, f)),
        ExprKind::Dict(p) => p.iter().for_each(|(a, b)| {
            walk(a, f);
            walk(b, f)
        }),
        ExprKind::Unary(_, x)
        | ExprKind::Template(x, _)
        | ExprKind::Meta(x)
        | ExprKind::IsNull(x, _)
        | ExprKind::Member(x, _) => walk(x, f),
        ExprKind::Binary(_, a, b) | ExprKind::Quantified(_, _, a, b) => {
            walk(a, f);
            walk(b, f)
        }
        ExprKind::Infix(g, a, b) | ExprKind::Ternary(g, a, b) => {
            walk(g, f);
            walk(a, f);
            walk(b, f)
        }
        ExprKind::OpenPair(a, b) => {
            a.iter().for_each(|x| walk(x, f));
            b.iter().for_each(|x| walk(x, f));
        }
        ExprKind::Call(g, args) | ExprKind::Partial(g, args) => {
            walk(g, f);
            walk_args(args, f)
        }
        ExprKind::Method(x, _, args) => {
            walk(x, f);
            walk_args(args, f)
        }
        ExprKind::Index(x, idx) => {
            walk(x, f);
            idx.iter().flatten().for_each(|i| walk(i, f))
        }
        ExprKind::Case(arms, d) => {
            for (c, v) in arms {
                walk(c, f);
                walk(v, f)
            }
            d.iter().for_each(|x| walk(x, f))
        }
        ExprKind::Select(q) | ExprKind::Exists(q) => walk_query(q, f),
        ExprKind::Union(a, b, _) => {
            walk(a, f);
            walk(b, f)
        }
        ExprKind::With(ctes, body) => {
            ctes.iter().for_each(|c| walk(&c.query, f));
            walk(body, f)
        }
        _ => {}
    }
}

/// Visit every expression of a query.
pub(crate) fn walk_query(q: &SelectQuery, f: &mut dyn FnMut(&Expr)) {
    for it in &q.items {
        walk(&it.expr, f)
    }
    if let Some(from) = &q.from {
        walk_from(from, f)
    }
    q.where_.iter().for_each(|e| walk(e, f));
    if let Some((_, g)) = &q.group {
        g.iter().for_each(|it| walk(&it.expr, f))
    }
    q.cgroup.iter().for_each(|it| walk(&it.expr, f));
    q.csort.iter().for_each(|o| walk(&o.expr, f));
    q.having.iter().for_each(|e| walk(e, f));
    q.order.iter().for_each(|o| walk(&o.expr, f));
    if let Some((a, b)) = &q.limit {
        a.iter().for_each(|e| walk(e, f));
        walk(b, f)
    }
}

fn walk_from(from: &FromItem, f: &mut dyn FnMut(&Expr)) {
    match from {
        FromItem::Table(e, _) => walk(e, f),
        FromItem::Join(a, _, b, on) => {
            walk_from(a, f);
            walk_from(b, f);
            on.iter().for_each(|e| walk(e, f))
        }
    }
}

/// Every identifier an expression may use as a column name (an over-approximation:
/// lambda bodies are scanned as text, since lambdas capture the query's columns).
pub fn names_in(e: &Expr, out: &mut AHashSet<String>) {
    walk(e, &mut |x| match &x.kind {
        ExprKind::Ident(n) => {
            out.insert(n.clone());
        }
        ExprKind::ColumnSeq(a, b) => {
            out.insert(a.clone());
            out.insert(b.clone());
        }
        // `t2.x` may name column x (or t2_x) of a join
        ExprKind::Member(q, c) => {
            out.insert(c.clone());
            if let ExprKind::Ident(qn) = &q.kind {
                out.insert(format!("{qn}_{c}"));
            }
        }
        ExprKind::Lambda(def) => {
            for w in def.text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if !w.is_empty() {
                    out.insert(w.to_string());
                }
            }
        }
        ExprKind::Meta(m) => names_in(m, out),
        // a window's partition/order columns are inside its spec text
        ExprKind::Infix(_, g, spec) if matches!(&g.kind, ExprKind::Ident(n) if n == super::window::OVER) => {
            if let ExprKind::Lit(Literal::Str(s)) = &spec.kind {
                for w in s.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                    if !w.is_empty() {
                        out.insert(w.to_string());
                    }
                }
            }
        }
        _ => {}
    });
}

fn map_args(args: &[Arg], f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Vec<Arg> {
    args.iter()
        .map(|a| match a {
            Arg::Pos(Some(e)) => Arg::Pos(Some(map_expr(e, f))),
            Arg::Pos(None) => Arg::Pos(None),
            Arg::Named(n, e) => Arg::Named(n.clone(), map_expr(e, f)),
        })
        .collect()
}

/// Rebuild an expression bottom-up; `f` may replace a node (its children are then not
/// visited). Nested queries, lambdas and metacode are left alone (they have their own scope).
pub fn map_expr(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
    if let Some(r) = f(e) {
        return r;
    }
    let bx = |x: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>| Box::new(map_expr(x, f));
    let kind = match &e.kind {
        ExprKind::Vector(v) => ExprKind::Vector(v.iter().map(|x| map_expr(x, f)).collect()),
        ExprKind::Tuple(v) => ExprKind::Tuple(v.iter().map(|x| map_expr(x, f)).collect()),
        ExprKind::Compare(v, ops) => ExprKind::Compare(v.iter().map(|x| map_expr(x, f)).collect(), ops.clone()),
        ExprKind::Dict(p) => ExprKind::Dict(p.iter().map(|(a, b)| (map_expr(a, f), map_expr(b, f))).collect()),
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, bx(x, f)),
        ExprKind::Template(x, k) => ExprKind::Template(bx(x, f), k.clone()),
        ExprKind::IsNull(x, n) => ExprKind::IsNull(bx(x, f), *n),
        ExprKind::Member(x, n) => ExprKind::Member(bx(x, f), n.clone()),
        ExprKind::Binary(op, a, b) => {
            let a = bx(a, f);
            ExprKind::Binary(*op, a, bx(b, f))
        }
        ExprKind::Quantified(op, all, a, b) => {
            let a = bx(a, f);
            ExprKind::Quantified(*op, *all, a, bx(b, f))
        }
        ExprKind::Infix(g, a, b) => {
            let g = bx(g, f);
            let a = bx(a, f);
            ExprKind::Infix(g, a, bx(b, f))
        }
        ExprKind::Ternary(c, a, b) => {
            let c = bx(c, f);
            let a = bx(a, f);
            ExprKind::Ternary(c, a, bx(b, f))
        }
        ExprKind::OpenPair(a, b) => {
            let a = a.as_ref().map(|x| bx(x, f));
            ExprKind::OpenPair(a, b.as_ref().map(|x| bx(x, f)))
        }
        ExprKind::Call(g, args) => {
            let g = bx(g, f);
            ExprKind::Call(g, map_args(args, f))
        }
        ExprKind::Partial(g, args) => {
            let g = bx(g, f);
            ExprKind::Partial(g, map_args(args, f))
        }
        ExprKind::Method(x, n, args) => {
            let x = bx(x, f);
            ExprKind::Method(x, n.clone(), map_args(args, f))
        }
        ExprKind::Index(x, idx) => {
            let x = bx(x, f);
            ExprKind::Index(x, idx.iter().map(|i| i.as_ref().map(|i| map_expr(i, f))).collect())
        }
        ExprKind::Case(arms, d) => {
            let arms = arms.iter().map(|(c, v)| (map_expr(c, f), map_expr(v, f))).collect();
            ExprKind::Case(arms, d.as_ref().map(|x| bx(x, f)))
        }
        other => other.clone(),
    };
    Expr::new(kind, e.span)
}

/// Canonical text of an expression, used to compare expressions ignoring spans.
pub(crate) fn text(e: &Expr) -> String {
    crate::fmt::expr_text(e)
}

/// `count(*)` → the row-count placeholder (evaluated against every scope).
pub(crate) fn rewrite_count_star(e: &Expr) -> Expr {
    map_expr(e, &mut |x| match &x.kind {
        ExprKind::Call(g, args) if is_count_star(g, args) => Some(Expr::new(ExprKind::Ident(COUNT_STAR.into()), x.span)),
        _ => None,
    })
}

fn is_count_star(g: &Expr, args: &[Arg]) -> bool {
    matches!(&g.kind, ExprKind::Ident(n) if n == "count")
        && matches!(args, [Arg::Pos(Some(Expr { kind: ExprKind::Star, .. }))])
}

// ------------------------------------------------------------------ column names (§6.3)

fn callee_name(g: &Expr) -> String {
    match &g.kind {
        ExprKind::Ident(n) | ExprKind::FuncRef(n) => n.clone(),
        ExprKind::QualIdent(p) => p.last().cloned().unwrap_or_default(),
        ExprKind::Partial(x, _) | ExprKind::Template(x, _) => callee_name(x),
        ExprKind::OpFunc(op) => op.func_name().to_string(),
        _ => "col".to_string(),
    }
}

fn first_arg(args: &[Arg]) -> Option<&Expr> {
    match args.first() {
        Some(Arg::Pos(Some(e))) | Some(Arg::Named(_, e)) => Some(e),
        _ => None,
    }
}

fn call_name(f: &str, arg: Option<&Expr>) -> String {
    match arg.map(|a| &a.kind) {
        Some(ExprKind::Ident(c)) if c != COUNT_STAR => format!("{f}_{c}"),
        Some(ExprKind::Member(b, c)) if matches!(b.kind, ExprKind::Ident(_)) => format!("{f}_{c}"),
        _ => f.to_string(),
    }
}

/// The automatic name of a select item or grouping expression without alias.
pub fn auto_name(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Ident(n) if n == COUNT_STAR => "count".into(),
        ExprKind::Ident(n) => n.clone(),
        ExprKind::Member(_, c) => c.clone(),
        ExprKind::Call(g, args) => {
            if is_count_star(g, args) {
                return "count".into();
            }
            call_name(&callee_name(g), first_arg(args))
        }
        ExprKind::Method(x, f, _) => call_name(f, Some(x)),
        ExprKind::Binary(op, a, _) | ExprKind::Quantified(op, _, a, _) => call_name(op.func_name(), Some(a)),
        ExprKind::Unary(UnOp::Neg, x) => call_name("neg", Some(x)),
        ExprKind::Unary(UnOp::Not, x) => call_name("not", Some(x)),
        ExprKind::Unary(UnOp::BitNot, x) => call_name("bitNot", Some(x)),
        ExprKind::Lit(Literal::Null) => "NULL".into(),
        ExprKind::Lit(Literal::Str(s)) => s.clone(),
        ExprKind::Lit(_) | ExprKind::VecLit(_) => text(e),
        ExprKind::IsNull(x, false) => call_name("isNull", Some(x)),
        ExprKind::IsNull(x, true) => call_name("isValid", Some(x)),
        ExprKind::Ternary(..) => "iif".into(),
        // `rank() over (...)` → rank, `sum(volume) over (...)` → sum (the manual's names)
        ExprKind::Infix(call, g, _) if matches!(&g.kind, ExprKind::Ident(n) if n == super::window::OVER) => match &call.kind {
            ExprKind::Call(f, _) => callee_name(f),
            _ => auto_name(call),
        },
        ExprKind::Case(..) => "case".into(),
        _ => "col".into(),
    }
}

/// Make later duplicates unique with `_1`, `_2` suffixes.
pub(crate) fn dedup_names(names: &mut [String]) {
    let mut seen: AHashSet<String> = AHashSet::new();
    for n in names.iter_mut() {
        if seen.insert(n.to_ascii_lowercase()) {
            continue;
        }
        let mut k = 1;
        loop {
            let cand = format!("{n}_{k}");
            if seen.insert(cand.to_ascii_lowercase()) {
                *n = cand;
                break;
            }
            k += 1;
        }
    }
}

// ------------------------------------------------------------------ classification

/// The function a callee expression names, when it is a function (not a column).
pub(crate) fn callee_kind(i: &Interpreter, g: &Expr, is_col: &dyn Fn(&str) -> bool) -> Option<Kind> {
    match &g.kind {
        ExprKind::Ident(n) | ExprKind::FuncRef(n) => {
            if is_col(n) {
                return None;
            }
            if let Some(Value::Function(f)) = i.get_var(n) {
                return Some(i.func_kind(f));
            }
            match i.resolve_function(n) {
                Ok(Value::Function(f)) => Some(i.func_kind(&f)),
                _ => None,
            }
        }
        ExprKind::Partial(x, _) => callee_kind(i, x, is_col),
        _ => None,
    }
}

/// Whether the callee is an aggregate (builtin aggregate or `defg` function).
pub(crate) fn is_aggregate_call(i: &Interpreter, g: &Expr, is_col: &dyn Fn(&str) -> bool) -> bool {
    callee_kind(i, g, is_col) == Some(Kind::Aggregate)
}

/// Function name of an aggregate call's callee (for the grouped kernels).
pub(crate) fn plain_callee(g: &Expr) -> Option<&str> {
    match &g.kind {
        ExprKind::Ident(n) | ExprKind::FuncRef(n) => Some(n),
        _ => None,
    }
}

/// Row-wise: the value of row r depends only on row r (or the result is a constant), so
/// evaluating on whole columns equals evaluating per group and concatenating.
pub(crate) fn is_rowwise(i: &Interpreter, e: &Expr, is_col: &dyn Fn(&str) -> bool) -> bool {
    let rw = |x: &Expr| is_rowwise(i, x, is_col);
    let args_rw = |args: &[Arg]| {
        args.iter().all(|a| match a {
            Arg::Pos(Some(x)) | Arg::Named(_, x) => is_rowwise(i, x, is_col),
            Arg::Pos(None) => true,
        })
    };
    let no_cols = |x: &Expr| {
        let mut ok = true;
        walk(x, &mut |y| {
            if let ExprKind::Ident(n) = &y.kind {
                if is_col(n) {
                    ok = false
                }
            }
        });
        ok
    };
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::VecLit(_) | ExprKind::OpFunc(_) | ExprKind::FuncRef(_) => true,
        ExprKind::Ident(n) => {
            if n == COUNT_STAR {
                return false;
            }
            is_col(n) || !matches!(i.get_var(n), Some(Value::Vector(_) | Value::Tuple(_) | Value::Matrix(_) | Value::Table(_)))
        }
        ExprKind::Unary(_, x) | ExprKind::IsNull(x, _) => rw(x),
        ExprKind::Binary(op, a, b) => match op {
            BinOp::Seq | BinOp::Pair | BinOp::Join | BinOp::Dot | BinOp::At => false,
            BinOp::In | BinOp::NotIn => rw(a) && no_cols(b),
            BinOp::Between | BinOp::NotBetween => rw(a) && no_cols(b),
            _ => rw(a) && rw(b),
        },
        ExprKind::Compare(v, _) => v.iter().all(rw),
        ExprKind::Quantified(_, _, a, b) => rw(a) && no_cols(b),
        ExprKind::Ternary(c, a, b) => rw(c) && rw(a) && rw(b),
        ExprKind::Case(arms, d) => arms.iter().all(|(c, v)| rw(c) && rw(v)) && d.as_ref().is_none_or(|x| rw(x)),
        ExprKind::Call(g, args) => callee_kind(i, g, is_col) == Some(Kind::Elementwise) && args_rw(args),
        ExprKind::Method(x, name, args) => {
            let g = Expr::new(ExprKind::Ident(name.clone()), e.span);
            callee_kind(i, &g, is_col) == Some(Kind::Elementwise) && rw(x) && args_rw(args)
        }
        ExprKind::Index(base, idx) => {
            // a dictionary (or vector) variable indexed by a row-wise key
            no_cols(base) && idx.iter().flatten().all(rw)
        }
        _ => false,
    }
}

/// Whether any column of the table is referenced.
pub(crate) fn uses_columns(e: &Expr, is_col: &dyn Fn(&str) -> bool) -> bool {
    let mut used = false;
    walk(e, &mut |y| {
        if let ExprKind::Ident(n) = &y.kind {
            if is_col(n) || n == COUNT_STAR {
                used = true
            }
        }
    });
    used
}
