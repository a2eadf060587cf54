//! Statistic kernels shared by the m*, tm* and cum* families: each takes the data slices, the
//! window bounds and the gate, picks the physical type once and runs one window state through
//! the rolling driver. The families only differ in how they build bounds and gates
//! ([`m_prep`], [`tm_prep`], [`cum_prep`]).

use crate::window::{
    check_num, roll_f64, roll_vec, rolling, sum_type, time_bounds, Bounds, Gate, Prep, Slice, WinLen, WinSpec,
    Window,
};
use crate::window_order::{OrdOp, OrderStat};
use crate::window_stats::*;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Error, Result, Value};

/// A statistic over windows: data slices, bounds, gate → output columns.
pub type StatFn<'a> = Box<dyn Fn(&[Slice], &Bounds, Gate) -> Result<Vec<Column>> + Send + Sync + 'a>;

fn unsup(name: &str, s: &Slice) -> Error {
    Error::unsupported(name, s.ty())
}

/// An m-function: count window (or a DURATION over the row labels of an indexed matrix).
pub fn m_prep<'a>(name: &'static str, data: Vec<Value>, spec: &WinSpec, f: StatFn<'a>) -> Prep<'a> {
    m_prep_gate(name, data, spec, spec.gate(), f)
}

/// An m-function with an explicit gate (mcount's default minPeriods is 1).
pub fn m_prep_gate<'a>(name: &'static str, data: Vec<Value>, spec: &WinSpec, gate: Gate, f: StatFn<'a>) -> Prep<'a> {
    match &spec.len {
        WinLen::Int(w) => {
            let w = *w as usize;
            Prep::new(name, data, Box::new(move |s: &[Slice]| f(s, &Bounds::Count(w), gate)))
        }
        WinLen::Dur(..) => {
            let len = spec.len.clone();
            let mut p = Prep::new(
                name,
                data,
                Box::new(move |s: &[Slice]| {
                    let (t, d) = s.split_last().ok_or_else(|| Error::arg(format!("[{name}] missing time index")))?;
                    let b = time_bounds(name, t, &len)?;
                    f(d, &b, gate)
                }),
            );
            p.wants_labels = true;
            p
        }
    }
}

/// A tm-function: the first data argument is the time column T.
pub fn tm_prep<'a>(name: &'static str, data: Vec<Value>, len: WinLen, f: StatFn<'a>) -> Prep<'a> {
    let mut p = Prep::new(
        name,
        data,
        Box::new(move |s: &[Slice]| {
            let b = time_bounds(name, &s[0], &len)?;
            f(&s[1..], &b, Gate::Open)
        }),
    );
    p.numeric_only = false;
    p
}

/// A cum-function: the window grows from the first row.
pub fn cum_prep<'a>(name: &'static str, data: Vec<Value>, f: StatFn<'a>) -> Prep<'a> {
    Prep::new(name, data, Box::new(move |s: &[Slice]| f(s, &Bounds::Cum, Gate::Open)))
}

fn one(c: Option<Column>, name: &str, s: &Slice) -> Result<Vec<Column>> {
    c.map(|c| vec![c]).ok_or_else(|| unsup(name, s))
}

/// Sum: INT/LONG for integral input (exact), DOUBLE for floating input.
pub fn k_sum<'a>(name: &'static str) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        check_num(name, x, false)?;
        let n = x.len;
        let ty = sum_type(x.ty());
        let c = if ty == DataType::Double && matches!((b, g), (Bounds::Cum, Gate::Open)) {
            // cumsum: a plain running sum, as numpy's cumsum adds (no window state)
            with_slice!(x, v => Column::from_vec(DataType::Double, running_sum(v)))
        } else if ty == DataType::Double {
            match (b, g) {
                (Bounds::Count(w), Gate::Warmup(k)) if *w == k && *w > 0 => crate::window_fast::count_window(false, true, x, *w),
                _ => None,
            }
            .or_else(|| with_slice!(x, v => roll_f64(&mut Moments::new(v, Mom::Sum), n, b, g)))
        } else {
            with_slice!(x, v => {
                let r: Vec<i64> = roll_vec(&mut SumInt::new(v), n, b, g, |a| a);
                long_or_int(ty, r)
            })
        };
        one(c, name, x)
    })
}

/// Running sum of the non-null values, left to right: NULL before the first one, and a
/// NULL row repeats the sum so far. The nulls are found once; the loop after the first
/// value adds a zero in their place (a select, no branch per row).
fn running_sum<T: Native>(v: &[T]) -> Vec<f64> {
    let first = v.iter().position(|a| !a.is_null()).unwrap_or(v.len());
    let mut out = Vec::with_capacity(v.len());
    out.resize(first, f64::NULL);
    let mut acc = 0.0f64;
    out.extend(v[first..].iter().map(|a| {
        let x = a.to_f64();
        acc += if a.is_null() { 0.0 } else { x };
        acc
    }));
    out
}

/// An i64 result as LONG, or narrowed to INT.
pub fn long_or_int(ty: DataType, r: Vec<i64>) -> Column {
    if ty == DataType::Long {
        Column::from_vec(DataType::Long, r)
    } else {
        Column::from_vec(DataType::Int, r.into_iter().map(|a| if a.is_null() { i32::NULL } else { a as i32 }).collect::<Vec<i32>>())
    }
}

/// Moment statistics (avg, sum2, var, std, skew, kurtosis...): DOUBLE.
pub fn k_moment<'a>(name: &'static str, kind: Mom) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        check_num(name, x, false)?;
        let n = x.len;
        // the default m-window (count w, first w-1 rows null) of avg, and of sum over DOUBLE:
        // one tight running-sum loop (also per `context by` group, which comes here)
        if let (Bounds::Count(w), Gate::Warmup(k)) = (b, g) {
            if *w == k && *w > 0 {
                if let Some(c) = crate::window_fast::count_window(kind == Mom::Avg, kind == Mom::Sum, x, *w) {
                    return Ok(vec![c]);
                }
            }
        }
        one(with_slice!(x, v => roll_f64(&mut Moments::new(v, kind), n, b, g)), name, x)
    })
}

/// Count of non-null values: INT.
pub fn k_count<'a>(_name: &'static str) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        let n = x.len;
        let r: Vec<i64> = match with_slice!(x, v => roll_vec(&mut CountW::new(v), n, b, g, |a| a)) {
            Some(r) => r,
            None => {
                // STRING/SYMBOL: count through the null mask
                let mask: Vec<i8> = (0..n).map(|i| if x.is_null(i) { i8::NULL } else { 1 }).collect();
                roll_vec(&mut CountW::new(&mask), n, b, g, |a| a)
            }
        };
        Ok(vec![long_or_int(DataType::Int, r)])
    })
}

/// Product: LONG for integral input, DOUBLE for floating input.
pub fn k_prod<'a>(name: &'static str) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        check_num(name, x, false)?;
        let n = x.len;
        let c = if x.ty().is_floating() {
            with_slice!(x, v => {
                let mut w = Prod::new(v, 1.0f64, |a| a.to_f64(), |a, b| a * b);
                roll_f64(&mut w, n, b, g)
            })
        } else {
            with_slice!(x, v => {
                use beluga_runtime::kernels::intacc;
                let mut w = Prod::new(v, 1i128, |a| a.to_i64() as i128, intacc::mul);
                Column::from_vec(DataType::Long, roll_vec(&mut w, n, b, g, intacc::to_long))
            })
        };
        one(c, name, x)
    })
}

/// Max/min value (same type as X) or its position within the window (INT).
pub fn k_extreme<'a>(name: &'static str, max: bool, index: bool, last_tie: bool) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        check_num(name, x, true)?;
        let n = x.len;
        let ty = x.ty();
        let c = if index {
            with_slice!(x, v => {
                let mut w = Extreme::new(v, max, last_tie);
                let mut out = vec![i32::NULL; n];
                rolling(&mut w, n, b, g, |i, r| {
                    if let Some((_, j)) = r {
                        out[i] = (j - b.start(i).min(i)) as i32;
                    }
                });
                Column::from_vec(DataType::Int, out)
            })
        } else {
            with_slice!(x, v => Column::from_vec(ty, roll_vec(&mut Extreme::new(v, max, last_tie), n, b, g, |(a, _)| a)))
        };
        one(c, name, x)
    })
}

/// First/last element of the window, nulls included (same type as X).
pub fn k_ends<'a>(_name: &'static str, last: bool) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        let n = x.len;
        let ty = x.ty();
        match with_slice!(x, v => Column::from_vec(ty, roll_vec(&mut Ends::new(v, last), n, b, g, |a| a))) {
            Some(c) => Ok(vec![c]),
            None => Ok(vec![literal_rows(x, if last { LitMode::LastElem } else { LitMode::FirstElem }, b, g)]),
        }
    })
}

/// First/last non-null value (same type as X) or its index within the window (INT, -1 if none).
pub fn k_nonnull<'a>(name: &'static str, mode: NN) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        let n = x.len;
        let ty = x.ty();
        let idx = matches!(mode, NN::IFirst | NN::ILast);
        let c = with_slice!(x, v => {
            let mut w = NonNull::new(v, mode);
            if idx {
                Column::from_vec(DataType::Int, roll_vec(&mut w, n, b, g, |r| match r {
                    ValOrIdx::Idx(k) => k as i32,
                    ValOrIdx::Val(_) => i32::NULL,
                }))
            } else {
                Column::from_vec(ty, roll_vec(&mut w, n, b, g, |r| match r {
                    ValOrIdx::Val(a) => a,
                    ValOrIdx::Idx(_) => Native::NULL,
                }))
            }
        });
        match c {
            Some(c) => Ok(vec![c]),
            None if mode == NN::First => Ok(vec![literal_rows(x, LitMode::FirstValid, b, g)]),
            None if mode == NN::Last => Ok(vec![literal_rows(x, LitMode::LastValid, b, g)]),
            None => Err(unsup(name, x)),
        }
    })
}

/// Which row a [`LitPos`] state reports.
#[derive(Clone, Copy, PartialEq)]
enum LitMode {
    FirstElem,
    LastElem,
    FirstValid,
    LastValid,
}

/// Positional rules of [`Ends`] / [`NonNull`] for STRING and SYMBOL columns: reports the row,
/// which is then gathered from the column.
struct LitPos {
    nn: Vec<bool>,
    q: std::collections::VecDeque<usize>,
    mode: LitMode,
}

impl Window for LitPos {
    type Out = usize;
    fn add(&mut self, i: usize) {
        if self.nn[i] {
            self.q.push_back(i);
        }
    }
    fn remove(&mut self, i: usize) {
        if self.q.front() == Some(&i) {
            self.q.pop_front();
        }
    }
    fn get(&mut self, s: usize, e: usize) -> Option<usize> {
        match self.mode {
            LitMode::FirstElem => Some(s),
            LitMode::LastElem => Some(e - 1),
            LitMode::FirstValid => self.q.front().copied(),
            LitMode::LastValid => self.q.back().copied(),
        }
    }
    fn count(&self) -> usize {
        self.q.len()
    }
}

fn literal_rows(x: &Slice, mode: LitMode, b: &Bounds, g: Gate) -> Column {
    let n = x.len;
    let mut w = LitPos { nn: (0..n).map(|i| !x.is_null(i)).collect(), q: Default::default(), mode };
    let mut idx = vec![-1i64; n];
    rolling(&mut w, n, b, g, |i, r| {
        if let Some(j) = r {
            idx[i] = (x.off + j) as i64;
        }
    });
    x.col.take(&idx)
}

/// Order statistics (median, percentile, mad): DOUBLE. Rank: INT, or DOUBLE for average ties / percent.
pub fn k_order<'a>(name: &'static str, op: OrdOp) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        let rank = matches!(op, OrdOp::Rank(_));
        check_num(name, x, rank)?;
        let n = x.len;
        let int_out = match op {
            OrdOp::Rank(o) => !o.percent && o.ties != crate::window_order::Ties::Average,
            _ => false,
        };
        let c = with_slice!(x, v => {
            if let (OrdOp::Rank(o), Bounds::Count(len)) = (op, b) {
                if *len <= crate::window_order::SCAN_RANK_MAX {
                    let mut w = crate::window_order::ScanRank::new(v, o);
                    let c = if int_out { Column::from_vec(DataType::Int, roll_vec(&mut w, n, b, g, |r| r as i32)) } else { roll_f64(&mut w, n, b, g) };
                    return one(Some(c), name, x);
                }
            }
            let mut w = OrderStat::new(v, op);
            if int_out {
                Column::from_vec(DataType::Int, roll_vec(&mut w, n, b, g, |r| r as i32))
            } else {
                roll_f64(&mut w, n, b, g)
            }
        });
        one(c, name, x)
    })
}

/// Pair statistics (corr, covar, beta, wsum, wavg, slr, mse): DOUBLE, one column per kind.
pub fn k_pair<'a>(name: &'static str, kinds: &'a [PairStat]) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let (x, y) = (&s[0], &s[1]);
        check_num(name, x, false)?;
        check_num(name, y, false)?;
        let n = x.len;
        let (xv, yv) = (x.f64s(), y.f64s());
        Ok(kinds.iter().map(|&k| roll_f64(&mut PairMoments::new(&xv, &yv, k), n, b, g)).collect())
    })
}

/// Count of consecutive left neighbours strictly below (top) or above (low) each element,
/// within the window; nulls compare as the minimum.
pub struct Range {
    prev: Vec<usize>,
    nn: Vec<bool>,
    n: usize,
}

impl Range {
    pub fn new<T: Native>(v: &[T], top: bool) -> Range {
        // prev[i] = 1 + position of the nearest left element that stops the run (0 if none)
        let mut prev = vec![0usize; v.len()];
        let mut stack: Vec<usize> = Vec::new();
        let lt = |a: T, b: T| -> bool {
            match (a.is_null(), b.is_null()) {
                (true, true) => false,
                (true, false) => true,
                (false, true) => false,
                _ => a < b,
            }
        };
        for i in 0..v.len() {
            // pop the elements that are part of the run: strictly below (top) / above (low)
            while let Some(&j) = stack.last() {
                let part = if top { lt(v[j], v[i]) } else { lt(v[i], v[j]) };
                if part {
                    stack.pop();
                } else {
                    break;
                }
            }
            prev[i] = stack.last().map(|&j| j + 1).unwrap_or(0);
            stack.push(i);
        }
        Range { prev, nn: v.iter().map(|x| !x.is_null()).collect(), n: 0 }
    }
}

impl Window for Range {
    type Out = i64;
    fn add(&mut self, i: usize) {
        if self.nn[i] {
            self.n += 1;
        }
    }
    fn remove(&mut self, i: usize) {
        if self.nn[i] {
            self.n -= 1;
        }
    }
    fn get(&mut self, s: usize, e: usize) -> Option<i64> {
        let i = e - 1;
        Some((i - self.prev[i].max(s)) as i64)
    }
    fn count(&self) -> usize {
        self.n
    }
}

/// mTopRange / mLowRange / tmTopRange / tmLowRange: INT.
pub fn k_range<'a>(name: &'static str, top: bool) -> StatFn<'a> {
    Box::new(move |s, b, g| {
        let x = &s[0];
        check_num(name, x, true)?;
        let n = x.len;
        let c = with_slice!(x, v => long_or_int(DataType::Int, roll_vec(&mut Range::new(v, top), n, b, g, |a| a)));
        one(c, name, x)
    })
}
