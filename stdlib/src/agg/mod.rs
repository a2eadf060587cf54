//! Core aggregates: sum, sum2/3/4, avg/mean, min/max, count, first/last, firstNot/lastNot,
//! prod. Each is a kernel over one column (`*_col`, usable by the SQL engine on group
//! slices); the rows carry one-pass group-by kernels (`group.rs`) and map-reduce splits
//! in their capability slots.
//!
//! Result types: sum and prod of BOOL/CHAR/SHORT/INT/LONG are LONG (exact; NULL outside
//! LONG's range, see `kernels::intacc`), of FLOAT/DOUBLE DOUBLE; avg, sum2..4 are DOUBLE;
//! min/max/first/last keep the input type. Nulls are skipped; an all-null or empty input
//! gives a null.

use beluga_runtime::CallCtx;
use crate::math_util::{form_err, is_num};
use beluga_runtime::kernels::intacc;
use crate::util::{aggregate, col};
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::null::Native;
use beluga_runtime::registry::{f, fp, Builtin, Kind, Split};
use beluga_runtime::value::{DictVals, Key};
use beluga_runtime::{with_numeric, DataType, Error, Result, Value};
use std::cmp::Ordering;

// ------------------------------------------------------------------ typed kernels

/// Sum and count of the non-null elements; a NaN element (a value: null.rs) makes the sum NaN.
fn fsum<T: Native>(v: &[T]) -> (f64, usize) {
    let (mut s, mut n) = (0f64, 0usize);
    let mut nan = false;
    // chunk by chunk (same summation order) so a long column can be interrupted
    let poll = beluga_runtime::guard::Poll::new();
    for part in v.chunks(beluga_runtime::guard::CHUNK) {
        poll.now();
        for &x in part {
            if !x.is_null() {
                s += x.to_f64();
                n += 1;
            } else if x.to_f64().is_nan() {
                nan = true;
                n += 1;
            }
        }
    }
    (if nan { f64::NAN } else { s }, n)
}

fn fsum_pow<T: Native>(v: &[T], k: i32) -> (f64, usize) {
    let (mut s, mut n) = (0f64, 0usize);
    if v.iter().any(|x| x.to_f64().is_nan()) {
        return (f64::NAN, 1);
    }
    // chunk by chunk (same summation order) so a long column can be interrupted
    let poll = beluga_runtime::guard::Poll::new();
    for part in v.chunks(beluga_runtime::guard::CHUNK) {
        poll.now();
        for &x in part {
            if !x.is_null() {
                s += x.to_f64().powi(k);
                n += 1;
            }
        }
    }
    (s, n)
}

/// Some element is NaN or ±Infinity (a value, not a null: null.rs); only looked at when a
/// float result is not finite, to tell IEEE propagation from overflow.
fn has_special<T: Native>(v: &[T]) -> bool {
    v.iter().any(|x| !x.to_f64().is_finite() && (x.to_f64().is_nan() || !x.is_null()))
}

/// A DOUBLE aggregate result `s` over column `c`: NaN/±Infinity kept when the input held one.
fn double_of(s: f64, c: &Column) -> Value {
    let special = !s.is_finite() && with_numeric!(&*c.data, v => has_special(v)).unwrap_or(false);
    Value::double_ieee(s, special)
}

/// Elements that are not NULL; a NaN counts (a value: null.rs).
fn count_valid<T: Native>(v: &[T]) -> usize {
    v.iter().filter(|x| !x.is_null() || x.to_f64().is_nan()).count()
}

fn extreme<T: Native>(v: &[T], want_max: bool) -> Option<T> {
    let mut best: Option<T> = None;
    for &x in v {
        if x.is_null() {
            // a NaN (a value, not a null: null.rs) makes the extreme NaN, as it makes the sum
            if x.to_f64().is_nan() {
                return Some(x);
            }
            continue;
        }
        best = Some(match best {
            None => x,
            Some(b) => {
                if (want_max && x > b) || (!want_max && x < b) { x } else { b }
            }
        });
    }
    best
}

fn fprod<T: Native>(v: &[T]) -> (f64, usize) {
    let (mut s, mut n) = (1f64, 0usize);
    for &x in v {
        if x.to_f64().is_nan() {
            return (f64::NAN, 1);
        }
        if !x.is_null() {
            s *= x.to_f64();
            n += 1;
        }
    }
    (s, n)
}

// ------------------------------------------------------------------ column kernels

/// `sum` of one column.
pub fn sum_col(c: &Column) -> Result<Value> {
    if c.ty == DataType::Void {
        return Ok(Value::Void);
    }
    if c.ty.decimal_scale().is_some() {
        return Ok(Value::Scalar(beluga_runtime::kernels::decimal::sum(c)?));
    }
    if !c.ty.is_numeric() {
        return Err(Error::unsupported("sum", c.ty));
    }
    let rt = intacc::acc_type(c.ty);
    if rt == DataType::Double {
        let (s, n) = with_numeric!(&*c.data, v => fsum(v)).unwrap_or((0.0, 0));
        return Ok(if n == 0 { Value::null_of(rt) } else { double_of(s, c) });
    }
    let (s, n) = with_numeric!(&*c.data, v => intacc::sum(v)).unwrap_or((0, 0));
    Ok(if n == 0 { Value::null_of(rt) } else { Value::long(intacc::to_long(s)) })
}

/// `sum2`/`sum3`/`sum4` (power k) of one column: DOUBLE.
pub fn sum_pow_col(name: &str, c: &Column, k: i32) -> Result<Value> {
    if !is_num(c.ty) {
        return Err(Error::unsupported(name, c.ty));
    }
    let (s, n) = with_numeric!(&*c.data, v => fsum_pow(v, k)).unwrap_or((0.0, 0));
    Ok(if n == 0 { Value::null_of(DataType::Double) } else { double_of(s, c) })
}

/// `avg`/`mean` of one column: DOUBLE.
pub fn avg_col(c: &Column) -> Result<Value> {
    if c.ty.decimal_scale().is_some() {
        return Ok(Value::double(beluga_runtime::kernels::decimal::avg(c)));
    }
    if !is_num(c.ty) {
        return Err(Error::unsupported("avg", c.ty));
    }
    let (s, n) = with_numeric!(&*c.data, v => fsum(v)).unwrap_or((0.0, 0));
    Ok(if n == 0 { Value::null_of(DataType::Double) } else { double_of(s / n as f64, c) })
}

/// Number of non-null elements of a column.
pub fn count_col(c: &Column) -> usize {
    match &*c.data {
        ColData::Sym(_) | ColData::Str(_) => (0..c.len()).filter(|&i| !c.is_null(i)).count(),
        // an array-vector column counts its rows, as count(arrayVector) does
        ColData::Array(a) => a.rows(),
        d => with_numeric!(d, v => count_valid(v)).unwrap_or(0),
    }
}

/// Index of the min (or max) non-null element of any column type (first one on ties).
pub fn extreme_index(c: &Column, want_max: bool) -> Option<usize> {
    fn idx<T: Native>(v: &[T], want_max: bool) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, &x) in v.iter().enumerate() {
            if x.is_null() {
                continue;
            }
            match best {
                None => best = Some(i),
                Some(b) => {
                    if (want_max && x > v[b]) || (!want_max && x < v[b]) {
                        best = Some(i)
                    }
                }
            }
        }
        best
    }
    match &*c.data {
        ColData::Sym(_) | ColData::Str(_) => {
            let mut best: Option<usize> = None;
            for i in 0..c.len() {
                if c.is_null(i) {
                    continue;
                }
                let s = c.str_at(i).unwrap_or("");
                match best {
                    None => best = Some(i),
                    Some(b) => {
                        let o = s.cmp(c.str_at(b).unwrap_or(""));
                        if (want_max && o == Ordering::Greater) || (!want_max && o == Ordering::Less) {
                            best = Some(i)
                        }
                    }
                }
            }
            best
        }
        d => with_numeric!(d, v => idx(v, want_max)).flatten(),
    }
}

/// `min`/`max` of one column, keeping its type (numbers, temporals, strings).
pub fn extreme_col(c: &Column, want_max: bool) -> Result<Value> {
    let name = if want_max { "max" } else { "min" };
    if c.ty == DataType::Void {
        return Ok(Value::Void);
    }
    if c.ty.decimal_scale().is_some() {
        return Ok(Value::Scalar(beluga_runtime::kernels::decimal::extreme(c, want_max)?));
    }
    match &*c.data {
        ColData::Sym(_) | ColData::Str(_) => Ok(match extreme_index(c, want_max) {
            Some(i) => Value::Scalar(c.slice(i, i + 1)),
            None => Value::Scalar(Column::nulls(c.ty, 1)),
        }),
        ColData::I128(_) | ColData::Array(_) => Err(Error::unsupported(name, c.ty)),
        ColData::I8(v) => Ok(Value::Scalar(Column::from_vec(c.ty, vec![extreme(v, want_max).unwrap_or(i8::NULL)]))),
        ColData::I16(v) => Ok(Value::Scalar(Column::from_vec(c.ty, vec![extreme(v, want_max).unwrap_or(i16::NULL)]))),
        ColData::I32(v) => Ok(Value::Scalar(Column::from_vec(c.ty, vec![extreme(v, want_max).unwrap_or(i32::NULL)]))),
        ColData::I64(v) => Ok(Value::Scalar(Column::from_vec(c.ty, vec![extreme(v, want_max).unwrap_or(i64::NULL)]))),
        ColData::F32(v) => Ok(Value::Scalar(Column::from_vec(c.ty, vec![extreme(v, want_max).unwrap_or(f32::NULL)]))),
        ColData::F64(v) => Ok(Value::Scalar(Column::from_vec(c.ty, vec![extreme(v, want_max).unwrap_or(f64::NULL)]))),
    }
}

pub fn min_col(c: &Column) -> Result<Value> {
    extreme_col(c, false)
}

pub fn max_col(c: &Column) -> Result<Value> {
    extreme_col(c, true)
}

/// `prod` of one column: LONG for integers, DOUBLE for floats.
pub fn prod_col(c: &Column) -> Result<Value> {
    if c.ty == DataType::Void {
        return Ok(Value::Void);
    }
    if !c.ty.is_numeric() {
        return Err(Error::unsupported("prod", c.ty));
    }
    if c.ty.is_floating() {
        let (p, n) = with_numeric!(&*c.data, v => fprod(v)).unwrap_or((1.0, 0));
        return Ok(if n == 0 { Value::null_of(DataType::Double) } else { double_of(p, c) });
    }
    let (p, n) = with_numeric!(&*c.data, v => intacc::prod(v)).unwrap_or((1, 0));
    Ok(if n == 0 { Value::null_of(DataType::Long) } else { Value::long(intacc::to_long(p)) })
}

/// First element (null included).
pub fn first_col(c: &Column) -> Value {
    if c.is_empty() { Value::Scalar(Column::nulls(c.ty, 1)) } else { Value::Scalar(c.slice(0, 1)) }
}

/// Last element (null included).
pub fn last_col(c: &Column) -> Value {
    let n = c.len();
    if n == 0 { Value::Scalar(Column::nulls(c.ty, 1)) } else { Value::Scalar(c.slice(n - 1, n)) }
}

/// Whether element i equals the scalar k (numbers by value, strings by text).
fn elem_eq(c: &Column, i: usize, k: &Value) -> bool {
    match k {
        Value::Scalar(kc) => {
            if let (Some(a), Some(b)) = (c.str_at(i), kc.str_at(0)) {
                return a == b;
            }
            match (c.f64_at(i), kc.f64_at(0)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            }
        }
        _ => false,
    }
}

/// First (or last) element that is neither null nor equal to `k`.
pub fn first_not_col(c: &Column, k: Option<&Value>, from_end: bool) -> Value {
    let ok = |i: usize| !c.is_null(i) && !k.map(|k| elem_eq(c, i, k)).unwrap_or(false);
    let found = if from_end { (0..c.len()).rev().find(|&i| ok(i)) } else { (0..c.len()).find(|&i| ok(i)) };
    match found {
        Some(i) => Value::Scalar(c.slice(i, i + 1)),
        None => Value::Scalar(Column::nulls(c.ty, 1)),
    }
}

// ------------------------------------------------------------------ form handling

/// Aggregate over any form: dictionaries and sets aggregate their values.
pub fn agg_any(name: &str, v: &Value, f: &dyn Fn(&Column) -> Result<Value>) -> Result<Value> {
    // DECIMAL: sum/avg/min/max/first/last keep exactness (their column kernels); the other
    // statistics work on the DOUBLE values
    if let Value::Vector(c) | Value::Scalar(c) = v {
        if c.ty.decimal_scale().is_some() && !matches!(name, "sum" | "avg" | "mean" | "max" | "min" | "first" | "last" | "firstNot" | "lastNot" | "count" | "size") {
            let d = beluga_runtime::column::f64_column(beluga_runtime::kernels::decimal::to_f64(c));
            let d = if matches!(v, Value::Scalar(_)) { Value::Scalar(d) } else { Value::Vector(d) };
            return agg_any(name, &d, f);
        }
    }
    match v {
        Value::Dict(d) => match &d.vals {
            DictVals::Col(c) => f(c),
            DictVals::Any(items) => {
                let u = beluga_runtime::eval::unify_scalars(items)?.ok_or_else(|| form_err(name, v))?;
                f(&col(name, &u)?)
            }
        },
        Value::Set(s) => f(&s.items),
        Value::Tuple(items) if items.iter().all(|x| x.is_scalar()) => {
            match beluga_runtime::eval::unify_scalars(items)? {
                Some(u) => f(&col(name, &u)?),
                None => aggregate(name, v, f),
            }
        }
        _ => aggregate(name, v, f),
    }
}

// ------------------------------------------------------------------ builtins

fn sum(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("sum", &a[0], &sum_col)
}
fn sum2(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("sum2", &a[0], &|c| sum_pow_col("sum2", c, 2))
}
fn sum3(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("sum3", &a[0], &|c| sum_pow_col("sum3", c, 3))
}
fn sum4(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("sum4", &a[0], &|c| sum_pow_col("sum4", c, 4))
}
fn avg(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("avg", &a[0], &avg_col)
}
fn prod(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("prod", &a[0], &prod_col)
}

fn max(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if a.len() == 2 {
        return crate::math_ops::elem_extreme("max", &a[0], &a[1], true, false);
    }
    agg_any("max", &a[0], &max_col)
}

fn min(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if a.len() == 2 {
        return crate::math_ops::elem_extreme("min", &a[0], &a[1], false, false);
    }
    agg_any("min", &a[0], &min_col)
}

/// `count`: non-null elements; a matrix counts all its cells, a table its rows.
pub fn count_value(v: &Value) -> Result<usize> {
    Ok(match v {
        Value::Void => 0,
        Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => count_col(c),
        Value::Matrix(m) => count_col(&m.data),
        Value::Table(t) => t.rows(),
        Value::Set(s) => s.items.len(),
        Value::Dict(d) => d.keys.len(),
        Value::Tuple(t) => t.iter().filter(|x| !x.is_null_scalar()).count(),
        Value::ArrayVector(a) => a.rows(),
        other => return Err(form_err("count", other)),
    })
}

fn count(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::int(count_value(&a[0])? as i32))
}

/// Row `i` of a table as an ordered dictionary.
fn table_row(t: &beluga_runtime::Table, i: Option<usize>) -> Result<Value> {
    let vals: Vec<Value> = t
        .cols
        .iter()
        .map(|c| match i {
            Some(i) if i < c.len() => Value::Scalar(c.slice(i, i + 1)),
            _ => Value::Scalar(Column::nulls(c.ty, 1)),
        })
        .collect();
    crate::math_util::str_dict(t.names.iter().map(|s| s.as_str()).zip(vals).collect())
}

fn first_last(name: &str, v: &Value, last: bool) -> Result<Value> {
    match v {
        Value::Tuple(t) => Ok(if last { t.last() } else { t.first() }.cloned().unwrap_or(Value::Void)),
        Value::Table(t) => {
            let n = t.rows();
            table_row(t, if n == 0 { None } else if last { Some(n - 1) } else { Some(0) })
        }
        Value::Void => Ok(Value::Void),
        _ => aggregate(name, v, &|c| Ok(if last { last_col(c) } else { first_col(c) })),
    }
}

fn first(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    first_last("first", &a[0], false)
}
fn last(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    first_last("last", &a[0], true)
}

fn first_not_any(name: &str, a: &[Value], from_end: bool) -> Result<Value> {
    let k = crate::util::opt(a, 1).cloned();
    if let Some(k) = &k {
        if !k.is_scalar() {
            return Err(Error::arg(format!("The second argument of [{name}] must be a scalar")));
        }
    }
    aggregate(name, &a[0], &|c| Ok(first_not_col(c, k.as_ref(), from_end)))
}

fn first_not(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    first_not_any("firstNot", &a, false)
}
fn last_not(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    first_not_any("lastNot", &a, true)
}

/// `nunique(X, [ignoreNull=false])`: number of distinct values.
pub fn nunique_col(c: &Column, ignore_null: bool) -> usize {
    fn ints<T: Native>(v: &[T], ignore_null: bool) -> usize {
        let mut s: ahash::AHashSet<i64> = ahash::AHashSet::with_capacity(v.len().min(1 << 16));
        for &x in v {
            if x.is_null() {
                if !ignore_null {
                    s.insert(i64::MIN);
                }
            } else {
                s.insert(x.to_i64());
            }
        }
        s.len()
    }
    match &*c.data {
        ColData::I8(v) => ints(v, ignore_null),
        ColData::I16(v) => ints(v, ignore_null),
        ColData::I32(v) => ints(v, ignore_null),
        ColData::I64(v) => ints(v, ignore_null),
        _ => {
            let mut s: ahash::AHashSet<Key> = ahash::AHashSet::new();
            for i in 0..c.len() {
                if c.is_null(i) && ignore_null {
                    continue;
                }
                s.insert(Key::of(c, i));
            }
            s.len()
        }
    }
}

fn nunique(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let ig = crate::math_util::bool_opt(&a, 1, false);
    agg_any("nunique", &a[0], &|c| Ok(Value::int(nunique_col(c, ig) as i32)))
}

/// `difference(X)`: last element minus first element.
fn difference(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    aggregate("difference", &a[0], &|c| {
        if c.is_empty() {
            return Ok(Value::Scalar(Column::nulls(c.ty, 1)));
        }
        let f = Value::Scalar(c.slice(0, 1));
        let l = Value::Scalar(c.slice(c.len() - 1, c.len()));
        beluga_runtime::eval::ops::arith_values(beluga_runtime::kernels::arith::ArithOp::Sub, &l, &f)
    })
}

use beluga_runtime::sql::over;

pub const DEFS: &[Builtin] = &[
    f("avg", Kind::Aggregate, 1, 1, avg).grouped(group::avg).split(Split::Avg).over(over::avg),
    f("count", Kind::Aggregate, 1, 1, count).grouped(group::count).split(Split::Count).over(over::count),
    f("difference", Kind::Aggregate, 1, 1, difference),
    f("first", Kind::Aggregate, 1, 1, first).grouped(group::first).split(Split::Same),
    fp("firstNot", Kind::Aggregate, 1, 2, first_not, &["X", "k"]).grouped(group::first_not).split(Split::Same),
    f("last", Kind::Aggregate, 1, 1, last).grouped(group::last).split(Split::Same),
    fp("lastNot", Kind::Aggregate, 1, 2, last_not, &["X", "k"]).grouped(group::last_not).split(Split::Same),
    fp("max", Kind::Aggregate, 1, 2, max, &["X", "Y"]).grouped(group::max).split(Split::Same).over(over::max),
    f("mean", Kind::Aggregate, 1, 1, avg).grouped(group::avg).split(Split::Avg),
    fp("min", Kind::Aggregate, 1, 2, min, &["X", "Y"]).grouped(group::min).split(Split::Same).over(over::min),
    fp("nunique", Kind::Aggregate, 1, 2, nunique, &["X", "ignoreNull"]),
    f("prod", Kind::Aggregate, 1, 1, prod).grouped(group::prod),
    f("sum", Kind::Aggregate, 1, 1, sum).grouped(group::sum).split(Split::Same).over(over::sum),
    f("sum2", Kind::Aggregate, 1, 1, sum2).grouped(group::sum2).over(over::sum2),
    f("sum3", Kind::Aggregate, 1, 1, sum3).grouped(group::sum3),
    f("sum4", Kind::Aggregate, 1, 1, sum4).grouped(group::sum4),
];

// The family's other files (stdlib/src/agg/); lib.rs keeps the old flat paths as aliases.
pub mod group;
pub mod order;
pub mod stats;
#[cfg(test)]
pub(crate) mod tests;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, order::DEFS, stats::DEFS].iter().for_each(|defs| r.extend(defs));
}
