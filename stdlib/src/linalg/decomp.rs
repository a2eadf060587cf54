//! Iterative decompositions: svd (one-sided Jacobi), eig (symmetric Jacobi), schur (shifted
//! QR iteration), pinverse and matrixRank (via svd).

use beluga_runtime::CallCtx;
use crate::linalg::{full_arg, identity, matmul, qr_of, square_arg, transpose};
use crate::math_util::{bool_opt, dmat, dvec, f64_arg, str_dict};
use crate::util::opt;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{Error, Result, Value};

/// Thin SVD of an m×n matrix with m >= n: (U m×n, s, V n×n) with A = U diag(s) V'.
fn jacobi_svd_tall(a: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut u = a.to_vec();
    let mut v = identity(n);
    for _sweep in 0..100 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let (mut al, mut be, mut ga) = (0.0, 0.0, 0.0);
                for i in 0..m {
                    let (x, y) = (u[p * m + i], u[q * m + i]);
                    al += x * x;
                    be += y * y;
                    ga += x * y;
                }
                if ga == 0.0 || ga.abs() <= 1e-15 * (al * be).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (be - al) / (2.0 * ga);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let t = if zeta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                for i in 0..m {
                    let (x, y) = (u[p * m + i], u[q * m + i]);
                    u[p * m + i] = c * x - s * y;
                    u[q * m + i] = s * x + c * y;
                }
                for i in 0..n {
                    let (x, y) = (v[p * n + i], v[q * n + i]);
                    v[p * n + i] = c * x - s * y;
                    v[q * n + i] = s * x + c * y;
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let mut s: Vec<f64> = (0..n).map(|j| (0..m).map(|i| u[j * m + i] * u[j * m + i]).sum::<f64>().sqrt()).collect();
    for j in 0..n {
        if s[j] > 0.0 {
            for i in 0..m {
                u[j * m + i] /= s[j];
            }
        }
    }
    // sort by decreasing singular value
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| s[y].total_cmp(&s[x]));
    let mut u2 = vec![0.0; m * n];
    let mut v2 = vec![0.0; n * n];
    for (k, &j) in order.iter().enumerate() {
        u2[k * m..(k + 1) * m].copy_from_slice(&u[j * m..(j + 1) * m]);
        v2[k * n..(k + 1) * n].copy_from_slice(&v[j * n..(j + 1) * n]);
    }
    s = order.iter().map(|&j| s[j]).collect();
    (u2, s, v2)
}

/// Extend `k` orthonormal columns (m rows) to an orthonormal basis of size `total`.
fn complete_basis(q: &mut Vec<f64>, m: usize, k: usize, total: usize) {
    let mut have = k;
    let mut e = 0;
    while have < total && e < m {
        let mut v = vec![0.0; m];
        v[e] = 1.0;
        for _ in 0..2 {
            for j in 0..have {
                let d: f64 = (0..m).map(|i| q[j * m + i] * v[i]).sum();
                for i in 0..m {
                    v[i] -= d * q[j * m + i];
                }
            }
        }
        let nv: f64 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if nv > 1e-10 {
            q.extend(v.iter().map(|x| x / nv));
            have += 1;
        }
        e += 1;
    }
}

/// SVD of an m×n matrix: (U m×k, s (k), V n×k) with k = min(m, n) and A = U diag(s) V'.
pub fn svd_of(a: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    if m >= n {
        jacobi_svd_tall(a, m, n)
    } else {
        let t = transpose(a, m, n);
        let (u, s, v) = jacobi_svd_tall(&t, n, m);
        (v, s, u)
    }
}

/// Replace columns with zero singular value by orthonormal completions (thin part).
fn fix_null_columns(u: &mut Vec<f64>, m: usize, s: &[f64]) {
    let k = s.len();
    let good: Vec<usize> = (0..k).filter(|&j| s[j] > 0.0).collect();
    if good.len() == k {
        return;
    }
    let mut q: Vec<f64> = Vec::with_capacity(m * k);
    for &j in &good {
        q.extend_from_slice(&u[j * m..(j + 1) * m]);
    }
    complete_basis(&mut q, m, good.len(), k);
    let mut out = vec![0.0; m * k];
    let mut extra = good.len();
    for j in 0..k {
        let src = if s[j] > 0.0 { good.iter().position(|&g| g == j).unwrap_or(0) } else { let e = extra; extra += 1; e };
        if (src + 1) * m <= q.len() {
            out[j * m..(j + 1) * m].copy_from_slice(&q[src * m..(src + 1) * m]);
        }
    }
    *u = out;
}

/// `svd(obj, [fullMatrices=true], [computeUV=true])`: (U, s, V) with V holding the right
/// singular vectors as rows.
fn svd(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (x, m, n) = full_arg("svd", &a[0])?;
    let full = bool_opt(&a, 1, true);
    let uv = bool_opt(&a, 2, true);
    let (mut u, s, mut v) = svd_of(&x, m, n);
    let k = m.min(n);
    if !uv {
        return Ok(dvec(s));
    }
    fix_null_columns(&mut u, m, &s);
    fix_null_columns(&mut v, n, &s);
    let (uc, vc) = if full {
        complete_basis(&mut u, m, k, m);
        complete_basis(&mut v, n, k, n);
        (m, n)
    } else {
        (k, k)
    };
    let vt = transpose(&v, n, vc);
    let clean = |m: Vec<f64>| -> Vec<f64> { m.into_iter().map(|x| if x.abs() < 1e-15 { 0.0 } else { x }).collect() };
    let (u, vt) = (clean(u), clean(vt));
    Ok(Value::tuple(vec![dmat(u, m, uc), dvec(s), dmat(vt, vc, n)]))
}

/// Symmetric eigen-decomposition (cyclic Jacobi) using the lower triangle of `a`:
/// eigenvalues in diagonal order and eigenvectors as columns.
pub fn sym_eig(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut s = vec![0.0; n * n];
    for j in 0..n {
        for i in j..n {
            s[j * n + i] = a[j * n + i];
            s[i * n + j] = a[j * n + i];
        }
    }
    let mut v = identity(n);
    for _sweep in 0..100 {
        let off: f64 = (0..n).flat_map(|j| (0..n).filter(move |&i| i != j).map(move |i| (i, j))).map(|(i, j)| s[j * n + i].powi(2)).sum();
        if off < 1e-30 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = s[q * n + p];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let (app, aqq) = (s[p * n + p], s[q * n + q]);
                let theta = (aqq - app) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let sn = t * c;
                for k in 0..n {
                    let (akp, akq) = (s[p * n + k], s[q * n + k]);
                    s[p * n + k] = c * akp - sn * akq;
                    s[q * n + k] = sn * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (s[k * n + p], s[k * n + q]);
                    s[k * n + p] = c * apk - sn * aqk;
                    s[k * n + q] = sn * apk + c * aqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[p * n + k], v[q * n + k]);
                    v[p * n + k] = c * vkp - sn * vkq;
                    v[q * n + k] = sn * vkp + c * vkq;
                }
            }
        }
    }
    // eigenvalues stay in diagonal order (as DolphinDB prints them), vectors as columns
    ((0..n).map(|i| s[i * n + i]).collect(), v)
}

/// `eig(A)`: eigenvalues and eigenvectors of a real symmetric matrix (as numpy's eigh).
fn eig(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (m, n) = square_arg("eig", &a[0])?;
    let (vals, vecs) = sym_eig(&m, n);
    str_dict(vec![("vectors", dmat(vecs, n, n)), ("values", dvec(vals))])
}

/// Real Schur form by shifted QR iteration: (T, Z) with A = Z T Z'.
pub fn schur_of(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut t = a.to_vec();
    let mut z = identity(n);
    let mut hi = n;
    let mut iter = 0;
    while hi > 1 && iter < 1000 * n {
        iter += 1;
        let h = hi - 1;
        let scale = (t[h * n + h].abs() + t[(h - 1) * n + (h - 1)].abs()).max(1e-300);
        if t[(h - 1) * n + h].abs() < 1e-14 * scale {
            t[(h - 1) * n + h] = 0.0;
            hi -= 1;
            continue;
        }
        // trailing 2x2 block with complex eigenvalues: deflate it when isolated
        let (a11, a12, a21, a22) = (t[(h - 1) * n + (h - 1)], t[h * n + (h - 1)], t[(h - 1) * n + h], t[h * n + h]);
        let tr = a11 + a22;
        let det = a11 * a22 - a12 * a21;
        let disc = tr * tr / 4.0 - det;
        if disc < 0.0 && (h < 2 || t[(h - 2) * n + (h - 1)].abs() < 1e-14 * (a11.abs() + t[(h - 2) * n + (h - 2)].abs()).max(1e-300)) {
            if h >= 2 {
                t[(h - 2) * n + (h - 1)] = 0.0;
            }
            hi = hi.saturating_sub(2);
            continue;
        }
        // Wilkinson shift (real part when complex), exceptional shift now and then
        let mu = if disc >= 0.0 {
            let r1 = tr / 2.0 + disc.sqrt();
            let r2 = tr / 2.0 - disc.sqrt();
            if (r1 - a22).abs() < (r2 - a22).abs() { r1 } else { r2 }
        } else {
            tr / 2.0
        };
        let mu = if iter % 11 == 0 { mu + t[(h - 1) * n + h].abs() } else { mu };
        let mut shifted = t.clone();
        for i in 0..hi {
            shifted[i * n + i] -= mu;
        }
        // QR of the active leading block, applied to the whole matrix as a similarity
        let mut block = vec![0.0; hi * hi];
        for c in 0..hi {
            for r in 0..hi {
                block[c * hi + r] = shifted[c * n + r];
            }
        }
        let (qb, _, _) = qr_of(&block, hi, hi, false);
        let mut q = identity(n);
        for c in 0..hi {
            for r in 0..hi {
                q[c * n + r] = qb[c * hi + r];
            }
        }
        let qt = transpose(&q, n, n);
        t = matmul(&matmul(&qt, n, n, &t, n), n, n, &q, n);
        z = matmul(&z, n, n, &q, n);
    }
    // clean the strictly lower part below the first subdiagonal
    for c in 0..n {
        for r in c + 2..n {
            t[c * n + r] = 0.0;
        }
    }
    (t, z)
}

fn schur(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (m, n) = square_arg("schur", &a[0])?;
    if opt(&a, 1).is_some() {
        return Err(Error::arg("The sort option of [schur] is not supported"));
    }
    let (t, z) = schur_of(&m, n);
    Ok(Value::tuple(vec![dmat(t, n, n), dmat(z, n, n)]))
}

/// Moore-Penrose pseudo-inverse via SVD.
pub fn pinv_of(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let (u, s, v) = svd_of(a, m, n);
    let k = s.len();
    let smax = s.iter().cloned().fold(0.0, f64::max);
    let tol = (m.max(n) as f64) * f64::EPSILON * smax;
    // pinv = V diag(1/s) U'  (n×m)
    let mut out = vec![0.0; n * m];
    for j in 0..k {
        if s[j] <= tol {
            continue;
        }
        let inv = 1.0 / s[j];
        for c in 0..m {
            let uc = u[j * m + c] * inv;
            for r in 0..n {
                out[c * n + r] += v[j * n + r] * uc;
            }
        }
    }
    out
}

fn pinverse(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (x, m, n) = full_arg("pinverse", &a[0])?;
    Ok(dmat(pinv_of(&x, m, n), n, m))
}

fn matrix_rank(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (x, m, n) = full_arg("matrixRank", &a[0])?;
    let (_, s, _) = svd_of(&x, m, n);
    let smax = s.iter().cloned().fold(0.0, f64::max);
    let tol = match opt(&a, 1) {
        Some(v) => f64_arg("matrixRank", v, "tol")?,
        None => (m.max(n) as f64) * f64::EPSILON * smax,
    };
    Ok(Value::int(s.iter().filter(|&&x| x > tol).count() as i32))
}

pub const DEFS: &[Builtin] = &[
    fp("eig", Kind::System, 1, 1, eig, &["A"]),
    fp("matrixRank", Kind::System, 1, 2, matrix_rank, &["X", "tol"]),
    fp("pinverse", Kind::System, 1, 1, pinverse, &["X"]),
    fp("schur", Kind::System, 1, 2, schur, &["obj", "sort"]),
    fp("svd", Kind::System, 1, 3, svd, &["obj", "fullMatrices", "computeUV"]),
];
