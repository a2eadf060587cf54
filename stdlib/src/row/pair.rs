//! Binary row-wise functions: rowCorr, rowCovar(p), rowBeta, rowWavg, rowWsum, rowDot,
//! rowEuclidean, rowTanimoto. X and Y are matrices/vectors/tuples of vectors of the same shape
//! (a vector paired with a matrix is applied to every row of the matrix). Only pairs where both
//! values are non-null take part.

use beluga_runtime::CallCtx;
use crate::row::{gather, RowCol};
use crate::window_stats::{pair_stat, PairStat};
use crate::with_slice;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Error, Result, Value};

/// A side of a binary row function: its columns, or one vector broadcast to every row.
enum Side<'a> {
    Cols(Vec<RowCol<'a>>),
    Row(Vec<f64>),
}

fn f64_at(c: &RowCol, r: usize) -> f64 {
    with_slice!(c.s, v => {
        let x = v[c.at(r)];
        if x.is_null() { f64::NAN } else { x.to_f64() }
    })
    .unwrap_or(f64::NAN)
}

/// Per-row sums over the valid pairs: (n, Σdx, Σdy, Σdx², Σdy², Σdxdy) with per-row shifts.
struct PairSums {
    n: Vec<usize>,
    s: Vec<[f64; 5]>,
    kx: Vec<f64>,
    ky: Vec<f64>,
}

fn side<'a>(name: &str, v: &'a Value, broadcast: bool) -> Result<(Side<'a>, Option<usize>)> {
    if broadcast {
        let c = v.column().ok_or_else(|| Error::unsupported(name, crate::util::describe(v)))?;
        Ok((Side::Row((0..c.len()).map(|i| c.f64_at(i).unwrap_or(f64::NAN)).collect()), None))
    } else {
        let rows = gather(name, std::slice::from_ref(v))?;
        for c in &rows.cols {
            let t = c.s.ty();
            if !(t.is_numeric() || t == DataType::Bool) {
                return Err(Error::unsupported(name, t));
            }
        }
        Ok((Side::Cols(rows.cols), Some(rows.n)))
    }
}

fn pair_sums(name: &str, a: &[Value], raw: bool) -> Result<PairSums> {
    let (x, y) = (&a[0], &a[1]);
    // a vector against a matrix or an array vector weights every row alike
    // (rowWavg(bidPrices, 10..1) over a DOUBLE[] column)
    let rowwise = |v: &Value| matches!(v, Value::Matrix(_) | Value::ArrayVector(_));
    let bx = matches!(x, Value::Vector(_)) && rowwise(y);
    let by = matches!(y, Value::Vector(_)) && rowwise(x);
    let (sx, nx) = side(name, x, bx)?;
    let (sy, ny) = side(name, y, by)?;
    let n = nx.or(ny).unwrap_or(0);
    if let (Some(p), Some(q)) = (nx, ny) {
        if p != q {
            return Err(Error::size(format!("The arguments of [{name}] must have the same number of rows")));
        }
    }
    let width = |s: &Side| match s {
        Side::Cols(c) => c.len(),
        Side::Row(v) => v.len(),
    };
    if width(&sx) != width(&sy) {
        return Err(Error::size(format!("The arguments of [{name}] must have the same number of columns")));
    }
    let get = |s: &Side, j: usize, r: usize| match s {
        Side::Cols(c) => f64_at(&c[j], r),
        Side::Row(v) => v[j],
    };
    let mut out = PairSums { n: vec![0; n], s: vec![[0.0; 5]; n], kx: vec![f64::NAN; n], ky: vec![f64::NAN; n] };
    for j in 0..width(&sx) {
        for r in 0..n {
            let (xv, yv) = (get(&sx, j, r), get(&sy, j, r));
            if xv.is_nan() || yv.is_nan() {
                continue;
            }
            if out.kx[r].is_nan() {
                out.kx[r] = if raw { 0.0 } else { xv };
                out.ky[r] = if raw { 0.0 } else { yv };
            }
            let (dx, dy) = (xv - out.kx[r], yv - out.ky[r]);
            let s = &mut out.s[r];
            s[0] += dx;
            s[1] += dy;
            s[2] += dx * dx;
            s[3] += dy * dy;
            s[4] += dx * dy;
            out.n[r] += 1;
        }
    }
    Ok(out)
}

fn dbl(v: Vec<f64>) -> Value {
    Value::Vector(Column::from_vec(DataType::Double, v.into_iter().map(f64::from_f64).collect::<Vec<f64>>()))
}

fn stat(name: &str, a: &[Value], kind: PairStat) -> Result<Value> {
    if let Some((conv, _)) = crate::row::undecimal(a)? {
        return stat(name, &conv, kind);
    }
    let raw = matches!(kind, PairStat::Wsum | PairStat::Wavg);
    let p = pair_sums(name, a, raw)?;
    Ok(dbl((0..p.n.len()).map(|r| pair_stat(kind, p.n[r], p.kx[r], p.ky[r], &p.s[r]).unwrap_or(f64::NAN)).collect()))
}

pub fn row_corr(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    stat("rowCorr", &a, PairStat::Corr)
}
pub fn row_covar(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    stat("rowCovar", &a, PairStat::Covar)
}
pub fn row_covarp(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    stat("rowCovarp", &a, PairStat::CovarP)
}
/// rowBeta(Y, X): regression coefficient of Y on X.
pub fn row_beta(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    stat("rowBeta", &a, PairStat::Beta)
}
pub fn row_wsum(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    stat("rowWsum", &a, PairStat::Wsum)
}
pub fn row_wavg(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    stat("rowWavg", &a, PairStat::Wavg)
}
pub fn row_dot(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    stat("rowDot", &a, PairStat::Wsum)
}

pub fn row_euclidean(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let p = pair_sums("rowEuclidean", &a, true)?;
    Ok(dbl((0..p.n.len())
        .map(|r| {
            if p.n[r] == 0 {
                return f64::NAN;
            }
            let [_, _, sxx, syy, sxy] = p.s[r];
            (sxx + syy - 2.0 * sxy).max(0.0).sqrt()
        })
        .collect()))
}

pub fn row_tanimoto(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let p = pair_sums("rowTanimoto", &a, true)?;
    Ok(dbl((0..p.n.len())
        .map(|r| {
            if p.n[r] == 0 {
                return f64::NAN;
            }
            let [_, _, sxx, syy, sxy] = p.s[r];
            let d = sxx + syy - sxy;
            if d == 0.0 { f64::NAN } else { 1.0 - sxy / d }
        })
        .collect()))
}
