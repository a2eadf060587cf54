//! The tree-walking interpreter: session state, name resolution, script segments.

mod adverbs;
mod call;
mod expr;
mod index;
mod literal;
// `ops` lives a layer below the evaluator (it never uses the interpreter); this path stays
// so existing `eval::ops::` imports keep working.
pub use crate::ops;
mod stmt;
mod validate;

pub use adverbs::{assemble, Rule, DEFS as ADVERB_DEFS};
pub use expr::build_dict as build_dict_pub;
pub use index::dict_get as dict_get_pub;
pub use literal::{literal_value, temporal_type, unify_scalars};

use crate::callctx::CallCtx;
use crate::error::{Error, ErrorKind, Result};
use crate::registry::Registry;
use crate::types::DataType;
use crate::value::{Func, UserFunc, Value};
use ahash::{AHashMap, AHashSet};
use beluga_lang::ast::Stmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Maximum depth of nested user-function calls before an error (instead of a stack overflow).
pub const MAX_CALL_DEPTH: usize = 1000;

/// Where `print` output goes.
pub enum Output {
    Stdout,
    Buffer(String),
    /// Each printed line is handed to a callback as it is produced (embedding, server MSG frames).
    Sink(Box<dyn FnMut(&str) + Send>),
}

/// One function-call frame.
#[derive(Default)]
pub struct Frame {
    pub vars: AHashMap<String, Value>,
    /// parameters that may not be modified (non-`mutable`)
    pub readonly: AHashSet<String>,
    pub module: Option<String>,
    /// Local variables bound into a partial application: the variable and the partial
    /// application's fixed argument are one object (`value::Bound`).
    pub links: AHashMap<String, Cell>,
}

/// The cell of an object bound into a partial application (`value::Bound::Cell`).
pub type Cell = Arc<Mutex<Value>>;

fn lock(c: &Cell) -> std::sync::MutexGuard<'_, Value> {
    c.lock().unwrap_or_else(|p| p.into_inner())
}

/// Objects shared across sessions with `share`.
pub type Shared = Arc<Mutex<AHashMap<String, Value>>>;

/// State of the current `@testing` run.
#[derive(Default, Clone, Debug)]
pub struct TestState {
    pub case: String,
    /// failed assertions: (case, sub-case, message)
    pub failures: Vec<(String, String, String)>,
}

pub struct Interpreter {
    pub registry: Arc<Registry>,
    pub globals: AHashMap<String, Value>,
    pub consts: AHashSet<String>,
    /// `&x = y`: x refers to the session variable y until x is rebound.
    pub aliases: AHashMap<String, String>,
    pub functions: AHashMap<String, Value>,
    pub shared: Shared,
    pub frames: Vec<Frame>,
    /// Column bindings of SQL queries being evaluated (innermost last); checked before variables.
    pub col_scopes: Vec<AHashMap<String, Value>>,
    pub depth: usize,
    pub output: Output,
    pub interrupt: Arc<AtomicBool>,
    /// This session's memory accountant (`setMaxMemSize`), installed on its thread per statement.
    pub budget: Arc<crate::guard::Budget>,
    pub module_dir: PathBuf,
    /// file being run (for `#include` and `run` relative paths)
    pub current_file: Option<PathBuf>,
    pub loaded_modules: AHashSet<String>,
    /// Module name → (file, preprocessed text), to place errors raised in module code.
    pub module_sources: AHashMap<String, (String, Arc<str>)>,
    pub test: TestState,
    /// Set by an in-place (`!`) builtin that returns something other than its first argument.
    pub inplace_out: Option<Value>,
    /// Session variables bound into a partial application (see `Frame::links`).
    pub links: AHashMap<String, Cell>,
    /// The final values of a user function's `mutable` parameters when its call failed (a
    /// partial application keeps the changes made to its bound objects before the error).
    pub(crate) unwound: Vec<(usize, Value)>,
    /// The variable names of the positional arguments at the call site of the builtin being
    /// called (`stat(x)` names its result `x`, `toJson(x)` writes `"name":"x"`); set by
    /// `eval_call` for the next builtin call only and read with `CallCtx::arg_name`.
    pub(crate) pending_arg_names: Vec<Option<String>>,
    pub(crate) arg_names: Vec<Option<String>>,
    /// Random generator state (xorshift), seeded by `setRandomSeed`.
    pub rng: u64,
    /// Free-form per-session storage for libraries (keyed by library name).
    pub ext: AHashMap<&'static str, Box<dyn std::any::Any + Send>>,
    /// What this session may do with files, scripts and the environment.
    pub policy: crate::policy::Policy,
    /// Work due at a time (a subscription's throttled partial batch), run at the session's
    /// observation points; see `crate::callctx::Timer`.
    pub(crate) timers: Vec<std::sync::Weak<dyn crate::callctx::Timer>>,
}

impl Interpreter {
    pub fn new(registry: Registry) -> Interpreter {
        Interpreter::with_registry(Arc::new(registry))
    }

    pub fn with_registry(registry: Arc<Registry>) -> Interpreter {
        crate::guard::init_threads();
        crate::bigalloc::keep_freed_memory();
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(88172645463325252)
            | 1;
        Interpreter {
            registry,
            globals: AHashMap::new(),
            consts: AHashSet::new(),
            aliases: AHashMap::new(),
            functions: AHashMap::new(),
            shared: Arc::new(Mutex::new(AHashMap::new())),
            frames: Vec::new(),
            col_scopes: Vec::new(),
            depth: 0,
            output: Output::Stdout,
            interrupt: Arc::new(AtomicBool::new(false)),
            budget: crate::guard::Budget::new(),
            module_dir: std::env::var_os("BELUGA_MODULE_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("modules")),
            current_file: None,
            loaded_modules: AHashSet::new(),
            module_sources: AHashMap::new(),
            test: TestState::default(),
            inplace_out: None,
            links: AHashMap::new(),
            unwound: Vec::new(),
            pending_arg_names: Vec::new(),
            arg_names: Vec::new(),
            rng: seed,
            ext: AHashMap::new(),
            policy: crate::policy::Policy::Trusted,
            timers: Vec::new(),
        }
    }

    /// Write text produced by `print` and friends (a newline is added).
    pub fn emit(&mut self, text: &str) {
        match &mut self.output {
            Output::Stdout => {
                use std::io::Write;
                let mut o = std::io::stdout().lock();
                let _ = writeln!(o, "{text}");
            }
            Output::Buffer(b) => {
                b.push_str(text);
                b.push('\n');
            }
            Output::Sink(f) => f(text),
        }
    }

    /// Take the captured output (Buffer mode).
    pub fn take_output(&mut self) -> String {
        match &mut self.output {
            Output::Buffer(b) => std::mem::take(b),
            Output::Stdout | Output::Sink(_) => String::new(),
        }
    }

    pub fn check_interrupt(&self) -> Result<()> {
        // the flag stays set until the statement reports the interrupt (exec_top), so
        // every kernel and worker thread of the statement sees it and stops too
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(crate::guard::interrupted());
        }
        Ok(())
    }

    /// Console text of a value (the REPL echo).
    pub fn format(&self, v: &Value) -> String {
        let reg = self.registry.clone();
        crate::fmt::to_console(v, &|id| reg.get(id).name.to_string())
    }

    // ------------------------------------------------------------ variables

    /// Look a variable up in the current scope (function frame, then session, then shared).
    /// The session variable a name stands for (itself unless it is a `&` alias).
    fn canon<'a>(&'a self, name: &'a str) -> &'a str {
        self.aliases.get(name).map(|s| s.as_str()).unwrap_or(name)
    }

    /// Make `alias` refer to the session variable `target` (`&alias = target`).
    pub fn set_alias(&mut self, alias: &str, target: &str) {
        let t = self.canon(target).to_string();
        if t != alias {
            self.globals.remove(alias);
            self.aliases.insert(alias.to_string(), t);
        }
    }

    /// Rebinding a name breaks its alias.
    pub fn break_alias(&mut self, name: &str) {
        if self.frames.is_empty() {
            self.aliases.remove(name);
        }
    }

    pub fn get_var(&self, name: &str) -> Option<&Value> {
        for scope in self.col_scopes.iter().rev() {
            if let Some(v) = scope.get(name) {
                return Some(v);
            }
        }
        if let Some(f) = self.frames.last() {
            if let Some(v) = f.vars.get(name) {
                return Some(v);
            }
        }
        self.globals.get(self.canon(name))
    }

    pub fn get_shared(&self, name: &str) -> Option<Value> {
        // a shared table another session is appending to in place is out of the map for
        // the length of that append: wait for it rather than miss it (bounded, in case
        // the writer died)
        // `t` after `share t as st` names the shared table
        let name = self.canon(name);
        let marker = busy_marker(name);
        let t0 = std::time::Instant::now();
        loop {
            let m = self.shared.lock().ok()?;
            if let Some(v) = m.get(name) {
                return Some(v.clone());
            }
            if !m.contains_key(&marker) || t0.elapsed() > std::time::Duration::from_secs(60) {
                return None;
            }
            drop(m);
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
    }

    /// Take a shared object out of the registry to update it in place (the caller then
    /// holds the only reference, so appends grow its columns without a copy), leaving a
    /// marker that makes other sessions' `get_shared` wait until `set_var_mutated` puts
    /// the new value back. Only for builtins that run no script code in between (`append!`,
    /// `tableInsert`): script code reading the same name would wait on its own marker.
    pub fn take_shared_for_update(&mut self, name: &str) -> Option<Value> {
        if self.frames.last().is_some_and(|f| f.vars.contains_key(name)) || self.globals.contains_key(self.canon(name)) {
            return None;
        }
        let name = self.canon(name).to_string();
        let mut m = self.shared.lock().ok()?;
        // tables only: a shared stream table or engine is a handle whose appends look
        // the name up again
        if !matches!(m.get(&name), Some(Value::Table(_))) {
            return None;
        }
        let v = m.remove(&name)?;
        m.insert(busy_marker(&name), Value::Void);
        Some(v)
    }

    /// Take the table `name` (a session variable, a shared table, or the other name of a
    /// `share t as st` pair, which is an alias of the shared name) out of its holder, so
    /// the caller holds the only reference and an append grows its columns without a
    /// copy. A shared table is replaced by a busy marker, so other sessions wait in
    /// `get_shared` until `put_back_table` returns it. None for a function's local
    /// variable or a name that is not a plain table (stream tables and engines are
    /// handles); a table also referenced elsewhere is still copied by the append.
    pub fn take_table_for_update(&mut self, name: &str) -> Option<(Value, Holders)> {
        if self.frames.last().is_some_and(|f| f.vars.contains_key(name)) {
            return None;
        }
        let canon = self.canon(name).to_string();
        if self.consts.contains(&canon) {
            // a constant refuses the update where it is written back (`set_var`)
            return None;
        }
        match self.globals.get(&canon) {
            // inside a function the session's globals are not visible, only shared tables
            Some(Value::Table(_)) if self.frames.is_empty() => {
                let v = self.globals.remove(&canon)?;
                if let Some(c) = self.links.get(&canon) {
                    *lock(c) = Value::Void;
                }
                Some((v, Holders { global: Some(canon), shared: None }))
            }
            Some(_) => None,
            None => {
                let mut m = self.shared.lock().ok()?;
                if !matches!(m.get(&canon), Some(Value::Table(_))) {
                    return None;
                }
                let v = m.remove(&canon)?;
                m.insert(busy_marker(&canon), Value::Void);
                Some((v, Holders { global: None, shared: Some(canon) }))
            }
        }
    }

    /// Return a table taken by `take_table_for_update` (updated or not) to every holder.
    pub fn put_back_table(&mut self, v: Value, held: Holders) {
        if let Some(k) = held.shared {
            let mut m = match self.shared.lock() {
                Ok(m) => m,
                Err(p) => p.into_inner(),
            };
            m.remove(&busy_marker(&k));
            m.insert(k, v.clone());
        }
        if let Some(k) = held.global {
            if let Some(c) = self.links.get(&k) {
                *lock(c) = v.clone();
            }
            self.globals.insert(k, v);
        }
    }

    pub fn has_var(&self, name: &str) -> bool {
        self.get_var(name).is_some()
    }

    // ------------------------------------------------------------ bound objects

    /// The object a variable names, for a partial application to bind (`f{t}`): the
    /// variable is linked to a cell that the partial application keeps, so both are one
    /// object (`value::Bound`). A shared table is bound by its registered name. None when
    /// the name is no variable (or a column of the query being evaluated).
    pub fn bind_var(&mut self, name: &str) -> Option<crate::value::Bound> {
        use crate::value::Bound;
        if self.col_scopes.iter().any(|s| s.contains_key(name)) {
            return None;
        }
        if let Some(f) = self.frames.last_mut() {
            if let Some(v) = f.vars.get(name) {
                let c = f.links.entry(name.to_string()).or_insert_with(|| Arc::new(Mutex::new(v.clone())));
                return Some(Bound::Cell(c.clone()));
            }
        }
        let canon = self.canon(name).to_string();
        if let Some(v) = self.globals.get(&canon) {
            if matches!(v, Value::Function(_) | Value::Handle(_)) {
                return None;
            }
            let c = self.links.entry(canon).or_insert_with(|| Arc::new(Mutex::new(v.clone())));
            return Some(Bound::Cell(c.clone()));
        }
        match self.get_shared(&canon) {
            Some(Value::Table(_)) => Some(Bound::Shared(Arc::from(canon.as_str()))),
            _ => None,
        }
    }

    /// Assigning a variable anew (`x = ...`, a loop variable, `undef`) makes it another
    /// object: it is no longer the one bound into partial applications.
    pub fn unlink(&mut self, name: &str) {
        // inside a function an assignment makes a local variable
        if let Some(f) = self.frames.last_mut() {
            f.links.remove(name);
            return;
        }
        let canon = self.canon(name).to_string();
        self.links.remove(&canon);
    }

    /// The current value of a bound object.
    pub fn bound_value(&self, b: &crate::value::Bound) -> Value {
        match b {
            crate::value::Bound::Cell(c) => lock(c).clone(),
            crate::value::Bound::Shared(n) => self.get_shared(n).unwrap_or(Value::Void),
        }
    }

    /// Take a bound object out of its cell and of the variable linked to it, so that the
    /// callee changing it holds the only reference (no copy per call of a stream handler
    /// appending to its table). `store_bound` puts the (changed) object back.
    pub fn take_bound(&mut self, b: &crate::value::Bound) -> (Value, Option<Holders>) {
        match b {
            crate::value::Bound::Cell(c) => {
                let v = std::mem::replace(&mut *lock(c), Value::Void);
                if let Some(slot) = self.linked_var(c) {
                    *slot = Value::Void;
                }
                (v, None)
            }
            crate::value::Bound::Shared(n) => match self.take_table_for_update(n) {
                Some((v, h)) => (v, Some(h)),
                None => (self.get_shared(n).unwrap_or(Value::Void), None),
            },
        }
    }

    /// Store the new value of a bound object: in its cell and the variable linked to it, or
    /// in the shared registry.
    pub fn store_bound(&mut self, b: &crate::value::Bound, v: Value, held: Option<Holders>) {
        match b {
            crate::value::Bound::Cell(c) => {
                if let Some(slot) = self.linked_var(c) {
                    *slot = v.clone();
                }
                *lock(c) = v;
            }
            crate::value::Bound::Shared(n) => match held {
                Some(h) => self.put_back_table(v, h),
                None => {
                    let _ = self.replace_shared(n, v);
                }
            },
        }
    }

    /// The variable linked to a cell: a local of a function being run (innermost first) or
    /// a session variable.
    fn linked_var(&mut self, c: &Cell) -> Option<&mut Value> {
        let is = |l: &Cell| Arc::ptr_eq(l, c);
        let mut at: Option<(Option<usize>, String)> = None;
        for (k, f) in self.frames.iter().enumerate().rev() {
            if let Some((n, _)) = f.links.iter().find(|(_, l)| is(l)) {
                at = Some((Some(k), n.clone()));
                break;
            }
        }
        if at.is_none() {
            at = self.links.iter().find(|(_, l)| is(l)).map(|(n, _)| (None, n.clone()));
        }
        match at? {
            (Some(k), n) => self.frames[k].vars.get_mut(&n),
            (None, n) => self.globals.get_mut(&n),
        }
    }

    /// Assign a variable in the current scope.
    pub fn set_var(&mut self, name: &str, v: Value) -> Result<()> {
        if let Some(f) = self.frames.last_mut() {
            if f.readonly.contains(name) {
                return Err(Error::new(
                    ErrorKind::Syntax,
                    format!("Constant variable [{name}] can't be modified."),
                ));
            }
            if let Some(c) = f.links.get(name) {
                *lock(c) = v.clone();
            }
            f.vars.insert(name.to_string(), v);
            return Ok(());
        }
        if self.consts.contains(name) {
            return Err(Error::runtime(format!("Constant variable [{name}] can't be modified.")));
        }
        let name = &self.canon(name).to_string();
        // a shared table assigned by name is updated in place
        let v = if self.globals.contains_key(name) { v } else {
            match self.replace_shared(name, v) {
                Ok(()) => return Ok(()),
                Err(v) => v,
            }
        };
        if let Some(c) = self.links.get(name) {
            *lock(c) = v.clone();
        }
        self.globals.insert(name.to_string(), v);
        Ok(())
    }

    /// Replace the shared object registered as `name`; hands `v` back when no such name
    /// is shared.
    fn replace_shared(&self, name: &str, v: Value) -> std::result::Result<(), Value> {
        let Ok(mut m) = self.shared.lock() else { return Err(v) };
        if m.contains_key(name) || m.remove(&busy_marker(name)).is_some() {
            m.insert(name.to_string(), v);
            Ok(())
        } else {
            Err(v)
        }
    }

    /// Write back a variable that a statement modified in place (`append!`, `insert into`,
    /// `tableInsert`…). Inside a function, a name that is not local but names a shared
    /// table updates the shared table, as DolphinDB scripts expect of `share t as st;
    /// def f(x) { insert into st values(...) }`; everything else is `set_var`.
    pub fn set_var_mutated(&mut self, name: &str, v: Value) -> Result<()> {
        // `t` after `share t as st`: the update goes to the shared table
        if let Some(target) = self.aliases.get(name).filter(|t| !self.globals.contains_key(*t)).cloned() {
            if self.frames.last().is_none_or(|f| !f.vars.contains_key(name)) {
                if let Err(v) = self.replace_shared(&target, v) {
                    return self.set_var(name, v);
                }
                return Ok(());
            }
        }
        match self.frames.last() {
            Some(f) if !f.vars.contains_key(name) => match self.replace_shared(name, v) {
                Ok(()) => Ok(()),
                Err(v) => self.set_var(name, v),
            },
            _ => self.set_var(name, v),
        }
    }

    /// Remove a variable from the current scope, returning it (for in-place mutation without copies).
    pub fn take_var(&mut self, name: &str) -> Option<Value> {
        if let Some(f) = self.frames.last_mut() {
            if let Some(v) = f.vars.remove(name) {
                // a bound object leaves its cell too, so the update holds the only reference
                // (it is written back to both by `set_var`)
                if let Some(c) = f.links.get(name) {
                    *lock(c) = Value::Void;
                }
                return Some(v);
            }
            if !self.globals.contains_key(self.canon(name)) {
                // not local: a shared table is still reachable by name (and is written
                // back to the shared registry by `set_var_mutated`)
                return self.get_shared(self.canon(name));
            }
        }
        let name = &self.canon(name).to_string();
        if let Some(v) = self.globals.remove(name) {
            if let Some(c) = self.links.get(name) {
                *lock(c) = Value::Void;
            }
            return Some(v);
        }
        self.shared.lock().ok().and_then(|mut m| m.remove(name).map(|v| {
            // shared objects stay registered; put a clone back
            m.insert(name.to_string(), v.clone());
            v
        }))
    }

    /// Whether a name is a function visible to the parser (for prefix/infix call syntax).
    pub fn is_function_name(&self, name: &str) -> bool {
        if self.get_var(name).is_some() {
            return false;
        }
        self.functions.contains_key(name) || self.registry.lookup(name).is_some()
    }

    /// Resolve a bare name to a value: variable, user function, builtin, or named constant.
    pub fn resolve(&self, name: &str) -> Result<Value> {
        if let Some(v) = self.get_var(name) {
            return Ok(v.clone());
        }
        if let Some(v) = self.get_shared(name) {
            return Ok(v);
        }
        self.resolve_function(name).or_else(|e| self.column_ignoring_case(name).ok_or(e))
    }

    /// Column names are case-insensitive, as in SQL (`<Volume>` in a stream engine's metrics
    /// over a column `volume`): the last resort of a name that is no variable or function.
    fn column_ignoring_case(&self, name: &str) -> Option<Value> {
        self.col_scopes
            .iter()
            .rev()
            .find_map(|s| s.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone()))
    }

    pub fn resolve_function(&self, name: &str) -> Result<Value> {
        if let Some(f) = self.functions.get(name) {
            return Ok(f.clone());
        }
        if let Some(m) = self.frames.last().and_then(|f| f.module.clone()) {
            if let Some(f) = self.functions.get(&format!("{m}::{name}")) {
                return Ok(f.clone());
            }
        }
        if let Some(id) = self.registry.lookup(name) {
            return Ok(Value::Function(Func::Builtin(id)));
        }
        if let Some(c) = named_constant(name) {
            return Ok(c);
        }
        Err(Error::name(format!("Cannot recognize the token {name}")))
    }

    /// Add a "did you mean" to an unknown-name error: the nearest column when a query is
    /// being evaluated, else the nearest variable, function or builtin. Only called when
    /// an identifier finally fails to resolve (never in lookups that probe names).
    pub fn explain_unknown(&self, e: Error, name: &str) -> Error {
        if e.kind != ErrorKind::Name || !e.message.starts_with("Cannot recognize the token") {
            return e;
        }
        if !self.col_scopes.is_empty() {
            // the query binds only the columns it uses: offer every session table's columns too
            let mut cols: Vec<&str> = self.col_scopes.iter().flat_map(|s| s.keys().map(|k| k.as_str())).collect();
            for v in self.globals.values() {
                if let Value::Table(t) = v {
                    cols.extend(t.names.iter().map(|n| n.as_str()));
                }
            }
            if let Some(c) = crate::suggest::closest(name, cols) {
                // name the table: the session table holding the suggested column that has
                // the most of the columns the query bound (ties: the first name)
                let bound: Vec<&str> = self.col_scopes.iter().flat_map(|s| s.keys().map(|k| k.as_str())).collect();
                let mut best: Option<(usize, &str)> = None;
                for (tn, v) in &self.globals {
                    if let Value::Table(t) = v {
                        if t.names.iter().any(|n| n == c) {
                            let hits = bound.iter().filter(|b| t.names.iter().any(|n| n == *b)).count();
                            if best.is_none_or(|(bh, bn)| hits > bh || (hits == bh && tn.as_str() < bn)) {
                                best = Some((hits, tn.as_str()));
                            }
                        }
                    }
                }
                let within = best.map(|(_, t)| format!(" in {t}")).unwrap_or_default();
                return Error { message: format!("column `{name}` not found{within}; did you mean `{c}`?"), ..e };
            }
        }
        let mut names: Vec<&str> = Vec::new();
        if let Some(f) = self.frames.last() {
            names.extend(f.vars.keys().map(|k| k.as_str()));
        }
        names.extend(self.globals.keys().map(|k| k.as_str()));
        names.extend(self.functions.keys().map(|k| k.as_str()));
        for n in self.registry.names() {
            names.push(n);
        }
        match crate::suggest::closest(name, names) {
            Some(c) => Error { message: format!("{}; did you mean `{c}`?", e.message), ..e },
            None => e,
        }
    }

    pub fn define_function(&mut self, name: &str, f: Arc<UserFunc>) -> Result<()> {
        if self.registry.lookup(name).is_some() && f.module.is_none() {
            return Err(Error::runtime(format!("Can't redefine the built-in function {name}")));
        }
        // the newest definition wins: a session variable of that name holding a function
        // (an earlier `f = def(...)`) no longer hides the function defined now
        if f.module.is_none() && matches!(self.globals.get(name), Some(Value::Function(_))) {
            self.globals.remove(name);
        }
        let v = Value::Function(Func::User(f.clone()));
        if let Some(m) = &f.module {
            self.functions.insert(format!("{m}::{name}"), v.clone());
        }
        self.functions.insert(name.to_string(), v);
        Ok(())
    }

    // ------------------------------------------------------------ running scripts

    /// Parse a segment with the session's knowledge of function names.
    pub fn parse(&self, src: &str) -> Result<Vec<Stmt>> {
        let is_fn = |n: &str| self.is_function_name(n);
        let stmts = beluga_lang::parse_script(src, &is_fn).map_err(|e| Error::syntax(e.message, e.span))?;
        validate::check(&stmts)?;
        Ok(stmts)
    }

    /// A syntax error in a file that is run or included, told by place only: the offending
    /// text is not quoted, so that pointing `run` or `#include` at a file that is not a
    /// script (a password file, a key) never shows its contents.
    pub fn file_syntax_error(file: &Path, text: &str, e: Error) -> Error {
        let (Some(span), ErrorKind::Syntax) = (e.span, e.kind) else { return e };
        let at = (span.start as usize).min(text.len());
        let before = text.get(..at).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
        Error::new(ErrorKind::Syntax, format!("Syntax error in {} at line {line}, column {col}", file.display()))
    }

    /// Run a script: each `go`-separated segment is parsed then executed. Expression
    /// statements are echoed through `echo` when given (REPL and stdin modes).
    pub fn run_source(&mut self, src: &str, echo: Option<&mut dyn FnMut(&mut Interpreter, Value)>) -> Result<()> {
        let src = self.preprocess(src)?;
        let mut echo = echo;
        for (offset, seg) in split_segments(&src) {
            let stmts = self.parse(seg).map_err(|e| shift_span(e, offset))?;
            for s in &stmts {
                if let Err(e) = self.check_interrupt() {
                    self.interrupt.store(false, Ordering::Relaxed);
                    return Err(e);
                }
                match self.exec_top(s).map_err(|e| shift_span(e, offset))? {
                    Some(v) => {
                        if let Some(cb) = echo.as_mut() {
                            cb(self, v)
                        }
                    }
                    None => {}
                }
            }
        }
        Ok(())
    }

    /// Run REPL-style text and return everything it printed: echoed values, `print`
    /// output and errors (as `Error: message`), statement by statement, going on after errors.
    pub fn run_repl_text(&mut self, src: &str) -> String {
        let saved = std::mem::replace(&mut self.output, Output::Buffer(String::new()));
        let src = match self.preprocess(src) {
            Ok(s) => s,
            Err(e) => {
                self.output = saved;
                return format!("{}\n", e.message);
            }
        };
        for (offset, seg) in split_segments(&src) {
            match self.parse(seg) {
                Err(_) => {
                    // parse statement by statement so one bad line does not hide the rest
                    for (lo, line) in split_statements(seg) {
                        let _ = lo + offset;
                        self.repl_one(line);
                    }
                }
                Ok(stmts) => {
                    for s in &stmts {
                        self.repl_stmt(s);
                    }
                }
            }
        }
        let out = self.take_output();
        self.output = saved;
        out
    }

    fn repl_one(&mut self, src: &str) {
        match self.parse(src) {
            Err(e) => self.emit(&format!("Syntax Error: {}", e.message)),
            Ok(stmts) => {
                for s in &stmts {
                    self.repl_stmt(s);
                }
            }
        }
    }

    fn repl_stmt(&mut self, s: &Stmt) {
        match self.exec_top(s) {
            Ok(Some(v)) => {
                let text = self.format(&v);
                self.emit(&text);
            }
            Ok(None) => {}
            // DolphinDB's console shows the bare message
            Err(e) => self.emit(&e.message),
        }
    }

    /// Expand `#include "file"` lines (relative to the current file).
    pub fn preprocess(&self, src: &str) -> Result<String> {
        if !src.contains("#include") {
            return Ok(src.to_string());
        }
        let mut out = String::with_capacity(src.len());
        for line in src.split_inclusive('\n') {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("#include") {
                let path = rest.trim().trim_matches(|c| c == '"' || c == '\'' || c == ';');
                let base = self.current_file.as_ref().and_then(|f| f.parent().map(|p| p.to_path_buf()));
                let full = self.policy.script_path(base.as_deref(), path)?;
                let text = std::fs::read_to_string(&full).map_err(|e| {
                    Error::new(ErrorKind::Io, format!("Can't include {}: {e}", full.display()))
                })?;
                // checked on its own first, so that an error names the included file
                for (off, seg) in split_segments(&text) {
                    self.parse(seg).map_err(|mut e| {
                        e.span = e.span.map(|s| beluga_lang::span::Span { start: s.start + off as u32, end: s.end + off as u32 });
                        Self::file_syntax_error(&full, &text, e)
                    })?;
                }
                // keep byte offsets of the rest of the file stable: the include lands on one line
                out.push_str(&text.replace('\n', ";"));
                out.push('\n');
            } else {
                out.push_str(line);
            }
        }
        Ok(out)
    }

    /// Execute a top-level statement; returns the value of an expression statement.
    pub fn exec_top(&mut self, s: &Stmt) -> Result<Option<Value>> {
        self.depth = 0;
        self.frames.clear();
        self.col_scopes.clear();
        // kernels without an interpreter at hand check this session's flag through the guard
        crate::guard::install_interrupt(self.interrupt.clone());
        crate::guard::install_budget(self.budget.clone());
        // statement boundaries are observation points of time-driven work (throttled
        // stream batches): what fell due while the previous statement ran, or between two
        // REPL inputs, runs before this statement can look at its effects, and what fell
        // due during this statement runs before the script ends
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            CallCtx::of(self).run_due_timers().map_err(|e| e.or_span(s.span))?;
            let v = self.exec_stmt_value(s)?;
            CallCtx::of(self).run_due_timers().map_err(|e| e.or_span(s.span))?;
            Ok::<_, Error>(v)
        }));
        match r {
            Ok(Err(e)) if e.kind == ErrorKind::Interrupted => {
                // reported once: the next statement starts uninterrupted
                self.interrupt.store(false, Ordering::Relaxed);
                Err(e)
            }
            Ok(r) => r,
            Err(p) if crate::guard::is_unwind(&*p) => {
                // a kernel noticed the interrupt where it could not return an error
                self.frames.clear();
                self.interrupt.store(false, Ordering::Relaxed);
                Err(crate::guard::interrupted().or_span(s.span))
            }
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                self.frames.clear();
                Err(Error::new(ErrorKind::Internal, format!("internal error (a bug in Beluga): {msg}")).or_span(s.span))
            }
        }
    }

    /// Random u64 (xorshift64*).
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545F4914F6CDD1D)
    }
}

fn shift_span(mut e: Error, offset: usize) -> Error {
    if let Some(s) = e.span.as_mut() {
        s.start += offset as u32;
        s.end += offset as u32;
    }
    e
}

/// Split a script at lines that are exactly `go` (LANGUAGE.md §5.16). Returns (byte offset, text).
pub fn split_segments(src: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in src.split_inclusive('\n') {
        let t = line.trim().trim_end_matches(';').trim();
        if t == "go" {
            out.push((start, &src[start..pos]));
            start = pos + line.len();
        }
        pos += line.len();
    }
    out.push((start, &src[start..]));
    out
}

/// Rough split of a segment into lines that parse on their own (REPL and `--keep-going`
/// error recovery): lines are joined while brackets are open; with their byte offsets.
pub fn split_statements(src: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut depth: i32 = 0;
    let mut start = 0;
    let mut pos = 0;
    for line in src.split_inclusive('\n') {
        for c in line.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
        pos += line.len();
        if depth <= 0 {
            if !src[start..pos].trim().is_empty() {
                out.push((start, &src[start..pos]));
            }
            start = pos;
            depth = 0;
        }
    }
    if start < src.len() && !src[start..].trim().is_empty() {
        out.push((start, &src[start..]));
    }
    out
}

/// Reserved constants (§1.4): type names, forms, partition types and a few others.
pub fn named_constant(name: &str) -> Option<Value> {
    if let Some(t) = DataType::from_name(name) {
        if name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()) {
            return Some(Value::Type(t));
        }
    }
    let c = |n: &'static str, v: i32| Some(Value::Constant(n, v));
    match name {
        "NULL" | "null" => Some(Value::Void),
        "pi" => Some(Value::double(std::f64::consts::PI)),
        "e" => Some(Value::double(std::f64::consts::E)),
        "SCALAR" => c("SCALAR", 0),
        "VECTOR" => c("VECTOR", 1),
        "PAIR" => c("PAIR", 2),
        "MATRIX" => c("MATRIX", 3),
        "SET" => c("SET", 4),
        "DICT" => c("DICT", 5),
        "TABLE" => c("TABLE", 6),
        "SEQ" => c("SEQ", 0),
        "RANGE" => c("RANGE", 2),
        "HASH" => c("HASH", 5),
        "VALUE" => c("VALUE", 1),
        "LIST" => c("LIST", 3),
        "COMPO" => c("COMPO", 4),
        "VAR" => c("VAR", 0),
        "SHARED" => c("SHARED", 1),
        "DEF" => c("DEF", 2),
        "DFLT" => c("DFLT", 0),
        // keepDuplicates=ALL|FIRST|LAST (createPartitionedTable, create table)
        "ALL" => c("ALL", 3),
        "FIRST" => c("FIRST", 0),
        "LAST" => c("LAST", 1),
        "NONE" => c("NONE", 2),
        "HEAD" => c("HEAD", 0),
        "CURRENT" => c("CURRENT", 1),
        "TAIL" => c("TAIL", 2),
        "LINE" => c("LINE", 0),
        "PIE" => c("PIE", 1),
        "COLUMN" => c("COLUMN", 2),
        "BAR" => c("BAR", 3),
        "AREA" => c("AREA", 4),
        "SCATTER" => c("SCATTER", 5),
        "HISTOGRAM" => c("HISTOGRAM", 6),
        // sql(..., groupFlag=GROUPBY|CONTEXTBY|PIVOTBY) (funcs/s/sql.md: 1, 0, 2)
        "CONTEXTBY" => c("CONTEXTBY", 0),
        "GROUPBY" => c("GROUPBY", 1),
        "PIVOTBY" => c("PIVOTBY", 2),
        _ => None,
    }
}

/// Where a table taken by `Interpreter::take_table_for_update` came from: a session
/// variable or a shared table name.
#[derive(Debug, Default)]
pub struct Holders {
    global: Option<String>,
    shared: Option<String>,
}

/// Key that stands in the shared registry for a shared object taken out for an in-place
/// update (no identifier can contain a NUL).
pub fn busy_marker(name: &str) -> String {
    format!("\0busy\0{name}")
}
