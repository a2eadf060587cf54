//! The select pipeline (§6.2): source → where → group/context/pivot → having → items →
//! distinct → order by → top/limit, then the select/exec result shape.

use super::frame::{apply_where, eval_in, to_column, Frame, Scope};
use super::group::{eval_keys, GroupEval, KeyCol};
use super::keys::group_ids;
use super::order::{sort_rows_top, SortKey};
use super::plan::{auto_name, dedup_names, names_in, rewrite_count_star, text};
use super::source::{eval_from, qualify, Need, Source};
use crate::column::Column;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::Interpreter;
use crate::table::Table;
use crate::value::Value;
use ahash::AHashSet;
use beluga_lang::ast::{Expr, ExprKind, FromItem, GroupKind, Literal, OrderItem, SelectItem, SelectQuery};
use std::sync::Arc;

/// A select item after `*` and column-sequence expansion.
pub(crate) struct Item {
    pub expr: Expr,
    /// Result column names; several for `as `a`b`c` (an empty name drops that column).
    pub names: Vec<String>,
    /// No alias was given: a tuple result spreads into as many columns as it has
    /// elements, named after the item and made unique by `dedup_names` (`f_v`, `f_v_1`, …).
    pub dynamic: bool,
}

impl Item {
    /// Columns the item fills; 0 = not known before evaluation (an unaliased item that
    /// may return a tuple).
    pub fn width(&self) -> usize {
        if self.dynamic {
            0
        } else {
            self.names.len().max(1)
        }
    }

    pub fn plain(expr: Expr, name: String) -> Item {
        Item { expr, names: vec![name], dynamic: false }
    }

    /// Names for `n` evaluated columns: an unaliased item repeats its name.
    pub fn names_for(&self, n: usize) -> Vec<String> {
        if self.dynamic && n > 1 {
            vec![self.names.first().cloned().unwrap_or_default(); n]
        } else {
            self.names.clone()
        }
    }
}

/// A query with qualified names resolved and `count(*)` rewritten.
pub(crate) struct Prepared {
    pub exec: bool,
    pub distinct: bool,
    pub items: Vec<Item>,
    pub where_: Vec<Expr>,
    pub group: Option<(GroupKind, Vec<SelectItem>)>,
    pub cgroup: Vec<SelectItem>,
    pub csort: Vec<OrderItem>,
    pub having: Option<Expr>,
    pub order: Vec<OrderItem>,
    pub top: Option<(i64, Option<i64>)>,
    pub limit: Option<(Option<Expr>, Expr)>,
}

/// Result of the grouping stage, before distinct/order/limit.
pub(crate) struct Output {
    pub names: Vec<String>,
    pub cols: Vec<Column>,
    pub rows: usize,
    /// Rows kept by having / per-group limits, in output order (None = all).
    pub keep: Option<Vec<usize>>,
    /// Order-by keys at the level of the output rows.
    pub order: Vec<(Column, bool, Option<bool>)>,
    /// Every item was a scalar (no grouping): `exec` returns a scalar.
    pub scalar: bool,
    /// top/limit were applied per group already.
    pub limited: bool,
}

fn top_value(e: &Expr) -> Result<i64> {
    match &e.kind {
        ExprKind::Lit(Literal::Int(Some(v))) => Ok(*v as i64),
        ExprKind::Lit(Literal::Long(Some(v))) => Ok(*v),
        ExprKind::Lit(Literal::Short(Some(v))) => Ok(*v as i64),
        _ => Err(Error::syntax("The top clause must be followed by an integer constant", e.span)),
    }
}

fn qualify_item(e: &Expr, src: &Source) -> Expr {
    rewrite_count_star(&qualify(e, &src.table, &src.quals))
}

/// Expand `price1...price5` into the existing columns of that sequence.
fn column_seq(a: &str, b: &str, t: &Table) -> Result<Vec<String>> {
    let split = |s: &str| {
        let p = s.trim_end_matches(|c: char| c.is_ascii_digit());
        (p.to_string(), s[p.len()..].parse::<i64>().ok())
    };
    let (pa, na) = split(a);
    let (pb, nb) = split(b);
    match (na, nb) {
        (Some(x), Some(y)) if pa == pb => {
            let r: Vec<i64> = if x <= y { (x..=y).collect() } else { (y..=x).rev().collect() };
            Ok(r.into_iter().map(|k| format!("{pa}{k}")).filter(|n| t.col_index(n).is_some()).collect())
        }
        _ => Err(Error::arg(format!("Invalid column sequence {a}...{b}"))),
    }
}

/// Whether an unaliased item could return a tuple to spread over several columns: a
/// call (of a user function, a module function, a partial application...), not a bare
/// column, literal or operator expression.
fn may_return_tuple(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call(..) | ExprKind::Method(..))
}

pub(crate) fn prepare(q: &SelectQuery, src: &Source) -> Result<Prepared> {
    let t = &src.table;
    let mut items = Vec::with_capacity(q.items.len());
    for it in &q.items {
        match &it.expr.kind {
            ExprKind::Star => {
                for n in &t.names {
                    items.push(Item::plain(Expr::new(ExprKind::Ident(n.clone()), it.expr.span), n.clone()));
                }
            }
            ExprKind::ColumnSeq(a, b) => {
                let names = column_seq(a, b, t)?;
                if it.alias.len() > 1 && it.alias.len() != names.len() {
                    return Err(Error::arg("The number of aliases doesn't match the column sequence"));
                }
                for (k, n) in names.iter().enumerate() {
                    let alias = if it.alias.len() > 1 { it.alias[k].clone() } else { n.clone() };
                    items.push(Item::plain(Expr::new(ExprKind::Ident(n.clone()), it.expr.span), alias));
                }
            }
            _ => {
                let expr = qualify_item(&it.expr, src);
                let dynamic = it.alias.is_empty() && may_return_tuple(&it.expr);
                let names = if it.alias.is_empty() { vec![auto_name(&it.expr)] } else { it.alias.clone() };
                items.push(Item { expr, names, dynamic });
            }
        }
    }
    let q_order = |v: &[OrderItem]| -> Vec<OrderItem> {
        v.iter().map(|o| OrderItem { expr: qualify_item(&o.expr, src), asc: o.asc, nulls_first: o.nulls_first }).collect()
    };
    let top = match &q.top {
        Some((a, b)) => Some((top_value(a)?, b.as_ref().map(top_value).transpose()?)),
        None => None,
    };
    // group items keep their original expressions for naming
    let group = q.group.as_ref().map(|(k, g)| {
        let qualified = g
            .iter()
            .map(|it| SelectItem {
                expr: qualify_item(&it.expr, src),
                alias: if it.alias.is_empty() { vec![auto_name(&it.expr)] } else { it.alias.clone() },
            })
            .collect();
        (*k, qualified)
    });
    let cgroup = q
        .cgroup
        .iter()
        .map(|it| SelectItem {
            expr: qualify_item(&it.expr, src),
            alias: if it.alias.is_empty() { vec![auto_name(&it.expr)] } else { it.alias.clone() },
        })
        .collect();
    Ok(Prepared {
        exec: q.exec,
        distinct: q.distinct,
        items,
        where_: q.where_.iter().map(|e| qualify_item(e, src)).collect(),
        group,
        cgroup,
        csort: q_order(&q.csort),
        having: q.having.as_ref().map(|e| qualify_item(e, src)),
        order: q_order(&q.order),
        top,
        limit: q.limit.clone(),
    })
}

/// Names a query may use as columns (to load only those).
fn needed_names(q: &SelectQuery) -> (AHashSet<String>, bool) {
    let mut out = AHashSet::new();
    let mut star = false;
    for it in &q.items {
        if matches!(it.expr.kind, ExprKind::Star) {
            star = true;
        }
        names_in(&it.expr, &mut out);
    }
    for e in &q.where_ {
        names_in(e, &mut out);
    }
    if let Some((_, g)) = &q.group {
        g.iter().for_each(|it| names_in(&it.expr, &mut out));
    }
    q.cgroup.iter().for_each(|it| names_in(&it.expr, &mut out));
    q.csort.iter().for_each(|o| names_in(&o.expr, &mut out));
    q.having.iter().for_each(|e| names_in(e, &mut out));
    q.order.iter().for_each(|o| names_in(&o.expr, &mut out));
    (out, star)
}

fn empty_source() -> Source {
    Source { table: Arc::new(Table::default()), quals: vec![], consumed: 0 }
}

/// `select top n c1, c2, … from t [where …] order by k desc` (plain columns, one table, no
/// grouping, distinct, having or limit): (k, n, the selected names), the hint that lets a
/// stored table skip partitions whose keys are all below the n-th largest (`Scan::top_desc`).
fn top_desc_hint(q: &SelectQuery) -> Option<(String, usize, Vec<String>)> {
    let (a, None) = q.top.as_ref()? else {
        return None;
    };
    let n = usize::try_from(top_value(a).ok()?).ok().filter(|&n| n > 0)?;
    let plain = !q.distinct && q.group.is_none() && q.cgroup.is_empty() && q.csort.is_empty() && q.having.is_none();
    if !plain || q.limit.is_some() || q.map || q.order.len() != 1 || q.order[0].asc || q.order[0].nulls_first.is_some() {
        return None;
    }
    let ExprKind::Ident(key) = &q.order[0].expr.kind else {
        return None;
    };
    if !matches!(&q.from, Some(FromItem::Table(e, _)) if matches!(e.kind, ExprKind::Ident(_))) {
        return None;
    }
    let mut items = Vec::with_capacity(q.items.len());
    for it in &q.items {
        match &it.expr.kind {
            ExprKind::Ident(c) => items.push(c.clone()),
            ExprKind::Star => {}
            _ => return None,
        }
    }
    Some((key.clone(), n, items))
}

pub(crate) fn select(i: &mut Interpreter, q: &SelectQuery) -> Result<Value> {
    let (needed, star) = needed_names(q);
    let need = Need { names: needed, all: star, push: q.where_.clone(), top_desc: top_desc_hint(q) };
    if q.map {
        if let Some(parts) = super::source::partitions(i, q.from.as_ref(), &need, false)? {
            return select_map(i, q, parts, need);
        }
    }
    // aggregates over a stored table: per partition on rayon, merged (sql/mapreduce.rs)
    if let Some(v) = super::mapreduce::try_select(i, q, &need)? {
        return Ok(v);
    }
    let src = match &q.from {
        Some(f) => eval_from(i, f, &need)?,
        None => empty_source(),
    };
    select_source(i, q, src, need.names, star)
}

/// `… map`: the query runs on every partition of a stored table independently and the
/// results are concatenated (tables by column position, vectors and scalars into a vector).
fn select_map(i: &mut Interpreter, q: &SelectQuery, parts: Vec<Source>, need: Need) -> Result<Value> {
    let mut acc: Option<Value> = None;
    let mut scalars: Vec<Value> = Vec::new();
    for src in parts {
        let v = select_source(i, q, src, need.names.clone(), need.all)?;
        match v {
            Value::Scalar(_) | Value::Void => scalars.push(v),
            other => {
                acc = Some(match acc {
                    None => other,
                    Some(Value::Table(a)) => super::setops::union(&Value::Table(a), &other, true)?,
                    Some(a) => crate::eval::ops::join(&a, &other)?,
                })
            }
        }
    }
    if !scalars.is_empty() {
        return Ok(crate::eval::unify_scalars(&scalars)?.unwrap_or_else(|| Value::tuple(scalars)));
    }
    Ok(acc.unwrap_or(Value::Void))
}

fn select_source(i: &mut Interpreter, q: &SelectQuery, src: Source, needed: AHashSet<String>, star: bool) -> Result<Value> {
    let mut p = prepare(q, &src)?;
    p.where_.drain(..src.consumed.min(p.where_.len()));
    if p.top.is_some() && matches!(p.group, Some((GroupKind::PivotBy, _))) {
        return Err(Error::new(ErrorKind::Syntax, "top can't be used together with pivot by"));
    }
    let mut needed = needed;
    for it in &p.items {
        names_in(&it.expr, &mut needed);
    }
    let frame = Frame::from_table(&src.table, &needed, star);
    let frame = apply_where(i, frame, &p.where_)?;
    if p.group.is_some() && p.items.iter().any(|it| super::window::has_window(&it.expr)) {
        return Err(Error::arg("A window function (over) can't be used together with group by, context by or pivot by"));
    }
    let out = match &p.group {
        None if !p.cgroup.is_empty() => return super::pivot::cgroup(i, &p, &frame, &[]),
        None => plain(i, &p, &frame)?,
        Some((GroupKind::GroupBy, g)) => {
            if !p.cgroup.is_empty() {
                return super::pivot::cgroup(i, &p, &frame, g);
            }
            if g.iter().any(|it| super::interval::is_interval(&it.expr)) {
                super::interval::grouped_interval(i, &p, &frame, g)?
            } else {
                grouped(i, &p, &frame, g)?
            }
        }
        Some((GroupKind::ContextBy, g)) => super::context::context(i, &p, &frame, g)?,
        Some((GroupKind::PivotBy, g)) => return super::pivot::pivot(i, &p, &frame, g),
    };
    finish_output(i, &p, out)
}

/// Order-by keys evaluated in a scope (result columns over source columns).
pub(crate) fn order_keys(i: &mut Interpreter, order: &[OrderItem], scope: &Scope, rows: usize) -> Result<Vec<(Column, bool, Option<bool>)>> {
    let mut keys = Vec::with_capacity(order.len());
    for o in order {
        let v = eval_in(i, scope.clone(), &o.expr)?;
        keys.push((to_column(&v, rows, "an order by expression")?, o.asc, o.nulls_first));
    }
    Ok(keys)
}

/// The `order by` keys of a grouped or context-by result, evaluated per group (or per row
/// of a context) by the result's group evaluator.
pub(crate) fn group_order_keys(ev: &mut GroupEval, i: &mut Interpreter, order: &[OrderItem]) -> Result<Vec<(Column, bool, Option<bool>)>> {
    let exprs: Vec<(&Expr, usize)> = order.iter().map(|o| (&o.expr, 1)).collect();
    let r = if exprs.is_empty() { Vec::new() } else { ev.eval_items(i, &exprs)? };
    order
        .iter()
        .zip(r)
        .map(|(o, c)| Ok((c.into_iter().next().ok_or_else(|| Error::runtime("order by"))?, o.asc, o.nulls_first)))
        .collect()
}

pub(crate) fn result_scope(mut base: Scope, names: &[String], cols: &[Column]) -> Scope {
    for (n, c) in names.iter().zip(cols) {
        if !n.is_empty() {
            base.insert(n.clone(), Value::of_column(c.clone()));
        }
    }
    base
}

/// Push the columns of an evaluated item under its names (empty names are dropped).
pub(crate) fn push_named(names: &mut Vec<String>, cols: &mut Vec<Column>, it: &Item, parts: Vec<Column>) {
    let item_names = it.names_for(parts.len());
    for (n, c) in item_names.iter().zip(parts) {
        if !n.is_empty() {
            names.push(n.clone());
            cols.push(c);
        }
    }
}

/// No grouping: every item on whole columns; scalars broadcast when vectors are present.
pub(crate) fn plain(i: &mut Interpreter, p: &Prepared, frame: &Frame) -> Result<Output> {
    let mut scope = frame.scope();
    // window functions (`f(x) over (...)`) become hidden columns of the scope first
    let mut nwin = 0;
    let mut lifted: Vec<Option<Expr>> = Vec::with_capacity(p.items.len());
    for it in &p.items {
        lifted.push(if super::window::has_window(&it.expr) {
            Some(super::window::lift(i, frame, &mut scope, &it.expr, &mut nwin)?)
        } else {
            None
        });
    }
    let mut vals = Vec::with_capacity(p.items.len());
    for (it, l) in p.items.iter().zip(&lifted) {
        vals.push(eval_in(i, scope.clone(), l.as_ref().unwrap_or(&it.expr))?);
    }
    let mut len: Option<usize> = None;
    for (v, it) in vals.iter().zip(&p.items) {
        let n = match v {
            Value::Vector(c) if it.width() == 1 => Some(c.len()),
            // an array vector (an `ELEM[]` column or a row function's array result) has one row per row
            Value::ArrayVector(a) if it.width() <= 1 => Some(a.rows()),
            Value::Table(t) => Some(t.rows()),
            Value::Tuple(t) if it.width() != 1 => t.first().and_then(|x| match x {
                Value::Vector(c) => Some(c.len()),
                _ => None,
            }),
            Value::Matrix(m) if it.width() > 1 => Some(m.rows),
            Value::Vector(c) if it.width() == 0 => Some(c.len()),
            _ => None,
        };
        if let Some(n) = n {
            match len {
                Some(l) if l != n => {
                    return Err(Error::size(format!(
                        "The select items have different lengths ({l} and {n})"
                    )))
                }
                _ => len = Some(n),
            }
        }
    }
    let scalar = len.is_none();
    let rows = len.unwrap_or(1);
    let (mut names, mut cols) = (Vec::new(), Vec::new());
    for (v, it) in vals.iter().zip(&p.items) {
        let parts = spread_plain(v, rows, it.width())?;
        push_named(&mut names, &mut cols, it, parts);
    }
    let order = if p.order.is_empty() {
        vec![]
    } else {
        let base = if rows == frame.rows { frame.scope() } else { Scope::new() };
        order_keys(i, &p.order, &result_scope(base, &names, &cols), rows)?
    };
    Ok(Output { names, cols, rows, keep: None, order, scalar, limited: false })
}

fn spread_plain(v: &Value, rows: usize, width: usize) -> Result<Vec<Column>> {
    let width = match (width, v) {
        (0, Value::Tuple(t)) if t.len() > 1 => t.len(),
        (0, _) => 1,
        _ => width,
    };
    if width <= 1 {
        if let Value::Table(t) = v {
            if t.ncols() == 1 {
                return Ok(vec![t.cols[0].clone()]);
            }
        }
        return Ok(vec![to_column(v, rows, "a select item")?]);
    }
    let parts: Vec<Value> = match v {
        Value::Tuple(t) => t.iter().cloned().collect(),
        Value::Matrix(m) => (0..m.cols).map(|c| Value::Vector(m.column(c))).collect(),
        Value::Table(t) => t.cols.iter().map(|c| Value::Vector(c.clone())).collect(),
        Value::Vector(c) if rows == 1 => (0..c.len()).map(|k| Value::Scalar(c.slice(k, k + 1))).collect(),
        _ => return Err(Error::size(format!("The item must return {width} values to fill the column names given by `as`"))),
    };
    if parts.len() != width {
        return Err(Error::size(format!("The item returns {} values but {width} column names are given", parts.len())));
    }
    parts.iter().map(|x| to_column(x, rows, "a select item")).collect()
}

/// Whether a select item is (or names) grouping key k.
fn item_is_key(it: &Item, key_name: &str, key_text: &str) -> bool {
    text(&it.expr) == key_text || matches!(&it.expr.kind, ExprKind::Ident(n) if n.eq_ignore_ascii_case(key_name))
}

/// `group by`: one row per key combination, groups in order of first appearance.
fn grouped(i: &mut Interpreter, p: &Prepared, frame: &Frame, g: &[SelectItem]) -> Result<Output> {
    let (kcols, knames) = eval_keys(i, frame, g)?;
    grouped_keys(i, p, frame, &kcols, &knames)
}

/// `group by` on evaluated key columns (names and expression texts beside them).
pub(crate) fn grouped_keys(i: &mut Interpreter, p: &Prepared, frame: &Frame, kcols: &[Column], knames: &[(String, String)]) -> Result<Output> {
    let refs: Vec<&Column> = kcols.iter().collect();
    let groups = group_ids(&refs);
    let keys: Vec<KeyCol> = kcols
        .iter()
        .zip(knames)
        .map(|(c, (name, text))| KeyCol { name: name.clone(), text: text.clone(), col: c.take_usize(&groups.first) })
        .collect();
    let mut ev = GroupEval::new(frame, &groups.gid, groups.n, &keys, false, None);
    let exprs: Vec<(&Expr, usize)> = p.items.iter().map(|it| (&it.expr, it.width())).collect();
    let results = ev.eval_items(i, &exprs)?;
    let (mut names, mut cols) = (Vec::new(), Vec::new());
    // `exec item … group by` returns the item's values alone
    let exec_one = p.exec && p.items.len() == 1 && p.items[0].width() <= 1;
    for (k, key) in keys.iter().enumerate() {
        if !exec_one && !p.items.iter().any(|it| item_is_key(it, &key.name, &knames[k].1)) {
            names.push(key.name.clone());
            cols.push(key.col.clone());
        }
    }
    for (it, parts) in p.items.iter().zip(results) {
        push_named(&mut names, &mut cols, it, parts);
    }
    ev.extra = result_scope(Scope::new(), &names, &cols);
    let keep = match &p.having {
        Some(h) => {
            let r = ev.eval_items(i, &[(h, 1)])?;
            let m = r.into_iter().next().and_then(|v| v.into_iter().next()).ok_or_else(|| Error::runtime("having"))?;
            let mask = super::frame::to_mask(&Value::Vector(m), groups.n)?;
            mask.map(|m| super::frame::mask_rows(&m))
        }
        None => None,
    };
    let order = group_order_keys(&mut ev, i, &p.order)?;
    Ok(Output { names, cols, rows: groups.n, keep, order, scalar: false, limited: false })
}

/// Evaluate a `limit` count (may be an expression).
pub(crate) fn limit_values(i: &mut Interpreter, p: &Prepared) -> Result<Option<(i64, i64)>> {
    if let Some((a, b)) = &p.top {
        return Ok(Some(match b {
            Some(b) => (*a, b.saturating_sub(*a)),
            None => (0, *a),
        }));
    }
    match &p.limit {
        None => Ok(None),
        Some((off, n)) => {
            let nv = i.eval(n)?.as_i64().ok_or_else(|| Error::arg("The limit clause needs an integer"))?;
            let ov = match off {
                Some(o) => i.eval(o)?.as_i64().ok_or_else(|| Error::arg("The limit offset must be an integer"))?,
                None => 0,
            };
            Ok(Some((ov, nv)))
        }
    }
}

/// Rows [offset, offset+count) of a list; a negative count takes from the end.
pub(crate) fn limit_slice(rows: &[usize], off: i64, count: i64) -> Vec<usize> {
    let n = rows.len() as i64;
    let (s, e) = if count < 0 && off == 0 {
        (n.saturating_add(count).max(0), n)
    } else {
        (off.clamp(0, n), off.saturating_add(count.max(0)).clamp(0, n))
    };
    rows[s as usize..e.max(s) as usize].to_vec()
}

/// Keep the first occurrence of every distinct row.
fn distinct_rows(cols: &[Column], rows: &[usize]) -> Vec<usize> {
    let sub: Vec<Column> = cols.iter().map(|c| c.take_usize(rows)).collect();
    let refs: Vec<&Column> = sub.iter().collect();
    let g = group_ids(&refs);
    g.first.iter().map(|&k| rows[k]).collect()
}

pub(crate) fn finish_output(i: &mut Interpreter, p: &Prepared, out: Output) -> Result<Value> {
    let Output { mut names, cols, rows, keep, order, scalar, limited } = out;
    let limit = if limited { None } else { limit_values(i, p)? };
    // every row in its place: no list of row numbers to build (32 MB for 4M rows)
    let all_rows = keep.is_none() && !p.distinct && order.is_empty() && limit.is_none();
    let mut sel: Vec<usize> = if all_rows { Vec::new() } else { keep.unwrap_or_else(|| (0..rows).collect()) };
    if p.distinct {
        sel = distinct_rows(&cols, &sel);
    }
    if !order.is_empty() {
        let keys: Vec<SortKey> = order.iter().map(|(c, asc, nf)| SortKey { col: c, asc: *asc, nulls_first: *nf }).collect();
        // with a leading limit only that many rows must be ordered
        let prefix = match limit {
            Some((off, n)) if off >= 0 && n >= 0 => usize::try_from(off.saturating_add(n)).unwrap_or(usize::MAX),
            _ => usize::MAX,
        };
        sort_rows_top(&keys, &mut sel, prefix);
    }
    if let Some((off, n)) = limit {
        sel = limit_slice(&sel, off, n);
    }
    let identity = all_rows || (sel.len() == rows && sel.iter().enumerate().all(|(k, &r)| k == r));
    let cols: Vec<Column> = if identity { cols } else { cols.iter().map(|c| c.take_usize(&sel)).collect() };
    dedup_names(&mut names);
    if p.exec && cols.len() == 1 {
        let c = cols.into_iter().next().unwrap_or_else(|| Column::nulls(crate::types::DataType::Double, 0));
        if scalar && c.len() == 1 {
            return Ok(Value::Scalar(c));
        }
        return Ok(Value::Vector(c));
    }
    Ok(Value::table(Table::new(names, cols)?))
}
