//! Window joins `wj` / `pwj`: the windows come from `beluga_runtime::kernels::join::asof`
//! (right rows grouped by key and ordered by time); the aggregates avg/sum/count/wavg use
//! per-group prefix sums (direct sums for short windows), min/max block extremes, first/last
//! the window ends, all in parallel over the left rows. Other aggregates are evaluated on
//! each window's slice.

use beluga_runtime::CallCtx;
use super::{key_names, ordered_keys, table_arg};
use crate::util::describe;
use beluga_lang::ast::{Arg, Expr, ExprKind};
use beluga_runtime::column::Column;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::null::Native;
use beluga_runtime::kernels::join::asof::{duration_in_unit, previous_windows, time_values, window_rows, Windows};
use beluga_runtime::{DataType, Error, Result, Value};
use rayon::prelude::*;

/// Window bounds `w1:w2` in the unit of the ordered key (integers or DURATIONs).
fn window_bounds(v: &Value, ty: DataType) -> Result<(i64, i64)> {
    let one = |x: &Value| -> Result<i64> {
        match x {
            Value::Duration(n, u) => duration_in_unit(*n, u, ty),
            other => other.as_i64().ok_or_else(|| Error::arg("The window of a window join must be a pair of integers or durations")),
        }
    };
    match v {
        Value::Pair(c) | Value::Vector(c) if c.len() == 2 => {
            let (a, b) = (c.i64_at(0), c.i64_at(1));
            match (a, b) {
                (Some(a), Some(b)) => Ok((a, b)),
                _ => Err(Error::arg("The window bounds can't be null")),
            }
        }
        Value::Tuple(t) if t.len() == 2 => Ok((one(&t[0])?, one(&t[1])?)),
        other => Err(Error::arg(format!("The window of a window join must be a pair w1:w2, not {}", describe(other)))),
    }
}

/// The aggregate expressions of `aggs` (metacode, a vector of metacode in one `<[…]>`, or a
/// tuple of metacode) with their result names.
fn agg_list(v: &Value) -> Result<Vec<(Expr, String)>> {
    fn one(e: &Expr, out: &mut Vec<(Expr, String)>) {
        match &e.kind {
            ExprKind::Vector(items) | ExprKind::Tuple(items) => items.iter().for_each(|x| one(x, out)),
            _ => {
                // `<avg(bid) as ab>` names the result column
                let (x, alias) = crate::meta::split_alias(e);
                let name = alias.first().cloned().unwrap_or_else(|| beluga_runtime::sql::auto_name(&x));
                out.push((x, name))
            }
        }
    }
    let mut out = Vec::new();
    match v {
        Value::Code(e) => one(e, &mut out),
        Value::Tuple(items) => {
            for x in items.iter() {
                match x {
                    Value::Code(e) => one(e, &mut out),
                    other => return Err(Error::arg(format!("The aggs of a window join must be metacode, not {}", describe(other)))),
                }
            }
        }
        other => return Err(Error::arg(format!("The aggs of a window join must be metacode, not {}", describe(other)))),
    }
    Ok(out)
}

/// Windows up to this length are scanned directly; longer ones use prefix sums / blocks.
const DIRECT_MAX: usize = 64;

/// The group (of `win.groups`) holding position `s` of a non-empty window.
fn group_of(groups: &[usize], s: usize) -> usize {
    groups.partition_point(|&o| o <= s).saturating_sub(1)
}

/// Fast window aggregates on f64 values (NaN = null): sum/avg/count/wavg.
fn window_f64(name: &str, x: &[f64], w: Option<&[f64]>, win: &Windows) -> Column {
    let pair = |k: usize| -> Option<(f64, f64)> {
        let a = x[k];
        let b = w.map(|w| w[k]).unwrap_or(1.0);
        if a.is_nan() || b.is_nan() {
            None
        } else {
            Some((a * b, b))
        }
    };
    // exclusive prefix sums within each group (value or value*weight, weight, count), with
    // the group totals kept apart: only built when some window is long
    let long = win.ranges.par_iter().any(|&(s, e)| e - s > DIRECT_MAX);
    let (mut ex, mut tot) = (Vec::new(), Vec::new());
    if long {
        ex = vec![(0f64, 0f64, 0u32); x.len()];
        for g in win.groups.windows(2) {
            let mut acc = (0f64, 0f64, 0u32);
            for k in g[0]..g[1] {
                ex[k] = acc;
                if let Some((p, q)) = pair(k) {
                    acc = (acc.0 + p, acc.1 + q, acc.2 + 1);
                }
            }
            tot.push(acc);
        }
    }
    let sums = |s: usize, e: usize| -> (f64, f64, u32) {
        if e - s <= DIRECT_MAX {
            let (mut a, mut b, mut c) = (0.0, 0.0, 0);
            for k in s..e {
                if let Some((p, q)) = pair(k) {
                    a += p;
                    b += q;
                    c += 1;
                }
            }
            (a, b, c)
        } else {
            let g = group_of(&win.groups, s);
            let end = if e >= win.groups[g + 1] { tot[g] } else { ex[e] };
            (end.0 - ex[s].0, end.1 - ex[s].1, end.2 - ex[s].2)
        }
    };
    if name == "count" {
        let v: Vec<i32> = win.ranges.par_iter().map(|&(s, e)| sums(s, e).2 as i32).collect();
        return Column::from_vec(DataType::Int, v);
    }
    let v: Vec<f64> = win
        .ranges
        .par_iter()
        .map(|&(s, e)| {
            let (a, b, c) = sums(s, e);
            if c == 0 {
                return f64::NULL;
            }
            match name {
                "sum" => a,
                _ => {
                    if b == 0.0 {
                        f64::NULL
                    } else {
                        a / b
                    }
                }
            }
        })
        .collect();
    Column::from_vec(DataType::Double, v)
}

/// Position of the smallest (`max` false) or largest non-null value in each window, −1 for a
/// window without one; long windows combine the extremes of blocks of `DIRECT_MAX` rows.
fn window_extreme<T: Native + PartialOrd + Send + Sync>(v: &[T], max: bool, win: &Windows) -> Vec<i64> {
    let better = |a: T, b: T| if max { a > b } else { a < b };
    let scan = |s: usize, e: usize| -> Option<usize> {
        let mut best: Option<usize> = None;
        for k in s..e {
            if !v[k].is_null() && best.is_none_or(|b| better(v[k], v[b])) {
                best = Some(k);
            }
        }
        best
    };
    let pick = |a: Option<usize>, b: Option<usize>| match (a, b) {
        (Some(x), Some(y)) => Some(if better(v[y], v[x]) { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    };
    let long = win.ranges.par_iter().any(|&(s, e)| e - s > 2 * DIRECT_MAX);
    let blocks: Vec<Option<usize>> = if long {
        (0..v.len().div_ceil(DIRECT_MAX)).into_par_iter().map(|b| scan(b * DIRECT_MAX, ((b + 1) * DIRECT_MAX).min(v.len()))).collect()
    } else {
        Vec::new()
    };
    win.ranges
        .par_iter()
        .map(|&(s, e)| {
            let best = if e - s <= 2 * DIRECT_MAX {
                scan(s, e)
            } else {
                let (b0, b1) = (s.div_ceil(DIRECT_MAX), e / DIRECT_MAX);
                let mut best = pick(scan(s, b0 * DIRECT_MAX), scan(b1 * DIRECT_MAX, e));
                for b in &blocks[b0..b1] {
                    best = pick(best, *b);
                }
                best
            };
            best.map(|k| k as i64).unwrap_or(-1)
        })
        .collect()
}

fn nan_f64(c: &Column) -> Vec<f64> {
    crate::util::f64s(c)
}

/// One aggregate over every window: a fast path for common forms, else per-window evaluation.
fn window_agg(i: &mut CallCtx, e: &Expr, names: &[String], cols: &[Column], win: &Windows) -> Result<Column> {
    let col_of = |x: &Expr| -> Option<&Column> {
        match &x.kind {
            ExprKind::Ident(n) => names.iter().position(|m| m == n).map(|k| &cols[k]),
            _ => None,
        }
    };
    if let ExprKind::Call(g, args) = &e.kind {
        let f = match &g.kind {
            ExprKind::Ident(f) if !i.has_var(f) => Some(f.as_str()),
            _ => None,
        };
        let a: Vec<Option<&Column>> = args
            .iter()
            .map(|a| match a {
                Arg::Pos(Some(x)) => col_of(x),
                _ => None,
            })
            .collect();
        match (f, a.as_slice()) {
            (Some(f @ ("first" | "last")), [Some(c)]) => {
                let idx: Vec<i64> = win
                    .ranges
                    .par_iter()
                    .map(|&(s, e)| if s == e { -1 } else if f == "first" { s as i64 } else { e as i64 - 1 })
                    .collect();
                return Ok(c.take(&idx));
            }
            (Some(f @ ("avg" | "count")), [Some(c)]) if c.ty.is_numeric() => return Ok(window_f64(f, &nan_f64(c), None, win)),
            (Some("count"), [Some(c)]) => {
                let v: Vec<i32> = win.ranges.par_iter().map(|&(s, e)| (s..e).filter(|&k| !c.is_null(k)).count() as i32).collect();
                return Ok(Column::from_vec(DataType::Int, v));
            }
            (Some("sum"), [Some(c)]) if c.ty.is_floating() => return Ok(window_f64("sum", &nan_f64(c), None, win)),
            // integers: exact prefix sums in i128, a LONG result (NULL outside LONG's range),
            // as the scalar sum (runtime/src/kernels/intacc.rs); DECIMAL takes the generic path
            (Some("sum"), [Some(c)]) if c.ty.is_integral() && c.ty.decimal_scale().is_none() => {
                let v = as_native::<i64>(c);
                let mut pre = Vec::with_capacity(v.len() + 1);
                let mut cnt = Vec::with_capacity(v.len() + 1);
                let (mut acc, mut n) = (0i128, 0u32);
                pre.push(acc);
                cnt.push(n);
                for &x in v.iter() {
                    if !x.is_null() {
                        acc += x as i128;
                        n += 1;
                    }
                    pre.push(acc);
                    cnt.push(n);
                }
                let out: Vec<i64> = win
                    .ranges
                    .iter()
                    .map(|&(s, e)| if cnt[e] == cnt[s] { i64::NULL } else { beluga_runtime::kernels::intacc::to_long(pre[e] - pre[s]) })
                    .collect();
                return Ok(Column::from_vec(DataType::Long, out));
            }
            (Some("wavg"), [Some(x), Some(w)]) if x.ty.is_numeric() && w.ty.is_numeric() => {
                return Ok(window_f64("wavg", &nan_f64(x), Some(&nan_f64(w)), win))
            }
            (Some(f @ ("min" | "max")), [Some(c)]) if c.ty.is_floating() => {
                return Ok(c.take(&window_extreme(&as_native::<f64>(c), f == "max", win)));
            }
            (Some(f @ ("min" | "max")), [Some(c)]) if c.ty.is_integral() || c.ty.is_temporal() => {
                return Ok(c.take(&window_extreme(&as_native::<i64>(c), f == "max", win)));
            }
            _ => {}
        }
    }
    // generic: evaluate on each window's slice of the referenced columns
    let mut used = ahash::AHashSet::new();
    beluga_runtime::sql::names_in(e, &mut used);
    let refs: Vec<usize> = (0..names.len()).filter(|&k| used.contains(&names[k])).collect();
    let mut out = beluga_runtime::sql::ColBuilder::new();
    for &(s, en) in &win.ranges {
        i.check_interrupt()?;
        let mut scope = ahash::AHashMap::with_capacity(refs.len());
        for &k in &refs {
            scope.insert(names[k].clone(), Value::Vector(cols[k].slice(s, en)));
        }
        let v = i.eval_with_columns(scope, e);
        out.push(&v?, 1, "a window aggregate")?;
    }
    out.finish()
}

fn window_join(i: &mut CallCtx, name: &str, a: &[Value], prevailing: bool) -> Result<Value> {
    let left = table_arg(i, name, &a[0])?;
    let right = table_arg(i, name, &a[1])?;
    let (lk, rk) = key_names(name, a, 4)?;
    let o = ordered_keys(name, &left, &right, &lk, &rk)?;
    let (w1, w2) = window_bounds(&a[2], o.ltime.ty)?;
    let lt = time_values(&o.ltime)?;
    let rt = time_values(&o.rtime)?;
    let win = if w1 == 0 && w2 == 0 && !prevailing {
        previous_windows(&o.lids, &lt, &o.rids, &rt, o.n)
    } else {
        window_rows(&o.lids, &lt, &o.rids, &rt, o.n, w1, w2, prevailing)
    };
    let aggs = agg_list(&a[3])?;
    // only the right columns the aggregates name are laid out in window order
    let mut used = ahash::AHashSet::new();
    for (e, _) in &aggs {
        beluga_runtime::sql::names_in(e, &mut used);
    }
    let refs: Vec<usize> = (0..right.ncols()).filter(|&k| used.contains(&right.names[k])).collect();
    let names: Vec<String> = refs.iter().map(|&k| right.names[k].clone()).collect();
    let cols: Vec<Column> = refs.par_iter().map(|&k| right.cols[k].take_usize(&win.rows)).collect();
    let mut t = (*left).clone();
    t.name = None;
    for (e, n) in &aggs {
        let c = window_agg(i, e, &names, &cols, &win)?;
        t.set_column(n, c)?;
    }
    Ok(Value::table(t))
}

pub(super) fn wj(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    window_join(i, "wj", &a, false)
}

pub(super) fn pwj(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    window_join(i, "pwj", &a, true)
}
