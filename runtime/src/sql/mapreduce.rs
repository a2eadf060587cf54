//! Map-reduce execution of aggregate queries over stored tables (DESIGN.md "SQL executor"
//! step 8): `select`/`exec` with decomposable aggregates, with or without `group by`, over
//! `from <stored table>`.
//!
//! Map: every surviving partition (pruned and projected by a split `TableSource` scan) runs on
//! rayon with its own worker interpreter (a snapshot of the session's variables and
//! functions; only row-wise builtins are evaluated there): `where`, grouping keys, and one
//! partial state per aggregate and group. Reduce: the partial key rows are grouped again in
//! partition order (so groups keep the order of first appearance in the concatenated
//! table), the partial states are merged and finalised, and the query's items, `having`,
//! `order by` and `top`/`limit` run on the merged groups through the ordinary `group by`
//! path, with every aggregate replaced by `first` of its merged column.
//!
//! Anything else (non-row-wise `where`, raw columns outside aggregates, median, user
//! functions, nested aggregates, distinct, context by …) returns `None`, and so does any
//! error: the caller then runs the query the ordinary way, which reports it.

use super::exec::{finish_output, plain, prepare, result_scope, Output, Prepared};
use super::frame::{eval_in, mask_rows, to_column, to_mask, Frame, Scope};
use super::group::eval_keys;
use super::keys::group_ids;
use super::mapreduce_agg::{agg_of, disjoint_parts, merge, partial, Agg, Partial};
use super::plan::{callee_kind, is_aggregate_call, is_rowwise, map_expr, plain_callee, text, COUNT_STAR};
use super::source::{identity, Need, Source};
use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::registry::{Kind, Registry};
use crate::table::Table;
use crate::table_source::{table_source, Pred};
use crate::types::DataType;
use crate::value::Value;
use ahash::{AHashMap, AHashSet};
use beluga_lang::ast::{Arg, BinOp, Expr, ExprKind, FromItem, GroupKind, OrderItem, SelectItem, SelectQuery};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// Queries answered by this path so far (tests check that a query took it).
pub static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);


/// One distinct aggregate call of the query.
struct Leaf {
    agg: Agg,
    args: Vec<Expr>,
    text: String,
}


/// What one partition contributes.
struct PartOut {
    keys: Vec<Column>,
    knames: Vec<(String, String)>,
    aggs: Vec<Partial>,
    groups: usize,
}

/// The analysis of the query's expressions.
struct Plan<'a> {
    i: &'a Interpreter,
    cols: &'a AHashSet<String>,
    keys: Vec<String>,
    leaves: Vec<Leaf>,
}

impl Plan<'_> {
    fn is_col(&self, n: &str) -> bool {
        self.cols.contains(&n.to_ascii_lowercase())
    }

    /// Whether `e` can be computed from merged aggregates and keys; records its aggregates.
    fn check(&mut self, e: &Expr) -> bool {
        if self.keys.iter().any(|k| *k == text(e)) {
            return true;
        }
        let cols = self.cols;
        let is_col = |n: &str| cols.contains(&n.to_ascii_lowercase());
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::VecLit(_) => true,
            ExprKind::Ident(n) if n == COUNT_STAR => {
                self.leaf(Agg::Star, vec![], e);
                true
            }
            ExprKind::Ident(n) => !self.is_col(n),
            ExprKind::Unary(_, x) => self.check(x),
            ExprKind::Binary(op, a, b) => {
                !matches!(
                    op,
                    BinOp::Seq | BinOp::Pair | BinOp::Join | BinOp::Dot | BinOp::At | BinOp::In | BinOp::NotIn | BinOp::Between | BinOp::NotBetween
                ) && self.check(a)
                    && self.check(b)
            }
            ExprKind::Call(g, args) if is_aggregate_call(self.i, g, &is_col) => {
                let Some(name) = plain_callee(g) else {
                    return false;
                };
                if self.i.functions.contains_key(name) || self.i.has_var(name) {
                    return false;
                }
                let Some((agg, arity)) = agg_of(self.i, name) else {
                    return false;
                };
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    match a {
                        Arg::Pos(Some(x)) if is_rowwise(self.i, x, &is_col) => xs.push(x.clone()),
                        _ => return false,
                    }
                }
                if xs.len() != arity {
                    return false;
                }
                self.leaf(agg, xs, e);
                true
            }
            ExprKind::Call(g, args) => {
                callee_kind(self.i, g, &is_col) == Some(Kind::Elementwise)
                    && !matches!(&g.kind, ExprKind::Ident(n) if self.i.functions.contains_key(n))
                    && args.iter().all(|a| matches!(a, Arg::Pos(Some(x)) if self.check(x)))
            }
            _ => false,
        }
    }

    fn leaf(&mut self, agg: Agg, args: Vec<Expr>, e: &Expr) {
        let t = text(e);
        if !self.leaves.iter().any(|l| l.text == t) {
            self.leaves.push(Leaf { agg, args, text: t });
        }
    }
}

/// The analysed query: grouping key texts and distinct aggregates.
struct Shape {
    keys: Vec<String>,
    leaves: Vec<Leaf>,
}

impl Shape {
    /// `e` with every aggregate replaced by its merged column: `first(__mrK)` when the
    /// expression runs through the ordinary no-group path (`wrap`), else `__mrK` itself;
    /// grouping keys (by expression text) become `__mkK`.
    fn rewrite(&self, e: &Expr, wrap: bool) -> Expr {
        let keys = &self.keys;
        map_expr(e, &mut |x| {
            let t = text(x);
            if let Some(k) = keys.iter().position(|k| *k == t) {
                return Some(Expr::new(ExprKind::Ident(key_slot(k)), x.span));
            }
            if !matches!(&x.kind, ExprKind::Ident(n) if n == COUNT_STAR) && !matches!(&x.kind, ExprKind::Call(..)) {
                return None;
            }
            let k = self.leaves.iter().position(|l| l.text == t)?;
            let id = Expr::new(ExprKind::Ident(slot(k)), x.span);
            if !wrap {
                return Some(id);
            }
            Some(Expr::new(ExprKind::Call(Box::new(Expr::new(ExprKind::Ident("first".into()), x.span)), vec![Arg::Pos(Some(id))]), x.span))
        })
    }
}

fn key_slot(k: usize) -> String {
    format!("__mk{k}")
}

fn slot(k: usize) -> String {
    format!("__mr{k}")
}

/// What a worker interpreter needs from the session (all `Arc`-shared values); the one
/// snapshot for map-reduce selects and for `mr`/`imr` over data sources (`sql::ds`).
pub(crate) struct Snapshot {
    registry: Arc<Registry>,
    globals: AHashMap<String, Value>,
    consts: AHashSet<String>,
    aliases: AHashMap<String, String>,
    functions: AHashMap<String, Value>,
    locals: AHashMap<String, Value>,
    module: Option<String>,
    col_scopes: Vec<AHashMap<String, Value>>,
    module_dir: PathBuf,
    shared: crate::eval::Shared,
    /// the session's interrupt flag: workers stop between partitions when it is set
    interrupt: Arc<std::sync::atomic::AtomicBool>,
    /// the session's memory accountant
    budget: Arc<crate::guard::Budget>,
}

impl Snapshot {
    pub(crate) fn of(i: &Interpreter) -> Snapshot {
        Snapshot {
            registry: i.registry.clone(),
            globals: i.globals.clone(),
            consts: i.consts.clone(),
            aliases: i.aliases.clone(),
            functions: i.functions.clone(),
            locals: i.frames.last().map(|f| f.vars.clone()).unwrap_or_default(),
            module: i.frames.last().and_then(|f| f.module.clone()),
            col_scopes: i.col_scopes.clone(),
            module_dir: i.module_dir.clone(),
            shared: i.shared.clone(),
            interrupt: i.interrupt.clone(),
            budget: i.budget.clone(),
        }
    }

    pub(crate) fn worker(&self) -> Interpreter {
        let mut w = Interpreter::with_registry(self.registry.clone());
        w.globals = self.globals.clone();
        w.consts = self.consts.clone();
        w.aliases = self.aliases.clone();
        w.functions = self.functions.clone();
        w.col_scopes = self.col_scopes.clone();
        w.module_dir = self.module_dir.clone();
        w.shared = self.shared.clone();
        w.interrupt = self.interrupt.clone();
        w.budget = self.budget.clone();
        // kernels on this worker thread see the session's flag and accountant too
        crate::guard::install_interrupt(self.interrupt.clone());
        crate::guard::install_budget(self.budget.clone());
        if !self.locals.is_empty() || self.module.is_some() {
            w.frames.push(crate::eval::Frame { vars: self.locals.clone(), module: self.module.clone(), ..Default::default() });
        }
        w
    }
}

/// Entry point from the select pipeline: Some(result) when the query ran map-reduce style.
pub(crate) fn try_select(i: &mut Interpreter, q: &SelectQuery, need: &Need) -> Result<Option<Value>> {
    if q.map || q.distinct || disabled() || !q.cgroup.is_empty() || !q.csort.is_empty() {
        return Ok(None);
    }
    if !matches!(&q.group, None | Some((GroupKind::GroupBy, _))) {
        return Ok(None);
    }
    if q.items.iter().any(|it| matches!(it.expr.kind, ExprKind::Star | ExprKind::ColumnSeq(..))) {
        return Ok(None);
    }
    let Some(FromItem::Table(Expr { kind: ExprKind::Ident(name), .. }, alias)) = &q.from else {
        return Ok(None);
    };
    let Ok(handle @ Value::Handle(_)) = i.resolve(name) else {
        return Ok(None);
    };
    // column names of the stored table, for the analysis before anything is loaded
    let Some(Ok(schema)) = table_source(&handle).map(|s| s.schema()) else {
        return Ok(None);
    };
    let names: Vec<String> = schema.into_iter().map(|(n, _)| n).collect();
    let mut dummy = Table::new(names.clone(), names.iter().map(|_| Column::nulls(DataType::Int, 0)).collect())?;
    dummy.name = Some(name.clone());
    let dummy = Arc::new(dummy);
    let mut quals = vec![(name.clone(), identity(&dummy))];
    if let Some(a) = alias {
        quals.push((a.clone(), identity(&dummy)));
    }
    let src = Source { table: dummy.clone(), quals, consumed: 0 };
    let Ok(p) = prepare(q, &src) else {
        return Ok(None);
    };
    let cols: AHashSet<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
    let Some(plan) = analyse(i, &p, &cols) else {
        return Ok(None);
    };
    match run(i, &p, plan, need, q) {
        Ok(v) => Ok(v),
        // any error: the ordinary path runs the query and reports it
        Err(_) => Ok(None),
    }
}

/// `BELUGA_MAPREDUCE=off` turns the map-reduce path off (to compare with the ordinary one).
fn disabled() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OFF.get_or_init(|| std::env::var("BELUGA_MAPREDUCE").is_ok_and(|v| v.eq_ignore_ascii_case("off") || v == "0"))
}

fn analyse(i: &Interpreter, p: &Prepared, cols: &AHashSet<String>) -> Option<Shape> {
    let is_col = |n: &str| cols.contains(&n.to_ascii_lowercase());
    if !p.where_.iter().all(|c| is_rowwise(i, c, &is_col)) {
        return None;
    }
    let mut keys = Vec::new();
    if let Some((_, g)) = &p.group {
        for it in g {
            if !is_rowwise(i, &it.expr, &is_col) || super::interval::is_interval(&it.expr) {
                return None;
            }
            keys.push(text(&it.expr));
        }
    }
    let mut plan = Plan { i, cols, keys, leaves: Vec::new() };
    for it in &p.items {
        if it.width() > 1 || !plan.check(&it.expr) {
            return None;
        }
    }
    if let Some(h) = &p.having {
        if p.group.is_none() || !plan.check(h) {
            return None;
        }
    }
    for o in &p.order {
        if !plan.check(&o.expr) {
            return None;
        }
    }
    if plan.leaves.is_empty() {
        return None;
    }
    Some(Shape { keys: plan.keys, leaves: plan.leaves })
}

fn run(i: &mut Interpreter, p: &Prepared, plan: Shape, need: &Need, q: &SelectQuery) -> Result<Option<Value>> {
    let counted = if p.group.is_none() && plan.leaves.iter().all(|l| l.agg == Agg::Star) { meta_count(i, p, q)? } else { None };
    let (kcols, knames, aggs, n) = match counted {
        Some(c) => (vec![], vec![], vec![Column::from_vec(DataType::Int, vec![c]); plan.leaves.len()], 1),
        None => match map_reduce(i, p, &plan, need, q)? {
            Some(r) => r,
            None => return Ok(None),
        },
    };
    let v = if p.group.is_some() {
        let out = grouped_output(i, p, &plan, &kcols, &knames, aggs, n)?;
        finish_output(i, p, out)?
    } else {
        let mut p2 = Prepared {
            exec: p.exec,
            distinct: false,
            items: Vec::with_capacity(p.items.len()),
            where_: vec![],
            group: None,
            cgroup: vec![],
            csort: vec![],
            having: None,
            order: p.order.iter().map(|o| OrderItem { expr: plan.rewrite(&o.expr, true), asc: o.asc, nulls_first: o.nulls_first }).collect(),
            top: p.top,
            limit: p.limit.clone(),
        };
        for it in &p.items {
            p2.items.push(super::exec::Item { expr: plan.rewrite(&it.expr, true), names: it.names.clone(), dynamic: it.dynamic });
        }
        let frame = Frame { names: (0..aggs.len()).map(slot).collect(), cols: aggs, rows: n, ..Frame::default() };
        let out = plain(i, &p2, &frame)?;
        finish_output(i, &p2, out)?
    };
    RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(Some(v))
}

/// The `group by` result before order/limit, as the ordinary path builds it: key columns
/// first (unless an item names them), then the items, having and order keys evaluated on
/// whole group-level columns (one row per merged group).
fn grouped_output(
    i: &mut Interpreter,
    p: &Prepared,
    plan: &Shape,
    kcols: &[Column],
    knames: &[(String, String)],
    aggs: Vec<Column>,
    n: usize,
) -> Result<Output> {
    let mut scope = Scope::new();
    for (k, c) in aggs.into_iter().enumerate() {
        scope.insert(slot(k), Value::Vector(c));
    }
    for (k, (c, (name, _))) in kcols.iter().zip(knames).enumerate() {
        scope.insert(key_slot(k), Value::Vector(c.clone()));
        scope.insert(name.clone(), Value::Vector(c.clone()));
    }
    let (mut names, mut cols) = (Vec::new(), Vec::new());
    let exec_one = p.exec && p.items.len() == 1 && p.items[0].width() <= 1;
    for (k, (name, ktext)) in knames.iter().enumerate() {
        let named = p.items.iter().any(|it| text(&it.expr) == *ktext || matches!(&it.expr.kind, ExprKind::Ident(x) if x.eq_ignore_ascii_case(name)));
        if !exec_one && !named {
            names.push(name.clone());
            cols.push(kcols[k].clone());
        }
    }
    for it in &p.items {
        let v = eval_in(i, scope.clone(), &plan.rewrite(&it.expr, false))?;
        let c = to_column(&v, n, "a select item")?;
        if let Some(name) = it.names.first().filter(|x| !x.is_empty()) {
            names.push(name.clone());
            cols.push(c);
        }
    }
    let scope = result_scope(scope, &names, &cols);
    let keep = match &p.having {
        Some(h) => {
            let v = eval_in(i, scope.clone(), &plan.rewrite(h, false))?;
            to_mask(&v, n)?.map(|m| mask_rows(&m))
        }
        None => None,
    };
    let mut order = Vec::with_capacity(p.order.len());
    for o in &p.order {
        let v = eval_in(i, scope.clone(), &plan.rewrite(&o.expr, false))?;
        order.push((to_column(&v, n, "an order by expression")?, o.asc, o.nulls_first));
    }
    Ok(Output { names, cols, rows: n, keep, order, scalar: false, limited: false })
}

/// `count(*)` from the partition metadata when the conditions decide whole partitions.
fn meta_count(i: &mut Interpreter, p: &Prepared, q: &SelectQuery) -> Result<Option<i32>> {
    let Some(FromItem::Table(Expr { kind: ExprKind::Ident(name), .. }, _)) = &q.from else {
        return Ok(None);
    };
    let Ok(h) = i.resolve(name) else {
        return Ok(None);
    };
    let Some(src) = table_source(&h) else {
        return Ok(None);
    };
    let names: Vec<String> = src.schema()?.into_iter().map(|(n, _)| n).collect();
    let Some(preds) = super::lower::lower_all_constant(i, &names, &p.where_) else {
        return Ok(None);
    };
    Ok(src.count(&preds)?.and_then(|n| i32::try_from(n).ok()))
}

/// Load the partitions, run the map step on rayon and reduce; None when no row survives.
fn map_reduce(i: &mut Interpreter, p: &Prepared, plan: &Shape, need: &Need, q: &SelectQuery) -> Result<Option<Reduced>> {
    // a partition of several segments may come as one source per segment: the reduce
    // step merges partial groups of any batches
    let Some(sources) = super::source::partitions(i, q.from.as_ref(), need, true)? else {
        return Ok(None);
    };
    if sources.is_empty() {
        return Ok(None);
    }
    let snap = Snapshot::of(i);
    let needed = need.names.clone();
    let group: Vec<SelectItem> = p.group.as_ref().map(|(_, g)| g.clone()).unwrap_or_default();
    let leaves = &plan.leaves;
    let where_ = &undecided(i, q, need, &p.where_);
    let outs: Vec<Option<PartOut>> = sources
        .par_iter()
        .map_init(
            || snap.worker(),
            |w, s| {
                if w.interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                    return Err(crate::guard::interrupted());
                }
                let frame = Frame::from_table(&s.table, &needed, false);
                map_part(w, frame, where_, &group, leaves)
            },
        )
        .collect::<Result<_>>()?;
    let outs: Vec<PartOut> = outs.into_iter().flatten().collect();
    if outs.is_empty() {
        // no row survives: the ordinary path builds the empty result with its types
        return Ok(None);
    }
    reduce(outs, leaves).map(Some)
}

/// The `where` conditions the map step evaluates: those the storage reports true on every
/// row of every loaded partition (conditions its partition keys decide) are left out.
fn undecided(i: &mut Interpreter, q: &SelectQuery, need: &Need, where_: &[Expr]) -> Vec<Expr> {
    let all = where_.to_vec();
    let Some(FromItem::Table(Expr { kind: ExprKind::Ident(name), .. }, _)) = &q.from else { return all };
    let Ok(h) = i.resolve(name) else { return all };
    let Some(src) = table_source(&h) else { return all };
    let Ok(schema) = src.schema() else { return all };
    let names: Vec<String> = schema.into_iter().map(|(n, _)| n).collect();
    // the conditions the partitions were scanned with (`source::scan_source`)
    let lead = super::source::prune_conditions(i, need);
    let lowered = super::lower::lower(i, &names, &lead);
    // a condition is decided when every conjunct lowered and each holds on every partition
    let tests: Vec<Pred> = lowered.per_cond.iter().flatten().flatten().cloned().collect();
    let Ok(held) = src.decided(&lowered.preds, &tests) else { return all };
    let mut held = held.into_iter();
    let decided: Vec<bool> = lowered
        .per_cond
        .iter()
        .map(|c| c.iter().fold(true, |ok, p| ok & p.as_ref().is_some_and(|_| held.next().unwrap_or(false))))
        .collect();
    let skip: AHashSet<String> = lead.iter().zip(&decided).filter(|(_, d)| **d).map(|(c, _)| text(c)).collect();
    all.into_iter().filter(|c| !skip.contains(&text(c))).collect()
}

/// The `where` conditions (row-wise, so evaluating each on every row and combining the
/// masks selects what applying them one after another selects) on one partition: the
/// frame the grouping reads and, when the conditions keep most of its rows (`mostly_kept`,
/// as a scan returning whole segments does), the kept rows as a mask instead of a copy of every column at them (a scan that keeps most
/// rows hands over its cached columns; gathering them would hold every column twice).
fn select_rows(w: &mut Interpreter, mut frame: Frame, where_: &[Expr]) -> Result<(Frame, Option<Vec<bool>>)> {
    let mut sel: Option<Vec<bool>> = None;
    for c in where_ {
        let v = eval_in(w, frame.scope(), c)?;
        let Some(m) = to_mask(&v, frame.rows)? else { continue };
        let m = match sel.take() {
            Some(s) => s.iter().zip(&m).map(|(a, b)| *a && *b).collect(),
            None => m,
        };
        let kept = m.iter().filter(|&&b| b).count();
        if kept == frame.rows {
            continue;
        }
        if crate::table_source::mostly_kept(kept, frame.rows) {
            sel = Some(m);
        } else {
            frame = frame.take(&mask_rows(&m));
        }
    }
    Ok((frame, sel))
}

/// Group ids of the selected rows (`sel[r]`) numbered by first selected appearance, every
/// other row in the extra group `n` (the returned count); a group none of whose rows is
/// selected disappears. Also the first selected row of each group.
fn select_groups(gid: &mut [u32], n: usize, sel: &[bool]) -> (usize, Vec<usize>) {
    let mut new = vec![u32::MAX; n];
    let mut first = Vec::new();
    for (r, (g, &s)) in gid.iter_mut().zip(sel).enumerate() {
        if !s {
            *g = u32::MAX;
            continue;
        }
        let slot = &mut new[*g as usize];
        if *slot == u32::MAX {
            *slot = first.len() as u32;
            first.push(r);
        }
        *g = *slot;
    }
    let live = first.len() as u32;
    gid.iter_mut().filter(|g| **g == u32::MAX).for_each(|g| *g = live);
    (first.len(), first)
}

/// The map step on one partition: None when no row survives the `where` conditions.
fn map_part(w: &mut Interpreter, frame: Frame, where_: &[Expr], group: &[SelectItem], leaves: &[Leaf]) -> Result<Option<PartOut>> {
    let (frame, sel) = select_rows(w, frame, where_)?;
    if frame.rows == 0 || sel.as_ref().is_some_and(|s| !s.contains(&true)) {
        return Ok(None);
    }
    let (keys, knames, gid, groups) = if group.is_empty() {
        let gid = match &sel {
            Some(s) => s.iter().map(|&b| u32::from(!b)).collect(),
            None => vec![0u32; frame.rows],
        };
        (vec![], vec![], gid, 1)
    } else {
        let (kcols, knames) = eval_keys(w, &frame, group)?;
        let refs: Vec<&Column> = kcols.iter().collect();
        let mut g = group_ids(&refs);
        if let Some(s) = &sel {
            (g.n, g.first) = select_groups(&mut g.gid, g.n, s);
        }
        let keys = kcols.iter().map(|c| c.take_usize(&g.first)).collect();
        (keys, knames, g.gid, g.n)
    };
    // the rows left out by a mask fall in one extra group, whose partials are dropped
    let slots = groups + usize::from(sel.is_some());
    let mut aggs = Vec::with_capacity(leaves.len());
    for l in leaves {
        let mut args = Vec::with_capacity(l.args.len());
        for x in &l.args {
            let v = eval_in(w, frame.scope(), x)?;
            args.push(to_column(&v, frame.rows, "an aggregate argument")?);
        }
        let mut p = partial(l.agg, &args, &gid, slots)?;
        p.truncate(groups);
        aggs.push(p);
    }
    Ok(Some(PartOut { keys, knames, aggs, groups }))
}

/// The reduce step: regroup the partial key rows, merge and finalise every aggregate.
type Reduced = (Vec<Column>, Vec<(String, String)>, Vec<Column>, usize);

fn reduce(outs: Vec<PartOut>, leaves: &[Leaf]) -> Result<Reduced> {
    let total: usize = outs.iter().map(|o| o.groups).sum();
    let nkeys = outs[0].keys.len();
    let knames = outs[0].knames.clone();
    let (kcols, gid, n): (Vec<Column>, Vec<u32>, usize) = if nkeys == 0 {
        (vec![], vec![0u32; total], 1)
    } else {
        let mut cat = Vec::with_capacity(nkeys);
        for k in 0..nkeys {
            let parts: Vec<&Column> = outs.iter().map(|o| &o.keys[k]).collect();
            let ty = parts.iter().map(|c| c.ty).find(|t| *t != DataType::Void).unwrap_or(parts[0].ty);
            if parts.iter().any(|c| c.ty != ty) {
                return Err(Error::runtime("partition key types differ"));
            }
            cat.push(Column::concat(ty, &parts));
        }
        let disjoint = (0..nkeys).any(|k| disjoint_parts(&outs.iter().map(|o| &o.keys[k]).collect::<Vec<_>>()));
        if disjoint {
            // no key value occurs in two partitions: the partial groups are the groups
            (cat, (0..total as u32).collect(), total)
        } else {
            let refs: Vec<&Column> = cat.iter().collect();
            let g = group_ids(&refs);
            let keys = cat.iter().map(|c| c.take_usize(&g.first)).collect();
            (keys, g.gid, g.n)
        }
    };
    let mut merged = Vec::with_capacity(leaves.len());
    for (k, l) in leaves.iter().enumerate() {
        let parts: Vec<&Partial> = outs.iter().map(|o| &o.aggs[k]).collect();
        merged.push(merge(l.agg, &parts, &gid, n)?);
    }
    Ok((kcols, knames, merged, n))
}

