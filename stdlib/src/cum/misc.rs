//! Cumulative functions that are not a plain window state: cumfirstNot/cumlastNot with a
//! "null" value k, cumnunique, cumdenseRank, cumPositiveStreak, dynamicGroupCumsum/Cumcount.

use crate::window::{check_num, opt_bool, opt_str, roll_vec, sum_type, Bounds, Gate, Prep, Slice};
use crate::window_kernels::{cum_prep, long_or_int};
use crate::window_order::{dense_ranks, Fenwick};
use crate::window_stats::{NonNull, ValOrIdx, NN};
use crate::with_slice;
use ahash::AHashSet;
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Error, Result, Value};

type R<'a> = Result<Prep<'a>>;

/// cumfirstNot(X, k) / cumlastNot(X, k): elements equal to k count as null.
pub fn p_nonnull_except<'a>(name: &'static str, a: &'a [Value], k: Value, mode: NN) -> R<'a> {
    Ok(cum_prep(
        name,
        vec![a[0].clone()],
        Box::new(move |s: &[Slice], b: &Bounds, g: Gate| {
            let x = &s[0];
            let n = x.len;
            let ty = x.ty();
            if let Some(kv) = k.as_f64() {
                let c = with_slice!(x, v => {
                    let m: Vec<_> = v.iter().map(|&e| if !e.is_null() && e.to_f64() == kv { Native::NULL } else { e }).collect();
                    Column::from_vec(ty, roll_vec(&mut NonNull::new(&m, mode), n, b, g, |r| match r {
                        ValOrIdx::Val(a) => a,
                        ValOrIdx::Idx(_) => Native::NULL,
                    }))
                });
                if let Some(c) = c {
                    return Ok(vec![c]);
                }
            }
            // STRING/SYMBOL (or a non-numeric k): compare the text
            let ks = k.as_str().map(str::to_string).unwrap_or_default();
            let keep: Vec<i8> = (0..n)
                .map(|i| {
                    let eq = x.col.str_at(x.off + i) == Some(ks.as_str());
                    if x.is_null(i) || eq { i8::NULL } else { 1 }
                })
                .collect();
            let mut w = NonNull::new(&keep, if mode == NN::First { NN::IFirst } else { NN::ILast });
            let mut idx = vec![-1i64; n];
            crate::window::rolling(&mut w, n, b, g, |i, r| {
                if let Some(ValOrIdx::Idx(j)) = r {
                    if j >= 0 {
                        idx[i] = (x.off + j as usize) as i64;
                    }
                }
            });
            Ok(vec![x.col.take(&idx)])
        }),
    ))
}

/// cumnunique(X, [ignoreNull=false]): number of distinct values so far (INT).
pub fn p_cumnunique(a: &[Value], ignore_null: bool) -> R<'_> {
    Ok(cum_prep(
        "cumnunique",
        vec![a[0].clone()],
        Box::new(move |s: &[Slice], _: &Bounds, _: Gate| {
            let x = &s[0];
            let n = x.len;
            let mut out = Vec::with_capacity(n);
            let mut seen_null = false;
            match &*x.col.data {
                ColData::Str(_) | ColData::Sym(_) => {
                    let mut set: AHashSet<&str> = AHashSet::new();
                    for i in 0..n {
                        let t = x.col.str_at(x.off + i).unwrap_or("");
                        if t.is_empty() {
                            seen_null = true;
                        } else {
                            set.insert(t);
                        }
                        out.push((set.len() + (seen_null && !ignore_null) as usize) as i32);
                    }
                }
                _ => {
                    let mut set: AHashSet<u64> = AHashSet::new();
                    let bits = with_slice!(x, v => v.iter().map(|e| if e.is_null() { None } else if x.ty().is_floating() {
                        Some((e.to_f64() + 0.0).to_bits())
                    } else {
                        Some(e.to_i64() as u64)
                    }).collect::<Vec<Option<u64>>>())
                    .ok_or_else(|| Error::unsupported("cumnunique", x.ty()))?;
                    for bv in bits {
                        match bv {
                            None => seen_null = true,
                            Some(k) => {
                                set.insert(k);
                            }
                        }
                        out.push((set.len() + (seen_null && !ignore_null) as usize) as i32);
                    }
                }
            }
            Ok(vec![Column::from_vec(DataType::Int, out)])
        }),
    ))
}

/// cumdenseRank(X, [ascending=true], [ignoreNA=true], [percent=false], [norm='max']).
pub fn p_cumdense_rank(a: &[Value]) -> R<'_> {
    let name = "cumdenseRank";
    let asc = opt_bool(name, a, 1, "ascending", true)?;
    let ignore_na = opt_bool(name, a, 2, "ignoreNA", true)?;
    let percent = opt_bool(name, a, 3, "percent", false)?;
    let minmax = match opt_str(name, a, 4, "norm", "max")? {
        "max" => false,
        "minmax" => true,
        _ => return Err(Error::arg("The norm argument of [cumdenseRank] must be 'max' or 'minmax'")),
    };
    Ok(cum_prep(
        name,
        vec![a[0].clone()],
        Box::new(move |s: &[Slice], _: &Bounds, _: Gate| {
            let x = &s[0];
            check_num(name, x, true)?;
            let n = x.len;
            let (rk, nvals) = with_slice!(x, v => { let (rk, vals) = dense_ranks(v); (rk, vals.len()) })
                .ok_or_else(|| Error::unsupported(name, x.ty()))?;
            let mut cnt = vec![0u32; nvals];
            let mut bit = Fenwick::new(nvals);
            let (mut distinct, mut null_seen) = (0usize, false);
            let mut ranks = vec![f64::NAN; n];
            let mut totals = vec![0usize; n];
            for i in 0..n {
                let r = rk[i];
                if r == u32::MAX {
                    null_seen = true;
                } else {
                    if cnt[r as usize] == 0 {
                        bit.add(r as usize, 1);
                        distinct += 1;
                    }
                    cnt[r as usize] += 1;
                }
                let nulls = (null_seen && !ignore_na) as usize;
                totals[i] = distinct + nulls;
                ranks[i] = if r == u32::MAX {
                    if ignore_na {
                        continue;
                    }
                    if asc { 0.0 } else { distinct as f64 }
                } else if asc {
                    (bit.prefix(r as usize) as usize + nulls) as f64
                } else {
                    (distinct - bit.prefix(r as usize + 1) as usize) as f64
                };
            }
            Ok(vec![if percent {
                let out: Vec<f64> = ranks
                    .iter()
                    .zip(&totals)
                    .map(|(&r, &t)| {
                        if r.is_nan() {
                            f64::NULL
                        } else if minmax {
                            if t <= 1 { 1.0 } else { r / (t - 1) as f64 }
                        } else {
                            (r + 1.0) / t as f64
                        }
                    })
                    .collect();
                Column::from_vec(DataType::Double, out)
            } else {
                Column::from_vec(DataType::Int, ranks.iter().map(|&r| if r.is_nan() { i32::NULL } else { r as i32 }).collect::<Vec<i32>>())
            }])
        }),
    ))
}

/// cumPositiveStreak(X): running sum of consecutive positive values (0 at non-positive or null).
pub fn p_cum_positive_streak(a: &[Value]) -> R<'_> {
    Ok(cum_prep(
        "cumPositiveStreak",
        vec![a[0].clone()],
        Box::new(move |s: &[Slice], _: &Bounds, _: Gate| {
            let x = &s[0];
            check_num("cumPositiveStreak", x, false)?;
            let v = x.f64s();
            let mut acc = 0.0;
            let r: Vec<f64> = v
                .iter()
                .map(|&e| {
                    acc = if !e.is_nan() && e > 0.0 { acc + e } else { 0.0 };
                    acc
                })
                .collect();
            let ty = sum_type(x.ty());
            Ok(vec![if ty == DataType::Double {
                Column::from_vec(DataType::Double, r)
            } else {
                long_or_int(ty, r.iter().map(|&f| f as i64).collect())
            }])
        }),
    ))
}

fn group_count(name: &str, v: Option<&Value>) -> Result<usize> {
    v.and_then(|v| v.as_i64())
        .filter(|g| (2..=8).contains(g))
        .map(|g| g as usize)
        .ok_or_else(|| Error::arg(format!("The groupCount argument of [{name}] must be an integer in [2, 8]")))
}

fn membership(name: &str, s: &Slice, k: usize) -> Result<Vec<Option<usize>>> {
    let v = s.i64s();
    v.iter()
        .map(|&m| {
            if m.is_null() {
                Ok(None)
            } else if m < 0 || m as usize >= k {
                Err(Error::arg(format!("The membership of [{name}] must be in [0, groupCount)")))
            } else {
                Ok(Some(m as usize))
            }
        })
        .collect()
}

/// dynamicGroupCumsum(cumValue, prevCumValue, membership, prevMembership, groupCount).
pub fn p_dynamic_group_cumsum(a: &[Value]) -> R<'_> {
    let name = "dynamicGroupCumsum";
    let k = group_count(name, a.get(4))?;
    Ok(Prep::new(
        name,
        a[..4].to_vec(),
        Box::new(move |s: &[Slice]| {
            check_num(name, &s[0], false)?;
            let (cur, prev) = (s[0].f64s(), s[1].f64s());
            let (m, pm) = (membership(name, &s[2], k)?, membership(name, &s[3], k)?);
            let n = s[0].len;
            let mut g = vec![0.0f64; k];
            let mut outs = vec![Vec::with_capacity(n); k];
            for i in 0..n {
                if let Some(mi) = m[i] {
                    let c = if cur[i].is_nan() { 0.0 } else { cur[i] };
                    match pm[i] {
                        None => g[mi] += c,
                        Some(p) if p != mi => {
                            g[mi] += c;
                            g[p] -= if prev[i].is_nan() { 0.0 } else { prev[i] };
                        }
                        _ => {}
                    }
                }
                for (j, o) in outs.iter_mut().enumerate() {
                    o.push(g[j]);
                }
            }
            let ty = sum_type(s[0].ty());
            Ok(outs
                .into_iter()
                .map(|o| if ty == DataType::Double { Column::from_vec(ty, o) } else { long_or_int(ty, o.iter().map(|&f| f as i64).collect()) })
                .collect())
        }),
    ))
}

/// dynamicGroupCumcount(membership, prevMembership, groupCount).
pub fn p_dynamic_group_cumcount(a: &[Value]) -> R<'_> {
    let name = "dynamicGroupCumcount";
    let k = group_count(name, a.get(2))?;
    Ok(Prep::new(
        name,
        a[..2].to_vec(),
        Box::new(move |s: &[Slice]| {
            let (m, pm) = (membership(name, &s[0], k)?, membership(name, &s[1], k)?);
            let n = s[0].len;
            let mut g = vec![0i32; k];
            let mut outs = vec![Vec::with_capacity(n); k];
            for i in 0..n {
                if let Some(mi) = m[i] {
                    match pm[i] {
                        None => g[mi] += 1,
                        Some(p) if p != mi => {
                            g[mi] += 1;
                            g[p] -= 1;
                        }
                        _ => {}
                    }
                }
                for (j, o) in outs.iter_mut().enumerate() {
                    o.push(g[j]);
                }
            }
            Ok(outs.into_iter().map(|o| Column::from_vec(DataType::Int, o)).collect())
        }),
    ))
}
