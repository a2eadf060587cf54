//! Correlation and distance: corr, covar, covarp, beta, corrMatrix, covarMatrix, kendall,
//! spearmanr, mutualInfo, autocorr, acf, cosine, euclidean, minkowski, tanimoto,
//! seuclidean, mahalanobis, distance. Pairs with a null on either side are skipped.

use beluga_runtime::CallCtx;
use crate::math_util::{aggregate2, dbl, dmat, dnull, dvec, f64_arg, is_num, mat_arg, valid_pairs, vec_arg};
use beluga_runtime::column::Column;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Key;
use beluga_runtime::{Error, Result, Value};

fn pair_check(name: &str, x: &Column, y: &Column) -> Result<()> {
    if !is_num(x.ty) || !is_num(y.ty) {
        return Err(Error::unsupported(name, if is_num(x.ty) { y.ty } else { x.ty }));
    }
    if x.len() != y.len() {
        return Err(Error::size(format!("The two arguments of [{name}] must have the same length")));
    }
    Ok(())
}

/// A row whose two values are not NULL and one is NaN or ±Infinity: corr, covar and beta
/// are then NaN, as numpy gives (a pair with a NULL is skipped; runtime/src/null.rs).
fn special_pair(x: &Column, y: &Column) -> bool {
    if !x.ty.is_floating() && !y.ty.is_floating() {
        return false;
    }
    let a = beluga_runtime::kernels::arith::as_native::<f64>(x);
    let b = beluga_runtime::kernels::arith::as_native::<f64>(y);
    (0..a.len().min(b.len())).any(|i| {
        !x.is_null_strict(i) && !y.is_null_strict(i) && (!a[i].is_finite() || !b[i].is_finite())
    })
}

/// Centred cross products of paired values: (n, sxx, syy, sxy).
fn centred(p: &[f64], q: &[f64]) -> (f64, f64, f64, f64) {
    let n = p.len() as f64;
    if p.is_empty() {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let mx = p.iter().sum::<f64>() / n;
    let my = q.iter().sum::<f64>() / n;
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for (a, b) in p.iter().zip(q) {
        let (dx, dy) = (a - mx, b - my);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    (n, sxx, syy, sxy)
}

/// Pearson correlation of paired slices (NaN when undefined).
pub fn pearson(p: &[f64], q: &[f64]) -> f64 {
    let (n, sxx, syy, sxy) = centred(p, q);
    if n < 2.0 || sxx == 0.0 || syy == 0.0 {
        return f64::NAN;
    }
    sxy / (sxx * syy).sqrt()
}

pub fn corr_col(x: &Column, y: &Column) -> Result<Value> {
    pair_check("corr", x, y)?;
    if special_pair(x, y) {
        return Ok(Value::double_ieee(f64::NAN, true));
    }
    let (p, q) = valid_pairs(x, y);
    Ok(dbl(pearson(&p, &q)))
}

pub fn covar_col(x: &Column, y: &Column, pop: bool) -> Result<Value> {
    pair_check(if pop { "covarp" } else { "covar" }, x, y)?;
    if special_pair(x, y) {
        return Ok(Value::double_ieee(f64::NAN, true));
    }
    let (p, q) = valid_pairs(x, y);
    let (n, _, _, sxy) = centred(&p, &q);
    let d = if pop { n } else { n - 1.0 };
    Ok(if d <= 0.0 { dnull() } else { dbl(sxy / d) })
}

/// `beta(Y, X)`: least-squares slope of Y on X = covar(X, Y) / var(X).
pub fn beta_col(y: &Column, x: &Column) -> Result<Value> {
    pair_check("beta", y, x)?;
    if special_pair(x, y) {
        return Ok(Value::double_ieee(f64::NAN, true));
    }
    let (q, p) = valid_pairs(y, x);
    let (n, sxx, _, sxy) = centred(&p, &q);
    Ok(if n < 2.0 || sxx == 0.0 { dnull() } else { dbl(sxy / sxx) })
}

fn corr(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("corr", &a[0], &a[1], &corr_col)
}
fn covar(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("covar", &a[0], &a[1], &|x, y| covar_col(x, y, false))
}
fn covarp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("covarp", &a[0], &a[1], &|x, y| covar_col(x, y, true))
}
fn beta(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("beta", &a[0], &a[1], &beta_col)
}

/// Pairwise statistic over the columns of a matrix (or table) → square DOUBLE matrix.
fn pairwise(name: &str, v: &Value, f: &dyn Fn(&[f64], &[f64]) -> f64) -> Result<Value> {
    let (data, rows, cols) = mat_arg(name, v)?;
    let mut out = vec![0.0; cols * cols];
    for i in 0..cols {
        for j in i..cols {
            let (mut p, mut q) = (Vec::with_capacity(rows), Vec::with_capacity(rows));
            for r in 0..rows {
                let (a, b) = (data[i * rows + r], data[j * rows + r]);
                if !a.is_nan() && !b.is_nan() {
                    p.push(a);
                    q.push(b);
                }
            }
            let s = f(&p, &q);
            out[j * cols + i] = s;
            out[i * cols + j] = s;
        }
    }
    let mut m = dmat(out, cols, cols);
    if let (Value::Table(t), Value::Matrix(mm)) = (v, &mut m) {
        let labels = Value::string_vec(t.names.iter().map(|s| s.as_str()));
        let mm = std::sync::Arc::make_mut(mm);
        mm.row_labels = Some(Box::new(labels.clone()));
        mm.col_labels = Some(Box::new(labels));
    }
    Ok(m)
}

fn corr_matrix(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    pairwise("corrMatrix", &a[0], &pearson)
}
fn covar_matrix(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    pairwise("covarMatrix", &a[0], &|p, q| {
        let (n, _, _, sxy) = centred(p, q);
        if n < 2.0 { f64::NAN } else { sxy / (n - 1.0) }
    })
}

// ------------------------------------------------------------------ rank correlations

/// Average ranks (1-based) of values, ties sharing their mean rank.
pub fn avg_ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = avg;
        }
        i = j + 1;
    }
    r
}

fn spearmanr(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("spearmanr", &a[0], &a[1], &|x, y| {
        pair_check("spearmanr", x, y)?;
        let (p, q) = valid_pairs(x, y);
        Ok(dbl(pearson(&avg_ranks(&p), &avg_ranks(&q))))
    })
}

/// Number of tied pairs among runs of equal values in a sorted sequence.
fn tie_pairs(sorted: impl Iterator<Item = f64>) -> f64 {
    let mut total = 0f64;
    let mut run = 0f64;
    let mut prev: Option<f64> = None;
    for v in sorted {
        if Some(v) == prev {
            run += 1.0;
        } else {
            total += run * (run - 1.0) / 2.0;
            run = 1.0;
            prev = Some(v);
        }
    }
    total + run * (run - 1.0) / 2.0
}

/// Merge sort counting inversions (swaps).
fn count_swaps(v: &mut [f64], buf: &mut Vec<f64>) -> f64 {
    let n = v.len();
    if n < 2 {
        return 0.0;
    }
    let mid = n / 2;
    let mut s = count_swaps(&mut v[..mid], buf) + count_swaps(&mut v[mid..], buf);
    buf.clear();
    let (mut i, mut j) = (0, mid);
    while i < mid && j < n {
        if v[j] < v[i] {
            buf.push(v[j]);
            s += (mid - i) as f64;
            j += 1;
        } else {
            buf.push(v[i]);
            i += 1;
        }
    }
    buf.extend_from_slice(&v[i..mid]);
    buf.extend_from_slice(&v[j..n]);
    v.copy_from_slice(buf);
    s
}

/// Kendall's tau-b in O(n log n) (Knight's algorithm).
pub fn kendall_tau(p: &[f64], q: &[f64]) -> f64 {
    let n = p.len();
    if n < 2 {
        return f64::NAN;
    }
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(q[a].total_cmp(&q[b])));
    let n1 = tie_pairs(idx.iter().map(|&i| p[i]));
    // joint ties: runs equal in both
    let mut n3 = 0f64;
    let mut run = 1f64;
    for w in idx.windows(2) {
        if p[w[0]] == p[w[1]] && q[w[0]] == q[w[1]] {
            run += 1.0;
        } else {
            n3 += run * (run - 1.0) / 2.0;
            run = 1.0;
        }
    }
    n3 += run * (run - 1.0) / 2.0;
    let mut ys: Vec<f64> = idx.iter().map(|&i| q[i]).collect();
    let mut buf = Vec::with_capacity(n);
    let swaps = count_swaps(&mut ys, &mut buf);
    let n2 = tie_pairs(ys.iter().copied());
    let n0 = (n * (n - 1)) as f64 / 2.0;
    let den = ((n0 - n1) * (n0 - n2)).sqrt();
    if den == 0.0 {
        return f64::NAN;
    }
    (n0 - n1 - n2 + n3 - 2.0 * swaps) / den
}

fn kendall(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("kendall", &a[0], &a[1], &|x, y| {
        pair_check("kendall", x, y)?;
        let (p, q) = valid_pairs(x, y);
        Ok(dbl(kendall_tau(&p, &q)))
    })
}

/// `mutualInfo(X, Y)`: mutual information (natural log) of two discrete variables; each
/// null is a distinct value.
fn mutual_info(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("mutualInfo", &a[0], &a[1], &|x, y| {
        if x.len() != y.len() {
            return Err(Error::size("The two arguments of [mutualInfo] must have the same length"));
        }
        let n = x.len();
        if n == 0 {
            return Ok(dnull());
        }
        let key = |c: &Column, i: usize| if c.is_null(i) { Key::B(-(i as i128) - 1) } else { Key::of(c, i) };
        let mut cx: ahash::AHashMap<Key, f64> = ahash::AHashMap::new();
        let mut cy: ahash::AHashMap<Key, f64> = ahash::AHashMap::new();
        let mut cxy: ahash::AHashMap<(Key, Key), f64> = ahash::AHashMap::new();
        for i in 0..n {
            let (kx, ky) = (key(x, i), key(y, i));
            *cx.entry(kx.clone()).or_insert(0.0) += 1.0;
            *cy.entry(ky.clone()).or_insert(0.0) += 1.0;
            *cxy.entry((kx, ky)).or_insert(0.0) += 1.0;
        }
        let nf = n as f64;
        let mut mi = 0.0;
        for ((kx, ky), c) in &cxy {
            let (px, py) = (cx[kx], cy[ky]);
            mi += c / nf * (nf * c / (px * py)).ln();
        }
        Ok(dbl(mi))
    })
}

// ------------------------------------------------------------------ autocorrelation

/// Autocorrelation at `lag` using the overall mean and variance of X.
fn autocorr_of(x: &[f64], lag: usize) -> f64 {
    let v: Vec<f64> = x.to_vec();
    let n = v.len();
    if n == 0 || lag >= n {
        return f64::NAN;
    }
    let valid: Vec<f64> = v.iter().copied().filter(|a| !a.is_nan()).collect();
    if valid.is_empty() {
        return f64::NAN;
    }
    let m = valid.iter().sum::<f64>() / valid.len() as f64;
    let den: f64 = valid.iter().map(|a| (a - m) * (a - m)).sum();
    let mut num = 0.0;
    for t in 0..n - lag {
        let (a, b) = (v[t], v[t + lag]);
        if !a.is_nan() && !b.is_nan() {
            num += (a - m) * (b - m);
        }
    }
    if den == 0.0 { f64::NAN } else { num / den }
}

fn autocorr(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = vec_arg("autocorr", &a[0])?;
    let lag = crate::util::int_arg("autocorr", &a[1], "lag")?;
    if lag < 0 {
        return Err(Error::arg("The lag of [autocorr] must be a non-negative integer"));
    }
    Ok(dbl(autocorr_of(&x, lag as usize)))
}

fn acf(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = vec_arg("acf", &a[0])?;
    let k = crate::util::int_arg("acf", &a[1], "maxLag")?;
    if k < 0 {
        return Err(Error::arg("The maxLag of [acf] must be a non-negative integer"));
    }
    let k = k.min(x.len() as i64);
    Ok(dvec((1..=k as usize).map(|l| autocorr_of(&x, l)).collect()))
}

// ------------------------------------------------------------------ distances

fn dist2(name: &'static str, a: &[Value], f: &dyn Fn(&[f64], &[f64]) -> f64) -> Result<Value> {
    aggregate2(name, &a[0], &a[1], &|x, y| {
        pair_check(name, x, y)?;
        let (p, q) = valid_pairs(x, y);
        if p.is_empty() {
            return Ok(dnull());
        }
        Ok(dbl(f(&p, &q)))
    })
}

fn cosine(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    dist2("cosine", &a, &|p, q| {
        let dot: f64 = p.iter().zip(q).map(|(a, b)| a * b).sum();
        let np: f64 = p.iter().map(|a| a * a).sum::<f64>().sqrt();
        let nq: f64 = q.iter().map(|a| a * a).sum::<f64>().sqrt();
        dot / (np * nq)
    })
}

fn euclidean(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    dist2("euclidean", &a, &|p, q| p.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt())
}

fn tanimoto(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    dist2("tanimoto", &a, &|p, q| {
        let dot: f64 = p.iter().zip(q).map(|(a, b)| a * b).sum();
        let pp: f64 = p.iter().map(|a| a * a).sum();
        let qq: f64 = q.iter().map(|a| a * a).sum();
        1.0 - dot / (pp + qq - dot)
    })
}

fn minkowski(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let pw = f64_arg("minkowski", &a[2], "p")?;
    if pw <= 0.0 {
        return Err(Error::arg("The p of [minkowski] must be positive"));
    }
    aggregate2("minkowski", &a[0], &a[1], &|x, y| {
        pair_check("minkowski", x, y)?;
        let (p, q) = valid_pairs(x, y);
        if p.is_empty() {
            return Ok(dnull());
        }
        Ok(dbl(p.iter().zip(&q).map(|(a, b)| (a - b).abs().powf(pw)).sum::<f64>().powf(1.0 / pw)))
    })
}

fn seuclidean(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = vec_arg("seuclidean", &a[0])?;
    let y = vec_arg("seuclidean", &a[1])?;
    let v = vec_arg("seuclidean", &a[2])?;
    if x.len() != y.len() || x.len() != v.len() {
        return Err(Error::size("The arguments of [seuclidean] must have the same length"));
    }
    let s: f64 = (0..x.len())
        .filter(|&i| !x[i].is_nan() && !y[i].is_nan() && !v[i].is_nan())
        .map(|i| (x[i] - y[i]) * (x[i] - y[i]) / v[i])
        .sum();
    Ok(dbl(s.sqrt()))
}

fn mahalanobis(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = vec_arg("mahalanobis", &a[0])?;
    let y = vec_arg("mahalanobis", &a[1])?;
    let (c, r, k) = mat_arg("mahalanobis", &a[2])?;
    if x.len() != y.len() || r != k || r != x.len() {
        return Err(Error::size("[mahalanobis] needs two vectors of length n and an n x n covariance matrix"));
    }
    let inv = crate::linalg::inverse_of(&c, r).ok_or_else(|| Error::runtime("The covariance matrix of [mahalanobis] is singular"))?;
    let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p - q).collect();
    let mut s = 0.0;
    for j in 0..r {
        for i in 0..r {
            s += d[i] * inv[j * r + i] * d[j];
        }
    }
    Ok(dbl(s.max(0.0).sqrt()))
}

/// Great-circle distance in metres between points given as (longitude, latitude) pairs
/// or 2-element vectors (stand-in for the POINT type), or tuples of such points.
fn distance(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    fn point(v: &Value) -> Result<Option<(f64, f64)>> {
        match v {
            Value::Pair(c) | Value::Vector(c) if c.len() == 2 && is_num(c.ty) => Ok(Some((
                c.f64_at(0).unwrap_or(f64::NAN),
                c.f64_at(1).unwrap_or(f64::NAN),
            ))),
            _ => Ok(None),
        }
    }
    fn hav(p: (f64, f64), q: (f64, f64)) -> f64 {
        let r = 6_371_000.0;
        let (l1, b1) = (p.0.to_radians(), p.1.to_radians());
        let (l2, b2) = (q.0.to_radians(), q.1.to_radians());
        let h = ((b2 - b1) / 2.0).sin().powi(2) + b1.cos() * b2.cos() * ((l2 - l1) / 2.0).sin().powi(2);
        2.0 * r * h.sqrt().min(1.0).asin()
    }
    match (&a[0], &a[1]) {
        (Value::Tuple(x), Value::Tuple(y)) => {
            if x.len() != y.len() {
                return Err(Error::size("The two arguments of [distance] must have the same length"));
            }
            let mut out = Vec::with_capacity(x.len());
            for (p, q) in x.iter().zip(y.iter()) {
                match (point(p)?, point(q)?) {
                    (Some(p), Some(q)) => out.push(hav(p, q)),
                    _ => return Err(Error::unsupported("distance", crate::util::describe(p))),
                }
            }
            Ok(dvec(out))
        }
        (p, q) => match (point(p)?, point(q)?) {
            (Some(p), Some(q)) => Ok(dbl(hav(p, q))),
            _ => Err(Error::unsupported("distance", crate::util::describe(p))),
        },
    }
}

pub const DEFS: &[Builtin] = &[
    fp("acf", Kind::System, 2, 2, acf, &["X", "maxLag"]),
    fp("autocorr", Kind::Aggregate, 2, 2, autocorr, &["X", "lag"]),
    fp("beta", Kind::Aggregate, 2, 2, beta, &["Y", "X"]).grouped2(crate::agg::group::beta),
    fp("corr", Kind::Aggregate, 2, 2, corr, &["X", "Y"]).grouped2(crate::agg::group::corr),
    fp("corrMatrix", Kind::System, 1, 1, corr_matrix, &["X"]),
    fp("cosine", Kind::Aggregate, 2, 2, cosine, &["X", "Y"]),
    fp("covar", Kind::Aggregate, 2, 2, covar, &["X", "Y"]).grouped2(crate::agg::group::covar),
    fp("covarMatrix", Kind::System, 1, 1, covar_matrix, &["X"]),
    fp("covarp", Kind::Aggregate, 2, 2, covarp, &["X", "Y"]).grouped2(crate::agg::group::covarp),
    fp("distance", Kind::Elementwise, 2, 2, distance, &["X", "Y"]),
    fp("euclidean", Kind::Aggregate, 2, 2, euclidean, &["X", "Y"]),
    fp("kendall", Kind::Aggregate, 2, 2, kendall, &["X", "Y"]),
    fp("mahalanobis", Kind::Aggregate, 3, 3, mahalanobis, &["X", "Y", "cov"]),
    fp("minkowski", Kind::Aggregate, 3, 3, minkowski, &["X", "Y", "p"]),
    fp("mutualInfo", Kind::Aggregate, 2, 2, mutual_info, &["X", "Y"]),
    fp("seuclidean", Kind::Aggregate, 3, 3, seuclidean, &["X", "Y", "V"]),
    fp("spearmanr", Kind::Aggregate, 2, 2, spearmanr, &["X", "Y"]),
    fp("tanimoto", Kind::Aggregate, 2, 2, tanimoto, &["X", "Y"]),
];

// The family's other files (stdlib/src/stats/); lib.rs keeps the old flat paths as aliases.
pub mod desc;
pub mod dist;
pub mod distributions;
pub mod ewm;
pub mod ml;
pub mod model;
#[cfg(test)]
pub(crate) mod tests;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, desc::DEFS, dist::DEFS, distributions::DEFS, ewm::DEFS, ml::DEFS, model::DEFS].iter().for_each(|defs| r.extend(defs));
}
