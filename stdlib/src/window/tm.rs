//! Time-based moving functions tm*(T, X, [Y], window): the window of row i covers the rows
//! j <= i with T[j] in (temporalAdd(T[i], -window), T[i]]. Same statistic kernels as the
//! m-functions (window_kernels.rs) with time bounds and no warm-up rows.

use beluga_runtime::CallCtx;
use crate::window::{call_prep, opt_bool, opt_str, win_len, Prep, Slice, WinLen};
use crate::window_fns::{percent_arg, rank_opt};
use crate::window_kernels::*;
use crate::window_misc;
use crate::window_order::{interp_arg, OrdOp};
use crate::window_stats::{Mom, PairStat};
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{Error, Result, Value};

type R<'a> = Result<Prep<'a>>;

fn window_at(name: &str, a: &[Value], i: usize) -> Result<WinLen> {
    let w = a
        .get(i)
        .filter(|v| !matches!(v, Value::Void))
        .ok_or_else(|| Error::arg(format!("The window argument of [{name}] is required")))?;
    win_len(name, w)
}

fn unary<'a>(name: &'static str, a: &'a [Value], f: StatFn<'a>) -> R<'a> {
    let w = window_at(name, a, 2)?;
    vector_args(name, &a[..2])?;
    Ok(tm_prep(name, vec![a[0].clone(), a[1].clone()], w, f))
}

fn binary<'a>(name: &'static str, a: &'a [Value], kinds: &'static [PairStat]) -> R<'a> {
    let w = window_at(name, a, 3)?;
    vector_args(name, &a[..3])?;
    Ok(tm_prep(name, vec![a[0].clone(), a[1].clone(), a[2].clone()], w, k_pair(name, kinds)))
}

/// tm-functions take vectors only (no tuples, matrices or tables).
fn vector_args(name: &str, a: &[Value]) -> Result<()> {
    for v in a {
        if !matches!(v, Value::Vector(_)) {
            return Err(Error::arg(format!("The arguments T and X of [{name}] must be vectors of the same length")));
        }
    }
    Ok(())
}

pub fn p_tmsum(a: &[Value]) -> R<'_> {
    unary("tmsum", a, k_sum("tmsum"))
}
pub fn p_tmsum2(a: &[Value]) -> R<'_> {
    unary("tmsum2", a, k_moment("tmsum2", Mom::Sum2))
}
pub fn p_tmavg(a: &[Value]) -> R<'_> {
    unary("tmavg", a, k_moment("tmavg", Mom::Avg))
}
pub fn p_tmvar(a: &[Value]) -> R<'_> {
    unary("tmvar", a, k_moment("tmvar", Mom::Var))
}
pub fn p_tmvarp(a: &[Value]) -> R<'_> {
    unary("tmvarp", a, k_moment("tmvarp", Mom::VarP))
}
pub fn p_tmstd(a: &[Value]) -> R<'_> {
    unary("tmstd", a, k_moment("tmstd", Mom::Std))
}
pub fn p_tmstdp(a: &[Value]) -> R<'_> {
    unary("tmstdp", a, k_moment("tmstdp", Mom::StdP))
}
pub fn p_tmskew(a: &[Value]) -> R<'_> {
    let biased = opt_bool("tmskew", a, 3, "biased", true)?;
    unary("tmskew", a, k_moment("tmskew", Mom::Skew(biased)))
}
pub fn p_tmkurtosis(a: &[Value]) -> R<'_> {
    let biased = opt_bool("tmkurtosis", a, 3, "biased", true)?;
    unary("tmkurtosis", a, k_moment("tmkurtosis", Mom::Kurt(biased)))
}
pub fn p_tmprod(a: &[Value]) -> R<'_> {
    unary("tmprod", a, k_prod("tmprod"))
}
pub fn p_tmcount(a: &[Value]) -> R<'_> {
    unary("tmcount", a, k_count("tmcount"))
}
pub fn p_tmmax(a: &[Value]) -> R<'_> {
    unary("tmmax", a, k_extreme("tmmax", true, false, false))
}
pub fn p_tmmin(a: &[Value]) -> R<'_> {
    unary("tmmin", a, k_extreme("tmmin", false, false, false))
}
pub fn p_tmfirst(a: &[Value]) -> R<'_> {
    unary("tmfirst", a, k_ends("tmfirst", false))
}
pub fn p_tmlast(a: &[Value]) -> R<'_> {
    unary("tmlast", a, k_ends("tmlast", true))
}
pub fn p_tmmed(a: &[Value]) -> R<'_> {
    unary("tmmed", a, k_order("tmmed", OrdOp::Med))
}
pub fn p_tmtop_range(a: &[Value]) -> R<'_> {
    unary("tmTopRange", a, k_range("tmTopRange", true))
}
pub fn p_tmlow_range(a: &[Value]) -> R<'_> {
    unary("tmLowRange", a, k_range("tmLowRange", false))
}
pub fn p_tmpercentile(a: &[Value]) -> R<'_> {
    // tmpercentile(T, X, percent, window, [interpolation='linear'])
    let p = percent_arg("tmpercentile", a, 2)?;
    let how = interp_arg("tmpercentile", opt_str("tmpercentile", a, 4, "interpolation", "linear")?)?;
    let w = window_at("tmpercentile", a, 3)?;
    vector_args("tmpercentile", &a[..2])?;
    Ok(tm_prep("tmpercentile", vec![a[0].clone(), a[1].clone()], w, k_order("tmpercentile", OrdOp::Pct(p, how))))
}
pub fn p_tmrank(a: &[Value]) -> R<'_> {
    // tmrank(T, X, ascending, window, [ignoreNA=true], [tiesMethod='min'], [percent=false])
    let o = rank_opt("tmrank", a, 2, 4, 5, 6)?;
    let w = window_at("tmrank", a, 3)?;
    vector_args("tmrank", &a[..2])?;
    Ok(tm_prep("tmrank", vec![a[0].clone(), a[1].clone()], w, k_order("tmrank", OrdOp::Rank(o))))
}
pub fn p_tmcorr(a: &[Value]) -> R<'_> {
    binary("tmcorr", a, &[PairStat::Corr])
}
pub fn p_tmcovar(a: &[Value]) -> R<'_> {
    binary("tmcovar", a, &[PairStat::Covar])
}
pub fn p_tmcovarp(a: &[Value]) -> R<'_> {
    binary("tmcovarp", a, &[PairStat::CovarP])
}
pub fn p_tmbeta(a: &[Value]) -> R<'_> {
    binary("tmbeta", a, &[PairStat::Beta])
}
pub fn p_tmwsum(a: &[Value]) -> R<'_> {
    binary("tmwsum", a, &[PairStat::Wsum])
}
pub fn p_tmwavg(a: &[Value]) -> R<'_> {
    binary("tmwavg", a, &[PairStat::Wavg])
}

/// tmovingWindowData(T, X, window, [leftClosed=false]): one vector per row (see window_misc).
pub fn tmoving_window_data(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "tmovingWindowData";
    let w = window_at(name, &a, 2)?;
    let left_closed = opt_bool(name, &a, 3, "leftClosed", false)?;
    let t = match &a[0] {
        Value::Vector(c) => c,
        _ => return Err(Error::arg(format!("The argument T of [{name}] must be a vector"))),
    };
    if a[1].size() != t.len() {
        return Err(Error::size(format!("The arguments T and X of [{name}] must have the same length")));
    }
    let b = crate::window::time_bounds_ex(name, &Slice::whole(t), &w, left_closed)?;
    let rows: Vec<Vec<i64>> = (0..t.len()).map(|i| (b.start(i).min(i)..=i).map(|j| j as i64).collect()).collect();
    window_misc::window_rows_value(&a[1], &rows, false, name)
}

macro_rules! tm_builtins {
    ($($name:literal => $f:ident = $p:ident, $min:literal, $max:literal, [$($par:literal),*];)*) => {
        $(fn $f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
            call_prep($p, &a)
        })*
        /// The tm-function builtins; the tm* rows carry their segmented (`context by`) kernel.
        pub const DEFS: &[Builtin] = &[
            $(fp($name, Kind::VectorToVector, $min, $max, $f, &[$($par),*]).segmented(crate::context_kernel!($p)),)*
            fp("tmovingWindowData", Kind::VectorToVector, 3, 4, tmoving_window_data, &["T", "X", "window", "leftClosed"]),
        ];
    };
}

tm_builtins! {
    "tmavg" => tmavg = p_tmavg, 3, 3, ["T", "X", "window"];
    "tmbeta" => tmbeta = p_tmbeta, 4, 4, ["T", "Y", "X", "window"];
    "tmcorr" => tmcorr = p_tmcorr, 4, 4, ["T", "X", "Y", "window"];
    "tmcount" => tmcount = p_tmcount, 3, 3, ["T", "X", "window"];
    "tmcovar" => tmcovar = p_tmcovar, 4, 4, ["T", "X", "Y", "window"];
    "tmcovarp" => tmcovarp = p_tmcovarp, 4, 4, ["T", "X", "Y", "window"];
    "tmfirst" => tmfirst = p_tmfirst, 3, 3, ["T", "X", "window"];
    "tmkurtosis" => tmkurtosis = p_tmkurtosis, 3, 4, ["T", "X", "window", "biased"];
    "tmlast" => tmlast = p_tmlast, 3, 3, ["T", "X", "window"];
    "tmLowRange" => tmlow_range = p_tmlow_range, 3, 3, ["T", "X", "window"];
    "tmmax" => tmmax = p_tmmax, 3, 3, ["T", "X", "window"];
    "tmmed" => tmmed = p_tmmed, 3, 3, ["T", "X", "window"];
    "tmmin" => tmmin = p_tmmin, 3, 3, ["T", "X", "window"];
    "tmpercentile" => tmpercentile = p_tmpercentile, 4, 5, ["T", "X", "percent", "window", "interpolation"];
    "tmprod" => tmprod = p_tmprod, 3, 3, ["T", "X", "window"];
    "tmrank" => tmrank = p_tmrank, 4, 7, ["T", "X", "ascending", "window", "ignoreNA", "tiesMethod", "percent"];
    "tmskew" => tmskew = p_tmskew, 3, 4, ["T", "X", "window", "biased"];
    "tmstd" => tmstd = p_tmstd, 3, 3, ["T", "X", "window"];
    "tmstdp" => tmstdp = p_tmstdp, 3, 3, ["T", "X", "window"];
    "tmsum" => tmsum = p_tmsum, 3, 3, ["T", "X", "window"];
    "tmsum2" => tmsum2 = p_tmsum2, 3, 3, ["T", "X", "window"];
    "tmTopRange" => tmtop_range = p_tmtop_range, 3, 3, ["T", "X", "window"];
    "tmvar" => tmvar = p_tmvar, 3, 3, ["T", "X", "window"];
    "tmvarp" => tmvarp = p_tmvarp, 3, 3, ["T", "X", "window"];
    "tmwavg" => tmwavg = p_tmwavg, 4, 4, ["T", "X", "Y", "window"];
    "tmwsum" => tmwsum = p_tmwsum, 4, 4, ["T", "X", "Y", "window"];
}
