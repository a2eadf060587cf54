//! The `from` clause: a table variable, a table-valued expression (subquery, join builtin,
//! `loadTable`), a stored table scanned through its `TableSource`, or
//! `a [inner|left|full|right|cross] join b [on …]`. Besides the table, a source records
//! how qualified names (`t2.x`, `a.id`) map to the columns of the result.

use super::frame::{eval_in, Frame};
use super::join::{cross_join, equi_join, right_join, EquiKind};
use super::plan::map_expr;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::table::Table;
use crate::value::Value;
use ahash::{AHashMap, AHashSet};
use beluga_lang::ast::{Arg, BinOp, Expr, ExprKind, FromItem, JoinKind};
use crate::table_source::{table_source, Scan, TableSource};
use std::sync::Arc;

/// Qualifier (table name or alias) → source column → result column.
pub(crate) type Quals = Vec<(String, AHashMap<String, String>)>;

/// The columns a query references (all of them with `*`).
pub(crate) struct Need {
    pub names: AHashSet<String>,
    pub all: bool,
    /// The query's `where` conditions, which a join in `from` may apply to its inputs.
    pub push: Vec<Expr>,
    /// `select top n <columns> from t … order by c desc`: (c, n, the select's columns),
    /// a hint a single-table scan may use (see `Scan::top_desc`).
    pub top_desc: Option<(String, usize, Vec<String>)>,
}

impl Need {
    fn keeps(&self, c: &str) -> bool {
        self.all || self.names.contains(c) || self.names.iter().any(|n| n.eq_ignore_ascii_case(c))
    }
}

pub(crate) struct Source {
    pub table: Arc<Table>,
    pub quals: Quals,
    /// Leading `where` conditions already applied to the join inputs.
    pub consumed: usize,
}

/// Builtins whose first two arguments are the left and right tables of a join.
const JOIN_FUNCS: &[&str] = &["ej", "sej", "lj", "lsj", "fj", "aj", "wj", "pwj", "cj", "pj"];

pub(crate) fn identity(t: &Table) -> AHashMap<String, String> {
    t.names.iter().map(|n| (n.clone(), n.clone())).collect()
}

/// The query's leading row-wise `where` conditions: what a table source may use to skip
/// partitions and rows (the executor applies them again).
pub(crate) fn prune_conditions(i: &Interpreter, needed: &Need) -> Vec<Expr> {
    let is_col = |n: &str| !i.has_var(n) && i.resolve_function(n).is_err();
    needed.push.iter().take_while(|c| super::plan::is_rowwise(i, c, &is_col)).cloned().collect()
}

/// The columns a scan reads (None = every column).
fn load_columns(needed: &Need) -> Option<Vec<String>> {
    if needed.all {
        return None;
    }
    let mut cols: Vec<String> = needed.names.iter().cloned().collect();
    cols.sort_unstable();
    Some(cols)
}

/// Scan a table source for a query: the referenced columns, with the leading row-wise
/// `where` conditions lowered to predicates; one table, or one per partition (`split`).
pub(crate) fn scan_source(i: &mut Interpreter, src: &dyn TableSource, needed: &Need, split: bool, segments: bool) -> Result<Vec<Table>> {
    let names: Vec<String> = src.schema()?.into_iter().map(|(n, _)| n).collect();
    let conds = prune_conditions(i, needed);
    let low = super::lower::lower(i, &names, &conds);
    let cols = load_columns(needed);
    // the top-n hint holds only when the scan applies every `where` condition and the
    // select and order columns are the table's own
    let is_col = |c: &String| names.iter().any(|n| n.eq_ignore_ascii_case(c));
    let exact = conds.len() == needed.push.len() && low.per_cond.iter().all(|c| c.iter().all(Option::is_some));
    let top_desc = needed
        .top_desc
        .as_ref()
        .filter(|(c, _, items)| exact && !split && is_col(c) && items.iter().all(is_col))
        .map(|(c, n, _)| (c.as_str(), *n));
    let mut preds = low.preds;
    preds.extend(super::lower::key_fn_preds(i, src, &preds));
    src.scan(Scan { columns: cols.as_deref(), preds: &preds, partitions: None, split, segments, top_desc })
}

/// Evaluate a value used as a table: tables as is, stored tables through a scan.
pub(crate) fn as_table(i: &mut Interpreter, v: Value, needed: &Need) -> Result<Arc<Table>> {
    match v {
        Value::Table(t) => Ok(t),
        Value::Handle(_) => {
            let src = table_source(&v).ok_or_else(|| Error::runtime("This handle can't be used as a table in a query"))?;
            Ok(Arc::new(crate::table_source::one(scan_source(i, src, needed, false, false)?)?))
        }
        other => Err(Error::type_err(format!(
            "The from clause must be a table, not {}",
            crate::eval::ops::describe(&other)
        ))),
    }
}

fn named(t: Arc<Table>, name: &str) -> Arc<Table> {
    if t.name.is_some() {
        return t;
    }
    let mut t2 = (*t).clone();
    t2.name = Some(name.to_string());
    Arc::new(t2)
}

pub(crate) fn eval_from(i: &mut Interpreter, from: &FromItem, needed: &Need) -> Result<Source> {
    match from {
        FromItem::Table(e, alias) => {
            let mut src = eval_table_expr(i, e, needed)?;
            if let Some(a) = alias {
                let t = named_alias(&src.table, a);
                src.quals.push((a.clone(), identity(&t)));
                src.table = t;
            }
            Ok(src)
        }
        FromItem::Join(a, kind, b, on) => eval_join(i, a, *kind, b, on.as_ref(), needed),
    }
}

fn named_alias(t: &Arc<Table>, alias: &str) -> Arc<Table> {
    let mut t2 = (**t).clone();
    t2.name = Some(alias.to_string());
    Arc::new(t2)
}

fn eval_table_expr(i: &mut Interpreter, e: &Expr, needed: &Need) -> Result<Source> {
    match &e.kind {
        ExprKind::Ident(name) => {
            let v = i.resolve(name).map_err(|_| Error::name(format!("Can't recognize table {name}")))?;
            let t = named(as_table(i, v, needed)?, name);
            let quals = vec![(name.clone(), identity(&t))];
            Ok(Source { table: t, quals, consumed: 0 })
        }
        ExprKind::Call(g, args) => {
            if let ExprKind::Ident(f) = &g.kind {
                if JOIN_FUNCS.contains(&f.as_str()) && !i.has_var(f) {
                    return eval_join_call(i, e, f, args, needed);
                }
            }
            let v = i.eval(e)?;
            Ok(Source { table: as_table(i, v, needed)?, quals: vec![], consumed: 0 })
        }
        _ => {
            let v = i.eval(e)?;
            Ok(Source { table: as_table(i, v, needed)?, quals: vec![], consumed: 0 })
        }
    }
}

/// `from lj(t1, t2, …)`: name the table arguments after their variables (for `t2_x`
/// prefixes) and record how `t1.c` / `t2.c` map to the result.
fn eval_join_call(i: &mut Interpreter, e: &Expr, f: &str, args: &[Arg], needed: &Need) -> Result<Source> {
    let func = match i.resolve_function(f)? {
        Value::Function(func) => func,
        _ => return Err(Error::name(format!("Cannot recognize the token {f}"))),
    };
    let mut pos: Vec<Option<Value>> = Vec::with_capacity(args.len());
    let mut named_args = Vec::new();
    let mut side_names: Vec<Option<String>> = Vec::new();
    for (k, a) in args.iter().enumerate() {
        match a {
            Arg::Pos(Some(x)) => {
                let mut v = i.eval(x)?;
                if k < 2 {
                    let name = match &x.kind {
                        ExprKind::Ident(n) => Some(n.clone()),
                        _ => None,
                    };
                    if let (Value::Table(t), Some(n)) = (&v, &name) {
                        v = Value::Table(named(t.clone(), n));
                    }
                    side_names.push(name);
                }
                pos.push(Some(v));
            }
            Arg::Pos(None) => pos.push(None),
            Arg::Named(n, x) => named_args.push((n.clone(), i.eval(x)?)),
        }
    }
    load_join_handles(i, f, args, &mut pos, needed)?;
    if PROJECTABLE.contains(&f) && !needed.all {
        project_join_args(&mut pos, &side_names, needed);
    }
    let consumed = match f {
        "ej" | "sej" => pushdown(i, &mut pos, &side_names, &needed.push, true)?,
        "lj" | "lsj" | "aj" => pushdown(i, &mut pos, &side_names, &needed.push, false)?,
        _ => 0,
    };
    let v = i.call_func(&func, pos, named_args).map_err(|err| err.or_span(e.span))?;
    let table = as_table(i, v, needed)?;
    let mut quals: Quals = Vec::new();
    if let Some(Some(l)) = side_names.first() {
        // a stored (partitioned) left table: its columns are the result's unprefixed ones
        let right_prefix = side_names.get(1).cloned().flatten().map(|r| format!("{r}_"));
        let left_cols: Option<Vec<String>> = match i.resolve(l) {
            Ok(Value::Table(lt)) => Some(lt.names.clone()),
            Ok(Value::Handle(_)) => Some(
                table
                    .names
                    .iter()
                    .filter(|c| right_prefix.as_ref().map(|p| !c.starts_with(p.as_str())).unwrap_or(true))
                    .cloned()
                    .collect(),
            ),
            _ => None,
        };
        if let Some(cols) = left_cols {
            let m = cols.iter().filter(|c| table.col_index(c).is_some()).map(|c| (c.clone(), c.clone())).collect();
            quals.push((l.clone(), m));
        }
    }
    if let Some(Some(r)) = side_names.get(1) {
        if let Ok(Value::Table(rt)) = i.resolve(r) {
            let mut m = AHashMap::new();
            for c in &rt.names {
                let pref = format!("{r}_{c}");
                if table.col_index(&pref).is_some() {
                    m.insert(c.clone(), pref);
                } else if table.col_index(c).is_some() {
                    m.insert(c.clone(), c.clone());
                }
            }
            quals.push((r.clone(), m));
        }
    }
    Ok(Source { table, quals, consumed })
}

/// Join builtins whose result rows each come from one left row that satisfies a row-wise
/// condition on left columns exactly when the joined row does: the query's `where` on the
/// left columns may filter the stored left table while it is loaded.
const LEFT_PUSH: &[&str] = &["ej", "sej", "lj", "lsj", "aj"];

/// Load the stored-table (handle) inputs of a join builtin: only the referenced columns
/// and the keys, and for the left input of `LEFT_PUSH` joins the partitions and rows the
/// query's leading conditions on its own columns keep (conditions naming a column of an
/// in-memory right table stay for after the join).
fn load_join_handles(i: &mut Interpreter, f: &str, args: &[Arg], pos: &mut [Option<Value>], needed: &Need) -> Result<()> {
    if !pos.iter().take(2).any(|v| matches!(v, Some(Value::Handle(_)))) {
        return Ok(());
    }
    let mut names = needed.names.clone();
    for a in args.iter().skip(2).take(2) {
        if let Arg::Pos(Some(e)) = a {
            if let Ok(kv) = i.eval(e) {
                names.extend(key_list(Some(&Some(kv))));
            }
        }
    }
    let right_cols: Option<AHashSet<String>> = match pos.get(1) {
        Some(Some(Value::Table(r))) => Some(r.names.iter().map(|n| n.to_ascii_lowercase()).collect()),
        _ => None,
    };
    for k in 0..2.min(pos.len()) {
        let Some(v @ Value::Handle(_)) = pos[k].clone() else { continue };
        let push: Vec<Expr> = match (&right_cols, k == 0 && LEFT_PUSH.contains(&f)) {
            (Some(rc), true) => needed
                .push
                .iter()
                .take_while(|c| {
                    let mut clean = true;
                    super::plan::walk(c, &mut |x| match &x.kind {
                        ExprKind::Ident(n) if rc.contains(&n.to_ascii_lowercase()) => clean = false,
                        ExprKind::Member(..) | ExprKind::Select(_) | ExprKind::Exists(_) | ExprKind::Lambda(_) => clean = false,
                        _ => {}
                    });
                    clean
                })
                .cloned()
                .collect(),
            _ => vec![],
        };
        let side_need = Need { names: names.clone(), all: needed.all || !PROJECTABLE.contains(&f), push, top_desc: None };
        pos[k] = Some(Value::Table(as_table(i, v, &side_need)?));
    }
    Ok(())
}

/// Which input of a join a `where` condition can be applied to before joining: it must be
/// row-wise and read columns of one side only (0 = left, 1 = right). Qualified names of
/// that side are rewritten to plain column names.
fn cond_side(i: &Interpreter, c: &Expr, l: &Table, r: &Table, names: &[Option<String>]) -> Option<(usize, Expr)> {
    let (lname, rname) = (names.first().cloned().flatten(), names.get(1).cloned().flatten());
    let (mut left, mut right, mut unknown) = (false, false, false);
    super::plan::walk(c, &mut |x| match &x.kind {
        ExprKind::Ident(n) => {
            if l.col_index(n).is_some() {
                left = true
            } else if r.col_index(n).is_some() {
                right = true
            }
        }
        ExprKind::Member(q, _) => match &q.kind {
            ExprKind::Ident(qn) if Some(qn) == lname.as_ref() => left = true,
            ExprKind::Ident(qn) if Some(qn) == rname.as_ref() => right = true,
            _ => unknown = true,
        },
        ExprKind::Select(_) | ExprKind::Exists(_) | ExprKind::Lambda(_) | ExprKind::Union(..) | ExprKind::With(..) => {
            unknown = true
        }
        _ => {}
    });
    if unknown || left == right {
        return None;
    }
    let (side, t, q) = if left { (0, l, lname) } else { (1, r, rname) };
    let e = map_expr(c, &mut |x| match &x.kind {
        ExprKind::Member(b, col) => match &b.kind {
            ExprKind::Ident(qn) if Some(qn) == q.as_ref() => Some(Expr::new(ExprKind::Ident(col.clone()), x.span)),
            _ => None,
        },
        _ => None,
    });
    if !super::plan::is_rowwise(i, &e, &|n| t.col_index(n).is_some()) {
        return None;
    }
    Some((side, e))
}

/// Apply the leading single-side row-wise `where` conditions to the join inputs (`both`:
/// also to the right input, valid for inner joins). Returns how many were applied.
fn pushdown(i: &mut Interpreter, pos: &mut [Option<Value>], names: &[Option<String>], conds: &[Expr], both: bool) -> Result<usize> {
    let (Some(Some(Value::Table(l))), Some(Some(Value::Table(r)))) = (pos.first(), pos.get(1)) else { return Ok(0) };
    let (mut l, mut r) = (l.clone(), r.clone());
    let mut n = 0;
    for c in conds {
        match cond_side(i, c, &l, &r, names) {
            Some((0, e)) => l = filter_table(i, &l, &e)?,
            Some((1, e)) if both => r = filter_table(i, &r, &e)?,
            _ => break,
        }
        n += 1;
    }
    if n > 0 {
        pos[0] = Some(Value::Table(l));
        pos[1] = Some(Value::Table(r));
    }
    Ok(n)
}

fn filter_table(i: &mut Interpreter, t: &Arc<Table>, cond: &Expr) -> Result<Arc<Table>> {
    let frame = Frame::from_table(t, &AHashSet::new(), true);
    let v = eval_in(i, frame.scope(), cond)?;
    Ok(match super::frame::to_mask(&v, frame.rows)? {
        // a stored input was already loaded with this condition: every row passes, and a
        // copy of the whole table (fresh pages in a cold process) would change nothing
        Some(m) if m.iter().all(|&b| b) => t.clone(),
        Some(m) => {
            let mut f = t.filter(&m);
            f.name = t.name.clone();
            Arc::new(f)
        }
        None => t.clone(),
    })
}

/// `from pt … map` on a stored table: one source per surviving partition, from a split
/// scan of its `TableSource` (`segments`: a partition may come in several sources, one
/// per segment, see `Scan::segments`). None when the from item is not a stored table (the
/// query then runs once, as without `map`).
pub(crate) fn partitions(i: &mut Interpreter, from: Option<&FromItem>, needed: &Need, segments: bool) -> Result<Option<Vec<Source>>> {
    let Some(FromItem::Table(Expr { kind: ExprKind::Ident(name), .. }, alias)) = from else { return Ok(None) };
    let Ok(v @ Value::Handle(_)) = i.resolve(name) else { return Ok(None) };
    let Some(src) = table_source(&v) else { return Ok(None) };
    let parts = scan_source(i, src, needed, true, segments)?;
    let mut out = Vec::with_capacity(parts.len());
    for t in parts {
        let t = named(Arc::new(t), name);
        let mut quals = vec![(name.clone(), identity(&t))];
        if let Some(a) = alias {
            quals.push((a.clone(), identity(&t)));
        }
        out.push(Source { table: t, quals, consumed: 0 });
    }
    Ok(Some(out))
}

/// Join builtins whose arguments 2 and 3 are the key names (inputs may be projected).
const PROJECTABLE: &[&str] = &["ej", "sej", "lj", "lsj", "fj", "aj", "cj"];

/// Strings of a key-name argument.
fn key_list(v: Option<&Option<Value>>) -> Vec<String> {
    match v.and_then(|x| x.as_ref()).and_then(|x| x.column()) {
        Some(c) if c.ty.is_literal() => (0..c.len()).filter_map(|k| c.str_at(k).map(str::to_string)).collect(),
        _ => vec![],
    }
}

/// Keep only the columns of a join input the query can see: referenced names, the join
/// keys, and columns whose prefixed right-side name (`t2_x`) is referenced.
fn project(t: &Arc<Table>, keys: &[String], needed: &Need, rname: Option<&str>) -> Arc<Table> {
    if needed.all {
        return t.clone();
    }
    let keep: Vec<usize> = (0..t.ncols())
        .filter(|&c| {
            let n = &t.names[c];
            needed.keeps(n) || keys.iter().any(|x| x.eq_ignore_ascii_case(n)) || rname.is_some_and(|r| needed.keeps(&format!("{r}_{n}")))
        })
        .collect();
    if keep.len() == t.ncols() {
        return t.clone();
    }
    Arc::new(Table {
        names: keep.iter().map(|&c| t.names[c].clone()).collect(),
        cols: keep.iter().map(|&c| t.cols[c].clone()).collect(),
        keys: vec![],
        name: t.name.clone(),
        keyed: Default::default(),
    })
}

fn project_join_args(pos: &mut [Option<Value>], side_names: &[Option<String>], needed: &Need) {
    let lkeys = key_list(pos.get(2));
    let rkeys = {
        let r = key_list(pos.get(3));
        if r.is_empty() { lkeys.clone() } else { r }
    };
    let rname = side_names.get(1).cloned().flatten().or_else(|| match pos.get(1) {
        Some(Some(Value::Table(t))) => t.name.clone(),
        _ => None,
    });
    for (k, keys) in [(0usize, &lkeys), (1usize, &rkeys)] {
        if let Some(Some(Value::Table(t))) = pos.get(k) {
            let p = project(t, keys, needed, rname.as_deref());
            pos[k] = Some(Value::Table(p));
        }
    }
}

/// Name of a from item for prefixes: its alias, or the variable name.
fn item_name(f: &FromItem) -> Option<String> {
    match f {
        FromItem::Table(_, Some(a)) => Some(a.clone()),
        FromItem::Table(Expr { kind: ExprKind::Ident(n), .. }, None) => Some(n.clone()),
        _ => None,
    }
}

/// Which side a column reference of an `on` condition belongs to, and its column there.
enum Side {
    Left(String),
    Right(String),
}

fn side_of(e: &Expr, l: &Source, r: &Source) -> Option<Side> {
    match &e.kind {
        ExprKind::Member(q, c) => {
            let ExprKind::Ident(q) = &q.kind else { return None };
            let look = |s: &Source| s.quals.iter().find(|(n, _)| n == q).and_then(|(_, m)| m.get(c).cloned());
            if let Some(n) = look(l) {
                return Some(Side::Left(n));
            }
            look(r).map(Side::Right)
        }
        ExprKind::Ident(c) => {
            if l.table.col_index(c).is_some() {
                Some(Side::Left(c.clone()))
            } else if r.table.col_index(c).is_some() {
                Some(Side::Right(c.clone()))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn conjuncts(e: &Expr, out: &mut Vec<Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e.clone()),
    }
}

/// Qualified references rewritten to plain column names of one source.
pub(crate) fn qualify(e: &Expr, table: &Table, quals: &Quals) -> Expr {
    map_expr(e, &mut |x| {
        if let ExprKind::Member(q, c) = &x.kind {
            if let ExprKind::Ident(qn) = &q.kind {
                if table.col_index(qn).is_some() {
                    return None;
                }
                if let Some((_, m)) = quals.iter().find(|(n, _)| n == qn) {
                    if let Some(name) = m.get(c) {
                        return Some(Expr::new(ExprKind::Ident(name.clone()), x.span));
                    }
                }
                let pref = format!("{qn}_{c}");
                if table.col_index(&pref).is_some() {
                    return Some(Expr::new(ExprKind::Ident(pref), x.span));
                }
                if quals.iter().any(|(n, _)| n == qn) && table.col_index(c).is_some() {
                    return Some(Expr::new(ExprKind::Ident(c.clone()), x.span));
                }
            }
        }
        None
    })
}

fn side_refs(e: &Expr, l: &Source, r: &Source) -> (bool, bool) {
    let (mut left, mut right) = (false, false);
    super::plan::walk(e, &mut |x| match &x.kind {
        ExprKind::Member(q, _) => {
            if let ExprKind::Ident(qn) = &q.kind {
                if l.quals.iter().any(|(n, _)| n == qn) {
                    left = true;
                } else if r.quals.iter().any(|(n, _)| n == qn) {
                    right = true;
                }
            }
        }
        ExprKind::Ident(c) => {
            if l.table.col_index(c).is_some() {
                left = true;
            } else if r.table.col_index(c).is_some() {
                right = true;
            }
        }
        _ => {}
    });
    (left, right)
}

/// Rows of a source kept by a filter condition (None = all).
fn filter_mask(i: &mut Interpreter, s: &Source, cond: &Expr) -> Result<Vec<bool>> {
    let e = qualify(cond, &s.table, &s.quals);
    let frame = Frame::from_table(&s.table, &AHashSet::new(), true);
    let v = eval_in(i, frame.scope(), &e)?;
    Ok(super::frame::to_mask(&v, frame.rows)?.unwrap_or_else(|| vec![true; frame.rows]))
}

fn and_masks(a: Option<Vec<bool>>, b: Vec<bool>) -> Option<Vec<bool>> {
    Some(match a {
        None => b,
        Some(a) => a.iter().zip(&b).map(|(x, y)| *x && *y).collect(),
    })
}

fn eval_join(
    i: &mut Interpreter,
    a: &FromItem,
    kind: JoinKind,
    b: &FromItem,
    on: Option<&Expr>,
    needed: &Need,
) -> Result<Source> {
    let inner = Need { names: needed.names.clone(), all: needed.all, push: vec![], top_desc: None };
    let l = eval_from(i, a, &inner)?;
    let r = eval_from(i, b, &inner)?;
    let rname = item_name(b).or_else(|| r.table.name.clone()).unwrap_or_else(|| "rhs".to_string());
    let (mut lkeys, mut rkeys) = (Vec::new(), Vec::new());
    let (mut lmask, mut rmask): (Option<Vec<bool>>, Option<Vec<bool>>) = (None, None);
    let mut parts = Vec::new();
    if let Some(on) = on {
        conjuncts(on, &mut parts);
    }
    for p in &parts {
        if let ExprKind::Binary(BinOp::Eq, x, y) = &p.kind {
            match (side_of(x, &l, &r), side_of(y, &l, &r)) {
                (Some(Side::Left(lc)), Some(Side::Right(rc))) | (Some(Side::Right(rc)), Some(Side::Left(lc))) => {
                    lkeys.push(lc);
                    rkeys.push(rc);
                    continue;
                }
                _ => {}
            }
        }
        match side_refs(p, &l, &r) {
            (true, false) => lmask = and_masks(lmask, filter_mask(i, &l, p)?),
            (false, true) | (false, false) => rmask = and_masks(rmask, filter_mask(i, &r, p)?),
            (true, true) => {
                return Err(Error::runtime("A join condition must compare a left column with a right column"))
            }
        }
    }
    // only the referenced columns (and keys) take part in the join
    let (l, r) = (
        Source { table: project(&l.table, &lkeys, needed, Some(&rname)), quals: l.quals, consumed: 0 },
        Source { table: project(&r.table, &rkeys, needed, Some(&rname)), quals: r.quals, consumed: 0 },
    );
    let (table, rnames) = match kind {
        JoinKind::Cross => {
            let (mut l2, mut r2) = (l.table.clone(), r.table.clone());
            if let Some(m) = &lmask {
                l2 = Arc::new(l2.filter(m));
            }
            if let Some(m) = &rmask {
                r2 = Arc::new(r2.filter(m));
            }
            cross_join(&l2, &r2, &rname)?
        }
        _ if lkeys.is_empty() => return Err(Error::runtime("A join needs an `on` condition with an equality of a left and a right column")),
        JoinKind::Inner => equi_join(&l.table, &r.table, &lkeys, &rkeys, EquiKind::Inner, lmask.as_deref(), rmask.as_deref(), &rname)?,
        JoinKind::Left => equi_join(&l.table, &r.table, &lkeys, &rkeys, EquiKind::Left, lmask.as_deref(), rmask.as_deref(), &rname)?,
        JoinKind::LeftSemi => equi_join(&l.table, &r.table, &lkeys, &rkeys, EquiKind::LeftSemi, lmask.as_deref(), rmask.as_deref(), &rname)?,
        JoinKind::Full => equi_join(&l.table, &r.table, &lkeys, &rkeys, EquiKind::Full, lmask.as_deref(), rmask.as_deref(), &rname)?,
        JoinKind::Right => {
            let (l2, r2) = (apply_mask(&l.table, &lmask), apply_mask(&r.table, &rmask));
            right_join(&l2, &r2, &lkeys, &rkeys, &rname)?
        }
    };
    // right-side qualified names follow the renaming; dropped key columns map to the left key
    let mut rmap: AHashMap<String, String> = AHashMap::new();
    for (k, n) in r.table.names.iter().enumerate() {
        match &rnames[k] {
            Some(new) => {
                rmap.insert(n.clone(), new.clone());
            }
            None => {
                if let Some(p) = rkeys.iter().position(|x| x.eq_ignore_ascii_case(n)) {
                    rmap.insert(n.clone(), lkeys[p].clone());
                }
            }
        }
    }
    let mut quals = l.quals;
    for (q, m) in r.quals {
        let mapped = m.into_iter().filter_map(|(c, old)| rmap.get(&old).map(|new| (c, new.clone()))).collect();
        quals.push((q, mapped));
    }
    Ok(Source { table: Arc::new(table), quals, consumed: 0 })
}

fn apply_mask(t: &Arc<Table>, m: &Option<Vec<bool>>) -> Arc<Table> {
    match m {
        Some(m) => Arc::new(t.filter(m)),
        None => t.clone(),
    }
}
