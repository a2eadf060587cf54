//! Partial states of the decomposable aggregates of `mapreduce.rs`: what one partition
//! computes per group (sum and count for avg, count/mean/M2 for std and var, sums for wavg,
//! the grouped kernel itself for sum/min/max/first/last) and how partials are merged and
//! finalised (Chan et al.'s pairwise update for the variance).

use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::registry::{Builtin, GroupedKernel, Split};
use crate::null::Native;
use crate::types::DataType;
use ahash::AHashMap;
use std::sync::Arc;

/// A builtin's grouped kernel with the name it is called under.
#[derive(Clone, Copy)]
pub(super) struct Kernel {
    name: &'static str,
    f: GroupedKernel,
}

impl PartialEq for Kernel {
    fn eq(&self, o: &Kernel) -> bool {
        self.name == o.name
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "Kernel({})", self.name)
    }
}

/// How one aggregate is split into a partial state and merged.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Agg {
    /// `count(*)`: group sizes.
    Star,
    /// `count(x)`: non-null counts.
    Count(Kernel),
    /// sum/min/max/first/last/firstNot/lastNot: the same grouped kernel on the partials.
    Same(Kernel),
    /// avg/mean: sum and count.
    Avg,
    /// std/stdp/var/varp: count, mean and sum of squared deviations (Chan et al.).
    Var { pop: bool, root: bool },
    /// wavg/wsum: sum(x*w), sum(w) and count of rows where both are non-null.
    Weighted { avg: bool },
}

/// The split of the builtin aggregate `name` and its argument count, from the row's
/// capability slots (None: no split, the query takes the ordinary path).
pub(super) fn agg_of(i: &Interpreter, name: &str) -> Option<(Agg, usize)> {
    agg_of_row(i.registry.get(i.registry.lookup(name)?))
}

/// The split of a builtin row and its argument count.
fn agg_of_row(b: &Builtin) -> Option<(Agg, usize)> {
    let kernel = || b.caps.grouped.map(|f| Kernel { name: b.name, f });
    Some(match b.caps.split? {
        Split::Count => (Agg::Count(kernel()?), 1),
        Split::Same => (Agg::Same(kernel()?), 1),
        Split::Avg => (Agg::Avg, 1),
        Split::Var { pop, root } => (Agg::Var { pop, root }, 1),
        Split::Weighted { avg } => (Agg::Weighted { avg }, 2),
    })
}
/// Evaluate aggregate row `b` the way map-reduce does, through its split: the rows are cut
/// into parts at `cuts`, each part computes partial states for the groups it holds, and
/// the partials are merged into one value per group (`gid[i]` < `n`). None when the row
/// has no split. For tests: a row's split must agree with its plain call.
pub fn split_eval(b: &Builtin, args: &[Column], gid: &[u32], n: usize, cuts: &[usize]) -> Option<Result<Column>> {
    let (agg, arity) = agg_of_row(b)?;
    if args.len() != arity || args.iter().any(|c| c.len() != gid.len()) || gid.iter().any(|&g| g as usize >= n) {
        return Some(Err(Error::arg(format!("split_eval: [{}] takes {arity} column(s) as long as the group ids", b.name))));
    }
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < gid.len()));
    bounds.push(gid.len());
    let (mut partials, mut global) = (Vec::new(), Vec::new());
    for w in bounds.windows(2).filter(|w| w[0] < w[1]) {
        // the part's groups, numbered in order of appearance as a partition numbers them
        let (mut local, mut lg, mut count) = (vec![u32::MAX; n], Vec::with_capacity(w[1] - w[0]), 0u32);
        for &g in &gid[w[0]..w[1]] {
            if local[g as usize] == u32::MAX {
                local[g as usize] = count;
                global.push(g);
                count += 1;
            }
            lg.push(local[g as usize]);
        }
        let part: Vec<Column> = args.iter().map(|c| c.slice(w[0], w[1])).collect();
        match partial(agg, &part, &lg, count as usize) {
            Ok(p) => partials.push(p),
            Err(e) => return Some(Err(e)),
        }
    }
    let refs: Vec<&Partial> = partials.iter().collect();
    Some(merge(agg, &refs, &global, n))
}

/// A partition's partial state of one aggregate (one entry per local group).
pub(super) enum Partial {
    Col(Column),
    Count(Vec<i64>),
    Avg(Vec<f64>, Vec<i64>),
    Var(Vec<f64>, Vec<f64>, Vec<f64>),
    Weighted(Vec<f64>, Vec<f64>, Vec<i64>),
}

impl Partial {
    /// Keep the states of the first `n` groups.
    pub(super) fn truncate(&mut self, n: usize) {
        match self {
            Partial::Col(c) => {
                if c.len() > n {
                    *c = c.slice(0, n);
                }
            }
            Partial::Count(c) => c.truncate(n),
            Partial::Avg(s, c) => {
                s.truncate(n);
                c.truncate(n);
            }
            Partial::Var(c, m, q) => {
                c.truncate(n);
                m.truncate(n);
                q.truncate(n);
            }
            Partial::Weighted(a, b, c) => {
                a.truncate(n);
                b.truncate(n);
                c.truncate(n);
            }
        }
    }
}

pub(super) fn kernel(k: Kernel, c: &Column, gid: &[u32], n: usize) -> Result<Column> {
    (k.f)(c, gid, n).unwrap_or_else(|| Err(Error::runtime(format!("no grouped kernel for {}", k.name))))
}

/// Numbers as f64 (NaN for null); only plain numeric types (others take the ordinary path).
fn f64s(c: &Column) -> Result<Vec<f64>> {
    let ok = matches!(c.ty, DataType::Bool | DataType::Char | DataType::Short | DataType::Int | DataType::Long | DataType::Float | DataType::Double);
    if !ok {
        return Err(Error::unsupported("map-reduce aggregate", c.ty));
    }
    c.to_f64_vec().ok_or_else(|| Error::unsupported("map-reduce aggregate", c.ty))
}

/// `s[g] += x[i]` and `c[g] += 1` for the kept values of rows with group `g = gid[i]`.
/// Rows of one group often come in runs (a partition sorted by time grouped by hour, or by
/// its partitioning key): a run is summed in a register and added to its group once,
/// instead of a store-to-load chain through the same slot row after row.
fn scatter_sum<T: crate::null::Native>(x: &[T], gid: &[u32], s: &mut [f64], c: &mut [i64], keep: impl Fn(T) -> bool) {
    let n = x.len().min(gid.len());
    // Rows of one group in runs (grouped by a sorted or partitioning key): sum each run in a
    // register. Interleaved groups (runs of ~1 row): add row by row, no run bookkeeping.
    let probe = &gid[..n.min(4096)];
    let changes = probe.windows(2).filter(|w| w[0] != w[1]).count();
    if changes * 4 > probe.len() {
        for (&v, &g) in x[..n].iter().zip(&gid[..n]) {
            let k = keep(v);
            s[g as usize] += if k { v.to_f64() } else { 0.0 };
            c[g as usize] += k as i64;
        }
        return;
    }
    let mut i = 0;
    while i < n {
        let g = gid[i];
        let (mut acc, mut cnt) = (0f64, 0i64);
        while i < n && gid[i] == g {
            let v = x[i];
            if keep(v) {
                acc += v.to_f64();
                cnt += 1;
            }
            i += 1;
        }
        s[g as usize] += acc;
        c[g as usize] += cnt;
    }
}

/// The partial state of one aggregate over one partition's groups.
pub(super) fn partial(agg: Agg, args: &[Column], gid: &[u32], n: usize) -> Result<Partial> {
    Ok(match agg {
        Agg::Star => {
            let mut c = vec![0i64; n];
            gid.iter().for_each(|&g| c[g as usize] += 1);
            Partial::Count(c)
        }
        Agg::Count(k) => {
            let c = kernel(k, &args[0], gid, n)?;
            Partial::Count(crate::kernels::arith::as_native::<i64>(&c).into_owned())
        }
        Agg::Same(k) => Partial::Col(kernel(k, &args[0], gid, n)?),
        Agg::Avg => {
            let (mut s, mut c) = (vec![0f64; n], vec![0i64; n]);
            match &*args[0].data {
                // DOUBLE read in place (no f64 copy of the column); NULL and NaN are skipped
                crate::column::ColData::F64(x) if args[0].ty == DataType::Double => {
                    scatter_sum(x, gid, &mut s, &mut c, |v| !v.is_nan() && !v.is_null())
                }
                // integers read in place too (an f64 copy of a 30M-row INT column is 240 MB
                // of fresh pages); their sums stay exact in f64 up to 2^53
                crate::column::ColData::I32(x) if args[0].ty == DataType::Int => scatter_sum(x, gid, &mut s, &mut c, |v| !v.is_null()),
                crate::column::ColData::I64(x) if args[0].ty == DataType::Long => scatter_sum(x, gid, &mut s, &mut c, |v| !v.is_null()),
                crate::column::ColData::I16(x) if args[0].ty == DataType::Short => scatter_sum(x, gid, &mut s, &mut c, |v| !v.is_null()),
                _ => scatter_sum(&f64s(&args[0])?, gid, &mut s, &mut c, |v| !v.is_nan()),
            }
            Partial::Avg(s, c)
        }
        Agg::Var { .. } => {
            let x = f64s(&args[0])?;
            let (mut c, mut s) = (vec![0f64; n], vec![0f64; n]);
            for (&v, &g) in x.iter().zip(gid) {
                if !v.is_nan() {
                    s[g as usize] += v;
                    c[g as usize] += 1.0;
                }
            }
            let mean: Vec<f64> = s.iter().zip(&c).map(|(s, &c)| if c > 0.0 { s / c } else { 0.0 }).collect();
            let mut m2 = vec![0f64; n];
            for (&v, &g) in x.iter().zip(gid) {
                if !v.is_nan() {
                    let d = v - mean[g as usize];
                    m2[g as usize] += d * d;
                }
            }
            Partial::Var(c, mean, m2)
        }
        Agg::Weighted { .. } => {
            let (x, wt) = (f64s(&args[0])?, f64s(&args[1])?);
            let (mut sxw, mut sw, mut c) = (vec![0f64; n], vec![0f64; n], vec![0i64; n]);
            for ((&a, &b), &g) in x.iter().zip(&wt).zip(gid) {
                if !a.is_nan() && !b.is_nan() {
                    let g = g as usize;
                    sxw[g] += a * b;
                    sw[g] += b;
                    c[g] += 1;
                }
            }
            Partial::Weighted(sxw, sw, c)
        }
    })
}
/// Whether no value of a key column occurs in the partial groups of two partitions (then
/// every partial group is a whole group: e.g. grouping by a partitioning column). Only
/// symbol and integer keys are checked.
pub(super) fn disjoint_parts(parts: &[&Column]) -> bool {
    use crate::column::ColData;
    let first_dict = match parts.first().map(|c| &*c.data) {
        Some(ColData::Sym(s)) => Some(s.dict.clone()),
        _ => None,
    };
    if let Some(dict) = first_dict {
        let mut owner = vec![u32::MAX; dict.names.len().max(1)];
        for (p, c) in parts.iter().enumerate() {
            let ColData::Sym(s) = &*c.data else {
                return false;
            };
            if !Arc::ptr_eq(&s.dict, &dict) {
                return false;
            }
            for &code in &s.codes {
                let Some(o) = owner.get_mut(code as usize) else {
                    return false;
                };
                if *o != u32::MAX && *o != p as u32 {
                    return false;
                }
                *o = p as u32;
            }
        }
        return true;
    }
    let mut owner: AHashMap<i64, usize> = AHashMap::new();
    for (p, c) in parts.iter().enumerate() {
        let vals: Vec<i64> = match &*c.data {
            ColData::I32(v) => v.iter().map(|&x| x as i64).collect(),
            ColData::I64(v) => v.clone(),
            _ => return false,
        };
        for x in vals {
            if *owner.entry(x).or_insert(p) != p {
                return false;
            }
        }
    }
    true
}

pub(super) fn merge(agg: Agg, parts: &[&Partial], gid: &[u32], n: usize) -> Result<Column> {
    let bad = || Error::runtime("mismatched partial aggregates");
    match agg {
        Agg::Star | Agg::Count(_) => {
            let mut c = vec![0i64; n];
            let mut r = 0;
            for p in parts {
                let Partial::Count(v) = p else {
                    return Err(bad());
                };
                for &x in v {
                    c[gid[r] as usize] += x;
                    r += 1;
                }
            }
            Ok(Column::from_vec(DataType::Int, c.into_iter().map(|x| x as i32).collect::<Vec<i32>>()))
        }
        Agg::Same(k) => {
            let mut cols = Vec::with_capacity(parts.len());
            for p in parts {
                let Partial::Col(c) = p else {
                    return Err(bad());
                };
                cols.push(c);
            }
            let ty = cols[0].ty;
            if cols.iter().any(|c| c.ty != ty) {
                return Err(bad());
            }
            let all = Column::concat(ty, &cols);
            kernel(k, &all, gid, n)
        }
        Agg::Avg => {
            let (mut s, mut c) = (vec![0f64; n], vec![0i64; n]);
            let mut r = 0;
            for p in parts {
                let Partial::Avg(ps, pc) = p else {
                    return Err(bad());
                };
                for (x, y) in ps.iter().zip(pc) {
                    let g = gid[r] as usize;
                    s[g] += x;
                    c[g] += y;
                    r += 1;
                }
            }
            Ok(dcol(s.iter().zip(&c).map(|(&s, &c)| if c == 0 { f64::NULL } else { s / c as f64 }).collect()))
        }
        Agg::Var { pop, root } => {
            let (mut c, mut mean, mut m2) = (vec![0f64; n], vec![0f64; n], vec![0f64; n]);
            let mut r = 0;
            for p in parts {
                let Partial::Var(pc, pm, pq) = p else {
                    return Err(bad());
                };
                for k in 0..pc.len() {
                    let g = gid[r] as usize;
                    r += 1;
                    let nb = pc[k];
                    if nb == 0.0 {
                        continue;
                    }
                    let na = c[g];
                    let tot = na + nb;
                    let delta = pm[k] - mean[g];
                    mean[g] += delta * nb / tot;
                    m2[g] += pq[k] + delta * delta * na * nb / tot;
                    c[g] = tot;
                }
            }
            Ok(dcol(
                (0..n)
                    .map(|g| {
                        let d = if pop { c[g] } else { c[g] - 1.0 };
                        if c[g] == 0.0 || d <= 0.0 {
                            f64::NULL
                        } else {
                            let v = (m2[g] / d).max(0.0);
                            if root {
                                v.sqrt()
                            } else {
                                v
                            }
                        }
                    })
                    .collect(),
            ))
        }
        Agg::Weighted { avg } => {
            let (mut sxw, mut sw, mut c) = (vec![0f64; n], vec![0f64; n], vec![0i64; n]);
            let mut r = 0;
            for p in parts {
                let Partial::Weighted(a, b, k) = p else {
                    return Err(bad());
                };
                for j in 0..a.len() {
                    let g = gid[r] as usize;
                    sxw[g] += a[j];
                    sw[g] += b[j];
                    c[g] += k[j];
                    r += 1;
                }
            }
            Ok(dcol(
                (0..n)
                    .map(|g| {
                        if c[g] == 0 || (avg && sw[g] == 0.0) {
                            f64::NULL
                        } else if avg {
                            sxw[g] / sw[g]
                        } else {
                            sxw[g]
                        }
                    })
                    .collect(),
            ))
        }
    }
}

fn dcol(v: Vec<f64>) -> Column {
    Column::from_vec(DataType::Double, v.into_iter().map(|x| if x.is_nan() { f64::NULL } else { x }).collect::<Vec<f64>>())
}
