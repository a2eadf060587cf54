//! Exponentially weighted moving statistics (pandas semantics): ewmMean, ewmVar, ewmStd,
//! ewmCov, ewmCorr. Exactly one of com, span, halfLife, alpha sets the decay.

use beluga_runtime::CallCtx;
use crate::math_util::{dcol, f64_arg, need_num, nan_f64};
use crate::util::{int_arg, opt, vector_fn};
use beluga_runtime::column::Column;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{Error, Result, Value};

#[derive(Clone, Copy)]
struct Ewm {
    alpha: f64,
    min_periods: usize,
    adjust: bool,
    ignore_na: bool,
    bias: bool,
}

/// Parse decay and options starting at argument `first` (com, span, halfLife, alpha,
/// minPeriods, adjust, then ignoreNA or bias).
fn params(name: &str, a: &[Value], first: usize, last_is_bias: bool) -> Result<Ewm> {
    let decay: Vec<(usize, f64)> = (0..4)
        .filter_map(|k| opt(a, first + k).map(|v| (k, v)))
        .map(|(k, v)| f64_arg(name, v, ["com", "span", "halfLife", "alpha"][k]).map(|x| (k, x)))
        .collect::<Result<_>>()?;
    if decay.len() != 1 {
        return Err(Error::arg(format!("[{name}] needs exactly one of com, span, halfLife and alpha")));
    }
    let (k, x) = decay[0];
    let alpha = match k {
        0 if x >= 0.0 => 1.0 / (1.0 + x),
        1 if x >= 1.0 => 2.0 / (x + 1.0),
        2 if x > 0.0 => 1.0 - (-(2f64.ln()) / x).exp(),
        3 if x > 0.0 && x <= 1.0 => x,
        _ => return Err(Error::arg(format!("The decay parameter of [{name}] is out of range"))),
    };
    let min_periods = match opt(a, first + 4) {
        Some(v) => int_arg(name, v, "minPeriods")?.max(0) as usize,
        None => 0,
    };
    let adjust = opt(a, first + 5).and_then(|v| v.as_bool()).unwrap_or(true);
    let ignore_na = opt(a, first + 6).and_then(|v| v.as_bool()).unwrap_or(false);
    // ewmVar/ewmStd: `…, adjust, ignoreNA, bias` (funcs/e/ewmVar.md); ewmMean: `…, ignoreNA, times`
    let bias = last_is_bias && opt(a, first + 7).and_then(|v| v.as_bool()).unwrap_or(false);
    if !last_is_bias && opt(a, first + 7).is_some() {
        return Err(Error::arg(format!("The times argument of [{name}] is not supported")));
    }
    Ok(Ewm { alpha, min_periods: min_periods.max(1), adjust, ignore_na, bias })
}

fn ewm_mean(x: &[f64], p: Ewm) -> Vec<f64> {
    let n = x.len();
    let mut out = vec![f64::NAN; n];
    if n == 0 {
        return out;
    }
    let old_factor = 1.0 - p.alpha;
    let new_wt = if p.adjust { 1.0 } else { p.alpha };
    let mut weighted = x[0];
    let mut nobs = (!weighted.is_nan()) as usize;
    let mut old_wt = 1.0;
    out[0] = if nobs >= p.min_periods { weighted } else { f64::NAN };
    for i in 1..n {
        let cur = x[i];
        let obs = !cur.is_nan();
        nobs += obs as usize;
        if !weighted.is_nan() {
            if obs || !p.ignore_na {
                old_wt *= old_factor;
                if obs {
                    if weighted != cur {
                        weighted = (old_wt * weighted + new_wt * cur) / (old_wt + new_wt);
                    }
                    if p.adjust { old_wt += new_wt } else { old_wt = 1.0 }
                }
            }
        } else if obs {
            weighted = cur;
        }
        out[i] = if nobs >= p.min_periods { weighted } else { f64::NAN };
    }
    out
}

fn ewm_cov(x: &[f64], y: &[f64], p: Ewm, bias: bool) -> Vec<f64> {
    let n = x.len();
    let mut out = vec![f64::NAN; n];
    if n == 0 {
        return out;
    }
    let old_factor = 1.0 - p.alpha;
    let new_wt = if p.adjust { 1.0 } else { p.alpha };
    let (mut mx, mut my) = (x[0], y[0]);
    let first = !mx.is_nan() && !my.is_nan();
    let mut nobs = first as usize;
    if !first {
        mx = f64::NAN;
        my = f64::NAN;
    }
    out[0] = if nobs >= p.min_periods && bias { 0.0 } else { f64::NAN };
    let (mut cov, mut sum_wt, mut sum_wt2, mut old_wt) = (0.0, 1.0, 1.0, 1.0);
    for i in 1..n {
        let (cx, cy) = (x[i], y[i]);
        let obs = !cx.is_nan() && !cy.is_nan();
        nobs += obs as usize;
        if !mx.is_nan() {
            if obs || !p.ignore_na {
                sum_wt *= old_factor;
                sum_wt2 *= old_factor * old_factor;
                old_wt *= old_factor;
                if obs {
                    let (ox, oy) = (mx, my);
                    if mx != cx {
                        mx = (old_wt * ox + new_wt * cx) / (old_wt + new_wt);
                    }
                    if my != cy {
                        my = (old_wt * oy + new_wt * cy) / (old_wt + new_wt);
                    }
                    cov = (old_wt * (cov + (ox - mx) * (oy - my)) + new_wt * (cx - mx) * (cy - my)) / (old_wt + new_wt);
                    sum_wt += new_wt;
                    sum_wt2 += new_wt * new_wt;
                    old_wt += new_wt;
                    if !p.adjust {
                        sum_wt /= old_wt;
                        sum_wt2 /= old_wt * old_wt;
                        old_wt = 1.0;
                    }
                }
            }
        } else if obs {
            mx = cx;
            my = cy;
        }
        out[i] = if nobs >= p.min_periods {
            if bias {
                cov
            } else {
                let num = sum_wt * sum_wt;
                let den = num - sum_wt2;
                if den > 0.0 { num / den * cov } else { f64::NAN }
            }
        } else {
            f64::NAN
        };
    }
    out
}

fn num_col(name: &str, c: &Column) -> Result<Vec<f64>> {
    need_num(name, c)?;
    Ok(nan_f64(c))
}

/// `vector_fn` for the ewm functions: a table's numeric and BOOL columns are computed, its
/// other columns kept as they are (funcs/e/ewmVar.md: the time and symbol columns pass).
fn ewm_form(name: &str, x: &Value, f: &dyn Fn(&Column) -> Result<Column>) -> Result<Value> {
    let table = matches!(x, Value::Table(_));
    vector_fn(name, x, &|c| if table && !(c.ty.is_numeric() || c.ty == beluga_runtime::DataType::Bool) { Ok(c.clone()) } else { f(c) })
}

fn ewm_mean_fn(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let p = params("ewmMean", &a, 1, false)?;
    ewm_form("ewmMean", &a[0], &|c| Ok(dcol(ewm_mean(&num_col("ewmMean", c)?, p))))
}

fn ewm_var_fn(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let p = params("ewmVar", &a, 1, true)?;
    ewm_form("ewmVar", &a[0], &|c| {
        let x = num_col("ewmVar", c)?;
        Ok(dcol(ewm_cov(&x, &x, p, p.bias)))
    })
}

fn ewm_std_fn(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let p = params("ewmStd", &a, 1, true)?;
    ewm_form("ewmStd", &a[0], &|c| {
        let x = num_col("ewmStd", c)?;
        Ok(dcol(ewm_cov(&x, &x, p, p.bias).into_iter().map(|v| if v.is_nan() { v } else { v.max(0.0).sqrt() }).collect()))
    })
}

/// `ewmCov`/`ewmCorr` arguments in the manual's order: `X, [com], [span], [halfLife],
/// [alpha], [minPeriods], [adjust], [ignoreNA], [other], [bias]`. The older Beluga form
/// `(X, Y, com, …)` (a non-scalar second argument) is still read.
fn pair_args(name: &'static str, mut a: Vec<Value>) -> Result<(Vec<Value>, Ewm)> {
    let legacy = matches!(a.get(1), Some(Value::Vector(_) | Value::Matrix(_) | Value::Table(_) | Value::Tuple(_)));
    if legacy {
        // (X, Y, com, span, halfLife, alpha, minPeriods, adjust, bias)
        let y = a.remove(1);
        let bias = opt(&a, 7).cloned().unwrap_or(Value::Void);
        a.truncate(7);
        a.resize(7, Value::Void);
        a.extend([Value::Void, y, bias]);
    }
    let other = opt(&a, 8).cloned().ok_or_else(|| Error::arg(format!("[{name}] needs the other argument")))?;
    let mut p = params(name, &a[..a.len().min(8)], 1, false)?;
    p.bias = opt(&a, 9).and_then(|v| v.as_bool()).unwrap_or(false);
    Ok((vec![a[0].clone(), other], p))
}

/// Run a two-series kernel over the forms the window functions accept: vectors, a matrix
/// with a vector or a matrix of its shape (column by column, keeping shape and labels), a
/// table with a vector or a table (numeric and BOOL columns computed, others kept).
fn run_pair(name: &'static str, data: Vec<Value>, f: impl Fn(&[f64], &[f64]) -> Vec<f64> + Send + Sync) -> Result<Value> {
    let kernel = move |s: &[crate::window::Slice]| -> Result<Vec<Column>> {
        for x in s {
            if !(x.ty().is_numeric() || x.ty() == beluga_runtime::DataType::Bool) {
                return Err(Error::unsupported(name, x.ty()));
            }
        }
        Ok(vec![dcol(f(&s[0].f64s(), &s[1].f64s()))])
    };
    crate::window::run(crate::window::Prep::new(name, data, Box::new(kernel)))
}

fn ewm_cov_fn(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (data, p) = pair_args("ewmCov", a)?;
    run_pair("ewmCov", data, move |x, y| ewm_cov(x, y, p, p.bias))
}

fn ewm_corr_fn(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (data, p) = pair_args("ewmCorr", a)?;
    run_pair("ewmCorr", data, move |x, y| {
        // pairs with a null on either side are dropped from all three moments
        let (xm, ym): (Vec<f64>, Vec<f64>) =
            x.iter().zip(y).map(|(a, b)| if a.is_nan() || b.is_nan() { (f64::NAN, f64::NAN) } else { (*a, *b) }).unzip();
        let cxy = ewm_cov(&xm, &ym, p, true);
        let vx = ewm_cov(&xm, &xm, p, true);
        let vy = ewm_cov(&ym, &ym, p, true);
        (0..x.len())
            .map(|i| {
                let d = (vx[i] * vy[i]).sqrt();
                if d > 0.0 { cxy[i] / d } else { f64::NAN }
            })
            .collect()
    })
}

const P1: &[&str] = &["X", "com", "span", "halfLife", "alpha", "minPeriods", "adjust", "ignoreNA", "times"];
const PV: &[&str] = &["X", "com", "span", "halfLife", "alpha", "minPeriods", "adjust", "ignoreNA", "bias"];
const P2: &[&str] = &["X", "com", "span", "halfLife", "alpha", "minPeriods", "adjust", "ignoreNA", "other", "bias"];

pub const DEFS: &[Builtin] = &[
    fp("ewmCorr", Kind::VectorToVector, 2, 10, ewm_corr_fn, P2),
    fp("ewmCov", Kind::VectorToVector, 2, 10, ewm_cov_fn, P2),
    fp("ewmMean", Kind::VectorToVector, 1, 9, ewm_mean_fn, P1),
    fp("ewmStd", Kind::VectorToVector, 1, 9, ewm_std_fn, PV),
    fp("ewmVar", Kind::VectorToVector, 1, 9, ewm_var_fn, PV),
];
