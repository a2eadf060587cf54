//! The builtin registry: one row per function, resolved to ids once. A row carries
//! everything about its function: name, kind, arity, parameter names, one-line doc and
//! example, the call, the policy capability, and optional capability slots (`Caps`) that
//! say what the SQL planner may do with it beyond calling it (a grouped kernel for
//! `group by`, a partial/merge split for map-reduce over partitions, a segmented kernel
//! for `context by`). The planner reads the slots of the row it resolved; no name lists.

use crate::callctx::CallCtx;
use crate::column::Column;
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

/// A plain builtin receives the narrow session context (`callctx::CallCtx`: callbacks,
/// print sink, interrupt, random generator, variables, shared tables) and owned arguments.
pub type BuiltinFn = fn(&mut CallCtx, Vec<Value>) -> Result<Value>;

/// A session builtin receives the whole interpreter: only the few that work on the
/// evaluator itself (metacode eval, `run`, `undef`, `defs`, the test runner...). Every
/// one is named in `SESSION_ROWS`.
pub type SessionFn = fn(&mut Interpreter, Vec<Value>) -> Result<Value>;

/// The call of a builtin row.
#[derive(Clone, Copy)]
pub enum Call {
    Plain(BuiltinFn),
    Session(SessionFn),
}

/// Every builtin that receives the whole interpreter (`Call::Session`), by name. A test
/// (`session_rows_are_named`) fails when a row outside this list is a session row, so
/// the list only grows on purpose.
pub const SESSION_ROWS: &[&str] = &[
    // the language's own machinery: metacode eval, definitions, scripts, tests
    "eval", "defs", "defined", "undef", "run", "runScript", "help", "assert",
    // the server's session switches (user, background job copying the session)
    "login", "logout", "submitJob",
];

/// A group-wise aggregate kernel, the one of its row's function: `(values, group id per
/// row, number of groups)` → one value per group, or `None` when the kernel does not take
/// this input (the planner then evaluates the call on per-group slices).
pub type GroupedKernel = fn(&Column, &[u32], usize) -> Option<Result<Column>>;

/// A group-wise kernel of a two-column aggregate (`wavg`, `wsum`, `corr`, `covar`…).
pub type GroupedKernel2 = fn(&Column, &Column, &[u32], usize) -> Option<Result<Column>>;

/// A segmented vector kernel, the one of its row's function: `(values, other arguments,
/// segment offsets)` → the function applied to every segment independently, or `None`
/// when unsupported. The planner checks the argument count against the row first.
pub type SegmentedKernel = fn(&Column, &[Value], &[usize]) -> Option<Result<Column>>;

/// What a SQL window kernel sees (`f(args) over (partition by … order by … [frame])`): the
/// rows sorted into contiguous partitions by the clause (`sql/window.rs`). Kernels work on
/// the sorted rows; the clause puts the result back in table order.
pub struct OverInput<'a> {
    /// the function's name as written (for messages)
    pub name: &'a str,
    /// the evaluated arguments, in table order
    pub args: &'a [Value],
    /// number of rows
    pub n: usize,
    /// sorted position → table row
    pub perm: &'a [usize],
    /// partition k spans [seg[k], seg[k+1]) of the sorted rows
    pub seg: &'a [usize],
    /// sorted row → partition index
    pub part_of: &'a [usize],
    /// start / end (exclusive) of each sorted row's peer run (equal order keys)
    pub peer_lo: &'a [usize],
    pub peer_hi: &'a [usize],
}

/// A ranking or offset window function (row_number, rank, ntile, lag…): computed from the
/// partitions and peers alone; it takes no window frame.
pub type RankingKernel = fn(&OverInput) -> Result<Column>;

/// A window function over each row's frame `[lo[k], hi[k])` of the sorted rows.
pub type FramedKernel = fn(&OverInput, &[usize], &[usize]) -> Result<Column>;

/// The kernel of a SQL window function (`over`), held by its row.
#[derive(Clone, Copy)]
pub enum OverKernel {
    Ranking(RankingKernel),
    Framed(FramedKernel),
}

/// How an aggregate splits into a per-partition partial state and a merge (map-reduce
/// over stored partitions, `sql/mapreduce_agg.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// non-null counts per partition (the row's grouped kernel), summed
    Count,
    /// the row's grouped kernel on each partition, then again on the partials
    /// (sum, min, max, first, last…)
    Same,
    /// sum and count, divided at the end
    Avg,
    /// count, mean and sum of squared deviations, merged pairwise (Chan et al.)
    Var { pop: bool, root: bool },
    /// sum(x*w), sum(w) and count of rows where both are non-null (wavg, wsum)
    Weighted { avg: bool },
}

/// Optional capability slots of a builtin row. Empty by default; each slot holds the
/// kernel of that row's own function (decided where the row is declared, with the
/// builders `Builtin::grouped`, `grouped2`, `split`, `segmented`), so the planner calls
/// what it finds on the row and no kernel looks at the function's name.
#[derive(Clone, Copy, Default)]
pub struct Caps {
    /// one-pass group-wise kernel of a one-column aggregate (`group by`, map-reduce)
    pub grouped: Option<GroupedKernel>,
    /// one-pass group-wise kernel of a two-column aggregate
    pub grouped2: Option<GroupedKernel2>,
    /// partial/merge split for map-reduce over partitions (needs `grouped` for Count/Same)
    pub split: Option<Split>,
    /// segmented kernel of a vector function (`context by`)
    pub segmented: Option<SegmentedKernel>,
    /// kernel of the function as a SQL window function (`over`)
    pub over: Option<OverKernel>,
}

#[derive(Clone, Copy)]
pub struct Builtin {
    /// exact DolphinDB spelling
    pub name: &'static str,
    pub kind: Kind,
    /// minimum and maximum argument counts (u8::MAX = variadic)
    pub min: u8,
    pub max: u8,
    pub call: Call,
    /// parameter names, for keyword arguments (may be empty)
    pub params: &'static [&'static str],
    /// what the function does beyond computing (files, scripts, environment); checked
    /// against the session's policy before a call (`policy::Policy::admit`)
    pub cap: Cap,
    /// bit k set: argument k is a path (resolved by a confined session's policy)
    pub path_args: u8,
    /// capability slots read by the SQL planner
    pub caps: Caps,
    /// one-line doc and a runnable example (joined from stdlib's docs.tsv at registration;
    /// empty when undocumented)
    pub doc: &'static str,
    pub example: &'static str,
}

/// Builds a table row: `f("sum", Aggregate, 1, 1, agg::sum)`.
pub const fn f(name: &'static str, kind: Kind, min: u8, max: u8, call: BuiltinFn) -> Builtin {
    fp(name, kind, min, max, call, &[])
}

/// A session row (receives the whole interpreter; see `SESSION_ROWS`).
pub const fn fs(name: &'static str, kind: Kind, min: u8, max: u8, call: SessionFn) -> Builtin {
    fps(name, kind, min, max, call, &[])
}

/// A session row with parameter names.
#[rustfmt::skip]
pub const fn fps(name: &'static str, kind: Kind, min: u8, max: u8, call: SessionFn, params: &'static [&'static str]) -> Builtin {
    row(name, kind, min, max, Call::Session(call), params)
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
    row(name, kind, min, max, Call::Plain(call), params)
}

const fn row(
    name: &'static str,
    kind: Kind,
    min: u8,
    max: u8,
    call: Call,
    params: &'static [&'static str],
) -> Builtin {
    Builtin {
        name,
        kind,
        min,
        max,
        call,
        params,
        cap: Cap::PURE,
        path_args: 0,
        caps: Caps { grouped: None, grouped2: None, split: None, segmented: None, over: None },
        doc: "",
        example: "",
    }
}

impl Builtin {
    /// This row with a one-pass group-wise kernel (`group by`, map-reduce partials).
    pub const fn grouped(mut self, k: GroupedKernel) -> Builtin {
        self.caps.grouped = Some(k);
        self
    }
    /// This row with a one-pass group-wise kernel of two columns.
    pub const fn grouped2(mut self, k: GroupedKernel2) -> Builtin {
        self.caps.grouped2 = Some(k);
        self
    }
    /// This row with a partial/merge split for map-reduce over partitions.
    pub const fn split(mut self, s: Split) -> Builtin {
        self.caps.split = Some(s);
        self
    }
    /// This row with a segmented kernel (`context by`).
    pub const fn segmented(mut self, k: SegmentedKernel) -> Builtin {
        self.caps.segmented = Some(k);
        self
    }
    /// This row with a framed kernel as a SQL window function (`sum(x) over (…)`).
    pub const fn over(mut self, k: FramedKernel) -> Builtin {
        self.caps.over = Some(OverKernel::Framed(k));
        self
    }
}

#[derive(Default, Clone)]
pub struct Registry {
    pub defs: Vec<Builtin>,
    pub by_name: AHashMap<&'static str, u32>,
    /// names registered twice through `extend` (the later row won): a test asserts there
    /// are none, so that no builtin is silently shadowed by another
    pub duplicates: Vec<&'static str>,
    /// the calls that `wrap` replaced, by (layer, name): a wrapper (storage's `append!`
    /// for stored tables, streaming's `size` for stream tables) hands other values to the
    /// row its own layer replaced (`CallCtx::call_wrapped`), so layers that wrap the same
    /// name chain instead of skipping one another
    pub wrapped: AHashMap<(&'static str, &'static str), Call>,
    /// where rows find their one-line doc and example by name (stdlib's docs.tsv, set by
    /// `set_doc_source`): rows registered later (storage, server) are joined as they come
    pub doc_source: Option<DocSource>,
}

/// A builtin's one-line doc and example by name (None: undocumented).
pub type DocSource = fn(&str) -> Option<(&'static str, &'static str)>;

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
    fn put(&mut self, mut b: Builtin) {
        if let (true, Some(source)) = (b.doc.is_empty(), self.doc_source) {
            if let Some((doc, example)) = source(b.name) {
                (b.doc, b.example) = (doc, example);
            }
        }
        match self.by_name.get(b.name) {
            Some(&id) => self.defs[id as usize] = b,
            None => {
                self.by_name.insert(b.name, self.defs.len() as u32);
                self.defs.push(b);
            }
        }
    }
    /// Replace the call of a registered row with `b`'s, keeping the row's kind, arity,
    /// parameter names and capability; the replaced call stays reachable through
    /// `wrapped` under (`layer`, name). An unregistered name is added as a new row.
    pub fn wrap(&mut self, layer: &'static str, b: &Builtin) {
        match self.by_name.get(b.name) {
            Some(&id) => {
                let row = &mut self.defs[id as usize];
                self.wrapped.entry((layer, b.name)).or_insert(row.call);
                row.call = b.call;
            }
            None => self.extend(std::slice::from_ref(b)),
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
    /// Join every row, now and registered later, with its doc and example from `source`.
    pub fn set_doc_source(&mut self, source: DocSource) {
        self.doc_source = Some(source);
        for b in self.defs.iter_mut().filter(|b| b.doc.is_empty()) {
            if let Some((doc, example)) = source(b.name) {
                (b.doc, b.example) = (doc, example);
            }
        }
    }
    /// Attach a one-line doc and an example to a registered row (false when unregistered).
    pub fn set_doc(&mut self, name: &str, doc: &'static str, example: &'static str) -> bool {
        let Some(&id) = self.by_name.get(name) else { return false };
        let b = &mut self.defs[id as usize];
        b.doc = doc;
        b.example = example;
        true
    }
    /// The capability slots of a builtin by name.
    pub fn caps(&self, name: &str) -> Option<&Caps> {
        self.lookup(name).map(|id| &self.get(id).caps)
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
