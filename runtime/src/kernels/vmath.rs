//! Vectorisable `ln`, `exp` and `pow` over f64 slices.
//!
//! Why: glibc's scalar `log`/`exp`/`pow` cost one call per element and keep the loops from
//! vectorising; numpy's SIMD versions were 5-20x faster. These are branch-free polynomial
//! versions of the classic fdlibm algorithms (the same reductions and minimax
//! coefficients), written so LLVM vectorises the whole loop, and compiled three times: for
//! the baseline target, AVX2 and AVX-512 (chosen at run time). Rounded results never come
//! from a fused multiply-add (only the exact error term of a product does), so all three
//! give bit-identical results.
//!
//! Accuracy: `ln` and `exp` are fdlibm's (< 1 ulp); `pow` takes the logarithm in
//! double-double and feeds it to fdlibm's exp reduction, so its error is within about
//! 1 ulp of the exact result (tests compare against libm over many values). Every input
//! the polynomial path does not cover (zero, negative, subnormal, infinite, NaN, results
//! that overflow or underflow, `pow` exponents that are integers or beyond ±16) is sent
//! to libm element by element in a second pass, so those keep libm's exact answers.

use std::mem::MaybeUninit;

const LN2_HI: f64 = f64::from_bits(0x3fe62e42fee00000);
const LN2_LO: f64 = f64::from_bits(0x3dea39ef35793c76);
const INV_LN2: f64 = f64::from_bits(0x3ff71547652b82fe);
const LG1: f64 = f64::from_bits(0x3FE5555555555593);
const LG2: f64 = f64::from_bits(0x3FD999999997FA04);
const LG3: f64 = f64::from_bits(0x3FD2492494229359);
const LG4: f64 = f64::from_bits(0x3FCC71C51D8E78AF);
const LG5: f64 = f64::from_bits(0x3FC7466496CB03DE);
const LG6: f64 = f64::from_bits(0x3FC39A09D078C69F);
const LG7: f64 = f64::from_bits(0x3FC2F112DF3E5244);
const P1: f64 = f64::from_bits(0x3FC555555555553E);
const P2: f64 = f64::from_bits(0xBF66C16C16BEBD93);
const P3: f64 = f64::from_bits(0x3F11566AAF25DE2C);
const P4: f64 = f64::from_bits(0xBEBBBD41C5D26BF1);
const P5: f64 = f64::from_bits(0x3E66376972BEA4D0);
/// 1.5 * 2^52: adding and subtracting it rounds to the nearest integer.
const SHIFT: f64 = 6755399441055744.0;
/// |x| bound of the polynomial exp: k stays in [-1021, 1021], the result normal.
const EXP_MAX: f64 = 708.0;
/// |y| bound of the polynomial pow: the double-double logarithm's error times |y|
/// stays well below half an ulp.
const POW_Y_MAX: f64 = 16.0;

/// `x = 2^k * m`, m in [sqrt(2)/2, sqrt(2)), for positive normal x (fdlibm's split, in
/// 64-bit lanes only so it vectorises): returns (k as f64, m).
#[inline(always)]
fn split(x: f64) -> (f64, f64) {
    let bits = x.to_bits();
    let mant = bits & 0x000f_ffff_ffff_ffff;
    // 1 << 52 when m's mantissa is at least sqrt(2)'s: then m is halved and k raised
    let i = mant.wrapping_add(0x95f64 << 32) & (1 << 52);
    let m = f64::from_bits(mant | (i ^ 0x3ff0_0000_0000_0000));
    let e = (bits >> 52).wrapping_add(i >> 52);
    // 2^52 + e, exactly, minus 2^52 + 1023
    let dk = f64::from_bits(0x4330_0000_0000_0000 | e) - 4503599627371519.0;
    (dk, m)
}

/// fdlibm's R(z): log(1+f) = 2s + s*R(s*s), s = f/(2+f).
#[inline(always)]
fn lg_poly(z: f64) -> f64 {
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    t2 + t1
}

/// Natural logarithm of a positive normal finite x (anything else: garbage, no panic).
#[inline(always)]
fn ln_core(x: f64) -> f64 {
    let (dk, m) = split(x);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let r = lg_poly(s * s);
    let hfsq = 0.5 * f * f;
    // fdlibm picks the first form when m's leading mantissa bits are in [0x6147a, 0x6b851]
    let hm = m.to_bits() & 0x000f_ffff_ffff_ffff;
    let a = dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
    let b = dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f);
    if hm >= (0x6147a << 32) && hm < (0x6b852 << 32) { a } else { b }
}

/// fdlibm's exp from a reduced argument: e^(hi - lo) * 2^k, the result normal.
#[inline(always)]
fn exp_reduced(hi: f64, lo: f64, k: i64) -> f64 {
    let r = hi - lo;
    let t = r * r;
    let c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    f64::from_bits(y.to_bits().wrapping_add((k as u64) << 52))
}

/// e^(x + xl) for |x| <= EXP_MAX (xl a small correction, 0 for plain exp).
#[inline(always)]
fn exp_core(x: f64, xl: f64) -> f64 {
    let t = x * INV_LN2 + SHIFT;
    let k = (t.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64);
    let kd = t - SHIFT;
    let hi = x - kd * LN2_HI;
    let lo = kd * LN2_LO - xl;
    exp_reduced(hi, lo, k)
}

/// Exact a*b = p + e: the error term by a fused multiply-add (one instruction in the
/// AVX2/AVX-512 builds, which enable FMA; libm's exact `fma` in the baseline build), so
/// every build gets the same exact e.
#[inline(always)]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// ln(x) as hi + lo (about 2^-60 absolute), for positive normal finite x.
#[inline(always)]
fn ln_dd(x: f64) -> (f64, f64) {
    let (dk, m) = split(x);
    let f = m - 1.0; // exact (Sterbenz)
    let d = 2.0 + f;
    let dl = f - (d - 2.0); // 2 + f = d + dl exactly
    // one division: s need not be the rounded quotient, the residual below corrects it
    let inv = 1.0 / d;
    let s = f * inv;
    let (sd, sde) = two_prod(s, d);
    let sl = (((f - sd) - sde) - s * dl) * inv; // f/(2+f) = s + sl
    let tail = s * lg_poly(s * s) + 2.0 * sl + dk * LN2_LO;
    let a = dk * LN2_HI; // exact: LN2_HI has 21 trailing zero bits
    let b = 2.0 * s;
    let h = a + b;
    let bb = h - a;
    let e = (a - (h - bb)) + (b - bb); // two-sum error
    let l = e + tail;
    let hh = h + l;
    (hh, l - (hh - h))
}

/// x^y for positive normal finite x and finite non-integer |y| <= POW_Y_MAX whose
/// result stays normal; the caller checks `pow_ok` on the returned exponent.
#[inline(always)]
fn pow_core(x: f64, y: f64) -> (f64, f64) {
    let (lh, ll) = ln_dd(x);
    let (ph, pe) = two_prod(y, lh);
    let pl = pe + y * ll;
    let h = ph + pl;
    let l = pl - (h - ph);
    (exp_core(h, l), h)
}

#[inline(always)]
fn ln_ok(a: f64) -> bool {
    a >= f64::MIN_POSITIVE && a < f64::INFINITY
}

#[inline(always)]
fn exp_ok(a: f64) -> bool {
    a.abs() <= EXP_MAX
}

#[inline(always)]
fn pow_y_ok(y: f64) -> bool {
    // not an integer: y + SHIFT - SHIFT rounds y to an integer (exact for |y| <= 2^51)
    y.abs() <= POW_Y_MAX && (y + SHIFT) - SHIFT != y
}

/// One public function compiled three times from the same body: for AVX-512 and AVX2
/// (picked at run time by what the CPU has) and for the baseline target. The body is pasted into both (a
/// shared `#[inline(always)]` helper kept LLVM from vectorising the AVX2 copy).
macro_rules! multiversion {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident: $t:ty),*) $body:block) => {
        $(#[$m])* $vis fn $name($($arg: $t),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
                unsafe fn avx512($($arg: $t),*) $body
                #[target_feature(enable = "avx2,fma")]
                unsafe fn avx2($($arg: $t),*) $body
                use std::arch::is_x86_feature_detected as has;
                if has!("avx512f") && has!("avx512dq") && has!("avx512vl") && has!("fma") {
                    // SAFETY: the CPU has these features (checked on the line above)
                    return unsafe { avx512($($arg),*) };
                }
                if has!("avx2") && has!("fma") {
                    // SAFETY: the CPU has AVX2 and FMA (checked on the line above)
                    return unsafe { avx2($($arg),*) };
                }
            }
            fn base($($arg: $t),*) $body
            base($($arg),*)
        }
    };
}

multiversion! {
    /// `out[i] = ln(x[i])` with libm's special values (ln(0) = -inf, ln(-1) = NaN, …).
    pub fn ln_slice(x: &[f64], out: &mut [MaybeUninit<f64>]) {
        let mut bad = false;
        for (o, &a) in out.iter_mut().zip(x) {
            bad |= !ln_ok(a);
            o.write(ln_core(a));
        }
        if bad {
            for (o, &a) in out.iter_mut().zip(x) {
                if !ln_ok(a) {
                    o.write(a.ln());
                }
            }
        }
    }
}

multiversion! {
    /// `out[i] = exp(x[i])` (overflow gives inf, NaN stays NaN, as libm).
    pub fn exp_slice(x: &[f64], out: &mut [MaybeUninit<f64>]) {
        let mut bad = false;
        for (o, &a) in out.iter_mut().zip(x) {
            let ok = exp_ok(a);
            bad |= !ok;
            o.write(exp_core(if ok { a } else { 0.0 }, 0.0));
        }
        if bad {
            for (o, &a) in out.iter_mut().zip(x) {
                if !exp_ok(a) {
                    o.write(a.exp());
                }
            }
        }
    }
}

multiversion! {
    /// `out[i] = x[i]^y` for one exponent (libm's `pow` for every case the polynomial
    /// path does not cover; y = 2 as x*x and y = 0.5 as sqrt(x), both exact roundings).
    pub fn pow_slice_scalar(x: &[f64], y: f64, out: &mut [MaybeUninit<f64>]) {
        if y == 2.0 {
            for (o, &a) in out.iter_mut().zip(x) {
                o.write(a * a);
            }
            return;
        }
        if !pow_y_ok(y) {
            for (o, &a) in out.iter_mut().zip(x) {
                o.write(a.powf(y));
            }
            return;
        }
        if y == 0.5 {
            let mut bad = false;
            for (o, &a) in out.iter_mut().zip(x) {
                bad |= !(a > 0.0 && a < f64::INFINITY);
                o.write(a.sqrt());
            }
            if bad {
                for (o, &a) in out.iter_mut().zip(x) {
                    if !(a > 0.0 && a < f64::INFINITY) {
                        o.write(a.powf(y));
                    }
                }
            }
            return;
        }
        let mut bad = false;
        for (o, &a) in out.iter_mut().zip(x) {
            let ok = ln_ok(a);
            let (r, h) = pow_core(if ok { a } else { 1.0 }, y);
            bad |= !(ok && exp_ok(h));
            o.write(r);
        }
        if bad {
            for (o, &a) in out.iter_mut().zip(x) {
                if !ln_ok(a) || !exp_ok(pow_core(a, y).1) {
                    o.write(a.powf(y));
                }
            }
        }
    }
}

multiversion! {
    /// `out[i] = x[i]^y[i]` (libm's `pow` where the polynomial path does not apply).
    pub fn pow_slice(x: &[f64], y: &[f64], out: &mut [MaybeUninit<f64>]) {
        let mut bad = false;
        for ((o, &a), &b) in out.iter_mut().zip(x).zip(y) {
            let ok = ln_ok(a) && pow_y_ok(b);
            let (r, h) = pow_core(if ok { a } else { 1.0 }, if ok { b } else { 0.5 });
            bad |= !(ok && exp_ok(h));
            o.write(r);
        }
        if bad {
            for ((o, &a), &b) in out.iter_mut().zip(x).zip(y) {
                if !(ln_ok(a) && pow_y_ok(b)) || !exp_ok(pow_core(a, b).1) {
                    o.write(a.powf(b));
                }
            }
        }
    }
}

crate::simd_fn! {
    /// `out[i] = f(x[i])` for a cheap inlinable `f` (sqrt, reciprocal, …), compiled for
    /// AVX-512/AVX2 so the loop runs on the widest vectors the CPU has.
    pub fn map_slice[F: Fn(f64) -> f64](x: &[f64], out: &mut [MaybeUninit<f64>], f: &F) -> () {
        for (o, &a) in out.iter_mut().zip(x) {
            o.write(f(a));
        }
    }
}

/// Whether the CPU runs the AVX-512 (F, DQ, VL, BW) copies of `simd_fn!` functions.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn has_avx512() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx512f") && has!("avx512dq") && has!("avx512vl") && has!("avx512bw")
}

/// Whether the CPU runs the AVX2 copies of `simd_fn!` functions.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Define a function whose body is compiled three times (AVX-512, AVX2, baseline) and
/// picked at run time, so its loops vectorise on the widest vectors the CPU has. The body
/// is pasted into each copy (a closure handed to a wrapper is not always inlined across
/// codegen units, and then runs unvectorised). Generic parameters go in brackets:
/// `simd_fn! { pub fn f[T: Copy](x: &[T]) -> Vec<T> { ... } }`.
#[macro_export]
macro_rules! simd_fn {
    ($(#[$m:meta])* $vis:vis fn $name:ident $([$($gen:tt)*])? ($($arg:ident: $t:ty),* $(,)?) -> $ret:ty $body:block) => {
        $(#[$m])* $vis fn $name $(<$($gen)*>)? ($($arg: $t),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw,avx2")]
                unsafe fn v512 $(<$($gen)*>)? ($($arg: $t),*) -> $ret $body
                #[target_feature(enable = "avx2")]
                unsafe fn v256 $(<$($gen)*>)? ($($arg: $t),*) -> $ret $body
                if $crate::kernels::vmath::has_avx512() {
                    // SAFETY: the CPU has the features v512 is compiled for
                    return unsafe { v512($($arg),*) };
                }
                if $crate::kernels::vmath::has_avx2() {
                    // SAFETY: the CPU has AVX2
                    return unsafe { v256($($arg),*) };
                }
            }
            fn base $(<$($gen)*>)? ($($arg: $t),*) -> $ret $body
            base($($arg),*)
        }
    };
}

/// Scalar forms (tests and callers with one value).
pub fn ln(x: f64) -> f64 {
    let mut o = [MaybeUninit::uninit()];
    ln_slice(&[x], &mut o);
    // SAFETY: ln_slice wrote the one element
    unsafe { o[0].assume_init() }
}

pub fn exp(x: f64) -> f64 {
    let mut o = [MaybeUninit::uninit()];
    exp_slice(&[x], &mut o);
    // SAFETY: exp_slice wrote the one element
    unsafe { o[0].assume_init() }
}

pub fn pow(x: f64, y: f64) -> f64 {
    let mut o = [MaybeUninit::uninit()];
    pow_slice(&[x], &[y], &mut o);
    // SAFETY: pow_slice wrote the one element
    unsafe { o[0].assume_init() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in ulps between two doubles of the same sign (both NaN: 0).
    fn ulps(a: f64, b: f64) -> u64 {
        if a.is_nan() && b.is_nan() {
            return 0;
        }
        if a == b {
            return 0;
        }
        if a.is_sign_negative() != b.is_sign_negative() {
            return u64::MAX;
        }
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// A double with random bits in [lo_exp, hi_exp) binades, positive.
        fn pos(&mut self, lo_exp: i64, hi_exp: i64) -> f64 {
            let e = lo_exp + (self.next() % (hi_exp - lo_exp) as u64) as i64;
            f64::from_bits((((e + 1023) as u64) << 52) | (self.next() >> 12))
        }
    }

    fn specials() -> Vec<f64> {
        vec![
            0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 10.0, 100.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN,
            f64::MIN_POSITIVE, 5e-324, 1e-310, -1e-310, f64::MAX, -f64::MAX, 1.0 + f64::EPSILON,
            1.0 - f64::EPSILON / 2.0, std::f64::consts::E, 1e-300, 1e300, 709.7, 709.79, -745.2, -708.5, 708.0,
        ]
    }

    #[test]
    fn ln_within_one_ulp_of_libm() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        let mut xs = specials();
        for _ in 0..400_000 {
            xs.push(rng.pos(-1074, 1024));
        }
        for _ in 0..400_000 {
            xs.push(rng.pos(-3, 3)); // near 1 and the usual ranges
        }
        for i in 0..20_000 {
            xs.push(1.0 + (i as f64 - 10_000.0) * 1e-12);
        }
        let mut out = vec![MaybeUninit::uninit(); xs.len()];
        ln_slice(&xs, &mut out);
        let mut off = 0;
        for (&x, o) in xs.iter().zip(&out) {
            let (got, want) = (unsafe { o.assume_init() }, x.ln());
            let d = ulps(got, want);
            assert!(d <= 1, "ln({x:e}) = {got:e}, libm {want:e} ({d} ulps)");
            off += (d > 0) as usize;
        }
        assert!(off * 20 < xs.len(), "{off} of {} differ from libm", xs.len());
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
    }

    #[test]
    fn exp_within_one_ulp_of_libm() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut xs = specials();
        for _ in 0..400_000 {
            let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
            xs.push((u - 0.5) * 1500.0);
        }
        for _ in 0..100_000 {
            let v = rng.pos(-60, 3);
            xs.push(if rng.next() & 1 == 0 { v } else { -v });
        }
        let mut out = vec![MaybeUninit::uninit(); xs.len()];
        exp_slice(&xs, &mut out);
        for (&x, o) in xs.iter().zip(&out) {
            let (got, want) = (unsafe { o.assume_init() }, x.exp());
            let d = ulps(got, want);
            assert!(d <= 1, "exp({x:e}) = {got:e}, libm {want:e} ({d} ulps)");
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(1000.0), f64::INFINITY);
        assert_eq!(exp(-1000.0), 0.0);
    }

    #[test]
    fn pow_within_one_ulp_of_libm() {
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        let mut ys: Vec<f64> = vec![2.5, 0.5, -0.5, 1.5, 2.0, 3.0, 0.1, -2.5, 15.9, -15.9, 1.0 / 3.0, 16.5, 100.0, -3.0, 0.0];
        for _ in 0..64 {
            let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
            ys.push((u - 0.5) * 40.0);
        }
        let mut xs = specials();
        for _ in 0..20_000 {
            xs.push(rng.pos(-1074, 1024));
        }
        for _ in 0..20_000 {
            xs.push(rng.pos(-4, 8));
        }
        xs.push(-2.0);
        xs.push(-8.0);
        let mut out = vec![MaybeUninit::uninit(); xs.len()];
        let mut worst = 0;
        for &y in &ys {
            pow_slice_scalar(&xs, y, &mut out);
            let yv = vec![y; xs.len()];
            let mut out2 = vec![MaybeUninit::uninit(); xs.len()];
            pow_slice(&xs, &yv, &mut out2);
            for ((&x, o), o2) in xs.iter().zip(&out).zip(&out2) {
                let want = x.powf(y);
                let got = unsafe { o.assume_init() };
                let got2 = unsafe { o2.assume_init() };
                let d = ulps(got, want);
                worst = worst.max(d);
                assert!(d <= 1, "pow({x:e}, {y}) = {got:e}, libm {want:e} ({d} ulps)");
                if y != 2.0 && y != 0.5 {
                    assert!(got.to_bits() == got2.to_bits() || (got.is_nan() && got2.is_nan()), "pow({x:e}, {y}) scalar {got:e} vs vector {got2:e}");
                }
            }
        }
        assert_eq!(pow(2.0, 3.0), 8.0);
        assert_eq!(pow(4.0, 0.5), 2.0);
        assert_eq!(pow(-8.0, 1.0 / 3.0).is_nan(), (-8.0f64).powf(1.0 / 3.0).is_nan());
        assert_eq!(pow(0.0, -0.5), f64::INFINITY);
    }
}
