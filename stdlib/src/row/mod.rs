//! Row-wise functions row*(args...): each argument contributes columns — a vector is one
//! column, a matrix or table its columns, a tuple of equal-length vectors its elements, a
//! scalar a constant column — and the function reduces every row across them. Kernels walk
//! one column at a time over per-row accumulators (vectorized, no per-row allocation).
//! Binary functions (rowCorr, rowWsum, ...) are in row_pair.rs, the row-shaped results
//! (rowCumsum, rowRank, rowMove, rowAt, ...) in row_misc.rs.

use beluga_runtime::CallCtx;
use crate::row_misc as rm;
use crate::row_pair as rp;
use crate::window::Slice;
use crate::window_stats::{moment_stat, Mom};
use crate::with_slice;
use beluga_runtime::kernels::intacc;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};

/// One column of a row-wise argument: a slice, or a scalar broadcast to every row.
#[derive(Clone, Copy)]
pub struct RowCol<'a> {
    pub s: Slice<'a>,
    pub scalar: bool,
}

impl RowCol<'_> {
    #[inline]
    pub fn at(&self, r: usize) -> usize {
        if self.scalar { 0 } else { r }
    }
}

/// Columns of the arguments and the common row count.
pub struct Rows<'a> {
    pub n: usize,
    pub cols: Vec<RowCol<'a>>,
}

fn push_col<'a>(name: &str, cols: &mut Vec<RowCol<'a>>, n: &mut Option<usize>, s: Slice<'a>, scalar: bool) -> Result<()> {
    if !scalar {
        match *n {
            Some(m) if m != s.len => {
                return Err(Error::size(format!("The arguments of [{name}] must have the same number of rows")));
            }
            _ => *n = Some(s.len),
        }
    }
    cols.push(RowCol { s, scalar });
    Ok(())
}

fn gather_into<'a>(name: &str, v: &'a Value, cols: &mut Vec<RowCol<'a>>, n: &mut Option<usize>) -> Result<()> {
    match v {
        Value::Matrix(m) => {
            for c in 0..m.cols {
                push_col(name, cols, n, Slice { col: &m.data, off: c * m.rows, len: m.rows }, false)?;
            }
            if m.cols == 0 {
                *n = Some(m.rows);
            }
            Ok(())
        }
        Value::Table(t) => {
            for c in &t.cols {
                push_col(name, cols, n, Slice::whole(c), false)?;
            }
            Ok(())
        }
        Value::Vector(c) => push_col(name, cols, n, Slice::whole(c), false),
        Value::Scalar(c) => push_col(name, cols, n, Slice::whole(c), true),
        // array vector: one column per position, short rows padded with nulls (which the
        // null-ignoring reductions skip)
        Value::ArrayVector(a) => {
            for c in a.padded() {
                push_col(name, cols, n, Slice::whole(c), false)?;
            }
            if a.padded().is_empty() {
                *n = Some(a.rows());
            }
            Ok(())
        }
        Value::Tuple(items) => {
            for it in items.iter() {
                match it {
                    Value::Vector(_) | Value::Scalar(_) => gather_into(name, it, cols, n)?,
                    other => return Err(Error::unsupported(name, crate::util::describe(other))),
                }
            }
            Ok(())
        }
        other => Err(Error::unsupported(name, crate::util::describe(other))),
    }
}

/// DECIMAL arguments as DOUBLE for the row reductions (vectors, scalars, matrices, array
/// vectors, tuples, tables), with the first DECIMAL type met; None when there is none.
/// rowMax/rowMin cast their result back to that type and rowSum to the type `sum` gives
/// (DECIMAL32 → DECIMAL64 → DECIMAL128); the other reductions stay DOUBLE.
pub fn undecimal(a: &[Value]) -> Result<Option<(Vec<Value>, DataType)>> {
    use beluga_runtime::kernels::cast::cast_column;
    use beluga_runtime::ops::cast_value;
    fn dec_of(v: &Value) -> Option<DataType> {
        match v {
            Value::ArrayVector(a) => a.data.ty.decimal_scale().map(|_| a.data.ty),
            Value::Table(t) => t.cols.iter().find_map(|c| {
                c.as_array().map(|a| a.data.ty).unwrap_or(c.ty).decimal_scale().map(|_| c.as_array().map(|a| a.data.ty).unwrap_or(c.ty))
            }),
            Value::Tuple(items) => items.iter().find_map(dec_of),
            Value::Vector(c) | Value::Scalar(c) if c.ty.decimal_scale().is_some() => Some(c.ty),
            Value::Matrix(m) if m.data.ty.decimal_scale().is_some() => Some(m.data.ty),
            _ => None,
        }
    }
    fn conv(v: &Value) -> Result<Value> {
        Ok(match v {
            Value::ArrayVector(a) if a.data.ty.decimal_scale().is_some() => Value::ArrayVector(std::sync::Arc::new(
                beluga_runtime::value::ArrayVec::new(a.offsets.clone(), cast_column(&a.data, DataType::Double)?),
            )),
            Value::Table(t) => {
                let mut out = (**t).clone();
                for c in out.cols.iter_mut() {
                    if c.ty.decimal_scale().is_some() {
                        *c = cast_column(c, DataType::Double)?;
                    }
                }
                Value::table(out)
            }
            Value::Tuple(items) => Value::tuple(items.iter().map(conv).collect::<Result<_>>()?),
            other if dec_of(other).is_some() => cast_value(other, DataType::Double)?,
            other => other.clone(),
        })
    }
    let Some(ty) = a.iter().find_map(dec_of) else { return Ok(None) };
    Ok(Some((a.iter().map(conv).collect::<Result<_>>()?, ty)))
}

/// Run a row reduction on DECIMAL arguments through DOUBLE, casting the result to `to(ty)`
/// (None: leave it DOUBLE).
fn via_double(
    ctx: &mut CallCtx,
    a: Vec<Value>,
    f: fn(&mut CallCtx, Vec<Value>) -> Result<Value>,
    to: fn(DataType) -> Option<DataType>,
) -> Result<Value> {
    match undecimal(&a)? {
        None => f(ctx, a),
        Some((conv, ty)) => {
            let out = f(ctx, conv)?;
            match to(ty) {
                Some(t) => beluga_runtime::ops::cast_value(&out, t),
                None => Ok(out),
            }
        }
    }
}

/// Columns of all arguments (vectors, matrices, tables, tuples of vectors, scalars).
pub fn gather<'a>(name: &str, args: &'a [Value]) -> Result<Rows<'a>> {
    let mut cols = Vec::new();
    let mut n = None;
    for a in args {
        gather_into(name, a, &mut cols, &mut n)?;
    }
    Ok(Rows { n: n.unwrap_or(if cols.is_empty() { 0 } else { 1 }), cols })
}

fn check_numeric(name: &str, rows: &Rows, temporal_ok: bool) -> Result<()> {
    for c in &rows.cols {
        let t = c.s.ty();
        if !(t.is_numeric() || t == DataType::Bool || t == DataType::Void || (temporal_ok && t.is_temporal())) {
            return Err(Error::unsupported(name, t));
        }
    }
    Ok(())
}

/// Visit every non-null element as f64: `f(row, column_index, value)`.
pub fn each_f64(rows: &Rows, mut f: impl FnMut(usize, usize, f64)) {
    for (ci, c) in rows.cols.iter().enumerate() {
        let _ = with_slice!(c.s, v => {
            for r in 0..rows.n {
                let x = v[c.at(r)];
                if !x.is_null() {
                    f(r, ci, x.to_f64());
                }
            }
        });
    }
}

/// Visit every non-null element as i64.
pub fn each_i64(rows: &Rows, mut f: impl FnMut(usize, usize, i64)) {
    for (ci, c) in rows.cols.iter().enumerate() {
        let _ = with_slice!(c.s, v => {
            for r in 0..rows.n {
                let x = v[c.at(r)];
                if !x.is_null() {
                    f(r, ci, x.to_i64());
                }
            }
        });
    }
}

/// Result type of row sums and products: LONG for integers, DOUBLE when a column is
/// floating (`kernels::intacc`).
fn sum_type(rows: &Rows) -> DataType {
    if rows.cols.iter().any(|c| c.s.ty().is_floating()) { DataType::Double } else { DataType::Long }
}

/// Exact row sums/products (i128) as LONG: NULL for rows without values or out of range.
fn int_col(v: Vec<i128>, has: &[u32]) -> Column {
    let v: Vec<i64> = v.into_iter().zip(has).map(|(x, &h)| if h == 0 { i64::NULL } else { intacc::to_long(x) }).collect();
    Column::from_vec(DataType::Long, v)
}

fn dbl_col(v: Vec<f64>) -> Column {
    Column::from_vec(DataType::Double, v.into_iter().map(f64::from_f64).collect::<Vec<f64>>())
}

fn vec_result(c: Column) -> Result<Value> {
    Ok(Value::Vector(c))
}

fn row_sum(ctx: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    via_double(ctx, a, row_sum_plain, |t| {
        Some(match t {
            DataType::Decimal32(s) => DataType::Decimal64(s),
            other => DataType::Decimal128(other.decimal_scale().unwrap_or(0)),
        })
    })
}

fn row_sum_plain(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let rows = gather("rowSum", &a)?;
    check_numeric("rowSum", &rows, false)?;
    let ty = sum_type(&rows);
    let mut has = vec![0u32; rows.n];
    if ty == DataType::Double {
        let mut acc = vec![0.0; rows.n];
        each_f64(&rows, |r, _, x| {
            acc[r] += x;
            has[r] += 1;
        });
        vec_result(dbl_col(acc.into_iter().zip(&has).map(|(x, &h)| if h == 0 { f64::NAN } else { x }).collect()))
    } else {
        let mut acc = vec![0i128; rows.n];
        each_i64(&rows, |r, _, x| {
            acc[r] += x as i128;
            has[r] += 1;
        });
        vec_result(int_col(acc, &has))
    }
}

fn row_prod(ctx: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if let Some((conv, _)) = undecimal(&a)? {
        return row_prod(ctx, conv);
    }
    let rows = gather("rowProd", &a)?;
    check_numeric("rowProd", &rows, false)?;
    let mut has = vec![0u32; rows.n];
    if sum_type(&rows) == DataType::Double {
        let mut acc = vec![1.0; rows.n];
        each_f64(&rows, |r, _, x| {
            acc[r] *= x;
            has[r] += 1;
        });
        vec_result(dbl_col(acc.into_iter().zip(&has).map(|(x, &h)| if h == 0 { f64::NAN } else { x }).collect()))
    } else {
        let mut acc = vec![1i128; rows.n];
        each_i64(&rows, |r, _, x| {
            acc[r] = intacc::mul(acc[r], x as i128);
            has[r] += 1;
        });
        vec_result(int_col(acc, &has))
    }
}

/// rowMax / rowMin: the common type of the arguments.
fn row_extreme(name: &str, a: &[Value], max: bool) -> Result<Value> {
    let rows = gather(name, a)?;
    check_numeric(name, &rows, true)?;
    let mut has = vec![0u32; rows.n];
    let floats = rows.cols.iter().any(|c| c.s.ty().is_floating());
    let ty = rows
        .cols
        .iter()
        .map(|c| c.s.ty())
        .fold(DataType::Void, |acc, t| beluga_runtime::types::common_type(acc, t).unwrap_or(t));
    if floats {
        let mut acc = vec![if max { f64::NEG_INFINITY } else { f64::INFINITY }; rows.n];
        each_f64(&rows, |r, _, x| {
            if (max && x > acc[r]) || (!max && x < acc[r]) {
                acc[r] = x;
            }
            has[r] += 1;
        });
        let v: Vec<f64> = acc.into_iter().zip(&has).map(|(x, &h)| if h == 0 { f64::NAN } else { x }).collect();
        return vec_result(if ty == DataType::Float {
            Column::from_vec(DataType::Float, v.iter().map(|&x| f32::from_f64(x)).collect::<Vec<f32>>())
        } else {
            dbl_col(v)
        });
    }
    let mut acc = vec![if max { i64::MIN } else { i64::MAX }; rows.n];
    each_i64(&rows, |r, _, x| {
        if (max && x > acc[r]) || (!max && x < acc[r]) {
            acc[r] = x;
        }
        has[r] += 1;
    });
    let v: Vec<i64> = acc.into_iter().zip(&has).map(|(x, &h)| if h == 0 { i64::NULL } else { x }).collect();
    let ty = if ty == DataType::Void { DataType::Int } else { ty };
    vec_result(Column::from_vec(DataType::Long, v).cast_int_like_to(ty))
}

trait CastInt {
    fn cast_int_like_to(self, ty: DataType) -> Column;
}

impl CastInt for Column {
    /// Narrow a LONG column to an integral/temporal type (values fit by construction).
    fn cast_int_like_to(self, ty: DataType) -> Column {
        let v = match &*self.data {
            beluga_runtime::ColData::I64(v) => v.clone(),
            _ => return self,
        };
        use beluga_runtime::types::Physical;
        match ty.physical() {
            Physical::I8 => Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i8::NULL } else { x as i8 }).collect::<Vec<i8>>()),
            Physical::I16 => Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i16::NULL } else { x as i16 }).collect::<Vec<i16>>()),
            Physical::I32 => Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i32::NULL } else { x as i32 }).collect::<Vec<i32>>()),
            _ => Column::from_vec(ty, v),
        }
    }
}

fn row_max(ctx: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    via_double(ctx, a, |_, a| row_extreme("rowMax", &a, true), Some)
}
fn row_min(ctx: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    via_double(ctx, a, |_, a| row_extreme("rowMin", &a, false), Some)
}

/// rowImax / rowImin: column index of the first max/min (INT).
fn row_iextreme(name: &str, a: &[Value], max: bool, last: bool) -> Result<Value> {
    if let Some((conv, _)) = undecimal(a)? {
        return row_iextreme(name, &conv, max, last);
    }
    let rows = gather(name, a)?;
    check_numeric(name, &rows, true)?;
    let mut best = vec![f64::NAN; rows.n];
    let mut idx = vec![i32::NULL; rows.n];
    each_f64(&rows, |r, ci, x| {
        let b = best[r];
        let better = b.is_nan() || if max { x > b || (last && x == b) } else { x < b || (last && x == b) };
        if better {
            best[r] = x;
            idx[r] = ci as i32;
        }
    });
    vec_result(Column::from_vec(DataType::Int, idx))
}

fn row_imax(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_iextreme("rowImax", &a, true, false)
}
fn row_imin(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_iextreme("rowImin", &a, false, false)
}
fn row_imax_last(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_iextreme("rowImaxLast", &a, true, true)
}
fn row_imin_last(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_iextreme("rowIminLast", &a, false, true)
}

/// rowCount: non-null elements per row (any type). rowSize: elements per row, nulls included.
fn row_count(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let rows = gather("rowCount", &a)?;
    let mut cnt = vec![0i32; rows.n];
    for c in &rows.cols {
        for (r, k) in cnt.iter_mut().enumerate() {
            if !c.s.is_null(c.at(r)) {
                *k += 1;
            }
        }
    }
    vec_result(Column::from_vec(DataType::Int, cnt))
}

fn row_size(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if let [Value::ArrayVector(av)] = a.as_slice() {
        return vec_result(Column::from_vec(DataType::Int, (0..av.rows()).map(|r| av.row_len(r) as i32).collect::<Vec<i32>>()));
    }
    let rows = gather("rowSize", &a)?;
    vec_result(Column::from_vec(DataType::Int, vec![rows.cols.len() as i32; rows.n]))
}

/// Moment statistics per row (DOUBLE), shifted by each row's first value.
fn row_moment(name: &str, a: &[Value], kind: Mom) -> Result<Value> {
    if let Some((conv, _)) = undecimal(a)? {
        return row_moment(name, &conv, kind);
    }
    let rows = gather(name, a)?;
    check_numeric(name, &rows, false)?;
    let n = rows.n;
    let mut k = vec![f64::NAN; n];
    let mut cnt = vec![0usize; n];
    let mut s = vec![[0.0f64; 4]; n];
    let raw = matches!(kind, Mom::Sum2);
    each_f64(&rows, |r, _, x| {
        if k[r].is_nan() {
            k[r] = if raw { 0.0 } else { x };
        }
        let d = x - k[r];
        let (d2, d3) = (d * d, d * d * d);
        s[r][0] += d;
        s[r][1] += d2;
        s[r][2] += d3;
        s[r][3] += d3 * d;
        cnt[r] += 1;
    });
    let out: Vec<f64> = (0..n).map(|r| moment_stat(kind, cnt[r], if k[r].is_nan() { 0.0 } else { k[r] }, &s[r]).unwrap_or(f64::NAN)).collect();
    vec_result(dbl_col(out))
}

macro_rules! moment_fns {
    ($($f:ident => $name:literal, $kind:expr;)*) => {
        $(fn $f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
            row_moment($name, &a, $kind)
        })*
    };
}

moment_fns! {
    row_avg => "rowAvg", Mom::Avg;
    row_sum2 => "rowSum2", Mom::Sum2;
    row_var => "rowVar", Mom::Var;
    row_varp => "rowVarp", Mom::VarP;
    row_std => "rowStd", Mom::Std;
    row_stdp => "rowStdp", Mom::StdP;
}

fn row_skew(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (data, biased) = split_biased("rowSkew", &a)?;
    row_moment("rowSkew", data, Mom::Skew(biased))
}
fn row_kurtosis(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (data, biased) = split_biased("rowKurtosis", &a)?;
    row_moment("rowKurtosis", data, Mom::Kurt(biased))
}

/// rowSkew(X, [biased=true]) / rowKurtosis(X, [biased=true]).
fn split_biased<'a>(name: &str, a: &'a [Value]) -> Result<(&'a [Value], bool)> {
    Ok((&a[..1], crate::window::opt_bool(name, a, 1, "biased", true)?))
}

/// rowAnd / rowOr / rowXor over BOOL-like values (nonzero = true); nulls are skipped.
fn row_logic(name: &str, a: &[Value], op: u8) -> Result<Value> {
    let rows = gather(name, a)?;
    check_numeric(name, &rows, false)?;
    let mut acc = vec![match op { 0 => 1i32, _ => 0 }; rows.n];
    let mut has = vec![false; rows.n];
    each_f64(&rows, |r, _, x| {
        let b = (x != 0.0) as i32;
        acc[r] = match op {
            0 => acc[r] & b,
            1 => acc[r] | b,
            _ => acc[r] ^ b,
        };
        has[r] = true;
    });
    let out: Vec<i8> = acc.iter().zip(&has).map(|(&v, &h)| if h { v as i8 } else { i8::NULL }).collect();
    vec_result(Column::from_vec(DataType::Bool, out))
}

fn row_and(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_logic("rowAnd", &a, 0)
}
fn row_or(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_logic("rowOr", &a, 1)
}
fn row_xor(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    row_logic("rowXor", &a, 2)
}

const V: u8 = u8::MAX;

/// The row-wise builtins (element-wise across columns: the SQL executor may run them on whole columns).
pub const DEFS: &[Builtin] = &[
    fp("rowAnd", Kind::Elementwise, 1, V, row_and, &[]),
    fp("rowAvg", Kind::Elementwise, 1, V, row_avg, &[]),
    fp("rowCount", Kind::Elementwise, 1, V, row_count, &[]),
    fp("rowImax", Kind::Elementwise, 1, V, row_imax, &[]),
    fp("rowImaxLast", Kind::Elementwise, 1, V, row_imax_last, &[]),
    fp("rowImin", Kind::Elementwise, 1, V, row_imin, &[]),
    fp("rowIminLast", Kind::Elementwise, 1, V, row_imin_last, &[]),
    fp("rowKurtosis", Kind::Elementwise, 1, 2, row_kurtosis, &["X", "biased"]),
    fp("rowMax", Kind::Elementwise, 1, V, row_max, &[]),
    fp("rowMin", Kind::Elementwise, 1, V, row_min, &[]),
    fp("rowOr", Kind::Elementwise, 1, V, row_or, &[]),
    fp("rowProd", Kind::Elementwise, 1, V, row_prod, &[]),
    fp("rowSize", Kind::Elementwise, 1, V, row_size, &[]),
    fp("rowSkew", Kind::Elementwise, 1, 2, row_skew, &["X", "biased"]),
    fp("rowStd", Kind::Elementwise, 1, V, row_std, &[]),
    fp("rowStdp", Kind::Elementwise, 1, V, row_stdp, &[]),
    fp("rowSum", Kind::Elementwise, 1, V, row_sum, &[]),
    fp("rowSum2", Kind::Elementwise, 1, V, row_sum2, &[]),
    fp("rowVar", Kind::Elementwise, 1, V, row_var, &[]),
    fp("rowVarp", Kind::Elementwise, 1, V, row_varp, &[]),
    fp("rowXor", Kind::Elementwise, 1, V, row_xor, &[]),
    // binary
    fp("rowBeta", Kind::Elementwise, 2, 2, rp::row_beta, &["Y", "X"]),
    fp("rowCorr", Kind::Elementwise, 2, 2, rp::row_corr, &["X", "Y"]),
    fp("rowCovar", Kind::Elementwise, 2, 2, rp::row_covar, &["X", "Y"]),
    fp("rowCovarp", Kind::Elementwise, 2, 2, rp::row_covarp, &["X", "Y"]),
    fp("rowDot", Kind::Elementwise, 2, 2, rp::row_dot, &["X", "Y"]),
    fp("rowEuclidean", Kind::Elementwise, 2, 2, rp::row_euclidean, &["X", "Y"]),
    fp("rowTanimoto", Kind::Elementwise, 2, 2, rp::row_tanimoto, &["X", "Y"]),
    fp("rowWavg", Kind::Elementwise, 2, 2, rp::row_wavg, &["X", "Y"]),
    fp("rowWsum", Kind::Elementwise, 2, 2, rp::row_wsum, &["X", "Y"]),
    // row-shaped results
    fp("rowAlign", Kind::System, 3, 3, rm::row_align, &["left", "right", "how"]),
    fp("rowAt", Kind::Elementwise, 1, 2, rm::row_at, &["X", "Y"]),
    fp("rowCummax", Kind::Elementwise, 1, 1, rm::row_cummax, &["X"]),
    fp("rowCummin", Kind::Elementwise, 1, 1, rm::row_cummin, &["X"]),
    fp("rowCumprod", Kind::Elementwise, 1, 1, rm::row_cumprod, &["X"]),
    fp("rowCumsum", Kind::Elementwise, 1, 1, rm::row_cumsum, &["X"]),
    fp("rowCumwsum", Kind::Elementwise, 2, 2, rm::row_cumwsum, &["X", "Y"]),
    fp("rowDenseRank", Kind::Elementwise, 1, 4, rm::row_dense_rank, &["X", "ascending", "ignoreNA", "percent"]),
    fp("rowGmd5", Kind::Elementwise, 1, V, rm::row_gmd5, &[]),
    fp("rowMove", Kind::Elementwise, 2, 2, rm::row_move, &["X", "steps"]),
    fp("rowNext", Kind::Elementwise, 1, 1, rm::row_next, &["X"]),
    fp("rowPrev", Kind::Elementwise, 1, 1, rm::row_prev, &["X"]),
    fp("rowRank", Kind::Elementwise, 1, 7, rm::row_rank, &["X", "ascending", "groupNum", "ignoreNA", "tiesMethod", "percent", "precision"]),
];

// The family's other files (stdlib/src/row/); lib.rs keeps the old flat paths as aliases.
pub mod md5;
pub mod misc;
pub mod pair;
#[cfg(test)]
pub(crate) mod tests;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS].iter().for_each(|defs| r.extend(defs));
}
