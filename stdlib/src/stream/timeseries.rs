//! `createTimeSeriesEngine` (alias `createTimeSeriesAggregator`): aggregates over
//! tumbling or sliding windows of event time, per key (funcs/c/createTimeSeriesEngine.md).
//!
//! Rules kept from the manual:
//! * windows lie on one grid for all keys: the first window starts at
//!   `x / alignmentSize * alignmentSize + step - windowSize`, x the first row's time and
//!   alignmentSize from the step, the time column's precision and `roundTime` (the
//!   manual's tables); later windows start `step` apart;
//! * a key's window is computed when the first row of that key at or after the window's
//!   end arrives (`closed='left'`, windows `[start, end)`; with `closed='right'`,
//!   `(start, end]` and a row after the end); the triggering row is not part of it;
//! * windows without rows give no output (`fill='none'`); with `fill` 'null', 'ffill' or
//!   a value (one, or one per metric), a key's empty windows after its first window give a
//!   row of NULLs, the previous window's values or the value;
//! * rows whose time is before the key's last time are dropped;
//! * the output row is the window's end (its start with `useWindowStartTime=true`), the
//!   key columns, then the metrics (aggregates over the window's rows; a metric giving a
//!   tuple gives several columns).
//! Not supported (an error says so): `useSystemTime=true`, `updateTime`,
//! `forceTriggerTime`, a vector `windowSize`, `subWindow`,
//! `acceptedDelay`, snapshots, two time columns, MONTH time columns.

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
    /// rows not yet out of every window, in time order, and their times
    buf: Table,
    times: Vec<i64>,
    /// end of the next window to compute
    next_end: i64,
    last: i64,
    /// the values of the key's last computed window (fill='ffill')
    last_vals: Option<Vec<Value>>,
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
}

struct TimeSeries {
    grid: Grid,
    time_col: usize,
    time_ty: DataType,
    keys: Vec<usize>,
    metrics: Vec<Arc<Expr>>,
    use_start: bool,
    round: bool,
    /// start of the first window (set by the first row)
    base: Option<i64>,
    groups: AHashMap<Vec<Key>, Group>,
    dummy: Table,
    fill: Fill,
}

/// One computed window: its time, the key row it came from, the metric values.
struct OutRow {
    time: i64,
    key_row: (usize, Vec<Key>),
    vals: Vec<Value>,
}

impl Grid {
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

fn scalar_parts(v: Value, out: &mut Vec<Value>) -> Result<()> {
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

fn column_of(vals: Vec<Value>) -> Result<Column> {
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

fn time_column(ty: DataType, like: &Column, v: Vec<i64>) -> Column {
    match &*like.data {
        ColData::I32(_) => Column::new(ty, ColData::I32(v.into_iter().map(|x| x as i32).collect())),
        _ => Column::new(ty, ColData::I64(v)),
    }
}

impl EngineCore for TimeSeries {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let n = rows.rows();
        let tcol = rows.cols[self.time_col].clone();
        let mut outs: Vec<OutRow> = Vec::new();
        // rows of the batch waiting to join their group's buffer
        let mut pending: AHashMap<Vec<Key>, Vec<usize>> = AHashMap::new();
        for r in 0..n {
            let Some(t) = tcol.i64_at(r) else { continue };
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
                let g = Group { buf: self.dummy.clone(), times: Vec::new(), next_end: grid.end_after(base, t), last: i64::MIN, last_vals: None };
                self.groups.insert(key.clone(), g);
            }
            let g = self.groups.get_mut(&key).ok_or_else(|| Error::runtime("internal: group vanished"))?;
            if t < g.last {
                continue; // out of order: dropped
            }
            if grid.past(t, g.next_end) {
                let p = pending.entry(key.clone()).or_default();
                flush(g, &rows, p);
            }
            while grid.past(t, g.next_end) {
                let end = g.next_end;
                let start = end - grid.window;
                let drop = grid.in_window_from(&g.times, start);
                if drop > 0 {
                    g.times.drain(..drop);
                    g.buf = g.buf.slice(drop, g.buf.rows());
                }
                let upto = grid.in_window_to(&g.times, end);
                if upto == 0 {
                    if let (Fill::Each(how), Some(prev)) = (&self.fill, &g.last_vals) {
                        // an empty window after the key's first one: filled, one row per window
                        let vals = fill_values(how, prev)?;
                        outs.push(OutRow { time: if self.use_start { start } else { end }, key_row: (r, key.clone()), vals });
                        g.next_end = end + grid.step;
                        continue;
                    }
                    // nothing in this window: go to the first window holding the earliest row
                    // (or, with no rows kept, the first window after this row)
                    g.next_end = match g.times.first() {
                        Some(&t0) => grid.end_after(base, t0).max(end + grid.step),
                        None => grid.end_after(base, t),
                    };
                    if g.times.is_empty() {
                        break;
                    }
                    continue;
                }
                let win = g.buf.slice(0, upto);
                let mut vals = Vec::new();
                for e in &self.metrics {
                    let v = eval_on(i, &win, e)?;
                    scalar_parts(v, &mut vals)?;
                }
                if matches!(self.fill, Fill::Each(_)) {
                    g.last_vals = Some(vals.clone());
                }
                outs.push(OutRow { time: if self.use_start { start } else { end }, key_row: (r, key.clone()), vals });
                g.next_end = end + grid.step;
            }
            g.times.push(t);
            g.last = t;
            pending.entry(key).or_default().push(r);
        }
        for (k, mut p) in pending {
            if let Some(g) = self.groups.get_mut(&k) {
                flush(g, &rows, &mut p);
            }
        }
        if outs.is_empty() {
            return Ok(None);
        }
        let nv = outs[0].vals.len();
        if outs.iter().any(|o| o.vals.len() != nv) {
            return Err(Error::size("the metrics gave different numbers of values for different windows"));
        }
        let mut names = vec![rows.names[self.time_col].clone()];
        let mut cols = vec![time_column(self.time_ty, &tcol, outs.iter().map(|o| o.time).collect())];
        let key_rows: Vec<usize> = outs.iter().map(|o| o.key_row.0).collect();
        for &k in &self.keys {
            names.push(rows.names[k].clone());
            cols.push(rows.cols[k].take_usize(&key_rows));
        }
        let mut per: Vec<Vec<Value>> = (0..nv).map(|_| Vec::with_capacity(outs.len())).collect();
        for o in outs {
            for (j, v) in o.vals.into_iter().enumerate() {
                per[j].push(v);
            }
        }
        for (j, vals) in per.into_iter().enumerate() {
            names.push(format!("factor{}", j + 1));
            cols.push(column_of(vals)?);
        }
        Ok(Some(Table::new(names, cols)?))
    }
    fn groups(&self) -> usize {
        self.groups.len()
    }
}

fn positive(what: &str, v: &Value, name: &str) -> Result<i64> {
    match v {
        Value::Scalar(_) => match v.as_i64() {
            Some(x) if x > 0 => Ok(x),
            _ => Err(Error::arg(format!("{what}: {name} must be a positive integer"))),
        },
        Value::Duration(..) => Err(Error::unsupported(what, &format!("{name} as a duration (give it in the time column's unit)"))),
        other => Err(Error::arg(format!("{what}: {name} must be a positive integer, not {}", describe(other)))),
    }
}

pub fn create(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createTimeSeriesEngine";
    let get = |k: usize| args.get(k).filter(|v| !matches!(v, Value::Void));
    let c = common(i, W, &args[0], &args[4])?;
    let window = positive(W, &args[1], "windowSize")?;
    let step = positive(W, &args[2], "step")?;
    if window % step != 0 {
        return Err(Error::arg(format!("{W}: windowSize ({window}) must be a multiple of step ({step})")));
    }
    let metrics = metric_exprs(W, &args[3])?;
    if get(7).and_then(|v| v.as_bool()).unwrap_or(false) {
        return Err(Error::unsupported(W, "useSystemTime=true"));
    }
    let time_name = get(6).and_then(|v| v.as_str()).ok_or_else(|| Error::arg(format!("{W}: timeColumn (one column name) is required")))?;
    let time_col = c.dummy.col_index(time_name).ok_or_else(|| Error::name(format!("{W}: the time column {time_name} is not a column of dummyTable")))?;
    let time_ty = c.dummy.cols[time_col].ty;
    if precision(time_ty).is_none() {
        return Err(Error::type_err(format!("{W}: the time column {time_name} is {time_ty}; it must be a DATE, MINUTE, SECOND, TIME, DATETIME, TIMESTAMP, NANOTIME or NANOTIMESTAMP column")));
    }
    let keys = key_names(W, get(8), &c.dummy)?;
    for (k, what) in [(10, "updateTime"), (13, "snapshotDir"), (16, "forceTriggerTime"), (17, "raftGroup"), (21, "subWindow"), (23, "acceptedDelay")] {
        if get(k).is_some() {
            return Err(Error::unsupported(W, what));
        }
    }
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
        grid: Grid { window, step, right },
        time_col,
        time_ty,
        keys: key_idx,
        metrics,
        use_start,
        round,
        base: None,
        groups: AHashMap::new(),
        dummy: c.dummy.clone(),
        fill,
    };
    let msg_as_table = get(25).and_then(|v| v.as_bool()).unwrap_or(false);
    register(i, W, "TimeSeriesEngine", c, Box::new(core), &args[5], get(24), msg_as_table)
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
        let g = Grid { window: 120, step: 60, right: false };
        // base 0: ends 120, 180, 240...; a row at 130 belongs to the window ending 180 first
        assert_eq!(g.end_after(0, 5), 120);
        assert_eq!(g.end_after(0, 120), 180);
        assert_eq!(g.end_after(0, 130), 180);
        let r = Grid { window: 120, step: 60, right: true };
        assert_eq!(r.end_after(0, 120), 120);
        assert!(g.past(120, 120) && !r.past(120, 120));
    }
}
