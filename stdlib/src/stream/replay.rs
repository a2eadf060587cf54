//! `replay`: play the rows of one or more tables into output tables in time order, to
//! simulate a live feed (funcs/r/replay.md). Tutorials and factor platforms feed stream
//! tables and engines this way, so a script that builds a pipeline ends with a `replay`.
//!
//! Forms: one table to one output; a tuple of N tables to one output (homogeneous N-to-1,
//! rows merged by time); a tuple of N tables to a tuple of N outputs (N-to-N). An output
//! is a table variable, a stream table, an engine's input, or a shared table's name.
//! The heterogeneous form (a dictionary of inputs) and data sources are not supported and
//! say so.
//!
//! Pace: without a positive `replayRate` everything is appended at once (one batch per
//! input table, or one merged batch for N-to-1). With `replayRate` and `absoluteRate=true`
//! one batch of `replayRate` rows is appended per second; with `absoluteRate=false` the
//! data's time span is compressed `replayRate` times (batches of max(1, rate·rows/span)
//! rows per second); with `preciseRate=true` each row waits the gap to its predecessor
//! divided by `replayRate`. Waits are slept in short steps that check for interruption.
//! Delivery is synchronous like every other append to a stream table.

use super::engine::Target;
use beluga_runtime::column::Column;
use beluga_runtime::table_source::table_source;
use beluga_runtime::CallCtx;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use crate::util::{describe, opt};
use std::time::{Duration, Instant};

const NAME: &str = "replay";

/// One input table read in full.
fn input_table(v: &Value) -> Result<Table> {
    match v {
        Value::Table(t) => Ok((**t).clone()),
        Value::Handle(_) => match table_source(v) {
            Some(src) => src.table(),
            None => Err(Error::arg(format!("{NAME}: inputTables must be tables, got {}", describe(v)))),
        },
        Value::Dict(_) => Err(Error::unsupported(NAME, "a dictionary of inputTables (heterogeneous replay)")),
        other => Err(Error::arg(format!("{NAME}: inputTables must be a table or a tuple of tables, got {}", describe(other)))),
    }
}

/// An output: a table value or handle, or the name of a shared table / session variable.
fn output_target(i: &CallCtx, v: &Value) -> Result<Target> {
    if let Value::Scalar(c) = v {
        if let Some(name) = c.str_at(0) {
            let name = name.to_string();
            if let Some(h @ Value::Handle(_)) = i.get_shared(&name) {
                return Ok(Target::Handle(h));
            }
            if i.get_shared(&name).is_some() || i.globals().contains_key(&name) {
                return Ok(Target::Var(name));
            }
            return Err(Error::name(format!("{NAME}: no shared table named {name}")));
        }
    }
    Target::of(i, NAME, v)
}

/// Seconds per tick of a temporal type (for the time span of absoluteRate=false and for
/// preciseRate); None for a type that is not a point in time or time of day.
fn seconds_per_tick(t: DataType) -> Option<f64> {
    Some(match t {
        DataType::Date => 86400.0,
        DataType::Month => 30.0 * 86400.0,
        DataType::DateHour => 3600.0,
        DataType::Minute => 60.0,
        DataType::Second | DataType::DateTime => 1.0,
        DataType::Time | DataType::Timestamp => 1e-3,
        DataType::NanoTime | DataType::NanoTimestamp => 1e-9,
        _ => return None,
    })
}

/// Each row's time in seconds (date column plus time-of-day column when both are given
/// and differ), for ordering and pacing.
fn row_seconds(t: &Table, date: Option<&str>, time: Option<&str>) -> Result<Vec<f64>> {
    let col = |name: &str| -> Result<&Column> {
        t.col_index(name)
            .map(|k| &t.cols[k])
            .ok_or_else(|| Error::name(format!("{NAME}: the input table has no column {name}")))
    };
    let secs = |c: &Column| -> Result<Vec<f64>> {
        let unit = match seconds_per_tick(c.ty) {
            Some(u) => u,
            None if c.ty.is_temporal() || matches!(c.ty, DataType::Int | DataType::Long | DataType::Short) => 1.0,
            None => return Err(Error::arg(format!("{NAME}: the time column must be temporal, got {}", c.ty.name()))),
        };
        Ok((0..c.len()).map(|r| c.i64_at(r).map(|x| x as f64 * unit).unwrap_or(f64::NEG_INFINITY)).collect())
    };
    match (date, time) {
        (Some(d), Some(tm)) if d != tm => {
            let a = secs(col(d)?)?;
            let b = secs(col(tm)?)?;
            Ok(a.iter().zip(&b).map(|(x, y)| x + y).collect())
        }
        (Some(d), _) => secs(col(d)?),
        (None, Some(tm)) => secs(col(tm)?),
        (None, None) => Err(Error::arg(format!("{NAME}: give dateColumn or timeColumn"))),
    }
}

/// Names given as a string scalar (same for every input) or one per input.
fn names_per_input(v: Option<&Value>, n: usize) -> Result<Vec<Option<String>>> {
    match v {
        None | Some(Value::Void) => Ok(vec![None; n]),
        Some(Value::Scalar(c)) => Ok(vec![c.str_at(0).map(|s| s.to_string()); n]),
        Some(Value::Vector(c)) if c.len() == n => Ok((0..n).map(|k| c.str_at(k).map(|s| s.to_string())).collect()),
        Some(other) => Err(Error::arg(format!("{NAME}: dateColumn/timeColumn must be a column name or one per input table, got {}", describe(other)))),
    }
}

/// Sleep until `until`, in short steps that notice an interrupt.
fn wait_until(i: &CallCtx, until: Instant) -> Result<()> {
    loop {
        i.check_interrupt()?;
        let now = Instant::now();
        if now >= until {
            return Ok(());
        }
        std::thread::sleep((until - now).min(Duration::from_millis(50)));
    }
}

pub fn replay(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let inputs: Vec<Table> = match &args[0] {
        Value::Tuple(items) => items.iter().map(input_table).collect::<Result<_>>()?,
        v => vec![input_table(v)?],
    };
    let outputs: Vec<Target> = match &args[1] {
        Value::Tuple(items) => items.iter().map(|v| output_target(i, v)).collect::<Result<_>>()?,
        // ["t1", "t2"]: shared tables by name
        Value::Vector(c) if c.ty.is_literal() => {
            (0..c.len()).map(|k| output_target(i, &Value::string(c.str_at(k).unwrap_or("")))).collect::<Result<_>>()?
        }
        v => vec![output_target(i, v)?],
    };
    if outputs.len() != 1 && outputs.len() != inputs.len() {
        return Err(Error::arg(format!(
            "{NAME}: {} input tables need one output table or {} of them, got {}",
            inputs.len(),
            inputs.len(),
            outputs.len()
        )));
    }
    let dates = names_per_input(opt(&args, 2), inputs.len())?;
    let times = names_per_input(opt(&args, 3), inputs.len())?;
    let rate = opt(&args, 4).and_then(|v| v.as_f64()).filter(|r| *r > 0.0);
    let absolute = opt(&args, 5).and_then(|v| v.as_bool()).unwrap_or(true);
    let precise = opt(&args, 8).and_then(|v| v.as_bool()).unwrap_or(false);
    if let Some(v) = opt(&args, 7) {
        if !matches!(v, Value::Void) {
            return Err(Error::unsupported(NAME, "sortColumns (heterogeneous replay)"));
        }
    }
    // every row as (seconds, input, row), in time order (stable: ties keep input order)
    let mut events: Vec<(f64, usize, usize)> = Vec::new();
    for (k, t) in inputs.iter().enumerate() {
        let secs = row_seconds(t, dates[k].as_deref(), times[k].as_deref())?;
        events.extend(secs.into_iter().enumerate().map(|(r, s)| (s, k, r)));
    }
    let n_to_one = outputs.len() == 1 && inputs.len() > 1;
    if n_to_one {
        for t in &inputs[1..] {
            if t.ncols() != inputs[0].ncols() {
                return Err(Error::arg(format!("{NAME}: N-to-1 replay needs input tables of the same schema")));
            }
        }
    }
    // full speed: each table at once (N-to-N, 1-to-1), or the merged rows at once (N-to-1)
    let Some(rate) = rate else {
        if n_to_one {
            events.sort_by(|a, b| a.0.total_cmp(&b.0));
            deliver(i, &inputs, &outputs, &events, true)?;
        } else {
            for (k, t) in inputs.iter().enumerate() {
                outputs[k].deliver(i, t.clone(), true)?;
            }
        }
        return Ok(Value::Void);
    };
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total = events.len();
    if total == 0 {
        return Ok(Value::Void);
    }
    let start = Instant::now();
    if precise {
        // each row (or run of rows with the same time) waits its gap / rate
        let t0 = events[0].0;
        let mut a = 0;
        while a < total {
            let mut b = a + 1;
            while b < total && events[b].0 == events[a].0 {
                b += 1;
            }
            let due = ((events[a].0 - t0).max(0.0) / rate).min(1e7);
            wait_until(i, start + Duration::from_secs_f64(due))?;
            deliver(i, &inputs, &outputs, &events[a..b], n_to_one)?;
            a = b;
        }
        return Ok(Value::Void);
    }
    let batch = if absolute {
        rate as usize
    } else {
        let span = events[total - 1].0 - events[0].0;
        if span > 0.0 { (rate * total as f64 / span) as usize } else { total }
    }
    .max(1);
    for (b, chunk) in events.chunks(batch).enumerate() {
        if b > 0 {
            wait_until(i, start + Duration::from_secs(b as u64))?;
        }
        deliver(i, &inputs, &outputs, chunk, n_to_one)?;
    }
    Ok(Value::Void)
}

/// Append the rows of `events` (time-ordered) to their outputs: all to the one output for
/// N-to-1, else each input's rows to its own output (in time order within the batch).
fn deliver(i: &mut CallCtx, inputs: &[Table], outputs: &[Target], events: &[(f64, usize, usize)], n_to_one: bool) -> Result<()> {
    if n_to_one {
        // runs of consecutive rows from the same input are taken together
        let mut parts: Vec<Table> = Vec::new();
        let mut a = 0;
        while a < events.len() {
            let k = events[a].1;
            let mut b = a + 1;
            while b < events.len() && events[b].1 == k {
                b += 1;
            }
            let rows: Vec<usize> = events[a..b].iter().map(|e| e.2).collect();
            parts.push(inputs[k].take_usize(&rows));
            a = b;
        }
        let mut it = parts.into_iter();
        let Some(first) = it.next() else { return Ok(()) };
        let mut all = first;
        for p in it {
            all = crate::core::append_rows(all, &Value::table(p))?;
        }
        return outputs[0].deliver(i, all, true);
    }
    for (k, t) in inputs.iter().enumerate() {
        let rows: Vec<usize> = events.iter().filter(|e| e.1 == k).map(|e| e.2).collect();
        if !rows.is_empty() {
            outputs[k.min(outputs.len() - 1)].deliver(i, t.take_usize(&rows), true)?;
        }
    }
    Ok(())
}
