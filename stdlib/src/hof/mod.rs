//! Builtins: higher-order functions over groups and windows (contextby `:X`, groupby `:G`,
//! byRow `:H`, byColumn `:V`, segmentby, moving, movingValid, window, rolling, withNullFill,
//! nullCompare, nothrowCall, compose, aggrTopN, pivot, talib, rowGroupby).
//!
//! Group and window positions are computed once on typed columns; the user function is
//! then called once per group or window on gathered slices.

use beluga_runtime::CallCtx;
use crate::containers::{group_ids, group_members, key_cols, sorted_group_ids};
use crate::util::{col, describe, int_arg, opt};
use beluga_runtime::column::Column;
use beluga_runtime::eval::{unify_scalars, Rule};
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::value::{Func, Matrix};
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

// ------------------------------------------------------------------ shared helpers

/// The arguments of `func` packed in `funcArgs`: a tuple means several arguments.
pub fn func_args(v: &Value) -> Vec<Value> {
    match v {
        Value::Tuple(items) => items.iter().cloned().collect(),
        other => vec![other.clone()],
    }
}

/// Length of the data arguments (they must agree; scalars broadcast).
fn common_len(name: &str, args: &[Value]) -> Result<usize> {
    let mut n: Option<usize> = None;
    for a in args {
        let len = match a {
            Value::Vector(c) | Value::Pair(c) => Some(c.len()),
            Value::Table(t) => Some(t.rows()),
            Value::Matrix(m) => Some(m.rows),
            _ => None,
        };
        if let Some(l) = len {
            match n {
                None => n = Some(l),
                Some(m) if m != l => return Err(Error::size(format!("The arguments of [{name}] must have the same length"))),
                _ => {}
            }
        }
    }
    Ok(n.unwrap_or(1))
}

/// Rows `idx` of an argument (vectors and tables are gathered; scalars pass through).
fn gather(v: &Value, idx: &[usize]) -> Value {
    match v {
        Value::Vector(c) | Value::Pair(c) => Value::Vector(c.take_usize(idx)),
        Value::Table(t) => Value::table(t.take_usize(idx)),
        Value::Matrix(m) => {
            let pos: Vec<usize> = (0..m.cols).flat_map(|c| idx.iter().map(move |&r| c * m.rows + r)).collect();
            Value::Matrix(Arc::new(Matrix { data: m.data.take_usize(&pos), rows: idx.len(), cols: m.cols, row_labels: None, col_labels: m.col_labels.clone(), indexed: false }))
        }
        other => other.clone(),
    }
}

/// Rows `[a, b)` of an argument.
fn range(v: &Value, a: usize, b: usize) -> Value {
    match v {
        Value::Vector(c) | Value::Pair(c) => Value::Vector(c.slice(a, b)),
        Value::Table(t) => Value::table(t.slice(a, b)),
        Value::Matrix(_) => gather(v, &(a..b).collect::<Vec<_>>()),
        other => other.clone(),
    }
}

/// Scalars (VOID for "null result") into one typed vector.
pub fn scalars_to_vector(results: Vec<Value>) -> Result<Value> {
    if results.iter().all(|v| matches!(v, Value::Void)) {
        return Ok(Value::Vector(Column::nulls(DataType::Double, results.len())));
    }
    if results.iter().all(|v| matches!(v, Value::Scalar(_) | Value::Void)) {
        if let Some(v) = unify_scalars(&results)? {
            return Ok(v);
        }
    }
    Ok(Value::tuple(results))
}

fn func_name(i: &CallCtx, f: &Value) -> String {
    match f {
        Value::Function(func) => i.func_name(func),
        _ => String::new(),
    }
}

/// Names of the argument expressions of the current builtin call, when the interpreter
/// records them (`ext["argNames"]`: per argument, the variable names of its elements).
fn arg_names(i: &CallCtx) -> Option<Vec<Vec<Option<String>>>> {
    i.ext_ref().get("argNames").and_then(|b| b.downcast_ref::<Vec<Vec<Option<String>>>>()).cloned()
}

// ------------------------------------------------------------------ contextby / groupby

fn grouping(name: &str, v: &Value) -> Result<Vec<Column>> {
    let cols = key_cols(name, v)?;
    if cols.is_empty() {
        return Err(Error::arg(format!("The groupingCol of [{name}] is empty")));
    }
    Ok(cols)
}

fn contextby(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let keys = grouping("contextby", &args[2])?;
    let n = keys[0].len();
    if common_len("contextby", &fargs)? != n && fargs.iter().any(|a| !a.is_scalar()) {
        return Err(Error::size("The funcArgs and groupingCol of [contextby] must have the same length"));
    }
    let (ids, g, _) = sorted_group_ids(&keys)?;
    let mut members = group_members(&ids, g);
    if let Some(s) = opt(&args, 3) {
        let sk = key_cols("contextby", s)?;
        if sk.iter().any(|c| c.len() != n) {
            return Err(Error::size("The sortingCol and groupingCol of [contextby] must have the same length"));
        }
        for m in members.iter_mut() {
            let part: Vec<Column> = sk.iter().map(|c| c.take_usize(m)).collect();
            let order = crate::order::argsort_multi(&part, &[true])?;
            *m = order.iter().map(|&k| m[k]).collect();
        }
    }
    // per group: the result, which is a scalar (broadcast) or a vector of the group's size
    let mut parts: Vec<Value> = Vec::with_capacity(g);
    for m in &members {
        i.check_interrupt()?;
        let call: Vec<Value> = fargs.iter().map(|a| gather(a, m)).collect();
        let r = i.call_value(&f, call)?;
        match &r {
            Value::Vector(c) if c.len() != m.len() => {
                return Err(Error::size("The function of [contextby] must return a scalar or a vector of the group's size"))
            }
            Value::Scalar(_) | Value::Void | Value::Vector(_) => {}
            other => return Err(Error::arg(format!("The function of [contextby] returned {}", describe(other)))),
        }
        parts.push(r);
    }
    // expand into one column in group order, then scatter back to the rows
    let mut cells: Vec<Column> = Vec::with_capacity(g);
    let ty = parts
        .iter()
        .filter_map(|p| match p {
            Value::Scalar(c) | Value::Vector(c) => Some(c.ty),
            _ => None,
        })
        .fold(None, |acc: Option<DataType>, t| match acc {
            None => Some(t),
            Some(a) => beluga_runtime::types::common_type(a, t).or(Some(a)),
        })
        .unwrap_or(DataType::Double);
    for (p, m) in parts.iter().zip(&members) {
        let c = match p {
            Value::Scalar(c) => c.take(&vec![0; m.len()]),
            Value::Vector(c) => c.clone(),
            _ => Column::nulls(ty, m.len()),
        };
        let c = if c.ty != ty { beluga_runtime::kernels::cast::cast_column(&c, ty)? } else { c };
        cells.push(c);
    }
    let refs: Vec<&Column> = cells.iter().collect();
    let grouped = Column::concat(ty, &refs);
    let mut inverse = vec![0usize; n];
    let mut k = 0;
    for m in &members {
        for &r in m {
            inverse[r] = k;
            k += 1;
        }
    }
    Ok(Value::Vector(grouped.take_usize(&inverse)))
}

/// Error `msg` unless every vector, table or matrix among `fargs` has `n` rows (scalars
/// broadcast), as groupby and segmentby require of their arguments.
fn same_lengths(fargs: &[Value], n: usize, msg: &str) -> Result<()> {
    let rows = |a: &Value| match a {
        Value::Vector(c) | Value::Pair(c) => Some(c.len()),
        Value::Table(t) => Some(t.rows()),
        Value::Matrix(m) => Some(m.rows),
        _ => None,
    };
    if fargs.iter().any(|a| rows(a).is_some_and(|l| l != n)) {
        return Err(Error::size(msg));
    }
    Ok(())
}

fn groupby(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let keys = grouping("groupby", &args[2])?;
    let (ids, g, firsts) = sorted_group_ids(&keys)?;
    let rows = ids.len();
    same_lengths(&fargs, rows, "groupby: funcArgs and groupingCol must have the same length")?;
    let members = group_members(&ids, g);
    let mut results = Vec::with_capacity(g);
    for m in &members {
        i.check_interrupt()?;
        let call: Vec<Value> = fargs.iter().map(|a| gather(a, m)).collect();
        results.push(i.call_value(&f, call)?);
    }
    // column names: the argument variables' names (recorded by the interpreter, or found by
    // identity: an argument passed as a variable shares that variable's data)
    let names = arg_names(i);
    let key_parts: Vec<Value> = match &args[2] {
        Value::Tuple(items) => items.iter().cloned().collect(),
        other => vec![other.clone()],
    };
    let key_names: Vec<String> = (0..keys.len())
        .map(|k| {
            names
                .as_ref()
                .and_then(|n| n.get(2))
                .and_then(|v| v.get(k).cloned().flatten())
                .or_else(|| key_parts.get(k).and_then(|v| crate::meta::var_holding(i, v)))
                .unwrap_or_else(|| if keys.len() == 1 { "key".to_string() } else { "groupingKey".to_string() })
        })
        .collect();
    let first_arg = names
        .as_ref()
        .and_then(|n| n.get(1))
        .and_then(|v| v.first().cloned().flatten())
        .or_else(|| fargs.first().and_then(|v| crate::meta::var_holding(i, v)));
    let fname = func_name(i, &f);
    let value_name = match first_arg {
        Some(a) => format!("{fname}_{a}"),
        None => fname,
    };
    let mut out_names: Vec<String> = key_names;
    let mut out_cols: Vec<Column> = keys.iter().map(|c| c.take_usize(&firsts)).collect();
    if results.iter().all(|v| matches!(v, Value::Dict(_))) && !results.is_empty() {
        // one row per group built from the dictionaries
        match beluga_runtime::eval::assemble(results, &[])? {
            Value::Table(t) => {
                for (n, c) in t.names.iter().zip(&t.cols) {
                    out_names.push(n.clone());
                    out_cols.push(c.clone());
                }
                return Ok(Value::table(Table::new(out_names, out_cols)?));
            }
            other => return Err(Error::arg(format!("groupby: can't tabulate {}", describe(&other)))),
        }
    }
    match scalars_to_vector(results)? {
        Value::Vector(c) => {
            out_names.push(value_name);
            out_cols.push(c);
            Ok(Value::table(Table::new(out_names, out_cols)?))
        }
        _ => Err(Error::arg("The function of [groupby] must return a scalar or a dictionary per group")),
    }
}

fn segmentby(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let seg = col("segmentby", &args[2])?;
    let keys = crate::order::sort_keys(&seg);
    let n = keys.len();
    same_lengths(&fargs, n, "segmentby: funcArgs and segment must have the same length")?;
    let mut parts: Vec<Column> = Vec::new();
    let mut s = 0;
    while s < n {
        let mut e = s + 1;
        while e < n && keys[e] == keys[s] {
            e += 1;
        }
        let call: Vec<Value> = fargs.iter().map(|a| range(a, s, e)).collect();
        let r = i.call_value(&f, call)?;
        parts.push(match r {
            Value::Scalar(c) => c.take(&vec![0; e - s]),
            Value::Vector(c) if c.len() == e - s => c,
            other => return Err(Error::arg(format!("The function of [segmentby] must return a scalar or a vector of the segment's size, not {}", describe(&other)))),
        });
        s = e;
    }
    let ty = parts.first().map(|c| c.ty).unwrap_or(DataType::Double);
    let parts: Vec<Column> = parts
        .into_iter()
        .map(|c| if c.ty != ty { beluga_runtime::kernels::cast::cast_column(&c, ty) } else { Ok(c) })
        .collect::<Result<_>>()?;
    let refs: Vec<&Column> = parts.iter().collect();
    Ok(Value::Vector(Column::concat(ty, &refs)))
}

// ------------------------------------------------------------------ byRow / byColumn

/// The row-wise builtin equivalent of an aggregate, when one is registered (`max` → `rowMax`).
fn row_builtin(i: &CallCtx, f: &Value) -> Option<String> {
    if let Value::Function(Func::Builtin(id)) = f {
        let name = i.registry().get(*id).name;
        let mut cs = name.chars();
        let first = cs.next()?;
        let row = format!("row{}{}", first.to_ascii_uppercase(), cs.as_str());
        if i.registry().lookup(&row).is_some() {
            return Some(row);
        }
    }
    None
}

fn by_row(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let x = args[1].clone();
    if let Some(row) = row_builtin(i, &f) {
        if matches!(x, Value::Matrix(_) | Value::Table(_)) {
            return i.call_builtin_by_name(&row, vec![x]);
        }
    }
    let rows: Vec<Value> = match &x {
        Value::Matrix(m) => (0..m.rows)
            .map(|r| Value::Vector(m.data.take_usize(&(0..m.cols).map(|c| c * m.rows + r).collect::<Vec<_>>())))
            .collect(),
        Value::Table(t) => {
            let ty = t.cols.iter().map(|c| c.ty).fold(None, |a: Option<DataType>, b| match a {
                None => Some(b),
                Some(a) => beluga_runtime::types::common_type(a, b),
            });
            let ty = ty.ok_or_else(|| Error::arg("The columns of the table given to [byRow] have incompatible types"))?;
            let cols: Vec<Column> = t.cols.iter().map(|c| if c.ty != ty { beluga_runtime::kernels::cast::cast_column(c, ty) } else { Ok(c.clone()) }).collect::<Result<_>>()?;
            (0..t.rows()).map(|r| Value::Vector(Column::concat(ty, &cols.iter().map(|c| c.slice(r, r + 1)).collect::<Vec<_>>().iter().collect::<Vec<_>>()))).collect()
        }
        Value::Tuple(items) => {
            // a tuple of equal-length vectors: row r is the r-th element of each
            let n = common_len("byRow", items)?;
            (0..n)
                .map(|r| {
                    let cells: Vec<Value> = items.iter().map(|v| match v {
                        Value::Vector(c) => Value::Scalar(c.slice(r, r + 1)),
                        other => other.clone(),
                    }).collect();
                    unify_scalars(&cells).map(|u| u.unwrap_or(Value::tuple(cells)))
                })
                .collect::<Result<_>>()?
        }
        Value::Vector(_) => return i.call_value(&f, vec![x]),
        // array vector: f on each row; vector results make an array vector again
        // (progr/data_types_forms/arrayVector.md: byRow(cumavg, bid))
        Value::ArrayVector(a) => {
            let mut out = Vec::with_capacity(a.rows());
            for r in 0..a.rows() {
                out.push(i.call_value(&f, vec![Value::Vector(a.row(r))])?);
            }
            if out.iter().all(|v| matches!(v, Value::Scalar(_) | Value::Void)) {
                return scalars_to_vector(out);
            }
            let cols: Vec<Column> = out
                .iter()
                .map(|v| match v {
                    Value::Vector(c) | Value::Scalar(c) => Ok(c.clone()),
                    other => Err(Error::unsupported("byRow", describe(other))),
                })
                .collect::<Result<_>>()?;
            let ty = cols.iter().map(|c| c.ty).find(|t| *t != DataType::Void).unwrap_or(a.data.ty);
            let cols: Vec<Column> =
                cols.iter().map(|c| if c.ty != ty { beluga_runtime::kernels::cast::cast_column(c, ty) } else { Ok(c.clone()) }).collect::<Result<_>>()?;
            return Ok(Value::ArrayVector(Arc::new(beluga_runtime::value::ArrayVec::from_rows(ty, &cols))));
        }
        other => return Err(Error::unsupported("byRow", describe(other))),
    };
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        out.push(i.call_value(&f, vec![r])?);
    }
    if out.iter().all(|v| matches!(v, Value::Scalar(_) | Value::Void)) {
        return scalars_to_vector(out);
    }
    // vector results: one row each, as a matrix
    match beluga_runtime::eval::assemble(out, &[])? {
        Value::Matrix(m) => Ok(Value::Matrix(Arc::new(transpose(&m)))),
        other => Ok(other),
    }
}

fn transpose(m: &Matrix) -> Matrix {
    let idx: Vec<usize> = (0..m.rows).flat_map(|r| (0..m.cols).map(move |c| c * m.rows + r)).collect();
    Matrix { data: m.data.take_usize(&idx), rows: m.cols, cols: m.rows, row_labels: m.col_labels.clone(), col_labels: m.row_labels.clone(), indexed: false }
}

fn by_column(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    match &args[1] {
        Value::Table(t) => {
            let mut outs = Vec::with_capacity(t.ncols());
            for c in &t.cols {
                outs.push(i.call_value(&f, vec![Value::Vector(c.clone())])?);
            }
            let n = t.rows();
            if outs.iter().all(|v| matches!(v, Value::Vector(c) if c.len() == n)) {
                let cols: Vec<Column> = outs.iter().filter_map(|v| v.column().cloned()).collect();
                return Ok(Value::table(Table::new(t.names.clone(), cols)?));
            }
            if outs.iter().all(|v| matches!(v, Value::Scalar(_) | Value::Void)) {
                let cols: Vec<Column> = outs
                    .iter()
                    .map(|v| match v {
                        Value::Scalar(c) => c.clone(),
                        _ => Column::nulls(DataType::Double, 1),
                    })
                    .collect();
                return Ok(Value::table(Table::new(t.names.clone(), cols)?));
            }
            Ok(Value::tuple(outs))
        }
        Value::Matrix(_) | Value::Tuple(_) => i.each(&f, vec![args[1].clone()], Rule::Default),
        other => i.call_value(&f, vec![other.clone()]),
    }
}

// ------------------------------------------------------------------ count windows

/// m-function equivalents of common aggregates, used as fast paths of `moving`.
const MOVING_FAST: &[(&str, &str)] = &[
    ("sum", "msum"),
    ("avg", "mavg"),
    ("mean", "mavg"),
    ("max", "mmax"),
    ("min", "mmin"),
    ("std", "mstd"),
    ("stdp", "mstdp"),
    ("var", "mvar"),
    ("varp", "mvarp"),
    ("med", "mmed"),
    ("count", "mcount"),
    ("prod", "mprod"),
    ("first", "mfirst"),
    ("last", "mlast"),
    ("sum2", "msum2"),
    ("skew", "mskew"),
    ("kurtosis", "mkurtosis"),
    ("imax", "mimax"),
    ("imin", "mimin"),
];

fn window_arg(name: &str, v: &Value) -> Result<usize> {
    let w = int_arg(name, v, "window")?;
    if w < 1 {
        return Err(Error::arg(format!("The window argument of [{name}] must be a positive integer")));
    }
    Ok(w as usize)
}

/// Call `f` on the rows `[start, i]` of each data argument, for the rows whose window has at
/// least `min` rows; other rows get null.
fn run_windows(i: &mut CallCtx, f: &Value, fargs: &[Value], n: usize, w: usize, min: usize) -> Result<Value> {
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        i.check_interrupt()?;
        let start = (k + 1).saturating_sub(w);
        if k + 1 - start < min {
            out.push(Value::Void);
            continue;
        }
        let call: Vec<Value> = fargs.iter().map(|a| range(a, start, k + 1)).collect();
        out.push(i.call_value(f, call)?);
    }
    scalars_to_vector(out)
}

fn moving(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let w = window_arg("moving", &args[2])?;
    let min = match opt(&args, 3) {
        Some(v) => int_arg("moving", v, "minPeriods")?.max(1) as usize,
        None => w,
    };
    // built-in aggregates map onto their O(n) m-function
    if let (Value::Function(Func::Builtin(id)), [x]) = (&f, fargs.as_slice()) {
        let name = i.registry().get(*id).name;
        if let Some((_, m)) = MOVING_FAST.iter().find(|(a, _)| *a == name) {
            if i.registry().lookup(m).is_some() && matches!(x, Value::Vector(_)) {
                let mut call = vec![x.clone(), args[2].clone()];
                if let Some(p) = opt(&args, 3) {
                    call.push(p.clone());
                }
                return i.call_builtin_by_name(m, call);
            }
        }
    }
    let n = common_len("moving", &fargs)?;
    run_windows(i, &f, &fargs, n, w, min.min(w))
}

fn moving_valid(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let w = window_arg("movingValid", &args[2])?;
    let min = match opt(&args, 3) {
        Some(v) => int_arg("movingValid", v, "minPeriods")?.max(1) as usize,
        None => w,
    };
    // windows slide over the rows where every argument is non-null
    let n = common_len("movingValid", &fargs)?;
    let valid: Vec<usize> = (0..n)
        .filter(|&r| {
            fargs.iter().all(|a| match a {
                Value::Vector(c) => !c.is_null(r),
                _ => true,
            })
        })
        .collect();
    let packed: Vec<Value> = fargs.iter().map(|a| gather(a, &valid)).collect();
    let r = run_windows(i, &f, &packed, valid.len(), w, min.min(w))?;
    match r {
        Value::Vector(c) => {
            let mut idx = vec![-1i64; n];
            for (k, &p) in valid.iter().enumerate() {
                idx[p] = k as i64;
            }
            Ok(Value::Vector(c.take(&idx)))
        }
        other => Ok(other),
    }
}

/// `window(func, funcArgs, range)`: f over rows `[i + a, i + b]` (clipped) of each row.
fn window(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let (a, b) = match &args[2] {
        Value::Pair(c) => (c.i64_at(0).unwrap_or(0), c.i64_at(1).unwrap_or(0)),
        other => return Err(Error::arg(format!("The range argument of [window] must be a pair of integers, not {}", describe(other)))),
    };
    if a > b {
        return Err(Error::arg("The range of [window] must satisfy a <= b"));
    }
    let n = common_len("window", &fargs)? as i64;
    let mut out = Vec::with_capacity(n as usize);
    for k in 0..n {
        i.check_interrupt()?;
        let (s, e) = ((k + a).clamp(0, n), (k + b + 1).clamp(0, n));
        if s >= e {
            out.push(Value::Void);
            continue;
        }
        let call: Vec<Value> = fargs.iter().map(|x| range(x, s as usize, e as usize)).collect();
        out.push(i.call_value(&f, call)?);
    }
    scalars_to_vector(out)
}

/// `rolling(func, funcArgs, window, [step=1], [fill])`: f over complete windows every `step` rows.
fn rolling(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let w = window_arg("rolling", &args[2])?;
    let step = match opt(&args, 3) {
        Some(v) => int_arg("rolling", v, "step")?,
        None => 1,
    };
    if step < 1 {
        return Err(Error::arg("The step argument of [rolling] must be a positive integer"));
    }
    let step = step as usize;
    // a matrix rolls each column separately
    if let Value::Matrix(m) = &args[1] {
        let mut cols = Vec::with_capacity(m.cols);
        for c in 0..m.cols {
            let v = rolling_one(i, &f, &[Value::Vector(m.column(c))], w, step)?;
            cols.push(v);
        }
        return beluga_runtime::eval::assemble(cols, &[]);
    }
    let fargs = func_args(&args[1]);
    rolling_one(i, &f, &fargs, w, step)
}

fn rolling_one(i: &mut CallCtx, f: &Value, fargs: &[Value], w: usize, step: usize) -> Result<Value> {
    let n = common_len("rolling", fargs)?;
    let mut out = Vec::new();
    let mut end = w;
    while end <= n {
        i.check_interrupt()?;
        let call: Vec<Value> = fargs.iter().map(|a| range(a, end - w, end)).collect();
        out.push(i.call_value(f, call)?);
        end += step;
    }
    // a vectorized func (`rolling(cumsum, x, 3, 3)`): the windows' results joined in order
    // (funcs/ho_funcs/rolling.md: one row per input row of the complete windows)
    if !out.is_empty() && out.iter().all(|v| matches!(v, Value::Vector(_))) {
        let ty = out.iter().map(|v| v.data_type()).fold(DataType::Void, |a, t| if a == DataType::Void { t } else { a });
        let mut parts = Vec::with_capacity(out.len());
        for v in &out {
            if let Value::Vector(c) = v {
                parts.push(if c.ty == ty { c.clone() } else { beluga_runtime::kernels::cast::cast_column(c, ty)? });
            }
        }
        let refs: Vec<&Column> = parts.iter().collect();
        return Ok(Value::Vector(Column::concat(ty, &refs)));
    }
    scalars_to_vector(out)
}

// ------------------------------------------------------------------ null-aware application

fn with_null_fill(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fill = col("withNullFill", &args[3])?;
    let (x, y) = (&args[1], &args[2]);
    let data = |v: &Value| -> Result<Column> {
        match v {
            Value::Matrix(m) => Ok(m.data.clone()),
            other => col("withNullFill", other),
        }
    };
    let (xc, yc) = (data(x)?, data(y)?);
    let n = xc.len().max(yc.len());
    let at = |c: &Column, k: usize| if c.len() == 1 { 0 } else { k };
    // replace a null by the fill value where exactly one side is null
    let fix = |c: &Column, other: &Column| -> Result<Column> {
        let fill_c = if fill.ty != c.ty && !(fill.ty.is_literal() && c.ty.is_literal()) {
            beluga_runtime::kernels::cast::cast_column(&fill, c.ty)?
        } else {
            fill.clone()
        };
        let m = c.len();
        let combined = Column::concat(c.ty, &[c, &fill_c]);
        let idx: Vec<usize> = (0..m)
            .map(|k| {
                let kk = if m == 1 { 0 } else { k };
                if c.is_null(kk) && !other.is_null(at(other, k.min(n - 1))) { m } else { kk }
            })
            .collect();
        Ok(combined.take_usize(&idx))
    };
    let (xf, yf) = (fix(&xc, &yc)?, fix(&yc, &xc)?);
    let rewrap = |orig: &Value, c: Column| -> Value {
        match orig {
            Value::Matrix(m) => Value::Matrix(Arc::new(Matrix { data: c, ..(**m).clone() })),
            Value::Scalar(_) => Value::Scalar(c),
            _ => Value::Vector(c),
        }
    };
    i.call_value(&f, vec![rewrap(x, xf), rewrap(y, yf)])
}

fn null_compare(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let r = i.call_value(&f, vec![args[1].clone(), args[2].clone()])?;
    let nulls = |v: &Value| -> Result<Vec<bool>> {
        let c = match v {
            Value::Matrix(m) => m.data.clone(),
            other => col("nullCompare", other)?,
        };
        Ok(crate::containers_fill::null_flags(&c))
    };
    let (nx, ny) = (nulls(&args[1])?, nulls(&args[2])?);
    // a shorter argument was broadcast (a scalar, or a vector down each matrix column): cycle
    let flag = |f: &[bool], k: usize| !f.is_empty() && f[k % f.len()];
    let either = |k: usize| flag(&nx, k) || flag(&ny, k);
    let mask = |c: &Column| -> Column {
        let idx: Vec<i64> = (0..c.len()).map(|k| if either(k) { -1 } else { k as i64 }).collect();
        c.take(&idx)
    };
    Ok(match r {
        Value::Scalar(c) => Value::Scalar(mask(&c)),
        Value::Vector(c) => Value::Vector(mask(&c)),
        Value::Matrix(m) => Value::Matrix(Arc::new(Matrix { data: mask(&m.data), ..(*m).clone() })),
        other => other,
    })
}

fn nothrow_call(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    match i.call_value(&f, args[1..].to_vec()) {
        Ok(v) => Ok(v),
        Err(e) if e.kind == beluga_runtime::ErrorKind::Interrupted => Err(e),
        Err(_) => Ok(Value::Void),
    }
}

/// `compose(first, second)`: a function computing `second(first(args...))`, represented as
/// a partial application of the internal builtin `composeCall`.
fn compose(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let id = i.registry().lookup("composeCall").ok_or_else(|| Error::runtime("composeCall is not registered"))?;
    Ok(Value::Function(Func::partial(Func::Builtin(id), vec![Some(args[0].clone()), Some(args[1].clone())], vec![])))
}

fn compose_call(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let inner = i.call_value(&args[0], args[2..].to_vec())?;
    i.call_value(&args[1], vec![inner])
}

// ------------------------------------------------------------------ aggrTopN, pivot, talib

fn aggr_top_n(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let sort = key_cols("aggrTopN", &args[2])?;
    let top = args[3].as_f64().ok_or_else(|| Error::arg("The top argument of [aggrTopN] must be a number"))?;
    let asc = opt(&args, 4).and_then(|v| v.as_bool()).unwrap_or(true);
    let n = sort.first().map(|c| c.len()).unwrap_or(0);
    // a fraction takes floor(n * top) rows but at least one (funcs/ho_funcs/aggrTopN.md)
    let k = if top > 0.0 && top < 1.0 { ((top * n as f64).floor() as usize).max(1).min(n) } else { (top.max(0.0) as usize).min(n) };
    // a null sort key ranks as the smallest value: first ascending, last descending
    let keys = crate::order::sort_keys(&sort[0]);
    let order: Vec<usize> = crate::order::argsort_keys(&keys, asc).into_iter().take(k).collect();
    let call: Vec<Value> = fargs.iter().map(|a| gather(a, &order)).collect();
    i.call_value(&f, call)
}

fn pivot(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let fargs = func_args(&args[1]);
    let rows = col("pivot", &args[2])?;
    let cols = col("pivot", &args[3])?;
    let (rid, nr, rfirst) = sorted_group_ids(&[rows.clone()])?;
    let (cid, nc, cfirst) = sorted_group_ids(&[cols.clone()])?;
    let (cell_ids, ncell, cell_first) = group_ids(&[
        Column::from_vec(DataType::Long, rid.iter().map(|&x| x as i64).collect::<Vec<i64>>()),
        Column::from_vec(DataType::Long, cid.iter().map(|&x| x as i64).collect::<Vec<i64>>()),
    ])?;
    let members = group_members(&cell_ids, ncell);
    let mut cells = vec![Value::Void; nr * nc];
    for (g, m) in members.iter().enumerate() {
        i.check_interrupt()?;
        let r0 = cell_first[g];
        let (r, c) = (rid[r0] as usize, cid[r0] as usize);
        let call: Vec<Value> = fargs.iter().map(|a| gather(a, m)).collect();
        cells[c * nr + r] = i.call_value(&f, call)?;
    }
    let data = match scalars_to_vector(cells)? {
        Value::Vector(c) => c,
        _ => return Err(Error::arg("The function of [pivot] must return a scalar per cell")),
    };
    Ok(Value::Matrix(Arc::new(Matrix {
        data,
        rows: nr,
        cols: nc,
        row_labels: Some(Box::new(Value::Vector(rows.take_usize(&rfirst)))),
        col_labels: Some(Box::new(Value::Vector(cols.take_usize(&cfirst)))),
        indexed: false,
    })))
}

fn talib(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let x = col("talib", &args[1])?;
    let n = x.len();
    let k = (0..n).find(|&r| !x.is_null(r)).unwrap_or(n);
    let mut call = vec![Value::Vector(x.slice(k, n))];
    call.extend(args[2..].iter().cloned());
    let r = i.call_value(&f, call)?;
    let pad = |c: &Column| -> Column {
        let idx: Vec<i64> = (0..n as i64).map(|r| r - k as i64).collect();
        c.take(&idx)
    };
    Ok(match r {
        Value::Vector(c) => Value::Vector(pad(&c)),
        Value::Tuple(items) => Value::tuple(
            items
                .iter()
                .map(|v| match v {
                    Value::Vector(c) => Value::Vector(pad(c)),
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other,
    })
}

/// `rowGroupby(func, funcArgs, groupingCol, [mode='tuple'], [ascending=true])` over the rows
/// of a matrix (array vectors are held as tuples of row vectors).
fn row_groupby(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let mode = opt(&args, 3).and_then(|v| v.as_str()).unwrap_or("tuple").to_string();
    let asc = opt(&args, 4).and_then(|v| v.as_bool()).unwrap_or(true);
    let rows_of = |v: &Value| -> Result<Vec<Column>> {
        match v {
            Value::Matrix(m) => Ok((0..m.rows).map(|r| m.data.take_usize(&(0..m.cols).map(|c| c * m.rows + r).collect::<Vec<_>>())).collect()),
            Value::Tuple(items) => items.iter().map(|x| col("rowGroupby", x)).collect(),
            other => Err(Error::unsupported("rowGroupby", describe(other))),
        }
    };
    let groups = rows_of(&args[2])?;
    let fargs: Vec<Vec<Column>> = func_args(&args[1]).iter().map(|a| rows_of(a)).collect::<Result<_>>()?;
    for a in &fargs {
        let same = a.len() == groups.len() && a.iter().zip(&groups).all(|(x, g)| x.len() == g.len());
        if !same {
            return Err(Error::size("The arguments of [rowGroupby] must have the same shape as groupingCol"));
        }
    }
    let mut keys_out = Vec::with_capacity(groups.len());
    let mut vals_out = Vec::with_capacity(groups.len());
    for (r, g) in groups.iter().enumerate() {
        let (ids, ng, firsts) = sorted_group_ids(&[g.clone()])?;
        let members = group_members(&ids, ng);
        let mut order: Vec<usize> = (0..ng).collect();
        if !asc {
            order.reverse();
        }
        let mut vals = Vec::with_capacity(ng);
        for &k in &order {
            let call: Vec<Value> = fargs.iter().map(|a| Value::Vector(a[r].take_usize(&members[k]))).collect();
            vals.push(i.call_value(&f, call)?);
        }
        let fk: Vec<usize> = order.iter().map(|&k| firsts[k]).collect();
        keys_out.push(Value::Vector(g.take_usize(&fk)));
        vals_out.push(scalars_to_vector(vals)?);
    }
    match mode.as_str() {
        "tuple" => Ok(Value::tuple(vec![Value::tuple(keys_out), Value::tuple(vals_out)])),
        "dict" => beluga_runtime::eval::build_dict_pub(&[Value::string("key"), Value::string("value")], vec![Value::tuple(keys_out), Value::tuple(vals_out)], true),
        other => Err(Error::arg(format!("The mode '{other}' of [rowGroupby] is not supported (array vector tables are not available)"))),
    }
}

pub const DEFS: &[Builtin] = &[
    fp("aggrTopN", Kind::Aggregate, 4, 5, aggr_top_n, &["func", "funcArgs", "sortingCol", "top", "ascending"]),
    fp("byColumn", Kind::System, 2, 2, by_column, &["func", "X"]),
    fp("byRow", Kind::System, 2, 2, by_row, &["func", "X"]),
    fp("compose", Kind::System, 2, 2, compose, &["first", "second"]),
    f("composeCall", Kind::System, 2, u8::MAX, compose_call),
    fp("contextby", Kind::VectorToVector, 3, 5, contextby, &["func", "funcArgs", "groupingCol", "sortingCol", "semanticFilter"]),
    fp("groupby", Kind::System, 3, 3, groupby, &["func", "funcArgs", "groupingCol"]),
    fp("moving", Kind::VectorToVector, 3, 4, moving, &["func", "funcArgs", "window", "minPeriods"]),
    fp("movingValid", Kind::VectorToVector, 3, 4, moving_valid, &["func", "funcArgs", "window", "minPeriods"]),
    f("nothrowCall", Kind::System, 1, u8::MAX, nothrow_call),
    fp("nullCompare", Kind::Elementwise, 3, 3, null_compare, &["func", "X", "Y"]),
    fp("pivot", Kind::System, 4, 4, pivot, &["func", "funcArgs", "rowAlignCol", "colAlignCol"]),
    fp("rolling", Kind::System, 3, 5, rolling, &["func", "funcArgs", "window", "step", "fill"]),
    fp("rowGroupby", Kind::System, 3, 5, row_groupby, &["func", "funcArgs", "groupingCol", "mode", "ascending"]),
    fp("segmentby", Kind::VectorToVector, 3, 3, segmentby, &["func", "funcArgs", "segment"]),
    f("talib", Kind::VectorToVector, 2, u8::MAX, talib),
    fp("window", Kind::VectorToVector, 3, 3, window, &["func", "funcArgs", "range"]),
    fp("withNullFill", Kind::Elementwise, 4, 4, with_null_fill, &["func", "x", "y", "fillValue"]),
];

pub mod time;

/// The higher-order family's rows: group/window adverbs and time windows.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, time::DEFS].iter().for_each(|defs| r.extend(defs));
}
