//! Regression: ols, wls, residual, ridge, lasso, polyFit, polyPredict/poly1d, polynomial.
//! Models returned as dictionaries are evaluated by `predict` (stats_model.rs).

use beluga_runtime::CallCtx;
use crate::linalg_decomp::pinv_of;
use crate::math_util::{bool_opt, dvec, f64_arg, mat_arg, str_dict, vec_arg};
use crate::stats_dist::{f_cdf, t_cdf};
use crate::util::{int_arg, opt, str_arg};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Table, Value};

/// Regressors as columns (n rows each) with their names; nulls become 0.
pub fn factors(name: &str, x: &Value, n: usize) -> Result<(Vec<Vec<f64>>, Vec<String>)> {
    let zero = |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(|a| if a.is_nan() { 0.0 } else { a }).collect() };
    let (cols, names): (Vec<Vec<f64>>, Vec<String>) = match x {
        Value::Table(t) => {
            let mut cols = Vec::new();
            for c in &t.cols {
                crate::math_util::need_num(name, c)?;
                cols.push(zero(crate::math_util::nan_f64(c)));
            }
            (cols, t.names.clone())
        }
        Value::Tuple(items) => {
            let mut cols = Vec::new();
            for it in items.iter() {
                cols.push(zero(vec_arg(name, it)?));
            }
            let k = cols.len();
            (cols, (1..=k).map(|i| format!("x{i}")).collect())
        }
        Value::Matrix(_) => {
            let (d, r, c) = mat_arg(name, x)?;
            let d = zero(d);
            let cols: Vec<Vec<f64>> = if r == n {
                (0..c).map(|j| d[j * r..(j + 1) * r].to_vec()).collect()
            } else if c == n {
                (0..r).map(|i| (0..c).map(|j| d[j * r + i]).collect()).collect()
            } else {
                return Err(Error::size(format!("The dimensions of X in [{name}] don't match the length of Y")));
            };
            let k = cols.len();
            (cols, (1..=k).map(|i| format!("x{i}")).collect())
        }
        other => (vec![zero(vec_arg(name, other)?)], vec!["x1".to_string()]),
    };
    if cols.iter().any(|c| c.len() != n) {
        return Err(Error::size(format!("The regressors of [{name}] must have the same length as Y")));
    }
    Ok((cols, names))
}

/// Column-major design matrix, optionally with a leading column of ones.
fn design(cols: &[Vec<f64>], n: usize, intercept: bool) -> (Vec<f64>, usize) {
    let p = cols.len() + intercept as usize;
    let mut d = Vec::with_capacity(n * p);
    if intercept {
        d.extend(std::iter::repeat(1.0).take(n));
    }
    for c in cols {
        d.extend_from_slice(c);
    }
    (d, p)
}

/// Least squares with optional weights: returns (beta, fitted).
fn lstsq(d: &[f64], n: usize, p: usize, y: &[f64], w: Option<&[f64]>) -> (Vec<f64>, Vec<f64>) {
    let (dw, yw): (Vec<f64>, Vec<f64>) = match w {
        Some(w) => {
            let sw: Vec<f64> = w.iter().map(|x| x.max(0.0).sqrt()).collect();
            ((0..n * p).map(|k| d[k] * sw[k % n]).collect(), y.iter().zip(&sw).map(|(a, b)| a * b).collect())
        }
        None => (d.to_vec(), y.to_vec()),
    };
    let pinv = pinv_of(&dw, n, p);
    let beta: Vec<f64> = (0..p).map(|j| (0..n).map(|i| pinv[i * p + j] * yw[i]).sum()).collect();
    let fitted: Vec<f64> = (0..n).map(|i| (0..p).map(|j| d[j * n + i] * beta[j]).sum()).collect();
    (beta, fitted)
}

fn str_col(v: &[&str]) -> Column {
    Column::new(DataType::String, ColData::Str(StrCol::from_iter(v.iter().copied())))
}

#[allow(clippy::too_many_arguments)]
fn regression_output(
    mode: i64,
    names: &[String],
    intercept: bool,
    d: &[f64],
    n: usize,
    p: usize,
    y: &[f64],
    w: Option<&[f64]>,
    beta: Vec<f64>,
    fitted: &[f64],
) -> Result<Value> {
    if mode == 0 {
        return Ok(dvec(beta));
    }
    let wt = |i: usize| w.map(|w| w[i]).unwrap_or(1.0);
    let resid: Vec<f64> = (0..n).map(|i| y[i] - fitted[i]).collect();
    let sse: f64 = (0..n).map(|i| wt(i) * resid[i] * resid[i]).sum();
    let sw: f64 = (0..n).map(wt).sum();
    let ybar = if intercept { (0..n).map(|i| wt(i) * y[i]).sum::<f64>() / sw } else { 0.0 };
    let sst: f64 = (0..n).map(|i| wt(i) * (y[i] - ybar).powi(2)).sum();
    let ssr = sst - sse;
    let df_reg = (p - intercept as usize) as f64;
    let df_res = n as f64 - p as f64;
    let mse = if df_res > 0.0 { sse / df_res } else { f64::NAN };
    // covariance of beta: mse * (X'WX)^-1
    let mut xtx = vec![0.0; p * p];
    for a in 0..p {
        for b in 0..p {
            xtx[b * p + a] = (0..n).map(|i| wt(i) * d[a * n + i] * d[b * n + i]).sum();
        }
    }
    let inv = pinv_of(&xtx, p, p);
    let se: Vec<f64> = (0..p).map(|j| (mse * inv[j * p + j]).max(0.0).sqrt()).collect();
    let tstat: Vec<f64> = beta.iter().zip(&se).map(|(b, s)| b / s).collect();
    let pval: Vec<f64> = tstat.iter().map(|t| 2.0 * t_cdf(-t.abs(), df_res)).collect();
    let mut fnames: Vec<&str> = Vec::with_capacity(p);
    if intercept {
        fnames.push("intercept");
    }
    fnames.extend(names.iter().map(|s| s.as_str()));
    let coef = Table::new(
        vec!["factor".into(), "beta".into(), "stdError".into(), "tstat".into(), "pvalue".into()],
        vec![str_col(&fnames), crate::math_util::dcol(beta), crate::math_util::dcol(se), crate::math_util::dcol(tstat), crate::math_util::dcol(pval)],
    )?;
    if mode == 1 {
        return Ok(Value::table(coef));
    }
    let msr = ssr / df_reg;
    let f = msr / mse;
    let sig = 1.0 - f_cdf(f, df_reg, df_res);
    let anova = Table::new(
        vec!["Breakdown".into(), "DF".into(), "SS".into(), "MS".into(), "F".into(), "Significance".into()],
        vec![
            str_col(&["Regression", "Residual", "Total"]),
            Column::from_vec(DataType::Int, vec![df_reg as i32, df_res as i32, (df_reg + df_res) as i32]),
            crate::math_util::dcol(vec![ssr, sse, sst]),
            crate::math_util::dcol(vec![msr, mse, f64::NAN]),
            crate::math_util::dcol(vec![f, f64::NAN, f64::NAN]),
            crate::math_util::dcol(vec![sig, f64::NAN, f64::NAN]),
        ],
    )?;
    let r2 = if sst > 0.0 { 1.0 - sse / sst } else { f64::NAN };
    let adj = 1.0 - (1.0 - r2) * (n as f64 - intercept as usize as f64) / df_res;
    let stat = Table::new(
        vec!["item".into(), "statistics".into()],
        vec![
            str_col(&["R2", "AdjustedR2", "StdError", "Observations"]),
            crate::math_util::dcol(vec![r2, adj, mse.sqrt(), n as f64]),
        ],
    )?;
    str_dict(vec![
        ("ANOVA", Value::table(anova)),
        ("RegressionStat", Value::table(stat)),
        ("Coefficient", Value::table(coef)),
        ("Residual", dvec(resid)),
    ])
}

fn ols_like(name: &str, a: &[Value], weighted: bool) -> Result<Value> {
    let y: Vec<f64> = vec_arg(name, &a[0])?.into_iter().map(|v| if v.is_nan() { 0.0 } else { v }).collect();
    let n = y.len();
    let (cols, names) = factors(name, &a[1], n)?;
    let (w, rest) = if weighted {
        let w = vec_arg(name, &a[2])?;
        if w.len() != n {
            return Err(Error::size(format!("The weights of [{name}] must have the same length as Y")));
        }
        (Some(w.into_iter().map(|v| if v.is_nan() { 0.0 } else { v }).collect::<Vec<f64>>()), 3)
    } else {
        (None, 2)
    };
    let intercept = bool_opt(a, rest, true);
    let mode = match opt(a, rest + 1) {
        Some(v) => int_arg(name, v, "mode")?,
        None => 0,
    };
    if !(0..=2).contains(&mode) {
        return Err(Error::arg(format!("The mode of [{name}] must be 0, 1 or 2")));
    }
    let (d, p) = design(&cols, n, intercept);
    if n < p {
        return Err(Error::arg(format!("[{name}] needs at least as many observations as coefficients")));
    }
    let (beta, fitted) = lstsq(&d, n, p, &y, w.as_deref());
    regression_output(mode, &names, intercept, &d, n, p, &y, w.as_deref(), beta, &fitted)
}

fn ols(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ols_like("ols", &a, false)
}
fn wls(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ols_like("wls", &a, true)
}

/// `residual(Y, X, params, [intercept=true])`.
fn residual(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let y = vec_arg("residual", &a[0])?;
    let n = y.len();
    let (cols, _) = factors("residual", &a[1], n)?;
    let params = vec_arg("residual", &a[2])?;
    let intercept = bool_opt(&a, 3, true);
    let (d, p) = design(&cols, n, intercept);
    if params.len() != p {
        return Err(Error::size("The number of params of [residual] doesn't match the regressors"));
    }
    Ok(dvec((0..n).map(|i| y[i] - (0..p).map(|j| d[j * n + i] * params[j]).sum::<f64>()).collect()))
}

/// Table-based regression arguments: (y, x columns, names).
pub fn table_xy(name: &str, ds: &Value, ycol: &Value, xcols: &Value) -> Result<(Vec<f64>, Vec<Vec<f64>>, Vec<String>)> {
    let t = match ds {
        Value::Table(t) => t.clone(),
        other => return Err(Error::arg(format!("[{name}] needs an in-memory table, not {}", crate::util::describe(other)))),
    };
    let get = |n: &str| -> Result<Vec<f64>> {
        let c = t.column(n).ok_or_else(|| Error::arg(format!("The column {n} doesn't exist")))?;
        crate::math_util::need_num(name, c)?;
        Ok(crate::math_util::nan_f64(c).into_iter().map(|v| if v.is_nan() { 0.0 } else { v }).collect())
    };
    let y = get(str_arg(name, ycol, "yColName")?)?;
    let xc = crate::util::col(name, xcols)?;
    let names: Vec<String> = (0..xc.len()).map(|i| xc.str_at(i).unwrap_or("").to_string()).collect();
    let x: Vec<Vec<f64>> = names.iter().map(|n| get(n)).collect::<Result<_>>()?;
    Ok((y, x, names))
}

/// Options that are accepted by DolphinDB but not implemented here: error unless absent/false.
fn unsupported_options(name: &str, a: &[Value], opts: &[(usize, &str)]) -> Result<()> {
    for &(i, what) in opts {
        if let Some(v) = opt(a, i) {
            if v.as_str().is_some() || v.as_bool().unwrap_or(true) {
                return Err(Error::arg(format!("The {what} option of [{name}] is not supported")));
            }
        }
    }
    Ok(())
}

fn center(y: &[f64], x: &[Vec<f64>], intercept: bool) -> (f64, Vec<f64>, Vec<Vec<f64>>, Vec<f64>) {
    let n = y.len() as f64;
    if !intercept {
        return (0.0, y.to_vec(), x.to_vec(), vec![0.0; x.len()]);
    }
    let ym = y.iter().sum::<f64>() / n;
    let xm: Vec<f64> = x.iter().map(|c| c.iter().sum::<f64>() / n).collect();
    let yc = y.iter().map(|v| v - ym).collect();
    let xc = x.iter().zip(&xm).map(|(c, m)| c.iter().map(|v| v - m).collect()).collect();
    (ym, yc, xc, xm)
}

/// `ridge(ds, yColName, xColNames, [alpha=1.0], [intercept=true], ...)`.
fn ridge(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (y, x, _) = table_xy("ridge", &a[0], &a[1], &a[2])?;
    let alpha = match opt(&a, 3) {
        Some(v) => f64_arg("ridge", v, "alpha")?,
        None => 1.0,
    };
    let intercept = bool_opt(&a, 4, true);
    unsupported_options("ridge", &a, &[(5, "normalize"), (9, "swColName")])?;
    let (ym, yc, xc, xm) = center(&y, &x, intercept);
    let (n, k) = (y.len(), x.len());
    let mut xtx = vec![0.0; k * k];
    let mut xty = vec![0.0; k];
    for p in 0..k {
        xty[p] = (0..n).map(|i| xc[p][i] * yc[i]).sum();
        for q in 0..k {
            xtx[q * k + p] = (0..n).map(|i| xc[p][i] * xc[q][i]).sum::<f64>() + if p == q { alpha } else { 0.0 };
        }
    }
    let b = crate::linalg::solve_of(&xtx, k, &xty, 1).ok_or_else(|| Error::runtime("[ridge] failed: singular system"))?;
    let b0 = ym - b.iter().zip(&xm).map(|(b, m)| b * m).sum::<f64>();
    let mut out = Vec::with_capacity(k + 1);
    if intercept {
        out.push(b0);
    }
    out.extend(b);
    Ok(dvec(out))
}

/// `lasso(ds, yColName, xColNames, [alpha=1.0], [intercept=true], [normalize], [maxIter=1000], [tolerance=1e-4])`:
/// coordinate descent on (1/2n)||y - Xb||² + alpha ||b||₁.
fn lasso(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (y, x, _) = table_xy("lasso", &a[0], &a[1], &a[2])?;
    let alpha = match opt(&a, 3) {
        Some(v) => f64_arg("lasso", v, "alpha")?,
        None => 1.0,
    };
    let intercept = bool_opt(&a, 4, true);
    let max_iter = match opt(&a, 6) {
        Some(v) => int_arg("lasso", v, "maxIter")?.max(1) as usize,
        None => 1000,
    };
    let tol = match opt(&a, 7) {
        Some(v) => f64_arg("lasso", v, "tolerance")?,
        None => 1e-4,
    };
    unsupported_options("lasso", &a, &[(5, "normalize"), (8, "positive"), (9, "swColName")])?;
    let (ym, yc, xc, xm) = center(&y, &x, intercept);
    let (n, k) = (y.len(), x.len());
    let nf = n as f64;
    let norms: Vec<f64> = xc.iter().map(|c| c.iter().map(|v| v * v).sum::<f64>() / nf).collect();
    let mut b = vec![0.0; k];
    let mut r = yc.clone();
    for _ in 0..max_iter {
        let mut max_delta: f64 = 0.0;
        for j in 0..k {
            if norms[j] == 0.0 {
                continue;
            }
            let rho: f64 = (0..n).map(|i| xc[j][i] * r[i]).sum::<f64>() / nf + norms[j] * b[j];
            let nb = if rho > alpha { (rho - alpha) / norms[j] } else if rho < -alpha { (rho + alpha) / norms[j] } else { 0.0 };
            let d = nb - b[j];
            if d != 0.0 {
                for i in 0..n {
                    r[i] -= d * xc[j][i];
                }
                b[j] = nb;
                max_delta = max_delta.max(d.abs());
            }
        }
        if max_delta < tol {
            break;
        }
    }
    let b0 = ym - b.iter().zip(&xm).map(|(b, m)| b * m).sum::<f64>();
    let mut out = Vec::with_capacity(k + 1);
    if intercept {
        out.push(b0);
    }
    out.extend(b);
    Ok(dvec(out))
}

/// Evaluate a polynomial with ascending coefficients (Horner).
pub fn horner(coef: &[f64], x: f64) -> f64 {
    coef.iter().rev().fold(0.0, |acc, c| acc * x + c)
}

/// `polyFit(X, Y, n, [mode=0])`: least-squares coefficients in ascending powers.
fn poly_fit(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = vec_arg("polyFit", &a[0])?;
    let y = vec_arg("polyFit", &a[1])?;
    let deg = int_arg("polyFit", &a[2], "n")?;
    if x.len() != y.len() || deg < 0 {
        return Err(Error::arg("[polyFit] needs X and Y of the same length and a non-negative degree"));
    }
    if x.iter().chain(&y).any(|v| v.is_nan()) {
        return Err(Error::arg("X and Y of [polyFit] can't contain null values"));
    }
    let n = x.len();
    if deg > 1000 {
        return Err(Error::arg("The degree of [polyFit] is too large"));
    }
    let p = deg as usize + 1;
    let mut d = Vec::with_capacity(n * p);
    for k in 0..p {
        d.extend(x.iter().map(|v| v.powi(k as i32)));
    }
    let (beta, _) = lstsq(&d, n, p, &y, None);
    if bool_opt(&a, 3, false) {
        let f = i.resolve_function("polyPredict")?;
        return str_dict(vec![("modelName", Value::string("polyFit")), ("z", dvec(beta)), ("predict", f)]);
    }
    Ok(dvec(beta))
}

/// `polyPredict(model, X)` / `poly1d`: evaluate ascending coefficients at X.
fn poly_predict(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let coef = match &a[0] {
        Value::Dict(d) => match crate::math_util::dict_get(d, "z") {
            Some(z) => vec_arg("polyPredict", &z)?,
            None => return Err(Error::arg("The model of [polyPredict] must be a coefficient vector")),
        },
        other => vec_arg("polyPredict", other)?,
    };
    crate::util::map_f64("polyPredict", &a[1], &move |x| horner(&coef, x))
}

/// `polynomial(X, coeffs)`: coeffs[0] + coeffs[1]*X + coeffs[2]*X^2 + ...
fn polynomial(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let coef = vec_arg("polynomial", &a[1])?;
    if coef.iter().any(|c| c.is_nan()) {
        return Err(Error::arg("The coefficients of [polynomial] can't contain null values"));
    }
    crate::util::map_f64("polynomial", &a[0], &move |x| horner(&coef, x))
}

pub const DEFS: &[Builtin] = &[
    fp("lasso", Kind::System, 3, 11, lasso, &["ds", "yColName", "xColNames", "alpha", "intercept", "normalize", "maxIter", "tolerance", "positive", "swColName", "checkInput"]),
    fp("ols", Kind::Aggregate, 2, 6, ols, &["Y", "X", "intercept", "mode", "method", "usePinv"]),
    fp("poly1d", Kind::Elementwise, 2, 2, poly_predict, &["model", "X"]),
    fp("polyFit", Kind::System, 3, 4, poly_fit, &["X", "Y", "n", "mode"]),
    fp("polyPredict", Kind::Elementwise, 2, 2, poly_predict, &["model", "X"]),
    fp("polynomial", Kind::Elementwise, 2, 2, polynomial, &["X", "coeffs"]),
    fp("residual", Kind::VectorToVector, 3, 4, residual, &["Y", "X", "params", "intercept"]),
    fp("ridge", Kind::System, 3, 10, ridge, &["ds", "yColName", "xColNames", "alpha", "intercept", "normalize", "maxIter", "tolerance", "solver", "swColName"]),
    fp("wls", Kind::Aggregate, 3, 5, wls, &["Y", "X", "W", "intercept", "mode"]),
];
