//! TA-lib style moving averages: sma, ema, wma, dema, tema, trima, kama, t3, wilder, gema, ma,
//! and linearTimeTrend. As in TA-lib, leading nulls are skipped (kept as nulls in the result)
//! and the window starts at the first non-null value; the first window-1 results are null.
//! Interior nulls give a null result and leave the recursive state unchanged.

use beluga_runtime::CallCtx;
use crate::window::{call_prep, check_num, num_arg, opt_bool, rolling, win_spec, Bounds, Gate, Prep, Slice};
use crate::window_stats::{Mom, Moments, PairMoments, PairStat};
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};

/// Apply `f` to the values after the leading nulls; the leading nulls stay null.
fn after_leading_nulls(v: &[f64], f: impl Fn(&[f64]) -> Vec<f64>) -> Vec<f64> {
    let off = v.iter().position(|x| !x.is_nan()).unwrap_or(v.len());
    let mut out = vec![f64::NAN; off];
    out.extend(f(&v[off..]));
    out
}

/// Simple moving average (nulls inside the window are skipped).
pub fn sma(v: &[f64], n: usize) -> Vec<f64> {
    after_leading_nulls(v, |v| {
        let mut w = Moments::new(v, Mom::Avg);
        let mut out = vec![f64::NAN; v.len()];
        rolling(&mut w, v.len(), &Bounds::Count(n), Gate::Warmup(n), |i, r| {
            if let Some(x) = r {
                out[i] = x;
            }
        });
        out
    })
}

/// Exponential smoothing seeded with the mean of the first `n` values.
pub fn ema_alpha(v: &[f64], n: usize, alpha: f64) -> Vec<f64> {
    after_leading_nulls(v, |v| {
        let mut out = vec![f64::NAN; v.len()];
        if v.len() < n {
            return out;
        }
        let seed: Vec<f64> = v[..n].iter().copied().filter(|x| !x.is_nan()).collect();
        let mut e = seed.iter().sum::<f64>() / seed.len().max(1) as f64;
        out[n - 1] = e;
        for i in n..v.len() {
            if !v[i].is_nan() {
                e = alpha * v[i] + (1.0 - alpha) * e;
                out[i] = e;
            }
        }
        out
    })
}

/// ema with warm-up: the first window-1 values use alpha = 2 / (k + 1) (k = 1, 2, ...).
fn ema_warmup(v: &[f64], n: usize) -> Vec<f64> {
    after_leading_nulls(v, |v| {
        let mut out = vec![f64::NAN; v.len()];
        let mut e = f64::NAN;
        for (k, &x) in v.iter().enumerate() {
            if x.is_nan() {
                continue;
            }
            let a = 2.0 / (k.min(n) as f64 + 1.0);
            e = if e.is_nan() { x } else { a * x + (1.0 - a) * e };
            out[k] = e;
        }
        out
    })
}

pub fn ema(v: &[f64], n: usize) -> Vec<f64> {
    // a NULL after the seed window enters the recursion as 0 (the factor best-practice
    // tutorial's unit test: factorDoubleEMA(NULL 0.1 0.2 0.2 0.15 NULL 0.2 0.5 0.1 0.2) ends
    // 63.641310 60.256608 8.156385 -0.134531, which only this reading reproduces)
    match v.iter().position(|x| !x.is_nan()) {
        Some(s) if s + n < v.len() && v[s + n..].iter().any(|x| x.is_nan()) => {
            let mut w = v.to_vec();
            w[s + n..].iter_mut().filter(|x| x.is_nan()).for_each(|x| *x = 0.0);
            ema_alpha(&w, n, 2.0 / (n as f64 + 1.0))
        }
        _ => ema_alpha(v, n, 2.0 / (n as f64 + 1.0)),
    }
}

pub fn dema(v: &[f64], n: usize) -> Vec<f64> {
    let e1 = ema(v, n);
    let e2 = ema(&e1, n);
    e1.iter().zip(&e2).map(|(a, b)| 2.0 * a - b).collect()
}

pub fn tema(v: &[f64], n: usize) -> Vec<f64> {
    let e1 = ema(v, n);
    let e2 = ema(&e1, n);
    let e3 = ema(&e2, n);
    (0..v.len()).map(|i| 3.0 * e1[i] - 3.0 * e2[i] + e3[i]).collect()
}

/// Linearly weighted moving average (weights 1..n, the latest heaviest).
pub fn wma(v: &[f64], n: usize) -> Vec<f64> {
    after_leading_nulls(v, |v| {
        let mut out = vec![f64::NAN; v.len()];
        for i in n.saturating_sub(1)..v.len() {
            let (mut num, mut den) = (0.0, 0.0);
            for j in 0..n {
                let x = v[i + 1 - n + j];
                if !x.is_nan() {
                    num += x * (j + 1) as f64;
                    den += (j + 1) as f64;
                }
            }
            if den > 0.0 {
                out[i] = num / den;
            }
        }
        out
    })
}

pub fn trima(v: &[f64], n: usize) -> Vec<f64> {
    let w1 = (n + 2) / 2; // ceil((n + 1) / 2)
    let w2 = (n + 1) / 2; // floor((n + 1) / 2)
    sma(&sma(v, w1), w2)
}

/// Kaufman adaptive moving average (TA-lib's algorithm, fast 2 / slow 30).
pub fn kama(v: &[f64], n: usize) -> Vec<f64> {
    after_leading_nulls(v, |x| {
        let mut out = vec![f64::NAN; x.len()];
        if x.len() <= n || x[..=n].iter().any(|f| f.is_nan()) {
            return out;
        }
        let slow = 2.0 / 31.0;
        let diff = 2.0 / 3.0 - slow;
        let sc = |roc: f64, sum: f64| -> f64 {
            let er = if sum <= roc || sum == 0.0 { 1.0 } else { (roc / sum).abs() };
            let c = er * diff + slow;
            c * c
        };
        let mut sum: f64 = (0..n).map(|k| (x[k + 1] - x[k]).abs()).sum();
        let mut prev = x[n - 1];
        prev += (x[n] - prev) * sc(x[n] - x[0], sum);
        out[n] = prev;
        for i in (n + 1)..x.len() {
            if x[i].is_nan() || x[i - 1].is_nan() || x[i - n].is_nan() || x[i - n - 1].is_nan() {
                continue;
            }
            sum -= (x[i - n] - x[i - n - 1]).abs();
            sum += (x[i] - x[i - 1]).abs();
            prev += (x[i] - prev) * sc(x[i] - x[i - n], sum);
            out[i] = prev;
        }
        out
    })
}

/// T3: six cascaded EMAs combined with the volume factor's coefficients.
pub fn t3(v: &[f64], n: usize, vf: f64) -> Vec<f64> {
    let mut e = vec![ema(v, n)];
    for _ in 1..6 {
        let next = ema(&e[e.len() - 1], n);
        e.push(next);
    }
    let a = vf;
    let c1 = -a * a * a;
    let c2 = 3.0 * a * a + 3.0 * a * a * a;
    let c3 = -6.0 * a * a - 3.0 * a - 3.0 * a * a * a;
    let c4 = 1.0 + 3.0 * a + a * a * a + 3.0 * a * a;
    (0..v.len()).map(|i| c1 * e[5][i] + c2 * e[4][i] + c3 * e[3][i] + c4 * e[2][i]).collect()
}

/// Moving linear regression of X on its position in the window: (intercept at the window's
/// first row, slope).
pub fn linear_time_trend(v: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let off = v.iter().position(|x| !x.is_nan()).unwrap_or(v.len());
    let x = &v[off..];
    let t: Vec<f64> = (0..x.len()).map(|i| i as f64).collect();
    let mut alpha = vec![f64::NAN; v.len()];
    let mut beta = vec![f64::NAN; v.len()];
    let b = Bounds::Count(n);
    let mut wa = PairMoments::new(x, &t, PairStat::Alpha);
    rolling(&mut wa, x.len(), &b, Gate::Warmup(n), |i, r| {
        if let Some(a) = r {
            alpha[off + i] = a;
        }
    });
    let mut wb = PairMoments::new(x, &t, PairStat::Beta);
    rolling(&mut wb, x.len(), &b, Gate::Warmup(n), |i, r| {
        if let Some(s) = r {
            beta[off + i] = s;
            // intercept relative to the window's first row
            let start = b.start(i).min(i) as f64;
            alpha[off + i] += s * start;
        }
    });
    (alpha, beta)
}

fn to_col(v: Vec<f64>) -> Column {
    Column::from_vec(DataType::Double, v.into_iter().map(f64::from_f64).collect::<Vec<f64>>())
}

/// Prep of a TA function `f(values, window) -> values` with window argument at index 1.
fn ta_prep<'a>(name: &'static str, a: &'a [Value], f: impl Fn(&[f64], usize) -> Vec<Column> + Send + Sync + 'a) -> Result<Prep<'a>> {
    let n = win_spec(name, a.get(1).unwrap_or(&Value::Void), None)?.rows(name)?;
    Ok(Prep::new(
        name,
        vec![a[0].clone()],
        Box::new(move |s: &[Slice]| {
            check_num(name, &s[0], false)?;
            Ok(f(&s[0].f64s(), n))
        }),
    ))
}

pub fn p_sma(a: &[Value]) -> Result<Prep<'_>> {
    ta_prep("sma", a, |v, n| vec![to_col(sma(v, n))])
}
pub fn p_ema(a: &[Value]) -> Result<Prep<'_>> {
    let warm = opt_bool("ema", a, 2, "warmup", false)?;
    ta_prep("ema", a, move |v, n| vec![to_col(if warm { ema_warmup(v, n) } else { ema(v, n) })])
}
pub fn p_wma(a: &[Value]) -> Result<Prep<'_>> {
    ta_prep("wma", a, |v, n| vec![to_col(wma(v, n))])
}
pub fn p_dema(a: &[Value]) -> Result<Prep<'_>> {
    ta_prep("dema", a, |v, n| vec![to_col(dema(v, n))])
}
pub fn p_tema(a: &[Value]) -> Result<Prep<'_>> {
    ta_prep("tema", a, |v, n| vec![to_col(tema(v, n))])
}
pub fn p_trima(a: &[Value]) -> Result<Prep<'_>> {
    ta_prep("trima", a, |v, n| vec![to_col(trima(v, n))])
}
pub fn p_kama(a: &[Value]) -> Result<Prep<'_>> {
    ta_prep("kama", a, |v, n| vec![to_col(kama(v, n))])
}
pub fn p_wilder(a: &[Value]) -> Result<Prep<'_>> {
    ta_prep("wilder", a, |v, n| vec![to_col(ema_alpha(v, n, 1.0 / n as f64))])
}
pub fn p_t3(a: &[Value]) -> Result<Prep<'_>> {
    let vf = match crate::util::opt(a, 2) {
        None => 1.0,
        Some(_) => num_arg("t3", a, 2, "vfactor")?,
    };
    if !(0.0..=1.0).contains(&vf) {
        return Err(Error::arg("The vfactor argument of [t3] must be between 0 and 1"));
    }
    ta_prep("t3", a, move |v, n| vec![to_col(t3(v, n, vf))])
}
pub fn p_gema(a: &[Value]) -> Result<Prep<'_>> {
    let alpha = num_arg("gema", a, 2, "alpha")?;
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(Error::arg("The alpha argument of [gema] must be in (0, 1)"));
    }
    ta_prep("gema", a, move |v, n| vec![to_col(ema_alpha(v, n, alpha))])
}
pub fn p_ma(a: &[Value]) -> Result<Prep<'_>> {
    let t = a.get(2).and_then(|v| v.as_i64()).ok_or_else(|| Error::arg("The maType argument of [ma] must be an integer in [0, 8]"))?;
    let f: fn(&[f64], usize) -> Vec<f64> = match t {
        0 => sma,
        1 => ema,
        2 => wma,
        3 => dema,
        4 => tema,
        5 => trima,
        6 => kama,
        8 => |v, n| t3(v, n, 0.7),
        7 => return Err(Error::arg("maType 7 (MAMA) is not supported by [ma]")),
        _ => return Err(Error::arg("The maType argument of [ma] must be an integer in [0, 8]")),
    };
    ta_prep("ma", a, move |v, n| vec![to_col(f(v, n))])
}
pub fn p_linear_time_trend(a: &[Value]) -> Result<Prep<'_>> {
    ta_prep("linearTimeTrend", a, |v, n| {
        let (al, be) = linear_time_trend(v, n);
        vec![to_col(al), to_col(be)]
    })
}

macro_rules! ta_builtins {
    ($($name:literal => $f:ident = $p:ident, $min:literal, $max:literal, [$($par:literal),*];)*) => {
        $(fn $f(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
            call_prep($p, &a)
        })*
        /// The TA-lib builtins, each with its segmented (`context by`) kernel.
        pub const DEFS: &[Builtin] = &[$(fp($name, Kind::VectorToVector, $min, $max, $f, &[$($par),*]).segmented(crate::context_kernel!($p)),)*];
    };
}

ta_builtins! {
    "dema" => dema_b = p_dema, 2, 2, ["X", "window"];
    "ema" => ema_b = p_ema, 2, 3, ["X", "window", "warmup"];
    "gema" => gema_b = p_gema, 3, 3, ["X", "window", "alpha"];
    "kama" => kama_b = p_kama, 2, 2, ["X", "window"];
    "linearTimeTrend" => linear_time_trend_b = p_linear_time_trend, 2, 2, ["X", "window"];
    "ma" => ma_b = p_ma, 3, 3, ["X", "window", "maType"];
    "sma" => sma_b = p_sma, 2, 2, ["X", "window"];
    "t3" => t3_b = p_t3, 2, 3, ["X", "window", "vfactor"];
    "tema" => tema_b = p_tema, 2, 2, ["X", "window"];
    "trima" => trima_b = p_trima, 2, 2, ["X", "window"];
    "wilder" => wilder_b = p_wilder, 2, 2, ["X", "window"];
    "wma" => wma_b = p_wma, 2, 2, ["X", "window"];
}
