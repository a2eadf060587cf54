//! Builtins: decompositions of tables and series (pca, stl) and the differential evolution
//! optimiser (differentialEvolution).

use beluga_runtime::CallCtx;
use crate::util::{col, describe, f64s, int_arg, opt};
use beluga_runtime::column::Column;
use beluga_runtime::eval::build_dict_pub;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

fn dvec(v: Vec<f64>) -> Value {
    Value::Vector(Column::from_vec(DataType::Double, v))
}

fn dict(pairs: Vec<(&str, Value)>) -> Result<Value> {
    let keys: Vec<Value> = pairs.iter().map(|(k, _)| Value::string(k)).collect();
    let vals: Vec<Value> = pairs.into_iter().map(|(_, v)| v).collect();
    build_dict_pub(&keys, vals, true)
}

// ------------------------------------------------------------------ pca

/// Numeric columns of a table, matrix or tuple of tables, with their names.
fn data_columns(name: &str, v: &Value, names: Option<&Value>) -> Result<(Vec<String>, Vec<Vec<f64>>)> {
    match v {
        Value::Table(t) => {
            let wanted: Vec<String> = match names {
                Some(n) => crate::table::names_arg(name, n)?,
                None => t.names.clone(),
            };
            let mut cols = Vec::with_capacity(wanted.len());
            for n in &wanted {
                let c = t.column(n).ok_or_else(|| Error::name(format!("Unrecognized column name [{n}]")))?;
                if !c.ty.is_numeric() {
                    return Err(Error::unsupported(name, c.ty));
                }
                cols.push(f64s(c));
            }
            Ok((wanted, cols))
        }
        Value::Matrix(m) => Ok(((0..m.cols).map(|c| format!("col{c}")).collect(), (0..m.cols).map(|c| f64s(&m.column(c))).collect())),
        Value::Tuple(parts) => {
            // several data sources: their rows are stacked
            let mut out: Option<(Vec<String>, Vec<Vec<f64>>)> = None;
            for p in parts.iter() {
                let (n, c) = data_columns(name, p, names)?;
                match &mut out {
                    None => out = Some((n, c)),
                    Some((_, acc)) => {
                        for (a, b) in acc.iter_mut().zip(c) {
                            a.extend(b);
                        }
                    }
                }
            }
            out.ok_or_else(|| Error::arg(format!("[{name}] needs at least one data source")))
        }
        other => Err(Error::unsupported(name, describe(other))),
    }
}

fn pca(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (_, mut cols) = data_columns("pca", &args[0], opt(&args, 1))?;
    let p = cols.len();
    let k = match opt(&args, 2) {
        Some(v) => int_arg("pca", v, "k")?.clamp(1, p as i64) as usize,
        None => p,
    };
    let normalize = opt(&args, 3).and_then(|v| v.as_bool()).unwrap_or(false);
    // rows with a null in any column are left out
    let n_all = cols.first().map(|c| c.len()).unwrap_or(0);
    let keep: Vec<usize> = (0..n_all).filter(|&r| cols.iter().all(|c| !c[r].is_nan())).collect();
    for c in cols.iter_mut() {
        *c = keep.iter().map(|&r| c[r]).collect();
    }
    let n = keep.len();
    if n < 2 {
        return Err(Error::arg("[pca] needs at least two complete rows"));
    }
    for c in cols.iter_mut() {
        let mean = c.iter().sum::<f64>() / n as f64;
        c.iter_mut().for_each(|x| *x -= mean);
        if normalize {
            let sd = (c.iter().map(|x| x * x).sum::<f64>() / (n - 1) as f64).sqrt();
            if sd > 0.0 {
                c.iter_mut().for_each(|x| *x /= sd);
            }
        }
    }
    let mut cov = vec![0.0; p * p];
    for a in 0..p {
        for b in a..p {
            let s: f64 = cols[a].iter().zip(&cols[b]).map(|(x, y)| x * y).sum::<f64>() / (n - 1) as f64;
            cov[a * p + b] = s;
            cov[b * p + a] = s;
        }
    }
    // `cov` is symmetric, so row- and column-major agree; eigenvector j is column j
    let (vals, vecs) = crate::linalg::decomp::sym_eig(&cov, p);
    let mut order: Vec<usize> = (0..p).collect();
    order.sort_by(|&a, &b| vals[b].partial_cmp(&vals[a]).unwrap_or(std::cmp::Ordering::Equal));
    let total: f64 = vals.iter().map(|v| v.max(0.0)).sum();
    // `components` holds one principal axis per row (k × p): the layout of funcs/p/pca.md's
    // example, whose printed matrix is the axes as rows. The sign of an axis is not defined
    // by the decomposition; each axis has its largest-magnitude loading negative, which gives
    // that example's signs.
    let mut axes: Vec<Vec<f64>> = Vec::with_capacity(k);
    let mut ratio = Vec::with_capacity(k);
    let mut sing = Vec::with_capacity(k);
    for &j in order.iter().take(k) {
        let mut v: Vec<f64> = vecs[j * p..(j + 1) * p].to_vec();
        let big = v.iter().copied().fold(0.0f64, |m, x| if x.abs() > m.abs() { x } else { m });
        if big > 0.0 {
            v.iter_mut().for_each(|x| *x = -*x);
        }
        axes.push(v);
        let lam = vals[j].max(0.0);
        ratio.push(if total > 0.0 { lam / total } else { 0.0 });
        sing.push((lam * (n - 1) as f64).sqrt());
    }
    let comp: Vec<f64> = (0..p).flat_map(|c| axes.iter().map(move |a| a[c])).collect();
    let components = Value::Matrix(Arc::new(Matrix { data: Column::from_vec(DataType::Double, comp), rows: k, cols: p, row_labels: None, col_labels: None, indexed: false }));
    dict(vec![("components", components), ("explainedVarianceRatio", dvec(ratio)), ("singularValues", dvec(sing))])
}

// ------------------------------------------------------------------ stl

/// Loess estimate at position `x` (1-based) from `y` over positions `nleft..=nright` (1-based).
#[allow(clippy::too_many_arguments)]
fn loess_est(y: &[f64], n: usize, q: usize, degree: usize, x: f64, nleft: usize, nright: usize, rw: Option<&[f64]>) -> Option<f64> {
    let range = n as f64 - 1.0;
    let mut h = (x - nleft as f64).max(nright as f64 - x);
    if q > n {
        h += ((q - n) / 2) as f64;
    }
    let (h9, h1) = (0.999 * h, 0.001 * h);
    let mut w = vec![0.0; nright - nleft + 1];
    let mut a = 0.0;
    for j in nleft..=nright {
        let r = (j as f64 - x).abs();
        let wj = if r <= h9 {
            let base = if r <= h1 { 1.0 } else { (1.0 - (r / h).powi(3)).powi(3) };
            base * rw.map(|r| r[j - 1]).unwrap_or(1.0)
        } else {
            0.0
        };
        w[j - nleft] = wj;
        a += wj;
    }
    if a <= 0.0 {
        return None;
    }
    w.iter_mut().for_each(|v| *v /= a);
    if h > 0.0 && degree > 0 {
        let a: f64 = (nleft..=nright).map(|j| w[j - nleft] * j as f64).sum();
        let b = x - a;
        let c: f64 = (nleft..=nright).map(|j| w[j - nleft] * (j as f64 - a).powi(2)).sum();
        if c.sqrt() > 0.001 * range {
            let b = b / c;
            for j in nleft..=nright {
                w[j - nleft] *= b * (j as f64 - a) + 1.0;
            }
        }
    }
    Some((nleft..=nright).map(|j| w[j - nleft] * y[j - 1]).sum())
}

/// Loess smoothing of a whole series (window q, odd; degree 0 or 1).
fn loess(y: &[f64], q: usize, degree: usize, rw: Option<&[f64]>) -> Vec<f64> {
    let n = y.len();
    if n < 2 {
        return y.to_vec();
    }
    let half = q.min(n) / 2;
    (1..=n)
        .map(|i| {
            let (mut left, mut right) = (1usize, n);
            if q < n {
                left = i.saturating_sub(half).max(1);
                right = left + q - 1;
                if right > n {
                    right = n;
                    left = n + 1 - q;
                }
            }
            loess_est(y, n, q, degree, i as f64, left, right, rw).unwrap_or(y[i - 1])
        })
        .collect()
}

fn moving_avg(x: &[f64], len: usize) -> Vec<f64> {
    if x.len() < len || len == 0 {
        return vec![];
    }
    let mut out = Vec::with_capacity(x.len() - len + 1);
    let mut s: f64 = x[..len].iter().sum();
    out.push(s / len as f64);
    for k in len..x.len() {
        s += x[k] - x[k - len];
        out.push(s / len as f64);
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn stl_core(y: &[f64], np: usize, ns: usize, isdeg: usize, nt: usize, itdeg: usize, nl: usize, ildeg: usize, inner: usize, outer: usize) -> (Vec<f64>, Vec<f64>) {
    let n = y.len();
    let mut trend = vec![0.0; n];
    let mut season = vec![0.0; n];
    let mut rw: Option<Vec<f64>> = None;
    for pass in 0..=outer {
        for _ in 0..inner {
            let detr: Vec<f64> = y.iter().zip(&trend).map(|(a, b)| a - b).collect();
            // cycle-subseries smoothing, extended by one period at each end
            let mut c = vec![0.0; n + 2 * np];
            for j in 0..np {
                let idx: Vec<usize> = (j..n).step_by(np).collect();
                let sub: Vec<f64> = idx.iter().map(|&k| detr[k]).collect();
                let sw: Option<Vec<f64>> = rw.as_ref().map(|r| idx.iter().map(|&k| r[k]).collect());
                let m = sub.len();
                if m == 0 {
                    continue;
                }
                let sm = loess(&sub, ns, isdeg, sw.as_deref());
                let q = ns.min(m);
                let before = loess_est(&sub, m, ns, isdeg, 0.0, 1, q, sw.as_deref()).unwrap_or(sm[0]);
                let after = loess_est(&sub, m, ns, isdeg, (m + 1) as f64, m + 1 - q, m, sw.as_deref()).unwrap_or(sm[m - 1]);
                c[j] = before;
                for (t, v) in sm.iter().enumerate() {
                    c[np + j + t * np] = *v;
                }
                let last = np + j + m * np;
                if last < c.len() {
                    c[last] = after;
                }
            }
            // low-pass filter of the cycle-subseries
            let l1 = moving_avg(&c, np);
            let l2 = moving_avg(&l1, np);
            let l3 = moving_avg(&l2, 3);
            let low = if l3.len() == n { loess(&l3, nl, ildeg, None) } else { vec![0.0; n] };
            for k in 0..n {
                season[k] = c[np + k] - low[k];
            }
            let deseason: Vec<f64> = y.iter().zip(&season).map(|(a, b)| a - b).collect();
            trend = loess(&deseason, nt, itdeg, rw.as_deref());
        }
        if pass == outer {
            break;
        }
        // robustness weights from the residuals
        let resid: Vec<f64> = (0..n).map(|k| (y[k] - season[k] - trend[k]).abs()).collect();
        let mut sorted = resid.clone();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        let med = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
        let h = 6.0 * med;
        rw = Some(
            resid
                .iter()
                .map(|&r| {
                    let u = if h > 0.0 { r / h } else { 0.0 };
                    if u <= 0.001 { 1.0 } else if u <= 0.999 { (1.0 - u * u).powi(2) } else { 0.0 }
                })
                .collect(),
        );
    }
    (trend, season)
}

fn next_odd(x: f64) -> usize {
    let k = x.ceil().max(3.0) as usize;
    if k % 2 == 0 { k + 1 } else { k }
}

fn stl(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let data = col("stl", &args[0])?;
    if !data.ty.is_numeric() {
        return Err(Error::unsupported("stl", data.ty));
    }
    let y = f64s(&data);
    if y.iter().any(|v| v.is_nan()) {
        return Err(Error::arg("The data of [stl] must not contain null values"));
    }
    let np = int_arg("stl", &args[1], "period")?;
    if np < 2 || (np as usize) * 2 > y.len() {
        return Err(Error::arg("The period of [stl] must be at least 2 and at most half the data length"));
    }
    let np = np as usize;
    let periodic = matches!(&args[2], Value::Scalar(c) if c.ty.is_literal());
    let (ns, sdeg_default) = if periodic {
        (10 * y.len() + 1, 0)
    } else {
        let s = int_arg("stl", &args[2], "sWindow")?;
        if s < 3 {
            return Err(Error::arg("The sWindow of [stl] must be an odd integer of at least 3, or \"periodic\""));
        }
        (next_odd(s as f64), 0)
    };
    let num = |k: usize, default: usize| -> Result<usize> {
        match opt(&args, k) {
            Some(v) => Ok(int_arg("stl", v, "window")?.max(0) as usize),
            None => Ok(default),
        }
    };
    let isdeg = num(3, sdeg_default)?.min(1);
    let tdeg = num(6, 1)?.min(1);
    let nt = match opt(&args, 5) {
        Some(v) => next_odd(int_arg("stl", v, "tWindow")? as f64),
        None => next_odd(1.5 * np as f64 / (1.0 - 1.5 / ns as f64)),
    };
    let nl = match opt(&args, 8) {
        Some(v) => next_odd(int_arg("stl", v, "lWindow")? as f64),
        None => next_odd(np as f64),
    };
    let ldeg = num(9, tdeg)?.min(1);
    let robust = opt(&args, 11).and_then(|v| v.as_bool()).unwrap_or(false);
    let inner = num(12, if robust { 1 } else { 2 })?.max(1);
    let outer = num(13, if robust { 15 } else { 0 })?;
    let (trend, mut season) = stl_core(&y, np, ns, isdeg, nt, tdeg, nl, ldeg, inner, outer);
    if periodic {
        // a periodic seasonal component is the mean of each cycle position
        for j in 0..np {
            let idx: Vec<usize> = (j..season.len()).step_by(np).collect();
            let m = idx.iter().map(|&k| season[k]).sum::<f64>() / idx.len().max(1) as f64;
            idx.iter().for_each(|&k| season[k] = m);
        }
    }
    let resid: Vec<f64> = (0..y.len()).map(|k| y[k] - season[k] - trend[k]).collect();
    dict(vec![("trend", dvec(trend)), ("seasonal", dvec(season)), ("residual", dvec(resid))])
}

// ------------------------------------------------------------------ differentialEvolution

fn uniform(i: &mut CallCtx) -> f64 {
    (i.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn differential_evolution(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let f = args[0].clone();
    let bounds: Vec<(f64, f64)> = match &args[1] {
        Value::Matrix(m) if m.cols == 2 => (0..m.rows).map(|r| (m.data.f64_at(r).unwrap_or(f64::NAN), m.data.f64_at(m.rows + r).unwrap_or(f64::NAN))).collect(),
        Value::Tuple(items) => items
            .iter()
            .map(|v| {
                let c = col("differentialEvolution", v)?;
                if c.len() != 2 {
                    return Err(Error::arg("Each bound of [differentialEvolution] must be a (min, max) pair"));
                }
                Ok((c.f64_at(0).unwrap_or(f64::NAN), c.f64_at(1).unwrap_or(f64::NAN)))
            })
            .collect::<Result<_>>()?,
        other => return Err(Error::arg(format!("The bounds of [differentialEvolution] must be an N×2 matrix, not {}", describe(other)))),
    };
    if bounds.is_empty() || bounds.iter().any(|(a, b)| !(a.is_finite() && b.is_finite()) || a > b) {
        return Err(Error::arg("The bounds of [differentialEvolution] must be finite (min, max) rows with min <= max"));
    }
    let dim = bounds.len();
    let x0 = opt(&args, 2).map(|v| col("differentialEvolution", v).map(|c| f64s(&c))).transpose()?;
    let max_iter = opt(&args, 3).map(|v| int_arg("differentialEvolution", v, "maxIter")).transpose()?.unwrap_or(1000).max(0) as usize;
    let pop_mult = opt(&args, 4).map(|v| int_arg("differentialEvolution", v, "popSize")).transpose()?.unwrap_or(15).max(1) as usize;
    let (mut_lo, mut_hi) = match opt(&args, 5) {
        Some(v) => {
            let c = col("differentialEvolution", v)?;
            (c.f64_at(0).unwrap_or(0.5), c.f64_at(c.len().saturating_sub(1)).unwrap_or(1.0))
        }
        None => (0.5, 1.0),
    };
    let cr = opt(&args, 6).and_then(|v| v.as_f64()).unwrap_or(0.7);
    let tol = opt(&args, 7).and_then(|v| v.as_f64()).unwrap_or(0.01);
    let atol = opt(&args, 8).and_then(|v| v.as_f64()).unwrap_or(0.0);
    if let Some(seed) = opt(&args, 10).and_then(|v| v.as_i64()) {
        *i.rng() = (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    }
    let free = bounds.iter().filter(|(a, b)| a != b).count().max(1);
    let np = (pop_mult * free).max(5);
    let mut fcalls = 0usize;
    let eval = |i: &mut CallCtx, x: &[f64], fcalls: &mut usize| -> Result<f64> {
        *fcalls += 1;
        let r = i.call_value(&f, vec![dvec(x.to_vec())])?;
        r.as_f64().ok_or_else(|| Error::arg("The function of [differentialEvolution] must return a numeric scalar"))
    };
    // initial population: uniform in the bounds (x0 replaces the first member)
    let mut pop: Vec<Vec<f64>> = Vec::with_capacity(np);
    for k in 0..np {
        let x: Vec<f64> = match (&x0, k) {
            (Some(x0), 0) if x0.len() == dim => x0.clone(),
            _ => bounds.iter().map(|(a, b)| a + (b - a) * uniform(i)).collect(),
        };
        pop.push(x);
    }
    let mut energy: Vec<f64> = Vec::with_capacity(np);
    for x in &pop {
        energy.push(eval(i, x, &mut fcalls)?);
    }
    let mut iterations = 0usize;
    let mut converged = false;
    for _ in 0..max_iter {
        i.check_interrupt()?;
        iterations += 1;
        let best = (0..np).min_by(|&a, &b| energy[a].partial_cmp(&energy[b]).unwrap_or(std::cmp::Ordering::Equal)).unwrap_or(0);
        let scale = mut_lo + (mut_hi - mut_lo) * uniform(i);
        for t in 0..np {
            // best/1/bin: best + F (r1 - r2), binomial crossover
            let mut pick = || loop {
                let r = (i.next_u64() % np as u64) as usize;
                if r != t {
                    break r;
                }
            };
            let (r1, r2) = (pick(), pick());
            let fill = (i.next_u64() % dim as u64) as usize;
            let mut trial = pop[t].clone();
            for d in 0..dim {
                if d == fill || uniform(i) < cr {
                    let v = pop[best][d] + scale * (pop[r1][d] - pop[r2][d]);
                    let (lo, hi) = bounds[d];
                    trial[d] = if v < lo || v > hi { lo + (hi - lo) * uniform(i) } else { v };
                }
            }
            let e = eval(i, &trial, &mut fcalls)?;
            if e <= energy[t] {
                pop[t] = trial;
                energy[t] = e;
            }
        }
        let mean = energy.iter().sum::<f64>() / np as f64;
        let sd = (energy.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / np as f64).sqrt();
        if sd <= atol + tol * mean.abs() {
            converged = true;
            break;
        }
    }
    let best = (0..np).min_by(|&a, &b| energy[a].partial_cmp(&energy[b]).unwrap_or(std::cmp::Ordering::Equal)).unwrap_or(0);
    dict(vec![
        ("xopt", dvec(pop[best].clone())),
        ("fopt", Value::double(energy[best])),
        ("iterations", Value::int(iterations as i32)),
        ("fcalls", Value::int(fcalls as i32)),
        ("converged", Value::bool(converged)),
    ])
}

pub const DEFS: &[Builtin] = &[
    fp(
        "differentialEvolution",
        Kind::System,
        2,
        11,
        differential_evolution,
        &["func", "bounds", "X0", "maxIter", "popSize", "mutation", "recombination", "tol", "atol", "polish", "seed"],
    ),
    fp("pca", Kind::System, 1, 7, pca, &["X", "colNames", "k", "normalize", "maxIter", "svdSolver", "randomState"]),
    fp(
        "stl",
        Kind::System,
        3,
        14,
        stl,
        &["data", "period", "sWindow", "sDegree", "sJump", "tWindow", "tDegree", "tJump", "lWindow", "lDegree", "lJump", "robust", "inner", "outer"],
    ),
];
