//! Writing stored tables: conforming incoming rows to the table's types and symbol base,
//! splitting them by partition, writing segments and committing one manifest.

use crate::catalog::{self, DbLock, DbMeta, PartMeta, SegMeta, TableMeta};
use crate::segment;
use crate::partition::{conform, NONE};
use ahash::AHashMap;
use beluga_runtime::column::{ColData, Column, StrCol, SymCol, SymbolDict};
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::{DataType, Error, Result, Table};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows buffered across all partitions before segments are written.
const FLUSH_CELLS: usize = 64 << 20;

/// A partition no push has added rows to in this many pushes is "cold" (an import pushes
/// each parsed piece, ~8 MB of text, so 8 pushes are two 32 MB reads): a file sorted by a
/// partitioning column (devices by time, TAQ by symbol) stops filling a partition once its
/// rows have passed.
const COLD_PUSHES: u64 = 8;

/// Cold partitions are written early once they hold this many cells together (each at
/// least `COLD_MIN_ROWS` rows): their segments are encoded and written while the rest of
/// the file is parsed, instead of all at the commit, and their memory is reused by the
/// partitions still filling. A partition that receives rows again later gets another
/// segment, as after any flush.
const COLD_MIN_CELLS: usize = 8 << 20;
const COLD_MIN_ROWS: usize = 8192;

/// Largest segment a keepDuplicates FIRST/LAST table writes: an append rewrites only the
/// segments its keys fall in, so smaller segments mean less rewriting per append.
const KEEP_SEG_ROWS: usize = 1 << 16;

/// A file of new segments: (path, [(segment id, partition folder, columns)], is a pack).
type SegFile = (PathBuf, Vec<(u64, String, Vec<Column>)>, bool);

/// The rank of every row of `keys` in sorted order, equal rows sharing one rank.
fn dense_rank(keys: &[Column]) -> Result<Vec<u32>> {
    let n = keys.first().map_or(0, |c| c.len());
    let order = beluga_runtime::kernels::order::argsort_multi(keys, &vec![true; keys.len()])?;
    let g = beluga_runtime::kernels::group::group_ids(&keys.iter().collect::<Vec<_>>());
    let mut rank = vec![0u32; n];
    let (mut r, mut prev) = (0u32, u32::MAX);
    for &o in &order {
        if g.gid[o] != prev {
            r += 1;
            prev = g.gid[o];
        }
        rank[o] = r;
    }
    Ok(rank)
}

/// Describes a row of the incoming data for error messages (file and line for imports).
pub type RowInfo<'a> = &'a dyn Fn(usize) -> String;

/// Evaluates a partitioning function (its call text, the column's values) in a session:
/// tables partitioned by a function of a column append only through one (see `partfn`).
pub type Keyer<'a> = &'a mut dyn FnMut(&str, &Column) -> Result<Column>;

/// One write transaction on one table.
pub struct Appender {
    dir: PathBuf,
    tdir: PathBuf,
    name: String,
    _lock: DbLock,
    db: DbMeta,
    db_changed: bool,
    prev: Option<TableMeta>,
    pub meta: TableMeta,
    /// rows waiting to be written, per partition: row ranges of pushed tables, each
    /// copied once (see `PartBuf`)
    buffers: AHashMap<Vec<u32>, PartBuf>,
    buffered: usize,
    /// calls of `push_keyed` so far (the clock of `PartBuf::touched`)
    pushes: u64,
    written: Vec<PathBuf>,
    committed: bool,
    pub rows_added: u64,
    /// largest segment a keepDuplicates FIRST/LAST partition is split into
    pub(crate) keep_seg_rows: usize,
    /// cells of cold partitions written before the commit (`COLD_MIN_CELLS`)
    pub(crate) cold_cells: usize,
}

impl Drop for Appender {
    fn drop(&mut self) {
        if !self.committed {
            for p in &self.written {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

/// Convert a column to a stored column type, interning symbols into `base`.
pub fn conform_column(c: &Column, ty: DataType, base: &mut Arc<SymbolDict>, name: &str) -> Result<Column> {
    if ty == DataType::Symbol {
        let codes: Vec<u32> = match &*c.data {
            ColData::Sym(s) => {
                if Arc::ptr_eq(&s.dict, base) {
                    s.codes.clone()
                } else {
                    let mut used = vec![false; s.dict.names.len()];
                    for &k in &s.codes {
                        used[k as usize] = true;
                    }
                    // the base is shared with every column conformed before (buffered
                    // pieces of an import): look the names up first and copy it (make_mut)
                    // only when one is new, not for every piece
                    let mut remap: Vec<u32> = s.dict.names.iter().enumerate().map(|(k, n)| if used[k] { base.index.get(&**n).copied().unwrap_or(u32::MAX) } else { 0 }).collect();
                    if remap.contains(&u32::MAX) {
                        let b = Arc::make_mut(base);
                        for (k, n) in s.dict.names.iter().enumerate() {
                            if remap[k] == u32::MAX {
                                remap[k] = b.intern(n);
                            }
                        }
                    }
                    s.codes.iter().map(|&k| remap[k as usize]).collect()
                }
            }
            ColData::Str(s) => {
                let b = Arc::make_mut(base);
                s.iter().map(|x| b.intern(x)).collect()
            }
            _ => {
                let s = cast_column(c, DataType::String)?;
                return conform_column(&s, ty, base, name);
            }
        };
        return Ok(Column::new(DataType::Symbol, ColData::Sym(SymCol { codes, dict: base.clone() })));
    }
    if c.ty == ty {
        return Ok(c.clone());
    }
    if ty == DataType::String {
        return match &*c.data {
            ColData::Sym(s) => Ok(Column::new(ty, ColData::Str(StrCol::from_iter(s.codes.iter().map(|&k| s.dict.get(k)))))),
            _ => cast_column(c, ty),
        };
    }
    if ty.is_numeric() && c.ty.is_literal() {
        return Err(Error::type_err(format!("The column [{name}] expects type {ty}, but the value is {}", c.ty)));
    }
    if c.ty == DataType::Void {
        return Ok(Column::nulls(ty, c.len()));
    }
    if ty.is_temporal() && c.ty.is_temporal() {
        return beluga_runtime::kernels::temporal_to(c, ty);
    }
    cast_column(c, ty).map_err(|e| Error::type_err(format!("The column [{name}]: {}", e.message)))
}

/// Concatenate conformed columns; SYMBOL codes all refer to (a prefix of) `base`.
pub fn concat_stored(ty: DataType, parts: &[&Column], base: &Arc<SymbolDict>) -> Column {
    if parts.len() == 1 && ty != DataType::Symbol {
        return parts[0].clone();
    }
    if ty == DataType::Symbol {
        let mut codes = Vec::with_capacity(parts.iter().map(|c| c.len()).sum());
        for c in parts {
            if let ColData::Sym(s) = &*c.data {
                codes.extend_from_slice(&s.codes);
            }
        }
        return Column::new(ty, ColData::Sym(SymCol { codes, dict: base.clone() }));
    }
    crate::csv::parse::concat(ty, parts)
}

/// Rows `start..end` of a buffered table.
type Piece = (Table, usize, usize);

/// The rows buffered for one partition, in order. A pushed table whose rows for this
/// partition form one run is kept as it is (shared, not copied: `flush` copies the run
/// once into the segment). When a push interleaves the rows of several partitions, each
/// partition's runs are appended to its own growing table (`open`: the last piece is that
/// table, owned by the buffer alone), so the pushed table is released once it is split.
///
/// Why: an import pushes one table per parsed chunk; when every chunk spans all
/// partitions (devices: one day, ten device ranges) and the whole file fits in one flush,
/// ranges of shared tables kept every chunk's parsed columns alive until the end, and
/// `flush` then copied them into fresh memory: twice the data in fresh pages, each page
/// zeroed by the kernel (`clear_page_erms` a third of the devices import's samples). Now
/// the parser's freed columns are reused by the next chunk's, and `flush` writes the
/// partition's table without another copy.
#[derive(Default)]
struct PartBuf {
    pieces: Vec<Piece>,
    open: bool,
    /// the push that last added rows (see `COLD_PUSHES`)
    touched: u64,
    rows: usize,
}

/// Append rows `s..e` of `src` to `dst` in place (same physical type; SYMBOL codes of the
/// appender's base, whose later versions extend the earlier ones). False, touching
/// nothing, when `dst` is shared or the types differ. `hint`: the rows `dst` is expected
/// to reach soon (room for them is made at the first growth).
fn append_rows(dst: &mut Column, src: &Column, s: usize, e: usize, hint: usize) -> bool {
    let Some(d) = Arc::get_mut(&mut dst.data) else { return false };
    match (d, &*src.data) {
        (ColData::I8(a), ColData::I8(b)) => extend_rows(a, &b[s..e], hint),
        (ColData::I16(a), ColData::I16(b)) => extend_rows(a, &b[s..e], hint),
        (ColData::I32(a), ColData::I32(b)) => extend_rows(a, &b[s..e], hint),
        (ColData::I64(a), ColData::I64(b)) => extend_rows(a, &b[s..e], hint),
        (ColData::F32(a), ColData::F32(b)) => extend_rows(a, &b[s..e], hint),
        (ColData::F64(a), ColData::F64(b)) => extend_rows(a, &b[s..e], hint),
        (ColData::I128(a), ColData::I128(b)) => extend_rows(a, &b[s..e], hint),
        (ColData::Sym(a), ColData::Sym(b)) => {
            extend_rows(&mut a.codes, &b.codes[s..e], hint);
            if b.dict.names.len() > a.dict.names.len() {
                a.dict = b.dict.clone();
            }
        }
        (ColData::Str(a), ColData::Str(b)) => {
            let (from, to) = (b.offsets[s], b.offsets[e]);
            let base = a.bytes.len();
            extend_rows(&mut a.bytes, &b.bytes[from..to], hint.saturating_mul(to - from) / (e - s).max(1));
            reserve_rows(&mut a.offsets, e - s, hint);
            a.offsets.extend(b.offsets[s + 1..=e].iter().map(|&o| o - from + base));
        }
        _ => return false,
    }
    true
}

/// Make room for `add` more elements in a vector that grows by appends, for at least
/// `hint` elements when it must grow: doubling while it is served by malloc, but never
/// past `bigalloc::BIG` bytes in one step, then to the next whole huge page (bigalloc
/// moves the pages, no copy). Plain doubling took a 700 KB column to 1.4 MB, a block of
/// huge pages each zeroed by the kernel when first touched, half of it never used (the
/// devices import's day partitions: 86,400 rows); growing from a small start copied each
/// value about once more, into fresh pages.
fn reserve_rows<T>(v: &mut Vec<T>, add: usize, hint: usize) {
    let need = v.len() + add;
    if need <= v.capacity() {
        return;
    }
    let w = std::mem::size_of::<T>().max(1);
    let big = beluga_runtime::bigalloc::BIG;
    let cap = if need * w < big {
        need.max((2 * v.capacity()).max(hint).min((big - 1) / w))
    } else {
        (need * w).next_multiple_of(2 * big) / w
    };
    v.reserve_exact(cap - v.len());
}

/// `extend_from_slice` growing as `reserve_rows` does.
#[inline]
fn extend_rows<T: Copy>(v: &mut Vec<T>, b: &[T], hint: usize) {
    reserve_rows(v, b.len(), hint);
    v.extend_from_slice(b);
}

/// Whether `append_rows` takes columns of this storage.
fn appendable(c: &Column) -> bool {
    !matches!(&*c.data, ColData::Array(_))
}

/// The elements `s..e` of every piece's vector, one after the other (None when a piece
/// holds another element type).
fn numeric_ranges<T: beluga_runtime::null::Native>(_first: &[T], pieces: &[(&Column, usize, usize)]) -> Option<Vec<T>> {
    let n = pieces.iter().map(|p| p.2 - p.1).sum();
    let mut out: Vec<T> = Vec::with_capacity(n);
    for &(c, s, e) in pieces {
        let v = beluga_runtime::with_numeric!(&*c.data, w => (w as &dyn std::any::Any).downcast_ref::<Vec<T>>().map(|v| v.as_slice())).flatten()?;
        out.extend_from_slice(v.get(s..e)?);
    }
    Some(out)
}

/// Concatenate row ranges of conformed columns (one copy of each value); SYMBOL codes all
/// refer to (a prefix of) `base`.
pub fn concat_ranges(ty: DataType, pieces: &[(&Column, usize, usize)], base: &Arc<SymbolDict>) -> Column {
    if let [(c, 0, e)] = pieces {
        if *e == c.len() {
            return (*c).clone();
        }
    }
    let Some(first) = pieces.first() else {
        return Column::nulls(ty, 0);
    };
    if let Some(Some(c)) = beluga_runtime::with_numeric!(&*first.0.data, v => numeric_ranges(v, pieces).map(|o| Column::from_vec(ty, o))) {
        return c;
    }
    if ty == DataType::Symbol && pieces.iter().all(|p| matches!(&*p.0.data, ColData::Sym(_))) {
        let mut codes = Vec::with_capacity(pieces.iter().map(|p| p.2 - p.1).sum());
        for &(c, s, e) in pieces {
            if let ColData::Sym(x) = &*c.data {
                codes.extend_from_slice(&x.codes[s..e]);
            }
        }
        return Column::new(ty, ColData::Sym(SymCol { codes, dict: base.clone() }));
    }
    let sliced: Vec<Column> = pieces.iter().map(|&(c, s, e)| if s == 0 && e == c.len() { c.clone() } else { c.slice(s, e) }).collect();
    concat_stored(ty, &sliced.iter().collect::<Vec<_>>(), base)
}

/// Starts of the runs of equal values of `v` (the first is 0), or None past `max` runs.
fn runs<T: Copy>(v: &[T], max: usize, eq: impl Fn(T, T) -> bool) -> Option<Vec<usize>> {
    let mut starts = Vec::new();
    let mut prev = *v.first()?;
    starts.push(0);
    for (i, &x) in v.iter().enumerate().skip(1) {
        if !eq(x, prev) {
            if starts.len() >= max {
                return None;
            }
            starts.push(i);
            prev = x;
        }
    }
    Some(starts)
}

/// Starts of the runs of equal values of a column (floats compared by bits), or None when
/// it has more than `max` runs (or holds strings).
fn run_starts(c: &Column, max: usize) -> Option<Vec<usize>> {
    beluga_runtime::match_int!(&*c.data, v => runs(v, max, |a, b| a == b),
        ColData::I128(v) => runs(v, max, |a, b| a == b),
        ColData::F32(v) => runs(v, max, |a, b| a.to_bits() == b.to_bits()),
        ColData::F64(v) => runs(v, max, |a, b| a.to_bits() == b.to_bits()),
        ColData::Sym(s) => runs(&s.codes, max, |a, b| a == b),
        ColData::Str(_) | ColData::Array(_) => None,
    )
}

/// Segments encoded per step of `write_pack`: enough to keep the encoding workers busy
/// while the previous step's images are written.
const PACK_STEP: usize = 8;

/// Write a pack file of `segs` (see `segment`): the segments are encoded a few at a time
/// on rayon while the images of the previous few are written, so the copy into the page
/// cache (one thread's work per file) overlaps encoding instead of following it with the
/// other workers idle. The header, which needs every image's length, is written last at
/// the start of the file (room for it is left first); the file is referenced by no
/// committed manifest until `commit` has synced it, so the order of its writes is free.
fn write_pack<S: Sync>(path: &Path, segs: &[(u64, String, S)], enc: impl Fn(&(u64, String, S)) -> Vec<u8> + Sync) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::FileExt;
    let mut f = catalog::create_new(path)?;
    let werr = |e: std::io::Error| catalog::io_err(path, e);
    let head_len = segment::pack_header_len(segs.len());
    f.write_all(&vec![0u8; head_len]).map_err(werr)?;
    let mut ids: Vec<(u64, usize)> = Vec::with_capacity(segs.len());
    let mut pending: Vec<Vec<u8>> = Vec::new();
    for step in segs.chunks(PACK_STEP) {
        let (images, wrote) = rayon::join(|| step.par_iter().map(&enc).collect::<Vec<Vec<u8>>>(), || pending.iter().try_for_each(|b| f.write_all(b)));
        wrote.map_err(werr)?;
        ids.extend(step.iter().zip(&images).map(|(s, b)| (s.0, b.len())));
        pending = images;
    }
    pending.iter().try_for_each(|b| f.write_all(b)).map_err(werr)?;
    f.write_all_at(&segment::pack_header(&ids), 0).map_err(werr)
}

impl Appender {
    /// Start a transaction on an existing table.
    pub fn open(dir: &Path, name: &str) -> Result<Appender> {
        let lock = DbLock::acquire(dir)?;
        let db = catalog::read_db_meta(dir)?;
        let prev = catalog::read_table(dir, name)?;
        let meta = prev.clone();
        Ok(Appender {
            dir: dir.to_path_buf(),
            tdir: catalog::table_dir(dir, name)?,
            name: name.to_string(),
            _lock: lock,
            db,
            db_changed: false,
            prev: Some(prev),
            meta,
            buffers: AHashMap::new(),
            pushes: 0,
            buffered: 0,
            written: Vec::new(),
            committed: false,
            rows_added: 0,
            keep_seg_rows: KEEP_SEG_ROWS,
            cold_cells: COLD_MIN_CELLS,
        })
    }

    /// Start a transaction that creates a table (error if it exists).
    pub fn create(dir: &Path, name: &str, names: Vec<String>, types: Vec<DataType>, part_cols: Vec<String>) -> Result<Appender> {
        let lock = DbLock::acquire(dir)?;
        let db = catalog::read_db_meta(dir)?;
        if catalog::table_exists(dir, name) {
            return Err(Error::runtime(format!("The table {name} already exists in the database {}", dir.display())));
        }
        if !part_cols.is_empty() && part_cols.len() != db.levels.len() {
            return Err(Error::arg(format!(
                "The database has {} partition level(s) but {} partitioning column(s) were given",
                db.levels.len(),
                part_cols.len()
            )));
        }
        let mut part_cols = part_cols;
        let mut part_fns = vec![String::new(); part_cols.len()];
        for (k, pc) in part_cols.iter_mut().enumerate() {
            if crate::partfn::is_call(pc) {
                // the function's values decide the partition: their type shows at append time
                let (_, ci, _) = crate::partfn::check(pc, &names)?;
                part_fns[k] = std::mem::replace(pc, names[ci].clone());
                continue;
            }
            let i = names.iter().position(|n| n == pc).or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(pc))).ok_or_else(|| {
                Error::arg(format!("The partitioning column {pc} is not a column of the table"))
            })?;
            let kt = db.levels[k].key_type();
            let ct = types[i];
            let ok = ct == kt || (ct.is_literal() && kt.is_literal()) || (ct.is_temporal() && kt.is_temporal()) || (ct.is_integral() && kt.is_integral());
            if !ok {
                return Err(Error::type_err(format!(
                    "The partitioning column {pc} has type {ct}, which doesn't match the partition scheme type {kt}"
                )));
            }
            // stored under the column's own spelling (`partitioned by ID` names column `id`)
            *pc = names[i].clone();
        }
        let meta = TableMeta {
            version: 0,
            names,
            types,
            part_cols,
            symbols: Arc::new(SymbolDict::default()),
            next_seg: 1,
            parts: Vec::new(),
            opts: catalog::TableOpts { part_fns: if part_fns.iter().any(|f| !f.is_empty()) { part_fns } else { Vec::new() }, ..Default::default() },
        };
        let tdir = catalog::table_dir(dir, name)?;
        Ok(Appender {
            dir: dir.to_path_buf(),
            tdir,
            name: name.to_string(),
            _lock: lock,
            db,
            db_changed: false,
            prev: None,
            meta,
            buffers: AHashMap::new(),
            pushes: 0,
            buffered: 0,
            written: Vec::new(),
            committed: false,
            rows_added: 0,
            keep_seg_rows: KEEP_SEG_ROWS,
            cold_cells: COLD_MIN_CELLS,
        })
    }

    /// Drop every partition (the following pushes replace the table's contents).
    pub fn clear(&mut self) {
        self.meta.parts.clear();
    }

    /// Conform a table to the stored schema (types, symbol base).
    pub fn conform(&mut self, t: &Table) -> Result<Vec<Column>> {
        if t.ncols() != self.meta.names.len() {
            return Err(Error::arg(format!(
                "The number of columns of the table to insert ({}) doesn't match the table {} ({})",
                t.ncols(),
                self.name,
                self.meta.names.len()
            )));
        }
        let mut out = Vec::with_capacity(t.ncols());
        for (k, c) in t.cols.iter().enumerate() {
            out.push(conform_column(c, self.meta.types[k], &mut self.meta.symbols, &self.meta.names[k])?);
        }
        Ok(out)
    }

    /// Add rows (columns already conformed or not). `info` names a row in errors.
    pub fn push(&mut self, t: &Table, info: Option<RowInfo>) -> Result<()> {
        self.push_keyed(t, info, None)
    }

    /// Add rows to partition `key` whatever their partitioning columns hold (update and
    /// delete write a partition's rows back to it).
    pub fn push_to_part(&mut self, key: Vec<u32>, t: &Table) -> Result<()> {
        let cols = self.conform(t)?;
        if cols.first().is_none_or(|c| c.is_empty()) {
            return Ok(());
        }
        let tab = Table::new(self.meta.names.clone(), cols)?;
        self.buffer(key, tab);
        self.maybe_flush()
    }

    /// `push` with the session's evaluator of partitioning functions (`keyer`), which a
    /// table partitioned by a function of a column needs.
    pub fn push_keyed(&mut self, t: &Table, info: Option<RowInfo>, mut keyer: Option<Keyer>) -> Result<()> {
        let cols = self.conform(t)?;
        let n = cols.first().map(|c| c.len()).unwrap_or(0);
        if n == 0 {
            return Ok(());
        }
        let tab = Table::new(self.meta.names.clone(), cols)?;
        if self.meta.part_cols.is_empty() {
            self.buffer(vec![], tab);
            return self.maybe_flush();
        }
        // partition index of every row, per level (decided once per run of equal values:
        // a daily file has one date, files sorted by symbol have one run per symbol)
        let mut keys: Vec<Vec<u32>> = Vec::with_capacity(self.db.levels.len());
        for (lv, pc) in self.meta.part_cols.clone().iter().enumerate() {
            let ci = self.meta.col_index(pc).ok_or_else(|| Error::runtime(format!("Missing partitioning column {pc}")))?;
            let fn_vals;
            let src = match self.meta.opts.part_fn(lv) {
                Some(text) => {
                    let Some(k) = keyer.as_mut() else {
                        return Err(Error::runtime(format!(
                            "The table {} is partitioned by {text}: its rows are appended in a session (append!, tableInsert, insert into, loadTextEx)",
                            self.name
                        )));
                    };
                    fn_vals = k(text, &tab.cols[ci])?;
                    &fn_vals
                }
                None => &tab.cols[ci],
            };
            let key_col = conform(src, self.db.levels[lv].key_type(), pc)?;
            let idx = match run_starts(&key_col, n / 8) {
                Some(starts) => {
                    let (per_run, changed) = self.db.levels[lv].assign(&key_col.take_usize(&starts))?;
                    self.db_changed |= changed;
                    let mut idx = Vec::with_capacity(n);
                    for (j, &s) in starts.iter().enumerate() {
                        let e = starts.get(j + 1).copied().unwrap_or(n);
                        idx.resize(idx.len() + (e - s), per_run[j]);
                    }
                    idx
                }
                None => {
                    let (idx, changed) = self.db.levels[lv].assign(&key_col)?;
                    self.db_changed |= changed;
                    idx
                }
            };
            let drops_nulls = matches!(self.db.levels[lv], crate::partition::Level::Hash(..));
            if !drops_nulls {
                if let Some(r) = idx.iter().position(|&x| x == NONE) {
                    let v = beluga_runtime::fmt::format_elem(src, r);
                    let at = match info {
                        Some(f) => f(r),
                        None => format!("row {r}"),
                    };
                    return Err(Error::runtime(format!(
                        "The value '{v}' of the partitioning column {pc} ({at}) is outside the partition scheme of the database"
                    )));
                }
            }
            keys.push(idx);
        }
        // group the runs of rows in one partition (all levels equal) by partition: pack the
        // level indices into one u64 per run
        let mut gid: AHashMap<u64, u32> = AHashMap::new();
        let mut keys_of: Vec<Vec<u32>> = Vec::new();
        let mut ranges: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut nranges = 0;
        let mut r = 0;
        while r < n {
            let mut e = r + 1;
            while e < n && keys.iter().all(|k| k[e] == k[r]) {
                e += 1;
            }
            let mut packed: u64 = 0;
            let mut dropped = false;
            for k in &keys {
                if k[r] == NONE {
                    dropped = true;
                    break;
                }
                packed = (packed << 21) | k[r] as u64;
            }
            if !dropped {
                let next = keys_of.len() as u32;
                let g = *gid.entry(packed).or_insert_with(|| {
                    keys_of.push(keys.iter().map(|k| k[r]).collect());
                    next
                });
                if g == next {
                    ranges.push(Vec::new());
                }
                ranges[g as usize].push((r, e));
                nranges += 1;
            }
            r = e;
        }
        let mut gs: Vec<(Vec<u32>, Vec<(usize, usize)>)> = keys_of.into_iter().zip(ranges).collect();
        gs.sort_by(|a, b| a.0.cmp(&b.0));
        // few long runs: copy slices; many short ones: gather rows
        // few long runs: buffer the runs as ranges of `tab` (copied once, by `flush`);
        // many short ones: gather the partition's rows now
        let by_slices = nranges <= n / 16;
        let parts: Vec<(Vec<u32>, Vec<Piece>)> = gs
            .into_par_iter()
            .map(|(k, rg)| {
                if rg.len() == 1 || by_slices {
                    return (k, rg.iter().map(|&(s, e)| (tab.clone(), s, e)).collect());
                }
                let idx: Vec<usize> = rg.iter().flat_map(|&(s, e)| s..e).collect();
                let t = tab.take_usize(&idx);
                let rows = t.rows();
                (k, vec![(t, 0, rows)])
            })
            .collect();
        for (k, pieces) in parts {
            // room for 16 times this push's rows (at most 1 MB a column, see
            // `reserve_rows`) at the partition's first growth: the next pushes of a sorted
            // file add to the same partitions (an import pushes each parsed piece, 8 MB of
            // text), and capacity never written costs no page
            let hint = 16 * pieces.iter().map(|p| p.2 - p.1).sum::<usize>();
            // only a partition with several runs in this push (rows interleaved with other
            // partitions': devices) is copied now; one run each (a file sorted by the
            // partitioning column: TAQ by symbol) stays a shared range, copied by `flush`
            // (copying such runs at push raised the TAQ import's page faults 2.5x)
            let split = pieces.len() > 1;
            for (t, s, e) in pieces {
                if split && Arc::ptr_eq(&t.cols[0].data, &tab.cols[0].data) {
                    // a range of the pushed table: copied now, so the table is freed
                    self.append_range(k.clone(), &t, s, e, hint);
                } else {
                    self.buffer_range(k.clone(), t, s, e);
                }
            }
        }
        self.pushes += 1;
        self.flush_cold()?;
        self.maybe_flush()
    }

    /// Write the cold partitions (see `COLD_PUSHES`) when they hold `COLD_MIN_CELLS`
    /// together. keepDuplicates tables merge each flush into their segments and are left
    /// to `maybe_flush`.
    fn flush_cold(&mut self) -> Result<()> {
        if self.pushes < COLD_PUSHES || (self.meta.opts.keep != catalog::KeepDup::All && !self.meta.opts.sort_cols.is_empty()) {
            return Ok(());
        }
        let ncols = self.meta.types.len().max(1);
        let now = self.pushes;
        let cold = |b: &PartBuf| b.touched + COLD_PUSHES <= now && b.rows >= COLD_MIN_ROWS;
        let cells: usize = self.buffers.values().filter(|b| cold(b)).map(|b| b.rows * ncols).sum();
        if cells < self.cold_cells {
            return Ok(());
        }
        let keys: Vec<Vec<u32>> = self.buffers.iter().filter(|(_, b)| cold(b)).map(|(k, _)| k.clone()).collect();
        let bufs: Vec<(Vec<u32>, Vec<Piece>)> = keys.into_iter().filter_map(|k| self.buffers.remove(&k).map(|b| (k, b.pieces))).collect();
        self.buffered = self.buffered.saturating_sub(cells);
        self.write_bufs(bufs)
    }

    /// Append rows `s..e` of `t` to partition `key`'s own table (see `PartBuf`); `hint`:
    /// the rows the partition may soon hold.
    fn append_range(&mut self, key: Vec<u32>, t: &Table, s: usize, e: usize, hint: usize) {
        if !t.cols.iter().all(appendable) {
            return self.buffer_range(key, t.clone(), s, e);
        }
        self.buffered += (e - s) * t.ncols().max(1);
        self.rows_added += (e - s) as u64;
        let now = self.pushes;
        let b = self.buffers.entry(key).or_default();
        b.touched = now;
        b.rows += e - s;
        if b.open {
            if let Some((own, _, end)) = b.pieces.last_mut() {
                let ok = own.cols.len() == t.cols.len() && own.cols.iter().zip(&t.cols).all(|(d, c)| d.ty == c.ty);
                if ok && own.cols.iter_mut().zip(&t.cols).all(|(d, c)| append_rows(d, c, s, e, hint)) {
                    *end += e - s;
                    return;
                }
                // `append_rows` failed on a column (shared or another storage): the rows
                // appended to the columns before it are cut off again
                let keep = *end;
                for d in own.cols.iter_mut() {
                    if d.len() > keep {
                        *d = d.slice(0, keep);
                    }
                }
            }
        }
        let cols = t
            .cols
            .iter()
            .map(|c| {
                let mut own = Column::new(c.ty, ColData::empty(c.ty, 0));
                if append_rows(&mut own, c, s, e, hint) { own } else { c.slice(s, e) }
            })
            .collect();
        let own = Table { names: t.names.clone(), cols, keys: Vec::new(), name: None, keyed: Default::default() };
        b.pieces.push((own, 0, e - s));
        b.open = true;
    }

    fn buffer(&mut self, key: Vec<u32>, t: Table) {
        let n = t.rows();
        self.buffer_range(key, t, 0, n);
    }

    fn buffer_range(&mut self, key: Vec<u32>, t: Table, s: usize, e: usize) {
        self.buffered += (e - s) * t.ncols().max(1);
        self.rows_added += (e - s) as u64;
        let now = self.pushes;
        let b = self.buffers.entry(key).or_default();
        b.touched = now;
        b.rows += e - s;
        b.pieces.push((t, s, e));
        b.open = false;
    }

    fn maybe_flush(&mut self) -> Result<()> {
        if self.buffered >= FLUSH_CELLS {
            self.flush()?;
        }
        Ok(())
    }

    fn dir_of(&self, key: &[u32]) -> String {
        if key.is_empty() {
            return "data".to_string();
        }
        key.iter().enumerate().map(|(l, &k)| self.db.levels[l].dir_name(k as usize)).collect::<Vec<_>>().join("/")
    }

    /// Write the buffered rows as one new segment per partition: the partitions below one
    /// first-level folder share a pack file (see `segment`), a one-level partition has a
    /// segment file of its own.
    pub fn flush(&mut self) -> Result<()> {
        let bufs: Vec<(Vec<u32>, Vec<Piece>)> = std::mem::take(&mut self.buffers).into_iter().map(|(k, b)| (k, b.pieces)).collect();
        self.buffered = 0;
        self.write_bufs(bufs)
    }

    /// `flush` of the buffered rows of some partitions.
    fn write_bufs(&mut self, mut bufs: Vec<(Vec<u32>, Vec<Piece>)>) -> Result<()> {
        bufs.sort_by(|a, b| a.0.cmp(&b.0));
        // (partition folder, rows, columns) in key order, so a first level's partitions are adjacent
        let mut parts: Vec<(Vec<u32>, String, usize, Vec<Column>)> = Vec::with_capacity(bufs.len());
        // columns of each partition's buffered row ranges, concatenated per column (every
        // value copied once; partitions and columns on rayon's workers)
        let (types, symbols) = (&self.meta.types, &self.meta.symbols);
        let gathered: Vec<(Vec<u32>, usize, Vec<Column>)> = bufs
            .into_par_iter()
            .filter_map(|(key, pieces)| {
                let rows: usize = pieces.iter().map(|p| p.2 - p.1).sum();
                if rows == 0 {
                    return None;
                }
                let cols = (0..types.len())
                    .into_par_iter()
                    .map(|ci| {
                        let parts: Vec<(&Column, usize, usize)> = pieces.iter().map(|(t, s, e)| (&t.cols[ci], *s, *e)).collect();
                        concat_ranges(types[ci], &parts, symbols)
                    })
                    .collect();
                Some((key, rows, cols))
            })
            .collect();
        let mut keep_files: Vec<SegFile> = Vec::new();
        for (key, rows, cols) in gathered {
            let dir = self.dir_of(&key);
            if self.meta.opts.keep != catalog::KeepDup::All && !self.meta.opts.sort_cols.is_empty() {
                // keepDuplicates: merge into the segments the new keys fall in (see `merge_keep`)
                keep_files.extend(self.merge_keep(key, dir, cols)?);
                continue;
            }
            parts.push((key, dir, rows, cols));
        }
        let mut at: AHashMap<Vec<u32>, usize> = self.meta.parts.iter().enumerate().map(|(k, p)| (p.key.clone(), k)).collect();
        // files to write: (path, [(segment id, columns)], is a pack)
        let mut files: Vec<SegFile> = keep_files;
        let mut it = parts.into_iter().peekable();
        while let Some(head) = it.next() {
            // the following partitions of the same first level share a pack file with it
            let first = head.1.split_once('/').map(|(a, _)| a.to_string());
            let mut group = vec![head];
            while let Some(f) = &first {
                if group.len() as u64 >= catalog::PACK_SLOTS {
                    break;
                }
                match it.next_if(|(_, d, _, _)| d.split_once('/').is_some_and(|(a, _)| a == f)) {
                    Some(x) => group.push(x),
                    None => break,
                }
            }
            let seg = self.meta.next_seg;
            self.meta.next_seg += 1;
            if group.len() == 1 {
                // alone (or a one-level partition): a segment file of its own
                for (key, dir, rows, cols) in group {
                    self.record_seg(&mut at, key, dir.clone(), seg, rows);
                    files.push((segment::seg_file(&self.tdir, &dir, seg), vec![(seg, dir, cols)], false));
                }
                continue;
            }
            let path = catalog::pack_file(&self.tdir, &group[0].1, catalog::pack_seg_id(seg, 0));
            let mut segs = Vec::with_capacity(group.len());
            for (slot, (key, dir, rows, cols)) in group.into_iter().enumerate() {
                let id = catalog::pack_seg_id(seg, slot as u64);
                self.record_seg(&mut at, key, dir.clone(), id, rows);
                segs.push((id, dir, cols));
            }
            files.push((path, segs, true));
        }
        // partition folders are sanitized names, but a symlink planted in the table folder
        // could still lead outside the database: check every file's place before writing
        for (p, _, _) in &files {
            catalog::confine(&self.tdir, p)?;
        }
        self.written.extend(files.iter().map(|(p, _, _)| p.clone()));
        // encode (every segment on the rayon pool) and write each file; nothing is synced
        // here: `commit` makes every file of the transaction durable at once
        files.into_par_iter().try_for_each(|(p, segs, pack)| {
            let tdir = &self.tdir;
            let meta = &self.meta;
            let enc = |(id, dir, cols): &(u64, String, Vec<Column>)| segment::encode(cols, &meta.owner(tdir, dir, *id));
            if !pack {
                let images: Vec<Vec<u8>> = segs.par_iter().map(enc).collect();
                return images.iter().try_for_each(|b| catalog::write_new(&p, b));
            }
            write_pack(&p, &segs, enc)
        })
    }

    /// Every stored row of partition `key` (None when it has none).
    pub(crate) fn read_part(&self, key: &[u32]) -> Result<Option<Vec<Column>>> {
        let Some(p) = self.meta.parts.iter().find(|p| p.key == key) else { return Ok(None) };
        if p.segs.is_empty() {
            return Ok(None);
        }
        let segs: Vec<Vec<Column>> = p.segs.iter().map(|s| self.read_seg(&p.dir, s.id, None)).collect::<Result<_>>()?;
        Ok(Some(self.concat_rows(&segs)))
    }

    /// The columns `cols` (all when None) of segment `id` of the partition in folder `dir`;
    /// with `ends`, only the first and the last block of each (the segment's first and last
    /// rows are their first and last rows).
    fn read_seg_cols(&self, dir: &str, id: u64, cols: &[usize], ends: bool) -> Result<Vec<Column>> {
        let owner = self.meta.owner(&self.tdir, dir, id);
        cols.iter()
            .map(|&ci| {
                let f = segment::open_column(&catalog::col_file(&self.tdir, dir, id, ci), Some(&owner))?;
                let nb = f.blocks.len();
                let mask: Option<Vec<bool>> = ends.then(|| (0..nb).map(|b| b == 0 || b + 1 == nb).collect());
                f.decode(mask.as_deref(), Some(&self.meta.symbols))
            })
            .collect()
    }

    fn read_seg(&self, dir: &str, id: u64, cols: Option<&[usize]>) -> Result<Vec<Column>> {
        let all: Vec<usize> = (0..self.meta.types.len()).collect();
        self.read_seg_cols(dir, id, cols.unwrap_or(&all), false)
    }

    /// Row-wise concatenation of tables given as column lists (all columns of the table).
    fn concat_rows(&self, pieces: &[Vec<Column>]) -> Vec<Column> {
        (0..self.meta.types.len())
            .map(|ci| concat_stored(self.meta.types[ci], &pieces.iter().map(|p| &p[ci]).collect::<Vec<_>>(), &self.meta.symbols))
            .collect()
    }

    fn sort_key_idx(&self) -> Result<Vec<usize>> {
        self.meta
            .opts
            .sort_cols
            .iter()
            .map(|c| self.meta.col_index(c).ok_or_else(|| Error::runtime(format!("The sort column {c} is not a column of the table {}", self.name))))
            .collect()
    }

    /// keepDuplicates FIRST/LAST: add the rows `cols` to partition `key`, touching only the
    /// segments the new keys fall in. A partition's segments are each sorted by the sort
    /// columns without duplicates, and their key ranges follow one another without overlap,
    /// so the partition reads as one sorted, deduplicated run. A new row whose key lies in a
    /// segment's range is merged into that segment; one between two ranges joins the
    /// segment before it (the first one when it precedes them all). Each changed segment is
    /// rewritten as new segments of at most `keep_seg_rows` rows under new ids, listed in its
    /// place; the others keep their files. A partition that does not have this layout (key
    /// ranges out of order) is rewritten whole once. Returns the segment files to write.
    fn merge_keep(&mut self, key: Vec<u32>, dir: String, cols: Vec<Column>) -> Result<Vec<SegFile>> {
        let new = self.dedup(cols)?;
        let kidx = self.sort_key_idx()?;
        let pidx = self.meta.parts.iter().position(|p| p.key == key);
        let segs: Vec<SegMeta> = pidx.map(|k| self.meta.parts[k].segs.clone()).unwrap_or_default();
        let m = segs.len();
        let n = new.first().map_or(0, |c| c.len());
        // segment j's rows with the new ones, or None when it stays as it is
        let mut merged: Vec<Option<Vec<Column>>> = vec![None; m];
        let mut whole: Option<Vec<Column>> = None;
        if m == 0 {
            whole = Some(new);
        } else {
            // the first and last key of every segment and the new keys, ranked together
            let ends: Vec<Vec<Column>> = segs.iter().map(|s| self.read_seg_cols(&dir, s.id, &kidx, true)).collect::<Result<_>>()?;
            let keys: Vec<Column> = (0..kidx.len())
                .map(|k| {
                    let ty = self.meta.types[kidx[k]];
                    let mut parts: Vec<Column> = ends.iter().map(|e| e[k].take_usize(&[0, e[k].len().saturating_sub(1)])).collect();
                    parts.push(new[kidx[k]].clone());
                    concat_stored(ty, &parts.iter().collect::<Vec<_>>(), &self.meta.symbols)
                })
                .collect();
            let short = ends.iter().any(|e| e.first().is_none_or(|c| c.is_empty()));
            let rank = dense_rank(&keys)?;
            let (first, last) = (|j: usize| rank[2 * j], |j: usize| rank[2 * j + 1]);
            let ordered = !short && (0..m).all(|j| first(j) <= last(j) && (j == 0 || last(j - 1) < first(j)));
            if !ordered {
                let stored = self.read_part(&key)?.into_iter();
                let pieces: Vec<Vec<Column>> = stored.chain(std::iter::once(new)).collect();
                whole = Some(self.dedup(self.concat_rows(&pieces))?);
            } else {
                let lasts: Vec<u32> = (0..m).map(last).collect();
                let mut to: Vec<Vec<usize>> = vec![Vec::new(); m];
                for r in 0..n {
                    let q = rank[2 * m + r];
                    let j = lasts.partition_point(|&l| l < q);
                    let j = if j < m && first(j) <= q { j } else { j.saturating_sub(1) };
                    to[j].push(r);
                }
                for (j, rows) in to.iter().enumerate() {
                    if rows.is_empty() {
                        continue;
                    }
                    let old = self.read_seg(&dir, segs[j].id, None)?;
                    let add: Vec<Column> = new.iter().map(|c| c.take_usize(rows)).collect();
                    merged[j] = Some(self.dedup(self.concat_rows(&[old, add]))?);
                }
            }
        }
        // the partition's new segment list, and the files of its new segments
        let mut files = Vec::new();
        let mut out_segs: Vec<SegMeta> = Vec::new();
        let seg_rows = self.keep_seg_rows.max(1);
        let mut write = |me: &mut Self, cols: Vec<Column>, out: &mut Vec<SegMeta>| {
            let rows = cols.first().map_or(0, |c| c.len());
            let mut s = 0;
            while s < rows {
                let e = (s + seg_rows).min(rows);
                let piece: Vec<Column> = if s == 0 && e == rows { cols.clone() } else { cols.iter().map(|c| c.slice(s, e)).collect() };
                let id = me.meta.next_seg;
                me.meta.next_seg += 1;
                out.push(SegMeta { id, rows: (e - s) as u64 });
                files.push((segment::seg_file(&me.tdir, &dir, id), vec![(id, dir.clone(), piece)], false));
                s = e;
            }
        };
        match whole {
            Some(cols) => write(self, cols, &mut out_segs),
            None => {
                for (j, seg) in segs.iter().enumerate() {
                    match merged[j].take() {
                        Some(cols) => write(self, cols, &mut out_segs),
                        None => out_segs.push(seg.clone()),
                    }
                }
            }
        }
        match pidx {
            Some(k) => self.meta.parts[k].segs = out_segs,
            None => self.meta.parts.push(PartMeta { key, dir: dir.clone(), segs: out_segs }),
        }
        Ok(files)
    }

    /// keepDuplicates FIRST/LAST: one row per combination of the sortColumns (the first or
    /// the last written), ordered by the sortColumns.
    fn dedup(&self, cols: Vec<Column>) -> Result<Vec<Column>> {
        let key_idx = self.sort_key_idx()?;
        let keys: Vec<&Column> = key_idx.iter().map(|&k| &cols[k]).collect();
        let g = beluga_runtime::kernels::group::group_ids(&keys);
        let mut pick = g.first.clone();
        if self.meta.opts.keep == catalog::KeepDup::Last {
            for (r, &id) in g.gid.iter().enumerate() {
                pick[id as usize] = r;
            }
        }
        pick.sort_unstable();
        let kept: Vec<Column> = key_idx.iter().map(|&k| cols[k].take_usize(&pick)).collect();
        let order = beluga_runtime::kernels::order::argsort_multi(&kept, &vec![true; kept.len()])?;
        let rows: Vec<usize> = order.iter().map(|&o| pick[o]).collect();
        Ok(cols.iter().map(|c| c.take_usize(&rows)).collect())
    }

    /// Add segment `id` of `rows` rows to partition `key` (folder `dir`) in the manifest;
    /// `at` indexes the manifest's partitions by key.
    fn record_seg(&mut self, at: &mut AHashMap<Vec<u32>, usize>, key: Vec<u32>, dir: String, id: u64, rows: usize) {
        let seg = SegMeta { id, rows: rows as u64 };
        match at.get(&key) {
            Some(&k) => self.meta.parts[k].segs.push(seg),
            None => {
                at.insert(key.clone(), self.meta.parts.len());
                self.meta.parts.push(PartMeta { key, dir, segs: vec![seg] });
            }
        }
    }

    /// Make the transaction durable and visible.
    pub fn commit(mut self) -> Result<u64> {
        self.commit_mut()
    }

    fn commit_mut(&mut self) -> Result<u64> {
        self.flush()?;
        // new partition folders and the folders holding them
        let mut dirs: Vec<PathBuf> = Vec::new();
        for p in &self.written {
            let mut d = p.parent();
            while let Some(x) = d {
                if x == self.tdir || !x.starts_with(&self.tdir) {
                    break;
                }
                dirs.push(x.to_path_buf());
                d = x.parent();
            }
        }
        dirs.sort();
        dirs.dedup();
        if self.db_changed {
            catalog::write_db_meta(&self.dir, &self.db)?;
        }
        self.meta.parts.sort_by(|a, b| a.key.cmp(&b.key));
        self.meta.version += 1;
        catalog::commit_with(&self.dir, &self.name, &self.meta, self.prev.as_ref(), &self.written, &dirs)?;
        self.committed = true;
        Ok(self.rows_added)
    }

    pub fn levels(&self) -> &[crate::partition::Level] {
        &self.db.levels
    }

    /// Rename the table to `new` (`renameTable`), holding the database lock throughout.
    /// The data stays where it is: first a manifest recording the name its segments were
    /// written under is committed (the table reads the same under its old name), then the
    /// folder is renamed in one step and the database folder synced. A crash before the
    /// folder rename leaves the table under its old name; after it, under the new one.
    pub fn rename_to(mut self, new: &str) -> Result<()> {
        let to = catalog::table_dir(&self.dir, new)?;
        if to.exists() {
            return Err(Error::runtime(format!("The table {new} already exists in the database {}", self.dir.display())));
        }
        if !self.buffers.is_empty() {
            return Err(Error::runtime("internal: renameTable on a transaction with pending rows"));
        }
        if self.meta.opts.origin.is_empty() {
            self.meta.opts.origin = self.tdir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            self.commit_mut()?;
        }
        std::fs::rename(&self.tdir, &to).map_err(|e| catalog::io_err(&self.tdir, e))?;
        catalog::sync_dir(&self.dir);
        crate::cache::forget(&self.tdir);
        crate::cache::forget(&to);
        self.committed = true;
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::catalog::{read_table, write_db_meta, DbMeta};
    use crate::handle::{DbHandle, TableHandle};
    use crate::partition::Level;

    #[test]
    fn concat_ranges_equals_concatenated_slices() {
        let base = Arc::new(SymbolDict::default());
        let mut sym = base.clone();
        let words = ["IBM", "MSFT", "", "A B"];
        let mk = |k: usize| -> Vec<Column> {
            let n = 40 + k * 7;
            let texts: Vec<String> = (0..n).map(|r| format!("s{}", (r * 7 + k) % 11)).collect();
            vec![
                Column::from_vec(DataType::Double, (0..n).map(|r| r as f64 * 0.5 + k as f64).collect::<Vec<f64>>()),
                Column::from_vec(DataType::Int, (0..n).map(|r| (r * 3 + k) as i32).collect::<Vec<i32>>()),
                Column::from_vec(DataType::Char, (0..n).map(|r| (r % 120) as i8).collect::<Vec<i8>>()),
                Column::new(DataType::String, ColData::Str(StrCol::from_iter(texts.iter().map(|s| s.as_str())))),
                Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter((0..n).map(|r| words[(r + k) % 4])))),
            ]
        };
        let tables: Vec<Vec<Column>> = (0..3).map(mk).collect();
        // conformed as the appender does: symbols re-coded into one base
        let tables: Vec<Vec<Column>> = tables
            .into_iter()
            .map(|cols| cols.iter().map(|c| conform_column(c, c.ty, &mut sym, "c").unwrap()).collect())
            .collect();
        let ranges = [(0usize, 0usize, 5usize), (1, 10, 47), (0, 5, 5), (2, 0, 54), (1, 0, 3), (0, 39, 40)];
        for ci in 0..5 {
            let ty = tables[0][ci].ty;
            let parts: Vec<(&Column, usize, usize)> = ranges.iter().map(|&(t, s, e)| (&tables[t][ci], s, e)).collect();
            let got = concat_ranges(ty, &parts, &sym);
            let slices: Vec<Column> = ranges.iter().map(|&(t, s, e)| tables[t][ci].slice(s, e)).collect();
            let want = concat_stored(ty, &slices.iter().collect::<Vec<_>>(), &sym);
            assert_eq!(got.len(), ranges.iter().map(|r| r.2 - r.1).sum::<usize>());
            for r in 0..got.len() {
                assert_eq!(beluga_runtime::fmt::format_elem(&got, r), beluga_runtime::fmt::format_elem(&want, r), "column {ci} row {r}");
            }
        }
        // one whole piece is shared, not copied
        let whole = concat_ranges(DataType::Double, &[(&tables[2][0], 0, tables[2][0].len())], &sym);
        assert!(Arc::ptr_eq(&whole.data, &tables[2][0].data));
        let _ = base;
    }

    fn scratch(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("beluga-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    fn sample(n: usize, day0: i32) -> Table {
        sample_with(n, day0, |k| k as f64 / 4.0)
    }

    /// `n` rows (date, sym, x) over days `day0..day0+3` and symbols IBM, MSFT, NA, x = `x(k)`.
    pub(crate) fn sample_with(n: usize, day0: i32, x: impl Fn(usize) -> f64) -> Table {
        let date: Vec<i32> = (0..n).map(|k| day0 + (k % 3) as i32).collect();
        let sym = SymCol::from_iter((0..n).map(|k| ["IBM", "MSFT", "NA"][k % 3]));
        let x: Vec<f64> = (0..n).map(x).collect();
        Table::new(
            vec!["date".into(), "sym".into(), "x".into()],
            vec![
                Column::from_vec(DataType::Date, date),
                Column::new(DataType::Symbol, ColData::Sym(sym)),
                Column::from_vec(DataType::Double, x),
            ],
        )
        .unwrap()
    }

    fn setup(name: &str) -> (PathBuf, TableHandle) {
        let dir = scratch(name);
        let levels = vec![Level::Value(Column::from_vec(DataType::Date, vec![18000, 18001]))];
        let meta = DbMeta { levels, engine: "OLAP".into() };
        write_db_meta(&dir, &meta).unwrap();
        let t = sample(0, 18000);
        Appender::create(&dir, "pt", t.names.clone(), vec![DataType::Date, DataType::Symbol, DataType::Double], vec!["date".into()])
            .unwrap()
            .commit()
            .unwrap();
        let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta });
        (dir, TableHandle { db, name: "pt".into() })
    }

    #[test]
    fn append_extends_value_partitions_and_reads_back() {
        let (dir, h) = setup("append");
        let mut ap = Appender::open(&dir, "pt").unwrap();
        ap.push(&sample(1000, 18000), None).unwrap();
        ap.push(&sample(500, 18001), None).unwrap();
        assert_eq!(ap.commit().unwrap(), 1500);
        let meta = read_table(&dir, "pt").unwrap();
        assert_eq!(meta.rows(), 1500);
        assert_eq!(meta.parts.len(), 4, "a new date adds partitions");
        let t = crate::query::load(&h, None, &[], None).unwrap();
        assert_eq!(t.rows(), 1500);
        let ColData::Sym(s) = &*t.cols[1].data else { panic!() };
        let ibm = s.codes.iter().filter(|&&c| s.dict.get(c) == "IBM").count();
        assert_eq!(ibm, 334 + 167);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unfinished_transactions_leave_nothing() {
        let (dir, _h) = setup("abort");
        {
            let mut ap = Appender::open(&dir, "pt").unwrap();
            ap.push(&sample(100, 18000), None).unwrap();
            ap.flush().unwrap();
            // dropped without commit (an error in the middle of an import)
        }
        assert_eq!(read_table(&dir, "pt").unwrap().rows(), 0);
        // files of a killed writer (never cleaned by drop) are removed by the next commit
        let stray = dir.join("pt").join("20190408").join("99_0.col");
        std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
        std::fs::write(&stray, b"junk").unwrap();
        let stray_seg = stray.with_file_name("98.seg");
        std::fs::write(&stray_seg, b"junk").unwrap();
        std::fs::write(dir.join("pt").join("manifest.77"), b"junk").unwrap();
        let mut ap = Appender::open(&dir, "pt").unwrap();
        ap.push(&sample(10, 18000), None).unwrap();
        ap.commit().unwrap();
        assert!(!stray.exists() && !stray_seg.exists());
        assert!(!dir.join("pt").join("manifest.77").exists());
        assert_eq!(read_table(&dir, "pt").unwrap().rows(), 10);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn corrupt_files_are_named_in_errors() {
        let (dir, h) = setup("corrupt");
        let mut ap = Appender::open(&dir, "pt").unwrap();
        ap.push(&sample(100, 18000), None).unwrap();
        ap.commit().unwrap();
        let meta = read_table(&dir, "pt").unwrap();
        let p = &meta.parts[0];
        let f = segment::seg_file(&dir.join("pt"), &p.dir, p.segs[0].id);
        let mut b = std::fs::read(&f).unwrap();
        let n = b.len();
        b.truncate(n - 5);
        std::fs::write(&f, &b).unwrap();
        let e = crate::query::load(&h, None, &[], None).unwrap_err();
        assert!(e.message.contains(&f.display().to_string()), "{}", e.message);
        // a torn manifest is reported, not read
        let cur = std::fs::read_to_string(dir.join("pt").join("CURRENT")).unwrap();
        let mf = dir.join("pt").join(cur.split(' ').next().unwrap());
        let mut m = std::fs::read(&mf).unwrap();
        m[20] ^= 0xff;
        std::fs::write(&mf, &m).unwrap();
        let e = read_table(&dir, "pt").unwrap_err();
        assert!(e.message.contains("manifest"), "{}", e.message);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn partitions_of_one_first_level_share_a_pack_file() {
        let dir = scratch("pack");
        let levels = vec![
            Level::Value(Column::from_vec(DataType::Date, vec![18000, 18001, 18002])),
            Level::Range(Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(["A", "J", "N", "Z"])))),
        ];
        let meta = DbMeta { levels, engine: "OLAP".into() };
        write_db_meta(&dir, &meta).unwrap();
        let types = vec![DataType::Date, DataType::Symbol, DataType::Double];
        let t = sample(0, 18000);
        Appender::create(&dir, "pt", t.names.clone(), types, vec!["date".into(), "sym".into()]).unwrap().commit().unwrap();
        let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta });
        let h = TableHandle { db, name: "pt".into() };
        // dates and symbols independent: 9 partitions
        let n = 3000;
        let mut t = sample(n, 18000);
        let sym = SymCol::from_iter((0..n).map(|k| ["IBM", "MSFT", "NA"][(k / 3) % 3]));
        t.cols[1] = Column::new(DataType::Symbol, ColData::Sym(sym));
        let mut ap = Appender::open(&dir, "pt").unwrap();
        ap.push(&t, None).unwrap();
        ap.commit().unwrap();
        // 3 dates x 3 symbol ranges: one pack per date, no segment file
        let files = |d: &str| -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(dir.join("pt").join(d)).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
            v.sort();
            v
        };
        let meta = read_table(&dir, "pt").unwrap();
        assert_eq!(meta.parts.len(), 9);
        let f = files("20190414");
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].ends_with(".pack"), "{f:?}");
        // one more partition alone gets a segment file beside the pack, which is kept
        let mut ap = Appender::open(&dir, "pt").unwrap();
        ap.push(&sample(3, 18000).take_usize(&[1]), None).unwrap();
        ap.commit().unwrap();
        let f = files("20190415");
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f.iter().any(|x| x.starts_with("J_N.") && x.ends_with(".seg")), "{f:?}");
        let back = crate::query::load(&h, None, &[], None).unwrap();
        assert_eq!(back.rows(), 3001);
        let ColData::F64(x) = &*back.cols[2].data else { panic!() };
        let want: f64 = (0..3000).map(|k| k as f64 / 4.0).sum::<f64>() + 0.25;
        assert_eq!(x.iter().sum::<f64>(), want);
        let ColData::Sym(s) = &*back.cols[1].data else { panic!() };
        // 999 of the first rows ((k / 3) % 3 == 1) and the appended one
        assert_eq!(s.codes.iter().filter(|&&c| s.dict.get(c) == "MSFT").count(), 1000);
        // a damaged pack directory is reported with the file's name
        let pack = dir.join("pt").join("20190414").join(&files("20190414")[0]);
        let mut b = std::fs::read(&pack).unwrap();
        b[20] ^= 1;
        std::fs::write(&pack, &b).unwrap();
        crate::query::clear_cache();
        let e = crate::query::load(&h, None, &[], None).unwrap_err();
        assert!(e.message.contains(".pack"), "{}", e.message);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A pack of more segments than `write_pack` encodes per step (20 symbol ranges of
    /// one date): the header written last at the start of the file names every segment,
    /// and each partition reads back its own rows.
    #[test]
    fn packs_of_many_segments_written_in_steps_read_back() {
        let dir = scratch("packsteps");
        let bounds: Vec<String> = (0..=20).map(|k| format!("S{k:02}")).collect();
        let levels = vec![
            Level::Value(Column::from_vec(DataType::Date, vec![18000])),
            Level::Range(Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(bounds.iter().map(|s| s.as_str()))))),
        ];
        let meta = DbMeta { levels, engine: "OLAP".into() };
        write_db_meta(&dir, &meta).unwrap();
        let types = vec![DataType::Date, DataType::Symbol, DataType::Double];
        let names: Vec<String> = ["date", "sym", "x"].iter().map(|s| s.to_string()).collect();
        Appender::create(&dir, "pt", names.clone(), types, vec!["date".into(), "sym".into()]).unwrap().commit().unwrap();
        let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta });
        let h = TableHandle { db, name: "pt".into() };
        let n = 20 * 500;
        let syms: Vec<String> = (0..n).map(|k| format!("S{:02}x", k % 20)).collect();
        let t = Table::new(
            names,
            vec![
                Column::from_vec(DataType::Date, vec![18000; n]),
                Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(syms.iter().map(|s| s.as_str())))),
                Column::from_vec(DataType::Double, (0..n).map(|k| k as f64 * 0.5).collect::<Vec<f64>>()),
            ],
        )
        .unwrap();
        let mut ap = Appender::open(&dir, "pt").unwrap();
        ap.push(&t, None).unwrap();
        ap.commit().unwrap();
        let meta = read_table(&dir, "pt").unwrap();
        assert_eq!(meta.parts.len(), 20);
        assert!(meta.parts.len() > PACK_STEP);
        let files: Vec<_> = std::fs::read_dir(dir.join("pt").join("20190414")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(files.len(), 1, "{files:?}");
        assert!(files[0].ends_with(".pack"));
        let parts = crate::query::load_partitions(&h, None, &[], None, false).unwrap();
        assert_eq!(parts.len(), 20);
        for (k, p) in parts.iter().enumerate() {
            assert_eq!(p.rows(), 500);
            // partition k holds the symbol S{k}x: rows k, k + 20, ...; x = row / 2
            for r in 0..p.rows() {
                assert_eq!(p.cols[1].str_at(r), Some(format!("S{k:02}x").as_str()));
                assert_eq!(p.cols[2].f64_at(r), Some((k + 20 * r) as f64 * 0.5));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Pushes split over partitions are copied into each partition's own table as they
    /// come (`PartBuf`), a push landing whole in one partition stays shared: either way each
    /// partition's rows come back in push order, strings and symbols added by later pushes
    /// included.
    #[test]
    fn ranges_appended_per_partition_keep_push_order() {
        let dir = scratch("appendranges");
        let levels = vec![Level::Value(Column::from_vec(DataType::Date, vec![18000, 18001, 18002]))];
        let meta = DbMeta { levels, engine: "OLAP".into() };
        write_db_meta(&dir, &meta).unwrap();
        let names: Vec<String> = ["date", "sym", "s", "x"].iter().map(|s| s.to_string()).collect();
        let types = vec![DataType::Date, DataType::Symbol, DataType::String, DataType::Double];
        Appender::create(&dir, "pt", names.clone(), types, vec!["date".into()]).unwrap().commit().unwrap();
        let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta });
        let h = TableHandle { db, name: "pt".into() };
        // (date, sym, s, x) of every row pushed, in push order
        let mut want: Vec<(i32, String, String, f64)> = Vec::new();
        let mut push = |ap: &mut Appender, rows: Vec<(i32, String, String, f64)>| {
            let t = Table::new(
                names.clone(),
                vec![
                    Column::from_vec(DataType::Date, rows.iter().map(|r| r.0).collect::<Vec<i32>>()),
                    Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(rows.iter().map(|r| r.1.as_str())))),
                    Column::new(DataType::String, ColData::Str(StrCol::from_iter(rows.iter().map(|r| r.2.as_str())))),
                    Column::from_vec(DataType::Double, rows.iter().map(|r| r.3).collect::<Vec<f64>>()),
                ],
            )
            .unwrap();
            ap.push(&t, None).unwrap();
            want.extend(rows);
        };
        // runs of 50 rows alternating between two days, then a push wholly in the third
        // day, then runs over all three days with new symbols, then the third day again
        let runs = |from: usize, days: &[i32], tag: &str| -> Vec<(i32, String, String, f64)> {
            (0..300).map(|k| (days[(k / 50) % days.len()], format!("{tag}{}", k % 7), "x".repeat(k % 5) + &k.to_string(), (from + k) as f64 * 0.5)).collect()
        };
        let mut ap = Appender::open(&dir, "pt").unwrap();
        push(&mut ap, runs(0, &[18000, 18001], "a"));
        push(&mut ap, (0..100).map(|k| (18002, format!("c{}", k % 3), String::new(), k as f64)).collect());
        push(&mut ap, runs(1000, &[18001, 18002, 18000], "b"));
        push(&mut ap, runs(2000, &[18002], "a"));
        ap.commit().unwrap();
        let parts = crate::query::load_partitions(&h, None, &[], None, false).unwrap();
        assert_eq!(parts.len(), 3);
        for p in &parts {
            let day = p.cols[0].i64_at(0).unwrap() as i32;
            let rows: Vec<&(i32, String, String, f64)> = want.iter().filter(|r| r.0 == day).collect();
            assert_eq!(p.rows(), rows.len(), "day {day}");
            for (r, w) in rows.iter().enumerate() {
                assert_eq!(p.cols[1].str_at(r), Some(w.1.as_str()), "day {day} row {r}");
                assert_eq!(p.cols[2].str_at(r), Some(w.2.as_str()), "day {day} row {r}");
                assert_eq!(p.cols[3].f64_at(r), Some(w.3), "day {day} row {r}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file sorted by the partitioning column: a partition no push has touched for
    /// `COLD_PUSHES` pushes is written before the commit (one segment each, as a flush at
    /// the commit would), yet nothing is visible until the commit, an abandoned transaction
    /// removes the early files, and a partition filled again later gets a second segment
    /// with its rows in push order.
    #[test]
    fn cold_partitions_are_written_before_the_commit() {
        let dir = scratch("coldparts");
        let days: Vec<i32> = (18000..18012).collect();
        let levels = vec![Level::Value(Column::from_vec(DataType::Date, days.clone()))];
        let meta = DbMeta { levels, engine: "OLAP".into() };
        write_db_meta(&dir, &meta).unwrap();
        let names: Vec<String> = ["date", "sym", "x"].iter().map(|s| s.to_string()).collect();
        let types = vec![DataType::Date, DataType::Symbol, DataType::Double];
        Appender::create(&dir, "pt", names.clone(), types, vec!["date".into()]).unwrap().commit().unwrap();
        let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta });
        let h = TableHandle { db, name: "pt".into() };
        let table = |rows: &[(i32, String, f64)]| {
            Table::new(
                names.clone(),
                vec![
                    Column::from_vec(DataType::Date, rows.iter().map(|r| r.0).collect::<Vec<i32>>()),
                    Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(rows.iter().map(|r| r.1.as_str())))),
                    Column::from_vec(DataType::Double, rows.iter().map(|r| r.2).collect::<Vec<f64>>()),
                ],
            )
            .unwrap()
        };
        // 3 pushes a day of 10,000 rows each: the first and last of a day interleave it with
        // the day before / after in runs of 10 rows (rows appended per partition), the
        // middle one is the day alone (a range of the pushed table); then day 0 once more
        let mut pushes: Vec<Vec<(i32, String, f64)>> = Vec::new();
        let mut k = 0usize;
        let mut row = |d: i32| {
            k += 1;
            (d, format!("s{}", k % 13), k as f64 * 0.25)
        };
        for (j, &d) in days.iter().enumerate() {
            let prev = if j > 0 { days[j - 1] } else { d };
            pushes.push((0..10_000).map(|r| row(if (r / 10) % 2 == 1 { prev } else { d })).collect());
            pushes.push((0..10_000).map(|_| row(d)).collect());
            pushes.push((0..10_000).map(|_| row(d)).collect());
        }
        pushes.push((0..500).map(|_| row(days[0])).collect());
        let files_now = || walk(&dir.join("pt")).len();
        let before = files_now();
        // abandoned: early files are written, and removed again
        let mut ap = Appender::open(&dir, "pt").unwrap();
        ap.cold_cells = 30_000;
        for p in &pushes[..20] {
            ap.push(&table(p), None).unwrap();
        }
        assert!(!ap.written.is_empty() && files_now() > before, "cold partitions are written early");
        drop(ap);
        assert_eq!(files_now(), before);
        assert_eq!(read_table(&dir, "pt").unwrap().rows(), 0);
        // committed
        let mut ap = Appender::open(&dir, "pt").unwrap();
        ap.cold_cells = 30_000;
        for p in &pushes {
            ap.push(&table(p), None).unwrap();
        }
        let early = ap.written.len();
        assert!(early >= 6, "{early} files before the commit");
        ap.commit().unwrap();
        let meta = read_table(&dir, "pt").unwrap();
        for p in &meta.parts {
            let want = if p.key == [0] { 2 } else { 1 };
            assert_eq!(p.segs.len(), want, "segments of {}", p.dir);
        }
        let parts = crate::query::load_partitions(&h, None, &[], None, false).unwrap();
        assert_eq!(parts.len(), days.len());
        let all: Vec<&(i32, String, f64)> = pushes.iter().flatten().collect();
        for p in &parts {
            let day = p.cols[0].i64_at(0).unwrap() as i32;
            let rows: Vec<&&(i32, String, f64)> = all.iter().filter(|r| r.0 == day).collect();
            assert_eq!(p.rows(), rows.len(), "day {day}");
            for (r, w) in rows.iter().enumerate() {
                assert_eq!(p.cols[1].str_at(r), Some(w.1.as_str()), "day {day} row {r}");
                assert_eq!(p.cols[2].f64_at(r), Some(w.2), "day {day} row {r}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every file below `d`.
    fn walk(d: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
        out
    }

    /// Growth by appends: doubling below `bigalloc::BIG` bytes but never past it in one
    /// step, a hint taken at the first growth, then whole huge pages.
    #[test]
    fn appended_columns_grow_without_crossing_into_huge_pages_early() {
        let big = beluga_runtime::bigalloc::BIG;
        let mut v: Vec<f64> = Vec::new();
        reserve_rows(&mut v, 10, 1000);
        assert_eq!(v.capacity(), 1000);
        v.resize(1000, 0.0);
        reserve_rows(&mut v, 1, 0);
        assert_eq!(v.capacity(), 2000);
        // doubling stops just below BIG bytes
        let mut w: Vec<f64> = Vec::with_capacity(100_000);
        w.resize(100_000, 0.0);
        reserve_rows(&mut w, 1, 0);
        assert_eq!(w.capacity(), (big - 1) / 8);
        // past it: the next multiple of 2 MiB
        w.resize(w.capacity(), 0.0);
        reserve_rows(&mut w, 1, 0);
        assert_eq!(w.capacity() * 8, 2 * big);
        let mut x: Vec<u32> = Vec::new();
        reserve_rows(&mut x, 3 * big / 4, 0);
        assert_eq!(x.capacity() * 4, 4 * big);
    }

    /// Conforming pieces whose symbols the base already holds leaves the base shared (no
    /// copy per piece); a new symbol is added; codes follow the base either way.
    #[test]
    fn conform_copies_the_symbol_base_only_for_new_names() {
        let mut base = Arc::new(SymbolDict::default());
        let first = Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(["IBM", "MSFT", "IBM"])));
        let a = conform_column(&first, DataType::Symbol, &mut base, "s").unwrap();
        // `a` shares the base now, as buffered pieces do
        let held = base.clone();
        let known = Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(["MSFT", "", "IBM"])));
        let b = conform_column(&known, DataType::Symbol, &mut base, "s").unwrap();
        assert!(Arc::ptr_eq(&base, &held), "the base was copied for known names");
        let fresh = Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(["ORCL", "IBM"])));
        let c = conform_column(&fresh, DataType::Symbol, &mut base, "s").unwrap();
        assert!(!Arc::ptr_eq(&base, &held));
        assert_eq!(held.names.len(), 3);
        let text = |c: &Column| (0..c.len()).map(|r| c.str_at(r).unwrap_or("?").to_string()).collect::<Vec<_>>();
        assert_eq!(text(&a), ["IBM", "MSFT", "IBM"]);
        assert_eq!(text(&b), ["MSFT", "", "IBM"]);
        assert_eq!(text(&c), ["ORCL", "IBM"]);
        let ColData::Sym(s) = &*c.data else { panic!() };
        assert_eq!(s.codes, vec![3, 1]);
        assert!(Arc::ptr_eq(&s.dict, &base));
    }

    #[test]
    fn range_rows_outside_the_scheme_are_errors() {
        let dir = scratch("range");
        let levels = vec![Level::Range(Column::from_vec(DataType::Int, vec![0, 10, 20]))];
        write_db_meta(&dir, &DbMeta { levels, engine: "OLAP".into() }).unwrap();
        Appender::create(&dir, "pt", vec!["id".into()], vec![DataType::Int], vec!["id".into()]).unwrap().commit().unwrap();
        let mut ap = Appender::open(&dir, "pt").unwrap();
        let t = Table::new(vec!["id".into()], vec![Column::from_vec(DataType::Int, vec![1, 15, 25])]).unwrap();
        let e = ap.push(&t, None).unwrap_err();
        assert!(e.message.contains("'25'") && e.message.contains("row 2"), "{}", e.message);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// keepDuplicates FIRST/LAST against a model (a map from key to the kept row): random
    /// batches with repeated keys, small segments so merges cross many of them; the
    /// partition reads back sorted by the key, and a one-key append rewrites one segment.
    #[test]
    fn keep_duplicates_merges_only_the_segments_hit() {
        use std::collections::BTreeMap;
        for keep in [catalog::KeepDup::First, catalog::KeepDup::Last] {
            let dir = scratch(&format!("keep-{}", keep.name()));
            let levels = vec![Level::Value(Column::from_vec(DataType::Date, vec![18000, 18001]))];
            write_db_meta(&dir, &DbMeta { levels: levels.clone(), engine: "TSDB".into() }).unwrap();
            let names: Vec<String> = ["date", "id", "t", "x"].iter().map(|s| s.to_string()).collect();
            let types = vec![DataType::Date, DataType::Int, DataType::Int, DataType::Double];
            let mut ap = Appender::create(&dir, "pt", names.clone(), types, vec!["date".into()]).unwrap();
            ap.meta.opts.sort_cols = vec!["id".into(), "t".into()];
            ap.meta.opts.keep = keep;
            ap.commit().unwrap();
            let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta: DbMeta { levels, engine: "TSDB".into() } });
            let h = TableHandle { db, name: "pt".into() };
            let mut model: BTreeMap<(i32, i32, i32), f64> = BTreeMap::new();
            let mut seed: u64 = 7;
            let mut next = |m: u64| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 33) % m
            };
            for batch in 0..12 {
                let n = if batch == 0 { 300 } else { 1 + next(60) as usize };
                let (mut d, mut id, mut t, mut x) = (vec![], vec![], vec![], vec![]);
                for r in 0..n {
                    let key = (18000 + next(2) as i32, next(20) as i32, next(40) as i32);
                    let v = (batch * 1000 + r) as f64;
                    match keep {
                        catalog::KeepDup::Last => {
                            model.insert(key, v);
                        }
                        _ => {
                            model.entry(key).or_insert(v);
                        }
                    }
                    d.push(key.0);
                    id.push(key.1);
                    t.push(key.2);
                    x.push(v);
                }
                let tab = Table::new(
                    names.clone(),
                    vec![Column::from_vec(DataType::Date, d), Column::from_vec(DataType::Int, id), Column::from_vec(DataType::Int, t), Column::from_vec(DataType::Double, x)],
                )
                .unwrap();
                let mut ap = Appender::open(&dir, "pt").unwrap();
                ap.keep_seg_rows = 16;
                ap.push(&tab, None).unwrap();
                ap.commit().unwrap();
                let got = beluga_runtime::table_source::TableSource::table(&h).unwrap();
                let cell = |c: usize, r: usize| match &*got.cols[c].data {
                    ColData::I32(v) => v[r] as f64,
                    ColData::F64(v) => v[r],
                    _ => panic!("column type"),
                };
                let rows: Vec<((i32, i32, i32), f64)> = (0..got.rows()).map(|r| ((cell(0, r) as i32, cell(1, r) as i32, cell(2, r) as i32), cell(3, r))).collect();
                let want: Vec<((i32, i32, i32), f64)> = model.iter().map(|(k, v)| (*k, *v)).collect();
                assert_eq!(rows, want, "{} after batch {batch}", keep.name());
            }
            // one new key inside a segment's range: every other segment keeps its file
            let before = catalog::read_table(&dir, "pt").unwrap();
            let p0 = before.parts.iter().find(|p| p.key == vec![0]).unwrap().clone();
            assert!(p0.segs.len() > 3, "{} segments", p0.segs.len());
            let tab = Table::new(
                names.clone(),
                vec![Column::from_vec(DataType::Date, vec![18000]), Column::from_vec(DataType::Int, vec![10]), Column::from_vec(DataType::Int, vec![1000]), Column::from_vec(DataType::Double, vec![-1.0])],
            )
            .unwrap();
            let mut ap = Appender::open(&dir, "pt").unwrap();
            ap.keep_seg_rows = 16;
            ap.push(&tab, None).unwrap();
            ap.commit().unwrap();
            let after = catalog::read_table(&dir, "pt").unwrap();
            let p1 = after.parts.iter().find(|p| p.key == vec![0]).unwrap();
            let kept = p1.segs.iter().filter(|s| p0.segs.iter().any(|o| o.id == s.id)).count();
            assert_eq!(kept, p0.segs.len() - 1);
            let other0 = before.parts.iter().find(|p| p.key == vec![1]).unwrap();
            let other1 = after.parts.iter().find(|p| p.key == vec![1]).unwrap();
            assert_eq!(other0.segs.iter().map(|s| s.id).collect::<Vec<_>>(), other1.segs.iter().map(|s| s.id).collect::<Vec<_>>());
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
