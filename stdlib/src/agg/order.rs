//! Order statistics: med/median, percentile, quantile, quantileSeries, percentileRank,
//! qcut, mode. Selection uses `select_nth_unstable` (O(n)); nulls are skipped.

use beluga_runtime::CallCtx;
use crate::agg::agg_any;
use crate::math_util::{need_num, valid_f64};
use crate::util::{aggregate, opt, str_arg};
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Key;
use beluga_runtime::{DataType, Error, Result, Value};

/// Interpolation between neighbouring order statistics.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Interp {
    Linear,
    Lower,
    Higher,
    Nearest,
    Midpoint,
}

impl Interp {
    pub fn parse(name: &str, s: &str) -> Result<Interp> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "linear" => Interp::Linear,
            "lower" => Interp::Lower,
            "higher" => Interp::Higher,
            "nearest" => Interp::Nearest,
            "midpoint" => Interp::Midpoint,
            _ => {
                return Err(Error::arg(format!(
                    "The interpolation of [{name}] must be one of 'linear', 'lower', 'higher', 'nearest' and 'midpoint'"
                )))
            }
        })
    }
}

/// k-th smallest (0-based) of a NaN-free slice, reordering it.
fn kth(v: &mut [f64], k: usize) -> f64 {
    let (_, x, _) = v.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
    *x
}

/// Quantile q ∈ [0, 1] of NaN-free values with the given interpolation (reorders `v`).
pub fn quantile_of(v: &mut [f64], q: f64, how: Interp) -> f64 {
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    let rank = q * (n - 1) as f64;
    let lo = rank.floor().max(0.0) as usize;
    let lo = lo.min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let frac = rank - lo as f64;
    let a = kth(v, lo);
    // after selection, the (lo+1)-th smallest is the minimum of the upper part
    let b = if hi == lo { a } else { v[lo + 1..].iter().copied().fold(f64::INFINITY, f64::min) };
    match how {
        Interp::Linear => a + frac * (b - a),
        Interp::Lower => a,
        Interp::Higher => if frac > 0.0 { b } else { a },
        Interp::Midpoint => if frac > 0.0 { (a + b) / 2.0 } else { a },
        Interp::Nearest => {
            // round half to even on the index, as numpy does
            if frac > 0.5 || (frac == 0.5 && lo % 2 == 1) { b } else { a }
        }
    }
}

/// Median of NaN-free values (reorders `v`).
pub fn median_of(v: &mut [f64]) -> f64 {
    quantile_of(v, 0.5, Interp::Linear)
}

/// `med` of a column: DOUBLE.
pub fn med_col(c: &Column) -> Result<Value> {
    need_num("med", c)?;
    let mut v = valid_f64(c);
    Ok(Value::double(if v.is_empty() { f64::NAN } else { median_of(&mut v) }))
}

fn med(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("med", &a[0], &med_col)
}

fn interp_arg(name: &str, a: &[Value], i: usize) -> Result<Interp> {
    match opt(a, i) {
        Some(v) => Interp::parse(name, str_arg(name, v, "interpolation")?),
        None => Ok(Interp::Linear),
    }
}

/// `percentile(X, percent, [interpolation='linear'])`.
fn percentile(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let p = crate::math_util::f64_arg("percentile", &a[1], "percent")?;
    if !(0.0..=100.0).contains(&p) {
        return Err(Error::arg("The percent of [percentile] must be between 0 and 100"));
    }
    let how = interp_arg("percentile", &a, 2)?;
    agg_any("percentile", &a[0], &|c| {
        need_num("percentile", c)?;
        let mut v = valid_f64(c);
        Ok(Value::double(quantile_of(&mut v, p / 100.0, how)))
    })
}

/// `quantile(X, q, [interpolation='linear'])`.
fn quantile(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let q = crate::math_util::f64_arg("quantile", &a[1], "q")?;
    if !(0.0..=1.0).contains(&q) {
        return Err(Error::arg("The q of [quantile] must be between 0 and 1"));
    }
    let how = interp_arg("quantile", &a, 2)?;
    agg_any("quantile", &a[0], &|c| {
        need_num("quantile", c)?;
        let mut v = valid_f64(c);
        Ok(Value::double(quantile_of(&mut v, q, how)))
    })
}

/// `quantileSeries(X, q, [interpolation='linear'])`: several quantiles at once (sorted once).
fn quantile_series(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let qs = crate::math_util::vec_arg("quantileSeries", &a[1])?;
    if qs.iter().any(|q| q.is_nan() || !(0.0..=1.0).contains(q)) {
        return Err(Error::arg("The q of [quantileSeries] must be between 0 and 1"));
    }
    let how = interp_arg("quantileSeries", &a, 2)?;
    let scalar_q = a[1].is_scalar();
    crate::util::aggregate("quantileSeries", &a[0], &|c| {
        need_num("quantileSeries", c)?;
        let mut v = valid_f64(c);
        v.sort_by(|x, y| x.total_cmp(y));
        let r: Vec<f64> = qs.iter().map(|&q| quantile_of(&mut v.clone(), q, how)).collect();
        if scalar_q {
            return Ok(Value::double(r[0]));
        }
        Ok(crate::math_util::dvec(r))
    })
}

/// `percentileRank(X, score, [method='excel'])`: percentile (0-100) of score within X.
fn percentile_rank(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let score = crate::math_util::f64_arg("percentileRank", &a[1], "score")?;
    let method = match opt(&a, 2) {
        Some(v) => str_arg("percentileRank", v, "method")?.to_ascii_lowercase(),
        None => "excel".to_string(),
    };
    if !["excel", "rank", "strict", "script", "weak", "mean"].contains(&method.as_str()) {
        return Err(Error::arg("The method of [percentileRank] must be 'excel', 'rank', 'strict', 'weak' or 'mean'"));
    }
    aggregate("percentileRank", &a[0], &|c| {
        need_num("percentileRank", c)?;
        let mut v = valid_f64(c);
        let n = v.len();
        if n == 0 {
            return Ok(Value::null_of(DataType::Double));
        }
        v.sort_by(|x, y| x.total_cmp(y));
        let less = v.partition_point(|&x| x < score);
        let le = v.partition_point(|&x| x <= score);
        let nf = n as f64;
        let r = match method.as_str() {
            "strict" | "script" => less as f64 / nf * 100.0,
            "weak" => le as f64 / nf * 100.0,
            "mean" => (less + le) as f64 / 2.0 / nf * 100.0,
            "rank" => {
                let m = le - less;
                if m == 0 { le as f64 / nf * 100.0 } else { (less as f64 + (m as f64 + 1.0) / 2.0) / nf * 100.0 }
            }
            _ => {
                // excel: share of smaller elements among the elements different from the value
                let pct = |s: f64| -> f64 {
                    let l = v.partition_point(|&x| x < s);
                    let e = v.partition_point(|&x| x <= s) - l;
                    if n == e { 0.0 } else { l as f64 / (n - e) as f64 * 100.0 }
                };
                if le > less {
                    pct(score)
                } else if less == 0 {
                    0.0
                } else if less == n {
                    100.0
                } else {
                    let (x0, x1) = (v[less - 1], v[less]);
                    let (p0, p1) = (pct(x0), pct(x1));
                    p0 + (score - x0) * (p1 - p0) / (x1 - x0)
                }
            }
        };
        Ok(Value::double(r))
    })
}

/// `qcut(X, q, [labels], [dropDuplicates=false])`: quantile bin of each element.
fn qcut(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let x = crate::math_util::vec_arg("qcut", &a[0])?;
    let probs: Vec<f64> = if a[1].is_scalar() {
        let k = crate::util::int_arg("qcut", &a[1], "q")?;
        if k < 1 || k > 100_000_000 {
            return Err(Error::arg("The q of [qcut] must be a positive integer"));
        }
        (0..=k).map(|i| i as f64 / k as f64).collect()
    } else {
        let p = crate::math_util::vec_arg("qcut", &a[1])?;
        if p.len() < 2 || p.iter().any(|q| q.is_nan() || !(0.0..=1.0).contains(q)) {
            return Err(Error::arg("The q of [qcut] must have at least two values between 0 and 1"));
        }
        p
    };
    let drop = crate::math_util::bool_opt(&a, 3, false);
    let mut valid: Vec<f64> = x.iter().copied().filter(|v| !v.is_nan()).collect();
    valid.sort_by(|p, q| p.total_cmp(q));
    let mut edges: Vec<f64> = probs.iter().map(|&q| quantile_of(&mut valid.clone(), q, Interp::Linear)).collect();
    let dup = edges.windows(2).any(|w| w[0] == w[1]);
    if dup {
        if !drop {
            return Err(Error::arg("The bin edges of [qcut] are not unique; set dropDuplicates=true"));
        }
        edges.dedup();
    }
    let nb = edges.len().saturating_sub(1);
    // bin i covers (edges[i], edges[i+1]], the first bin also includes its lower edge
    let bins: Vec<i32> = x
        .iter()
        .map(|&v| {
            if v.is_nan() || nb == 0 || v < edges[0] || v > edges[nb] {
                return i32::NULL;
            }
            let k = edges.partition_point(|&e| e < v);
            (k.max(1) - 1).min(nb - 1) as i32
        })
        .collect();
    match opt(&a, 2) {
        None => Ok(Value::Vector(Column::from_vec(DataType::Int, bins))),
        Some(l) => {
            let labels = crate::util::col("qcut", l)?;
            if labels.len() != nb {
                return Err(Error::arg("The number of labels of [qcut] must equal the number of bins"));
            }
            let idx: Vec<i64> = bins.iter().map(|&b| if b.is_null() { -1 } else { b as i64 }).collect();
            Ok(Value::Vector(labels.take(&idx)))
        }
    }
}

/// `mode`: the most frequent non-null value (the earliest one on ties).
pub fn mode_col(c: &Column) -> Result<Value> {
    let n = c.len();
    let mut best: Option<(usize, usize)> = None; // (count, first index)
    let mut bump = |cnt: usize, first: usize| {
        best = match best {
            Some((bc, bi)) if bc > cnt || (bc == cnt && bi <= first) => Some((bc, bi)),
            _ => Some((cnt, first)),
        }
    };
    match &*c.data {
        ColData::I8(_) | ColData::I16(_) | ColData::I32(_) | ColData::I64(_) => {
            let v = beluga_runtime::kernels::arith::as_native::<i64>(c);
            let mut m: ahash::AHashMap<i64, (usize, usize)> = ahash::AHashMap::new();
            for (i, &x) in v.iter().enumerate() {
                if x.is_null() {
                    continue;
                }
                let e = m.entry(x).or_insert((0, i));
                e.0 += 1;
            }
            for (_, (cnt, first)) in m {
                bump(cnt, first);
            }
        }
        _ => {
            let mut m: ahash::AHashMap<Key, (usize, usize)> = ahash::AHashMap::new();
            for i in 0..n {
                if c.is_null(i) {
                    continue;
                }
                let e = m.entry(Key::of(c, i)).or_insert((0, i));
                e.0 += 1;
            }
            for (_, (cnt, first)) in m {
                bump(cnt, first);
            }
        }
    }
    Ok(match best {
        Some((_, i)) => Value::Scalar(c.slice(i, i + 1)),
        None => Value::Scalar(Column::nulls(c.ty, 1)),
    })
}

fn mode(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    agg_any("mode", &a[0], &mode_col)
}

pub const DEFS: &[Builtin] = &[
    fp("med", Kind::Aggregate, 1, 1, med, &["X"]),
    fp("median", Kind::Aggregate, 1, 1, med, &["X"]),
    fp("mode", Kind::Aggregate, 1, 1, mode, &["X"]),
    fp("percentile", Kind::Aggregate, 2, 3, percentile, &["X", "percent", "interpolation"]),
    fp("percentileRank", Kind::Aggregate, 2, 3, percentile_rank, &["X", "score", "method"]),
    fp("qcut", Kind::VectorToVector, 2, 4, qcut, &["X", "q", "labels", "dropDuplicates"]),
    fp("quantile", Kind::Aggregate, 2, 3, quantile, &["X", "q", "interpolation"]),
    fp("quantileSeries", Kind::Aggregate, 2, 3, quantile_series, &["X", "q", "interpolation"]),
];
