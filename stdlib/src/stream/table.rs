//! Stream tables and subscriptions: `streamTable`, `subscribeTable`, `unsubscribeTable`,
//! `getStreamingStat`; keyed stream tables (`keyedStreamTable`: a row whose primary key
//! is already in the table is ignored).
//!
//! A stream table is a handle holding its rows and its subscriptions, so every name that
//! refers to it (the variable it was built into, the name it is shared as, a handler's
//! captured argument) sees one table. Appending runs each subscription's handler in the
//! appending session, with the rows the subscription has not seen yet (funcs/s/subscribeTable.md:
//! `offset=-1` starts at the rows appended after subscribing, `0` at the first row, `n`
//! at row n; `msgAsTable=false` passes a tuple of columns).
//!
//! `batchSize`/`throttle`: with `batchSize>0` the handler runs once at least `batchSize`
//! rows are pending, or once `throttle` seconds (default 1, fractions allowed) have passed
//! since the handler last ran (or since subscribing) with rows pending, whichever comes
//! first; without `batchSize` the throttle has no effect. Beluga has no subscription
//! threads, so the throttle is kept as a `Timer` of the subscribing session
//! (`beluga_runtime::callctx::Timer`): a due partial batch is handed over at the points a
//! script can observe the passing of time — inside `sleep` at the moment it falls due, at
//! every top-level statement boundary, before rows are appended to the table (the batch
//! that fell due earlier is delivered apart from the new rows, as the timer would have
//! done), in `getStreamingStat`, and in `unsubscribeTable`, which then drops what is still
//! pending (funcs/u/unsubscribeTable.md: unprocessed messages are deleted).

use beluga_runtime::CallCtx;
use super::engine::{as_engine, Target};
use beluga_runtime::eval::ops::describe;
use beluga_runtime::table_source::{PartInfo, PartRows, Scan, TableSource};
use beluga_runtime::value::Handle;
use beluga_runtime::{Column, DataType, Error, Key, Result, Table, Value};
use ahash::AHashSet;
use std::any::Any;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// One subscription of a stream table.
struct Sub {
    action: String,
    handler: Target,
    msg_as_table: bool,
    batch_size: usize,
    /// with `batch_size > 0`: how long after `last_call` a partial batch is handed over
    throttle: Duration,
    /// when the handler last ran (or the subscription was made)
    last_call: Instant,
    /// the next row this subscription has not received
    next: usize,
    delivered: u64,
}

/// A stream table: its rows and its subscriptions.
pub struct StreamTable {
    pub data: Mutex<Table>,
    /// keyedStreamTable: the key columns and the keys present; a row whose key is
    /// present already (or repeats an earlier row of the same append) is not added
    keyed: Option<(Vec<usize>, Mutex<AHashSet<Vec<Key>>>)>,
    subs: Mutex<Vec<Sub>>,
    /// how deep deliveries are nested (a handler appending to the table it handles)
    depth: Mutex<usize>,
    /// the session timer of the throttled subscriptions (made with the first one; the
    /// sessions hold it weakly)
    timer: Mutex<Option<Arc<dyn beluga_runtime::callctx::Timer>>>,
}

/// The throttle timer of a stream table's subscriptions; it refers to the table weakly
/// (the table owns it).
struct Throttle(Weak<dyn Handle>);

impl Throttle {
    fn table(&self) -> Option<Arc<dyn Handle>> {
        self.0.upgrade()
    }
}

impl beluga_runtime::callctx::Timer for Throttle {
    fn due(&self) -> Option<Instant> {
        let h = self.table()?;
        let s = h.as_any().downcast_ref::<StreamTable>()?;
        s.next_due()
    }
    fn fire(&self, i: &mut CallCtx) -> Result<()> {
        match self.table() {
            Some(h) => match h.as_any().downcast_ref::<StreamTable>() {
                Some(s) => s.publish(i),
                None => Ok(()),
            },
            None => Ok(()),
        }
    }
}

impl std::fmt::Debug for StreamTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StreamTable")
    }
}

fn poisoned() -> Error {
    Error::runtime("stream table lock poisoned")
}

impl StreamTable {
    pub fn new(t: Table) -> StreamTable {
        StreamTable { data: Mutex::new(t), keyed: None, subs: Mutex::new(Vec::new()), depth: Mutex::new(0), timer: Mutex::new(None) }
    }

    /// A keyed stream table (funcs/k/keyedStreamTable.md): rows whose key exists are ignored.
    pub fn keyed(t: Table, keys: Vec<usize>) -> StreamTable {
        let mut st = StreamTable::new(t.slice(0, 0));
        st.keyed = Some((keys, Mutex::new(AHashSet::new())));
        let kept = st.new_rows(&t).unwrap_or(t);
        st.data = Mutex::new(kept);
        st
    }

    /// The rows of `rows` to add: all, or for a keyed table those whose key is new.
    fn new_rows(&self, rows: &Table) -> Result<Table> {
        let Some((keys, seen)) = &self.keyed else { return Ok(rows.clone()) };
        let mut seen = seen.lock().map_err(|_| poisoned())?;
        let mask: Vec<bool> = (0..rows.rows())
            .map(|r| seen.insert(keys.iter().map(|&c| Key::of(&rows.cols[c], r)).collect()))
            .collect();
        Ok(if mask.iter().all(|&b| b) { rows.clone() } else { rows.filter(&mask) })
    }

    /// Conform rows to the table's columns and add them (keyed: only new keys).
    fn add(&self, t: &mut Table, rows: &Value) -> Result<()> {
        if self.keyed.is_none() {
            *t = crate::core::append_rows(t.clone(), rows)?;
            return Ok(());
        }
        let conformed = crate::core::append_rows(t.slice(0, 0), rows)?;
        let add = self.new_rows(&conformed)?;
        for (c, n) in t.cols.iter_mut().zip(&add.cols) {
            c.append(n);
        }
        Ok(())
    }

    pub fn snapshot(&self) -> Result<Table> {
        self.data.lock().map(|t| t.clone()).map_err(|_| poisoned())
    }

    /// When the earliest throttled partial batch falls due.
    fn next_due(&self) -> Option<Instant> {
        let rows = self.data.lock().ok()?.rows();
        let subs = self.subs.lock().ok()?;
        subs.iter().filter(|s| s.batch_size > 0 && s.next < rows).map(|s| s.last_call + s.throttle).min()
    }

    /// Append rows conformed to the table's columns; then deliver to the subscribers.
    pub fn append_and_publish(&self, i: &mut CallCtx, rows: &Value) -> Result<u64> {
        // a partial batch whose throttle ran out before these rows came goes out alone
        if self.next_due().map(|d| d <= Instant::now()).unwrap_or(false) {
            self.publish(i)?;
        }
        let n = {
            let mut t = self.data.lock().map_err(|_| poisoned())?;
            let before = t.rows();
            self.add(&mut t, rows)?;
            t.rows() - before
        };
        self.publish(i)?;
        Ok(n as u64)
    }

    /// Run the handlers of the subscriptions that have rows pending.
    fn publish(&self, i: &mut CallCtx) -> Result<()> {
        {
            let mut d = self.depth.lock().map_err(|_| poisoned())?;
            if *d >= 16 {
                return Err(Error::runtime("subscribeTable: a handler keeps appending to the table it handles (16 nested deliveries)"));
            }
            *d += 1;
        }
        let r = self.publish_inner(i);
        if let Ok(mut d) = self.depth.lock() {
            *d -= 1;
        }
        r
    }

    fn publish_inner(&self, i: &mut CallCtx) -> Result<()> {
        let mut k = 0;
        loop {
            // take what one subscription has pending; release the locks before the handler runs
            let job = {
                let t = self.data.lock().map_err(|_| poisoned())?;
                let mut subs = self.subs.lock().map_err(|_| poisoned())?;
                let Some(s) = subs.get_mut(k) else { break };
                let rows = t.rows();
                let now = Instant::now();
                let ready = s.next < rows
                    && (rows - s.next >= s.batch_size.max(1) || (s.batch_size > 0 && now >= s.last_call + s.throttle));
                if ready {
                    let msg = t.slice(s.next, rows);
                    s.next = rows;
                    s.last_call = now;
                    s.delivered += msg.rows() as u64;
                    Some((s.handler.clone(), s.msg_as_table, msg, s.action.clone()))
                } else {
                    None
                }
            };
            if let Some((handler, as_table, msg, action)) = job {
                handler
                    .deliver(i, msg, as_table)
                    .map_err(|e| Error::new(e.kind, format!("subscribeTable handler of action '{action}': {}", e.message)))?;
            }
            k += 1;
        }
        Ok(())
    }
}

impl Handle for StreamTable {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn display(&self) -> String {
        match self.snapshot() {
            Ok(t) => beluga_runtime::fmt::to_console(&Value::table(t), &|_| String::new()),
            Err(e) => e.message,
        }
    }
    fn type_name(&self) -> &'static str {
        "TABLE"
    }
    fn table_source(&self) -> Option<&dyn TableSource> {
        Some(self)
    }
    fn session_append(&self, i: &mut CallCtx, rows: &Value) -> Option<Result<u64>> {
        Some(self.append_and_publish(i, rows))
    }
}

impl TableSource for StreamTable {
    fn name(&self) -> &str {
        "streamTable"
    }
    fn schema(&self) -> Result<Vec<(String, DataType)>> {
        let t = self.data.lock().map_err(|_| poisoned())?;
        Ok(t.names.iter().cloned().zip(t.cols.iter().map(|c| c.ty)).collect())
    }
    fn rows(&self) -> Result<u64> {
        Ok(self.data.lock().map_err(|_| poisoned())?.rows() as u64)
    }
    fn partitions(&self, _preds: &[beluga_runtime::table_source::Pred]) -> Result<Vec<PartInfo>> {
        Ok(vec![PartInfo { id: String::new(), rows: self.rows()? }])
    }
    fn scan(&self, req: Scan<'_>) -> Result<Vec<Table>> {
        let t = beluga_runtime::table_source::project(self.snapshot()?, req.columns)?;
        Ok(vec![t])
    }
    fn count(&self, preds: &[beluga_runtime::table_source::Pred]) -> Result<Option<u64>> {
        Ok(if preds.is_empty() { Some(self.rows()?) } else { None })
    }
    fn decided(&self, _preds: &[beluga_runtime::table_source::Pred], tests: &[beluga_runtime::table_source::Pred]) -> Result<Vec<bool>> {
        Ok(vec![false; tests.len()])
    }
    fn append(&self, rows: &Table) -> Result<u64> {
        // no session here: the rows are kept and reach subscribers with the next session append
        let mut t = self.data.lock().map_err(|_| poisoned())?;
        let before = t.rows();
        self.add(&mut t, &Value::table(rows.clone()))?;
        Ok((t.rows() - before) as u64)
    }
    fn overwrite(&self, t: &Table) -> Result<()> {
        let mut d = self.data.lock().map_err(|_| poisoned())?;
        let keep = d.rows().min(t.rows());
        *d = t.clone();
        drop(d);
        // rows already delivered stay delivered; a shorter table restarts subscriptions at its end
        let mut subs = self.subs.lock().map_err(|_| poisoned())?;
        for s in subs.iter_mut() {
            s.next = s.next.min(keep.max(t.rows()));
        }
        Ok(())
    }
    fn read_partitions(&self, _preds: &[beluga_runtime::table_source::Pred]) -> Result<PartRows> {
        Ok(PartRows { version: 0, parts: vec![String::new()], tables: vec![self.snapshot()?] })
    }
    fn rewrite(&self, _version: u64, _parts: &[String], tables: &[Arc<Table>]) -> Result<()> {
        match tables {
            [t] => self.overwrite(t),
            _ => Err(Error::runtime("A stream table is one partition")),
        }
    }
}

/// The stream table behind a value, if it is one.
pub fn as_stream(v: &Value) -> Option<&StreamTable> {
    match v {
        Value::Handle(h) => h.as_any().downcast_ref::<StreamTable>(),
        _ => None,
    }
}

/// `streamTable(capacity:size, colNames, colTypes)`, `streamTable(X, [X1], ...)`: a table
/// built as `table` builds one, held by a stream-table handle.
pub fn stream_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = crate::table::build_table(i, args)?;
    Ok(Value::Handle(Arc::new(StreamTable::new(t))))
}

fn shared_stream(i: &CallCtx, name: &str, what: &str) -> Result<Value> {
    let v = i.get_shared(name).or_else(|| i.get_var(name).cloned());
    match v {
        Some(v) if as_stream(&v).is_some() => Ok(v),
        Some(other) => Err(Error::arg(format!("{what}: {name} is {}, not a shared stream table", describe(&other)))),
        None => Err(Error::name(format!("{what}: there is no shared stream table named {name}"))),
    }
}

fn table_name_arg(what: &str, v: Option<&Value>) -> Result<String> {
    match v {
        Some(v) if v.as_str().is_some() => Ok(v.as_str().unwrap_or("").to_string()),
        Some(v) if as_stream(v).is_some() => Err(Error::arg(format!("{what}: give the table's shared name as a string, e.g. tableName=`trades"))),
        _ => Err(Error::arg(format!("{what}: tableName must be the name of a shared stream table"))),
    }
}

/// Arguments of subscribeTable by position; the first (server) may be omitted when the
/// call is positional and starts with the table name.
fn sub_args(args: &[Value]) -> Vec<Value> {
    let mut a = args.to_vec();
    // subscribeTable(tableName, actionName, offset, handler...) written without server:
    // the server is a string only in remote subscriptions, which Beluga does not have, so a
    // call whose handler slot (4) is not a function/table but slot 3 is, is shifted.
    let is_handler = |v: &Value| matches!(v, Value::Function(_) | Value::Handle(_) | Value::Table(_));
    if a.len() >= 4 && !a.get(4).map(is_handler).unwrap_or(false) && is_handler(&a[3]) {
        a.insert(0, Value::Void);
    }
    a
}

pub fn subscribe_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "subscribeTable";
    let a = sub_args(&args);
    let get = |k: usize| a.get(k).filter(|v| !matches!(v, Value::Void));
    if let Some(s) = get(0).and_then(|v| v.as_str()) {
        if !s.is_empty() {
            return Err(Error::unsupported(W, "a remote server (only local subscriptions exist)"));
        }
    }
    let name = table_name_arg(W, get(1))?;
    let action = get(2).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let offset = get(3).and_then(|v| v.as_i64()).unwrap_or(-1);
    let handler = get(4).ok_or_else(|| Error::arg("subscribeTable: handler is required"))?.clone();
    let msg_as_table = get(5).and_then(|v| v.as_bool()).unwrap_or(false);
    let batch_size = get(6).and_then(|v| v.as_i64()).unwrap_or(0).max(0) as usize;
    // throttle: seconds, fractions allowed (DolphinDB needs the subThrottle setting below
    // 1 s; Beluga takes any non-negative value)
    let throttle = match get(7) {
        None => Duration::from_secs(1),
        Some(v) => match v.as_f64() {
            Some(t) if t.is_finite() && (0.0..=1e9).contains(&t) && matches!(v, Value::Scalar(_)) => Duration::from_secs_f64(t),
            _ => return Err(Error::arg(format!("{W}: throttle must be a non-negative number of seconds, not {}", describe(v)))),
        },
    };
    for (k, what) in [(10, "filter"), (13, "handlerNeedMsgId")] {
        if get(k).map(|v| v.as_bool() != Some(false)).unwrap_or(false) {
            return Err(Error::unsupported(W, what));
        }
    }
    let st = shared_stream(i, &name, W)?;
    let target = Target::of(i, W, &handler)?;
    if let Target::Func(..) = &target {
    } else if as_engine(&handler).is_none() && !matches!(handler, Value::Handle(_) | Value::Table(_)) {
        return Err(Error::arg(format!("subscribeTable: handler must be a function, an engine or a table, not {}", describe(&handler))));
    }
    let s = as_stream(&st).ok_or_else(|| Error::runtime("internal: not a stream table"))?;
    let rows = s.data.lock().map_err(|_| poisoned())?.rows();
    let next = match offset {
        -1 => rows,
        o if o >= 0 => (o as usize).min(rows),
        o => return Err(Error::arg(format!("subscribeTable: offset {o} needs persistence, which Beluga's stream tables do not have"))),
    };
    let topic = if action.is_empty() { format!("local/{name}") } else { format!("local/{name}/{action}") };
    {
        let mut subs = s.subs.lock().map_err(|_| poisoned())?;
        if subs.iter().any(|x| x.action == action) {
            return Err(Error::runtime(format!("subscribeTable: the topic {topic} already exists")));
        }
        subs.push(Sub { action, handler: target, msg_as_table, batch_size, throttle, last_call: Instant::now(), next, delivered: 0 });
    }
    if batch_size > 0 {
        let mut timer = s.timer.lock().map_err(|_| poisoned())?;
        let Value::Handle(h) = &st else { return Err(Error::runtime("internal: not a stream table")) };
        let t = timer.get_or_insert_with(|| Arc::new(Throttle(Arc::downgrade(h))) as Arc<dyn beluga_runtime::callctx::Timer>);
        i.add_timer(Arc::downgrade(t));
    }
    // rows already in the table from the offset on are delivered now
    s.publish(i)?;
    Ok(Value::string(&topic))
}

pub fn unsubscribe_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "unsubscribeTable";
    let mut a = args.clone();
    // unsubscribeTable(tableName, actionName) written without server
    if a.len() == 2 && a[0].as_str().is_some() && a[1].as_str().is_some() && i.get_shared(a[0].as_str().unwrap_or("")).is_some() {
        a.insert(0, Value::Void);
    }
    let get = |k: usize| a.get(k).filter(|v| !matches!(v, Value::Void));
    let name = table_name_arg(W, get(1))?;
    let action = get(2).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let st = shared_stream(i, &name, W)?;
    let s = as_stream(&st).ok_or_else(|| Error::runtime("internal: not a stream table"))?;
    // a batch whose throttle ran out was handed over already; what is still pending is dropped
    if s.next_due().map(|d| d <= Instant::now()).unwrap_or(false) {
        s.publish(i)?;
    }
    let mut subs = s.subs.lock().map_err(|_| poisoned())?;
    let before = subs.len();
    subs.retain(|x| x.action != action);
    if subs.len() == before {
        return Err(Error::runtime(format!("unsubscribeTable: {name} has no subscription named '{action}'")));
    }
    Ok(Value::Void)
}

/// `getStreamingStat()`: a dictionary whose `pubTables` lists each subscription of the
/// shared stream tables (tableName, actions, msgOffset: rows published, delivered).
pub fn get_streaming_stat(i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    i.run_due_timers()?;
    let shared: Vec<(String, Value)> = i.shared()
        .lock()
        .map_err(|_| Error::runtime("shared table lock poisoned"))?
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let (mut names, mut actions, mut offsets, mut delivered) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut shared = shared;
    shared.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, v) in &shared {
        if let Some(s) = as_stream(v) {
            let rows = s.data.lock().map_err(|_| poisoned())?.rows();
            for sub in s.subs.lock().map_err(|_| poisoned())?.iter() {
                names.push(name.clone());
                actions.push(sub.action.clone());
                offsets.push(rows as i64);
                delivered.push(sub.delivered as i64);
            }
        }
    }
    let pub_tables = Table::new(
        vec!["tableName".into(), "actions".into(), "msgOffset".into(), "processedMsgCount".into()],
        vec![
            str_col(&names),
            str_col(&actions),
            Column::from_vec(DataType::Long, offsets),
            Column::from_vec(DataType::Long, delivered),
        ],
    )?;
    let keys = Value::string_vec(["pubTables"]);
    let vals = Value::tuple(vec![Value::table(pub_tables)]);
    i.call_builtin_by_name("dict", vec![keys, vals])
}

/// A STRING column of the given texts.
pub fn str_col(v: &[String]) -> Column {
    match Value::string_vec(v.iter().map(|s| s.as_str())) {
        Value::Vector(c) => c,
        _ => Column::nulls(DataType::String, 0),
    }
}

/// `dropStreamTable(tableName)`: forget a shared stream table and its subscriptions.
pub fn drop_stream_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "dropStreamTable";
    let name = table_name_arg(W, args.first())?;
    let st = shared_stream(i, &name, W)?;
    if let Some(s) = as_stream(&st) {
        s.subs.lock().map_err(|_| poisoned())?.clear();
    }
    i.shared().lock().map_err(|_| Error::runtime("shared table lock poisoned"))?.remove(&name);
    Ok(Value::Void)
}

/// `enableTableShareAndPersistence(table, tableName, ...)`: share a stream table under the
/// name. Beluga keeps stream tables in memory only: the persistence options are accepted
/// and nothing is written to disk (no `persistenceDir` exists), as the docs row says.
pub fn enable_share_and_persistence(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "enableTableShareAndPersistence";
    if as_stream(&args[0]).is_none() {
        return Err(Error::arg(format!("{W}: table must be a stream table, not {}", describe(&args[0]))));
    }
    let name = args[1].as_str().ok_or_else(|| Error::arg(format!("{W}: tableName must be a string")))?.to_string();
    i.share(args[0].clone(), &name)?;
    Ok(Value::Void)
}

/// `haStreamTable(raftGroup, table, tableName, cacheLimit, [keyColumn], [retentionMinutes])`
/// (funcs/h/haStreamTable.md). Beluga runs one node, so there is no Raft group to
/// replicate to: the raft group is checked (an integer > 1) and kept nowhere; the table is
/// a stream table built from the empty `table`, keyed (a row whose key exists is ignored,
/// as keyedStreamTable) when `keyColumn` is given, and shared under `tableName`;
/// `cacheLimit` and `retentionMinutes` are checked and otherwise accepted (stream tables
/// live in memory). See tests/DISPUTED.md (chosen semantics).
pub fn ha_stream_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "haStreamTable";
    match args[0].as_i64() {
        Some(g) if g > 1 && matches!(args[0], Value::Scalar(_)) => {}
        _ => return Err(Error::arg(format!("{W}: raftGroup must be an integer greater than 1"))),
    }
    let t = match &args[1] {
        Value::Table(t) => t.as_ref().clone(),
        other => return Err(Error::arg(format!("{W}: table must be an empty table made by table(), not {}", describe(other)))),
    };
    if t.rows() > 0 {
        return Err(Error::arg(format!("{W}: table must be empty (it has {} rows)", t.rows())));
    }
    let name = args[2].as_str().ok_or_else(|| Error::arg(format!("{W}: tableName must be a string")))?.to_string();
    match args[3].as_i64() {
        Some(n) if n > 0 => {}
        _ => return Err(Error::arg(format!("{W}: cacheLimit must be a positive integer"))),
    }
    let st = match args.get(4).filter(|v| !matches!(v, Value::Void)) {
        Some(k) => {
            let names = crate::table::names_arg(W, k)?;
            let mut idx = Vec::with_capacity(names.len());
            for n in &names {
                idx.push(t.col_index(n).ok_or_else(|| Error::name(format!("{W}: the key column {n} is not a column of the table")))?);
            }
            StreamTable::keyed(t, idx)
        }
        None => StreamTable::new(t),
    };
    if let Some(v) = args.get(5).filter(|v| !matches!(v, Value::Void)) {
        if v.as_i64().map(|m| m <= 0).unwrap_or(true) {
            return Err(Error::arg(format!("{W}: retentionMinutes must be a positive integer")));
        }
    }
    i.share(Value::Handle(Arc::new(st)), &name)?;
    Ok(Value::Void)
}
