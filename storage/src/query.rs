//! The analysis of `where` conditions for stored tables: partition pruning from conditions
//! on the partitioning columns, block skipping from per-block min/max, and simple
//! conditions (`col op constant`, `between`, `in`, `col op col`) that `load` evaluates per
//! segment in parallel while loading, so only matching rows of the referenced columns are
//! materialised.
//!
//! Only the leading run of row-wise conditions is used (a later condition may depend on
//! the rows an order-sensitive one sees); the SQL executor applies every condition again.

pub use crate::load::{count_rows, load, load_partitions, load_whole_partitions};

use crate::catalog::TableMeta;
use crate::partition::{conform, Level};
use beluga_lang::ast::{BinOp, Expr, ExprKind, UnOp};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::kernels::cmp::{compare, CmpOp};
use beluga_runtime::{DataType, Interpreter, Kind, Value};

/// Drop every cached column and table state (`clearAllCache`).
pub fn clear_cache() {
    crate::cache::clear();
}

/// A condition evaluated while loading.
#[derive(Clone, Debug)]
pub(crate) enum Filter {
    Cmp(usize, CmpOp, Column),
    Between(usize, Column, Column),
    In(usize, Value),
    ColCmp(usize, CmpOp, usize),
}

impl Filter {
    pub(crate) fn cols(&self) -> Vec<usize> {
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

pub(crate) struct Analyzer<'a> {
    pub(crate) meta: &'a TableMeta,
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
    pub(crate) fn row_wise(&self, i: &Interpreter, e: &Expr) -> bool {
        if !self.mentions_column(e) {
            return true;
        }
        match &e.kind {
            ExprKind::Ident(_) | ExprKind::Lit(_) | ExprKind::VecLit(_) => true,
            ExprKind::Unary(UnOp::Neg | UnOp::Not, a) => self.row_wise(i, a),
            ExprKind::Binary(op, a, b) => {
                !matches!(op, BinOp::Join | BinOp::Seq | BinOp::Pair | BinOp::At | BinOp::Dot) && self.row_wise(i, a) && self.row_wise(i, b)
                    || matches!(op, BinOp::Between | BinOp::NotBetween) && self.row_wise(i, a) && !self.mentions_column(b)
            }
            ExprKind::Compare(xs, _) => xs.iter().all(|x| self.row_wise(i, x)),
            ExprKind::IsNull(a, _) => self.row_wise(i, a),
            ExprKind::Call(f, args) => {
                let ExprKind::Ident(name) = &f.kind else {
                    return false;
                };
                if i.functions.contains_key(name) || i.has_var(name) {
                    return false;
                }
                let Some(id) = i.registry.lookup(name) else {
                    return false;
                };
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
    pub(crate) fn filter(&self, i: &mut Interpreter, e: &Expr) -> Option<Filter> {
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
        ExprKind::Unary(_, a) | ExprKind::Member(a, _) | ExprKind::Template(a, _) | ExprKind::Meta(a) | ExprKind::IsNull(a, _) => {
            walk(a, f)
        }
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

pub(crate) fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
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
pub(crate) fn prune(meta: &TableMeta, levels: &[Level], filters: &[Filter]) -> Vec<bool> {
    let mut level_keep: Vec<Option<Vec<bool>>> = vec![None; levels.len()];
    for (l, pc) in meta.part_cols.iter().enumerate() {
        let Some(ci) = meta.col_index(pc) else {
            continue;
        };
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
                    let (Some(a), Some(b)) = (conv(lo), conv(hi)) else {
                        continue;
                    };
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
            let ColData::I8(m) = &*per.data else {
                return None;
            };
            return Some(s.codes.iter().map(|&k| m[k as usize] == 1).collect());
        }
    }
    let r = compare(op, col, false, v, true).ok()?;
    match &*r.data {
        ColData::I8(m) => Some(m.iter().map(|&b| b == 1).collect()),
        _ => None,
    }
}

pub(crate) fn filter_mask(f: &Filter, cols: &[Option<Column>]) -> Option<Vec<bool>> {
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
                    let names =
                        Value::Vector(Column::new(DataType::String, ColData::Str(StrCol::from_iter(s.dict.names.iter().map(|n| &**n)))));
                    let per = beluga_runtime::eval::ops::in_values(&names, v).ok()?;
                    let ColData::I8(m) = &*per.column()?.data else {
                        return None;
                    };
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
pub(crate) fn block_keep(f: &Filter, ty: DataType, blocks: &[crate::column_file::BlockMeta]) -> Option<Vec<bool>> {
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
