//! Probability distributions: the special functions behind them (regularized incomplete
//! gamma and beta, with both tails kept so an upper tail keeps its relative accuracy),
//! the cdf/inv/pdf builtins of the Normal, Student, ChiSquare, F, Beta, Gamma, Exp,
//! Uniform, Logistic, Weibull, Zipf, Binomial and Poisson families, cdfKolmogorov, and
//! the hypothesis tests fTest, zTest, chiSquareTest, ksTest, shapiroTest and
//! mannWhitneyUTest (tTest is in dist.rs).
//!
//! Every cdf/inv/pdf takes scalar parameters (checked, with an error naming the bad one)
//! and maps its last argument element-wise through `util::map_f64`: a matrix gives a
//! matrix, NULL gives NULL, and a result that is not finite for a finite input (the
//! quantile of p = 1 on an unbounded support, a density pole) is NULL. A probability
//! outside [0, 1] given to an inverse is NULL too.
//!
//! Quantiles of continuous families are found by Newton steps kept inside a bracket that
//! every step shrinks (a step leaving it is replaced by bisection), from a closed-form or
//! approximate first guess; they agree with scipy to ~1e-13 relative.

use crate::math_util::{bool_opt, f64_arg, mat_arg, str_dict, vec_arg};
use crate::stats_dist::ln_gamma;
use crate::util::{map_f64, opt};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::CallCtx;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::f64::consts::PI;

// ---------------------------------------------------------------------------------------
// special functions
// ---------------------------------------------------------------------------------------

/// ln B(a, b).
pub fn ln_beta(a: f64, b: f64) -> f64 {
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// Regularized incomplete gamma: (P(a, x), Q(a, x)) = (lower, upper), each computed on the
/// side where it is not a difference from 1 (series below a + 1, continued fraction above).
pub fn gamma_pq(a: f64, x: f64) -> (f64, f64) {
    if a.is_nan() || x.is_nan() || a <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    if x <= 0.0 {
        return (0.0, 1.0);
    }
    if x.is_infinite() {
        return (1.0, 0.0);
    }
    let lpre = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut ap, mut del) = (a, 1.0 / a);
        let mut sum = del;
        for _ in 0..200_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() <= sum.abs() * 1e-17 {
                break;
            }
        }
        let p = (lpre + sum.ln()).exp().min(1.0);
        (p, 1.0 - p)
    } else {
        // Q by the Legendre continued fraction (modified Lentz)
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..200_000 {
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
            if (del - 1.0).abs() <= 1e-16 {
                break;
            }
        }
        let q = (lpre + h.ln()).exp().min(1.0);
        (1.0 - q, q)
    }
}

/// Continued fraction of the incomplete beta function (modified Lentz).
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    let tiny = 1e-300;
    let floor = |v: f64| if v.abs() < tiny { tiny } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / floor(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..200_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / floor(1.0 + aa * d);
        c = floor(1.0 + aa / c);
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / floor(1.0 + aa * d);
        c = floor(1.0 + aa / c);
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() <= 1e-16 {
            break;
        }
    }
    h
}

/// Regularized incomplete beta (I_x(a, b), 1 - I_x(a, b)) given x and y = 1 - x (passed
/// separately so a y computed without cancellation keeps its digits).
pub fn beta_pq(a: f64, b: f64, x: f64, y: f64) -> (f64, f64) {
    if a.is_nan() || b.is_nan() || x.is_nan() || a <= 0.0 || b <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    if x <= 0.0 {
        return (0.0, 1.0);
    }
    if y <= 0.0 {
        return (1.0, 0.0);
    }
    let lbt = a * x.ln() + b * y.ln() - ln_beta(a, b);
    if x < (a + 1.0) / (a + b + 2.0) {
        let i = (lbt + (beta_cf(a, b, x) / a).ln()).exp().min(1.0);
        (i, 1.0 - i)
    } else {
        let j = (lbt + (beta_cf(b, a, y) / b).ln()).exp().min(1.0);
        (1.0 - j, j)
    }
}

// ---------------------------------------------------------------------------------------
// continuous families: cdf, density, quantile
// ---------------------------------------------------------------------------------------

// SAFETY: the C library's complementary error function (from the libm std already links,
// ~1 ulp) is a pure function of a double, defined for every input.
unsafe extern "C" {
    safe fn erfc(x: f64) -> f64;
}

/// Standard normal (cdf, survival), each tail from erfc so it keeps its relative accuracy.
pub fn norm_cs(z: f64) -> (f64, f64) {
    if z.is_nan() {
        return (f64::NAN, f64::NAN);
    }
    let h = std::f64::consts::FRAC_1_SQRT_2;
    (0.5 * erfc(-z * h), 0.5 * erfc(z * h))
}

pub fn norm_cdf(z: f64) -> f64 {
    norm_cs(z).0
}

pub fn norm_pdf(z: f64) -> f64 {
    (-z * z / 2.0).exp() / (2.0 * PI).sqrt()
}

/// Standard normal quantile: Acklam's rational approximation, then Halley steps.
pub fn norm_inv(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
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
    let tail = |q: f64| (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0);
    let pl = 0.02425;
    let mut x = if p < pl {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - pl {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (-p).ln_1p()).sqrt())
    };
    for _ in 0..2 {
        // residual on the tail where it is small, so both tails keep their digits
        let e = if x < 0.0 { norm_cs(x).0 - p } else { (1.0 - p) - norm_cs(x).1 };
        let d = norm_pdf(x);
        if d == 0.0 || !e.is_finite() {
            break;
        }
        let u = e / d;
        let step = u / (1.0 + x * u / 2.0);
        x -= step;
        if step.abs() <= 1e-16 * x.abs() {
            break;
        }
    }
    x
}

/// Student t (cdf, survival) with `df` degrees of freedom.
pub fn t_cs(t: f64, df: f64) -> (f64, f64) {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    if t.is_infinite() {
        return if t > 0.0 { (1.0, 0.0) } else { (0.0, 1.0) };
    }
    let t2 = t * t;
    let (x, y) = if t2 < df { (df / (df + t2), t2 / (df + t2)) } else { (1.0 / (1.0 + t2 / df), (t2 / df) / (1.0 + t2 / df)) };
    let tail = 0.5 * beta_pq(df / 2.0, 0.5, x, y).0;
    if t > 0.0 { (1.0 - tail, tail) } else { (tail, 1.0 - tail) }
}

pub fn t_pdf(t: f64, df: f64) -> f64 {
    (-(df + 1.0) / 2.0 * (t * t / df).ln_1p() - 0.5 * df.ln() - ln_beta(df / 2.0, 0.5)).exp()
}

pub fn t_inv(p: f64, df: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) || !(df > 0.0) {
        return f64::NAN;
    }
    if p == 0.0 || p == 1.0 {
        return if p == 0.0 { f64::NEG_INFINITY } else { f64::INFINITY };
    }
    if p == 0.5 {
        return 0.0;
    }
    if df == 1.0 {
        // Cauchy: -cot(pi p), from the nearer tail so 1 - p and p stay exact
        return if p < 0.5 { -1.0 / (PI * p).tan() } else { 1.0 / (PI * (1.0 - p)).tan() };
    }
    if df == 2.0 {
        return (2.0 * p - 1.0) / (2.0 * p * (1.0 - p)).sqrt();
    }
    solve(p, f64::NEG_INFINITY, f64::INFINITY, norm_inv(p), &|t| t_cs(t, df), &|t| t_pdf(t, df))
}

/// Gamma(shape k, scale 1) density.
fn gamma_pdf(x: f64, k: f64) -> f64 {
    if x < 0.0 {
        return 0.0;
    }
    if x == 0.0 {
        return if k < 1.0 { f64::INFINITY } else if k == 1.0 { 1.0 } else { 0.0 };
    }
    ((k - 1.0) * x.ln() - x - ln_gamma(k)).exp()
}

/// Gamma(shape k, scale 1) quantile.
fn gamma_inv(p: f64, k: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return 0.0;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    // Wilson-Hilferty, or the small-x power law when that goes negative or k is small
    let z = norm_inv(p);
    let t = 1.0 - 1.0 / (9.0 * k) + z / (3.0 * k.sqrt());
    let small = ((p.ln() + ln_gamma(k + 1.0)) / k).exp();
    let x0 = if k < 1.0 || t <= 0.0 { small } else { k * t * t * t };
    solve(p, 0.0, f64::INFINITY, x0, &|x| gamma_pq(k, x), &|x| gamma_pdf(x, k))
}

fn beta_pdf(x: f64, a: f64, b: f64) -> f64 {
    if !(0.0..=1.0).contains(&x) {
        return 0.0;
    }
    ((a - 1.0) * x.ln() + (b - 1.0) * (-x).ln_1p() - ln_beta(a, b)).exp()
}

fn beta_inv(p: f64, a: f64, b: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 || p == 1.0 {
        return p;
    }
    let cdf = |x: f64| beta_pq(a, b, x, 1.0 - x);
    // the tail power laws, on the side of the mean where p falls
    let mean = a / (a + b);
    let lb = ln_beta(a, b);
    let x0 = if p <= cdf(mean).0 {
        ((p.ln() + a.ln() + lb) / a).exp().min(mean)
    } else {
        (1.0 - (((-p).ln_1p() + b.ln() + lb) / b).exp()).max(mean)
    };
    solve(p, 0.0, 1.0, x0, &cdf, &|x| beta_pdf(x, a, b))
}

fn f_cs(x: f64, d1: f64, d2: f64) -> (f64, f64) {
    if x.is_nan() {
        return (f64::NAN, f64::NAN);
    }
    if x <= 0.0 {
        return (0.0, 1.0);
    }
    if x.is_infinite() {
        return (1.0, 0.0);
    }
    let s = d1 * x + d2;
    beta_pq(d1 / 2.0, d2 / 2.0, d1 * x / s, d2 / s)
}

pub fn f_pdf(x: f64, d1: f64, d2: f64) -> f64 {
    if x < 0.0 {
        return 0.0;
    }
    if x == 0.0 {
        return if d1 < 2.0 { f64::INFINITY } else if d1 == 2.0 { 1.0 } else { 0.0 };
    }
    (0.5 * (d1 * (d1 * x).ln() + d2 * d2.ln() - (d1 + d2) * (d1 * x + d2).ln()) - x.ln() - ln_beta(d1 / 2.0, d2 / 2.0)).exp()
}

pub fn f_inv(p: f64, d1: f64, d2: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return 0.0;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    // from the Beta(d1/2, d2/2) quantile y: x = d2 y / (d1 (1 - y)), then polished
    let y = beta_inv(p, d1 / 2.0, d2 / 2.0);
    let x0 = if y < 1.0 { d2 * y / (d1 * (1.0 - y)) } else { 1.0 };
    solve(p, 0.0, f64::INFINITY, x0, &|x| f_cs(x, d1, d2), &|x| f_pdf(x, d1, d2))
}

pub fn chi2_pdf(x: f64, k: f64) -> f64 {
    if x == 0.0 {
        return if k < 2.0 { f64::INFINITY } else if k == 2.0 { 0.5 } else { 0.0 };
    }
    0.5 * gamma_pdf(x / 2.0, k / 2.0)
}

/// The x with cdf(x) = p inside the support [lo, hi] (either end may be infinite): Newton
/// steps from `x0`, each kept inside a bracket [a, b] with cdf(a) < p <= cdf(b) that
/// shrinks at every step; a step leaving the bracket (or a zero/infinite density) is
/// replaced by bisection. `cdf` returns (cdf, survival): for p > 1/2 the residual is
/// taken on the upper tail so it does not cancel.
fn solve(p: f64, lo: f64, hi: f64, x0: f64, cdf: &dyn Fn(f64) -> (f64, f64), pdf: &dyn Fn(f64) -> f64) -> f64 {
    let upper = p > 0.5;
    let q = 1.0 - p;
    // residual: positive when x is above the root
    let resid = |x: f64| {
        let (c, s) = cdf(x);
        if upper { q - s } else { c - p }
    };
    let mut x = if x0.is_finite() { x0 } else { 0.0 };
    if lo.is_finite() && x <= lo {
        x = if hi.is_finite() { 0.5 * (lo + hi) } else { lo + 1.0 };
    }
    if hi.is_finite() && x >= hi {
        x = if lo.is_finite() { 0.5 * (lo + hi) } else { hi - 1.0 };
    }
    // a finite bracket around the root
    let (mut a, mut b) = (lo, hi);
    let r0 = resid(x);
    if r0 == 0.0 {
        return x;
    }
    if r0 < 0.0 {
        a = x;
        if !hi.is_finite() {
            let mut step = x.abs().max(1.0);
            loop {
                let t = x + step;
                if !t.is_finite() {
                    return f64::INFINITY;
                }
                if resid(t) >= 0.0 {
                    b = t;
                    break;
                }
                a = t;
                step *= 2.0;
            }
        }
    } else {
        b = x;
        if !lo.is_finite() {
            let mut step = x.abs().max(1.0);
            loop {
                let t = x - step;
                if !t.is_finite() {
                    return f64::NEG_INFINITY;
                }
                if resid(t) < 0.0 {
                    a = t;
                    break;
                }
                b = t;
                step *= 2.0;
            }
        }
    }
    for _ in 0..400 {
        let r = resid(x);
        if r == 0.0 {
            return x;
        }
        if r < 0.0 {
            a = a.max(x);
        } else {
            b = b.min(x);
        }
        let d = pdf(x);
        let mut next = if d > 0.0 && d.is_finite() { x - r / d } else { f64::NAN };
        if !(next > a && next < b) {
            // bisection; geometric on a positive bracket spanning decades (a quantile of a
            // small-shape Gamma can be 1e-300), a jump toward 0 while 0 is the lower end
            next = if a > 0.0 && b > 4.0 * a {
                a.sqrt() * b.sqrt()
            } else if a == 0.0 && b > 0.0 {
                b * 1e-20
            } else {
                0.5 * (a + b)
            };
        }
        let tol = 1e-15 * next.abs().max(1e-300);
        if (next - x).abs() <= tol || b - a <= 2.0 * tol {
            return next;
        }
        x = next;
    }
    x
}

// ---------------------------------------------------------------------------------------
// discrete families
// ---------------------------------------------------------------------------------------

fn binom_cdf(k: f64, n: f64, p: f64) -> f64 {
    let k = k.floor();
    if k < 0.0 {
        return 0.0;
    }
    if k >= n {
        return 1.0;
    }
    if p == 0.0 {
        return 1.0;
    }
    if p == 1.0 {
        return 0.0;
    }
    beta_pq(n - k, k + 1.0, 1.0 - p, p).0
}

fn poisson_cdf(k: f64, lam: f64) -> f64 {
    let k = k.floor();
    if k < 0.0 {
        return 0.0;
    }
    if lam == 0.0 {
        return 1.0;
    }
    gamma_pq(k + 1.0, lam).1
}

/// The least integer k in [lo, hi] (hi may be infinite) with cdf(k) >= p.
fn discrete_inv(p: f64, lo: f64, hi: f64, guess: f64, cdf: &dyn Fn(f64) -> f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return lo;
    }
    if p == 1.0 && !hi.is_finite() {
        return f64::INFINITY;
    }
    let g = guess.floor().clamp(lo, if hi.is_finite() { hi } else { f64::MAX });
    let (mut a, mut b); // cdf(a) < p <= cdf(b), or a = lo - 1
    if cdf(g) >= p {
        b = g;
        let mut step = 1.0;
        loop {
            let t = b - step;
            if t < lo {
                a = lo - 1.0;
                break;
            }
            if cdf(t) < p {
                a = t;
                break;
            }
            b = t;
            step *= 2.0;
        }
    } else {
        a = g;
        let mut step = 1.0;
        loop {
            let t = a + step;
            if hi.is_finite() && t >= hi {
                b = hi;
                break;
            }
            if !t.is_finite() || t > 1e300 {
                return f64::INFINITY;
            }
            if cdf(t) >= p {
                b = t;
                break;
            }
            a = t;
            step *= 2.0;
        }
    }
    while b - a > 1.0 {
        let m = (0.5 * (a + b)).floor();
        if cdf(m) >= p { b = m } else { a = m }
    }
    b
}

fn zipf_prefix(num: usize, s: f64) -> Vec<f64> {
    let mut h = Vec::with_capacity(num + 1);
    h.push(0.0);
    let mut acc = 0.0;
    for k in 1..=num {
        acc += (k as f64).powf(-s);
        h.push(acc);
    }
    h
}

/// Survival function of the Kolmogorov distribution, P(K > x) (what DolphinDB's
/// cdfKolmogorov returns: cdfKolmogorov(1) = 0.27).
pub fn kolmogorov_sf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    if x < 1.0 {
        // P(K <= x) = sqrt(2 pi)/x sum_k exp(-(2k-1)^2 pi^2 / (8 x^2))
        let w = PI * PI / (8.0 * x * x);
        let mut s = 0.0;
        for k in 1..100 {
            let j = (2 * k - 1) as f64;
            let t = (-j * j * w).exp();
            s += t;
            if t < 1e-17 * s {
                break;
            }
        }
        1.0 - (2.0 * PI).sqrt() / x * s
    } else {
        let mut s = 0.0;
        for k in 1..100 {
            let kf = k as f64;
            let t = (-2.0 * kf * kf * x * x).exp();
            s += if k % 2 == 1 { t } else { -t };
            if t < 1e-17 * s.abs() {
                break;
            }
        }
        (2.0 * s).clamp(0.0, 1.0)
    }
}

// ---------------------------------------------------------------------------------------
// argument checks
// ---------------------------------------------------------------------------------------

fn pos(name: &str, v: &Value, what: &str) -> Result<f64> {
    let x = f64_arg(name, v, what)?;
    if !(x > 0.0) || !x.is_finite() {
        return Err(Error::arg(format!("The {what} of [{name}] must be a positive number")));
    }
    Ok(x)
}

fn finite(name: &str, v: &Value, what: &str) -> Result<f64> {
    let x = f64_arg(name, v, what)?;
    if !x.is_finite() {
        return Err(Error::arg(format!("The {what} of [{name}] must be a finite number")));
    }
    Ok(x)
}

fn prob(name: &str, v: &Value, what: &str) -> Result<f64> {
    let x = f64_arg(name, v, what)?;
    if !(0.0..=1.0).contains(&x) {
        return Err(Error::arg(format!("The {what} of [{name}] must be between 0 and 1")));
    }
    Ok(x)
}

/// A positive integer parameter (an integral DOUBLE is accepted).
fn count(name: &str, v: &Value, what: &str) -> Result<f64> {
    let x = f64_arg(name, v, what)?;
    if !(x >= 1.0) || x.fract() != 0.0 || x > 9.0e15 {
        return Err(Error::arg(format!("The {what} of [{name}] must be a positive integer")));
    }
    Ok(x)
}

fn uniform_bounds(name: &str, a: &[Value]) -> Result<(f64, f64)> {
    let lo = finite(name, &a[0], "lower")?;
    let hi = finite(name, &a[1], "upper")?;
    if lo >= hi {
        return Err(Error::arg(format!("The lower of [{name}] must be less than its upper")));
    }
    Ok((lo, hi))
}

/// Quantile helper: p outside [0, 1] (or NaN) gives NaN (NULL after the map).
fn in_unit(p: f64) -> bool {
    (0.0..=1.0).contains(&p)
}

// ---------------------------------------------------------------------------------------
// cdf / inv / pdf builtins
// ---------------------------------------------------------------------------------------

fn cdf_normal(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = finite("cdfNormal", &a[0], "mean")?;
    let sd = pos("cdfNormal", &a[1], "stdev")?;
    map_f64("cdfNormal", &a[2], &move |x| norm_cdf((x - mu) / sd))
}

fn inv_normal(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = finite("invNormal", &a[0], "mean")?;
    let sd = pos("invNormal", &a[1], "stdev")?;
    map_f64("invNormal", &a[2], &move |p| mu + sd * norm_inv(p))
}

fn pdf_normal(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = finite("pdfNormal", &a[0], "mean")?;
    let sd = pos("pdfNormal", &a[1], "stdev")?;
    map_f64("pdfNormal", &a[2], &move |x| norm_pdf((x - mu) / sd) / sd)
}

fn cdf_student(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = pos("cdfStudent", &a[0], "df")?;
    map_f64("cdfStudent", &a[1], &move |x| t_cs(x, df).0)
}

fn inv_student(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = pos("invStudent", &a[0], "df")?;
    map_f64("invStudent", &a[1], &move |p| t_inv(p, df))
}

fn cdf_chi_square(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = pos("cdfChiSquare", &a[0], "df")?;
    map_f64("cdfChiSquare", &a[1], &move |x| gamma_pq(df / 2.0, x / 2.0).0)
}

fn inv_chi_square(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = pos("invChiSquare", &a[0], "df")?;
    map_f64("invChiSquare", &a[1], &move |p| 2.0 * gamma_inv(p, df / 2.0))
}

fn pdf_chi_square(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let df = pos("pdfChiSquare", &a[0], "df")?;
    map_f64("pdfChiSquare", &a[1], &move |x| if x < 0.0 { 0.0 } else if x.is_infinite() { 0.0 } else { chi2_pdf(x, df) })
}

fn cdf_f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let d1 = pos("cdfF", &a[0], "numeratorDF")?;
    let d2 = pos("cdfF", &a[1], "denominatorDF")?;
    map_f64("cdfF", &a[2], &move |x| f_cs(x, d1, d2).0)
}

fn inv_f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let d1 = pos("invF", &a[0], "numeratorDF")?;
    let d2 = pos("invF", &a[1], "denominatorDF")?;
    map_f64("invF", &a[2], &move |p| f_inv(p, d1, d2))
}

fn pdf_f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let d1 = pos("pdfF", &a[0], "numeratorDF")?;
    let d2 = pos("pdfF", &a[1], "denominatorDF")?;
    map_f64("pdfF", &a[2], &move |x| if x.is_infinite() { 0.0 } else { f_pdf(x, d1, d2) })
}

fn cdf_beta(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let al = pos("cdfBeta", &a[0], "alpha")?;
    let be = pos("cdfBeta", &a[1], "beta")?;
    map_f64("cdfBeta", &a[2], &move |x| if x.is_nan() { x } else { beta_pq(al, be, x, 1.0 - x).0 })
}

fn inv_beta(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let al = pos("invBeta", &a[0], "alpha")?;
    let be = pos("invBeta", &a[1], "beta")?;
    map_f64("invBeta", &a[2], &move |p| beta_inv(p, al, be))
}

fn cdf_gamma(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let k = pos("cdfGamma", &a[0], "shape")?;
    let th = pos("cdfGamma", &a[1], "scale")?;
    map_f64("cdfGamma", &a[2], &move |x| gamma_pq(k, x / th).0)
}

fn inv_gamma(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let k = pos("invGamma", &a[0], "shape")?;
    let th = pos("invGamma", &a[1], "scale")?;
    map_f64("invGamma", &a[2], &move |p| th * gamma_inv(p, k))
}

fn cdf_exp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let m = pos("cdfExp", &a[0], "mean")?;
    map_f64("cdfExp", &a[1], &move |x| if x.is_nan() { x } else if x <= 0.0 { 0.0 } else { -(-x / m).exp_m1() })
}

fn inv_exp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let m = pos("invExp", &a[0], "mean")?;
    map_f64("invExp", &a[1], &move |p| if in_unit(p) { -m * (-p).ln_1p() } else { f64::NAN })
}

fn cdf_uniform(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (lo, hi) = uniform_bounds("cdfUniform", &a)?;
    map_f64("cdfUniform", &a[2], &move |x| if x.is_nan() { x } else { ((x - lo) / (hi - lo)).clamp(0.0, 1.0) })
}

fn inv_uniform(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (lo, hi) = uniform_bounds("invUniform", &a)?;
    map_f64("invUniform", &a[2], &move |p| if in_unit(p) { lo + p * (hi - lo) } else { f64::NAN })
}

fn cdf_logistic(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = finite("cdfLogistic", &a[0], "mean")?;
    let s = pos("cdfLogistic", &a[1], "s")?;
    map_f64("cdfLogistic", &a[2], &move |x| {
        let z = (x - mu) / s;
        if z >= 0.0 { 1.0 / (1.0 + (-z).exp()) } else { z.exp() / (1.0 + z.exp()) }
    })
}

fn inv_logistic(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mu = finite("invLogistic", &a[0], "mean")?;
    let s = pos("invLogistic", &a[1], "s")?;
    map_f64("invLogistic", &a[2], &move |p| if in_unit(p) { mu + s * (p.ln() - (-p).ln_1p()) } else { f64::NAN })
}

fn cdf_weibull(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let k = pos("cdfWeibull", &a[0], "alpha")?;
    let lam = pos("cdfWeibull", &a[1], "beta")?;
    map_f64("cdfWeibull", &a[2], &move |x| if x.is_nan() { x } else if x <= 0.0 { 0.0 } else { -(-(x / lam).powf(k)).exp_m1() })
}

fn inv_weibull(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let k = pos("invWeibull", &a[0], "alpha")?;
    let lam = pos("invWeibull", &a[1], "beta")?;
    map_f64("invWeibull", &a[2], &move |p| if in_unit(p) { lam * (-(-p).ln_1p()).powf(1.0 / k) } else { f64::NAN })
}

fn cdf_binomial(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let n = count("cdfBinomial", &a[0], "trials")?;
    let p = prob("cdfBinomial", &a[1], "p")?;
    map_f64("cdfBinomial", &a[2], &move |x| if x.is_nan() { x } else { binom_cdf(x, n, p) })
}

fn inv_binomial(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let n = count("invBinomial", &a[0], "trials")?;
    let pr = prob("invBinomial", &a[1], "p")?;
    map_f64("invBinomial", &a[2], &move |q| {
        if !in_unit(q) {
            return f64::NAN;
        }
        let guess = n * pr + norm_inv(q).clamp(-40.0, 40.0) * (n * pr * (1.0 - pr)).sqrt();
        discrete_inv(q, 0.0, n, guess, &|k| binom_cdf(k, n, pr))
    })
}

fn cdf_poisson(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let lam = pos("cdfPoisson", &a[0], "mean")?;
    map_f64("cdfPoisson", &a[1], &move |x| if x.is_nan() { x } else { poisson_cdf(x, lam) })
}

fn inv_poisson(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let lam = pos("invPoisson", &a[0], "mean")?;
    map_f64("invPoisson", &a[1], &move |q| {
        if !in_unit(q) {
            return f64::NAN;
        }
        let guess = lam + norm_inv(q).clamp(-40.0, 40.0) * lam.sqrt();
        discrete_inv(q, 0.0, f64::INFINITY, guess.max(0.0), &|k| poisson_cdf(k, lam))
    })
}

/// Largest `num` of cdfZipf (its normalising prefix sums are tabulated).
const ZIPF_MAX: f64 = 10_000_000.0;

fn cdf_zipf(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let num = count("cdfZipf", &a[0], "num")?;
    if num > ZIPF_MAX {
        return Err(Error::arg("The num of [cdfZipf] must not exceed 10000000"));
    }
    let s = f64_arg("cdfZipf", &a[1], "exponent")?;
    if !(s >= 0.0) || !s.is_finite() {
        return Err(Error::arg("The exponent of [cdfZipf] must be a non-negative number"));
    }
    let h = zipf_prefix(num as usize, s);
    let total = h[h.len() - 1];
    map_f64("cdfZipf", &a[2], &move |x| {
        if x.is_nan() {
            return x;
        }
        let k = x.floor();
        if k < 1.0 {
            0.0
        } else if k >= num {
            1.0
        } else {
            h[k as usize] / total
        }
    })
}

fn cdf_kolmogorov(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    map_f64("cdfKolmogorov", &a[0], &kolmogorov_sf)
}

// ---------------------------------------------------------------------------------------
// hypothesis tests
// ---------------------------------------------------------------------------------------

fn valid(v: Vec<f64>) -> Vec<f64> {
    v.into_iter().filter(|x| !x.is_nan()).collect()
}

fn conf_arg(name: &str, a: &[Value], i: usize) -> Result<f64> {
    let c = match opt(a, i) {
        Some(v) => f64_arg(name, v, "confLevel")?,
        None => 0.95,
    };
    if !(c > 0.0 && c < 1.0) {
        return Err(Error::arg(format!("The confLevel of [{name}] must be between 0 and 1")));
    }
    Ok(c)
}

fn mean_var(v: &[f64]) -> (f64, f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let s2 = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (n, m, s2)
}

fn str_col(items: &[String]) -> Column {
    Column::new(DataType::String, ColData::Str(StrCol::from_iter(items.iter().map(|s| s.as_str()))))
}

/// The `stat` table of a test: one row per alternative (two-sided, less, greater).
fn stat_table(hyp: [String; 3], p: [f64; 3], bounds: Option<([f64; 3], [f64; 3])>) -> Result<Value> {
    let mut names: Vec<String> = vec!["alternativeHypothesis".into(), "pValue".into()];
    let mut cols = vec![str_col(&hyp), Column::from_vec(DataType::Double, p.to_vec())];
    if let Some((lo, hi)) = bounds {
        names.push("lowerBound".into());
        names.push("upperBound".into());
        cols.push(Column::from_vec(DataType::Double, lo.to_vec()));
        cols.push(Column::from_vec(DataType::Double, hi.to_vec()));
    }
    Ok(Value::table(Table::new(names, cols)?))
}

fn hypotheses(what: &str, value: &str) -> [String; 3] {
    [
        format!("{what} is not equal to {value}"),
        format!("{what} is less than {value}"),
        format!("{what} is greater than {value}"),
    ]
}

/// `fTest(X, Y, [ratio=1.0], [confLevel=0.95])`: F test of the ratio of two variances.
fn f_test(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = valid(vec_arg("fTest", &a[0])?);
    let y = valid(vec_arg("fTest", &a[1])?);
    let ratio = match opt(&a, 2) {
        Some(v) => pos("fTest", v, "ratio")?,
        None => 1.0,
    };
    let conf = conf_arg("fTest", &a, 3)?;
    if x.len() < 2 || y.len() < 2 {
        return Err(Error::arg("[fTest] needs at least two non-null values in both X and Y"));
    }
    let (nx, _, vx) = mean_var(&x);
    let (ny, _, vy) = mean_var(&y);
    if vy == 0.0 {
        return Err(Error::arg("The variance of Y given to [fTest] is zero"));
    }
    let (d1, d2) = (nx - 1.0, ny - 1.0);
    let est = vx / vy;
    let f = est / ratio;
    let (pl, pg) = f_cs(f, d1, d2);
    let p2 = (2.0 * pl.min(pg)).min(1.0);
    let q = |p: f64| f_inv(p, d1, d2);
    let b = (1.0 - conf) / 2.0;
    let lo = [est / q(1.0 - b), 0.0, est / q(conf)];
    let hi = [est / q(b), est / q(1.0 - conf), f64::INFINITY];
    let r = i.format(&Value::double(ratio));
    str_dict(vec![
        ("stat", stat_table(hypotheses("ratio of variances", &r), [p2, pl, pg], Some((lo, hi)))?),
        ("numeratorDf", Value::long(d1 as i64)),
        ("denominatorDf", Value::long(d2 as i64)),
        ("confLevel", Value::double(conf)),
        ("method", Value::string("F test to compare two variances")),
        ("fValue", Value::double(f)),
    ])
}

/// `zTest(X, [Y], [mu=0.0], [sigmaX=1.0], [sigmaY=1.0], [confLevel=0.95])`: z test of a
/// mean (or a difference of means) with known standard deviations.
fn z_test(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = valid(vec_arg("zTest", &a[0])?);
    let y = match opt(&a, 1) {
        Some(v) => Some(valid(vec_arg("zTest", v)?)),
        None => None,
    };
    let mu = match opt(&a, 2) {
        Some(v) => finite("zTest", v, "mu")?,
        None => 0.0,
    };
    let sx = match opt(&a, 3) {
        Some(v) => pos("zTest", v, "sigmaX")?,
        None => 1.0,
    };
    let sy = match opt(&a, 4) {
        Some(v) => pos("zTest", v, "sigmaY")?,
        None => 1.0,
    };
    let conf = conf_arg("zTest", &a, 5)?;
    if x.is_empty() {
        return Err(Error::arg("[zTest] needs at least one non-null value in X"));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let nx = x.len() as f64;
    let (est, se, what, method) = match &y {
        None => (mean(&x), sx / nx.sqrt(), "true mean", "One sample z-test"),
        Some(y) => {
            if y.is_empty() {
                return Err(Error::arg("[zTest] needs at least one non-null value in Y"));
            }
            let ny = y.len() as f64;
            (mean(&x) - mean(y), (sx * sx / nx + sy * sy / ny).sqrt(), "difference of mean", "Two sample z-test")
        }
    };
    let z = (est - mu) / se;
    let (pl, pg) = norm_cs(z);
    let p2 = (2.0 * pl.min(pg)).min(1.0);
    let q2 = norm_inv(1.0 - (1.0 - conf) / 2.0);
    let q1 = norm_inv(conf);
    let lo = [est - q2 * se, f64::NEG_INFINITY, est - q1 * se];
    let hi = [est + q2 * se, est + q1 * se, f64::INFINITY];
    let m = i.format(&Value::double(mu));
    str_dict(vec![
        ("stat", stat_table(hypotheses(what, &m), [p2, pl, pg], Some((lo, hi)))?),
        ("zValue", Value::double(z)),
        ("confLevel", Value::double(conf)),
        ("method", Value::string(method)),
    ])
}

/// `chiSquareTest(X, [Y])`: goodness of fit of the counts X to the expected counts Y
/// (rescaled to X's total) when X is a vector; Pearson's test of independence on the
/// contingency table X (a matrix or a table) otherwise, with Yates' continuity correction
/// for a 2x2 table as R's chisq.test and scipy's chi2_contingency apply it.
fn chi_square_test(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    const NAME: &str = "chiSquareTest";
    let (stat, df, method) = match &a[0] {
        Value::Matrix(_) | Value::Table(_) => {
            let (m, r, c) = mat_arg(NAME, &a[0])?;
            if r < 2 || c < 2 {
                return Err(Error::arg("The contingency table of [chiSquareTest] needs at least 2 rows and 2 columns"));
            }
            if m.iter().any(|v| v.is_nan() || *v < 0.0) {
                return Err(Error::arg("The contingency table of [chiSquareTest] must hold non-negative non-null counts"));
            }
            let rs: Vec<f64> = (0..r).map(|i| (0..c).map(|j| m[j * r + i]).sum()).collect();
            let cs: Vec<f64> = (0..c).map(|j| m[j * r..(j + 1) * r].iter().sum()).collect();
            let total: f64 = cs.iter().sum();
            if rs.iter().chain(&cs).any(|s| *s == 0.0) {
                return Err(Error::arg("A row or column of the contingency table of [chiSquareTest] sums to zero"));
            }
            let e = |i: usize, j: usize| rs[i] * cs[j] / total;
            let yates = if r == 2 && c == 2 {
                (0..2).flat_map(|i| (0..2).map(move |j| (i, j))).map(|(i, j)| (m[j * r + i] - e(i, j)).abs()).fold(0.5, f64::min)
            } else {
                0.0
            };
            let mut s = 0.0;
            for j in 0..c {
                for i in 0..r {
                    let d = (m[j * r + i] - e(i, j)).abs() - yates;
                    s += d * d / e(i, j);
                }
            }
            (s, ((r - 1) * (c - 1)) as i64, "Pearson's Chi-squared test")
        }
        _ => {
            let x = vec_arg(NAME, &a[0])?;
            let y = match opt(&a, 1) {
                Some(v) => vec_arg(NAME, v)?,
                None => vec![1.0; x.len()],
            };
            if x.len() != y.len() {
                return Err(Error::size("The X and Y of [chiSquareTest] must have the same length"));
            }
            let pairs: Vec<(f64, f64)> = x.into_iter().zip(y).filter(|(o, e)| !o.is_nan() && !e.is_nan()).collect();
            if pairs.len() < 2 {
                return Err(Error::arg("[chiSquareTest] needs at least two non-null pairs"));
            }
            if pairs.iter().any(|(o, e)| *o < 0.0 || *e <= 0.0) {
                return Err(Error::arg("[chiSquareTest] needs non-negative X and positive Y"));
            }
            let so: f64 = pairs.iter().map(|p| p.0).sum();
            let se: f64 = pairs.iter().map(|p| p.1).sum();
            let s: f64 = pairs
                .iter()
                .map(|(o, e)| {
                    let e = e * so / se;
                    (o - e) * (o - e) / e
                })
                .sum();
            (s, pairs.len() as i64 - 1, "Chi-square goodness of fit test")
        }
    };
    let p = gamma_pq(df as f64 / 2.0, stat / 2.0).1;
    str_dict(vec![
        ("pValue", Value::double(p)),
        ("df", Value::long(df)),
        ("chiSquaredValue", Value::double(stat)),
        ("method", Value::string(method)),
    ])
}

/// P(D < d) of the two-sample Smirnov statistic for sample sizes m, n (no ties): the
/// lattice-path recursion of R's psmirnov2x, normalised as it goes.
fn smirnov_exact_below(d: f64, m: usize, n: usize) -> f64 {
    let (m, n) = if m > n { (n, m) } else { (m, n) };
    let (md, nd) = (m as f64, n as f64);
    let q = (0.5 + (d * md * nd - 1e-7).floor()) / (md * nd);
    let mut u: Vec<f64> = (0..=n).map(|j| if j as f64 / nd > q { 0.0 } else { 1.0 }).collect();
    for i in 1..=m {
        let w = i as f64 / (i + n) as f64;
        u[0] = if i as f64 / md > q { 0.0 } else { w * u[0] };
        for j in 1..=n {
            u[j] = if (i as f64 / md - j as f64 / nd).abs() > q { 0.0 } else { w * u[j] + u[j - 1] };
        }
    }
    u[n]
}

/// `ksTest(X, Y)`: two-sample Kolmogorov-Smirnov test. The p-value is exact (R's
/// recursion) when the product of the sample sizes is below 10000, else the asymptotic
/// Kolmogorov tail at sqrt(m n / (m + n)) D.
fn ks_test(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mut x = valid(vec_arg("ksTest", &a[0])?);
    let mut y = valid(vec_arg("ksTest", &a[1])?);
    if x.is_empty() || y.is_empty() {
        return Err(Error::arg("[ksTest] needs at least one non-null value in both X and Y"));
    }
    x.sort_by(|p, q| p.total_cmp(q));
    y.sort_by(|p, q| p.total_cmp(q));
    let (m, n) = (x.len(), y.len());
    let (mut i, mut j, mut d) = (0usize, 0usize, 0.0f64);
    while i < m && j < n {
        let v = x[i].min(y[j]);
        while i < m && x[i] <= v {
            i += 1;
        }
        while j < n && y[j] <= v {
            j += 1;
        }
        d = d.max((i as f64 / m as f64 - j as f64 / n as f64).abs());
    }
    let p = if (m as f64) * (n as f64) < 10000.0 {
        (1.0 - smirnov_exact_below(d, m, n)).clamp(0.0, 1.0)
    } else {
        let en = (m as f64 * n as f64 / (m + n) as f64).sqrt();
        kolmogorov_sf(en * d)
    };
    str_dict(vec![
        ("ksValue", Value::double(d)),
        ("pValue", Value::double(p)),
        ("D", Value::double(d)),
        ("method", Value::string("Two-sample Kolmogorov-Smirnov test")),
    ])
}

/// Midranks of `v` (1-based), and the tie-correction sum of t^3 - t over tie groups.
fn midranks(v: &[f64]) -> (Vec<f64>, f64) {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&p, &q| v[p].total_cmp(&v[q]));
    let mut ranks = vec![0.0; v.len()];
    let mut ties = 0.0;
    let mut k = 0;
    while k < idx.len() {
        let mut e = k + 1;
        while e < idx.len() && v[idx[e]] == v[idx[k]] {
            e += 1;
        }
        let r = (k + 1 + e) as f64 / 2.0;
        for &p in &idx[k..e] {
            ranks[p] = r;
        }
        let t = (e - k) as f64;
        ties += t * t * t - t;
        k = e;
    }
    (ranks, ties)
}

/// `mannWhitneyUTest(X, Y, [correct=true])`: the normal approximation with the tie
/// correction (and, by default, the continuity correction). U is the statistic of Y
/// (pairs with y > x, ties counting one half), as the manual's example shows (U = 11 for
/// X = 5 1 4 3 5, Y = 2 4 7 -1 0 4), and the one-sided p-values are its tails.
fn mann_whitney_u_test(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = valid(vec_arg("mannWhitneyUTest", &a[0])?);
    let y = valid(vec_arg("mannWhitneyUTest", &a[1])?);
    let correct = bool_opt(&a, 2, true);
    if x.is_empty() || y.is_empty() {
        return Err(Error::arg("[mannWhitneyUTest] needs at least one non-null value in both X and Y"));
    }
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    let all: Vec<f64> = x.iter().chain(&y).copied().collect();
    let (ranks, ties) = midranks(&all);
    let r2: f64 = ranks[x.len()..].iter().sum();
    let u = r2 - n2 * (n2 + 1.0) / 2.0;
    let nn = n1 + n2;
    let mean = n1 * n2 / 2.0;
    let var = n1 * n2 / 12.0 * ((nn + 1.0) - ties / (nn * (nn - 1.0)));
    let (pl, pg, p2) = if var <= 0.0 {
        (f64::NAN, f64::NAN, f64::NAN)
    } else {
        let sd = var.sqrt();
        let cc = if correct { 0.5 } else { 0.0 };
        let pl = norm_cdf((u - mean + cc) / sd);
        let pg = norm_cs((u - mean - cc) / sd).1;
        let dz = u - mean;
        let z = (dz - cc * dz.signum()) / sd;
        (pl, pg, (2.0 * norm_cs(-z.abs()).0).min(1.0))
    };
    str_dict(vec![
        ("stat", stat_table(hypotheses("true location shift", "0"), [p2, pl, pg], None)?),
        ("correct", Value::bool(correct)),
        ("method", Value::string("Mann-Whitney U test")),
        ("U", Value::double(u)),
    ])
}

/// Shapiro-Wilk W and its p-value for sorted data (Royston's algorithm AS R94, as R's
/// swilk.c computes it), n in 3..=5000.
fn swilk(x: &[f64]) -> (f64, f64) {
    let n = x.len();
    let an = n as f64;
    let nn2 = n / 2;
    let poly = |c: &[f64], v: f64| -> f64 {
        let mut r = c[0];
        if c.len() > 1 {
            let mut p = c[c.len() - 1] * v;
            for j in (1..c.len() - 1).rev() {
                p = (p + c[j]) * v;
            }
            r += p;
        }
        r
    };
    const C1: [f64; 6] = [0.0, 0.221157, -0.147981, -2.07119, 4.434685, -2.706056];
    const C2: [f64; 6] = [0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633];
    const C3: [f64; 4] = [0.544, -0.39978, 0.025054, -6.714e-4];
    const C4: [f64; 4] = [1.3822, -0.77857, 0.062767, -0.0020322];
    const C5: [f64; 4] = [-1.5861, -0.31082, -0.083751, 0.0038915];
    const C6: [f64; 3] = [-0.4803, -0.082676, 0.0030302];
    const G: [f64; 2] = [-2.273, 0.459];
    // coefficients a[1..=nn2] (1-based)
    let mut a = vec![0.0; nn2 + 1];
    if n == 3 {
        a[1] = 0.5f64.sqrt();
    } else {
        let an25 = an + 0.25;
        let mut summ2 = 0.0;
        for (i, ai) in a.iter_mut().enumerate().skip(1) {
            *ai = norm_inv((i as f64 - 0.375) / an25);
            summ2 += *ai * *ai;
        }
        summ2 *= 2.0;
        let ssumm2 = summ2.sqrt();
        let rsn = 1.0 / an.sqrt();
        let a1 = poly(&C1, rsn) - a[1] / ssumm2;
        let (i1, fac);
        if n > 5 {
            i1 = 3;
            let a2 = -a[2] / ssumm2 + poly(&C2, rsn);
            fac = ((summ2 - 2.0 * a[1] * a[1] - 2.0 * a[2] * a[2]) / (1.0 - 2.0 * a1 * a1 - 2.0 * a2 * a2)).sqrt();
            a[2] = a2;
        } else {
            i1 = 2;
            fac = ((summ2 - 2.0 * a[1] * a[1]) / (1.0 - 2.0 * a1 * a1)).sqrt();
        }
        a[1] = a1;
        for ai in a.iter_mut().skip(i1) {
            *ai /= -fac;
        }
    }
    let range = x[n - 1] - x[0];
    // signed coefficient of the (0-based) i-th order statistic
    let coef = |i: usize| -> f64 {
        let j = n - 1 - i;
        if i == j {
            0.0
        } else {
            let s = if i < j { -1.0 } else { 1.0 };
            s * a[1 + i.min(j)]
        }
    };
    let sa = (0..n).map(coef).sum::<f64>() / an;
    let sx = x.iter().map(|v| v / range).sum::<f64>() / an;
    let (mut ssa, mut ssx, mut sax) = (0.0, 0.0, 0.0);
    for (i, xi) in x.iter().enumerate() {
        let asa = coef(i) - sa;
        let xsx = xi / range - sx;
        ssa += asa * asa;
        ssx += xsx * xsx;
        sax += asa * xsx;
    }
    let ssassx = (ssa * ssx).sqrt();
    let w1 = (ssassx - sax) * (ssassx + sax) / (ssa * ssx);
    let w = 1.0 - w1;
    if n == 3 {
        let pi6 = 6.0 / PI;
        let stqr = PI / 3.0;
        return (w, (pi6 * (w.sqrt().asin() - stqr)).max(0.0));
    }
    let mut y = w1.ln();
    let xx = an.ln();
    let (m, s);
    if n <= 11 {
        let gamma = poly(&G, an);
        if y >= gamma {
            return (w, 1e-99);
        }
        y = -(gamma - y).ln();
        m = poly(&C3, an);
        s = poly(&C4, an).exp();
    } else {
        m = poly(&C5, xx);
        s = poly(&C6, xx).exp();
    }
    (w, norm_cs((y - m) / s).1)
}

/// `shapiroTest(X)`: Shapiro-Wilk normality test of 3 to 5000 non-null values.
fn shapiro_test(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mut x = valid(vec_arg("shapiroTest", &a[0])?);
    if x.len() < 3 || x.len() > 5000 {
        return Err(Error::arg("[shapiroTest] needs between 3 and 5000 non-null values"));
    }
    x.sort_by(|p, q| p.total_cmp(q));
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Error::arg("[shapiroTest] needs finite values"));
    }
    if x[x.len() - 1] - x[0] < 1e-19 {
        return Err(Error::arg("All values given to [shapiroTest] are identical"));
    }
    let (w, p) = swilk(&x);
    str_dict(vec![
        ("method", Value::string("Shapiro-Wilk normality test")),
        ("pValue", Value::double(p)),
        ("W", Value::double(w)),
    ])
}

pub const DEFS: &[Builtin] = &[
    fp("cdfBeta", Kind::Elementwise, 3, 3, cdf_beta, &["alpha", "beta", "X"]),
    fp("cdfBinomial", Kind::Elementwise, 3, 3, cdf_binomial, &["trials", "p", "X"]),
    fp("cdfChiSquare", Kind::Elementwise, 2, 2, cdf_chi_square, &["df", "X"]),
    fp("cdfExp", Kind::Elementwise, 2, 2, cdf_exp, &["mean", "X"]),
    fp("cdfF", Kind::Elementwise, 3, 3, cdf_f, &["numeratorDF", "denominatorDF", "X"]),
    fp("cdfGamma", Kind::Elementwise, 3, 3, cdf_gamma, &["shape", "scale", "X"]),
    fp("cdfKolmogorov", Kind::Elementwise, 1, 1, cdf_kolmogorov, &["X"]),
    fp("cdfLogistic", Kind::Elementwise, 3, 3, cdf_logistic, &["mean", "s", "X"]),
    fp("cdfNormal", Kind::Elementwise, 3, 3, cdf_normal, &["mean", "stdev", "X"]),
    fp("cdfPoisson", Kind::Elementwise, 2, 2, cdf_poisson, &["mean", "X"]),
    fp("cdfStudent", Kind::Elementwise, 2, 2, cdf_student, &["df", "X"]),
    fp("cdfUniform", Kind::Elementwise, 3, 3, cdf_uniform, &["lower", "upper", "X"]),
    fp("cdfWeibull", Kind::Elementwise, 3, 3, cdf_weibull, &["alpha", "beta", "X"]),
    fp("cdfZipf", Kind::Elementwise, 3, 3, cdf_zipf, &["num", "exponent", "X"]),
    fp("chiSquareTest", Kind::System, 1, 2, chi_square_test, &["X", "Y"]),
    fp("fTest", Kind::System, 2, 4, f_test, &["X", "Y", "ratio", "confLevel"]),
    fp("invBeta", Kind::Elementwise, 3, 3, inv_beta, &["alpha", "beta", "p"]),
    fp("invBinomial", Kind::Elementwise, 3, 3, inv_binomial, &["trials", "p", "X"]),
    fp("invChiSquare", Kind::Elementwise, 2, 2, inv_chi_square, &["df", "p"]),
    fp("invExp", Kind::Elementwise, 2, 2, inv_exp, &["mean", "p"]),
    fp("invF", Kind::Elementwise, 3, 3, inv_f, &["numeratorDF", "denominatorDF", "p"]),
    fp("invGamma", Kind::Elementwise, 3, 3, inv_gamma, &["shape", "scale", "p"]),
    fp("invLogistic", Kind::Elementwise, 3, 3, inv_logistic, &["mean", "s", "p"]),
    fp("invNormal", Kind::Elementwise, 3, 3, inv_normal, &["mean", "stdev", "p"]),
    fp("invPoisson", Kind::Elementwise, 2, 2, inv_poisson, &["mean", "p"]),
    fp("invStudent", Kind::Elementwise, 2, 2, inv_student, &["df", "p"]),
    fp("invUniform", Kind::Elementwise, 3, 3, inv_uniform, &["lower", "upper", "p"]),
    fp("invWeibull", Kind::Elementwise, 3, 3, inv_weibull, &["alpha", "beta", "p"]),
    fp("ksTest", Kind::System, 2, 2, ks_test, &["X", "Y"]),
    fp("mannWhitneyUTest", Kind::System, 2, 3, mann_whitney_u_test, &["X", "Y", "correct"]),
    fp("pdfChiSquare", Kind::Elementwise, 2, 2, pdf_chi_square, &["df", "X"]),
    fp("pdfF", Kind::Elementwise, 3, 3, pdf_f, &["numeratorDF", "denominatorDF", "X"]),
    fp("pdfNormal", Kind::Elementwise, 3, 3, pdf_normal, &["mean", "stdev", "X"]),
    fp("shapiroTest", Kind::System, 1, 1, shapiro_test, &["X"]),
    fp("zTest", Kind::System, 1, 6, z_test, &["X", "Y", "mu", "sigmaX", "sigmaY", "confLevel"]),
];
