//! Database administration builtins that real scripts call on on-disk databases:
//! `renameTable`, `existsPartition`, `addValuePartitions`, `addRangePartitions`,
//! `listTables`, `getTabletsMeta`, `getChunksMeta`, `saveTable`, `savePartition`.
//!
//! Why here: they read or change a database's catalog (scheme, manifests, folders) and
//! nothing else, each under the database's writer lock and each change committed by one
//! atomic rename (`catalog::write_atomic` for the scheme, `Appender::rename_to` for a
//! table's folder), so a failure or a crash leaves the previous state readable. Every
//! path they touch is the database's own: table names are identifiers, `dfs://` paths
//! stay under the dfs root (`catalog::db_dir`), and partition paths are only compared with
//! the manifests' partition folders, never opened.
//!
//! A single-node store has no chunk replicas or physical indexes: a table's physical index
//! is its name (its folder), and the chunk metadata holds what the manifests know (rows,
//! versions, files); tests/DISPUTED.md lists the chosen values.

use crate::builtins_db::{open_db, str_of};
use crate::catalog;
use crate::handle::{as_db, table_value, DbHandle};
use crate::partition::{conform, keys, Keys, Level};
use crate::store::Appender;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::{CallCtx, DataType, Error, Result, StrCol, Table, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn db_of(f: &str, v: &Value) -> Result<Arc<DbHandle>> {
    if let Some(d) = as_db(v) {
        return Ok(d);
    }
    match v.as_str() {
        Some(p) => open_db(p),
        None => Err(Error::arg(format!("The first argument of [{f}] must be a database handle or path"))),
    }
}

fn opt(args: &[Value], k: usize) -> Option<&Value> {
    args.get(k).filter(|v| !matches!(v, Value::Void))
}

fn strings(v: &[String]) -> Column {
    Column::new(DataType::String, ColData::Str(StrCol::from_iter(v.iter().map(|s| s.as_str()))))
}

/// The tables of a database folder, sorted by name.
pub fn table_names(dir: &Path) -> Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| catalog::io_err(dir, e))?
        .flatten()
        .filter(|e| e.path().join("CURRENT").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| catalog::check_table_name(n).is_ok())
        .collect();
    names.sort();
    Ok(names)
}

/// `renameTable(dbHandle, tableName, newTableName)`: the table handle under its new name.
pub fn rename_table(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "renameTable";
    let db = db_of(f, &args[0])?;
    let old = str_of(f, &args[1], "tableName")?;
    let new = str_of(f, &args[2], "newTableName")?;
    catalog::check_table_name(old)?;
    catalog::check_table_name(new)?;
    let dir = db.dir()?.clone();
    if !catalog::table_exists(&dir, old) {
        return Err(Error::name(format!("[{f}] The table {old} doesn't exist in the database {}", db.path)));
    }
    if old == new {
        return Ok(table_value(db, new));
    }
    Appender::open(&dir, old)?.rename_to(new)?;
    Ok(table_value(db, new))
}

/// A database path and the rest of a partition URL: the longest `/`-prefix of `url`
/// naming a database, and the parts after it.
fn split_partition_url(url: &str) -> Result<Option<(PathBuf, Vec<String>)>> {
    let trimmed = url.trim_end_matches('/');
    let (scheme, body) = match trimmed.strip_prefix("dfs://") {
        Some(b) => ("dfs://", b),
        None => ("", trimmed),
    };
    let parts: Vec<&str> = body.split('/').collect();
    if parts.iter().any(|p| *p == ".." || *p == ".") {
        return Err(Error::arg(format!("Invalid partition path '{url}': it may not contain '.' or '..' parts")));
    }
    for cut in (1..=parts.len()).rev() {
        let head = parts[..cut].join("/");
        if head.is_empty() {
            continue;
        }
        let Some(dir) = catalog::db_dir(&format!("{scheme}{head}"))? else { continue };
        if catalog::db_exists(&dir) {
            return Ok(Some((dir, parts[cut..].iter().map(|s| s.to_string()).collect())));
        }
    }
    Ok(None)
}

/// `existsPartition(partitionUrl, [tableName])`: whether a partition of the database holds
/// data. With `tableName`, the URL names the partition folder; without it, the URL ends
/// with the table's physical index (its name, see `listTables`), as with DolphinDB's
/// table-level chunks.
pub fn exists_partition(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "existsPartition";
    let url = str_of(f, &args[0], "partitionUrl")?;
    let table = match opt(&args, 1) {
        Some(v) => Some(str_of(f, v, "tableName")?.to_string()),
        None => None,
    };
    let Some((dir, mut rest)) = split_partition_url(url)? else {
        return Ok(Value::bool(false));
    };
    let table = match table {
        Some(t) => t,
        None => match rest.pop() {
            Some(t) => t,
            None => return Ok(Value::bool(false)),
        },
    };
    if rest.is_empty() || rest.iter().any(|p| p.is_empty() || p == "." || p == "..") || catalog::check_table_name(&table).is_err() {
        return Ok(Value::bool(false));
    }
    if !catalog::table_exists(&dir, &table) {
        return Ok(Value::bool(false));
    }
    let st = crate::cache::table_state(&dir, &table)?;
    let want = rest.join("/");
    Ok(Value::bool(st.meta.parts.iter().any(|p| p.dir == want && p.rows() > 0)))
}

/// The level a partition-adding call applies to, checked against the kind it needs.
fn level_arg(f: &str, args: &[Value], levels: &[Level], kind: &str) -> Result<usize> {
    let l = match opt(args, 2) {
        Some(v) => v.as_i64().ok_or_else(|| Error::arg(format!("[{f}] level must be a non-negative integer")))?,
        None => 0,
    };
    if l < 0 || l as usize >= levels.len() {
        return Err(Error::arg(format!("[{f}] level {l} is not a partition level of the database (it has {})", levels.len())));
    }
    if levels[l as usize].type_name() != kind {
        return Err(Error::arg(format!("[{f}] partition level {l} is {}, not {kind}", levels[l as usize].type_name())));
    }
    Ok(l as usize)
}

fn vector_arg(f: &str, v: &Value, what: &str) -> Result<Column> {
    match v {
        Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => Ok(c.clone()),
        _ => Err(Error::arg(format!("[{f}] {what} must be a scalar or a vector"))),
    }
}

/// `addValuePartitions(dbHandle, newValues, [level=0], [locations])`: the number of
/// partitions added (values already in the scheme add none).
pub fn add_value_partitions(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "addValuePartitions";
    let db = db_of(f, &args[0])?;
    let dir = db.dir()?.clone();
    let vals = vector_arg(f, &args[1], "newValues")?;
    let _lock = catalog::DbLock::acquire(&dir)?;
    let mut meta = catalog::read_db_meta(&dir)?;
    let l = level_arg(f, &args, &meta.levels, "VALUE")?;
    let before = meta.levels[l].count();
    let k = conform(&vals, meta.levels[l].key_type(), "newValues")?;
    if (0..k.len()).any(|r| k.is_null(r)) {
        return Err(Error::arg(format!("[{f}] newValues can't hold NULL")));
    }
    let (_, changed) = meta.levels[l].assign(&k)?;
    let added = meta.levels[l].count() - before;
    if changed {
        catalog::write_db_meta(&dir, &meta)?;
        crate::cache::forget(&dir);
    }
    Ok(Value::int(added as i32))
}

/// `addRangePartitions(dbHandle, newRanges, [level=0], [locations])`: `newRanges` starts
/// at the scheme's last boundary and increases; the number of partitions added.
pub fn add_range_partitions(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "addRangePartitions";
    let db = db_of(f, &args[0])?;
    let dir = db.dir()?.clone();
    let ranges = vector_arg(f, &args[1], "newRanges")?;
    let _lock = catalog::DbLock::acquire(&dir)?;
    let mut meta = catalog::read_db_meta(&dir)?;
    let l = level_arg(f, &args, &meta.levels, "RANGE")?;
    let Level::Range(old) = &meta.levels[l] else {
        return Err(Error::arg(format!("[{f}] partition level {l} is not RANGE")));
    };
    let new = conform(&ranges, old.ty, "newRanges")?;
    if new.len() < 2 {
        return Err(Error::arg(format!("[{f}] newRanges needs the last existing boundary and at least one new one")));
    }
    let ascending_from_last = match (keys(old)?, keys(&new)?) {
        (Keys::Int(o), Keys::Int(n)) => n[0] == o[o.len() - 1] && n.windows(2).all(|w| w[0] < w[1]) && !n.iter().any(|x| *x == i64::MIN),
        (Keys::Str(o), Keys::Str(n)) => n[0] == o[o.len() - 1] && n.windows(2).all(|w| w[0] < w[1]),
        _ => false,
    };
    if !ascending_from_last {
        return Err(Error::arg(format!(
            "[{f}] newRanges must increase and start with the last boundary of the current scheme; partitions can only be added after the last one"
        )));
    }
    let tail = new.slice(1, new.len());
    let mut grown = old.clone();
    grown.append(&tail);
    meta.levels[l] = Level::Range(grown);
    catalog::write_db_meta(&dir, &meta)?;
    crate::cache::forget(&dir);
    Ok(Value::int(tail.len() as i32))
}

/// `listTables(dbUrl)`: tableName and physicalIndex (here the table's folder name).
pub fn list_tables(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let db = db_of("listTables", &args[0])?;
    let names = table_names(db.dir()?)?;
    Ok(Value::table(Table::new(vec!["tableName".into(), "physicalIndex".into()], vec![strings(&names), strings(&names)])?))
}

fn table_of(f: &str, v: &Value) -> Result<Arc<Table>> {
    match v {
        Value::Table(t) => Ok(t.clone()),
        _ => Err(Error::arg(format!("[{f}] table must be an in-memory table"))),
    }
}

/// `saveTable(dbHandle, table, [tableName], [append=false], [compression])`: save an
/// in-memory table as an unpartitioned table of the database (named like the table when
/// `tableName` is omitted). Without `append` the stored rows are replaced; either way one
/// transaction, so a failure leaves the previous rows. The handle of the saved table.
pub fn save_table(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "saveTable";
    let db = db_of(f, &args[0])?;
    let t = table_of(f, &args[1])?;
    let name = match opt(&args, 2) {
        Some(v) => str_of(f, v, "tableName")?.to_string(),
        None => t.name.clone().ok_or_else(|| Error::arg(format!("[{f}] the table has no name: give tableName")))?,
    };
    catalog::check_table_name(&name)?;
    let append = opt(&args, 3).and_then(|v| v.as_bool()).unwrap_or(false);
    let dir = db.dir()?.clone();
    let mut ap = if catalog::table_exists(&dir, &name) {
        let mut ap = Appender::open(&dir, &name)?;
        if !ap.meta.part_cols.is_empty() {
            return Err(Error::arg(format!("[{f}] {name} is a partitioned table: append to it with append! or savePartition")));
        }
        if !append {
            ap.clear();
        }
        ap
    } else {
        let types = t.cols.iter().map(|c| if c.ty == DataType::Void { DataType::Double } else { c.ty }).collect();
        Appender::create(&dir, &name, t.names.clone(), types, vec![])?
    };
    ap.push(&t, None)?;
    ap.commit()?;
    Ok(table_value(db, &name))
}

/// `savePartition(dbHandle, table, tableName, [compression])`: append an in-memory table to
/// a partitioned table created before with `createPartitionedTable`.
pub fn save_partition(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "savePartition";
    let db = db_of(f, &args[0])?;
    let t = table_of(f, &args[1])?;
    let name = str_of(f, &args[2], "tableName")?;
    catalog::check_table_name(name)?;
    if !catalog::table_exists(db.dir()?, name) {
        return Err(Error::name(format!("[{f}] The table {name} doesn't exist in the database {}: create it with createPartitionedTable", db.path)));
    }
    let h = table_value(db, name);
    let th = crate::handle::as_table(&h).ok_or_else(|| Error::runtime("internal: not a table handle"))?;
    crate::builtins_db::append_to(i, th, &Value::Table(t))?;
    Ok(Value::Void)
}

/// `%` and `*` match any run of characters, `?` one character.
fn wildcard(pat: &str, s: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pat.chars().collect(), s.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && (p[pi] == '*' || p[pi] == '%') {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(sp) = star {
            pi = sp + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && (p[pi] == '*' || p[pi] == '%') {
        pi += 1;
    }
    pi == p.len()
}

/// The `dfs://` databases on this node: (name, folder), sorted by name.
fn dfs_databases() -> Vec<(String, PathBuf)> {
    fn walk(root: &Path, d: &Path, depth: usize, out: &mut Vec<(String, PathBuf)>) {
        if catalog::db_exists(d) {
            let rel = d.strip_prefix(root).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
            out.push((rel, d.to_path_buf()));
            return;
        }
        if depth == 0 {
            return;
        }
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) && !e.file_name().to_string_lossy().starts_with('.') {
                walk(root, &e.path(), depth - 1, out);
            }
        }
    }
    let root = catalog::dfs_root();
    let mut out = Vec::new();
    walk(&root, &root, 4, &mut out);
    out.sort();
    out
}

/// A stable identifier of a chunk, in DolphinDB's 8-4-4-4-12 hex form.
fn chunk_id(text: &str) -> String {
    let a = crate::bin::checksum(text.as_bytes());
    let b = crate::bin::checksum(format!("{text}#").as_bytes());
    let h = format!("{a:016x}{b:016x}");
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

/// Bytes of the segment images of one partition.
fn part_bytes(tdir: &Path, p: &catalog::PartMeta) -> i64 {
    p.segs
        .iter()
        .map(|s| {
            let file = catalog::seg_file(tdir, &p.dir, s.id);
            let Ok(fh) = std::fs::File::open(&file) else { return 0 };
            let len = fh.metadata().map(|m| m.len()).unwrap_or(0);
            if catalog::in_pack(&p.dir, s.id) {
                crate::segment::pack_entry(&fh, &file, len, s.id).map(|(_, l)| l as i64).unwrap_or(0)
            } else {
                len as i64
            }
        })
        .sum()
}

fn top_arg(f: &str, v: Option<&Value>) -> Result<usize> {
    match v {
        None => Ok(1024),
        Some(v) => match v.as_i64() {
            Some(-1) => Ok(usize::MAX),
            Some(n) if n > 0 => Ok(n as usize),
            _ => Err(Error::arg(format!("[{f}] top must be a positive integer or -1"))),
        },
    }
}

/// `getTabletsMeta([chunkPath], [tableName], [diskUsage=false], [top=1024])`: one row per
/// partition of each table of the dfs databases on this node that holds rows.
pub fn get_tablets_meta(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "getTabletsMeta";
    let pat = match opt(&args, 0) {
        Some(v) => Some(str_of(f, v, "chunkPath")?.to_string()),
        None => None,
    };
    let only = match opt(&args, 1) {
        Some(v) => Some(str_of(f, v, "tableName")?.to_string()),
        None => None,
    };
    let disk = opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(false);
    let top = top_arg(f, opt(&args, 3))?;
    let (mut id, mut path, mut dfs, mut tname, mut ver, mut rows, mut cids, mut latest, mut usage) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    // databases and tables that vanish while they are listed (dropped by another
    // session) are left out rather than failing the listing
    'dbs: for (name, dir) in dfs_databases() {
        let Ok(tables) = table_names(&dir) else { continue };
        for t in tables {
            if only.as_deref().is_some_and(|o| o != t) {
                continue;
            }
            let (Ok(st), Ok(tdir)) = (crate::cache::table_state(&dir, &t), catalog::table_dir(&dir, &t)) else { continue };
            for p in &st.meta.parts {
                if p.rows() == 0 {
                    continue;
                }
                let d = format!("/{name}/{}/{t}", p.dir);
                if pat.as_deref().is_some_and(|pt| !wildcard(pt, &d)) {
                    continue;
                }
                if id.len() >= top {
                    break 'dbs;
                }
                id.push(chunk_id(&d));
                path.push(tdir.join(&p.dir).display().to_string());
                dfs.push(d);
                tname.push(t.clone());
                ver.push(st.meta.version as i32);
                rows.push(p.rows() as i64);
                cids.push(format!("[{}]", st.meta.version));
                latest.push(format!("{t}/{}", p.dir));
                usage.push(if disk { part_bytes(&tdir, p) } else { 0 });
            }
        }
    }
    let mut names: Vec<String> = ["chunkId", "path", "dfsPath", "tableName", "version", "rowNum", "createCids", "latestPhysicalDir"].map(String::from).to_vec();
    let mut cols = vec![
        strings(&id),
        strings(&path),
        strings(&dfs),
        strings(&tname),
        Column::from_vec(DataType::Int, ver),
        Column::from_vec(DataType::Long, rows),
        strings(&cids),
        strings(&latest),
    ];
    if disk {
        names.push("diskUsage".into());
        cols.push(Column::from_vec(DataType::Long, usage));
    }
    Ok(Value::table(Table::new(names, cols)?))
}

/// `getChunksMeta([chunkPath], [top=1024])`: per dfs database on this node, one file chunk
/// per table (`/db/table.tbl`, its manifest) and one tablet chunk per partition folder.
pub fn get_chunks_meta(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = "getChunksMeta";
    let pat = match opt(&args, 0) {
        Some(v) => Some(str_of(f, v, "chunkPath")?.to_string()),
        None => None,
    };
    let top = top_arg(f, opt(&args, 1))?;
    // (dfsPath, physical path, type, size, version, versionList)
    let mut rows: Vec<(String, String, i32, i64, i32, String)> = Vec::new();
    for (name, dir) in dfs_databases() {
        let mut tablets: std::collections::BTreeMap<String, (String, i32, Vec<String>)> = Default::default();
        let Ok(tables) = table_names(&dir) else { continue };
        for t in tables {
            let (Ok(st), Ok(tdir)) = (crate::cache::table_state(&dir, &t), catalog::table_dir(&dir, &t)) else { continue };
            let v = st.meta.version as i32;
            let cur = std::fs::read_to_string(tdir.join("CURRENT")).unwrap_or_default();
            let mfile = cur.split_whitespace().next().unwrap_or("").to_string();
            let size = std::fs::metadata(tdir.join(&mfile)).map(|m| m.len() as i64).unwrap_or(0);
            rows.push((format!("/{name}/{t}.tbl"), tdir.join(&mfile).display().to_string(), 0, size, v, format!("{v}:{size};")));
            for p in &st.meta.parts {
                let first = p.dir.split('/').next().unwrap_or("").to_string();
                let e = tablets.entry(p.dir.clone()).or_insert_with(|| (tdir.join(&first).display().to_string(), 0, vec![]));
                e.1 = e.1.max(v);
                e.2.push(format!("{t}=>{v}"));
            }
        }
        for (d, (phys, v, list)) in tablets {
            rows.push((format!("/{name}/{d}"), phys, 1, 0, v, format!("cid : {v},{}", list.join(","))));
        }
    }
    rows.retain(|r| pat.as_deref().is_none_or(|p| wildcard(p, &r.0)));
    rows.truncate(top);
    let n = rows.len();
    let col = |g: &dyn Fn(&(String, String, i32, i64, i32, String)) -> String| strings(&rows.iter().map(g).collect::<Vec<_>>());
    let names = ["site", "chunkId", "path", "dfsPath", "type", "flag", "size", "version", "state", "versionList", "resolved"].map(String::from).to_vec();
    let cols = vec![
        strings(&vec!["local8848".to_string(); n]),
        col(&|r| chunk_id(&r.0)),
        col(&|r| r.1.clone()),
        col(&|r| r.0.clone()),
        Column::from_vec(DataType::Int, rows.iter().map(|r| r.2).collect::<Vec<i32>>()),
        Column::from_vec(DataType::Int, vec![0i32; n]),
        Column::from_vec(DataType::Long, rows.iter().map(|r| r.3).collect::<Vec<i64>>()),
        Column::from_vec(DataType::Int, rows.iter().map(|r| r.4).collect::<Vec<i32>>()),
        Column::from_vec(DataType::Int, vec![0i32; n]),
        col(&|r| r.5.clone()),
        Column::from_vec(DataType::Bool, vec![0i8; n]),
    ];
    Ok(Value::table(Table::new(names, cols)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_like_the_manual() {
        assert!(wildcard("/testDB/%", "/testDB/10/pt1"));
        assert!(wildcard("/testDB/1?/pt1", "/testDB/10/pt1"));
        assert!(!wildcard("/testDB/1?/pt1", "/testDB/1/pt1"));
        assert!(wildcard("/testDB%", "/testDB"));
        assert!(wildcard("*", ""));
        assert!(!wildcard("/other/%", "/testDB/10"));
    }

    #[test]
    fn chunk_ids_are_stable_and_distinct() {
        assert_eq!(chunk_id("/a/1"), chunk_id("/a/1"));
        assert_ne!(chunk_id("/a/1"), chunk_id("/a/2"));
        assert_eq!(chunk_id("/a/1").len(), 36);
    }
}

#[cfg(test)]
#[path = "admin_tests.rs"]
mod admin_tests;
