//! Builtins: reshaping matrices and panels (reshape, concatMatrix, regroup, eye, panel,
//! toTuple, toColumnarTuple, merge, align, resample, rollingPanel).

use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::CallCtx;
use crate::containers::{group_members, sorted_group_ids};
use crate::util::{col, describe, int_arg, opt};
use beluga_runtime::column::Column;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

fn mat<'a>(name: &str, v: &'a Value) -> Result<&'a Arc<Matrix>> {
    match v {
        Value::Matrix(m) => Ok(m),
        other => Err(Error::unsupported(name, describe(other))),
    }
}

fn labels_col(l: &Option<Box<Value>>) -> Option<Column> {
    l.as_ref().and_then(|v| v.column().cloned())
}

fn matrix_from_cols(cols: Vec<Column>, rows: usize, row_labels: Option<Column>, col_labels: Option<Column>) -> Result<Value> {
    let ty = cols
        .iter()
        .map(|c| c.ty)
        .fold(None, |a: Option<DataType>, t| match a {
            None => Some(t),
            Some(a) => beluga_runtime::types::common_type(a, t).or(Some(a)),
        })
        .unwrap_or(DataType::Double);
    let cols: Vec<Column> = cols.iter().map(|c| if c.ty != ty { cast_column(c, ty) } else { Ok(c.clone()) }).collect::<Result<_>>()?;
    let refs: Vec<&Column> = cols.iter().collect();
    Ok(Value::Matrix(Arc::new(Matrix {
        data: Column::concat(ty, &refs),
        rows,
        cols: cols.len(),
        row_labels: row_labels.map(|c| Box::new(Value::Vector(c))),
        col_labels: col_labels.map(|c| Box::new(Value::Vector(c))),
        indexed: false,
    })))
}

fn reshape(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match opt(&args, 1) {
        Some(Value::Pair(c)) | Some(Value::Vector(c)) if c.len() == 2 => {
            let rows = c.i64_at(0).unwrap_or(-1);
            let cols = c.i64_at(1).unwrap_or(-1);
            beluga_runtime::eval::ops::reshape(&args[0], rows, cols)
        }
        Some(other) => Err(Error::arg(format!("The dim argument of [reshape] must be a pair rows:cols, not {}", describe(other)))),
        None => match &args[0] {
            Value::Matrix(m) => Ok(Value::Vector(m.data.clone())),
            Value::Vector(_) => Ok(args[0].clone()),
            other => Err(Error::unsupported("reshape", describe(other))),
        },
    }
}

fn concat_matrix(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let ms: Vec<Arc<Matrix>> = match &args[0] {
        Value::Tuple(items) => items.iter().map(|v| mat("concatMatrix", v).cloned()).collect::<Result<_>>()?,
        Value::Matrix(m) => vec![m.clone()],
        other => return Err(Error::unsupported("concatMatrix", describe(other))),
    };
    let horizontal = opt(&args, 1).and_then(|v| v.as_bool()).unwrap_or(true);
    let first = ms.first().ok_or_else(|| Error::arg("concatMatrix needs at least one matrix"))?;
    if horizontal {
        if ms.iter().any(|m| m.rows != first.rows) {
            return Err(Error::size("The matrices of [concatMatrix] must have the same number of rows"));
        }
        let cols: Vec<Column> = ms.iter().flat_map(|m| (0..m.cols).map(move |c| m.column(c))).collect();
        matrix_from_cols(cols, first.rows, labels_col(&first.row_labels), None)
    } else {
        if ms.iter().any(|m| m.cols != first.cols) {
            return Err(Error::size("The matrices of [concatMatrix] must have the same number of columns"));
        }
        let rows: usize = ms.iter().map(|m| m.rows).sum();
        let cols: Vec<Column> = (0..first.cols)
            .map(|c| {
                let parts: Vec<Column> = ms.iter().map(|m| m.column(c)).collect();
                let ty = parts[0].ty;
                let parts: Vec<Column> = parts.iter().map(|p| if p.ty != ty { cast_column(p, ty) } else { Ok(p.clone()) }).collect::<Result<_>>()?;
                let refs: Vec<&Column> = parts.iter().collect();
                Ok(Column::concat(ty, &refs))
            })
            .collect::<Result<_>>()?;
        matrix_from_cols(cols, rows, None, labels_col(&first.col_labels))
    }
}

fn eye(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let n = int_arg("eye", &args[0], "n")?;
    if !(0..=100_000).contains(&n) {
        return Err(Error::arg("The argument of [eye] must be a non-negative integer"));
    }
    let n = n as usize;
    let mut data = vec![0.0f64; n * n];
    for k in 0..n {
        data[k * n + k] = 1.0;
    }
    Ok(Value::Matrix(Arc::new(Matrix { data: Column::from_vec(DataType::Double, data), rows: n, cols: n, row_labels: None, col_labels: None, indexed: false })))
}

fn transpose(m: &Matrix) -> Matrix {
    let idx: Vec<usize> = (0..m.rows).flat_map(|r| (0..m.cols).map(move |c| c * m.rows + r)).collect();
    Matrix { data: m.data.take_usize(&idx), rows: m.cols, cols: m.rows, row_labels: m.col_labels.clone(), col_labels: m.row_labels.clone(), indexed: false }
}

fn row_subset(m: &Matrix, rows: &[usize]) -> Matrix {
    let idx: Vec<usize> = (0..m.cols).flat_map(|c| rows.iter().map(move |&r| c * m.rows + r)).collect();
    Matrix { data: m.data.take_usize(&idx), rows: rows.len(), cols: m.cols, row_labels: None, col_labels: m.col_labels.clone(), indexed: false }
}

/// Aggregate `func` over the columns of `m`: one value per column.
fn agg_columns(i: &mut CallCtx, f: &Value, m: Matrix) -> Result<Column> {
    let cols = m.cols;
    let r = i.call_value(f, vec![Value::Matrix(Arc::new(m.clone()))])?;
    match r {
        Value::Vector(c) if c.len() == cols => Ok(c),
        _ => {
            // the function does not aggregate a matrix column-wise: call it per column
            let items: Vec<Value> = (0..cols).map(|c| i.call_value(f, vec![Value::Vector(m.column(c))])).collect::<Result<_>>()?;
            match crate::hof::scalars_to_vector(items)? {
                Value::Vector(c) => Ok(c),
                _ => Err(Error::arg("The func of [regroup] must return a scalar per group")),
            }
        }
    }
}

fn regroup(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let m = mat("regroup", &args[0])?.clone();
    let label = col("regroup", &args[1])?;
    let f = args[2].clone();
    let by_row = opt(&args, 3).and_then(|v| v.as_bool()).unwrap_or(true);
    let work = if by_row { (*m).clone() } else { transpose(&m) };
    if label.len() != work.rows {
        return Err(Error::size("The label of [regroup] must have one element per row (column when byRow=false)"));
    }
    let (ids, g, firsts) = sorted_group_ids(&[label.clone()])?;
    let members = group_members(&ids, g);
    // one aggregated row per group; columns as in the input
    let mut rows: Vec<Column> = Vec::with_capacity(g);
    for mem in &members {
        i.check_interrupt()?;
        rows.push(agg_columns(i, &f, row_subset(&work, mem))?);
    }
    let ty = rows.first().map(|c| c.ty).unwrap_or(DataType::Double);
    let cols: Vec<Column> = (0..work.cols)
        .map(|c| {
            let cells: Vec<Column> = rows.iter().map(|r| r.slice(c, c + 1)).collect();
            let cells: Vec<Column> = cells.iter().map(|x| if x.ty != ty { cast_column(x, ty) } else { Ok(x.clone()) }).collect::<Result<_>>()?;
            let refs: Vec<&Column> = cells.iter().collect();
            Ok(Column::concat(ty, &refs))
        })
        .collect::<Result<_>>()?;
    let out = matrix_from_cols(cols, g, Some(label.take_usize(&firsts)), labels_col(&work.col_labels))?;
    match out {
        Value::Matrix(om) if !by_row => Ok(Value::Matrix(Arc::new(transpose(&om)))),
        other => Ok(other),
    }
}

fn panel(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let row = col("panel", &args[0])?;
    let colv = col("panel", &args[1])?;
    if row.len() != colv.len() {
        return Err(Error::size("The row and col arguments of [panel] must have the same length"));
    }
    let metrics: Vec<Column> = match &args[2] {
        Value::Tuple(items) => items.iter().map(|v| col("panel", v)).collect::<Result<_>>()?,
        other => vec![col("panel", other)?],
    };
    let (rid, nr, rf) = sorted_group_ids(&[row.clone()])?;
    let (cid, nc, cf) = sorted_group_ids(&[colv.clone()])?;
    let mut row_keys = row.take_usize(&rf);
    let mut col_keys = colv.take_usize(&cf);
    // optional label filters: keep only the listed rows/columns, in the given order
    let remap = |keys: &Column, labels: Option<&Value>, n: usize| -> Result<(Vec<i64>, Option<Column>)> {
        match labels {
            None => Ok(((0..n as i64).collect(), None)),
            Some(l) => {
                let lc = col("panel", l)?;
                let pos = crate::order_search::find_first(&lc, keys)?;
                Ok((pos.iter().map(|&p| p as i64).collect(), Some(lc)))
            }
        }
    };
    let (rmap, rl) = remap(&row_keys, opt(&args, 3), nr)?;
    let (cmap, cl) = remap(&col_keys, opt(&args, 4), nc)?;
    if let Some(l) = rl {
        row_keys = l;
    }
    if let Some(l) = cl {
        col_keys = l;
    }
    let (out_r, out_c) = (row_keys.len(), col_keys.len());
    // for each output cell, the last input row that lands there
    let mut cell = vec![-1i64; out_r * out_c];
    for k in 0..row.len() {
        let (r, c) = (rmap[rid[k] as usize], cmap[cid[k] as usize]);
        if r >= 0 && c >= 0 {
            cell[c as usize * out_r + r as usize] = k as i64;
        }
    }
    let mats: Vec<Value> = metrics
        .iter()
        .map(|m| {
            Value::Matrix(Arc::new(Matrix {
                data: m.take(&cell),
                rows: out_r,
                cols: out_c,
                row_labels: Some(Box::new(Value::Vector(row_keys.clone()))),
                col_labels: Some(Box::new(Value::Vector(col_keys.clone()))),
                indexed: false,
            }))
        })
        .collect();
    Ok(if mats.len() == 1 && !matches!(args[2], Value::Tuple(_)) { mats.into_iter().next().unwrap_or(Value::Void) } else { Value::tuple(mats) })
}

fn to_tuple(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Tuple(_) => Ok(args[0].clone()),
        Value::Vector(c) => Ok(Value::tuple((0..c.len()).map(|k| Value::Scalar(c.slice(k, k + 1))).collect())),
        Value::Matrix(m) => Ok(Value::tuple((0..m.rows).map(|r| Value::Vector(m.data.take_usize(&(0..m.cols).map(|c| c * m.rows + r).collect::<Vec<_>>()))).collect())),
        other => Err(Error::unsupported("toTuple", describe(other))),
    }
}

// ------------------------------------------------------------------ labelled (indexed) matrices

/// Row labels and columns of an indexed matrix (or a vector with labels given separately).
fn indexed(name: &str, v: &Value) -> Result<(Column, Arc<Matrix>)> {
    let m = mat(name, v)?;
    let labels = labels_col(&m.row_labels).ok_or_else(|| Error::arg(format!("[{name}] needs an indexed matrix (a matrix with row labels)")))?;
    Ok((labels, m.clone()))
}

fn merge(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (ll, lm) = indexed("merge", &args[0])?;
    let (rl, rm) = indexed("merge", &args[1])?;
    let how = opt(&args, 2).and_then(|v| v.as_str()).unwrap_or("inner").to_string();
    let (ll2, rl2) = crate::order_search::align_keys(&ll, &rl)?;
    let in_r = crate::order_search::find_first(&rl2, &ll2)?;
    let in_l = crate::order_search::find_first(&ll2, &rl2)?;
    // output label order: sorted union or intersection
    let (labels, lpos, rpos): (Column, Vec<i64>, Vec<i64>) = match how.as_str() {
        "inner" => {
            let keep: Vec<usize> = (0..ll.len()).filter(|&k| in_r[k] >= 0).collect();
            (ll.take_usize(&keep), keep.iter().map(|&k| k as i64).collect(), keep.iter().map(|&k| in_r[k] as i64).collect())
        }
        "left" => (ll.clone(), (0..ll.len() as i64).collect(), in_r.iter().map(|&p| p as i64).collect()),
        "right" => (rl.clone(), in_l.iter().map(|&p| p as i64).collect(), (0..rl.len() as i64).collect()),
        "outer" => {
            let extra: Vec<usize> = (0..rl.len()).filter(|&k| in_l[k] < 0).collect();
            let rl_extra = rl.take_usize(&extra);
            let rl_extra = if rl_extra.ty != ll.ty { cast_column(&rl_extra, ll.ty)? } else { rl_extra };
            let all = Column::concat(ll.ty, &[&ll, &rl_extra]);
            let order = crate::order::argsort(&all, true);
            let n = ll.len();
            let lpos: Vec<i64> = order.iter().map(|&k| if k < n { k as i64 } else { -1 }).collect();
            let rpos: Vec<i64> = order.iter().map(|&k| if k < n { in_r[k] as i64 } else { extra[k - n] as i64 }).collect();
            (all.take_usize(&order), lpos, rpos)
        }
        other => return Err(Error::arg(format!("The how argument of [merge] must be inner, left, right or outer, not {other}"))),
    };
    let mut cols: Vec<Column> = (0..lm.cols).map(|c| lm.column(c).take(&lpos)).collect();
    cols.extend((0..rm.cols).map(|c| rm.column(c).take(&rpos)));
    let col_labels = match (labels_col(&lm.col_labels), labels_col(&rm.col_labels)) {
        (Some(a), Some(b)) if a.ty == b.ty => Some(Column::concat(a.ty, &[&a, &b])),
        _ => None,
    };
    matrix_from_cols(cols, labels.len(), Some(labels), col_labels)
}

fn align(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (ll, lm) = indexed("align", &args[0])?;
    let (rl, rm) = indexed("align", &args[1])?;
    let how = opt(&args, 2).and_then(|v| v.as_str()).unwrap_or("outer").to_string();
    let (ll2, rl2) = crate::order_search::align_keys(&ll, &rl)?;
    let labels = match how.as_str() {
        "inner" => {
            let hit = crate::order_search::find_first(&rl2, &ll2)?;
            ll.take_usize(&(0..ll.len()).filter(|&k| hit[k] >= 0).collect::<Vec<_>>())
        }
        "left" => ll.clone(),
        "right" => rl.clone(),
        "outer" => {
            let hit = crate::order_search::find_first(&ll2, &rl2)?;
            let extra = rl.take_usize(&(0..rl.len()).filter(|&k| hit[k] < 0).collect::<Vec<_>>());
            let extra = if extra.ty != ll.ty { cast_column(&extra, ll.ty)? } else { extra };
            let all = Column::concat(ll.ty, &[&ll, &extra]);
            all.take_usize(&crate::order::argsort(&all, true))
        }
        other => return Err(Error::arg(format!("The how argument of [align] must be inner, left, right or outer, not {other}"))),
    };
    let pick = |own: &Column, m: &Matrix| -> Result<Value> {
        let (own2, lab2) = crate::order_search::align_keys(own, &labels)?;
        let pos: Vec<i64> = crate::order_search::find_first(&own2, &lab2)?.into_iter().map(|p| p as i64).collect();
        let cols: Vec<Column> = (0..m.cols).map(|c| m.column(c).take(&pos)).collect();
        matrix_from_cols(cols, labels.len(), Some(labels.clone()), labels_col(&m.col_labels))
    };
    Ok(Value::tuple(vec![pick(&ll, &lm)?, pick(&rl, &rm)?]))
}

fn resample(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (labels, m) = indexed("resample", &args[0])?;
    // A rule string ("M", "2D", "W", "5min", a calendar) bins the labels as transFreq does:
    // rule-specific closed/label defaults (month, quarter, year and week ends close and label
    // on the right), origin, calendars. A DURATION value buckets through bar.
    let bars = match &args[1] {
        Value::Scalar(c) if c.ty.is_literal() => {
            let mut targs = vec![Value::Vector(labels.clone()), args[1].clone()];
            targs.extend(args.iter().skip(3).take(3).cloned());
            i.call_builtin_by_name("transFreq", targs)?
        }
        other => i.call_builtin_by_name("bar", vec![Value::Vector(labels.clone()), other.clone()])?,
    };
    let f = args[2].clone();
    let bars = col("resample", &bars)?;
    let (ids, g, firsts) = sorted_group_ids(&[bars.clone()])?;
    let members = group_members(&ids, g);
    let present = bars.take_usize(&firsts);
    // a rule string lists every bin from the first to the last, empty ones included
    // (their value is func of no rows: null for sum/last, 0 for count)
    let labels = match args[1].as_str() {
        Some(rule) => crate::temporal_arith::all_labels(i, "resample", rule, &present)?,
        None => present.clone(),
    };
    let (pv, lv) = (as_native::<i64>(&present), as_native::<i64>(&labels));
    let no_rows: Vec<usize> = Vec::new();
    let mut rows: Vec<Column> = Vec::with_capacity(labels.len());
    for l in lv.iter() {
        let mem = match pv.binary_search(l) {
            Ok(k) => &members[k],
            Err(_) => &no_rows,
        };
        rows.push(agg_columns(i, &f, row_subset(&m, mem))?);
    }
    let g = labels.len();
    let ty = rows.first().map(|c| c.ty).unwrap_or(DataType::Double);
    let cols: Vec<Column> = (0..m.cols)
        .map(|c| {
            let cells: Vec<Column> = rows.iter().map(|r| r.slice(c, c + 1)).map(|x| if x.ty != ty { cast_column(&x, ty) } else { Ok(x) }).collect::<Result<_>>()?;
            let refs: Vec<&Column> = cells.iter().collect();
            Ok(Column::concat(ty, &refs))
        })
        .collect::<Result<_>>()?;
    matrix_from_cols(cols, g, Some(labels), labels_col(&m.col_labels))
}

fn rolling_panel(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = match &args[0] {
        Value::Table(t) => t.clone(),
        other => return Err(Error::unsupported("rollingPanel", describe(other))),
    };
    let w = int_arg("rollingPanel", &args[1], "window")?;
    if w < 1 {
        return Err(Error::arg("The window argument of [rollingPanel] must be positive"));
    }
    let w = w as usize;
    let groups: Vec<Vec<usize>> = match opt(&args, 2) {
        Some(g) => {
            let names = crate::table::names_arg("rollingPanel", g)?;
            let keys: Vec<Column> = names
                .iter()
                .map(|n| t.column(n).cloned().ok_or_else(|| Error::name(format!("Unrecognized column name [{n}]"))))
                .collect::<Result<_>>()?;
            let (ids, ng, _) = crate::containers::group_ids(&keys)?;
            group_members(&ids, ng)
        }
        None => vec![(0..t.rows()).collect()],
    };
    // panel k holds rows [k - w + 1, k] of every group (groups shorter than the window skip)
    let longest = groups.iter().map(|g| g.len()).max().unwrap_or(0);
    let mut out = Vec::new();
    for k in (w - 1)..longest {
        let mut idx = Vec::new();
        for g in &groups {
            if k < g.len() {
                idx.extend_from_slice(&g[k + 1 - w..=k]);
            }
        }
        out.push(Value::table(t.take_usize(&idx)));
    }
    Ok(Value::tuple(out))
}

pub const DEFS: &[Builtin] = &[
    fp("align", Kind::System, 2, 5, align, &["left", "right", "how", "byRow", "view"]),
    fp("concatMatrix", Kind::System, 1, 2, concat_matrix, &["X", "horizontal"]),
    fp("eye", Kind::System, 1, 1, eye, &["n"]),
    fp("merge", Kind::System, 2, 5, merge, &["left", "right", "how", "leftOn", "rightOn"]),
    fp("panel", Kind::System, 3, 6, panel, &["row", "col", "metrics", "rowLabel", "colLabel", "parallel"]),
    fp("regroup", Kind::System, 3, 4, regroup, &["X", "label", "func", "byRow"]),
    fp("resample", Kind::System, 3, 6, resample, &["X", "rule", "func", "closed", "label", "origin"]),
    fp("reshape", Kind::System, 1, 2, reshape, &["obj", "dim"]),
    fp("rollingPanel", Kind::System, 2, 3, rolling_panel, &["X", "window", "groupingCol"]),
    fp("toColumnarTuple", Kind::System, 1, 1, to_tuple, &["X"]),
    fp("toTuple", Kind::System, 1, 1, to_tuple, &["X"]),
];

pub mod bar;
pub mod stats;

/// The reshape family's rows: matrices and panels, bars, decompositions.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, bar::DEFS, stats::DEFS].iter().for_each(|defs| r.extend(defs));
}
