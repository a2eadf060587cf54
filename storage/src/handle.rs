//! Database and table handles (values of type HANDLE).

use crate::catalog::{self, DbMeta};
use crate::partition::Level;
use beluga_runtime::value::Handle;
use beluga_runtime::{Error, Result, Value};
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
