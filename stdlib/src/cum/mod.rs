//! Cumulative functions cum*(X): the window of row i is rows 0..=i. They skip nulls but keep
//! positions (`cumsum(1 2 NULL 3)` is `[1,3,3,6]`). Same statistic kernels as the m-functions
//! (window_kernels.rs) with cumulative bounds; the cum-only functions are in cum_misc.rs.

use beluga_runtime::CallCtx;
use crate::cum_misc as cm;
use crate::window::{call_prep, opt_bool, opt_str, Prep};
use crate::window_fns::{percent_arg, rank_opt};
use crate::window_kernels::*;
use crate::window_order::{interp_arg, OrdOp};
use crate::window_stats::{Mom, PairStat, NN};
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{Result, Value};

type R<'a> = Result<Prep<'a>>;

fn unary<'a>(name: &'static str, a: &'a [Value], f: StatFn<'a>) -> R<'a> {
    Ok(cum_prep(name, vec![a[0].clone()], f))
}

fn binary<'a>(name: &'static str, a: &'a [Value], kinds: &'static [PairStat]) -> R<'a> {
    Ok(cum_prep(name, vec![a[0].clone(), a[1].clone()], k_pair(name, kinds)))
}

pub fn p_cumsum(a: &[Value]) -> R<'_> {
    unary("cumsum", a, k_sum("cumsum"))
}
pub fn p_cumsum2(a: &[Value]) -> R<'_> {
    unary("cumsum2", a, k_moment("cumsum2", Mom::Sum2))
}
pub fn p_cumsum3(a: &[Value]) -> R<'_> {
    unary("cumsum3", a, k_moment("cumsum3", Mom::Sum3))
}
pub fn p_cumsum4(a: &[Value]) -> R<'_> {
    unary("cumsum4", a, k_moment("cumsum4", Mom::Sum4))
}
pub fn p_cumavg(a: &[Value]) -> R<'_> {
    unary("cumavg", a, k_moment("cumavg", Mom::Avg))
}
pub fn p_cumvar(a: &[Value]) -> R<'_> {
    unary("cumvar", a, k_moment("cumvar", Mom::Var))
}
pub fn p_cumvarp(a: &[Value]) -> R<'_> {
    unary("cumvarp", a, k_moment("cumvarp", Mom::VarP))
}
pub fn p_cumstd(a: &[Value]) -> R<'_> {
    unary("cumstd", a, k_moment("cumstd", Mom::Std))
}
pub fn p_cumstdp(a: &[Value]) -> R<'_> {
    unary("cumstdp", a, k_moment("cumstdp", Mom::StdP))
}
pub fn p_cumprod(a: &[Value]) -> R<'_> {
    unary("cumprod", a, k_prod("cumprod"))
}
pub fn p_cumcount(a: &[Value]) -> R<'_> {
    unary("cumcount", a, k_count("cumcount"))
}
pub fn p_cummax(a: &[Value]) -> R<'_> {
    unary("cummax", a, k_extreme("cummax", true, false, false))
}
pub fn p_cummin(a: &[Value]) -> R<'_> {
    unary("cummin", a, k_extreme("cummin", false, false, false))
}
pub fn p_cummed(a: &[Value]) -> R<'_> {
    unary("cummed", a, k_order("cummed", OrdOp::Med))
}
pub fn p_cumpercentile(a: &[Value]) -> R<'_> {
    // cumpercentile(X, percent, [interpolation='linear'])
    let p = percent_arg("cumpercentile", a, 1)?;
    let how = interp_arg("cumpercentile", opt_str("cumpercentile", a, 2, "interpolation", "linear")?)?;
    unary("cumpercentile", a, k_order("cumpercentile", OrdOp::Pct(p, how)))
}
pub fn p_cumrank(a: &[Value]) -> R<'_> {
    // cumrank(X, [ascending=true], [ignoreNA=true], [tiesMethod='min'], [percent=false])
    let o = rank_opt("cumrank", a, 1, 2, 3, 4)?;
    unary("cumrank", a, k_order("cumrank", OrdOp::Rank(o)))
}
pub fn p_cumfirst_not(a: &[Value]) -> R<'_> {
    match crate::util::opt(a, 1) {
        None => unary("cumfirstNot", a, k_nonnull("cumfirstNot", NN::First)),
        Some(k) => cm::p_nonnull_except("cumfirstNot", a, k.clone(), NN::First),
    }
}
pub fn p_cumlast_not(a: &[Value]) -> R<'_> {
    match crate::util::opt(a, 1) {
        None => unary("cumlastNot", a, k_nonnull("cumlastNot", NN::Last)),
        Some(k) => cm::p_nonnull_except("cumlastNot", a, k.clone(), NN::Last),
    }
}
pub fn p_cumcorr(a: &[Value]) -> R<'_> {
    binary("cumcorr", a, &[PairStat::Corr])
}
pub fn p_cumcovar(a: &[Value]) -> R<'_> {
    binary("cumcovar", a, &[PairStat::Covar])
}
pub fn p_cumcovarp(a: &[Value]) -> R<'_> {
    binary("cumcovarp", a, &[PairStat::CovarP])
}
pub fn p_cumbeta(a: &[Value]) -> R<'_> {
    binary("cumbeta", a, &[PairStat::Beta])
}
pub fn p_cumwsum(a: &[Value]) -> R<'_> {
    binary("cumwsum", a, &[PairStat::Wsum])
}
pub fn p_cumwavg(a: &[Value]) -> R<'_> {
    binary("cumwavg", a, &[PairStat::Wavg])
}
pub fn p_cumnunique(a: &[Value]) -> R<'_> {
    let ignore_null = opt_bool("cumnunique", a, 1, "ignoreNull", false)?;
    cm::p_cumnunique(a, ignore_null)
}

macro_rules! cum_builtins {
    ($($name:literal => $f:ident = $p:path $(| $decimal:path)?, $min:literal, $max:literal, [$($par:literal),*];)*) => {
        $(fn $f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
            // DECIMAL running sums stay exact and typed (one size wider)
            $(if let Some(Value::Vector(c)) = a.first() {
                if c.ty.decimal_scale().is_some() {
                    return Ok(Value::Vector($decimal(c)?));
                }
            })?
            call_prep($p, &a)
        })*
        /// The cum-function builtins, each with its segmented (`context by`) kernel.
        pub const DEFS: &[Builtin] = &[
            $(fp($name, Kind::VectorToVector, $min, $max, $f, &[$($par),*]).segmented(crate::context_kernel!($p)),)*
        ];
    };
}

cum_builtins! {
    "cumavg" => cumavg = p_cumavg, 1, 1, ["X"];
    "cumbeta" => cumbeta = p_cumbeta, 2, 2, ["Y", "X"];
    "cumcorr" => cumcorr = p_cumcorr, 2, 2, ["X", "Y"];
    "cumcount" => cumcount = p_cumcount, 1, 1, ["X"];
    "cumcovar" => cumcovar = p_cumcovar, 2, 2, ["X", "Y"];
    "cumcovarp" => cumcovarp = p_cumcovarp, 2, 2, ["X", "Y"];
    "cumdenseRank" => cumdense_rank = cm::p_cumdense_rank, 1, 5, ["X", "ascending", "ignoreNA", "percent", "norm"];
    "cumfirstNot" => cumfirst_not = p_cumfirst_not, 1, 2, ["X", "k"];
    "cumlastNot" => cumlast_not = p_cumlast_not, 1, 2, ["X", "k"];
    "cummax" => cummax = p_cummax, 1, 1, ["X"];
    "cummed" => cummed = p_cummed, 1, 1, ["X"];
    "cummin" => cummin = p_cummin, 1, 1, ["X"];
    "cumnunique" => cumnunique = p_cumnunique, 1, 2, ["X", "ignoreNull"];
    "cumpercentile" => cumpercentile = p_cumpercentile, 2, 3, ["X", "percent", "interpolation"];
    "cumPositiveStreak" => cum_positive_streak = cm::p_cum_positive_streak, 1, 1, ["X"];
    "cumprod" => cumprod = p_cumprod, 1, 1, ["X"];
    "cumrank" => cumrank = p_cumrank, 1, 5, ["X", "ascending", "ignoreNA", "tiesMethod", "percent"];
    "cumstd" => cumstd = p_cumstd, 1, 1, ["X"];
    "cumstdp" => cumstdp = p_cumstdp, 1, 1, ["X"];
    "cumsum" => cumsum = p_cumsum | beluga_runtime::kernels::decimal::cumsum, 1, 1, ["X"];
    "cumsum2" => cumsum2 = p_cumsum2, 1, 1, ["X"];
    "cumsum3" => cumsum3 = p_cumsum3, 1, 1, ["X"];
    "cumsum4" => cumsum4 = p_cumsum4, 1, 1, ["X"];
    "cumvar" => cumvar = p_cumvar, 1, 1, ["X"];
    "cumvarp" => cumvarp = p_cumvarp, 1, 1, ["X"];
    "cumwavg" => cumwavg = p_cumwavg, 2, 2, ["X", "Y"];
    "cumwsum" => cumwsum = p_cumwsum, 2, 2, ["X", "Y"];
    "dynamicGroupCumsum" => dynamic_group_cumsum = cm::p_dynamic_group_cumsum, 5, 5, ["cumValue", "prevCumValue", "membership", "prevMembership", "groupCount"];
    "dynamicGroupCumcount" => dynamic_group_cumcount = cm::p_dynamic_group_cumcount, 3, 3, ["membership", "prevMembership", "groupCount"];
}

pub mod misc;

/// The cumulative family's rows (the cum-only kernels in misc.rs are reached through DEFS).
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS].iter().for_each(|defs| r.extend(defs));
}
