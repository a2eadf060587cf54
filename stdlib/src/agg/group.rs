//! Group-by kernels: one pass over a column with a group id per row, producing one value per
//! group (`ngroups` rows). Result types match the whole-column kernels in agg.rs / agg_stats.rs.
//! Each public kernel (`sum`, `avg`, `std`, `wavg`…) is the `grouped`/`grouped2` slot of one
//! builtin row: it fixes its operation (`Op`, `Op2`) at compile time, so nothing here looks
//! at a function name.

use crate::math_util::{is_num, nan_f64};
use beluga_runtime::kernels::intacc;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::null::Native;
use beluga_runtime::{with_numeric, DataType, Error, Result};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::ops::Range;

fn check(col_len: usize, gid: &[u32], ngroups: usize) -> Result<()> {
    if gid.len() != col_len {
        return Err(Error::size(format!("group ids ({}) and column ({}) differ in length", gid.len(), col_len)));
    }
    // the largest id, as a max-reduction the compiler vectorizes (an early-exit `any` is a
    // branch per row)
    let bad = |ids: &[u32]| ids.iter().fold(0u32, |m, &g| m.max(g)) as usize >= ngroups && !ids.is_empty();
    let out_of_range = if gid.len() >= 2 * CHUNK { gid.par_chunks(CHUNK).any(bad) } else { bad(gid) };
    if out_of_range {
        return Err(Error::runtime("group id out of range"));
    }
    Ok(())
}

/// Rows per chunk of the parallel group-wise folds. Fixed (not derived from the thread
/// count) so floating-point sums are the same on every machine.
const CHUNK: usize = 1 << 20;

/// Fold rows `0..len` into per-group partial state. Large inputs are cut into fixed row
/// chunks folded in parallel, whose partials are merged in row order; the per-chunk
/// tables (`ngroups` entries each) must stay small next to the rows.
fn fold_groups<P: Send>(
    len: usize,
    ngroups: usize,
    init: impl Fn() -> P + Sync,
    fold: impl Fn(&mut P, Range<usize>) + Sync,
    merge: impl Fn(&mut P, P),
) -> P {
    let chunks = len.div_ceil(CHUNK);
    if chunks < 2 || ngroups.saturating_mul(chunks) > len {
        let mut p = init();
        fold(&mut p, 0..len);
        return p;
    }
    let parts: Vec<P> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut p = init();
            fold(&mut p, c * CHUNK..((c + 1) * CHUNK).min(len));
            p
        })
        .collect();
    let mut it = parts.into_iter();
    let mut acc = it.next().unwrap_or_else(&init);
    for p in it {
        merge(&mut acc, p);
    }
    acc
}

fn add_into<T: Copy + std::ops::AddAssign>(a: &mut [T], b: &[T]) {
    a.iter_mut().zip(b).for_each(|(x, &y)| *x += y);
}

/// Exact per-group integer sums (i128: no wrapping; `kernels::intacc` gives the LONG result).
fn g_isum<T: Native>(v: &[T], gid: &[u32], n: usize) -> (Vec<i128>, Vec<u32>) {
    fold_groups(
        v.len(),
        n,
        || (vec![0i128; n], vec![0u32; n]),
        |(s, c), rows| {
            for (&x, &g) in v[rows.clone()].iter().zip(&gid[rows]) {
                if !x.is_null() {
                    let g = g as usize;
                    s[g] += x.to_i64() as i128;
                    c[g] += 1;
                }
            }
        },
        |(s, c), (s2, c2)| {
            s.iter_mut().zip(&s2).for_each(|(x, &y)| *x += y);
            add_into(c, &c2);
        },
    )
}

fn g_fsum<T: Native>(v: &[T], gid: &[u32], n: usize, k: i32) -> (Vec<f64>, Vec<u32>) {
    fold_groups(
        v.len(),
        n,
        || (vec![0f64; n], vec![0u32; n]),
        |(s, c), rows| {
            let (v, gid) = (&v[rows.clone()], &gid[rows]);
            if k == 1 {
                for (&x, &g) in v.iter().zip(gid) {
                    if !x.is_null() {
                        s[g as usize] += x.to_f64();
                        c[g as usize] += 1;
                    }
                }
            } else {
                for (&x, &g) in v.iter().zip(gid) {
                    if !x.is_null() {
                        s[g as usize] += x.to_f64().powi(k);
                        c[g as usize] += 1;
                    }
                }
            }
        },
        |(s, c), (s2, c2)| {
            add_into(s, &s2);
            add_into(c, &c2);
        },
    )
}

fn g_prod<T: Native>(v: &[T], gid: &[u32], n: usize, float: bool) -> (Vec<f64>, Vec<i128>, Vec<u32>) {
    let mut fp = vec![1f64; if float { n } else { 0 }];
    let mut ip = vec![1i128; if float { 0 } else { n }];
    let mut c = vec![0u32; n];
    for (&x, &g) in v.iter().zip(gid) {
        if !x.is_null() {
            let g = g as usize;
            if float {
                fp[g] *= x.to_f64();
            } else {
                ip[g] = intacc::mul(ip[g], x.to_i64() as i128);
            }
            c[g] += 1;
        }
    }
    (fp, ip, c)
}

fn g_extreme<T: Native + Send + Sync>(v: &[T], gid: &[u32], n: usize, want_max: bool) -> Vec<T> {
    // a NaN is a value that wins and stays, as it makes the sum NaN (null.rs)
    let nan = |x: T| x.to_f64().is_nan();
    let better = move |b: T, x: T| !nan(b) && (nan(x) || b.is_null() || (want_max && x > b) || (!want_max && x < b));
    let candidate = move |x: T| !x.is_null() || nan(x);
    fold_groups(
        v.len(),
        n,
        || vec![T::NULL; n],
        |best, rows| {
            for (&x, &g) in v[rows.clone()].iter().zip(&gid[rows]) {
                if candidate(x) && better(best[g as usize], x) {
                    best[g as usize] = x;
                }
            }
        },
        |best, other| {
            for (b, &x) in best.iter_mut().zip(&other) {
                if candidate(x) && better(*b, x) {
                    *b = x;
                }
            }
        },
    )
}

/// [`g_extreme`] for integer columns: no NaN to look for, and NULL (the type's minimum)
/// never wins a max by itself, so each row is one compare and a conditional move.
fn g_extreme_int<T: Native + Ord>(v: &[T], gid: &[u32], n: usize, want_max: bool) -> Vec<T> {
    #[inline(always)]
    fn pick<T: Native + Ord>(b: T, x: T, want_max: bool) -> T {
        if want_max {
            b.max(x)
        } else if !x.is_null() && (b.is_null() || x < b) {
            x
        } else {
            b
        }
    }
    fold_groups(
        v.len(),
        n,
        || vec![T::NULL; n],
        |best, rows| {
            for (&x, &g) in v[rows.clone()].iter().zip(&gid[rows]) {
                let b = &mut best[g as usize];
                *b = pick(*b, x, want_max);
            }
        },
        |best, other| {
            for (b, &x) in best.iter_mut().zip(&other) {
                *b = pick(*b, x, want_max);
            }
        },
    )
}

fn g_count<T: Native>(v: &[T], gid: &[u32], n: usize) -> Vec<i32> {
    fold_groups(
        v.len(),
        n,
        || vec![0i32; n],
        |c, rows| {
            for (&x, &g) in v[rows.clone()].iter().zip(&gid[rows]) {
                // a NaN counts: a value, not a null (null.rs)
                if !x.is_null() || x.to_f64().is_nan() {
                    c[g as usize] += 1;
                }
            }
        },
        |c, c2| add_into(c, &c2),
    )
}

/// Row index of the first/last (optionally non-null) element of each group; -1 when none.
fn g_pick(c: &Column, gid: &[u32], n: usize, last: bool, skip_null: bool) -> Vec<i64> {
    let mut idx = vec![-1i64; n];
    for (i, &g) in gid.iter().enumerate() {
        if skip_null && c.is_null(i) {
            continue;
        }
        let slot = &mut idx[g as usize];
        if last || *slot < 0 {
            *slot = i as i64;
        }
    }
    idx
}

/// Row index of the min/max of each group for STRING/SYMBOL columns.
fn g_extreme_str(c: &Column, gid: &[u32], n: usize, want_max: bool) -> Vec<i64> {
    let mut idx = vec![-1i64; n];
    for (i, &g) in gid.iter().enumerate() {
        if c.is_null(i) {
            continue;
        }
        let slot = &mut idx[g as usize];
        if *slot < 0 {
            *slot = i as i64;
            continue;
        }
        let o = c.str_at(i).unwrap_or("").cmp(c.str_at(*slot as usize).unwrap_or(""));
        if (want_max && o == Ordering::Greater) || (!want_max && o == Ordering::Less) {
            *slot = i as i64;
        }
    }
    idx
}

fn dcol(v: Vec<f64>) -> Column {
    Column::from_vec(DataType::Double, v.into_iter().map(f64::from_f64).collect::<Vec<f64>>())
}

/// Groups holding a NaN or a ±Infinity value (a float column; the NULL sentinel is neither).
fn special_groups(col: &Column, gid: &[u32], n: usize) -> Vec<bool> {
    let mut sp = vec![false; n];
    if col.ty.is_floating() {
        with_numeric!(&*col.data, xs => for (x, &g) in xs.iter().zip(gid) {
            if !beluga_runtime::null::is_null_strict(*x) && !x.to_f64().is_finite() {
                sp[g as usize] = true;
            }
        });
    }
    sp
}

/// Per-group results of a float sum-like aggregate: an empty group is NULL; a group holding a
/// NaN is NaN and one holding ±Infinity keeps a non-finite result (IEEE propagation, as numpy;
/// null.rs); any other non-finite result is an overflow and NULL.
fn dcol_ieee(v: Vec<f64>, counts: &[u32], col: &Column, gid: &[u32]) -> Column {
    let (mut nan, mut inf) = (vec![false; v.len()], vec![false; v.len()]);
    if col.ty.is_floating() {
        with_numeric!(&*col.data, xs => for (x, &g) in xs.iter().zip(gid) {
            let f = x.to_f64();
            if f.is_nan() {
                nan[g as usize] = true;
            } else if f.is_infinite() && !x.is_null() {
                inf[g as usize] = true;
            }
        });
    }
    let out: Vec<f64> = v
        .into_iter()
        .enumerate()
        .map(|(g, s)| {
            if nan[g] {
                f64::NAN
            } else if counts[g] == 0 {
                f64::NULL
            } else {
                beluga_runtime::null::keep_special(s, inf[g])
            }
        })
        .collect();
    Column::from_vec(DataType::Double, out)
}

/// Sum of squared deviations from the group mean, with counts (two passes).
fn g_ssd(x: &[f64], gid: &[u32], n: usize) -> (Vec<f64>, Vec<u32>) {
    let mut s = vec![0f64; n];
    let mut c = vec![0u32; n];
    for (&v, &g) in x.iter().zip(gid) {
        if !v.is_nan() {
            s[g as usize] += v;
            c[g as usize] += 1;
        }
    }
    let mean: Vec<f64> = s.iter().zip(&c).map(|(s, &c)| if c > 0 { s / c as f64 } else { 0.0 }).collect();
    let mut ss = vec![0f64; n];
    for (&v, &g) in x.iter().zip(gid) {
        if !v.is_nan() {
            let d = v - mean[g as usize];
            ss[g as usize] += d * d;
        }
    }
    (ss, c)
}

/// The operation of a one-column grouped kernel, fixed per row where the row is declared
/// (`Builtin::grouped(group::SUM)`): each constant below is the kernel of one builtin.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Sum,
    /// sum of the k-th powers (sum2, sum3, sum4)
    SumPow(i32),
    Avg,
    Min,
    Max,
    Count,
    First,
    Last,
    FirstNot,
    LastNot,
    Var { pop: bool, root: bool },
    Prod,
}

impl Op {
    /// The builtin's name, for error messages only.
    fn label(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::SumPow(2) => "sum2",
            Op::SumPow(3) => "sum3",
            Op::SumPow(_) => "sum4",
            Op::Avg => "avg",
            Op::Min => "min",
            Op::Max => "max",
            Op::Count => "count",
            Op::First => "first",
            Op::Last => "last",
            Op::FirstNot => "firstNot",
            Op::LastNot => "lastNot",
            Op::Var { pop: false, root: true } => "std",
            Op::Var { pop: true, root: true } => "stdp",
            Op::Var { pop: false, root: false } => "var",
            Op::Var { pop: true, root: false } => "varp",
            Op::Prod => "prod",
        }
    }
}

/// One grouped kernel per aggregate row: `gid[i]` is the group of row i (< ngroups); the
/// result has one row per group.
macro_rules! grouped_kernels {
    ($($k:ident = $op:expr;)*) => {
        $(pub fn $k(col: &Column, gid: &[u32], ngroups: usize) -> Option<Result<Column>> {
            Some(grouped_impl($op, col, gid, ngroups))
        })*
    };
}

grouped_kernels! {
    sum = Op::Sum;
    sum2 = Op::SumPow(2);
    sum3 = Op::SumPow(3);
    sum4 = Op::SumPow(4);
    avg = Op::Avg;
    min = Op::Min;
    max = Op::Max;
    count = Op::Count;
    first = Op::First;
    last = Op::Last;
    first_not = Op::FirstNot;
    last_not = Op::LastNot;
    std = Op::Var { pop: false, root: true };
    stdp = Op::Var { pop: true, root: true };
    var = Op::Var { pop: false, root: false };
    varp = Op::Var { pop: true, root: false };
    prod = Op::Prod;
}

fn grouped_impl(op: Op, col: &Column, gid: &[u32], n: usize) -> Result<Column> {
    check(col.len(), gid, n)?;
    // an array-vector column: count gives the rows of each group, every other aggregate
    // runs over all the elements of the group's rows (progr/sql/pivotBy.md, example 6)
    if let Some(a) = col.as_array() {
        if op == Op::Count {
            let mut c = vec![0i32; n];
            for &g in gid {
                c[g as usize] += 1;
            }
            return Ok(Column::from_vec(DataType::Int, c));
        }
        let mut elem_gid = Vec::with_capacity(a.data.len());
        for (r, &g) in gid.iter().enumerate() {
            elem_gid.extend(std::iter::repeat_n(g, a.row_len(r)));
        }
        return grouped_impl(op, &a.data, &elem_gid, n);
    }
    if col.ty.decimal_scale().is_some() {
        use beluga_runtime::kernels::decimal as dec;
        match op {
            // exact and typed: one widened sum per group; min/max on the unscaled values
            Op::Sum | Op::Avg | Op::Min | Op::Max => {
                let mut rows: Vec<Vec<usize>> = vec![Vec::new(); n];
                for (i, &g) in gid.iter().enumerate() {
                    rows[g as usize].push(i);
                }
                let mut parts = Vec::with_capacity(n);
                for r in &rows {
                    let part = col.take_usize(r);
                    parts.push(match op {
                        Op::Sum => dec::sum(&part)?,
                        Op::Min | Op::Max => dec::extreme(&part, op == Op::Max)?,
                        _ => Column::from_vec(DataType::Double, vec![f64::from_f64(dec::avg(&part))]),
                    });
                }
                let ty = parts.first().map(|c| c.ty).unwrap_or(col.ty);
                let refs: Vec<&Column> = parts.iter().collect();
                return Ok(Column::concat(ty, &refs));
            }
            Op::First | Op::Last | Op::FirstNot | Op::LastNot | Op::Count => {}
            // the rest are statistics in DOUBLE
            _ => return grouped_impl(op, &beluga_runtime::column::f64_column(dec::to_f64(col)), gid, n),
        }
    }
    let numeric = is_num(col.ty);
    let need_numeric = |ok: bool| if ok { Ok(()) } else { Err(Error::unsupported(op.label(), col.ty)) };
    match op {
        Op::Count => {
            let c = match &*col.data {
                ColData::Sym(_) | ColData::Str(_) => {
                    let mut c = vec![0i32; n];
                    for (i, &g) in gid.iter().enumerate() {
                        if !col.is_null(i) {
                            c[g as usize] += 1;
                        }
                    }
                    c
                }
                d => with_numeric!(d, v => g_count(v, gid, n)).unwrap_or_else(|| vec![0; n]),
            };
            Ok(Column::from_vec(DataType::Int, c))
        }
        Op::First | Op::Last => Ok(col.take(&g_pick(col, gid, n, op == Op::Last, false))),
        Op::FirstNot | Op::LastNot => Ok(col.take(&g_pick(col, gid, n, op == Op::LastNot, true))),
        Op::Min | Op::Max => {
            let want_max = op == Op::Max;
            Ok(match &*col.data {
                ColData::Sym(_) | ColData::Str(_) => col.take(&g_extreme_str(col, gid, n, want_max)),
                ColData::I8(v) => Column::from_vec(col.ty, g_extreme_int(v, gid, n, want_max)),
                ColData::I16(v) => Column::from_vec(col.ty, g_extreme_int(v, gid, n, want_max)),
                ColData::I32(v) => Column::from_vec(col.ty, g_extreme_int(v, gid, n, want_max)),
                ColData::I64(v) => Column::from_vec(col.ty, g_extreme_int(v, gid, n, want_max)),
                ColData::F32(v) => Column::from_vec(col.ty, g_extreme(v, gid, n, want_max)),
                ColData::F64(v) => Column::from_vec(col.ty, g_extreme(v, gid, n, want_max)),
                ColData::I128(_) | ColData::Array(_) => return Err(Error::unsupported(op.label(), col.ty)),
            })
        }
        Op::Sum => {
            need_numeric(numeric)?;
            let rt = intacc::acc_type(col.ty);
            if rt == DataType::Double {
                let (s, c) = with_numeric!(&*col.data, v => g_fsum(v, gid, n, 1)).unwrap_or_default();
                return Ok(dcol_ieee(s, &c, col, gid));
            }
            let (s, c) = with_numeric!(&*col.data, v => g_isum(v, gid, n)).unwrap_or_default();
            let r: Vec<i64> = s.into_iter().zip(c).map(|(s, c)| if c == 0 { i64::NULL } else { intacc::to_long(s) }).collect();
            Ok(Column::from_vec(DataType::Long, r))
        }
        Op::SumPow(_) | Op::Avg => {
            need_numeric(numeric)?;
            let k = match op {
                Op::SumPow(k) => k,
                _ => 1,
            };
            let (s, c) = with_numeric!(&*col.data, v => g_fsum(v, gid, n, k)).unwrap_or_default();
            let avg = k == 1;
            let v = s.into_iter().zip(&c).map(|(s, &c)| if avg && c > 0 { s / c as f64 } else { s }).collect();
            Ok(dcol_ieee(v, &c, col, gid))
        }
        Op::Prod => {
            need_numeric(numeric)?;
            let float = col.ty.is_floating();
            let (fp, ip, c) = with_numeric!(&*col.data, v => g_prod(v, gid, n, float)).unwrap_or_default();
            if float {
                Ok(dcol(fp.into_iter().zip(c).map(|(p, c)| if c == 0 { f64::NAN } else { p }).collect()))
            } else {
                Ok(Column::from_vec(
                    DataType::Long,
                    ip.into_iter().zip(c).map(|(p, c)| if c == 0 { i64::NULL } else { intacc::to_long(p) }).collect::<Vec<i64>>(),
                ))
            }
        }
        Op::Var { pop, root } => {
            need_numeric(numeric)?;
            let x = nan_f64(col);
            let (ss, c) = g_ssd(&x, gid, n);
            // a group holding a NaN or an Infinity has a NaN variance (inf - inf), as numpy
            let special = special_groups(col, gid, n);
            let mut out = dcol(
                ss.into_iter()
                    .zip(c)
                    .map(|(s, c)| {
                        let d = if pop { c as f64 } else { c as f64 - 1.0 };
                        if c == 0 || d <= 0.0 {
                            f64::NAN
                        } else {
                            let v = (s / d).max(0.0);
                            if root { v.sqrt() } else { v }
                        }
                    })
                    .collect(),
            );
            if special.iter().any(|&b| b) {
                let mut v = beluga_runtime::kernels::arith::as_native::<f64>(&out).into_owned();
                for (x, &sp) in v.iter_mut().zip(&special) {
                    if sp {
                        *x = f64::NAN;
                    }
                }
                out = Column::from_vec(DataType::Double, v);
            }
            Ok(out)
        }
    }
}

/// The operation of a two-column grouped kernel (`wavg`, `wsum`, `corr`, `covar`,
/// `covarp`, `beta`), fixed per row like [`Op`]. Rows where either value is null are skipped.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op2 {
    Wsum,
    Wavg,
    Corr,
    Covar,
    Covarp,
    Beta,
}

impl Op2 {
    /// The builtin's name, for error messages only.
    fn label(self) -> &'static str {
        match self {
            Op2::Wsum => "wsum",
            Op2::Wavg => "wavg",
            Op2::Corr => "corr",
            Op2::Covar => "covar",
            Op2::Covarp => "covarp",
            Op2::Beta => "beta",
        }
    }
}

macro_rules! grouped2_kernels {
    ($($k:ident = $op:expr;)*) => {
        $(pub fn $k(x: &Column, y: &Column, gid: &[u32], ngroups: usize) -> Option<Result<Column>> {
            Some(grouped2_impl($op, x, y, gid, ngroups))
        })*
    };
}

grouped2_kernels! {
    wsum = Op2::Wsum;
    wavg = Op2::Wavg;
    corr = Op2::Corr;
    covar = Op2::Covar;
    covarp = Op2::Covarp;
    beta = Op2::Beta;
}

fn grouped2_impl(op: Op2, x: &Column, y: &Column, gid: &[u32], n: usize) -> Result<Column> {
    check(x.len(), gid, n)?;
    check(y.len(), gid, n)?;
    let (x, y) = (&crate::math_util::undecimal(x), &crate::math_util::undecimal(y));
    if !is_num(x.ty) || !is_num(y.ty) {
        return Err(Error::unsupported(op.label(), if is_num(x.ty) { y.ty } else { x.ty }));
    }
    let out = grouped2_finite(op, x, y, gid, n)?;
    // a group with a row whose two values are not NULL and one is NaN or ±Infinity is NaN,
    // as numpy gives (the scalar corr/covar/beta do the same; runtime/src/null.rs)
    if !x.ty.is_floating() && !y.ty.is_floating() {
        return Ok(out);
    }
    let (xa, ya) = (beluga_runtime::kernels::arith::as_native::<f64>(x), beluga_runtime::kernels::arith::as_native::<f64>(y));
    let mut special = vec![false; n];
    for (i, &g) in gid.iter().enumerate() {
        if !x.is_null_strict(i) && !y.is_null_strict(i) && (!xa[i].is_finite() || !ya[i].is_finite()) {
            special[g as usize] = true;
        }
    }
    if !special.iter().any(|&b| b) {
        return Ok(out);
    }
    let mut v = beluga_runtime::kernels::arith::as_native::<f64>(&out).into_owned();
    for (r, &sp) in v.iter_mut().zip(&special) {
        if sp {
            *r = f64::NAN;
        }
    }
    Ok(Column::from_vec(DataType::Double, v))
}

/// `f(group, x, y)` for every row where neither value is null (NaN here).
fn each_pair(a: &[f64], b: &[f64], gid: &[u32], mut f: impl FnMut(usize, f64, f64)) {
    for (i, (&p, &q)) in a.iter().zip(b).enumerate() {
        if !(p.is_nan() || q.is_nan()) {
            f(gid[i] as usize, p, q);
        }
    }
}

fn grouped2_finite(op: Op2, x: &Column, y: &Column, gid: &[u32], n: usize) -> Result<Column> {
    let a = nan_f64(x);
    let b = nan_f64(y);
    let mut cnt = vec![0u32; n];
    let mut sa = vec![0f64; n];
    let mut sb = vec![0f64; n];
    let mut sab = vec![0f64; n];
    each_pair(&a, &b, gid, |g, p, q| {
        cnt[g] += 1;
        sa[g] += p;
        sb[g] += q;
        sab[g] += p * q;
    });
    match op {
        Op2::Wsum => Ok(dcol((0..n).map(|g| if cnt[g] == 0 { f64::NAN } else { sab[g] }).collect())),
        // wavg(X, W) = sum(X*W) / sum(W)
        Op2::Wavg => Ok(dcol((0..n).map(|g| if cnt[g] == 0 || sb[g] == 0.0 { f64::NAN } else { sab[g] / sb[g] }).collect())),
        _ => {
            // second pass for centred sums
            let ma: Vec<f64> = (0..n).map(|g| if cnt[g] > 0 { sa[g] / cnt[g] as f64 } else { 0.0 }).collect();
            let mb: Vec<f64> = (0..n).map(|g| if cnt[g] > 0 { sb[g] / cnt[g] as f64 } else { 0.0 }).collect();
            let mut caa = vec![0f64; n];
            let mut cbb = vec![0f64; n];
            let mut cab = vec![0f64; n];
            each_pair(&a, &b, gid, |g, p, q| {
                let (da, db) = (p - ma[g], q - mb[g]);
                caa[g] += da * da;
                cbb[g] += db * db;
                cab[g] += da * db;
            });
            Ok(dcol(
                (0..n)
                    .map(|g| {
                        let c = cnt[g] as f64;
                        match op {
                            Op2::Covar => if c < 2.0 { f64::NAN } else { cab[g] / (c - 1.0) },
                            Op2::Covarp => if c < 1.0 { f64::NAN } else { cab[g] / c },
                            // beta(Y, X): regression coefficient of the first on the second
                            Op2::Beta => if c < 2.0 || cbb[g] == 0.0 { f64::NAN } else { cab[g] / cbb[g] },
                            _ => {
                                let d = (caa[g] * cbb[g]).sqrt();
                                if c < 2.0 || d == 0.0 { f64::NAN } else { cab[g] / d }
                            }
                        }
                    })
                    .collect(),
            ))
        }
    }
}
