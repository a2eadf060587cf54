//! `createTimeSeriesEngine` (alias `createTimeSeriesAggregator`): aggregates over
//! tumbling or sliding windows of event time, per key (funcs/c/createTimeSeriesEngine.md).
//!
//! Rules kept from the manual:
//! * windows lie on one grid for all keys: the first window starts at
//!   `x / alignmentSize * alignmentSize + step - windowSize`, x the first row's time and
//!   alignmentSize from the step, the time column's precision and `roundTime` (the
//!   manual's tables); later windows start `step` apart;
//! * the time is one column, or a DATE column and a SECOND/TIME/NANOTIME column
//!   (`timeColumn=`date`time`: concatDateTime of the two, which the output time is);
//! * a key's window is computed when the first row of that key at or after the window's
//!   end arrives (`closed='left'`, windows `[start, end)`; with `closed='right'`,
//!   `(start, end]` and a row after the end); the triggering row is not part of it;
//!   with `acceptedDelay=d`, at the first row at or after end + d, rows of the window
//!   arriving before that (out of order) still counted;
//! * `forceTriggerTime=f`: a row of any key at time t1 forces each other key's next
//!   window that ended at t <= t1 - f (one window per key per row); rows of a window
//!   that arrive after it was computed are dropped; with `fill`, a forced empty window
//!   is filled (funcs/c/createTimeSeriesEngine.md, the forceTriggerTime example);
//! * `subWindow=a:b` (windowSize = step): only rows in [start + a, start + b) are
//!   computed, at the first row at or after start + b, labelled start + b (the manual's
//!   example 4);
//! * windows without rows give no output (`fill='none'`); with `fill` 'null', 'ffill' or
//!   a value (one, or one per metric), a key's empty windows after its first window give a
//!   row of NULLs, the previous window's values or the value;
//! * rows whose time is before the key's last time are dropped (unless acceptedDelay);
//! * the output row is the window's end (its start with `useWindowStartTime=true`), the
//!   key columns, then the metrics (aggregates over the window's rows; a metric giving a
//!   tuple gives several columns).
//! * `updateTime=u` (u > 0; step a multiple of u): the window a key is filling is also
//!   computed early — when a row of the key arrives in a later u-slot of the window (slots
//!   counted from the window's start) than the key's previous row, over the rows before
//!   it; and when rows of the key have stayed uncomputed for 2·u of system time (at least
//!   2 s), over all its rows so far. That timer is a session `Timer` (see
//!   `beluga_runtime::callctx::Timer`: it runs in `sleep` and at statement boundaries).
//!   `updateTime=0`: after each appended batch, each key of the batch (in the order the
//!   keys first appear in it) has its current window computed over all its rows so far.
//!   The window's label is the usual one; a keyed output table keeps the latest value.
//! * a vector `windowSize` [w1, w2, ...] pairs each size with an item of the `metrics`
//!   tuple; windows end on one grid (step apart, aligned as for one size), the largest
//!   size decides which windows have rows, and each metric is computed over the rows of
//!   the last `wk` units before the end (the output time is the end);
//! Not supported (an error says so): `useSystemTime=true`,
//! snapshots, raftGroup, MONTH time columns.

use beluga_runtime::CallCtx;
use super::engine::{common, eval_on, key_names, metric_exprs, register, EngineCore};
use beluga_lang::ast::Expr;
use beluga_runtime::eval::ops::describe;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::{ColData, Column, DataType, Error, Key, Result, Table, Value};
use ahash::AHashMap;
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq)]
enum Precision {
    Nano,
    Milli,
    Second,
    Minute,
    Day,
}

fn precision(ty: DataType) -> Option<Precision> {
    use DataType::*;
    Some(match ty {
        NanoTimestamp | NanoTime => Precision::Nano,
        Timestamp | Time => Precision::Milli,
        DateTime | Second => Precision::Second,
        Minute => Precision::Minute,
        Date => Precision::Day,
        _ => return None,
    })
}

/// The manual's alignmentSize for a step in the time column's unit.
fn alignment(p: Precision, step: i64, round: bool) -> i64 {
    let pick = |table: &[(i64, i64)], last: i64| table.iter().find(|(hi, _)| step <= *hi).map(|(_, a)| *a).unwrap_or(last);
    match p {
        Precision::Day => 1,
        Precision::Second | Precision::Minute => {
            let small = [(2, 2), (3, 3), (5, 5), (10, 10), (15, 15), (20, 20), (30, 30)];
            if step <= 30 || !round {
                pick(&small, 60)
            } else {
                pick(&[(60, 60), (120, 120), (180, 180), (300, 300), (600, 600), (900, 900), (1200, 1200), (1800, 1800)], 3600)
            }
        }
        Precision::Milli => {
            let small = [
                (2, 2),
                (5, 5),
                (10, 10),
                (20, 20),
                (25, 25),
                (50, 50),
                (100, 100),
                (200, 200),
                (250, 250),
                (500, 500),
                (1000, 1000),
                (2000, 2000),
                (3000, 3000),
                (5000, 5000),
                (10000, 10000),
                (15000, 15000),
                (20000, 20000),
                (30000, 30000),
            ];
            if step <= 30000 || !round {
                pick(&small, 60000)
            } else {
                pick(&[(60000, 60000), (120000, 120000), (300000, 300000), (600000, 600000), (900000, 900000), (1200000, 1200000), (1800000, 1800000)], 3600000)
            }
        }
        Precision::Nano => {
            let small = [(2, 2), (5, 5), (10, 10), (20, 20), (25, 25), (50, 50), (100, 100), (200, 200), (250, 250), (500, 500)];
            if !round || step < 1000 {
                pick(&small, 1000)
            } else {
                const MS: i64 = 1_000_000;
                const S: i64 = 1_000_000_000;
                pick(
                    &[(MS, MS), (10 * MS, 10 * MS), (100 * MS, 100 * MS), (S, S), (2 * S, 2 * S), (3 * S, 3 * S), (5 * S, 5 * S), (10 * S, 10 * S), (15 * S, 15 * S), (20 * S, 20 * S), (30 * S, 30 * S)],
                    60 * S,
                )
            }
        }
    }
}

/// The alignment size for a step in a time column of type `ty` (roundTime=true), used by
/// the cross-sectional engine's dataInterval windows too.
pub(crate) fn alignment_for(ty: DataType, step: i64) -> Option<i64> {
    precision(ty).map(|p| alignment(p, step, true))
}

struct Group {
    /// the key's columns (one row), for output rows
    key_row: Table,
    /// rows not yet out of every window, in time order, and their times
    buf: Table,
    times: Vec<i64>,
    /// end of the next window to compute
    next_end: i64,
    last: i64,
    /// end of the last window computed: rows before it arrive too late and are dropped
    done: i64,
    /// the values of the key's last computed window (fill='ffill')
    last_vals: Option<Vec<Value>>,
    /// updateTime: the u-slot (from the grid's base) of the key's last row, and when the
    /// earliest of the rows not computed yet arrived (system time)
    last_slot: i64,
    waiting: Option<std::time::Instant>,
}

/// What an empty window of a key gives (the manual's `fill`).
#[derive(Clone)]
enum Fill {
    /// no output ('none', the default)
    None,
    /// per output value: 'null' (None), 'ffill' (the previous window's value) or a value
    Each(Vec<FillOne>),
}

#[derive(Clone)]
enum FillOne {
    Null,
    Ffill,
    Value(Value),
}

/// The window grid's shape.
#[derive(Clone, Copy)]
struct Grid {
    window: i64,
    step: i64,
    right: bool,
    /// subWindow: the part (offsets from the window's start) that is computed
    sub: Option<(i64, i64)>,
}

struct TimeSeries {
    grid: Grid,
    time_col: usize,
    /// a DATE column and a time-of-day column combined into the time (units per day)
    date_col: Option<(usize, i64)>,
    time_name: String,
    time_ty: DataType,
    /// acceptedDelay: a window is computed at the first row at or after end + delay
    delay: i64,
    /// forceTriggerTime: a row of any key forces a key's window that ended this long ago
    force: Option<i64>,
    /// no forced window can be due before this time (skips scanning the keys)
    force_from: i64,
    keys: Vec<usize>,
    metrics: Vec<Arc<Expr>>,
    /// vector windowSize: each metric's window size; `grid.window` is the largest
    sizes: Vec<i64>,
    use_start: bool,
    round: bool,
    /// start of the first window (set by the first row)
    base: Option<i64>,
    groups: AHashMap<Vec<Key>, Group>,
    dummy: Table,
    fill: Fill,
    /// updateTime (time column units) and, when positive, how long uncomputed rows wait
    update: Option<i64>,
    update_wait: std::time::Duration,
}

/// One computed window: its time, the key row it came from, the metric values.
struct OutRow {
    time: i64,
    /// the key columns of the window's key (one row)
    key_row: Table,
    vals: Vec<Value>,
}

impl Grid {
    /// When the window ending at `end` can be computed: at its end, or its sub-window's.
    fn trigger_end(&self, end: i64) -> i64 {
        match self.sub {
            Some((_, b)) => end - self.window + b,
            None => end,
        }
    }

    /// The first window end on the grid after `t` (at or after with closed='right').
    fn end_after(&self, base: i64, t: i64) -> i64 {
        let first = base + self.window;
        let past = if self.right { t - first } else { t - first + 1 };
        if past <= 0 {
            return first;
        }
        first + (past + self.step - 1) / self.step * self.step
    }

    /// Is time `t` past the window ending at `end` (so the window can be computed)?
    fn past(&self, t: i64, end: i64) -> bool {
        if self.right {
            t > end
        } else {
            t >= end
        }
    }

    fn in_window_from(&self, times: &[i64], start: i64) -> usize {
        if self.right {
            times.partition_point(|&x| x <= start)
        } else {
            times.partition_point(|&x| x < start)
        }
    }

    fn in_window_to(&self, times: &[i64], end: i64) -> usize {
        if self.right {
            times.partition_point(|&x| x <= end)
        } else {
            times.partition_point(|&x| x < end)
        }
    }
}

fn flush(g: &mut Group, rows: &Table, pending: &mut Vec<usize>) {
    if pending.is_empty() {
        return;
    }
    let add = rows.take_usize(pending);
    for (c, n) in g.buf.cols.iter_mut().zip(&add.cols) {
        c.append(n);
    }
    pending.clear();
}

pub(crate) fn scalar_parts(v: Value, out: &mut Vec<Value>) -> Result<()> {
    match v {
        Value::Tuple(items) => {
            for it in items.iter() {
                scalar_parts(it.clone(), out)?;
            }
        }
        v @ (Value::Scalar(_) | Value::Void) => out.push(v),
        other => return Err(Error::type_err(format!("a metric gave {}: time-series metrics must be aggregates", describe(&other)))),
    }
    Ok(())
}

/// The values of an empty window from the fill rules and the previous window's values.
fn fill_values(how: &[FillOne], prev: &[Value]) -> Result<Vec<Value>> {
    if how.len() != 1 && how.len() != prev.len() {
        return Err(Error::size(format!("fill has {} items for {} metric values", how.len(), prev.len())));
    }
    Ok((0..prev.len())
        .map(|k| match how.get(k).unwrap_or(&how[0]) {
            FillOne::Null => Value::Void,
            FillOne::Ffill => prev[k].clone(),
            FillOne::Value(v) => v.clone(),
        })
        .collect())
}

/// Read `fill`: 'none', 'null', 'ffill', a number, or a vector/tuple of those (not 'none').
fn fill_arg(what: &str, v: Option<&Value>) -> Result<Fill> {
    let one = |v: &Value| -> Result<FillOne> {
        match v.as_str() {
            Some("null") => Ok(FillOne::Null),
            Some("ffill") => Ok(FillOne::Ffill),
            Some(other) => Err(Error::arg(format!("{what}: fill must be 'none', 'null', 'ffill' or a value, not '{other}'"))),
            None => match v {
                Value::Scalar(_) => Ok(FillOne::Value(v.clone())),
                other => Err(Error::arg(format!("{what}: fill must be 'none', 'null', 'ffill' or a value, not {}", describe(other)))),
            },
        }
    };
    match v {
        None => Ok(Fill::None),
        Some(v) if v.as_str() == Some("none") => Ok(Fill::None),
        Some(Value::Vector(c)) => {
            let mut out = Vec::with_capacity(c.len());
            for k in 0..c.len() {
                out.push(one(&Value::Scalar(c.slice(k, k + 1)))?);
            }
            Ok(Fill::Each(out))
        }
        Some(Value::Tuple(items)) => Ok(Fill::Each(items.iter().map(one).collect::<Result<_>>()?)),
        Some(v) => Ok(Fill::Each(vec![one(v)?])),
    }
}

pub(crate) fn column_of(vals: Vec<Value>) -> Result<Column> {
    let ty = vals.iter().find_map(|v| if let Value::Scalar(c) = v { Some(c.ty) } else { None }).unwrap_or(DataType::Double);
    let mut out = Column::nulls(ty, 0);
    for v in vals {
        let c = match v {
            Value::Scalar(c) if c.ty == ty || (c.ty.is_literal() && ty.is_literal()) => c,
            Value::Scalar(c) if c.ty == DataType::Void => Column::nulls(ty, 1),
            Value::Scalar(c) => cast_column(&c, ty)?,
            _ => Column::nulls(ty, 1),
        };
        out.append(&c);
    }
    Ok(out)
}

pub(crate) fn time_column(ty: DataType, like: &Column, v: Vec<i64>) -> Column {
    match &*like.data {
        ColData::I32(_) => Column::new(ty, ColData::I32(v.into_iter().map(|x| x as i32).collect())),
        _ => Column::new(ty, ColData::I64(v)),
    }
}

/// What computing a group's windows needs of the engine.
struct Ctx<'a> {
    grid: Grid,
    base: i64,
    metrics: &'a [Arc<Expr>],
    /// vector windowSize: each metric's window size (empty: all use the grid's)
    sizes: &'a [i64],
    fill: &'a Fill,
    use_start: bool,
}

/// Keep a group's rows in time order (rows within acceptedDelay may arrive late).
fn sort_group(g: &mut Group) {
    if g.times.windows(2).all(|w| w[0] <= w[1]) {
        return;
    }
    let mut order: Vec<usize> = (0..g.times.len()).collect();
    order.sort_by_key(|&k| g.times[k]);
    g.times = order.iter().map(|&k| g.times[k]).collect();
    g.buf = g.buf.take_usize(&order);
}

/// Compute the group's windows that time `t` is past, at most `limit` of them.
fn advance(i: &mut CallCtx, c: &Ctx, g: &mut Group, t: i64, limit: usize, outs: &mut Vec<OutRow>) -> Result<()> {
    sort_group(g);
    let grid = c.grid;
    let mut n = 0;
    while n < limit && grid.past(t, grid.trigger_end(g.next_end)) {
        n += 1;
        let end = g.next_end;
        let start = end - grid.window;
        let (from, to) = match grid.sub {
            Some((a, b)) => (start + a, start + b),
            None => (start, end),
        };
        let label = if grid.sub.is_some() {
            to
        } else if c.use_start {
            start
        } else {
            end
        };
        let drop = grid.in_window_from(&g.times, start);
        if drop > 0 {
            g.times.drain(..drop);
            g.buf = g.buf.slice(drop, g.buf.rows());
        }
        let lo = grid.in_window_from(&g.times, from);
        let hi = grid.in_window_to(&g.times, to);
        g.done = end;
        if hi <= lo {
            if let (Fill::Each(how), Some(prev)) = (c.fill, &g.last_vals) {
                // an empty window after the key's first one: filled, one row per window
                let vals = fill_values(how, prev)?;
                outs.push(OutRow { time: label, key_row: g.key_row.clone(), vals });
                g.next_end = end + grid.step;
                continue;
            }
            // nothing in this window: go to the first window holding the earliest row
            // (or, with no rows kept, the first window after this time)
            g.next_end = match g.times.first() {
                Some(&t0) => grid.end_after(c.base, t0).max(end + grid.step),
                None => grid.end_after(c.base, t),
            };
            if g.times.is_empty() {
                break;
            }
            continue;
        }
        let vals = window_values(i, c, g, lo, hi, end)?;
        if matches!(c.fill, Fill::Each(_)) {
            g.last_vals = Some(vals.clone());
        }
        outs.push(OutRow { time: label, key_row: g.key_row.clone(), vals });
        g.next_end = end + grid.step;
    }
    Ok(())
}

/// The metric values of the window ending at `end` whose rows are `lo..hi` of the key's
/// buffer; with a vector windowSize, each metric sees only the rows of its own window
/// size (the last `sizes[k]` time units before `end`).
fn window_values(i: &mut CallCtx, c: &Ctx, g: &Group, lo: usize, hi: usize, end: i64) -> Result<Vec<Value>> {
    let mut vals = Vec::new();
    let mut win: Option<(usize, Table)> = None;
    for (k, e) in c.metrics.iter().enumerate() {
        let from = match c.sizes.get(k) {
            Some(&w) if w < c.grid.window => c.grid.in_window_from(&g.times, end - w).clamp(lo, hi),
            _ => lo,
        };
        if win.as_ref().map(|(f, _)| *f != from).unwrap_or(true) {
            win = Some((from, g.buf.slice(from, hi)));
        }
        let t = win.as_ref().map(|(_, t)| t).ok_or_else(|| Error::runtime("internal: no window"))?;
        let v = eval_on(i, t, e)?;
        scalar_parts(v, &mut vals)?;
    }
    Ok(vals)
}

/// The window a key is filling, computed over its rows so far (updateTime); nothing if
/// the window holds none of its rows.
fn compute_current(i: &mut CallCtx, c: &Ctx, g: &mut Group, outs: &mut Vec<OutRow>) -> Result<()> {
    sort_group(g);
    let end = g.next_end;
    let start = end - c.grid.window;
    let lo = c.grid.in_window_from(&g.times, start);
    let hi = c.grid.in_window_to(&g.times, end);
    g.waiting = None;
    if hi <= lo {
        return Ok(());
    }
    let vals = window_values(i, c, g, lo, hi, end)?;
    outs.push(OutRow { time: if c.use_start { start } else { end }, key_row: g.key_row.clone(), vals });
    Ok(())
}

impl TimeSeries {
    /// The output table of computed windows (None when there are none).
    fn output(&self, outs: Vec<OutRow>) -> Result<Option<Table>> {
        if outs.is_empty() {
            return Ok(None);
        }
        let mut names = vec![self.time_name.clone()];
        let out_times: Vec<i64> = outs.iter().map(|o| o.time).collect();
        let tcol = if self.date_col.is_some() {
            cast_column(&Column::from_vec(DataType::Long, out_times), self.time_ty)?
        } else {
            time_column(self.time_ty, &self.dummy.cols[self.time_col], out_times)
        };
        let mut cols = vec![tcol];
        if !self.keys.is_empty() {
            let mut keys = outs[0].key_row.slice(0, 0);
            for o in &outs {
                for (c, n) in keys.cols.iter_mut().zip(&o.key_row.cols) {
                    c.append(n);
                }
            }
            names.extend(keys.names.iter().cloned());
            cols.extend(keys.cols);
        }
        Ok(Some(with_factors(names, cols, outs.into_iter().map(|o| o.vals).collect(), "windows")?))
    }

    /// The batch's times: the time column, or a DATE column and a time-of-day column combined.
    fn times(&self, rows: &Table) -> Vec<Option<i64>> {
        let t = &rows.cols[self.time_col];
        match self.date_col {
            None => (0..rows.rows()).map(|r| t.i64_at(r)).collect(),
            Some((d, per_day)) => (0..rows.rows()).map(|r| Some(rows.cols[d].i64_at(r)? * per_day + t.i64_at(r)?)).collect(),
        }
    }

    /// forceTriggerTime: each key (other than `skip`) whose next window ended `force` or
    /// more before `t` has that window computed (one window per key per row).
    fn force_trigger(&mut self, i: &mut CallCtx, t: i64, skip: &[Key], rows: &Table, pending: &mut AHashMap<Vec<Key>, Vec<usize>>, outs: &mut Vec<OutRow>) -> Result<()> {
        let Some(force) = self.force else { return Ok(()) };
        if t < self.force_from {
            return Ok(());
        }
        let c = Ctx { grid: self.grid, base: self.base.unwrap_or(0), metrics: &self.metrics, sizes: &self.sizes, fill: &self.fill, use_start: self.use_start };
        let filled = matches!(self.fill, Fill::Each(_));
        let mut next = i64::MAX;
        for (k, g) in self.groups.iter_mut() {
            let live = !g.times.is_empty() || pending.get(k).map(|p| !p.is_empty()).unwrap_or(false) || (filled && g.last_vals.is_some());
            if !live {
                continue;
            }
            if k.as_slice() != skip && c.grid.past(t - force, c.grid.trigger_end(g.next_end)) {
                if let Some(p) = pending.get_mut(k) {
                    flush(g, rows, p);
                }
                advance(i, &c, g, t - force, 1, outs)?;
            }
            if !g.times.is_empty() || (filled && g.last_vals.is_some()) {
                next = next.min(c.grid.trigger_end(g.next_end).saturating_add(force));
            }
        }
        self.force_from = next;
        Ok(())
    }
}

impl EngineCore for TimeSeries {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let n = rows.rows();
        let times = self.times(&rows);
        let mut outs: Vec<OutRow> = Vec::new();
        // rows of the batch waiting to join their group's buffer
        let mut pending: AHashMap<Vec<Key>, Vec<usize>> = AHashMap::new();
        // updateTime=0: the keys of the batch in the order they first appear
        let mut batch_keys: Vec<Vec<Key>> = Vec::new();
        for r in 0..n {
            let Some(t) = times[r] else { continue };
            let grid = self.grid;
            let base = match self.base {
                Some(b) => b,
                None => {
                    let a = alignment(precision(self.time_ty).unwrap_or(Precision::Milli), grid.step, self.round);
                    let b = t.div_euclid(a) * a + grid.step - grid.window;
                    self.base = Some(b);
                    b
                }
            };
            let key: Vec<Key> = self.keys.iter().map(|&c| Key::of(&rows.cols[c], r)).collect();
            if !self.groups.contains_key(&key) {
                let key_row = Table::new(self.keys.iter().map(|&c| rows.names[c].clone()).collect(), self.keys.iter().map(|&c| rows.cols[c].slice(r, r + 1)).collect())?;
                let next_end = grid.end_after(base, t);
                let g = Group { key_row, buf: self.dummy.clone(), times: Vec::new(), next_end, last: i64::MIN, done: i64::MIN, last_vals: None, last_slot: i64::MIN, waiting: None };
                self.groups.insert(key.clone(), g);
                if let Some(f) = self.force {
                    self.force_from = self.force_from.min(grid.trigger_end(next_end).saturating_add(f));
                }
            }
            let g = self.groups.get_mut(&key).ok_or_else(|| Error::runtime("internal: group vanished"))?;
            let late = if grid.right { t <= g.done } else { t < g.done };
            if late || (self.delay == 0 && t < g.last) {
                continue; // out of order or after its window was computed: dropped
            }
            let trig = t.saturating_sub(self.delay);
            let c = Ctx { grid, base, metrics: &self.metrics, sizes: &self.sizes, fill: &self.fill, use_start: self.use_start };
            if grid.past(trig, grid.trigger_end(g.next_end)) {
                let p = pending.entry(key.clone()).or_default();
                flush(g, &rows, p);
                advance(i, &c, g, trig, usize::MAX, &mut outs)?;
                g.waiting = None;
            }
            if let Some(u) = self.update.filter(|&u| u > 0) {
                // a row in a later u-slot of the window: the rows before it are computed
                let slot = (t - base).div_euclid(u);
                if slot > g.last_slot && g.waiting.is_some() {
                    let p = pending.entry(key.clone()).or_default();
                    flush(g, &rows, p);
                    compute_current(i, &c, g, &mut outs)?;
                }
                g.last_slot = slot;
                g.waiting.get_or_insert_with(std::time::Instant::now);
            } else if self.update == Some(0) && !batch_keys.contains(&key) {
                batch_keys.push(key.clone());
            }
            if g.times.is_empty() {
                if let Some(f) = self.force {
                    self.force_from = self.force_from.min(grid.trigger_end(g.next_end).saturating_add(f));
                }
            }
            g.times.push(t);
            g.last = g.last.max(t);
            pending.entry(key.clone()).or_default().push(r);
            if self.force.is_some() {
                self.force_trigger(i, t, &key, &rows, &mut pending, &mut outs)?;
            }
        }
        for (k, mut p) in pending {
            if let Some(g) = self.groups.get_mut(&k) {
                flush(g, &rows, &mut p);
            }
        }
        if let Some(base) = self.base.filter(|_| !batch_keys.is_empty()) {
            let c = Ctx { grid: self.grid, base, metrics: &self.metrics, sizes: &self.sizes, fill: &self.fill, use_start: self.use_start };
            for k in &batch_keys {
                if let Some(g) = self.groups.get_mut(k) {
                    compute_current(i, &c, g, &mut outs)?;
                }
            }
        }
        self.output(outs)
    }
    fn groups(&self) -> usize {
        self.groups.len()
    }
    fn due(&self) -> Option<std::time::Instant> {
        self.update.filter(|&u| u > 0)?;
        self.groups.values().filter_map(|g| g.waiting).min().map(|w| w + self.update_wait)
    }
    fn fire(&mut self, i: &mut CallCtx) -> Result<Option<Table>> {
        let (Some(base), Some(_)) = (self.base, self.update.filter(|&u| u > 0)) else { return Ok(None) };
        let now = std::time::Instant::now();
        let wait = self.update_wait;
        // the keys whose uncomputed rows have waited long enough, longest-waiting first
        let mut due: Vec<(std::time::Instant, Vec<Key>)> =
            self.groups.iter().filter_map(|(k, g)| g.waiting.filter(|w| *w + wait <= now).map(|w| (w, k.clone()))).collect();
        due.sort_by(|a, b| a.0.cmp(&b.0));
        let c = Ctx { grid: self.grid, base, metrics: &self.metrics, sizes: &self.sizes, fill: &self.fill, use_start: self.use_start };
        let mut outs = Vec::new();
        for (_, k) in due {
            if let Some(g) = self.groups.get_mut(&k) {
                compute_current(i, &c, g, &mut outs)?;
            }
        }
        self.output(outs)
    }
}

/// A window engine's output table: the leading columns already built (time, keys), then one
/// `factorN` column per metric from each output row's metric values; every row must have
/// as many values as the first (`unit` names the rows in the error: windows, sessions).
pub(crate) fn with_factors(
    mut names: Vec<String>,
    mut cols: Vec<Column>,
    rows: Vec<Vec<Value>>,
    unit: &str,
) -> Result<Table> {
    let nv = rows.first().map_or(0, |r| r.len());
    if rows.iter().any(|r| r.len() != nv) {
        return Err(Error::size(format!("the metrics gave different numbers of values for different {unit}")));
    }
    let mut per: Vec<Vec<Value>> = (0..nv).map(|_| Vec::with_capacity(rows.len())).collect();
    for vals in rows {
        for (j, v) in vals.into_iter().enumerate() {
            per[j].push(v);
        }
    }
    for (j, vals) in per.into_iter().enumerate() {
        names.push(format!("factor{}", j + 1));
        cols.push(column_of(vals)?);
    }
    Table::new(names, cols)
}

/// One window (or session) closed by a batch: the row of the batch that closed it (whose
/// key columns are the window's), the window's time, the metric values.
pub(crate) struct Closed {
    pub trigger: usize,
    pub time: i64,
    pub vals: Vec<Value>,
}

/// The output rows of windows closed by the batch `rows`: a time column named `time_name`
/// (built from the windows' times by `time_col`), the key columns of the rows that closed
/// them, then one column per metric (`unit` names the windows in errors).
pub(crate) fn emit_closed(
    time_name: String,
    time_col: impl FnOnce(Vec<i64>) -> Result<Column>,
    rows: &Table,
    keys: &[usize],
    closed: Vec<Closed>,
    unit: &str,
) -> Result<Option<Table>> {
    if closed.is_empty() {
        return Ok(None);
    }
    let mut names = vec![time_name];
    let mut cols = vec![time_col(closed.iter().map(|c| c.time).collect())?];
    let trig: Vec<usize> = closed.iter().map(|c| c.trigger).collect();
    for &k in keys {
        names.push(rows.names[k].clone());
        cols.push(rows.cols[k].take_usize(&trig));
    }
    Ok(Some(with_factors(names, cols, closed.into_iter().map(|c| c.vals).collect(), unit)?))
}

pub(crate) fn positive(what: &str, v: &Value, name: &str) -> Result<i64> {
    match v {
        Value::Scalar(_) => match v.as_i64() {
            Some(x) if x > 0 => Ok(x),
            _ => Err(Error::arg(format!("{what}: {name} must be a positive integer"))),
        },
        Value::Duration(..) => Err(Error::unsupported(what, &format!("{name} as a duration (give it in the time column's unit)"))),
        other => Err(Error::arg(format!("{what}: {name} must be a positive integer, not {}", describe(other)))),
    }
}

/// `subWindow`: a pair of integers in the time column's unit, or of durations.
fn sub_window(what: &str, v: &Value, p: Precision) -> Result<(i64, i64)> {
    let per_sec: i64 = match p {
        Precision::Nano => 1_000_000_000,
        Precision::Milli => 1000,
        Precision::Second => 1,
        Precision::Minute | Precision::Day => 0,
    };
    let one = |x: &Value| -> Result<i64> {
        match x {
            Value::Duration(n, unit) => {
                // units up to an hour (a sub-window lies inside one window)
                let ns: i64 = match beluga_runtime::temporal::duration_unit_ns(unit.as_ref()) {
                    Some(ns) if ns <= 3_600_000_000_000 => ns,
                    _ => return Err(Error::arg(format!("{what}: subWindow can't be given in {unit}"))),
                };
                if per_sec == 0 {
                    return Err(Error::arg(format!("{what}: give subWindow in the time column's unit")));
                }
                let total = n.checked_mul(ns).ok_or_else(|| Error::arg(format!("{what}: subWindow is too large")))?;
                Ok(total / (1_000_000_000 / per_sec))
            }
            Value::Scalar(_) => x.as_i64().ok_or_else(|| Error::arg(format!("{what}: subWindow must be a pair of integers or durations"))),
            _ => Err(Error::arg(format!("{what}: subWindow must be a pair of integers or durations"))),
        }
    };
    match v {
        Value::Pair(c) if c.len() == 2 => {
            let a = Value::Scalar(c.slice(0, 1));
            let b = Value::Scalar(c.slice(1, 2));
            Ok((one(&a)?, one(&b)?))
        }
        Value::Tuple(items) if items.len() == 2 => Ok((one(&items[0])?, one(&items[1])?)),
        other => Err(Error::arg(format!("{what}: subWindow must be a pair such as 0s:10s, not {}", describe(other)))),
    }
}

pub fn create(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createTimeSeriesEngine";
    let get = |k: usize| args.get(k).filter(|v| !matches!(v, Value::Void));
    let c = common(i, W, &args[0], &args[4])?;
    let step = positive(W, &args[2], "step")?;
    // windowSize: one size, or several, each with its own metrics (metrics is then a tuple
    // with one item per size; an item is metacode or a tuple of metacode)
    let (window, metrics, sizes) = match &args[1] {
        Value::Vector(col) => {
            let n = col.len();
            let items: Vec<Value> = match &args[3] {
                Value::Tuple(items) if items.len() == n => items.iter().cloned().collect(),
                _ => return Err(Error::arg(format!("{W}: with {n} window sizes, metrics must be a tuple of {n} items (the metrics of each size)"))),
            };
            let (mut metrics, mut sizes) = (Vec::new(), Vec::new());
            for (k, item) in items.iter().enumerate() {
                let w = positive(W, &Value::Scalar(col.slice(k, k + 1)), "windowSize")?;
                if w % step != 0 {
                    return Err(Error::arg(format!("{W}: windowSize ({w}) must be a multiple of step ({step})")));
                }
                for e in metric_exprs(W, item)? {
                    metrics.push(e);
                    sizes.push(w);
                }
            }
            if get(11).and_then(|v| v.as_bool()).unwrap_or(false) {
                return Err(Error::arg(format!("{W}: useWindowStartTime must be false when windowSize is a vector")));
            }
            (sizes.iter().copied().max().unwrap_or(step), metrics, sizes)
        }
        v => {
            let window = positive(W, v, "windowSize")?;
            if window % step != 0 {
                return Err(Error::arg(format!("{W}: windowSize ({window}) must be a multiple of step ({step})")));
            }
            (window, metric_exprs(W, &args[3])?, Vec::new())
        }
    };
    if get(7).and_then(|v| v.as_bool()).unwrap_or(false) {
        return Err(Error::unsupported(W, "useSystemTime=true"));
    }
    let tnames = crate::table::names_arg(W, get(6).ok_or_else(|| Error::arg(format!("{W}: timeColumn is required")))?)?;
    let col = |n: &str| c.dummy.col_index(n).ok_or_else(|| Error::name(format!("{W}: the time column {n} is not a column of dummyTable")));
    let (time_col, date_col, time_ty) = match tnames.as_slice() {
        [one] => {
            let k = col(one)?;
            let ty = c.dummy.cols[k].ty;
            if precision(ty).is_none() {
                return Err(Error::type_err(format!("{W}: the time column {one} is {ty}; it must be a DATE, MINUTE, SECOND, TIME, DATETIME, TIMESTAMP, NANOTIME or NANOTIMESTAMP column")));
            }
            (k, None, ty)
        }
        [d, t] => {
            // a DATE and a time of day: the time is concatDateTime(date, time)
            let (dk, tk) = (col(d)?, col(t)?);
            if c.dummy.cols[dk].ty != DataType::Date {
                return Err(Error::type_err(format!("{W}: the first time column {d} must be a DATE column")));
            }
            let (ty, per_day) = match c.dummy.cols[tk].ty {
                DataType::Second => (DataType::DateTime, 86_400),
                DataType::Time => (DataType::Timestamp, 86_400_000),
                DataType::NanoTime => (DataType::NanoTimestamp, 86_400_000_000_000),
                other => return Err(Error::type_err(format!("{W}: the second time column {t} is {other}; it must be SECOND, TIME or NANOTIME"))),
            };
            (tk, Some((dk, per_day)), ty)
        }
        _ => return Err(Error::arg(format!("{W}: timeColumn is one column name or two (a DATE column and a time column)"))),
    };
    let time_name = tnames.last().cloned().unwrap_or_default();
    let keys = key_names(W, get(8), &c.dummy)?;
    for (k, what) in [(13, "snapshotDir"), (17, "raftGroup")] {
        if get(k).is_some() {
            return Err(Error::unsupported(W, what));
        }
    }
    let delay = match get(23) {
        Some(v) => match v.as_i64() {
            Some(d) if d >= 0 => d,
            _ => return Err(Error::arg(format!("{W}: acceptedDelay must be a non-negative integer"))),
        },
        None => 0,
    };
    let force = match get(16) {
        Some(v) => match v.as_i64() {
            Some(f) if f >= 0 => Some(f),
            _ => return Err(Error::arg(format!("{W}: forceTriggerTime must be a non-negative integer"))),
        },
        None => None,
    };
    if force.is_some() && delay > 0 {
        return Err(Error::arg(format!("{W}: acceptedDelay can't be set with forceTriggerTime")));
    }
    let sub = match get(21) {
        Some(v) => {
            if window != step {
                return Err(Error::arg(format!("{W}: with subWindow, windowSize must equal step")));
            }
            let (a, b) = sub_window(W, v, precision(time_ty).unwrap_or(Precision::Milli))?;
            if a < 0 || b <= a || b > window {
                return Err(Error::arg(format!("{W}: subWindow must lie inside the window (0 <= begin < end <= windowSize)")));
            }
            Some((a, b))
        }
        None => None,
    };
    let update = match get(10) {
        Some(v) => match v.as_i64().filter(|_| matches!(v, Value::Scalar(_))) {
            Some(u) if u >= 0 => Some(u),
            _ => return Err(Error::arg(format!("{W}: updateTime must be a non-negative integer"))),
        },
        None => None,
    };
    if let Some(u) = update {
        if u > 0 && step % u != 0 {
            return Err(Error::arg(format!("{W}: step ({step}) must be a multiple of updateTime ({u})")));
        }
        if force.is_some() || delay > 0 || sub.is_some() {
            return Err(Error::arg(format!("{W}: updateTime can't be set with forceTriggerTime, acceptedDelay or subWindow")));
        }
    }
    // uncomputed rows wait 2 × updateTime of system time, at least 2 s
    let update_wait = {
        let per_unit_ns: f64 = match precision(time_ty).unwrap_or(Precision::Milli) {
            Precision::Nano => 1.0,
            Precision::Milli => 1e6,
            Precision::Second => 1e9,
            Precision::Minute => 60e9,
            Precision::Day => 86_400e9,
        };
        let ns = (2.0 * update.unwrap_or(0) as f64 * per_unit_ns).clamp(2e9, 1e18);
        std::time::Duration::from_nanos(ns as u64)
    };
    let fill = fill_arg(W, get(15))?;
    if get(20).and_then(|v| v.as_bool()).unwrap_or(false) {
        return Err(Error::unsupported(W, "outputElapsedMicroseconds"));
    }
    let right = match get(19).and_then(|v| v.as_str()) {
        None | Some("left") => false,
        Some("right") => true,
        Some(other) => return Err(Error::arg(format!("{W}: closed must be 'left' or 'right', not '{other}'"))),
    };
    let use_start = get(11).and_then(|v| v.as_bool()).unwrap_or(false);
    let round = get(12).and_then(|v| v.as_bool()).unwrap_or(true);
    let key_idx: Vec<usize> = keys.iter().filter_map(|n| c.dummy.col_index(n)).collect();
    let core = TimeSeries {
        grid: Grid { window, step, right, sub },
        time_col,
        date_col,
        time_name,
        time_ty,
        delay,
        force,
        force_from: i64::MAX,
        keys: key_idx,
        metrics,
        sizes,
        use_start,
        round,
        base: None,
        groups: AHashMap::new(),
        dummy: c.dummy.clone(),
        fill,
        update,
        update_wait,
    };
    let msg_as_table = get(25).and_then(|v| v.as_bool()).unwrap_or(false);
    let engine = register(i, W, "TimeSeriesEngine", c, Box::new(core), &args[5], get(24), msg_as_table)?;
    if update.map(|u| u > 0).unwrap_or(false) {
        super::engine::arm_timer(i, &engine)?;
    }
    Ok(engine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_follows_the_manual_tables() {
        // funcs/c/createTimeSeriesEngine.md: 60000 ms step → 1 minute; 7 s → 10 s; 45 min → 1 hour
        assert_eq!(alignment(Precision::Milli, 60000, true), 60000);
        assert_eq!(alignment(Precision::Milli, 250000, true), 300000);
        assert_eq!(alignment(Precision::Milli, 250000, false), 60000);
        assert_eq!(alignment(Precision::Second, 7, true), 10);
        assert_eq!(alignment(Precision::Minute, 45, true), 60);
        assert_eq!(alignment(Precision::Day, 3, true), 1);
        assert_eq!(alignment(Precision::Nano, 3_000_000, true), 10_000_000);
    }

    #[test]
    fn window_ends_lie_on_the_grid() {
        let g = Grid { window: 120, step: 60, right: false, sub: None };
        // base 0: ends 120, 180, 240...; a row at 130 belongs to the window ending 180 first
        assert_eq!(g.end_after(0, 5), 120);
        assert_eq!(g.end_after(0, 120), 180);
        assert_eq!(g.end_after(0, 130), 180);
        let r = Grid { window: 120, step: 60, right: true, sub: None };
        assert_eq!(r.end_after(0, 120), 120);
        assert!(g.past(120, 120) && !r.past(120, 120));
    }
}
