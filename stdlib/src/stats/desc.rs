//! Descriptive summaries: crossStat, histogram, histogram2d, stat, summary.

use beluga_runtime::CallCtx;
use crate::agg_order::{quantile_of, Interp};
use crate::agg_stats::moments;
use crate::math_util::{bool_opt, dcol, dmat, dvec, is_num, need_num, str_dict, valid_f64, valid_pairs, vec_arg};
use crate::util::{col, opt, str_arg};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Table, Value};

/// `crossStat(X, Y)`: (count, sum X, sum Y, sum X², sum Y², sum XY) over pairs without nulls.
fn cross_stat(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = col("crossStat", &a[0])?;
    let y = col("crossStat", &a[1])?;
    if !is_num(x.ty) || !is_num(y.ty) {
        return Err(Error::unsupported("crossStat", if is_num(x.ty) { y.ty } else { x.ty }));
    }
    if x.len() != y.len() {
        return Err(Error::size("The two arguments of [crossStat] must have the same length"));
    }
    let (p, q) = valid_pairs(&x, &y);
    let s = |f: &dyn Fn(f64, f64) -> f64| Value::double(p.iter().zip(&q).map(|(a, b)| f(*a, *b)).sum());
    Ok(Value::tuple(vec![
        Value::int(p.len() as i32),
        s(&|a, _| a),
        s(&|_, b| b),
        s(&|a, _| a * a),
        s(&|_, b| b * b),
        s(&|a, b| a * b),
    ]))
}

/// Bin edges from `bins` (count or edges) and an optional range.
fn edges_of(name: &str, data: &[f64], bins: Option<&Value>, range: Option<(f64, f64)>) -> Result<Vec<f64>> {
    match bins {
        Some(v) if !v.is_scalar() => {
            let e = vec_arg(name, v)?;
            if e.len() < 2 || e.windows(2).any(|w| !(w[0] < w[1])) {
                return Err(Error::arg(format!("The bins of [{name}] must be strictly increasing")));
            }
            Ok(e)
        }
        other => {
            let k = match other {
                Some(v) => crate::util::int_arg(name, v, "bins")?,
                None => 10,
            };
            if k < 1 || k > 100_000_000 {
                return Err(Error::arg(format!("The bins of [{name}] must be a positive integer")));
            }
            let (mut lo, mut hi) = match range {
                Some(r) => r,
                None => (
                    data.iter().cloned().fold(f64::INFINITY, f64::min),
                    data.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                ),
            };
            if !lo.is_finite() {
                lo = 0.0;
                hi = 1.0;
            }
            if lo == hi {
                lo -= 0.5;
                hi += 0.5;
            }
            Ok((0..=k).map(|i| lo + (hi - lo) * i as f64 / k as f64).collect())
        }
    }
}

/// Bin index of v for edges (last bin closed on the right), or None.
fn bin_of(edges: &[f64], v: f64) -> Option<usize> {
    let n = edges.len() - 1;
    if v < edges[0] || v > edges[n] || v.is_nan() {
        return None;
    }
    if v == edges[n] {
        return Some(n - 1);
    }
    Some(edges.partition_point(|&e| e <= v) - 1)
}

fn range_arg(name: &str, a: &[Value], i: usize) -> Result<Option<(f64, f64)>> {
    match opt(a, i) {
        Some(v) => {
            let r = vec_arg(name, v)?;
            if r.len() != 2 || !(r[0] <= r[1]) {
                return Err(Error::arg(format!("The range of [{name}] must be a pair low:high")));
            }
            Ok(Some((r[0], r[1])))
        }
        None => Ok(None),
    }
}

/// `histogram(X, [bins=10], [range], [density=false], [weights])`.
fn histogram(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "histogram";
    let x = vec_arg(name, &a[0])?;
    let range = range_arg(name, &a, 2)?;
    let density = bool_opt(&a, 3, false);
    let w = match opt(&a, 4) {
        Some(v) => Some(vec_arg(name, v)?),
        None => None,
    };
    if let Some(w) = &w {
        if w.len() != x.len() {
            return Err(Error::size("The weights of [histogram] must have the same length as X"));
        }
    }
    let data: Vec<f64> = x.iter().copied().filter(|v| !v.is_nan()).collect();
    let edges = edges_of(name, &data, opt(&a, 1), range)?;
    let nb = edges.len() - 1;
    let mut h = vec![0.0; nb];
    for (k, &v) in x.iter().enumerate() {
        if let Some((lo, hi)) = range {
            if v < lo || v > hi {
                continue;
            }
        }
        if let Some(b) = bin_of(&edges, v) {
            h[b] += w.as_ref().map(|w| if w[k].is_nan() { 0.0 } else { w[k] }).unwrap_or(1.0);
        }
    }
    let hv = if density {
        let total: f64 = h.iter().sum();
        dvec(h.iter().enumerate().map(|(b, c)| c / total / (edges[b + 1] - edges[b])).collect())
    } else if w.is_some() {
        dvec(h)
    } else {
        Value::long_vec(h.iter().map(|c| *c as i64).collect())
    };
    str_dict(vec![("H", hv), ("edges", dvec(edges))])
}

/// `histogram2d(X, Y, [bins=10], [range], [density=false], [weights])`.
fn histogram2d(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "histogram2d";
    let x = vec_arg(name, &a[0])?;
    let y = vec_arg(name, &a[1])?;
    if x.len() != y.len() {
        return Err(Error::size("X and Y of [histogram2d] must have the same length"));
    }
    let (bx, by) = match opt(&a, 2) {
        Some(Value::Tuple(t)) if t.len() == 2 => (Some(t[0].clone()), Some(t[1].clone())),
        Some(v) => (Some(v.clone()), Some(v.clone())),
        None => (None, None),
    };
    let (rx, ry) = match opt(&a, 3) {
        Some(Value::Tuple(t)) if t.len() == 2 => {
            let r = |v: &Value| -> Result<(f64, f64)> {
                let p = vec_arg(name, v)?;
                if p.len() != 2 { Err(Error::arg("Each range of [histogram2d] must be a pair")) } else { Ok((p[0], p[1])) }
            };
            (Some(r(&t[0])?), Some(r(&t[1])?))
        }
        Some(_) => return Err(Error::arg("The range of [histogram2d] must be a tuple of two pairs")),
        None => (None, None),
    };
    let density = bool_opt(&a, 4, false);
    let w = match opt(&a, 5) {
        Some(v) => Some(vec_arg(name, v)?),
        None => None,
    };
    let (dx, dy): (Vec<f64>, Vec<f64>) = x.iter().zip(&y).filter(|(p, q)| !p.is_nan() && !q.is_nan()).map(|(p, q)| (*p, *q)).unzip();
    let ex = edges_of(name, &dx, bx.as_ref(), rx)?;
    let ey = edges_of(name, &dy, by.as_ref(), ry)?;
    let (nx, ny) = (ex.len() - 1, ey.len() - 1);
    let mut h = beluga_runtime::guard::vec_filled(0.0, beluga_runtime::guard::need2(nx, ny, 8)?)?;
    for k in 0..x.len() {
        if let (Some(i), Some(j)) = (bin_of(&ex, x[k]), bin_of(&ey, y[k])) {
            h[j * nx + i] += w.as_ref().map(|w| w[k]).unwrap_or(1.0);
        }
    }
    if density {
        let total: f64 = h.iter().sum();
        for i in 0..nx {
            for j in 0..ny {
                h[j * nx + i] /= total * (ex[i + 1] - ex[i]) * (ey[j + 1] - ey[j]);
            }
        }
    }
    str_dict(vec![("H", dmat(h, nx, ny)), ("xedges", dvec(ex)), ("yedges", dvec(ey))])
}

/// `stat(X)`: descriptive statistics of a vector (or all cells of a matrix) as a dictionary;
/// `Name` is the variable written at the call site (`stat(x)` ⇒ `x`).
fn stat(ctx: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = ctx.arg_name(0).unwrap_or("").to_string();
    let c = col("stat", &a[0])?;
    need_num("stat", &c)?;
    let m = moments(&c, 2);
    let mut v = valid_f64(&c);
    let med = quantile_of(&mut v, 0.5, Interp::Linear);
    let mn = crate::agg::min_col(&c)?;
    let mx = crate::agg::max_col(&c)?;
    let sd = if m.n > 1 { (m.m2 / (m.n as f64 - 1.0)).sqrt() } else { f64::NAN };
    str_dict(vec![
        ("Median", Value::double(med)),
        ("Avg", Value::double(if m.n > 0 { m.mean } else { f64::NAN })),
        ("Min", mn),
        ("Stdev", Value::double(sd)),
        ("Count", Value::int(m.n as i32)),
        ("Size", Value::int(c.len() as i32)),
        ("Name", Value::string(&name)),
        ("Max", mx),
    ])
}

/// `summary(X, [interpolation], [characteristic], [percentile], [precision])` for in-memory
/// tables: one row per numeric column. Percentiles are exact and returned as one DOUBLE column
/// per requested percentile (named like `25%`) instead of an array-vector column.
fn summary(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "summary";
    let t = match &a[0] {
        Value::Table(t) => t.clone(),
        other => return Err(crate::math_util::form_err(name, other)),
    };
    let how = match opt(&a, 1) {
        Some(v) => Interp::parse(name, str_arg(name, v, "interpolation")?)?,
        None => Interp::Linear,
    };
    let (mut want_avg, mut want_std) = (true, true);
    if let Some(v) = opt(&a, 2) {
        let c = col(name, v)?;
        let items: Vec<String> = (0..c.len()).map(|i| c.str_at(i).unwrap_or("").to_ascii_lowercase()).collect();
        want_avg = items.iter().any(|s| s == "avg");
        want_std = items.iter().any(|s| s == "std");
    }
    let mut pcts = match opt(&a, 3) {
        Some(v) => vec_arg(name, v)?,
        None => vec![25.0, 50.0, 75.0],
    };
    if pcts.iter().any(|p| p.is_nan() || !(0.0..=100.0).contains(p)) {
        return Err(Error::arg("The percentiles of [summary] must be between 0 and 100"));
    }
    pcts.sort_by(|x, y| x.total_cmp(y));
    let mut names: Vec<String> = Vec::new();
    let (mut mins, mut maxs, mut nn, mut cnt, mut avg, mut sd) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut pc: Vec<Vec<f64>> = vec![Vec::new(); pcts.len()];
    for (cn, c) in t.names.iter().zip(&t.cols) {
        if !c.ty.is_numeric() {
            continue;
        }
        names.push(cn.clone());
        let m = moments(c, 2);
        let mut v = valid_f64(c);
        mins.push(v.iter().cloned().fold(f64::INFINITY, f64::min));
        maxs.push(v.iter().cloned().fold(f64::NEG_INFINITY, f64::max));
        nn.push(m.n as i64);
        cnt.push(c.len() as i64);
        avg.push(if m.n > 0 { m.mean } else { f64::NAN });
        sd.push(if m.n > 1 { (m.m2 / (m.n as f64 - 1.0)).sqrt() } else { f64::NAN });
        for (k, p) in pcts.iter().enumerate() {
            pc[k].push(quantile_of(&mut v, p / 100.0, how));
        }
    }
    let mut cols_n: Vec<String> = vec!["name".into(), "min".into(), "max".into(), "nonNullCount".into(), "count".into()];
    let mut cols: Vec<Column> = vec![
        Column::new(DataType::String, ColData::Str(StrCol::from_iter(names.iter().map(|s| s.as_str())))),
        dcol(mins),
        dcol(maxs),
        Column::from_vec(DataType::Long, nn),
        Column::from_vec(DataType::Long, cnt),
    ];
    if want_avg {
        cols_n.push("avg".into());
        cols.push(dcol(avg));
    }
    if want_std {
        cols_n.push("std".into());
        cols.push(dcol(sd));
    }
    for (k, p) in pcts.iter().enumerate() {
        cols_n.push(format!("{}%", crate::math_util::trim_num(*p)));
        cols.push(dcol(std::mem::take(&mut pc[k])));
    }
    Ok(Value::table(Table::new(cols_n, cols)?))
}

pub const DEFS: &[Builtin] = &[
    fp("crossStat", Kind::System, 2, 2, cross_stat, &["X", "Y"]),
    fp("histogram", Kind::System, 1, 5, histogram, &["X", "bins", "range", "density", "weights"]),
    fp("histogram2d", Kind::System, 2, 6, histogram2d, &["X", "Y", "bins", "range", "density", "weights"]),
    fp("stat", Kind::System, 1, 1, stat, &["X"]),
    fp("summary", Kind::System, 1, 6, summary, &["X", "interpolation", "characteristic", "percentile", "precision", "partitionSampling"]),
];
