//! Incremental evaluation of reactive-state metrics: each appended batch of a key costs
//! O(batch), not O(the key's history), and gives what the same metric gives over the
//! key's whole history (funcs/c/createReactiveStateEngine.md: the engine's state
//! functions are computed incrementally).
//!
//! How: a metric is compiled once into steps over the batch's columns. State-function
//! calls become steps with per-key state; `@state` (and plain, statement-only) user
//! functions are inlined, their parameters and locals becoming bindings; element-wise
//! builtins and operators stay in the expressions, evaluated on the batch alone.
//! * window functions (mavg, msum, mstd, mcorr, moving, prev, move, deltas, ratios,
//!   percentChange...): the step keeps the last `window-1` (or `steps`) values of its
//!   vector arguments and runs the builtin over those plus the batch, keeping the batch's
//!   rows — the value of row t depends only on rows t-window+1..t, so this is the value
//!   over the whole history;
//! * running functions (cumsum, cummax, cummin, cumprod): the step keeps its last output
//!   and runs the builtin over it followed by the batch (the running value continues from
//!   it); cumcount adds its last count;
//! * ema: the recursion's state (the values before the seed, then the last value), the
//!   same arithmetic as `ta::ema`.
//! A metric using anything else (aggregates, time-based windows, tuples, control flow in
//! a user function) is not compiled: the engine evaluates it over the key's history
//! (`reactive.rs`), which is exact but costs the history's length.

use beluga_lang::ast::{Arg, AssignOp, Expr, ExprKind, FuncBody, Literal, StmtKind};
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::Kind;
use beluga_runtime::{CallCtx, Column, DataType, Error, Func, Result, Value};
use ahash::AHashMap;
use std::sync::Arc;

/// How a state function keeps its state.
#[derive(Clone, Copy, Debug, PartialEq)]
enum StateKind {
    /// the last `n` values of the vector arguments
    Window(usize),
    /// the last output, prepended to the batch
    Seed,
    /// the last output added to the batch's result (cumcount)
    AddLast,
    /// exponential moving average with window n
    Ema(usize),
}

/// One step of a compiled metric, run on a key's batch in order.
enum Step {
    /// bind `name` to an expression over the batch (and earlier bindings)
    Let(String, Arc<Expr>),
    /// bind `name` to a state function's values for the batch
    State { name: String, func: &'static str, args: Vec<Arc<Expr>>, vec_args: Vec<usize>, kind: StateKind },
}

/// A compiled metric: its steps and the final expression.
pub struct Plan {
    steps: Vec<Step>,
    out: Arc<Expr>,
}

/// The per-key state of one step.
#[derive(Clone)]
enum StepState {
    None,
    Tail(Vec<Column>),
    Last(Option<Column>),
    Ema { buf: Vec<f64>, e: Option<f64> },
}

/// The per-key state of a compiled metric.
#[derive(Clone)]
pub struct PlanState(Vec<StepState>);

/// Functions whose value at a row depends on a fixed number of rows before it:
/// (name, positions of the vector arguments, position of the window argument, whether
/// the lookback is window-1 (m-functions) or the steps themselves (prev, move, deltas)).
const WINDOWED: &[(&str, &[usize], Option<usize>, bool)] = &[
    ("mavg", &[0], Some(1), true),
    ("msum", &[0], Some(1), true),
    ("msum2", &[0], Some(1), true),
    ("mcount", &[0], Some(1), true),
    ("mprod", &[0], Some(1), true),
    ("mvar", &[0], Some(1), true),
    ("mvarp", &[0], Some(1), true),
    ("mstd", &[0], Some(1), true),
    ("mstdp", &[0], Some(1), true),
    ("mskew", &[0], Some(1), true),
    ("mkurtosis", &[0], Some(1), true),
    ("mmin", &[0], Some(1), true),
    ("mmax", &[0], Some(1), true),
    ("mimin", &[0], Some(1), true),
    ("mimax", &[0], Some(1), true),
    ("mmed", &[0], Some(1), true),
    ("mfirst", &[0], Some(1), true),
    ("mlast", &[0], Some(1), true),
    ("mmad", &[0], Some(1), true),
    ("mrank", &[0], Some(2), true),
    ("mpercentile", &[0], Some(2), true),
    ("mcorr", &[0, 1], Some(2), true),
    ("mcovar", &[0, 1], Some(2), true),
    ("mbeta", &[0, 1], Some(2), true),
    ("mwsum", &[0, 1], Some(2), true),
    ("mwavg", &[0, 1], Some(2), true),
    ("moving", &[1], Some(2), true),
    ("prev", &[0], None, false),
    ("move", &[0], Some(1), false),
    ("deltas", &[0], Some(1), false),
    ("ratios", &[0], Some(1), false),
    ("percentChange", &[0], Some(1), false),
];

/// The compiler: steps so far and a counter for fresh names.
struct Compiler<'a> {
    i: &'a CallCtx,
    steps: Vec<Step>,
    n: usize,
    /// user functions being inlined (no recursion)
    stack: Vec<String>,
}

fn ident(name: &str, like: &Expr) -> Expr {
    Expr { kind: ExprKind::Ident(name.to_string()), span: like.span }
}

fn int_lit(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Lit(Literal::Int(Some(v))) => Some(*v as i64),
        ExprKind::Lit(Literal::Long(Some(v))) => Some(*v),
        ExprKind::Lit(Literal::Short(Some(v))) => Some(*v as i64),
        _ => None,
    }
}

/// Is an expression a constant or a bare name (safe to substitute without a binding)?
fn trivial(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Lit(_) | ExprKind::VecLit(_) | ExprKind::Ident(_))
}

impl<'a> Compiler<'a> {
    fn fresh(&mut self, p: &str) -> String {
        self.n += 1;
        format!("__{p}{}", self.n)
    }

    fn bind(&mut self, e: Expr) -> Expr {
        if trivial(&e) {
            return e;
        }
        let name = self.fresh("v");
        let id = ident(&name, &e);
        self.steps.push(Step::Let(name, Arc::new(e)));
        id
    }

    /// Rewrite an expression; None when it can't be computed incrementally.
    fn expr(&mut self, e: &Expr, env: &AHashMap<String, Expr>) -> Option<Expr> {
        let k = match &e.kind {
            ExprKind::Lit(_) | ExprKind::VecLit(_) => return Some(e.clone()),
            ExprKind::Ident(n) => return Some(env.get(n).cloned().unwrap_or_else(|| e.clone())),
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(self.expr(a, env)?)),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, Box::new(self.expr(a, env)?), Box::new(self.expr(b, env)?)),
            ExprKind::Compare(xs, ops) => ExprKind::Compare(xs.iter().map(|x| self.expr(x, env)).collect::<Option<_>>()?, ops.clone()),
            ExprKind::Ternary(c, a, b) => {
                ExprKind::Ternary(Box::new(self.expr(c, env)?), Box::new(self.expr(a, env)?), Box::new(self.expr(b, env)?))
            }
            ExprKind::Call(f, args) => {
                let ExprKind::Ident(name) = &f.kind else { return None };
                if env.contains_key(name) {
                    return None;
                }
                let mut pos = Vec::with_capacity(args.len());
                for a in args {
                    match a {
                        Arg::Pos(Some(x)) => pos.push(x),
                        _ => return None,
                    }
                }
                return self.call(e, name, &pos, env);
            }
            ExprKind::Method(obj, name, args) => {
                let mut pos = vec![obj.as_ref()];
                for a in args {
                    match a {
                        Arg::Pos(Some(x)) => pos.push(x),
                        _ => return None,
                    }
                }
                return self.call(e, name, &pos, env);
            }
            _ => return None,
        };
        Some(Expr { kind: k, span: e.span })
    }

    fn call(&mut self, e: &Expr, name: &str, args: &[&Expr], env: &AHashMap<String, Expr>) -> Option<Expr> {
        let f = self.i.resolve_function(name).ok()?;
        let Value::Function(func) = f else { return None };
        match func {
            Func::User(u) => {
                if self.stack.iter().any(|s| s == name) || args.len() > u.def.params.len() {
                    return None;
                }
                let mut inner: AHashMap<String, Expr> = AHashMap::new();
                for (k, p) in u.def.params.iter().enumerate() {
                    let a = match args.get(k) {
                        Some(a) => self.expr(a, env)?,
                        None => return None,
                    };
                    let a = self.bind(a);
                    inner.insert(p.name.clone(), a);
                }
                self.stack.push(name.to_string());
                let r = self.body(&u.def.body, &mut inner);
                self.stack.pop();
                r
            }
            Func::Builtin(id) => {
                let b = self.i.registry().get(id);
                let bname = b.name;
                let rw: Vec<Expr> = args.iter().map(|a| self.expr(a, env)).collect::<Option<_>>()?;
                if let Some(kind) = self.state_kind(bname, &rw) {
                    let (vec_args, _) = state_vec_args(bname);
                    let name = self.fresh("s");
                    let id = ident(&name, e);
                    self.steps.push(Step::State { name, func: bname, args: rw.into_iter().map(Arc::new).collect(), vec_args, kind });
                    return Some(id);
                }
                if b.kind != Kind::Elementwise {
                    return None;
                }
                let f = Expr { kind: ExprKind::Ident(bname.to_string()), span: e.span };
                Some(Expr { kind: ExprKind::Call(Box::new(f), rw.into_iter().map(|x| Arg::Pos(Some(x))).collect()), span: e.span })
            }
            _ => None,
        }
    }

    /// The state kind of a builtin call with these (rewritten) arguments, if it has one.
    fn state_kind(&self, name: &str, args: &[Expr]) -> Option<StateKind> {
        match name {
            "cumsum" | "cummax" | "cummin" | "cumprod" if args.len() == 1 => return Some(StateKind::Seed),
            "cumcount" if args.len() == 1 => return Some(StateKind::AddLast),
            "ema" if args.len() == 2 => return int_lit(&args[1]).filter(|&n| n > 0).map(|n| StateKind::Ema(n as usize)),
            _ => {}
        }
        let (_, vecs, win, m) = WINDOWED.iter().find(|w| w.0 == name)?;
        if vecs.iter().any(|&k| k >= args.len()) {
            return None;
        }
        let n = match win {
            Some(k) => match args.get(*k) {
                Some(a) => int_lit(a)?,
                None if !m => 1,
                None => return None,
            },
            None => 1,
        };
        if n < 1 || (name == "moving" && !trivial(&args[0])) {
            return None;
        }
        // prev/move/deltas/ratios look `n` rows back; m-functions n-1
        Some(StateKind::Window(if *m { n as usize - 1 } else { n as usize }))
    }

    /// Inline a function body: assignments bind locals, `return` gives the value.
    fn body(&mut self, b: &FuncBody, env: &mut AHashMap<String, Expr>) -> Option<Expr> {
        match b {
            FuncBody::Expr(e) => self.expr(e, env),
            FuncBody::Block(stmts) => {
                let n = stmts.len();
                for (k, s) in stmts.iter().enumerate() {
                    match &s.kind {
                        StmtKind::Assign(targets, AssignOp::Set, rhs) if targets.len() == 1 => {
                            let ExprKind::Ident(name) = &targets[0].kind else { return None };
                            let v = self.expr(rhs, env)?;
                            let v = self.bind(v);
                            env.insert(name.clone(), v);
                        }
                        StmtKind::Return(Some(e)) if k + 1 == n => return self.expr(e, env),
                        StmtKind::Expr(e) if k + 1 == n => return self.expr(e, env),
                        _ => return None,
                    }
                }
                None
            }
            _ => None,
        }
    }
}

fn state_vec_args(name: &str) -> (Vec<usize>, bool) {
    match WINDOWED.iter().find(|w| w.0 == name) {
        Some((_, v, _, m)) => (v.to_vec(), *m),
        None => (vec![0], false),
    }
}

/// Compile a metric, or None when it must be evaluated over the history.
pub fn compile(i: &CallCtx, e: &Expr) -> Option<Plan> {
    let mut c = Compiler { i, steps: Vec::new(), n: 0, stack: Vec::new() };
    let out = c.expr(e, &AHashMap::new())?;
    // a metric without state functions is element-wise: the batch alone gives it
    Some(Plan { steps: c.steps, out: Arc::new(out) })
}

impl Plan {
    pub fn new_state(&self) -> PlanState {
        PlanState(
            self.steps
                .iter()
                .map(|s| match s {
                    Step::Let(..) => StepState::None,
                    Step::State { kind: StateKind::Window(_), .. } => StepState::Tail(Vec::new()),
                    Step::State { kind: StateKind::Ema(_), .. } => StepState::Ema { buf: Vec::new(), e: None },
                    Step::State { .. } => StepState::Last(None),
                })
                .collect(),
        )
    }

    /// The metric's value for a key's batch (`scope`: the batch's columns by name, `m` rows).
    pub fn run(&self, i: &mut CallCtx, st: &mut PlanState, mut scope: AHashMap<String, Value>, m: usize) -> Result<Value> {
        for (step, ss) in self.steps.iter().zip(st.0.iter_mut()) {
            match step {
                Step::Let(name, e) => {
                    let v = i.eval_with_columns(scope.clone(), e)?;
                    scope.insert(name.clone(), v);
                }
                Step::State { name, func, args, vec_args, kind } => {
                    let mut vals = Vec::with_capacity(args.len());
                    for a in args {
                        vals.push(i.eval_with_columns(scope.clone(), a)?);
                    }
                    for &k in vec_args {
                        vals[k] = Value::Vector(as_column(func, &vals[k], m)?);
                    }
                    let out = run_state(i, func, vals, vec_args, *kind, ss, m)?;
                    scope.insert(name.clone(), Value::Vector(out));
                }
            }
        }
        i.eval_with_columns(scope, &self.out)
    }
}

/// A vector argument of m rows (a scalar is repeated).
fn as_column(func: &str, v: &Value, m: usize) -> Result<Column> {
    match v {
        Value::Vector(c) if c.len() == m => Ok(c.clone()),
        Value::Scalar(c) => Ok(c.take_usize(&vec![0; m])),
        Value::Vector(c) => Err(Error::size(format!("{func}: its argument has {} values for {m} rows", c.len()))),
        other => Err(Error::type_err(format!("{func}: expected a vector argument, not {}", beluga_runtime::eval::ops::describe(other)))),
    }
}

/// Join b after a (b cast to a's type when they differ).
fn joined(a: &Column, b: &Column) -> Result<Column> {
    let mut out = a.clone();
    if a.ty == b.ty || (a.ty.is_literal() && b.ty.is_literal()) {
        out.append(b);
    } else if a.ty == DataType::Void {
        return Ok(b.clone());
    } else {
        out.append(&cast_column(b, a.ty)?);
    }
    Ok(out)
}

fn result_column(func: &str, v: Value, len: usize) -> Result<Column> {
    match v {
        Value::Vector(c) if c.len() == len => Ok(c),
        other => Err(Error::type_err(format!("{func} gave {}, not {len} values", beluga_runtime::eval::ops::describe(&other)))),
    }
}

fn run_state(i: &mut CallCtx, func: &str, mut vals: Vec<Value>, vec_args: &[usize], kind: StateKind, ss: &mut StepState, m: usize) -> Result<Column> {
    match (kind, ss) {
        (StateKind::Window(keep), StepState::Tail(tail)) => {
            let t = tail.first().map(|c| c.len()).unwrap_or(0);
            let mut full = Vec::with_capacity(vec_args.len());
            for (j, &k) in vec_args.iter().enumerate() {
                let Value::Vector(new) = &vals[k] else { return Err(Error::runtime("internal: state argument is not a vector")) };
                let c = match tail.get(j) {
                    Some(old) if t > 0 => joined(old, new)?,
                    _ => new.clone(),
                };
                full.push(c);
            }
            let len = t + m;
            for (j, &k) in vec_args.iter().enumerate() {
                vals[k] = Value::Vector(full[j].clone());
            }
            let v = i.call_builtin_by_name(func, vals)?;
            let out = result_column(func, v, len)?;
            let from = len.saturating_sub(keep);
            *tail = full.iter().map(|c| c.slice(from, len)).collect();
            Ok(out.slice(t, len))
        }
        (StateKind::Seed, StepState::Last(last)) => {
            let Value::Vector(new) = &vals[0] else { return Err(Error::runtime("internal: state argument is not a vector")) };
            let (arg, skip) = match last.as_ref() {
                Some(l) => (joined(l, new)?, 1),
                None => (new.clone(), 0),
            };
            let v = i.call_builtin_by_name(func, vec![Value::Vector(arg)])?;
            let out = result_column(func, v, m + skip)?.slice(skip, m + skip);
            if m > 0 {
                *last = Some(out.slice(m - 1, m));
            }
            Ok(out)
        }
        (StateKind::AddLast, StepState::Last(last)) => {
            let v = i.call_builtin_by_name(func, vals)?;
            let mut out = result_column(func, v, m)?;
            if let Some(l) = last.as_ref() {
                let s = i.call_builtin_by_name("add", vec![Value::Vector(out), Value::Scalar(l.clone())])?;
                out = result_column(func, s, m)?;
            }
            if m > 0 {
                *last = Some(out.slice(m - 1, m));
            }
            Ok(out)
        }
        (StateKind::Ema(n), StepState::Ema { buf, e }) => {
            let Value::Vector(new) = &vals[0] else { return Err(Error::runtime("internal: state argument is not a vector")) };
            if !new.ty.is_numeric() && new.ty != DataType::Void && new.ty != DataType::Bool {
                return Err(Error::type_err(format!("ema: X must be numeric, not {}", new.ty)));
            }
            let alpha = 2.0 / (n as f64 + 1.0);
            let mut out = Vec::with_capacity(m);
            for r in 0..m {
                let x = new.f64_at(r).unwrap_or(f64::NAN);
                match e {
                    Some(prev) => {
                        if x.is_nan() {
                            out.push(f64::NAN);
                        } else {
                            *prev = alpha * x + (1.0 - alpha) * *prev;
                            out.push(*prev);
                        }
                    }
                    None => {
                        // leading nulls are skipped; the seed is the mean of the first n values
                        if buf.is_empty() && x.is_nan() {
                            out.push(f64::NAN);
                            continue;
                        }
                        buf.push(x);
                        if buf.len() == n {
                            let seed: Vec<f64> = buf.iter().copied().filter(|x| !x.is_nan()).collect();
                            let s = seed.iter().sum::<f64>() / seed.len().max(1) as f64;
                            *e = Some(s);
                            buf.clear();
                            out.push(s);
                        } else {
                            out.push(f64::NAN);
                        }
                    }
                }
            }
            Ok(Column::from_vec(DataType::Double, out.into_iter().map(f64::from_f64).collect::<Vec<f64>>()))
        }
        _ => Err(Error::runtime("internal: state of the wrong kind")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_table_has_vector_args_before_the_window() {
        for (name, vecs, win, _) in WINDOWED {
            if let Some(w) = win {
                assert!(vecs.iter().all(|v| v < w), "{name}");
            }
        }
    }
}
