//! The on-disk catalog: a database folder holds `dbmeta` (the partition scheme), a `LOCK`
//! file, and one folder per table. A table folder holds immutable column files per
//! partition (`<partition>/<segment>_<column>.col`), manifests `manifest.<version>` (schema,
//! symbol base, partitions and their segments) and `CURRENT`, naming the live manifest.
//!
//! Every write is one transaction: new segment files (all columns of one partition's new
//! rows, see `segment`; the new rows of a first-level folder's partitions share one pack
//! file) are written beside the old ones under names no manifest refers to,
//! then the next manifest and `CURRENT` under a temporary name; all of them are made
//! durable at once (one `syncfs`, or an fsync each when few), and the rename of `CURRENT`
//! is the commit point (then the folder is fsynced).
//! A crash at any point leaves `CURRENT` naming either the old or the new manifest; files of
//! unfinished transactions are removed by the next writer. Writers hold an exclusive lock on
//! `LOCK`, released by the OS when a process dies.
//!
//! A database owns its folder and nothing else: table names are plain identifiers
//! (`check_table_name`), `dfs://` names stay under the dfs root, every folder the catalog
//! builds is checked to lie inside its root with symlinks resolved (`confine`), a database
//! is never created over a folder holding someone else's files (`foreign_entry`), and
//! dropping one removes only what it wrote (`drop_database_files`).

use crate::bin::{corrupt, Reader, Writer};
use crate::partition::Level;
use ahash::AHashSet;
use beluga_runtime::column::SymbolDict;
use beluga_runtime::{DataType, Error, ErrorKind, Result};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub fn io_err(what: &Path, e: std::io::Error) -> Error {
    Error::new(ErrorKind::Io, format!("{}: {e}", what.display()))
}

/// The folder under which `dfs://` databases live: `$BELUGA_DFS_ROOT`, default `~/.beluga/dfs`.
pub fn dfs_root() -> PathBuf {
    std::env::var_os("BELUGA_DFS_ROOT").map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
        home.join(".beluga").join("dfs")
    })
}

/// Folder of a database path: `dfs://name` lives under `dfs_root()` and may not leave it
/// (each `/`-separated part of the name is a plain name: no `..`, `.`, `\\` or empty part,
/// and the folder, symlinks resolved, lies inside the root); other paths are folders on
/// disk, named by the user. `None` for an empty path (an in-memory database).
pub fn db_dir(path: &str) -> Result<Option<PathBuf>> {
    if path.is_empty() {
        return Ok(None);
    }
    let Some(rest) = path.strip_prefix("dfs://") else {
        return Ok(Some(PathBuf::from(path)));
    };
    let rest = rest.trim_start_matches('/').trim_end_matches('/');
    let bad = |why: &str| Error::arg(format!("Invalid database path '{path}': {why}"));
    if rest.is_empty() {
        return Err(bad("the name after dfs:// is empty"));
    }
    for part in rest.split('/') {
        if part.is_empty() || part == "." || part == ".." {
            return Err(bad("a dfs path may not contain empty, '.' or '..' parts"));
        }
        if part.contains(['\\', '\0']) || part.starts_with('.') {
            return Err(bad("a dfs path part may not start with '.' or contain '\\'"));
        }
    }
    let root = dfs_root();
    let dir = root.join(rest);
    confine(&root, &dir)?;
    Ok(Some(dir))
}

/// Check a table name before it becomes a folder: letters, digits and `_`, starting with a
/// letter or `_`, at most 255 bytes. Anything else (`..`, separators, absolute paths) could
/// name a path outside the database.
pub fn check_table_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let ok_first = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if ok_first && name.len() <= 255 && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Ok(());
    }
    Err(Error::arg(format!(
        "Invalid table name '{name}': a table name starts with a letter or '_' and holds only letters, digits and '_'"
    )))
}

pub use beluga_runtime::policy::confine;

/// Write a file atomically: temporary file, fsync, rename over the target, fsync the folder.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = tmp_name(path);
    {
        let mut f = File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
        f.write_all(bytes).map_err(|e| io_err(&tmp, e))?;
        f.sync_all().map_err(|e| io_err(&tmp, e))?;
    }
    fs::rename(&tmp, path).map_err(|e| io_err(path, e))?;
    if let Some(d) = path.parent() {
        sync_dir(d);
    }
    Ok(())
}

fn tmp_name(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(format!(".tmp{}", std::process::id()));
    PathBuf::from(s)
}

pub fn sync_dir(d: &Path) {
    if let Ok(f) = File::open(d) {
        let _ = f.sync_all();
    }
}

// ------------------------------------------------------------------ lock

/// Exclusive writer lock of one database (released on drop or when the process dies).
pub struct DbLock {
    _file: File,
}

impl DbLock {
    pub fn acquire(dir: &Path) -> Result<DbLock> {
        let p = dir.join("LOCK");
        let f = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&p).map_err(|e| io_err(&p, e))?;
        let wait = std::env::var("BELUGA_LOCK_TIMEOUT_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(60_000u64);
        let start = Instant::now();
        loop {
            match f.try_lock() {
                Ok(()) => return Ok(DbLock { _file: f }),
                Err(fs::TryLockError::WouldBlock) => {
                    if start.elapsed() > Duration::from_millis(wait) {
                        return Err(Error::new(
                            ErrorKind::Io,
                            format!("The database {} is being written by another process; gave up after {} ms", dir.display(), wait),
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(fs::TryLockError::Error(e)) => return Err(io_err(&p, e)),
            }
        }
    }
}

// ------------------------------------------------------------------ database metadata

#[derive(Clone, Debug)]
pub struct DbMeta {
    pub levels: Vec<Level>,
    pub engine: String,
}

const DB_MAGIC: &str = "beluga-db-1";

pub fn write_db_meta(dir: &Path, m: &DbMeta) -> Result<()> {
    let mut w = Writer::new();
    w.str(DB_MAGIC);
    w.str(&m.engine);
    w.u32(m.levels.len() as u32);
    for l in &m.levels {
        l.write(&mut w);
    }
    write_atomic(&dir.join("dbmeta"), &w.seal())
}

pub fn read_db_meta(dir: &Path) -> Result<DbMeta> {
    let p = dir.join("dbmeta");
    let bytes = fs::read(&p).map_err(|e| io_err(&p, e))?;
    let name = p.display().to_string();
    let mut r = Reader::sealed(&bytes, &name)?;
    if r.str()? != DB_MAGIC {
        return Err(corrupt(&name, "not a database"));
    }
    let engine = r.string()?;
    let n = r.u32()? as usize;
    let mut levels = Vec::new();
    for _ in 0..n.min(3) {
        levels.push(Level::read(&mut r)?);
    }
    Ok(DbMeta { levels, engine })
}

pub fn db_exists(dir: &Path) -> bool {
    dir.join("dbmeta").is_file()
}

// ------------------------------------------------------------------ table manifests

#[derive(Clone, Debug)]
pub struct SegMeta {
    pub id: u64,
    pub rows: u64,
}

#[derive(Clone, Debug)]
pub struct PartMeta {
    /// partition index per level (empty for a dimension table)
    pub key: Vec<u32>,
    pub dir: String,
    pub segs: Vec<SegMeta>,
}

impl PartMeta {
    pub fn rows(&self) -> u64 {
        self.segs.iter().map(|s| s.rows).sum()
    }
}

#[derive(Clone, Debug)]
pub struct TableMeta {
    pub version: u64,
    pub names: Vec<String>,
    pub types: Vec<DataType>,
    /// partitioning columns, one per level (empty: dimension table)
    pub part_cols: Vec<String>,
    pub symbols: Arc<SymbolDict>,
    pub next_seg: u64,
    pub parts: Vec<PartMeta>,
    /// TSDB options and column comments (a trailer of the manifest; absent in older ones)
    pub opts: TableOpts,
}

/// What `keepDuplicates` keeps of the rows of one partition whose `sortColumns` are all equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeepDup {
    #[default]
    All,
    First,
    Last,
}

impl KeepDup {
    /// From the constants ALL (3), FIRST (0), LAST (1) or their names.
    pub fn from_value(v: &beluga_runtime::Value) -> Result<KeepDup> {
        if let Some(s) = v.as_str() {
            return match s.to_ascii_uppercase().as_str() {
                "ALL" => Ok(KeepDup::All),
                "FIRST" => Ok(KeepDup::First),
                "LAST" => Ok(KeepDup::Last),
                _ => Err(Error::arg(format!("keepDuplicates must be ALL, FIRST or LAST, not {s}"))),
            };
        }
        match v.as_i64() {
            Some(3) => Ok(KeepDup::All),
            Some(0) => Ok(KeepDup::First),
            Some(1) => Ok(KeepDup::Last),
            _ => Err(Error::arg("keepDuplicates must be ALL, FIRST or LAST")),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            KeepDup::All => "ALL",
            KeepDup::First => "FIRST",
            KeepDup::Last => "LAST",
        }
    }
    fn code(self) -> u32 {
        match self {
            KeepDup::All => 0,
            KeepDup::First => 1,
            KeepDup::Last => 2,
        }
    }
    fn from_code(c: u32) -> KeepDup {
        match c {
            1 => KeepDup::First,
            2 => KeepDup::Last,
            _ => KeepDup::All,
        }
    }
}

/// Per-table options stored after the partitions in the manifest.
#[derive(Clone, Debug, Default)]
pub struct TableOpts {
    /// `sortColumns` (TSDB): the key of `keep`
    pub sort_cols: Vec<String>,
    pub keep: KeepDup,
    /// one comment per column ("" for none), aligned with `names`
    pub comments: Vec<String>,
    /// per partition level: the call applied to the partitioning column to find a row's
    /// partition (`myFunc(ts, 6, 8)`, see `partfn`), "" when the column's own values decide
    pub part_fns: Vec<String>,
    /// the table name the segment images record as their owner when the table was renamed
    /// (`renameTable` moves the folder, not the data); "" when it is the folder's name
    pub origin: String,
    /// `setTableComment` ("" for none)
    pub table_comment: String,
}

impl TableOpts {
    /// The partitioning function of level `l`, if any.
    pub fn part_fn(&self, l: usize) -> Option<&str> {
        self.part_fns.get(l).map(|s| s.as_str()).filter(|s| !s.is_empty())
    }
    pub fn has_part_fns(&self) -> bool {
        self.part_fns.iter().any(|s| !s.is_empty())
    }
}

const OPTS_TAG: &str = "opts-1";
/// Trailer after the options: the partitioning functions (absent when there are none).
const FNS_TAG: &str = "fns-1";
/// Trailer: the owner name of the table's segments after a `renameTable` (absent otherwise).
const ORIGIN_TAG: &str = "origin-1";
/// Trailer: the table's comment (`setTableComment`; absent when there is none).
const COMMENT_TAG: &str = "tcomment-1";

impl TableMeta {
    pub fn rows(&self) -> u64 {
        self.parts.iter().map(|p| p.rows()).sum()
    }
    /// The owner a segment of this table records (`segment::owner`): the folder's name, or
    /// the name the table had when its data was written if it was renamed since.
    pub fn owner(&self, tdir: &Path, part: &str, seg: u64) -> String {
        if self.opts.origin.is_empty() {
            crate::segment::owner(tdir, part, seg)
        } else {
            format!("{}/{part}/{seg}", self.opts.origin)
        }
    }
    pub fn col_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name).or_else(|| self.names.iter().position(|n| n.eq_ignore_ascii_case(name)))
    }
}

const TABLE_MAGIC: &str = "beluga-table-1";

/// The folder of table `name` of the database in `db`: the name is checked
/// (`check_table_name`) and the folder, symlinks resolved, must lie inside `db`.
pub fn table_dir(db: &Path, name: &str) -> Result<PathBuf> {
    check_table_name(name)?;
    let t = db.join(name);
    confine(db, &t)?;
    Ok(t)
}

/// Folder and file-name prefix of a partition's segment files: the folder of the first
/// level; deeper levels are joined by '.' into the file name (partition folder names hold
/// only letters, digits, '_' and '-'), so an import creates no folder per partition.
fn seg_place(tdir: &Path, part: &str) -> (PathBuf, String) {
    match part.split_once('/') {
        Some((first, rest)) => (tdir.join(first), format!("{}.", rest.replace('/', "."))),
        None => (tdir.join(part), String::new()),
    }
}

/// Segment ids with this bit belong to pack files: the segments one write adds to several
/// partitions below one first-level folder share a file (see `segment`). Such an id is
/// `PACK_FLAG | pack << PACK_SLOT_BITS | slot`, where `pack` (taken from `next_seg`, like
/// the id of a segment with a file of its own) names the file `<first>/<pack>.pack`.
pub const PACK_FLAG: u64 = 1 << 62;
pub const PACK_SLOT_BITS: u32 = 16;
/// Most segments in one pack.
pub const PACK_SLOTS: u64 = 1 << PACK_SLOT_BITS;

/// Whether segment `seg` of partition folder `part` lives in a pack file.
pub fn in_pack(part: &str, seg: u64) -> bool {
    seg & PACK_FLAG != 0 && part.contains('/')
}

/// The id of segment `slot` of pack `pack`.
pub fn pack_seg_id(pack: u64, slot: u64) -> u64 {
    PACK_FLAG | pack << PACK_SLOT_BITS | slot
}

/// The pack number of a pack segment id.
pub fn pack_of(seg: u64) -> u64 {
    (seg & !PACK_FLAG) >> PACK_SLOT_BITS
}

/// The pack file holding segment `seg` of a partition below the first-level folder of `part`.
pub fn pack_file(tdir: &Path, part: &str, seg: u64) -> PathBuf {
    let first = part.split_once('/').map_or(part, |(a, _)| a);
    tdir.join(first).join(format!("{}.pack", pack_of(seg)))
}

/// The file holding every column of segment `seg` of a partition (see `segment`): its own
/// segment file, or the pack file it shares with the write's other partitions.
pub fn seg_file(tdir: &Path, part: &str, seg: u64) -> PathBuf {
    if in_pack(part, seg) {
        return pack_file(tdir, part, seg);
    }
    let (d, pre) = seg_place(tdir, part);
    d.join(format!("{pre}{seg}.seg"))
}

/// The name of one column of a segment: its identity for readers and caches, opened by
/// `segment::open_column` (from the segment file, or the per-column file of a database
/// written before segment files existed).
pub fn col_file(tdir: &Path, part: &str, seg: u64, col: usize) -> PathBuf {
    let (d, pre) = seg_place(tdir, part);
    d.join(format!("{pre}{seg}_{col}.col"))
}

fn encode_meta(m: &TableMeta) -> Vec<u8> {
    let mut w = Writer::new();
    w.str(TABLE_MAGIC);
    w.u64(m.version);
    w.u32(m.names.len() as u32);
    for (n, t) in m.names.iter().zip(&m.types) {
        w.str(n);
        w.dtype(*t);
    }
    w.u32(m.part_cols.len() as u32);
    m.part_cols.iter().for_each(|c| w.str(c));
    w.u32(m.symbols.names.len() as u32);
    for s in &m.symbols.names {
        w.str(s);
    }
    w.u64(m.next_seg);
    w.u32(m.parts.len() as u32);
    for p in &m.parts {
        w.u32(p.key.len() as u32);
        p.key.iter().for_each(|&k| w.u32(k));
        w.str(&p.dir);
        w.u32(p.segs.len() as u32);
        for s in &p.segs {
            w.u64(s.id);
            w.u64(s.rows);
        }
    }
    w.str(OPTS_TAG);
    w.u32(m.opts.sort_cols.len() as u32);
    m.opts.sort_cols.iter().for_each(|c| w.str(c));
    w.u32(m.opts.keep.code());
    w.u32(m.opts.comments.len() as u32);
    m.opts.comments.iter().for_each(|c| w.str(c));
    if m.opts.has_part_fns() {
        w.str(FNS_TAG);
        w.u32(m.opts.part_fns.len() as u32);
        m.opts.part_fns.iter().for_each(|c| w.str(c));
    }
    if !m.opts.origin.is_empty() {
        w.str(ORIGIN_TAG);
        w.str(&m.opts.origin);
    }
    if !m.opts.table_comment.is_empty() {
        w.str(COMMENT_TAG);
        w.str(&m.opts.table_comment);
    }
    w.seal()
}

fn decode_meta(bytes: &[u8], name: &str) -> Result<TableMeta> {
    let mut r = Reader::sealed(bytes, name)?;
    if r.str()? != TABLE_MAGIC {
        return Err(corrupt(name, "not a table manifest"));
    }
    let version = r.u64()?;
    let nc = r.u32()? as usize;
    let (mut names, mut types) = (Vec::new(), Vec::new());
    for _ in 0..nc {
        names.push(r.string()?);
        types.push(r.dtype()?);
    }
    let np = r.u32()? as usize;
    let mut part_cols = Vec::new();
    for _ in 0..np.min(3) {
        part_cols.push(r.string()?);
    }
    let ns = r.u32()? as usize;
    let mut dict = SymbolDict::default();
    for k in 0..ns {
        let s = r.str()?;
        if k == 0 {
            continue;
        }
        if dict.intern(s) as usize != k {
            return Err(corrupt(name, "duplicate symbol"));
        }
    }
    let next_seg = r.u64()?;
    let nparts = r.u32()? as usize;
    let mut parts = Vec::with_capacity(nparts.min(1 << 20));
    for _ in 0..nparts {
        let nk = r.u32()? as usize;
        let mut key = Vec::with_capacity(nk.min(3));
        for _ in 0..nk.min(3) {
            key.push(r.u32()?);
        }
        let dir = r.string()?;
        let nseg = r.u32()? as usize;
        let mut segs = Vec::with_capacity(nseg.min(1 << 20));
        for _ in 0..nseg {
            segs.push(SegMeta { id: r.u64()?, rows: r.u64()? });
        }
        parts.push(PartMeta { key, dir, segs });
    }
    let mut opts = TableOpts::default();
    if !r.done() && r.str()? == OPTS_TAG {
        let n = r.u32()? as usize;
        for _ in 0..n.min(1 << 16) {
            opts.sort_cols.push(r.string()?);
        }
        opts.keep = KeepDup::from_code(r.u32()?);
        let n = r.u32()? as usize;
        for _ in 0..n.min(1 << 20) {
            opts.comments.push(r.string()?);
        }
        // optional trailers, each named by its tag (an unknown tag ends the list)
        while !r.done() {
            let tag = r.str()?.to_string();
            match tag.as_str() {
                FNS_TAG => {
                    let n = r.u32()? as usize;
                    for _ in 0..n.min(3) {
                        opts.part_fns.push(r.string()?);
                    }
                }
                ORIGIN_TAG => opts.origin = r.string()?,
                COMMENT_TAG => opts.table_comment = r.string()?,
                _ => break,
            }
        }
    }
    Ok(TableMeta { version, names, types, part_cols, symbols: Arc::new(dict), next_seg, parts, opts })
}

fn manifest_name(v: u64) -> String {
    format!("manifest.{v}")
}

pub fn table_exists(db: &Path, name: &str) -> bool {
    table_dir(db, name).is_ok_and(|t| t.join("CURRENT").is_file())
}

/// The live manifest of a table.
pub fn read_table(db: &Path, name: &str) -> Result<TableMeta> {
    let tdir = table_dir(db, name)?;
    let cur = tdir.join("CURRENT");
    let text = fs::read_to_string(&cur).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::name(format!("The table {name} doesn't exist in the database {}", db.display()))
        } else {
            io_err(&cur, e)
        }
    })?;
    let (file, sum) = text.trim().split_once(' ').ok_or_else(|| corrupt(&cur.display().to_string(), "bad pointer"))?;
    let p = tdir.join(file);
    let bytes = fs::read(&p).map_err(|e| io_err(&p, e))?;
    if format!("{:016x}", crate::bin::checksum(&bytes)) != sum {
        return Err(corrupt(&p.display().to_string(), "doesn't match CURRENT"));
    }
    decode_meta(&bytes, &p.display().to_string())
}

/// Write a new manifest and make it current; then remove files no longer referenced by
/// this version or the previous one. The caller holds the database lock and has made the
/// segment files durable.
pub fn commit(db: &Path, name: &str, m: &TableMeta, prev: Option<&TableMeta>) -> Result<()> {
    commit_with(db, name, m, prev, &[], &[])
}

/// `commit` for a transaction whose new `files` (in the folders `dirs`) are written but not
/// yet synced: the manifest and the next `CURRENT` are written beside them, everything is
/// made durable at once (`make_durable`), and only then does the rename of `CURRENT` commit.
/// A crash before the rename leaves the old state; files of the unfinished transaction
/// are unreferenced and removed by the next writer's `gc`.
pub fn commit_with(db: &Path, name: &str, m: &TableMeta, prev: Option<&TableMeta>, files: &[PathBuf], dirs: &[PathBuf]) -> Result<()> {
    let tdir = table_dir(db, name)?;
    fs::create_dir_all(&tdir).map_err(|e| io_err(&tdir, e))?;
    let bytes = encode_meta(m);
    let file = manifest_name(m.version);
    let mpath = tdir.join(&file);
    write_new(&mpath, &bytes)?;
    let ptr = format!("{file} {:016x}\n", crate::bin::checksum(&bytes));
    let cur = tdir.join("CURRENT");
    let tmp = tmp_name(&cur);
    write_new(&tmp, ptr.as_bytes())?;
    let mut all: Vec<PathBuf> = files.to_vec();
    all.push(mpath);
    all.push(tmp.clone());
    let mut all_dirs: Vec<PathBuf> = dirs.to_vec();
    all_dirs.push(tdir.clone());
    make_durable(&tdir, &all, &all_dirs)?;
    // the commit point
    fs::rename(&tmp, &cur).map_err(|e| io_err(&cur, e))?;
    sync_dir(&tdir);
    gc(&tdir, m, prev);
    Ok(())
}

/// Remove files of unfinished or superseded transactions (best effort).
pub fn gc(tdir: &Path, m: &TableMeta, prev: Option<&TableMeta>) {
    let mut keep = Keep::default();
    for t in std::iter::once(m).chain(prev) {
        for p in &t.parts {
            for s in &p.segs {
                keep.segs.insert(seg_file(tdir, &p.dir, s.id));
                keep.legacy.insert((p.dir.clone(), s.id));
            }
        }
    }
    let keep_manifests: AHashSet<String> = std::iter::once(m).chain(prev).map(|t| manifest_name(t.version)).collect();
    let Ok(rd) = fs::read_dir(tdir) else { return };
    for e in rd.flatten() {
        let fname = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            gc_part(tdir, &path, &keep);
        } else if (fname.starts_with("manifest.") && !keep_manifests.contains(&fname)) || fname.contains(".tmp") {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Files referenced by the kept manifests.
#[derive(Default)]
struct Keep {
    /// segment files
    segs: AHashSet<PathBuf>,
    /// (partition folder, segment) of per-column files of older databases
    legacy: AHashSet<(String, u64)>,
}

fn gc_part(tdir: &Path, dir: &Path, keep: &Keep) {
    let rel = dir.strip_prefix(tdir).map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or_default();
    let Ok(rd) = fs::read_dir(dir) else { return };
    let mut empty = true;
    for e in rd.flatten() {
        let path = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            gc_part(tdir, &path, keep);
            if fs::read_dir(&path).map(|mut r| r.next().is_some()).unwrap_or(true) {
                empty = false;
            }
            continue;
        }
        let fname = e.file_name().to_string_lossy().into_owned();
        let referenced = if fname.ends_with(".seg") || fname.ends_with(".pack") {
            keep.segs.contains(&path)
        } else if fname.ends_with(".col") {
            let seg = fname.split('_').next().and_then(|s| s.parse::<u64>().ok());
            seg.is_some_and(|s| keep.legacy.contains(&(rel.clone(), s)))
        } else {
            false
        };
        if referenced {
            empty = false;
        } else {
            let _ = fs::remove_file(&path);
        }
    }
    if empty {
        let _ = fs::remove_dir(dir);
    }
}

/// Is this entry of a database folder something a database writes there: `dbmeta` (and
/// its temporary copies), `LOCK`, a table folder (a table name holding `CURRENT` or a
/// manifest, or empty), or a folder set aside by an interrupted drop?
fn db_owned(entry: &fs::DirEntry) -> bool {
    let name = entry.file_name().to_string_lossy().into_owned();
    let Ok(ft) = entry.file_type() else { return false };
    if ft.is_file() {
        return name == "dbmeta" || name == "LOCK" || name.starts_with("dbmeta.tmp");
    }
    if !ft.is_dir() {
        return false;
    }
    if name.split_once(".dropped").is_some_and(|(t, pid)| check_table_name(t).is_ok() && pid.bytes().all(|b| b.is_ascii_digit())) {
        return true;
    }
    if check_table_name(&name).is_err() {
        return false;
    }
    match fs::read_dir(entry.path()) {
        Ok(mut it) => {
            let mut empty = true;
            let table = it.any(|e| {
                empty = false;
                e.is_ok_and(|e| {
                    let n = e.file_name();
                    let n = n.to_string_lossy();
                    n == "CURRENT" || n.starts_with("manifest.")
                })
            });
            table || empty
        }
        Err(_) => false,
    }
}

/// The first entry of folder `dir` that a database would not have written (`None` when the
/// folder is missing, empty or holds only database files): a database is never created over
/// someone else's files, so that dropping it can never delete them.
pub fn foreign_entry(dir: &Path) -> Result<Option<String>> {
    match fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(dir, e)),
        Ok(md) if !md.is_dir() => return Ok(Some("a file, not a folder".into())),
        Ok(_) => {}
    }
    for e in fs::read_dir(dir).map_err(|e| io_err(dir, e))? {
        let e = e.map_err(|e| io_err(dir, e))?;
        if !db_owned(&e) {
            return Ok(Some(format!("'{}'", e.file_name().to_string_lossy())));
        }
    }
    Ok(None)
}

/// Drop the database in `dir`: removing `dbmeta` is the commit point (the database no
/// longer exists), then the files and table folders the database wrote are removed. Anything
/// else found in the folder is left where it is, and so is the folder when not empty.
pub fn drop_database_files(dir: &Path) -> Result<()> {
    let lock = DbLock::acquire(dir)?;
    fs::remove_file(dir.join("dbmeta")).map_err(|e| io_err(&dir.join("dbmeta"), e))?;
    sync_dir(dir);
    for e in fs::read_dir(dir).map_err(|e| io_err(dir, e))? {
        let e = e.map_err(|e| io_err(dir, e))?;
        if !db_owned(&e) || e.file_name() == "LOCK" {
            continue;
        }
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            confine(dir, &p)?;
            remove_tree(&p)?;
        } else {
            fs::remove_file(&p).map_err(|err| io_err(&p, err))?;
        }
    }
    drop(lock);
    let _ = fs::remove_file(dir.join("LOCK"));
    let _ = fs::remove_dir(dir);
    if let Some(parent) = dir.parent() {
        sync_dir(parent);
    }
    Ok(())
}

/// Remove a folder tree so that it disappears at once: rename it aside, then delete.
pub fn remove_tree(dir: &Path) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    let mut aside = dir.as_os_str().to_os_string();
    aside.push(format!(".dropped{}", std::process::id()));
    let aside = PathBuf::from(aside);
    fs::rename(dir, &aside).map_err(|e| io_err(dir, e))?;
    if let Some(p) = dir.parent() {
        sync_dir(p);
    }
    fs::remove_dir_all(&aside).map_err(|e| io_err(&aside, e))
}

/// Write a file that no committed manifest refers to yet (a new segment file, the next
/// manifest): created under its final name, not synced; `make_durable` syncs it before the
/// transaction commits. Its parent folder is created when missing.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    create_new(path)?.write_all(bytes).map_err(|e| io_err(path, e))
}

/// Create (or truncate) a file that no committed manifest refers to yet, for `write_new`
/// and its kin: not synced here (`make_durable` does it before the commit); its parent
/// folder is created when missing.
pub fn create_new(path: &Path) -> Result<File> {
    match File::create(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(d) = path.parent() {
                fs::create_dir_all(d).map_err(|e| io_err(d, e))?;
            }
            File::create(path).map_err(|e| io_err(path, e))
        }
        r => r.map_err(|e| io_err(path, e)),
    }
}

/// Above this many files one `syncfs` of the file system is cheaper than an fsync per file
/// (each fsync waits for a device cache flush of its own).
#[cfg(target_os = "linux")]
const SYNCFS_FILES: usize = 16;

/// Make written files and folders durable. Few files: an fsync each (in parallel), then
/// the folders. Many files on Linux: one `syncfs` on the database's file system, which
/// writes back every dirty inode and folder and flushes the device cache once.
pub fn make_durable(anchor: &Path, files: &[PathBuf], dirs: &[PathBuf]) -> Result<()> {
    #[cfg(target_os = "linux")]
    if files.len() > SYNCFS_FILES {
        use std::os::fd::AsRawFd;
        let f = File::open(anchor).map_err(|e| io_err(anchor, e))?;
        // SAFETY: syncfs only reads the descriptor, which `f` keeps open for the call.
        if unsafe { libc::syncfs(f.as_raw_fd()) } == 0 {
            return Ok(());
        }
        // an error is reported below by the per-file fsyncs, which name the file
    }
    let _ = anchor;
    const THREADS: usize = 8;
    let per = files.len().div_ceil(THREADS).max(1);
    std::thread::scope(|s| {
        let hs: Vec<_> = files
            .chunks(per)
            .map(|chunk| {
                s.spawn(move || {
                    chunk.iter().try_for_each(|p| {
                        let f = fs::OpenOptions::new().write(true).open(p).map_err(|e| io_err(p, e))?;
                        f.sync_all().map_err(|e| io_err(p, e))
                    })
                })
            })
            .collect();
        hs.into_iter().try_for_each(|h| h.join().unwrap_or_else(|_| Err(Error::runtime("a sync thread failed"))))
    })?;
    for d in dirs {
        sync_dir(d);
    }
    Ok(())
}

/// Write one column file durably (temporary name, fsync, rename; the folder is synced at commit).
pub fn write_col_file(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(d) = path.parent() {
        fs::create_dir_all(d).map_err(|e| io_err(d, e))?;
    }
    let tmp = tmp_name(path);
    {
        let mut f = File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
        f.write_all(bytes).map_err(|e| io_err(&tmp, e))?;
        f.sync_all().map_err(|e| io_err(&tmp, e))?;
    }
    fs::rename(&tmp, path).map_err(|e| io_err(path, e))
}
