//! Builtins: searching sorted and unsorted data (find, binsrch, asof, lowerBound, searchK,
//! bucket, bucketCount, cutPoints, digitize, firstHit, ifirstHit).

use beluga_runtime::CallCtx;
use crate::order::sort_keys;
use crate::util::{col, describe, int_arg, opt};
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::kernels::cmp::{compare, ord_f64, CmpOp};
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Key;
use beluga_runtime::{DataType, Error, Result, Value};
use ahash::AHashMap;
use std::borrow::Cow;
use std::cmp::Ordering;

/// Two columns brought to one comparable representation, for searches that compare
/// elements of X with elements of Y (nulls are the smallest values).
pub enum Cmp2<'a> {
    I(Cow<'a, [i64]>, Cow<'a, [i64]>),
    F(Cow<'a, [f64]>, Cow<'a, [f64]>),
    S(&'a Column, &'a Column),
}

impl<'a> Cmp2<'a> {
    pub fn new(name: &str, x: &'a Column, y: &'a Column) -> Result<Cmp2<'a>> {
        let (tx, ty) = (x.ty, y.ty);
        if tx.is_literal() || ty.is_literal() {
            if !(tx.is_literal() || tx == DataType::Void) || !(ty.is_literal() || ty == DataType::Void) {
                return Err(Error::type_err(format!("The arguments of [{name}] can't compare {tx} with {ty}")));
            }
            return Ok(Cmp2::S(x, y));
        }
        let ok = |t: DataType| t.is_numeric() || t.is_temporal() || t == DataType::Void;
        if !ok(tx) || !ok(ty) {
            return Err(Error::unsupported(name, if ok(tx) { ty } else { tx }));
        }
        if tx.is_floating() || ty.is_floating() {
            return Ok(Cmp2::F(as_native::<f64>(x), as_native::<f64>(y)));
        }
        if tx.is_temporal() && ty.is_temporal() && tx != ty {
            let yc = beluga_runtime::kernels::temporal_to(y, tx)?;
            return Ok(Cmp2::I(as_native::<i64>(x), Cow::Owned(as_native::<i64>(&yc).into_owned())));
        }
        Ok(Cmp2::I(as_native::<i64>(x), as_native::<i64>(y)))
    }

    /// Compare X[i] with Y[j].
    #[inline]
    pub fn cmp(&self, i: usize, j: usize) -> Ordering {
        match self {
            Cmp2::I(a, b) => a[i].cmp(&b[j]),
            Cmp2::F(a, b) => ord_f64(a[i], b[j]),
            Cmp2::S(a, b) => a.str_at(i).unwrap_or("").cmp(b.str_at(j).unwrap_or("")),
        }
    }

    /// Compare X[i] with X[k].
    #[inline]
    pub fn cmp_x(&self, i: usize, k: usize) -> Ordering {
        match self {
            Cmp2::I(a, _) => a[i].cmp(&a[k]),
            Cmp2::F(a, _) => ord_f64(a[i], a[k]),
            Cmp2::S(a, _) => a.str_at(i).unwrap_or("").cmp(a.str_at(k).unwrap_or("")),
        }
    }
}

/// First index in sorted X (length n) whose element is not less than Y[j] (`strict`: greater than).
fn bound(c: &Cmp2, n: usize, j: usize, strict: bool) -> usize {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let o = c.cmp(mid, j);
        let go_right = if strict { o != Ordering::Greater } else { o == Ordering::Less };
        if go_right {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn int_result(y: &Value, v: Vec<i32>) -> Value {
    let c = Column::from_vec(DataType::Int, v);
    match y {
        // one index per element of a matrix keeps the matrix's shape and labels
        Value::Matrix(m) if m.rows * m.cols == c.len() => crate::util::like_form(y, c),
        _ if y.is_scalar() => Value::Scalar(c),
        _ => Value::Vector(c),
    }
}

fn search_cols(name: &str, x: &Value, y: &Value) -> Result<(Column, Column)> {
    let xc = match x {
        Value::Vector(c) | Value::Pair(c) => c.clone(),
        Value::Table(t) if t.ncols() >= 1 => t.cols[0].clone(),
        other => return Err(Error::unsupported(name, describe(other))),
    };
    Ok((xc, col(name, y)?))
}

fn binsrch(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (x, y) = search_cols("binsrch", &args[0], &args[1])?;
    let c = Cmp2::new("binsrch", &x, &y)?;
    let n = x.len();
    let out: Vec<i32> = (0..y.len())
        .map(|j| {
            let p = bound(&c, n, j, false);
            if p < n && c.cmp(p, j) == Ordering::Equal { p as i32 } else { -1 }
        })
        .collect();
    Ok(int_result(&args[1], out))
}

fn asof(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (x, y) = search_cols("asof", &args[0], &args[1])?;
    let c = Cmp2::new("asof", &x, &y)?;
    let n = x.len();
    let out: Vec<i32> = (0..y.len()).map(|j| bound(&c, n, j, true) as i32 - 1).collect();
    Ok(int_result(&args[1], out))
}

fn lower_bound(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (x, y) = search_cols("lowerBound", &args[0], &args[1])?;
    let c = Cmp2::new("lowerBound", &x, &y)?;
    let n = x.len();
    let out: Vec<i32> = (0..y.len()).map(|j| bound(&c, n, j, false) as i32).collect();
    Ok(int_result(&args[1], out))
}

/// Bring a lookup column to the representation of the searched column so that equal
/// values hash equally (`Key` already equates integers of any width and SYMBOL/STRING).
pub fn align_keys(x: &Column, y: &Column) -> Result<(Column, Column)> {
    let (tx, ty) = (x.ty, y.ty);
    if tx == ty || (tx.is_literal() && ty.is_literal()) {
        return Ok((x.clone(), y.clone()));
    }
    if ty == DataType::Void {
        return Ok((x.clone(), Column::nulls(tx, y.len())));
    }
    if tx.is_temporal() && ty.is_temporal() {
        return Ok((x.clone(), beluga_runtime::kernels::temporal_to(y, tx)?));
    }
    if (tx.is_numeric() || tx.is_temporal()) && (ty.is_numeric() || ty.is_temporal()) {
        if tx.is_floating() || ty.is_floating() {
            return Ok((cast_column(x, DataType::Double)?, cast_column(y, DataType::Double)?));
        }
        return Ok((x.clone(), y.clone()));
    }
    Err(Error::type_err(format!("Can't look up {ty} values in a {tx} vector")))
}

/// First index of each element of `y` in `x` (-1 when absent).
pub fn find_first(x: &Column, y: &Column) -> Result<Vec<i32>> {
    let (x, y) = align_keys(x, y)?;
    if y.len() <= 4 {
        // a few lookups: linear scans beat building a hash table
        return Ok((0..y.len())
            .map(|j| {
                let k = Key::of(&y, j);
                (0..x.len()).find(|&i| Key::of(&x, i) == k).map(|i| i as i32).unwrap_or(-1)
            })
            .collect());
    }
    let mut first: AHashMap<Key, i32> = AHashMap::with_capacity(x.len());
    for i in (0..x.len()).rev() {
        first.insert(Key::of(&x, i), i as i32);
    }
    Ok((0..y.len()).map(|j| first.get(&Key::of(&y, j)).copied().unwrap_or(-1)).collect())
}

fn find(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Dict(_) => i.index_value(args[0].clone(), vec![args[1].clone()]),
        Value::Table(t) => {
            // keyed tables look up their key columns; other tables their first column
            let y = &args[1];
            if t.keys.len() > 1 {
                let kcols: Vec<Column> = t.keys.iter().filter_map(|k| t.column(k).cloned()).collect();
                let parts: Vec<Column> = match y {
                    Value::Tuple(items) => items.iter().map(|v| col("find", v)).collect::<Result<_>>()?,
                    Value::Table(yt) => yt.cols.clone(),
                    other => return Err(Error::unsupported("find", describe(other))),
                };
                if parts.len() != kcols.len() {
                    return Err(Error::arg("The number of key values must match the number of key columns"));
                }
                let m = parts.first().map(|c| c.len()).unwrap_or(0);
                let mut index: AHashMap<Vec<Key>, i32> = AHashMap::with_capacity(t.rows());
                for r in (0..t.rows()).rev() {
                    index.insert(kcols.iter().map(|c| Key::of(c, r)).collect(), r as i32);
                }
                let aligned: Vec<Column> =
                    parts.iter().zip(&kcols).map(|(p, k)| align_keys(k, p).map(|(_, p)| p)).collect::<Result<_>>()?;
                let out: Vec<i32> = (0..m)
                    .map(|j| index.get(&aligned.iter().map(|c| Key::of(c, j)).collect::<Vec<_>>()).copied().unwrap_or(-1))
                    .collect();
                return Ok(int_result(&Value::Vector(Column::nulls(DataType::Int, 0)), out));
            }
            let key = match t.keys.first() {
                Some(k) => t.column(k).cloned(),
                None => t.cols.first().cloned(),
            }
            .ok_or_else(|| Error::arg("find on an empty table"))?;
            let yc = col("find", y)?;
            Ok(int_result(y, find_first(&key, &yc)?))
        }
        Value::Vector(x) | Value::Pair(x) => {
            let yc = col("find", &args[1])?;
            Ok(int_result(&args[1], find_first(x, &yc)?))
        }
        Value::Tuple(items) => {
            // a tuple: the position of the first element equal to y
            let y = &args[1];
            for (k, it) in items.iter().enumerate() {
                if let (Ok(a), Ok(b)) = (col("find", it), col("find", y)) {
                    if a.len() == 1 && b.len() == 1 && find_first(&a, &b).map(|v| v[0] == 0).unwrap_or(false) {
                        return Ok(Value::int(k as i32));
                    }
                }
            }
            Ok(Value::int(-1))
        }
        other => Err(Error::unsupported("find", describe(other))),
    }
}

fn search_k(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = match &args[0] {
        Value::Vector(c) | Value::Pair(c) => c.clone(),
        other => return Err(Error::unsupported("searchK", describe(other))),
    };
    let k = int_arg("searchK", &args[1], "k")?;
    let keys = sort_keys(&x);
    let mut valid: Vec<(u64, u32)> = keys.iter().enumerate().filter(|(_, k)| **k != 0).map(|(i, &k)| (k, i as u32)).collect();
    if k < 1 || k as usize > valid.len() {
        return Ok(Value::null_of(x.ty));
    }
    let (_, &mut (_, idx), _) = valid.select_nth_unstable(k as usize - 1);
    Ok(Value::Scalar(x.slice(idx as usize, idx as usize + 1)))
}

// ------------------------------------------------------------------ buckets

fn range_of(name: &str, v: &Value) -> Result<(f64, f64)> {
    let c = match v {
        Value::Pair(c) | Value::Vector(c) if c.len() == 2 => c.clone(),
        _ => return Err(Error::arg(format!("The dataRange argument of [{name}] must be a pair a:b"))),
    };
    match (c.f64_at(0), c.f64_at(1)) {
        (Some(a), Some(b)) if a < b => Ok((a, b)),
        _ => Err(Error::arg(format!("The dataRange of [{name}] must be an increasing pair of numbers"))),
    }
}

/// Bucket number of each element: 0..n in range, or with `outbound` 0 below, 1..=n in range, n+1 above.
fn bucket_ids(name: &str, x: &Column, lo: f64, hi: f64, n: i64, outbound: bool) -> Result<Vec<i32>> {
    if !(x.ty.is_numeric() || x.ty.is_temporal()) {
        return Err(Error::unsupported(name, x.ty));
    }
    let v = as_native::<f64>(x);
    let w = (hi - lo) / n as f64;
    Ok(v.iter()
        .map(|&a| {
            if a.is_null() {
                return i32::NULL;
            }
            if a < lo {
                return if outbound { 0 } else { i32::NULL };
            }
            if a >= hi {
                return if outbound { n as i32 + 1 } else { i32::NULL };
            }
            let b = (((a - lo) / w).floor() as i64).min(n - 1) as i32;
            if outbound { b + 1 } else { b }
        })
        .collect())
}

fn bucket_args(name: &str, args: &[Value]) -> Result<(Column, f64, f64, i64, bool)> {
    let x = col(name, &args[0])?;
    let (lo, hi) = range_of(name, &args[1])?;
    let n = int_arg(name, &args[2], "bucketNum")?;
    if n <= 0 {
        return Err(Error::arg(format!("The bucketNum argument of [{name}] must be positive")));
    }
    let outbound = opt(args, 3).and_then(|v| v.as_bool()).unwrap_or(false);
    Ok((x, lo, hi, n, outbound))
}

fn bucket(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (x, lo, hi, n, outbound) = bucket_args("bucket", &args)?;
    Ok(int_result(&args[0], bucket_ids("bucket", &x, lo, hi, n, outbound)?))
}

fn bucket_count(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (x, lo, hi, n, outbound) = bucket_args("bucketCount", &args)?;
    let ids = bucket_ids("bucketCount", &x, lo, hi, n, outbound)?;
    let m = if outbound { n as usize + 2 } else { n as usize };
    let mut counts = vec![0i32; m];
    for b in ids {
        if !b.is_null() {
            counts[b as usize] += 1;
        }
    }
    Ok(Value::Vector(Column::from_vec(DataType::Int, counts)))
}

fn cut_points(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = col("cutPoints", &args[0])?;
    if !(x.ty.is_numeric() || x.ty.is_temporal() || x.ty.is_literal()) {
        return Err(Error::unsupported("cutPoints", x.ty));
    }
    let bins = int_arg("cutPoints", &args[1], "binNum")?;
    if bins <= 0 {
        return Err(Error::arg("The binNum argument of [cutPoints] must be positive"));
    }
    let keys = sort_keys(&x);
    let (order, freq): (Vec<usize>, Vec<i64>) = match opt(&args, 2) {
        Some(f) => {
            let fc = col("cutPoints", f)?;
            if fc.len() != x.len() {
                return Err(Error::size("The freq argument of [cutPoints] must have the same length as X"));
            }
            let fv = as_native::<i64>(&fc);
            let idx: Vec<usize> = crate::order::argsort_keys(&keys, true).into_iter().filter(|&i| keys[i] != 0).collect();
            let fr = idx.iter().map(|&i| if fv[i].is_null() { 0 } else { fv[i].max(0) }).collect();
            (idx, fr)
        }
        None => {
            let idx: Vec<usize> = crate::order::argsort_keys(&keys, true).into_iter().filter(|&i| keys[i] != 0).collect();
            let fr = vec![1; idx.len()];
            (idx, fr)
        }
    };
    let total: i64 = freq.iter().sum();
    if total == 0 {
        return Err(Error::arg("The X argument of [cutPoints] has no valid elements"));
    }
    if total < bins {
        return Err(Error::arg("The number of elements of [cutPoints] must be at least binNum"));
    }
    let mut picks: Vec<usize> = Vec::with_capacity(bins as usize + 1);
    picks.push(order[0]);
    let mut cum = 0i64;
    let mut k = 0usize;
    // boundaries are distinct values: each pick lies after the previous one and leaves
    // room for the remaining ones (a value heavier than one bin gets a bin of its own)
    let n_order = order.len();
    let mut prev = 0usize;
    for b in 1..bins {
        let target = (b * total + bins / 2) / bins;
        while k < n_order && cum + freq[k] <= target {
            cum += freq[k];
            k += 1;
        }
        // the picks still to come after this one need positions of their own
        let room = n_order.saturating_sub((bins - b) as usize);
        let mut pos = k.max(prev + 1);
        while pos + 1 < n_order && keys[order[pos]] == keys[order[prev]] {
            pos += 1;
        }
        let pos = pos.min(room.max(prev + 1)).min(n_order - 1);
        picks.push(order[pos]);
        prev = pos;
    }
    let mut out = x.take_usize(&picks);
    // the last boundary is one past the maximum (upper bounds are exclusive)
    let last = *order.last().unwrap_or(&0);
    let maxv = x.slice(last, last + 1);
    if x.ty.is_literal() {
        // text has no successor value: the maximum closes the last bucket
        out.append(&maxv);
        return Ok(Value::Vector(out));
    }
    let one = Column::from_vec(DataType::Int, vec![1i32]);
    let end = beluga_runtime::kernels::arith::arith(beluga_runtime::kernels::arith::ArithOp::Add, &maxv, false, &one, true)?;
    let end = if end.ty != x.ty { cast_column(&end, x.ty)? } else { end };
    out.append(&end);
    Ok(Value::Vector(out))
}

fn digitize(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = col("digitize", &args[0])?;
    let bins = col("digitize", &args[1])?;
    let right = opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(false);
    let c = Cmp2::new("digitize", &bins, &x)?;
    let n = bins.len();
    let decreasing = n > 1 && c.cmp_x(0, n - 1) == Ordering::Greater;
    let out: Vec<i32> = (0..x.len())
        .map(|j| {
            if x.is_null(j) {
                return i32::NULL;
            }
            if !decreasing {
                // right: bins[i-1] < x <= bins[i]; else bins[i-1] <= x < bins[i]
                bound(&c, n, j, !right) as i32
            } else {
                // count of bins > x (left) or >= x (right), bins sorted descending
                let (mut lo, mut hi) = (0usize, n);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    let o = c.cmp(mid, j);
                    let keep = if right { o != Ordering::Less } else { o == Ordering::Greater };
                    if keep {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo as i32
            }
        })
        .collect();
    Ok(int_result(&args[0], out))
}

// ------------------------------------------------------------------ firstHit

fn cmp_op_of(i: &CallCtx, f: &Value) -> Result<CmpOp> {
    let name = match f {
        Value::Function(func) => i.func_name(func),
        _ => String::new(),
    };
    Ok(match name.as_str() {
        "lt" => CmpOp::Lt,
        "le" => CmpOp::Le,
        "gt" => CmpOp::Gt,
        "ge" => CmpOp::Ge,
        "eq" => CmpOp::Eq,
        "ne" => CmpOp::Ne,
        _ => return Err(Error::arg("The func argument must be one of the operators >, >=, <, <=, !=, <>, ==")),
    })
}

fn first_hit_col(x: &Column, op: CmpOp, target: &Column) -> Result<Option<usize>> {
    let mask = compare(op, x, false, target, true)?;
    let m = match &*mask.data {
        ColData::I8(v) => v,
        _ => return Ok(None),
    };
    Ok((0..x.len()).find(|&k| m[k] == 1 && !x.is_null(k)))
}

fn first_hit_impl(i: &mut CallCtx, args: &[Value], index: bool) -> Result<Value> {
    let name = if index { "ifirstHit" } else { "firstHit" };
    let op = cmp_op_of(i, &args[0])?;
    let target = col(name, &args[2])?;
    let one = |x: &Column| -> Result<Value> {
        let hit = first_hit_col(x, op, &target)?;
        Ok(if index {
            Value::int(hit.map(|k| k as i32).unwrap_or(-1))
        } else {
            match hit {
                Some(k) => Value::Scalar(x.slice(k, k + 1)),
                None => Value::null_of(x.ty),
            }
        })
    };
    crate::util::aggregate(name, &args[1], &one)
}

fn first_hit(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    first_hit_impl(i, &args, false)
}

fn ifirst_hit(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    first_hit_impl(i, &args, true)
}

pub const DEFS: &[Builtin] = &[
    fp("asof", Kind::System, 2, 2, asof, &["X", "Y"]),
    fp("binsrch", Kind::System, 2, 2, binsrch, &["X", "Y"]),
    fp("bucket", Kind::Elementwise, 3, 4, bucket, &["vector", "dataRange", "bucketNum", "includeOutbound"]),
    fp("bucketCount", Kind::System, 3, 4, bucket_count, &["input", "dataRange", "bucketNum", "includeOutbound"]),
    fp("cutPoints", Kind::System, 2, 3, cut_points, &["X", "binNum", "freq"]),
    fp("digitize", Kind::Elementwise, 2, 3, digitize, &["x", "bins", "right"]),
    fp("find", Kind::System, 2, 2, find, &["X", "Y"]),
    fp("firstHit", Kind::Aggregate, 3, 3, first_hit, &["func", "X", "target"]),
    fp("ifirstHit", Kind::Aggregate, 3, 3, ifirst_hit, &["func", "X", "target"]),
    fp("lowerBound", Kind::System, 2, 2, lower_bound, &["X", "Y"]),
    fp("searchK", Kind::Aggregate, 2, 2, search_k, &["X", "k"]),
];
