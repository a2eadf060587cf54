//! Database builtins: database, createPartitionedTable, createTable, loadTable, append!,
//! tableInsert, existsDatabase, dropDatabase, existsTable, dropTable, dropPartition,
//! truncate, getTables, schema. Queries, indexing and `append!` reach stored tables
//! through the table handle's `TableSource` (`handle.rs`), not through builtins.

use beluga_runtime::CallCtx;
use crate::catalog::{self, DbMeta};
use crate::handle::{as_db, as_table, db_value, table_value, DbHandle, TableHandle};
use crate::partition::Level;
use crate::store::Appender;
use beluga_runtime::column::Column;
use beluga_runtime::table_source::TableSource;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

pub fn str_of<'a>(f: &str, v: &'a Value, what: &str) -> Result<&'a str> {
    v.as_str().ok_or_else(|| Error::arg(format!("The {what} argument of [{f}] must be a string")))
}

fn opt(args: &[Value], k: usize) -> Option<&Value> {
    args.get(k).filter(|v| !matches!(v, Value::Void))
}

/// Column names from a string scalar or vector.
pub fn names_of(f: &str, v: &Value) -> Result<Vec<String>> {
    match v {
        Value::Scalar(c) | Value::Vector(c) if c.ty.is_literal() => Ok((0..c.len()).map(|i| c.str_at(i).unwrap_or("").to_string()).collect()),
        Value::Tuple(t) => t.iter().map(|x| str_of(f, x, "column name").map(|s| s.to_string())).collect(),
        Value::Void => Ok(vec![]),
        _ => Err(Error::arg(format!("The column names given to [{f}] must be strings"))),
    }
}

fn db_arg(f: &str, v: &Value) -> Result<Arc<DbHandle>> {
    if let Some(d) = as_db(v) {
        return Ok(d);
    }
    if let Some(p) = v.as_str() {
        return open_db(p);
    }
    Err(Error::arg(format!("The first argument of [{f}] must be a database handle")))
}

pub fn open_db(path: &str) -> Result<Arc<DbHandle>> {
    let dir = catalog::db_dir(path)?.ok_or_else(|| Error::arg("The database path can't be empty"))?;
    if !catalog::db_exists(&dir) {
        return Err(Error::name(format!("The database {path} doesn't exist")));
    }
    let meta = catalog::read_db_meta(&dir)?;
    Ok(Arc::new(DbHandle { path: path.to_string(), dir: Some(dir), meta }))
}

fn table_arg(f: &str, v: &Value) -> Result<Arc<Table>> {
    match v {
        Value::Table(t) => Ok(t.clone()),
        _ => Err(Error::arg(format!("The table argument of [{f}] must be a table"))),
    }
}

fn same_scheme(a: &[Level], b: &[Level]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.type_id() == y.type_id() && x.key_type() == y.key_type())
}

/// `database(directory, [partitionType], [partitionScheme], [locations], [engine], [atomic], [chunkGranularity])`
pub fn database(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let path = match args.first() {
        Some(Value::Void) | None => "",
        Some(v) => str_of("database", v, "directory")?,
    };
    let engine = opt(&args, 4).and_then(|v| v.as_str()).unwrap_or("OLAP").to_uppercase();
    let Some(kind) = opt(&args, 1) else {
        return Ok(db_value(Arc::unwrap_or_clone(open_db(path)?)));
    };
    let kind = kind.as_i64().ok_or_else(|| Error::arg("Invalid partition type"))? as i32;
    let scheme = opt(&args, 2).ok_or_else(|| Error::arg("The partition scheme is missing"))?;
    let levels = if kind == 4 {
        let items: Vec<Value> = match scheme {
            Value::Tuple(t) => t.iter().cloned().collect(),
            v @ Value::Handle(_) => vec![v.clone()],
            _ => return Err(Error::arg("A COMPO partition scheme is a vector of database handles")),
        };
        if !(2..=3).contains(&items.len()) {
            return Err(Error::arg("A COMPO database has two or three levels"));
        }
        let mut levels = Vec::new();
        for it in &items {
            let d = as_db(it).ok_or_else(|| Error::arg("A COMPO partition scheme is a vector of database handles"))?;
            if d.meta.levels.len() != 1 {
                return Err(Error::arg("The levels of a COMPO database must be single-level databases"));
            }
            levels.push(d.meta.levels[0].clone());
        }
        levels
    } else {
        vec![Level::new(kind, scheme)?]
    };
    let meta = DbMeta { levels, engine };
    let Some(dir) = catalog::db_dir(path)? else {
        return Ok(db_value(DbHandle { path: String::new(), dir: None, meta }));
    };
    if catalog::db_exists(&dir) {
        let old = catalog::read_db_meta(&dir)?;
        if !same_scheme(&old.levels, &meta.levels) {
            return Err(Error::runtime(format!("The database {path} already exists with a different partition scheme")));
        }
        return Ok(db_value(DbHandle { path: path.to_string(), dir: Some(dir), meta: old }));
    }
    if let Some(other) = catalog::foreign_entry(&dir)? {
        return Err(Error::runtime(format!(
            "The folder {} is not empty and is not a database (it holds {other}); choose an empty or new folder",
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir).map_err(|e| catalog::io_err(&dir, e))?;
    let _lock = catalog::DbLock::acquire(&dir)?;
    if !catalog::db_exists(&dir) {
        catalog::write_db_meta(&dir, &meta)?;
    }
    Ok(db_value(DbHandle { path: path.to_string(), dir: Some(dir), meta }))
}

fn create(i: &CallCtx, args: &[Value], f: &str, partitioned: bool) -> Result<Value> {
    let db = db_arg(f, &args[0])?;
    let t = table_arg(f, &args[1])?;
    let name = str_of(f, &args[2], "tableName")?;
    catalog::check_table_name(name)?;
    let part_cols = if partitioned { names_of(f, args.get(3).unwrap_or(&Value::Void))? } else { vec![] };
    if partitioned && part_cols.is_empty() {
        return Err(Error::arg(format!("[{f}] needs the partitioning column(s)")));
    }
    for pc in part_cols.iter().filter(|p| crate::partfn::is_call(p)) {
        let (fname, _, _) = crate::partfn::check(pc, &t.names)?;
        if !i.is_function_name(&fname) {
            return Err(Error::arg(format!("[{f}] The partitioning function {fname} is not defined")));
        }
    }
    let dir = db.dir()?.clone();
    let types: Vec<DataType> = t.cols.iter().map(|c| if c.ty == DataType::Void { DataType::Double } else { c.ty }).collect();
    // sortColumns / keepDuplicates: positions 5, 6 (partitioned) or 4, 5 (dimension); the
    // manual gives them effect on TSDB databases only
    let (sk, kk) = if partitioned { (5, 6) } else { (4, 5) };
    let mut ap = Appender::create(&dir, name, t.names.clone(), types, part_cols)?;
    if db.meta.engine.eq_ignore_ascii_case("TSDB") {
        let sort_cols = match opt(args, sk) {
            Some(v) => names_of(f, v)?,
            None => vec![],
        };
        for c in &sort_cols {
            if ap.meta.col_index(c).is_none() {
                return Err(Error::arg(format!("[{f}] The sort column {c} is not a column of the table")));
            }
        }
        let keep = match opt(args, kk) {
            Some(v) => catalog::KeepDup::from_value(v)?,
            None => catalog::KeepDup::All,
        };
        ap.meta.opts.sort_cols = sort_cols.iter().map(|c| ap.meta.names[ap.meta.col_index(c).unwrap_or(0)].clone()).collect();
        ap.meta.opts.keep = keep;
    }
    ap.commit()?;
    Ok(table_value(db, name))
}

pub fn create_partitioned_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    create(i, &args, "createPartitionedTable", true)
}

pub fn create_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    create(i, &args, "createTable", false)
}

/// `loadTable(database, tableName)`.
pub fn load_table(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let db = db_arg("loadTable", &args[0])?;
    let name = str_of("loadTable", &args[1], "tableName")?;
    let dir = db.dir()?;
    catalog::table_dir(dir, name)?;
    if !catalog::table_exists(dir, name) {
        return Err(Error::name(format!("The table {name} doesn't exist in the database {}", db.path)));
    }
    // read the manifest now (as DolphinDB loads the metadata here), not in the first query;
    // a damaged one is reported by the query that needs it, as before
    let _ = crate::cache::table_state(dir, name);
    Ok(table_value(db, name))
}

pub fn exists_database(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let p = str_of("existsDatabase", &args[0], "dbUrl")?;
    Ok(Value::bool(catalog::db_dir(p)?.is_some_and(|d| catalog::db_exists(&d))))
}

pub fn drop_database(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let p = str_of("dropDatabase", &args[0], "dbUrl")?;
    let dir = catalog::db_dir(p)?.ok_or_else(|| Error::arg("The database path can't be empty"))?;
    if !catalog::db_exists(&dir) {
        return Err(Error::name(format!("The database {p} doesn't exist")));
    }
    crate::cache::forget(&dir);
    catalog::drop_database_files(&dir)?;
    Ok(Value::Void)
}

pub fn exists_table(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let p = str_of("existsTable", &args[0], "dbUrl")?;
    let name = str_of("existsTable", &args[1], "tableName")?;
    Ok(Value::bool(catalog::db_dir(p)?.is_some_and(|d| catalog::db_exists(&d) && catalog::table_exists(&d, name))))
}

pub fn drop_table(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let db = db_arg("dropTable", &args[0])?;
    let name = str_of("dropTable", &args[1], "tableName")?;
    let dir = db.dir()?;
    let tdir = catalog::table_dir(dir, name)?;
    let _lock = catalog::DbLock::acquire(dir)?;
    if !catalog::table_exists(dir, name) {
        return Err(Error::name(format!("The table {name} doesn't exist in the database {}", db.path)));
    }
    let _ = std::fs::remove_file(tdir.join("CURRENT"));
    catalog::sync_dir(&tdir);
    crate::cache::forget(&tdir);
    catalog::remove_tree(&tdir)?;
    Ok(Value::Void)
}

/// `clearAllCache()`: drop the cached data of stored tables (decoded columns, manifests).
pub fn clear_all_cache(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    crate::cache::clear();
    Ok(Value::Void)
}

/// `clearCachedDatabase(dbUrl, [tableName])`: drop the cached data of one database or table.
pub fn clear_cached_database(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let p = str_of("clearCachedDatabase", &args[0], "dbUrl")?;
    let dir = catalog::db_dir(p)?.ok_or_else(|| Error::arg("The database path can't be empty"))?;
    match opt(&args, 1) {
        Some(t) => crate::cache::forget(&catalog::table_dir(&dir, str_of("clearCachedDatabase", t, "tableName")?)?),
        None => crate::cache::forget(&dir),
    }
    Ok(Value::Void)
}

pub fn get_tables(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let db = db_arg("getTables", &args[0])?;
    let dir = db.dir()?;
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| catalog::io_err(dir, e))?
        .flatten()
        .filter(|e| e.path().join("CURRENT").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(Value::string_vec(names.iter().map(|s| s.as_str())))
}

/// `truncate(dbUrl, tableName)`: delete every row, keep the schema.
pub fn truncate(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let db = db_arg("truncate", &args[0])?;
    let name = str_of("truncate", &args[1], "tableName")?;
    let mut ap = Appender::open(db.dir()?, name)?;
    ap.clear();
    ap.commit()?;
    Ok(Value::Void)
}

/// `dropPartition(dbHandle, partitionPaths, tableName)`: paths ("/20170807/0_50") or values.
pub fn drop_partition(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let db = db_arg("dropPartition", &args[0])?;
    let dir = db.dir()?.clone();
    let tables: Vec<String> = match opt(&args, 2) {
        Some(v) => vec![str_of("dropPartition", v, "tableName")?.to_string()],
        None => match get_tables(_i, vec![args[0].clone()])? {
            Value::Vector(c) => (0..c.len()).map(|k| c.str_at(k).unwrap_or("").to_string()).collect(),
            _ => vec![],
        },
    };
    for t in tables {
        let mut ap = Appender::open(&dir, &t)?;
        let levels = ap.levels().to_vec();
        let keep: Vec<bool> = select_parts(&ap.meta, &levels, &args[1], "dropPartition")?.into_iter().map(|s| !s).collect();
        let mut k = 0;
        ap.meta.parts.retain(|_| {
            k += 1;
            keep[k - 1]
        });
        ap.commit()?;
    }
    Ok(Value::Void)
}

/// Which partitions of a table `sel` names (true = named), as `dropPartition` and `backup`
/// take them: partition paths relative to the database ("/20170807/0_50"; a path names
/// the partitions under it too), or values of the partitioning columns: a scalar or
/// vector for the first level, or a tuple with one entry per level (an empty entry
/// names every partition of its level; a RANGE level is named by a value inside it).
pub fn select_parts(meta: &catalog::TableMeta, levels: &[Level], sel: &Value, f: &str) -> Result<Vec<bool>> {
    if let Value::Scalar(c) | Value::Vector(c) = sel {
        if c.ty.is_literal() && c.str_at(0).is_some_and(|s| s.starts_with('/')) {
            let p: Vec<String> = (0..c.len()).map(|k| c.str_at(k).unwrap_or("").trim_matches('/').to_string()).collect();
            return Ok(meta.parts.iter().map(|part| p.iter().any(|x| *x == part.dir || part.dir.starts_with(&format!("{x}/")))).collect());
        }
    }
    let per_level: Vec<Option<Column>> = match sel {
        Value::Tuple(items) => items.iter().map(|v| v.column().cloned()).collect(),
        v => vec![v.column().cloned()],
    };
    let mut masks = Vec::new();
    for (l, vals) in per_level.iter().enumerate() {
        let Some(vals) = vals else {
            masks.push(None);
            continue;
        };
        let lv = levels.get(l).ok_or_else(|| Error::arg(format!("Too many partition levels in [{f}]")))?;
        let pc = meta.part_cols.get(l).cloned().unwrap_or_default();
        let k = crate::partition::conform(vals, lv.key_type(), &pc)?;
        masks.push(Some(lv.prune_in(&k)?));
    }
    Ok(meta
        .parts
        .iter()
        .map(|part| {
            masks.iter().enumerate().all(|(l, m)| match m {
                Some(m) => part.key.get(l).is_some_and(|&k| m.get(k as usize).copied().unwrap_or(false)),
                None => true,
            })
        })
        .collect())
}

// ------------------------------------------------------------------ handle hooks

fn handle_arg<'a>(f: &str, v: &'a Value) -> Result<&'a TableHandle> {
    as_table(v).ok_or_else(|| Error::arg(format!("[{f}] expects a stored table handle")))
}

/// Append a table (or tuple of columns) to a stored table; the number of rows added.
/// A table partitioned by a function of a column evaluates it in the session `i`.
pub fn append_to(i: &mut CallCtx, h: &TableHandle, data: &Value) -> Result<u64> {
    use beluga_runtime::value::Handle;
    match h.session_append(i, data) {
        Some(r) => r,
        None => h.append_value(data),
    }
}

/// `append!` on a stored table.
pub fn handle_append(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let h = handle_arg("append!", &args[0])?;
    append_to(i, h, &args[1])?;
    Ok(args[0].clone())
}

/// The whole stored table as an in-memory table.
pub fn materialize(h: &TableHandle) -> Result<Table> {
    h.table()
}

// ------------------------------------------------------------------ schema

fn str_col(v: &[String]) -> Column {
    Column::new(DataType::String, beluga_runtime::column::ColData::Str(beluga_runtime::StrCol::from_iter(v.iter().map(|s| s.as_str()))))
}

pub fn db_schema(d: &DbHandle) -> Result<Value> {
    let levels = d.levels()?;
    let scheme = if levels.len() == 1 { levels[0].scheme_value() } else { Value::tuple(levels.iter().map(|l| l.scheme_value()).collect()) };
    let (ptype, pname) = if levels.len() == 1 {
        (Value::int(levels[0].type_id()), Value::string(levels[0].type_name()))
    } else {
        (
            Value::int_vec(levels.iter().map(|l| l.type_id()).collect()),
            Value::string_vec(levels.iter().map(|l| l.type_name())),
        )
    };
    let keys = ["databaseDir", "partitionSchema", "partitionSites", "engineType", "atomic", "partitionType", "partitionTypeName", "partitionColumnType"];
    let ctype = if levels.len() == 1 { Value::int(levels[0].key_type().id()) } else { Value::int_vec(levels.iter().map(|l| l.key_type().id()).collect()) };
    let vals = vec![Value::string(&d.path), scheme, Value::Void, Value::string(&d.meta.engine), Value::string("TRANS"), ptype, pname, ctype];
    beluga_runtime::eval::build_dict_pub(&keys.iter().map(|k| Value::string(k)).collect::<Vec<_>>(), vals, true)
}

pub fn table_schema(h: &TableHandle) -> Result<Value> {
    let meta = h.meta()?;
    let n = meta.names.len();
    let types: Vec<String> = meta.types.iter().map(|t| t.full_name()).collect();
    let col_defs = Table::new(
        vec!["name".into(), "typeString".into(), "typeInt".into(), "extra".into(), "comment".into()],
        vec![
            str_col(&meta.names),
            str_col(&types),
            Column::from_vec(DataType::Int, meta.types.iter().map(|t| t.id()).collect::<Vec<i32>>()),
            Column::nulls(DataType::Int, n),
            str_col(&(0..n).map(|k| meta.opts.comments.get(k).cloned().unwrap_or_default()).collect::<Vec<_>>()),
        ],
    )?;
    let mut keys = vec!["engineType", "colDefs", "chunkPath", "tableComment"];
    let mut vals = vec![Value::string(&h.db.meta.engine), Value::table(col_defs), Value::string(""), Value::string(&meta.opts.table_comment)];
    if h.db.meta.engine.eq_ignore_ascii_case("TSDB") {
        keys.extend(["sortColumns", "keepDuplicates"]);
        vals.push(Value::string_vec(meta.opts.sort_cols.iter().map(|s| s.as_str())));
        vals.push(Value::string(meta.opts.keep.name()));
    }
    if meta.part_cols.is_empty() {
        keys.push("partitionColumnIndex");
        vals.push(Value::int(-1));
    } else {
        let levels = h.db.levels()?;
        let idx: Vec<i32> = meta.part_cols.iter().map(|c| meta.col_index(c).map(|k| k as i32).unwrap_or(-1)).collect();
        let one = levels.len() == 1;
        // partitionColumnType: the API clients' PartitionedTableAppender builds its domain from it
        keys.extend(["partitionColumnIndex", "partitionColumnName", "partitionSchema", "partitionType", "partitionTypeName", "partitionColumnType"]);
        vals.push(if one { Value::int(idx[0]) } else { Value::int_vec(idx) });
        vals.push(if one { Value::string(&meta.part_cols[0]) } else { Value::string_vec(meta.part_cols.iter().map(|s| s.as_str())) });
        vals.push(if one { levels[0].scheme_value() } else { Value::tuple(levels.iter().map(|l| l.scheme_value()).collect()) });
        vals.push(if one { Value::int(levels[0].type_id()) } else { Value::int_vec(levels.iter().map(|l| l.type_id()).collect()) });
        vals.push(if one { Value::string(levels[0].type_name()) } else { Value::string_vec(levels.iter().map(|l| l.type_name())) });
        let ctypes: Vec<i32> = meta.part_cols.iter().map(|c| meta.col_index(c).map(|k| meta.types[k].id()).unwrap_or(0)).collect();
        vals.push(if one { Value::int(ctypes[0]) } else { Value::int_vec(ctypes) });
    }
    beluga_runtime::eval::build_dict_pub(&keys.iter().map(|k| Value::string(k)).collect::<Vec<_>>(), vals, true)
}

// ------------------------------------------------------------------ schema changes (alter table)

fn type_of(f: &str, v: &Value) -> Result<DataType> {
    match v {
        Value::Type(t) => Ok(*t),
        _ => match v.as_str() {
            Some(s) => DataType::from_name(s).ok_or_else(|| Error::arg(format!("[{f}] unknown type {s}"))),
            None => match v.as_i64().and_then(|k| DataType::from_id(k as i32)) {
                Some(t) => Ok(t),
                None => Err(Error::arg(format!("[{f}] expects column types"))),
            },
        },
    }
}

/// Rewrite every partition of a stored table in one transaction after a schema change:
/// `meta` changes the manifest's schema, `cols` the columns of each partition.
fn change_schema(h: &TableHandle, meta: impl FnOnce(&mut catalog::TableMeta) -> Result<()>, cols: impl Fn(Vec<Column>) -> Result<Vec<Column>>) -> Result<()> {
    let mut ap = Appender::open(h.db.dir()?, &h.name)?;
    let keys: Vec<Vec<u32>> = ap.meta.parts.iter().map(|p| p.key.clone()).collect();
    let mut old = Vec::with_capacity(keys.len());
    for k in &keys {
        if let Some(c) = ap.read_part(k)? {
            old.push(c);
        }
    }
    meta(&mut ap.meta)?;
    ap.clear();
    let names = ap.meta.names.clone();
    for c in old {
        ap.push(&Table::new(names.clone(), cols(c)?)?, None)?;
    }
    ap.commit()?;
    crate::cache::forget(&h.dir()?);
    Ok(())
}

/// `addColumn` on a stored table: new columns, null in the rows already stored.
pub fn stored_add_column(h: &TableHandle, args: &[Value]) -> Result<()> {
    let names = names_of("addColumn", &args[1])?;
    let types: Vec<DataType> = match &args[2] {
        Value::Tuple(t) => t.iter().map(|v| type_of("addColumn", v)).collect::<Result<_>>()?,
        Value::Vector(c) => (0..c.len()).map(|k| type_of("addColumn", &Value::Scalar(c.slice(k, k + 1)))).collect::<Result<_>>()?,
        v => vec![type_of("addColumn", v)?],
    };
    if names.len() != types.len() {
        return Err(Error::arg("The number of column names and column types of [addColumn] must be the same"));
    }
    let add = types.clone();
    change_schema(
        h,
        |m| {
            for (n, t) in names.iter().zip(&types) {
                if m.col_index(n).is_some() {
                    return Err(Error::arg(format!("The column [{n}] already exists")));
                }
                m.opts.comments.resize(m.names.len(), String::new());
                m.names.push(n.clone());
                m.types.push(*t);
                m.opts.comments.push(String::new());
            }
            Ok(())
        },
        |mut c| {
            let rows = c.first().map_or(0, |x| x.len());
            c.extend(add.iter().map(|t| Column::nulls(*t, rows)));
            Ok(c)
        },
    )
}

/// `dropColumns!` on a stored table (OLAP only, as the manual's alter page says).
pub fn stored_drop_columns(h: &TableHandle, args: &[Value]) -> Result<()> {
    if h.db.meta.engine.eq_ignore_ascii_case("TSDB") {
        return Err(Error::unsupported("dropColumns!", "a TSDB table (the TSDB engine only adds columns)"));
    }
    let names = names_of("dropColumns!", &args[1])?;
    let m = h.meta()?;
    let mut drop = vec![false; m.names.len()];
    for n in &names {
        let k = m.col_index(n).ok_or_else(|| Error::name(format!("Unrecognized column name [{n}]")))?;
        if m.part_cols.iter().any(|p| p.eq_ignore_ascii_case(&m.names[k])) {
            return Err(Error::arg(format!("Can't drop the partitioning column {n}")));
        }
        drop[k] = true;
    }
    let keep = drop.clone();
    change_schema(
        h,
        |m| {
            m.opts.comments.resize(m.names.len(), String::new());
            let mut k = 0;
            m.names.retain(|_| { k += 1; !drop[k - 1] });
            k = 0;
            m.types.retain(|_| { k += 1; !drop[k - 1] });
            k = 0;
            m.opts.comments.retain(|_| { k += 1; !drop[k - 1] });
            Ok(())
        },
        |c| Ok(c.into_iter().zip(&keep).filter(|(_, d)| !**d).map(|(c, _)| c).collect()),
    )
}

/// Whether `replaceColumn!` may change a stored column from `from` to `to` (the manual's
/// rules for OLAP tables, funcs/r/replaceColumn_: no SYMBOL either way; types of one
/// category among themselves; integral and floating both ways; integral, floating,
/// literal and temporal to STRING; DECIMAL with STRING, integral, floating, DECIMAL).
pub fn replace_type_ok(from: DataType, to: DataType) -> bool {
    use beluga_runtime::types::Category as C;
    if from == DataType::Symbol || to == DataType::Symbol || from.array_elem().is_some() || to.array_elem().is_some() {
        return false;
    }
    let (a, b) = (from.category(), to.category());
    let num = |c: C| matches!(c, C::Integral | C::Logical | C::Floating);
    (a == b && !matches!(a, C::System | C::Mixed | C::Nothing))
        || (num(a) && num(b))
        || (to == DataType::String && (num(a) || matches!(a, C::Literal | C::Temporal | C::Decimal)))
        || (a == C::Decimal && (num(b) || b == C::Decimal))
        || (b == C::Decimal && (num(a) || from == DataType::String))
}

/// `replaceColumn!(t, colName, newCol)` on a stored table: `newCol` gives only the new type
/// of column `colName` (the manual: on an OLAP DFS table it changes the type); every
/// partition is rewritten with the converted column in one transaction, so a value that
/// does not convert leaves the table as it was.
pub fn stored_replace_column(h: &TableHandle, args: &[Value]) -> Result<()> {
    let f = "replaceColumn!";
    if h.db.meta.engine.eq_ignore_ascii_case("TSDB") {
        return Err(Error::unsupported(f, "a TSDB table (only OLAP tables change column types)"));
    }
    let names = names_of(f, &args[1])?;
    let [name] = names.as_slice() else {
        return Err(Error::arg(format!("[{f}] on a stored table takes one column name")));
    };
    let to = match &args[2] {
        Value::Vector(c) | Value::Scalar(c) => c.ty,
        Value::Type(t) => *t,
        _ => return Err(Error::arg(format!("[{f}] newCol must be a vector of the new type"))),
    };
    let m = h.meta()?;
    let k = m.col_index(name).ok_or_else(|| Error::name(format!("Unrecognized column name [{name}]")))?;
    if m.part_cols.iter().any(|p| p.eq_ignore_ascii_case(&m.names[k])) {
        return Err(Error::arg(format!("The column {name} to be modified cannot be a partitioning column")));
    }
    let from = m.types[k];
    if from == to {
        return Ok(());
    }
    if to == DataType::Void || !replace_type_ok(from, to) {
        return Err(Error::type_err(format!("[{f}] can't change the column {name} of a stored table from {from} to {to}")));
    }
    change_schema(
        h,
        |m| {
            m.types[k] = to;
            Ok(())
        },
        |mut c| {
            c[k] = if from.is_temporal() && to.is_temporal() {
                beluga_runtime::kernels::temporal_to(&c[k], to)?
            } else {
                beluga_runtime::kernels::cast::cast_column(&c[k], to)?
            };
            Ok(c)
        },
    )
}

/// `rename!(t, old, new)` on a stored table (OLAP only).
pub fn stored_rename(h: &TableHandle, args: &[Value]) -> Result<()> {
    if h.db.meta.engine.eq_ignore_ascii_case("TSDB") {
        return Err(Error::unsupported("rename!", "a TSDB table (the TSDB engine only adds columns)"));
    }
    let Some(newv) = opt(args, 2) else {
        return Err(Error::arg("[rename!] on a stored table needs the old and the new column names"));
    };
    let old = names_of("rename!", &args[1])?;
    let new = names_of("rename!", newv)?;
    if old.len() != new.len() {
        return Err(Error::arg("The old and new names of [rename!] must have the same length"));
    }
    let mut ap = Appender::open(h.db.dir()?, &h.name)?;
    for (o, n) in old.iter().zip(&new) {
        catalog::check_table_name(n).map_err(|_| Error::arg(format!("Invalid column name {n}")))?;
        let k = ap.meta.col_index(o).ok_or_else(|| Error::name(format!("Unrecognized column name [{o}]")))?;
        // the manual (error S01065): rename!, dropColumns! and replaceColumn! on a DFS
        // table may not modify a partitioning column
        if ap.meta.part_cols.iter().any(|p| p.eq_ignore_ascii_case(&ap.meta.names[k])) {
            return Err(Error::arg(format!("The column {o} to be modified cannot be a partitioning column")));
        }
        if ap.meta.col_index(n).is_some_and(|j| j != k) {
            return Err(Error::arg(format!("The column [{n}] already exists")));
        }
        let was = std::mem::replace(&mut ap.meta.names[k], n.clone());
        for c in ap.meta.part_cols.iter_mut().chain(ap.meta.opts.sort_cols.iter_mut()) {
            if c.eq_ignore_ascii_case(&was) {
                *c = n.clone();
            }
        }
    }
    ap.commit()?;
    Ok(())
}

/// `setTableComment(table, comment)` on a stored table (at most 4096 bytes, as the manual
/// says); `schema(t).tableComment` shows it.
pub fn set_table_comment(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let h = as_table(&args[0]).ok_or_else(|| Error::arg("[setTableComment] expects a stored table handle"))?;
    let c = str_of("setTableComment", &args[1], "comment")?;
    if c.len() > 4096 {
        return Err(Error::arg("[setTableComment] a table comment is at most 4096 bytes"));
    }
    let mut ap = Appender::open(h.db.dir()?, &h.name)?;
    ap.meta.opts.table_comment = c.to_string();
    ap.commit()?;
    Ok(Value::Void)
}

/// `setColumnComment(table, {col: comment, …})` on a stored table.
pub fn set_column_comment(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let h = as_table(&args[0]).ok_or_else(|| Error::arg("[setColumnComment] expects a stored table handle"))?;
    let Value::Dict(d) = &args[1] else {
        return Err(Error::arg("The second argument of [setColumnComment] must be a dictionary of column names to comments"));
    };
    let ks = names_of("setColumnComment", &Value::Vector(d.keys.clone()))?;
    let vs = match &d.vals {
        beluga_runtime::value::DictVals::Col(c) => names_of("setColumnComment", &Value::Vector(c.clone()))?,
        beluga_runtime::value::DictVals::Any(v) => names_of("setColumnComment", &Value::tuple(v.clone()))?,
    };
    let mut ap = Appender::open(h.db.dir()?, &h.name)?;
    ap.meta.opts.comments.resize(ap.meta.names.len(), String::new());
    for (k, v) in ks.iter().zip(vs) {
        let c = ap.meta.col_index(k).ok_or_else(|| Error::name(format!("Unrecognized column name [{k}]")))?;
        ap.meta.opts.comments[c] = v;
    }
    ap.commit()?;
    Ok(Value::Void)
}
