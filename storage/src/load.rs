//! Loading stored tables for queries (what predicates do is in `query`): the surviving
//! partitions' segments are decoded on rayon through the column cache (`cache`), filtered
//! by the conditions their partition key does not decide, and assembled into one table
//! (columns copied in parallel into preallocated vectors; whole-partition loads are cached
//! as assembled columns), one table per partition, or whole partitions for rewrites.

use crate::cache::{self, SegSource, TableState};
use crate::catalog::{PartMeta, TableMeta};
use crate::column_file::{ColumnFile, Decodable};
use crate::handle::TableHandle;
use crate::partition::Level;
use crate::query::{block_all, block_keep, filter_mask, prune, Filter};
use beluga_runtime::column::{ColData, Column, SymCol, SymbolDict};
use beluga_runtime::null::Native;
use beluga_runtime::table_source::{mostly_kept, PartInfo, Pred};
use beluga_runtime::{with_numeric, DataType, Error, Result, Table};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Rows from which an assembled column is copied in parallel.
const PAR_ROWS: usize = 1 << 16;

/// One segment to read.
struct Job {
    part: usize,
    seg: u64,
    /// index of the partition's row filters in `Plan::filters`
    filters: usize,
}

/// How much of the conditions the loader applies.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Apply {
    /// partitions, blocks (by min/max) and rows
    Rows,
    /// partitions only
    Parts,
}

/// What a query reads: the table version, the referenced columns, one job per segment.
struct Plan {
    apply: Apply,
    st: Arc<TableState>,
    tdir: PathBuf,
    want: Vec<usize>,
    jobs: Vec<Job>,
    /// per surviving partition, the conditions its partition key does not decide
    filters: Vec<Vec<Filter>>,
}

/// Whether a condition holds for every row of a partition (Some(true)), for none
/// (Some(false)), or depends on the row: decided when it tests only a VALUE-partitioned
/// column stored with the level's type (each of its partitions holds one value).
fn decided(meta: &TableMeta, levels: &[Level], p: &PartMeta, f: &Filter) -> Option<bool> {
    let c = match f {
        Filter::Cmp(c, ..) | Filter::Between(c, ..) | Filter::In(c, _) => *c,
        Filter::ColCmp(..) | Filter::Key(..) => return None,
    };
    let l = meta.part_cols.iter().position(|pc| meta.col_index(pc) == Some(c))?;
    if meta.opts.part_fn(l).is_some() {
        return None;
    }
    if let Some(Level::Range(bounds)) = levels.get(l) {
        return range_decided(meta, bounds, p.key.get(l).copied()? as usize, c, f);
    }
    let Some(Level::Value(vals)) = levels.get(l) else {
        return None;
    };
    if vals.ty != meta.types[c] {
        return None;
    }
    let k = *p.key.get(l)? as usize;
    if k >= vals.len() {
        return None;
    }
    let mut cols: Vec<Option<Column>> = vec![None; meta.names.len()];
    cols[c] = Some(vals.slice(k, k + 1));
    match filter_mask(f, &cols) {
        Some(m) if m.len() == 1 => Some(m[0]),
        _ => None,
    }
}

/// `decided` for a RANGE level on an integer-like column: partition k holds the values
/// [b_k, b_{k+1}), so a comparison or `between` (each true on one interval of values) that
/// holds at b_k and at b_{k+1} - 1 holds for every row (Some(true)); otherwise undecided.
fn range_decided(meta: &TableMeta, bounds: &Column, k: usize, c: usize, f: &Filter) -> Option<bool> {
    use beluga_runtime::kernels::cmp::CmpOp;
    if bounds.ty != meta.types[c] || k + 1 >= bounds.len() || matches!(f, Filter::Cmp(_, CmpOp::Ne, _)) {
        return None;
    }
    if !matches!(f, Filter::Cmp(..) | Filter::Between(..)) {
        return None;
    }
    let lo = bounds.i64_at(k)?;
    let hi = bounds.i64_at(k + 1)?.checked_sub(1)?;
    if hi < lo {
        return None;
    }
    let ends = beluga_runtime::match_int!(&*bounds.data, _v: T => Column::from_vec(bounds.ty, vec![lo as T, hi as T]),
        _ => return None,
    );
    let mut cols: Vec<Option<Column>> = vec![None; meta.names.len()];
    cols[c] = Some(ends);
    match filter_mask(f, &cols) {
        Some(m) if m.len() == 2 && m[0] && m[1] => Some(true),
        _ => None,
    }
}

/// The row filters of a partition, None when its key rules every row out.
fn part_filters(meta: &TableMeta, levels: &[Level], p: &PartMeta, filters: &[Filter]) -> Option<Vec<Filter>> {
    let mut left = Vec::new();
    for f in filters {
        if matches!(f, Filter::Key(..)) {
            // partition values: used by `prune`, nothing to test on rows
            continue;
        }
        match decided(meta, levels, p, f) {
            Some(true) => {}
            Some(false) => return None,
            None => left.push(f.clone()),
        }
    }
    Some(left)
}

/// What to read for `preds`; `only` restricts the partitions to those ids (folders).
fn plan(h: &TableHandle, names: Option<&[String]>, preds: &[Pred], only: Option<&[String]>, apply: Apply) -> Result<Plan> {
    let dir = h.db.dir()?.clone();
    let st = cache::table_state(&dir, &h.name)?;
    let meta = &*st.meta;
    let mut want: Vec<usize> = match names {
        None => (0..meta.names.len()).collect(),
        Some(ns) => {
            let mut v: Vec<usize> = ns.iter().filter_map(|n| meta.col_index(n)).collect();
            v.sort_unstable();
            v.dedup();
            v
        }
    };
    if want.is_empty() {
        want.push(meta.part_cols.first().and_then(|p| meta.col_index(p)).unwrap_or(0));
    }
    let filters = Filter::all(meta, preds)?;
    let keep = prune(meta, &st.levels, &filters);
    let mut lists = Vec::new();
    let mut jobs = Vec::new();
    for (pi, p) in meta.parts.iter().enumerate() {
        if !keep[pi] || only.is_some_and(|o| !o.contains(&p.dir)) {
            continue;
        }
        let Some(left) = part_filters(meta, &st.levels, p, &filters) else {
            continue;
        };
        let k = lists.len();
        lists.push(if apply == Apply::Parts { Vec::new() } else { left });
        jobs.extend(p.segs.iter().map(|s| Job { part: pi, seg: s.id, filters: k }));
    }
    let tdir = crate::catalog::table_dir(&dir, &h.name)?;
    Ok(Plan { apply, st, tdir, want, jobs, filters: lists })
}

impl Plan {
    /// The segment ids when more than one segment is read and every one is read whole.
    fn whole(&self) -> Option<Arc<[u64]>> {
        if self.jobs.len() < 2 || self.filters.iter().any(|f| !f.is_empty()) {
            return None;
        }
        Some(self.jobs.iter().map(|j| j.seg).collect())
    }

    /// Load every segment on rayon (None: no row of it passes).
    fn run(&self) -> Result<Vec<Option<Vec<Column>>>> {
        let meta = &self.st.meta;
        self.jobs
            .par_iter()
            .map(|j| {
                let rows = self.apply == Apply::Rows;
                load_segment(&self.st, &self.tdir, &meta.parts[j.part].dir, j.seg, &self.want, &self.filters[j.filters], rows, None, None, false)
            })
            .collect()
    }

    fn names(&self) -> Vec<String> {
        self.want.iter().map(|&c| self.st.meta.names[c].clone()).collect()
    }

    fn types(&self) -> Vec<DataType> {
        self.want.iter().map(|&c| self.st.meta.types[c]).collect()
    }
}

/// Load one segment: filter columns first (skipping blocks by min/max, then rows when
/// `rows`), then the others.
fn load_segment(
    st: &TableState,
    tdir: &Path,
    part: &str,
    seg: u64,
    want: &[usize],
    filters: &[Filter],
    rows: bool,
    inexact: Option<&AtomicBool>,
    only: Option<&[bool]>,
    superset: bool,
) -> Result<Option<Vec<Column>>> {
    let ncols = st.meta.names.len();
    // filter columns first: their block directories (cache entry or file, not decoded yet)
    let mut files: Vec<Option<SegSource>> = (0..ncols).map(|_| None).collect();
    let mut keep: Option<Vec<bool>> = only.map(|o| o.to_vec());
    for f in filters {
        for c in f.cols() {
            if files[c].is_none() {
                files[c] = Some(st.seg_source(tdir, part, seg, c)?);
            }
        }
        if let Some(k) = f.cols().first().and_then(|&c| files[c].as_ref()).and_then(|d| block_keep(f, d.ty(), d.blocks())) {
            keep = Some(match keep {
                None => k,
                Some(old) => old.iter().zip(&k).map(|(a, b)| *a && *b).collect(),
            });
        }
    }
    if keep.as_ref().is_some_and(|k| !k.iter().any(|&b| b)) {
        return Ok(None);
    }
    // an `in` over many values builds its lookup once per call: per block that would be
    // repeated a few hundred times (SYMBOL columns test their codes once per segment)
    let per_block_cheap = filters.iter().all(|f| match f {
        Filter::In(c, v) => st.meta.types[*c] == DataType::Symbol || v.size() <= 256,
        _ => true,
    });
    if rows && !filters.is_empty() && per_block_cheap {
        let at = SegAt { st, tdir, part, seg };
        if let Some(new) = first_read(at, want, filters, &mut files)? {
            return by_blocks(at, want, filters, &mut files, &new, keep.as_deref(), inexact);
        }
    }
    // then only the rows of the blocks kept: decoded just for them on a cache miss
    // `pick`: only these rows (positions among the kept blocks' rows), gathered straight
    // from the cached column instead of copying the kept blocks first
    let rows_of = |c: usize, files: &mut Vec<Option<SegSource>>, pick: Option<&[usize]>| -> Result<Column> {
        let src = match files[c].take() {
            Some(s) => s,
            None => st.seg_source(tdir, part, seg, c)?,
        };
        st.seg_rows(tdir, part, seg, c, src, keep.as_deref(), pick)
    };
    let mut cols: Vec<Option<Column>> = (0..ncols).map(|_| None).collect();
    let mut mask: Option<Vec<bool>> = None;
    for f in filters.iter().filter(|_| rows) {
        for c in f.cols() {
            if cols[c].is_none() {
                cols[c] = Some(rows_of(c, &mut files, None)?);
            }
        }
        and_mask(&mut mask, filter_mask(f, &cols), inexact);
    }
    if mask.as_ref().is_some_and(|m| !m.iter().any(|&b| b)) {
        return Ok(None);
    }
    // late materialisation: the other columns only at the rows the filters kept; with
    // `superset`, filters keeping most rows (`mostly_kept`) return them all instead (the
    // caller filters again): the cached columns shared, not a gathered copy of nearly the
    // same size beside them
    let dense = superset && mask.as_ref().is_some_and(|m| mostly_kept(m.iter().filter(|&&b| b).count(), m.len()));
    let idx = if dense { None } else { kept_rows(mask) };
    let mut out = Vec::with_capacity(want.len());
    for &c in want {
        let col = match (cols[c].take(), &idx) {
            (Some(col), Some(idx)) => col.take_usize(idx),
            (Some(col), None) => col,
            (None, idx) => rows_of(c, &mut files, idx.as_deref())?,
        };
        out.push(col);
    }
    Ok(Some(out))
}

/// Where a segment is: its table's state and folder, partition folder and id.
#[derive(Clone, Copy)]
struct SegAt<'a> {
    st: &'a TableState,
    tdir: &'a Path,
    part: &'a str,
    seg: u64,
}

/// The sources of the columns a filtered read of a segment needs (filter columns and
/// `want`), filled into `files`; per column, whether it is read for the first time
/// (`TableState::first_use`), None when no column is: the segment is then read block by
/// block (`by_blocks`) when one is.
fn first_read(at: SegAt, want: &[usize], filters: &[Filter], files: &mut [Option<SegSource>]) -> Result<Option<Vec<bool>>> {
    let SegAt { st, tdir, part, seg } = at;
    let mut new = vec![false; files.len()];
    for c in filters.iter().flat_map(|f| f.cols()).chain(want.iter().copied()) {
        if files[c].is_none() {
            files[c] = Some(st.seg_source(tdir, part, seg, c)?);
        }
        // every column is marked (not only up to the first new one): each is admitted on
        // its own second read
        if let Some(SegSource::File(_)) = &files[c] {
            new[c] |= st.first_use(seg, c);
        }
    }
    Ok(new.iter().any(|&b| b).then_some(new))
}

/// One column of a segment read block by block: rows of its cache entry, or blocks of its
/// file decoded one at a time (never kept).
enum BlockSrc {
    /// the entry and, per block, its first row in the entry's column
    Cached(Arc<cache::Decoded>, Vec<usize>),
    File(ColumnFile),
}

impl BlockSrc {
    fn new(src: SegSource) -> BlockSrc {
        match src {
            SegSource::Cached(d) => {
                let mut at = 0usize;
                let starts = (0..d.blocks.len())
                    .map(|k| {
                        let s = at;
                        if d.held.as_ref().is_none_or(|h| h[k]) {
                            at += d.blocks[k].rows as usize;
                        }
                        s
                    })
                    .collect();
                BlockSrc::Cached(d, starts)
            }
            SegSource::File(f) => BlockSrc::File(f),
        }
    }

    fn blocks(&self) -> &[crate::column_file::BlockMeta] {
        match self {
            BlockSrc::Cached(d, _) => &d.blocks,
            BlockSrc::File(f) => &f.blocks,
        }
    }

    /// The type the column is stored with.
    fn ty(&self) -> DataType {
        match self {
            BlockSrc::Cached(d, _) => d.col.ty,
            BlockSrc::File(f) => f.ty,
        }
    }

    /// The rows of block `k` (a cached entry must hold it).
    fn block(&self, k: usize, symbols: &Arc<SymbolDict>) -> Result<Column> {
        match self {
            BlockSrc::Cached(d, starts) => Ok(d.col.slice(starts[k], starts[k] + d.blocks[k].rows as usize)),
            BlockSrc::File(f) => f.decode_blocks(&[k], Some(symbols)),
        }
    }
}

/// `load_segment` for a segment with a column read for the first time: block by block,
/// each filter's columns decoded only for the blocks the earlier filters left rows in, the
/// other columns only for blocks with rows left and gathered at those rows. Decoded
/// blocks are dropped as soon as their rows are taken, so a cold query that keeps a few
/// rows of every block touches a few blocks' worth of scratch memory, not whole columns.
/// Columns read before (second read) are decoded and cached whole first, as the column
/// path does; cached ones are sliced per block.
fn by_blocks(
    at: SegAt,
    want: &[usize],
    filters: &[Filter],
    files: &mut [Option<SegSource>],
    new: &[bool],
    keep: Option<&[bool]>,
    inexact: Option<&AtomicBool>,
) -> Result<Option<Vec<Column>>> {
    let SegAt { st, tdir, part, seg } = at;
    let ncols = files.len();
    let symbols = &st.meta.symbols;
    let mut srcs: Vec<Option<BlockSrc>> = (0..ncols).map(|_| None).collect();
    for (c, f) in files.iter_mut().enumerate() {
        let Some(src) = f.take() else { continue };
        let src = match src {
            SegSource::File(f) if new[c] => SegSource::File(f),
            // read before, or cached without these blocks: decoded and kept
            src => SegSource::Cached(st.covering((tdir, part, seg, c), src, keep)?),
        };
        srcs[c] = Some(BlockSrc::new(src));
    }
    // every column of a segment has the same blocks (one writer cuts them all)
    let layout: Vec<u32> = srcs.iter().flatten().next().map(|s| s.blocks().iter().map(|b| b.rows).collect()).unwrap_or_default();
    if srcs.iter().flatten().any(|s| s.blocks().len() != layout.len() || s.blocks().iter().zip(&layout).any(|(a, &r)| a.rows != r)) {
        let name = srcs.iter().flatten().find_map(|s| match s {
            BlockSrc::File(f) => Some(f.name.clone()),
            BlockSrc::Cached(..) => None,
        });
        return Err(crate::bin::corrupt(&name.unwrap_or_else(|| format!("{part}/{seg}")), "columns of one segment cut into different blocks"));
    }
    let nblocks = layout.len();
    let mut pieces: Vec<Vec<Column>> = want.iter().map(|_| Vec::new()).collect();
    let mut bc: Vec<Option<Column>> = (0..ncols).map(|_| None).collect();
    // per filter on a SYMBOL column: its result per code of the symbol base, evaluated once
    // for the segment (as the whole-column path does) instead of once per block
    let seg_rows: usize = layout.iter().map(|&r| r as usize).sum();
    let mut per_code: Vec<Option<(Arc<SymbolDict>, Vec<bool>)>> = filters.iter().map(|_| None).collect();
    let mut kept_any = false;
    for b in (0..nblocks).filter(|&b| keep.is_none_or(|k| k[b])) {
        bc.iter_mut().for_each(|c| *c = None);
        let mut mask: Option<Vec<bool>> = None;
        let mut none_left = false;
        for (fi, f) in filters.iter().enumerate() {
            // a condition the block's min/max prove for every row costs no decoding
            let decided = match f.cols()[..] {
                [c] => srcs[c].as_ref().is_some_and(|s| block_all(f, s.ty(), &s.blocks()[b])),
                _ => false,
            };
            if decided {
                continue;
            }
            for c in f.cols() {
                if bc[c].is_none() {
                    let src = srcs[c].as_ref().ok_or_else(|| Error::runtime("internal: filter column without a source"))?;
                    bc[c] = Some(src.block(b, symbols)?);
                }
            }
            let got = match (&f.cols()[..], &per_code[fi]) {
                ([c], Some((dict, table))) => match bc[*c].as_ref().map(|col| &*col.data) {
                    Some(ColData::Sym(s)) if Arc::ptr_eq(&s.dict, dict) => Some(s.codes.iter().map(|&k| table[k as usize]).collect()),
                    _ => filter_mask(f, &bc),
                },
                ([c], None) => match bc[*c].as_ref().map(|col| &*col.data) {
                    Some(ColData::Sym(s)) if s.dict.names.len() < seg_rows => {
                        let table = code_mask(f, *c, &s.dict, ncols);
                        let m = table.as_ref().map(|t| s.codes.iter().map(|&k| t[k as usize]).collect());
                        per_code[fi] = table.map(|t| (s.dict.clone(), t));
                        m.or_else(|| filter_mask(f, &bc))
                    }
                    _ => filter_mask(f, &bc),
                },
                _ => filter_mask(f, &bc),
            };
            and_mask(&mut mask, got, inexact);
            if mask.as_ref().is_some_and(|m| !m.iter().any(|&b| b)) {
                none_left = true;
                break;
            }
        }
        if none_left {
            continue;
        }
        kept_any = true;
        let idx = kept_rows(mask);
        for (k, &c) in want.iter().enumerate() {
            let col = match bc[c].take() {
                Some(col) => col,
                None => srcs[c].as_ref().ok_or_else(|| Error::runtime("internal: column without a source"))?.block(b, symbols)?,
            };
            pieces[k].push(match &idx {
                Some(idx) => col.take_usize(idx),
                None => col,
            });
        }
    }
    if !kept_any {
        return Ok(None);
    }
    Ok(Some(
        pieces
            .iter()
            .map(|p| {
                let refs: Vec<&Column> = p.iter().collect();
                assemble(refs[0].ty, &refs, symbols)
            })
            .collect(),
    ))
}

/// A condition on SYMBOL column `c` evaluated once per code of `dict` (a column holding
/// each code once, through the same `filter_mask` as rows): the result of a row is the
/// entry of its code. None when the condition is not evaluated row by row here.
fn code_mask(f: &Filter, c: usize, dict: &Arc<SymbolDict>, ncols: usize) -> Option<Vec<bool>> {
    let codes: Vec<u32> = (0..dict.names.len() as u32).collect();
    let mut cols: Vec<Option<Column>> = (0..ncols).map(|_| None).collect();
    cols[c] = Some(Column::new(DataType::Symbol, ColData::Sym(SymCol { codes, dict: dict.clone() })));
    filter_mask(f, &cols).filter(|m| m.len() == dict.names.len())
}

/// Narrow the rows kept so far (`mask`, None: all) by a condition's rows; a condition not
/// evaluated here (None) is left to the executor: the rows kept are then a superset.
fn and_mask(mask: &mut Option<Vec<bool>>, m: Option<Vec<bool>>, inexact: Option<&AtomicBool>) {
    match (m, mask.as_mut()) {
        (Some(m), None) => *mask = Some(m),
        (Some(m), Some(old)) => old.iter_mut().zip(&m).for_each(|(a, b)| *a &= *b),
        (None, _) => {
            if let Some(x) = inexact {
                x.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// The positions a mask keeps, None when it keeps every row (or there is no mask).
fn kept_rows(mask: Option<Vec<bool>>) -> Option<Vec<usize>> {
    mask.and_then(|m| {
        let kept = m.iter().filter(|&&b| b).count();
        (kept < m.len()).then(|| mask_rows(&m, kept))
    })
}

/// The positions of the `kept` true entries of `m`, in order, written without a branch per
/// row (the mask of a selective filter is unpredictable).
fn mask_rows(m: &[bool], kept: usize) -> Vec<usize> {
    let mut idx = vec![0usize; kept + 1];
    let mut k = 0;
    for (i, &b) in m.iter().enumerate() {
        idx[k] = i;
        k += b as usize;
        if k == kept {
            break;
        }
    }
    idx.truncate(kept);
    idx
}

fn empty_column(ty: DataType, symbols: &Arc<SymbolDict>) -> Column {
    if ty == DataType::Symbol {
        return Column::new(ty, ColData::Sym(SymCol { codes: vec![], dict: symbols.clone() }));
    }
    Column::nulls(ty, 0)
}

/// Concatenate slices into one preallocated vector, copying in parallel when large.
fn par_copy<T: Copy + Default + Send + Sync>(slices: &[&[T]]) -> Vec<T> {
    let n: usize = slices.iter().map(|s| s.len()).sum();
    // zero-initialised (calloc'ed) storage: pages are first touched by the copying threads
    let mut out = vec![T::default(); n];
    let mut rest: &mut [T] = &mut out;
    let mut pairs = Vec::with_capacity(slices.len());
    for s in slices {
        let (a, b) = std::mem::take(&mut rest).split_at_mut(s.len());
        pairs.push((a, *s));
        rest = b;
    }
    if n >= PAR_ROWS {
        pairs.into_par_iter().with_min_len(4).for_each(|(d, s)| d.copy_from_slice(s));
    } else {
        pairs.into_iter().for_each(|(d, s)| d.copy_from_slice(s));
    }
    out
}

/// The pieces as slices of `first`'s element type (None if one has another type).
fn numeric_concat<T: Native + Default>(first: &[T], parts: &[&Column]) -> Option<Vec<T>> {
    let mut slices: Vec<&[T]> = Vec::with_capacity(parts.len());
    slices.push(first);
    for c in &parts[1..] {
        let s = with_numeric!(&*c.data, w => (w as &dyn std::any::Any).downcast_ref::<Vec<T>>().map(|v| v.as_slice())).flatten()?;
        slices.push(s);
    }
    Some(par_copy(&slices))
}

/// One column from the segments' pieces (SYMBOL codes all refer to a prefix of `base`).
/// Column `k` of every segment of `segs`, as one column.
fn assemble_col(ty: DataType, segs: &[Vec<Column>], k: usize, base: &Arc<SymbolDict>) -> Column {
    let parts: Vec<&Column> = segs.iter().map(|s| &s[k]).collect();
    assemble(ty, &parts, base)
}

fn assemble(ty: DataType, parts: &[&Column], base: &Arc<SymbolDict>) -> Column {
    let Some(first) = parts.first() else {
        return empty_column(ty, base);
    };
    if let ColData::Sym(s) = &*first.data {
        if parts.len() == 1 && Arc::ptr_eq(&s.dict, base) {
            return (*first).clone();
        }
        let slices: Option<Vec<&[u32]>> = parts
            .iter()
            .map(|c| match &*c.data {
                ColData::Sym(s) => Some(s.codes.as_slice()),
                _ => None,
            })
            .collect();
        return match slices {
            Some(sl) => Column::new(ty, ColData::Sym(SymCol { codes: par_copy(&sl), dict: base.clone() })),
            None => crate::store::concat_stored(ty, parts, base),
        };
    }
    if parts.len() == 1 {
        return (*first).clone();
    }
    match with_numeric!(&*first.data, v => numeric_concat(v, parts).map(|o| Column::from_vec(ty, o))) {
        Some(Some(c)) => c,
        _ => crate::store::concat_stored(ty, parts, base),
    }
}

/// Materialise the referenced columns of the rows that may satisfy `preds` (of the
/// partitions `only` names, when given).
pub fn load(h: &TableHandle, names: Option<&[String]>, preds: &[Pred], only: Option<&[String]>) -> Result<Table> {
    let plan = plan(h, names, preds, only, Apply::Rows)?;
    let whole = plan.whole();
    let cached: Option<Vec<Column>> = whole.as_ref().and_then(|s| plan.want.iter().map(|&c| plan.st.joined(c, s)).collect());
    let cols = match cached {
        Some(cols) => cols,
        None => {
            let cols = match whole.is_some().then(|| direct_whole(&plan, &plan.jobs)).transpose()?.flatten() {
                Some(cols) => cols,
                None => {
                    let segs: Vec<Vec<Column>> = plan.run()?.into_iter().flatten().collect();
                    let types = plan.types();
                    let symbols = &plan.st.meta.symbols;
                    types.par_iter().enumerate().map(|(k, ty)| assemble_col(*ty, &segs, k, symbols)).collect()
                }
            };
            if let Some(s) = &whole {
                for (k, c) in cols.iter().enumerate() {
                    plan.st.put_joined(plan.want[k], s, c);
                }
            }
            cols
        }
    };
    let mut t = Table::new(plan.names(), cols)?;
    t.name = Some(h.name.clone());
    Ok(t)
}

/// Whole segments (`jobs`, in order) decoded straight into the assembled columns: per
/// column, every segment's file is read, the column allocated once at the total length, and each file
/// decodes into its own part of it on rayon (no per-segment column, no copy into the
/// joined one, half the fresh pages). None (the general path) when a column is of a
/// type decoded only into vectors (strings, array vectors) or a file's type differs from
/// the table's (a column whose type changed).
fn direct_whole(plan: &Plan, jobs: &[Job]) -> Result<Option<Vec<Column>>> {
    use beluga_runtime::types::Physical as P;
    let meta = &plan.st.meta;
    let direct = |ty: DataType| ty.array_elem().is_none() && !matches!(ty.physical(), P::Str | P::None);
    if !plan.want.iter().all(|&c| direct(meta.types[c])) {
        return Ok(None);
    }
    let mut cols = Vec::with_capacity(plan.want.len());
    for &c in &plan.want {
        let ty = meta.types[c];
        let files: Vec<ColumnFile> = jobs
            .par_iter()
            .map(|j| plan.st.open_seg(&plan.tdir, &meta.parts[j.part].dir, j.seg, c))
            .collect::<Result<_>>()?;
        if files.iter().any(|f| f.ty != ty) {
            return Ok(None);
        }
        let col = match ty.physical() {
            P::I8 => Column::from_vec(ty, decode_all::<i8>(&files)?),
            P::I16 => Column::from_vec(ty, decode_all::<i16>(&files)?),
            P::I32 => Column::from_vec(ty, decode_all::<i32>(&files)?),
            P::I64 => Column::from_vec(ty, decode_all::<i64>(&files)?),
            P::F32 => Column::from_vec(ty, decode_all::<f32>(&files)?),
            P::F64 => Column::from_vec(ty, decode_all::<f64>(&files)?),
            P::I128 => Column::from_vec(ty, decode_all::<i128>(&files)?),
            P::Sym => {
                let codes = decode_all::<i32>(&files)?;
                let limit = meta.symbols.names.len() as i32;
                if codes.iter().any(|&k| k < 0 || k >= limit) {
                    return Err(crate::bin::corrupt(&files[0].name, "symbol code outside the symbol base"));
                }
                let codes: Vec<u32> = codes.into_iter().map(|k| k as u32).collect();
                Column::new(ty, ColData::Sym(SymCol { codes, dict: meta.symbols.clone() }))
            }
            P::Str | P::None => return Ok(None),
        };
        cols.push(col);
    }
    Ok(Some(cols))
}

/// The files' values, in order, in one vector written once.
fn decode_all<T: Decodable + Send>(files: &[ColumnFile]) -> Result<Vec<T>> {
    let n: usize = files.iter().map(|f| f.rows as usize).sum();
    let mut out: Vec<T> = Vec::with_capacity(n);
    let mut rest = &mut out.spare_capacity_mut()[..n];
    let mut parts = Vec::with_capacity(files.len());
    for f in files {
        let (a, b) = std::mem::take(&mut rest).split_at_mut(f.rows as usize);
        parts.push((f, a));
        rest = b;
    }
    parts.into_par_iter().try_for_each(|(f, dst)| f.decode_into(dst))?;
    // SAFETY: every part was filled by `decode_into`, which fails unless it wrote exactly
    // the file's `rows` values, and the parts tile the first n elements.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// The largest non-null key of column `c` in each block of a job's segment, from the
/// block statistics (no decoding; the cache entry's directory when it has one):
/// `i64::MIN` for a block of nulls only (a block of an integer-like type without
/// statistics holds no non-null value).
fn block_key_max(plan: &Plan, j: &Job, c: usize) -> Result<Vec<i64>> {
    let part = &plan.st.meta.parts[j.part].dir;
    let src = plan.st.seg_source(&plan.tdir, part, j.seg, c)?;
    Ok(src.blocks().iter().map(|b| if b.has_stats { b.max } else { i64::MIN }).collect())
}

/// The non-null values of an integer-like column, widened (None for other types).
fn push_keys(col: &Column, out: &mut Vec<i64>) -> Option<()> {
    fn each<T: Native>(v: &[T], out: &mut Vec<i64>) {
        out.extend(v.iter().filter(|x| !x.is_null()).map(|x| x.to_i64()));
    }
    match &*col.data {
        ColData::I8(v) => each(v, out),
        ColData::I16(v) => each(v, out),
        ColData::I32(v) => each(v, out),
        ColData::I64(v) => each(v, out),
        _ => return None,
    }
    Some(())
}

/// `load` for `select top n … order by key desc` (see `Scan::top_desc`): the blocks of
/// the segments are read in descending order of their largest key (from block
/// statistics), a few at a time on rayon, until at least n rows passing the conditions
/// are held and the n-th largest of their keys is above every unread block's largest key:
/// the unread blocks cannot hold any of the first n rows (not even a tie). The rows
/// returned keep table order (segment by segment, block by block), so the executor's
/// stable top-n over them is the top-n over the whole table. In a segment whose key grows
/// with its rows (time series appended in time order) only its last blocks are read.
/// Falls back to `load` when the key is not an integer-like column or a condition is not
/// applied row by row here.
pub fn load_top_desc(h: &TableHandle, names: Option<&[String]>, preds: &[Pred], only: Option<&[String]>, key: &str, n: usize) -> Result<Table> {
    let plan = plan(h, names, preds, only, Apply::Rows)?;
    let meta = &plan.st.meta;
    let c = match meta.col_index(key) {
        Some(c) if !plan.jobs.is_empty() && n > 0 => c,
        _ => return load(h, names, preds, only),
    };
    let ty = meta.types[c];
    let kpos = plan.want.iter().position(|&w| w == c);
    let keyed = (ty.is_integral() || ty.is_temporal()) && ty.decimal_scale().is_none() && ty.array_elem().is_none();
    let Some(kpos) = kpos.filter(|_| keyed) else {
        return load(h, names, preds, only);
    };
    let ub: Vec<Vec<i64>> = plan.jobs.par_iter().map(|j| block_key_max(&plan, j, c)).collect::<Result<_>>()?;
    // (job, block), largest key first; ties in table order
    let mut order: Vec<(usize, usize)> = ub.iter().enumerate().flat_map(|(j, m)| (0..m.len()).map(move |b| (j, b))).collect();
    order.sort_by_key(|&(j, b)| std::cmp::Reverse(ub[j][b]));
    let rank = |u: (usize, usize)| ub[u.0][u.1];
    let nblocks: Vec<usize> = ub.iter().map(|m| m.len()).collect();
    let inexact = AtomicBool::new(false);
    let batch = 2 * rayon::current_num_threads().max(1);
    let mut loaded: Vec<(usize, usize, Vec<Column>)> = Vec::new();
    let mut keys: Vec<i64> = Vec::new();
    let mut next = 0;
    while next < order.len() {
        if keys.len() >= n && !inexact.load(Ordering::Relaxed) {
            keys.select_nth_unstable_by(n - 1, |a, b| b.cmp(a));
            keys.truncate(n);
            if rank(order[next]) < keys[n - 1] {
                break;
            }
        }
        let end = (next + batch).min(order.len());
        let got: Vec<Option<Vec<Column>>> = order[next..end]
            .par_iter()
            .map(|&(k, b)| {
                let j = &plan.jobs[k];
                let mut one = vec![false; nblocks[k]];
                one[b] = true;
                load_segment(&plan.st, &plan.tdir, &meta.parts[j.part].dir, j.seg, &plan.want, &plan.filters[j.filters], true, Some(&inexact), Some(&one), false)
            })
            .collect::<Result<_>>()?;
        for (&(k, b), cols) in order[next..end].iter().zip(got) {
            if let Some(cols) = cols {
                if push_keys(&cols[kpos], &mut keys).is_none() {
                    inexact.store(true, Ordering::Relaxed);
                }
                loaded.push((k, b, cols));
            }
        }
        next = end;
    }
    loaded.sort_unstable_by_key(|&(k, b, _)| (k, b));
    let segs: Vec<Vec<Column>> = loaded.into_iter().map(|(_, _, cols)| cols).collect();
    let types = plan.types();
    let symbols = &meta.symbols;
    let cols: Vec<Column> = types.par_iter().enumerate().map(|(k, ty)| assemble_col(*ty, &segs, k, symbols)).collect();
    let mut t = Table::new(plan.names(), cols)?;
    t.name = Some(h.name.clone());
    Ok(t)
}

/// One table per surviving partition (for per-partition execution, `map` queries).
/// Partitions without a row passing the simple conditions are left out; conditions the
/// partition key decides cost nothing, and unfiltered tables share the cached columns.
/// A segment whose row conditions keep most of its rows (`mostly_kept`) is returned whole
/// (`TableSource::scan` lets a source return rows failing a predicate): the executor
/// evaluates the conditions again and can aggregate under the mask instead of a copy.
///
/// A partition read whole (no condition left for its rows) that has several segments, as
/// a partition appended to by several imports or CSV chunks has, is served like `load`
/// serves a whole table: from its joined columns in the cache (a later query copies
/// nothing), and on a miss its segments are decoded straight into those columns (one
/// allocation per column, no per-segment copy kept beside them).
///
/// `segments` (see `Scan::segments`): a partition whose rows were filtered comes as one
/// table per segment instead of the segments' columns copied into one.
pub fn load_partitions(h: &TableHandle, names: Option<&[String]>, preds: &[Pred], only: Option<&[String]>, segments: bool) -> Result<Vec<Table>> {
    let plan = plan(h, names, preds, only, Apply::Rows)?;
    let (names, types, symbols) = (plan.names(), plan.types(), &plan.st.meta.symbols);
    // the jobs of each partition (consecutive in `plan.jobs`)
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    for (k, j) in plan.jobs.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if plan.jobs[g.start].part == j.part => g.end = k + 1,
            _ => groups.push(k..k + 1),
        }
    }
    // per partition: the key of its joined columns when it is read whole from several segments
    let keys: Vec<Option<Arc<[u64]>>> = groups
        .iter()
        .map(|g| {
            let jobs = &plan.jobs[g.clone()];
            (jobs.len() > 1 && plan.filters[jobs[0].filters].is_empty()).then(|| jobs.iter().map(|j| j.seg).collect())
        })
        .collect();
    let joined: Vec<Option<Vec<Column>>> = groups
        .par_iter()
        .zip(&keys)
        .map(|(g, key)| -> Result<Option<Vec<Column>>> {
            let Some(segs) = key else {
                return Ok(None);
            };
            if let Some(cols) = plan.want.iter().map(|&c| plan.st.joined(c, segs)).collect::<Option<Vec<Column>>>() {
                return Ok(Some(cols));
            }
            let cols = direct_whole(&plan, &plan.jobs[g.clone()])?;
            for (k, c) in cols.iter().flatten().enumerate() {
                plan.st.put_joined(plan.want[k], segs, c);
            }
            Ok(cols)
        })
        .collect::<Result<_>>()?;
    // the other partitions segment by segment (rows filtered), then assembled
    let mut done = vec![false; plan.jobs.len()];
    for (g, cols) in groups.iter().zip(&joined) {
        if cols.is_some() {
            done[g.clone()].fill(true);
        }
    }
    let meta = &plan.st.meta;
    let mut loaded: Vec<Option<Vec<Column>>> = plan
        .jobs
        .par_iter()
        .zip(&done)
        .map(|(j, &d)| {
            if d {
                return Ok(None);
            }
            load_segment(&plan.st, &plan.tdir, &meta.parts[j.part].dir, j.seg, &plan.want, &plan.filters[j.filters], true, None, None, true)
        })
        .collect::<Result<_>>()?;
    let mut out = Vec::with_capacity(groups.len());
    for ((g, key), cols) in groups.iter().zip(&keys).zip(joined) {
        let cols = match cols {
            Some(cols) => cols,
            None => {
                let segs: Vec<Vec<Column>> = loaded[g.clone()].iter_mut().filter_map(Option::take).collect();
                if segs.is_empty() {
                    continue;
                }
                if segments && key.is_none() && segs.len() > 1 {
                    for cols in segs {
                        let mut t = Table::new(names.clone(), cols)?;
                        t.name = Some(h.name.clone());
                        out.push(t);
                    }
                    continue;
                }
                let cols: Vec<Column> = types.iter().enumerate().map(|(k, ty)| assemble_col(*ty, &segs, k, symbols)).collect();
                if let Some(segs) = key {
                    for (k, c) in cols.iter().enumerate() {
                        plan.st.put_joined(plan.want[k], segs, c);
                    }
                }
                cols
            }
        };
        let mut t = Table::new(names.clone(), cols)?;
        t.name = Some(h.name.clone());
        out.push(t);
    }
    Ok(out)
}

/// Group the loaded segments by partition (skipping segments without rows).
fn for_each_part(plan: &Plan, loaded: Vec<Option<Vec<Column>>>, mut f: impl FnMut(Vec<Vec<Column>>) -> Result<()>) -> Result<()> {
    let mut cur: Vec<Vec<Column>> = Vec::new();
    let mut last = usize::MAX;
    for (j, seg) in plan.jobs.iter().zip(loaded) {
        if j.part != last && !cur.is_empty() {
            f(std::mem::take(&mut cur))?;
        }
        last = j.part;
        if let Some(seg) = seg {
            cur.push(seg);
        }
    }
    if !cur.is_empty() {
        f(cur)?;
    }
    Ok(())
}

/// Every row of the partitions that may hold rows satisfying `preds` (pruning only), with
/// each partition's folder and the table version: what update/delete rewrite.
pub fn load_whole_partitions(h: &TableHandle, preds: &[Pred]) -> Result<(u64, Vec<String>, Vec<Table>)> {
    let plan = plan(h, None, preds, None, Apply::Parts)?;
    let loaded = plan.run()?;
    let meta = &plan.st.meta;
    let (names, types) = (plan.names(), plan.types());
    let mut dirs = Vec::new();
    let mut tables = Vec::new();
    let mut last = usize::MAX;
    for j in &plan.jobs {
        if j.part != last {
            dirs.push(meta.parts[j.part].dir.clone());
            last = j.part;
        }
    }
    for_each_part(&plan, loaded, |segs| {
        let cols = types
            .iter()
            .enumerate()
            .map(|(k, ty)| {
                let parts: Vec<&Column> = segs.iter().map(|s| &s[k]).collect();
                crate::store::concat_stored(*ty, &parts, &meta.symbols)
            })
            .collect();
        let mut t = Table::new(names.clone(), cols)?;
        t.name = Some(h.name.clone());
        tables.push(t);
        Ok(())
    })?;
    if dirs.len() != tables.len() {
        return Err(Error::runtime("internal: partitions and their folders differ in number"));
    }
    Ok((meta.version, dirs, tables))
}

/// The number of rows satisfying `preds` when the partition metadata decides it: every
/// predicate tests a VALUE-partitioned column stored with the level's own type against
/// constants, so it holds for all rows of a partition or for none. None otherwise.
pub fn count_rows(h: &TableHandle, preds: &[Pred]) -> Result<Option<u64>> {
    let st = cache::table_state(h.db.dir()?, &h.name)?;
    let meta = &*st.meta;
    if !preds.iter().all(Pred::is_constant_test) {
        return Ok(None);
    }
    let filters = Filter::all(meta, preds)?;
    let mut total = 0u64;
    for p in &meta.parts {
        let mut keep = true;
        for f in &filters {
            match decided(meta, &st.levels, p, f) {
                Some(k) => keep &= k,
                None => return Ok(None),
            }
        }
        if keep {
            total += p.rows();
        }
    }
    Ok(Some(total))
}

/// The partitions that may hold rows satisfying `preds`: kept by pruning on partition
/// keys, and not ruled out by a predicate their key decides.
pub fn partitions(h: &TableHandle, preds: &[Pred]) -> Result<Vec<PartInfo>> {
    let st = cache::table_state(h.db.dir()?, &h.name)?;
    let meta = &*st.meta;
    let filters = Filter::all(meta, preds)?;
    Ok(survivors(meta, &st.levels, &filters).into_iter().map(|p| PartInfo { id: p.dir.clone(), rows: p.rows() }).collect())
}

fn survivors<'a>(meta: &'a TableMeta, levels: &[Level], filters: &[Filter]) -> Vec<&'a PartMeta> {
    let keep = prune(meta, levels, filters);
    meta.parts.iter().zip(&keep).filter(|(p, k)| **k && part_filters(meta, levels, p, filters).is_some()).map(|(p, _)| p).collect()
}

/// For each of `tests`: whether it holds for every row of every partition `load_partitions`
/// returns for `preds`, decided by the partition keys alone (false when no partition
/// survives), so the executor need not evaluate it per partition.
pub fn decided_tests(h: &TableHandle, preds: &[Pred], tests: &[Pred]) -> Result<Vec<bool>> {
    let st = cache::table_state(h.db.dir()?, &h.name)?;
    let meta = &*st.meta;
    let filters = Filter::all(meta, preds)?;
    let survivors = survivors(meta, &st.levels, &filters);
    tests
        .iter()
        .map(|t| {
            let f = Filter::of(meta, t)?;
            Ok(!survivors.is_empty() && survivors.iter().all(|p| decided(meta, &st.levels, p, &f) == Some(true)))
        })
        .collect()
}
