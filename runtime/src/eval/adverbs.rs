//! Higher-order functions (function templates): each, eachLeft, eachRight, eachPre,
//! eachPost, accumulate, reduce, cross, loop, and their `:E :L :R :P :O :A :T :C :U` forms.

use crate::callctx::CallCtx;
use super::Interpreter;
use crate::column::Column;
use crate::error::{Error, Result};
use crate::registry::{f, fp, Builtin, Kind};
use crate::table::Table;
use crate::types::DataType;
use crate::value::{Dict, DictVals, Func, Matrix, Value};
use std::sync::Arc;

/// How per-call results are combined (assemble rule).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rule {
    Default,
    Consistent,
    Tuple,
    Kdb,
}

fn rule_of(letter: Option<char>) -> Rule {
    match letter {
        Some('C') => Rule::Consistent,
        Some('U') => Rule::Tuple,
        Some('K') => Rule::Kdb,
        _ => Rule::Default,
    }
}

/// Combine per-call results: scalars → vector; equal-length vectors → matrix (or a table
/// when `names` label them); dictionaries → table; otherwise a tuple.
pub fn assemble(results: Vec<Value>, names: &[String]) -> Result<Value> {
    assemble_rule(results, names, Rule::Default)
}

fn assemble_rule(results: Vec<Value>, names: &[String], rule: Rule) -> Result<Value> {
    if rule == Rule::Tuple {
        return Ok(Value::tuple(results));
    }
    if results.is_empty() {
        return Ok(Value::tuple(results));
    }
    if results.iter().all(|v| matches!(v, Value::Scalar(_) | Value::Void)) {
        if let Some(v) = super::unify_scalars(&results)? {
            return Ok(v);
        }
        return Ok(Value::tuple(results));
    }
    if rule == Rule::Kdb {
        return Ok(Value::tuple(results));
    }
    if let Value::Vector(first) = &results[0] {
        let (n, ty) = (first.len(), first.ty);
        if results.iter().all(|v| matches!(v, Value::Vector(c) if c.len() == n && c.ty == ty)) {
            let cols: Vec<Column> = results.iter().filter_map(|v| v.column().cloned()).collect();
            if names.len() == cols.len() && names.iter().all(|s| !s.is_empty()) {
                return Ok(Value::table(Table::new(names.to_vec(), cols)?));
            }
            let refs: Vec<&Column> = cols.iter().collect();
            let data = Column::concat(ty, &refs);
            return Ok(Value::Matrix(Arc::new(Matrix { data, rows: n, cols: cols.len(), row_labels: None, col_labels: None, indexed: false })));
        }
    }
    if results.iter().all(|v| matches!(v, Value::Dict(_))) {
        return dicts_to_table(&results).or_else(|_| Ok(Value::tuple(results)));
    }
    Ok(Value::tuple(results))
}

fn dicts_to_table(rows: &[Value]) -> Result<Value> {
    let first = match &rows[0] {
        Value::Dict(d) => d.clone(),
        _ => return Err(Error::runtime("not dicts")),
    };
    let names: Vec<String> = (0..first.keys.len()).map(|i| crate::fmt::format_elem(&first.keys, i)).collect();
    let mut cols = Vec::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        let mut cells = Vec::with_capacity(rows.len());
        for r in rows {
            if let Value::Dict(d) = r {
                let key = Value::Scalar(first.keys.slice(k, k + 1));
                let _ = name;
                cells.push(super::index::dict_get(d, &key)?);
            }
        }
        match super::unify_scalars(&cells)? {
            Some(Value::Vector(c)) => cols.push(c),
            _ => return Err(Error::runtime("dictionary values are not scalars")),
        }
    }
    Ok(Value::table(Table::new(names, cols)?))
}

impl Interpreter {
    /// Split an argument into the elements a template iterates over; None for a scalar.
    fn elements_of(&mut self, v: &Value) -> Result<Option<Vec<Value>>> {
        Ok(match v {
            Value::Vector(_) | Value::Pair(_) | Value::Tuple(_) | Value::Set(_) | Value::Dict(_) | Value::ArrayVector(_) => {
                let n = v.size();
                Some((0..n).map(|i| self.element(v, i)).collect::<Result<_>>()?)
            }
            Value::Matrix(m) => Some((0..m.cols).map(|c| Value::Vector(m.column(c))).collect()),
            Value::Table(t) => {
                let n = t.rows();
                Some((0..n).map(|i| self.element(v, i)).collect::<Result<_>>()?)
            }
            _ => None,
        })
    }

    /// `each(f, X, Y, ...)`.
    pub fn each(&mut self, f: &Value, args: Vec<Value>, rule: Rule) -> Result<Value> {
        // a function that works element by element on whole columns: one call over the
        // columns gives the same vector as n calls over the elements, without boxing (tried
        // before the arguments are split into boxed elements, which costs ~150 bytes each)
        if matches!(rule, Rule::Default | Rule::Consistent)
            && args.iter().all(|a| matches!(a, Value::Vector(c) | Value::Scalar(c) if vector_safe_type(c.ty)))
        {
            let lens: Vec<usize> = args.iter().filter_map(|a| if let Value::Vector(c) = a { Some(c.len()) } else { None }).collect();
            if let Some(&n) = lens.first()
                && n > 0
                && lens.iter().all(|&m| m == n)
                && self.vectorizable(f, args.len())
            {
                match self.call_value(f, args.clone()) {
                    Ok(Value::Vector(c)) if c.len() == n => return Ok(Value::Vector(c)),
                    Err(e) if is_fatal(&e) => return Err(e),
                    // anything else (an error the per-element path reports with its own
                    // wording, an unexpected form): the per-element path decides
                    _ => {}
                }
            }
        }
        let mut split = Vec::with_capacity(args.len());
        let mut n: Option<usize> = None;
        for a in &args {
            let e = self.elements_of(a)?;
            if let Some(items) = &e {
                match n {
                    None => n = Some(items.len()),
                    Some(m) if m != items.len() => {
                        return Err(Error::size("All arguments of each must have the same length"))
                    }
                    _ => {}
                }
            }
            split.push(e);
        }
        let n = match n {
            Some(n) => n,
            None => return self.call_value(f, args),
        };
        let mut out = crate::guard::vec_with_capacity(n)?;
        for i in 0..n {
            if i % 1024 == 0 {
                self.check_interrupt()?;
            }
            let call_args: Vec<Value> = split
                .iter()
                .zip(&args)
                .map(|(s, a)| match s {
                    Some(items) => items[i].clone(),
                    None => a.clone(),
                })
                .collect();
            out.push(self.call_value(f, call_args)?);
        }
        // each over a dictionary keeps its keys
        if let Some(Value::Dict(d)) = args.first() {
            return Ok(rekey(d, out)?);
        }
        if let Some(Value::Matrix(m)) = args.first() {
            let r = assemble_rule(out, &[], rule)?;
            if let (Value::Matrix(rm), Some(cl)) = (&r, &m.col_labels) {
                let mut rm = (**rm).clone();
                rm.col_labels = Some(cl.clone());
                return Ok(Value::Matrix(Arc::new(rm)));
            }
            return Ok(r);
        }
        assemble_rule(out, &[], rule)
    }

    pub fn each_left(&mut self, f: &Value, x: Value, y: Value, rule: Rule) -> Result<Value> {
        let xs = self.elements_of(&x)?.unwrap_or_else(|| vec![x.clone()]);
        let mut out = Vec::with_capacity(xs.len());
        for e in xs {
            out.push(self.call_value(f, vec![e, y.clone()])?);
        }
        if let Value::Dict(d) = &x {
            return rekey(d, out);
        }
        let r = assemble_rule(out, &[], rule)?;
        Ok(label_matrix(r, None, Some(&x)))
    }

    pub fn each_right(&mut self, f: &Value, x: Value, y: Value, rule: Rule) -> Result<Value> {
        let ys = self.elements_of(&y)?.unwrap_or_else(|| vec![y.clone()]);
        let mut out = Vec::with_capacity(ys.len());
        for e in ys {
            out.push(self.call_value(f, vec![x.clone(), e])?);
        }
        if let Value::Dict(d) = &y {
            return rekey(d, out);
        }
        let r = assemble_rule(out, &[], rule)?;
        Ok(label_matrix(r, None, Some(&y)))
    }

    /// `eachPre(f, X, [pre])`: f(X[i], X[i-1]); the first uses `pre` or yields null.
    pub fn each_pre(&mut self, f: &Value, x: Value, pre: Option<Value>, rule: Rule) -> Result<Value> {
        let xs = self.elements_of(&x)?.unwrap_or_else(|| vec![x.clone()]);
        let mut out = Vec::with_capacity(xs.len());
        for i in 0..xs.len() {
            if i == 0 {
                match &pre {
                    Some(p) => out.push(self.call_value(f, vec![xs[0].clone(), p.clone()])?),
                    None => out.push(Value::Void),
                }
            } else {
                out.push(self.call_value(f, vec![xs[i].clone(), xs[i - 1].clone()])?);
            }
        }
        fix_leading_null(&mut out);
        assemble_rule(out, &[], rule)
    }

    /// `eachPost(f, X, [post])`: f(X[i], X[i+1]); the last uses `post` or yields null.
    pub fn each_post(&mut self, f: &Value, x: Value, post: Option<Value>, rule: Rule) -> Result<Value> {
        let xs = self.elements_of(&x)?.unwrap_or_else(|| vec![x.clone()]);
        let n = xs.len();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            if i + 1 == n {
                match &post {
                    Some(p) => out.push(self.call_value(f, vec![xs[i].clone(), p.clone()])?),
                    None => out.push(Value::Void),
                }
            } else {
                out.push(self.call_value(f, vec![xs[i].clone(), xs[i + 1].clone()])?);
            }
        }
        let last = out.len().saturating_sub(1);
        if out.len() > 1 && matches!(out[last], Value::Void) {
            if let Value::Scalar(c) = &out[0] {
                out[last] = Value::null_of(c.ty);
            }
        }
        assemble_rule(out, &[], rule)
    }

    /// Number of parameters a function value takes (None when unknown / variadic).
    pub fn func_arity(&self, f: &Value) -> Option<usize> {
        match f {
            Value::Function(Func::Builtin(id)) => {
                let b = self.registry.get(*id);
                if b.max == u8::MAX { None } else { Some(b.max as usize) }
            }
            Value::Function(Func::User(u)) => Some(u.def.params.len()),
            Value::Function(Func::Partial(inner, fixed, _)) => {
                let n = self.func_arity(&Value::Function((**inner).clone()))?;
                Some(n.saturating_sub(fixed.iter().filter(|s| s.is_some()).count()))
            }
            _ => None,
        }
    }

    /// `accumulate(f, X, [init])` (keep_all) and `reduce(f, X, [init])`.
    pub fn fold(&mut self, f: &Value, x: Value, init: Option<Value>, keep_all: bool, rule: Rule) -> Result<Value> {
        if self.func_arity(f) == Some(1) {
            return self.fold_unary(f, x, init, keep_all);
        }
        let xs = self.elements_of(&x)?.unwrap_or_else(|| vec![x.clone()]);
        let mut acc: Option<Value> = init;
        let mut out = Vec::with_capacity(if keep_all { xs.len() } else { 0 });
        for e in xs {
            self.check_interrupt()?;
            let r = match acc.take() {
                None => e,
                Some(a) => self.call_value(f, vec![a, e])?,
            };
            if keep_all {
                out.push(r.clone());
            }
            acc = Some(r);
        }
        if keep_all {
            assemble_rule(out, &[], rule)
        } else {
            Ok(acc.unwrap_or(Value::Void))
        }
    }

    /// Unary accumulate/reduce: iterate `f` from `init` a number of times, while a
    /// predicate holds, or until the value stops changing.
    fn fold_unary(&mut self, f: &Value, x: Value, init: Option<Value>, keep_all: bool) -> Result<Value> {
        // forms: accumulate(f, init, cond) where the template call passes (init, cond) or (cond, init)
        let (start, cond) = match init {
            Some(i) => (i, x),
            None => (x, Value::Void),
        };
        let mut cur = start;
        let mut out = vec![cur.clone()];
        let mut steps = 0usize;
        let mut uncomparable = 0usize;
        loop {
            self.check_interrupt()?;
            match &cond {
                Value::Function(_) => {
                    let ok = self.call_value(&cond, vec![cur.clone()])?;
                    if !super::ops::truthy(&ok)? {
                        break;
                    }
                }
                Value::Void => {}
                c => {
                    if steps as i64 >= c.as_i64().unwrap_or(0) {
                        break;
                    }
                }
            }
            let next = self.call_value(f, vec![cur.clone()])?;
            steps += 1;
            // without a condition, iterate until the value stops changing; values `==` keeps
            // failing to compare (a table, a dictionary...) can never be seen to converge: an
            // error after a while, not ten million iterations
            let same = match cond {
                Value::Void => match super::ops::binary(beluga_lang::ast::BinOp::Eq, &next, &cur) {
                    Ok(eq @ (Value::Scalar(_) | Value::Vector(_) | Value::Pair(_) | Value::Matrix(_))) => super::ops::all_true(&eq),
                    // an error, or a dictionary/table of flags: not a yes/no answer
                    _ => {
                        uncomparable += 1;
                        if uncomparable > 10_000 {
                            return Err(Error::runtime("accumulate: cannot test the result for convergence"));
                        }
                        false
                    }
                },
                _ => false,
            };
            cur = next;
            if same {
                break;
            }
            out.push(cur.clone());
            if steps > 10_000_000 {
                return Err(Error::runtime("accumulate did not converge"));
            }
        }
        if keep_all { assemble(out, &[]) } else { Ok(cur) }
    }

    /// `cross(f, X, Y)`: matrix of f(X[i], Y[j]) labelled by X and Y.
    pub fn cross(&mut self, f: &Value, x: Value, y: Value) -> Result<Value> {
        if let (Value::Vector(cx), Value::Vector(cy)) = (&x, &y) {
            if !cx.is_empty() && !cy.is_empty() && vector_safe_type(cx.ty) && vector_safe_type(cy.ty) && self.vectorizable(f, 2) {
                // all pairs as two whole columns (X cycling, Y repeated), one call
                let (nx, ny) = (cx.len(), cy.len());
                let n = crate::guard::need2(nx, ny, 16 + 3 * crate::guard::elem_bytes(cx.ty).max(crate::guard::elem_bytes(cy.ty)))?;
                let mut ix: Vec<i64> = crate::guard::vec_with_capacity(n)?;
                let mut iy: Vec<i64> = crate::guard::vec_with_capacity(n)?;
                for j in 0..ny {
                    crate::guard::check()?;
                    ix.extend(0..nx as i64);
                    iy.extend(std::iter::repeat_n(j as i64, nx));
                }
                let (ax, ay) = (Value::Vector(cx.take(&ix)), Value::Vector(cy.take(&iy)));
                drop((ix, iy));
                match self.call_value(f, vec![ax, ay]) {
                    Ok(Value::Vector(data)) if data.len() == n => {
                        return Ok(Value::Matrix(Arc::new(Matrix {
                            data,
                            rows: nx,
                            cols: ny,
                            row_labels: labels_of(&x),
                            col_labels: labels_of(&y),
                            indexed: false,
                        })));
                    }
                    Err(e) if is_fatal(&e) => return Err(e),
                    _ => {}
                }
            }
        }
        let xs = self.elements_of(&x)?.unwrap_or_else(|| vec![x.clone()]);
        let ys = self.elements_of(&y)?.unwrap_or_else(|| vec![y.clone()]);
        let n = crate::guard::need2(xs.len(), ys.len(), std::mem::size_of::<Value>() + 8)?;
        let mut cells = crate::guard::vec_with_capacity(n)?;
        for b in &ys {
            self.check_interrupt()?;
            for a in &xs {
                cells.push(self.call_value(f, vec![a.clone(), b.clone()])?);
            }
        }
        if cells.iter().all(|v| matches!(v, Value::Scalar(_) | Value::Void)) {
            if let Some(Value::Vector(data)) = super::unify_scalars(&cells)? {
                return Ok(Value::Matrix(Arc::new(Matrix {
                    data,
                    rows: xs.len(),
                    cols: ys.len(),
                    row_labels: labels_of(&x),
                    col_labels: labels_of(&y),
                    indexed: false,
                })));
            }
        }
        Ok(Value::tuple(cells))
    }

    /// Whether `f` called once on whole columns gives, element for element, what calling it
    /// on each element gives: an arithmetic/comparison/logic operator or a pure element-wise
    /// math builtin, or a lambda of `arity` parameters whose body is one expression built
    /// only from those, its parameters, scalar literals and captured scalars.
    pub fn vectorizable(&self, f: &Value, arity: usize) -> bool {
        match f {
            Value::Function(Func::Builtin(id)) => {
                let b = self.registry.get(*id);
                VECTOR_SAFE.contains(&b.name) && (b.min as usize) <= arity && arity <= b.max as usize
            }
            Value::Function(Func::User(u)) => {
                let d = &u.def;
                if d.params.len() != arity || d.params.iter().any(|p| p.mutable || p.default.is_some()) || d.aggregate {
                    return false;
                }
                let body = match &d.body {
                    beluga_lang::ast::FuncBody::Expr(e) => &**e,
                    beluga_lang::ast::FuncBody::Block(stmts) => match stmts.as_slice() {
                        [st] => match &st.kind {
                            beluga_lang::ast::StmtKind::Return(Some(e)) => e,
                            _ => return false,
                        },
                        _ => return false,
                    },
                    _ => return false,
                };
                let params: Vec<&str> = d.params.iter().map(|p| p.name.as_str()).collect();
                self.vector_safe_expr(body, &params, &u.captured, 0)
            }
            _ => false,
        }
    }

    fn vector_safe_expr(&self, e: &beluga_lang::ast::Expr, params: &[&str], captured: &[(String, Value)], depth: usize) -> bool {
        use beluga_lang::ast::{Arg, BinOp as B, ExprKind as K, UnOp};
        if depth > 64 {
            return false;
        }
        let sub = |x: &beluga_lang::ast::Expr| self.vector_safe_expr(x, params, captured, depth + 1);
        match &e.kind {
            K::Lit(_) => true,
            K::Ident(n) => {
                params.contains(&n.as_str())
                    || captured.iter().any(|(c, v)| c == n && matches!(v, Value::Scalar(_)))
            }
            K::Unary(op, x) => matches!(op, UnOp::Neg | UnOp::Not) && sub(x),
            K::Binary(op, a, b) => {
                matches!(op, B::Add | B::Sub | B::Mul | B::Div | B::Ratio | B::Mod | B::Lt | B::Le | B::Gt | B::Ge | B::Eq | B::Ne | B::And | B::Or)
                    && sub(a)
                    && sub(b)
            }
            K::Call(callee, args) => {
                let K::Ident(name) = &callee.kind else { return false };
                if params.contains(&name.as_str()) || captured.iter().any(|(c, _)| c == name) {
                    return false;
                }
                let Some(id) = self.registry.lookup(name) else { return false };
                let b = self.registry.get(id);
                VECTOR_SAFE.contains(&b.name)
                    && (b.min as usize) <= args.len()
                    && args.len() <= b.max as usize
                    && args.iter().all(|a| matches!(a, Arg::Pos(Some(x)) if sub(x)))
            }
            _ => false,
        }
    }

    /// Apply a function template by its suffix letters.
    pub fn apply_template(&mut self, kind: &str, inner: &Func, args: Vec<Value>) -> Result<Value> {
        let mut chars = kind.chars();
        let t = chars.next().unwrap_or('E');
        let rule = rule_of(chars.next());
        let f = Value::Function(inner.clone());
        let mut args = args;
        let two = |args: &mut Vec<Value>| -> Result<(Value, Value)> {
            if args.len() != 2 {
                return Err(Error::arg(format!("The template :{t} needs two arguments")));
            }
            let y = args.pop().unwrap_or(Value::Void);
            let x = args.pop().unwrap_or(Value::Void);
            Ok((x, y))
        };
        match t {
            'E' => self.each(&f, args, rule),
            'U' => self.each(&f, args, Rule::Tuple),
            'L' => {
                let (x, y) = two(&mut args)?;
                self.each_left(&f, x, y, rule)
            }
            'R' => {
                let (x, y) = two(&mut args)?;
                self.each_right(&f, x, y, rule)
            }
            'P' => match args.len() {
                1 => self.each_pre(&f, args.pop().unwrap_or(Value::Void), None, rule),
                _ => {
                    let (pre, x) = two(&mut args)?;
                    self.each_pre(&f, x, Some(pre), rule)
                }
            },
            'O' => match args.len() {
                1 => self.each_post(&f, args.pop().unwrap_or(Value::Void), None, rule),
                _ => {
                    let (x, post) = two(&mut args)?;
                    self.each_post(&f, x, Some(post), rule)
                }
            },
            'A' | 'T' => {
                let keep = t == 'A';
                match args.len() {
                    1 => self.fold(&f, args.pop().unwrap_or(Value::Void), None, keep, rule),
                    _ => {
                        let (init, x) = two(&mut args)?;
                        self.fold(&f, x, Some(init), keep, rule)
                    }
                }
            }
            'C' => match args.len() {
                1 => {
                    let x = args.pop().unwrap_or(Value::Void);
                    self.cross(&f, x.clone(), x)
                }
                _ => {
                    let (x, y) = two(&mut args)?;
                    self.cross(&f, x, y)
                }
            },
            other => {
                let name = match other {
                    'X' => "contextby",
                    'G' => "groupby",
                    'H' => "byRow",
                    'V' => "byColumn",
                    _ => return Err(Error::arg(format!("Unknown function template :{other}"))),
                };
                let mut all = vec![f];
                all.extend(args);
                self.call_builtin_by_name(name, all)
            }
        }
    }

    /// `X @ index`: apply a function, or index each element.
    pub fn each_at(&mut self, x: Value, idx: Value) -> Result<Value> {
        match &x {
            Value::Function(_) => self.call_value(&x, vec![idx]),
            _ => match &idx {
                Value::Tuple(items) => {
                    let items = items.clone();
                    let out: Vec<Value> = items.iter().map(|i| self.index_value(x.clone(), vec![i.clone()])).collect::<Result<_>>()?;
                    Ok(Value::tuple(out))
                }
                _ => self.index_value(x, vec![idx]),
            },
        }
    }
}

fn fix_leading_null(out: &mut [Value]) {
    if out.len() > 1 && matches!(out[0], Value::Void) {
        if let Value::Scalar(c) = &out[1] {
            out[0] = Value::null_of(c.ty);
        }
    }
}

/// Element types whose scalar and vector arithmetic share one kernel and one result type
/// (numbers, booleans, temporals); strings, symbols and decimals take the per-element path.
fn vector_safe_type(t: DataType) -> bool {
    t.is_numeric() || t.is_temporal()
}

/// Errors the per-element fallback must not retry: an interrupt or an exhausted budget.
fn is_fatal(e: &Error) -> bool {
    e.kind == crate::error::ErrorKind::Interrupted || e.message.starts_with("out of memory")
}

/// Builtins whose result on whole columns equals, element for element, their result on
/// each element (same types, same null handling): the operators' functions and pure math.
const VECTOR_SAFE: &[&str] = &[
    "add", "sub", "mul", "div", "ratio", "mod", "lt", "le", "gt", "ge", "eq", "ne", "and", "or", "not", "neg", "abs",
    "sqrt", "exp", "log", "sin", "cos", "tan", "floor", "ceil", "signum", "square", "isNull", "isValid",
];

fn labels_of(v: &Value) -> Option<Box<Value>> {
    match v {
        Value::Vector(c) | Value::Pair(c) => Some(Box::new(Value::Vector(c.clone()))),
        // a matrix's elements are its columns: they carry its column labels
        // (func_progr_cases.md: cross(corr, retMatrix) is labelled by the stock codes)
        Value::Matrix(m) => m.col_labels.clone(),
        _ => None,
    }
}

fn label_matrix(r: Value, rows: Option<&Value>, cols: Option<&Value>) -> Value {
    match r {
        Value::Matrix(m) => {
            let mut m = (*m).clone();
            if let Some(c) = cols.and_then(labels_of) {
                if c.size() == m.cols {
                    m.col_labels = Some(c);
                }
            }
            if let Some(rl) = rows.and_then(labels_of) {
                if rl.size() == m.rows {
                    m.row_labels = Some(rl);
                }
            }
            Value::Matrix(Arc::new(m))
        }
        other => other,
    }
}

fn rekey(d: &Dict, vals: Vec<Value>) -> Result<Value> {
    let (vals, vt) = match super::unify_scalars(&vals)? {
        Some(Value::Vector(c)) => {
            let t = c.ty;
            (DictVals::Col(c), t)
        }
        _ => (DictVals::Any(vals), DataType::Any),
    };
    Ok(Value::Dict(Arc::new(Dict { vals, val_type: vt, ..d.clone() })))
}

// ------------------------------------------------------------ builtin rows

fn rule_arg(args: &mut Vec<Value>, allowed: usize) -> Rule {
    // a trailing assembleRule string argument beyond the data arguments
    if args.len() > allowed {
        if let Some(s) = args.last().and_then(|v| v.as_str().map(|s| s.to_string())) {
            args.pop();
            return rule_of(s.chars().next());
        }
    }
    Rule::Default
}

fn b_each(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    let f = a.remove(0);
    i.interp().each(&f, a, Rule::Default)
}
fn b_loop(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    let f = a.remove(0);
    i.interp().each(&f, a, Rule::Tuple)
}
fn b_each_left(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    let r = rule_arg(&mut a, 3);
    let y = a.pop().unwrap_or(Value::Void);
    let x = a.pop().unwrap_or(Value::Void);
    i.interp().each_left(&a[0].clone(), x, y, r)
}
fn b_each_right(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    let r = rule_arg(&mut a, 3);
    let y = a.pop().unwrap_or(Value::Void);
    let x = a.pop().unwrap_or(Value::Void);
    i.interp().each_right(&a[0].clone(), x, y, r)
}
fn b_each_pre(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let pre = a.get(2).cloned().filter(|v| !matches!(v, Value::Void));
    i.interp().each_pre(&a[0], a[1].clone(), pre, Rule::Default)
}
fn b_each_post(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let post = a.get(2).cloned().filter(|v| !matches!(v, Value::Void));
    i.interp().each_post(&a[0], a[1].clone(), post, Rule::Default)
}
fn b_accumulate(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let init = a.get(2).cloned().filter(|v| !matches!(v, Value::Void));
    // accumulate(func, X, [init]) — DolphinDB's order is (func, X, init) for binary functions
    i.interp().fold(&a[0], a[1].clone(), init, true, Rule::Default)
}
fn b_reduce(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let init = a.get(2).cloned().filter(|v| !matches!(v, Value::Void));
    i.interp().fold(&a[0], a[1].clone(), init, false, Rule::Default)
}
fn b_cross(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let y = a.get(2).cloned().unwrap_or_else(|| a[1].clone());
    i.interp().cross(&a[0], a[1].clone(), y)
}
fn b_call(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    let f = a.remove(0);
    i.interp().call_value(&f, a)
}
fn b_unified_call(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let args = match &a[1] {
        Value::Tuple(t) => t.iter().cloned().collect(),
        other => vec![other.clone()],
    };
    i.interp().call_value(&a[0], args)
}
fn b_each_at(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    i.interp().each_at(a[0].clone(), a[1].clone())
}

/// Higher-order builtins implemented by the interpreter.
pub const DEFS: &[Builtin] = &[
    f("each", Kind::System, 2, u8::MAX, b_each),
    f("peach", Kind::System, 2, u8::MAX, b_each),
    f("loop", Kind::System, 2, u8::MAX, b_loop),
    f("ploop", Kind::System, 2, u8::MAX, b_loop),
    f("eachLeft", Kind::System, 3, 4, b_each_left),
    f("eachRight", Kind::System, 3, 4, b_each_right),
    f("eachPre", Kind::System, 2, 4, b_each_pre),
    f("eachPost", Kind::System, 2, 4, b_each_post),
    fp("accumulate", Kind::System, 2, 4, b_accumulate, &["func", "X", "init", "assembleRule"]),
    fp("reduce", Kind::System, 2, 4, b_reduce, &["func", "X", "init", "assembleRule"]),
    f("cross", Kind::System, 2, 3, b_cross),
    f("pcross", Kind::System, 2, 3, b_cross),
    f("call", Kind::System, 1, u8::MAX, b_call),
    f("pcall", Kind::System, 1, u8::MAX, b_call),
    f("unifiedCall", Kind::System, 2, 2, b_unified_call),
    f("eachAt", Kind::System, 2, 2, b_each_at),
];
