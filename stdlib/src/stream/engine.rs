//! What the streaming engines share: the engine handle (a table-like object that computes
//! when rows are appended to it), the session's registry of engines by name
//! (`getStreamEngine`, `dropStreamEngine`, `getStreamEngineStat`), where results and
//! subscribed messages go (`Target`), and metric evaluation over columns.

use beluga_runtime::CallCtx;
use beluga_lang::ast::{Expr, ExprKind};
use beluga_runtime::eval::ops::describe;
use beluga_runtime::table_source::{PartInfo, PartRows, Scan, TableSource};
use beluga_runtime::value::Handle;
use beluga_runtime::{Bound, Column, DataType, Error, Result, Table, Value};
use ahash::AHashMap;
use std::any::Any;
use std::sync::{Arc, Mutex};

// ------------------------------------------------------------------ targets

/// Where rows go: an output table or a subscription's handler.
#[derive(Clone)]
pub enum Target {
    /// A plain table: the object the argument named, bound as a partial application binds
    /// its fixed arguments (`value::Bound`), so the variable holding it (or the shared
    /// table of that name) sees every append.
    Table(Bound),
    /// A stream table, an engine, a stored table.
    Handle(Value),
    /// Nowhere (an engine without an output table only keeps its state).
    Discard,
    /// A function. A partial application (`tableInsert{out}`, `handler{resultT, state}`)
    /// keeps its fixed arguments as shared objects, so repeated calls accumulate in them
    /// and the script's variables see the result, as in DolphinDB.
    Func(Value),
}

impl Target {
    pub fn of(i: &mut CallCtx, what: &str, v: &Value) -> Result<Target> {
        match v {
            Value::Void => Ok(Target::Discard),
            Value::Handle(_) => Ok(Target::Handle(v.clone())),
            Value::Table(_) => match crate::meta::var_holding(i, v).and_then(|name| i.bind_var(&name)) {
                Some(b) => Ok(Target::Table(b)),
                None => Err(Error::arg(format!("{what}: the table must be held by a variable or shared (so results can be read back)"))),
            },
            Value::Function(_) => Ok(Target::Func(v.clone())),
            other => Err(Error::arg(format!("{what}: expected a table, an engine or a function, not {}", describe(other)))),
        }
    }

    /// The table a session variable or shared name holds (replay's `outputTables="t1"`).
    pub fn named(i: &mut CallCtx, name: &str) -> Option<Target> {
        i.bind_var(name).map(Target::Table)
    }

    /// Hand rows over: appended to a table or engine, or passed to a function as a table
    /// (`as_table`) or a tuple of columns.
    pub fn deliver(&self, i: &mut CallCtx, rows: Table, as_table: bool) -> Result<()> {
        // a handler's in-place builtin (tableInsert{out}) must not leave its result for the
        // append that triggered the delivery to write back into its own variable
        let saved = i.inplace_out().take();
        let r = self.deliver_inner(i, rows, as_table);
        *i.inplace_out() = saved;
        r
    }

    fn deliver_inner(&self, i: &mut CallCtx, rows: Table, as_table: bool) -> Result<()> {
        match self {
            Target::Discard => Ok(()),
            Target::Table(b) => {
                // taken out of its holders for the append, so it grows in place
                let (cur, held) = i.take_bound(b);
                match cur {
                    Value::Table(mut t) => {
                        let r = crate::core::append_rows_in_place(Arc::make_mut(&mut t), &Value::table(rows));
                        // unchanged on error
                        i.store_bound(b, Value::Table(t), held);
                        r
                    }
                    h @ Value::Handle(_) => {
                        i.store_bound(b, h.clone(), held);
                        Target::Handle(h).deliver(i, rows, as_table)
                    }
                    Value::Void => {
                        i.store_bound(b, Value::Void, held);
                        Err(Error::name("The output table no longer exists"))
                    }
                    other => {
                        let e = Error::arg(format!("The output is {}, not a table", describe(&other)));
                        i.store_bound(b, other, held);
                        Err(e)
                    }
                }
            }
            Target::Handle(h) => {
                let Value::Handle(hh) = h else { return Err(Error::runtime("internal: target is not a handle")) };
                let data = Value::table(rows);
                if let Some(r) = hh.session_append(i, &data) {
                    return r.map(|_| ());
                }
                match hh.table_source() {
                    Some(src) => src.append_value(&data).map(|_| ()),
                    None => Err(Error::unsupported("append", hh.type_name())),
                }
            }
            Target::Func(f) => {
                let msg = if as_table { Value::table(rows) } else { Value::tuple(rows.cols.into_iter().map(Value::Vector).collect()) };
                i.call_value(f, vec![msg]).map(|_| ())
            }
        }
    }
}

// ------------------------------------------------------------------ engines

/// The computation of one engine: rows in (conformed to the dummy table), result rows out.
pub trait EngineCore: Send {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>>;
    /// Groups (keys) the engine holds state for.
    fn groups(&self) -> usize;
    /// The rows reading the engine gives (the cross-sectional engine's latest row per
    /// key); None: the dummy table's columns with no rows.
    fn table(&self) -> Option<Table> {
        None
    }
    /// When time-driven work of the engine falls due (the time-series engine's
    /// updateTime: rows left uncomputed for 2 × updateTime); None: nothing pending.
    fn due(&self) -> Option<std::time::Instant> {
        None
    }
    /// Do the work that is due now; the rows it gives go to the output.
    fn fire(&mut self, _i: &mut CallCtx) -> Result<Option<Table>> {
        Ok(None)
    }
    /// Rows for the right table of a join engine (conformed to its right table).
    fn feed_right(&mut self, _i: &mut CallCtx, _rows: Table) -> Result<Option<Table>> {
        Err(Error::runtime("this engine has no right table (only join engines take appendForJoin(engine, false, rows))"))
    }
}

/// An engine: a table-like object; appending to it computes and writes the results.
pub struct EngineHandle {
    pub name: String,
    pub kind: &'static str,
    /// the dummy table's columns, no rows
    pub schema: Table,
    /// a join engine's right table (columns, no rows)
    pub right_schema: Option<Table>,
    core: Mutex<Box<dyn EngineCore>>,
    output: Target,
    output_as_table: bool,
    rows_in: Mutex<u64>,
    /// set by dropStreamEngine: appends then fail
    dropped: std::sync::atomic::AtomicBool,
    /// the session timer of an engine with time-driven work (`arm_timer`)
    timer: Mutex<Option<Arc<dyn beluga_runtime::callctx::Timer>>>,
}

/// An engine's timer, registered with the session that made the engine; it refers to the
/// engine weakly (the engine owns it). See `beluga_runtime::callctx::Timer` for when it runs.
struct EngineTimer(std::sync::Weak<dyn Handle>);

impl beluga_runtime::callctx::Timer for EngineTimer {
    fn due(&self) -> Option<std::time::Instant> {
        let h = self.0.upgrade()?;
        let e = h.as_any().downcast_ref::<EngineHandle>()?;
        if e.dropped.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        e.core.try_lock().ok()?.due()
    }
    fn fire(&self, i: &mut CallCtx) -> Result<()> {
        let Some(h) = self.0.upgrade() else { return Ok(()) };
        let Some(e) = h.as_any().downcast_ref::<EngineHandle>() else { return Ok(()) };
        let out = {
            let Ok(mut core) = e.core.try_lock() else { return Ok(()) };
            core.fire(i).map_err(|x| Error::new(x.kind, format!("engine {}: {}", e.name, x.message)))?
        };
        match out {
            Some(out) if out.rows() > 0 => e.output.deliver(i, out, e.output_as_table),
            _ => Ok(()),
        }
    }
}

/// Register the engine's time-driven work (`EngineCore::due`/`fire`) with the session.
pub fn arm_timer(i: &mut CallCtx, engine: &Value) -> Result<()> {
    let (Value::Handle(h), Some(e)) = (engine, as_engine(engine)) else { return Err(Error::runtime("internal: not an engine")) };
    let mut slot = e.timer.lock().map_err(|_| Error::runtime("engine lock poisoned"))?;
    let t = slot.get_or_insert_with(|| Arc::new(EngineTimer(Arc::downgrade(h))) as Arc<dyn beluga_runtime::callctx::Timer>);
    i.add_timer(Arc::downgrade(t));
    Ok(())
}

impl std::fmt::Debug for EngineHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[{}]", self.kind, self.name)
    }
}

impl EngineHandle {
    fn append(&self, i: &mut CallCtx, rows: &Value) -> Result<u64> {
        self.append_side(i, true, rows)
    }

    /// Append to the engine's input (`left`), or to a join engine's right table.
    pub fn append_side(&self, i: &mut CallCtx, left: bool, rows: &Value) -> Result<u64> {
        if self.dropped.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Error::runtime(format!("engine {} was dropped (dropStreamEngine)", self.name)));
        }
        let schema = match (left, &self.right_schema) {
            (true, _) => &self.schema,
            (false, Some(r)) => r,
            (false, None) => return Err(Error::arg(format!("engine {}: only join engines have a right table", self.name))),
        };
        let rows = crate::core::append_rows(schema.clone(), rows).map_err(|e| Error::new(e.kind, format!("engine {}: {}", self.name, e.message)))?;
        let n = rows.rows();
        if n == 0 {
            return Ok(0);
        }
        let out = {
            let mut core = self
                .core
                .try_lock()
                .map_err(|_| Error::runtime(format!("engine {}: rows were appended to it while it was computing", self.name)))?;
            let r = if left { core.feed(i, rows) } else { core.feed_right(i, rows) };
            r.map_err(|e| Error::new(e.kind, format!("engine {}: {}", self.name, e.message)))?
        };
        if let Ok(mut r) = self.rows_in.lock() {
            *r += n as u64;
        }
        if let Some(out) = out {
            if out.rows() > 0 {
                self.output.deliver(i, out, self.output_as_table)?;
            }
        }
        Ok(n as u64)
    }
}

impl Handle for EngineHandle {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn display(&self) -> String {
        format!("{}[{}]", self.kind, self.name)
    }
    fn type_name(&self) -> &'static str {
        "TABLE"
    }
    fn table_source(&self) -> Option<&dyn TableSource> {
        Some(self)
    }
    fn session_append(&self, i: &mut CallCtx, rows: &Value) -> Option<Result<u64>> {
        Some(self.append(i, rows))
    }
}

impl EngineHandle {
    /// What reading the engine gives now (the schema with no rows, unless the engine keeps
    /// a table; while it computes, the schema).
    pub fn current(&self) -> Table {
        self.core.try_lock().ok().and_then(|c| c.table()).unwrap_or_else(|| self.schema.clone())
    }
}

/// An engine reads as its dummy table's columns with no rows (what `insert into` needs),
/// or as the table it keeps (the cross-sectional engine's latest rows).
impl TableSource for EngineHandle {
    fn name(&self) -> &str {
        &self.name
    }
    fn schema(&self) -> Result<Vec<(String, DataType)>> {
        Ok(self.schema.names.iter().cloned().zip(self.schema.cols.iter().map(|c| c.ty)).collect())
    }
    fn rows(&self) -> Result<u64> {
        Ok(self.current().rows() as u64)
    }
    fn partitions(&self, _p: &[beluga_runtime::table_source::Pred]) -> Result<Vec<PartInfo>> {
        Ok(vec![PartInfo { id: String::new(), rows: self.rows()? }])
    }
    fn scan(&self, req: Scan<'_>) -> Result<Vec<Table>> {
        let t = beluga_runtime::table_source::project(self.current(), req.columns)?;
        Ok(vec![t])
    }
    fn count(&self, p: &[beluga_runtime::table_source::Pred]) -> Result<Option<u64>> {
        Ok(if p.is_empty() { Some(self.rows()?) } else { None })
    }
    fn decided(&self, _p: &[beluga_runtime::table_source::Pred], tests: &[beluga_runtime::table_source::Pred]) -> Result<Vec<bool>> {
        Ok(vec![false; tests.len()])
    }
    fn append(&self, _rows: &Table) -> Result<u64> {
        Err(Error::runtime(format!("engine {}: append to it with append!, tableInsert or insert into", self.name)))
    }
    fn overwrite(&self, _t: &Table) -> Result<()> {
        Err(Error::runtime(format!("engine {}: an engine can't be updated or deleted from", self.name)))
    }
    fn read_partitions(&self, _p: &[beluga_runtime::table_source::Pred]) -> Result<PartRows> {
        Err(Error::runtime(format!("engine {}: an engine can't be updated or deleted from", self.name)))
    }
    fn rewrite(&self, _v: u64, _p: &[String], _t: &[Arc<Table>]) -> Result<()> {
        Err(Error::runtime(format!("engine {}: an engine can't be updated or deleted from", self.name)))
    }
}

pub fn as_engine(v: &Value) -> Option<&EngineHandle> {
    match v {
        Value::Handle(h) => h.as_any().downcast_ref::<EngineHandle>(),
        _ => None,
    }
}

/// The session's engines by name. Engines are per session (kept in the session's
/// library storage, `CallCtx::ext`): the server runs many sessions, and one session's
/// engines, their names and their state are not another's.
#[derive(Default)]
struct Engines(AHashMap<String, Value>);

const ENGINES_KEY: &str = "stream.engines";

fn engines(i: &mut CallCtx) -> &mut AHashMap<String, Value> {
    let ext = i.ext();
    if !ext.get(ENGINES_KEY).map(|b| b.is::<Engines>()).unwrap_or(false) {
        ext.insert(ENGINES_KEY, Box::new(Engines::default()));
    }
    match ext.get_mut(ENGINES_KEY).and_then(|b| b.downcast_mut::<Engines>()) {
        Some(e) => &mut e.0,
        None => unreachable!("the engine registry was just inserted"),
    }
}

/// The parts every engine's constructor reads.
pub struct Common {
    pub name: String,
    pub dummy: Table,
}

/// Check the name (letters, digits, underscores, starting with a letter; not in use) and
/// read the dummy table's columns.
pub fn common(i: &mut CallCtx, what: &str, name: &Value, dummy: &Value) -> Result<Common> {
    let name = name.as_str().ok_or_else(|| Error::arg(format!("{what}: name must be a string")))?.to_string();
    let ok = name.chars().next().map(|c| c.is_ascii_alphabetic()).unwrap_or(false) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(Error::arg(format!("{what}: the engine name '{name}' must start with a letter and hold only letters, digits and underscores")));
    }
    if engines(i).contains_key(&name) {
        return Err(Error::runtime(format!("{what}: an engine named {name} already exists (dropStreamEngine(\"{name}\") first)")));
    }
    let dummy = match dummy {
        Value::Table(t) => t.as_ref().clone(),
        Value::Handle(h) => match h.table_source() {
            Some(src) => src.table()?,
            None => return Err(Error::arg(format!("{what}: dummyTable must be a table"))),
        },
        other => return Err(Error::arg(format!("{what}: dummyTable must be a table, not {}", describe(other)))),
    };
    let dummy = dummy.slice(0, 0);
    Ok(Common { name, dummy })
}

/// Make the engine handle, register it under its name, and return it.
pub fn register(
    i: &mut CallCtx,
    what: &str,
    kind: &'static str,
    c: Common,
    core: Box<dyn EngineCore>,
    output: &Value,
    output_handler: Option<&Value>,
    msg_as_table: bool,
) -> Result<Value> {
    register_with(i, what, kind, c, None, core, output, output_handler, msg_as_table)
}

/// `register` for engines with a right table too (the join engines).
#[allow(clippy::too_many_arguments)]
pub fn register_with(
    i: &mut CallCtx,
    what: &str,
    kind: &'static str,
    c: Common,
    right: Option<Table>,
    core: Box<dyn EngineCore>,
    output: &Value,
    output_handler: Option<&Value>,
    msg_as_table: bool,
) -> Result<Value> {
    let (target, as_table) = match output_handler {
        Some(h) if matches!(h, Value::Function(_)) => (Target::of(i, what, h)?, msg_as_table),
        Some(other) => return Err(Error::arg(format!("{what}: outputHandler must be a function, not {}", describe(other)))),
        None => (Target::of(i, what, output)?, true),
    };
    let h = EngineHandle { name: c.name.clone(), kind, schema: c.dummy, right_schema: right, core: Mutex::new(core), output: target, output_as_table: as_table, rows_in: Mutex::new(0), dropped: Default::default(), timer: Mutex::new(None) };
    let v = Value::Handle(Arc::new(h));
    engines(i).insert(c.name, v.clone());
    Ok(v)
}

pub fn get_stream_engine(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let name = args[0].as_str().ok_or_else(|| Error::arg("getStreamEngine: name must be a string"))?;
    engines(i)
        .get(name)
        .cloned()
        .ok_or_else(|| Error::name(format!("getStreamEngine: there is no engine named {name}")))
}

pub fn drop_stream_engine(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let name = args[0].as_str().ok_or_else(|| Error::arg("dropStreamEngine: name must be a string"))?;
    match engines(i).remove(name) {
        Some(v) => {
            if let Some(e) = as_engine(&v) {
                e.dropped.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(Value::Void)
        }
        None => Err(Error::name(format!("dropStreamEngine: there is no engine named {name}"))),
    }
}

/// `getStreamEngineStat()`: a dictionary from engine type to a table (name, numGroups, numRows).
pub fn get_stream_engine_stat(i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    let mut all: Vec<(String, Value)> = engines(i).iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_kind: Vec<(&'static str, Vec<String>, Vec<i64>, Vec<i64>)> = Vec::new();
    for (_, v) in &all {
        let Some(e) = as_engine(v) else { continue };
        let groups = e.core.try_lock().map(|c| c.groups() as i64).unwrap_or(i64::MIN);
        let rows = e.rows_in.lock().map(|r| *r as i64).unwrap_or(0);
        match by_kind.iter_mut().find(|k| k.0 == e.kind) {
            Some(k) => {
                k.1.push(e.name.clone());
                k.2.push(groups);
                k.3.push(rows);
            }
            None => by_kind.push((e.kind, vec![e.name.clone()], vec![groups], vec![rows])),
        }
    }
    let keys = Value::string_vec(by_kind.iter().map(|k| k.0));
    let mut vals = Vec::new();
    for (_, names, groups, rows) in by_kind {
        let t = Table::new(
            vec!["name".into(), "numGroups".into(), "numRows".into()],
            vec![super::table::str_col(&names), Column::from_vec(DataType::Long, groups), Column::from_vec(DataType::Long, rows)],
        )?;
        vals.push(Value::table(t));
    }
    i.call_builtin_by_name("dict", vec![keys, Value::tuple(vals)])
}

// ------------------------------------------------------------------ metrics

/// The expressions of a `metrics` argument: `<expr>`, `<[e1, e2]>`, `[<e1>, <e2>]`.
pub fn metric_exprs(what: &str, v: &Value) -> Result<Vec<Arc<Expr>>> {
    let mut out = Vec::new();
    match v {
        Value::Code(e) => match &e.kind {
            ExprKind::Vector(items) => out.extend(items.iter().map(|x| Arc::new(x.clone()))),
            _ => out.push(e.clone()),
        },
        Value::Tuple(items) => {
            for it in items.iter() {
                out.extend(metric_exprs(what, it)?);
            }
        }
        other => return Err(Error::arg(format!("{what}: metrics must be metacode such as <[mavg(price, 5), ema(price, 10)]>, not {}", describe(other)))),
    }
    if out.is_empty() {
        return Err(Error::arg(format!("{what}: metrics is empty")));
    }
    Ok(out)
}

/// Evaluate an expression with the columns of `t` bound by name.
pub fn eval_on(i: &mut CallCtx, t: &Table, e: &Expr) -> Result<Value> {
    let mut scope: AHashMap<String, Value> = AHashMap::with_capacity(t.ncols());
    for (n, c) in t.names.iter().zip(&t.cols) {
        scope.insert(n.clone(), Value::Vector(c.clone()));
    }
    i.eval_with_columns(scope, e)
}

/// Key column names (a string or strings), checked against the dummy table.
pub fn key_names(what: &str, v: Option<&Value>, dummy: &Table) -> Result<Vec<String>> {
    let Some(v) = v else { return Ok(vec![]) };
    let names = crate::table::names_arg(what, v)?;
    for n in &names {
        if dummy.col_index(n).is_none() {
            return Err(Error::name(format!("{what}: the key column {n} is not a column of dummyTable")));
        }
    }
    Ok(names)
}
