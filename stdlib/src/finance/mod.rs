//! Finance helpers: maxDrawdown (alias mdd), cummdd, trueRange.

use beluga_runtime::CallCtx;
use crate::util::aggregate;
use crate::window::{call_prep, check_num, opt_bool, Prep, Slice};
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Result, Value};

/// Running maximum drawdown of `v` (nulls skipped): the largest fall from a previous peak,
/// as a fraction of the peak (`ratio`) or in absolute value. Null until the first value.
pub fn running_mdd(v: &[f64], ratio: bool) -> Vec<f64> {
    let mut peak = f64::NAN;
    let mut best = f64::NAN;
    v.iter()
        .map(|&x| {
            if !x.is_nan() {
                if peak.is_nan() || x > peak {
                    peak = x;
                }
                let dd = if ratio {
                    if peak == 0.0 { 0.0 } else { (peak - x) / peak }
                } else {
                    peak - x
                };
                best = if best.is_nan() { dd } else { best.max(dd) };
            }
            best
        })
        .collect()
}

fn out_col(ty: DataType, ratio: bool, v: Vec<f64>) -> Column {
    if ratio || ty.is_floating() {
        Column::from_vec(DataType::Double, v.into_iter().map(f64::from_f64).collect::<Vec<f64>>())
    } else {
        crate::window_kernels::long_or_int(
            if ty == DataType::Long { DataType::Long } else { DataType::Int },
            v.into_iter().map(|f| if f.is_nan() { i64::NULL } else { f.round() as i64 }).collect(),
        )
    }
}

fn max_drawdown(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let ratio = opt_bool("maxDrawdown", &a, 1, "ratio", true)?;
    aggregate("maxDrawdown", &a[0], &|c: &Column| {
        let s = Slice::whole(c);
        check_num("maxDrawdown", &s, false)?;
        let r = running_mdd(&s.f64s(), ratio);
        let last = r.last().copied().unwrap_or(f64::NAN);
        Ok(Value::Scalar(out_col(c.ty, ratio, vec![last])))
    })
}

pub fn p_cummdd(a: &[Value]) -> Result<Prep<'_>> {
    let ratio = opt_bool("cummdd", a, 1, "ratio", true)?;
    Ok(Prep::new(
        "cummdd",
        vec![a[0].clone()],
        Box::new(move |s: &[Slice]| {
            check_num("cummdd", &s[0], false)?;
            Ok(vec![out_col(s[0].ty(), ratio, running_mdd(&s[0].f64s(), ratio))])
        }),
    ))
}

/// trueRange(high, low, close): max(high - low, |high - prevClose|, |prevClose - low|); the
/// first row (no previous close) is null.
pub fn p_true_range(a: &[Value]) -> Result<Prep<'_>> {
    Ok(Prep::new(
        "trueRange",
        a[..3].to_vec(),
        Box::new(|s: &[Slice]| {
            for x in s {
                check_num("trueRange", x, false)?;
            }
            let (h, l, c) = (s[0].f64s(), s[1].f64s(), s[2].f64s());
            let out: Vec<f64> = (0..h.len())
                .map(|i| {
                    if i == 0 {
                        return f64::NULL;
                    }
                    let pc = c[i - 1];
                    if h[i].is_nan() || l[i].is_nan() || pc.is_nan() {
                        return f64::NULL;
                    }
                    let r = (h[i] - l[i]).abs().max((h[i] - pc).abs()).max((pc - l[i]).abs());
                    f64::from_f64(r)
                })
                .collect();
            Ok(vec![Column::from_vec(DataType::Double, out)])
        }),
    ))
}

fn cummdd(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    call_prep(p_cummdd, &a)
}
fn true_range(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    call_prep(p_true_range, &a)
}

pub const DEFS: &[Builtin] = &[
    fp("cummdd", Kind::VectorToVector, 1, 2, cummdd, &["X", "ratio"]).segmented(crate::context_kernel!(p_cummdd)),
    fp("maxDrawdown", Kind::Aggregate, 1, 2, max_drawdown, &["X", "ratio"]),
    fp("mdd", Kind::Aggregate, 1, 2, max_drawdown, &["X", "ratio"]),
    fp("trueRange", Kind::VectorToVector, 3, 3, true_range, &["high", "low", "close"]).segmented(crate::context_kernel!(p_true_range)),
];

pub mod series;
pub mod ta;

/// The finance family's rows: drawdown helpers, TA-lib moving averages, series analysis.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, ta::DEFS, series::DEFS].iter().for_each(|defs| r.extend(defs));
}
