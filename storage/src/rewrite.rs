//! update/delete on stored tables, partition by partition: `TableSource::read_partitions`
//! hands the executor every row of the partitions the `where` predicates may touch (with
//! their folders and the table version), and `TableSource::rewrite` (here) replaces the
//! changed partitions in one transaction. Untouched partitions keep their files; the new
//! rows go through the ordinary append path, so a partitioning column set to a value of
//! another partition moves the row there, and a value outside the scheme fails the whole
//! statement. The manifest swap of the commit is the only visible change (a crash leaves
//! the old or the new version).

use crate::handle::TableHandle;
use crate::store::Appender;
use beluga_runtime::{Error, Result};
use std::sync::Arc;

/// Replace partitions `dirs` of table version `version` by the rows of `tables`.
pub fn rewrite_parts(h: &TableHandle, version: u64, dirs: &[String], tables: &[Arc<beluga_runtime::Table>]) -> Result<()> {
    let mut ap = Appender::open(h.db.dir()?, &h.name)?;
    if ap.meta.version != version {
        return Err(Error::runtime(format!("The table {} was changed by another writer during the update; nothing was written", h.name)));
    }
    if let Some(d) = dirs.iter().find(|d| !ap.meta.parts.iter().any(|p| &p.dir == *d)) {
        return Err(Error::runtime(format!("The partition {d} of the table {} no longer exists", h.name)));
    }
    // a table partitioned by a function of a column: each partition's rows go back to it
    // (no session here to evaluate the function; a partitioning column is not updated)
    let keys: Option<Vec<Vec<u32>>> = ap.meta.opts.has_part_fns().then(|| {
        dirs.iter().map(|d| ap.meta.parts.iter().find(|p| &p.dir == d).map(|p| p.key.clone()).unwrap_or_default()).collect()
    });
    ap.meta.parts.retain(|p| !dirs.contains(&p.dir));
    for (k, t) in tables.iter().enumerate() {
        match keys.as_ref().and_then(|ks| ks.get(k)) {
            Some(key) => ap.push_to_part(key.clone(), t)?,
            None => ap.push(t, None)?,
        }
    }
    ap.commit()?;
    Ok(())
}
