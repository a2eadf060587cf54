//! Partitioned databases on disk, column files, CSV import/export, and their builtins.
//!
//! * `bin`, `column_file`: byte encoding, checksums, the LZ4 block column file format.
//! * `segment`: segment files holding all columns of one partition's segment.
//! * `partition`: VALUE/RANGE/HASH/LIST/COMPO schemes. `partfn`: levels decided by a
//!   function of a column (`partitionColumns="f(col, 8)"`), evaluated in the session.
//! * `catalog`: database and table metadata on disk, atomic commits, the writer lock.
//! * `store`: write transactions (append, overwrite) split by partition.
//! * `query`: what the planner's predicates (`table_source::Pred`) do here: partition
//!   pruning, block skipping by min/max, row masks. Storage never sees query syntax
//!   (`partfn` parses only the stored call text of a partitioning function).
//! * `load`: loading for queries: parallel decode, per-partition filters, assembly.
//! * `cache`: decoded columns and table manifests kept in memory between queries.
//! * `csv`: tokenizing, schema inference and parallel typed parsing of text files.
//! * `text`: loadText, ploadText, loadTextEx, saveText, extractTextSchema, files.
//! * `handle`: database and table handles; the table handle is the `TableSource` the
//!   executor reads through. `rewrite`: update/delete partition by partition. `upsert`:
//!   `upsert!` into stored tables in one transaction.
//! * `admin`: renameTable, existsPartition, add*Partitions, listTables, tablet/chunk metadata,
//!   saveTable, savePartition.
//! * `builtins_db`, `builtins`: the builtin table (`sqlDS`/`mr` rows point at
//!   `beluga_runtime::sql::ds`).

pub mod admin;
pub mod bin;
pub mod builtins;
pub mod builtins_db;
pub mod cache;
pub mod catalog;
pub mod column_file;
pub mod csv;
pub mod handle;
pub mod load;
mod lz4;
mod mapped;
pub mod partfn;
pub mod partition;
pub mod query;
pub mod rewrite;
pub mod backup;
pub mod segment;
mod shuffle;
pub mod store;
pub mod text;
pub mod upsert;

use beluga_runtime::Registry;

/// Register the storage builtins (after stdlib: the wrapped builtins delegate to the
/// versions registered before them for values that are not stored tables).
pub fn register(r: &mut Registry) {
    // keep the earlier row's kind, arity and parameter names; only the call changes
    builtins::WRAPPED.iter().for_each(|b| r.wrap(builtins::LAYER, b));
    r.extend(builtins::DEFS);
    r.set_caps(CAPS);
}

use beluga_runtime::registry::Cap;

/// The storage builtins that touch files (see `beluga_runtime::policy`): name, capability,
/// positions of path arguments (a database given as a path rather than a handle, a text
/// file). Deleting inside a database (`dropDatabase`, `dropTable`, `dropPartition`) is a
/// write: the catalog itself never removes anything a database did not write.
const CAPS: &[(&str, Cap, &[u8])] = &[
    ("database", Cap::WRITE, &[0]),
    ("dropDatabase", Cap::WRITE, &[0]),
    ("existsDatabase", Cap::READ, &[0]),
    ("existsTable", Cap::READ, &[0]),
    ("clearCachedDatabase", Cap::READ, &[0]),
    ("loadTable", Cap::READ, &[0]),
    ("getTables", Cap::READ, &[0]),
    ("createPartitionedTable", Cap::WRITE, &[0]),
    ("createTable", Cap::WRITE, &[0]),
    ("createDimensionTable", Cap::WRITE, &[0]),
    ("dropTable", Cap::WRITE, &[0]),
    ("dropPartition", Cap::WRITE, &[0]),
    ("truncate", Cap::WRITE, &[0]),
    ("loadText", Cap::READ, &[0]),
    ("ploadText", Cap::READ, &[0]),
    ("extractTextSchema", Cap::READ, &[0]),
    ("loadTextEx", Cap::READ.with(Cap::WRITE), &[0, 3]),
    ("saveText", Cap::WRITE, &[1]),
    ("files", Cap::READ, &[0]),
    ("renameTable", Cap::WRITE, &[0]),
    ("loadTableBySQL", Cap::READ, &[1]),
    ("setTableComment", Cap::WRITE, &[]),
    ("saveTable", Cap::WRITE, &[0]),
    ("savePartition", Cap::WRITE, &[0]),
    ("existsPartition", Cap::READ, &[0]),
    ("addValuePartitions", Cap::WRITE, &[0]),
    ("addRangePartitions", Cap::WRITE, &[0]),
    ("listTables", Cap::READ, &[0]),
    ("getTabletsMeta", Cap::READ, &[]),
    ("getChunksMeta", Cap::READ, &[]),
    ("backup", Cap::READ.with(Cap::WRITE), &[0, 1]),
    ("backupDB", Cap::READ.with(Cap::WRITE), &[0, 1]),
    ("backupTable", Cap::READ.with(Cap::WRITE), &[0, 1]),
    ("restore", Cap::READ.with(Cap::WRITE), &[0, 1]),
    ("restoreDB", Cap::READ.with(Cap::WRITE), &[0, 1, 2]),
    ("restoreTable", Cap::READ.with(Cap::WRITE), &[0, 1, 3]),
    ("migrate", Cap::READ.with(Cap::WRITE), &[0, 1, 3]),
];
