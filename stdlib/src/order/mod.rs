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
            Ok(Value::Matrix(Arc::new(Matrix { data, rows: m.rows, cols: m.cols, row_labels: None, col_labels: None })))
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

fn rank_column(c: &Column, o: &RankOpts, dense: bool) -> Result<Column> {
    let keys = match o.precision {
        Some(p) => precision_keys(c, p)?,
        None => sort_keys(c),
    };
    let n = keys.len();
    let order = argsort_keys(&keys, o.asc);
    // positions in `order` of valid elements
    let valid: Vec<usize> = if o.ignore_na { order.iter().copied().filter(|&i| keys[i] != 0).collect() } else { order };
    let m = valid.len();
    let mut rank = vec![f64::NAN; n];
    let mut k = 0;
    let mut dense_no = 0usize;
    while k < m {
        let mut e = k + 1;
        while e < m && keys[valid[e]] == keys[valid[k]] {
            e += 1;
        }
        for (j, &i) in valid[k..e].iter().enumerate() {
            rank[i] = if dense {
                dense_no as f64
            } else {
                match o.ties {
                    Ties::Min => k as f64,
                    Ties::Max => (e - 1) as f64,
                    Ties::Average => (k + e - 1) as f64 / 2.0,
                    Ties::First => (k + j) as f64,
                }
            };
        }
        dense_no += 1;
        k = e;
    }
    if let Some(g) = o.group_num {
        // group of sorted position p: the first m % g groups hold one extra element
        let (q, r) = (m / g, m % g);
        let group_of = |p: usize| -> usize {
            let big = r * (q + 1);
            if p < big { p / (q + 1) } else if q == 0 { r } else { r + (p - big) / q }
        };
        // ties get the smallest group: the group of their minimum sorted position
        let mut k = 0;
        while k < m {
            let mut e = k + 1;
            while e < m && keys[valid[e]] == keys[valid[k]] {
                e += 1;
            }
            let g0 = group_of(k) as f64;
            for &i in &valid[k..e] {
                rank[i] = g0;
            }
            k = e;
        }
        let out: Vec<i32> = rank.iter().map(|&x| if x.is_nan() { i32::NULL } else { x as i32 }).collect();
        return Ok(Column::from_vec(DataType::Int, out));
    }
    if o.percent {
        let denom = if dense { dense_no } else { m } as f64;
        let out: Vec<f64> = rank.iter().map(|&x| if x.is_nan() { f64::NULL } else { (x + 1.0) / denom }).collect();
        return Ok(Column::from_vec(DataType::Double, out));
    }
    if o.ties == Ties::Average && !dense {
        let out: Vec<f64> = rank.iter().map(|&x| if x.is_nan() { f64::NULL } else { x }).collect();
        return Ok(Column::from_vec(DataType::Double, out));
    }
    let out: Vec<i32> = rank.iter().map(|&x| if x.is_nan() { i32::NULL } else { x as i32 }).collect();
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

/// The ordering family's rows: sorting and ranking, searching.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, search::DEFS].iter().for_each(|defs| r.extend(defs));
}
