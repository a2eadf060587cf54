//! Numerical calculus and sequences: derivative, integral, iterate, vectorNorm.

use beluga_runtime::CallCtx;
use crate::math_util::{dmat, dvec, f64_arg, mat_arg, vec_arg};
use crate::util::{int_arg, opt};
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{Error, Result, Value};

/// Call a user function on a vector of points; falls back to one call per point when the
/// function does not return a same-length vector.
fn eval_points(i: &mut CallCtx, f: &Value, xs: &[f64]) -> Result<Vec<f64>> {
    if let Ok(v) = i.call_value(f, vec![dvec(xs.to_vec())]) {
        if let Value::Vector(c) = &v {
            if c.len() == xs.len() && crate::math_util::is_num(c.ty) {
                return Ok(crate::math_util::nan_f64(c));
            }
        }
    }
    let mut out = Vec::with_capacity(xs.len());
    for &x in xs {
        let v = i.call_value(f, vec![Value::double(x)])?;
        out.push(v.as_f64().unwrap_or(f64::NAN));
    }
    Ok(out)
}

/// Central-difference weights for the n-th derivative on `order` points.
fn diff_weights(n: usize, order: usize) -> Option<Vec<f64>> {
    let ho = (order / 2) as f64;
    // Vandermonde system: sum_k w_k (k-ho)^j = n! [j == n]
    let mut a = vec![0.0; order * order];
    for k in 0..order {
        for j in 0..order {
            a[k * order + j] = (k as f64 - ho).powi(j as i32);
        }
    }
    let mut b = vec![0.0; order];
    b[n] = (1..=n).map(|x| x as f64).product();
    crate::linalg::solve_of(&a, order, &b, 1)
}

/// `derivative(func, X, [dx=1.0], [n=1], [order=3])`.
fn derivative(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let f = a[0].clone();
    if !matches!(f, Value::Function(_)) {
        return Err(Error::arg("The first argument of [derivative] must be a function"));
    }
    let xs = vec_arg("derivative", &a[1])?;
    let dx = match opt(&a, 2) {
        Some(v) => f64_arg("derivative", v, "dx")?,
        None => 1.0,
    };
    let n = match opt(&a, 3) {
        Some(v) => int_arg("derivative", v, "n")?,
        None => 1,
    };
    let order = match opt(&a, 4) {
        Some(v) => int_arg("derivative", v, "order")?,
        None => 3,
    };
    if n < 1 || order < n + 1 || order % 2 == 0 || order > 99 || dx == 0.0 {
        return Err(Error::arg("[derivative] needs n >= 1, an odd order > n and a non-zero dx"));
    }
    let w = diff_weights(n as usize, order as usize).ok_or_else(|| Error::runtime("[derivative] failed to build weights"))?;
    let ho = order / 2;
    let mut out = Vec::with_capacity(xs.len());
    for &x in &xs {
        let pts: Vec<f64> = (0..order).map(|k| x + (k - ho) as f64 * dx).collect();
        let vals = eval_points(i, &f, &pts)?;
        out.push(w.iter().zip(&vals).map(|(w, v)| w * v).sum::<f64>() / dx.powi(n as i32));
    }
    Ok(if a[1].is_scalar() { Value::double(out[0]) } else { dvec(out) })
}

const XK: [f64; 8] = [
    0.991_455_371_120_813,
    0.949_107_912_342_759,
    0.864_864_423_359_769,
    0.741_531_185_599_394,
    0.586_087_235_467_691,
    0.405_845_151_377_397,
    0.207_784_955_007_898,
    0.0,
];
const WK: [f64; 8] = [
    0.022_935_322_010_529,
    0.063_092_092_629_979,
    0.104_790_010_322_250,
    0.140_653_259_715_525,
    0.169_004_726_639_267,
    0.190_350_578_064_785,
    0.204_432_940_075_298,
    0.209_482_141_084_728,
];
const WG: [f64; 4] = [0.129_484_966_168_870, 0.279_705_391_489_277, 0.381_830_050_505_119, 0.417_959_183_673_469];

/// Adaptive Gauss-Kronrod (7/15) on [a, b] of a batch-evaluated function.
fn gk_adaptive(g: &mut dyn FnMut(&[f64]) -> Result<Vec<f64>>, a: f64, b: f64) -> Result<f64> {
    let mut stack = vec![(a, b, 0usize)];
    let mut total = 0.0;
    let mut evals = 0usize;
    while let Some((lo, hi, depth)) = stack.pop() {
        let c = 0.5 * (lo + hi);
        let h = 0.5 * (hi - lo);
        let mut pts = Vec::with_capacity(15);
        for k in 0..7 {
            pts.push(c - h * XK[k]);
            pts.push(c + h * XK[k]);
        }
        pts.push(c);
        let v = g(&pts)?;
        evals += 15;
        let mut kron = WK[7] * v[14];
        let mut gauss = WG[3] * v[14];
        for k in 0..7 {
            kron += WK[k] * (v[2 * k] + v[2 * k + 1]);
            if k % 2 == 1 {
                gauss += WG[k / 2] * (v[2 * k] + v[2 * k + 1]);
            }
        }
        kron *= h;
        gauss *= h;
        let err = (kron - gauss).abs();
        if err <= 1e-10_f64.max(1e-10 * kron.abs()) || depth > 40 || evals > 200_000 {
            total += kron;
        } else {
            stack.push((lo, c, depth + 1));
            stack.push((c, hi, depth + 1));
        }
    }
    Ok(total)
}

/// Integrate over [a, b], mapping infinite bounds to a finite interval.
fn integrate(g: &mut dyn FnMut(&[f64]) -> Result<Vec<f64>>, a: f64, b: f64) -> Result<f64> {
    if a == b {
        return Ok(0.0);
    }
    if a > b {
        return Ok(-integrate(g, b, a)?);
    }
    match (a.is_finite(), b.is_finite()) {
        (true, true) => gk_adaptive(g, a, b),
        _ => {
            // x = t / (1 - t^2) on (-1, 1), clipped to the finite side
            let tl = if a.is_finite() { to_t(a) } else { -1.0 };
            let th = if b.is_finite() { to_t(b) } else { 1.0 };
            let mut h = |ts: &[f64]| -> Result<Vec<f64>> {
                let xs: Vec<f64> = ts.iter().map(|&t| t / (1.0 - t * t)).collect();
                let v = g(&xs)?;
                Ok(ts.iter().zip(v).map(|(&t, f)| f * (1.0 + t * t) / ((1.0 - t * t) * (1.0 - t * t))).collect())
            };
            gk_adaptive(&mut h, tl, th)
        }
    }
}

fn to_t(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { (-1.0 + (1.0 + 4.0 * x * x).sqrt()) / (2.0 * x) }
}

fn bound(i: &mut CallCtx, v: &Value, x: Option<f64>) -> Result<f64> {
    match (v, x) {
        (Value::Function(_), Some(x)) => Ok(i.call_value(v, vec![Value::double(x)])?.as_f64().unwrap_or(f64::NAN)),
        _ => f64_arg("integral", v, "bound"),
    }
}

/// `integral(func, start, end, [start2], [end2])`: definite (double) integral.
fn integral(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let f = a[0].clone();
    if !matches!(f, Value::Function(_)) {
        return Err(Error::arg("The first argument of [integral] must be a function"));
    }
    let lo = bound(i, &a[1], None)?;
    let hi = bound(i, &a[2], None)?;
    let r = match (opt(&a, 3).cloned(), opt(&a, 4).cloned()) {
        (None, None) => integrate(&mut |xs: &[f64]| eval_points(i, &f, xs), lo, hi)?,
        (Some(s2), Some(e2)) => {
            let mut outer = |xs: &[f64]| -> Result<Vec<f64>> {
                let mut out = Vec::with_capacity(xs.len());
                for &x in xs {
                    let ylo = bound(i, &s2, Some(x))?;
                    let yhi = bound(i, &e2, Some(x))?;
                    let mut inner = |ys: &[f64]| -> Result<Vec<f64>> {
                        ys.iter()
                            .map(|&y| Ok(i.call_value(&f, vec![Value::double(x), Value::double(y)])?.as_f64().unwrap_or(f64::NAN)))
                            .collect()
                    };
                    out.push(integrate(&mut inner, ylo, yhi)?);
                }
                Ok(out)
            };
            integrate(&mut outer, lo, hi)?
        }
        _ => return Err(Error::arg("[integral] needs both start2 and end2 for a double integral")),
    };
    Ok(Value::double(r))
}

/// `iterate(init, coeffs, input)`: linear recurrence (see DolphinDB's definition).
fn iterate(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let init = vec_arg("iterate", &a[0])?;
    let coef = vec_arg("iterate", &a[1])?;
    if init.len() != coef.len() || init.is_empty() {
        return Err(Error::arg("init and coeffs of [iterate] must have the same non-zero length"));
    }
    let (count, input): (usize, Option<Vec<f64>>) = if a[2].is_scalar() {
        let n = int_arg("iterate", &a[2], "input")?;
        if n < 0 {
            return Err(Error::arg("The input of [iterate] can't be negative"));
        }
        crate::math_util::check_size("iterate", n as usize)?;
        (n as usize, None)
    } else {
        let v = vec_arg("iterate", &a[2])?;
        (v.len(), Some(v))
    };
    let k = init.len();
    let mut window = init;
    let mut out = Vec::with_capacity(count);
    for t in 0..count {
        let mut x: f64 = window.iter().zip(&coef).map(|(w, c)| w * c).sum();
        if let Some(inp) = &input {
            x += inp[t];
        }
        out.push(x);
        if k > 1 {
            window.remove(0);
        } else {
            window.clear();
        }
        window.push(x);
    }
    Ok(dvec(out))
}

/// Norm of one vector for a given order (numpy semantics).
fn vnorm(v: &[f64], ord: f64) -> f64 {
    let v: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if ord == f64::INFINITY {
        v.iter().fold(0.0, |m, x| m.max(x.abs()))
    } else if ord == f64::NEG_INFINITY {
        v.iter().fold(f64::INFINITY, |m, x| m.min(x.abs()))
    } else if ord == 0.0 {
        v.iter().filter(|x| **x != 0.0).count() as f64
    } else {
        v.iter().map(|x| x.abs().powf(ord)).sum::<f64>().powf(1.0 / ord)
    }
}

/// `vectorNorm(x, [ord], [axis], [keepDims=false])`.
fn vector_norm(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let ord_text = opt(&a, 1).and_then(|v| v.as_str()).map(|s| s.to_ascii_lowercase());
    let ord_num = match (opt(&a, 1), &ord_text) {
        (Some(v), None) => Some(f64_arg("vectorNorm", v, "ord")?),
        _ => None,
    };
    let axis = match opt(&a, 2) {
        Some(v) => Some(int_arg("vectorNorm", v, "axis")?),
        None => None,
    };
    let keep = crate::math_util::bool_opt(&a, 3, false);
    let is_matrix = matches!(a[0], Value::Matrix(_));
    let (x, r, c) = mat_arg("vectorNorm", &a[0])?;
    if !is_matrix || axis.is_some() {
        let ord = match (&ord_text, ord_num) {
            (Some(s), _) if s == "fro" => 2.0,
            (Some(s), _) if s == "inf" => f64::INFINITY,
            (Some(_), _) => return Err(Error::arg("The ord of [vectorNorm] for vectors must be a number, 'inf' or 'fro'")),
            (None, Some(o)) => o,
            (None, None) => 2.0,
        };
        if !is_matrix {
            return Ok(Value::double(vnorm(&x, ord)));
        }
        let out: Vec<f64> = match axis {
            Some(0) => (0..c).map(|j| vnorm(&x[j * r..(j + 1) * r], ord)).collect(),
            Some(1) => (0..r).map(|i| vnorm(&(0..c).map(|j| x[j * r + i]).collect::<Vec<f64>>(), ord)).collect(),
            _ => return Err(Error::arg("The axis of [vectorNorm] must be 0 or 1")),
        };
        return Ok(if keep {
            if axis == Some(0) { dmat(out, 1, c) } else { dmat(out, r, 1) }
        } else {
            dvec(out)
        });
    }
    let sv = || crate::linalg_decomp::svd_of(&x.iter().map(|v| if v.is_nan() { 0.0 } else { *v }).collect::<Vec<f64>>(), r, c).1;
    let col_sums = || (0..c).map(|j| (0..r).map(|i| x[j * r + i].abs()).sum::<f64>()).collect::<Vec<f64>>();
    let row_sums = || (0..r).map(|i| (0..c).map(|j| x[j * r + i].abs()).sum::<f64>()).collect::<Vec<f64>>();
    let n = match (ord_text.as_deref(), ord_num) {
        (Some("fro"), _) | (None, None) => x.iter().filter(|v| !v.is_nan()).map(|v| v * v).sum::<f64>().sqrt(),
        (Some("nuc"), _) => sv().iter().sum(),
        (Some("inf"), _) => row_sums().into_iter().fold(0.0, f64::max),
        (None, Some(o)) if o == 1.0 => col_sums().into_iter().fold(0.0, f64::max),
        (None, Some(o)) if o == -1.0 => col_sums().into_iter().fold(f64::INFINITY, f64::min),
        (None, Some(o)) if o == 2.0 => sv().into_iter().fold(0.0, f64::max),
        (None, Some(o)) if o == -2.0 => sv().into_iter().fold(f64::INFINITY, f64::min),
        (None, Some(o)) if o == f64::INFINITY => row_sums().into_iter().fold(0.0, f64::max),
        (None, Some(o)) if o == f64::NEG_INFINITY => row_sums().into_iter().fold(f64::INFINITY, f64::min),
        _ => return Err(Error::arg("Invalid ord for a matrix norm in [vectorNorm]")),
    };
    Ok(if keep { dmat(vec![n], 1, 1) } else { Value::double(n) })
}

pub const DEFS: &[Builtin] = &[
    fp("derivative", Kind::System, 2, 5, derivative, &["func", "X", "dx", "n", "order"]),
    fp("integral", Kind::System, 3, 5, integral, &["func", "start", "end", "start2", "end2"]),
    fp("iterate", Kind::VectorToVector, 3, 3, iterate, &["init", "coeffs", "input"]),
    fp("vectorNorm", Kind::System, 1, 4, vector_norm, &["x", "ord", "axis", "keepDims"]),
];
