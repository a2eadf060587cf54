//! `CallCtx`: the narrow view of a session that a builtin receives (rhai's
//! `NativeCallContext` is the model). A plain builtin is `fn(&mut CallCtx, Vec<Value>)`:
//! it may call function values (higher-order functions), index and assign into values
//! the way the language does, print, poll the session's interrupt flag, draw from the
//! session's random generator, read and write session variables by name, use the shared
//! table registry, the builtin registry, the policy and per-library session storage. It
//! cannot reach the evaluator's frames, scopes, function definitions, test state or
//! script runner: the few builtins that need those (eval of metacode, `run`, `undef`,
//! `defs`, the test runner...) are `Call::Session` rows and receive the `Interpreter`
//! itself (`registry::SESSION_ROWS` names them all; a test keeps the list closed).
//!
//! `CallCtx` is a transparent wrapper of `Interpreter`, so making one is free and an
//! `&mut Interpreter` coerces to `&mut CallCtx` where one is expected (session code can
//! call plain helpers directly). The wrapped interpreter is private to this crate: the
//! runtime's own rows (adverbs, map-reduce over data sources) may reach it through
//! `interp()`, stdlib and storage only through the methods below.

use crate::error::Result;
use crate::eval::{Frame, Interpreter, Rule, Shared};
use beluga_lang::ast::Expr;
use crate::policy::Policy;
use crate::registry::Registry;
use crate::value::{Func, Value};
use ahash::AHashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What a plain builtin sees of its session (see the module header).
#[repr(transparent)]
pub struct CallCtx(Interpreter);

/// Work that falls due at a time rather than on an event: a subscription whose partial
/// batch must be handed over once its throttle interval has passed.
///
/// Beluga runs no background threads for scripts: everything a script causes happens in
/// its session, synchronously. Time-driven work therefore runs at the points where a
/// script could notice that time has passed — at each top-level statement boundary, and
/// inside `sleep` at the moment the work falls due — plus wherever the owner checks
/// itself (a stream table before and after an append). The outcome is what an
/// asynchronous timer would give any script that observes it only through its session.
pub trait Timer: Send + Sync {
    /// When work is next due, if any is pending.
    fn due(&self) -> Option<std::time::Instant>;
    /// Run the work that is due now (the session is the one that registered the timer).
    fn fire(&self, i: &mut CallCtx) -> Result<()>;
}

impl CallCtx {
    /// The context of a session (free: a reinterpretation of the same memory).
    pub fn of(i: &mut Interpreter) -> &mut CallCtx {
        // SAFETY: CallCtx is repr(transparent) over Interpreter.
        unsafe { &mut *(i as *mut Interpreter as *mut CallCtx) }
    }
    /// Read-only context of a session.
    pub fn of_ref(i: &Interpreter) -> &CallCtx {
        // SAFETY: CallCtx is repr(transparent) over Interpreter.
        unsafe { &*(i as *const Interpreter as *const CallCtx) }
    }
    /// The session itself, for the runtime's own rows only.
    #[allow(dead_code)]
    pub(crate) fn interp(&mut self) -> &mut Interpreter {
        &mut self.0
    }

    // ------------------------------------------------------------ calling back

    /// Call a function value (builtin, user function, partial application, template).
    pub fn call_value(&mut self, f: &Value, args: Vec<Value>) -> Result<Value> {
        self.0.call_value(f, args)
    }
    /// A caller for later, outside this builtin call (a table that refreshes itself when
    /// read, with no session in hand then): it runs functions in a worker interpreter
    /// made from the session as it is now (its variables, functions, shared tables,
    /// interrupt flag and memory accountant), as map-reduce workers are.
    pub fn detached(&self) -> Detached {
        Detached(crate::sql::Snapshot::of(&self.0))
    }
    /// Call a builtin by its registered name.
    pub fn call_builtin_by_name(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        self.0.call_builtin_by_name(name, args)
    }
    /// Call the row that `layer`'s wrapper of `name` replaced (`Registry::wrap`); None
    /// when that layer wraps nothing of that name.
    pub fn call_wrapped(&mut self, layer: &'static str, name: &'static str, args: Vec<Value>) -> Option<Result<Value>> {
        let call = *self.0.registry.wrapped.get(&(layer, name))?;
        Some(match call {
            crate::registry::Call::Plain(g) => g(self, args),
            crate::registry::Call::Session(g) => g(&mut self.0, args),
        })
    }
    /// Apply `f` element-wise the way the `each` adverb does.
    pub fn each(&mut self, f: &Value, args: Vec<Value>, rule: Rule) -> Result<Value> {
        self.0.each(f, args, rule)
    }
    /// The function value a name stands for (user function or builtin).
    pub fn resolve_function(&self, name: &str) -> Result<Value> {
        self.0.resolve_function(name)
    }
    /// Whether a name is a user function or a builtin.
    pub fn is_function_name(&self, name: &str) -> bool {
        self.0.is_function_name(name)
    }
    /// The name a function value prints as.
    pub fn func_name(&self, f: &Func) -> String {
        self.0.func_name(f)
    }

    /// Evaluate a metacode argument (`<expr>`) in the caller's scope.
    pub fn eval(&mut self, e: &Expr) -> Result<Value> {
        self.0.eval(e)
    }
    /// Evaluate a metacode argument with columns in scope (`sortBy!(t, <a+b>)`); the scope
    /// is removed again whatever the outcome.
    pub fn eval_with_columns(&mut self, cols: AHashMap<String, Value>, e: &Expr) -> Result<Value> {
        self.0.col_scopes.push(cols);
        let r = self.0.eval(e);
        self.0.col_scopes.pop();
        r
    }

    /// Run an `update` statement (the `update!` function builds one over a hidden variable).
    pub fn run_update(&mut self, u: &beluga_lang::ast::UpdateStmt) -> Result<()> {
        crate::sql::update(&mut self.0, u)
    }

    // ------------------------------------------------------------ values

    /// `target[idx...]` as the language evaluates it.
    pub fn index_value(&mut self, target: Value, idx: Vec<Value>) -> Result<Value> {
        self.0.index_value(target, idx)
    }
    /// `target[idx...] = v`, returning the updated value.
    pub fn assign_index(&mut self, target: Value, idx: &[Option<Value>], v: Value) -> Result<Value> {
        self.0.assign_index(target, idx, v)
    }
    /// The k-th element of a value (row of a table, item of a tuple...).
    pub fn element(&mut self, v: &Value, k: usize) -> Result<Value> {
        self.0.element(v, k)
    }
    /// Console text of a value.
    pub fn format(&self, v: &Value) -> String {
        self.0.format(v)
    }
    /// What an in-place (`!`) builtin returns when it is not its first argument.
    pub fn inplace_out(&mut self) -> &mut Option<Value> {
        &mut self.0.inplace_out
    }

    // ------------------------------------------------------------ session services

    /// Write a line to the session's print sink.
    pub fn emit(&mut self, text: &str) {
        self.0.emit(text)
    }
    /// Err when the session was interrupted (Ctrl-C, server cancel): long loops poll it.
    pub fn check_interrupt(&self) -> Result<()> {
        self.0.check_interrupt()
    }
    /// The session's interrupt flag (for worker threads of a builtin).
    pub fn interrupt(&self) -> &Arc<AtomicBool> {
        &self.0.interrupt
    }
    /// The session's memory accountant.
    pub fn budget(&self) -> &Arc<crate::guard::Budget> {
        &self.0.budget
    }
    /// Next draw of the session's random generator.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// The session's random generator state (`setRandomSeed`).
    pub fn rng(&mut self) -> &mut u64 {
        &mut self.0.rng
    }
    /// What this session may do with files, scripts and the environment.
    pub fn policy(&self) -> &Policy {
        &self.0.policy
    }
    /// The builtin registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.0.registry
    }
    /// Register time-driven work with this session (kept while the owner lives).
    pub fn add_timer(&mut self, t: std::sync::Weak<dyn Timer>) {
        self.0.timers.retain(|w| w.strong_count() > 0);
        if !self.0.timers.iter().any(|w| w.ptr_eq(&t)) {
            self.0.timers.push(t);
        }
    }
    /// The earliest time this session's registered work falls due.
    pub fn next_timer_due(&self) -> Option<std::time::Instant> {
        self.0.timers.iter().filter_map(|w| w.upgrade()).filter_map(|t| t.due()).min()
    }
    /// Run every registered piece of work that is due by now.
    pub fn run_due_timers(&mut self) -> Result<()> {
        if self.0.timers.is_empty() {
            return Ok(());
        }
        let now = std::time::Instant::now();
        let live: Vec<Arc<dyn Timer>> = self.0.timers.iter().filter_map(|w| w.upgrade()).collect();
        if live.len() < self.0.timers.len() {
            self.0.timers.retain(|w| w.strong_count() > 0);
        }
        for t in live {
            if t.due().map(|d| d <= now).unwrap_or(false) {
                t.fire(self)?;
            }
        }
        Ok(())
    }

    /// Per-session storage of libraries, keyed by library name.
    pub fn ext_ref(&self) -> &AHashMap<&'static str, Box<dyn std::any::Any + Send>> {
        &self.0.ext
    }
    pub fn ext(&mut self) -> &mut AHashMap<&'static str, Box<dyn std::any::Any + Send>> {
        &mut self.0.ext
    }

    // ------------------------------------------------------------ variables and shared tables

    /// The variable name written at the call site for positional argument `i` of the
    /// builtin being called (`stat(x)` ⇒ `x`), when it was a plain identifier.
    pub fn arg_name(&self, i: usize) -> Option<&str> {
        self.0.arg_names.get(i).and_then(|n| n.as_deref())
    }

    /// A variable visible at the call site (columns, function frame, session).
    pub fn get_var(&self, name: &str) -> Option<&Value> {
        self.0.get_var(name)
    }
    pub fn has_var(&self, name: &str) -> bool {
        self.0.has_var(name)
    }
    /// The function frames of the call site, innermost last (read-only: which variable
    /// holds an argument).
    pub fn frames(&self) -> &[Frame] {
        &self.0.frames
    }
    /// The session's variables (read-only).
    pub fn globals(&self) -> &AHashMap<String, Value> {
        &self.0.globals
    }
    /// Define a session variable (metacode builders keep values in hidden `__meta` ones).
    pub fn set_global(&mut self, name: String, v: Value) -> Option<Value> {
        self.0.globals.insert(name, v)
    }
    /// Assign a variable in the caller's scope.
    pub fn set_var(&mut self, name: &str, v: Value) -> Result<()> {
        self.0.set_var(name, v)
    }
    /// Write back a variable modified in place (a shared table named inside a function
    /// is updated as the shared table: `Interpreter::set_var_mutated`).
    pub fn set_var_mutated(&mut self, name: &str, v: Value) -> Result<()> {
        self.0.set_var_mutated(name, v)
    }
    /// Take a variable out of the caller's scope (so that a builtin holds the only
    /// reference and can grow it in place); the caller puts it back with `set_var`.
    pub fn take_var(&mut self, name: &str) -> Option<Value> {
        self.0.take_var(name)
    }
    /// Take a shared table out of the registry for an in-place update that runs no script
    /// code before `set_var_mutated` puts it back (`Interpreter::take_shared_for_update`).
    pub fn take_shared_for_update(&mut self, name: &str) -> Option<Value> {
        self.0.take_shared_for_update(name)
    }
    /// Take a table out of every holder for an in-place append
    /// (`Interpreter::take_table_for_update`); `put_back_table` returns it.
    pub fn take_table_for_update(&mut self, name: &str) -> Option<(Value, crate::eval::Holders)> {
        self.0.take_table_for_update(name)
    }
    /// Return a table taken by `take_table_for_update` to its holders.
    pub fn put_back_table(&mut self, v: Value, held: crate::eval::Holders) {
        self.0.put_back_table(v, held)
    }
    /// Bind the object a variable (or shared table) names, as a partial application's
    /// fixed argument does (`Interpreter::bind_var`).
    pub fn bind_var(&mut self, name: &str) -> Option<crate::value::Bound> {
        self.0.bind_var(name)
    }
    /// The current value of a bound object.
    pub fn bound_value(&self, b: &crate::value::Bound) -> Value {
        self.0.bound_value(b)
    }
    /// Take a bound object out of its holders for an in-place change; `store_bound` puts
    /// it back (`Interpreter::take_bound`).
    pub fn take_bound(&mut self, b: &crate::value::Bound) -> (Value, Option<crate::eval::Holders>) {
        self.0.take_bound(b)
    }
    pub fn store_bound(&mut self, b: &crate::value::Bound, v: Value, held: Option<crate::eval::Holders>) {
        self.0.store_bound(b, v, held)
    }
    /// The process-wide shared-table registry (`share`).
    pub fn shared(&self) -> &Shared {
        &self.0.shared
    }
    /// A shared object by name.
    pub fn get_shared(&self, name: &str) -> Option<Value> {
        self.0.get_shared(name)
    }
    /// Share a value under a name.
    pub fn share(&mut self, v: Value, name: &str) -> Result<()> {
        self.0.share(v, name)
    }
}

/// An `&mut Interpreter` (or `&Interpreter`) stands wherever a `CallCtx` is expected, so
/// session code and tests can call plain builtins and their helpers directly.
impl std::ops::Deref for Interpreter {
    type Target = CallCtx;
    fn deref(&self) -> &CallCtx {
        CallCtx::of_ref(self)
    }
}
impl std::ops::DerefMut for Interpreter {
    fn deref_mut(&mut self) -> &mut CallCtx {
        CallCtx::of(self)
    }
}

/// A call of one named function on one column and constant scalars, written as text (the
/// partitioning function `f(ts, 6, 8)` of a stored table). It is parsed here, above the
/// syntax tree, so storage keeps the text and the shape without depending on `lang`;
/// `CallCtx::eval_column_call` evaluates it on a column's values.
pub struct ColumnCall {
    expr: Expr,
    func: String,
    column: String,
}

impl ColumnCall {
    /// Parse and check the shape; the error is the reason, to be put after the call's text
    /// ("must be a function call such as f(col, 3)").
    pub fn parse(text: &str) -> std::result::Result<ColumnCall, String> {
        use beluga_lang::ast::{Arg, ExprKind, UnOp};
        let expr = beluga_lang::parse_expr(text, &|_| false).map_err(|e| format!("does not parse: {e}"))?;
        let ExprKind::Call(f, args) = &expr.kind else {
            return Err("must be a function call such as f(col, 3)".into());
        };
        let ExprKind::Ident(func) = &f.kind else {
            return Err("must call a function by name".into());
        };
        let one = "must have exactly one argument that is a partitioning column";
        let mut column: Option<String> = None;
        for a in args {
            let Arg::Pos(Some(x)) = a else {
                return Err("takes positional arguments only".into());
            };
            match &x.kind {
                ExprKind::Ident(n) if column.is_some() => return Err(format!("{one} (it names {n} too)")),
                ExprKind::Ident(n) => column = Some(n.clone()),
                ExprKind::Lit(_) => {}
                ExprKind::Unary(UnOp::Neg, y) if matches!(y.kind, ExprKind::Lit(_)) => {}
                _ => return Err("may have only constant scalars besides the partitioning column".into()),
            }
        }
        let column = column.ok_or_else(|| one.to_string())?;
        let func = func.clone();
        Ok(ColumnCall { expr, func, column })
    }
    /// The called function's name.
    pub fn func(&self) -> &str {
        &self.func
    }
    /// The column's name as the call writes it.
    pub fn column(&self) -> &str {
        &self.column
    }
}

impl CallCtx {
    /// Evaluate a [`ColumnCall`] with its column bound to `col`'s values.
    pub fn eval_column_call(&mut self, call: &ColumnCall, col: &crate::column::Column) -> Result<Value> {
        let mut scope = AHashMap::new();
        scope.insert(call.column.clone(), Value::vector(col.clone()));
        self.eval_with_columns(scope, &call.expr)
    }
}

/// See `CallCtx::detached`.
pub struct Detached(crate::sql::Snapshot);

impl Detached {
    /// Call a function value in a fresh worker of the captured session.
    pub fn call(&self, f: &Value, args: Vec<Value>) -> Result<Value> {
        self.0.worker().call_value(f, args)
    }
}
