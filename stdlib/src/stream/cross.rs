//! `createCrossSectionalEngine` (alias `createCrossSectionalAggregator`): the latest row
//! of each key, and metrics over that cross-section when a trigger fires
//! (funcs/c/createCrossSectionalEngine.md).
//!
//! Rules kept from the manual:
//! * the engine is a keyed table of the latest row per `keyColumn` (reading the engine,
//!   `select * from engine`, gives it); with no metrics or output table it only keeps it;
//! * `triggeringPattern`: 'perBatch' (default) computes once per append, 'perRow' after
//!   each row, 'keyCount' when the rows of the latest timestamp reach
//!   `triggeringInterval` or a newer timestamp arrives (older rows are dropped;
//!   `lastBatchOnly=true` keeps only the latest timestamp's rows), 'dataInterval' at the
//!   first row at or after the end of a window of `triggeringInterval` time units that
//!   holds rows (output time: the window's end), 'interval' every `triggeringInterval`
//!   milliseconds of system time — Beluga has no timer thread, so the check runs when rows
//!   are appended;
//! * the output row's time is the triggering row's time with `useSystemTime=false`
//!   (timeColumn), else the system time; then the `contextByColumn` value when given,
//!   then the metrics. Metrics that are all aggregates give one row (per context group);
//!   a metric giving one value per key gives one row per key, aggregates repeated;
//! * `keyFilter` (metacode over the cross-section's columns) selects the keys computed;
//!   `updatedContextGroupsOnly=true` computes only the groups changed since the last output.
//! Not supported (an error says so): snapshots, raftGroup, outputElapsedMicroseconds,
//! a tuple `triggeringInterval`.

use super::engine::{common, eval_on, key_names, metric_exprs, register, EngineCore};
use beluga_lang::ast::Expr;
use beluga_runtime::eval::ops::describe;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::{CallCtx, Column, DataType, Error, Key, Result, Table, Value};
use ahash::{AHashMap, AHashSet};
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Pattern {
    PerBatch,
    PerRow,
    Interval,
    KeyCount,
    DataInterval,
}

struct Cross {
    keys: Vec<usize>,
    time_col: Option<usize>,
    metrics: Vec<Arc<Expr>>,
    context: Vec<usize>,
    pattern: Pattern,
    interval: i64,
    last_only: bool,
    key_filter: Option<Arc<Expr>>,
    updated_only: bool,
    /// the cross-section: the latest row of each key, keys in order of first arrival
    table: Table,
    index: AHashMap<Vec<Key>, usize>,
    /// context groups changed since the last output (updatedContextGroupsOnly)
    touched: AHashSet<Vec<Key>>,
    /// keyCount: the latest timestamp, its row count, whether it was computed
    cur: Option<i64>,
    count: i64,
    computed: bool,
    /// dataInterval: end of the current window, whether rows fell in it
    win_end: Option<i64>,
    win_rows: bool,
    /// interval: when the last computation ran (ms of system time)
    last_calc: Option<i64>,
    round: bool,
    time_ty: DataType,
    /// output pieces of the current feed
    out: Vec<Table>,
}

impl Cross {
    /// Replace or add the rows `r` of `rows` in the cross-section.
    fn upsert(&mut self, rows: &Table, r: &[usize]) {
        if r.is_empty() {
            return;
        }
        let base = self.table.rows();
        let add = rows.take_usize(r);
        let mut cat = self.table.clone();
        for (c, n) in cat.cols.iter_mut().zip(&add.cols) {
            c.append(n);
        }
        let mut idx: Vec<usize> = (0..base).collect();
        for (j, &row) in r.iter().enumerate() {
            let k: Vec<Key> = self.keys.iter().map(|&c| Key::of(&rows.cols[c], row)).collect();
            if !self.context.is_empty() {
                self.touched.insert(self.context.iter().map(|&c| Key::of(&rows.cols[c], row)).collect());
            }
            match self.index.get(&k) {
                Some(&p) => idx[p] = base + j,
                None => {
                    self.index.insert(k, idx.len());
                    idx.push(base + j);
                }
            }
        }
        self.table = cat.take_usize(&idx);
    }

    fn clear(&mut self) {
        self.table = self.table.slice(0, 0);
        self.index.clear();
    }

    fn time_at(&self, rows: &Table, r: usize) -> Option<i64> {
        self.time_col.and_then(|c| rows.cols[c].i64_at(r))
    }

    /// Compute the metrics over the cross-section; the output rows carry `time`
    /// (None: the system time).
    fn compute(&mut self, i: &mut CallCtx, time: Option<i64>) -> Result<()> {
        if self.metrics.is_empty() {
            return Ok(());
        }
        let mut cs = self.table.clone();
        if let Some(f) = &self.key_filter {
            cs = filter_rows(i, &cs, f, "keyFilter")?;
        }
        let mut pieces: Vec<(Option<Vec<Column>>, Vec<Column>)> = Vec::new();
        if self.context.is_empty() {
            pieces.push((None, self.eval_metrics(i, &cs)?));
        } else {
            for (k, rows) in super::rows_by_key(&cs, &self.context) {
                if self.updated_only && !self.touched.contains(&k) {
                    continue;
                }
                let g = cs.take_usize(&rows);
                let vals = self.eval_metrics(i, &g)?;
                let n = vals.first().map(|c| c.len()).unwrap_or(0);
                let ctx: Vec<Column> = self.context.iter().map(|&c| g.cols[c].take_usize(&vec![0; n])).collect();
                pieces.push((Some(ctx), vals));
            }
            self.touched.clear();
        }
        let (t, ty) = match time {
            Some(t) => (t, self.time_ty),
            None => {
                let now = i.call_builtin_by_name("now", vec![])?;
                match now {
                    Value::Scalar(c) => (c.i64_at(0).unwrap_or(0), DataType::Timestamp),
                    _ => (0, DataType::Timestamp),
                }
            }
        };
        for (ctx, vals) in pieces {
            let n = vals.first().map(|c| c.len()).unwrap_or(0);
            if n == 0 {
                continue;
            }
            let mut names = vec!["time".to_string()];
            let mut cols = vec![time_column(ty, t, n)];
            if let Some(ctx) = ctx {
                for (j, c) in ctx.into_iter().enumerate() {
                    names.push(self.table.names[self.context[j]].clone());
                    cols.push(c);
                }
            }
            for (j, c) in vals.into_iter().enumerate() {
                names.push(format!("factor{}", j + 1));
                cols.push(c);
            }
            self.out.push(Table::new(names, cols)?);
        }
        Ok(())
    }

    /// Each metric's columns over `t`: aggregates repeated to the length of the
    /// per-key metrics (one row when all are aggregates).
    fn eval_metrics(&self, i: &mut CallCtx, t: &Table) -> Result<Vec<Column>> {
        let mut parts: Vec<Value> = Vec::new();
        for e in &self.metrics {
            flatten(eval_on(i, t, e)?, &mut parts);
        }
        let n = parts
            .iter()
            .filter_map(|v| match v {
                Value::Vector(c) => Some(c.len()),
                _ => None,
            })
            .max()
            .unwrap_or(1);
        let mut out = Vec::with_capacity(parts.len());
        for v in parts {
            out.push(match v {
                Value::Vector(c) if c.len() == n => c,
                Value::Scalar(c) => c.take_usize(&vec![0; n]),
                Value::Void => Column::nulls(DataType::Double, n),
                Value::Vector(c) => {
                    return Err(Error::size(format!("a metric gave {} values where others gave {n} (one per key)", c.len())));
                }
                other => return Err(Error::type_err(format!("a metric gave {}, not a scalar or a vector", describe(&other)))),
            });
        }
        Ok(out)
    }
}

fn flatten(v: Value, out: &mut Vec<Value>) {
    match v {
        Value::Tuple(items) => {
            for it in items.iter() {
                flatten(it.clone(), out);
            }
        }
        v => out.push(v),
    }
}

fn time_column(ty: DataType, t: i64, n: usize) -> Column {
    let one = Column::from_vec(DataType::Long, vec![t]);
    let c = cast_column(&one, ty).unwrap_or(one);
    c.take_usize(&vec![0; n])
}

/// The rows of `t` for which a boolean metacode holds.
fn filter_rows(i: &mut CallCtx, t: &Table, f: &Expr, what: &str) -> Result<Table> {
    let n = t.rows();
    match eval_on(i, t, f)? {
        Value::Vector(c) if c.len() == n => {
            let mask: Vec<bool> = (0..n).map(|r| c.i64_at(r).map(|x| x != 0).unwrap_or(false)).collect();
            Ok(t.filter(&mask))
        }
        v @ Value::Scalar(_) => Ok(if v.as_bool().unwrap_or(false) { t.clone() } else { t.slice(0, 0) }),
        other => Err(Error::type_err(format!("{what} must give one boolean per key, not {}", describe(&other)))),
    }
}

fn now_ms(i: &mut CallCtx) -> Result<i64> {
    match i.call_builtin_by_name("now", vec![])? {
        Value::Scalar(c) => Ok(c.i64_at(0).unwrap_or(0)),
        _ => Ok(0),
    }
}

impl EngineCore for Cross {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let n = rows.rows();
        self.out.clear();
        match self.pattern {
            Pattern::PerBatch => {
                self.upsert(&rows, &(0..n).collect::<Vec<_>>());
                let t = if self.time_col.is_some() { self.time_at(&rows, n - 1) } else { None };
                self.compute(i, t)?;
            }
            Pattern::PerRow => {
                for r in 0..n {
                    self.upsert(&rows, &[r]);
                    let t = if self.time_col.is_some() { self.time_at(&rows, r) } else { None };
                    self.compute(i, t)?;
                }
            }
            Pattern::Interval => {
                self.upsert(&rows, &(0..n).collect::<Vec<_>>());
                let now = now_ms(i)?;
                let due = match self.last_calc {
                    None => true,
                    Some(l) => now - l >= self.interval,
                };
                if due {
                    self.last_calc = Some(now);
                    self.compute(i, None)?;
                }
            }
            Pattern::KeyCount => {
                let mut pending: Vec<usize> = Vec::new();
                for r in 0..n {
                    let Some(t) = self.time_at(&rows, r) else { continue };
                    match self.cur {
                        Some(c) if t < c => continue, // out of order: dropped
                        Some(c) if t > c => {
                            self.upsert(&rows, &pending);
                            pending.clear();
                            if !self.computed {
                                self.compute(i, Some(c))?;
                            }
                            if self.last_only {
                                self.clear();
                            }
                            self.cur = Some(t);
                            self.count = 0;
                            self.computed = false;
                        }
                        Some(_) => {}
                        None => self.cur = Some(t),
                    }
                    pending.push(r);
                    self.count += 1;
                }
                self.upsert(&rows, &pending);
                if !self.computed && self.count >= self.interval {
                    if let Some(c) = self.cur {
                        self.computed = true;
                        self.compute(i, Some(c))?;
                    }
                }
            }
            Pattern::DataInterval => {
                for r in 0..n {
                    let Some(t) = self.time_at(&rows, r) else { continue };
                    let end = match self.win_end {
                        Some(e) => e,
                        None => {
                            let a = if self.round {
                                super::timeseries::alignment_for(self.time_ty, self.interval).unwrap_or(self.interval)
                            } else {
                                1
                            };
                            let e = t.div_euclid(a) * a + self.interval;
                            let e = if e <= t { e + ((t - e) / self.interval + 1) * self.interval } else { e };
                            self.win_end = Some(e);
                            e
                        }
                    };
                    if t >= end {
                        if self.win_rows {
                            self.compute(i, Some(end))?;
                        }
                        let e = end + ((t - end) / self.interval + 1) * self.interval;
                        self.win_end = Some(e);
                        self.win_rows = false;
                    }
                    self.upsert(&rows, &[r]);
                    self.win_rows = true;
                }
            }
        }
        if self.out.is_empty() {
            return Ok(None);
        }
        let pieces = std::mem::take(&mut self.out);
        let mut it = pieces.into_iter();
        let mut all = it.next().ok_or_else(|| Error::runtime("internal: no output"))?;
        for p in it {
            if p.ncols() != all.ncols() {
                return Err(Error::size("the metrics gave different numbers of columns"));
            }
            for (c, n) in all.cols.iter_mut().zip(&p.cols) {
                let n = if n.ty == c.ty || (n.ty.is_literal() && c.ty.is_literal()) { n.clone() } else { cast_column(n, c.ty)? };
                c.append(&n);
            }
        }
        Ok(Some(all))
    }
    fn groups(&self) -> usize {
        self.table.rows()
    }
    fn table(&self) -> Option<Table> {
        Some(self.table.clone())
    }
}

pub fn create(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createCrossSectionalEngine";
    let get = |k: usize| args.get(k).filter(|v| !matches!(v, Value::Void));
    let c = common(i, W, &args[0], args.get(2).unwrap_or(&Value::Void))?;
    let metrics = match get(1) {
        Some(m) => metric_exprs(W, m)?,
        None => Vec::new(),
    };
    let has_output = get(3).is_some();
    if !metrics.is_empty() && !has_output {
        return Err(Error::arg(format!("{W}: metrics need an outputTable")));
    }
    let keys = key_names(W, get(4), &c.dummy)?;
    if keys.is_empty() {
        return Err(Error::arg(format!("{W}: keyColumn is required")));
    }
    let pattern = match get(5).and_then(|v| v.as_str()) {
        None => Pattern::PerBatch,
        Some(p) => match p {
            "perBatch" => Pattern::PerBatch,
            "perRow" => Pattern::PerRow,
            "interval" => Pattern::Interval,
            "keyCount" => Pattern::KeyCount,
            "dataInterval" => Pattern::DataInterval,
            other => {
                return Err(Error::arg(format!("{W}: triggeringPattern must be 'perBatch', 'perRow', 'interval', 'keyCount' or 'dataInterval', not '{other}'")))
            }
        },
    };
    let interval = match get(6) {
        None => 1000,
        Some(Value::Tuple(_)) => return Err(Error::unsupported(W, "a tuple triggeringInterval")),
        Some(v) => match v.as_i64() {
            Some(x) if x > 0 => x,
            _ => return Err(Error::arg(format!("{W}: triggeringInterval must be a positive integer"))),
        },
    };
    let time_name = get(8).and_then(|v| v.as_str());
    let use_system = get(7).and_then(|v| v.as_bool()).unwrap_or(time_name.is_none());
    let time_col = match (use_system, time_name) {
        (true, _) => None,
        (false, None) => return Err(Error::arg(format!("{W}: useSystemTime=false needs a timeColumn"))),
        (false, Some(n)) => Some(c.dummy.col_index(n).ok_or_else(|| Error::name(format!("{W}: the time column {n} is not a column of dummyTable")))?),
    };
    if matches!(pattern, Pattern::KeyCount | Pattern::DataInterval) && time_col.is_none() {
        return Err(Error::arg(format!("{W}: triggeringPattern='keyCount' or 'dataInterval' needs useSystemTime=false and a timeColumn")));
    }
    let last_only = get(9).and_then(|v| v.as_bool()).unwrap_or(false);
    if last_only && pattern != Pattern::KeyCount {
        return Err(Error::arg(format!("{W}: lastBatchOnly=true needs triggeringPattern='keyCount'")));
    }
    let context_names = key_names(W, get(10), &c.dummy)?;
    for (k, what) in [(11, "snapshotDir"), (13, "raftGroup")] {
        if get(k).is_some() {
            return Err(Error::unsupported(W, what));
        }
    }
    if get(14).and_then(|v| v.as_bool()).unwrap_or(false) {
        return Err(Error::unsupported(W, "outputElapsedMicroseconds"));
    }
    let round = get(15).and_then(|v| v.as_bool()).unwrap_or(true);
    let key_filter = match get(16) {
        Some(Value::Code(e)) => Some(e.clone()),
        Some(other) => return Err(Error::arg(format!("{W}: keyFilter must be metacode, not {}", describe(other)))),
        None => None,
    };
    let updated_only = get(17).and_then(|v| v.as_bool()).unwrap_or(false);
    let time_ty = time_col.map(|k| c.dummy.cols[k].ty).unwrap_or(DataType::Timestamp);
    let core = Cross {
        keys: keys.iter().filter_map(|n| c.dummy.col_index(n)).collect(),
        time_col,
        metrics,
        context: context_names.iter().filter_map(|n| c.dummy.col_index(n)).collect(),
        pattern,
        interval,
        last_only,
        key_filter,
        updated_only,
        table: c.dummy.clone(),
        index: AHashMap::new(),
        touched: AHashSet::new(),
        cur: None,
        count: 0,
        computed: false,
        win_end: None,
        win_rows: false,
        last_calc: None,
        round,
        time_ty,
        out: Vec::new(),
    };
    let output = if has_output { args[3].clone() } else { Value::Void };
    register(i, W, "CrossSectionalEngine", c, Box::new(core), &output, None, true)
}
