//! Builtins: imaxLast, iminLast, eqFloat, eqPercent, loc (label-based access of indexed
//! matrices) and coevent.

use beluga_runtime::CallCtx;
use crate::order::sort_keys;
use crate::util::{aggregate, col, describe, int_arg, opt};
use ahash::AHashMap;
use beluga_runtime::column::Column;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

/// Index of the last maximum (`max`) or minimum of a column, ignoring nulls (-1 if none).
fn last_extreme(c: &Column, max: bool) -> i32 {
    let keys = sort_keys(c);
    let mut best: Option<(u64, usize)> = None;
    for (k, &key) in keys.iter().enumerate() {
        if key == 0 {
            continue;
        }
        let better = match best {
            None => true,
            Some((b, _)) => if max { key >= b } else { key <= b },
        };
        if better {
            best = Some((key, k));
        }
    }
    best.map(|(_, k)| k as i32).unwrap_or(-1)
}

fn imax_last(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    aggregate("imaxLast", &args[0], &|c: &Column| Ok(Value::int(last_extreme(c, true))))
}

fn imin_last(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    aggregate("iminLast", &args[0], &|c: &Column| Ok(Value::int(last_extreme(c, false))))
}

// ------------------------------------------------------------------ tolerant equality

fn numeric_data(name: &str, v: &Value) -> Result<Column> {
    let c = match v {
        Value::Matrix(m) => m.data.clone(),
        other => col(name, other)?,
    };
    if !(c.ty.is_numeric() || c.ty == DataType::Void) {
        return Err(Error::unsupported(name, c.ty));
    }
    Ok(c)
}

fn eq_float(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = numeric_data("eqFloat", &args[0])?;
    let y = numeric_data("eqFloat", &args[1])?;
    let p = match opt(&args, 2) {
        Some(v) => int_arg("eqFloat", v, "precision")?,
        None => 9,
    };
    if p < 0 {
        return Err(Error::arg("The precision argument of [eqFloat] must be non-negative"));
    }
    let n = x.len().max(y.len());
    if (x.len() != n && x.len() != 1) || (y.len() != n && y.len() != 1) {
        return Err(Error::size("The arguments of [eqFloat] must have the same size"));
    }
    let (a, b) = (as_native::<f64>(&x), as_native::<f64>(&y));
    let scale = 10f64.powi(p as i32);
    let out: Vec<i8> = (0..n)
        .map(|k| {
            let (u, v) = (a[if a.len() == 1 { 0 } else { k }], b[if b.len() == 1 { 0 } else { k }]);
            (match (u.is_null(), v.is_null()) {
                (true, true) => true,
                (false, false) => (u * scale).round() == (v * scale).round(),
                _ => false,
            }) as i8
        })
        .collect();
    let c = Column::from_vec(DataType::Bool, out);
    Ok(match (&args[0], &args[1]) {
        (Value::Matrix(m), _) | (_, Value::Matrix(m)) => Value::Matrix(Arc::new(Matrix { data: c, ..(**m).clone() })),
        (a, b) if a.is_scalar() && b.is_scalar() => Value::Scalar(c),
        _ => Value::Vector(c),
    })
}

fn eq_percent(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let data = |v: &Value| -> Option<Column> {
        let c = match v {
            Value::Matrix(m) => m.data.clone(),
            Value::Void => Column::nulls(DataType::Double, 1),
            other => other.column().cloned()?,
        };
        if c.ty.is_numeric() || c.ty == DataType::Void { Some(c) } else { None }
    };
    let (x, y) = match (data(&args[0]), data(&args[1])) {
        (Some(x), Some(y)) => (x, y),
        _ => return Ok(Value::bool(crate::core::eq_obj(&args[0], &args[1], None))),
    };
    let tol = match opt(&args, 2) {
        Some(v) => v.as_f64().filter(|t| *t > 0.0 && *t < 100.0).ok_or_else(|| Error::arg("The toleranceLevel of [eqPercent] must be in (0, 100)"))?,
        None => 0.0001,
    };
    if x.len() != y.len() {
        return Err(Error::size("The arguments of [eqPercent] must have the same size"));
    }
    let (a, b) = (as_native::<f64>(&x), as_native::<f64>(&y));
    let ok = (0..x.len()).all(|k| match (a[k].is_null(), b[k].is_null()) {
        (true, true) => true,
        (false, false) => (a[k] - b[k]).abs() <= b[k].abs() * tol / 100.0,
        _ => false,
    });
    Ok(Value::bool(ok))
}

// ------------------------------------------------------------------ loc

/// Positions selected by a label filter over labels `l`: a label, labels, a BOOL mask or an
/// inclusive label range `a:b`.
fn label_positions(name: &str, l: &Column, f: &Value) -> Result<Vec<usize>> {
    match f {
        Value::Void => Ok((0..l.len()).collect()),
        Value::Vector(c) if c.ty == DataType::Bool && c.len() == l.len() => {
            Ok((0..c.len()).filter(|&k| c.i64_at(k) == Some(1)).collect())
        }
        Value::Pair(c) => {
            let cmp = crate::order_search::Cmp2::new(name, l, c)?;
            Ok((0..l.len())
                .filter(|&k| {
                    (c.is_null(0) || cmp.cmp(k, 0) != std::cmp::Ordering::Less)
                        && (c.is_null(1) || cmp.cmp(k, 1) != std::cmp::Ordering::Greater)
                })
                .collect())
        }
        other => {
            // every row/column carrying one of the labels (labels may repeat: `m.loc(`A)`
            // keeps each `A` row, funcs/l/loc.md), in label order
            let wanted = col(name, other)?;
            let pos = crate::order_search::find_first(l, &wanted)?;
            let found: ahash::AHashSet<beluga_runtime::Key> =
                pos.into_iter().filter(|&p| p >= 0).map(|p| beluga_runtime::Key::of(l, p as usize)).collect();
            Ok((0..l.len()).filter(|&k| found.contains(&beluga_runtime::Key::of(l, k))).collect())
        }
    }
}

fn loc(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let row_f = args[1].clone();
    let col_f = opt(&args, 2).cloned().unwrap_or(Value::Void);
    match &args[0] {
        Value::Matrix(m) => {
            let rl = m.row_labels.as_ref().and_then(|v| v.column().cloned()).unwrap_or_else(|| {
                Column::from_vec(DataType::Int, (0..m.rows as i32).collect::<Vec<i32>>())
            });
            let cl = m.col_labels.as_ref().and_then(|v| v.column().cloned()).unwrap_or_else(|| {
                Column::from_vec(DataType::Int, (0..m.cols as i32).collect::<Vec<i32>>())
            });
            let rows = label_positions("loc", &rl, &row_f)?;
            let cols = label_positions("loc", &cl, &col_f)?;
            let idx: Vec<usize> = cols.iter().flat_map(|&c| rows.iter().map(move |&r| c * m.rows + r)).collect();
            // a row label and a column label naming one cell: the cell (`m.loc(1, 2022.01.03)`)
            if matches!(row_f, Value::Scalar(_)) && matches!(col_f, Value::Scalar(_)) && idx.len() == 1 {
                return Ok(Value::Scalar(m.data.take_usize(&idx)));
            }
            if m.cols == 1 && matches!(col_f, Value::Void) {
                return Ok(Value::Matrix(Arc::new(Matrix {
                    data: m.data.take_usize(&idx),
                    rows: rows.len(),
                    cols: 1,
                    row_labels: Some(Box::new(Value::Vector(rl.take_usize(&rows)))),
                    col_labels: m.col_labels.clone(),
                    indexed: m.indexed,
                })));
            }
            Ok(Value::Matrix(Arc::new(Matrix {
                data: m.data.take_usize(&idx),
                rows: rows.len(),
                cols: cols.len(),
                row_labels: Some(Box::new(Value::Vector(rl.take_usize(&rows)))),
                col_labels: Some(Box::new(Value::Vector(cl.take_usize(&cols)))),
                indexed: m.indexed,
            })))
        }
        Value::Table(t) => {
            // a table: the row filter is a BOOL mask or row numbers; the column filter names columns
            let rows: Vec<usize> = match &row_f {
                Value::Void => (0..t.rows()).collect(),
                Value::Vector(c) if c.ty == DataType::Bool => {
                    if c.len() != t.rows() {
                        return Err(Error::size(format!(
                            "loc: the row filter has {} elements but the table has {} rows",
                            c.len(),
                            t.rows()
                        )));
                    }
                    (0..c.len()).filter(|&k| c.i64_at(k) == Some(1)).collect()
                }
                other => {
                    let c = col("loc", other)?;
                    (0..c.len()).filter_map(|k| c.i64_at(k)).filter(|&p| p >= 0 && (p as usize) < t.rows()).map(|p| p as usize).collect()
                }
            };
            let mut out = t.take_usize(&rows);
            if !matches!(col_f, Value::Void) {
                let names = crate::table::names_arg("loc", &col_f)?;
                let cols: Vec<Column> = names
                    .iter()
                    .map(|n| out.column(n).cloned().ok_or_else(|| Error::name(format!("Unrecognized column name [{n}]"))))
                    .collect::<Result<_>>()?;
                out = Table::new(names, cols)?;
            }
            Ok(Value::table(out))
        }
        other => Err(Error::unsupported("loc", describe(other))),
    }
}

// ------------------------------------------------------------------ coevent

fn coevent(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let ev = col("coevent", &args[0])?;
    let tm = col("coevent", &args[1])?;
    if ev.len() != tm.len() {
        return Err(Error::size("The event and eventTime arguments of [coevent] must have the same length"));
    }
    if !(tm.ty.is_integral() || tm.ty.is_temporal()) {
        return Err(Error::unsupported("coevent", tm.ty));
    }
    let w = int_arg("coevent", &args[2], "window")?;
    if w < 0 {
        return Err(Error::arg("The window argument of [coevent] must be non-negative"));
    }
    let ordered = opt(&args, 3).and_then(|v| v.as_bool()).unwrap_or(false);
    let t = as_native::<i64>(&tm);
    let keys = sort_keys(&ev);
    // events by time (null times are ignored), stable for equal times
    let mut order: Vec<usize> = (0..t.len()).filter(|&k| !t[k].is_null()).collect();
    order.sort_by_key(|&k| t[k]);
    let mut pair_index: AHashMap<(u64, u64), usize> = AHashMap::new();
    let mut pairs: Vec<(usize, usize, i64)> = Vec::new();
    for a in 0..order.len() {
        let i = order[a];
        for &j in order[a + 1..].iter().take_while(|&&j| t[j] - t[i] <= w) {
            let (p, q) = if !ordered && keys[j] < keys[i] { (j, i) } else { (i, j) };
            let key = (keys[p], keys[q]);
            match pair_index.get(&key) {
                Some(&s) => pairs[s].2 += 1,
                None => {
                    pair_index.insert(key, pairs.len());
                    pairs.push((p, q, 1));
                }
            }
        }
    }
    let e1: Vec<usize> = pairs.iter().map(|p| p.0).collect();
    let e2: Vec<usize> = pairs.iter().map(|p| p.1).collect();
    let hits: Vec<i64> = pairs.iter().map(|p| p.2).collect();
    Ok(Value::table(Table::new(
        vec!["event1".into(), "event2".into(), "hits".into()],
        vec![ev.take_usize(&e1), ev.take_usize(&e2), Column::from_vec(DataType::Long, hits)],
    )?))
}

pub const DEFS: &[Builtin] = &[
    fp("coevent", Kind::System, 3, 4, coevent, &["event", "eventTime", "window", "orderSensitive"]),
    fp("eqFloat", Kind::Elementwise, 2, 3, eq_float, &["X", "Y", "precision"]),
    fp("eqPercent", Kind::System, 2, 3, eq_percent, &["X", "Y", "toleranceLevel"]),
    fp("imaxLast", Kind::Aggregate, 1, 1, imax_last, &["X"]),
    fp("iminLast", Kind::Aggregate, 1, 1, imin_last, &["X"]),
    fp("loc", Kind::System, 2, 4, loc, &["obj", "rowFilter", "colFilter", "view"]),
];
