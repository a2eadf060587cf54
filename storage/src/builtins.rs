//! The storage builtin table, and wrappers that extend generic builtins registered
//! earlier (`append!`, `tableInsert`, `schema`, …) to stored-table handles.

use beluga_runtime::CallCtx;
use crate::builtins_db as db;
use crate::handle::{as_db, as_table};
use beluga_runtime::registry::{f, fp};
use beluga_runtime::{Builtin, Error, Kind, Result, Value};

/// The row a wrapper replaced (kept by the session's registry, `Registry::wrap`).
fn prev(i: &mut CallCtx, name: &'static str, args: Vec<Value>) -> Result<Value> {
    if !i.registry().wrapped.contains_key(&(LAYER, name)) {
        return Err(Error::unsupported(name, beluga_runtime::eval::ops::describe(args.first().unwrap_or(&Value::Void))));
    }
    i.call_wrapped(LAYER, name, args).unwrap_or(Ok(Value::Void))
}

/// The layer name storage's wrappers are kept under (`Registry::wrap`).
pub const LAYER: &str = "storage";

fn append(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if as_table(&args[0]).is_some() {
        return db::handle_append(i, args);
    }
    prev(i, "append!", args)
}

fn table_insert(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        let data = if args.len() == 2 { args[1].clone() } else { Value::tuple(args[1..].to_vec()) };
        let n = db::append_to(i, h, &data)?;
        *i.inplace_out() = Some(args[0].clone());
        return Ok(Value::int(n as i32));
    }
    prev(i, "tableInsert", args)
}

fn schema(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        return db::table_schema(h);
    }
    if let Some(d) = as_db(&args[0]) {
        return db::db_schema(&d);
    }
    prev(i, "schema", args)
}

fn column_names(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        let m = h.meta()?;
        return Ok(Value::string_vec(m.names.iter().map(|s| s.as_str())));
    }
    prev(i, "columnNames", args)
}

fn rows(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        return Ok(Value::int(h.meta()?.rows() as i32));
    }
    prev(i, "rows", args)
}

fn size(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        return Ok(Value::int(h.meta()?.rows() as i32));
    }
    prev(i, "size", args)
}

fn add_column(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        db::stored_add_column(h, &args)?;
        return Ok(args[0].clone());
    }
    prev(i, "addColumn", args)
}

fn drop_columns(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        db::stored_drop_columns(h, &args)?;
        return Ok(args[0].clone());
    }
    prev(i, "dropColumns!", args)
}

fn rename(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        db::stored_rename(h, &args)?;
        return Ok(args[0].clone());
    }
    prev(i, "rename!", args)
}

fn replace_column(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        db::stored_replace_column(h, &args)?;
        return Ok(args[0].clone());
    }
    prev(i, "replaceColumn!", args)
}

fn upsert(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    if let Some(h) = as_table(&args[0]) {
        crate::upsert::upsert_stored(i, h, &args)?;
        return Ok(args[0].clone());
    }
    prev(i, "upsert!", args)
}

/// `tableUpsert(obj, newData, [ignoreNull], [keyColNames], [sortColumns])`: `upsert!` that
/// returns a LONG pair, rows inserted : rows updated. For a stored table both counts come
/// from the write; an in-memory keyed or indexed table is stdlib's (table.rs).
fn table_upsert(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let pair = |a: u64, b: u64| Value::Pair(beluga_runtime::Column::from_vec(beluga_runtime::DataType::Long, vec![a as i64, b as i64]));
    if let Some(h) = as_table(&args[0]) {
        let (ins, upd) = crate::upsert::upsert_stored(i, h, &args)?;
        return Ok(pair(ins, upd));
    }
    // in-memory keyed and indexed tables: stdlib's, in place
    prev(i, "tableUpsert", args)
}

/// Builtins that keep working on values they handled before and learn stored tables.
pub const WRAPPED: &[Builtin] = &[
    fp("addColumn", Kind::System, 3, 3, add_column, &["table", "colNames", "colTypes"]),
    f("append!", Kind::System, 2, 2, append),
    fp("dropColumns!", Kind::System, 2, 2, drop_columns, &["table", "colNames"]),
    fp("rename!", Kind::System, 2, 3, rename, &["X", "Y", "Z"]),
    fp("columnNames", Kind::System, 1, 1, column_names, &["X"]),
    fp("replaceColumn!", Kind::System, 3, 3, replace_column, &["table", "colName", "newCol"]),
    f("rows", Kind::System, 1, 1, rows),
    fp("schema", Kind::System, 1, 1, schema, &["table"]),
    f("size", Kind::System, 1, 1, size),
    f("tableInsert", Kind::System, 2, u8::MAX, table_insert),
    fp("upsert!", Kind::System, 2, 5, upsert, &["obj", "newData", "ignoreNull", "keyColNames", "sortColumns"]),
    fp("tableUpsert", Kind::System, 2, 5, table_upsert, &["obj", "newData", "ignoreNull", "keyColNames", "sortColumns"]),
];

pub const DEFS: &[Builtin] = &[
    fp("backup", Kind::System, 2, 8, crate::backup::backup, &["backupDir", "dbPath", "force", "parallel", "snapshot", "tableName", "partition", "keyPath"]),
    fp("backupDB", Kind::System, 2, 3, crate::backup::backup_db, &["backupDir", "dbPath", "keyPath"]),
    fp("backupTable", Kind::System, 3, 4, crate::backup::backup_table, &["backupDir", "dbPath", "tableName", "keyPath"]),
    fp("restore", Kind::System, 4, 9, crate::backup::restore, &["backupDir", "dbPath", "tableName", "partition", "force", "outputTable", "parallel", "snapshot", "keyPath"]),
    fp("restoreDB", Kind::System, 2, 4, crate::backup::restore_db, &["backupDir", "dbPath", "newDBPath", "keyPath"]),
    fp("restoreTable", Kind::System, 3, 6, crate::backup::restore_table, &["backupDir", "dbPath", "tableName", "newDBPath", "newTableName", "keyPath"]),
    fp("migrate", Kind::System, 1, 6, crate::backup::migrate, &["backupDir", "backupDBPath", "backupTableName", "newDBPath", "newTableName", "keyPath"]),
    f("clearAllCache", Kind::System, 0, 0, db::clear_all_cache),
    fp("addRangePartitions", Kind::System, 2, 4, crate::admin::add_range_partitions, &["dbHandle", "newRanges", "level", "locations"]),
    fp("addValuePartitions", Kind::System, 2, 4, crate::admin::add_value_partitions, &["dbHandle", "newValues", "level", "locations"]),
    fp("existsPartition", Kind::System, 1, 2, crate::admin::exists_partition, &["partitionUrl", "tableName"]),
    fp("getChunksMeta", Kind::System, 0, 2, crate::admin::get_chunks_meta, &["chunkPath", "top"]),
    fp("getTabletsMeta", Kind::System, 0, 4, crate::admin::get_tablets_meta, &["chunkPath", "tableName", "diskUsage", "top"]),
    fp("listTables", Kind::System, 1, 1, crate::admin::list_tables, &["dbUrl"]),
    fp("renameTable", Kind::System, 3, 3, crate::admin::rename_table, &["dbHandle", "tableName", "newTableName"]),
    fp("clearCachedDatabase", Kind::System, 1, 2, db::clear_cached_database, &["dbUrl", "tableName"]),
    fp("createDimensionTable", Kind::System, 3, 8, db::create_table, &["dbHandle", "table", "tableName", "compressMethods", "sortColumns", "keepDuplicates", "softDelete", "primaryKey"]),
    fp("createPartitionedTable", Kind::System, 4, 10, db::create_partitioned_table, &["dbHandle", "table", "tableName", "partitionColumns", "compressMethods", "sortColumns", "keepDuplicates", "sortKeyMappingFunction", "softDelete", "indexes"]),
    fp("createTable", Kind::System, 3, 8, db::create_table, &["dbHandle", "table", "tableName", "compressMethods", "sortColumns", "keepDuplicates", "softDelete", "primaryKey"]),
    fp("savePartition", Kind::System, 3, 4, crate::admin::save_partition, &["dbHandle", "table", "tableName", "compression"]),
    fp("saveTable", Kind::System, 2, 5, crate::admin::save_table, &["dbHandle", "table", "tableName", "append", "compression"]),
    fp("setTableComment", Kind::System, 2, 2, db::set_table_comment, &["table", "comment"]),
    fp("setColumnComment", Kind::System, 2, 2, db::set_column_comment, &["table", "columnComments"]),
    fp("database", Kind::System, 0, 7, db::database, &["directory", "partitionType", "partitionScheme", "locations", "engine", "atomic", "chunkGranularity"]),
    fp("dropDatabase", Kind::System, 1, 1, db::drop_database, &["dbUrl"]),
    fp("dropPartition", Kind::System, 2, 5, db::drop_partition, &["dbHandle", "partitionPaths", "tableName", "forceDelete", "deleteSchema"]),
    fp("dropTable", Kind::System, 2, 2, db::drop_table, &["dbHandle", "tableName"]),
    fp("existsDatabase", Kind::System, 1, 1, db::exists_database, &["dbUrl"]),
    fp("existsTable", Kind::System, 2, 2, db::exists_table, &["dbUrl", "tableName"]),
    fp("extractTextSchema", Kind::System, 1, 3, crate::text::extract_text_schema, &["filename", "delimiter", "skipRows"]),
    fp("files", Kind::System, 1, 2, crate::text::files, &["directory", "pattern"]),
    fp("getTables", Kind::System, 1, 1, db::get_tables, &["dbHandle"]),
    fp("loadTableBySQL", Kind::System, 1, 3, beluga_runtime::sql::ds::load_table_by_sql, &["tableName", "dbPath", "sql"]),
    fp("loadTable", Kind::System, 2, 4, db::load_table, &["database", "tableName", "partitions", "memoryMode"]),
    fp("loadText", Kind::System, 1, 7, crate::text::load_text, &["filename", "delimiter", "schema", "skipRows", "arrayDelimiter", "containHeader", "arrayMarker"]),
    fp("loadTextEx", Kind::System, 4, 13, crate::text::load_text_ex, &["dbHandle", "tableName", "partitionColumns", "filename", "delimiter", "schema", "skipRows", "transform", "sortColumns", "atomic", "arrayDelimiter", "containHeader", "arrayMarker"]),
    fp("ploadText", Kind::System, 1, 7, crate::text::load_text, &["filename", "delimiter", "schema", "skipRows", "arrayDelimiter", "containHeader", "arrayMarker"]),
    fp("saveText", Kind::System, 2, 6, crate::text::save_text, &["obj", "filename", "delimiter", "append", "header", "bom"]),
    fp("repartitionDS", Kind::System, 1, 5, beluga_runtime::sql::ds::repartition_ds, &["query", "column", "partitionType", "partitionScheme", "local"]),
    fp("replayDS", Kind::System, 1, 4, beluga_runtime::sql::ds::replay_ds, &["sqlObj", "dateColumn", "timeColumn", "timeRepartitionSchema"]),
    fp("sqlDS", Kind::System, 1, 2, beluga_runtime::sql::ds::sql_ds, &["sqlObj", "forcePartition"]),
    fp("mr", Kind::System, 2, 5, beluga_runtime::sql::ds::mr, &["ds", "mapFunc", "reduceFunc", "finalFunc", "parallel"]),
    fp("imr", Kind::System, 6, 7, beluga_runtime::sql::ds::imr, &["ds", "initValue", "mapFunc", "reduceFunc", "finalFunc", "terminateFunc", "carryover"]),
    fp("truncate", Kind::System, 2, 2, db::truncate, &["dbUrl", "tableName"]),
];
