//! `createAnomalyDetectionEngine` (funcs/c/createAnomalyDetectionEngine.md,
//! tutorials/Anomaly_Detection_Engine.md): every metric is a boolean condition, and each
//! time one holds the engine writes (time, keys..., metric index, metric text or
//! description).
//!
//! The manual's three kinds of condition, told apart by where aggregates sit:
//! * no aggregate (`qty < 4`, `lt(qty, prev(qty))`): checked on every row when it arrives
//!   (on the key's recent rows, so order-sensitive functions see their history);
//! * aggregates only (`sum(qty) > 5`): checked on each window when it closes, at the
//!   window's end;
//! * aggregates and columns (`avg(qty) > qty`): each arriving row is checked against the
//!   aggregates of the key's last closed window (the aggregate calls are replaced by
//!   their values, then the condition runs on the rows as the first kind does).
//!
//! Windows lie on a grid of `step` from the first row's time rounded down by the
//! time-series engine's alignment, and hold [end - windowSize, end); a key's window
//! closes when a row of that key at or after its end arrives. Outputs are written in the
//! order of the rows that caused them (a window's result before the checks of the row
//! that closed it), which is the manual's order.

use super::engine::{self, eval_on, EngineCore};
use beluga_lang::ast::{Expr, ExprKind};
use beluga_runtime::column::{ColData, StrCol};
use beluga_runtime::{CallCtx, Column, DataType, Error, Key, Kind, Result, Table, Value};
use ahash::AHashMap;

#[derive(Clone, Copy, PartialEq)]
enum MKind {
    Row,
    Window,
    Mixed,
}

struct Metric {
    kind: MKind,
    /// the condition; for Mixed, with each aggregate call replaced by `__anomaly_agg<k>`
    expr: Expr,
    /// Mixed: the aggregate calls, evaluated on the last closed window
    aggs: Vec<Expr>,
    text: String,
}

struct Group {
    key_row: Table,
    /// rows kept for windows and for order-sensitive row checks, and their times
    buf: Table,
    times: Vec<i64>,
    next_end: Option<i64>,
    /// the Mixed metrics' aggregate values over the last closed window
    last: Option<Vec<Vec<Value>>>,
}

struct Anomaly {
    metrics: Vec<Metric>,
    time_col: usize,
    keys: Vec<usize>,
    window: i64,
    step: i64,
    align: i64,
    base: Option<i64>,
    garbage: usize,
    groups: AHashMap<Vec<Key>, Group>,
    dummy: Table,
    out_names: Vec<String>,
}

const AGG_VAR: &str = "__anomaly_agg";

fn is_agg_call(i: &CallCtx, e: &Expr) -> bool {
    let ExprKind::Call(g, _) = &e.kind else { return false };
    let (ExprKind::Ident(n) | ExprKind::FuncRef(n)) = &g.kind else { return false };
    i.registry().lookup(n).is_some_and(|id| i.registry().get(id).kind == Kind::Aggregate)
}

fn classify(i: &CallCtx, e: &Expr, is_col: &dyn Fn(&str) -> bool) -> Metric {
    let mut has_agg = false;
    beluga_runtime::sql::walk(e, &mut |x| has_agg |= is_agg_call(i, x));
    let mut aggs = Vec::new();
    let rest = beluga_runtime::sql::map_expr(e, &mut |x| {
        is_agg_call(i, x).then(|| {
            aggs.push(x.clone());
            Expr::new(ExprKind::Ident(format!("{AGG_VAR}{}", aggs.len() - 1)), x.span)
        })
    });
    let mut cols_outside = false;
    beluga_runtime::sql::walk(&rest, &mut |x| {
        if let ExprKind::Ident(n) = &x.kind {
            cols_outside |= is_col(n);
        }
    });
    let text = beluga_runtime::fmt::expr_text(e);
    match (has_agg, cols_outside) {
        (false, _) => Metric { kind: MKind::Row, expr: e.clone(), aggs: vec![], text },
        (true, false) => Metric { kind: MKind::Window, expr: e.clone(), aggs: vec![], text },
        (true, true) => Metric { kind: MKind::Mixed, expr: rest, aggs, text },
    }
}

/// A condition's value per row (a scalar applies to every row).
fn truths(v: &Value, n: usize) -> Result<Vec<bool>> {
    let c = v.column().ok_or_else(|| Error::arg("createAnomalyDetectionEngine: a metric must be a boolean condition"))?;
    if !matches!(c.ty, DataType::Bool) {
        return Err(Error::arg(format!("createAnomalyDetectionEngine: a metric must be a boolean condition, not {}", c.ty.name())));
    }
    Ok((0..n).map(|r| c.i64_at(if c.len() == 1 { 0 } else { r }).unwrap_or(0) != 0).collect())
}

/// One output: the row that caused it (for ordering), its time, key row, metric index.
struct Hit {
    cause: usize,
    time: i64,
    key: Table,
    metric: usize,
}

impl Anomaly {
    fn has_windows(&self) -> bool {
        self.metrics.iter().any(|m| m.kind != MKind::Row)
    }

    /// Close the key's windows that end at or before `t`.
    fn close(&self, i: &mut CallCtx, g: &mut Group, t: i64, cause: usize, hits: &mut Vec<Hit>) -> Result<()> {
        let base = self.base.unwrap_or(0);
        let first_end = |x: i64| base + ((x - base).div_euclid(self.step) + 1) * self.step;
        let Some(mut end) = g.next_end else { return Ok(()) };
        while t >= end {
            let start = end - self.window;
            let lo = g.times.partition_point(|&x| x < start);
            let hi = g.times.partition_point(|&x| x < end);
            if lo == hi {
                g.last = None;
                // skip the empty windows up to the first one holding a kept row or t
                let next = g.times.get(hi).copied().unwrap_or(t).min(t);
                end = first_end(next).max(end + self.step);
                continue;
            }
            let win = g.buf.slice(lo, hi);
            let mut last = Vec::new();
            for (k, m) in self.metrics.iter().enumerate() {
                match m.kind {
                    MKind::Window => {
                        if truths(&eval_on(i, &win, &m.expr)?, 1)?[0] {
                            hits.push(Hit { cause, time: end, key: g.key_row.clone(), metric: k });
                        }
                        last.push(vec![]);
                    }
                    MKind::Mixed => last.push(m.aggs.iter().map(|a| eval_on(i, &win, a)).collect::<Result<_>>()?),
                    MKind::Row => last.push(vec![]),
                }
            }
            g.last = Some(last);
            end += self.step;
        }
        g.next_end = Some(end);
        Ok(())
    }
}

impl EngineCore for Anomaly {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let tc = &rows.cols[self.time_col];
        let times: Vec<i64> = (0..rows.rows()).map(|r| tc.i64_at(r).unwrap_or(i64::MIN)).collect();
        if self.base.is_none() {
            if let Some(&t0) = times.iter().find(|&&t| t != i64::MIN) {
                self.base = Some(t0.div_euclid(self.align) * self.align);
            }
        }
        let windows = self.has_windows();
        let mut hits = Vec::new();
        let by_key = if self.keys.is_empty() { vec![(vec![], (0..rows.rows()).collect())] } else { super::rows_by_key(&rows, &self.keys) };
        for (key, idx) in by_key {
            let mut g = self.groups.remove(&key).unwrap_or_else(|| Group {
                key_row: {
                    let kr = rows.take_usize(&idx[..1]);
                    Table::new(self.keys.iter().map(|&c| kr.names[c].clone()).collect(), self.keys.iter().map(|&c| kr.cols[c].clone()).collect()).unwrap_or_default()
                },
                buf: self.dummy.clone(),
                times: Vec::new(),
                next_end: None,
                last: None,
            });
            let new = rows.take_usize(&idx);
            let held = g.buf.rows();
            // row checks run on the kept rows followed by the new ones
            let all = crate::core::append_rows(g.buf.clone(), &Value::table(new.clone()))?;
            let mut row_truth: Vec<Option<Vec<bool>>> = Vec::with_capacity(self.metrics.len());
            for m in &self.metrics {
                row_truth.push(match m.kind {
                    MKind::Row => Some(truths(&eval_on(i, &all, &m.expr)?, all.rows())?[held..].to_vec()),
                    _ => None,
                });
            }
            // the key's rows are in time order: a window closed at row j holds none after it
            g.buf = all;
            g.times.extend(idx.iter().map(|&r| times[r]));
            for (j, &r) in idx.iter().enumerate() {
                let t = times[r];
                if windows && t != i64::MIN {
                    if g.next_end.is_none() {
                        let base = self.base.unwrap_or(0);
                        g.next_end = Some(base + ((t - base).div_euclid(self.step) + 1) * self.step);
                    }
                    self.close(i, &mut g, t, r, &mut hits)?;
                }
                for (k, m) in self.metrics.iter().enumerate() {
                    let hit = match m.kind {
                        MKind::Row => row_truth[k].as_ref().is_some_and(|v| v[j]),
                        MKind::Window => false,
                        MKind::Mixed => match g.last.as_ref().map(|l| &l[k]) {
                            Some(vals) => {
                                let one = new.slice(j, j + 1);
                                let mut scope: AHashMap<String, Value> = one.names.iter().cloned().zip(one.cols.iter().map(|c| Value::Vector(c.clone()))).collect();
                                for (a, v) in vals.iter().enumerate() {
                                    scope.insert(format!("{AGG_VAR}{a}"), v.clone());
                                }
                                truths(&i.eval_with_columns(scope, &m.expr)?, 1)?[0]
                            }
                            None => false,
                        },
                    };
                    if hit {
                        hits.push(Hit { cause: r, time: t, key: g.key_row.clone(), metric: k });
                    }
                }
            }
            // keep what the next windows and order-sensitive checks need
            let keep_from = match (windows, g.next_end) {
                (true, Some(end)) => g.times.partition_point(|&x| x < end - self.window),
                _ => g.times.len(),
            };
            let keep_from = keep_from.min(g.times.len().saturating_sub(1)).max(g.times.len().saturating_sub(self.garbage));
            if keep_from > 0 {
                g.times.drain(..keep_from);
                g.buf = g.buf.slice(keep_from, g.buf.rows());
            }
            self.groups.insert(key, g);
        }
        if hits.is_empty() {
            return Ok(None);
        }
        hits.sort_by_key(|h| h.cause);
        let tc = &self.dummy.cols[self.time_col];
        let mut cols = vec![super::timeseries::time_column(tc.ty, tc, hits.iter().map(|h| h.time).collect())];
        for (k, &c) in self.keys.iter().enumerate() {
            let mut col = self.dummy.cols[c].slice(0, 0);
            for h in &hits {
                col.append(&h.key.cols[k]);
            }
            cols.push(col);
        }
        cols.push(Column::from_vec(DataType::Int, hits.iter().map(|h| h.metric as i32).collect::<Vec<i32>>()));
        let texts: Vec<&str> = hits.iter().map(|h| self.metrics[h.metric].text.as_str()).collect();
        cols.push(Column::new(DataType::String, ColData::Str(StrCol::from_iter(texts))));
        Ok(Some(Table::new(self.out_names.clone(), cols)?))
    }
    fn groups(&self) -> usize {
        self.groups.len()
    }
}

/// Parameters of `createAnomalyDetectionEngine`.
pub const PARAMS: &[&str] = &[
    "name", "metrics", "dummyTable", "outputTable", "timeColumn", "keyColumn", "windowSize", "step", "garbageSize", "roundTime", "snapshotDir",
    "snapshotIntervalInMsgCount", "raftGroup", "anomalyDescription",
];

pub fn create(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createAnomalyDetectionEngine";
    let opt = |k: usize| args.get(k).filter(|v| !matches!(v, Value::Void));
    let c = engine::common(i, W, &args[0], &args[2])?;
    let dummy = c.dummy.clone();
    let exprs = engine::metric_exprs(W, &args[1])?;
    let tname = args[4].as_str().ok_or_else(|| Error::arg(format!("{W}: timeColumn must be a column name")))?;
    let time_col = dummy.col_index(tname).ok_or_else(|| Error::name(format!("{W}: the time column {tname} is not a column of dummyTable")))?;
    let key_names = engine::key_names(W, opt(5), &dummy)?;
    let keys: Vec<usize> = key_names.iter().filter_map(|n| dummy.col_index(n)).collect();
    let is_col = |n: &str| dummy.col_index(n).is_some();
    let mut metrics: Vec<Metric> = exprs.iter().map(|e| classify(i, e, &is_col)).collect();
    let needs_window = metrics.iter().any(|m| m.kind != MKind::Row);
    let (window, step) = match (opt(6), opt(7)) {
        (Some(w), Some(s)) => (super::timeseries::positive(W, w, "windowSize")?, super::timeseries::positive(W, s, "step")?),
        _ if needs_window => return Err(Error::arg(format!("{W}: metrics with aggregates need windowSize and step"))),
        _ => (1, 1),
    };
    if window % step != 0 {
        return Err(Error::arg(format!("{W}: windowSize must be a multiple of step")));
    }
    let garbage = match opt(8) {
        Some(v) => super::timeseries::positive(W, v, "garbageSize")? as usize,
        None => 2000,
    };
    let align = super::timeseries::alignment_for(dummy.cols[time_col].ty, step).ok_or_else(|| Error::arg(format!("{W}: the time column must be temporal")))?;
    if let Some(d) = opt(13) {
        let (Value::Vector(dc) | Value::Scalar(dc)) = d else { return Err(Error::arg(format!("{W}: anomalyDescription must be strings"))) };
        if dc.len() != metrics.len() || !dc.ty.is_literal() {
            return Err(Error::arg(format!("{W}: anomalyDescription needs one string per metric")));
        }
        for (k, m) in metrics.iter_mut().enumerate() {
            m.text = dc.str_at(k).unwrap_or("").to_string();
        }
    }
    let mut out_names = vec![tname.to_string()];
    out_names.extend(key_names.iter().cloned());
    out_names.push("type".into());
    out_names.push("metric".into());
    let core = Anomaly { metrics, time_col, keys, window, step, align, base: None, garbage, groups: AHashMap::new(), dummy, out_names };
    engine::register(i, W, "AnomalyDetectionEngine", c, Box::new(core), &args[3], None, true)
}
