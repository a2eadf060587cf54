//! Dense linear algebra on column-major f64 matrices: det, inverse, solve, lu, qr, cholesky,
//! tril, triu, diag, repmat, gram, gramSchmidt. Decompositions that need iteration (svd,
//! eig, schur, pinverse, matrixRank) live in linalg_decomp.rs.

use beluga_runtime::CallCtx;
use crate::math_util::{bool_opt, dmat, dvec, mat_arg};
use crate::util::{int_arg, opt};
use beluga_runtime::column::Column;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{Error, Result, Value};
use std::sync::Arc;

/// Element (r, c) of a column-major matrix with `rows` rows.
#[inline]
pub fn at(a: &[f64], rows: usize, r: usize, c: usize) -> f64 {
    a[c * rows + r]
}

/// Matrix product (m×k) · (k×n).
pub fn matmul(a: &[f64], m: usize, k: usize, b: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; m * n];
    for j in 0..n {
        for p in 0..k {
            let bv = b[j * k + p];
            if bv == 0.0 {
                continue;
            }
            for i in 0..m {
                out[j * m + i] += a[p * m + i] * bv;
            }
        }
    }
    out
}

/// Transpose of an m×n matrix.
pub fn transpose(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut t = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            t[i * n + j] = a[j * m + i];
        }
    }
    t
}

/// A square matrix argument without nulls.
pub fn square_arg(name: &str, v: &Value) -> Result<(Vec<f64>, usize)> {
    let (a, r, c) = full_arg(name, v)?;
    if r != c {
        return Err(Error::arg(format!("The argument of [{name}] must be a square matrix")));
    }
    Ok((a, r))
}

/// A matrix argument that must not contain nulls.
pub fn full_arg(name: &str, v: &Value) -> Result<(Vec<f64>, usize, usize)> {
    if !matches!(v, Value::Matrix(_) | Value::Table(_)) {
        return Err(Error::arg(format!("The argument of [{name}] must be a matrix")));
    }
    let (a, r, c) = mat_arg(name, v)?;
    if a.iter().any(|x| x.is_nan()) {
        return Err(Error::arg(format!("The matrix passed to [{name}] can't contain null values")));
    }
    Ok((a, r, c))
}

/// LU decomposition with partial pivoting of an m×n matrix: returns (lu, perm, sign) where
/// `lu` holds L (unit diagonal, below) and U (on and above the diagonal) and row i of P·A is
/// row perm[i] of A.
pub fn lu_decomp(a: &[f64], m: usize, n: usize) -> (Vec<f64>, Vec<usize>, f64) {
    let mut lu = a.to_vec();
    let mut perm: Vec<usize> = (0..m).collect();
    let mut sign = 1.0;
    for k in 0..m.min(n) {
        let mut p = k;
        let mut best = lu[k * m + k].abs();
        for i in k + 1..m {
            let v = lu[k * m + i].abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        if p != k {
            for j in 0..n {
                lu.swap(j * m + k, j * m + p);
            }
            perm.swap(k, p);
            sign = -sign;
        }
        let pivot = lu[k * m + k];
        if pivot == 0.0 {
            continue;
        }
        for i in k + 1..m {
            let f = lu[k * m + i] / pivot;
            lu[k * m + i] = f;
            if f != 0.0 {
                for j in k + 1..n {
                    lu[j * m + i] -= f * lu[j * m + k];
                }
            }
        }
    }
    (lu, perm, sign)
}

pub fn det_of(a: &[f64], n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let (lu, _, sign) = lu_decomp(a, n, n);
    (0..n).map(|i| lu[i * n + i]).product::<f64>() * sign
}

/// Solve A X = B for square A (n×n) and B (n×k); None when A is singular.
pub fn solve_of(a: &[f64], n: usize, b: &[f64], k: usize) -> Option<Vec<f64>> {
    let (lu, perm, _) = lu_decomp(a, n, n);
    let scale = a.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
    if (0..n).any(|i| lu[i * n + i].abs() <= scale * 1e-14) {
        return None;
    }
    let mut x = vec![0.0; n * k];
    for c in 0..k {
        // forward substitution with the permuted right-hand side
        let mut y: Vec<f64> = (0..n).map(|i| b[c * n + perm[i]]).collect();
        for i in 0..n {
            for j in 0..i {
                y[i] -= lu[j * n + i] * y[j];
            }
        }
        for i in (0..n).rev() {
            for j in i + 1..n {
                y[i] -= lu[j * n + i] * y[j];
            }
            y[i] /= lu[i * n + i];
        }
        x[c * n..(c + 1) * n].copy_from_slice(&y);
    }
    Some(x)
}

pub fn identity(n: usize) -> Vec<f64> {
    let mut e = vec![0.0; n * n];
    for i in 0..n {
        e[i * n + i] = 1.0;
    }
    e
}

/// Inverse of a square matrix; None when singular.
pub fn inverse_of(a: &[f64], n: usize) -> Option<Vec<f64>> {
    solve_of(a, n, &identity(n), n)
}

/// `det(obj)`: null elements count as 0 (DolphinDB: `det(1 2 3 6 5 4 8 7 NULL$3:3)` is 42).
fn det(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if !matches!(a[0], Value::Matrix(_) | Value::Table(_)) {
        return Err(Error::arg("The argument of [det] must be a matrix"));
    }
    let (mut m, r, c) = mat_arg("det", &a[0])?;
    if r != c {
        return Err(Error::arg("The argument of [det] must be a square matrix"));
    }
    for x in m.iter_mut().filter(|x| x.is_nan()) {
        *x = 0.0;
    }
    Ok(Value::double(det_of(&m, r)))
}

fn inverse(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (m, n) = square_arg("inverse", &a[0])?;
    let inv = inverse_of(&m, n).ok_or_else(|| Error::runtime("The matrix is singular and can't be inverted"))?;
    Ok(dmat(inv, n, n))
}

fn solve(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (m, n) = square_arg("solve", &a[0])?;
    let (b, br, bc) = mat_arg("solve", &a[1])?;
    if br != n {
        return Err(Error::size("The rows of the right-hand side of [solve] must equal the size of the matrix"));
    }
    let x = solve_of(&m, n, &b, bc).ok_or_else(|| Error::runtime("The matrix passed to [solve] is singular"))?;
    Ok(if matches!(a[1], Value::Matrix(_)) { dmat(x, n, bc) } else { dvec(x) })
}

/// `lu(obj, [permute=false])`: (P, L, U) with obj = P·L·U, or (P·L, U) when permute.
fn lu(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (x, m, n) = full_arg("lu", &a[0])?;
    let permute = bool_opt(&a, 1, false);
    let k = m.min(n);
    let (f, perm, _) = lu_decomp(&x, m, n);
    let mut l = vec![0.0; m * k];
    let mut u = vec![0.0; k * n];
    for i in 0..m {
        for j in 0..k {
            l[j * m + i] = if i == j { 1.0 } else if i > j { f[j * m + i] } else { 0.0 };
        }
    }
    for i in 0..k {
        for j in i..n {
            u[j * k + i] = f[j * m + i];
        }
    }
    // row perm[i] of obj is row i of L·U, so P has a one at (perm[i], i)
    let mut p = vec![0.0; m * m];
    for (i, &r) in perm.iter().enumerate() {
        p[i * m + r] = 1.0;
    }
    if permute {
        // P'·L: row perm[i] of the result is row i of L
        let mut pl = vec![0.0; m * k];
        for (i, &r) in perm.iter().enumerate() {
            for j in 0..k {
                pl[j * m + r] = l[j * m + i];
            }
        }
        return Ok(Value::tuple(vec![dmat(pl, m, k), dmat(u, k, n)]));
    }
    Ok(Value::tuple(vec![dmat(p, m, m), dmat(l, m, k), dmat(u, k, n)]))
}

/// Householder QR of an m×n matrix (LAPACK sign conventions): returns (Q m×m, R m×n, column
/// order). With `pivot`, the column of largest remaining norm is moved forward at each step.
pub fn qr_of(a: &[f64], m: usize, n: usize, pivot: bool) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let f = householder_qr(a, m, n, pivot);
    (f.q, f.r, f.order)
}

/// A Householder QR factorization: Q, R, the column order, and LAPACK's compact form (the
/// reflector vectors `v` with `v[0] = 1` stored below the diagonal of R, and `tau`, where
/// each reflector is `I - tau·v·vᵀ`).
pub struct QrFactors {
    pub q: Vec<f64>,
    pub r: Vec<f64>,
    pub order: Vec<usize>,
    /// R with the reflector vectors below its diagonal (LAPACK `geqrf`'s `a`).
    pub h: Vec<f64>,
    pub tau: Vec<f64>,
}

pub fn householder_qr(a: &[f64], m: usize, n: usize, pivot: bool) -> QrFactors {
    let mut r = a.to_vec();
    let mut q = identity(m);
    let mut order: Vec<usize> = (0..n).collect();
    let k_max = n.min(m);
    let mut tau = vec![0.0; k_max];
    // reflector vectors (scaled so that v[0] = 1), column k holds rows k+1..m
    let mut refl = vec![0.0; m * n];
    for k in 0..k_max {
        if pivot {
            let norm_of = |r: &[f64], j: usize| -> f64 { (k..m).map(|i| r[j * m + i] * r[j * m + i]).sum() };
            let best = (k..n).fold(k, |b, j| if norm_of(&r, j) > norm_of(&r, b) { j } else { b });
            if best != k {
                for i in 0..m {
                    r.swap(k * m + i, best * m + i);
                    refl.swap(k * m + i, best * m + i);
                }
                order.swap(k, best);
            }
        }
        if m - k < 2 {
            break;
        }
        let norm: f64 = (k..m).map(|i| r[k * m + i] * r[k * m + i]).sum::<f64>().sqrt();
        if norm == 0.0 {
            continue;
        }
        let x0 = r[k * m + k];
        let alpha = if x0 > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = (k..m).map(|i| r[k * m + i]).collect();
        v[0] -= alpha;
        let vn: f64 = v.iter().map(|x| x * x).sum();
        if vn == 0.0 {
            continue;
        }
        tau[k] = (alpha - x0) / alpha;
        for i in k + 1..m {
            refl[k * m + i] = v[i - k] / v[0];
        }
        // R = H R
        for j in 0..n {
            let s: f64 = (k..m).map(|i| v[i - k] * r[j * m + i]).sum::<f64>() * 2.0 / vn;
            for i in k..m {
                r[j * m + i] -= s * v[i - k];
            }
        }
        // Q = Q H
        for i in 0..m {
            let s: f64 = (k..m).map(|c| q[c * m + i] * v[c - k]).sum::<f64>() * 2.0 / vn;
            for c in k..m {
                q[c * m + i] -= s * v[c - k];
            }
        }
    }
    for j in 0..n {
        for i in j + 1..m {
            r[j * m + i] = 0.0;
        }
    }
    let mut h = r.clone();
    for j in 0..k_max {
        for i in j + 1..m {
            h[j * m + i] = refl[j * m + i];
        }
    }
    QrFactors { q, r, order, h, tau }
}

/// The `mode` of qr: a STRING, or a CHAR for the one-letter `'r'`.
fn qr_mode(v: Option<&Value>) -> Result<String> {
    let Some(v) = v else { return Ok("full".into()) };
    if let Value::Scalar(c) = v {
        if c.ty == beluga_runtime::DataType::Char {
            if let Some(ch) = c.i64_at(0) {
                return Ok(((ch as u8) as char).to_ascii_lowercase().to_string());
            }
        }
    }
    Ok(crate::util::str_arg("qr", v, "mode")?.to_ascii_lowercase())
}

/// `qr(obj, [mode='full'], [pivoting=false])`: `full` (Q m×m, R m×n), `economic`
/// (Q m×k, R k×n), `r` (R only) or `raw` (LAPACK's compact H, tau, and R); with `pivoting`
/// the column permutation is appended.
fn qr(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (x, m, n) = full_arg("qr", &a[0])?;
    let mode = qr_mode(opt(&a, 1))?;
    let pivoting = bool_opt(&a, 2, false);
    let QrFactors { q, r, order, h, tau } = householder_qr(&x, m, n, pivoting);
    let k = m.min(n);
    let mut out = match mode.as_str() {
        "full" => vec![dmat(q, m, m), dmat(r, m, n)],
        "economic" => {
            let qe: Vec<f64> = q[..m * k].to_vec();
            let mut re = vec![0.0; k * n];
            for j in 0..n {
                for i in 0..k {
                    re[j * k + i] = r[j * m + i];
                }
            }
            vec![dmat(qe, m, k), dmat(re, k, n)]
        }
        "r" => vec![dmat(r, m, n)],
        "raw" => vec![dmat(h, m, n), dvec(tau), dmat(r, m, n)],
        _ => return Err(Error::arg("The mode of [qr] must be 'full', 'economic', 'r' or 'raw'")),
    };
    if pivoting {
        out.push(Value::int_vec(order.iter().map(|&j| j as i32).collect()));
    }
    if out.len() == 1 {
        return Ok(out.remove(0));
    }
    Ok(Value::tuple(out))
}

/// Cholesky factor of a symmetric positive-definite matrix (lower by default).
pub fn cholesky_of(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= l[k * n + j] * l[k * n + j];
        }
        if d <= 0.0 {
            return None;
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[j * n + i];
            for k in 0..j {
                s -= l[k * n + i] * l[k * n + j];
            }
            l[j * n + i] = s / d;
        }
    }
    Some(l)
}

fn cholesky(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (m, n) = square_arg("cholesky", &a[0])?;
    let lower = bool_opt(&a, 1, true);
    let l = cholesky_of(&m, n).ok_or_else(|| Error::runtime("The matrix passed to [cholesky] is not positive definite"))?;
    Ok(if lower { dmat(l, n, n) } else { dmat(transpose(&l, n, n), n, n) })
}

/// Keep the lower (or upper) triangle relative to diagonal k, keeping the matrix type.
fn triangle(name: &str, a: &[Value], lower: bool) -> Result<Value> {
    let m = match &a[0] {
        Value::Matrix(m) => m.clone(),
        _ => return Err(Error::arg(format!("The first argument of [{name}] must be a matrix"))),
    };
    let k = match opt(a, 1) {
        Some(v) => int_arg(name, v, "k")?,
        None => 0,
    };
    let mut keep = Vec::with_capacity(m.rows * m.cols);
    for c in 0..m.cols {
        for r in 0..m.rows {
            let d = c as i64 - r as i64;
            keep.push(if lower { d <= k } else { d >= k });
        }
    }
    // zero out the other side: take the element or a zero of the same type
    let zero = beluga_runtime::kernels::cast::cast_column(&Column::from_vec(beluga_runtime::DataType::Int, vec![0i32]), m.data.ty)?;
    let idx: Vec<usize> = (0..keep.len()).map(|i| if keep[i] { i } else { keep.len() }).collect();
    let mut ext = m.data.clone();
    ext.append(&zero);
    let data = ext.take_usize(&idx);
    Ok(Value::Matrix(Arc::new(Matrix { data, ..(*m).clone() })))
}

fn tril(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    triangle("tril", &a, true)
}
fn triu(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    triangle("triu", &a, false)
}

/// `diag(X)`: a diagonal matrix from a vector, or the diagonal of a matrix.
fn diag(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match &a[0] {
        Value::Matrix(m) => {
            let k = m.rows.min(m.cols);
            let idx: Vec<usize> = (0..k).map(|i| i * m.rows + i).collect();
            Ok(Value::Vector(m.data.take_usize(&idx)))
        }
        Value::Vector(c) | Value::Scalar(c) => {
            let n = c.len();
            let zero = beluga_runtime::kernels::cast::cast_column(&Column::from_vec(beluga_runtime::DataType::Int, vec![0i32]), c.ty)?;
            let mut ext = c.clone();
            ext.append(&zero);
            let idx: Vec<usize> = (0..n * n).map(|p| if p % n == p / n { p / n } else { n }).collect();
            Ok(Value::Matrix(Arc::new(Matrix { data: ext.take_usize(&idx), rows: n, cols: n, row_labels: None, col_labels: None, indexed: false })))
        }
        other => Err(crate::math_util::form_err("diag", other)),
    }
}

/// `repmat(X, rowRep, colRep)`: tile a matrix.
fn repmat(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (data, rows, cols) = match &a[0] {
        Value::Matrix(m) => (m.data.clone(), m.rows, m.cols),
        Value::Vector(c) => (c.clone(), c.len(), 1),
        other => return Err(crate::math_util::form_err("repmat", other)),
    };
    let rr = int_arg("repmat", &a[1], "rowRep")?;
    let cr = int_arg("repmat", &a[2], "colRep")?;
    if rr < 1 || cr < 1 {
        return Err(Error::arg("The repetition counts of [repmat] must be positive"));
    }
    let (rr, cr) = (rr as usize, cr as usize);
    let (nr, nc) = (rows.saturating_mul(rr), cols.saturating_mul(cr));
    crate::math_util::check_size("repmat", nr.saturating_mul(nc))?;
    let idx: Vec<usize> = (0..nr * nc)
        .map(|p| {
            let (r, c) = (p % nr, p / nr);
            (c % cols) * rows + r % rows
        })
        .collect();
    Ok(Value::Matrix(Arc::new(Matrix { data: data.take_usize(&idx), rows: nr, cols: nc, row_labels: None, col_labels: None, indexed: false })))
}

/// `gram(X)`: X' X.
fn gram(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (x, m, n) = mat_arg("gram", &a[0])?;
    let x: Vec<f64> = x.into_iter().map(|v| if v.is_nan() { 0.0 } else { v }).collect();
    let t = transpose(&x, m, n);
    Ok(dmat(matmul(&t, n, m, &x, n), n, n))
}

/// `gramSchmidt(X, [normalize=true])`: orthogonalise the columns (modified Gram-Schmidt).
fn gram_schmidt(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (mut x, m, n) = full_arg("gramSchmidt", &a[0])?;
    let normalize = bool_opt(&a, 1, true);
    for j in 0..n {
        for k in 0..j {
            let nk: f64 = (0..m).map(|i| x[k * m + i] * x[k * m + i]).sum();
            if nk == 0.0 {
                continue;
            }
            let d: f64 = (0..m).map(|i| x[k * m + i] * x[j * m + i]).sum::<f64>() / nk;
            for i in 0..m {
                x[j * m + i] -= d * x[k * m + i];
            }
        }
    }
    if normalize {
        for j in 0..n {
            let nj: f64 = (0..m).map(|i| x[j * m + i] * x[j * m + i]).sum::<f64>().sqrt();
            if nj > 0.0 {
                for i in 0..m {
                    x[j * m + i] /= nj;
                }
            }
        }
    }
    Ok(dmat(x, m, n))
}

pub const DEFS: &[Builtin] = &[
    fp("cholesky", Kind::System, 1, 2, cholesky, &["obj", "lower"]),
    fp("det", Kind::System, 1, 1, det, &["obj"]),
    fp("diag", Kind::System, 1, 1, diag, &["X"]),
    fp("gram", Kind::System, 1, 1, gram, &["X"]),
    fp("gramSchmidt", Kind::System, 1, 2, gram_schmidt, &["X", "normalize"]),
    fp("inverse", Kind::System, 1, 1, inverse, &["obj"]),
    fp("lu", Kind::System, 1, 2, lu, &["obj", "permute"]),
    fp("qr", Kind::System, 1, 3, qr, &["obj", "mode", "pivoting"]),
    fp("repmat", Kind::System, 3, 3, repmat, &["X", "rowRep", "colRep"]),
    fp("solve", Kind::System, 2, 2, solve, &["X", "Y"]),
    fp("tril", Kind::System, 1, 2, tril, &["X", "k"]),
    fp("triu", Kind::System, 1, 2, triu, &["X", "k"]),
];

pub mod decomp;

/// The linear-algebra family's rows: dense kernels and iterative decompositions.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, decomp::DEFS].iter().for_each(|defs| r.extend(defs));
}
