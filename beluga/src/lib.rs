//! Beluga as a library: a [`Session`] runs DolphinDB scripts inside a Rust program.
//!
//! Why: programs that want Beluga's vectorized language without a server or a child
//! process get one small, `Send` type that owns an interpreter with the whole standard
//! library and the on-disk storage builtins, plus conversions between [`Value`] and
//! plain Rust vectors. Many sessions may run at once on different threads; each has its
//! own variables, functions, random generator and print sink.
//!
//! ```
//! use beluga::{FromValue, Session, Value};
//!
//! let mut s = Session::new();
//! // run a script; its last expression is the result
//! let v = s.run("x = 1..5\nsum(x * x)").unwrap();
//! assert_eq!(i64::from_value(&v).unwrap(), 55);
//!
//! // move plain Rust vectors in and out
//! s.set("prices", vec![10.5f64, 11.0, 9.5]).unwrap();
//! let avg: f64 = s.eval("avg(prices)").unwrap();
//! assert!((avg - 10.333333333333334).abs() < 1e-12);
//! let names: Vec<String> = s.eval("`a`b`c + \"_x\"").unwrap();
//! assert_eq!(names, ["a_x", "b_x", "c_x"]);
//!
//! // call a builtin or a script function by name
//! s.run("def scale(v, k) { return v * k }").unwrap();
//! let r = s.call("scale", vec![Value::int_vec(vec![1, 2, 3]), Value::int(10)]).unwrap();
//! assert_eq!(Vec::<i64>::from_value(&r).unwrap(), [10, 20, 30]);
//!
//! // a Rust closure as a builtin
//! s.register("triple", |args: &[Value]| {
//!     let v = Vec::<f64>::from_value(&args[0])?;
//!     Ok(beluga::to_value(v.iter().map(|x| x * 3.0).collect::<Vec<f64>>()))
//! });
//! let t: Vec<f64> = s.eval("triple(1.0 2.0)").unwrap();
//! assert_eq!(t, [3.0, 6.0]);
//!
//! // print output goes to a sink of your choice
//! let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
//! let l2 = lines.clone();
//! s.on_print(move |line| l2.lock().unwrap().push(line.to_string()));
//! s.run("print(\"hello\")").unwrap();
//! assert_eq!(*lines.lock().unwrap(), ["hello"]);
//!
//! // errors are values, never panics
//! assert!(s.run("undefinedFunction(1)").is_err());
//! ```

mod convert;

pub use beluga_runtime::{ColData, Column, DataType, Error, ErrorKind, Interpreter, Registry, Table, Value};
pub use convert::{to_value, FromValue, ToValue};

use beluga_runtime::eval::{Output, Shared};
use beluga_runtime::registry::fp;
use beluga_runtime::{Func, Kind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A Rust function callable from scripts: receives the evaluated arguments.
pub type RustFn = Arc<dyn Fn(&[Value]) -> Result<Value> + Send + Sync>;

/// Name of the hidden builtin through which registered Rust closures are called.
const TRAMPOLINE: &str = "__beluga_rust_call";
/// Key of the per-session closure table in `Interpreter::ext`.
const EXT_KEY: &str = "beluga.rust_fns";

type RustFns = ahash::AHashMap<String, RustFn>;

/// The registry every session uses by default: the standard library, the storage
/// builtins and the closure trampoline. Built once and shared (it is immutable).
pub fn default_registry() -> Arc<Registry> {
    static REG: OnceLock<Arc<Registry>> = OnceLock::new();
    REG.get_or_init(|| {
        let mut r = Registry::new();
        beluga_stdlib::register(&mut r);
        beluga_storage::register(&mut r);
        add_trampoline(&mut r);
        Arc::new(r)
    })
    .clone()
}

/// Add the hidden builtin through which [`Session::register`]ed closures run. Call it on a
/// custom registry passed to [`Session::with_registry`].
pub fn add_trampoline(r: &mut Registry) {
    r.extend(&[fp(TRAMPOLINE, Kind::System, 1, u8::MAX, trampoline, &[])]);
}

fn trampoline(i: &mut beluga_runtime::CallCtx, args: Vec<Value>) -> Result<Value> {
    let name = match args.first() {
        Some(Value::Scalar(c)) if matches!(&*c.data, ColData::Str(_)) => match &*c.data {
            ColData::Str(s) => s.get(0).to_string(),
            _ => unreachable!(),
        },
        _ => return Err(Error::arg("internal: a registered Rust function lost its name")),
    };
    let f = i
        .ext_ref()
        .get(EXT_KEY)
        .and_then(|b| b.downcast_ref::<RustFns>())
        .and_then(|m| m.get(&name).cloned())
        .ok_or_else(|| Error::name(format!("The Rust function {name} is not registered in this session")))?;
    f(&args[1..])
}

/// Stops the statement a session is running (from another thread). The session's
/// `run` then returns an `Interrupted` error and the session stays usable.
#[derive(Clone)]
pub struct InterruptHandle(Arc<AtomicBool>);

impl InterruptHandle {
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// One interpreter session: its own variables, functions and output.
pub struct Session {
    interp: Interpreter,
}

const _: () = {
    const fn assert_send<T: Send>() {}
    assert_send::<Session>();
};

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A session with the standard library and storage builtins; `print` goes to stdout.
    pub fn new() -> Session {
        Session::with_registry(default_registry())
    }

    /// A session over a custom registry (call [`add_trampoline`] on it to use `register`).
    pub fn with_registry(reg: Arc<Registry>) -> Session {
        Session { interp: Interpreter::with_registry(reg) }
    }

    /// Run a script; the value of its last expression statement, or `Value::Void`.
    pub fn run(&mut self, script: &str) -> Result<Value> {
        let mut last = Value::Void;
        let mut keep = |_: &mut Interpreter, v: Value| last = v;
        // an interrupt raised before this run started is stale
        self.interp.interrupt.store(false, Ordering::Relaxed);
        self.interp.run_source(script, Some(&mut keep))?;
        Ok(last)
    }

    /// Run a script and convert its result.
    pub fn eval<T: FromValue>(&mut self, script: &str) -> Result<T> {
        let v = self.run(script)?;
        T::from_value(&v)
    }

    /// A session variable (or a shared object), if defined.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.interp.globals.get(name).cloned().or_else(|| self.interp.get_shared(name))
    }

    /// Set a session variable from a `Value` or a plain Rust value (`Vec<i64>`, `&str`, ...).
    pub fn set(&mut self, name: &str, v: impl ToValue) -> Result<()> {
        if !valid_name(name) {
            return Err(Error::arg(format!("'{name}' is not a valid variable name")));
        }
        self.interp.set_var(name, v.to_value())
    }

    /// Remove a session variable; true when it existed.
    pub fn unset(&mut self, name: &str) -> bool {
        self.interp.globals.remove(name).is_some()
    }

    /// Call a function (builtin, script-defined, or registered Rust closure) by name.
    pub fn call(&mut self, name: &str, args: Vec<Value>) -> Result<Value> {
        let f = self.interp.resolve_function(name)?;
        self.interp.call_value(&f, args)
    }

    /// Make a Rust closure callable from scripts as `name(args...)`.
    pub fn register<F>(&mut self, name: &str, f: F)
    where
        F: Fn(&[Value]) -> Result<Value> + Send + Sync + 'static,
    {
        let entry = self
            .interp
            .ext
            .entry(EXT_KEY)
            .or_insert_with(|| Box::new(RustFns::new()));
        if let Some(m) = entry.downcast_mut::<RustFns>() {
            m.insert(name.to_string(), Arc::new(f));
        }
        if let Some(id) = self.interp.registry.lookup(TRAMPOLINE) {
            // `name` is the trampoline with its first argument fixed to the name: the
            // other arguments are appended when it is called
            let partial = Func::partial(Func::Builtin(id), vec![Some(Value::string(name))], vec![]);
            self.interp.functions.insert(name.to_string(), Value::Function(partial));
        }
    }

    /// Send each printed line to `sink` as it is produced.
    pub fn on_print<F: FnMut(&str) + Send + 'static>(&mut self, sink: F) {
        self.interp.output = Output::Sink(Box::new(sink));
    }

    /// Keep printed lines in memory; read them with [`Session::take_output`].
    pub fn capture_output(&mut self) {
        self.interp.output = Output::Buffer(String::new());
    }

    /// The text printed since the last call (after [`Session::capture_output`]).
    pub fn take_output(&mut self) -> String {
        self.interp.take_output()
    }

    /// A handle that interrupts this session's running statement from another thread.
    pub fn interrupt_handle(&self) -> InterruptHandle {
        InterruptHandle(self.interp.interrupt.clone())
    }

    /// Objects published with `share` are visible to every session holding the same map.
    pub fn shared(&self) -> Shared {
        self.interp.shared.clone()
    }

    /// Join another session's shared-object map (see [`Session::shared`]).
    pub fn use_shared(&mut self, shared: Shared) {
        self.interp.shared = shared;
    }

    /// Drop every session variable and script-defined function (not shared objects).
    pub fn clear(&mut self) {
        self.interp.globals.clear();
        self.interp.links.clear();
        self.interp.aliases.clear();
        self.interp.consts.clear();
        let keep: Vec<(String, Value)> = self
            .interp
            .functions
            .iter()
            .filter(|(_, v)| is_rust_fn(v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.interp.functions = keep.into_iter().collect();
    }

    /// The interpreter underneath, for what this facade does not cover.
    pub fn interpreter(&mut self) -> &mut Interpreter {
        &mut self.interp
    }
}

fn is_rust_fn(v: &Value) -> bool {
    matches!(v, Value::Function(Func::Partial(inner, ..)) if matches!(**inner, Func::Builtin(_)))
}

fn valid_name(name: &str) -> bool {
    let mut ch = name.chars();
    matches!(ch.next(), Some(c) if c.is_alphabetic() || c == '_') && ch.all(|c| c.is_alphanumeric() || c == '_')
}
