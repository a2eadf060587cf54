//! Heterogeneous streams: `replay` of several tables of different schemas into one stream
//! table (a dictionary of inputs; funcs/r/replay.md), whose rows carry each source row
//! serialized in a BLOB column, and `streamFilter` (funcs/s/streamFilter.md), the engine
//! that splits such a stream (or an ordinary one) by condition and time range and hands
//! each part to its handler in the stream's order.
//!
//! Why: replaying orders and trades into one stream is how DolphinDB scripts keep the two
//! sides of a join engine in global time order; the filter restores the typed rows.
//!
//! The BLOB of one row is text (the column payload is a string): the source column types,
//! then one token per column: integers and temporals as their stored integer, floats as
//! their IEEE bits (exact, NaN and NULL kept apart), text escaped, array-vector cells as
//! their element tokens. Only Beluga reads it back, so the format is ours; decoding uses
//! the recorded types and then conforms to the `msgSchema` table (as an append would).

use super::engine::{self, EngineCore, Target};
use beluga_runtime::column::{ArrayVec, ColData, Column, StrCol};
use beluga_runtime::value::DictVals;
use beluga_runtime::{CallCtx, DataType, Error, Result, Table, Value};
use beluga_runtime::types::Physical;
use std::sync::Arc;

const SEP_COL: char = '\u{1f}';
const SEP_ELEM: char = '\u{1e}';
const SEP_HEAD: char = '\u{1d}';

fn esc(s: &str, out: &mut String) {
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            SEP_COL => out.push_str("\\f"),
            SEP_ELEM => out.push_str("\\e"),
            SEP_HEAD => out.push_str("\\d"),
            c => out.push(c),
        }
    }
}

fn unesc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('f') => out.push(SEP_COL),
            Some('e') => out.push(SEP_ELEM),
            Some('d') => out.push(SEP_HEAD),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

fn cell(c: &Column, r: usize, out: &mut String) {
    use std::fmt::Write;
    let _ = match &*c.data {
        ColData::I8(v) => write!(out, "{}", v[r]),
        ColData::I16(v) => write!(out, "{}", v[r]),
        ColData::I32(v) => write!(out, "{}", v[r]),
        ColData::I64(v) => write!(out, "{}", v[r]),
        ColData::F32(v) => write!(out, "{}", v[r].to_bits()),
        ColData::F64(v) => write!(out, "{}", v[r].to_bits()),
        ColData::I128(v) => write!(out, "{}", v[r]),
        ColData::Sym(s) => {
            esc(s.get(r), out);
            Ok(())
        }
        ColData::Str(s) => {
            esc(s.get(r), out);
            Ok(())
        }
        ColData::Array(a) => {
            for j in a.offsets[r]..a.offsets[r + 1] {
                if j > a.offsets[r] {
                    out.push(SEP_ELEM);
                }
                cell(&a.data, j, out);
            }
            Ok(())
        }
    };
}

fn type_token(t: DataType) -> String {
    match t.decimal_scale() {
        Some(s) => format!("{}s{s}", t.id()),
        None => t.id().to_string(),
    }
}

fn parse_type(tok: &str) -> Option<DataType> {
    match tok.split_once('s') {
        Some((id, s)) => Some(DataType::from_id(id.parse().ok()?)?.with_scale(s.parse().ok()?)),
        None => DataType::from_id(tok.parse().ok()?),
    }
}

/// One BLOB per row of `t`.
pub fn encode_rows(t: &Table) -> Vec<String> {
    let head: Vec<String> = t.cols.iter().map(|c| type_token(c.ty)).collect();
    let head = head.join(",");
    (0..t.rows())
        .map(|r| {
            let mut s = head.clone();
            s.push(SEP_HEAD);
            for (k, c) in t.cols.iter().enumerate() {
                if k > 0 {
                    s.push(SEP_COL);
                }
                cell(c, r, &mut s);
            }
            s
        })
        .collect()
}

fn bad_blob() -> Error {
    Error::arg("streamFilter: a BLOB of the stream is not a row serialized by replay")
}

fn build(ty: DataType, toks: &[&str]) -> Result<Column> {
    if let Some(elem) = ty.array_elem() {
        let mut offsets = Vec::with_capacity(toks.len() + 1);
        offsets.push(0);
        let mut flat: Vec<&str> = Vec::new();
        for t in toks {
            if !t.is_empty() {
                flat.extend(t.split(SEP_ELEM));
            }
            offsets.push(flat.len());
        }
        let data = build(elem, &flat)?;
        return Ok(Column::new(ty, ColData::Array(Arc::new(ArrayVec::new(offsets, data)))));
    }
    fn nums<T: std::str::FromStr>(toks: &[&str]) -> Result<Vec<T>> {
        toks.iter().map(|t| t.parse::<T>().map_err(|_| bad_blob())).collect()
    }
    let data = match ty.physical() {
        Physical::I8 => ColData::I8(nums(toks)?),
        Physical::I16 => ColData::I16(nums(toks)?),
        Physical::I32 => ColData::I32(nums(toks)?),
        Physical::I64 => ColData::I64(nums(toks)?),
        Physical::F32 => ColData::F32(nums::<u32>(toks)?.into_iter().map(f32::from_bits).collect()),
        Physical::F64 => ColData::F64(nums::<u64>(toks)?.into_iter().map(f64::from_bits).collect()),
        Physical::I128 => ColData::I128(nums(toks)?),
        Physical::Sym | Physical::Str => {
            let text: Vec<String> = toks.iter().map(|t| unesc(t)).collect();
            let strs = Column::new(DataType::String, ColData::Str(StrCol::from_iter(text.iter().map(|s| s.as_str()))));
            return if ty == DataType::String { Ok(strs) } else { beluga_runtime::kernels::cast::cast_column(&strs, ty) };
        }
        _ => return Err(bad_blob()),
    };
    Ok(Column::new(ty, data))
}

/// The rows serialized in `blobs` (all from one source table), conformed to `schema`.
pub fn decode_rows(blobs: &[&str], schema: &Table) -> Result<Table> {
    let Some(first) = blobs.first() else { return Ok(schema.slice(0, 0)) };
    let (head, _) = first.split_once(SEP_HEAD).ok_or_else(bad_blob)?;
    let types: Vec<DataType> = head.split(',').map(|t| parse_type(t).ok_or_else(bad_blob)).collect::<Result<_>>()?;
    if types.len() != schema.ncols() {
        return Err(Error::arg(format!("streamFilter: a serialized row has {} columns but its msgSchema table has {}", types.len(), schema.ncols())));
    }
    let mut toks: Vec<Vec<&str>> = vec![Vec::with_capacity(blobs.len()); types.len()];
    for b in blobs {
        let (h, body) = b.split_once(SEP_HEAD).ok_or_else(bad_blob)?;
        if h != head {
            return Err(Error::arg("streamFilter: rows of one condition come from tables of different schemas"));
        }
        let mut n = 0;
        for (k, t) in body.split(SEP_COL).enumerate() {
            toks.get_mut(k).ok_or_else(bad_blob)?.push(t);
            n += 1;
        }
        if n != types.len() {
            return Err(bad_blob());
        }
    }
    let cols = types.iter().zip(&toks).map(|(t, v)| build(*t, v)).collect::<Result<Vec<_>>>()?;
    let t = Table::new(schema.names.clone(), cols)?;
    crate::core::append_rows(schema.slice(0, 0), &Value::table(t))
}

/// The (key, value) entries of a dictionary, keys as text.
pub fn dict_entries(v: &Value, what: &str) -> Result<Vec<(String, Value)>> {
    let Value::Dict(d) = v else { return Err(Error::arg(format!("{what} must be a dictionary"))) };
    (0..d.keys.len())
        .map(|k| {
            let key = d.keys.str_at(k).map(|s| s.to_string()).ok_or_else(|| Error::arg(format!("{what}: the keys must be strings")))?;
            let val = match &d.vals {
                DictVals::Any(v) => v[k].clone(),
                DictVals::Col(c) => Value::Scalar(c.take(&[k as i64])),
            };
            Ok((key, val))
        })
        .collect()
}

// ------------------------------------------------------------------ streamFilter

/// What a filter's `condition` keeps.
enum Cond {
    All,
    /// rows whose key (heterogeneous) or condition column is one of these
    Values(Vec<String>),
    /// a boolean expression over the columns (ordinary streams)
    Expr(Arc<beluga_lang::ast::Expr>),
}

struct Filter {
    cond: Cond,
    /// closed time-of-day (or time) intervals; empty: no time condition
    ranges: Vec<Column>,
    handler: Target,
}

struct StreamFilter {
    filters: Vec<Filter>,
    /// heterogeneous: the table of each key
    schema: Option<Vec<(String, Table)>>,
    time_col: usize,
    cond_col: Option<usize>,
}

fn in_ranges(time: &Column, ranges: &[Column]) -> Result<Vec<bool>> {
    let n = time.len();
    if ranges.is_empty() {
        return Ok(vec![true; n]);
    }
    let mut keep = vec![false; n];
    for p in ranges {
        let t = if time.ty == p.ty { time.clone() } else { beluga_runtime::kernels::cast::cast_column(time, p.ty)? };
        let (lo, hi) = (p.i64_at(0), p.i64_at(1));
        for (r, k) in keep.iter_mut().enumerate() {
            if let (Some(x), Some(lo), Some(hi)) = (t.i64_at(r), lo, hi) {
                *k |= lo <= x && x <= hi;
            }
        }
    }
    Ok(keep)
}

impl EngineCore for StreamFilter {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        let n = rows.rows();
        let key_col = if self.schema.is_some() { Some(1) } else { self.cond_col };
        let keys: Option<Vec<&str>> = key_col.map(|c| (0..n).map(|r| rows.cols[c].str_at(r).unwrap_or("")).collect());
        // which rows each filter keeps
        let mut masks = Vec::with_capacity(self.filters.len());
        for f in &self.filters {
            let mut m = in_ranges(&rows.cols[self.time_col], &f.ranges)?;
            match &f.cond {
                Cond::All => {}
                Cond::Values(vals) => match &keys {
                    Some(k) => m.iter_mut().zip(k).for_each(|(m, k)| *m &= vals.iter().any(|v| v == k)),
                    None => {}
                },
                Cond::Expr(e) => {
                    let cols = rows.names.iter().cloned().zip(rows.cols.iter().map(|c| Value::Vector(c.clone()))).collect();
                    let v = i.eval_with_columns(cols, e)?;
                    let c = v.column().filter(|c| c.ty == DataType::Bool).ok_or_else(|| Error::arg("streamFilter: a condition must give a boolean per row"))?;
                    for (r, m) in m.iter_mut().enumerate() {
                        *m &= c.i64_at(if c.len() == 1 { 0 } else { r }).unwrap_or(0) != 0;
                    }
                }
            }
            masks.push(m);
        }
        // deliver in the stream's order: runs of consecutive (row, filter) events
        let events: Vec<(usize, usize)> = (0..n).flat_map(|r| masks.iter().enumerate().filter(move |(_, m)| m[r]).map(move |(k, _)| (r, k))).collect();
        for (a, b) in super::replay::runs(events.len(), |x| events[x].1) {
            let k = events[a].1;
            let picked: Vec<usize> = events[a..b].iter().map(|e| e.0).collect();
            let part = match &self.schema {
                None => rows.take_usize(&picked),
                Some(schemas) => {
                    // one run may mix keys when the filter keeps several: decode per key
                    let mut out: Option<Table> = None;
                    let key_of = |x: usize| rows.cols[1].str_at(picked[x]).unwrap_or("");
                    let ids: Vec<usize> = (0..picked.len()).map(|x| schemas.iter().position(|(k, _)| k == key_of(x)).unwrap_or(usize::MAX)).collect();
                    for (s, e) in super::replay::runs(picked.len(), |x| ids[x]) {
                        let key = key_of(s).to_string();
                        let sch = &schemas.iter().find(|(k, _)| *k == key).ok_or_else(|| Error::arg(format!("streamFilter: msgSchema has no table for {key}")))?.1;
                        let blobs: Vec<&str> = picked[s..e].iter().map(|&r| rows.cols[2].str_at(r).unwrap_or("")).collect();
                        let t = decode_rows(&blobs, sch)?;
                        out = Some(match out {
                            None => t,
                            Some(o) => crate::core::append_rows(o, &Value::table(t))?,
                        });
                    }
                    out.unwrap_or_else(|| rows.slice(0, 0))
                }
            };
            self.filters[k].handler.deliver(i, part, true)?;
        }
        Ok(None)
    }
    fn groups(&self) -> usize {
        0
    }
}

/// `streamFilter(name, dummyTable, filter, [msgSchema], [timeColumn], [conditionColumn])`.
pub fn stream_filter(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "streamFilter";
    let opt = |k: usize| args.get(k).filter(|v| !matches!(v, Value::Void));
    let c = engine::common(i, W, &args[0], &args[1])?;
    let schema = match opt(3) {
        Some(v) => Some(
            dict_entries(v, "streamFilter: msgSchema")?
                .into_iter()
                .map(|(k, t)| {
                    let t = match &t {
                        Value::Table(t) => t.slice(0, 0),
                        Value::Handle(_) => beluga_runtime::table_source::table_source(&t)
                            .ok_or_else(|| Error::arg("streamFilter: msgSchema values must be tables"))?
                            .table()?
                            .slice(0, 0),
                        _ => return Err(Error::arg("streamFilter: msgSchema values must be tables")),
                    };
                    Ok((k, t))
                })
                .collect::<Result<Vec<_>>>()?,
        ),
        None => None,
    };
    if schema.is_some() && (c.dummy.ncols() < 3 || c.dummy.cols[2].ty != DataType::Blob) {
        return Err(Error::arg("streamFilter: with msgSchema the dummy table is a heterogeneous stream: time, key, BLOB columns first"));
    }
    let col_of = |v: &Value, what: &str| -> Result<usize> {
        let n = v.as_str().ok_or_else(|| Error::arg(format!("streamFilter: {what} must be a column name")))?;
        c.dummy.col_index(n).ok_or_else(|| Error::arg(format!("streamFilter: {what} {n} is not a column of the dummy table")))
    };
    let time_col = match (&schema, opt(4)) {
        (None, Some(v)) => col_of(v, "timeColumn")?,
        _ => 0,
    };
    let cond_col = match (&schema, opt(5)) {
        (None, Some(v)) => {
            let k = col_of(v, "conditionColumn")?;
            if !c.dummy.cols[k].ty.is_literal() {
                return Err(Error::arg("streamFilter: conditionColumn must be a STRING or SYMBOL column"));
            }
            Some(k)
        }
        _ => None,
    };
    let dicts: Vec<Value> = match &args[2] {
        Value::Tuple(items) => items.to_vec(),
        v @ Value::Dict(_) => vec![v.clone()],
        _ => return Err(Error::arg("streamFilter: filter must be a dictionary or a tuple of dictionaries")),
    };
    let mut filters = Vec::new();
    for d in &dicts {
        let mut cond = Cond::All;
        let mut ranges = Vec::new();
        let mut handler = None;
        for (k, v) in dict_entries(d, "streamFilter: each filter")? {
            match k.as_str() {
                "condition" => {
                    cond = match &v {
                        Value::Code(e) if schema.is_none() => Cond::Expr(e.clone()),
                        Value::Scalar(c) | Value::Vector(c) if c.ty.is_literal() => {
                            if schema.is_none() && cond_col.is_none() {
                                Cond::All
                            } else {
                                Cond::Values((0..c.len()).map(|r| c.str_at(r).unwrap_or("").to_string()).collect())
                            }
                        }
                        _ => return Err(Error::arg("streamFilter: condition must be a string, strings or (for ordinary streams) metacode")),
                    }
                }
                "timeRange" => {
                    let items: Vec<Value> = match &v {
                        Value::Tuple(t) => t.to_vec(),
                        other => vec![other.clone()],
                    };
                    for it in items {
                        match it {
                            Value::Pair(p) if p.ty.is_temporal() => ranges.push(p),
                            _ => return Err(Error::arg("streamFilter: timeRange must be a pair of times or a tuple of them")),
                        }
                    }
                }
                "handler" => handler = Some(Target::of(i, W, &v)?),
                other => return Err(Error::arg(format!("streamFilter: unknown filter key '{other}' (condition, timeRange, handler)"))),
            }
        }
        let handler = handler.ok_or_else(|| Error::arg("streamFilter: every filter needs a handler"))?;
        filters.push(Filter { cond, ranges, handler });
    }
    let core = StreamFilter { filters, schema, time_col, cond_col };
    engine::register(i, W, "StreamFilter", c, Box::new(core), &Value::Void, None, true)
}
