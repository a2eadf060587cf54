//! The m-function builtins: argument checks (`p_*` prep functions, also used by
//! `window::segmented`) over the shared statistic kernels.

use beluga_runtime::CallCtx;
use crate::window::{call_prep, num_arg, opt_bool, opt_str, win_spec, Gate, Prep, WinSpec};
use crate::window_kernels::*;
use crate::window_misc;
use crate::window_order::{interp_arg, ties_arg, OrdOp, RankOpt};
use crate::window_stats::{Mom, PairStat, NN};
use beluga_runtime::{Error, Result, Value};

type R<'a> = Result<Prep<'a>>;

fn spec(name: &str, a: &[Value], w: usize, mp: usize) -> Result<WinSpec> {
    let window = a.get(w).filter(|v| !matches!(v, Value::Void)).ok_or_else(|| {
        Error::arg(format!("The window argument of [{name}] is required"))
    })?;
    win_spec(name, window, a.get(mp))
}

fn unary<'a>(name: &'static str, a: &'a [Value], f: StatFn<'a>) -> R<'a> {
    let s = spec(name, a, 1, 2)?;
    Ok(m_prep(name, vec![a[0].clone()], &s, f))
}

fn binary<'a>(name: &'static str, a: &'a [Value], kinds: &'static [PairStat]) -> R<'a> {
    let s = spec(name, a, 2, 3)?;
    Ok(m_prep(name, vec![a[0].clone(), a[1].clone()], &s, k_pair(name, kinds)))
}

pub fn p_msum(a: &[Value]) -> R<'_> {
    unary("msum", a, k_sum("msum"))
}
pub fn p_msum2(a: &[Value]) -> R<'_> {
    unary("msum2", a, k_moment("msum2", Mom::Sum2))
}
pub fn p_mavg(a: &[Value]) -> R<'_> {
    if let Some(Value::Vector(w)) = a.get(1) {
        return window_misc::p_mavg_weights(a, w);
    }
    unary("mavg", a, k_moment("mavg", Mom::Avg))
}
pub fn p_mvar(a: &[Value]) -> R<'_> {
    unary("mvar", a, k_moment("mvar", Mom::Var))
}
pub fn p_mvarp(a: &[Value]) -> R<'_> {
    unary("mvarp", a, k_moment("mvarp", Mom::VarP))
}
pub fn p_mstd(a: &[Value]) -> R<'_> {
    unary("mstd", a, k_moment("mstd", Mom::Std))
}
pub fn p_mstdp(a: &[Value]) -> R<'_> {
    unary("mstdp", a, k_moment("mstdp", Mom::StdP))
}
pub fn p_mskew(a: &[Value]) -> R<'_> {
    let biased = opt_bool("mskew", a, 2, "biased", true)?;
    let s = spec("mskew", a, 1, 3)?;
    Ok(m_prep("mskew", vec![a[0].clone()], &s, k_moment("mskew", Mom::Skew(biased))))
}
pub fn p_mkurtosis(a: &[Value]) -> R<'_> {
    let biased = opt_bool("mkurtosis", a, 2, "biased", true)?;
    let s = spec("mkurtosis", a, 1, 3)?;
    Ok(m_prep("mkurtosis", vec![a[0].clone()], &s, k_moment("mkurtosis", Mom::Kurt(biased))))
}
pub fn p_mprod(a: &[Value]) -> R<'_> {
    unary("mprod", a, k_prod("mprod"))
}
pub fn p_mcount(a: &[Value]) -> R<'_> {
    let s = spec("mcount", a, 1, 2)?;
    let gate = Gate::MinCount(s.min_periods.unwrap_or(1));
    Ok(m_prep_gate("mcount", vec![a[0].clone()], &s, gate, k_count("mcount")))
}
pub fn p_mmax(a: &[Value]) -> R<'_> {
    unary("mmax", a, k_extreme("mmax", true, false, false))
}
pub fn p_mmin(a: &[Value]) -> R<'_> {
    unary("mmin", a, k_extreme("mmin", false, false, false))
}
pub fn p_mimax(a: &[Value]) -> R<'_> {
    unary("mimax", a, k_extreme("mimax", true, true, false))
}
pub fn p_mimin(a: &[Value]) -> R<'_> {
    unary("mimin", a, k_extreme("mimin", false, true, false))
}
pub fn p_mimax_last(a: &[Value]) -> R<'_> {
    unary("mimaxLast", a, k_extreme("mimaxLast", true, true, true))
}
pub fn p_mimin_last(a: &[Value]) -> R<'_> {
    unary("miminLast", a, k_extreme("miminLast", false, true, true))
}
pub fn p_mfirst(a: &[Value]) -> R<'_> {
    unary("mfirst", a, k_ends("mfirst", false))
}
pub fn p_mlast(a: &[Value]) -> R<'_> {
    unary("mlast", a, k_ends("mlast", true))
}
pub fn p_mfirst_not(a: &[Value]) -> R<'_> {
    unary("mfirstNot", a, k_nonnull("mfirstNot", NN::First))
}
pub fn p_mlast_not(a: &[Value]) -> R<'_> {
    unary("mlastNot", a, k_nonnull("mlastNot", NN::Last))
}
pub fn p_mifirst_not(a: &[Value]) -> R<'_> {
    unary("mifirstNot", a, k_nonnull("mifirstNot", NN::IFirst))
}
pub fn p_milast_not(a: &[Value]) -> R<'_> {
    unary("milastNot", a, k_nonnull("milastNot", NN::ILast))
}
pub fn p_mmed(a: &[Value]) -> R<'_> {
    unary("mmed", a, k_order("mmed", OrdOp::Med))
}
pub fn p_mpercentile(a: &[Value]) -> R<'_> {
    let p = percent_arg("mpercentile", a, 1)?;
    let how = interp_arg("mpercentile", opt_str("mpercentile", a, 3, "interpolation", "linear")?)?;
    let s = spec("mpercentile", a, 2, 4)?;
    Ok(m_prep("mpercentile", vec![a[0].clone()], &s, k_order("mpercentile", OrdOp::Pct(p, how))))
}

/// A percent argument in [0, 100].
pub fn percent_arg(name: &str, a: &[Value], i: usize) -> Result<f64> {
    let p = num_arg(name, a, i, "percent")?;
    if !(0.0..=100.0).contains(&p) {
        return Err(Error::arg(format!("The percent argument of [{name}] must be between 0 and 100")));
    }
    Ok(p)
}

/// Rank options from (ascending, ignoreNA, tiesMethod, percent) argument positions.
pub fn rank_opt(name: &str, a: &[Value], asc: usize, ina: usize, ties: usize, pct: usize) -> Result<RankOpt> {
    Ok(RankOpt {
        asc: opt_bool(name, a, asc, "ascending", true)?,
        ignore_na: opt_bool(name, a, ina, "ignoreNA", true)?,
        ties: ties_arg(name, opt_str(name, a, ties, "tiesMethod", "min")?, false)?,
        percent: opt_bool(name, a, pct, "percent", false)?,
    })
}

pub fn p_mrank(a: &[Value]) -> R<'_> {
    // mrank(X, ascending, window, [ignoreNA=true], [tiesMethod='min'], [percent=false], [minPeriods])
    let o = rank_opt("mrank", a, 1, 3, 4, 5)?;
    let s = spec("mrank", a, 2, 6)?;
    Ok(m_prep("mrank", vec![a[0].clone()], &s, k_order("mrank", OrdOp::Rank(o))))
}
pub fn p_mmad(a: &[Value]) -> R<'_> {
    let median = opt_bool("mmad", a, 2, "useMedian", false)?;
    let s = spec("mmad", a, 1, 3)?;
    Ok(m_prep("mmad", vec![a[0].clone()], &s, k_order("mmad", OrdOp::Mad(median))))
}
pub fn p_mtop_range(a: &[Value]) -> R<'_> {
    unary("mTopRange", a, k_range("mTopRange", true))
}
pub fn p_mlow_range(a: &[Value]) -> R<'_> {
    unary("mLowRange", a, k_range("mLowRange", false))
}
pub fn p_mcorr(a: &[Value]) -> R<'_> {
    binary("mcorr", a, &[PairStat::Corr])
}
pub fn p_mcovar(a: &[Value]) -> R<'_> {
    binary("mcovar", a, &[PairStat::Covar])
}
pub fn p_mcovarp(a: &[Value]) -> R<'_> {
    binary("mcovarp", a, &[PairStat::CovarP])
}
pub fn p_mbeta(a: &[Value]) -> R<'_> {
    binary("mbeta", a, &[PairStat::Beta])
}
pub fn p_mwsum(a: &[Value]) -> R<'_> {
    binary("mwsum", a, &[PairStat::Wsum])
}
pub fn p_mwavg(a: &[Value]) -> R<'_> {
    binary("mwavg", a, &[PairStat::Wavg])
}
pub fn p_mslr(a: &[Value]) -> R<'_> {
    vector_only("mslr", a)?;
    binary("mslr", a, &[PairStat::Alpha, PairStat::Beta])
}
pub fn p_mmse(a: &[Value]) -> R<'_> {
    vector_only("mmse", a)?;
    binary("mmse", a, &[PairStat::Beta, PairStat::Mse])
}

fn vector_only(name: &str, a: &[Value]) -> Result<()> {
    for v in &a[..2] {
        if !matches!(v, Value::Vector(_)) {
            return Err(Error::arg(format!("The arguments Y and X of [{name}] must be vectors")));
        }
    }
    Ok(())
}

macro_rules! builtins {
    ($($f:ident => $p:path $(, fast avg = $avg:literal)?;)*) => {
        $(pub fn $f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
            $(if let Some(r) = crate::window_fast::try_fast($avg, &a) {
                return r;
            })?
            call_prep($p, &a)
        })*
    };
}

builtins! {
    mavg => p_mavg, fast avg = true;
    mbeta => p_mbeta;
    mcorr => p_mcorr;
    mcount => p_mcount;
    mcovar => p_mcovar;
    mcovarp => p_mcovarp;
    mfirst => p_mfirst;
    mfirst_not => p_mfirst_not;
    mifirst_not => p_mifirst_not;
    milast_not => p_milast_not;
    mimax => p_mimax;
    mimax_last => p_mimax_last;
    mimin => p_mimin;
    mimin_last => p_mimin_last;
    mkurtosis => p_mkurtosis;
    mlast => p_mlast;
    mlast_not => p_mlast_not;
    mlow_range => p_mlow_range;
    mmad => p_mmad;
    mmax => p_mmax;
    mmax_positive_streak => window_misc::p_mmax_positive_streak;
    mmed => p_mmed;
    mmin => p_mmin;
    mmse => p_mmse;
    mpercentile => p_mpercentile;
    mprod => p_mprod;
    mrank => p_mrank;
    mskew => p_mskew;
    mslr => p_mslr;
    mstd => p_mstd;
    mstdp => p_mstdp;
    msum => p_msum, fast avg = false;
    msum2 => p_msum2;
    mtop_range => p_mtop_range;
    mvar => p_mvar;
    mvarp => p_mvarp;
    mwavg => p_mwavg;
    mwsum => p_mwsum;
}

pub fn moving_window_data(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    window_misc::moving_window(&a, false, "movingWindowData")
}
pub fn moving_window_index(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    window_misc::moving_window(&a, true, "movingWindowIndex")
}
pub fn moving_top_n_index(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    window_misc::moving_top_n_index(&a)
}
