//! Database and table handles (values of type HANDLE). A table handle is the storage's
//! `TableSource`: the SQL executor, indexing and `append!` reach stored tables only
//! through that trait (`beluga_runtime::table_source`).

use crate::catalog::{self, DbMeta};
use crate::partition::Level;
use crate::load;
use crate::store::Appender;
use beluga_runtime::table_source::{PartInfo, PartRows, Pred, Scan, TableSource};
use beluga_runtime::value::Handle;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;

/// A database: on disk (`dir` set) or an in-memory level specification (`database("", …)`).
#[derive(Debug, Clone)]
pub struct DbHandle {
    pub path: String,
    pub dir: Option<PathBuf>,
    /// scheme at the time the handle was made (on-disk databases re-read it for writes)
    pub meta: DbMeta,
}

impl Handle for DbHandle {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn display(&self) -> String {
        format!("DB[{}]", self.path)
    }
}

impl DbHandle {
    pub fn dir(&self) -> Result<&PathBuf> {
        self.dir.as_ref().ok_or_else(|| Error::arg("The database handle is an in-memory scheme, not a database on disk"))
    }
    /// The current scheme (re-read from disk).
    pub fn levels(&self) -> Result<Vec<Level>> {
        match &self.dir {
            Some(d) => Ok(catalog::read_db_meta(d)?.levels),
            None => Ok(self.meta.levels.clone()),
        }
    }
}

/// A table stored in a database.
#[derive(Debug)]
pub struct TableHandle {
    pub db: Arc<DbHandle>,
    pub name: String,
}

impl Handle for TableHandle {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn display(&self) -> String {
        format!("Table[{}/{}]", self.db.path, self.name)
    }
    fn table_source(&self) -> Option<&dyn TableSource> {
        Some(self)
    }
    /// A table partitioned by a function of a column appends in the session, which
    /// evaluates the function (`partfn`); other stored tables append through `TableSource`.
    fn session_append(&self, i: &mut beluga_runtime::CallCtx, rows: &Value) -> Option<Result<u64>> {
        let meta = self.meta().ok()?;
        if !meta.opts.has_part_fns() {
            return None;
        }
        Some(self.append_in(i, rows))
    }
}

impl TableHandle {
    fn append_in(&self, i: &mut beluga_runtime::CallCtx, rows: &Value) -> Result<u64> {
        let t = self.rows_of(rows)?;
        let mut ap = Appender::open(self.db.dir()?, &self.name)?;
        ap.push_keyed(&t, None, Some(&mut |text: &str, c: &beluga_runtime::Column| crate::partfn::apply(i, text, c)))?;
        ap.commit()
    }
}

impl TableSource for TableHandle {
    fn name(&self) -> &str {
        &self.name
    }
    fn schema(&self) -> Result<Vec<(String, DataType)>> {
        let m = self.meta()?;
        Ok(m.names.iter().cloned().zip(m.types.iter().copied()).collect())
    }
    fn rows(&self) -> Result<u64> {
        Ok(self.meta()?.rows())
    }
    fn partitions(&self, preds: &[Pred]) -> Result<Vec<PartInfo>> {
        load::partitions(self, preds)
    }
    fn scan(&self, req: Scan<'_>) -> Result<Vec<Table>> {
        if req.split {
            load::load_partitions(self, req.columns, req.preds, req.partitions, req.segments)
        } else if let Some((key, n)) = req.top_desc {
            Ok(vec![load::load_top_desc(self, req.columns, req.preds, req.partitions, key, n)?])
        } else {
            Ok(vec![load::load(self, req.columns, req.preds, req.partitions)?])
        }
    }
    fn count(&self, preds: &[Pred]) -> Result<Option<u64>> {
        load::count_rows(self, preds)
    }
    fn decided(&self, preds: &[Pred], tests: &[Pred]) -> Result<Vec<bool>> {
        load::decided_tests(self, preds, tests)
    }
    fn key_functions(&self) -> Vec<(String, String)> {
        let Ok(m) = self.meta() else { return Vec::new() };
        m.part_cols.iter().enumerate().filter_map(|(l, c)| m.opts.part_fn(l).map(|f| (c.clone(), f.to_string()))).collect()
    }
    fn append(&self, rows: &Table) -> Result<u64> {
        let mut ap = Appender::open(self.db.dir()?, &self.name)?;
        ap.push(rows, None)?;
        ap.commit()
    }
    fn overwrite(&self, t: &Table) -> Result<()> {
        let mut ap = Appender::open(self.db.dir()?, &self.name)?;
        ap.clear();
        ap.push(t, None)?;
        ap.commit().map(|_| ())
    }
    fn read_partitions(&self, preds: &[Pred]) -> Result<PartRows> {
        let (version, parts, tables) = load::load_whole_partitions(self, preds)?;
        Ok(PartRows { version, parts, tables })
    }
    fn rewrite(&self, version: u64, parts: &[String], tables: &[Arc<Table>]) -> Result<()> {
        crate::rewrite::rewrite_parts(self, version, parts, tables)
    }
}

impl TableHandle {
    pub fn dir(&self) -> Result<PathBuf> {
        catalog::table_dir(self.db.dir()?, &self.name)
    }
    /// The live manifest (kept in memory until the table's `CURRENT` changes).
    pub fn meta(&self) -> Result<Arc<catalog::TableMeta>> {
        Ok(crate::cache::table_state(self.db.dir()?, &self.name)?.meta.clone())
    }
}

pub fn as_db(v: &Value) -> Option<Arc<DbHandle>> {
    if let Value::Handle(h) = v {
        if h.as_any().downcast_ref::<DbHandle>().is_some() {
            // re-wrap: the Arc<dyn Handle> and Arc<DbHandle> share nothing we can downcast to,
            // so copy the (small) description
            let d = h.as_any().downcast_ref::<DbHandle>()?;
            return Some(Arc::new(DbHandle { path: d.path.clone(), dir: d.dir.clone(), meta: d.meta.clone() }));
        }
    }
    None
}

pub fn as_table(v: &Value) -> Option<&TableHandle> {
    match v {
        Value::Handle(h) => h.as_any().downcast_ref::<TableHandle>(),
        _ => None,
    }
}

pub fn db_value(d: DbHandle) -> Value {
    Value::Handle(Arc::new(d))
}

pub fn table_value(db: Arc<DbHandle>, name: &str) -> Value {
    Value::Handle(Arc::new(TableHandle { db, name: name.to_string() }))
}

#[cfg(test)]
#[path = "source_tests.rs"]
mod source_tests;
