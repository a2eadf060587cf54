//! `createSessionWindowEngine`: aggregates over session windows of event time, per key
//! (funcs/c/createSessionWindowEngine.md).
//!
//! Rules kept from the manual:
//! * a key's session is cut when no row of that key arrives within `sessionGap` of its
//!   last row: the first row at or after `last + sessionGap` closes the session and starts
//!   the next one; the closing row triggers the computation of the closed session;
//! * the output row's time is the session's first row time (`useSessionStartTime=true`,
//!   the default) or its last row time + sessionGap; then the key columns, then the metrics
//!   (aggregates over the session's rows; a metric giving a tuple gives several columns);
//! * rows older than the key's last row are dropped;
//! * outputs follow the order of the rows that trigger them.
//! Not supported (an error says so): `useSystemTime=true`, `updateTime`,
//! `forceTriggerTime` (it fires on system time after the last row, and Beluga has no timer
//! thread), snapshots, raftGroup.

use super::engine::{common, eval_on, key_names, metric_exprs, register, EngineCore};
use super::timeseries::{emit_closed, positive, scalar_parts, time_column, Closed};
use ahash::AHashMap;
use beluga_lang::ast::Expr;
use beluga_runtime::{CallCtx, DataType, Error, Key, Result, Table, Value};
use std::sync::Arc;

struct KeyState {
    /// the open session's rows and its first and last times
    buf: Table,
    first: i64,
    last: i64,
}

struct Session {
    gap: i64,
    time_col: usize,
    time_ty: DataType,
    keys: Vec<usize>,
    metrics: Vec<Arc<Expr>>,
    use_start: bool,
    dummy: Table,
    state: AHashMap<Vec<Key>, KeyState>,
}

impl EngineCore for Session {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let mut closed: Vec<Closed> = Vec::new();
        let tcol = &rows.cols[self.time_col];
        for (key, rs) in super::rows_by_key(&rows, &self.keys) {
            let st = self.state.entry(key).or_insert_with(|| KeyState {
                buf: self.dummy.clone(),
                first: i64::MIN,
                last: i64::MIN,
            });
            // rows of this batch in the open session, not yet moved into its buffer
            let mut open: Vec<usize> = Vec::new();
            for &r in &rs {
                let Some(t) = tcol.i64_at(r) else { continue };
                if st.last != i64::MIN && t < st.last {
                    continue; // out of order: dropped
                }
                if st.last != i64::MIN && t - st.last >= self.gap {
                    let mut win = std::mem::replace(&mut st.buf, self.dummy.clone());
                    let add = rows.take_usize(&open);
                    for (c, n) in win.cols.iter_mut().zip(&add.cols) {
                        c.append(n);
                    }
                    open.clear();
                    let mut vals = Vec::new();
                    for e in &self.metrics {
                        scalar_parts(eval_on(i, &win, e)?, &mut vals)?;
                    }
                    let time = if self.use_start {
                        st.first
                    } else {
                        st.last + self.gap
                    };
                    closed.push(Closed {
                        trigger: r,
                        time,
                        vals,
                    });
                    st.first = i64::MIN;
                }
                if st.first == i64::MIN {
                    st.first = t;
                }
                st.last = t;
                open.push(r);
            }
            let add = rows.take_usize(&open);
            for (c, n) in st.buf.cols.iter_mut().zip(&add.cols) {
                c.append(n);
            }
        }
        closed.sort_by_key(|c| c.trigger);
        let time_ty = self.time_ty;
        let time_col = |t: Vec<i64>| Ok(time_column(time_ty, tcol, t));
        emit_closed(rows.names[self.time_col].clone(), time_col, &rows, &self.keys, closed, "sessions")
    }
    fn groups(&self) -> usize {
        self.state.len()
    }
}

pub const PARAMS: &[&str] = &[
    "name",
    "sessionGap",
    "metrics",
    "dummyTable",
    "outputTable",
    "timeColumn",
    "useSystemTime",
    "keyColumn",
    "updateTime",
    "useSessionStartTime",
    "snapshotDir",
    "snapshotIntervalInMsgCount",
    "raftGroup",
    "forceTriggerTime",
];

pub fn create(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createSessionWindowEngine";
    let get = |name: &str| {
        let k = PARAMS.iter().position(|n| *n == name)?;
        args.get(k).filter(|v| !matches!(v, Value::Void))
    };
    let c = common(i, W, &args[0], &args[3])?;
    let gap = positive(W, &args[1], "sessionGap")?;
    let metrics = metric_exprs(W, &args[2])?;
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
        "raftGroup",
        "forceTriggerTime",
    ] {
        if get(what).is_some() {
            return Err(Error::unsupported(W, what));
        }
    }
    let time_name = get("timeColumn")
        .and_then(|v| v.as_str())
        .ok_or_else(|| Error::arg(format!("{W}: timeColumn (one column name) is required")))?;
    let time_col = c.dummy.col_index(time_name).ok_or_else(|| {
        Error::name(format!(
            "{W}: the time column {time_name} is not a column of dummyTable"
        ))
    })?;
    let time_ty = c.dummy.cols[time_col].ty;
    if !time_ty.is_temporal() {
        return Err(Error::type_err(format!(
            "{W}: the time column {time_name} is {time_ty}, not a temporal column"
        )));
    }
    let keys = key_names(W, get("keyColumn"), &c.dummy)?;
    let keys: Vec<usize> = keys.iter().filter_map(|n| c.dummy.col_index(n)).collect();
    let use_start = get("useSessionStartTime")
        .and_then(|v| v.as_bool())
        .unwrap_or(true);
    let core = Session {
        gap,
        time_col,
        time_ty,
        keys,
        metrics,
        use_start,
        dummy: c.dummy.clone(),
        state: AHashMap::new(),
    };
    register(
        i,
        W,
        "SessionWindowEngine",
        c,
        Box::new(core),
        &args[4],
        None,
        false,
    )
}
