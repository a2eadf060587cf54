//! Fitted models as dictionaries (with a `predict` function) and `predict(model, X)`:
//! linearInterpolateFit, cubicHermiteSplineFit, kroghInterpolateFit, gaussianKde(+Predict),
//! logisticRegression, kmeans.

use beluga_runtime::CallCtx;
use crate::math_util::{bool_opt, dict_get, dmat, dvec, f64_arg, mat_arg, str_dict, vec_arg};
use crate::util::{int_arg, map_f64, opt, str_arg};
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Dict;
use beluga_runtime::{Error, Result, Value};

fn model_dict(v: &Value, name: &str) -> Result<std::sync::Arc<Dict>> {
    match v {
        Value::Dict(d) => Ok(d.clone()),
        _ => Err(Error::arg(format!("The model of [{name}] must be a dictionary returned by a fit function"))),
    }
}

fn field(d: &Dict, key: &str, name: &str) -> Result<Value> {
    dict_get(d, key).ok_or_else(|| Error::arg(format!("The model passed to [{name}] has no '{key}'")))
}

fn field_vec(d: &Dict, key: &str, name: &str) -> Result<Vec<f64>> {
    vec_arg(name, &field(d, key, name)?)
}

/// Model knots: at least two, same length as their values.
fn knots(name: &str, xs: &[f64], others: &[&[f64]]) -> Result<()> {
    if xs.len() < 2 || others.iter().any(|o| o.len() != xs.len()) {
        return Err(Error::arg(format!("The model passed to [{name}] is malformed")));
    }
    Ok(())
}

/// `predict(model, X)`: call the model's own predict function.
fn predict(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let d = model_dict(&a[0], "predict")?;
    match dict_get(&d, "predict") {
        Some(f @ Value::Function(_)) => i.call_value(&f, vec![a[0].clone(), a[1].clone()]),
        _ => Err(Error::arg("The model passed to [predict] has no predict function")),
    }
}

fn sorted_xy(name: &str, x: &Value, y: &Value, sorted: bool) -> Result<(Vec<f64>, Vec<f64>)> {
    let x = vec_arg(name, x)?;
    let y = vec_arg(name, y)?;
    if x.len() != y.len() || x.len() < 2 {
        return Err(Error::arg(format!("X and Y of [{name}] must have the same length (at least 2)")));
    }
    if x.iter().chain(&y).any(|v| v.is_nan()) {
        return Err(Error::arg(format!("X and Y of [{name}] can't contain null values")));
    }
    let mut idx: Vec<usize> = (0..x.len()).collect();
    if !sorted {
        idx.sort_by(|&p, &q| x[p].total_cmp(&x[q]));
    }
    let xs: Vec<f64> = idx.iter().map(|&k| x[k]).collect();
    let ys: Vec<f64> = idx.iter().map(|&k| y[k]).collect();
    if xs.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::arg(format!("X of [{name}] must be strictly increasing and unique")));
    }
    Ok((xs, ys))
}

/// Index of the interval [x[k], x[k+1]] containing v (clamped to the end intervals).
fn interval(xs: &[f64], v: f64) -> usize {
    let k = xs.partition_point(|&x| x <= v);
    k.clamp(1, xs.len() - 1) - 1
}

fn linear_interpolate_fit(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let sorted = bool_opt(&a, 3, false);
    let (xs, ys) = sorted_xy("linearInterpolateFit", &a[0], &a[1], sorted)?;
    let fill = match opt(&a, 2) {
        None => Value::string("extrapolate"),
        Some(Value::Scalar(c)) if c.ty.is_literal() => {
            if c.str_at(0) != Some("extrapolate") {
                return Err(Error::arg("The fillValue of [linearInterpolateFit] must be 'extrapolate' or a pair below:above"));
            }
            Value::string("extrapolate")
        }
        Some(v) => {
            let p = vec_arg("linearInterpolateFit", v)?;
            if p.len() != 2 {
                return Err(Error::arg("The fillValue of [linearInterpolateFit] must be 'extrapolate' or a pair below:above"));
            }
            v.clone()
        }
    };
    let f = i.resolve_function("linearInterpolatePredict")?;
    str_dict(vec![
        ("modelName", Value::string("linearInterpolate")),
        ("sortedX", dvec(xs)),
        ("sortedY", dvec(ys)),
        ("fillValue", fill),
        ("predict", f),
    ])
}

fn linear_interpolate_predict(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "linearInterpolatePredict";
    let d = model_dict(&a[0], name)?;
    let xs = field_vec(&d, "sortedX", name)?;
    let ys = field_vec(&d, "sortedY", name)?;
    knots(name, &xs, &[&ys])?;
    let fill = field(&d, "fillValue", name)?;
    let bounds = if fill.as_str().is_some() { None } else { Some(vec_arg(name, &fill)?) };
    if bounds.as_ref().is_some_and(|b| b.len() != 2) {
        return Err(Error::arg(format!("The model passed to [{name}] is malformed")));
    }
    let (lo, hi) = (xs[0], xs[xs.len() - 1]);
    map_f64(name, &a[1], &move |v| {
        if let Some(b) = &bounds {
            if v < lo {
                return b[0];
            }
            if v > hi {
                return b[1];
            }
        }
        let k = interval(&xs, v);
        ys[k] + (v - xs[k]) * (ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k])
    })
}

fn cubic_hermite_spline_fit(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "cubicHermiteSplineFit";
    let x = vec_arg(name, &a[0])?;
    let y = vec_arg(name, &a[1])?;
    let dy = vec_arg(name, &a[2])?;
    if x.len() != y.len() || x.len() != dy.len() || x.len() < 2 {
        return Err(Error::arg(format!("x, y and dydx of [{name}] must have the same length (at least 2)")));
    }
    if x.iter().chain(&y).chain(&dy).any(|v| v.is_nan()) || x.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::arg(format!("x of [{name}] must be strictly increasing and no argument may contain nulls")));
    }
    let extrapolate = bool_opt(&a, 3, true);
    let f = i.resolve_function("cubicHermiteSplinePredict")?;
    str_dict(vec![
        ("modelName", Value::string("cubicHermiteSpline")),
        ("x", dvec(x)),
        ("y", dvec(y)),
        ("dydx", dvec(dy)),
        ("extrapolate", Value::bool(extrapolate)),
        ("predict", f),
    ])
}

fn cubic_hermite_spline_predict(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "cubicHermiteSplinePredict";
    let d = model_dict(&a[0], name)?;
    let xs = field_vec(&d, "x", name)?;
    let ys = field_vec(&d, "y", name)?;
    let ds = field_vec(&d, "dydx", name)?;
    knots(name, &xs, &[&ys, &ds])?;
    let extrapolate = field(&d, "extrapolate", name)?.as_bool().unwrap_or(true);
    let (lo, hi) = (xs[0], xs[xs.len() - 1]);
    map_f64(name, &a[1], &move |v| {
        if !extrapolate && (v < lo || v > hi) {
            return f64::NAN;
        }
        let k = interval(&xs, v);
        let h = xs[k + 1] - xs[k];
        let t = (v - xs[k]) / h;
        let (t2, t3) = (t * t, t * t * t);
        let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
        let h10 = t3 - 2.0 * t2 + t;
        let h01 = -2.0 * t3 + 3.0 * t2;
        let h11 = t3 - t2;
        h00 * ys[k] + h10 * h * ds[k] + h01 * ys[k + 1] + h11 * h * ds[k + 1]
    })
}

fn krogh_fit(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "kroghInterpolateFit";
    let x = vec_arg(name, &a[0])?;
    let y = vec_arg(name, &a[1])?;
    if x.len() != y.len() || x.is_empty() || x.iter().chain(&y).any(|v| v.is_nan()) {
        return Err(Error::arg(format!("X and Y of [{name}] must have the same non-zero length without nulls")));
    }
    let der = match opt(&a, 2) {
        Some(v) => int_arg(name, v, "derivative")?,
        None => 0,
    };
    if der < 0 {
        return Err(Error::arg(format!("The derivative of [{name}] can't be negative")));
    }
    // repeated nodes carry derivatives and must be adjacent: X sorted
    if x.windows(2).any(|p| p[1] < p[0]) {
        return Err(Error::arg(format!("X of [{name}] must be sorted in ascending order")));
    }
    // Newton divided differences (repeated nodes use the given derivative values in order)
    let n = x.len();
    // start of the run of equal nodes each node belongs to (repeated nodes carry derivatives)
    let start: Vec<usize> = (0..n).map(|k| (0..=k).rev().take_while(|&s| x[s] == x[k]).last().unwrap_or(k)).collect();
    let mut coef: Vec<f64> = (0..n).map(|k| y[start[k]]).collect();
    for j in 1..n {
        for k in (j..n).rev() {
            let dx = x[k] - x[k - j];
            coef[k] = if dx == 0.0 {
                // repeated node: the next value is a derivative / j!
                let mut f = 1.0;
                for q in 1..=j {
                    f *= q as f64;
                }
                y[start[k] + j] / f
            } else {
                (coef[k] - coef[k - 1]) / dx
            };
        }
    }
    let f = i.resolve_function("kroghInterpolatePredict")?;
    str_dict(vec![
        ("modelName", Value::string("kroghInterpolate")),
        ("X", dvec(x)),
        ("coefficients", dvec(coef)),
        ("derivative", Value::int(der as i32)),
        ("predict", f),
    ])
}

fn krogh_predict(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "kroghInterpolatePredict";
    let d = model_dict(&a[0], name)?;
    let xs = field_vec(&d, "X", name)?;
    let c = field_vec(&d, "coefficients", name)?;
    if xs.is_empty() || xs.len() != c.len() {
        return Err(Error::arg(format!("The model passed to [{name}] is malformed")));
    }
    let der = field(&d, "derivative", name)?.as_i64().unwrap_or(0).clamp(0, 64) as usize;
    map_f64(name, &a[1], &move |v| {
        // evaluate the Newton form and its derivatives by a Horner-style recurrence
        let n = c.len();
        let mut p = vec![0.0; der + 1];
        for k in (0..n).rev() {
            let t = v - xs[k];
            for m in (1..=der).rev() {
                p[m] = p[m] * t + p[m - 1];
            }
            p[0] = p[0] * t + c[k];
        }
        let mut fact = 1.0;
        for q in 1..=der {
            fact *= q as f64;
        }
        p[der] * fact
    })
}

// ------------------------------------------------------------------ kernel density

/// Data as d rows (dimensions) × n points; a vector is one dimension.
fn kde_data(name: &str, v: &Value) -> Result<(Vec<f64>, usize, usize)> {
    let (x, r, c) = mat_arg(name, v)?;
    if matches!(v, Value::Matrix(_)) { Ok((x, r, c)) } else { Ok((x, 1, r)) }
}

fn gaussian_kde(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "gaussianKde";
    let (x, d, n) = kde_data(name, &a[0])?;
    if n < 2 || x.iter().any(|v| v.is_nan()) {
        return Err(Error::arg(format!("[{name}] needs at least two points without nulls")));
    }
    let w = match opt(&a, 1) {
        Some(v) => {
            let w = vec_arg(name, v)?;
            if w.len() != n || w.iter().any(|x| x.is_nan() || *x < 0.0) {
                return Err(Error::arg(format!("The weights of [{name}] must be non-negative with one per point")));
            }
            let s: f64 = w.iter().sum();
            w.into_iter().map(|x| x / s).collect::<Vec<f64>>()
        }
        None => vec![1.0 / n as f64; n],
    };
    let neff = 1.0 / w.iter().map(|x| x * x).sum::<f64>();
    let factor = match opt(&a, 2) {
        None => neff.powf(-1.0 / (d as f64 + 4.0)),
        Some(v) => match v.as_str() {
            Some("scott") => neff.powf(-1.0 / (d as f64 + 4.0)),
            Some("silverman") => (neff * (d as f64 + 2.0) / 4.0).powf(-1.0 / (d as f64 + 4.0)),
            Some(_) => return Err(Error::arg(format!("The bwMethod of [{name}] must be 'scott', 'silverman' or a number"))),
            None => f64_arg(name, v, "bwMethod")?,
        },
    };
    // weighted covariance (unbiased with respect to the weights)
    let mean: Vec<f64> = (0..d).map(|r| (0..n).map(|k| w[k] * x[k * d + r]).sum()).collect();
    let corr = 1.0 - w.iter().map(|x| x * x).sum::<f64>();
    let mut cov = vec![0.0; d * d];
    for p in 0..d {
        for q in 0..d {
            cov[q * d + p] = (0..n).map(|k| w[k] * (x[k * d + p] - mean[p]) * (x[k * d + q] - mean[q])).sum::<f64>() / corr * factor * factor;
        }
    }
    let f = i.resolve_function("gaussianKdePredict")?;
    str_dict(vec![
        ("modelName", Value::string("gaussianKde")),
        ("X", dmat(x, d, n)),
        ("weights", dvec(w)),
        ("covariance", dmat(cov, d, d)),
        ("predict", f),
    ])
}

fn gaussian_kde_predict(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "gaussianKdePredict";
    let m = model_dict(&a[0], name)?;
    let (x, d, n) = mat_arg(name, &field(&m, "X", name)?)?;
    let w = field_vec(&m, "weights", name)?;
    let (cov, cr, cc) = mat_arg(name, &field(&m, "covariance", name)?)?;
    if w.len() != n || cr != d || cc != d {
        return Err(Error::arg(format!("The model passed to [{name}] is malformed")));
    }
    let inv = crate::linalg::inverse_of(&cov, d).ok_or_else(|| Error::runtime("The covariance of the KDE model is singular"))?;
    let det = crate::linalg::det_of(&cov, d);
    let norm = ((2.0 * std::f64::consts::PI).powi(d as i32) * det).sqrt();
    let (pts, pd, pn) = kde_data(name, &a[1])?;
    if pd != d {
        return Err(Error::size(format!("The points passed to [{name}] must have {d} dimension(s)")));
    }
    let out: Vec<f64> = (0..pn)
        .map(|j| {
            let mut s = 0.0;
            for k in 0..n {
                let diff: Vec<f64> = (0..d).map(|r| pts[j * d + r] - x[k * d + r]).collect();
                let mut q = 0.0;
                for p in 0..d {
                    for r in 0..d {
                        q += diff[p] * inv[r * d + p] * diff[r];
                    }
                }
                s += w[k] * (-q / 2.0).exp();
            }
            s / norm
        })
        .collect();
    Ok(if a[1].is_scalar() { Value::double(out.first().copied().unwrap_or(f64::NAN)) } else { dvec(out) })
}

// ------------------------------------------------------------------ logistic regression, kmeans

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// `logisticRegression(ds, yColName, xColNames, [intercept=true], [initTheta], [tolerance=1e-3],
/// [maxIter=500], [regularizationCoeff=1.0])`: L2-regularised logistic regression by Newton steps.
fn logistic_regression(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "logisticRegression";
    let (y, x, names) = crate::stats_ml::table_xy(name, &a[0], &a[1], &a[2])?;
    let intercept = bool_opt(&a, 3, true);
    let tol = match opt(&a, 5) {
        Some(v) => f64_arg(name, v, "tolerance")?,
        None => 1e-3,
    };
    let max_iter = match opt(&a, 6) {
        Some(v) => int_arg(name, v, "maxIter")?.max(1) as usize,
        None => 500,
    };
    let reg = match opt(&a, 7) {
        Some(v) => f64_arg(name, v, "regularizationCoeff")?,
        None => 1.0,
    };
    let n = y.len();
    let k = x.len() + intercept as usize;
    let feat = |r: usize, j: usize| -> f64 {
        if intercept {
            if j == 0 { 1.0 } else { x[j - 1][r] }
        } else {
            x[j][r]
        }
    };
    let mut theta = match opt(&a, 4) {
        Some(v) => {
            let t = vec_arg(name, v)?;
            if t.len() != k {
                return Err(Error::size(format!("The initTheta of [{name}] must have {k} elements")));
            }
            t
        }
        None => vec![0.0; k],
    };
    let mut iters = 0;
    for _ in 0..max_iter {
        iters += 1;
        let mut grad = vec![0.0; k];
        let mut hess = vec![0.0; k * k];
        for r in 0..n {
            let z: f64 = (0..k).map(|j| theta[j] * feat(r, j)).sum();
            let p = sigmoid(z);
            let e = p - y[r];
            let wv = p * (1.0 - p);
            for j in 0..k {
                grad[j] += e * feat(r, j);
                for q in 0..k {
                    hess[q * k + j] += wv * feat(r, j) * feat(r, q);
                }
            }
        }
        // penalise every coefficient but the intercept
        for j in (intercept as usize)..k {
            grad[j] += reg * theta[j] / n as f64;
            hess[j * k + j] += reg / n as f64;
        }
        let step = match crate::linalg::solve_of(&hess, k, &grad, 1) {
            Some(s) => s,
            None => crate::linalg_decomp::pinv_of(&hess, k, k).chunks(k).map(|c| c.iter().zip(&grad).map(|(a, b)| a * b).sum()).collect(),
        };
        let mut delta: f64 = 0.0;
        for j in 0..k {
            theta[j] -= step[j];
            delta = delta.max(step[j].abs());
        }
        if delta < tol {
            break;
        }
    }
    let (b0, coef) = if intercept { (theta[0], theta[1..].to_vec()) } else { (0.0, theta.clone()) };
    let f = i.resolve_function("logisticRegressionPredict")?;
    str_dict(vec![
        ("modelName", Value::string("Logistic Regression")),
        ("coefficients", dvec(coef)),
        ("intercept", Value::double(b0)),
        ("xColNames", Value::string_vec(names.iter().map(|s| s.as_str()))),
        ("iterations", Value::int(iters as i32)),
        ("predict", f),
    ])
}

/// Rows of a table (numeric columns) or matrix as points.
fn points(name: &str, v: &Value, cols: Option<&[String]>) -> Result<(Vec<Vec<f64>>, usize)> {
    let (x, r, c) = match (v, cols) {
        (Value::Table(t), Some(names)) => {
            let mut data = Vec::new();
            for n in names {
                let col = t.column(n).ok_or_else(|| Error::arg(format!("The column {n} doesn't exist")))?;
                data.extend(crate::math_util::nan_f64(col));
            }
            (data, t.rows(), names.len())
        }
        _ => mat_arg(name, v)?,
    };
    Ok(((0..r).map(|i| (0..c).map(|j| x[j * r + i]).collect()).collect(), c))
}

fn logistic_predict(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "logisticRegressionPredict";
    let d = model_dict(&a[0], name)?;
    let coef = field_vec(&d, "coefficients", name)?;
    let b0 = field(&d, "intercept", name)?.as_f64().unwrap_or(0.0);
    let names: Vec<String> = match dict_get(&d, "xColNames") {
        Some(v) => {
            let c = crate::util::col(name, &v)?;
            (0..c.len()).map(|i| c.str_at(i).unwrap_or("").to_string()).collect()
        }
        None => Vec::new(),
    };
    let (pts, dim) = points(name, &a[1], if names.is_empty() { None } else { Some(&names) })?;
    if dim != coef.len() {
        return Err(Error::size(format!("The data passed to [{name}] must have {} columns", coef.len())));
    }
    let labels: Vec<i32> = pts.iter().map(|p| (sigmoid(b0 + p.iter().zip(&coef).map(|(x, c)| x * c).sum::<f64>()) >= 0.5) as i32).collect();
    Ok(Value::int_vec(labels))
}

fn nearest(centers: &[Vec<f64>], p: &[f64]) -> usize {
    let mut best = (0, f64::INFINITY);
    for (k, c) in centers.iter().enumerate() {
        let d: f64 = c.iter().zip(p).map(|(a, b)| (a - b) * (a - b)).sum();
        if d < best.1 {
            best = (k, d);
        }
    }
    best.0
}

/// `kmeans(X, k, [maxIter=300], [randomSeed], [init='random'])`: X is a table (or matrix)
/// with one row per observation.
fn kmeans(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "kmeans";
    let (pts, dim) = points(name, &a[0], None)?;
    if pts.iter().flatten().any(|v| v.is_nan()) {
        return Err(Error::arg("The data of [kmeans] can't contain null values"));
    }
    let k = int_arg(name, &a[1], "k")?;
    if k < 1 || k as usize > pts.len() {
        return Err(Error::arg("The k of [kmeans] must be between 1 and the number of points"));
    }
    let k = k as usize;
    let max_iter = match opt(&a, 2) {
        Some(v) => int_arg(name, v, "maxIter")?.max(1) as usize,
        None => 300,
    };
    let saved = *i.rng();
    if let Some(s) = opt(&a, 3) {
        *i.rng() = (int_arg(name, s, "randomSeed")? as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    }
    let init = match opt(&a, 4) {
        Some(Value::Matrix(_)) => "matrix".to_string(),
        Some(v) => str_arg(name, v, "init")?.to_string(),
        None => "random".into(),
    };
    let n = pts.len();
    let mut centers: Vec<Vec<f64>> = Vec::with_capacity(k);
    if init == "matrix" {
        let (cm, r, c) = mat_arg(name, &a[4])?;
        if r != k || c != dim {
            return Err(Error::size(format!("The init matrix of [{name}] must have k rows and one column per feature")));
        }
        centers = (0..k).map(|row| (0..dim).map(|q| cm[q * k + row]).collect()).collect();
    } else if init == "random" {
        let mut idx: Vec<usize> = (0..n).collect();
        for j in 0..k {
            let r = j + crate::random::below(i, (n - j) as u64) as usize;
            idx.swap(j, r);
            centers.push(pts[idx[j]].clone());
        }
    } else if init == "k-means++" {
        centers.push(pts[crate::random::below(i, n as u64) as usize].clone());
        while centers.len() < k {
            let d2: Vec<f64> = pts.iter().map(|p| centers.iter().map(|c| c.iter().zip(p).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()).fold(f64::INFINITY, f64::min)).collect();
            let total: f64 = d2.iter().sum();
            let mut u = crate::random::u01(i) * total;
            let mut pick = n - 1;
            for (j, d) in d2.iter().enumerate() {
                if u < *d {
                    pick = j;
                    break;
                }
                u -= d;
            }
            centers.push(pts[pick].clone());
        }
    } else {
        *i.rng() = saved;
        return Err(Error::arg(format!("The init of [{name}] must be 'random', 'k-means++' or a matrix")));
    }
    if opt(&a, 3).is_some() {
        *i.rng() = saved;
    }
    let mut labels = vec![0usize; n];
    let mut iters = 0;
    for _ in 0..max_iter {
        iters += 1;
        let mut changed = false;
        for (j, p) in pts.iter().enumerate() {
            let l = nearest(&centers, p);
            if l != labels[j] || iters == 1 {
                changed |= l != labels[j];
                labels[j] = l;
            }
        }
        let mut sums = vec![vec![0.0; dim]; k];
        let mut counts = vec![0usize; k];
        for (p, &l) in pts.iter().zip(&labels) {
            counts[l] += 1;
            for q in 0..dim {
                sums[l][q] += p[q];
            }
        }
        for c in 0..k {
            if counts[c] > 0 {
                centers[c] = sums[c].iter().map(|s| s / counts[c] as f64).collect();
            }
        }
        if !changed && iters > 1 {
            break;
        }
    }
    let mut cm = vec![0.0; k * dim];
    for (c, center) in centers.iter().enumerate() {
        for q in 0..dim {
            cm[q * k + c] = center[q];
        }
    }
    let f = i.resolve_function("kmeansPredict")?;
    let _ = iters;
    // cluster labels are 1-based, as DolphinDB prints them
    str_dict(vec![
        ("centers", dmat(cm, k, dim)),
        ("predict", f),
        ("modelName", Value::string("KMeans")),
        ("model", Value::string("KMeans")),
        ("labels", Value::int_vec(labels.iter().map(|&l| l as i32 + 1).collect())),
    ])
}

fn kmeans_predict(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "kmeansPredict";
    let d = model_dict(&a[0], name)?;
    let (cm, k, dim) = mat_arg(name, &field(&d, "centers", name)?)?;
    let centers: Vec<Vec<f64>> = (0..k).map(|c| (0..dim).map(|q| cm[q * k + c]).collect()).collect();
    let (pts, pd) = points(name, &a[1], None)?;
    if pd != dim {
        return Err(Error::size(format!("The data passed to [{name}] must have {dim} columns")));
    }
    Ok(Value::int_vec(pts.iter().map(|p| nearest(&centers, p) as i32 + 1).collect()))
}

pub const DEFS: &[Builtin] = &[
    fp("cubicHermiteSplineFit", Kind::System, 3, 4, cubic_hermite_spline_fit, &["x", "y", "dydx", "extrapolate"]),
    fp("cubicHermiteSplinePredict", Kind::System, 2, 2, cubic_hermite_spline_predict, &["model", "X"]),
    fp("gaussianKde", Kind::System, 1, 3, gaussian_kde, &["X", "weights", "bwMethod"]),
    fp("gaussianKdePredict", Kind::System, 2, 2, gaussian_kde_predict, &["model", "X"]),
    fp("kmeans", Kind::System, 2, 5, kmeans, &["X", "k", "maxIter", "randomSeed", "init"]),
    fp("kmeansPredict", Kind::System, 2, 2, kmeans_predict, &["model", "X"]),
    fp("kroghInterpolateFit", Kind::System, 2, 3, krogh_fit, &["X", "Y", "derivative"]),
    fp("kroghInterpolatePredict", Kind::System, 2, 2, krogh_predict, &["model", "X"]),
    fp("linearInterpolateFit", Kind::System, 2, 4, linear_interpolate_fit, &["X", "Y", "fillValue", "sorted"]),
    fp("linearInterpolatePredict", Kind::System, 2, 2, linear_interpolate_predict, &["model", "X"]),
    fp("logisticRegression", Kind::System, 3, 8, logistic_regression, &["ds", "yColName", "xColNames", "intercept", "initTheta", "tolerance", "maxIter", "regularizationCoeff"]),
    fp("logisticRegressionPredict", Kind::System, 2, 2, logistic_predict, &["model", "X"]),
    fp("predict", Kind::System, 2, 2, predict, &["model", "X"]),
];
