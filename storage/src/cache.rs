//! In-memory caches of the read path (DolphinDB keeps loaded partitions in memory too, and
//! `clearAllCache()` drops them):
//!
//! * Table states: the decoded manifest and partition scheme of a table, keyed by the
//!   identity of its `CURRENT` file (content, inode, times). Every commit renames a new
//!   `CURRENT` into place (a new inode and a new manifest version), so a query re-reads the
//!   manifest only after a write; otherwise it costs one small read.
//! * Segment columns: decoded columns of segment files, keyed by (table, segment id, column).
//!   Segment files are written once under ids no manifest used before (`next_seg` only
//!   grows within a table's life), and each entry also records the file's size, time and
//!   inode, checked once per table state (so a table dropped and recreated by another
//!   process is not served from old files).
//! * Joined columns: a column assembled from whole segments (a query over whole
//!   partitions), keyed by the table state and the segment list, so that loading the same
//!   partitions again copies nothing.
//!
//! Values are `Arc`-shared: a hit clones a pointer. Memory is bounded by a byte budget
//! (`BELUGA_CACHE_MB`, default a quarter of the machine's memory) with clock eviction.
//! Drops of tables and databases in this process forget their entries at once.

use crate::catalog::{self, TableMeta};
use crate::column_file::{BlockMeta, ColumnFile};
use crate::partition::Level;
use ahash::{AHashMap, AHashSet};
use beluga_runtime::column::{ColData, Column, SymCol, SymbolDict};
use beluga_runtime::{Error, Result};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// A decoded column file: the column and its block directory (min/max per block). A query
/// whose filters rule out blocks by their min/max decodes only the others, and the entry
/// then holds just those (`held`): a later query needing no other block is served from
/// it, one needing more decodes the union and replaces it.
pub struct Decoded {
    pub col: Column,
    pub blocks: Vec<BlockMeta>,
    /// the blocks whose rows `col` holds, in order (None: every block)
    pub held: Option<Vec<bool>>,
}

impl Decoded {
    /// A column of every block of its file.
    pub fn whole(col: Column, blocks: Vec<BlockMeta>) -> Decoded {
        Decoded { col, blocks, held: None }
    }

    /// Whether the entry holds every block `keep` marks (every block when None).
    pub fn covers(&self, keep: Option<&[bool]>) -> bool {
        match (&self.held, keep) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(h), Some(k)) => h.iter().zip(k).all(|(&h, &k)| h || !k),
        }
    }

    /// Rows of the kept blocks (every row when `keep` is None); the entry must cover them.
    pub fn rows(&self, keep: Option<&[bool]>) -> Column {
        let Some(keep) = keep else {
            return self.col.clone();
        };
        let held = self.held.as_deref();
        if keep.iter().enumerate().all(|(b, &k)| k == held.is_none_or(|h| h[b])) {
            return self.col.clone();
        }
        let mut idx = Vec::new();
        let mut start = 0usize;
        for (i, (meta, &k)) in self.blocks.iter().zip(keep).enumerate() {
            if !held.is_none_or(|h| h[i]) {
                continue;
            }
            let n = meta.rows as usize;
            if k {
                idx.extend(start..start + n);
            }
            start += n;
        }
        self.col.take_usize(&idx)
    }
}

impl Decoded {
    /// Rows `pick` (positions among the rows of the blocks `keep` marks, ascending) of an
    /// entry that covers those blocks, gathered from the entry in one pass.
    pub fn pick(&self, keep: Option<&[bool]>, pick: &[usize]) -> Column {
        let held = self.held.as_deref();
        if held.is_none() && keep.is_none_or(|k| k.iter().all(|&b| b)) {
            return self.col.take_usize(pick);
        }
        // per kept block: (first position among the kept rows, first position in `col`)
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let (mut kept_at, mut col_at) = (0usize, 0usize);
        for (i, meta) in self.blocks.iter().enumerate() {
            if !held.is_none_or(|h| h[i]) {
                continue;
            }
            let n = meta.rows as usize;
            if keep.is_none_or(|k| k[i]) {
                runs.push((kept_at, col_at));
                kept_at += n;
            }
            col_at += n;
        }
        let mut r = 0usize;
        let idx: Vec<usize> = pick
            .iter()
            .map(|&p| {
                while r + 1 < runs.len() && runs[r + 1].0 <= p {
                    r += 1;
                }
                runs[r].1 + (p - runs[r].0)
            })
            .collect();
        self.col.take_usize(&idx)
    }
}

/// A stored column before its rows are taken: see `TableState::seg_source`.
pub enum SegSource {
    Cached(Arc<Decoded>),
    File(ColumnFile),
}

impl SegSource {
    /// The block directory (rows and min/max per block).
    pub fn blocks(&self) -> &[BlockMeta] {
        match self {
            SegSource::Cached(d) => &d.blocks,
            SegSource::File(f) => &f.blocks,
        }
    }

    pub fn ty(&self) -> beluga_runtime::DataType {
        match self {
            SegSource::Cached(d) => d.col.ty,
            SegSource::File(f) => f.ty,
        }
    }
}

/// Size, modification time (ns) and inode of a file: what tells two files apart.
pub type Stamp = (u64, i128, u64);

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Key {
    /// column `col` of segment `seg` of table `table`
    Seg { table: u32, seg: u64, col: u32 },
    /// column `col` of the concatenation of whole segments `segs`, under a table state
    Joined { table: u32, state: u64, col: u32, segs: Arc<[u64]> },
}

impl Key {
    fn table(&self) -> u32 {
        match self {
            Key::Seg { table, .. } | Key::Joined { table, .. } => *table,
        }
    }
}

struct Slot {
    val: Arc<Decoded>,
    bytes: usize,
    stamp: Stamp,
    /// clock bit: used since the hand last passed
    used: bool,
}

/// The column cache: a map, a clock ring and a byte budget.
struct Columns {
    map: AHashMap<Key, Slot>,
    ring: VecDeque<Key>,
    bytes: usize,
    budget: usize,
    stats: Stats,
    /// segment columns read once without being admitted (see `TableState::first_use`)
    seen: AHashSet<Key>,
}

/// Counters (for tests and `getCacheStat`-like diagnostics).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Stats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
}

impl Columns {
    fn get(&mut self, k: &Key, stamp: Stamp) -> Option<Arc<Decoded>> {
        match self.map.get_mut(k) {
            Some(s) if s.stamp == stamp => {
                s.used = true;
                self.stats.hits += 1;
                Some(s.val.clone())
            }
            _ => {
                self.stats.misses += 1;
                None
            }
        }
    }

    fn put(&mut self, k: Key, val: Arc<Decoded>, stamp: Stamp) {
        let bytes = col_bytes(&val.col) + val.blocks.len() * std::mem::size_of::<BlockMeta>() + 64;
        if bytes > self.budget {
            return;
        }
        if let Some(old) = self.map.remove(&k) {
            self.bytes -= old.bytes;
        } else {
            self.ring.push_back(k.clone());
        }
        self.evict(bytes);
        self.bytes += bytes;
        self.map.insert(k, Slot { val, bytes, stamp, used: false });
    }

    /// Make room for `need` more bytes: the clock hand gives used entries a second chance.
    fn evict(&mut self, need: usize) {
        let mut turns = 2 * self.ring.len() + 1;
        while self.bytes + need > self.budget && turns > 0 {
            turns -= 1;
            let Some(k) = self.ring.pop_front() else {
                break;
            };
            match self.map.get_mut(&k) {
                Some(s) if s.used => {
                    s.used = false;
                    self.ring.push_back(k);
                }
                Some(_) => {
                    if let Some(s) = self.map.remove(&k) {
                        self.bytes -= s.bytes;
                        self.stats.evictions += 1;
                    }
                }
                None => {}
            }
        }
    }

    fn retain(&mut self, mut keep: impl FnMut(&Key) -> bool) {
        let mut freed = 0;
        self.map.retain(|k, s| {
            let k2 = keep(k);
            if !k2 {
                freed += s.bytes;
            }
            k2
        });
        self.bytes -= freed;
        let map = &self.map;
        self.ring.retain(|k| map.contains_key(k));
        self.seen.retain(|k| keep(k));
    }
}

/// Bytes a column holds.
pub fn col_bytes(c: &Column) -> usize {
    beluga_runtime::match_numeric!(&*c.data, v: T => v.len() * std::mem::size_of::<T>(),
        ColData::Str(s) => s.bytes.len() + s.offsets.len() * 8,
        ColData::Sym(s) => s.codes.len() * 4,
        ColData::Array(_) => c.len() * 8,
    )
}

/// The default budget: `BELUGA_CACHE_MB`, else a quarter of the physical memory.
fn default_budget() -> usize {
    if let Some(mb) = std::env::var("BELUGA_CACHE_MB").ok().and_then(|v| v.trim().parse::<usize>().ok()) {
        return mb << 20;
    }
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
        line.split_whitespace().nth(1)?.parse::<usize>().ok().map(|kb| kb << 10)
    });
    total.map(|b| b / 4).unwrap_or(2 << 30)
}

fn columns() -> MutexGuard<'static, Columns> {
    static C: OnceLock<Mutex<Columns>> = OnceLock::new();
    let m = C.get_or_init(|| {
        Mutex::new(Columns {
            map: AHashMap::new(),
            ring: VecDeque::new(),
            bytes: 0,
            budget: default_budget(),
            stats: Stats::default(),
            seen: AHashSet::new(),
        })
    });
    // a panic while holding the lock leaves consistent data (every update is one step)
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// ------------------------------------------------------------------ table states

/// What identifies the live manifest: the text of `CURRENT` and the file's identity.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Ident {
    text: String,
    stamp: Stamp,
    ctime: i128,
}

/// A table as of one committed version.
pub struct TableState {
    /// the table's number in this process (keys of its cached columns)
    pub id: u32,
    /// unique per state (keys of joined columns)
    pub serial: u64,
    pub meta: Arc<TableMeta>,
    /// the database's partition levels (empty for a dimension table)
    pub levels: Arc<Vec<Level>>,
    ident: Ident,
    /// segment file stamps checked under this state: (segment, column or ALL)
    stamps: Mutex<AHashMap<(u64, u32), Stamp>>,
}

const ALL: u32 = u32::MAX;

struct TableSlot {
    id: u32,
    state: Option<Arc<TableState>>,
}

struct Tables {
    by_dir: AHashMap<PathBuf, TableSlot>,
    next_id: u32,
}

fn tables() -> MutexGuard<'static, Tables> {
    static T: OnceLock<Mutex<Tables>> = OnceLock::new();
    T.get_or_init(|| Mutex::new(Tables { by_dir: AHashMap::new(), next_id: 1 })).lock().unwrap_or_else(|e| e.into_inner())
}

static SERIAL: AtomicU64 = AtomicU64::new(1);

fn file_stamp(md: &std::fs::Metadata) -> (Stamp, i128) {
    let ns = |t: std::io::Result<std::time::SystemTime>| {
        t.ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos() as i128).unwrap_or(0)
    };
    #[cfg(unix)]
    let (ino, ctime) = {
        use std::os::unix::fs::MetadataExt;
        (md.ino(), md.ctime() as i128 * 1_000_000_000 + md.ctime_nsec() as i128)
    };
    #[cfg(not(unix))]
    let (ino, ctime) = (0u64, 0i128);
    ((md.len(), ns(md.modified()), ino), ctime)
}

/// Stamp of a file (see `Stamp`).
pub fn stamp_of(p: &Path) -> std::io::Result<Stamp> {
    std::fs::metadata(p).map(|m| file_stamp(&m).0)
}

fn read_ident(db: &Path, name: &str, tdir: &Path) -> Result<Ident> {
    use std::io::Read;
    let cur = tdir.join("CURRENT");
    let mut f = std::fs::File::open(&cur).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::name(format!("The table {name} doesn't exist in the database {}", db.display()))
        } else {
            catalog::io_err(&cur, e)
        }
    })?;
    let md = f.metadata().map_err(|e| catalog::io_err(&cur, e))?;
    let mut text = String::new();
    f.read_to_string(&mut text).map_err(|e| catalog::io_err(&cur, e))?;
    let (stamp, ctime) = file_stamp(&md);
    Ok(Ident { text, stamp, ctime })
}

/// The current state of table `name` of database `db`: from memory unless its `CURRENT`
/// changed since it was read.
pub fn table_state(db: &Path, name: &str) -> Result<Arc<TableState>> {
    let tdir = catalog::table_dir(db, name)?;
    let before = read_ident(db, name, &tdir)?;
    let id = {
        let mut t = tables();
        if let Some(slot) = t.by_dir.get(&tdir) {
            if let Some(s) = slot.state.as_ref().filter(|s| s.ident == before) {
                return Ok(s.clone());
            }
            slot.id
        } else {
            let id = t.next_id;
            t.next_id += 1;
            t.by_dir.insert(tdir.clone(), TableSlot { id, state: None });
            id
        }
    };
    let meta = catalog::read_table(db, name)?;
    let levels = if meta.part_cols.is_empty() { Vec::new() } else { catalog::read_db_meta(db)?.levels };
    let after = read_ident(db, name, &tdir)?;
    let state = Arc::new(TableState {
        id,
        serial: SERIAL.fetch_add(1, Ordering::Relaxed),
        meta: Arc::new(meta),
        levels: Arc::new(levels),
        ident: before.clone(),
        stamps: Mutex::new(AHashMap::new()),
    });
    if after != before {
        // a commit landed while reading: use this version once, keep nothing
        return Ok(state);
    }
    let mut t = tables();
    if let Some(slot) = t.by_dir.get_mut(&tdir) {
        if slot.id == id {
            slot.state = Some(state.clone());
        }
    }
    drop(t);
    // entries of older versions: joined columns are dead, and so are segments gone
    let live: AHashSet<u64> = state.meta.parts.iter().flat_map(|p| p.segs.iter().map(|s| s.id)).collect();
    let serial = state.serial;
    columns().retain(|k| match k {
        Key::Seg { table, seg, .. } => *table != id || live.contains(seg),
        Key::Joined { table, state: s, .. } => *table != id || *s == serial,
    });
    Ok(state)
}

impl TableState {
    /// The stamp of the file holding column `col` of segment `seg` (checked once per state).
    fn seg_stamp(&self, tdir: &Path, part: &str, seg: u64, col: usize) -> Result<Stamp> {
        let col32 = col as u32;
        {
            let m = self.stamps.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(s) = m.get(&(seg, ALL)).or_else(|| m.get(&(seg, col32))) {
                return Ok(*s);
            }
        }
        let segf = catalog::seg_file(tdir, part, seg);
        let (key, st) = match stamp_of(&segf) {
            Ok(s) => ((seg, ALL), s),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(catalog::io_err(&segf, e)),
            Err(_) => {
                // a database written before segment files: one file per column
                let (len, mtime) = crate::segment::stamp(&catalog::col_file(tdir, part, seg, col))?;
                ((seg, col32), (len, mtime, 0))
            }
        };
        self.stamps.lock().unwrap_or_else(|e| e.into_inner()).insert(key, st);
        Ok(st)
    }

    /// Column `col` of segment `seg` of partition folder `part`, decoded (from the cache
    /// when its file is unchanged). SYMBOL columns use this state's symbol base.
    pub fn seg_column(&self, tdir: &Path, part: &str, seg: u64, col: usize) -> Result<Arc<Decoded>> {
        let src = self.seg_source(tdir, part, seg, col)?;
        self.seg_full(tdir, part, seg, col, src)
    }

    /// Where column `col` of segment `seg` comes from: its cache entry (whole or some
    /// blocks), or its opened file (read, not decoded): enough for the block directory.
    pub fn seg_source(&self, tdir: &Path, part: &str, seg: u64, col: usize) -> Result<SegSource> {
        let stamp = self.seg_stamp(tdir, part, seg, col)?;
        let key = Key::Seg { table: self.id, seg, col: col as u32 };
        let hit = columns().get(&key, stamp);
        if let Some(d) = hit {
            return Ok(SegSource::Cached(match &*d.col.data {
                // codes refer to a prefix of the current base: re-tag once with this state's
                ColData::Sym(s) if !Arc::ptr_eq(&s.dict, &self.meta.symbols) => {
                    let d2 = Arc::new(Decoded { col: retag(&d.col, s, &self.meta.symbols), blocks: d.blocks.clone(), held: d.held.clone() });
                    columns().put(key, d2.clone(), stamp);
                    d2
                }
                _ => d,
            }));
        }
        Ok(SegSource::File(self.open_seg(tdir, part, seg, col)?))
    }

    /// The file of column `col` of segment `seg`, opened (read, not decoded).
    pub fn open_seg(&self, tdir: &Path, part: &str, seg: u64, col: usize) -> Result<ColumnFile> {
        let owner = self.meta.owner(tdir, part, seg);
        crate::segment::open_column(&catalog::col_file(tdir, part, seg, col), Some(&owner))
    }

    /// Decode the blocks `held` marks (all when None) of `file` and cache them.
    fn decode_put(&self, (tdir, part, seg, col): (&Path, &str, u64, usize), file: ColumnFile, held: Option<Vec<bool>>) -> Result<Arc<Decoded>> {
        let held = held.filter(|h| !h.iter().all(|&b| b));
        let c = file.decode(held.as_deref(), Some(&self.meta.symbols))?;
        let d = Arc::new(Decoded { col: c, blocks: file.blocks, held });
        let stamp = self.seg_stamp(tdir, part, seg, col)?;
        columns().put(Key::Seg { table: self.id, seg, col: col as u32 }, d.clone(), stamp);
        Ok(d)
    }

    /// Every row of a column, from `src`.
    fn seg_full(&self, tdir: &Path, part: &str, seg: u64, col: usize, src: SegSource) -> Result<Arc<Decoded>> {
        match src {
            SegSource::Cached(d) if d.covers(None) => Ok(d),
            SegSource::Cached(_) => self.decode_put((tdir, part, seg, col), self.open_seg(tdir, part, seg, col)?, None),
            SegSource::File(f) => self.decode_put((tdir, part, seg, col), f, None),
        }
    }

    /// A cache entry of a column holding at least the blocks `keep` marks (all when None):
    /// `src` when it does, else those blocks decoded and cached (a cached entry of other
    /// blocks widened to the union).
    pub fn covering(&self, at: (&Path, &str, u64, usize), src: SegSource, keep: Option<&[bool]>) -> Result<Arc<Decoded>> {
        let (tdir, part, seg, col) = at;
        Ok(match src {
            SegSource::Cached(d) if d.covers(keep) => d,
            SegSource::Cached(d) => {
                let want = match (keep, &d.held) {
                    (Some(k), Some(h)) => Some(k.iter().zip(h).map(|(&a, &b)| a || b).collect()),
                    _ => None,
                };
                self.decode_put(at, self.open_seg(tdir, part, seg, col)?, want)?
            }
            SegSource::File(f) => self.decode_put(at, f, keep.map(|k| k.to_vec()))?,
        })
    }

    /// The rows of the blocks `keep` marks (all when None) of a column, from `src`:
    /// decoding only those blocks when the cache does not hold them yet (a cached entry
    /// of other blocks is widened to the union).
    /// With `pick`, only those rows (positions among the kept blocks' rows, ascending).
    #[allow(clippy::too_many_arguments)]
    pub fn seg_rows(&self, tdir: &Path, part: &str, seg: u64, col: usize, src: SegSource, keep: Option<&[bool]>, pick: Option<&[usize]>) -> Result<Column> {
        let keep = keep.filter(|k| !k.iter().all(|&b| b));
        let d = self.covering((tdir, part, seg, col), src, keep)?;
        Ok(match pick {
            Some(p) => d.pick(keep, p),
            None => d.rows(keep),
        })
    }

    /// Whether column `col` of segment `seg` is read for the first time (not cached, not
    /// read before): a filtered read then decodes it block by block without keeping it,
    /// and admits it to the cache on its second read. A cold query that needs a few rows of
    /// many blocks so touches a few scratch blocks instead of the fresh pages of whole
    /// decoded columns; a repeated one is served from the cache from its third run on.
    pub fn first_use(&self, seg: u64, col: usize) -> bool {
        let mut c = columns();
        if c.seen.len() >= SEEN_MAX {
            c.seen.clear();
        }
        c.seen.insert(Key::Seg { table: self.id, seg, col: col as u32 })
    }

    /// A joined column of whole segments `segs` (in order), if cached.
    pub fn joined(&self, col: usize, segs: &Arc<[u64]>) -> Option<Column> {
        let key = Key::Joined { table: self.id, state: self.serial, col: col as u32, segs: segs.clone() };
        columns().get(&key, (0, 0, 0)).map(|d| d.col.clone())
    }

    pub fn put_joined(&self, col: usize, segs: &Arc<[u64]>, c: &Column) {
        let key = Key::Joined { table: self.id, state: self.serial, col: col as u32, segs: segs.clone() };
        columns().put(key, Arc::new(Decoded::whole(c.clone(), vec![])), (0, 0, 0));
    }
}

/// Most segment columns remembered as read once (16 bytes of key each).
const SEEN_MAX: usize = 1 << 20;

fn retag(c: &Column, s: &SymCol, base: &Arc<SymbolDict>) -> Column {
    Column::new(c.ty, ColData::Sym(SymCol { codes: s.codes.clone(), dict: base.clone() }))
}

// ------------------------------------------------------------------ invalidation

/// Forget every table under `dir` (a table folder or a database folder): after a drop.
pub fn forget(dir: &Path) {
    let ids: AHashSet<u32> = {
        let mut t = tables();
        let ids = t.by_dir.iter().filter(|(p, _)| p.starts_with(dir)).map(|(_, s)| s.id).collect();
        t.by_dir.retain(|p, _| !p.starts_with(dir));
        ids
    };
    if !ids.is_empty() {
        columns().retain(|k| !ids.contains(&k.table()));
    }
}

/// Drop every cached column and table state (`clearAllCache`).
pub fn clear() {
    tables().by_dir.clear();
    let mut c = columns();
    c.map.clear();
    c.ring.clear();
    c.seen.clear();
    c.bytes = 0;
}

/// Bytes held, entries and counters.
pub fn usage() -> (usize, usize, Stats) {
    let c = columns();
    (c.bytes, c.map.len(), c.stats)
}

/// Change the byte budget (evicting down to it); the previous budget.
pub fn set_budget(bytes: usize) -> usize {
    let mut c = columns();
    let old = c.budget;
    c.budget = bytes;
    c.evict(0);
    old
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
