//! Row-wise functions whose result has the shape of X: rowCumsum/prod/max/min/wsum,
//! rowMove/Prev/Next, rowRank, rowDenseRank; plus rowAt, rowAlign and rowGmd5.
//!
//! X is a matrix (result: matrix), a tuple of equal-length vectors taken as columns (result:
//! tuple), a table or a vector. Array vectors do not exist in the runtime yet; rowAlign and
//! rowGmd5 take "columnar tuples" (a tuple whose elements are the rows) in their place.

use beluga_runtime::CallCtx;
use crate::row::{gather, RowCol};
use crate::window::{opt_bool, opt_str, Slice};
use crate::window_order::{ties_arg, Ties};
use crate::with_slice;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::null::Native;
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

/// Rebuild a value of X's form from per-column results.
fn reshape_like(x: &Value, cols: Vec<Column>) -> Result<Value> {
    Ok(match x {
        Value::Matrix(m) => {
            let ty = cols.first().map(|c| c.ty).unwrap_or(m.data.ty);
            let refs: Vec<&Column> = cols.iter().collect();
            Value::Matrix(Arc::new(Matrix { data: Column::concat(ty, &refs), ..(**m).clone() }))
        }
        Value::Table(t) => Value::table(Table::new(t.names.clone(), cols)?),
        Value::Vector(_) => Value::Vector(cols.into_iter().next().unwrap_or_else(|| Column::from_vec(DataType::Double, Vec::<f64>::new()))),
        // back to the rows' own lengths
        Value::ArrayVector(a) => Value::ArrayVector(Arc::new(a.from_padded(&cols))),
        _ => Value::tuple(cols.into_iter().map(Value::Vector).collect()),
    })
}

fn shaped_cols<'a>(name: &str, x: &'a Value) -> Result<(usize, Vec<RowCol<'a>>)> {
    match x {
        Value::Matrix(_) | Value::Tuple(_) | Value::Table(_) | Value::Vector(_) | Value::ArrayVector(_) => {
            let rows = gather(name, std::slice::from_ref(x))?;
            Ok((rows.n, rows.cols))
        }
        other => Err(Error::unsupported(name, crate::util::describe(other))),
    }
}

fn values_f64(c: &RowCol, n: usize) -> Vec<f64> {
    // one type dispatch per column, then a plain loop
    with_slice!(c.s, v => {
        let f = |i: usize| { let x = v[i]; if x.is_null() { f64::NAN } else { x.to_f64() } };
        if c.scalar { vec![f(0); n] } else { (0..n).map(f).collect::<Vec<f64>>() }
    })
    .unwrap_or_else(|| vec![f64::NAN; n])
}

fn values_i64(c: &RowCol, n: usize) -> Vec<i64> {
    (0..n)
        .map(|r| with_slice!(c.s, v => { let x = v[c.at(r)]; if x.is_null() { i64::NULL } else { x.to_i64() } }).unwrap_or(i64::NULL))
        .collect()
}

#[derive(Clone, Copy, PartialEq)]
enum CumOp {
    Sum,
    Prod,
    Max,
    Min,
}

fn row_cum(name: &str, a: &[Value], op: CumOp) -> Result<Value> {
    let (n, cols) = shaped_cols(name, &a[0])?;
    for c in &cols {
        let t = c.s.ty();
        if !(t.is_numeric() || t == DataType::Bool || (matches!(op, CumOp::Max | CumOp::Min) && t.is_temporal())) {
            return Err(Error::unsupported(name, t));
        }
    }
    let floats = cols.iter().any(|c| c.s.ty().is_floating());
    let mut out = Vec::with_capacity(cols.len());
    if floats {
        let mut acc = vec![f64::NAN; n];
        for c in &cols {
            for (r, x) in values_f64(c, n).into_iter().enumerate() {
                if x.is_nan() {
                    continue;
                }
                let a0 = acc[r];
                acc[r] = if a0.is_nan() {
                    x
                } else {
                    match op {
                        CumOp::Sum => a0 + x,
                        CumOp::Prod => a0 * x,
                        CumOp::Max => a0.max(x),
                        CumOp::Min => a0.min(x),
                    }
                };
            }
            out.push(Column::from_vec(DataType::Double, acc.iter().map(|&x| f64::from_f64(x)).collect::<Vec<f64>>()));
        }
    } else {
        // sums and products exact in i128 (`kernels::intacc`: LONG, NULL outside its range)
        use beluga_runtime::kernels::intacc;
        let mut acc: Vec<Option<i128>> = vec![None; n];
        let ty = match op {
            CumOp::Sum | CumOp::Prod => DataType::Long,
            _ => cols.first().map(|c| c.s.ty()).unwrap_or(DataType::Int),
        };
        for c in &cols {
            for (r, x) in values_i64(c, n).into_iter().enumerate() {
                if x.is_null() {
                    continue;
                }
                let x = x as i128;
                acc[r] = Some(match acc[r] {
                    None => x,
                    Some(a0) => match op {
                        CumOp::Sum => a0 + x,
                        CumOp::Prod => intacc::mul(a0, x),
                        CumOp::Max => a0.max(x),
                        CumOp::Min => a0.min(x),
                    },
                });
            }
            let v: Vec<i64> = acc.iter().map(|a| a.map_or(i64::NULL, intacc::to_long)).collect();
            out.push(narrow(ty, &v));
        }
    }
    reshape_like(&a[0], out)
}

/// An i64 buffer as a column of an integral/temporal type.
fn narrow(ty: DataType, v: &[i64]) -> Column {
    use beluga_runtime::types::Physical;
    match ty.physical() {
        Physical::I8 => Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i8::NULL } else { x as i8 }).collect::<Vec<i8>>()),
        Physical::I16 => Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i16::NULL } else { x as i16 }).collect::<Vec<i16>>()),
        Physical::I32 => Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i32::NULL } else { x as i32 }).collect::<Vec<i32>>()),
        _ => Column::from_vec(ty, v.to_vec()),
    }
}

pub fn row_cumsum(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_cum("rowCumsum", &a, CumOp::Sum)
}
pub fn row_cumprod(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_cum("rowCumprod", &a, CumOp::Prod)
}
pub fn row_cummax(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_cum("rowCummax", &a, CumOp::Max)
}
pub fn row_cummin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_cum("rowCummin", &a, CumOp::Min)
}

/// rowCumwsum(X, Y): running Σ x*y along each row (DOUBLE).
pub fn row_cumwsum(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "rowCumwsum";
    let (n, xc) = shaped_cols(name, &a[0])?;
    let (m, yc) = shaped_cols(name, &a[1])?;
    if n != m || xc.len() != yc.len() {
        return Err(Error::size(format!("The arguments of [{name}] must have the same shape")));
    }
    let mut acc = vec![f64::NAN; n];
    let mut out = Vec::with_capacity(xc.len());
    for (cx, cy) in xc.iter().zip(&yc) {
        let (xv, yv) = (values_f64(cx, n), values_f64(cy, n));
        for r in 0..n {
            if !xv[r].is_nan() && !yv[r].is_nan() {
                let p = xv[r] * yv[r];
                acc[r] = if acc[r].is_nan() { p } else { acc[r] + p };
            }
        }
        out.push(Column::from_vec(DataType::Double, acc.iter().map(|&x| f64::from_f64(x)).collect::<Vec<f64>>()));
    }
    reshape_like(&a[0], out)
}

/// Shift each row by `steps` columns (right for positive steps), filling with nulls.
fn row_shift(name: &str, x: &Value, steps: i64) -> Result<Value> {
    let (n, cols) = shaped_cols(name, x)?;
    let w = cols.len() as i64;
    let ty = cols.first().map(|c| c.s.ty()).unwrap_or(DataType::Double);
    let mut out = Vec::with_capacity(cols.len());
    for j in 0..w {
        let src = j - steps;
        if src < 0 || src >= w {
            out.push(Column::nulls(ty, n));
        } else {
            let c = &cols[src as usize];
            let idx: Vec<i64> = (0..n).map(|r| (c.s.off + c.at(r)) as i64).collect();
            out.push(c.s.col.take(&idx));
        }
    }
    reshape_like(x, out)
}

pub fn row_move(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let steps = a.get(1).and_then(|v| v.as_i64()).ok_or_else(|| Error::arg("The steps argument of [rowMove] must be an integer"))?;
    row_shift("rowMove", &a[0], steps)
}
pub fn row_prev(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_shift("rowPrev", &a[0], 1)
}
pub fn row_next(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_shift("rowNext", &a[0], -1)
}

beluga_runtime::simd_fn! {
    /// (keys below `x`, keys not above `x`) in `pool`, vectorised (AVX-512/AVX2 when present).
    fn count_keys(pool: &[u64], x: u64) -> (u64, u64) {
        let (mut lt, mut le) = (0u64, 0u64);
        for &p in pool {
            lt += (p < x) as u64;
            le += (p <= x) as u64;
        }
        (lt, le)
    }
}

/// Rows up to this many columns are ranked by counting instead of sorting.
const COUNT_RANK_MAX: usize = 64;

/// Rank of each element within its row (`out[j]` for `vals[j]`, NaN where not ranked);
/// returns the number of ranked elements (distinct values when `dense`). `pairs` and
/// `packed` are scratch.
#[allow(clippy::too_many_arguments)]
fn rank_row(vals: &[f64], out: &mut [f64], pairs: &mut Vec<(u64, u32)>, packed: &mut Vec<u64>, asc: bool, ignore_na: bool, ties: Ties, dense: bool, eps: f64) -> usize {
    // sort (order key, position) pairs: the key maps the order below (NaN first, -0 = 0;
    // descending flips it) onto u64, ties fall to the position, so an unstable sort of
    // plain integers gives the stable comparison order without a comparator per pair
    let key = |x: f64| -> u64 {
        if x.is_nan() {
            return 0;
        }
        let b = (x + 0.0).to_bits();
        let k = if b >> 63 == 1 { !b } else { b | (1 << 63) };
        k.max(1)
    };
    if !dense && eps == 0.0 && ties != Ties::First && vals.len() <= COUNT_RANK_MAX {
        // short rows: count, for each element, the ranked keys below / not above its own
        // (equal keys are exactly the equal values the sort below groups): O(w^2) compares
        // that vectorise, against a sort per row
        let ranked = |x: f64| !ignore_na || !x.is_nan();
        let k = |x: f64| if asc { key(x) } else { !key(x) };
        let pool: Vec<u64> = vals.iter().filter(|&&x| ranked(x)).map(|&x| k(x)).collect();
        for (o, &x) in out.iter_mut().zip(vals) {
            if !ranked(x) {
                *o = f64::NAN;
                continue;
            }
            let (lt, le) = count_keys(&pool, k(x));
            *o = match ties {
                Ties::Min => lt as f64,
                Ties::Max => le as f64 - 1.0,
                _ => (lt + le) as f64 / 2.0 - 0.5,
            };
        }
        return pool.len();
    }
    pairs.clear();
    pairs.extend((0..vals.len()).filter(|&j| !ignore_na || !vals[j].is_nan()).map(|j| {
        let k = key(vals[j]);
        (if asc { k } else { !k }, j as u32)
    }));
    beluga_runtime::kernels::order::sort_pairs(pairs, packed);
    let idx = &*pairs;
    // tied: equal keys (equal values, NaN with NaN; equal infinities too), or within eps
    // of the run's first value
    let same = |g: usize, h: usize| {
        let (a, b) = (vals[idx[g].1 as usize], vals[idx[h].1 as usize]);
        idx[g].0 == idx[h].0 || (eps > 0.0 && !a.is_nan() && !b.is_nan() && (a - b).abs() <= eps)
    };
    out.iter_mut().for_each(|v| *v = f64::NAN);
    let (mut g, mut dense_rank) = (0usize, 0usize);
    while g < idx.len() {
        let mut h = g + 1;
        while h < idx.len() && same(g, h) {
            h += 1;
        }
        for (k, &(_, j)) in idx[g..h].iter().enumerate() {
            out[j as usize] = if dense {
                dense_rank as f64
            } else {
                match ties {
                    Ties::Min => g as f64,
                    Ties::Max => (h - 1) as f64,
                    Ties::Average => (g + h - 1) as f64 / 2.0,
                    Ties::First => (g + k) as f64,
                }
            };
        }
        dense_rank += 1;
        g = h;
    }
    if dense { dense_rank } else { idx.len() }
}

fn row_rank_impl(name: &str, a: &[Value], dense: bool) -> Result<Value> {
    let x = &a[0];
    let (n, cols) = shaped_cols(name, x)?;
    let asc = opt_bool(name, a, 1, "ascending", true)?;
    let (group_num, ignore_na, ties, percent, eps) = if dense {
        (None, opt_bool(name, a, 2, "ignoreNA", true)?, Ties::Min, opt_bool(name, a, 3, "percent", false)?, 0.0)
    } else {
        let g = crate::util::opt(a, 2)
            .map(|v| v.as_i64().filter(|g| *g >= 1).ok_or_else(|| Error::arg(format!("The groupNum argument of [{name}] must be a positive integer"))))
            .transpose()?;
        let ties = ties_arg(name, opt_str(name, a, 4, "tiesMethod", "min")?, true)?;
        let eps = match crate::util::opt(a, 6) {
            None => 0.0,
            Some(p) => {
                let p = p.as_i64().filter(|p| (1..=15).contains(p)).ok_or_else(|| Error::arg(format!("The precision argument of [{name}] must be in [1, 15]")))?;
                10f64.powi(-(p as i32))
            }
        };
        (g, opt_bool(name, a, 3, "ignoreNA", true)?, ties, opt_bool(name, a, 5, "percent", false)?, eps)
    };
    for c in &cols {
        let t = c.s.ty();
        if !(t.is_numeric() || t == DataType::Bool || t.is_temporal()) {
            return Err(Error::unsupported(name, t));
        }
    }
    let w = cols.len();
    // the values row-major (each row's values contiguous for its sort)
    let mut vals = vec![0.0; n * w];
    for (j, c) in cols.iter().enumerate() {
        for (r, x) in values_f64(c, n).into_iter().enumerate() {
            vals[r * w + j] = x;
        }
    }
    // ranks row-major, rows in parallel chunks (each with its own buffers), then by column
    let poll = beluga_runtime::guard::Poll::new();
    let rank_rows = |r0: usize, part: &mut [f64]| {
        poll.now();
        let (mut pairs, mut packed) = (Vec::with_capacity(w), Vec::with_capacity(w));
        for (k, out) in part.chunks_mut(w.max(1)).enumerate() {
            let r = r0 + k;
            let total = rank_row(&vals[r * w..(r + 1) * w], out, &mut pairs, &mut packed, asc, ignore_na, ties, dense, eps);
            for v in out.iter_mut().filter(|v| !v.is_nan()) {
                if let Some(g) = group_num {
                    *v = (*v * g as f64 / total as f64).floor();
                } else if percent {
                    *v = (*v + 1.0) / total as f64;
                }
            }
        }
    };
    let mut by_row = vec![f64::NAN; n * w];
    const ROWS_PER_TASK: usize = 64;
    if n * w >= beluga_runtime::kernels::par::PAR_MAP_MIN / 16 && w > 0 {
        use rayon::prelude::*;
        by_row.par_chunks_mut(ROWS_PER_TASK * w).enumerate().for_each(|(t, part)| rank_rows(t * ROWS_PER_TASK, part));
    } else {
        rank_rows(0, &mut by_row);
    }
    // to column-major in the result's type, in one pass
    let double = percent || ties == Ties::Average;
    if double {
        to_columns(x, DataType::Double, n, w, transpose(&by_row, n, w, f64::from_f64))
    } else {
        to_columns(x, DataType::Int, n, w, transpose(&by_row, n, w, |f| if f.is_nan() { i32::NULL } else { f as i32 }))
    }
}

/// The column-major `w` columns of `n` rows of a row-major buffer, each value through `f`.
fn transpose<T: Copy + Default>(by_row: &[f64], n: usize, w: usize, f: impl Fn(f64) -> T) -> Vec<T> {
    let mut out = vec![T::default(); n * w];
    for (r, row) in by_row.chunks_exact(w.max(1)).enumerate() {
        for (j, &v) in row.iter().enumerate() {
            out[j * n + r] = f(v);
        }
    }
    out
}

/// A result of `x`'s shape from its columns laid end to end (a matrix takes the buffer as is).
fn to_columns<T: Native>(x: &Value, ty: DataType, n: usize, w: usize, data: Vec<T>) -> Result<Value>
where
    Vec<T>: beluga_runtime::column::IntoColData,
{
    if let Value::Matrix(m) = x {
        if m.rows * m.cols == data.len() {
            return Ok(Value::Matrix(Arc::new(Matrix { data: Column::from_vec(ty, data), ..(**m).clone() })));
        }
    }
    let cols = (0..w).map(|j| Column::from_vec(ty, data[j * n..(j + 1) * n].to_vec())).collect();
    reshape_like(x, cols)
}

pub fn row_rank(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_rank_impl("rowRank", &a, false)
}
pub fn row_dense_rank(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_rank_impl("rowDenseRank", &a, true)
}

/// rowAt(X, [Y]): X[r, Y[r]] for an integer vector Y; the selected elements of each row for a
/// BOOL matrix Y; the positions of the true elements of a BOOL matrix X when Y is omitted.
/// Rows picked by `rowAt` as an array vector (`Value::Void`, a row without picks, is the
/// null row `[null]`), or as a tuple when X is a columnar tuple (funcs/r/rowAt.md).
fn picked_rows(x: &Value, ty: DataType, rows: Vec<Value>) -> Result<Value> {
    if matches!(x, Value::Tuple(_)) {
        return Ok(Value::tuple(rows));
    }
    let null = Column::nulls(ty, 1);
    let cols: Vec<Column> = rows
        .iter()
        .map(|r| match r {
            Value::Vector(c) => c.clone(),
            _ => null.clone(),
        })
        .collect();
    Ok(Value::ArrayVector(Arc::new(beluga_runtime::value::ArrayVec::from_rows(ty, &cols))))
}

/// `rowAt` of an array vector X with an array-vector Y: a BOOL Y picks the cells where it
/// is true, an integral Y gives per row the cells at its indices (null when out of range);
/// rows without a pick are null rows.
fn row_at_arrays(x: &beluga_runtime::value::ArrayVec, y: &beluga_runtime::value::ArrayVec) -> Result<Value> {
    use beluga_runtime::value::ArrayVec;
    if x.rows() != y.rows() {
        return Err(Error::size("The arguments of [rowAt] must have the same number of rows"));
    }
    let mut offsets = Vec::with_capacity(x.rows() + 1);
    offsets.push(0usize);
    let mut idx: Vec<i64> = Vec::with_capacity(y.data.len());
    let bool_y = y.data.ty == DataType::Bool;
    if !bool_y && !y.data.ty.is_integral() {
        return Err(Error::arg("The index of [rowAt] must be an integral or BOOL array vector"));
    }
    for r in 0..x.rows() {
        let (xo, xl) = (x.offsets[r], x.row_len(r));
        let start = idx.len();
        for k in y.offsets[r]..y.offsets[r + 1] {
            let v = y.data.i64_at(k);
            if bool_y {
                let j = k - y.offsets[r];
                if v.unwrap_or(0) != 0 && j < xl {
                    idx.push((xo + j) as i64);
                }
            } else {
                idx.push(match v {
                    Some(j) if j >= 0 && (j as usize) < xl => (xo + j as usize) as i64,
                    _ => -1,
                });
            }
        }
        if idx.len() == start {
            idx.push(-1);
        }
        offsets.push(idx.len());
    }
    Ok(Value::ArrayVector(Arc::new(ArrayVec::new(offsets, x.data.take(&idx)))))
}

pub fn row_at(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "rowAt";
    if let (Value::ArrayVector(x), Some(Value::ArrayVector(y))) = (&a[0], a.get(1)) {
        return row_at_arrays(x, y);
    }
    if let (Value::Matrix(m), Some(Value::ArrayVector(y))) = (&a[0], a.get(1)) {
        // a matrix's rows as an array vector of equal-length rows
        let rows: Vec<Column> = (0..m.rows)
            .map(|r| m.data.take(&(0..m.cols).map(|c| (c * m.rows + r) as i64).collect::<Vec<i64>>()))
            .collect();
        let x = beluga_runtime::value::ArrayVec::from_rows(m.data.ty, &rows);
        return row_at_arrays(&x, y);
    }
    if a.len() == 1 {
        let ty = match &a[0] {
            Value::ArrayVector(x) => x.data.ty,
            Value::Matrix(m) => m.data.ty,
            _ => DataType::Bool,
        };
        if ty != DataType::Bool {
            return Err(Error::arg("[rowAt] with one argument needs a BOOL matrix or array vector"));
        }
    }
    let (n, xc) = shaped_cols(name, &a[0])?;
    let pick = |r: usize, j: usize| -> i64 { (xc[j].s.off + xc[j].at(r)) as i64 };
    match crate::util::opt(&a, 1) {
        None => {
            let idx = Column::from_vec(DataType::Int, (0..xc.len() as i32).collect::<Vec<i32>>());
            let vals: Vec<Vec<f64>> = xc.iter().map(|c| values_f64(c, n)).collect();
            let rows = (0..n)
                .map(|r| {
                    let sel: Vec<i64> = (0..xc.len()).filter(|&j| !vals[j][r].is_nan() && vals[j][r] != 0.0).map(|j| j as i64).collect();
                    if sel.is_empty() { Value::Void } else { Value::Vector(idx.take(&sel)) }
                })
                .collect();
            picked_rows(&a[0], DataType::Int, rows)
        }
        Some(Value::Matrix(ym)) if ym.data.ty == DataType::Bool => {
            let (m, yc) = shaped_cols(name, &a[1])?;
            if m != n || yc.len() != xc.len() {
                return Err(Error::size("The arguments of [rowAt] must have the same shape"));
            }
            let xcol = xc.first().map(|c| c.s.col).ok_or_else(|| Error::size("rowAt: X has no columns"))?;
            let yv: Vec<Vec<f64>> = yc.iter().map(|c| values_f64(c, n)).collect();
            let rows = (0..n)
                .map(|r| {
                    let sel: Vec<i64> = (0..xc.len()).filter(|&j| !yv[j][r].is_nan() && yv[j][r] != 0.0).map(|j| pick(r, j)).collect();
                    if sel.is_empty() { Value::Void } else { Value::Vector(xcol.take(&sel)) }
                })
                .collect();
            picked_rows(&a[0], xcol.ty, rows)
        }
        Some(Value::Vector(y)) => {
            if y.len() != n {
                return Err(Error::size("The index vector of [rowAt] must have one element per row of X"));
            }
            let first = xc.first().ok_or_else(|| Error::size("rowAt: X has no columns"))?;
            let same_buffer = xc.iter().all(|c| std::ptr::eq(c.s.col, first.s.col));
            let idx: Vec<i64> = (0..n)
                .map(|r| match y.i64_at(r) {
                    Some(j) if j >= 0 && (j as usize) < xc.len() => pick(r, j as usize),
                    _ => -1,
                })
                .collect();
            if same_buffer {
                return Ok(Value::Vector(first.s.col.take(&idx)));
            }
            // columns from different buffers (tuple/table): one buffer, then one gather
            let ty = first.s.ty();
            if xc.iter().any(|c| c.s.ty().physical() != ty.physical() || c.scalar) {
                return Err(Error::unsupported(name, "columns of different types"));
            }
            let owned: Vec<Column> = xc.iter().map(|c| c.s.col.slice(c.s.off, c.s.off + c.s.len)).collect();
            let refs: Vec<&Column> = owned.iter().collect();
            let all = Column::concat(ty, &refs);
            let idx: Vec<i64> = (0..n)
                .map(|r| match y.i64_at(r) {
                    Some(j) if j >= 0 && (j as usize) < xc.len() => (j as usize * n + r) as i64,
                    _ => -1,
                })
                .collect();
            Ok(Value::Vector(all.take(&idx)))
        }
        Some(other) => Err(Error::unsupported(name, crate::util::describe(other))),
    }
}

/// Rows of a columnar tuple (each element one row); a vector is one row per element.
fn tuple_rows<'a>(name: &str, v: &'a Value) -> Result<Vec<Option<Slice<'a>>>> {
    match v {
        Value::Tuple(items) => items
            .iter()
            .map(|it| match it {
                Value::Vector(c) => Ok(Some(Slice::whole(c))),
                Value::Scalar(c) if c.is_null(0) => Ok(None),
                Value::Scalar(c) => Ok(Some(Slice::whole(c))),
                Value::Void => Ok(None),
                other => Err(Error::unsupported(name, crate::util::describe(other))),
            })
            .collect(),
        Value::Vector(c) => Ok((0..c.len()).map(|i| Some(Slice { col: c, off: i, len: 1 })).collect()),
        // an array vector: each row is a slice of the flat data
        Value::ArrayVector(a) => Ok((0..a.rows())
            .map(|i| Some(Slice { col: &a.data, off: a.offsets[i], len: a.offsets[i + 1] - a.offsets[i] }))
            .collect()),
        other => Err(Error::unsupported(name, crate::util::describe(other))),
    }
}

/// rowAlign(left, right, how): align each pair of strictly sorted rows by value; returns the
/// positions (-1 when absent) of the aligned values in left and right.
pub fn row_align(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "rowAlign";
    let (l, r) = (tuple_rows(name, &a[0])?, tuple_rows(name, &a[1])?);
    if l.len() != r.len() {
        return Err(Error::size("The arguments left and right of [rowAlign] must have the same length"));
    }
    let how = a.get(2).and_then(|v| v.as_str()).unwrap_or("").to_ascii_lowercase();
    let (desc, all) = match how.as_str() {
        "bid" => (true, false),
        "allbid" => (true, true),
        "ask" => (false, false),
        "allask" => (false, true),
        _ => return Err(Error::arg("The how argument of [rowAlign] must be 'bid', 'allBid', 'ask' or 'allAsk'")),
    };
    let vals = |s: &Option<Slice>| -> Vec<f64> { s.map(|s| s.f64s().into_iter().filter(|x| !x.is_nan()).collect()).unwrap_or_default() };
    let (mut li, mut ri) = (Vec::with_capacity(l.len()), Vec::with_capacity(l.len()));
    for (ls, rs) in l.iter().zip(&r) {
        let (lv, rv) = (vals(ls), vals(rs));
        let mx = |v: &[f64]| v.iter().copied().fold(f64::NAN, f64::max);
        let mn = |v: &[f64]| v.iter().copied().fold(f64::NAN, f64::min);
        let (hi, lo) = match (desc, all) {
            (true, false) => (mx(&lv).max(mx(&rv)), mn(&lv).max(mn(&rv))),
            (false, false) => (mx(&lv).min(mx(&rv)), mn(&lv).min(mn(&rv))),
            _ => (mx(&lv).max(mx(&rv)), mn(&lv).min(mn(&rv))),
        };
        let (lo, hi) = if lo.is_nan() || hi.is_nan() { (mn(&lv).min(mn(&rv)), mx(&lv).max(mx(&rv))) } else { (lo, hi) };
        let inside = |x: f64| x >= lo && x <= hi;
        let (mut i, mut j) = (0usize, 0usize);
        let (mut lo_idx, mut ro_idx) = (Vec::new(), Vec::new());
        let before = |x: f64, y: f64| if desc { x > y } else { x < y };
        while i < lv.len() || j < rv.len() {
            let (x, y) = (lv.get(i).copied(), rv.get(j).copied());
            let (take_l, take_r) = match (x, y) {
                (Some(x), Some(y)) if x == y => (true, true),
                (Some(x), Some(y)) => (before(x, y), !before(x, y)),
                (Some(_), None) => (true, false),
                (None, Some(_)) => (false, true),
                (None, None) => break,
            };
            let v = if take_l { lv[i] } else { rv[j] };
            if inside(v) {
                lo_idx.push(if take_l { i as i32 } else { -1 });
                ro_idx.push(if take_r { j as i32 } else { -1 });
            }
            if take_l {
                i += 1;
            }
            if take_r {
                j += 1;
            }
        }
        li.push(Value::Vector(Column::from_vec(DataType::Int, lo_idx)));
        ri.push(Value::Vector(Column::from_vec(DataType::Int, ro_idx)));
    }
    // array vectors in, INT[] array vectors out (funcs/r/rowAlign.md); columnar tuples in,
    // tuples out
    if matches!(a[0], Value::ArrayVector(_)) {
        let rows = |v: Vec<Value>| -> Vec<Column> {
            v.into_iter().filter_map(|x| if let Value::Vector(c) = x { Some(c) } else { None }).collect()
        };
        let (lr, rr) = (rows(li), rows(ri));
        let av = |r: &[Column]| Value::ArrayVector(std::sync::Arc::new(beluga_runtime::value::ArrayVec::from_rows(DataType::Int, r)));
        return Ok(Value::tuple(vec![av(&lr), av(&rr)]));
    }
    Ok(Value::tuple(vec![Value::tuple(li), Value::tuple(ri)]))
}

/// Little-endian bytes of element i of a slice (gmd5's serialization).
fn push_bytes(s: &Slice, i: usize, out: &mut Vec<u8>) {
    let k = s.off + i;
    match &*s.col.data {
        ColData::I8(v) => out.extend_from_slice(&v[k].to_le_bytes()),
        ColData::I16(v) => out.extend_from_slice(&v[k].to_le_bytes()),
        ColData::I32(v) => out.extend_from_slice(&v[k].to_le_bytes()),
        ColData::I64(v) => out.extend_from_slice(&v[k].to_le_bytes()),
        ColData::F32(v) => out.extend_from_slice(&v[k].to_le_bytes()),
        ColData::F64(v) => out.extend_from_slice(&v[k].to_le_bytes()),
        ColData::I128(v) => out.extend_from_slice(&v[k].to_le_bytes()),
        ColData::Str(_) | ColData::Sym(_) => out.extend_from_slice(s.col.str_at(k).unwrap_or("").as_bytes()),
        ColData::Array(a) => out.extend_from_slice(beluga_runtime::elemfmt::array_row_text(a, k).as_bytes()),
    }
}

/// rowGmd5(args...): MD5 of the concatenated little-endian bytes of each row (INT128).
pub fn row_gmd5(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "rowGmd5";
    let sources: Vec<Vec<Option<Slice>>> = a.iter().map(|v| tuple_rows(name, v)).collect::<Result<_>>()?;
    let n = sources.first().map(|s| s.len()).unwrap_or(0);
    if sources.iter().any(|s| s.len() != n) {
        return Err(Error::size("The arguments of [rowGmd5] must have the same number of rows"));
    }
    let mut out = Vec::with_capacity(n);
    let mut buf = Vec::new();
    for r in 0..n {
        buf.clear();
        for s in &sources {
            if let Some(sl) = &s[r] {
                for i in 0..sl.len {
                    push_bytes(sl, i, &mut buf);
                }
            }
        }
        out.push(u128::from_be_bytes(crate::row_md5::md5(&buf)) as i128);
    }
    Ok(Value::Vector(Column::from_vec(DataType::Int128, out)))
}
