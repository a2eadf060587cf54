//! TopN window functions (m*TopN, cum*TopN, tm*TopN): in each window (count, cumulative or
//! time), the rows are stably sorted by S (nulls in S are ignored) and the aggregate is taken
//! over the first `top` of them. Rows with a null X (or Y) still take a slot but do not
//! contribute.
//!
//! One window state ([`TopState`]) serves all of them: the rows of a slice get unique ranks by
//! (S, arrival order per tiesMethod); a Fenwick tree over ranks finds the top-th present row in
//! O(log n). Sums and averages read a Fenwick tree of prefix sums (O(log n) per window); the
//! higher moments, pair statistics and percentiles gather the selected rows (O(top log n)) and
//! sum them around their own mean, which avoids the cancellation of running power sums.

use beluga_runtime::CallCtx;
use crate::window::{call_prep, check_num, num_arg, opt_bool, opt_str, rolling, time_bounds, win_len, Bounds, Gate, Prep, Slice};
use crate::window_order::{cmp_native, interp_arg, percentile_of, Fenwick, FenwickF, Interp};
use crate::window_stats::{moment_stat, pair_stat, Mom, PairStat};
use crate::window::Window;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};
use std::cmp::Ordering;

/// The aggregate of a TopN function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TopAgg {
    Mom(Mom),
    Pair(PairStat),
    Pct(f64, Interp),
}

/// How many rows are taken.
#[derive(Clone, Copy, Debug)]
pub enum Top {
    Count(usize),
    /// a fraction of the window's rows: max(1, floor(size * f)) (tm*TopN only)
    Frac(f64),
}

/// Tie handling at the cut.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TopTies {
    Oldest,
    Latest,
    All,
}

fn ties_of(name: &str, s: &str) -> Result<TopTies> {
    Ok(match s {
        "oldest" => TopTies::Oldest,
        "latest" => TopTies::Latest,
        "all" => TopTies::All,
        _ => return Err(Error::arg(format!("The tiesMethod argument of [{name}] must be 'oldest', 'latest' or 'all'"))),
    })
}

pub struct TopState {
    x: Vec<f64>,
    y: Option<Vec<f64>>,
    rank: Vec<u32>,
    order: Vec<u32>,
    grp_end: Vec<u32>,
    bit: Fenwick,
    /// (valid rows, Σ value) by rank, for the aggregates read from prefix sums (sum, avg, wsum)
    sums: Option<FenwickF<2>>,
    present: i64,
    top: Top,
    all: bool,
    agg: TopAgg,
    /// scratch buffers of the selected values (reused across windows)
    buf: Vec<f64>,
    buf2: Vec<(f64, f64)>,
}

impl TopState {
    /// `s_order`: rows with a non-null S in selection order; `same(a, b)`: equal S values.
    pub fn new(x: Vec<f64>, y: Option<Vec<f64>>, s_order: Vec<u32>, same: impl Fn(u32, u32) -> bool, top: Top, ties: TopTies, agg: TopAgg) -> TopState {
        let n = x.len();
        let mut rank = vec![u32::MAX; n];
        for (r, &i) in s_order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let mut grp_end = vec![0u32; s_order.len()];
        let mut r = s_order.len();
        while r > 0 {
            r -= 1;
            grp_end[r] = if r + 1 < s_order.len() && same(s_order[r], s_order[r + 1]) { grp_end[r + 1] } else { r as u32 };
        }
        let m = s_order.len();
        let prefix = matches!(agg, TopAgg::Mom(Mom::Sum) | TopAgg::Mom(Mom::Avg) | TopAgg::Pair(PairStat::Wsum));
        TopState {
            x,
            y,
            rank,
            order: s_order,
            grp_end,
            bit: Fenwick::new(m),
            sums: prefix.then(|| FenwickF::new(m)),
            present: 0,
            top,
            all: ties == TopTies::All,
            agg,
            buf: Vec::new(),
            buf2: Vec::new(),
        }
    }

    /// Value a row adds to the prefix sums (None when X or Y is null).
    #[inline]
    fn value(&self, i: usize) -> Option<f64> {
        let x = self.x[i];
        match &self.y {
            _ if x.is_nan() => None,
            None => Some(x),
            Some(y) => (!y[i].is_nan()).then(|| x * y[i]),
        }
    }

    fn update(&mut self, i: usize, sign: i64) {
        let r = self.rank[i];
        if r == u32::MAX {
            return;
        }
        self.bit.add(r as usize, sign);
        self.present += sign;
        if self.sums.is_some() {
            if let Some(v) = self.value(i) {
                if let Some(s) = &mut self.sums {
                    s.add(r as usize, &[1.0, v], sign as f64);
                }
            }
        }
    }

    /// Fill `buf` (one data argument) or `buf2` (two) with the non-null values of the first
    /// `c` selected rows.
    fn collect(&mut self, c: i64) {
        self.buf.clear();
        self.buf2.clear();
        for j in 0..c {
            let i = self.order[self.bit.kth(j)] as usize;
            let x = self.x[i];
            if x.is_nan() {
                continue;
            }
            match &self.y {
                None => self.buf.push(x),
                Some(y) if !y[i].is_nan() => self.buf2.push((x, y[i])),
                Some(_) => {}
            }
        }
    }
}

impl Window for TopState {
    type Out = f64;
    fn add(&mut self, i: usize) {
        self.update(i, 1);
    }
    fn remove(&mut self, i: usize) {
        self.update(i, -1);
    }
    fn get(&mut self, s: usize, e: usize) -> Option<f64> {
        let want = match self.top {
            Top::Count(t) => t as i64,
            Top::Frac(f) => (((e - s) as f64 * f).floor() as i64).max(1),
        };
        let k = want.min(self.present);
        if k <= 0 {
            return None;
        }
        let mut r = self.bit.kth(k - 1);
        if self.all {
            r = self.grp_end[r] as usize;
        }
        if let Some(sums) = &self.sums {
            let [n, v] = sums.prefix(r + 1);
            let n = n.round() as usize;
            if n == 0 {
                return None;
            }
            return match self.agg {
                TopAgg::Mom(Mom::Avg) => Some(v / n as f64),
                _ => Some(v),
            };
        }
        // the other aggregates: the selected values, summed around their own mean
        let c = self.bit.prefix(r + 1);
        self.collect(c);
        match self.agg {
            TopAgg::Pct(p, how) => {
                if self.buf.is_empty() {
                    return None;
                }
                self.buf.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
                let b = &self.buf;
                Some(percentile_of(b.len(), p, how, |j| b[j]))
            }
            TopAgg::Mom(kind) => {
                let (n, k, s) = centered_sums(&self.buf);
                moment_stat(kind, n, k, &s)
            }
            TopAgg::Pair(kind) => {
                let n = self.buf2.len();
                if n == 0 {
                    return None;
                }
                let kx = self.buf2.iter().map(|p| p.0).sum::<f64>() / n as f64;
                let ky = self.buf2.iter().map(|p| p.1).sum::<f64>() / n as f64;
                let mut s = [0.0; 5];
                for &(a, b) in &self.buf2 {
                    let (a, b) = (a - kx, b - ky);
                    s[0] += a;
                    s[1] += b;
                    s[2] += a * a;
                    s[3] += b * b;
                    s[4] += a * b;
                }
                pair_stat(kind, n, kx, ky, &s)
            }
        }
    }
    fn count(&self) -> usize {
        self.present.max(0) as usize
    }
}

/// Count, mean and power sums around the mean of `vals`.
fn centered_sums(vals: &[f64]) -> (usize, f64, [f64; 4]) {
    let n = vals.len();
    let k = if n == 0 { 0.0 } else { vals.iter().sum::<f64>() / n as f64 };
    let mut s = [0.0; 4];
    for &v in vals {
        let d = v - k;
        s[0] += d;
        s[1] += d * d;
        s[2] += d * d * d;
        s[3] += d * d * d * d;
    }
    (n, k, s)
}

/// Selection order of the rows with a non-null S: by S (ascending or not), ties by arrival
/// (oldest first, or latest first).
fn s_order(name: &str, s: &Slice, asc: bool, ties: TopTies) -> Result<(Vec<u32>, Vec<f64>)> {
    check_num(name, s, true)?;
    with_slice!(s, v => {
        let mut idx: Vec<u32> = (0..v.len() as u32).filter(|&i| !v[i as usize].is_null()).collect();
        idx.sort_by(|&p, &q| {
            let c = cmp_native(v[p as usize], v[q as usize]);
            let c = if asc { c } else { c.reverse() };
            c.then(if ties == TopTies::Latest { q.cmp(&p) } else { p.cmp(&q) })
        });
        // tie groups compare the S values themselves
        let eq: Vec<f64> = (0..v.len()).map(|i| if v[i].is_null() { f64::NAN } else { v[i].to_f64() }).collect();
        (idx, eq)
    })
    .ok_or_else(|| Error::unsupported(name, s.ty()))
}

/// Run a TopN aggregate over slices `[X, (Y), S]` with the given bounds.
fn top_kernel(name: &str, s: &[Slice], b: &Bounds, pair: bool, top: Top, asc: bool, ties: TopTies, agg: TopAgg) -> Result<Vec<Column>> {
    let x = &s[0];
    check_num(name, x, false)?;
    let y = if pair {
        check_num(name, &s[1], false)?;
        Some(s[1].f64s())
    } else {
        None
    };
    let sv = &s[if pair { 2 } else { 1 }];
    let (order, keys) = s_order(name, sv, asc, ties)?;
    let n = x.len;
    let mut st = TopState::new(x.f64s(), y, order, |a, c| keys[a as usize] == keys[c as usize], top, ties, agg);
    let mut out = vec![f64::NULL; n];
    rolling(&mut st, n, b, Gate::Open, |i, r| {
        if let Some(v) = r {
            out[i] = f64::from_f64(v);
        }
    });
    let int_sum = agg == TopAgg::Mom(Mom::Sum) && !x.ty().is_floating();
    Ok(vec![if int_sum {
        Column::from_vec(DataType::Long, out.iter().map(|&f| if f.is_null() { i64::NULL } else { f.round() as i64 }).collect::<Vec<i64>>())
    } else {
        Column::from_vec(DataType::Double, out)
    }])
}

#[derive(Clone, Copy, PartialEq)]
enum Fam {
    M,
    Cum,
    Tm,
}

/// Static description of one TopN builtin.
struct Def {
    name: &'static str,
    fam: Fam,
    agg: TopAgg,
    pair: bool,
    /// takes a `biased` argument (skew, kurtosis)
    biased: bool,
    ties: &'static str,
}

fn p_top<'a>(d: &'static Def, a: &'a [Value]) -> Result<Prep<'a>> {
    let name = d.name;
    // data arguments: [T], X, [Y], S
    let nd = 2 + d.pair as usize + (d.fam == Fam::Tm) as usize;
    if a.len() < nd {
        return Err(Error::arg(format!("[{name}] expects at least {nd} data arguments")));
    }
    let mut i = nd;
    let mut agg = d.agg;
    if let TopAgg::Pct(..) = agg {
        let p = num_arg(name, a, i, "percent")?;
        if !(0.0..=100.0).contains(&p) {
            return Err(Error::arg(format!("The percent argument of [{name}] must be between 0 and 100")));
        }
        agg = TopAgg::Pct(p, Interp::Linear);
        i += 1;
    }
    let window = if d.fam == Fam::Cum {
        None
    } else {
        let w = a.get(i).filter(|v| !matches!(v, Value::Void)).ok_or_else(|| Error::arg(format!("The window argument of [{name}] is required")))?;
        i += 1;
        Some(win_len(name, w)?)
    };
    let top = match a.get(i) {
        Some(v) if v.data_type().is_floating() && d.fam == Fam::Tm => {
            let f = v.as_f64().unwrap_or(0.0);
            if f > 0.0 && f < 1.0 {
                Top::Frac(f)
            } else if f >= 1.0 && f.fract() == 0.0 {
                Top::Count(f as usize)
            } else {
                return Err(Error::arg(format!("The top argument of [{name}] must be a positive integer or a number in (0, 1)")));
            }
        }
        Some(v) => Top::Count(v.as_i64().filter(|&t| t >= 1).ok_or_else(|| Error::arg(format!("The top argument of [{name}] must be a positive integer")))? as usize),
        None => return Err(Error::arg(format!("The top argument of [{name}] is required"))),
    };
    i += 1;
    if let TopAgg::Pct(p, _) = agg {
        agg = TopAgg::Pct(p, interp_arg(name, opt_str(name, a, i, "interpolation", "linear")?)?);
        i += 1;
    }
    if d.biased {
        let biased = opt_bool(name, a, i, "biased", true)?;
        agg = match agg {
            TopAgg::Mom(Mom::Skew(_)) => TopAgg::Mom(Mom::Skew(biased)),
            TopAgg::Mom(Mom::Kurt(_)) => TopAgg::Mom(Mom::Kurt(biased)),
            other => other,
        };
        i += 1;
    }
    let asc = opt_bool(name, a, i, "ascending", true)?;
    let ties = ties_of(name, opt_str(name, a, i + 1, "tiesMethod", d.ties)?)?;
    let pair = d.pair;
    let data: Vec<Value> = a[..nd].to_vec();
    let mut p = match (d.fam, window) {
        (Fam::Cum, _) => Prep::new(name, data, Box::new(move |s: &[Slice]| top_kernel(name, s, &Bounds::Cum, pair, top, asc, ties, agg))),
        (Fam::M, Some(w)) => {
            let rows = match w {
                crate::window::WinLen::Int(r) => r as usize,
                _ => return Err(Error::arg(format!("The window argument of [{name}] must be a positive integer"))),
            };
            Prep::new(name, data, Box::new(move |s: &[Slice]| top_kernel(name, s, &Bounds::Count(rows), pair, top, asc, ties, agg)))
        }
        (_, w) => {
            let w = w.ok_or_else(|| Error::arg(format!("The window argument of [{name}] is required")))?;
            Prep::new(
                name,
                data,
                Box::new(move |s: &[Slice]| {
                    let b = time_bounds(name, &s[0], &w)?;
                    top_kernel(name, &s[1..], &b, pair, top, asc, ties, agg)
                }),
            )
        }
    };
    p.numeric_only = d.fam != Fam::Tm;
    Ok(p)
}

macro_rules! topn {
    ($($name:literal => $f:ident / $pf:ident, $fam:ident, $agg:expr, pair=$pair:literal, biased=$biased:literal, ties=$ties:literal, $min:literal, $max:literal, [$($par:literal),*];)*) => {
        $(
            pub(crate) fn $pf(a: &[Value]) -> Result<Prep<'_>> {
                static D: Def = Def { name: $name, fam: Fam::$fam, agg: $agg, pair: $pair, biased: $biased, ties: $ties };
                p_top(&D, a)
            }
            fn $f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
                call_prep($pf, &a)
            }
        )*
        /// The TopN builtins, each with its segmented (`context by`) kernel.
        pub const DEFS: &[Builtin] = &[$(fp($name, Kind::VectorToVector, $min, $max, $f, &[$($par),*]).segmented(crate::context_kernel!($pf)),)*];
    };
}

use PairStat as P;
use TopAgg::{Mom as Mo, Pair as Pa};

topn! {
    "msumTopN" => msum_top_n / p_msum_top_n, M, Mo(Mom::Sum), pair=false, biased=false, ties="oldest", 4, 6, ["X", "S", "window", "top", "ascending", "tiesMethod"];
    "mavgTopN" => mavg_top_n / p_mavg_top_n, M, Mo(Mom::Avg), pair=false, biased=false, ties="oldest", 4, 6, ["X", "S", "window", "top", "ascending", "tiesMethod"];
    "mstdTopN" => mstd_top_n / p_mstd_top_n, M, Mo(Mom::Std), pair=false, biased=false, ties="oldest", 4, 6, ["X", "S", "window", "top", "ascending", "tiesMethod"];
    "mstdpTopN" => mstdp_top_n / p_mstdp_top_n, M, Mo(Mom::StdP), pair=false, biased=false, ties="oldest", 4, 6, ["X", "S", "window", "top", "ascending", "tiesMethod"];
    "mvarTopN" => mvar_top_n / p_mvar_top_n, M, Mo(Mom::Var), pair=false, biased=false, ties="oldest", 4, 6, ["X", "S", "window", "top", "ascending", "tiesMethod"];
    "mvarpTopN" => mvarp_top_n / p_mvarp_top_n, M, Mo(Mom::VarP), pair=false, biased=false, ties="oldest", 4, 6, ["X", "S", "window", "top", "ascending", "tiesMethod"];
    "mskewTopN" => mskew_top_n / p_mskew_top_n, M, Mo(Mom::Skew(true)), pair=false, biased=true, ties="latest", 4, 7, ["X", "S", "window", "top", "biased", "ascending", "tiesMethod"];
    "mkurtosisTopN" => mkurtosis_top_n / p_mkurtosis_top_n, M, Mo(Mom::Kurt(true)), pair=false, biased=true, ties="latest", 4, 7, ["X", "S", "window", "top", "biased", "ascending", "tiesMethod"];
    "mpercentileTopN" => mpercentile_top_n / p_mpercentile_top_n, M, TopAgg::Pct(50.0, Interp::Linear), pair=false, biased=false, ties="oldest", 5, 8, ["X", "S", "percent", "window", "top", "interpolation", "ascending", "tiesMethod"];
    "mbetaTopN" => mbeta_top_n / p_mbeta_top_n, M, Pa(P::Beta), pair=true, biased=false, ties="oldest", 5, 7, ["X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "mcorrTopN" => mcorr_top_n / p_mcorr_top_n, M, Pa(P::Corr), pair=true, biased=false, ties="oldest", 5, 7, ["X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "mcovarTopN" => mcovar_top_n / p_mcovar_top_n, M, Pa(P::Covar), pair=true, biased=false, ties="oldest", 5, 7, ["X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "mcovarpTopN" => mcovarp_top_n / p_mcovarp_top_n, M, Pa(P::CovarP), pair=true, biased=false, ties="oldest", 5, 7, ["X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "mwsumTopN" => mwsum_top_n / p_mwsum_top_n, M, Pa(P::Wsum), pair=true, biased=false, ties="oldest", 5, 7, ["X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "cumsumTopN" => cumsum_top_n / p_cumsum_top_n, Cum, Mo(Mom::Sum), pair=false, biased=false, ties="latest", 3, 5, ["X", "S", "top", "ascending", "tiesMethod"];
    "cumavgTopN" => cumavg_top_n / p_cumavg_top_n, Cum, Mo(Mom::Avg), pair=false, biased=false, ties="latest", 3, 5, ["X", "S", "top", "ascending", "tiesMethod"];
    "cumstdTopN" => cumstd_top_n / p_cumstd_top_n, Cum, Mo(Mom::Std), pair=false, biased=false, ties="latest", 3, 5, ["X", "S", "top", "ascending", "tiesMethod"];
    "cumstdpTopN" => cumstdp_top_n / p_cumstdp_top_n, Cum, Mo(Mom::StdP), pair=false, biased=false, ties="latest", 3, 5, ["X", "S", "top", "ascending", "tiesMethod"];
    "cumvarTopN" => cumvar_top_n / p_cumvar_top_n, Cum, Mo(Mom::Var), pair=false, biased=false, ties="latest", 3, 5, ["X", "S", "top", "ascending", "tiesMethod"];
    "cumvarpTopN" => cumvarp_top_n / p_cumvarp_top_n, Cum, Mo(Mom::VarP), pair=false, biased=false, ties="latest", 3, 5, ["X", "S", "top", "ascending", "tiesMethod"];
    "cumskewTopN" => cumskew_top_n / p_cumskew_top_n, Cum, Mo(Mom::Skew(true)), pair=false, biased=true, ties="latest", 3, 6, ["X", "S", "top", "biased", "ascending", "tiesMethod"];
    "cumkurtosisTopN" => cumkurtosis_top_n / p_cumkurtosis_top_n, Cum, Mo(Mom::Kurt(true)), pair=false, biased=true, ties="latest", 3, 6, ["X", "S", "top", "biased", "ascending", "tiesMethod"];
    "cumbetaTopN" => cumbeta_top_n / p_cumbeta_top_n, Cum, Pa(P::Beta), pair=true, biased=false, ties="latest", 4, 6, ["X", "Y", "S", "top", "ascending", "tiesMethod"];
    "cumcorrTopN" => cumcorr_top_n / p_cumcorr_top_n, Cum, Pa(P::Corr), pair=true, biased=false, ties="latest", 4, 6, ["X", "Y", "S", "top", "ascending", "tiesMethod"];
    "cumcovarTopN" => cumcovar_top_n / p_cumcovar_top_n, Cum, Pa(P::Covar), pair=true, biased=false, ties="latest", 4, 6, ["X", "Y", "S", "top", "ascending", "tiesMethod"];
    "cumcovarpTopN" => cumcovarp_top_n / p_cumcovarp_top_n, Cum, Pa(P::CovarP), pair=true, biased=false, ties="latest", 4, 6, ["X", "Y", "S", "top", "ascending", "tiesMethod"];
    "cumwsumTopN" => cumwsum_top_n / p_cumwsum_top_n, Cum, Pa(P::Wsum), pair=true, biased=false, ties="latest", 4, 6, ["X", "Y", "S", "top", "ascending", "tiesMethod"];
    "tmsumTopN" => tmsum_top_n / p_tmsum_top_n, Tm, Mo(Mom::Sum), pair=false, biased=false, ties="latest", 5, 7, ["T", "X", "S", "window", "top", "ascending", "tiesMethod"];
    "tmavgTopN" => tmavg_top_n / p_tmavg_top_n, Tm, Mo(Mom::Avg), pair=false, biased=false, ties="latest", 5, 7, ["T", "X", "S", "window", "top", "ascending", "tiesMethod"];
    "tmstdTopN" => tmstd_top_n / p_tmstd_top_n, Tm, Mo(Mom::Std), pair=false, biased=false, ties="latest", 5, 7, ["T", "X", "S", "window", "top", "ascending", "tiesMethod"];
    "tmstdpTopN" => tmstdp_top_n / p_tmstdp_top_n, Tm, Mo(Mom::StdP), pair=false, biased=false, ties="latest", 5, 7, ["T", "X", "S", "window", "top", "ascending", "tiesMethod"];
    "tmvarTopN" => tmvar_top_n / p_tmvar_top_n, Tm, Mo(Mom::Var), pair=false, biased=false, ties="latest", 5, 7, ["T", "X", "S", "window", "top", "ascending", "tiesMethod"];
    "tmvarpTopN" => tmvarp_top_n / p_tmvarp_top_n, Tm, Mo(Mom::VarP), pair=false, biased=false, ties="latest", 5, 7, ["T", "X", "S", "window", "top", "ascending", "tiesMethod"];
    "tmskewTopN" => tmskew_top_n / p_tmskew_top_n, Tm, Mo(Mom::Skew(true)), pair=false, biased=true, ties="latest", 5, 8, ["T", "X", "S", "window", "top", "biased", "ascending", "tiesMethod"];
    "tmkurtosisTopN" => tmkurtosis_top_n / p_tmkurtosis_top_n, Tm, Mo(Mom::Kurt(true)), pair=false, biased=true, ties="latest", 5, 8, ["T", "X", "S", "window", "top", "biased", "ascending", "tiesMethod"];
    "tmbetaTopN" => tmbeta_top_n / p_tmbeta_top_n, Tm, Pa(P::Beta), pair=true, biased=false, ties="latest", 6, 8, ["T", "X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "tmcorrTopN" => tmcorr_top_n / p_tmcorr_top_n, Tm, Pa(P::Corr), pair=true, biased=false, ties="latest", 6, 8, ["T", "X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "tmcovarTopN" => tmcovar_top_n / p_tmcovar_top_n, Tm, Pa(P::Covar), pair=true, biased=false, ties="latest", 6, 8, ["T", "X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "tmcovarpTopN" => tmcovarp_top_n / p_tmcovarp_top_n, Tm, Pa(P::CovarP), pair=true, biased=false, ties="latest", 6, 8, ["T", "X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
    "tmwsumTopN" => tmwsum_top_n / p_tmwsum_top_n, Tm, Pa(P::Wsum), pair=true, biased=false, ties="latest", 6, 8, ["T", "X", "Y", "S", "window", "top", "ascending", "tiesMethod"];
}
