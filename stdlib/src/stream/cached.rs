//! `cachedTable(updateFunc, retentionSeconds)`: a table whose rows are what `updateFunc()`
//! returned, fetched again when it is read and the last fetch is `retentionSeconds` or
//! more old (tutorials/cachedtable.md: configuration kept in another database, mirrored
//! into DolphinDB once a minute and joined with time series).
//!
//! Why a handle: the rows change by themselves between reads, so the object must have an
//! identity (`share`d, held by several variables) and refresh when read; reads come
//! through `TableSource` without a session, so the function runs in a worker made from
//! the session at creation (`CallCtx::detached`). `updateFunc` is called once at
//! creation (a bad function fails there, not in the first query). The rows are read-only.

use beluga_runtime::callctx::Detached;
use beluga_runtime::table_source::{project, PartInfo, PartRows, Pred, Scan, TableSource};
use beluga_runtime::value::Handle;
use beluga_runtime::{CallCtx, DataType, Error, Result, Table, Value};
use std::any::Any;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct CachedTable {
    func: Value,
    retention: Duration,
    caller: Detached,
    state: Mutex<(Instant, Table)>,
}

impl std::fmt::Debug for CachedTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cachedTable")
    }
}

fn fetch(caller: &Detached, func: &Value) -> Result<Table> {
    match caller.call(func, vec![])? {
        Value::Table(t) => Ok(Arc::unwrap_or_clone(t)),
        Value::Handle(h) => match h.table_source() {
            Some(src) => src.table(),
            None => Err(Error::arg("cachedTable: updateFunc must return a table")),
        },
        _ => Err(Error::arg("cachedTable: updateFunc must return a table")),
    }
}

impl CachedTable {
    /// The rows now: fetched again when the retention time has passed.
    fn current(&self) -> Result<Table> {
        let mut st = self.state.lock().map_err(|_| Error::runtime("cachedTable: an earlier refresh failed midway"))?;
        if st.0.elapsed() >= self.retention {
            let t = fetch(&self.caller, &self.func)?;
            *st = (Instant::now(), t);
        }
        Ok(st.1.clone())
    }
}

pub fn cached_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let func = args[0].clone();
    if !matches!(func, Value::Function(_)) {
        return Err(Error::arg("cachedTable: updateFunc must be a function without arguments"));
    }
    let secs = args[1].as_i64().filter(|s| *s > 0).ok_or_else(|| Error::arg("cachedTable: retentionSeconds must be a positive integer"))?;
    let caller = i.detached();
    let t = fetch(&caller, &func)?;
    let h = CachedTable { func, retention: Duration::from_secs(secs as u64), caller, state: Mutex::new((Instant::now(), t)) };
    Ok(Value::Handle(Arc::new(h)))
}

impl Handle for CachedTable {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn display(&self) -> String {
        "cachedTable".into()
    }
    fn type_name(&self) -> &'static str {
        "TABLE"
    }
    fn table_source(&self) -> Option<&dyn TableSource> {
        Some(self)
    }
}

fn read_only<T>() -> Result<T> {
    Err(Error::runtime("cachedTable: the table is read-only (its rows come from updateFunc)"))
}

impl TableSource for CachedTable {
    fn name(&self) -> &str {
        "cachedTable"
    }
    fn schema(&self) -> Result<Vec<(String, DataType)>> {
        let t = self.current()?;
        Ok(t.names.iter().cloned().zip(t.cols.iter().map(|c| c.ty)).collect())
    }
    fn rows(&self) -> Result<u64> {
        Ok(self.current()?.rows() as u64)
    }
    fn partitions(&self, _p: &[Pred]) -> Result<Vec<PartInfo>> {
        Ok(vec![PartInfo { id: String::new(), rows: self.rows()? }])
    }
    fn scan(&self, req: Scan<'_>) -> Result<Vec<Table>> {
        Ok(vec![project(self.current()?, req.columns)?])
    }
    fn count(&self, p: &[Pred]) -> Result<Option<u64>> {
        Ok(if p.is_empty() { Some(self.rows()?) } else { None })
    }
    fn decided(&self, _p: &[Pred], tests: &[Pred]) -> Result<Vec<bool>> {
        Ok(vec![false; tests.len()])
    }
    fn append(&self, _rows: &Table) -> Result<u64> {
        read_only()
    }
    fn overwrite(&self, _t: &Table) -> Result<()> {
        read_only()
    }
    fn read_partitions(&self, _p: &[Pred]) -> Result<PartRows> {
        read_only()
    }
    fn rewrite(&self, _v: u64, _p: &[String], _t: &[Arc<Table>]) -> Result<()> {
        read_only()
    }
}
