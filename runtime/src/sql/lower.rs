//! Predicate lowering: the `where` conditions of a query over a `TableSource` become
//! `Pred`s (see `table_source.rs`) once, here, so that storage never sees syntax.
//!
//! Only the leading run of row-wise conjuncts is lowered (a later condition may depend on
//! the rows an order-sensitive one sees); within it, conjuncts of a simple shape
//! (`col op constant`, `col op col`, `col between a : b`, `col in values`) become
//! predicates and the others are skipped. Constants are evaluated in the session. The
//! executor evaluates every condition again after the scan, so lowering only ever narrows
//! what is read.

use crate::eval::Interpreter;
use crate::kernels::cmp::CmpOp;
use crate::registry::Kind;
use crate::table_source::Pred;
use crate::value::Value;
use beluga_lang::ast::{Arg, BinOp, Expr, ExprKind, UnOp};

/// The column names a source offers, matched like table columns (exactly, else ignoring
/// ASCII case); a lowered predicate names the stored column.
pub struct Columns<'a>(pub &'a [String]);

impl Columns<'_> {
    fn find(&self, n: &str) -> Option<&str> {
        let c = self.0;
        c.iter().find(|x| *x == n).or_else(|| c.iter().find(|x| x.eq_ignore_ascii_case(n))).map(|s| s.as_str())
    }

    fn column_of(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Ident(n) => self.find(n).map(str::to_string),
            _ => None,
        }
    }

    fn mentions_column(&self, e: &Expr) -> bool {
        let mut found = false;
        walk(e, &mut |x| {
            if let ExprKind::Ident(n) = &x.kind {
                if self.find(n).is_some() {
                    found = true;
                }
            }
            if matches!(x.kind, ExprKind::Select(_) | ExprKind::Star | ExprKind::Lambda(_)) {
                found = true;
            }
        });
        found
    }

    /// True when the condition maps each row to a value independently of other rows.
    fn row_wise(&self, i: &Interpreter, e: &Expr) -> bool {
        if !self.mentions_column(e) {
            return true;
        }
        match &e.kind {
            ExprKind::Ident(_) | ExprKind::Lit(_) | ExprKind::VecLit(_) => true,
            ExprKind::Unary(UnOp::Neg | UnOp::Not, a) => self.row_wise(i, a),
            ExprKind::Binary(op, a, b) => {
                !matches!(op, BinOp::Join | BinOp::Seq | BinOp::Pair | BinOp::At | BinOp::Dot) && self.row_wise(i, a) && self.row_wise(i, b)
                    || matches!(op, BinOp::Between | BinOp::NotBetween) && self.row_wise(i, a) && !self.mentions_column(b)
            }
            ExprKind::Compare(xs, _) => xs.iter().all(|x| self.row_wise(i, x)),
            ExprKind::IsNull(a, _) => self.row_wise(i, a),
            ExprKind::Call(f, args) => {
                let ExprKind::Ident(name) = &f.kind else {
                    return false;
                };
                if i.functions.contains_key(name) || i.has_var(name) {
                    return false;
                }
                let Some(id) = i.registry.lookup(name) else {
                    return false;
                };
                i.registry.get(id).kind == Kind::Elementwise
                    && args.iter().all(|a| match a {
                        Arg::Pos(Some(x)) | Arg::Named(_, x) => self.row_wise(i, x),
                        Arg::Pos(None) => false,
                    })
            }
            _ => false,
        }
    }

    fn constant(&self, i: &mut Interpreter, e: &Expr) -> Option<Value> {
        if self.mentions_column(e) {
            return None;
        }
        i.eval(e).ok()
    }

    fn scalar(&self, i: &mut Interpreter, e: &Expr) -> Option<crate::column::Column> {
        match self.constant(i, e)? {
            Value::Scalar(c) => Some(c),
            _ => None,
        }
    }

    /// The predicate for one conjunct, if it has a simple shape.
    fn pred(&self, i: &mut Interpreter, e: &Expr) -> Option<Pred> {
        let ExprKind::Binary(op, a, b) = &e.kind else {
            return None;
        };
        if let Some(cop) = cmp_op(*op) {
            return match (self.column_of(a), self.column_of(b)) {
                (Some(left), Some(right)) => Some(Pred::ColCmp { left, op: cop, right }),
                (Some(col), None) => self.scalar(i, b).map(|value| Pred::Cmp { col, op: cop, value }),
                (None, Some(col)) => self.scalar(i, a).map(|value| Pred::Cmp { col, op: flip(cop), value }),
                _ => None,
            };
        }
        match op {
            BinOp::Between => {
                let col = self.column_of(a)?;
                let ExprKind::Binary(BinOp::Pair, lo, hi) = &b.kind else {
                    let v = self.constant(i, b)?;
                    let c = v.column()?.clone();
                    if c.len() != 2 {
                        return None;
                    }
                    return Some(Pred::Between { col, lo: c.slice(0, 1), hi: c.slice(1, 2) });
                };
                Some(Pred::Between { col, lo: self.scalar(i, lo)?, hi: self.scalar(i, hi)? })
            }
            BinOp::In => {
                let col = self.column_of(a)?;
                match self.constant(i, b)? {
                    v @ (Value::Vector(_) | Value::Scalar(_) | Value::Set(_)) => Some(Pred::In { col, values: v }),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

fn cmp_op(op: BinOp) -> Option<CmpOp> {
    Some(match op {
        BinOp::Lt => CmpOp::Lt,
        BinOp::Le => CmpOp::Le,
        BinOp::Gt => CmpOp::Gt,
        BinOp::Ge => CmpOp::Ge,
        BinOp::Eq => CmpOp::Eq,
        BinOp::Ne => CmpOp::Ne,
        _ => return None,
    })
}

fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        o => o,
    }
}

/// Visit every node of `e`, parents first, without descending into subqueries or lambdas.
fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, a) | ExprKind::Member(a, _) | ExprKind::Template(a, _) | ExprKind::Meta(a) | ExprKind::IsNull(a, _) => {
            walk(a, f)
        }
        ExprKind::Binary(_, a, b) | ExprKind::Quantified(_, _, a, b) => {
            walk(a, f);
            walk(b, f);
        }
        ExprKind::Vector(xs) | ExprKind::Tuple(xs) | ExprKind::Compare(xs, _) => xs.iter().for_each(|x| walk(x, f)),
        ExprKind::Dict(kv) => kv.iter().for_each(|(k, v)| {
            walk(k, f);
            walk(v, f);
        }),
        ExprKind::Infix(a, b, c) | ExprKind::Ternary(a, b, c) => {
            walk(a, f);
            walk(b, f);
            walk(c, f);
        }
        ExprKind::OpenPair(a, b) => {
            if let Some(a) = a {
                walk(a, f);
            }
            if let Some(b) = b {
                walk(b, f);
            }
        }
        ExprKind::Call(g, args) | ExprKind::Partial(g, args) | ExprKind::Method(g, _, args) => {
            walk(g, f);
            for a in args {
                match a {
                    Arg::Pos(Some(x)) | Arg::Named(_, x) => walk(x, f),
                    Arg::Pos(None) => {}
                }
            }
        }
        ExprKind::Index(a, xs) => {
            walk(a, f);
            xs.iter().flatten().for_each(|x| walk(x, f));
        }
        ExprKind::Case(ws, e2) => {
            for (a, b) in ws {
                walk(a, f);
                walk(b, f);
            }
            if let Some(x) = e2 {
                walk(x, f);
            }
        }
        _ => {}
    }
}

/// `a and b` and chained comparisons split into their conjuncts.
fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        ExprKind::Compare(xs, ops) => {
            for k in 0..ops.len() {
                out.push(Expr::new(ExprKind::Binary(ops[k], Box::new(xs[k].clone()), Box::new(xs[k + 1].clone())), e.span));
            }
        }
        _ => out.push(e.clone()),
    }
}

/// One condition's conjuncts lowered: None for a conjunct that is not a simple predicate
/// or lies after the leading row-wise run.
pub struct Lowered {
    /// the predicates of the leading row-wise run (what a scan receives)
    pub preds: Vec<Pred>,
    /// per condition, per conjunct
    pub per_cond: Vec<Vec<Option<Pred>>>,
}

/// Lower `conds` against a source with columns `cols`.
pub fn lower(i: &mut Interpreter, cols: &[String], conds: &[Expr]) -> Lowered {
    let c = Columns(cols);
    let mut preds = Vec::new();
    let mut per_cond = Vec::with_capacity(conds.len());
    let mut in_run = true;
    for cond in conds {
        let mut parts = Vec::new();
        conjuncts(cond, &mut parts);
        let mut mine = Vec::with_capacity(parts.len());
        for x in &parts {
            in_run = in_run && c.row_wise(i, x);
            let p = if in_run { c.pred(i, x) } else { None };
            if let Some(p) = &p {
                preds.push(p.clone());
            }
            mine.push(p);
        }
        per_cond.push(mine);
    }
    Lowered { preds, per_cond }
}

/// Partition-pruning predicates of a source partitioned by functions of columns
/// (`TableSource::key_functions`): each equality or `in` predicate on such a column, with
/// the function evaluated on its constants, as `Pred::In { col: <call>, values }`. A call
/// that fails or returns other than one value per constant prunes nothing.
pub fn key_fn_preds(i: &mut Interpreter, src: &dyn crate::table_source::TableSource, preds: &[Pred]) -> Vec<Pred> {
    let fns = src.key_functions();
    let mut out = Vec::new();
    for (col, call) in &fns {
        let Ok(e) = beluga_lang::parse_expr(call, &|_| false) else { continue };
        let ExprKind::Call(_, args) = &e.kind else { continue };
        let Some(ident) = args.iter().find_map(|a| match a {
            Arg::Pos(Some(Expr { kind: ExprKind::Ident(n), .. })) => Some(n.clone()),
            _ => None,
        }) else {
            continue;
        };
        for p in preds {
            let vals = match p {
                Pred::Cmp { col: c, op: CmpOp::Eq, value } if c.eq_ignore_ascii_case(col) => value.clone(),
                Pred::In { col: c, values: Value::Vector(v) | Value::Scalar(v) } if c.eq_ignore_ascii_case(col) => v.clone(),
                Pred::In { col: c, values: Value::Set(s) } if c.eq_ignore_ascii_case(col) => s.items.clone(),
                _ => continue,
            };
            let n = vals.len();
            let mut scope = ahash::AHashMap::new();
            scope.insert(ident.clone(), Value::vector(vals));
            i.col_scopes.push(scope);
            let r = i.eval(&e);
            i.col_scopes.pop();
            if let Ok(Value::Vector(k) | Value::Scalar(k)) = r {
                if k.len() == n {
                    out.push(Pred::In { col: call.clone(), values: Value::vector(k) });
                }
            }
        }
    }
    out
}

/// The predicates of the leading row-wise run of `conds` (what a scan receives).
pub fn lower_preds(i: &mut Interpreter, cols: &[String], conds: &[Expr]) -> Vec<Pred> {
    lower(i, cols, conds).preds
}

/// Every conjunct of `conds` as a predicate on one column against constants, or None when
/// one is not (what a count from partition metadata needs).
pub fn lower_all_constant(i: &mut Interpreter, cols: &[String], conds: &[Expr]) -> Option<Vec<Pred>> {
    let l = lower(i, cols, conds);
    let all: Option<Vec<Pred>> = l.per_cond.into_iter().flatten().collect();
    all.filter(|ps| ps.iter().all(Pred::is_constant_test))
}
