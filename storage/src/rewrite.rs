//! update/delete on stored tables, partition by partition: `__handleWholePartitions` hands
//! the executor every row of the partitions the `where` conditions may touch (with their
//! folders and the table version), and `__handleRewrite` replaces the changed partitions in
//! one transaction. Untouched partitions keep their files; the new rows go through the
//! ordinary append path, so a partitioning column set to a value of another partition
//! moves the row there, and a value outside the scheme fails the whole statement. The
//! manifest swap of the commit is the only visible change (a crash leaves the old or the
//! new version).

use crate::handle::{as_table, TableHandle};
use crate::store::Appender;
use beluga_runtime::column::Column;
use beluga_runtime::{DataType, Error, Interpreter, Result, Value};
use std::sync::Arc;

fn handle<'a>(f: &str, v: &'a Value) -> Result<&'a TableHandle> {
    as_table(v).ok_or_else(|| Error::arg(format!("{f}: the first argument must be a stored table")))
}

/// `__handleWholePartitions(handle, VOID, conditions)` → (version, folders, tables).
pub fn whole_partitions(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let h = handle("__handleWholePartitions", &args[0])?;
    let mut conds = Vec::new();
    for a in args.iter().skip(2) {
        match a {
            Value::Code(e) => conds.push((**e).clone()),
            Value::Tuple(items) => conds.extend(items.iter().filter_map(|x| match x {
                Value::Code(e) => Some((**e).clone()),
                _ => None,
            })),
            _ => {}
        }
    }
    let (version, dirs, tables) = crate::query::load_whole_partitions(i, h, &conds)?;
    Ok(Value::tuple(vec![
        Value::Scalar(Column::from_vec(DataType::Long, vec![version as i64])),
        Value::string_vec(dirs.iter().map(|s| s.as_str())),
        Value::tuple(tables.into_iter().map(Value::table).collect()),
    ]))
}

/// `__handleRewrite(handle, version, folders, tables)`: replace the rows of those partitions
/// by the tables' rows (routed by their partitioning columns) in one commit.
pub fn rewrite(_i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let f = "__handleRewrite";
    let h = handle(f, &args[0])?;
    let version = args[1].as_i64().ok_or_else(|| Error::arg(format!("{f}: the version must be an integer")))?;
    let dirs = crate::builtins_db::names_of(f, &args[2])?;
    let tables: Vec<Arc<beluga_runtime::Table>> = match &args[3] {
        Value::Tuple(items) => items
            .iter()
            .map(|v| match v {
                Value::Table(t) => Ok(t.clone()),
                _ => Err(Error::arg(format!("{f}: the fourth argument must be a tuple of tables"))),
            })
            .collect::<Result<_>>()?,
        _ => return Err(Error::arg(format!("{f}: the fourth argument must be a tuple of tables"))),
    };
    rewrite_parts(h, version as u64, &dirs, &tables)?;
    Ok(args[0].clone())
}

/// Replace partitions `dirs` of table version `version` by the rows of `tables`.
pub fn rewrite_parts(h: &TableHandle, version: u64, dirs: &[String], tables: &[Arc<beluga_runtime::Table>]) -> Result<()> {
    let mut ap = Appender::open(h.db.dir()?, &h.name)?;
    if ap.meta.version != version {
        return Err(Error::runtime(format!("The table {} was changed by another writer during the update; nothing was written", h.name)));
    }
    if let Some(d) = dirs.iter().find(|d| !ap.meta.parts.iter().any(|p| &p.dir == *d)) {
        return Err(Error::runtime(format!("The partition {d} of the table {} no longer exists", h.name)));
    }
    ap.meta.parts.retain(|p| !dirs.contains(&p.dir));
    for t in tables {
        ap.push(t, None)?;
    }
    ap.commit()?;
    Ok(())
}
