//! Evaluation of select items over groups, shared by `group by` (one value per group) and
//! `context by` (one value per row).
//!
//! An item is evaluated in the cheapest way that is exact:
//! 1. a grouping key → the key column;
//! 2. "lifting": every aggregate call whose argument is row-wise is computed for all
//!    groups at once by a group-wise kernel (and, for context by, every vector function
//!    call by a segmented kernel), replaced by a placeholder column, and the remaining
//!    expression — which must then be row-wise — runs once on whole columns;
//! 3. otherwise the item runs once per group on slices of a permuted frame.

use super::frame::{eval_in, to_column, ColBuilder, Frame, Scope};
use super::keys::bucket_perm;
use super::plan::{self, is_aggregate_call, is_rowwise, plain_callee, text, COUNT_STAR};
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::registry::Kind;
use crate::types::DataType;
use crate::value::Value;
use ahash::AHashSet;
use beluga_lang::ast::{Arg, Expr, ExprKind};

use crate::registry::SegmentedKernel;

/// Run a segmented kernel over runs of whole segments in parallel (split by row count)
/// and concatenate the parts; segments are independent, so the result is the same as one
/// call over all of them.
fn segmented_parallel(kernel: SegmentedKernel, col: &Column, vals: &[Value], seg: &[usize]) -> Option<Result<Column>> {
    use rayon::prelude::*;
    let rows = seg.last().copied().unwrap_or(0);
    let parts = super::par::chunks_for(rows);
    if parts == 1 || seg.len() < 3 {
        return kernel(col, vals, seg);
    }
    // cut points: segment boundaries nearest to equal row shares
    let mut cuts = vec![0usize];
    for p in 1..parts {
        let target = rows * p / parts;
        let k = seg.partition_point(|&o| o < target).min(seg.len() - 1);
        if k > *cuts.last().unwrap_or(&0) {
            cuts.push(k);
        }
    }
    if *cuts.last().unwrap_or(&0) < seg.len() - 1 {
        cuts.push(seg.len() - 1);
    }
    let outs: Vec<Option<Result<Column>>> = cuts.par_windows(2).map(|w| kernel(col, vals, &seg[w[0]..=w[1]])).collect();
    let mut cols = Vec::with_capacity(outs.len());
    for o in outs {
        match o? {
            Ok(c) => cols.push(c),
            Err(e) => return Some(Err(e)),
        }
    }
    let ty = cols.first()?.ty;
    if cols.iter().any(|c| c.ty != ty) {
        // parts disagree on the result type (e.g. all-null parts): one sequential call
        return kernel(col, vals, seg);
    }
    let refs: Vec<&Column> = cols.iter().collect();
    Some(Ok(Column::concat(ty, &refs)))
}

/// The argument count check of a row called through its segmented kernel (the message
/// the window families' `context by` kernels have always given).
fn context_arity(b: &crate::registry::Builtin, n: usize) -> Result<()> {
    if n < b.min as usize || (b.max != u8::MAX && n > b.max as usize) {
        return Err(Error::new(
            crate::error::ErrorKind::Arity,
            format!("The function [{}] expects {}~{} argument(s), but the actual number of arguments is: {n}", b.name, b.min, b.max),
        ));
    }
    Ok(())
}

/// A grouping key: its result name, canonical expression text and group-level values.
pub(crate) struct KeyCol {
    pub name: String,
    pub text: String,
    pub col: Column,
}

pub(crate) struct GroupEval<'a> {
    /// Rows of the query (for context by: permuted so groups are contiguous).
    pub frame: &'a Frame,
    pub gid: &'a [u32],
    pub n: usize,
    pub keys: &'a [KeyCol],
    /// Context by: results have one value per row, aggregates are broadcast.
    pub row_level: bool,
    /// Segment offsets when the frame's groups are contiguous (n + 1 entries).
    pub segments: Option<Vec<usize>>,
    /// Extra group-level bindings (result columns, for having/order by).
    pub extra: Scope,
    /// Permutation making groups contiguous (computed on first per-group evaluation).
    perm: Option<Vec<usize>>,
    bindings: Scope,
    counter: usize,
}

impl<'a> GroupEval<'a> {
    pub fn new(frame: &'a Frame, gid: &'a [u32], n: usize, keys: &'a [KeyCol], row_level: bool, segments: Option<Vec<usize>>) -> GroupEval<'a> {
        GroupEval {
            frame,
            gid,
            n,
            keys,
            row_level,
            segments,
            extra: Scope::new(),
            perm: None,
            bindings: Scope::new(),
            counter: 0,
        }
    }

    /// Output length of one item.
    fn out_len(&self) -> usize {
        if self.row_level {
            self.frame.rows
        } else {
            self.n
        }
    }

    fn bind(&mut self, c: Column) -> Expr {
        let name = format!("__g{}", self.counter);
        self.counter += 1;
        self.bindings.insert(name.clone(), Value::of_column(c));
        Expr::new(ExprKind::Ident(name), Default::default())
    }

    fn key_match(&self, e: &Expr) -> Option<usize> {
        let t = text(e);
        self.keys.iter().position(|k| {
            k.text == t || matches!(&e.kind, ExprKind::Ident(n) if n.eq_ignore_ascii_case(&k.name) && !self.frame.has(n))
        })
    }

    /// Group sizes as an INT column (group level).
    fn sizes(&self) -> Column {
        let s = super::par::group_counts(self.gid, self.n);
        Column::from_vec(DataType::Int, s.into_iter().map(|c| c as i32).collect::<Vec<i32>>())
    }

    fn broadcast(&self, c: Column) -> Column {
        if self.row_level {
            let idx: Vec<usize> = super::par::map_rows(self.gid.len(), |r| self.gid[r] as usize);
            super::par::take(&c, &idx)
        } else {
            c
        }
    }

    /// Evaluate a row-wise argument on whole columns.
    fn whole(&self, i: &mut Interpreter, e: &Expr) -> Result<Column> {
        let v = eval_in(i, self.frame.scope(), e)?;
        to_column(&v, self.frame.rows, "an aggregate argument")
    }

    /// Replace aggregate (and, row level, vector-function) calls by placeholder columns.
    /// None when the expression can't be evaluated on whole columns.
    fn lift(&mut self, i: &mut Interpreter, e: &Expr) -> Result<Option<Expr>> {
        let frame = self.frame;
        let is_col = |n: &str| frame.has(n);
        if !self.row_level {
            if let Some(k) = self.key_match(e) {
                let c = self.keys[k].col.clone();
                return Ok(Some(self.bind(c)));
            }
        }
        let rebuilt = |kind: ExprKind| Ok(Some(Expr::new(kind, e.span)));
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::VecLit(_) | ExprKind::OpFunc(_) | ExprKind::FuncRef(_) => Ok(Some(e.clone())),
            ExprKind::Ident(n) => {
                if n == COUNT_STAR {
                    let s = self.sizes();
                    let s = self.broadcast(s);
                    return Ok(Some(self.bind(s)));
                }
                if frame.has(n) && !self.row_level {
                    return Ok(None);
                }
                Ok(Some(e.clone()))
            }
            ExprKind::Call(g, args) if is_aggregate_call(i, g, &is_col) => {
                let Some(name) = plain_callee(g) else { return Ok(None) };
                let cols: Vec<&Expr> = args
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Pos(Some(x)) => Some(x),
                        _ => None,
                    })
                    .collect();
                if cols.len() != args.len() || !cols.iter().all(|x| is_rowwise(i, x, &is_col)) {
                    return Ok(None);
                }
                let r = match cols.as_slice() {
                    [x] => {
                        let Some(kernel) = super::caps_of(i, name).grouped else { return Ok(None) };
                        let c = self.whole(i, x)?;
                        kernel(&c, self.gid, self.n)
                    }
                    [x, y] => {
                        let Some(kernel) = super::caps_of(i, name).grouped2 else { return Ok(None) };
                        let (a, b) = (self.whole(i, x)?, self.whole(i, y)?);
                        kernel(&a, &b, self.gid, self.n)
                    }
                    _ => None,
                };
                match r {
                    // a kernel that rejects the input type leaves the item to the per-group path
                    Some(Ok(c)) => {
                        let c = self.broadcast(c);
                        Ok(Some(self.bind(c)))
                    }
                    _ => Ok(None),
                }
            }
            ExprKind::Call(g, args) if self.row_level && plain_callee(g).is_some() && plan::callee_kind(i, g, &is_col) == Some(Kind::VectorToVector) => {
                let name = plain_callee(g).unwrap_or_default();
                let Some(row) = i.registry.lookup(name).map(|id| *i.registry.get(id)) else { return Ok(None) };
                let (Some(kernel), Some(seg)) = (row.caps.segmented, self.segments.clone()) else { return Ok(None) };
                let mut vals = Vec::new();
                let mut first = None;
                for (k, a) in args.iter().enumerate() {
                    let Arg::Pos(Some(x)) = a else { return Ok(None) };
                    if k == 0 {
                        if !is_rowwise(i, x, &is_col) {
                            return Ok(None);
                        }
                        first = Some(self.whole(i, x)?);
                    } else {
                        if plan::uses_columns(x, &is_col) {
                            return Ok(None);
                        }
                        vals.push(i.eval(x)?);
                    }
                }
                let Some(col) = first else { return Ok(None) };
                // DECIMAL columns take the per-group path, where the builtins keep them exact
                if col.ty.decimal_scale().is_some() {
                    return Ok(None);
                }
                context_arity(&row, vals.len() + 1)?;
                match segmented_parallel(kernel, &col, &vals, &seg) {
                    Some(r) => {
                        let c = r?;
                        Ok(Some(self.bind(c)))
                    }
                    None => Ok(None),
                }
            }
            ExprKind::Call(g, args) => {
                if plan::uses_columns(g, &is_col) {
                    return Ok(None);
                }
                match self.lift_args(i, args)? {
                    Some(a) => rebuilt(ExprKind::Call(g.clone(), a)),
                    None => Ok(None),
                }
            }
            ExprKind::Method(x, name, args) => {
                let mut all = vec![Arg::Pos(Some((**x).clone()))];
                all.extend(args.iter().cloned());
                let call = Expr::new(ExprKind::Call(Box::new(Expr::new(ExprKind::Ident(name.clone()), e.span)), all), e.span);
                self.lift(i, &call)
            }
            ExprKind::Binary(op, a, b) => {
                let (Some(x), Some(y)) = (self.lift(i, a)?, self.lift(i, b)?) else { return Ok(None) };
                rebuilt(ExprKind::Binary(*op, Box::new(x), Box::new(y)))
            }
            // the set is evaluated as written (a query or a vector of the session), once
            ExprKind::Quantified(op, all, a, b) if !plan::uses_columns(b, &is_col) => match self.lift(i, a)? {
                Some(x) => rebuilt(ExprKind::Quantified(*op, *all, Box::new(x), b.clone())),
                None => Ok(None),
            },
            ExprKind::Unary(op, a) => match self.lift(i, a)? {
                Some(x) => rebuilt(ExprKind::Unary(*op, Box::new(x))),
                None => Ok(None),
            },
            ExprKind::IsNull(a, neg) => match self.lift(i, a)? {
                Some(x) => rebuilt(ExprKind::IsNull(Box::new(x), *neg)),
                None => Ok(None),
            },
            ExprKind::Compare(v, ops) => match self.lift_all(i, v)? {
                Some(v) => rebuilt(ExprKind::Compare(v, ops.clone())),
                None => Ok(None),
            },
            ExprKind::Ternary(c, a, b) => {
                let (Some(c), Some(a), Some(b)) = (self.lift(i, c)?, self.lift(i, a)?, self.lift(i, b)?) else { return Ok(None) };
                rebuilt(ExprKind::Ternary(Box::new(c), Box::new(a), Box::new(b)))
            }
            ExprKind::Case(arms, d) => {
                let mut out = Vec::with_capacity(arms.len());
                for (c, v) in arms {
                    let (Some(c), Some(v)) = (self.lift(i, c)?, self.lift(i, v)?) else { return Ok(None) };
                    out.push((c, v));
                }
                let d = match d {
                    Some(d) => match self.lift(i, d)? {
                        Some(x) => Some(Box::new(x)),
                        None => return Ok(None),
                    },
                    None => None,
                };
                rebuilt(ExprKind::Case(out, d))
            }
            ExprKind::Index(base, idx) if !plan::uses_columns(base, &is_col) => {
                let mut out = Vec::with_capacity(idx.len());
                for x in idx {
                    out.push(match x {
                        Some(x) => match self.lift(i, x)? {
                            Some(y) => Some(y),
                            None => return Ok(None),
                        },
                        None => None,
                    });
                }
                rebuilt(ExprKind::Index(base.clone(), out))
            }
            _ => {
                if plan::uses_columns(e, &is_col) {
                    Ok(None)
                } else {
                    Ok(Some(e.clone()))
                }
            }
        }
    }

    fn lift_all(&mut self, i: &mut Interpreter, v: &[Expr]) -> Result<Option<Vec<Expr>>> {
        let mut out = Vec::with_capacity(v.len());
        for x in v {
            match self.lift(i, x)? {
                Some(y) => out.push(y),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    fn lift_args(&mut self, i: &mut Interpreter, args: &[Arg]) -> Result<Option<Vec<Arg>>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(match a {
                Arg::Pos(Some(x)) => match self.lift(i, x)? {
                    Some(y) => Arg::Pos(Some(y)),
                    None => return Ok(None),
                },
                Arg::Pos(None) => Arg::Pos(None),
                Arg::Named(n, x) => match self.lift(i, x)? {
                    Some(y) => Arg::Named(n.clone(), y),
                    None => return Ok(None),
                },
            });
        }
        Ok(Some(out))
    }

    /// Try the whole-column evaluation of an item.
    fn try_vectorized(&mut self, i: &mut Interpreter, e: &Expr) -> Result<Option<Value>> {
        if self.row_level {
            let frame = self.frame;
            if is_rowwise(i, e, &|n| frame.has(n)) {
                return Ok(Some(eval_in(i, frame.scope(), e)?));
            }
        }
        let Some(lifted) = self.lift(i, e)? else { return Ok(None) };
        let frame = self.frame;
        let bound = &self.bindings;
        let row_level = self.row_level;
        let is_col = |n: &str| bound.contains_key(n) || (row_level && frame.has(n));
        if !is_rowwise(i, &lifted, &is_col) {
            return Ok(None);
        }
        let mut scope = if self.row_level { self.frame.scope() } else { Scope::new() };
        scope.remove(COUNT_STAR);
        for (k, v) in &self.extra {
            scope.insert(k.clone(), v.clone());
        }
        for (k, v) in &self.bindings {
            scope.insert(k.clone(), v.clone());
        }
        Ok(Some(eval_in(i, scope, &lifted)?))
    }

    /// The columns named by `names`, with groups contiguous, and the segment offsets.
    fn permuted(&mut self, names: &AHashSet<String>) -> (Frame, Vec<usize>) {
        let sub = self.frame.subset(names);
        if let (Some(seg), None) = (&self.segments, &self.perm) {
            return (sub, seg.clone());
        }
        if self.perm.is_none() {
            let (perm, off) = bucket_perm(self.gid, self.n);
            self.perm = Some(perm);
            self.segments = Some(off);
        }
        let seg = self.segments.clone().unwrap_or_default();
        let perm = self.perm.as_deref().unwrap_or(&[]);
        (sub.take(perm), seg)
    }

    /// Evaluate items; each result has `width` columns (multi-column results are spread).
    pub fn eval_items(&mut self, i: &mut Interpreter, items: &[(&Expr, usize)]) -> Result<Vec<Vec<Column>>> {
        let mut out: Vec<Option<Vec<Column>>> = Vec::with_capacity(items.len());
        let mut slow: Vec<usize> = Vec::new();
        let len = self.out_len();
        for (k, (e, width)) in items.iter().enumerate() {
            if !self.row_level {
                if let Some(kc) = self.key_match(e) {
                    out.push(Some(vec![self.keys[kc].col.clone()]));
                    continue;
                }
            }
            match self.try_vectorized(i, e)? {
                Some(v) => out.push(Some(spread(&v, len, *width)?)),
                None => {
                    out.push(None);
                    slow.push(k);
                }
            }
        }
        if !slow.is_empty() {
            let results = self.per_group(i, &slow.iter().map(|&k| items[k]).collect::<Vec<_>>())?;
            for (k, r) in slow.into_iter().zip(results) {
                out[k] = Some(r);
            }
        }
        Ok(out.into_iter().map(|x| x.unwrap_or_default()).collect())
    }

    /// Per-group evaluation on slices of the permuted frame.
    fn per_group(&mut self, i: &mut Interpreter, items: &[(&Expr, usize)]) -> Result<Vec<Vec<Column>>> {
        let row_level = self.row_level;
        let n = self.n;
        let extra = self.extra.clone();
        let mut used = AHashSet::new();
        for (e, _) in items {
            super::plan::names_in(e, &mut used);
        }
        let (frame, seg) = self.permuted(&used);
        // width 0 (an unaliased item): the first group's result decides the width
        let mut builders: Vec<Vec<ColBuilder>> = items.iter().map(|(_, w)| (0..*w).map(|_| ColBuilder::new()).collect()).collect();
        for g in 0..n {
            i.check_interrupt()?;
            let (s, e) = (seg[g], seg[g + 1]);
            let mut scope = frame.slice_scope(s, e);
            for (k, v) in &extra {
                if let Value::Vector(c) = v {
                    let part = if row_level { Value::Vector(c.slice(s, e)) } else { Value::Scalar(c.slice(g, g + 1)) };
                    scope.insert(k.clone(), part);
                }
            }
            i.col_scopes.push(scope);
            let mut r = Ok(());
            for (b, (ex, width)) in builders.iter_mut().zip(items) {
                r = (|| -> Result<()> {
                    let v = i.eval(ex)?;
                    let len = if row_level { e - s } else { 1 };
                    if *width == 0 {
                        let w = dynamic_width(&v);
                        if b.is_empty() {
                            b.extend((0..w).map(|_| ColBuilder::new()));
                        } else if b.len() != w {
                            return Err(Error::size(format!(
                                "A select item returns {w} values for one group and {} for another",
                                b.len()
                            )));
                        }
                        return push_spread(b, &v, len, w);
                    }
                    push_spread(b, &v, len, *width)
                })();
                if r.is_err() {
                    break;
                }
            }
            i.col_scopes.pop();
            r?;
        }
        builders.into_iter().map(|bs| bs.into_iter().map(|b| b.finish()).collect()).collect()
    }
}

/// Columns an unaliased item's value fills: a tuple spreads over its elements.
fn dynamic_width(v: &Value) -> usize {
    match v {
        Value::Tuple(t) if t.len() > 1 => t.len(),
        _ => 1,
    }
}

/// Split an item value into `width` columns of `len` rows (width 0: as the value says).
fn spread(v: &Value, len: usize, width: usize) -> Result<Vec<Column>> {
    let width = if width == 0 { dynamic_width(v) } else { width };
    if width <= 1 {
        return Ok(vec![to_column(v, len, "a select item")?]);
    }
    let parts: Vec<Value> = match v {
        Value::Tuple(t) => t.iter().cloned().collect(),
        Value::Matrix(m) if m.cols == width => (0..m.cols).map(|c| Value::Vector(m.column(c))).collect(),
        Value::Table(t) if t.ncols() == width => t.cols.iter().map(|c| Value::Vector(c.clone())).collect(),
        Value::Vector(c) if c.len() == width && len == 1 => (0..width).map(|k| Value::Scalar(c.slice(k, k + 1))).collect(),
        _ => return Err(Error::size(format!("The item must return {width} values to fill the column names given by `as`"))),
    };
    if parts.len() != width {
        return Err(Error::size(format!("The item returns {} values but {width} column names are given", parts.len())));
    }
    parts.iter().map(|p| to_column(p, len, "a select item")).collect()
}

fn push_spread(b: &mut [ColBuilder], v: &Value, len: usize, width: usize) -> Result<()> {
    if width <= 1 {
        return b[0].push(v, len, "a select item");
    }
    let parts: Vec<Value> = match v {
        Value::Tuple(t) => t.iter().cloned().collect(),
        Value::Vector(c) if c.len() == width => (0..width).map(|k| Value::Scalar(c.slice(k, k + 1))).collect(),
        Value::Dict(_) | Value::Table(_) => {
            return Err(Error::type_err("A multi-column item must return a vector or a tuple per group"))
        }
        _ => return Err(Error::size(format!("The item must return {width} values per group"))),
    };
    if parts.len() != width {
        return Err(Error::size(format!("The item returns {} values per group but {width} column names are given", parts.len())));
    }
    for (bb, p) in b.iter_mut().zip(&parts) {
        bb.push(p, len, "a select item")?;
    }
    Ok(())
}

/// Evaluate the grouping expressions on the frame: key columns, names and texts.
pub(crate) fn eval_keys(i: &mut Interpreter, frame: &Frame, items: &[beluga_lang::ast::SelectItem]) -> Result<(Vec<Column>, Vec<(String, String)>)> {
    let mut cols = Vec::with_capacity(items.len());
    let mut names = Vec::with_capacity(items.len());
    for it in items {
        let v = eval_in(i, frame.scope(), &it.expr)?;
        cols.push(to_column(&v, frame.rows, "a grouping expression")?);
        let name = it.alias.first().cloned().unwrap_or_else(|| plan::auto_name(&it.expr));
        names.push((name, text(&it.expr)));
    }
    Ok((cols, names))
}
