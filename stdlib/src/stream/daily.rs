//! `createDailyTimeSeriesEngine`: the time-series engine's windows inside the trading
//! sessions of each day (funcs/c/createDailyTimeSeriesEngine.md).
//!
//! Rules kept from the manual:
//! * the time is one DATETIME/TIMESTAMP/NANOTIMESTAMP column or a DATE column and a
//!   SECOND/TIME/NANOTIME column (`timeColumn=`date`second`), combined into one (the
//!   output's time column has the combined type);
//! * sessions are `sessionBegin[k]`–`sessionEnd[k]` of each day (default: the whole
//!   day; `sessionEnd` 00:00:00 means 24:00); windows of `windowSize` lie `step` apart
//!   from each session's begin (rounded down to the step's alignment) and never cross a
//!   session: a session's last window ends at its `sessionEnd`;
//! * a row before a session (between sessions, or before the first) joins that
//!   session's first window; a row after the day's last session is dropped; a row at a
//!   session's end joins that session's last window when `mergeSessionEnd=true`, else
//!   the next session's first window (dropped after the last session);
//! * a key's window is computed when a row of that key at or after the window's end
//!   arrives (`closed='left'`); windows without rows give no output;
//! * `keyPurgeDaily=true` (default): the first row of a new day clears every key's state
//!   (windows of the previous day not yet computed are dropped).
//! Not supported (an error says so): `useSystemTime=true`, `updateTime`, `fill` other
//! than 'none', `forceTriggerTime`, `forceTriggerSessionEndTime`, `closed='right'`,
//! `subWindow`, `acceptedDelay`, `mergeLastWindow`, `mergeSession`, sessions that cross
//! midnight, snapshots.

use super::engine::{common, eval_on, key_names, metric_exprs, register, EngineCore};
use super::timeseries::{alignment_for, emit_closed, positive, scalar_parts, Closed};
use ahash::AHashMap;
use beluga_lang::ast::Expr;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::{CallCtx, Column, DataType, Error, Key, Result, Table, Value};
use std::sync::Arc;

/// How the engine reads a row's time.
#[derive(Clone, Copy)]
enum Clock {
    /// one column of absolute time
    One(usize),
    /// a DATE column and a time-of-day column in `unit`s
    Two(usize, usize),
}

struct KeyState {
    /// rows kept (effective times ascending) and their effective times
    buf: Table,
    times: Vec<i64>,
    /// end of the last window computed (absolute)
    done: i64,
}

struct Daily {
    clock: Clock,
    /// units per day, and the output time type
    day: i64,
    out_ty: DataType,
    out_name: String,
    /// per session: (aligned begin, end), times of day
    sessions: Vec<(i64, i64)>,
    /// the day's windows: (start, end) times of day, ends ascending
    windows: Vec<(i64, i64)>,
    merge_end: bool,
    purge_daily: bool,
    use_start: bool,
    keys: Vec<usize>,
    metrics: Vec<Arc<Expr>>,
    dummy: Table,
    state: AHashMap<Vec<Key>, KeyState>,
    current_day: Option<i64>,
}

impl Daily {
    fn abs_time(&self, rows: &Table, r: usize) -> Option<i64> {
        match self.clock {
            Clock::One(c) => rows.cols[c].i64_at(r),
            Clock::Two(d, t) => Some(rows.cols[d].i64_at(r)? * self.day + rows.cols[t].i64_at(r)?),
        }
    }

    /// Where a row's time places it: its effective time, or None when it is dropped.
    fn effective(&self, a: i64) -> Option<i64> {
        let day = a.div_euclid(self.day) * self.day;
        let x = a - day;
        for &(b, e) in &self.sessions {
            if x == e && self.merge_end {
                // the session's last window ([.., e)) takes it: placed just inside
                return Some(day + e - 1);
            }
            if x < e {
                return Some(day + x.max(b));
            }
        }
        None
    }
}

impl EngineCore for Daily {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let mut outs: Vec<Closed> = Vec::new();
        for r in 0..rows.rows() {
            let Some(a) = self.abs_time(&rows, r) else {
                continue;
            };
            let d = a.div_euclid(self.day);
            if self.current_day.map(|c| d > c).unwrap_or(true) {
                if self.purge_daily && self.current_day.is_some() {
                    self.state.clear();
                }
                self.current_day = Some(d);
            }
            let eff = self.effective(a);
            let trigger = eff.unwrap_or(a);
            let key: Vec<Key> = self
                .keys
                .iter()
                .map(|&c| Key::of(&rows.cols[c], r))
                .collect();
            let dummy = self.dummy.clone();
            let st = self.state.entry(key).or_insert_with(|| KeyState {
                buf: dummy,
                times: Vec::new(),
                done: i64::MIN,
            });
            if st
                .times
                .last()
                .map(|&l| eff.map(|e| e < l).unwrap_or(false))
                .unwrap_or(false)
            {
                continue; // out of order: dropped
            }
            // compute every window the trigger time has passed that holds kept rows
            while let Some(&t0) = st.times.first() {
                let day0 = t0.div_euclid(self.day) * self.day;
                let from = (t0 - day0).max(st.done.saturating_sub(day0));
                let k = self.windows.partition_point(|&(_, e)| e <= from);
                let Some(&(ws, we)) = self.windows.get(k) else {
                    // past the day's windows: nothing can take these rows
                    let n = st.times.partition_point(|&t| t < day0 + self.day);
                    st.times.drain(..n);
                    st.buf = st.buf.slice(n, st.buf.rows());
                    continue;
                };
                let (start, end) = (day0 + ws, day0 + we);
                if trigger < end {
                    break;
                }
                let lo = st.times.partition_point(|&t| t < start);
                let hi = st.times.partition_point(|&t| t < end);
                if hi > lo {
                    let win = st.buf.slice(lo, hi);
                    let mut vals = Vec::new();
                    for e in &self.metrics {
                        scalar_parts(eval_on(i, &win, e)?, &mut vals)?;
                    }
                    outs.push(Closed {
                        trigger: r,
                        time: if self.use_start { start } else { end },
                        vals,
                    });
                }
                st.done = end;
                // rows before the next window's start are no longer needed
                let next_start = self
                    .windows
                    .get(k + 1)
                    .map(|&(s, _)| day0 + s)
                    .unwrap_or(day0 + self.day);
                let drop = st.times.partition_point(|&t| t < next_start);
                if drop > 0 {
                    st.times.drain(..drop);
                    st.buf = st.buf.slice(drop, st.buf.rows());
                }
            }
            if let Some(e) = eff {
                let row = rows.slice(r, r + 1);
                for (c, n) in st.buf.cols.iter_mut().zip(&row.cols) {
                    c.append(n);
                }
                st.times.push(e);
            }
        }
        let out_ty = self.out_ty;
        let time_col = |t: Vec<i64>| cast_column(&Column::from_vec(DataType::Long, t), out_ty);
        emit_closed(self.out_name.clone(), time_col, &rows, &self.keys, outs, "windows")
    }
    fn groups(&self) -> usize {
        self.state.len()
    }
}

pub const PARAMS: &[&str] = &[
    "name",
    "windowSize",
    "step",
    "metrics",
    "dummyTable",
    "outputTable",
    "timeColumn",
    "useSystemTime",
    "keyColumn",
    "garbageSize",
    "updateTime",
    "useWindowStartTime",
    "roundTime",
    "snapshotDir",
    "snapshotIntervalInMsgCount",
    "fill",
    "sessionBegin",
    "sessionEnd",
    "mergeSessionEnd",
    "forceTriggerTime",
    "raftGroup",
    "forceTriggerSessionEndTime",
    "keyPurgeFreqInSec",
    "closed",
    "outputElapsedMicroseconds",
    "subWindow",
    "parallelism",
    "acceptedDelay",
    "outputHandler",
    "msgAsTable",
    "keyPurgeDaily",
    "mergeLastWindow",
    "mergeSession",
];

/// Session times given as SECOND, TIME or NANOTIME values, in units of `per_sec` a second.
fn times_of_day(
    what: &str,
    name: &str,
    v: Option<&Value>,
    per_sec: i64,
) -> Result<Option<Vec<i64>>> {
    let Some(v) = v else { return Ok(None) };
    let c = match v {
        Value::Scalar(c) | Value::Vector(c) => c,
        _ => {
            return Err(Error::arg(format!(
                "{what}: {name} must be SECOND, TIME or NANOTIME values"
            )))
        }
    };
    let (num, den) = match c.ty {
        DataType::Second => (per_sec, 1),
        DataType::Time => (per_sec, 1000),
        DataType::NanoTime => (per_sec, 1_000_000_000),
        ty => {
            return Err(Error::type_err(format!(
                "{what}: {name} is {ty}; it must be SECOND, TIME or NANOTIME"
            )))
        }
    };
    (0..c.len())
        .map(|k| {
            c.i64_at(k)
                .map(|x| x * num / den)
                .ok_or_else(|| Error::arg(format!("{what}: {name} holds a NULL")))
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

pub fn create(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createDailyTimeSeriesEngine";
    let get = |name: &str| {
        let k = PARAMS.iter().position(|n| *n == name)?;
        args.get(k).filter(|v| !matches!(v, Value::Void))
    };
    let c = common(i, W, &args[0], &args[4])?;
    let window = positive(W, &args[1], "windowSize")?;
    let step = positive(W, &args[2], "step")?;
    if window % step != 0 {
        return Err(Error::arg(format!(
            "{W}: windowSize ({window}) must be a multiple of step ({step})"
        )));
    }
    let metrics = metric_exprs(W, &args[3])?;
    if get("useSystemTime")
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
    {
        return Err(Error::unsupported(W, "useSystemTime=true"));
    }
    for what in [
        "updateTime",
        "snapshotDir",
        "snapshotIntervalInMsgCount",
        "forceTriggerTime",
        "raftGroup",
        "forceTriggerSessionEndTime",
        "subWindow",
        "acceptedDelay",
        "mergeSession",
    ] {
        if get(what).is_some() {
            return Err(Error::unsupported(W, what));
        }
    }
    if get("fill")
        .map(|v| v.as_str() != Some("none"))
        .unwrap_or(false)
    {
        return Err(Error::unsupported(W, "fill other than 'none'"));
    }
    if get("closed")
        .map(|v| v.as_str() != Some("left"))
        .unwrap_or(false)
    {
        return Err(Error::unsupported(W, "closed='right'"));
    }
    if get("mergeLastWindow")
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
    {
        return Err(Error::unsupported(W, "mergeLastWindow=true"));
    }
    let tnames = crate::table::names_arg(
        W,
        get("timeColumn").ok_or_else(|| Error::arg(format!("{W}: timeColumn is required")))?,
    )?;
    let col = |n: &str| {
        c.dummy.col_index(n).ok_or_else(|| {
            Error::name(format!(
                "{W}: the time column {n} is not a column of dummyTable"
            ))
        })
    };
    use DataType::*;
    let (clock, out_ty, per_sec) = match tnames.len() {
        1 => {
            let k = col(&tnames[0])?;
            match c.dummy.cols[k].ty {
                DateTime => (Clock::One(k), DateTime, 1),
                Timestamp => (Clock::One(k), Timestamp, 1000),
                NanoTimestamp => (Clock::One(k), NanoTimestamp, 1_000_000_000),
                ty => return Err(Error::type_err(format!("{W}: the time column {} is {ty}; give DATETIME, TIMESTAMP or NANOTIMESTAMP, or a DATE and a time column", tnames[0]))),
            }
        }
        2 => {
            let (d, t) = (col(&tnames[0])?, col(&tnames[1])?);
            if c.dummy.cols[d].ty != Date {
                return Err(Error::type_err(format!(
                    "{W}: the first time column {} must be a DATE column",
                    tnames[0]
                )));
            }
            match c.dummy.cols[t].ty {
                Second => (Clock::Two(d, t), DateTime, 1),
                Time => (Clock::Two(d, t), Timestamp, 1000),
                NanoTime => (Clock::Two(d, t), NanoTimestamp, 1_000_000_000),
                ty => return Err(Error::type_err(format!(
                    "{W}: the second time column {} is {ty}; it must be SECOND, TIME or NANOTIME",
                    tnames[1]
                ))),
            }
        }
        _ => {
            return Err(Error::arg(format!(
                "{W}: timeColumn is one column name or two (a DATE column and a time column)"
            )))
        }
    };
    let day = 86_400 * per_sec;
    let begins =
        times_of_day(W, "sessionBegin", get("sessionBegin"), per_sec)?.unwrap_or_else(|| vec![0]);
    let ends =
        times_of_day(W, "sessionEnd", get("sessionEnd"), per_sec)?.unwrap_or_else(|| vec![day]);
    if begins.len() != ends.len() || begins.is_empty() {
        return Err(Error::arg(format!(
            "{W}: sessionBegin and sessionEnd must have the same length"
        )));
    }
    let align = alignment_for(out_ty, step).unwrap_or(step);
    let mut sessions = Vec::new();
    for (k, (&b, &e)) in begins.iter().zip(&ends).enumerate() {
        let e = if e == 0 { day } else { e };
        if e <= b || sessions.last().map(|&(_, pe)| b < pe).unwrap_or(false) {
            return Err(Error::unsupported(W, &format!("session {k} ({b}..{e} in the time unit): sessions must be increasing and within one day")));
        }
        sessions.push((b.div_euclid(align) * align, e));
    }
    let mut windows = Vec::new();
    let per_day: i64 = sessions.iter().map(|&(b, e)| (e - b) / step + 1).sum();
    if per_day > 1_000_000 {
        return Err(Error::arg(format!("{W}: step {step} gives {per_day} windows a day; at most 1000000 are kept")));
    }
    for &(b, e) in &sessions {
        let mut end = b + step;
        let mut prev = b;
        while end < e {
            windows.push(((end - window).max(b), end));
            prev = end;
            end += step;
        }
        windows.push(((prev + step - window).max(b), e));
    }
    let keys = key_names(W, get("keyColumn"), &c.dummy)?;
    let keys: Vec<usize> = keys.iter().filter_map(|n| c.dummy.col_index(n)).collect();
    let out_name = if tnames.len() == 1 {
        tnames[0].clone()
    } else {
        tnames[1].clone()
    };
    let core = Daily {
        clock,
        day,
        out_ty,
        out_name,
        sessions,
        windows,
        merge_end: get("mergeSessionEnd")
            .and_then(|v| v.as_bool())
            .unwrap_or(false),
        purge_daily: get("keyPurgeDaily")
            .and_then(|v| v.as_bool())
            .unwrap_or(true),
        use_start: get("useWindowStartTime")
            .and_then(|v| v.as_bool())
            .unwrap_or(false),
        keys,
        metrics,
        dummy: c.dummy.clone(),
        state: AHashMap::new(),
        current_day: None,
    };
    let msg_as_table = get("msgAsTable").and_then(|v| v.as_bool()).unwrap_or(false);
    register(
        i,
        W,
        "DailyTimeSeriesEngine",
        c,
        Box::new(core),
        &args[5],
        get("outputHandler"),
        msg_as_table,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_between_sessions_join_the_next_first_window() {
        let d = Daily {
            clock: Clock::One(0),
            day: 86_400,
            out_ty: DataType::DateTime,
            out_name: "t".into(),
            sessions: vec![(34_200, 41_400), (46_800, 54_000)],
            windows: vec![],
            merge_end: false,
            purge_daily: true,
            use_start: false,
            keys: vec![],
            metrics: vec![],
            dummy: Table::new(vec![], vec![]).unwrap_or_else(|_| unreachable!()),
            state: AHashMap::new(),
            current_day: None,
        };
        assert_eq!(d.effective(33_931), Some(34_200)); // 09:25:31 -> 09:30:00
        assert_eq!(d.effective(41_400), Some(46_800)); // 11:30:00 -> 13:00:00 (not merged)
        assert_eq!(d.effective(54_000), None); // 15:00:00: after the last session
        let m = Daily {
            merge_end: true,
            ..d
        };
        assert_eq!(m.effective(41_400), Some(41_399));
    }
}
