//! The builtin registry: one row per function, resolved to ids once.

use crate::error::Result;
use crate::eval::Interpreter;
pub use crate::policy::Cap;
use crate::value::Value;
use ahash::AHashMap;

/// How the SQL executor treats a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// element-wise (scalar function mapped over vectors)
    Elementwise,
    /// reduces a vector to one value per group
    Aggregate,
    /// vector in, same-length vector out, order-sensitive (m*, cum*, deltas, rank…)
    VectorToVector,
    /// everything else (constructors, I/O, system)
    System,
}

/// Builtins receive the interpreter (for callbacks and session state) and owned arguments.
pub type BuiltinFn = fn(&mut Interpreter, Vec<Value>) -> Result<Value>;

#[derive(Clone, Copy)]
pub struct Builtin {
    /// exact DolphinDB spelling
    pub name: &'static str,
    pub kind: Kind,
    /// minimum and maximum argument counts (u8::MAX = variadic)
    pub min: u8,
    pub max: u8,
    pub call: BuiltinFn,
    /// parameter names, for keyword arguments (may be empty)
    pub params: &'static [&'static str],
    /// what the function does beyond computing (files, scripts, environment); checked
    /// against the session's policy before a call (`policy::Policy::admit`)
    pub cap: Cap,
    /// bit k set: argument k is a path (resolved by a confined session's policy)
    pub path_args: u8,
}

/// Builds a table row: `f("sum", Aggregate, 1, 1, agg::sum)`.
pub const fn f(name: &'static str, kind: Kind, min: u8, max: u8, call: BuiltinFn) -> Builtin {
    Builtin { name, kind, min, max, call, params: &[], cap: Cap::PURE, path_args: 0 }
}

/// A row with parameter names for keyword arguments.
pub const fn fp(
    name: &'static str,
    kind: Kind,
    min: u8,
    max: u8,
    call: BuiltinFn,
    params: &'static [&'static str],
) -> Builtin {
    Builtin { name, kind, min, max, call, params, cap: Cap::PURE, path_args: 0 }
}

#[derive(Default, Clone)]
pub struct Registry {
    pub defs: Vec<Builtin>,
    pub by_name: AHashMap<&'static str, u32>,
    /// names registered twice through `extend` (the later row won): a test asserts there
    /// are none, so that no builtin is silently shadowed by another
    pub duplicates: Vec<&'static str>,
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }
    /// Add a table of builtins. A name that is already registered is recorded in
    /// `duplicates` (the later row replaces the earlier one); use `replace` to override on
    /// purpose.
    pub fn extend(&mut self, rows: &[Builtin]) {
        for b in rows {
            if self.by_name.contains_key(b.name) {
                self.duplicates.push(b.name);
            }
            self.put(*b);
        }
    }
    /// Override registered builtins on purpose (a later crate wrapping an earlier row).
    pub fn replace(&mut self, rows: &[Builtin]) {
        rows.iter().for_each(|b| self.put(*b));
    }
    fn put(&mut self, b: Builtin) {
        match self.by_name.get(b.name) {
            Some(&id) => self.defs[id as usize] = b,
            None => {
                self.by_name.insert(b.name, self.defs.len() as u32);
                self.defs.push(b);
            }
        }
    }
    /// Register `alias` as another name for an existing builtin.
    pub fn alias(&mut self, alias: &'static str, target: &str) {
        if let Some(&id) = self.by_name.get(target) {
            let mut b = self.defs[id as usize];
            b.name = alias;
            self.replace(&[b]);
        }
    }
    /// Mark builtins that touch files, run scripts or read the environment: (name,
    /// capability, positions of path arguments). A name that is not registered is an
    /// error, so the table cannot silently go stale.
    pub fn set_caps(&mut self, rows: &[(&str, Cap, &[u8])]) {
        for (name, cap, paths) in rows {
            let id = self.by_name.get(name).copied().unwrap_or_else(|| panic!("set_caps: {name} is not a registered builtin"));
            let b = &mut self.defs[id as usize];
            b.cap = *cap;
            b.path_args = paths.iter().fold(0u8, |m, k| m | (1 << k));
        }
    }
    pub fn lookup(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }
    pub fn get(&self, id: u32) -> &Builtin {
        &self.defs[id as usize]
    }
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.defs.iter().map(|b| b.name)
    }
}
