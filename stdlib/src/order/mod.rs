//! Builtins: sorting and ranking (sort, sort!, isort, isort!, isortTop, isSorted, rank,
//! denseRank).
//!
//! Every column is first mapped to order-preserving `u64` keys (nulls → 0, so they sort
//! first ascending and last descending); sorting then works on `(key, index)` pairs, which
//! makes it O(n log n) and stable without a per-element `Value`.

use beluga_runtime::CallCtx;
use crate::util::{col, describe, opt};
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

// The key and argsort kernels are shared with SQL `order by` (one home in runtime::kernels).
pub use beluga_runtime::kernels::order::{argsort, argsort_keys, argsort_multi, sort_keys};

fn to_int_vec(idx: &[usize]) -> Value {
    Value::Vector(Column::from_vec(DataType::Int, idx.iter().map(|&i| i as i32).collect::<Vec<i32>>()))
}

/// `ascending` argument: a BOOL scalar (or BOOL vector for multi-key sorts).
fn asc_flags(name: &str, v: Option<&Value>) -> Result<Vec<bool>> {
    match v {
        None => Ok(vec![true]),
        Some(Value::Scalar(c)) | Some(Value::Vector(c)) if c.ty.is_numeric() => {
            if c.is_empty() {
                return Err(Error::arg(format!("The ascending argument of [{name}] is empty")));
            }
            Ok((0..c.len()).map(|i| c.f64_at(i).map(|x| x != 0.0).unwrap_or(true)).collect())
        }
        Some(other) => Err(Error::arg(format!("The ascending argument of [{name}] must be a boolean, not {}", describe(other)))),
    }
}

fn asc_flag(name: &str, v: Option<&Value>) -> Result<bool> {
    Ok(asc_flags(name, v)?.first().copied().unwrap_or(true))
}

fn bool_opt(name: &str, v: Option<&Value>, what: &str, default: bool) -> Result<bool> {
    match v {
        None => Ok(default),
        Some(x) => x
            .as_bool()
            .or_else(|| if x.is_null_scalar() { Some(default) } else { None })
            .ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] must be a boolean"))),
    }
}

// ------------------------------------------------------------------ sort

fn sort_value(name: &str, x: &Value, asc: bool) -> Result<Value> {
    match x {
        Value::Vector(c) => Ok(Value::Vector(c.take_usize(&argsort(c, asc)))),
        Value::Pair(c) => Ok(Value::Pair(c.take_usize(&argsort(c, asc)))),
        Value::Scalar(_) => Ok(x.clone()),
        // a matrix sorts all of its elements and keeps its shape
        Value::Matrix(m) => {
            let data = m.data.take_usize(&argsort(&m.data, asc));
            Ok(Value::Matrix(Arc::new(Matrix { data, rows: m.rows, cols: m.cols, row_labels: None, col_labels: None, indexed: false })))
        }
        Value::Tuple(items) if items.is_empty() => Ok(x.clone()),
        other => Err(Error::unsupported(name, describe(other))),
    }
}

fn sort(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let asc = asc_flag("sort", opt(&args, 1))?;
    sort_value("sort", &args[0], asc)
}

fn sort_inplace(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let asc = asc_flag("sort!", opt(&args, 1))?;
    sort_value("sort!", &args[0], asc)
}

// ------------------------------------------------------------------ isort

fn key_columns(name: &str, x: &Value) -> Result<Vec<Column>> {
    match x {
        Value::Tuple(items) => items.iter().map(|v| col(name, v)).collect(),
        Value::Table(t) => Ok(t.cols.clone()),
        Value::Matrix(m) => Ok((0..m.cols).map(|c| m.column(c)).collect()),
        Value::Vector(c) | Value::Pair(c) => Ok(vec![c.clone()]),
        other => Err(Error::unsupported(name, describe(other))),
    }
}

fn isort(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let asc = asc_flags("isort", opt(&args, 1))?;
    if let Value::Scalar(_) = &args[0] {
        return Ok(to_int_vec(&[0]));
    }
    let keys = key_columns("isort", &args[0])?;
    Ok(to_int_vec(&argsort_multi(&keys, &asc)?))
}

/// `isort!(X, ascending, y)` = `y[isort(X, ascending)]`. The interpreter writes an in-place
/// result back to the first argument only, so X is left unchanged and the result returned.
fn isort_inplace(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let asc = asc_flags("isort!", opt(&args, 1))?;
    let keys = key_columns("isort!", &args[0])?;
    let idx = argsort_multi(&keys, &asc)?;
    let out = match args.get(2) {
        Some(Value::Vector(y)) => {
            if y.len() != idx.len() {
                return Err(Error::size("The indices argument of [isort!] must have the same length as X"));
            }
            Value::Vector(y.take_usize(&idx))
        }
        Some(other) => return Err(Error::unsupported("isort!", describe(other))),
        None => to_int_vec(&idx),
    };
    *i.inplace_out() = Some(args[0].clone());
    Ok(out)
}

fn isort_top(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let top = crate::util::int_arg("isortTop", &args[1], "top")?;
    let asc = asc_flags("isortTop", opt(&args, 2))?;
    let keys = key_columns("isortTop", &args[0])?;
    let n = keys.first().map(|c| c.len()).unwrap_or(0);
    let top = (top.max(0) as usize).min(n);
    if keys.len() == 1 {
        let up = asc[0];
        let mut p: Vec<(u64, u32)> =
            sort_keys(&keys[0]).into_iter().enumerate().map(|(i, k)| (if up { k } else { !k }, i as u32)).collect();
        if top < n && top > 0 {
            p.select_nth_unstable(top - 1);
        }
        p.truncate(top);
        p.sort_unstable();
        let idx: Vec<usize> = p.into_iter().map(|(_, i)| i as usize).collect();
        return Ok(to_int_vec(&idx));
    }
    let mut idx = argsort_multi(&keys, &asc)?;
    idx.truncate(top);
    Ok(to_int_vec(&idx))
}

fn is_sorted(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let asc = asc_flag("isSorted", opt(&args, 1))?;
    let c = match &args[0] {
        Value::Vector(c) | Value::Pair(c) => c.clone(),
        Value::Scalar(_) => return Ok(Value::bool(true)),
        other => return Err(Error::unsupported("isSorted", describe(other))),
    };
    let k = sort_keys(&c);
    let ok = if asc { k.windows(2).all(|w| w[0] <= w[1]) } else { k.windows(2).all(|w| w[0] >= w[1]) };
    Ok(Value::bool(ok))
}

// ------------------------------------------------------------------ rank

#[derive(Clone, Copy, PartialEq)]
enum Ties {
    Min,
    Max,
    Average,
    First,
}

struct RankOpts {
    asc: bool,
    group_num: Option<usize>,
    ignore_na: bool,
    ties: Ties,
    percent: bool,
    precision: Option<i32>,
}

/// Keys for `rank` with a float precision: values within 10^-p of the previous distinct
/// value (in sorted order) are treated as equal.
fn precision_keys(c: &Column, p: i32) -> Result<Vec<u64>> {
    if !c.ty.is_numeric() {
        return Err(Error::arg("The precision argument of [rank] requires a numeric X"));
    }
    let v = crate::util::f64s(c);
    let eps = 10f64.powi(-p);
    let keys = sort_keys(c);
    let order = argsort_keys(&keys, true);
    let mut out = vec![0u64; v.len()];
    let mut rank = 0u64;
    let mut anchor = f64::NAN;
    for &i in &order {
        if keys[i] == 0 {
            continue;
        }
        if anchor.is_nan() || (v[i] - anchor).abs() > eps {
            rank += 1;
            anchor = v[i];
        }
        out[i] = rank;
    }
    Ok(out)
}

/// `f(k, e, d)` for each run `p[k..e]` of equal keys of sorted pairs, `d` the run's number.
fn for_runs(p: &[(u64, u32)], mut f: impl FnMut(usize, usize, usize)) {
    let (mut k, mut d) = (0, 0);
    while k < p.len() {
        let mut e = k + 1;
        while e < p.len() && p[e].0 == p[k].0 {
            e += 1;
        }
        f(k, e, d);
        d += 1;
        k = e;
    }
}

fn rank_column(c: &Column, o: &RankOpts, dense: bool) -> Result<Column> {
    let keys = match o.precision {
        Some(p) => precision_keys(c, p)?,
        None => sort_keys(c),
    };
    let n = keys.len();
    if n > u32::MAX as usize {
        return Err(Error::size("rank takes at most 4,294,967,295 elements"));
    }
    // the ranked elements as (direction-adjusted key, position), sorted: equal keys are
    // adjacent runs (a null key is 0, or !0 descending, and forms one run when ranked)
    let mut p: Vec<(u64, u32)> = Vec::with_capacity(n);
    let flip = if o.asc { 0 } else { u64::MAX };
    p.extend(keys.iter().enumerate().filter(|&(_, &k)| !o.ignore_na || k != 0).map(|(i, &k)| (k ^ flip, i as u32)));
    drop(keys);
    beluga_runtime::kernels::order::sort_pairs(&mut p, &mut Vec::new());
    let m = p.len();
    if let Some(g) = o.group_num {
        // group of sorted position q: the first m % g groups hold one extra element; ties
        // get the group of their first sorted position
        let (q, r) = (m / g, m % g);
        let big = r * (q + 1);
        let group_of = |s: usize| -> usize { if s < big { s / (q + 1) } else if q == 0 { r } else { r + (s - big) / q } };
        let mut out = vec![i32::NULL; n];
        for_runs(&p, |k, e, _| {
            let g0 = group_of(k) as i32;
            p[k..e].iter().for_each(|&(_, i)| out[i as usize] = g0);
        });
        return Ok(Column::from_vec(DataType::Int, out));
    }
    // the rank of the j-th element of run [k, e), run number d
    let base = |k: usize, e: usize, d: usize, j: usize| -> f64 {
        if dense {
            d as f64
        } else {
            match o.ties {
                Ties::Min => k as f64,
                Ties::Max => (e - 1) as f64,
                Ties::Average => (k + e - 1) as f64 / 2.0,
                Ties::First => (k + j) as f64,
            }
        }
    };
    if o.percent || (o.ties == Ties::Average && !dense) {
        let denom = if !o.percent {
            None
        } else if dense {
            let mut distinct = 0usize;
            for_runs(&p, |_, _, _| distinct += 1);
            Some(distinct as f64)
        } else {
            Some(m as f64)
        };
        let mut out = vec![f64::NULL; n];
        for_runs(&p, |k, e, d| {
            for (j, &(_, i)) in p[k..e].iter().enumerate() {
                let b = base(k, e, d, j);
                out[i as usize] = match denom {
                    Some(t) => (b + 1.0) / t,
                    None => b,
                };
            }
        });
        return Ok(Column::from_vec(DataType::Double, out));
    }
    let mut out = vec![i32::NULL; n];
    for_runs(&p, |k, e, d| {
        for (j, &(_, i)) in p[k..e].iter().enumerate() {
            out[i as usize] = base(k, e, d, j) as i32;
        }
    });
    Ok(Column::from_vec(DataType::Int, out))
}

fn rank_value(name: &str, x: &Value, o: &RankOpts, dense: bool) -> Result<Value> {
    match x {
        Value::Dict(d) => {
            let vals = match &d.vals {
                beluga_runtime::value::DictVals::Col(c) => c.clone(),
                _ => return Err(Error::unsupported(name, "an ANY dictionary")),
            };
            Ok(Value::Vector(rank_column(&vals, o, dense)?))
        }
        Value::Scalar(_) | Value::Vector(_) | Value::Pair(_) | Value::Matrix(_) | Value::Table(_) | Value::Tuple(_) => {
            crate::util::vector_fn_par(name, x, &|c| rank_column(c, o, dense))
        }
        other => Err(Error::unsupported(name, describe(other))),
    }
}

fn rank(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let asc = asc_flag("rank", opt(&args, 1))?;
    let group_num = match opt(&args, 2) {
        None => None,
        Some(v) => {
            let g = crate::util::int_arg("rank", v, "groupNum")?;
            if g <= 0 {
                return Err(Error::arg("The groupNum argument of [rank] must be a positive integer"));
            }
            Some(g as usize)
        }
    };
    let ignore_na = bool_opt("rank", opt(&args, 3), "ignoreNA", true)?;
    let ties = match opt(&args, 4) {
        None => Ties::Min,
        Some(v) => match v.as_str().unwrap_or("") {
            "min" => Ties::Min,
            "max" => Ties::Max,
            "average" | "avg" => Ties::Average,
            "first" => Ties::First,
            other => return Err(Error::arg(format!("The tiesMethod argument of [rank] must be 'min', 'max', 'average' or 'first', not '{other}'"))),
        },
    };
    let percent = bool_opt("rank", opt(&args, 5), "percent", false)?;
    let precision = match opt(&args, 6) {
        None => None,
        Some(v) => {
            let p = crate::util::int_arg("rank", v, "precision")?;
            if !(1..=15).contains(&p) {
                return Err(Error::arg("The precision argument of [rank] must be between 1 and 15"));
            }
            if ties == Ties::First {
                return Err(Error::arg("The tiesMethod of [rank] can't be 'first' when precision is given"));
            }
            Some(p as i32)
        }
    };
    let o = RankOpts { asc, group_num, ignore_na, ties, percent, precision };
    rank_value("rank", &args[0], &o, false)
}

fn dense_rank(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let asc = asc_flag("denseRank", opt(&args, 1))?;
    let ignore_na = bool_opt("denseRank", opt(&args, 2), "ignoreNA", true)?;
    let percent = bool_opt("denseRank", opt(&args, 3), "percent", false)?;
    let o = RankOpts { asc, group_num: None, ignore_na, ties: Ties::Min, percent, precision: None };
    rank_value("denseRank", &args[0], &o, true)
}

pub const DEFS: &[Builtin] = &[
    fp("denseRank", Kind::VectorToVector, 1, 4, dense_rank, &["X", "ascending", "ignoreNA", "percent"]),
    fp("isort", Kind::VectorToVector, 1, 2, isort, &["X", "ascending"]),
    fp("isort!", Kind::System, 1, 3, isort_inplace, &["X", "ascending", "y"]),
    fp("isortTop", Kind::System, 2, 3, isort_top, &["X", "top", "ascending"]),
    fp("isSorted", Kind::Aggregate, 1, 2, is_sorted, &["X", "ascending"]),
    fp(
        "rank",
        Kind::VectorToVector,
        1,
        7,
        rank,
        &["X", "ascending", "groupNum", "ignoreNA", "tiesMethod", "percent", "precision"],
    ),
    fp("sort", Kind::VectorToVector, 1, 2, sort, &["X", "ascending"]),
    fp("sort!", Kind::System, 1, 2, sort_inplace, &["obj", "ascending"]),
];

pub mod search;
#[cfg(test)]
mod rank_tests;

/// The ordering family's rows: sorting and ranking, searching.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, search::DEFS].iter().for_each(|defs| r.extend(defs));
}
