//! Window states built on running sums: sum, count, moments (avg/var/std/skew/kurtosis),
//! pair moments (corr/covar/beta/wsum/wavg/slr/mse), product (two-stack queue), first/last,
//! first/last non-null, and the monotonic-deque max/min.
//!
//! All states skip nulls (they neither contribute nor count as observations). Moment sums are
//! kept relative to a shift (the first non-null value of the slice) so large offsets do not
//! cancel. Add/remove updates leave rounding residue of the size of every square that passed
//! through the window; each state tracks that size (`mag`) and, when the window's centered sum
//! of squares falls below [`DRIFT_TOL`] of it, sums the window again around its own mean (or
//! around its value when all values are equal). So a constant window gives exactly 0 variance
//! and covariance, a correlation with a constant series is NULL, and a perfectly linear pair
//! gives ±1: the same answers as a fresh two-pass computation, in amortized O(1) per row.

use crate::window::Window;
use beluga_runtime::null::Native;
use std::collections::VecDeque;

// ---------------------------------------------------------------------------------------------
// sums and counts

/// Exact integer sum (msum/cumsum/tmsum over integral types): an i128 accumulator, given
/// out as LONG (NULL outside LONG's range, `kernels::intacc`).
pub struct SumInt<'a, T> {
    v: &'a [T],
    acc: i128,
    n: usize,
}

impl<'a, T: Native> SumInt<'a, T> {
    pub fn new(v: &'a [T]) -> Self {
        SumInt { v, acc: 0, n: 0 }
    }
}

impl<T: Native> Window for SumInt<'_, T> {
    type Out = i64;
    fn add(&mut self, i: usize) {
        let x = self.v[i];
        if !x.is_null() {
            self.acc += x.to_i64() as i128;
            self.n += 1;
        }
    }
    fn remove(&mut self, i: usize) {
        let x = self.v[i];
        if !x.is_null() {
            self.acc -= x.to_i64() as i128;
            self.n -= 1;
        }
    }
    fn get(&mut self, _: usize, _: usize) -> Option<i64> {
        (self.n > 0).then_some(beluga_runtime::kernels::intacc::to_long(self.acc))
    }
    fn count(&self) -> usize {
        self.n
    }
}

/// Count of non-null elements (mcount, tmcount, cumcount): never null by itself.
pub struct CountW<'a, T> {
    v: &'a [T],
    n: usize,
}

impl<'a, T: Native> CountW<'a, T> {
    pub fn new(v: &'a [T]) -> Self {
        CountW { v, n: 0 }
    }
}

impl<T: Native> Window for CountW<'_, T> {
    type Out = i64;
    fn add(&mut self, i: usize) {
        if !self.v[i].is_null() {
            self.n += 1;
        }
    }
    fn remove(&mut self, i: usize) {
        if !self.v[i].is_null() {
            self.n -= 1;
        }
    }
    fn get(&mut self, _: usize, _: usize) -> Option<i64> {
        Some(self.n as i64)
    }
    fn count(&self) -> usize {
        self.n
    }
}

/// What a [`Moments`] state reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mom {
    Sum,
    Avg,
    Sum2,
    Sum3,
    Sum4,
    Var,
    VarP,
    Std,
    StdP,
    /// skewness, biased?
    Skew(bool),
    /// kurtosis (not excess), biased?
    Kurt(bool),
}

/// Power sums of `x - k` over the window.
pub struct Moments<'a, T> {
    v: &'a [T],
    k: f64,
    n: usize,
    s: [f64; 4],
    kind: Mom,
    /// removals since the sums were last recomputed
    removed: usize,
    /// Σ d² of every value added or removed since the sums were last recomputed
    mag: f64,
}

/// Sums updated by add/remove drift, and a shift far from the window's values cancels: after
/// as many removals as the window holds (and at least this many), the window is summed again
/// around its own mean. Amortized O(1) per row.
const REBUILD_MIN: usize = 64;

/// Re-sum the window when its centered sum of squares is below this fraction of the squares
/// added and removed since the last re-sum (relative error then stays near 1e-13). A re-sum
/// needs a large value to have left the window, so it happens at most about once per window
/// length: amortized O(1).
const DRIFT_TOL: f64 = 1e-3;

/// The shift to re-sum around: the common value when all are equal (so every deviation is
/// exactly 0), else the mean.
fn resum_shift(vals: impl Iterator<Item = f64> + Clone) -> Option<f64> {
    let mut it = vals.clone();
    let first = it.next()?;
    if it.all(|x| x == first) {
        return Some(first);
    }
    let (sum, cnt) = vals.fold((0.0, 0usize), |(a, c), x| (a + x, c + 1));
    Some(sum / cnt as f64)
}

/// The shift used by moment states: the first non-null value.
pub fn first_valid<T: Native>(v: &[T]) -> f64 {
    v.iter().find(|x| !x.is_null()).map(|x| x.to_f64()).unwrap_or(0.0)
}

impl<'a, T: Native> Moments<'a, T> {
    pub fn new(v: &'a [T], kind: Mom) -> Self {
        let raw = matches!(kind, Mom::Sum | Mom::Sum2 | Mom::Sum3 | Mom::Sum4);
        let k = if raw { 0.0 } else { first_valid(v) };
        Moments { v, k, n: 0, s: [0.0; 4], kind, removed: 0, mag: 0.0 }
    }
    fn is_raw(&self) -> bool {
        matches!(self.kind, Mom::Sum | Mom::Sum2 | Mom::Sum3 | Mom::Sum4)
    }
    /// Recompute the sums of the window `[s, e)` around its mean.
    fn rebuild(&mut self, s: usize, e: usize) {
        let vals = self.v[s..e].iter().filter(|x| !x.is_null()).map(|x| x.to_f64());
        if !self.is_raw() {
            if let Some(k) = resum_shift(vals.clone()) {
                self.k = k;
            }
        }
        self.s = [0.0; 4];
        let p = self.powers();
        for x in vals {
            let d = x - self.k;
            let mut q = d;
            for j in 0..p {
                self.s[j] += q;
                q *= d;
            }
        }
        self.removed = 0;
        self.mag = self.s[1].abs();
    }
    /// The centered sum of squares lost most of its digits to add/remove residue.
    fn drifted(&self) -> bool {
        if self.is_raw() || self.powers() < 2 || self.n < 2 {
            return false;
        }
        let c = self.s[1] - self.s[0] * self.s[0] / self.n as f64;
        c < DRIFT_TOL * self.mag
    }
    #[inline]
    fn powers(&self) -> usize {
        match self.kind {
            Mom::Sum | Mom::Avg => 1,
            Mom::Sum2 | Mom::Var | Mom::VarP | Mom::Std | Mom::StdP => 2,
            Mom::Sum3 | Mom::Skew(_) => 3,
            Mom::Sum4 | Mom::Kurt(_) => 4,
        }
    }
}

/// `a - b` for a sum of squares minus its mean part, clamped at 0; results within rounding
/// noise of 0 (the sums are updated by adding and removing) are exactly 0.
#[inline]
pub fn centered(a: f64, b: f64) -> f64 {
    let d = a - b;
    if d <= 1e-12 * a.abs().max(b.abs()) { 0.0 } else { d }
}

/// Statistic from power sums of shifted values (`s[j]` = Σ d^(j+1), d = x - k).
pub fn moment_stat(kind: Mom, n: usize, k: f64, s: &[f64; 4]) -> Option<f64> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let mu = s[0] / nf;
    let var_sum = centered(s[1], s[0] * s[0] / nf);
    let r = match kind {
        Mom::Sum => s[0] + nf * k,
        Mom::Avg => k + mu,
        Mom::Sum2 => s[1],
        Mom::Sum3 => s[2],
        Mom::Sum4 => s[3],
        Mom::Var | Mom::Std => {
            if n < 2 {
                return None;
            }
            let v = var_sum / (nf - 1.0);
            if kind == Mom::Std { v.sqrt() } else { v }
        }
        Mom::VarP | Mom::StdP => {
            let v = var_sum / nf;
            if kind == Mom::StdP { v.sqrt() } else { v }
        }
        Mom::Skew(biased) => {
            let m2 = var_sum / nf;
            if m2 <= 0.0 {
                return None;
            }
            let m3 = s[2] / nf - 3.0 * mu * s[1] / nf + 2.0 * mu * mu * mu;
            let g = m3 / m2.powf(1.5);
            if biased {
                g
            } else {
                if n < 3 {
                    return None;
                }
                g * (nf * (nf - 1.0)).sqrt() / (nf - 2.0)
            }
        }
        Mom::Kurt(biased) => {
            let m2 = var_sum / nf;
            // DolphinDB gives no kurtosis for fewer than three values
            if m2 <= 0.0 || n < 3 {
                return None;
            }
            let m4 = s[3] / nf - 4.0 * mu * s[2] / nf + 6.0 * mu * mu * s[1] / nf - 3.0 * mu * mu * mu * mu;
            let g = m4 / (m2 * m2);
            if biased {
                g
            } else {
                if n < 4 {
                    return None;
                }
                let a = (nf + 1.0) * nf * (nf - 1.0) / ((nf - 2.0) * (nf - 3.0));
                let b = 3.0 * (nf - 1.0) * (nf - 1.0) / ((nf - 2.0) * (nf - 3.0));
                a * g / nf - b + 3.0
            }
        }
    };
    r.is_finite().then_some(r)
}

impl<T: Native> Window for Moments<'_, T> {
    type Out = f64;
    fn add(&mut self, i: usize) {
        let x = self.v[i];
        if x.is_null() {
            return;
        }
        let d = x.to_f64() - self.k;
        let mut p = d;
        for j in 0..self.powers() {
            self.s[j] += p;
            p *= d;
        }
        self.mag += d * d;
        self.n += 1;
    }
    fn remove(&mut self, i: usize) {
        let x = self.v[i];
        if x.is_null() {
            return;
        }
        self.n -= 1;
        self.removed += 1;
        if self.n == 0 {
            self.s = [0.0; 4];
            self.mag = 0.0;
            return;
        }
        let d = x.to_f64() - self.k;
        let mut p = d;
        for j in 0..self.powers() {
            self.s[j] -= p;
            p *= d;
        }
        self.mag += d * d;
    }
    fn get(&mut self, s: usize, e: usize) -> Option<f64> {
        if self.removed >= REBUILD_MIN.max(self.n) || self.drifted() {
            self.rebuild(s, e);
        }
        moment_stat(self.kind, self.n, self.k, &self.s)
    }
    fn count(&self) -> usize {
        self.n
    }
}

// ---------------------------------------------------------------------------------------------
// pairs

/// What a [`PairMoments`] state reports. `x` is the first data argument, `y` the second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PairStat {
    Corr,
    Covar,
    CovarP,
    /// regression coefficient of x (dependent) on y (independent): cov(x, y) / var(y)
    Beta,
    /// intercept of that regression
    Alpha,
    /// mean squared error of that regression
    Mse,
    /// Σ x*y
    Wsum,
    /// Σ x*y / Σ y (y are the weights)
    Wavg,
}

/// Sums over the pairs where both values are non-null.
pub struct PairMoments<'a, X, Y> {
    x: &'a [X],
    y: &'a [Y],
    kx: f64,
    ky: f64,
    n: usize,
    /// Σdx, Σdy, Σdx², Σdy², Σdx·dy
    s: [f64; 5],
    kind: PairStat,
    removed: usize,
    /// Σdx² and Σdy² of every pair added or removed since the sums were last recomputed
    mag: [f64; 2],
}

impl<'a, X: Native, Y: Native> PairMoments<'a, X, Y> {
    pub fn new(x: &'a [X], y: &'a [Y], kind: PairStat) -> Self {
        let raw = matches!(kind, PairStat::Wsum | PairStat::Wavg);
        let (mut kx, mut ky) = (0.0, 0.0);
        if !raw {
            if let Some(i) = (0..x.len().min(y.len())).find(|&i| !x[i].is_null() && !y[i].is_null()) {
                kx = x[i].to_f64();
                ky = y[i].to_f64();
            }
        }
        PairMoments { x, y, kx, ky, n: 0, s: [0.0; 5], kind, removed: 0, mag: [0.0; 2] }
    }
    /// Recompute the sums of the window `[s, e)` around its means (see [`REBUILD_MIN`]).
    fn rebuild(&mut self, s: usize, e: usize) {
        let raw = matches!(self.kind, PairStat::Wsum | PairStat::Wavg);
        let (kx0, ky0) = (self.kx, self.ky);
        self.kx = 0.0;
        self.ky = 0.0;
        let pairs: Vec<(f64, f64)> = (s..e).filter_map(|i| self.pair(i)).collect();
        if !raw && !pairs.is_empty() {
            self.kx = resum_shift(pairs.iter().map(|p| p.0)).unwrap_or(kx0);
            self.ky = resum_shift(pairs.iter().map(|p| p.1)).unwrap_or(ky0);
        } else if !raw {
            self.kx = kx0;
            self.ky = ky0;
        }
        self.s = [0.0; 5];
        for (a, b) in pairs {
            let (a, b) = (a - self.kx, b - self.ky);
            self.s[0] += a;
            self.s[1] += b;
            self.s[2] += a * a;
            self.s[3] += b * b;
            self.s[4] += a * b;
        }
        self.removed = 0;
        self.mag = [self.s[2], self.s[3]];
    }
    /// Either centered sum of squares lost most of its digits to add/remove residue.
    fn drifted(&self) -> bool {
        if matches!(self.kind, PairStat::Wsum | PairStat::Wavg) || self.n < 2 {
            return false;
        }
        let nf = self.n as f64;
        let cxx = self.s[2] - self.s[0] * self.s[0] / nf;
        let cyy = self.s[3] - self.s[1] * self.s[1] / nf;
        cxx < DRIFT_TOL * self.mag[0] || cyy < DRIFT_TOL * self.mag[1]
    }
    #[inline]
    fn pair(&self, i: usize) -> Option<(f64, f64)> {
        let (a, b) = (self.x[i], self.y[i]);
        if a.is_null() || b.is_null() {
            None
        } else {
            Some((a.to_f64() - self.kx, b.to_f64() - self.ky))
        }
    }
}

/// Statistic from shifted pair sums.
pub fn pair_stat(kind: PairStat, n: usize, kx: f64, ky: f64, s: &[f64; 5]) -> Option<f64> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let [sx, sy, sxx, syy, sxy] = *s;
    let cxy = sxy - sx * sy / nf;
    let cxx = centered(sxx, sx * sx / nf);
    let cyy = centered(syy, sy * sy / nf);
    let r = match kind {
        PairStat::Covar => {
            if n < 2 {
                return None;
            }
            cxy / (nf - 1.0)
        }
        PairStat::CovarP => cxy / nf,
        PairStat::Corr => {
            if n < 2 {
                return None;
            }
            let d = (cxx * cyy).sqrt();
            if d == 0.0 {
                return None;
            }
            (cxy / d).clamp(-1.0, 1.0)
        }
        PairStat::Beta | PairStat::Alpha | PairStat::Mse => {
            if n < 2 || cyy == 0.0 {
                return None;
            }
            let beta = cxy / cyy;
            match kind {
                PairStat::Beta => beta,
                PairStat::Alpha => (kx + sx / nf) - beta * (ky + sy / nf),
                _ => ((cxx - beta * cxy).max(0.0)) / nf,
            }
        }
        PairStat::Wsum => sxy,
        PairStat::Wavg => {
            if sy == 0.0 {
                return None;
            }
            sxy / sy
        }
    };
    r.is_finite().then_some(r)
}

impl<X: Native, Y: Native> Window for PairMoments<'_, X, Y> {
    type Out = f64;
    fn add(&mut self, i: usize) {
        if let Some((a, b)) = self.pair(i) {
            self.n += 1;
            self.s[0] += a;
            self.s[1] += b;
            self.s[2] += a * a;
            self.s[3] += b * b;
            self.s[4] += a * b;
            self.mag[0] += a * a;
            self.mag[1] += b * b;
        }
    }
    fn remove(&mut self, i: usize) {
        if let Some((a, b)) = self.pair(i) {
            self.n -= 1;
            self.removed += 1;
            if self.n == 0 {
                self.s = [0.0; 5];
                self.mag = [0.0; 2];
                return;
            }
            self.s[0] -= a;
            self.s[1] -= b;
            self.s[2] -= a * a;
            self.s[3] -= b * b;
            self.s[4] -= a * b;
            self.mag[0] += a * a;
            self.mag[1] += b * b;
        }
    }
    fn get(&mut self, s: usize, e: usize) -> Option<f64> {
        if self.removed >= REBUILD_MIN.max(self.n) || self.drifted() {
            self.rebuild(s, e);
        }
        pair_stat(self.kind, self.n, self.kx, self.ky, &self.s)
    }
    fn count(&self) -> usize {
        self.n
    }
}

// ---------------------------------------------------------------------------------------------
// product: a two-stack queue (exact, no division)

/// Sliding aggregation of an associative operation over a FIFO window.
pub struct Fifo<A: Copy> {
    /// suffix aggregates of the front stack (top = oldest element)
    front: Vec<A>,
    back: Vec<A>,
    back_agg: A,
    id: A,
}

impl<A: Copy> Fifo<A> {
    pub fn new(id: A) -> Self {
        Fifo { front: Vec::new(), back: Vec::new(), back_agg: id, id }
    }
    pub fn push(&mut self, a: A, f: impl Fn(A, A) -> A) {
        self.back.push(a);
        self.back_agg = f(self.back_agg, a);
    }
    pub fn pop(&mut self, f: impl Fn(A, A) -> A) {
        if self.front.is_empty() {
            let mut acc = self.id;
            while let Some(a) = self.back.pop() {
                acc = f(a, acc);
                self.front.push(acc);
            }
            self.back_agg = self.id;
        }
        self.front.pop();
    }
    pub fn query(&self, f: impl Fn(A, A) -> A) -> A {
        f(self.front.last().copied().unwrap_or(self.id), self.back_agg)
    }
}

/// Product over the window; integral inputs multiply in i64 (LONG result), floats in f64.
pub struct Prod<'a, T, A: Copy> {
    v: &'a [T],
    q: Fifo<A>,
    n: usize,
    conv: fn(T) -> A,
    mul: fn(A, A) -> A,
}

impl<'a, T: Native, A: Copy> Prod<'a, T, A> {
    pub fn new(v: &'a [T], one: A, conv: fn(T) -> A, mul: fn(A, A) -> A) -> Self {
        Prod { v, q: Fifo::new(one), n: 0, conv, mul }
    }
}

impl<T: Native, A: Copy> Window for Prod<'_, T, A> {
    type Out = A;
    fn add(&mut self, i: usize) {
        let x = self.v[i];
        let a = if x.is_null() { self.q.id } else { (self.conv)(x) };
        if !x.is_null() {
            self.n += 1;
        }
        self.q.push(a, self.mul);
    }
    fn remove(&mut self, i: usize) {
        if !self.v[i].is_null() {
            self.n -= 1;
        }
        self.q.pop(self.mul);
    }
    fn get(&mut self, _: usize, _: usize) -> Option<A> {
        (self.n > 0).then(|| self.q.query(self.mul))
    }
    fn count(&self) -> usize {
        self.n
    }
}

// ---------------------------------------------------------------------------------------------
// positional states

/// First or last element of the window, null or not (mfirst, mlast, tmfirst, tmlast); the
/// window's non-null count comes from a [`CountW`] over the same values.
pub struct Ends<'a, T> {
    c: CountW<'a, T>,
    last: bool,
}

impl<'a, T: Native> Ends<'a, T> {
    pub fn new(v: &'a [T], last: bool) -> Self {
        Ends { c: CountW::new(v), last }
    }
}

impl<T: Native> Window for Ends<'_, T> {
    type Out = T;
    fn add(&mut self, i: usize) {
        self.c.add(i)
    }
    fn remove(&mut self, i: usize) {
        self.c.remove(i)
    }
    fn get(&mut self, s: usize, e: usize) -> Option<T> {
        let x = self.c.v[if self.last { e - 1 } else { s }];
        (!x.is_null()).then_some(x)
    }
    fn count(&self) -> usize {
        self.c.n
    }
}

/// Which non-null element a [`NonNull`] state reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NN {
    First,
    Last,
    /// index of the first non-null element within the window, -1 when none
    IFirst,
    /// index of the last non-null element within the window, -1 when none
    ILast,
}

/// Queue of the non-null positions of the window.
pub struct NonNull<'a, T> {
    v: &'a [T],
    q: VecDeque<usize>,
    elems: usize,
    mode: NN,
}

impl<'a, T: Native> NonNull<'a, T> {
    pub fn new(v: &'a [T], mode: NN) -> Self {
        NonNull { v, q: VecDeque::new(), elems: 0, mode }
    }
}

/// Output of [`NonNull`]: a value or an index.
#[derive(Clone, Copy)]
pub enum ValOrIdx<T> {
    Val(T),
    Idx(i64),
}

impl<T: Native> Window for NonNull<'_, T> {
    type Out = ValOrIdx<T>;
    fn add(&mut self, i: usize) {
        self.elems += 1;
        if !self.v[i].is_null() {
            self.q.push_back(i);
        }
    }
    fn remove(&mut self, i: usize) {
        self.elems -= 1;
        if self.q.front() == Some(&i) {
            self.q.pop_front();
        }
    }
    fn get(&mut self, s: usize, _: usize) -> Option<ValOrIdx<T>> {
        match self.mode {
            NN::First => self.q.front().map(|&j| ValOrIdx::Val(self.v[j])),
            NN::Last => self.q.back().map(|&j| ValOrIdx::Val(self.v[j])),
            NN::IFirst => Some(ValOrIdx::Idx(self.q.front().map(|&j| (j - s) as i64).unwrap_or(-1))),
            NN::ILast => Some(ValOrIdx::Idx(self.q.back().map(|&j| (j - s) as i64).unwrap_or(-1))),
        }
    }
    /// The index variants gate on the number of elements, the value variants on non-null ones.
    fn count(&self) -> usize {
        match self.mode {
            NN::IFirst | NN::ILast => self.elems,
            _ => self.q.len(),
        }
    }
}

/// Monotonic deque of the window's extreme (max or min) candidates.
pub struct Extreme<'a, T> {
    v: &'a [T],
    q: VecDeque<usize>,
    n: usize,
    max: bool,
    /// on ties report the last position (mimaxLast) instead of the first
    last_tie: bool,
}

impl<'a, T: Native> Extreme<'a, T> {
    pub fn new(v: &'a [T], max: bool, last_tie: bool) -> Self {
        Extreme { v, q: VecDeque::new(), n: 0, max, last_tie }
    }
    /// Should the candidate at the back be dropped when `x` arrives?
    #[inline]
    fn dominated(&self, back: T, x: T) -> bool {
        match (self.max, self.last_tie) {
            (true, false) => back < x,
            (true, true) => back <= x,
            (false, false) => back > x,
            (false, true) => back >= x,
        }
    }
}

impl<T: Native> Window for Extreme<'_, T> {
    /// (value, position in the slice)
    type Out = (T, usize);
    fn add(&mut self, i: usize) {
        let x = self.v[i];
        if x.is_null() {
            return;
        }
        while let Some(&b) = self.q.back() {
            if self.dominated(self.v[b], x) {
                self.q.pop_back();
            } else {
                break;
            }
        }
        self.q.push_back(i);
        self.n += 1;
    }
    fn remove(&mut self, i: usize) {
        if !self.v[i].is_null() {
            self.n -= 1;
        }
        if self.q.front() == Some(&i) {
            self.q.pop_front();
        }
    }
    fn get(&mut self, _: usize, _: usize) -> Option<(T, usize)> {
        self.q.front().map(|&j| (self.v[j], j))
    }
    fn count(&self) -> usize {
        self.n
    }
}
