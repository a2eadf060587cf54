//! Random numbers from the session generator (`Interpreter::next_u64`, seeded by
//! `setRandomSeed` in system.rs): rand, norm/normal, randNormal, randUniform, randExp, randGamma,
//! randBeta, randBinomial, randChiSquare, randF, randLogistic, randPoisson, randStudent,
//! randWeibull, randDiscrete, randMultivariateNormal.

use beluga_runtime::CallCtx;
use crate::math_util::{bool_opt, dmat, f64_arg, mat_arg, vec_arg};
use crate::stats_dist::ln_gamma;
use crate::util::col;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

/// Uniform in [0, 1).
pub fn u01(i: &mut CallCtx) -> f64 {
    (i.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Uniform in (0, 1) (never exactly 0, for logarithms).
fn u01_open(i: &mut CallCtx) -> f64 {
    loop {
        let u = u01(i);
        if u > 0.0 {
            return u;
        }
    }
}

/// Standard normal (Marsaglia polar method).
pub fn std_normal(i: &mut CallCtx) -> f64 {
    loop {
        let u = 2.0 * u01(i) - 1.0;
        let v = 2.0 * u01(i) - 1.0;
        let s = u * u + v * v;
        if s > 0.0 && s < 1.0 {
            return u * (-2.0 * s.ln() / s).sqrt();
        }
    }
}

/// Gamma(shape, 1) (Marsaglia-Tsang).
pub fn std_gamma(i: &mut CallCtx, shape: f64) -> f64 {
    if shape < 1.0 {
        let u = u01_open(i);
        return std_gamma(i, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let (mut x, mut v);
        loop {
            x = std_normal(i);
            v = 1.0 + c * x;
            if v > 0.0 {
                break;
            }
        }
        v = v * v * v;
        let u = u01_open(i);
        if u < 1.0 - 0.0331 * x * x * x * x || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// Uniform integer in [0, n) without modulo bias.
pub fn below(i: &mut CallCtx, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let r = i.next_u64();
        if r < zone {
            return r % n;
        }
    }
}

fn poisson(i: &mut CallCtx, lam: f64) -> i64 {
    if lam < 30.0 {
        let l = (-lam).exp();
        let (mut k, mut p) = (0i64, 1.0);
        loop {
            p *= u01(i);
            if p <= l {
                return k;
            }
            k += 1;
        }
    }
    // PTRS (Hörmann 1993)
    let slam = lam.sqrt();
    let loglam = lam.ln();
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = u01(i) - 0.5;
        let v = u01_open(i);
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
        if us >= 0.07 && v <= vr {
            return k as i64;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        if v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln() <= -lam + k * loglam - ln_gamma(k + 1.0) {
            return k as i64;
        }
    }
}

fn binomial(i: &mut CallCtx, n: i64, p: f64) -> i64 {
    if p <= 0.0 || n <= 0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    let flip = p > 0.5;
    let p = if flip { 1.0 - p } else { p };
    let k = if (n as f64) * p < 10.0 {
        // inversion by sequential search
        let q = 1.0 - p;
        let s = p / q;
        let a = (n + 1) as f64 * s;
        let mut r = q.powf(n as f64);
        let mut u = u01(i);
        let mut x = 0i64;
        loop {
            if u < r || x >= n {
                break x;
            }
            u -= r;
            x += 1;
            r *= a / x as f64 - s;
        }
    } else {
        // BTRS (Hörmann 1993)
        let nf = n as f64;
        let q = 1.0 - p;
        let spq = (nf * p * q).sqrt();
        let b = 1.15 + 2.53 * spq;
        let a = -0.0873 + 0.0248 * b + 0.01 * p;
        let c = nf * p + 0.5;
        let vr = 0.92 - 4.2 / b;
        let alpha = (2.83 + 5.1 / b) * spq;
        let lpq = (p / q).ln();
        let m = ((nf + 1.0) * p).floor();
        let h = ln_gamma(m + 1.0) + ln_gamma(nf - m + 1.0);
        loop {
            let u = u01(i) - 0.5;
            let v = u01_open(i);
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + c).floor();
            if k < 0.0 || k > nf {
                continue;
            }
            if us >= 0.07 && v <= vr {
                break k as i64;
            }
            let v2 = (v * alpha / (a / (us * us) + b)).ln();
            if v2 <= h - ln_gamma(k + 1.0) - ln_gamma(nf - k + 1.0) + (k - m) * lpq {
                break k as i64;
            }
        }
    };
    if flip { n - k } else { k }
}

// ------------------------------------------------------------------ shapes

/// The `count` argument: a scalar n (vector) or a pair rows:cols (matrix).
#[derive(Clone, Copy)]
enum Shape {
    Vec(usize),
    Mat(usize, usize),
}

impl Shape {
    fn len(self) -> usize {
        match self {
            Shape::Vec(n) => n,
            Shape::Mat(r, c) => r.saturating_mul(c),
        }
    }
}

/// Largest number of values one call may generate.
const MAX_COUNT: usize = 1 << 31;

fn shape_arg(name: &str, v: &Value) -> Result<Shape> {
    let s = shape_arg_raw(name, v)?;
    if s.len() > MAX_COUNT || matches!(s, Shape::Mat(r, c) if r.checked_mul(c).is_none()) {
        return Err(Error::arg(format!("The count of [{name}] is too large")));
    }
    beluga_runtime::guard::need(s.len(), 8)?;
    Ok(s)
}

fn shape_arg_raw(name: &str, v: &Value) -> Result<Shape> {
    let bad = || Error::arg(format!("The count of [{name}] must be a non-negative integer or a pair rows:cols"));
    match v {
        Value::Pair(c) if c.len() == 2 => {
            let r = c.i64_at(0).filter(|&x| x >= 0).ok_or_else(bad)?;
            let k = c.i64_at(1).filter(|&x| x >= 0).ok_or_else(bad)?;
            Ok(Shape::Mat(r as usize, k as usize))
        }
        Value::Scalar(c) if c.ty.is_integral() || c.ty.is_floating() => {
            let n = v.as_i64().filter(|&x| x >= 0).ok_or_else(bad)?;
            Ok(Shape::Vec(n as usize))
        }
        _ => Err(bad()),
    }
}

fn wrap(shape: Shape, c: Column) -> Value {
    match shape {
        Shape::Vec(_) => Value::Vector(c),
        Shape::Mat(r, k) => Value::Matrix(Arc::new(Matrix { data: c, rows: r, cols: k, row_labels: None, col_labels: None, indexed: false })),
    }
}

fn doubles(i: &mut CallCtx, shape: Shape, mut f: impl FnMut(&mut CallCtx) -> f64) -> Value {
    let v: Vec<f64> = (0..shape.len()).map(|_| f64::from_f64(f(i))).collect();
    wrap(shape, Column::from_vec(DataType::Double, v))
}

fn ints(i: &mut CallCtx, shape: Shape, mut f: impl FnMut(&mut CallCtx) -> i64) -> Value {
    let v: Vec<i32> = (0..shape.len()).map(|_| f(i) as i32).collect();
    wrap(shape, Column::from_vec(DataType::Int, v))
}

// ------------------------------------------------------------------ builtins

/// `rand(X, count)`: uniform values below a scalar X (of X's type), or a sample with
/// replacement from a vector X.
fn rand(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let shape = shape_arg("rand", &a[1])?;
    let n = shape.len();
    match &a[0] {
        Value::Scalar(c) if c.ty.is_floating() => {
            let x = c.f64_at(0).ok_or_else(|| Error::arg("The first argument of [rand] can't be null"))?;
            let v: Vec<f64> = (0..n).map(|_| u01(i) * x).collect();
            let col = Column::from_vec(DataType::Double, v);
            let col = if c.ty == DataType::Float { beluga_runtime::kernels::cast::cast_column(&col, DataType::Float)? } else { col };
            Ok(wrap(shape, col))
        }
        Value::Scalar(c) if c.ty.is_integral() || c.ty.is_temporal() => {
            let x = c.i64_at(0).ok_or_else(|| Error::arg("The first argument of [rand] can't be null"))?;
            if x <= 0 {
                return Err(Error::arg("The first argument of [rand] must be positive"));
            }
            let v: Vec<i64> = (0..n).map(|_| below(i, x as u64) as i64).collect();
            let ty = if c.ty == DataType::Bool { DataType::Int } else { c.ty };
            let col = Column::from_vec(DataType::Long, v);
            let col = if ty == DataType::Long {
                col
            } else if ty.is_temporal() {
                Column { ty, ..col }.retag_physical()
            } else {
                col.cast_int_like(ty)
            };
            Ok(wrap(shape, col))
        }
        Value::Vector(c) | Value::Pair(c) => {
            if c.is_empty() {
                return Err(Error::arg("The vector passed to [rand] can't be empty"));
            }
            let idx: Vec<usize> = (0..n).map(|_| below(i, c.len() as u64) as usize).collect();
            Ok(wrap(shape, c.take_usize(&idx)))
        }
        other => Err(crate::math_util::form_err("rand", other)),
    }
}

fn norm(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = f64_arg("norm", &a[0], "mean")?;
    let sd = f64_arg("norm", &a[1], "stdev")?;
    if sd < 0.0 {
        return Err(Error::arg("The stdev of [norm] can't be negative"));
    }
    let shape = shape_arg("norm", &a[2])?;
    Ok(doubles(i, shape, |i| mu + sd * std_normal(i)))
}

fn rand_uniform(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let lo = f64_arg("randUniform", &a[0], "lower")?;
    let hi = f64_arg("randUniform", &a[1], "upper")?;
    if hi < lo {
        return Err(Error::arg("The upper bound of [randUniform] must not be less than the lower bound"));
    }
    let shape = shape_arg("randUniform", &a[2])?;
    Ok(doubles(i, shape, |i| lo + (hi - lo) * u01(i)))
}

fn pos(name: &str, v: &Value, what: &str) -> Result<f64> {
    let x = f64_arg(name, v, what)?;
    if x <= 0.0 {
        return Err(Error::arg(format!("The {what} of [{name}] must be positive")));
    }
    Ok(x)
}

fn rand_exp(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mean = pos("randExp", &a[0], "mean")?;
    let shape = shape_arg("randExp", &a[1])?;
    Ok(doubles(i, shape, |i| -mean * u01_open(i).ln()))
}

fn rand_gamma(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let k = pos("randGamma", &a[0], "shape")?;
    let theta = pos("randGamma", &a[1], "scale")?;
    let shape = shape_arg("randGamma", &a[2])?;
    Ok(doubles(i, shape, |i| theta * std_gamma(i, k)))
}

fn rand_beta(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let al = pos("randBeta", &a[0], "alpha")?;
    let be = pos("randBeta", &a[1], "beta")?;
    let shape = shape_arg("randBeta", &a[2])?;
    Ok(doubles(i, shape, |i| {
        let x = std_gamma(i, al);
        let y = std_gamma(i, be);
        x / (x + y)
    }))
}

fn rand_chi_square(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = pos("randChiSquare", &a[0], "df")?;
    let shape = shape_arg("randChiSquare", &a[1])?;
    Ok(doubles(i, shape, |i| 2.0 * std_gamma(i, df / 2.0)))
}

fn rand_f(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let d1 = pos("randF", &a[0], "numeratorDF")?;
    let d2 = pos("randF", &a[1], "denominatorDF")?;
    let shape = shape_arg("randF", &a[2])?;
    Ok(doubles(i, shape, |i| {
        let x = 2.0 * std_gamma(i, d1 / 2.0) / d1;
        let y = 2.0 * std_gamma(i, d2 / 2.0) / d2;
        x / y
    }))
}

fn rand_student(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = pos("randStudent", &a[0], "df")?;
    let shape = shape_arg("randStudent", &a[1])?;
    Ok(doubles(i, shape, |i| {
        let z = std_normal(i);
        let c = 2.0 * std_gamma(i, df / 2.0);
        z / (c / df).sqrt()
    }))
}

fn rand_logistic(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = f64_arg("randLogistic", &a[0], "mean")?;
    let s = pos("randLogistic", &a[1], "s")?;
    let shape = shape_arg("randLogistic", &a[2])?;
    Ok(doubles(i, shape, |i| {
        let u = u01_open(i);
        mu + s * (u / (1.0 - u)).ln()
    }))
}

fn rand_weibull(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let k = pos("randWeibull", &a[0], "alpha")?;
    let lam = pos("randWeibull", &a[1], "beta")?;
    let shape = shape_arg("randWeibull", &a[2])?;
    Ok(doubles(i, shape, |i| lam * (-u01_open(i).ln()).powf(1.0 / k)))
}

fn rand_poisson(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let lam = pos("randPoisson", &a[0], "mean")?;
    let shape = shape_arg("randPoisson", &a[1])?;
    Ok(ints(i, shape, |i| poisson(i, lam)))
}

fn rand_binomial(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let n = crate::util::int_arg("randBinomial", &a[0], "trials")?;
    let p = f64_arg("randBinomial", &a[1], "p")?;
    if n < 0 || !(0.0..=1.0).contains(&p) {
        return Err(Error::arg("[randBinomial] needs trials >= 0 and 0 <= p <= 1"));
    }
    let shape = shape_arg("randBinomial", &a[2])?;
    Ok(ints(i, shape, |i| binomial(i, n, p)))
}

/// `randDiscrete(v, p, count)`: sample from v with probabilities p (normalised).
fn rand_discrete(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let v = col("randDiscrete", &a[0])?;
    let p = vec_arg("randDiscrete", &a[1])?;
    if v.len() != p.len() || v.is_empty() {
        return Err(Error::arg("The values and probabilities of [randDiscrete] must have the same non-zero length"));
    }
    if p.iter().any(|x| x.is_nan() || *x < 0.0) {
        return Err(Error::arg("The probabilities of [randDiscrete] must be non-negative"));
    }
    let total: f64 = p.iter().sum();
    if total <= 0.0 {
        return Err(Error::arg("The probabilities of [randDiscrete] must not all be zero"));
    }
    let mut cum = Vec::with_capacity(p.len());
    let mut s = 0.0;
    for x in &p {
        s += x / total;
        cum.push(s);
    }
    let shape = shape_arg("randDiscrete", &a[2])?;
    let idx: Vec<usize> = (0..shape.len())
        .map(|_| {
            let u = u01(i);
            cum.partition_point(|&c| c <= u).min(p.len() - 1)
        })
        .collect();
    Ok(wrap(shape, v.take_usize(&idx)))
}

/// `randMultivariateNormal(mean, covar, count, [sampleAsRow=true])`.
fn rand_mv_normal(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mean = vec_arg("randMultivariateNormal", &a[0])?;
    let (cov, r, c) = mat_arg("randMultivariateNormal", &a[1])?;
    let k = mean.len();
    if r != k || c != k {
        return Err(Error::size("The covariance matrix of [randMultivariateNormal] must be k x k for a mean of length k"));
    }
    let n = crate::util::int_arg("randMultivariateNormal", &a[2], "count")?;
    if n < 0 {
        return Err(Error::arg("The count of [randMultivariateNormal] can't be negative"));
    }
    let n = n as usize;
    crate::math_util::check_size("randMultivariateNormal", n.saturating_mul(k))?;
    let as_row = bool_opt(&a, 3, true);
    let l = crate::linalg::cholesky_of(&cov, k)
        .ok_or_else(|| Error::runtime("The covariance matrix of [randMultivariateNormal] is not positive definite"))?;
    let mut samples = vec![0.0; n * k];
    for s in 0..n {
        let z: Vec<f64> = (0..k).map(|_| std_normal(i)).collect();
        for d in 0..k {
            let v = mean[d] + (0..=d).map(|j| l[j * k + d] * z[j]).sum::<f64>();
            if as_row {
                samples[d * n + s] = v;
            } else {
                samples[s * k + d] = v;
            }
        }
    }
    Ok(if as_row { dmat(samples, n, k) } else { dmat(samples, k, n) })
}

pub const DEFS: &[Builtin] = &[
    fp("norm", Kind::System, 3, 3, norm, &["mean", "std", "count"]),
    fp("normal", Kind::System, 3, 3, norm, &["mean", "std", "count"]),
    fp("rand", Kind::System, 2, 2, rand, &["X", "count"]),
    fp("randBeta", Kind::System, 3, 3, rand_beta, &["alpha", "beta", "count"]),
    fp("randBinomial", Kind::System, 3, 3, rand_binomial, &["trials", "p", "count"]),
    fp("randChiSquare", Kind::System, 2, 2, rand_chi_square, &["df", "count"]),
    fp("randDiscrete", Kind::System, 3, 3, rand_discrete, &["v", "p", "count"]),
    fp("randExp", Kind::System, 2, 2, rand_exp, &["mean", "count"]),
    fp("randF", Kind::System, 3, 3, rand_f, &["numeratorDF", "denominatorDF", "count"]),
    fp("randGamma", Kind::System, 3, 3, rand_gamma, &["shape", "scale", "count"]),
    fp("randLogistic", Kind::System, 3, 3, rand_logistic, &["mean", "s", "count"]),
    fp("randMultivariateNormal", Kind::System, 3, 4, rand_mv_normal, &["mean", "covar", "count", "sampleAsRow"]),
    fp("randNormal", Kind::System, 3, 3, norm, &["mean", "stdev", "count"]),
    fp("randPoisson", Kind::System, 2, 2, rand_poisson, &["mean", "count"]),
    fp("randStudent", Kind::System, 2, 2, rand_student, &["df", "count"]),
    fp("randUniform", Kind::System, 3, 3, rand_uniform, &["lower", "upper", "count"]),
    fp("randWeibull", Kind::System, 3, 3, rand_weibull, &["alpha", "beta", "count"]),
];
