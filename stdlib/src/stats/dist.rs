//! Log-gamma, thin wrappers over the special functions of distributions.rs (for ml.rs and
//! random.rs), and tTest. The cdf/inv/pdf builtins and the other tests live in
//! distributions.rs.

use beluga_runtime::CallCtx;
use crate::math_util::{bool_opt, f64_arg, str_dict, vec_arg};
use crate::util::opt;
use super::distributions as D;
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
    D::gamma_pq(a, x).0
}

/// Regularized incomplete beta I_x(a, b).
pub fn beta_inc(a: f64, b: f64, x: f64) -> f64 {
    D::beta_pq(a, b, x, 1.0 - x).0
}

pub use D::{norm_cdf, norm_inv, norm_pdf, t_inv};

/// Student t CDF with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    D::t_cs(t, df).0
}

pub fn chi2_cdf(x: f64, df: f64) -> f64 {
    if x.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    D::gamma_pq(df / 2.0, x.max(0.0) / 2.0).0
}

pub fn f_cdf(x: f64, d1: f64, d2: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    D::beta_pq(d1 / 2.0, d2 / 2.0, d1 * x / (d1 * x + d2), d2 / (d1 * x + d2)).0
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
    fp("tTest", Kind::System, 1, 5, t_test, &["X", "Y", "mu", "confLevel", "equalVar"]),
];
