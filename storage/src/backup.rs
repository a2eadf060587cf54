//! Backup and restore of on-disk databases on one node: `backup`, `backupDB`,
//! `backupTable`, `restore`, `restoreDB`, `restoreTable`, `migrate` (funcs/b/backup.md,
//! funcs/r/restore.md, funcs/m/migrate.md; tutorials/backup-restore-new.md).
//!
//! Why this shape: a backup folder holds, for each database backed up into it, a database
//! of the same scheme (`<backupDir>/<name after dfs://>`), so a backup is an ordinary
//! database (readable, checkable) and backing up and restoring are one operation in two
//! directions: copy chosen partitions of a table into another database's table. Each
//! copy reads one consistent version of the source table and replaces the destination's
//! partitions in one transaction of the table (`Appender`: new files, then the manifest
//! swap), so a crash during a backup or a restore leaves the destination as it was before
//! the call or as it is after it, never half-written partitions.
//!
//! Incremental by default: without `force`, a partition whose rows are already the same
//! in the destination is left alone (DolphinDB compares metadata versions; a single node
//! compares the rows themselves). `snapshot` also drops the destination's partitions that
//! the source no longer has. What DolphinDB returns as a partition's physical index is
//! the table's name here (see `admin`).

use crate::builtins_db::{names_of, select_parts, str_of};
use crate::catalog::{self, DbMeta, PartMeta, TableMeta};
use crate::handle::{as_table, DbHandle, TableHandle};
use crate::partition::{Level, NONE};
use crate::store::Appender;
use beluga_lang::ast::{ExprKind, FromItem};
use beluga_runtime::column::Column;
use beluga_runtime::{CallCtx, DataType, Error, Key, Result, StrCol, Table, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn opt(args: &[Value], k: usize) -> Option<&Value> {
    args.get(k).filter(|v| !matches!(v, Value::Void))
}

fn flag(f: &str, args: &[Value], k: usize, default: bool) -> Result<bool> {
    match opt(args, k) {
        None => Ok(default),
        Some(v) => v.as_bool().ok_or_else(|| Error::arg(format!("[{f}] expects a boolean at argument {}", k + 1))),
    }
}

/// The parts of a database's name inside a backup folder: the name after `dfs://`, or the
/// last folder of a database on a plain path.
fn db_name_parts(f: &str, db_path: &str) -> Result<Vec<String>> {
    let body = match db_path.strip_prefix("dfs://") {
        Some(b) => b.trim_matches('/').to_string(),
        None => Path::new(db_path.trim_end_matches('/')).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let parts: Vec<String> = body.split('/').map(|s| s.to_string()).collect();
    if body.is_empty() || parts.iter().any(|p| p.is_empty() || p == "." || p == ".." || p.contains('\\')) {
        return Err(Error::arg(format!("[{f}] '{db_path}' is not a database path that can be backed up")));
    }
    Ok(parts)
}

/// The database holding the backup of `db_path` inside `backup_dir`.
fn backup_db_dir(f: &str, backup_dir: &str, db_path: &str) -> Result<PathBuf> {
    if backup_dir.is_empty() || backup_dir.starts_with("dfs://") {
        return Err(Error::arg(format!("[{f}] backupDir must be a folder on disk")));
    }
    let mut d = PathBuf::from(backup_dir);
    for p in db_name_parts(f, db_path)? {
        d.push(p);
    }
    Ok(d)
}

fn db_dir_of(db_path: &str) -> Result<PathBuf> {
    catalog::db_dir(db_path)?.ok_or_else(|| Error::arg("The database path can't be empty"))
}

/// Make `dir` a database with the scheme `meta` unless it is one; an existing one must
/// have the same engine and the same kinds of levels.
fn ensure_db(f: &str, dir: &Path, meta: &DbMeta) -> Result<()> {
    if catalog::db_exists(dir) {
        let old = catalog::read_db_meta(dir)?;
        let same = old.levels.len() == meta.levels.len()
            && old.levels.iter().zip(&meta.levels).all(|(a, b)| a.type_id() == b.type_id() && a.key_type() == b.key_type());
        if !same || !old.engine.eq_ignore_ascii_case(&meta.engine) {
            return Err(Error::runtime(format!("[{f}] the database in {} has another engine or partition scheme than the backup", dir.display())));
        }
        return Ok(());
    }
    if let Some(other) = catalog::foreign_entry(dir)? {
        return Err(Error::runtime(format!("[{f}] the folder {} is not empty and is not a database (it holds {other})", dir.display())));
    }
    std::fs::create_dir_all(dir).map_err(|e| catalog::io_err(dir, e))?;
    let _lock = catalog::DbLock::acquire(dir)?;
    if !catalog::db_exists(dir) {
        catalog::write_db_meta(dir, meta)?;
    }
    Ok(())
}

/// Create table `name` in database `dst` with the columns and options of `src` unless it
/// exists; an existing one must have the same columns.
fn ensure_table(f: &str, dst: &Path, name: &str, src: &TableMeta) -> Result<()> {
    if catalog::table_exists(dst, name) {
        let old = catalog::read_table(dst, name)?;
        if old.names.len() != src.names.len() || old.types != src.types {
            return Err(Error::runtime(format!("[{f}] the table {name} in {} has other columns than the backup", dst.display())));
        }
        return Ok(());
    }
    let part_cols: Vec<String> =
        src.part_cols.iter().enumerate().map(|(l, c)| src.opts.part_fn(l).map(|s| s.to_string()).unwrap_or_else(|| c.clone())).collect();
    let mut ap = Appender::create(dst, name, src.names.clone(), src.types.clone(), part_cols)?;
    ap.meta.opts.sort_cols = src.opts.sort_cols.clone();
    ap.meta.opts.keep = src.opts.keep;
    ap.meta.opts.comments = src.opts.comments.clone();
    ap.meta.opts.table_comment = src.opts.table_comment.clone();
    ap.commit()?;
    Ok(())
}

fn handle(dir: &Path, name: &str) -> Result<TableHandle> {
    let meta = catalog::read_db_meta(dir)?;
    Ok(TableHandle { db: Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.to_path_buf()), meta }), name: name.to_string() })
}

/// Whether two tables hold the same rows in the same order.
fn same_rows(a: &Table, b: &Table) -> bool {
    a.rows() == b.rows()
        && a.ncols() == b.ncols()
        && a.cols.iter().zip(&b.cols).all(|(x, y)| (0..x.len()).all(|r| Key::of(x, r) == Key::of(y, r)))
}

/// Copy the partitions `select` picks of table `src_t` of database `src` into table
/// `dst_t` of database `dst` (both created when missing), replacing the destination's
/// partitions of the same folders in one transaction. Without `force`, partitions whose
/// rows the destination already has are skipped; with `snapshot`, destination partitions
/// the source lacks are dropped. The folders copied, in the source's order.
fn copy_parts(f: &str, src: &Path, src_t: &str, dst: &Path, dst_t: &str, select: &dyn Fn(&PartMeta) -> bool, force: bool, snapshot: bool) -> Result<Vec<String>> {
    if !catalog::table_exists(src, src_t) {
        return Err(Error::name(format!("[{f}] the table {src_t} doesn't exist in {}", src.display())));
    }
    let src_meta = crate::cache::table_state(src, src_t)?.meta.clone();
    ensure_db(f, dst, &catalog::read_db_meta(src)?)?;
    ensure_table(f, dst, dst_t, &src_meta)?;
    let chosen: HashSet<&str> = src_meta.parts.iter().filter(|p| p.rows() > 0 && select(p)).map(|p| p.dir.as_str()).collect();
    let (_, dirs, tables) = crate::load::load_whole_partitions(&handle(src, src_t)?, &[])?;
    let have: Vec<(String, Table)> = if force {
        Vec::new()
    } else {
        let (_, d, t) = crate::load::load_whole_partitions(&handle(dst, dst_t)?, &[])?;
        d.into_iter().zip(t).collect()
    };
    let mut copy: Vec<(String, Table)> = Vec::new();
    for (d, t) in dirs.into_iter().zip(tables) {
        if !chosen.contains(d.as_str()) || have.iter().any(|(hd, ht)| *hd == d && same_rows(ht, &t)) {
            continue;
        }
        copy.push((d, t));
    }
    let all_src: HashSet<&str> = src_meta.parts.iter().filter(|p| p.rows() > 0).map(|p| p.dir.as_str()).collect();
    let mut ap = Appender::open(dst, dst_t)?;
    let before = ap.meta.parts.len();
    ap.meta.parts.retain(|p| !copy.iter().any(|(d, _)| *d == p.dir) && !(snapshot && !all_src.contains(p.dir.as_str())));
    let dropped = before - ap.meta.parts.len() > copy.len();
    if copy.is_empty() && !dropped {
        return Ok(Vec::new());
    }
    let levels = ap.levels().to_vec();
    for (d, t) in &copy {
        if src_meta.opts.has_part_fns() {
            // rows of a table partitioned by a function go back to the partition they came from
            let key = src_meta.parts.iter().find(|p| p.dir == *d).map(|p| p.key.clone()).unwrap_or_default();
            let same = key.iter().enumerate().all(|(l, &k)| levels.get(l).is_some_and(|lv| (k as usize) < lv.count() && d.split('/').nth(l) == Some(lv.dir_name(k as usize).as_str())));
            if !same {
                return Err(Error::runtime(format!("[{f}] the partition {d} has no place in the destination's scheme")));
            }
            ap.push_to_part(key, t)?;
        } else {
            ap.push(t, None)?;
        }
    }
    ap.commit()?;
    Ok(copy.into_iter().map(|(d, _)| d).collect())
}

/// The stored table a query reads (`select ... from loadTable(...)` or a table variable).
fn sql_source(i: &mut CallCtx, e: &beluga_lang::ast::Expr) -> Result<TableHandle> {
    let bad = || Error::arg("[backup] the SQL object must be a select over one stored table (loadTable or a table handle)");
    let ExprKind::Select(q) = &e.kind else { return Err(bad()) };
    let Some(FromItem::Table(from, _)) = &q.from else { return Err(bad()) };
    let v = i.eval(from)?;
    as_table(&v).cloned_handle().ok_or_else(bad)
}

trait ClonedHandle {
    fn cloned_handle(self) -> Option<TableHandle>;
}
impl ClonedHandle for Option<&TableHandle> {
    fn cloned_handle(self) -> Option<TableHandle> {
        self.map(|h| TableHandle { db: h.db.clone(), name: h.name.clone() })
    }
}

/// The partition folders of the rows of `t` in a database of scheme `levels`.
fn row_folders(levels: &[Level], meta: &TableMeta, t: &Table) -> Result<HashSet<String>> {
    let mut keys: Vec<Vec<u32>> = Vec::new();
    let mut levels = levels.to_vec();
    for (l, pc) in meta.part_cols.iter().enumerate() {
        let c = t.col_index(pc).map(|k| &t.cols[k]).ok_or_else(|| Error::arg(format!("[backup] the SQL object must select the partitioning column {pc}")))?;
        let k = crate::partition::conform(c, levels[l].key_type(), pc)?;
        keys.push(levels[l].assign(&k)?.0);
    }
    let mut out = HashSet::new();
    for r in 0..t.rows() {
        if keys.iter().any(|k| k[r] == NONE) {
            continue;
        }
        out.insert(keys.iter().enumerate().map(|(l, k)| levels[l].dir_name(k[r] as usize)).collect::<Vec<_>>().join("/"));
    }
    Ok(out)
}

/// `backup` of the rows a query selects: they replace the backup's partitions they fall in.
fn backup_sql(i: &mut CallCtx, backup_dir: &str, e: &beluga_lang::ast::Expr) -> Result<Value> {
    let f = "backup";
    let h = sql_source(i, e)?;
    let src = h.db.dir()?.clone();
    let meta = h.meta()?;
    if meta.opts.has_part_fns() {
        return Err(Error::unsupported(f, "a SQL object over a table partitioned by a function; back up by dbPath"));
    }
    let Value::Table(rows) = i.eval(e)? else {
        return Err(Error::arg("[backup] the SQL object must return a table"));
    };
    let same_cols = rows.names.len() == meta.names.len() && rows.names.iter().zip(&meta.names).all(|(a, b)| a.eq_ignore_ascii_case(b));
    if !same_cols {
        return Err(Error::arg("[backup] the SQL object must select every column of the table in order (select *)"));
    }
    let dst = backup_db_dir(f, backup_dir, &h.db.path)?;
    ensure_db(f, &dst, &catalog::read_db_meta(&src)?)?;
    ensure_table(f, &dst, &h.name, &meta)?;
    let mut ap = Appender::open(&dst, &h.name)?;
    let folders = row_folders(ap.levels(), &meta, &rows)?;
    ap.meta.parts.retain(|p| !folders.contains(&p.dir));
    ap.push(&rows, None)?;
    ap.commit()?;
    Ok(Value::int(folders.len() as i32))
}

/// The tables to work on: `tableName` (a name or names) or every table of the database.
fn tables_of(f: &str, dir: &Path, arg: Option<&Value>) -> Result<Vec<String>> {
    match arg {
        Some(v) => {
            let names = names_of(f, v)?;
            for n in &names {
                catalog::check_table_name(n)?;
                if !catalog::table_exists(dir, n) {
                    return Err(Error::name(format!("[{f}] the table {n} doesn't exist in {}", dir.display())));
                }
            }
            Ok(names)
        }
        None => crate::admin::table_names(dir),
    }
}

/// `backup(backupDir, dbPath|sqlObj, [force=false], [parallel], [snapshot=true], [tableName], [partition], [keyPath])`:
/// the number of partitions written to the backup.
pub fn backup(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "backup";
    let backup_dir = str_of(f, &args[0], "backupDir")?.to_string();
    if let Value::Code(e) = &args[1] {
        let e = e.clone();
        return backup_sql(i, &backup_dir, &e);
    }
    let db_path = str_of(f, &args[1], "dbPath")?.to_string();
    let force = flag(f, &args, 2, false)?;
    let part = opt(&args, 6).cloned();
    let snapshot = flag(f, &args, 4, true)? && part.is_none();
    let n = backup_tables(f, &backup_dir, &db_path, opt(&args, 5), part.as_ref(), force, snapshot)?;
    Ok(Value::int(n as i32))
}

fn backup_tables(f: &str, backup_dir: &str, db_path: &str, tables: Option<&Value>, part: Option<&Value>, force: bool, snapshot: bool) -> Result<usize> {
    let src = db_dir_of(db_path)?;
    if !catalog::db_exists(&src) {
        return Err(Error::name(format!("[{f}] the database {db_path} doesn't exist")));
    }
    let dst = backup_db_dir(f, backup_dir, db_path)?;
    let levels = catalog::read_db_meta(&src)?.levels;
    let mut n = 0;
    for t in tables_of(f, &src, tables)? {
        let meta = crate::cache::table_state(&src, &t)?.meta.clone();
        let picked: Option<Vec<bool>> = part.map(|p| select_parts(&meta, &levels, p, f)).transpose()?;
        let picked_dirs: Option<HashSet<String>> =
            picked.map(|m| meta.parts.iter().zip(m).filter(|(_, k)| *k).map(|(p, _)| p.dir.clone()).collect());
        let select = |p: &PartMeta| picked_dirs.as_ref().is_none_or(|s| s.contains(&p.dir));
        n += copy_parts(f, &src, &t, &dst, &t, &select, force, snapshot)?.len();
    }
    Ok(n)
}

/// `backupDB(backupDir, dbPath, [keyPath])`: `backup` of every table, incremental, with snapshot.
pub fn backup_db(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "backupDB";
    let backup_dir = str_of(f, &args[0], "backupDir")?;
    let db_path = str_of(f, &args[1], "dbPath")?;
    backup_tables(f, backup_dir, db_path, None, None, false, true)?;
    Ok(Value::Void)
}

/// `backupTable(backupDir, dbPath, tableName, [keyPath])`: `backup` of one table, incremental, with snapshot.
pub fn backup_table(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "backupTable";
    let backup_dir = str_of(f, &args[0], "backupDir")?;
    let db_path = str_of(f, &args[1], "dbPath")?;
    backup_tables(f, backup_dir, db_path, Some(&args[2]), None, false, true)?;
    Ok(Value::Void)
}

/// `restore(backupDir, dbPath, tableName, partition, [force=false], [outputTable], [parallel], [snapshot=false], [keyPath])`:
/// the restored partitions as `<dbPath>/<partition>/<physical index>`. `partition` is a
/// pattern (`%` any run of characters, `?` one) matched against "/<dbName>/<partition>",
/// with or without the table's physical index after it.
pub fn restore(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "restore";
    let backup_dir = str_of(f, &args[0], "backupDir")?;
    let db_path = str_of(f, &args[1], "dbPath")?;
    let table = str_of(f, &args[2], "tableName")?;
    catalog::check_table_name(table)?;
    let pattern = str_of(f, &args[3], "partition")?.to_string();
    let force = flag(f, &args, 4, false)?;
    let snapshot = flag(f, &args, 7, false)? && pattern == "%";
    let src = backup_db_dir(f, backup_dir, db_path)?;
    if !catalog::db_exists(&src) {
        return Err(Error::name(format!("[{f}] {backup_dir} holds no backup of {db_path}")));
    }
    let (dst, dst_path, dst_t) = match opt(&args, 5) {
        Some(v) => {
            let h = as_table(v).ok_or_else(|| Error::arg("[restore] outputTable must be a stored table handle"))?;
            (h.db.dir()?.clone(), h.db.path.clone(), h.name.clone())
        }
        None => (db_dir_of(db_path)?, db_path.to_string(), table.to_string()),
    };
    let name = db_name_parts(f, db_path)?.join("/");
    let select = |p: &PartMeta| {
        let full = format!("/{name}/{}", p.dir);
        beluga_runtime::ops::like_match(&full, &pattern, false)
            || beluga_runtime::ops::like_match(&format!("{full}/{table}"), &pattern, false)
            || beluga_runtime::ops::like_match(&format!("/{}", p.dir), &pattern, false)
    };
    let dirs = copy_parts(f, &src, table, &dst, &dst_t, &select, force, snapshot)?;
    let base = dst_path.trim_end_matches('/');
    Ok(Value::string_vec(dirs.iter().map(|d| format!("{base}/{d}/{dst_t}")).collect::<Vec<_>>().iter().map(|s| s.as_str())))
}

/// A table of (dbName, tableName) rows, with `success` and `errorMsg` for `migrate`.
fn restored_table(rows: &[(String, String, Option<String>)], with_status: bool) -> Result<Value> {
    let s = |v: Vec<&str>| Column::from_vec(DataType::String, StrCol::from_iter(v));
    let mut names = vec!["dbName".to_string(), "tableName".to_string()];
    let mut cols = vec![s(rows.iter().map(|r| r.0.as_str()).collect()), s(rows.iter().map(|r| r.1.as_str()).collect())];
    if with_status {
        names.push("success".into());
        names.push("errorMsg".into());
        cols.push(Column::from_vec(DataType::Bool, rows.iter().map(|r| r.2.is_none() as i8).collect::<Vec<i8>>()));
        cols.push(s(rows.iter().map(|r| r.2.as_deref().unwrap_or("")).collect()));
    }
    Ok(Value::table(Table::new(names, cols)?))
}

/// Restore every partition of a backed-up table into `new_db`/`new_t` (created when missing).
fn restore_whole(f: &str, backup_dir: &str, db_path: &str, table: &str, new_db: &str, new_t: &str) -> Result<()> {
    catalog::check_table_name(new_t)?;
    let src = backup_db_dir(f, backup_dir, db_path)?;
    if !catalog::db_exists(&src) || !catalog::table_exists(&src, table) {
        return Err(Error::name(format!("[{f}] {backup_dir} holds no backup of the table {table} of {db_path}")));
    }
    copy_parts(f, &src, table, &db_dir_of(new_db)?, new_t, &|_| true, false, false)?;
    Ok(())
}

/// `restoreDB(backupDir, dbPath, [newDBPath=dbPath], [keyPath])`: the restored tables.
pub fn restore_db(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "restoreDB";
    let backup_dir = str_of(f, &args[0], "backupDir")?;
    let db_path = str_of(f, &args[1], "dbPath")?;
    let new_db = match opt(&args, 2) {
        Some(v) => str_of(f, v, "newDBPath")?,
        None => db_path,
    };
    let src = backup_db_dir(f, backup_dir, db_path)?;
    if !catalog::db_exists(&src) {
        return Err(Error::name(format!("[{f}] {backup_dir} holds no backup of {db_path}")));
    }
    let mut rows = Vec::new();
    for t in crate::admin::table_names(&src)? {
        restore_whole(f, backup_dir, db_path, &t, new_db, &t)?;
        rows.push((new_db.to_string(), t, None));
    }
    restored_table(&rows, false)
}

/// `restoreTable(backupDir, dbPath, tableName, [newDBPath=dbPath], [newTableName=tableName], [keyPath])`.
pub fn restore_table(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "restoreTable";
    let backup_dir = str_of(f, &args[0], "backupDir")?;
    let db_path = str_of(f, &args[1], "dbPath")?;
    let table = str_of(f, &args[2], "tableName")?;
    let new_db = match opt(&args, 3) {
        Some(v) => str_of(f, v, "newDBPath")?,
        None => db_path,
    };
    let new_t = match opt(&args, 4) {
        Some(v) => str_of(f, v, "newTableName")?,
        None => table,
    };
    restore_whole(f, backup_dir, db_path, table, new_db, new_t)?;
    restored_table(&[(new_db.to_string(), new_t.to_string(), None)], false)
}

/// The `dfs://` databases backed up in a folder (folders holding a database, any depth).
fn backed_up_dbs(backup_dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![(backup_dir.to_path_buf(), String::new())];
    while let Some((d, rel)) = stack.pop() {
        if !rel.is_empty() && catalog::db_exists(&d) {
            out.push(format!("dfs://{rel}"));
            continue;
        }
        for e in std::fs::read_dir(&d).map_err(|e| catalog::io_err(&d, e))?.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                let n = e.file_name().to_string_lossy().into_owned();
                stack.push((e.path(), if rel.is_empty() { n } else { format!("{rel}/{n}") }));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `migrate(backupDir, [backupDBPath], [backupTableName], [newDBPath], [newTableName], [keyPath])`:
/// restore backed-up tables into tables that don't exist yet; one row per table with
/// whether it succeeded and why not.
pub fn migrate(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "migrate";
    let backup_dir = str_of(f, &args[0], "backupDir")?;
    let one_db = opt(&args, 1).map(|v| str_of(f, v, "backupDBPath").map(|s| s.to_string())).transpose()?;
    let one_t = opt(&args, 2).map(|v| str_of(f, v, "backupTableName").map(|s| s.to_string())).transpose()?;
    let dbs = match &one_db {
        Some(d) => vec![d.clone()],
        None => backed_up_dbs(Path::new(backup_dir))?,
    };
    let mut rows = Vec::new();
    for db in dbs {
        let src = backup_db_dir(f, backup_dir, &db)?;
        if !catalog::db_exists(&src) {
            return Err(Error::name(format!("[{f}] {backup_dir} holds no backup of {db}")));
        }
        let tables = match &one_t {
            Some(t) => vec![t.clone()],
            None => crate::admin::table_names(&src)?,
        };
        for t in tables {
            let new_db = match (&one_t, opt(&args, 3)) {
                (Some(_), Some(v)) => str_of(f, v, "newDBPath")?.to_string(),
                _ => db.clone(),
            };
            let new_t = match (&one_t, opt(&args, 4)) {
                (Some(_), Some(v)) => str_of(f, v, "newTableName")?.to_string(),
                _ => t.clone(),
            };
            let dst = db_dir_of(&new_db)?;
            let res = if catalog::db_exists(&dst) && catalog::table_exists(&dst, &new_t) {
                Err(Error::runtime(format!("The table {new_t} already exists in {new_db}; migrate restores into new tables only")))
            } else {
                restore_whole(f, backup_dir, &db, &t, &new_db, &new_t)
            };
            rows.push((db.clone(), t, res.err().map(|e| e.to_string())));
        }
    }
    restored_table(&rows, true)
}
