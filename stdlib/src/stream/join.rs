//! The streaming join engines: `createAsofJoinEngine`, `createEquiJoinEngine` (alias
//! `createEqualJoinEngine`), `createLookupJoinEngine`, `createLeftSemiJoinEngine`, and the
//! ways rows reach their two sides (`appendForJoin`, `getLeftStream`, `getRightStream`).
//!
//! Why here and how: tutorials join a trade stream to a quote stream (asof), to a
//! dimension table (lookup) or to another stream on equal keys (equi, left semi). Each
//! engine keeps per-key state; a batch appended to either side is matched row by row
//! through index arithmetic only (binary search on a key's sorted times, hash lookups),
//! and the metrics are then evaluated once over the whole batch of matched rows: the
//! left rows and the right rows taken by index (-1 gives NULLs) bound as columns.
//!
//! Rules kept from the manuals (funcs/c/create*JoinEngine.md, stream/*_join_engine.md):
//! * metrics see the left table's columns by name, then the right table's columns whose
//!   names the left does not have; `tableName.col` reads a column of one side, tableName
//!   being the name the side's table is shared (or held) under;
//! * output columns: (asof, equi: the left time) then the matching columns (left's
//!   values) then the metrics (a metric giving a tuple gives several columns);
//! * asof: per key, a left row is joined when a right row of that key with a later time
//!   has arrived (or, with `delayedTime`, when the latest left time is more than
//!   `delayedTime` past it), with the key's latest right row whose time is at or before
//!   the left row's time (none: NULLs); `useSystemTime=true` joins each left row as it
//!   arrives with the key's latest right row, time = the system time; output is grouped
//!   by key unless `sortByTime=true` (then ordered by time within what one append emits);
//! * equi: a left row and a right row with equal matching columns and time are joined
//!   once, whichever arrives second triggers the output;
//! * lookup: each left row is joined at once with the key's latest right row (by
//!   `rightTimeColumn` when given, else arrival); unmatched rows give NULLs unless
//!   `isInnerJoin=true`; `keepDuplicates=true` joins with every right row of the key
//!   (inner). A plain right table is read when the engine is created and, with
//!   `checkTimes`, read again before each left batch (Beluga has no timer thread);
//! * left semi: a left row is joined with the first (or, `updateRightTable=true`, the
//!   latest) right row of its key; a left row without one waits for it.
//! Not supported (an error says so): snapshots, outputElapsedMicroseconds.

use super::engine::{common, metric_exprs, register_with, Common, EngineCore};
use ahash::AHashMap;
use beluga_lang::ast::Expr;
use beluga_runtime::eval::ops::describe;
use beluga_runtime::{CallCtx, Column, DataType, Error, Key, Result, Table, Value};
use std::sync::Arc;

// ------------------------------------------------------------------ shared parts

/// How the metrics see the two sides.
struct Binding {
    metrics: Vec<Arc<Expr>>,
    left_alias: Option<String>,
    right_alias: Option<String>,
}

impl Binding {
    /// Evaluate the metrics over matched rows (`left` and `right` have equal lengths).
    fn eval(&self, i: &mut CallCtx, left: &Table, right: &Table) -> Result<Vec<Column>> {
        let n = left.rows();
        let mut scope: AHashMap<String, Value> =
            AHashMap::with_capacity(left.ncols() + right.ncols() + 2);
        for (name, c) in right.names.iter().zip(&right.cols) {
            scope.insert(name.clone(), Value::Vector(c.clone()));
        }
        for (name, c) in left.names.iter().zip(&left.cols) {
            scope.insert(name.clone(), Value::Vector(c.clone()));
        }
        if let Some(a) = &self.right_alias {
            scope.insert(a.clone(), Value::table(right.clone()));
        }
        if let Some(a) = &self.left_alias {
            scope.insert(a.clone(), Value::table(left.clone()));
        }
        let mut out = Vec::new();
        for e in &self.metrics {
            let v = i.eval_with_columns(scope.clone(), e)?;
            columns_of(v, n, &mut out)?;
        }
        Ok(out)
    }

    /// The output rows of matched pairs: left row `li[j]` with right row `ri[j]`; the
    /// output starts with the left table's columns at `prefix` (time, keys), then one
    /// column per metric. None when nothing matched.
    fn joined(
        &self,
        i: &mut CallCtx,
        left: &Table,
        li: &[i64],
        right: &Table,
        ri: &[i64],
        prefix: impl IntoIterator<Item = usize>,
    ) -> Result<Option<Table>> {
        if li.is_empty() {
            return Ok(None);
        }
        let l = left.take(li);
        let r = right.take(ri);
        let metrics = self.eval(i, &l, &r)?;
        let prefix = prefix.into_iter().map(|k| (l.names[k].clone(), l.cols[k].clone())).collect();
        Ok(Some(output(prefix, metrics)?))
    }
}

/// A metric's value as output columns of `n` rows.
fn columns_of(v: Value, n: usize, out: &mut Vec<Column>) -> Result<()> {
    match v {
        Value::Vector(c) if c.len() == n => out.push(c),
        Value::Vector(c) => {
            return Err(Error::size(format!(
                "a metric gave {} values for {n} joined rows (join metrics must not be aggregates)",
                c.len()
            )))
        }
        Value::Scalar(c) => out.push(c.take_usize(&vec![0; n])),
        Value::Void => out.push(Column::nulls(DataType::Double, n)),
        Value::Tuple(items) => {
            for it in items.iter() {
                columns_of(it.clone(), n, out)?;
            }
        }
        other => {
            return Err(Error::type_err(format!(
                "a metric gave {}, not a column",
                describe(&other)
            )))
        }
    }
    Ok(())
}

/// The output table: prefix columns (time, keys) then the metric columns.
fn output(prefix: Vec<(String, Column)>, metrics: Vec<Column>) -> Result<Table> {
    let mut names = Vec::new();
    let mut cols = Vec::new();
    for (n, c) in prefix {
        names.push(n);
        cols.push(c);
    }
    for (k, c) in metrics.into_iter().enumerate() {
        names.push(format!("factor{}", k + 1));
        cols.push(c);
    }
    Table::new(names, cols)
}

fn append_table(a: &mut Table, b: &Table) {
    for (c, n) in a.cols.iter_mut().zip(&b.cols) {
        c.append(n);
    }
}

/// Matching column names: a name or names (same on both sides) or a tuple of two lists.
fn matching(
    what: &str,
    v: &Value,
    left: &Table,
    right: &Table,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let (ln, rn) = match v {
        Value::Tuple(items)
            if items.len() == 2 && items.iter().all(|x| !matches!(x, Value::Scalar(_))) =>
        {
            (
                crate::table::names_arg(what, &items[0])?,
                crate::table::names_arg(what, &items[1])?,
            )
        }
        other => {
            let n = crate::table::names_arg(what, other)?;
            (n.clone(), n)
        }
    };
    if ln.len() != rn.len() || ln.is_empty() {
        return Err(Error::arg(format!(
            "{what}: matchingColumn must name as many left as right columns"
        )));
    }
    let find = |t: &Table, n: &str, side: &str| {
        t.col_index(n).ok_or_else(|| {
            Error::name(format!(
                "{what}: the matching column {n} is not a column of the {side} table"
            ))
        })
    };
    let l = ln
        .iter()
        .map(|n| find(left, n, "left"))
        .collect::<Result<Vec<_>>>()?;
    let r = rn
        .iter()
        .map(|n| find(right, n, "right"))
        .collect::<Result<Vec<_>>>()?;
    Ok((l, r))
}

/// Time column names: one name (both sides) or two.
fn time_cols(
    what: &str,
    v: Option<&Value>,
    left: &Table,
    right: &Table,
) -> Result<Option<(usize, usize)>> {
    let Some(v) = v else { return Ok(None) };
    let n = crate::table::names_arg(what, v)?;
    let (ln, rn) = match n.len() {
        1 => (n[0].clone(), n[0].clone()),
        2 => (n[0].clone(), n[1].clone()),
        _ => {
            return Err(Error::arg(format!(
                "{what}: timeColumn must be one name or two (left, right)"
            )))
        }
    };
    let l = left.col_index(&ln).ok_or_else(|| {
        Error::name(format!(
            "{what}: the time column {ln} is not a column of the left table"
        ))
    })?;
    let r = right.col_index(&rn).ok_or_else(|| {
        Error::name(format!(
            "{what}: the time column {rn} is not a column of the right table"
        ))
    })?;
    if left.cols[l].ty != right.cols[r].ty {
        return Err(Error::type_err(format!(
            "{what}: the time columns {ln} and {rn} must have the same type"
        )));
    }
    Ok(Some((l, r)))
}

/// The name a table, stream table or engine is shared or held under (for `name.col`).
fn alias_of(i: &CallCtx, v: &Value) -> Option<String> {
    if let Value::Handle(h) = v {
        if let Ok(m) = i.shared().lock() {
            let mut names: Vec<&String> = m
                .iter()
                .filter(|(_, x)| matches!(x, Value::Handle(g) if Arc::ptr_eq(g, h)))
                .map(|(k, _)| k)
                .collect();
            names.sort();
            if let Some(n) = names.first() {
                return Some((*n).clone());
            }
        }
        let mut names: Vec<&String> = i
            .globals()
            .iter()
            .filter(|(_, x)| matches!(x, Value::Handle(g) if Arc::ptr_eq(g, h)))
            .map(|(k, _)| k)
            .collect();
        names.sort();
        return names.first().map(|n| (*n).clone());
    }
    crate::meta::var_holding(i, v).or_else(|| {
        let Value::Table(t) = v else { return None };
        let m = i.shared().lock().ok()?;
        m.iter()
            .find(|(_, x)| matches!(x, Value::Table(u) if Arc::ptr_eq(u, t)))
            .map(|(k, _)| k.clone())
    })
}

/// The columns (no rows) of a table argument.
fn table_schema(what: &str, name: &str, v: &Value) -> Result<Table> {
    match v {
        Value::Table(t) => Ok(t.slice(0, 0)),
        Value::Handle(h) => match h.table_source() {
            Some(src) => Ok(src.table()?.slice(0, 0)),
            None => Err(Error::arg(format!("{what}: {name} must be a table"))),
        },
        other => Err(Error::arg(format!(
            "{what}: {name} must be a table, not {}",
            describe(other)
        ))),
    }
}

fn keys_at(t: &Table, cols: &[usize], r: usize) -> Vec<Key> {
    cols.iter().map(|&c| Key::of(&t.cols[c], r)).collect()
}

fn no_snapshots(what: &str, get: &dyn Fn(&str) -> Option<Value>) -> Result<()> {
    for p in ["snapshotDir", "snapshotIntervalInMsgCount"] {
        if get(p).is_some() {
            return Err(Error::unsupported(what, "engine snapshots"));
        }
    }
    if get("outputElapsedMicroseconds")
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
    {
        return Err(Error::unsupported(what, "outputElapsedMicroseconds"));
    }
    Ok(())
}

/// Arguments by parameter name (positional, as the registry passed them).
struct Args<'a> {
    names: &'static [&'static str],
    vals: &'a [Value],
}

impl Args<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        let k = self.names.iter().position(|n| *n == name)?;
        self.vals
            .get(k)
            .filter(|v| !matches!(v, Value::Void))
            .cloned()
    }
}

/// What every join engine's creation reads first, in the same order: its named arguments,
/// no snapshot options, the name and left (dummy) table, the right table's schema (or the one
/// the caller read, for a lookup engine's table or query), the metrics with both tables'
/// aliases, and the matching columns.
struct Setup<'a> {
    a: Args<'a>,
    c: Common,
    right0: Table,
    bind: Binding,
    lkeys: Vec<usize>,
    rkeys: Vec<usize>,
}

fn setup<'a>(
    i: &mut CallCtx,
    what: &str,
    names: &'static [&'static str],
    args: &'a [Value],
    right: Option<Table>,
) -> Result<Setup<'a>> {
    let a = Args { names, vals: args };
    no_snapshots(what, &|n| a.get(n))?;
    let c = common(i, what, &args[0], &args[1])?;
    let right0 = match right {
        Some(t) => t,
        None => table_schema(what, "rightTable", &args[2])?,
    };
    let bind = Binding {
        metrics: metric_exprs(what, &args[4])?,
        left_alias: alias_of(i, &args[1]),
        right_alias: alias_of(i, &args[2]),
    };
    let (lkeys, rkeys) = matching(what, &args[5], &c.dummy, &right0)?;
    Ok(Setup { a, c, right0, bind, lkeys, rkeys })
}

// ------------------------------------------------------------------ asof join

struct AsofKey {
    /// left rows waiting for their join, and their times
    left: Table,
    ltimes: Vec<i64>,
    right: Table,
    rtimes: Vec<i64>,
}

struct Asof {
    bind: Binding,
    lkeys: Vec<usize>,
    rkeys: Vec<usize>,
    /// (left, right) time columns; None with useSystemTime
    time: Option<(usize, usize)>,
    delayed: Option<i64>,
    sort_by_time: bool,
    garbage: usize,
    left0: Table,
    right0: Table,
    keys: AHashMap<Vec<Key>, AsofKey>,
    latest_left: i64,
}

impl Asof {
    fn key_state(&mut self, k: Vec<Key>) -> &mut AsofKey {
        let (l, r) = (self.left0.clone(), self.right0.clone());
        self.keys.entry(k).or_insert_with(|| AsofKey {
            left: l,
            ltimes: Vec::new(),
            right: r,
            rtimes: Vec::new(),
        })
    }

    /// Join what is ready in the given keys: (left rows, matched right rows, times).
    fn emit(&mut self, keys: &[Vec<Key>]) -> (Table, Table, Vec<i64>) {
        let mut lout = self.left0.clone();
        let mut rout = self.right0.clone();
        let mut times = Vec::new();
        let (delayed, latest, garbage) = (self.delayed, self.latest_left, self.garbage);
        for k in keys {
            let Some(s) = self.keys.get_mut(k) else {
                continue;
            };
            if s.ltimes.is_empty() {
                continue;
            }
            let rmax = s.rtimes.last().copied().unwrap_or(i64::MIN);
            let mut ready = s.ltimes.partition_point(|&t| t < rmax);
            if let Some(d) = delayed {
                ready = ready.max(s.ltimes.partition_point(|&t| latest.saturating_sub(t) > d));
            }
            if ready == 0 {
                continue;
            }
            let idx: Vec<i64> = s.ltimes[..ready]
                .iter()
                .map(|&t| s.rtimes.partition_point(|&x| x <= t) as i64 - 1)
                .collect();
            append_table(&mut lout, &s.left.slice(0, ready));
            append_table(&mut rout, &s.right.take(&idx));
            times.extend_from_slice(&s.ltimes[..ready]);
            // right rows before the last one matched can never be matched again
            let keep_from = idx.last().copied().unwrap_or(-1).max(0) as usize;
            if s.rtimes.len() > garbage && keep_from > 0 {
                s.right = s.right.slice(keep_from, s.right.rows());
                s.rtimes.drain(..keep_from);
            }
            s.left = s.left.slice(ready, s.left.rows());
            s.ltimes.drain(..ready);
        }
        (lout, rout, times)
    }

    fn finish(
        &mut self,
        i: &mut CallCtx,
        left: Table,
        right: Table,
        times: Vec<i64>,
    ) -> Result<Option<Table>> {
        if left.rows() == 0 {
            return Ok(None);
        }
        let (left, right) = if self.sort_by_time {
            let mut order: Vec<usize> = (0..times.len()).collect();
            order.sort_by_key(|&r| times[r]);
            (left.take_usize(&order), right.take_usize(&order))
        } else {
            (left, right)
        };
        let metrics = self.bind.eval(i, &left, &right)?;
        let mut prefix = Vec::new();
        match self.time {
            Some((lt, _)) => prefix.push((left.names[lt].clone(), left.cols[lt].clone())),
            None => {
                let now = super_now(i)?;
                prefix.push((
                    "time".to_string(),
                    Column::from_vec(DataType::Timestamp, vec![now; left.rows()]),
                ));
            }
        }
        for &k in &self.lkeys {
            prefix.push((left.names[k].clone(), left.cols[k].clone()));
        }
        Ok(Some(output(prefix, metrics)?))
    }
}

fn super_now(i: &mut CallCtx) -> Result<i64> {
    match i.call_builtin_by_name("now", vec![])? {
        Value::Scalar(c) => Ok(c.i64_at(0).unwrap_or(0)),
        _ => Ok(0),
    }
}

impl EngineCore for Asof {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let groups = super::rows_by_key(&rows, &self.lkeys);
        let mut touched = Vec::with_capacity(groups.len());
        let tcol = self.time.map(|(l, _)| l);
        for (k, rs) in groups {
            let part = rows.take_usize(&rs);
            let ts: Vec<i64> = match tcol {
                Some(c) => (0..part.rows())
                    .map(|r| part.cols[c].i64_at(r).unwrap_or(i64::MIN))
                    .collect(),
                None => vec![i64::MAX - 1; part.rows()],
            };
            if let Some(&m) = ts.iter().max() {
                self.latest_left = self.latest_left.max(m);
            }
            let s = self.key_state(k.clone());
            append_table(&mut s.left, &part);
            s.ltimes.extend(ts);
            touched.push(k);
        }
        if self.time.is_none() {
            // system time: each left row joins as it arrives with the latest right row
            let mut lout = self.left0.clone();
            let mut rout = self.right0.clone();
            for k in &touched {
                let Some(s) = self.keys.get_mut(k) else {
                    continue;
                };
                let last = s.right.rows() as i64 - 1;
                let n = s.left.rows();
                append_table(&mut lout, &s.left);
                append_table(&mut rout, &s.right.take(&vec![last; n]));
                s.left = s.left.slice(n, n);
                s.ltimes.clear();
            }
            return self.finish(i, lout, rout, Vec::new());
        }
        let keys: Vec<Vec<Key>> = if self.delayed.is_some() {
            self.keys.keys().cloned().collect()
        } else {
            touched
        };
        let (l, r, t) = self.emit(&keys);
        self.finish(i, l, r, t)
    }

    fn feed_right(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let groups = super::rows_by_key(&rows, &self.rkeys);
        let mut touched = Vec::with_capacity(groups.len());
        for (k, rs) in groups {
            let part = rows.take_usize(&rs);
            let ts: Vec<i64> = match self.time {
                Some((_, c)) => (0..part.rows())
                    .map(|r| part.cols[c].i64_at(r).unwrap_or(i64::MIN))
                    .collect(),
                None => vec![0; part.rows()],
            };
            let sys = self.time.is_none();
            let s = self.key_state(k.clone());
            if sys {
                // only the latest right row is ever used
                let n = part.rows();
                s.right = part.slice(n - 1, n);
                s.rtimes = vec![0];
                continue;
            }
            append_table(&mut s.right, &part);
            s.rtimes.extend(ts);
            touched.push(k);
        }
        let (l, r, t) = self.emit(&touched);
        self.finish(i, l, r, t)
    }

    fn groups(&self) -> usize {
        self.keys.len()
    }
}

pub const ASOF_PARAMS: &[&str] = &[
    "name",
    "leftTable",
    "rightTable",
    "outputTable",
    "metrics",
    "matchingColumn",
    "timeColumn",
    "useSystemTime",
    "delayedTime",
    "garbageSize",
    "sortByTime",
    "outputElapsedMicroseconds",
    "snapshotDir",
    "snapshotIntervalInMsgCount",
];

pub fn create_asof(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createAsofJoinEngine";
    let Setup { a, c, right0, bind, lkeys, rkeys } = setup(i, W, ASOF_PARAMS, &args, None)?;
    let sys = a
        .get("useSystemTime")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let time = if sys {
        None
    } else {
        time_cols(W, a.get("timeColumn").as_ref(), &c.dummy, &right0)?
    };
    if !sys && time.is_none() {
        return Err(Error::arg(format!(
            "{W}: timeColumn is required unless useSystemTime=true"
        )));
    }
    let delayed = match a.get("delayedTime") {
        Some(v) => match v.as_i64() {
            Some(d) if d > 0 => Some(d),
            _ => {
                return Err(Error::arg(format!(
                    "{W}: delayedTime must be a positive integer"
                )))
            }
        },
        None => None,
    };
    let sort_by_time = a
        .get("sortByTime")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    if sort_by_time && delayed.is_some() {
        return Err(Error::arg(format!(
            "{W}: sortByTime=true can't be combined with delayedTime"
        )));
    }
    let garbage = a
        .get("garbageSize")
        .and_then(|v| v.as_i64())
        .unwrap_or(5000)
        .max(1) as usize;
    let core = Asof {
        bind,
        lkeys,
        rkeys,
        time,
        delayed,
        sort_by_time,
        garbage,
        left0: c.dummy.clone(),
        right0: right0.clone(),
        keys: AHashMap::new(),
        latest_left: i64::MIN,
    };
    register_with(
        i,
        W,
        "AsofJoinEngine",
        c,
        Some(right0),
        Box::new(core),
        &args[3],
        None,
        true,
    )
}

// ------------------------------------------------------------------ equi join

struct Equi {
    bind: Binding,
    /// matching columns then the time column, per side
    lcols: Vec<usize>,
    rcols: Vec<usize>,
    ltime: usize,
    left: Table,
    right: Table,
    /// per key: the left row and the right row stored, and whether they were joined
    pairs: AHashMap<Vec<Key>, (i64, i64, bool)>,
}

impl Equi {
    fn side(&mut self, i: &mut CallCtx, rows: Table, is_left: bool) -> Result<Option<Table>> {
        let base = if is_left {
            self.left.rows()
        } else {
            self.right.rows()
        } as i64;
        let cols = if is_left {
            self.lcols.clone()
        } else {
            self.rcols.clone()
        };
        let (mut li, mut ri) = (Vec::new(), Vec::new());
        for r in 0..rows.rows() {
            let k = keys_at(&rows, &cols, r);
            let e = self.pairs.entry(k).or_insert((-1, -1, false));
            if is_left {
                e.0 = base + r as i64;
            } else {
                e.1 = base + r as i64;
            }
            if e.0 >= 0 && e.1 >= 0 && !e.2 {
                e.2 = true;
                li.push(e.0);
                ri.push(e.1);
            }
        }
        if is_left {
            append_table(&mut self.left, &rows);
        } else {
            append_table(&mut self.right, &rows);
        }
        let keys = &self.lcols[..self.lcols.len() - 1];
        let prefix = std::iter::once(self.ltime).chain(keys.iter().copied());
        self.bind.joined(i, &self.left, &li, &self.right, &ri, prefix)
    }
}

impl EngineCore for Equi {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        self.side(i, rows, true)
    }
    fn feed_right(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        self.side(i, rows, false)
    }
    fn groups(&self) -> usize {
        self.pairs.len()
    }
}

pub const EQUI_PARAMS: &[&str] = &[
    "name",
    "leftTable",
    "rightTable",
    "outputTable",
    "metrics",
    "matchingColumn",
    "timeColumn",
    "garbageSize",
    "maxDelayedTime",
    "snapshotDir",
    "snapshotIntervalInMsgCount",
];

pub fn create_equi(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createEquiJoinEngine";
    let Setup { a, c, right0, bind, lkeys: mut lcols, rkeys: mut rcols } = setup(i, W, EQUI_PARAMS, &args, None)?;
    let (lt, rt) = time_cols(W, a.get("timeColumn").as_ref(), &c.dummy, &right0)?
        .ok_or_else(|| Error::arg(format!("{W}: timeColumn is required")))?;
    lcols.push(lt);
    rcols.push(rt);
    let core = Equi {
        bind,
        lcols,
        rcols,
        ltime: lt,
        left: c.dummy.clone(),
        right: right0.clone(),
        pairs: AHashMap::new(),
    };
    register_with(
        i,
        W,
        "EquiJoinEngine",
        c,
        Some(right0),
        Box::new(core),
        &args[3],
        None,
        true,
    )
}

// ------------------------------------------------------------------ lookup join

/// Where a lookup join engine's right rows come from besides appends: a table held by a
/// variable or a query, read again before each left batch (`checkTimes`).
enum Refresh {
    None,
    Var(String),
    Query(Value),
}

struct Lookup {
    bind: Binding,
    lkeys: Vec<usize>,
    rkeys: Vec<usize>,
    rtime: Option<usize>,
    keep_dup: bool,
    inner: bool,
    right0: Table,
    /// the right rows kept and, per key, their positions (the latest only, unless keepDuplicates)
    right: Table,
    index: AHashMap<Vec<Key>, Vec<usize>>,
    refresh: Refresh,
}

impl Lookup {
    fn add_right(&mut self, rows: &Table) {
        let base = self.right.rows();
        append_table(&mut self.right, rows);
        for r in 0..rows.rows() {
            let k = keys_at(rows, &self.rkeys, r);
            let pos = base + r;
            let e = self.index.entry(k).or_default();
            if self.keep_dup {
                e.push(pos);
                continue;
            }
            let newer = match (self.rtime, e.first()) {
                (Some(tc), Some(&old)) => {
                    self.right.cols[tc].i64_at(pos).unwrap_or(i64::MIN)
                        >= self.right.cols[tc].i64_at(old).unwrap_or(i64::MIN)
                }
                _ => true,
            };
            if newer {
                *e = vec![pos];
            }
        }
        // keep the store near the size of what is in use
        if !self.keep_dup && self.right.rows() > 2 * self.index.len() + 1024 {
            let mut keep: Vec<usize> = self.index.values().flatten().copied().collect();
            keep.sort_unstable();
            let remap: AHashMap<usize, usize> =
                keep.iter().enumerate().map(|(n, &o)| (o, n)).collect();
            self.right = self.right.take_usize(&keep);
            for v in self.index.values_mut() {
                for p in v.iter_mut() {
                    *p = remap[p];
                }
            }
        }
    }

    fn reload(&mut self, i: &mut CallCtx) -> Result<()> {
        let v = match &self.refresh {
            Refresh::None => return Ok(()),
            Refresh::Var(n) => i
                .globals()
                .get(n)
                .cloned()
                .or_else(|| i.get_shared(n))
                .ok_or_else(|| Error::name(format!("the right table {n} no longer exists")))?,
            Refresh::Query(q) => {
                let Value::Code(e) = q else { return Ok(()) };
                let e = e.clone();
                i.eval_with_columns(AHashMap::new(), &e)?
            }
        };
        let t = match &v {
            Value::Table(t) => t.as_ref().clone(),
            Value::Handle(h) => match h.table_source() {
                Some(s) => s.table()?,
                None => return Err(Error::arg("the right table is not a table")),
            },
            other => {
                return Err(Error::arg(format!(
                    "the right table is {}, not a table",
                    describe(other)
                )))
            }
        };
        let t = crate::core::append_rows(self.right0.clone(), &Value::table(t))?;
        self.right = self.right0.clone();
        self.index.clear();
        self.add_right(&t);
        Ok(())
    }
}

impl EngineCore for Lookup {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        self.reload(i)?;
        let (mut li, mut ri) = (
            Vec::with_capacity(rows.rows()),
            Vec::with_capacity(rows.rows()),
        );
        for r in 0..rows.rows() {
            match self.index.get(&keys_at(&rows, &self.lkeys, r)) {
                Some(ps) => {
                    for &p in ps {
                        li.push(r as i64);
                        ri.push(p as i64);
                    }
                }
                None if !self.inner && !self.keep_dup => {
                    li.push(r as i64);
                    ri.push(-1);
                }
                None => {}
            }
        }
        self.bind.joined(i, &rows, &li, &self.right, &ri, self.lkeys.iter().copied())
    }
    fn feed_right(&mut self, _i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        self.add_right(&rows);
        Ok(None)
    }
    fn groups(&self) -> usize {
        self.index.len()
    }
}

pub const LOOKUP_PARAMS: &[&str] = &[
    "name",
    "leftTable",
    "rightTable",
    "outputTable",
    "metrics",
    "matchingColumn",
    "rightTimeColumn",
    "checkTimes",
    "outputElapsedMicroseconds",
    "keepDuplicates",
    "isInnerJoin",
    "snapshotDir",
    "snapshotIntervalInMsgCount",
];

pub fn create_lookup(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createLookupJoinEngine";
    let rv = args[2].clone();
    let (right0, rows0) = match &rv {
        Value::Code(e) => {
            let e = e.clone();
            let t = match i.eval_with_columns(AHashMap::new(), &e)? {
                Value::Table(t) => t.as_ref().clone(),
                other => {
                    return Err(Error::arg(format!(
                        "{W}: the rightTable query gave {}, not a table",
                        describe(&other)
                    )))
                }
            };
            (t.slice(0, 0), Some(t))
        }
        Value::Table(t) => (t.slice(0, 0), Some(t.as_ref().clone())),
        other => (table_schema(W, "rightTable", other)?, None),
    };
    let Setup { a, c, right0, bind, lkeys, rkeys } = setup(i, W, LOOKUP_PARAMS, &args, Some(right0))?;
    let rtime = match a.get("rightTimeColumn") {
        Some(v) => {
            let n = v
                .as_str()
                .ok_or_else(|| Error::arg(format!("{W}: rightTimeColumn must be a column name")))?;
            Some(right0.col_index(n).ok_or_else(|| {
                Error::name(format!("{W}: {n} is not a column of the right table"))
            })?)
        }
        None => None,
    };
    let keep_dup = a
        .get("keepDuplicates")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let inner = a
        .get("isInnerJoin")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let refresh = match (a.get("checkTimes").is_some(), &rv) {
        (false, _) => Refresh::None,
        (true, Value::Code(_)) => Refresh::Query(rv.clone()),
        (true, v @ Value::Table(_)) => match alias_of(i, v) {
            Some(n) => Refresh::Var(n),
            None => Refresh::None,
        },
        (true, _) => Refresh::None,
    };
    let mut core = Lookup {
        bind,
        lkeys,
        rkeys,
        rtime,
        keep_dup,
        inner,
        right0: right0.clone(),
        right: right0.clone(),
        index: AHashMap::new(),
        refresh,
    };
    if let Some(t) = rows0 {
        core.add_right(&t);
    }
    register_with(
        i,
        W,
        "LookupJoinEngine",
        c,
        Some(right0),
        Box::new(core),
        &args[3],
        None,
        true,
    )
}

// ------------------------------------------------------------------ left semi join

struct LeftSemi {
    bind: Binding,
    lkeys: Vec<usize>,
    rkeys: Vec<usize>,
    update_right: bool,
    left: Table,
    right: Table,
    /// per key: the right row joined with, and the left rows waiting for one
    index: AHashMap<Vec<Key>, i64>,
    waiting: AHashMap<Vec<Key>, Vec<i64>>,
}

impl LeftSemi {
    fn emit(&mut self, i: &mut CallCtx, li: Vec<i64>, ri: Vec<i64>) -> Result<Option<Table>> {
        self.bind.joined(i, &self.left, &li, &self.right, &ri, self.lkeys.iter().copied())
    }
}

impl EngineCore for LeftSemi {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let base = self.left.rows() as i64;
        append_table(&mut self.left, &rows);
        let (mut li, mut ri) = (Vec::new(), Vec::new());
        for r in 0..rows.rows() {
            let k = keys_at(&rows, &self.lkeys, r);
            match self.index.get(&k) {
                Some(&p) => {
                    li.push(base + r as i64);
                    ri.push(p);
                }
                None => self.waiting.entry(k).or_default().push(base + r as i64),
            }
        }
        self.emit(i, li, ri)
    }
    fn feed_right(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let base = self.right.rows() as i64;
        append_table(&mut self.right, &rows);
        // the row of each key this batch settles on: its first, or its latest
        let mut chosen: Vec<(Vec<Key>, i64)> = Vec::new();
        let mut at: AHashMap<Vec<Key>, usize> = AHashMap::new();
        for r in 0..rows.rows() {
            let k = keys_at(&rows, &self.rkeys, r);
            if self.index.contains_key(&k) && !self.update_right {
                continue;
            }
            match at.get(&k) {
                Some(&j) if self.update_right => chosen[j].1 = base + r as i64,
                Some(_) => {}
                None => {
                    at.insert(k.clone(), chosen.len());
                    chosen.push((k, base + r as i64));
                }
            }
        }
        let (mut li, mut ri) = (Vec::new(), Vec::new());
        for (k, p) in chosen {
            if let Some(ws) = self.waiting.remove(&k) {
                ri.extend(std::iter::repeat(p).take(ws.len()));
                li.extend(ws);
            }
            self.index.insert(k, p);
        }
        self.emit(i, li, ri)
    }
    fn groups(&self) -> usize {
        self.index.len()
    }
}

pub const SEMI_PARAMS: &[&str] = &[
    "name",
    "leftTable",
    "rightTable",
    "outputTable",
    "metrics",
    "matchingColumn",
    "garbageSize",
    "updateRightTable",
    "snapshotDir",
    "snapshotIntervalInMsgCount",
];

pub fn create_left_semi(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createLeftSemiJoinEngine";
    let Setup { a, c, right0, bind, lkeys, rkeys } = setup(i, W, SEMI_PARAMS, &args, None)?;
    let update_right = a
        .get("updateRightTable")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let core = LeftSemi {
        bind,
        lkeys,
        rkeys,
        update_right,
        left: c.dummy.clone(),
        right: right0.clone(),
        index: AHashMap::new(),
        waiting: AHashMap::new(),
    };
    register_with(
        i,
        W,
        "LeftSemiJoinEngine",
        c,
        Some(right0),
        Box::new(core),
        &args[3],
        None,
        true,
    )
}

// ------------------------------------------------------------------ feeding the two sides

/// `appendForJoin(engine, isLeftTable, data)`.
pub fn append_for_join(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "appendForJoin";
    let e = super::engine::as_engine(&args[0]).ok_or_else(|| {
        Error::arg(format!(
            "{W}: engine must be a join engine, not {}",
            describe(&args[0])
        ))
    })?;
    let left = args[1]
        .as_bool()
        .ok_or_else(|| Error::arg(format!("{W}: isLeftTable must be a boolean")))?;
    let n = e.append_side(i, left, &args[2])?;
    Ok(Value::Scalar(Column::from_vec(
        DataType::Long,
        vec![n as i64],
    )))
}

/// One side of a join engine as a table-like object that subscriptions append to.
#[derive(Debug)]
struct JoinSide {
    engine: Value,
    left: bool,
}

impl beluga_runtime::value::Handle for JoinSide {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn display(&self) -> String {
        let side = if self.left { "left" } else { "right" };
        match super::engine::as_engine(&self.engine) {
            Some(e) => format!("{side} stream of {}", e.name),
            None => side.to_string(),
        }
    }
    fn type_name(&self) -> &'static str {
        "TABLE"
    }
    fn session_append(&self, i: &mut CallCtx, rows: &Value) -> Option<Result<u64>> {
        let e = super::engine::as_engine(&self.engine)?;
        Some(e.append_side(i, self.left, rows))
    }
}

fn side(args: &[Value], left: bool, what: &str) -> Result<Value> {
    match super::engine::as_engine(&args[0]) {
        Some(e) if e.right_schema.is_some() => Ok(Value::Handle(Arc::new(JoinSide {
            engine: args[0].clone(),
            left,
        }))),
        _ => Err(Error::arg(format!(
            "{what}: the argument must be a join engine, not {}",
            describe(&args[0])
        ))),
    }
}

pub fn get_left_stream(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    side(&args, true, "getLeftStream")
}

pub fn get_right_stream(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    side(&args, false, "getRightStream")
}

/// Parameter names of the four join engines' constructors (asof, equi, lookup, left semi).
pub const PARAMS: (&[&str], &[&str], &[&str], &[&str]) =
    (ASOF_PARAMS, EQUI_PARAMS, LOOKUP_PARAMS, SEMI_PARAMS);
