//! Moving functions that are not a plain window state: mavg with a weight vector,
//! mmaxPositiveStreak, movingWindowData/Index, movingTopNIndex.
//!
//! Array vectors are not available in the runtime yet: functions that return one per row
//! (movingWindowData, movingWindowIndex, movingTopNIndex, tmovingWindowData) return a tuple
//! with one vector per row instead.

use crate::window::{check_num, opt_bool, opt_str, win_spec, Bounds, Prep, Slice, WinLen};
use crate::window_order::{cmp_native, Fenwick};
use beluga_runtime::column::{ArrayVec, Column};
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Error, Result, Value};
use std::collections::VecDeque;
use std::sync::Arc;

/// `mavg(X, weights)`: weighted average over the last size(weights) rows; nulls drop out with
/// their weights; the first size(weights)-1 rows are null. O(n·w) by nature.
pub fn p_mavg_weights<'a>(a: &'a [Value], w: &Column) -> Result<Prep<'a>> {
    let weights: Vec<f64> = (0..w.len()).map(|i| w.f64_at(i).unwrap_or(f64::NAN)).collect();
    if weights.is_empty() || weights.len() > 1024 || weights.iter().any(|x| x.is_nan()) {
        return Err(Error::arg("The weights of [mavg] must be a non-empty numeric vector of at most 1024 non-null values"));
    }
    Ok(Prep::new(
        "mavg",
        vec![a[0].clone()],
        Box::new(move |s: &[Slice]| {
            let x = &s[0];
            check_num("mavg", x, false)?;
            let v = x.f64s();
            let k = weights.len();
            let mut out = vec![f64::NULL; v.len()];
            for i in (k - 1)..v.len() {
                let (mut num, mut den) = (0.0, 0.0);
                for (j, wt) in weights.iter().enumerate() {
                    let xv = v[i + 1 - k + j];
                    if !xv.is_nan() {
                        num += xv * wt;
                        den += wt;
                    }
                }
                if den != 0.0 {
                    out[i] = f64::from_f64(num / den);
                }
            }
            Ok(vec![Column::from_vec(DataType::Double, out)])
        }),
    ))
}

/// Largest sum of consecutive positive values within each count window (nulls break a run).
pub fn max_positive_streak(v: &[f64], w: usize) -> Vec<f64> {
    let n = v.len();
    let pos: Vec<bool> = v.iter().map(|&x| !x.is_nan() && x > 0.0).collect();
    // prefix sums of positive values, run starts/ends, run sums ending at each row
    let mut pre = vec![0.0; n + 1];
    let mut st = vec![0usize; n];
    let mut run = vec![0.0; n];
    for i in 0..n {
        pre[i + 1] = pre[i] + if pos[i] { v[i] } else { 0.0 };
        if pos[i] {
            st[i] = if i > 0 && pos[i - 1] { st[i - 1] } else { i };
            run[i] = pre[i + 1] - pre[st[i]];
        }
    }
    let mut end = vec![0usize; n];
    for i in (0..n).rev() {
        if pos[i] {
            end[i] = if i + 1 < n && pos[i + 1] { end[i + 1] } else { i };
        }
    }
    let mut out = vec![f64::NULL; n];
    let mut q: VecDeque<usize> = VecDeque::new();
    for b in 0..n {
        while let Some(&j) = q.back() {
            if run[j] <= run[b] {
                q.pop_back();
            } else {
                break;
            }
        }
        q.push_back(b);
        if b + 1 < w {
            continue;
        }
        let a = b + 1 - w;
        // the run that starts before the window is truncated at its left edge
        let (crossing, after) = if pos[a] && st[a] < a { (pre[end[a].min(b) + 1] - pre[a], end[a] + 1) } else { (0.0, a) };
        while let Some(&j) = q.front() {
            if j < after {
                q.pop_front();
            } else {
                break;
            }
        }
        let inner = q.front().map(|&j| run[j]).unwrap_or(0.0);
        out[b] = crossing.max(inner).max(0.0);
    }
    out
}

pub fn p_mmax_positive_streak(a: &[Value]) -> Result<Prep<'_>> {
    let spec = win_spec("mmaxPositiveStreak", a.get(1).unwrap_or(&Value::Void), None)?;
    let w = spec.rows("mmaxPositiveStreak")?;
    Ok(Prep::new(
        "mmaxPositiveStreak",
        vec![a[0].clone()],
        Box::new(move |s: &[Slice]| {
            let x = &s[0];
            check_num("mmaxPositiveStreak", x, false)?;
            let r = max_positive_streak(&x.f64s(), w);
            Ok(vec![if x.ty().is_floating() {
                Column::from_vec(DataType::Double, r)
            } else {
                let ty = crate::window::sum_type(x.ty());
                crate::window_kernels::long_or_int(ty, r.iter().map(|&f| if f.is_null() { i64::NULL } else { f as i64 }).collect())
            }])
        }),
    ))
}

/// Rows of a tuple result: one vector per window, built from the column by row indexes.
/// One window per row: an array vector of X's element type (funcs/t/tmovingWindowData.md,
/// movingWindowData/movingWindowIndex); types an array vector cannot hold stay a tuple.
fn tuple_of_rows(col: &Column, rows: &[Vec<i64>]) -> Value {
    if col.ty.is_literal() || col.as_array().is_some() {
        return Value::tuple(rows.iter().map(|r| Value::Vector(col.take(r))).collect());
    }
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0);
    let mut flat = Vec::with_capacity(rows.iter().map(|r| r.len()).sum());
    for r in rows {
        flat.extend_from_slice(r);
        offsets.push(flat.len());
    }
    Value::ArrayVector(Arc::new(ArrayVec::new(offsets, col.take(&flat))))
}

/// Index lists of each window; with `fixed`, padded at the front with -1 (null) to `w`.
fn window_rows(b: &Bounds, n: usize, w: usize, fixed: bool) -> Vec<Vec<i64>> {
    (0..n)
        .map(|i| {
            let s = b.start(i).min(i);
            let mut r: Vec<i64> = Vec::with_capacity(w.min(i + 1));
            if fixed {
                r.extend(std::iter::repeat(-1).take(w.saturating_sub(i + 1 - s)));
            }
            r.extend((s..=i).map(|j| j as i64));
            r
        })
        .collect()
}

/// movingWindowData / movingWindowIndex(X, window, [fixed=false]).
pub fn moving_window(a: &[Value], index: bool, name: &str) -> Result<Value> {
    let spec = win_spec(name, a.get(1).unwrap_or(&Value::Void), None)?;
    let w = spec.rows(name)?;
    let fixed = opt_bool(name, a, 2, "fixed", false)?;
    let n = a[0].size();
    // fixed windows are padded to `w` entries per row: refuse sizes no memory holds
    if fixed && (w as u128) * (n as u128) > 2_000_000_000 {
        return Err(Error::arg(format!("{name}: window {w} over {n} rows is too large")));
    }
    let rows = window_rows(&Bounds::Count(w), n, w, fixed);
    window_rows_value(&a[0], &rows, index, name)
}

/// Turn window index lists into the result value (data of X, or the indexes themselves).
pub fn window_rows_value(x: &Value, rows: &[Vec<i64>], index: bool, name: &str) -> Result<Value> {
    if index {
        let idx = Column::from_vec(DataType::Int, (0..x.size() as i32).collect::<Vec<i32>>());
        return Ok(tuple_of_rows(&idx, rows));
    }
    match x {
        Value::Vector(c) => Ok(tuple_of_rows(c, rows)),
        Value::Tuple(items) => Ok(Value::tuple(
            rows.iter()
                .map(|r| {
                    Value::tuple(
                        r.iter()
                            .map(|&j| if j >= 0 { items[j as usize].clone() } else { Value::Void })
                            .collect(),
                    )
                })
                .collect(),
        )),
        other => Err(Error::unsupported(name, crate::util::describe(other))),
    }
}

/// Time windows for tmovingWindowData(T, X, window).
pub fn time_window_rows(name: &str, t: &Column, w: &WinLen) -> Result<Vec<Vec<i64>>> {
    let b = crate::window::time_bounds(name, &Slice::whole(t), w)?;
    Ok(window_rows(&b, t.len(), 0, false))
}

/// movingTopNIndex(X, window, top, [ascending=true], [fixed=false], [tiesMethod='oldest']).
pub fn moving_top_n_index(a: &[Value]) -> Result<Value> {
    let name = "movingTopNIndex";
    let x = match &a[0] {
        Value::Vector(c) => c,
        other => return Err(Error::unsupported(name, crate::util::describe(other))),
    };
    let w = win_spec(name, a.get(1).unwrap_or(&Value::Void), None)?.rows(name)?;
    let top = a.get(2).and_then(|v| v.as_i64()).filter(|&t| t >= 1).ok_or_else(|| {
        Error::arg(format!("The top argument of [{name}] must be a positive integer"))
    })? as usize;
    let asc = opt_bool(name, a, 3, "ascending", true)?;
    let fixed = opt_bool(name, a, 4, "fixed", false)?;
    let latest = match opt_str(name, a, 5, "tiesMethod", "oldest")? {
        "oldest" => false,
        "latest" => true,
        _ => return Err(Error::arg(format!("The tiesMethod argument of [{name}] must be 'oldest' or 'latest'"))),
    };
    let s = Slice::whole(x);
    check_num(name, &s, true)?;
    let n = x.len();
    // order of the non-null elements: by value, ties by position
    let order: Vec<usize> = with_slice!(s, v => {
        let mut idx: Vec<usize> = (0..n).filter(|&i| !v[i].is_null()).collect();
        idx.sort_by(|&p, &q| {
            let c = cmp_native(v[p], v[q]);
            let c = if asc { c } else { c.reverse() };
            c.then(if latest { q.cmp(&p) } else { p.cmp(&q) })
        });
        idx
    })
    .ok_or_else(|| Error::unsupported(name, x.ty))?;
    let mut pos = vec![usize::MAX; n];
    for (r, &i) in order.iter().enumerate() {
        pos[i] = r;
    }
    let mut bit = Fenwick::new(order.len());
    let mut present = 0i64;
    let mut rows: Vec<Vec<i64>> = Vec::with_capacity(n);
    for i in 0..n {
        if pos[i] != usize::MAX {
            bit.add(pos[i], 1);
            present += 1;
        }
        if i >= w && pos[i - w] != usize::MAX {
            bit.add(pos[i - w], -1);
            present -= 1;
        }
        let k = (top as i64).min(present);
        let mut r: Vec<i64> = Vec::with_capacity(top.min(n));
        // a fixed row is padded to `top` entries: refuse a padding no memory holds
        if fixed && (top as u128) * (n as u128) > 2_000_000_000 {
            return Err(Error::arg(format!("{name}: top {top} over {n} rows is too large")));
        }
        if fixed {
            r.extend(std::iter::repeat(-1).take(top - k as usize));
        }
        r.extend((0..k).map(|j| order[bit.kth(j)] as i64));
        rows.push(r);
    }
    let idx = Column::from_vec(DataType::Int, (0..n as i32).collect::<Vec<i32>>());
    Ok(tuple_of_rows(&idx, &rows))
}
