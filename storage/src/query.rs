//! Reading stored tables for queries: partition pruning from `where` conditions on the
//! partitioning columns, block skipping from per-block min/max, and simple conditions
//! (`col op constant`, `between`, `in`, `col op col`) evaluated per segment in parallel
//! while loading, so only matching rows of the referenced columns are materialised.
//!
//! Only the leading run of row-wise conditions is used (a later condition may depend on
//! the rows an order-sensitive one sees); the SQL executor applies every condition again.

use crate::catalog::{self, TableMeta};
use crate::handle::TableHandle;
use crate::partition::{conform, Level};
use beluga_lang::ast::{BinOp, Expr, ExprKind, UnOp};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::kernels::cmp::{compare, CmpOp};
use beluga_runtime::{DataType, Error, Interpreter, Kind, Result, Table, Value};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A condition evaluated while loading.
#[derive(Clone, Debug)]
enum Filter {
    Cmp(usize, CmpOp, Column),
    Between(usize, Column, Column),
    In(usize, Value),
    ColCmp(usize, CmpOp, usize),
}

impl Filter {
    fn cols(&self) -> Vec<usize> {
        match self {
            Filter::Cmp(c, ..) | Filter::Between(c, ..) | Filter::In(c, _) => vec![*c],
            Filter::ColCmp(a, _, b) => vec![*a, *b],
        }
    }
}

fn cmp_op(op: BinOp) -> Option<CmpOp> {
    Some(match op {
        BinOp::Lt => CmpOp::Lt,
        BinOp::Le => CmpOp::Le,
        BinOp::Gt => CmpOp::Gt,
        BinOp::Ge => CmpOp::Ge,
        BinOp::Eq => CmpOp::Eq,
        BinOp::Ne => CmpOp::Ne,
        _ => return None,
    })
}

fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        o => o,
    }
}

struct Analyzer<'a> {
    meta: &'a TableMeta,
}

impl Analyzer<'_> {
    fn column_of(&self, e: &Expr) -> Option<usize> {
        match &e.kind {
            ExprKind::Ident(n) => self.meta.col_index(n),
            _ => None,
        }
    }

    fn mentions_column(&self, e: &Expr) -> bool {
        let mut found = false;
        walk(e, &mut |x| {
            if let ExprKind::Ident(n) = &x.kind {
                if self.meta.col_index(n).is_some() {
                    found = true;
                }
            }
            if matches!(x.kind, ExprKind::Select(_) | ExprKind::Star | ExprKind::Lambda(_)) {
                found = true;
            }
        });
        found
    }

    /// True when the condition maps each row to a value independently of other rows.
    fn row_wise(&self, i: &Interpreter, e: &Expr) -> bool {
        if !self.mentions_column(e) {
            return true;
        }
        match &e.kind {
            ExprKind::Ident(_) | ExprKind::Lit(_) | ExprKind::VecLit(_) => true,
            ExprKind::Unary(UnOp::Neg | UnOp::Not, a) => self.row_wise(i, a),
            ExprKind::Binary(op, a, b) => {
                !matches!(op, BinOp::Join | BinOp::Seq | BinOp::Pair | BinOp::At | BinOp::Dot)
                    && self.row_wise(i, a)
                    && self.row_wise(i, b)
                    || matches!(op, BinOp::Between | BinOp::NotBetween) && self.row_wise(i, a) && !self.mentions_column(b)
            }
            ExprKind::Compare(xs, _) => xs.iter().all(|x| self.row_wise(i, x)),
            ExprKind::IsNull(a, _) => self.row_wise(i, a),
            ExprKind::Call(f, args) => {
                let ExprKind::Ident(name) = &f.kind else { return false };
                if i.functions.contains_key(name) || i.has_var(name) {
                    return false;
                }
                let Some(id) = i.registry.lookup(name) else { return false };
                i.registry.get(id).kind == Kind::Elementwise
                    && args.iter().all(|a| match a {
                        beluga_lang::ast::Arg::Pos(Some(x)) | beluga_lang::ast::Arg::Named(_, x) => self.row_wise(i, x),
                        beluga_lang::ast::Arg::Pos(None) => false,
                    })
            }
            _ => false,
        }
    }

    fn constant(&self, i: &mut Interpreter, e: &Expr) -> Option<Value> {
        if self.mentions_column(e) {
            return None;
        }
        i.eval(e).ok()
    }

    fn scalar(&self, i: &mut Interpreter, e: &Expr) -> Option<Column> {
        match self.constant(i, e)? {
            Value::Scalar(c) => Some(c),
            _ => None,
        }
    }

    /// A loading filter for one conjunct, if it has a simple shape.
    fn filter(&self, i: &mut Interpreter, e: &Expr) -> Option<Filter> {
        match &e.kind {
            ExprKind::Binary(op, a, b) => {
                if let Some(cop) = cmp_op(*op) {
                    match (self.column_of(a), self.column_of(b)) {
                        (Some(x), Some(y)) => return Some(Filter::ColCmp(x, cop, y)),
                        (Some(x), None) => return self.scalar(i, b).map(|c| Filter::Cmp(x, cop, c)),
                        (None, Some(y)) => return self.scalar(i, a).map(|c| Filter::Cmp(y, flip(cop), c)),
                        _ => return None,
                    }
                }
                match op {
                    BinOp::Between => {
                        let x = self.column_of(a)?;
                        let ExprKind::Binary(BinOp::Pair, lo, hi) = &b.kind else {
                            let v = self.constant(i, b)?;
                            let c = v.column()?.clone();
                            if c.len() != 2 {
                                return None;
                            }
                            return Some(Filter::Between(x, c.slice(0, 1), c.slice(1, 2)));
                        };
                        Some(Filter::Between(x, self.scalar(i, lo)?, self.scalar(i, hi)?))
                    }
                    BinOp::In => {
                        let x = self.column_of(a)?;
                        let v = self.constant(i, b)?;
                        match v {
                            Value::Vector(_) | Value::Scalar(_) | Value::Set(_) => Some(Filter::In(x, v)),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

pub fn walk(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, a) | ExprKind::Member(a, _) | ExprKind::Template(a, _) | ExprKind::Meta(a) | ExprKind::IsNull(a, _) => walk(a, f),
        ExprKind::Binary(_, a, b) => {
            walk(a, f);
            walk(b, f);
        }
        ExprKind::Vector(xs) | ExprKind::Tuple(xs) | ExprKind::Compare(xs, _) => xs.iter().for_each(|x| walk(x, f)),
        ExprKind::Dict(kv) => kv.iter().for_each(|(k, v)| {
            walk(k, f);
            walk(v, f);
        }),
        ExprKind::Infix(a, b, c) | ExprKind::Ternary(a, b, c) => {
            walk(a, f);
            walk(b, f);
            walk(c, f);
        }
        ExprKind::OpenPair(a, b) => {
            if let Some(a) = a {
                walk(a, f);
            }
            if let Some(b) = b {
                walk(b, f);
            }
        }
        ExprKind::Call(g, args) | ExprKind::Partial(g, args) | ExprKind::Method(g, _, args) => {
            walk(g, f);
            for a in args {
                match a {
                    beluga_lang::ast::Arg::Pos(Some(x)) | beluga_lang::ast::Arg::Named(_, x) => walk(x, f),
                    beluga_lang::ast::Arg::Pos(None) => {}
                }
            }
        }
        ExprKind::Index(a, xs) => {
            walk(a, f);
            xs.iter().flatten().for_each(|x| walk(x, f));
        }
        ExprKind::Case(ws, e2) => {
            for (a, b) in ws {
                walk(a, f);
                walk(b, f);
            }
            if let Some(x) = e2 {
                walk(x, f);
            }
        }
        _ => {}
    }
}

fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        ExprKind::Compare(xs, ops) => {
            for k in 0..ops.len() {
                out.push(Expr::new(ExprKind::Binary(ops[k], Box::new(xs[k].clone()), Box::new(xs[k + 1].clone())), e.span));
            }
        }
        _ => out.push(e.clone()),
    }
}

fn dated(t: DataType) -> bool {
    matches!(t, DataType::Date | DataType::DateHour | DataType::DateTime | DataType::Timestamp | DataType::NanoTimestamp)
}

/// May a constant of type `c` prune a partitioning column of type `col`?
fn prunable(col: DataType, c: DataType) -> bool {
    col == c
        || (col.is_literal() && c.is_literal())
        || (dated(col) && dated(c))
        || (col.is_integral() && c.is_integral() && !col.is_temporal() && !c.is_temporal())
}

/// Partitions kept by the filters on partitioning columns.
fn prune(meta: &TableMeta, levels: &[Level], filters: &[Filter]) -> Vec<bool> {
    let mut level_keep: Vec<Option<Vec<bool>>> = vec![None; levels.len()];
    for (l, pc) in meta.part_cols.iter().enumerate() {
        let Some(ci) = meta.col_index(pc) else { continue };
        let Some(level) = levels.get(l) else { continue };
        let col_ty = meta.types[ci];
        let key_ty = level.key_type();
        let conv = |c: &Column| -> Option<Column> {
            if !prunable(col_ty, c.ty) {
                return None;
            }
            let c = if c.ty.is_temporal() && col_ty.is_temporal() && c.ty != col_ty {
                beluga_runtime::kernels::temporal_to(c, col_ty).ok()?
            } else {
                c.clone()
            };
            conform(&c, key_ty, pc).ok()
        };
        for f in filters {
            let keep = match f {
                Filter::Cmp(c, op, v) if *c == ci && !v.is_null(0) => {
                    let Some(k) = conv(v) else { continue };
                    match op {
                        CmpOp::Eq => level.prune_in(&k),
                        CmpOp::Lt | CmpOp::Le => level.prune_range(None, Some(&k)),
                        CmpOp::Gt | CmpOp::Ge => level.prune_range(Some(&k), None),
                        CmpOp::Ne => continue,
                    }
                }
                Filter::Between(c, lo, hi) if *c == ci && !lo.is_null(0) => {
                    let (Some(a), Some(b)) = (conv(lo), conv(hi)) else { continue };
                    level.prune_range(Some(&a), if hi.is_null(0) { None } else { Some(&b) })
                }
                Filter::In(c, v) if *c == ci => {
                    let col = match v {
                        Value::Vector(c) | Value::Scalar(c) => c.clone(),
                        Value::Set(s) => s.items.clone(),
                        _ => continue,
                    };
                    if col.is_empty() {
                        Ok(vec![false; level.count()])
                    } else {
                        let Some(k) = conv(&col) else { continue };
                        level.prune_in(&k)
                    }
                }
                _ => continue,
            };
            let Ok(keep) = keep else { continue };
            let slot = &mut level_keep[l];
            *slot = Some(match slot.take() {
                None => keep,
                Some(old) => old.iter().zip(&keep).map(|(a, b)| *a && *b).collect(),
            });
        }
    }
    meta.parts
        .iter()
        .map(|p| {
            p.key.iter().enumerate().all(|(l, &k)| match &level_keep.get(l) {
                Some(Some(m)) => m.get(k as usize).copied().unwrap_or(true),
                _ => true,
            })
        })
        .collect()
}

/// Rows of `col` satisfying `op` against a scalar (same semantics as the SQL comparison).
fn cmp_mask(col: &Column, op: CmpOp, v: &Column) -> Option<Vec<bool>> {
    if let ColData::Sym(s) = &*col.data {
        if v.ty.is_literal() && s.dict.names.len() < col.len() {
            let names = Column::new(DataType::String, ColData::Str(StrCol::from_iter(s.dict.names.iter().map(|n| &**n))));
            let per = compare(op, &names, false, v, true).ok()?;
            let ColData::I8(m) = &*per.data else { return None };
            return Some(s.codes.iter().map(|&k| m[k as usize] == 1).collect());
        }
    }
    let r = compare(op, col, false, v, true).ok()?;
    match &*r.data {
        ColData::I8(m) => Some(m.iter().map(|&b| b == 1).collect()),
        _ => None,
    }
}

fn filter_mask(f: &Filter, cols: &[Option<Column>]) -> Option<Vec<bool>> {
    match f {
        Filter::Cmp(c, op, v) => cmp_mask(cols[*c].as_ref()?, *op, v),
        Filter::Between(c, lo, hi) => {
            let col = cols[*c].as_ref()?;
            let a = cmp_mask(col, CmpOp::Ge, lo)?;
            let b = cmp_mask(col, CmpOp::Le, hi)?;
            Some(a.iter().zip(&b).map(|(x, y)| *x && *y).collect())
        }
        Filter::In(c, v) => {
            let col = cols[*c].as_ref()?;
            if let ColData::Sym(s) = &*col.data {
                if s.dict.names.len() < col.len() {
                    let names = Value::Vector(Column::new(DataType::String, ColData::Str(StrCol::from_iter(s.dict.names.iter().map(|n| &**n)))));
                    let per = beluga_runtime::eval::ops::in_values(&names, v).ok()?;
                    let ColData::I8(m) = &*per.column()?.data else { return None };
                    return Some(s.codes.iter().map(|&k| m[k as usize] == 1).collect());
                }
            }
            let r = beluga_runtime::eval::ops::in_values(&Value::Vector(col.clone()), v).ok()?;
            match &*r.column()?.data {
                ColData::I8(m) if m.len() == col.len() => Some(m.iter().map(|&b| b == 1).collect()),
                _ => None,
            }
        }
        Filter::ColCmp(a, op, b) => {
            let r = compare(*op, cols[*a].as_ref()?, false, cols[*b].as_ref()?, false).ok()?;
            match &*r.data {
                ColData::I8(m) => Some(m.iter().map(|&b| b == 1).collect()),
                _ => None,
            }
        }
    }
}

/// Blocks of a file that may satisfy a filter, from their min/max.
fn block_keep(f: &Filter, ty: DataType, blocks: &[crate::column_file::BlockMeta]) -> Option<Vec<bool>> {
    let as_key = |v: &Column| -> Option<i64> {
        if v.is_null(0) || v.ty != ty {
            return None;
        }
        if ty.is_floating() {
            return v.f64_at(0).map(|x| x.to_bits() as i64);
        }
        if ty.is_integral() || ty.is_temporal() {
            return v.i64_at(0);
        }
        None
    };
    let within = |b: &crate::column_file::BlockMeta, lo: Option<i64>, hi: Option<i64>| -> bool {
        if !b.has_stats {
            return true;
        }
        if ty.is_floating() {
            let (mn, mx) = (f64::from_bits(b.min as u64), f64::from_bits(b.max as u64));
            lo.is_none_or(|l| mx >= f64::from_bits(l as u64)) && hi.is_none_or(|h| mn <= f64::from_bits(h as u64))
        } else {
            lo.is_none_or(|l| b.max >= l) && hi.is_none_or(|h| b.min <= h)
        }
    };
    let (lo, hi) = match f {
        Filter::Cmp(_, CmpOp::Eq, v) => (Some(as_key(v)?), Some(as_key(v)?)),
        Filter::Cmp(_, CmpOp::Gt | CmpOp::Ge, v) => (Some(as_key(v)?), None),
        Filter::Between(_, lo, hi) => (Some(as_key(lo)?), Some(as_key(hi)?)),
        _ => return None,
    };
    Some(blocks.iter().map(|b| within(b, lo, hi)).collect())
}

/// A decoded column file: the column and its block directory.
struct Decoded {
    col: Column,
    blocks: Vec<crate::column_file::BlockMeta>,
}

impl Decoded {
    /// Rows of the kept blocks.
    fn rows(&self, keep: Option<&[bool]>) -> Column {
        let Some(keep) = keep else { return self.col.clone() };
        if keep.iter().all(|&k| k) {
            return self.col.clone();
        }
        let mut idx = Vec::new();
        let mut start = 0usize;
        for (b, &k) in self.blocks.iter().zip(keep) {
            let n = b.rows as usize;
            if k {
                idx.extend(start..start + n);
            }
            start += n;
        }
        self.col.take_usize(&idx)
    }
}

type CacheKey = (PathBuf, u64, i128);

/// Decoded column files kept in memory between queries (files are immutable once
/// written; the key includes size and modification time). Budget: `BELUGA_CACHE_MB`.
struct Cache {
    map: ahash::AHashMap<CacheKey, Arc<Decoded>>,
    order: std::collections::VecDeque<(CacheKey, usize)>,
    bytes: usize,
    budget: usize,
}

static CACHE: std::sync::OnceLock<std::sync::Mutex<Cache>> = std::sync::OnceLock::new();

fn cache() -> &'static std::sync::Mutex<Cache> {
    CACHE.get_or_init(|| {
        let mb = std::env::var("BELUGA_CACHE_MB").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(4096);
        std::sync::Mutex::new(Cache { map: Default::default(), order: Default::default(), bytes: 0, budget: mb << 20 })
    })
}

fn col_bytes(c: &Column) -> usize {
    match &*c.data {
        ColData::Str(s) => s.bytes.len() + s.offsets.len() * 8,
        ColData::Sym(s) => s.codes.len() * 4,
        ColData::I8(v) => v.len(),
        ColData::I16(v) => v.len() * 2,
        ColData::I32(_) | ColData::F32(_) => c.len() * 4,
        ColData::I128(v) => v.len() * 16,
        _ => c.len() * 8,
    }
}

/// Drop every cached column (after writes the keys change anyway; this frees memory).
pub fn clear_cache() {
    if let Ok(mut c) = cache().lock() {
        c.map.clear();
        c.order.clear();
        c.bytes = 0;
    }
    if let Ok(mut m) = valid().lock() {
        m.clear();
    }
}

/// Table version and manifest time under which a column path was last checked: files are
/// immutable while the manifest is unchanged, so a query over the same version skips the
/// per-file `stat`.
type Epoch = (u64, i128);

static VALID: std::sync::OnceLock<std::sync::Mutex<ahash::AHashMap<PathBuf, (Epoch, CacheKey)>>> = std::sync::OnceLock::new();

fn valid() -> &'static std::sync::Mutex<ahash::AHashMap<PathBuf, (Epoch, CacheKey)>> {
    VALID.get_or_init(Default::default)
}

fn decoded(p: &Path, sym: &Arc<beluga_runtime::column::SymbolDict>, epoch: Option<Epoch>) -> Result<Arc<Decoded>> {
    if let Some(ep) = epoch {
        let key = valid().lock().ok().and_then(|m| m.get(p).filter(|(e, _)| *e == ep).map(|(_, k)| k.clone()));
        if let Some(d) = key.and_then(|k| cache().lock().ok().and_then(|c| c.map.get(&k).cloned())) {
            return Ok(d);
        }
    }
    let (d, key) = decoded_checked(p, sym)?;
    if let (Some(ep), Ok(mut m)) = (epoch, valid().lock()) {
        m.insert(p.to_path_buf(), (ep, key));
    }
    Ok(d)
}

fn decoded_checked(p: &Path, sym: &Arc<beluga_runtime::column::SymbolDict>) -> Result<(Arc<Decoded>, CacheKey)> {
    // the column lives in its segment file (or a per-column file of an older database)
    let (len, mtime) = crate::segment::stamp(p)?;
    let key: CacheKey = (p.to_path_buf(), len, mtime);
    if let Some(d) = cache().lock().ok().and_then(|c| c.map.get(&key).cloned()) {
        return Ok((d, key));
    }
    let file = crate::segment::open_column(p)?;
    let col = file.decode(None, Some(sym))?;
    let d = Arc::new(Decoded { col, blocks: file.blocks });
    cache_put(key.clone(), d.clone());
    Ok((d, key))
}

fn cache_put(key: CacheKey, d: Arc<Decoded>) {
    if let Ok(mut c) = cache().lock() {
        let size = col_bytes(&d.col);
        if size <= c.budget {
            while c.bytes + size > c.budget {
                match c.order.pop_front() {
                    Some((k, s)) => {
                        c.map.remove(&k);
                        c.bytes -= s;
                    }
                    None => break,
                }
            }
            if c.map.insert(key.clone(), d.clone()).is_none() {
                c.order.push_back((key, size));
                c.bytes += size;
            }
        }
    }
}

fn block_keep_of(f: &Filter, d: &Decoded) -> Option<Vec<bool>> {
    block_keep(f, d.col.ty, &d.blocks)
}

/// Load one segment: filter columns first (skipping blocks by min/max), then the others.
fn load_segment(
    tdir: &Path,
    meta: &TableMeta,
    part: &str,
    seg: u64,
    want: &[usize],
    filters: &[Filter],
    epoch: Option<Epoch>,
) -> Result<Option<Vec<Column>>> {
    let path = |c: usize| -> PathBuf { catalog::col_file(tdir, part, seg, c) };
    let mut files: Vec<Option<Arc<Decoded>>> = (0..meta.names.len()).map(|_| None).collect();
    let mut keep: Option<Vec<bool>> = None;
    for f in filters {
        for c in f.cols() {
            if files[c].is_none() {
                files[c] = Some(decoded(&path(c), &meta.symbols, epoch)?);
            }
        }
        if let Some(k) = files[f.cols()[0]].as_ref().and_then(|d| block_keep_of(f, d)) {
            keep = Some(match keep {
                None => k,
                Some(old) => old.iter().zip(&k).map(|(a, b)| *a && *b).collect(),
            });
        }
    }
    if keep.as_ref().is_some_and(|k| !k.iter().any(|&b| b)) {
        return Ok(None);
    }
    let mut cols: Vec<Option<Column>> = (0..meta.names.len()).map(|_| None).collect();
    let mut mask: Option<Vec<bool>> = None;
    for f in filters {
        for c in f.cols() {
            if cols[c].is_none() {
                let d = files[c].as_ref().ok_or_else(|| Error::runtime("internal: filter column not read"))?;
                cols[c] = Some(d.rows(keep.as_deref()));
            }
        }
        if let Some(m) = filter_mask(f, &cols) {
            mask = Some(match mask {
                None => m,
                Some(old) => old.iter().zip(&m).map(|(a, b)| *a && *b).collect(),
            });
        }
    }
    if mask.as_ref().is_some_and(|m| !m.iter().any(|&b| b)) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(want.len());
    for &c in want {
        let col = match cols[c].take() {
            Some(col) => col,
            None => {
                let d = match files[c].take() {
                    Some(d) => d,
                    None => decoded(&path(c), &meta.symbols, epoch)?,
                };
                d.rows(keep.as_deref())
            }
        };
        out.push(match &mask {
            Some(m) if m.iter().any(|b| !b) => col.filter(m),
            _ => col,
        });
    }
    Ok(Some(out))
}

fn empty_column(ty: DataType, symbols: &Arc<beluga_runtime::column::SymbolDict>) -> Column {
    if ty == DataType::Symbol {
        return Column::new(ty, ColData::Sym(beluga_runtime::column::SymCol { codes: vec![], dict: symbols.clone() }));
    }
    Column::nulls(ty, 0)
}

/// Materialise the referenced columns of the rows that may satisfy `conds`.
pub fn load(i: &mut Interpreter, h: &TableHandle, names: Option<&[String]>, conds: &[Expr]) -> Result<Table> {
    let loaded = load_parts(i, h, names, conds, true)?;
    let (names, types, symbols, parts) = (&loaded.names, &loaded.types, &loaded.symbols, &loaded.parts);
    let mut cols = Vec::with_capacity(names.len());
    for (k, ty) in types.iter().enumerate() {
        // whole columns of a table version are kept too, so full scans copy nothing
        let key: Option<CacheKey> =
            loaded.complete.then(|| (loaded.tdir.join(format!("@{}", loaded.cols[k])), loaded.version, loaded.stamp));
        if let Some(d) = key.as_ref().and_then(|key| cache().lock().ok().and_then(|c| c.map.get(key).cloned())) {
            cols.push(d.col.clone());
            continue;
        }
        let segs: Vec<&Column> = parts.iter().flat_map(|p| p.iter().map(move |s| &s[k])).collect();
        let col = match segs.len() {
            0 => empty_column(*ty, symbols),
            1 => segs[0].clone(),
            _ => crate::store::concat_stored(*ty, &segs, symbols),
        };
        if let Some(key) = key {
            cache_put(key, Arc::new(Decoded { col: col.clone(), blocks: vec![] }));
        }
        cols.push(col);
    }
    let names = names.clone();
    let mut t = Table::new(names, cols)?;
    t.name = Some(h.name.clone());
    Ok(t)
}

/// The loaded rows per surviving partition (each a list of segments of columns).
pub struct Parts {
    pub names: Vec<String>,
    /// column indices in the table
    pub cols: Vec<usize>,
    /// every row of the table version was loaded (no filter, no pruning)
    pub complete: bool,
    pub version: u64,
    /// modification time of the manifest (tells recreated tables apart)
    pub stamp: i128,
    pub tdir: PathBuf,
    pub types: Vec<DataType>,
    pub symbols: Arc<beluga_runtime::column::SymbolDict>,
    pub parts: Vec<Vec<Vec<Column>>>,
    /// folder of every entry of `parts`
    pub dirs: Vec<String>,
}

/// One table per surviving partition (for per-partition execution, `map` queries).
pub fn load_partitions(i: &mut Interpreter, h: &TableHandle, names: Option<&[String]>, conds: &[Expr]) -> Result<Vec<Table>> {
    let parts = load_parts(i, h, names, conds, true)?;
    let mut out = Vec::with_capacity(parts.parts.len());
    for p in &parts.parts {
        let cols = parts
            .types
            .iter()
            .enumerate()
            .map(|(k, ty)| {
                let segs: Vec<&Column> = p.iter().map(|s| &s[k]).collect();
                // one segment whose symbols already use the table's dictionary: no copy
                let shared_dict = match segs.first().map(|c| &*c.data) {
                    Some(ColData::Sym(s)) => Arc::ptr_eq(&s.dict, &parts.symbols),
                    _ => true,
                };
                if segs.len() == 1 && shared_dict {
                    return segs[0].clone();
                }
                crate::store::concat_stored(*ty, &segs, &parts.symbols)
            })
            .collect();
        let mut t = Table::new(parts.names.clone(), cols)?;
        t.name = Some(h.name.clone());
        out.push(t);
    }
    Ok(out)
}

/// Every row of the partitions that may hold rows satisfying `conds` (pruning only), with
/// each partition's folder and the table version: what update/delete rewrite.
pub fn load_whole_partitions(i: &mut Interpreter, h: &TableHandle, conds: &[Expr]) -> Result<(u64, Vec<String>, Vec<Table>)> {
    let loaded = load_parts(i, h, None, conds, false)?;
    let mut tables = Vec::with_capacity(loaded.parts.len());
    for p in &loaded.parts {
        let cols = loaded
            .types
            .iter()
            .enumerate()
            .map(|(k, ty)| {
                let segs: Vec<&Column> = p.iter().map(|s| &s[k]).collect();
                crate::store::concat_stored(*ty, &segs, &loaded.symbols)
            })
            .collect();
        let mut t = Table::new(loaded.names.clone(), cols)?;
        t.name = Some(h.name.clone());
        tables.push(t);
    }
    Ok((loaded.version, loaded.dirs, tables))
}

/// `row_filter`: apply the simple conditions to rows while loading (else they only prune).
fn load_parts(i: &mut Interpreter, h: &TableHandle, names: Option<&[String]>, conds: &[Expr], row_filter: bool) -> Result<Parts> {
    let dir = h.db.dir()?.clone();
    let meta = h.meta()?;
    let levels = if meta.part_cols.is_empty() { Vec::new() } else { h.db.levels()? };
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
    // leading row-wise conditions
    let an = Analyzer { meta: &meta };
    let mut filters = Vec::new();
    let mut parts_of = Vec::new();
    for c in conds {
        conjuncts(c, &mut parts_of);
    }
    for c in &parts_of {
        if !an.row_wise(i, c) {
            break;
        }
        if let Some(f) = an.filter(i, c) {
            filters.push(f);
        }
    }
    let keep = prune(&meta, &levels, &filters);
    let tdir = catalog::table_dir(&dir, &h.name);
    let jobs: Vec<(usize, &str, u64)> = meta
        .parts
        .iter()
        .enumerate()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .flat_map(|((pi, p), _)| p.segs.iter().map(move |s| (pi, p.dir.as_str(), s.id)))
        .collect();
    let stamp = std::fs::metadata(tdir.join(format!("manifest.{}", meta.version)))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(-1);
    let epoch = (stamp != -1).then_some((meta.version, stamp));
    let seg_filters: &[Filter] = if row_filter { &filters } else { &[] };
    let loaded: Vec<Option<Vec<Column>>> =
        jobs.par_iter().map(|(_, p, s)| load_segment(&tdir, &meta, p, *s, &want, seg_filters, epoch)).collect::<Result<_>>()?;
    let mut dirs: Vec<String> = Vec::new();
    let mut parts: Vec<Vec<Vec<Column>>> = Vec::new();
    let mut last = usize::MAX;
    for ((pi, _, _), seg) in jobs.iter().zip(loaded) {
        let Some(seg) = seg else { continue };
        if *pi != last {
            parts.push(Vec::new());
            dirs.push(meta.parts[*pi].dir.clone());
            last = *pi;
        }
        if let Some(p) = parts.last_mut() {
            p.push(seg);
        }
    }
    let complete = filters.is_empty() && keep.iter().all(|&k| k);
    let complete = complete && stamp != -1;
    Ok(Parts {
        names: want.iter().map(|&c| meta.names[c].clone()).collect(),
        cols: want.clone(),
        complete,
        version: meta.version,
        stamp,
        tdir,
        types: want.iter().map(|&c| meta.types[c]).collect(),
        symbols: meta.symbols.clone(),
        parts,
        dirs,
    })
}

/// The number of rows satisfying `conds` when the partition metadata decides it: every
/// condition is a simple filter on a VALUE-partitioned column stored with the level's
/// own type, so it holds for all rows of a partition or for none. None otherwise.
pub fn count_rows(i: &mut Interpreter, h: &TableHandle, conds: &[Expr]) -> Result<Option<u64>> {
    let meta = h.meta()?;
    let levels = if meta.part_cols.is_empty() { Vec::new() } else { h.db.levels()? };
    // column index → partition level
    let level_of = |c: usize| -> Option<usize> {
        meta.part_cols.iter().position(|p| meta.col_index(p) == Some(c)).filter(|&l| match levels.get(l) {
            Some(Level::Value(v)) => v.ty == meta.types[c],
            _ => false,
        })
    };
    let an = Analyzer { meta: &meta };
    let mut parts_of = Vec::new();
    for c in conds {
        conjuncts(c, &mut parts_of);
    }
    let mut filters = Vec::with_capacity(parts_of.len());
    for c in &parts_of {
        if !an.row_wise(i, c) {
            return Ok(None);
        }
        match an.filter(i, c) {
            Some(f @ (Filter::Cmp(..) | Filter::Between(..) | Filter::In(..))) if level_of(f.cols()[0]).is_some() => filters.push(f),
            _ => return Ok(None),
        }
    }
    let mut total = 0u64;
    let mut cols: Vec<Option<Column>> = vec![None; meta.names.len()];
    for p in &meta.parts {
        let mut keep = true;
        for f in &filters {
            let c = f.cols()[0];
            let Some(l) = level_of(c) else { return Ok(None) };
            let (Some(Level::Value(vals)), Some(&k)) = (levels.get(l), p.key.get(l)) else { return Ok(None) };
            let k = k as usize;
            if k >= vals.len() {
                return Ok(None);
            }
            cols[c] = Some(vals.slice(k, k + 1));
            match filter_mask(f, &cols) {
                Some(m) if m.len() == 1 => keep &= m[0],
                _ => return Ok(None),
            }
        }
        if keep {
            total += p.rows();
        }
    }
    Ok(Some(total))
}
