//! `createReactiveStateEngine`: one result row per input row, metrics computed per key
//! (funcs/c/createReactiveStateEngine.md).
//!
//! How: each metric is compiled once (`incr.rs`) into steps with per-key state, so a
//! batch costs O(batch) and gives what the same expression gives under `context by key`
//! over all the rows seen so far, which is the engine's definition. A metric that can't
//! be compiled (an aggregate, a time-based window, a user function with control flow) is
//! evaluated over the key's kept history instead — exact, but the cost is the length of
//! the histories of the keys a batch touches; the history is kept only when some metric
//! needs it. `keyPurgeFilter` (metacode over the output table's columns) with
//! `keyPurgeFreqInSecond`: at an append at least that many seconds after the previous one
//! (the first: after the engine's creation), the keys whose latest output row meets the
//! filter have their state dropped, when they are at least 10% of the keys (the manual's
//! three steps); a purged key starts afresh.
//! Output rows follow the input order (`keepOrder=true`; the manual allows any order
//! otherwise). Output columns: the key columns, then each metric's columns (a metric
//! returning a tuple gives several); `filter` (metacode over the input columns) keeps the
//! rows it holds for.

use beluga_runtime::CallCtx;
use super::engine::{common, eval_on, key_names, metric_exprs, register, EngineCore};
use super::incr::{compile, Plan, PlanState};
use beluga_lang::ast::Expr;
use beluga_runtime::eval::ops::describe;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::{Column, DataType, Error, Key, Result, Table, Value};
use ahash::AHashMap;
use std::sync::Arc;

struct Reactive {
    metrics: Vec<Arc<Expr>>,
    /// the compiled form of each metric (None: evaluated over the history)
    plans: Vec<Option<Plan>>,
    keys: Vec<usize>,
    /// `filter`: computed per key like a metric (it may hold state, `value != prev(value)`),
    /// as the last entry of `metrics`; its column selects the rows that are output
    filter: bool,
    state: AHashMap<Vec<Key>, KeyState>,
    purge: Option<Purge>,
}

/// keyPurgeFilter / keyPurgeFreqInSecond.
struct Purge {
    filter: Arc<Expr>,
    every: std::time::Duration,
    last: std::time::Instant,
    /// the output table's column names (the filter's names), when known
    names: Option<Vec<String>>,
    /// each key's latest output row
    latest: AHashMap<Vec<Key>, Table>,
}

impl Reactive {
    /// Drop the state of the keys the purge filter selects (see the module doc).
    fn purge(&mut self, i: &mut CallCtx) -> Result<()> {
        let Some(p) = self.purge.as_mut() else { return Ok(()) };
        let now = std::time::Instant::now();
        let due = now.duration_since(p.last) >= p.every;
        p.last = now;
        if !due || p.latest.is_empty() {
            return Ok(());
        }
        let keys: Vec<Vec<Key>> = p.latest.keys().cloned().collect();
        let mut all = p.latest[&keys[0]].slice(0, 0);
        for k in &keys {
            concat_tables(&mut all, &p.latest[k]);
        }
        if let Some(n) = &p.names {
            if n.len() == all.ncols() {
                all.names = n.clone();
            }
        }
        let mask: Vec<bool> = match eval_on(i, &all, &p.filter)? {
            Value::Vector(c) if c.len() == keys.len() => (0..c.len()).map(|r| c.i64_at(r).map(|x| x != 0).unwrap_or(false)).collect(),
            v @ Value::Scalar(_) => vec![v.as_bool().unwrap_or(false); keys.len()],
            other => return Err(Error::type_err(format!("keyPurgeFilter must give one boolean per key, not {}", describe(&other)))),
        };
        let chosen: Vec<&Vec<Key>> = keys.iter().zip(&mask).filter(|(_, m)| **m).map(|(k, _)| k).collect();
        if chosen.is_empty() || chosen.len() * 10 < self.state.len() {
            return Ok(());
        }
        for k in chosen {
            self.state.remove(k);
            p.latest.remove(k);
        }
        Ok(())
    }
}

/// What the engine keeps for one key: each compiled metric's state, and the rows seen
/// so far when some metric is evaluated over the history.
struct KeyState {
    plans: Vec<Option<PlanState>>,
    hist: Option<Table>,
}

/// A metric's value over `len` history rows, as columns for the last `m` rows.
fn tail_columns(v: Value, len: usize, m: usize, out: &mut Vec<Column>) -> Result<()> {
    match v {
        Value::Vector(c) if c.len() == len => out.push(c.slice(len - m, len)),
        Value::Vector(c) => {
            return Err(Error::size(format!("a metric gave {} values for {len} rows: use state functions (mavg, ema, cumsum...), not aggregates", c.len())))
        }
        Value::Scalar(c) => out.push(c.take_usize(&vec![0; m])),
        Value::Void => out.push(Column::nulls(DataType::Double, m)),
        Value::Tuple(items) => {
            for it in items.iter() {
                tail_columns(it.clone(), len, m, out)?;
            }
        }
        other => return Err(Error::type_err(format!("a metric gave {}, not a vector", describe(&other)))),
    }
    Ok(())
}

fn concat_tables(a: &mut Table, b: &Table) {
    for (c, n) in a.cols.iter_mut().zip(&b.cols) {
        c.append(n);
    }
}

/// Join per-group pieces of one output column (types unified to the first piece's).
fn concat_columns(parts: Vec<Column>) -> Result<Column> {
    let mut it = parts.into_iter();
    let Some(mut first) = it.next() else { return Ok(Column::nulls(DataType::Double, 0)) };
    for p in it {
        let p = if p.ty == first.ty || (p.ty.is_literal() && first.ty.is_literal()) {
            p
        } else if first.ty == DataType::Void {
            first = Column::nulls(p.ty, first.len());
            p
        } else if p.ty == DataType::Void {
            Column::nulls(first.ty, p.len())
        } else {
            cast_column(&p, first.ty)?
        };
        first.append(&p);
    }
    Ok(first)
}

impl EngineCore for Reactive {
    fn feed(&mut self, i: &mut CallCtx, rows: Table) -> Result<Option<Table>> {
        self.purge(i)?;
        let n = rows.rows();
        let mut pieces: Vec<Vec<Column>> = Vec::new();
        let mut at: Vec<usize> = Vec::with_capacity(n);
        // rows of each key, keys in order of first appearance
        for (k, idx) in super::rows_by_key(&rows, &self.keys) {
            let new = rows.take_usize(&idx);
            let m = idx.len();
            let needs_hist = self.plans.iter().any(|p| p.is_none());
            let plans = &self.plans;
            let ks = self.state.entry(k).or_insert_with(|| KeyState {
                plans: plans.iter().map(|p| p.as_ref().map(|p| p.new_state())).collect(),
                hist: needs_hist.then(|| new.slice(0, 0)),
            });
            if let Some(h) = ks.hist.as_mut() {
                concat_tables(h, &new);
            }
            let mut scope: AHashMap<String, Value> = AHashMap::with_capacity(new.ncols());
            for (n, c) in new.names.iter().zip(&new.cols) {
                scope.insert(n.clone(), Value::Vector(c.clone()));
            }
            let mut cols = Vec::new();
            for (j, e) in self.metrics.iter().enumerate() {
                match (&self.plans[j], &mut ks.plans[j], &ks.hist) {
                    (Some(p), Some(st), _) => {
                        let v = p.run(i, st, scope.clone(), m)?;
                        tail_columns(v, m, m, &mut cols)?;
                    }
                    (_, _, Some(hist)) => {
                        let v = eval_on(i, hist, e)?;
                        tail_columns(v, hist.rows(), m, &mut cols)?;
                    }
                    _ => return Err(Error::runtime("internal: a metric has neither state nor history")),
                }
            }
            if let Some(p) = pieces.first() {
                if p.len() != cols.len() {
                    return Err(Error::size("the metrics gave different numbers of columns for different keys"));
                }
            }
            pieces.push(cols);
            at.extend(idx);
        }
        let ncols = pieces.first().map(|p| p.len()).unwrap_or(0);
        let mut by_col: Vec<Vec<Column>> = (0..ncols).map(|_| Vec::new()).collect();
        for p in pieces {
            for (j, c) in p.into_iter().enumerate() {
                by_col[j].push(c);
            }
        }
        // back to input order
        let mut inv = vec![0usize; n];
        for (pos, &r) in at.iter().enumerate() {
            inv[r] = pos;
        }
        let mut names: Vec<String> = self.keys.iter().map(|&c| rows.names[c].clone()).collect();
        let mut cols: Vec<Column> = self.keys.iter().map(|&c| rows.cols[c].clone()).collect();
        for (j, parts) in by_col.into_iter().enumerate() {
            names.push(format!("factor{}", j + 1));
            cols.push(concat_columns(parts)?.take_usize(&inv));
        }
        let keep = if self.filter {
            names.pop();
            let c = cols.pop().ok_or_else(|| Error::runtime("internal: the filter gave no column"))?;
            if c.len() != n && c.len() != 1 {
                return Err(Error::type_err("filter must give one boolean per row"));
            }
            let at = |r: usize| if c.len() == 1 { 0 } else { r };
            Some((0..n).map(|r| c.i64_at(at(r)).is_some_and(|x| x != 0)).collect::<Vec<bool>>())
        } else {
            None
        };
        let mut out = Table::new(names, cols)?;
        if let Some(p) = self.purge.as_mut() {
            // each key's last row of this batch is its latest output
            let mut last: AHashMap<Vec<Key>, usize> = AHashMap::new();
            for r in 0..n {
                last.insert(self.keys.iter().map(|&c| Key::of(&rows.cols[c], r)).collect(), r);
            }
            for (k, r) in last {
                p.latest.insert(k, out.slice(r, r + 1));
            }
        }
        if let Some(mask) = keep {
            out = out.filter(&mask);
        }
        Ok(Some(out))
    }
    fn groups(&self) -> usize {
        self.state.len()
    }
}

pub fn create(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const W: &str = "createReactiveStateEngine";
    let get = |k: usize| args.get(k).filter(|v| !matches!(v, Value::Void));
    let c = common(i, W, &args[0], &args[2])?;
    let mut metrics = metric_exprs(W, &args[1])?;
    let keys = key_names(W, get(4), &c.dummy)?;
    let filter = match get(5) {
        Some(Value::Code(e)) => {
            metrics.push(e.clone());
            true
        }
        Some(other) => return Err(Error::arg(format!("{W}: filter must be metacode, not {}", describe(other)))),
        None => false,
    };
    for (k, what) in [(6, "snapshotDir"), (11, "raftGroup")] {
        if get(k).is_some() {
            return Err(Error::unsupported(W, what));
        }
    }
    if get(12).and_then(|v| v.as_bool()).unwrap_or(false) {
        return Err(Error::unsupported(W, "outputElapsedMicroseconds"));
    }
    let key_idx: Vec<usize> = keys.iter().filter_map(|n| c.dummy.col_index(n)).collect();
    let plans = metrics.iter().map(|e| compile(i, e)).collect();
    let purge = match get(9) {
        Some(Value::Code(e)) => {
            if key_idx.is_empty() {
                return Err(Error::arg(format!("{W}: keyPurgeFilter needs keyColumn")));
            }
            let secs = match get(10) {
                Some(v) => match v.as_f64() {
                    Some(x) if x >= 0.0 => x,
                    _ => return Err(Error::arg(format!("{W}: keyPurgeFreqInSecond must be a non-negative number"))),
                },
                None => 0.0,
            };
            let names = match &args[3] {
                Value::Table(t) => Some(t.names.clone()),
                Value::Handle(h) => h.table_source().and_then(|s| s.schema().ok()).map(|s| s.into_iter().map(|(n, _)| n).collect()),
                _ => None,
            };
            Some(Purge { filter: e.clone(), every: std::time::Duration::from_secs_f64(secs), last: std::time::Instant::now(), names, latest: AHashMap::new() })
        }
        Some(other) => return Err(Error::arg(format!("{W}: keyPurgeFilter must be metacode, not {}", describe(other)))),
        None => None,
    };
    let core = Reactive { metrics, plans, keys: key_idx, filter, state: AHashMap::new(), purge };
    let msg_as_table = get(16).and_then(|v| v.as_bool()).unwrap_or(false);
    register(i, W, "ReactiveStreamEngine", c, Box::new(core), &args[3], get(15), msg_as_table)
}
