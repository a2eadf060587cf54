//! Moment statistics and positional aggregates: std, stdp, var, varp, skew, kurtosis, sem,
//! rms, mad, imax, imin, atImax, atImin, wavg, wsum, wsum2, contextCount, contextSum,
//! contextSum2. All statistics are DOUBLE and skip nulls (pairs where either is null for the
//! two-argument forms).

use beluga_runtime::CallCtx;
use crate::agg::{agg_any, extreme_index};
use crate::math_util::{aggregate2, bool_opt, is_num, need_num, valid_pairs};
use crate::util::{aggregate, opt};
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind, Split};
use beluga_runtime::{with_numeric, DataType, Error, Result, Value};

/// Count, mean and centred power sums (m2, m3, m4) of the non-null values, in two passes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Moments {
    pub n: usize,
    pub mean: f64,
    pub m2: f64,
    pub m3: f64,
    pub m4: f64,
    /// A NaN or ±Infinity value was among the inputs: every moment statistic is then NaN
    /// (inf - inf), as numpy gives; runtime/src/null.rs.
    pub special: bool,
}

fn moments_of<T: Native>(v: &[T], order: u8) -> Moments {
    let (mut s, mut n) = (0f64, 0usize);
    let mut special = false;
    for &x in v {
        if !x.is_null() {
            s += x.to_f64();
            n += 1;
        } else if !beluga_runtime::null::is_null_strict(x) {
            special = true;
        }
        if !x.is_null() && !x.to_f64().is_finite() {
            special = true;
        }
    }
    if special {
        return Moments { n: n.max(1), mean: f64::NAN, m2: f64::NAN, m3: f64::NAN, m4: f64::NAN, special };
    }
    if n == 0 {
        return Moments::default();
    }
    let mean = s / n as f64;
    let (mut m2, mut m3, mut m4) = (0f64, 0f64, 0f64);
    for &x in v {
        if !x.is_null() {
            let d = x.to_f64() - mean;
            let d2 = d * d;
            m2 += d2;
            if order > 2 {
                m3 += d2 * d;
                m4 += d2 * d2;
            }
        }
    }
    Moments { n, mean, m2, m3, m4, special: false }
}

/// Moments of a numeric column (`order` 2 computes m2 only; 4 computes up to m4).
pub fn moments(c: &Column, order: u8) -> Moments {
    with_numeric!(&*c.data, v => moments_of(v, order)).unwrap_or_default()
}

fn nul() -> Value {
    Value::null_of(DataType::Double)
}

/// Sample (`pop` = false) or population variance.
pub fn var_col(name: &str, c: &Column, pop: bool) -> Result<Value> {
    need_num(name, c)?;
    let m = moments(c, 2);
    if m.special {
        return Ok(Value::double_ieee(f64::NAN, true));
    }
    let d = if pop { m.n as f64 } else { m.n as f64 - 1.0 };
    Ok(if m.n == 0 || d <= 0.0 { nul() } else { Value::double((m.m2 / d).max(0.0)) })
}

/// Sample (`pop` = false) or population standard deviation.
pub fn std_col(name: &str, c: &Column, pop: bool) -> Result<Value> {
    Ok(match var_col(name, c, pop)? {
        Value::Scalar(s) if s.is_nan_at(0) => Value::Scalar(s),
        Value::Scalar(s) => match s.f64_at(0) {
            Some(v) => Value::double(v.sqrt()),
            None => nul(),
        },
        other => other,
    })
}

/// Skewness (biased by default).
pub fn skew_col(c: &Column, biased: bool) -> Result<Value> {
    std_moment("skew", c, 3, biased, |g1, n| g1 * (n * (n - 1.0)).sqrt() / (n - 2.0))
}

/// Kurtosis (biased, not excess, by default; the unbiased form is the sample excess
/// kurtosis plus 3).
pub fn kurtosis_col(c: &Column, biased: bool) -> Result<Value> {
    std_moment("kurtosis", c, 4, biased, |g2, n| ((n + 1.0) * (g2 - 3.0) + 6.0) * (n - 1.0) / ((n - 2.0) * (n - 3.0)) + 3.0)
}

/// The standardised `k`-th central moment (k = 3 skewness, 4 kurtosis) of `c`; unbiased
/// by `unbias(g, n)`, which needs at least k values (NULL with fewer).
fn std_moment(name: &str, c: &Column, k: usize, biased: bool, unbias: impl Fn(f64, f64) -> f64) -> Result<Value> {
    need_num(name, c)?;
    let m = moments(c, 4);
    if m.special {
        return Ok(Value::double_ieee(f64::NAN, true));
    }
    let n = m.n as f64;
    if m.n == 0 || m.m2 == 0.0 {
        return Ok(nul());
    }
    let g = if k == 3 { (m.m3 / n) / (m.m2 / n).powf(1.5) } else { (m.m4 / n) / (m.m2 / n).powi(2) };
    if biased {
        return Ok(Value::double(g));
    }
    if m.n < k {
        return Ok(nul());
    }
    Ok(Value::double(unbias(g, n)))
}

fn std(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("std", &a[0], &|c| std_col("std", c, false))
}
fn stdp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("stdp", &a[0], &|c| std_col("stdp", c, true))
}
fn var(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("var", &a[0], &|c| var_col("var", c, false))
}
fn varp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("varp", &a[0], &|c| var_col("varp", c, true))
}
fn skew(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let biased = bool_opt(&a, 1, true);
    agg_any("skew", &a[0], &|c| skew_col(c, biased))
}
fn kurtosis(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let biased = bool_opt(&a, 1, true);
    agg_any("kurtosis", &a[0], &|c| kurtosis_col(c, biased))
}

/// Standard error of the mean: std / sqrt(n).
fn sem(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("sem", &a[0], &|c| {
        need_num("sem", c)?;
        let m = moments(c, 2);
        if m.n < 2 {
            return Ok(nul());
        }
        let s = (m.m2 / (m.n as f64 - 1.0)).sqrt();
        Ok(Value::double(s / (m.n as f64).sqrt()))
    })
}

/// Root mean square.
fn rms(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("rms", &a[0], &|c| {
        need_num("rms", c)?;
        let v = crate::math_util::valid_f64(c);
        if v.is_empty() {
            return Ok(nul());
        }
        Ok(Value::double((v.iter().map(|x| x * x).sum::<f64>() / v.len() as f64).sqrt()))
    })
}

/// Mean absolute deviation from the mean, or median absolute deviation from the median.
pub fn mad_col(c: &Column, use_median: bool) -> Result<Value> {
    need_num("mad", c)?;
    let mut v = crate::math_util::valid_f64(c);
    if v.is_empty() {
        return Ok(nul());
    }
    if use_median {
        let m = crate::agg_order::median_of(&mut v);
        let mut d: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
        return Ok(Value::double(crate::agg_order::median_of(&mut d)));
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    Ok(Value::double(v.iter().map(|x| (x - mean).abs()).sum::<f64>() / v.len() as f64))
}

fn mad(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let um = bool_opt(&a, 1, false);
    agg_any("mad", &a[0], &|c| mad_col(c, um))
}

// ------------------------------------------------------------------ imax / imin / atImax

fn index_col(name: &str, c: &Column, want_max: bool) -> Result<Value> {
    if c.ty == DataType::Void {
        return Ok(Value::int(-1));
    }
    if !(c.ty.is_numeric() || c.ty.is_temporal() || c.ty.is_literal()) {
        return Err(Error::unsupported(name, c.ty));
    }
    Ok(Value::int(extreme_index(c, want_max).map(|i| i as i32).unwrap_or(-1)))
}

fn imax(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate("imax", &a[0], &|c| index_col("imax", c, true))
}
fn imin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate("imin", &a[0], &|c| index_col("imin", c, false))
}

fn at_extreme(name: &str, a: &[Value], want_max: bool) -> Result<Value> {
    aggregate2(name, &a[0], &a[1], &|loc, val| {
        if loc.len() != val.len() {
            return Err(Error::size(format!("The arguments of [{name}] must have the same length")));
        }
        Ok(match extreme_index(loc, want_max) {
            Some(i) => Value::Scalar(val.slice(i, i + 1)),
            None => Value::Scalar(Column::nulls(val.ty, 1)),
        })
    })
}

fn at_imax(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    at_extreme("atImax", &a, true)
}
fn at_imin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    at_extreme("atImin", &a, false)
}

// ------------------------------------------------------------------ weighted sums

fn pair_check(name: &str, x: &Column, y: &Column) -> Result<()> {
    if !is_num(x.ty) || !is_num(y.ty) {
        return Err(Error::unsupported(name, if is_num(x.ty) { y.ty } else { x.ty }));
    }
    if x.len() != y.len() {
        return Err(Error::size(format!("The arguments of [{name}] must have the same length")));
    }
    Ok(())
}

/// `wavg(X, W)`: sum(X*W)/sum(W) over pairs where both are non-null.
pub fn wavg_col(x: &Column, w: &Column) -> Result<Value> {
    pair_check("wavg", x, w)?;
    let (p, q) = valid_pairs(x, w);
    let sw: f64 = q.iter().sum();
    if p.is_empty() || sw == 0.0 {
        return Ok(nul());
    }
    Ok(Value::double(p.iter().zip(&q).map(|(a, b)| a * b).sum::<f64>() / sw))
}

/// `wsum(X, Y)`: sum(X*Y) over pairs where both are non-null.
pub fn wsum_col(x: &Column, y: &Column) -> Result<Value> {
    pair_check("wsum", x, y)?;
    let (p, q) = valid_pairs(x, y);
    if p.is_empty() {
        return Ok(nul());
    }
    Ok(Value::double(p.iter().zip(&q).map(|(a, b)| a * b).sum::<f64>()))
}

/// `wsum2(X, Y)`: sum(Y * X^2) over pairs where both are non-null.
fn wsum2_col(x: &Column, y: &Column) -> Result<Value> {
    pair_check("wsum2", x, y)?;
    let (p, q) = valid_pairs(x, y);
    if p.is_empty() {
        return Ok(nul());
    }
    Ok(Value::double(p.iter().zip(&q).map(|(a, b)| a * a * b).sum::<f64>()))
}

fn wavg(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("wavg", &a[0], &a[1], &wavg_col)
}
fn wsum(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("wsum", &a[0], &a[1], &wsum_col)
}
fn wsum2(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate2("wsum2", &a[0], &a[1], &wsum2_col)
}

/// contextCount/contextSum/contextSum2: statistics of X over rows where X and Y are both non-null.
fn context(name: &'static str, a: &[Value], power: i32) -> Result<Value> {
    aggregate2(name, &a[0], &a[1], &|x, y| {
        if x.len() != y.len() {
            return Err(Error::size(format!("The arguments of [{name}] must have the same length")));
        }
        let both: Vec<usize> = (0..x.len()).filter(|&i| !x.is_null(i) && !y.is_null(i)).collect();
        if power == 0 {
            return Ok(Value::int(both.len() as i32));
        }
        need_num(name, x)?;
        if both.is_empty() {
            return Ok(nul());
        }
        let v = crate::math_util::nan_f64(x);
        Ok(Value::double(both.iter().map(|&i| v[i].powi(power)).sum()))
    })
}

fn context_count(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    context("contextCount", &a, 0)
}
fn context_sum(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    context("contextSum", &a, 1)
}
fn context_sum2(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    context("contextSum2", &a, 2)
}

/// `wcovar(X, Y, W)`: weighted covariance, sum(w(x-mx)(y-my))/sum(w) scaled by n/(n-1).
fn wcovar(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = crate::math_util::vec_arg("wcovar", &a[0])?;
    let y = crate::math_util::vec_arg("wcovar", &a[1])?;
    let w = crate::math_util::vec_arg("wcovar", &a[2])?;
    if x.len() != y.len() || x.len() != w.len() {
        return Err(Error::size("The arguments of [wcovar] must have the same length"));
    }
    let idx: Vec<usize> = (0..x.len()).filter(|&i| !x[i].is_nan() && !y[i].is_nan() && !w[i].is_nan()).collect();
    let sw: f64 = idx.iter().map(|&i| w[i]).sum();
    let n = idx.len() as f64;
    if idx.len() < 2 || sw == 0.0 {
        return Ok(nul());
    }
    let mx = idx.iter().map(|&i| w[i] * x[i]).sum::<f64>() / sw;
    let my = idx.iter().map(|&i| w[i] * y[i]).sum::<f64>() / sw;
    let s: f64 = idx.iter().map(|&i| w[i] * (x[i] - mx) * (y[i] - my)).sum();
    Ok(Value::double(s / sw * n / (n - 1.0)))
}

/// `demean(X)`: X minus its mean (DOUBLE), column by column for matrices and tables.
fn demean(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    crate::util::vector_fn("demean", &a[0], &|c| {
        need_num("demean", c)?;
        let m = moments(c, 2);
        let mean = if m.n == 0 { f64::NAN } else { m.mean };
        Ok(crate::math_util::map_col(c, |x| x - mean))
    })
}

/// `percentChange(X, [n=1])`: X[i] / X[i-n] - 1.
fn percent_change(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let n = match opt(&a, 1) {
        Some(v) => crate::util::int_arg("percentChange", v, "n")?,
        None => 1,
    };
    crate::util::vector_fn("percentChange", &a[0], &|c| {
        need_num("percentChange", c)?;
        let x = crate::math_util::nan_f64(c);
        let len = x.len() as i64;
        let out: Vec<f64> = (0..len)
            .map(|i| {
                let j = i - n;
                if j < 0 || j >= len {
                    return f64::NAN;
                }
                let (cur, prev) = (x[i as usize], x[j as usize]);
                if prev == 0.0 { f64::NAN } else { cur / prev - 1.0 }
            })
            .collect();
        Ok(crate::math_util::dcol(out))
    })
}

/// `boxcox(X, [lambda])`: Box-Cox transform; without lambda the maximum-likelihood lambda
/// is estimated and a tuple (transformed, lambda) is returned.
fn boxcox(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = crate::math_util::vec_arg("boxcox", &a[0])?;
    if x.iter().any(|v| !v.is_nan() && *v <= 0.0) {
        return Err(Error::arg("The data of [boxcox] must be positive"));
    }
    let tr = |lam: f64| -> Vec<f64> {
        x.iter()
            .map(|&v| if v.is_nan() { f64::NAN } else if lam.abs() < 1e-12 { v.ln() } else { (v.powf(lam) - 1.0) / lam })
            .collect()
    };
    if let Some(l) = opt(&a, 1) {
        let lam = crate::math_util::f64_arg("boxcox", l, "lambda")?;
        return Ok(crate::math_util::dvec(tr(lam)));
    }
    let valid: Vec<f64> = x.iter().copied().filter(|v| !v.is_nan()).collect();
    if valid.len() < 2 {
        return Err(Error::arg("[boxcox] needs at least two non-null values to estimate lambda"));
    }
    let n = valid.len() as f64;
    let sum_log: f64 = valid.iter().map(|v| v.ln()).sum();
    // profile log-likelihood, maximised by golden-section search on [-5, 5]
    let llf = |lam: f64| -> f64 {
        let y: Vec<f64> = valid.iter().map(|&v| if lam.abs() < 1e-12 { v.ln() } else { (v.powf(lam) - 1.0) / lam }).collect();
        let m = y.iter().sum::<f64>() / n;
        let var = y.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n;
        (lam - 1.0) * sum_log - n / 2.0 * var.ln()
    };
    let (mut lo, mut hi) = (-5.0f64, 5.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..200 {
        let c = hi - g * (hi - lo);
        let d = lo + g * (hi - lo);
        if llf(c) > llf(d) { hi = d } else { lo = c }
    }
    let lam = (lo + hi) / 2.0;
    Ok(Value::tuple(vec![crate::math_util::dvec(tr(lam)), Value::double(lam)]))
}

/// `wc(X)`: number of words (whitespace-separated) in each string.
fn wc(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    beluga_runtime::eval::ops::unary_col(&a[0], &|c: &Column| {
        if !c.ty.is_literal() {
            return Err(Error::unsupported("wc", c.ty));
        }
        let r: Vec<i32> = (0..c.len()).map(|i| c.str_at(i).unwrap_or("").split_whitespace().count() as i32).collect();
        Ok(Column::from_vec(DataType::Int, r))
    })
}

pub const DEFS: &[Builtin] = &[
    fp("atImax", Kind::Aggregate, 2, 2, at_imax, &["location", "value"]),
    fp("atImin", Kind::Aggregate, 2, 2, at_imin, &["location", "value"]),
    fp("boxcox", Kind::System, 1, 2, boxcox, &["X", "lambda"]),
    fp("contextCount", Kind::Aggregate, 2, 2, context_count, &["X", "Y"]),
    fp("contextSum", Kind::Aggregate, 2, 2, context_sum, &["X", "Y"]),
    fp("contextSum2", Kind::Aggregate, 2, 2, context_sum2, &["X", "Y"]),
    fp("demean", Kind::VectorToVector, 1, 1, demean, &["X"]),
    fp("imax", Kind::Aggregate, 1, 1, imax, &["X"]).over(beluga_runtime::sql::over::imax),
    fp("imin", Kind::Aggregate, 1, 1, imin, &["X"]).over(beluga_runtime::sql::over::imin),
    fp("kurtosis", Kind::Aggregate, 1, 2, kurtosis, &["X", "biased"]),
    fp("mad", Kind::Aggregate, 1, 2, mad, &["X", "useMedian"]),
    fp("percentChange", Kind::VectorToVector, 1, 2, percent_change, &["X", "n"]),
    fp("rms", Kind::Aggregate, 1, 1, rms, &["X"]),
    fp("sem", Kind::Aggregate, 1, 1, sem, &["X"]),
    fp("skew", Kind::Aggregate, 1, 2, skew, &["X", "biased"]),
    fp("std", Kind::Aggregate, 1, 1, std, &["X"]).grouped(super::group::std).split(Split::Var { pop: false, root: true }),
    fp("stdp", Kind::Aggregate, 1, 1, stdp, &["X"]).grouped(super::group::stdp).split(Split::Var { pop: true, root: true }),
    fp("var", Kind::Aggregate, 1, 1, var, &["X"]).grouped(super::group::var).split(Split::Var { pop: false, root: false }),
    fp("varp", Kind::Aggregate, 1, 1, varp, &["X"]).grouped(super::group::varp).split(Split::Var { pop: true, root: false }),
    fp("wavg", Kind::Aggregate, 2, 2, wavg, &["X", "Y"]).grouped2(super::group::wavg).split(Split::Weighted { avg: true }),
    fp("wc", Kind::Elementwise, 1, 1, wc, &["X"]),
    fp("wcovar", Kind::Aggregate, 3, 3, wcovar, &["X", "Y", "W"]),
    fp("wsum", Kind::Aggregate, 2, 2, wsum, &["X", "Y"]).grouped2(super::group::wsum).split(Split::Weighted { avg: false }),
    fp("wsum2", Kind::Aggregate, 2, 2, wsum2, &["X", "Y"]),
];
