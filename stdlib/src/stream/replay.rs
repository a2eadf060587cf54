//! `replay`: play the rows of one or more tables into output tables in time order, to
//! simulate a live feed (funcs/r/replay.md). Tutorials and factor platforms feed stream
//! tables and engines this way, so a script that builds a pipeline ends with a `replay`.
//!
//! Forms: one table to one output; a tuple of N tables to one output (homogeneous N-to-1,
//! rows merged by time); a tuple of N tables to a tuple of N outputs (N-to-N). An output
//! is a table variable, a stream table, an engine's input, or a shared table's name.
//! The heterogeneous form (a dictionary of inputs, `heterogeneous`) merges tables of
//! different schemas into one stream of (time, source key, BLOB row, common columns...),
//! which `streamFilter` splits again. An input may be a tuple of data sources (`replayDS`),
//! read as their rows in order.
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
        // data sources (replayDS, sqlDS): their rows in order
        Value::Tuple(items) if !items.is_empty() && items.iter().all(|x| matches!(x, Value::Table(_) | Value::Handle(_))) => {
            let mut it = items.iter();
            let mut all = input_table(it.next().unwrap_or(&Value::Void))?;
            for x in it {
                all = crate::core::append_rows(all, &Value::table(input_table(x)?))?;
            }
            Ok(all)
        }
        Value::Handle(_) => match table_source(v) {
            Some(src) => src.table(),
            None => Err(Error::arg(format!("{NAME}: inputTables must be tables, got {}", describe(v)))),
        },
        other => Err(Error::arg(format!("{NAME}: inputTables must be a table or a tuple of tables, got {}", describe(other)))),
    }
}

/// An output: a table value or handle, or the name of a shared table / session variable.
fn output_target(i: &mut CallCtx, v: &Value) -> Result<Target> {
    if let Value::Scalar(c) = v {
        if let Some(name) = c.str_at(0) {
            let name = name.to_string();
            if let Some(h @ Value::Handle(_)) = i.get_shared(&name) {
                return Ok(Target::Handle(h));
            }
            if let Some(t) = Target::named(i, &name) {
                return Ok(t);
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

pub fn replay(i: &mut CallCtx, mut args: Vec<Value>) -> Result<Value> {
    if matches!(args[0], Value::Dict(_)) {
        // heterogeneous: the inputs merged in time order into rows of the output's layout,
        // then replayed 1-to-1 by the output's first (time) column
        let merged = heterogeneous(i, &args)?;
        let time = Value::string(&merged.names[0]);
        args[0] = Value::table(merged);
        while args.len() < 4 {
            args.push(Value::Void);
        }
        args[2] = time.clone();
        args[3] = time;
        if args.len() > 7 {
            args[7] = Value::Void;
        }
    }
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
        for (a, b) in runs(events.len(), |x| events[x].1) {
            let rows: Vec<usize> = events[a..b].iter().map(|e| e.2).collect();
            parts.push(inputs[events[a].1].take_usize(&rows));
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

/// The rows of a heterogeneous replay: every input's rows (a dictionary from source key to
/// table or data sources; `dateColumn`/`timeColumn` a name or a dictionary of names per
/// key) in time order (ties keep the dictionary's order), laid out as the output table:
/// the time, the source key, the row serialized as a BLOB, then the output's other
/// columns taken from same-named columns of the inputs (NULL where an input lacks one).
fn heterogeneous(i: &CallCtx, args: &[Value]) -> Result<Table> {
    use beluga_runtime::kernels::cast::cast_column;
    let entries = super::filter::dict_entries(&args[0], "replay: inputTables")?;
    let out = output_schema(i, &args[1])?;
    if out.ncols() < 3 || !out.cols[1].ty.is_literal() || out.cols[2].ty != DataType::Blob {
        return Err(Error::arg(format!("{NAME}: the output of a heterogeneous replay needs a time column, a SYMBOL or STRING column and a BLOB column first")));
    }
    let name_for = |v: Option<&Value>, key: &str| -> Result<Option<String>> {
        match v {
            None | Some(Value::Void) => Ok(None),
            Some(d @ Value::Dict(_)) => Ok(super::filter::dict_entries(d, "replay: dateColumn/timeColumn")?
                .into_iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.as_str().map(|s| s.to_string()))),
            Some(v) => Ok(v.as_str().map(|s| s.to_string())),
        }
    };
    let mut events: Vec<(f64, usize, usize)> = Vec::new();
    let mut tables = Vec::new();
    let mut stamps: Vec<Column> = Vec::new();
    for (k, (key, v)) in entries.iter().enumerate() {
        let t = input_table(v)?;
        let (d, tm) = (name_for(opt(args, 2), key)?, name_for(opt(args, 3), key)?);
        let secs = row_seconds(&t, d.as_deref(), tm.as_deref())?;
        events.extend(secs.into_iter().enumerate().map(|(r, s)| (s, k, r)));
        // each row's time in the output's type: the one column, or date + time of day
        let col = |n: &str| t.col_index(n).map(|c| t.cols[c].clone()).ok_or_else(|| Error::name(format!("{NAME}: the input {key} has no column {n}")));
        let stamp = match (d.as_deref(), tm.as_deref()) {
            // a time column that carries its date (TIMESTAMP...) is the time by itself
            (Some(a), Some(b)) if a != b && !matches!(col(b)?.ty, DataType::Timestamp | DataType::DateTime | DataType::NanoTimestamp) => {
                let (dc, tc) = (cast_column(&col(a)?, DataType::Date)?, col(b)?);
                let per = match tc.ty {
                    DataType::Second => 1_000_000_000,
                    DataType::Time => 1_000_000,
                    DataType::NanoTime => 1,
                    DataType::Minute => 60_000_000_000,
                    other => return Err(Error::arg(format!("{NAME}: timeColumn beside a dateColumn must be SECOND, TIME or NANOTIME, not {}", other.name()))),
                };
                let ns: Vec<i64> = (0..t.rows())
                    .map(|r| match (dc.i64_at(r), tc.i64_at(r)) {
                        (Some(x), Some(y)) => x * 86_400_000_000_000 + y * per,
                        _ => i64::MIN,
                    })
                    .collect();
                cast_column(&Column::from_vec(DataType::NanoTimestamp, ns), out.cols[0].ty)?
            }
            (_, Some(a)) | (Some(a), None) => cast_column(&col(a)?, out.cols[0].ty)?,
            (None, None) => return Err(Error::arg(format!("{NAME}: give dateColumn or timeColumn"))),
        };
        stamps.push(stamp);
        tables.push(t);
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0));
    // per input, its rows in output order, then assembled run by run
    let mut parts: Vec<Table> = Vec::new();
    for (a, b) in runs(events.len(), |x| events[x].1) {
        let k = events[a].1;
        let rows: Vec<usize> = events[a..b].iter().map(|e| e.2).collect();
        let t = tables[k].take_usize(&rows);
        let mut cols = Vec::with_capacity(out.ncols());
        cols.push(stamps[k].take(&rows.iter().map(|&r| r as i64).collect::<Vec<_>>()));
        let keys = Column::new(DataType::String, beluga_runtime::column::ColData::Str(beluga_runtime::StrCol::from_iter(std::iter::repeat_n(entries[k].0.as_str(), rows.len()))));
        cols.push(cast_column(&keys, out.cols[1].ty)?);
        let blobs = super::filter::encode_rows(&t);
        cols.push(Column::new(DataType::Blob, beluga_runtime::column::ColData::Str(beluga_runtime::StrCol::from_iter(blobs.iter().map(|s| s.as_str())))));
        for (c, name) in out.cols.iter().zip(&out.names).skip(3) {
            cols.push(match t.col_index(name) {
                Some(j) if t.cols[j].ty == c.ty => t.cols[j].clone(),
                Some(j) => cast_column(&t.cols[j], c.ty)?,
                None => Column::nulls(c.ty, rows.len()),
            });
        }
        parts.push(Table::new(out.names.clone(), cols)?);
    }
    let mut all = out.slice(0, 0);
    for p in parts {
        all = crate::core::append_rows(all, &Value::table(p))?;
    }
    Ok(all)
}

/// The columns of an output (a table, a stream table or engine, or a shared table's name).
fn output_schema(i: &CallCtx, v: &Value) -> Result<Table> {
    let v = match v {
        Value::Scalar(c) if c.ty.is_literal() => {
            let name = c.str_at(0).unwrap_or("");
            i.get_shared(name).or_else(|| i.globals().get(name).cloned()).ok_or_else(|| Error::name(format!("{NAME}: no shared table named {name}")))?
        }
        other => other.clone(),
    };
    match &v {
        Value::Table(t) => Ok(t.slice(0, 0)),
        Value::Handle(_) => match table_source(&v) {
            Some(src) => {
                let s = src.schema()?;
                Table::new(s.iter().map(|(n, _)| n.clone()).collect(), s.iter().map(|(_, t)| Column::nulls(*t, 0)).collect())
            }
            None => Err(Error::arg(format!("{NAME}: outputTables must be a table"))),
        },
        other => Err(Error::arg(format!("{NAME}: outputTables must be a table, got {}", describe(other)))),
    }
}

/// The runs of consecutive equal keys among `n` items, as [start, end) ranges.
pub(crate) fn runs(n: usize, key: impl Fn(usize) -> usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut a = 0;
    while a < n {
        let k = key(a);
        let mut b = a + 1;
        while b < n && key(b) == k {
            b += 1;
        }
        out.push((a, b));
        a = b;
    }
    out
}
