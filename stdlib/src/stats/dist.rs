//! Distributions and tests: special functions (log-gamma, regularized incomplete gamma and
//! beta), cdfNormal, cdfStudent, cdfChiSquare, invNormal, invStudent, tTest.

use beluga_runtime::CallCtx;
use crate::math_util::{bool_opt, f64_arg, str_dict, vec_arg};
use crate::util::{map_f64, opt};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Table, Value};

/// ln Γ(x) for x > 0 (Lanczos, g = 7).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // reflection
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).abs().ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Regularized lower incomplete gamma P(a, x).
pub fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 || a <= 0.0 {
        return if x <= 0.0 { 0.0 } else { f64::NAN };
    }
    let lg = ln_gamma(a);
    if x < a + 1.0 {
        let (mut sum, mut del, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        (sum.ln() - x + a * x.ln() - lg).exp().min(1.0)
    } else {
        // continued fraction for Q(a, x) (modified Lentz)
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-17 {
                break;
            }
        }
        1.0 - (-x + a * x.ln() - lg).exp() * h
    }
}

fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    let tiny = 1e-300;
    let floor = |v: f64| if v.abs() < tiny { tiny } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / floor(1.0 - qab * x / qap);
    let mut h = d;
    // one modified-Lentz step with coefficient `aa`: the factor it multiplies h by
    let step = |aa: f64, c: &mut f64, d: &mut f64| {
        *d = 1.0 / floor(1.0 + aa * *d);
        *c = floor(1.0 + aa / *c);
        *d * *c
    };
    for m in 1..10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &mut c, &mut d);
        h *= del;
        if (del - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// Regularized incomplete beta I_x(a, b).
pub fn beta_inc(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let bt = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        bt * beta_cf(a, b, x) / a
    } else {
        1.0 - bt * beta_cf(b, a, 1.0 - x) / b
    }
}

/// Standard normal CDF.
pub fn norm_cdf(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    let p = 0.5 * gamma_p(0.5, z * z / 2.0);
    if z >= 0.0 { 0.5 + p } else { 0.5 - p }
}

pub fn norm_pdf(z: f64) -> f64 {
    (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// Standard normal quantile (Acklam's rational approximation refined by Newton steps).
pub fn norm_inv(p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.383577518672690e2, -3.066479806614716e1, 2.506628277459239];
    const B: [f64; 5] = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
    const C: [f64; 6] = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
    const D: [f64; 4] = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    let pl = 0.02425;
    let mut x = if p < pl {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - pl {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = (-2.0 * (1.0 - p).ln()).sqrt();
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    for _ in 0..3 {
        let e = norm_cdf(x) - p;
        let d = norm_pdf(x);
        if d == 0.0 {
            break;
        }
        let u = e / d;
        x -= u / (1.0 + x * u / 2.0);
    }
    x
}

/// Student t CDF with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let x = df / (df + t * t);
    let p = 0.5 * beta_inc(df / 2.0, 0.5, x);
    if t > 0.0 { 1.0 - p } else { p }
}

/// Invert a monotone CDF by bracketing and bisection.
pub fn invert(cdf: &dyn Fn(f64) -> f64, p: f64, start: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let (mut lo, mut hi) = (start - 1.0, start + 1.0);
    let mut step = 1.0;
    while cdf(lo) > p && lo > -1e300 {
        step *= 2.0;
        lo = start - step;
    }
    step = 1.0;
    while cdf(hi) < p && hi < 1e300 {
        step *= 2.0;
        hi = start + step;
    }
    for _ in 0..300 {
        let mid = 0.5 * (lo + hi);
        if mid == lo || mid == hi {
            break;
        }
        if cdf(mid) < p { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}

pub fn t_inv(p: f64, df: f64) -> f64 {
    invert(&|t| t_cdf(t, df), p, norm_inv(p))
}

pub fn chi2_cdf(x: f64, df: f64) -> f64 {
    if x.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    gamma_p(df / 2.0, x.max(0.0) / 2.0)
}

pub fn f_cdf(x: f64, d1: f64, d2: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    beta_inc(d1 / 2.0, d2 / 2.0, d1 * x / (d1 * x + d2))
}

fn positive(name: &str, v: &Value, what: &str) -> Result<f64> {
    let x = f64_arg(name, v, what)?;
    if x <= 0.0 {
        return Err(Error::arg(format!("The {what} of [{name}] must be positive")));
    }
    Ok(x)
}

fn cdf_normal(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = f64_arg("cdfNormal", &a[0], "mean")?;
    let sd = positive("cdfNormal", &a[1], "stdev")?;
    map_f64("cdfNormal", &a[2], &move |x| norm_cdf((x - mu) / sd))
}

fn inv_normal(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = f64_arg("invNormal", &a[0], "mean")?;
    let sd = positive("invNormal", &a[1], "stdev")?;
    map_f64("invNormal", &a[2], &move |p| mu + sd * norm_inv(p))
}

fn cdf_student(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = positive("cdfStudent", &a[0], "df")?;
    map_f64("cdfStudent", &a[1], &move |x| t_cdf(x, df))
}

fn inv_student(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = positive("invStudent", &a[0], "df")?;
    map_f64("invStudent", &a[1], &move |p| t_inv(p, df))
}

fn cdf_chi_square(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = positive("cdfChiSquare", &a[0], "df")?;
    map_f64("cdfChiSquare", &a[1], &move |x| chi2_cdf(x, df))
}

/// `tTest(X, [Y], [mu=0.0], [confLevel=0.95], [equalVar=false])`.
fn t_test(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let valid = |v: Vec<f64>| -> Vec<f64> { v.into_iter().filter(|x| !x.is_nan()).collect() };
    let x = valid(vec_arg("tTest", &a[0])?);
    let y = match opt(&a, 1) {
        Some(v) => Some(valid(vec_arg("tTest", v)?)),
        None => None,
    };
    let mu = match opt(&a, 2) {
        Some(v) => f64_arg("tTest", v, "mu")?,
        None => 0.0,
    };
    let conf = match opt(&a, 3) {
        Some(v) => f64_arg("tTest", v, "confLevel")?,
        None => 0.95,
    };
    if !(0.0..1.0).contains(&conf) || conf <= 0.0 {
        return Err(Error::arg("The confLevel of [tTest] must be between 0 and 1"));
    }
    let equal_var = bool_opt(&a, 4, false);
    let mv = |v: &[f64]| -> (f64, f64, f64) {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let s2 = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
        (n, m, s2)
    };
    if x.len() < 2 {
        return Err(Error::arg("[tTest] needs at least two non-null values"));
    }
    let (est, se, df, method, what) = match &y {
        None => {
            let (n, m, s2) = mv(&x);
            (m, (s2 / n).sqrt(), n - 1.0, "One sample t-test", "true mean")
        }
        Some(y) => {
            if y.len() < 2 {
                return Err(Error::arg("[tTest] needs at least two non-null values in Y"));
            }
            let (n1, m1, v1) = mv(&x);
            let (n2, m2, v2) = mv(y);
            if equal_var {
                let df = n1 + n2 - 2.0;
                let sp = ((n1 - 1.0) * v1 + (n2 - 1.0) * v2) / df;
                (m1 - m2, (sp * (1.0 / n1 + 1.0 / n2)).sqrt(), df, "Two sample t-test", "difference of mean")
            } else {
                let (a1, a2) = (v1 / n1, v2 / n2);
                let df = (a1 + a2).powi(2) / (a1 * a1 / (n1 - 1.0) + a2 * a2 / (n2 - 1.0));
                (m1 - m2, (a1 + a2).sqrt(), df, "Welch two sample t-test", "difference of mean")
            }
        }
    };
    let t = (est - mu) / se;
    let mu_text = i.format(&Value::double(mu));
    let q2 = t_inv(1.0 - (1.0 - conf) / 2.0, df);
    let q1 = t_inv(conf, df);
    let p_two = 2.0 * t_cdf(-t.abs(), df);
    let p_less = t_cdf(t, df);
    let p_greater = 1.0 - p_less;
    let names = [
        format!("{what} is not equal to {mu_text}"),
        format!("{what} is less than {mu_text}"),
        format!("{what} is greater than {mu_text}"),
    ];
    let hyp = Column::new(DataType::String, ColData::Str(StrCol::from_iter(names.iter().map(|s| s.as_str()))));
    let pv = Column::from_vec(DataType::Double, vec![p_two, p_less, p_greater]);
    let lo = Column::from_vec(DataType::Double, vec![est - q2 * se, f64::NEG_INFINITY, est - q1 * se]);
    let hi = Column::from_vec(DataType::Double, vec![est + q2 * se, est + q1 * se, f64::INFINITY]);
    let stat = Table::new(
        vec!["alternativeHypothesis".into(), "pValue".into(), "lowerBound".into(), "upperBound".into()],
        vec![hyp, pv, lo, hi],
    )?;
    let df_val = if df.fract() == 0.0 { Value::long(df as i64) } else { Value::double(df) };
    str_dict(vec![
        ("stat", Value::table(stat)),
        ("df", df_val),
        ("confLevel", Value::double(conf)),
        ("method", Value::string(method)),
        ("tValue", Value::double(t)),
    ])
}

pub const DEFS: &[Builtin] = &[
    fp("cdfChiSquare", Kind::Elementwise, 2, 2, cdf_chi_square, &["df", "X"]),
    fp("cdfNormal", Kind::Elementwise, 3, 3, cdf_normal, &["mean", "stdev", "X"]),
    fp("cdfStudent", Kind::Elementwise, 2, 2, cdf_student, &["df", "X"]),
    fp("invNormal", Kind::Elementwise, 3, 3, inv_normal, &["mean", "stdev", "X"]),
    fp("invStudent", Kind::Elementwise, 2, 2, inv_student, &["df", "X"]),
    fp("tTest", Kind::System, 1, 5, t_test, &["X", "Y", "mu", "confLevel", "equalVar"]),
];
