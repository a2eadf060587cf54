//! Moving-window machinery shared by the m*, tm*, cum*, TopN and TA-lib families, and the
//! m-function builtin table.
//!
//! One driver, [`rolling`], walks the window of every row (count-based, time-based or
//! cumulative, see [`Bounds`]) and keeps a [`Window`] state up to date with `add` (an element
//! enters on the right) and `remove` (an element leaves on the left) — together they are the
//! `update(start, end)` step; `get(start, end)` reads the result. Every m-function is a small
//! state struct (window_stats.rs, window_order.rs, window_misc.rs), so each function is O(n)
//! (O(n log n) for the order statistics).
//!
//! Kernels read typed ranges of a column ([`Slice`]): matrix columns are ranges of one buffer
//! and `context by` groups are ranges of a permuted column, so neither copies its input.
//! Every builtin is split into a `p_*` function that checks the arguments and returns a
//! [`Prep`] (data arguments + a kernel over slices), and [`run`] which applies the kernel to
//! the data forms (vector, matrix, table, tuple). [`segmented`] applies the same kernel to
//! contiguous segments; each window row's `segmented` slot ([`context_kernel!`]) runs its
//! own prep function that way for the SQL executor's `context by`.

use crate::util::opt;
use crate::window_fns as wf;
use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::value::Matrix;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

/// A contiguous range `[off, off + len)` of a column: the unit every kernel works on.
#[derive(Clone, Copy)]
pub struct Slice<'a> {
    pub col: &'a Column,
    pub off: usize,
    pub len: usize,
}

impl<'a> Slice<'a> {
    pub fn whole(col: &'a Column) -> Slice<'a> {
        Slice { col, off: 0, len: col.len() }
    }
    pub fn ty(&self) -> DataType {
        self.col.ty
    }
    /// Values as f64, NaN for nulls (copies; used by the slow generic paths).
    pub fn f64s(&self) -> Vec<f64> {
        let r = self.off..self.off + self.len;
        beluga_runtime::with_numeric!(&*self.col.data, v => v[r.clone()]
            .iter()
            .map(|x| if x.is_null() { f64::NAN } else { x.to_f64() })
            .collect())
        .unwrap_or_else(|| vec![f64::NAN; self.len])
    }
    /// Values as i64 (null kept as the i64 sentinel); for time columns.
    pub fn i64s(&self) -> Vec<i64> {
        let r = self.off..self.off + self.len;
        beluga_runtime::with_numeric!(&*self.col.data, v => v[r.clone()]
            .iter()
            .map(|x| if x.is_null() { i64::NULL } else { x.to_i64() })
            .collect())
        .unwrap_or_else(|| vec![i64::NULL; self.len])
    }
    pub fn is_null(&self, i: usize) -> bool {
        self.col.is_null(self.off + i)
    }
}

/// Dispatch on the physical type of a slice, binding `$v: &[T]` to its range.
/// Evaluates to `Option<_>` (None for STRING/SYMBOL storage).
#[macro_export]
macro_rules! with_slice {
    ($s:expr, $v:ident => $body:expr) => {{
        let s: &$crate::window::Slice = &$s;
        let range = s.off..s.off + s.len;
        beluga_runtime::with_numeric!(&*s.col.data, all => {
            let $v = &all[range.clone()];
            $body
        })
    }};
}

// ---------------------------------------------------------------------------------------------
// window state and driver

/// State of one sliding window. Elements enter on the right (`add`) and leave on the left
/// (`remove`), both in index order; indexes are relative to the slice the state was built on.
pub trait Window {
    type Out;
    fn add(&mut self, i: usize);
    fn remove(&mut self, i: usize);
    /// Result for the window `[start, end)` (None = null).
    fn get(&mut self, start: usize, end: usize) -> Option<Self::Out>;
    /// Observations counted by `minPeriods` (non-null elements, unless documented otherwise).
    fn count(&self) -> usize;
}

/// Where each row's window starts (it always ends at the row itself, inclusive).
pub enum Bounds {
    /// the last `w` rows
    Count(usize),
    /// from the first row (cum*)
    Cum,
    /// precomputed starts (time windows)
    Starts(Vec<usize>),
}

impl Bounds {
    #[inline]
    pub fn start(&self, i: usize) -> usize {
        match self {
            Bounds::Count(w) => (i + 1).saturating_sub(*w),
            Bounds::Cum => 0,
            Bounds::Starts(s) => s[i],
        }
    }
}

/// When a row's result is null regardless of the state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gate {
    /// never (tm*, cum*)
    Open,
    /// the first `w - 1` rows (m* without minPeriods)
    Warmup(usize),
    /// windows with fewer than `p` observations (m* with minPeriods)
    MinCount(usize),
}

/// The driver: slide over rows `0..n`, update the state, emit each row's result.
pub fn rolling<W: Window>(w: &mut W, n: usize, bounds: &Bounds, gate: Gate, mut emit: impl FnMut(usize, Option<W::Out>)) {
    let (mut ls, mut le) = (0usize, 0usize);
    for i in 0..n {
        let s = bounds.start(i).min(i);
        let e = i + 1;
        while le < e {
            w.add(le);
            le += 1;
        }
        while ls < s {
            w.remove(ls);
            ls += 1;
        }
        let open = match gate {
            Gate::Open => true,
            Gate::Warmup(k) => i + 1 >= k,
            Gate::MinCount(p) => w.count() >= p,
        };
        emit(i, if open { w.get(s, e) } else { None });
    }
}

/// Run the driver into a typed vector (None → null).
pub fn roll_vec<W: Window, O: Native>(w: &mut W, n: usize, bounds: &Bounds, gate: Gate, conv: impl Fn(W::Out) -> O) -> Vec<O> {
    let mut out = vec![O::NULL; n];
    rolling(w, n, bounds, gate, |i, r| {
        if let Some(v) = r {
            out[i] = conv(v);
        }
    });
    out
}

/// Run an f64-valued state into a DOUBLE column.
pub fn roll_f64<W: Window<Out = f64>>(w: &mut W, n: usize, bounds: &Bounds, gate: Gate) -> Column {
    Column::from_vec(DataType::Double, roll_vec(w, n, bounds, gate, f64::from_f64))
}

// ---------------------------------------------------------------------------------------------
// window arguments

/// Window length as given by the user.
#[derive(Clone, Debug, PartialEq)]
pub enum WinLen {
    /// an integer: rows for m*, time units of T for tm*
    Int(i64),
    /// a DURATION such as `3d`, `1w`, `2M`
    Dur(i64, Arc<str>),
}

#[derive(Clone, Debug)]
pub struct WinSpec {
    pub len: WinLen,
    pub min_periods: Option<usize>,
}

impl WinSpec {
    /// Rows of a count window (for a DURATION: error, it needs a time axis).
    pub fn rows(&self, name: &str) -> Result<usize> {
        match self.len {
            WinLen::Int(w) => Ok(w as usize),
            WinLen::Dur(..) => Err(Error::arg(format!(
                "[{name}] a DURATION window needs an indexed series or matrix (X with a time index)"
            ))),
        }
    }
    /// Gate of an m-function: the first window-1 rows are null unless minPeriods is given.
    pub fn gate(&self) -> Gate {
        match (&self.len, self.min_periods) {
            (_, Some(p)) => Gate::MinCount(p),
            (WinLen::Int(w), None) => Gate::Warmup(*w as usize),
            (WinLen::Dur(..), None) => Gate::MinCount(1),
        }
    }
}

/// Parse `window` (positive integer or DURATION) and the optional `minPeriods`.
pub fn win_spec(name: &str, window: &Value, min_periods: Option<&Value>) -> Result<WinSpec> {
    let len = win_len(name, window)?;
    let min_periods = match min_periods.filter(|v| !matches!(v, Value::Void)) {
        None => None,
        Some(v) => {
            let p = v
                .as_i64()
                .filter(|p| *p >= 1)
                .ok_or_else(|| Error::arg(format!("minPeriods of [{name}] must be a positive integer")))?;
            if let WinLen::Int(w) = len {
                if p > w {
                    return Err(Error::arg(format!("minPeriods of [{name}] must be no greater than window")));
                }
            }
            Some(p as usize)
        }
    };
    Ok(WinSpec { len, min_periods })
}

pub fn win_len(name: &str, window: &Value) -> Result<WinLen> {
    match window {
        Value::Duration(n, u) => {
            if *n <= 0 {
                return Err(Error::arg(format!("window of [{name}] must be a positive duration")));
            }
            Ok(WinLen::Dur(*n, u.clone()))
        }
        v => {
            let w = match v {
                Value::Scalar(c) if c.ty.is_integral() => v.as_i64(),
                Value::Scalar(c) if c.ty.is_floating() => v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64),
                _ => None,
            };
            match w {
                Some(w) if w >= 1 => Ok(WinLen::Int(w)),
                _ => Err(Error::arg(format!("window of [{name}] must be a positive integer or a DURATION"))),
            }
        }
    }
}

/// Optional boolean argument at position `i`.
pub fn opt_bool(name: &str, args: &[Value], i: usize, what: &str, default: bool) -> Result<bool> {
    match opt(args, i) {
        None => Ok(default),
        Some(v) => v
            .as_bool()
            .ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] must be a boolean"))),
    }
}

/// Optional string argument at position `i`.
pub fn opt_str<'a>(name: &str, args: &'a [Value], i: usize, what: &str, default: &'a str) -> Result<&'a str> {
    match opt(args, i) {
        None => Ok(default),
        Some(v) => v.as_str().ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] must be a string"))),
    }
}

/// Required numeric argument at position `i`.
pub fn num_arg(name: &str, args: &[Value], i: usize, what: &str) -> Result<f64> {
    opt(args, i)
        .and_then(|v| v.as_f64())
        .ok_or_else(|| Error::arg(format!("The {what} argument of [{name}] must be a number")))
}

pub use crate::window_time::{time_bounds, time_bounds_ex};

// ---------------------------------------------------------------------------------------------
// prepared calls and data forms

/// Kernel over slices of the data arguments (all of the same length); returns one column per
/// output (two for mslr/mmse/linearTimeTrend, groupCount for dynamicGroupCum*).
pub type Kernel<'k> = Box<dyn Fn(&[Slice]) -> Result<Vec<Column>> + Send + Sync + 'k>;

/// A checked call: the data arguments in kernel order and the kernel.
pub struct Prep<'k> {
    pub name: &'static str,
    pub data: Vec<Value>,
    pub kernel: Kernel<'k>,
    /// The kernel wants a time axis as an extra last slice: the row labels of an indexed
    /// matrix (m-functions with a DURATION window).
    pub wants_labels: bool,
    /// Table inputs: only BOOL and numeric columns are computed, others are kept.
    pub numeric_only: bool,
}

impl<'k> Prep<'k> {
    pub fn new(name: &'static str, data: Vec<Value>, kernel: Kernel<'k>) -> Prep<'k> {
        Prep { name, data, kernel, wants_labels: false, numeric_only: true }
    }
}

fn column_of<'v>(name: &str, v: &'v Value) -> Result<&'v Column> {
    match v {
        Value::Vector(c) | Value::Scalar(c) | Value::Pair(c) => Ok(c),
        other => Err(Error::unsupported(name, crate::util::describe(other))),
    }
}

fn len_err(name: &str) -> Error {
    Error::size(format!("The arguments of [{name}] must have the same length"))
}

/// Apply a prepared kernel to the data forms: vectors, matrices (column by column), tables
/// (column by column), tuples (element by element).
pub fn run(p: Prep) -> Result<Value> {
    let p = decimal::adapt(p);
    let name = p.name;
    match &p.data[0] {
        Value::Matrix(m) => run_matrix(&p, m),
        Value::Table(t) => run_table(&p, t),
        Value::Tuple(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                let mut data = Vec::with_capacity(p.data.len());
                data.push(item.clone());
                for d in &p.data[1..] {
                    data.push(match d {
                        Value::Tuple(o) => o.get(k).cloned().ok_or_else(|| len_err(name))?,
                        other => other.clone(),
                    });
                }
                let sub = Prep { name, data, kernel: Box::new(|s: &[Slice]| (p.kernel)(s)), wants_labels: p.wants_labels, numeric_only: p.numeric_only };
                out.push(run(sub)?);
            }
            Ok(Value::tuple(out))
        }
        Value::Void => Err(Error::unsupported(name, "VOID")),
        first => {
            let n = column_of(name, first)?.len();
            let cols: Vec<&Column> = p.data.iter().map(|d| column_of(name, d)).collect::<Result<_>>()?;
            if cols.iter().any(|c| c.len() != n) {
                return Err(len_err(name));
            }
            if p.wants_labels {
                return Err(Error::arg(format!("[{name}] a DURATION window needs an indexed series or matrix (X with a time index)")));
            }
            let slices: Vec<Slice> = cols.iter().map(|c| Slice::whole(c)).collect();
            let outs = (p.kernel)(&slices)?;
            let scalar = matches!(first, Value::Scalar(_));
            Ok(assemble_outs(outs, |c| if scalar { Value::Scalar(c) } else { Value::Vector(c) }))
        }
    }
}

fn assemble_outs(mut outs: Vec<Column>, wrap: impl Fn(Column) -> Value) -> Value {
    if outs.len() == 1 {
        wrap(outs.remove(0))
    } else {
        Value::tuple(outs.into_iter().map(wrap).collect())
    }
}

fn run_matrix(p: &Prep, m: &Matrix) -> Result<Value> {
    let name = p.name;
    let rows = m.rows;
    let labels: Option<Column> = if p.wants_labels {
        match m.row_labels.as_deref() {
            Some(Value::Vector(c)) if c.len() == rows => Some(c.clone()),
            _ => {
                return Err(Error::arg(format!(
                    "[{name}] a DURATION window needs an indexed series or matrix (X with a time index)"
                )))
            }
        }
    } else {
        None
    };
    for d in &p.data {
        match d {
            Value::Matrix(o) if o.rows != rows || o.cols != m.cols => return Err(len_err(name)),
            Value::Matrix(_) => {}
            other => {
                if column_of(name, other)?.len() != rows {
                    return Err(len_err(name));
                }
            }
        }
    }
    let column = |c: usize| -> Result<Vec<Column>> {
        let mut slices = Vec::with_capacity(p.data.len() + 1);
        for d in &p.data {
            slices.push(match d {
                Value::Matrix(o) => Slice { col: &o.data, off: c * rows, len: rows },
                other => Slice::whole(column_of(name, other)?),
            });
        }
        if let Some(l) = &labels {
            slices.push(Slice::whole(l));
        }
        (p.kernel)(&slices)
    };
    let mut per_out: Vec<Vec<Column>> = Vec::new();
    for outs in per_column(m.cols, m.cols.saturating_mul(rows), &column)? {
        if per_out.is_empty() {
            per_out = outs.iter().map(|_| Vec::with_capacity(m.cols)).collect();
        }
        for (k, o) in outs.into_iter().enumerate() {
            per_out[k].push(o);
        }
    }
    if per_out.is_empty() {
        // a matrix without columns: one empty output
        return Ok(Value::Matrix(Arc::new(m.clone())));
    }
    let mats: Vec<Value> = per_out
        .into_iter()
        .map(|cols| {
            let ty = cols[0].ty;
            let refs: Vec<&Column> = cols.iter().collect();
            let data = Column::concat(ty, &refs);
            Value::Matrix(Arc::new(Matrix { data, ..m.clone() }))
        })
        .collect();
    Ok(if mats.len() == 1 { mats.into_iter().next().unwrap_or(Value::Void) } else { Value::tuple(mats) })
}

pub use crate::util::{per_column, PAR_COLS_MIN};

fn run_table(p: &Prep, t: &Table) -> Result<Value> {
    let name = p.name;
    let mut per_out: Vec<Vec<Column>> = Vec::new();
    let mut n_out = 0usize;
    for (ci, col) in t.cols.iter().enumerate() {
        let computed = !p.numeric_only || col.ty.is_numeric() || col.ty == DataType::Bool || col.ty.decimal_scale().is_some();
        let outs = if computed {
            let mut slices = Vec::with_capacity(p.data.len());
            for d in &p.data {
                slices.push(match d {
                    Value::Table(o) => {
                        let oc = o.cols.get(ci).ok_or_else(|| len_err(name))?;
                        if oc.len() != col.len() {
                            return Err(len_err(name));
                        }
                        Slice::whole(oc)
                    }
                    other => {
                        let c = column_of(name, other)?;
                        if c.len() != col.len() {
                            return Err(len_err(name));
                        }
                        Slice::whole(c)
                    }
                });
            }
            let o = (p.kernel)(&slices)?;
            n_out = o.len();
            Some(o)
        } else {
            None
        };
        per_out.push(outs.unwrap_or_default());
    }
    let n_out = n_out.max(1);
    let mut tables = Vec::with_capacity(n_out);
    for k in 0..n_out {
        let cols: Vec<Column> = per_out
            .iter()
            .zip(&t.cols)
            .map(|(o, orig)| o.get(k).cloned().unwrap_or_else(|| orig.clone()))
            .collect();
        tables.push(Value::table(Table::new(t.names.clone(), cols)?));
    }
    Ok(if tables.len() == 1 { tables.remove(0) } else { Value::tuple(tables) })
}

/// Run the kernel of a prepared call on contiguous segments `[start, end)` of its (vector)
/// data arguments and concatenate the outputs in segment order: what `context by` needs.
pub fn run_segments(p: Prep, segs: &[(usize, usize)]) -> Result<Value> {
    let p = decimal::adapt(p);
    let name = p.name;
    let cols: Vec<&Column> = p.data.iter().map(|d| column_of(name, d)).collect::<Result<_>>()?;
    let n = cols.first().map(|c| c.len()).unwrap_or(0);
    if cols.iter().any(|c| c.len() != n) {
        return Err(len_err(name));
    }
    if p.wants_labels {
        return Err(Error::arg(format!("[{name}] a DURATION window needs an indexed series or matrix (X with a time index)")));
    }
    if let Some(&(s, e)) = segs.iter().find(|&&(s, e)| s > e || e > n) {
        return Err(Error::arg(format!("[{name}] segment {s}..{e} is out of range")));
    }
    let segment = |g: usize| {
        let (s, e) = segs[g];
        let slices: Vec<Slice> = cols.iter().map(|c| Slice { col: c, off: s, len: e - s }).collect();
        (p.kernel)(&slices)
    };
    let total = segs.iter().map(|&(s, e)| e - s).sum();
    let mut per_out: Vec<Vec<Column>> = Vec::new();
    for outs in per_column(segs.len(), total, &segment)? {
        if per_out.is_empty() {
            per_out = outs.iter().map(|_| Vec::with_capacity(segs.len())).collect();
        }
        for (k, o) in outs.into_iter().enumerate() {
            per_out[k].push(o);
        }
    }
    if per_out.is_empty() {
        // no segments: run once on an empty range to learn the output types
        let slices: Vec<Slice> = cols.iter().map(|c| Slice { col: c, off: 0, len: 0 }).collect();
        return Ok(assemble_outs((p.kernel)(&slices)?, Value::Vector));
    }
    let outs: Vec<Column> = per_out
        .into_iter()
        .map(|cols| {
            let refs: Vec<&Column> = cols.iter().collect();
            Column::concat(cols[0].ty, &refs)
        })
        .collect();
    Ok(assemble_outs(outs, Value::Vector))
}

/// A builtin's argument check, shared by the builtin itself and by [`segmented`].
pub type PrepFn = for<'a> fn(&'a [Value]) -> Result<Prep<'a>>;

/// Run prep function `prep` (a window builtin's argument check and kernel) with its usual
/// arguments, where the vector arguments are whole (group-permuted) columns, over each
/// segment `[start, end)` independently, without copying the inputs.
pub fn segmented(prep: PrepFn, args: &[Value], segs: &[(usize, usize)]) -> Result<Value> {
    prep(args).and_then(|p| run_segments(p, segs))
}

/// The body of every window row's segmented kernel (`Caps::segmented`, read by the SQL
/// executor's `context by`; made per row by [`context_kernel!`]): `values` is the first
/// argument with groups contiguous, `rest` the other (constant) arguments, `offsets` the
/// group boundaries (`offsets[g]..offsets[g + 1]`). None when the function does not
/// return one column. The planner has checked the argument count against the row.
pub fn run_context(prep: PrepFn, values: &Column, rest: &[Value], offsets: &[usize]) -> Option<Result<Column>> {
    let mut args = Vec::with_capacity(rest.len() + 1);
    args.push(Value::Vector(values.clone()));
    args.extend(rest.iter().cloned());
    let segs: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
    match segmented(prep, &args, &segs) {
        Ok(Value::Vector(c)) => Some(Ok(c)),
        Ok(_) => None,
        Err(e) => Some(Err(e)),
    }
}

/// The segmented kernel of one window row: `Builtin::segmented(context_kernel!(p_mavg))`
/// gives the row a `fn` that runs that prep function over each `context by` group.
#[macro_export]
macro_rules! context_kernel {
    ($p:path) => {{
        fn kernel(
            values: &beluga_runtime::column::Column,
            rest: &[beluga_runtime::Value],
            offsets: &[usize],
        ) -> Option<beluga_runtime::Result<beluga_runtime::column::Column>> {
            $crate::window::run_context($p, values, rest, offsets)
        }
        kernel as beluga_runtime::registry::SegmentedKernel
    }};
}

/// Result type of sums (msum, cumsum, tmsum): LONG for integers, DOUBLE otherwise
/// (`kernels::intacc`, the one rule for integer sums and products).
pub fn sum_type(t: DataType) -> DataType {
    beluga_runtime::kernels::intacc::acc_type(t)
}

/// Check that a data slice is numeric (or BOOL); temporal too when `temporal_ok`.
pub fn check_num(name: &str, s: &Slice, temporal_ok: bool) -> Result<()> {
    let t = s.ty();
    if t.is_numeric() || t == DataType::Bool || (temporal_ok && t.is_temporal()) {
        Ok(())
    } else {
        Err(Error::unsupported(name, t))
    }
}

macro_rules! m_builtins {
    ($($name:literal => $f:ident $(= $prep:path)?, $min:literal, $max:literal, [$($p:literal),*];)*) => {
        /// The m-function builtins; those with a prep function carry its segmented kernel.
        pub const DEFS: &[Builtin] = &[
            $(fp($name, Kind::VectorToVector, $min, $max, wf::$f, &[$($p),*])$(.segmented(context_kernel!($prep)))?,)*
        ];
    };
}

m_builtins! {
    "mavg" => mavg = wf::p_mavg, 2, 3, ["X", "window", "minPeriods"];
    "mbeta" => mbeta = wf::p_mbeta, 3, 4, ["Y", "X", "window", "minPeriods"];
    "mcorr" => mcorr = wf::p_mcorr, 3, 4, ["X", "Y", "window", "minPeriods"];
    "mcount" => mcount = wf::p_mcount, 2, 3, ["X", "window", "minPeriods"];
    "mcovar" => mcovar = wf::p_mcovar, 3, 4, ["X", "Y", "window", "minPeriods"];
    "mcovarp" => mcovarp = wf::p_mcovarp, 3, 4, ["X", "Y", "window", "minPeriods"];
    "mfirst" => mfirst = wf::p_mfirst, 2, 3, ["X", "window", "minPeriods"];
    "mfirstNot" => mfirst_not = wf::p_mfirst_not, 2, 3, ["X", "window", "minPeriods"];
    "mifirstNot" => mifirst_not = wf::p_mifirst_not, 2, 3, ["X", "window", "minPeriods"];
    "milastNot" => milast_not = wf::p_milast_not, 2, 3, ["X", "window", "minPeriods"];
    "mimax" => mimax = wf::p_mimax, 2, 3, ["X", "window", "minPeriods"];
    "mimaxLast" => mimax_last = wf::p_mimax_last, 2, 3, ["X", "window", "minPeriods"];
    "mimin" => mimin = wf::p_mimin, 2, 3, ["X", "window", "minPeriods"];
    "miminLast" => mimin_last = wf::p_mimin_last, 2, 3, ["X", "window", "minPeriods"];
    "mkurtosis" => mkurtosis = wf::p_mkurtosis, 2, 4, ["X", "window", "biased", "minPeriods"];
    "mlast" => mlast = wf::p_mlast, 2, 3, ["X", "window", "minPeriods"];
    "mlastNot" => mlast_not = wf::p_mlast_not, 2, 3, ["X", "window", "minPeriods"];
    "mLowRange" => mlow_range = wf::p_mlow_range, 2, 3, ["X", "window", "minPeriods"];
    "mmad" => mmad = wf::p_mmad, 2, 4, ["X", "window", "useMedian", "minPeriods"];
    "mmax" => mmax = wf::p_mmax, 2, 3, ["X", "window", "minPeriods"];
    "mmaxPositiveStreak" => mmax_positive_streak = crate::window_misc::p_mmax_positive_streak, 2, 2, ["X", "window"];
    "mmed" => mmed = wf::p_mmed, 2, 3, ["X", "window", "minPeriods"];
    "mmin" => mmin = wf::p_mmin, 2, 3, ["X", "window", "minPeriods"];
    "mmse" => mmse = wf::p_mmse, 3, 4, ["Y", "X", "window", "minPeriods"];
    "movingTopNIndex" => moving_top_n_index, 3, 6, ["X", "window", "top", "ascending", "fixed", "tiesMethod"];
    "movingWindowData" => moving_window_data, 2, 3, ["X", "window", "fixed"];
    "movingWindowIndex" => moving_window_index, 2, 3, ["X", "window", "fixed"];
    "mpercentile" => mpercentile = wf::p_mpercentile, 3, 5, ["X", "percent", "window", "interpolation", "minPeriods"];
    "mprod" => mprod = wf::p_mprod, 2, 3, ["X", "window", "minPeriods"];
    "mrank" => mrank = wf::p_mrank, 3, 7, ["X", "ascending", "window", "ignoreNA", "tiesMethod", "percent", "minPeriods"];
    "mskew" => mskew = wf::p_mskew, 2, 4, ["X", "window", "biased", "minPeriods"];
    "mslr" => mslr = wf::p_mslr, 3, 4, ["Y", "X", "window", "minPeriods"];
    "mstd" => mstd = wf::p_mstd, 2, 3, ["X", "window", "minPeriods"];
    "mstdp" => mstdp = wf::p_mstdp, 2, 3, ["X", "window", "minPeriods"];
    "msum" => msum = wf::p_msum, 2, 3, ["X", "window", "minPeriods"];
    "msum2" => msum2 = wf::p_msum2, 2, 3, ["X", "window", "minPeriods"];
    "mTopRange" => mtop_range = wf::p_mtop_range, 2, 3, ["X", "window", "minPeriods"];
    "mvar" => mvar = wf::p_mvar, 2, 3, ["X", "window", "minPeriods"];
    "mvarp" => mvarp = wf::p_mvarp, 2, 3, ["X", "window", "minPeriods"];
    "mwavg" => mwavg = wf::p_mwavg, 3, 4, ["X", "Y", "window", "minPeriods"];
    "mwsum" => mwsum = wf::p_mwsum, 3, 4, ["X", "Y", "window", "minPeriods"];
}

/// Builtins are `fn(&mut Interpreter, Vec<Value>)`; this runs a prep function as one.
pub fn call_prep(f: PrepFn, args: &[Value]) -> Result<Value> {
    run(f(args)?)
}

// The family's other files (stdlib/src/window/); lib.rs keeps the old flat paths as aliases.
pub mod decimal;
pub mod fast;
pub mod fns;
pub mod kernels;
pub mod misc;
pub mod order;
#[cfg(test)]
mod par_tests;
#[cfg(test)]
pub(crate) mod proptests;
pub mod stats;
pub mod time;
pub mod tm;
pub mod topn;
#[cfg(test)]
pub(crate) mod tests;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, tm::DEFS, topn::DEFS].iter().for_each(|defs| r.extend(defs));
}
