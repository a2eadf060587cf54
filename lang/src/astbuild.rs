//! Helpers called from the grammar's actions.

use crate::ast::*;
use crate::error::ParseError;
use crate::span::Span;


pub fn sp(l: usize, r: usize) -> Span {
    Span::new(l, r)
}

pub fn st(kind: StmtKind, l: usize, r: usize) -> Stmt {
    Stmt { kind, span: sp(l, r) }
}

pub fn ex(kind: ExprKind, l: usize, r: usize) -> Expr {
    Expr::new(kind, sp(l, r))
}

pub fn tuple_or_single(mut v: Vec<Expr>, l: usize, r: usize) -> Expr {
    if v.len() == 1 { v.pop().unwrap() } else { ex(ExprKind::Tuple(v), l, r) }
}

pub fn assign(targets: Vec<Expr>, op: AssignOp, rhs: Expr, span: Span) -> Result<Stmt, ParseError> {
    if targets.len() == 1 {
        if let ExprKind::FuncRef(n) = &targets[0].kind {
            if op == AssignOp::Set {
                return Ok(Stmt { kind: StmtKind::RefAssign(n.clone(), rhs), span });
            }
        }
    }
    for t in &targets {
        let ok = match &t.kind {
            ExprKind::Ident(_) => true,
            ExprKind::Index(b, _) | ExprKind::Member(b, _) => {
                matches!(b.kind, ExprKind::Ident(_) | ExprKind::Index(..) | ExprKind::Member(..))
            }
            _ => false,
        };
        if !ok {
            return Err(ParseError::new("invalid assignment target", t.span));
        }
    }
    if targets.len() > 1 && op != AssignOp::Set {
        return Err(ParseError::new("multiple assignment requires `=`", span));
    }
    Ok(Stmt { kind: StmtKind::Assign(targets, op, rhs), span })
}

fn text(src: &str, l: usize, r: usize) -> String {
    src.get(l..r).unwrap_or("").to_string()
}

pub fn func(
    name: Option<String>,
    params: Vec<Param>,
    body: FuncBody,
    aggregate: bool,
    src: &str,
    l: usize,
    r: usize,
) -> FuncDef {
    FuncDef { name, params, body, aggregate, span: sp(l, r), text: text(src, l, r), annotations: vec![] }
}

pub fn agg_lambda(params: Vec<Param>, body: FuncBody, src: &str, l: usize, r: usize) -> Expr {
    ex(ExprKind::Lambda(Rc::new(func(None, params, body, true, src, l, r))), l, r)
}

/// `expr as name` in metacode: a call of `META_ALIAS` with the expression and the name
/// (several names joined by backticks), the form `sqlColAlias` builds.
pub fn alias(e: Expr, names: Vec<String>, span: Span) -> Expr {
    let f = Expr::new(ExprKind::FuncRef(META_ALIAS.into()), span);
    let n = Expr::new(ExprKind::Lit(Literal::Str(names.join("`"))), span);
    Expr::new(ExprKind::Call(Box::new(f), vec![Arg::Pos(Some(e)), Arg::Pos(Some(n))]), span)
}

/// `[a, , b]`: empty slots are NULL; one trailing empty slot (`[a, b,]`) is dropped.
pub fn vec_items(mut v: Vec<Option<Expr>>, l: usize) -> Vec<Expr> {
    if v.len() > 1 && v.last().is_some_and(|x| x.is_none()) {
        v.pop();
    }
    v.into_iter().map(|x| x.unwrap_or_else(|| ex(ExprKind::Lit(Literal::Null), l, l))).collect()
}

pub fn lambda(params: Vec<Param>, body: FuncBody, src: &str, l: usize, r: usize) -> Expr {
    ex(ExprKind::Lambda(Rc::new(func(None, params, body, false, src, l, r))), l, r)
}

/// `x -> e`, `(x, y) -> e`, `() -> e`
pub fn arrow_lambda(p: Expr, body: Expr, src: &str, l: usize, r: usize) -> Result<Expr, ParseError> {
    let to_param = |e: &Expr| -> Result<Param, ParseError> {
        match &e.kind {
            ExprKind::Ident(n) => Ok(Param { name: n.clone(), mutable: false, default: None, span: e.span }),
            _ => Err(ParseError::new("invalid lambda parameter", e.span)),
        }
    };
    let params = match &p.kind {
        ExprKind::Tuple(v) => v.iter().map(to_param).collect::<Result<Vec<_>, _>>()?,
        _ => vec![to_param(&p)?],
    };
    Ok(lambda(params, FuncBody::Expr(Box::new(body)), src, l, r))
}

/// `f(args)`; `x.f(args)` becomes a method call.
pub fn call(f: Expr, args: Vec<Arg>, span: Span) -> Expr {
    match f.kind {
        ExprKind::Member(obj, name) => Expr::new(ExprKind::Method(obj, name, args), span),
        kind => Expr::new(ExprKind::Call(Box::new(Expr { kind, span: f.span }), args), span),
    }
}

/// `f{args}`; `x.f{args}` becomes `f{x, args}`.
pub fn partial(f: Expr, mut args: Vec<Arg>, span: Span) -> Expr {
    while matches!(args.last(), Some(Arg::Pos(None))) && args.len() > 1 {
        args.pop();
    }
    match f.kind {
        ExprKind::Member(obj, name) => {
            let fspan = f.span;
            let mut a = vec![Arg::Pos(Some(*obj))];
            a.extend(args);
            Expr::new(ExprKind::Partial(Box::new(Expr::new(ExprKind::Ident(name), fspan)), a), span)
        }
        kind => Expr::new(ExprKind::Partial(Box::new(Expr { kind, span: f.span }), args), span),
    }
}

/// `x.{f}(args)` = `f(x, args)`
pub fn dot_call(obj: Expr, f: Expr, args: Vec<Arg>, span: Span) -> Expr {
    let mut a = vec![Arg::Pos(Some(obj))];
    a.extend(args);
    Expr::new(ExprKind::Call(Box::new(f), a), span)
}

/// Applies stacked template suffixes left to right.
pub fn template(f: Expr, names: Vec<String>, span: Span) -> Expr {
    let mut e = f;
    for n in names {
        e = Expr::new(ExprKind::Template(Box::new(e), n), span);
    }
    e
}

pub fn assert_stmt(mut v: Vec<Expr>, src: &str, span: Span) -> Result<Stmt, ParseError> {
    match v.len() {
        1 => Ok(Stmt { kind: StmtKind::Assert(None, v.pop().unwrap()), span }),
        2 => {
            let e = v.pop().unwrap();
            let sub = v.pop().unwrap();
            let name = match &sub.kind {
                ExprKind::Lit(Literal::Str(s)) => s.clone(),
                _ => src.get(sub.span.range()).unwrap_or("").to_string(),
            };
            Ok(Stmt { kind: StmtKind::Assert(Some(name), e), span })
        }
        _ => Err(ParseError::new("assert expects `assert [subCase,] expr`", span)),
    }
}

/// A clause of select/exec/update/delete.
pub enum Clause {
    From(FromItem),
    Where(Vec<Expr>),
    Group(GroupKind, Vec<SelectItem>),
    Cgroup(Vec<SelectItem>),
    Csort(Vec<OrderItem>),
    Having(Vec<Expr>),
    Order(Vec<OrderItem>),
    Limit(Option<Expr>, Expr),
    Map,
}

/// A `where`/`having` condition with its quantified comparisons made explicit: in SQL,
/// `x op any(s)` / `x op all(s)` (op one of `< <= > >= == !=`) compares x with the
/// elements of s (progr/sql/any.md), unlike the builtin any/all that reduce a BOOL vector.
/// The condition's logical structure (`and`, `or`, `not`) is searched; arguments of
/// other calls keep the builtin meaning.
fn quantify(e: Expr) -> Expr {
    let span = e.span;
    let kind = match e.kind {
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
            ExprKind::Binary(op, Box::new(quantify(*a)), Box::new(quantify(*b)))
        }
        ExprKind::Unary(UnOp::Not, a) => ExprKind::Unary(UnOp::Not, Box::new(quantify(*a))),
        ExprKind::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne), a, b) => {
            match split_quantifier(*b) {
                Ok((all, set)) => ExprKind::Quantified(op, all, a, Box::new(set)),
                Err(b) => ExprKind::Binary(op, a, Box::new(b)),
            }
        }
        // `not (x > all(s))` arrives as a call of `not` when written with parentheses
        ExprKind::Call(f, mut args) if matches!(&f.kind, ExprKind::Ident(n) if n == "not") && args.len() == 1 => {
            if let Some(Arg::Pos(Some(x))) = args.pop() {
                ExprKind::Call(f, vec![Arg::Pos(Some(quantify(x)))])
            } else {
                ExprKind::Call(f, args)
            }
        }
        other => other,
    };
    Expr::new(kind, span)
}

/// `any(s)` / `all(s)` with one positional argument: Ok((whether `all`, s)); any other
/// expression comes back as it was.
fn split_quantifier(e: Expr) -> Result<(bool, Expr), Expr> {
    let all = match &e.kind {
        ExprKind::Call(f, args) if matches!(args.as_slice(), [Arg::Pos(Some(_))]) => match &f.kind {
            ExprKind::Ident(n) if n == "any" => false,
            ExprKind::Ident(n) if n == "all" => true,
            _ => return Err(e),
        },
        _ => return Err(e),
    };
    match e.kind {
        ExprKind::Call(_, mut args) => match args.pop() {
            Some(Arg::Pos(Some(set))) => Ok((all, set)),
            _ => Err(Expr::new(ExprKind::Lit(Literal::Null), e.span)),
        },
        _ => Err(e),
    }
}

fn and_all(mut v: Vec<Expr>) -> Expr {
    let mut e = v.remove(0);
    for x in v {
        let s = e.span.to(x.span);
        e = Expr::new(ExprKind::Binary(BinOp::And, Box::new(e), Box::new(x)), s);
    }
    e
}

pub fn select_query(
    exec: bool,
    top: Option<(Expr, Option<Expr>)>,
    distinct: bool,
    items: Vec<SelectItem>,
    clauses: Vec<Clause>,
    span: Span,
) -> Result<SelectQuery, ParseError> {
    let mut q = SelectQuery {
        exec,
        top,
        distinct,
        items,
        from: None,
        where_: vec![],
        group: None,
        cgroup: vec![],
        csort: vec![],
        having: None,
        order: vec![],
        limit: None,
        map: false,
        span,
    };
    let dup = |what: &str| ParseError::new(format!("duplicate `{what}` clause"), span);
    for c in clauses {
        match c {
            Clause::From(f) => {
                if q.from.is_some() {
                    return Err(dup("from"));
                }
                q.from = Some(f)
            }
            Clause::Where(w) => q.where_.extend(w.into_iter().map(quantify)),
            Clause::Group(k, g) => {
                if q.group.is_some() {
                    return Err(dup("by"));
                }
                q.group = Some((k, g))
            }
            Clause::Cgroup(g) => q.cgroup = g,
            Clause::Csort(o) => q.csort = o,
            Clause::Having(h) => q.having = Some(quantify(and_all(h))),
            Clause::Order(o) => q.order = o,
            Clause::Limit(a, b) => q.limit = Some((a, b)),
            Clause::Map => q.map = true,
        }
    }
    Ok(q)
}

pub fn update_stmt(
    table: Expr,
    sets: Vec<(String, Expr)>,
    clauses: Vec<Clause>,
    span: Span,
) -> Result<Stmt, ParseError> {
    let mut u = UpdateStmt {
        table,
        sets,
        from: None,
        where_: vec![],
        context_by: vec![],
        csort: vec![],
        having: None,
    };
    for c in clauses {
        match c {
            Clause::From(f) => u.from = Some(f),
            Clause::Where(w) => u.where_.extend(w.into_iter().map(quantify)),
            Clause::Group(GroupKind::ContextBy, g) => u.context_by = g,
            Clause::Csort(o) => u.csort = o,
            Clause::Having(h) => u.having = Some(quantify(and_all(h))),
            _ => return Err(ParseError::new("unsupported clause in update", span)),
        }
    }
    Ok(Stmt { kind: StmtKind::Update(Box::new(u)), span })
}

pub fn delete_stmt(target: Option<Expr>, clauses: Vec<Clause>, span: Span) -> Result<Stmt, ParseError> {
    let mut from = None;
    let mut where_ = vec![];
    for c in clauses {
        match c {
            Clause::From(f) if from.is_none() => from = Some(f),
            Clause::Where(w) => where_.extend(w.into_iter().map(quantify)),
            Clause::Map => {}
            _ => return Err(ParseError::new("unsupported clause in delete", span)),
        }
    }
    let (table, from) = match (target, from) {
        // `delete t from joiner(…)`: the join is the source of the conditions
        (Some(t), Some(f)) => (t, Some(f)),
        (None, Some(FromItem::Table(t, _))) => (t, None),
        _ => return Err(ParseError::new("delete requires `from table` (or `delete t from join`)", span)),
    };
    Ok(Stmt { kind: StmtKind::Delete(Box::new(DeleteStmt { table, where_, from })), span })
}

pub fn insert_stmt(table: Expr, columns: Vec<String>, source: InsertSource, span: Span) -> Stmt {
    Stmt { kind: StmtKind::Insert(Box::new(InsertStmt { table, columns, source })), span }
}
