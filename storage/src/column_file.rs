//! Column files: a checksummed header with a block directory (rows, codec, min/max,
//! checksum per block of up to 8Ki rows, small enough for min/max to rule out most of a
//! segment in a range query), then the lz4-compressed blocks.
//!
//! Codecs per block: integers are delta + zigzag encoded, byte-shuffled and compressed;
//! DOUBLE blocks whose values are all short decimals (87.3, 3.718) are stored as scaled
//! integers the same way; other fixed-width values are byte-shuffled; strings are lengths
//! plus bytes. SYMBOL columns hold codes into the table's symbol base.

use crate::bin::{checksum, checksum_wide, corrupt, Reader, Writer};
use beluga_runtime::column::{ColData, Column, StrCol, SymCol, SymbolDict};
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Result};
use std::sync::Arc;

pub const MAGIC: &[u8; 8] = b"BLGCOL01";
pub const BLOCK_ROWS: usize = 1 << 13;

const RAW: u8 = 0;
const DELTA: u8 = 1;
const DECIMAL: u8 = 2;
const STRINGS: u8 = 3;
/// Array-vector blocks: the inner codec, the length of the row-length part, the row
/// lengths (delta-coded i32), then the block of the flat elements in the inner codec.
const ARRAY: u8 = 4;

#[derive(Clone, Debug)]
pub struct BlockMeta {
    pub rows: u32,
    pub offset: u64,
    pub clen: u32,
    pub codec: u8,
    /// min/max of the non-null values: i64 for integers/temporals, f64 bits for floats
    pub has_stats: bool,
    /// whether the block holds a null (only when `nulls_known`: files written before the
    /// flag existed do not tell). NULL sorts below every value, so `x < c` may hold in a
    /// block whose min is above c: only a block known to hold no null can be skipped.
    pub has_nulls: bool,
    pub nulls_known: bool,
    pub min: i64,
    pub max: i64,
    pub sum: u64,
    /// `sum` is `checksum_wide` of the block (files written since the flag existed);
    /// older blocks carry the serial `checksum`
    pub wide_sum: bool,
}

pub struct ColumnFile {
    pub ty: DataType,
    pub rows: u64,
    pub blocks: Vec<BlockMeta>,
    pub data: crate::mapped::Bytes,
    data_start: usize,
    pub name: String,
}

// ------------------------------------------------------------------ fixed-width values

/// Fixed-width little-endian conversion for the physical types.
pub trait Fixed: Copy + Native {
    const W: usize;
    fn put(self, out: &mut Vec<u8>);
    /// The little-endian bytes into `out[..W]`.
    fn put_slice(self, out: &mut [u8; 16]);
    fn get(b: &[u8]) -> Self;
}

macro_rules! fixed_impl {
    ($t:ty, $w:expr) => {
        impl Fixed for $t {
            const W: usize = $w;
            #[inline]
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn put_slice(self, out: &mut [u8; 16]) {
                out[..$w].copy_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; $w];
                a.copy_from_slice(&b[..$w]);
                <$t>::from_le_bytes(a)
            }
        }
    };
}
fixed_impl!(i8, 1);
fixed_impl!(i16, 2);
fixed_impl!(i32, 4);
fixed_impl!(i64, 8);
fixed_impl!(f32, 4);
fixed_impl!(f64, 8);
fixed_impl!(i128, 16);

/// Integer types that take the delta codec.
pub trait DeltaInt: Fixed {
    fn delta_zig(a: Self, prev: Self) -> Self;
    fn undelta_zig(z: Self, prev: Self) -> Self;
}

macro_rules! delta_impl {
    ($t:ty, $u:ty, $bits:expr) => {
        impl DeltaInt for $t {
            #[inline]
            fn delta_zig(a: Self, prev: Self) -> Self {
                let d = a.wrapping_sub(prev);
                ((d << 1) ^ (d >> ($bits - 1))) as $t
            }
            #[inline]
            fn undelta_zig(z: Self, prev: Self) -> Self {
                let u = z as $u;
                let d = ((u >> 1) as $t) ^ (-((u & 1) as $t));
                prev.wrapping_add(d)
            }
        }
    };
}
delta_impl!(i16, u16, 16);
delta_impl!(i32, u32, 32);
delta_impl!(i64, u64, 64);

/// Values as little-endian bytes, byte-shuffled (byte j of value i at `j * n + i`), and
/// compressed: `shuffle` of the encoded values in one pass.
fn compress_values<T: Fixed>(n: usize, vals: impl Iterator<Item = T>) -> Vec<u8> {
    let mut out = vec![0u8; n * T::W];
    let mut a = [0u8; 16];
    for (i, x) in vals.enumerate().take(n) {
        x.put_slice(&mut a);
        for j in 0..T::W {
            out[j * n + i] = a[j];
        }
    }
    lz4_flex::block::compress_prepend_size(&out)
}

fn decompress(b: &[u8], what: &str) -> Result<Vec<u8>> {
    let bad = || corrupt(what, "bad compressed block");
    let (size, body) = lz4_flex::block::uncompressed_size(b).map_err(|_| bad())?;
    // a size no block of this file could have is corruption, not an allocation to try
    if size > b.len().saturating_mul(256).max(1 << 16) {
        return Err(bad());
    }
    let mut out = vec![0u8; size];
    crate::lz4::decompress_into(body, &mut out).ok_or_else(bad)?;
    Ok(out)
}

thread_local! {
    /// Per-thread buffer a block is decompressed into before its values are unshuffled
    /// into the output column (one reused buffer instead of two fresh ones per block).
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Decompress a size-prepended block of exactly `want` bytes into the thread's scratch
/// buffer and hand the bytes to `f`.
fn with_raw<R>(b: &[u8], want: usize, what: &str, f: impl FnOnce(&[u8]) -> Result<R>) -> Result<R> {
    let bad = || corrupt(what, "bad compressed block");
    let (size, body) = lz4_flex::block::uncompressed_size(b).map_err(|_| bad())?;
    if size != want {
        return Err(corrupt(what, "block length"));
    }
    let run = |buf: &mut Vec<u8>| -> Result<R> {
        if buf.len() < size {
            buf.resize(size, 0);
        }
        crate::lz4::decompress_into(body, &mut buf[..size]).ok_or_else(bad)?;
        f(&buf[..size])
    };
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut buf) => run(&mut buf),
        // a nested decode (never expected): a buffer of its own
        Err(_) => run(&mut Vec::new()),
    })
}

/// Where decoded values go: a growing vector (`decode`), or the part of a preallocated
/// column that one file's rows fill (`decode_into`: the file decoded straight into the
/// final column, no second copy and no second set of fresh pages).
pub trait Out<T> {
    /// Values written so far.
    fn len(&self) -> usize;
    /// A written value.
    fn at(&mut self, i: usize) -> Option<&mut T>;
    /// Let `f` write the next `n` values in place (it must initialise all of them), then
    /// count them as written. None, without calling `f`, when there is no room for `n`.
    fn fill_with(&mut self, n: usize, f: impl FnOnce(&mut [std::mem::MaybeUninit<T>])) -> Option<()>;
}

impl<T> Out<T> for Vec<T> {
    #[inline]
    fn len(&self) -> usize {
        Vec::len(self)
    }
    #[inline]
    fn at(&mut self, i: usize) -> Option<&mut T> {
        self.get_mut(i)
    }
    fn fill_with(&mut self, n: usize, f: impl FnOnce(&mut [std::mem::MaybeUninit<T>])) -> Option<()> {
        self.reserve(n);
        let len = Vec::len(self);
        f(&mut self.spare_capacity_mut()[..n]);
        // SAFETY: `f` initialised the n elements after `len` (the trait's contract)
        unsafe { self.set_len(len + n) };
        Some(())
    }
}

/// An uninitialised slice filled from the front.
pub struct SliceOut<'a, T> {
    buf: &'a mut [std::mem::MaybeUninit<T>],
    len: usize,
}

impl<'a, T> SliceOut<'a, T> {
    pub fn new(buf: &'a mut [std::mem::MaybeUninit<T>]) -> Self {
        SliceOut { buf, len: 0 }
    }
}

impl<T> Out<T> for SliceOut<'_, T> {
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn at(&mut self, i: usize) -> Option<&mut T> {
        // SAFETY: the first `len` elements were written through `fill_with`
        (i < self.len).then(|| unsafe { self.buf[i].assume_init_mut() })
    }
    fn fill_with(&mut self, n: usize, f: impl FnOnce(&mut [std::mem::MaybeUninit<T>])) -> Option<()> {
        let room = self.buf.get_mut(self.len..self.len.checked_add(n)?)?;
        f(room);
        self.len += n;
        Some(())
    }
}

// The unshuffle writes values as their little-endian bytes straight into the output.
const _: () = assert!(cfg!(target_endian = "little"), "column files are decoded in place as little-endian bytes");

/// Append the `n` byte-shuffled values of `raw` (byte j of value i at `j * n + i`) to
/// `out`, unshuffled in place (`shuffle::unshuffle`, 16 values per step), then passed
/// through `fix` (delta decoding, decimal scaling) over the written values. `S` (the
/// stored type) and `T` (the output type) have the same width.
fn planes_into<S: Fixed, T: Fixed>(raw: &[u8], n: usize, what: &str, out: &mut impl Out<T>, fix: impl FnOnce(&mut [T])) -> Result<()> {
    assert!(S::W == T::W && std::mem::size_of::<T>() == T::W, "planes_into: widths differ");
    if raw.len() < n * T::W {
        return Err(corrupt(what, "block length"));
    }
    out.fill_with(n, |dst| {
        // SAFETY: `dst` is n values of T, i.e. n * W bytes, all written by `unshuffle`;
        // T is a plain number (i8..i128, f32, f64): every bit pattern is a value
        let bytes = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut std::mem::MaybeUninit<u8>, n * T::W) };
        crate::shuffle::unshuffle(raw, n, T::W, bytes);
        let vals = unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr() as *mut T, n) };
        fix(vals);
    })
    .ok_or_else(|| corrupt(what, "block length"))
}

/// Undo `delta_zig` in place: a running sum of the decoded differences.
fn undelta<T: DeltaInt>(v: &mut [T]) {
    let mut prev = T::ZERO;
    for x in v {
        prev = T::undelta_zig(*x, prev);
        *x = prev;
    }
}

fn encode_raw<T: Fixed>(v: &[T]) -> Vec<u8> {
    compress_values(v.len(), v.iter().copied())
}

fn encode_delta<T: DeltaInt>(v: &[T]) -> Vec<u8> {
    let mut prev = T::ZERO;
    compress_values(
        v.len(),
        v.iter().map(|&x| {
            let d = T::delta_zig(x, prev);
            prev = x;
            d
        }),
    )
}

fn decode_fixed<T: Fixed>(b: &[u8], rows: usize, what: &str, out: &mut impl Out<T>) -> Result<()> {
    with_raw(b, rows * T::W, what, |raw| planes_into::<T, T>(raw, rows, what, out, |_| ()))
}

fn decode_delta<T: DeltaInt>(b: &[u8], rows: usize, what: &str, out: &mut impl Out<T>) -> Result<()> {
    with_raw(b, rows * T::W, what, |raw| planes_into::<T, T>(raw, rows, what, out, undelta::<T>))
}

const POW10: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
const MAX_EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
/// Most decimals a DECIMAL block keeps; values needing more are stored as exceptions.
const MAX_SCALE: usize = 15;

/// `y` rounded to an integer, half away from zero, for |y| < 2^53 (a conversion instead of
/// `f64::round`, a library call on baseline x86-64). Other inputs give some integer or NaN,
/// which the callers' `s / 10^k == x` check rejects.
#[inline]
fn round_int(y: f64) -> f64 {
    ((y + 0.5f64.copysign(y)) as i64) as f64
}

/// Smallest k with `x == round(x * 10^k) / 10^k` (None: not a short decimal).
#[inline]
fn min_scale(x: f64) -> Option<usize> {
    (0..=MAX_SCALE).find(|&k| {
        let s = round_int(x * POW10[k]);
        s.abs() < MAX_EXACT && s / POW10[k] == x
    })
}

/// How many values of `v` have each smallest scale (`min_scale`); the last slot counts
/// the values that are no decimal of at most MAX_SCALE places.
fn scale_hist(v: impl Iterator<Item = f64>) -> [usize; MAX_SCALE + 2] {
    let mut hist = [0usize; MAX_SCALE + 2];
    for x in v {
        let m = if x.is_null() { 0 } else { min_scale(x).unwrap_or(MAX_SCALE + 1) };
        hist[m] += 1;
    }
    hist
}

/// The scale for a block from the histogram of its values' scales: of the scales leaving
/// at most 1/`EXCEPTION_PART` of the values as exceptions, the one of the smallest
/// estimated size: 12 bytes an exception, about 1 + 0.4·k bytes a scaled integer (a
/// decimal digit is 3.3 bits of delta). A few values of many places (prices printed as
/// 69.19000000000001, or one unit in the last place off) are cheaper as exceptions than
/// a scale that widens every integer; many values of one more place are cheaper scaled.
fn pick_scale(hist: &[usize; MAX_SCALE + 2]) -> Option<usize> {
    let n: usize = hist.iter().sum();
    let mut exact = 0;
    let mut best: Option<(usize, usize)> = None;
    for (k, h) in hist.iter().enumerate().take(MAX_SCALE + 1) {
        exact += h;
        let exc = n - exact;
        if exc * EXCEPTION_PART > n {
            continue;
        }
        // tenths of a byte
        let cost = exc * 120 + exact * (10 + 4 * k);
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, k));
        }
    }
    best.map(|(_, k)| k)
}

/// Most exceptions a DECIMAL block holds, as a part of its rows: each costs 12 bytes,
/// while a RAW block of prices costs about 6 bytes a value, so a block of up to a third
/// of exceptions is still smaller as DECIMAL than RAW.
const EXCEPTION_PART: usize = 3;

/// A DECIMAL block at scale k, or None past `limit` exceptions.
fn decimal_block(v: &[f64], k: usize, limit: usize) -> Option<Vec<u8>> {
    let mut ints = Vec::with_capacity(v.len());
    let mut exc_idx: Vec<u32> = Vec::new();
    let mut exc_val: Vec<f64> = Vec::new();
    let mut prev = 0i64;
    let p = POW10[k];
    for (i, &x) in v.iter().enumerate() {
        // a NaN is a value (null.rs): it is kept bit for bit as an exception below
        if x.is_null() && !x.is_nan() {
            ints.push(i64::NULL);
            continue;
        }
        // a value that needs more decimals, or that is too large to scale by 10^k
        // exactly (214748.3647 at k = 14 overflows i64), is kept as an exception
        let s = round_int(x * p);
        if s.abs() >= MAX_EXACT || s / p != x {
            if exc_idx.len() >= limit {
                return None;
            }
            exc_idx.push(i as u32);
            exc_val.push(x);
            ints.push(prev);
        } else {
            prev = s as i64;
            ints.push(prev);
        }
    }
    let mut out = vec![k as u8];
    out.extend_from_slice(&(exc_idx.len() as u32).to_le_bytes());
    exc_idx.iter().for_each(|i| out.extend_from_slice(&i.to_le_bytes()));
    exc_val.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
    out.extend_from_slice(&encode_delta(&ints));
    Some(out)
}

/// DECIMAL blocks: scale k, then exceptions (values that are not k-decimals, e.g.
/// 26.110000000000003) as positions and raw values, then the scaled integers delta-coded.
/// The scale is taken from a sample of 64 values (finding a value's smallest scale costs
/// up to 16 divisions) and kept when at most 1/`EXCEPTION_PART` of the block are then
/// exceptions. Otherwise (a sample that misled) every value's scale decides, unless half
/// the sample is no short decimal at all (measured values, not prices): such a block is
/// stored RAW without the pass over every value.
fn encode_f64(v: &[f64]) -> (u8, Vec<u8>) {
    let n = v.len();
    let limit = n / EXCEPTION_PART;
    let sampled = n >= 256;
    let hist = scale_hist(v.iter().step_by(if sampled { n / 64 } else { 1 }).copied());
    if let Some(out) = pick_scale(&hist).and_then(|k| decimal_block(v, k, limit)) {
        return (DECIMAL, out);
    }
    let total: usize = hist.iter().sum();
    if sampled && hist[MAX_SCALE + 1] * 2 <= total {
        if let Some(out) = pick_scale(&scale_hist(v.iter().copied())).and_then(|k| decimal_block(v, k, limit)) {
            return (DECIMAL, out);
        }
    }
    (RAW, encode_raw(v))
}

fn decode_f64(codec: u8, b: &[u8], rows: usize, what: &str, out: &mut impl Out<f64>) -> Result<()> {
    if codec == DECIMAL {
        let bad = || corrupt(what, "decimal block");
        if b.len() < 5 {
            return Err(bad());
        }
        let k = b[0] as usize;
        if k > MAX_SCALE {
            return Err(corrupt(what, "decimal scale"));
        }
        let ne = u32::from_le_bytes([b[1], b[2], b[3], b[4]]) as usize;
        let body = 5 + ne * 12;
        if b.len() < body || ne > rows {
            return Err(bad());
        }
        let base = out.len();
        let p = POW10[k];
        with_raw(&b[body..], rows * 8, what, |raw| {
            // the slots hold the stored i64 differences (same width) until rewritten
            planes_into::<i64, f64>(raw, rows, what, out, |v| {
                // SAFETY: i64 and f64 have one size and alignment and every bit pattern
                // is a value of both: the slots are read as the stored integers
                let ints = unsafe { &mut *(v as *mut [f64] as *mut [i64]) };
                undelta(ints);
                scale_decimals(v, p);
            })
        })?;
        for e in 0..ne {
            let p = 5 + e * 4;
            let idx = u32::from_le_bytes([b[p], b[p + 1], b[p + 2], b[p + 3]]) as usize;
            let q = 5 + ne * 4 + e * 8;
            let x = f64::from_le_bytes(b[q..q + 8].try_into().map_err(|_| bad())?);
            *out.at(base + idx).ok_or_else(bad)? = x;
        }
        return Ok(());
    }
    decode_fixed(b, rows, what, out)
}

beluga_runtime::simd_fn! {
    /// Scaled integers (held as i64 bits in the slots) to their decimals, `i / 10^k`,
    /// NULL kept. A pass of its own after the running sum (which is serial): the
    /// conversions and divisions of independent values then run on whole vectors instead
    /// of one divide per value inside the sum's loop, with the same IEEE results.
    fn scale_decimals(v: &mut [f64], p: f64) -> () {
        for x in v.iter_mut() {
            let i = x.to_bits() as i64;
            *x = if i.is_null() { f64::NULL } else { i as f64 / p };
        }
    }
}

fn encode_strings(s: &StrCol, start: usize, end: usize) -> Vec<u8> {
    let mut raw = Vec::with_capacity((end - start) * 4 + s.offsets[end] - s.offsets[start]);
    for i in start..end {
        raw.extend_from_slice(&((s.offsets[i + 1] - s.offsets[i]) as u32).to_le_bytes());
    }
    raw.extend_from_slice(&s.bytes[s.offsets[start]..s.offsets[end]]);
    lz4_flex::block::compress_prepend_size(&raw)
}

fn decode_strings(b: &[u8], rows: usize, what: &str, out: &mut StrCol) -> Result<()> {
    let raw = decompress(b, what)?;
    if raw.len() < rows * 4 {
        return Err(corrupt(what, "string block"));
    }
    let (lens, bytes) = raw.split_at(rows * 4);
    let total: usize = lens.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize).sum();
    if total != bytes.len() || std::str::from_utf8(bytes).is_err() {
        return Err(corrupt(what, "string block"));
    }
    let base = out.bytes.len();
    out.bytes.extend_from_slice(bytes);
    let mut off = base;
    for c in lens.chunks_exact(4) {
        off += u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize;
        out.offsets.push(off);
    }
    Ok(())
}

fn stats_int<T: Native>(v: &[T]) -> Option<(i64, i64)> {
    let mut it = v.iter().filter(|x| !x.is_null()).map(|x| x.to_i64());
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x))))
}

fn stats_float<T: Native>(v: &[T]) -> Option<(i64, i64)> {
    let mut it = v.iter().filter(|x| !x.is_null()).map(|x| x.to_f64());
    let first = it.next()?;
    let (lo, hi) = it.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x)));
    Some((lo.to_bits() as i64, hi.to_bits() as i64))
}

/// Encode one block of rows [s, e): codec, bytes, stats.
fn encode_block(col: &Column, s: usize, e: usize) -> (u8, Vec<u8>, Option<(i64, i64)>) {
    match &*col.data {
        ColData::I8(v) => (RAW, encode_raw(&v[s..e]), stats_int(&v[s..e])),
        ColData::I16(v) => (DELTA, encode_delta(&v[s..e]), stats_int(&v[s..e])),
        ColData::I32(v) => (DELTA, encode_delta(&v[s..e]), stats_int(&v[s..e])),
        ColData::I64(v) => (DELTA, encode_delta(&v[s..e]), stats_int(&v[s..e])),
        ColData::F32(v) => (RAW, encode_raw(&v[s..e]), stats_float(&v[s..e])),
        ColData::F64(v) => {
            let (c, b) = encode_f64(&v[s..e]);
            (c, b, stats_float(&v[s..e]))
        }
        ColData::I128(v) => (RAW, encode_raw(&v[s..e]), None),
        ColData::Sym(sym) => {
            let codes: Vec<i32> = sym.codes[s..e].iter().map(|&c| c as i32).collect();
            (DELTA, encode_delta(&codes), None)
        }
        ColData::Str(st) => (STRINGS, encode_strings(st, s, e), None),
        ColData::Array(a) => {
            let lens: Vec<i32> = (s..e).map(|r| a.row_len(r) as i32).collect();
            let lb = encode_delta(&lens);
            let (p, q) = (a.offsets[s], a.offsets[e]);
            let (codec, inner, _) = encode_block(&a.data, p, q);
            let mut out = vec![codec];
            out.extend_from_slice(&(lb.len() as u32).to_le_bytes());
            out.extend_from_slice(&lb);
            out.extend_from_slice(&inner);
            (ARRAY, out, None)
        }
    }
}

/// One block of an array-vector column back into (row lengths, flat elements).
fn decode_array_block(elem: DataType, b: &[u8], rows: usize, what: &str) -> Result<(Vec<i32>, Column)> {
    let bad = || corrupt(what, "array-vector block");
    if b.len() < 5 {
        return Err(bad());
    }
    let codec = b[0];
    let ll = u32::from_le_bytes([b[1], b[2], b[3], b[4]]) as usize;
    if b.len() < 5 + ll {
        return Err(bad());
    }
    let mut lens = Vec::with_capacity(rows);
    decode_delta::<i32>(&b[5..5 + ll], rows, what, &mut lens)?;
    if lens.iter().any(|&l| l < 0) {
        return Err(bad());
    }
    let n: usize = lens.iter().map(|&l| l as usize).sum();
    let inner = &b[5 + ll..];
    use beluga_runtime::types::Physical as P;
    let data = match elem.physical() {
        P::I8 => ColData::I8({ let mut v = Vec::new(); decode_fixed(inner, n, what, &mut v)?; v }),
        P::I16 => ColData::I16({ let mut v = Vec::new(); int_block(codec, inner, n, what, &mut v)?; v }),
        P::I32 => ColData::I32({ let mut v = Vec::new(); int_block(codec, inner, n, what, &mut v)?; v }),
        P::I64 => ColData::I64({ let mut v = Vec::new(); int_block(codec, inner, n, what, &mut v)?; v }),
        P::F32 => ColData::F32({ let mut v = Vec::new(); decode_fixed(inner, n, what, &mut v)?; v }),
        P::F64 => ColData::F64({ let mut v = Vec::new(); decode_f64(codec, inner, n, what, &mut v)?; v }),
        P::I128 => ColData::I128({ let mut v = Vec::new(); decode_fixed(inner, n, what, &mut v)?; v }),
        _ => return Err(corrupt(what, "array-vector element type")),
    };
    Ok((lens, Column::new(elem, data)))
}

/// The stats byte of a block: bit 0 min/max present, bit 2 the null flag recorded, bit 1
/// the block holds a null. Files written before the flag hold 0 or 1 (and readers of
/// that time take any non-zero byte as "min/max present", which stays true: a block
/// without min/max, all nulls, is still written as 0).
const STATS: u8 = 1;
const NULLS: u8 = 2;
const NULLS_KNOWN: u8 = 4;
/// the block's checksum is `checksum_wide` (set on every block written now)
const SUM_WIDE: u8 = 8;

fn stats_flags(b: &BlockMeta) -> u8 {
    let sum = if b.wide_sum { SUM_WIDE } else { 0 };
    if !b.has_stats {
        return sum;
    }
    sum | STATS | if b.nulls_known { NULLS_KNOWN | if b.has_nulls { NULLS } else { 0 } } else { 0 }
}

/// Whether rows [s, e) of a column with block statistics hold a null.
fn block_has_null(col: &Column, s: usize, e: usize) -> bool {
    fn any<T: Native>(v: &[T]) -> bool {
        v.iter().any(|x| x.is_null())
    }
    match &*col.data {
        ColData::I8(v) => any(&v[s..e]),
        ColData::I16(v) => any(&v[s..e]),
        ColData::I32(v) => any(&v[s..e]),
        ColData::I64(v) => any(&v[s..e]),
        ColData::F32(v) => any(&v[s..e]),
        ColData::F64(v) => any(&v[s..e]),
        // types without block statistics: never asked
        _ => true,
    }
}

/// Encode a whole column as a column file. SYMBOL codes must refer to the table's symbol base.
pub fn encode(col: &Column) -> Vec<u8> {
    let n = col.len();
    let mut blocks = Vec::new();
    let mut data = Vec::new();
    let mut s = 0;
    while s < n {
        let e = (s + BLOCK_ROWS).min(n);
        let (codec, bytes, stats) = encode_block(col, s, e);
        // DECIMAL blocks carry no min/max: unscaled integers would mislead pruning
        let stats = if col.ty.decimal_scale().is_some() { None } else { stats };
        let (has_stats, min, max) = match stats {
            Some((a, b)) => (true, a, b),
            None => (false, 0, 0),
        };
        let has_nulls = has_stats && block_has_null(col, s, e);
        blocks.push(BlockMeta {
            rows: (e - s) as u32,
            offset: data.len() as u64,
            clen: bytes.len() as u32,
            codec,
            has_stats,
            has_nulls,
            nulls_known: has_stats,
            min,
            max,
            sum: checksum_wide(&bytes),
            wide_sum: true,
        });
        data.extend_from_slice(&bytes);
        s = e;
    }
    let mut out = header(col.ty, n as u64, &blocks);
    out.extend_from_slice(&data);
    out
}

/// The sealed header of a column file: type, rows, the block directory.
fn header(ty: DataType, n: u64, blocks: &[BlockMeta]) -> Vec<u8> {
    let mut w = Writer::new();
    w.buf.extend_from_slice(MAGIC);
    w.dtype(ty);
    w.u64(n);
    w.u32(blocks.len() as u32);
    for b in blocks {
        w.u32(b.rows);
        w.u64(b.offset);
        w.u32(b.clen);
        w.u8(b.codec);
        w.u8(stats_flags(b));
        w.i64(b.min);
        w.i64(b.max);
        w.u64(b.sum);
    }
    w.seal()
}

impl ColumnFile {
    /// Parse and verify the header of a column file's bytes.
    pub fn open(bytes: impl Into<crate::mapped::Bytes>, name: &str) -> Result<ColumnFile> {
        let bytes: crate::mapped::Bytes = bytes.into();
        if bytes.len() < MAGIC.len() + 21 || &bytes[..8] != MAGIC {
            return Err(corrupt(name, "not a column file"));
        }
        let mut r = Reader::new(&bytes, name);
        r.take(8)?;
        let ty = r.dtype()?;
        let rows = r.u64()?;
        let nb = r.u32()? as usize;
        if nb > bytes.len() / 40 + 1 {
            return Err(corrupt(name, "bad block count"));
        }
        let mut blocks = Vec::with_capacity(nb);
        for _ in 0..nb {
            let (rows, offset, clen, codec, flags) = (r.u32()?, r.u64()?, r.u32()?, r.u8()?, r.u8()?);
            blocks.push(BlockMeta {
                rows,
                offset,
                clen,
                codec,
                has_stats: flags & STATS != 0,
                has_nulls: flags & NULLS != 0,
                nulls_known: flags & NULLS_KNOWN != 0,
                min: r.i64()?,
                max: r.i64()?,
                sum: r.u64()?,
                wide_sum: flags & SUM_WIDE != 0,
            });
        }
        let hdr_end = r.pos;
        let want = r.u64()?;
        if checksum(&bytes[..hdr_end]) != want {
            return Err(corrupt(name, "header checksum mismatch"));
        }
        let data_start = r.pos;
        let total: u64 = blocks.iter().map(|b| b.rows as u64).sum();
        let data_len = (bytes.len() - data_start) as u64;
        if total != rows || blocks.iter().any(|b| b.offset.checked_add(b.clen as u64).is_none_or(|e| e > data_len)) {
            return Err(corrupt(name, "truncated"));
        }
        Ok(ColumnFile { ty, rows, blocks, data: bytes, data_start, name: name.to_string() })
    }

    fn block_bytes(&self, k: usize) -> Result<&[u8]> {
        let b = &self.blocks[k];
        let s = self.data_start + b.offset as usize;
        let bytes = &self.data[s..s + b.clen as usize];
        let sum = if b.wide_sum { checksum_wide(bytes) } else { checksum(bytes) };
        if sum != b.sum {
            return Err(corrupt(&self.name, &format!("block {k} checksum mismatch")));
        }
        Ok(bytes)
    }

    /// Decode the blocks marked in `keep` (all when None) into one column.
    pub fn decode(&self, keep: Option<&[bool]>, sym: Option<&Arc<SymbolDict>>) -> Result<Column> {
        let sel: Vec<usize> = (0..self.blocks.len()).filter(|&k| keep.is_none_or(|m| m[k])).collect();
        self.decode_blocks(&sel, sym)
    }

    /// Decode the blocks `sel` (ascending indices) into one column.
    pub fn decode_blocks(&self, sel: &[usize], sym: Option<&Arc<SymbolDict>>) -> Result<Column> {
        let ty = self.ty;
        let n: usize = sel.iter().map(|&k| self.blocks[k].rows as usize).sum();
        let name = self.name.as_str();
        macro_rules! each {
            ($v:ident, $f:expr) => {{
                let mut $v = Vec::with_capacity(n);
                for &k in sel {
                    let b = self.block_bytes(k)?;
                    let rows = self.blocks[k].rows as usize;
                    let codec = self.blocks[k].codec;
                    $f(codec, b, rows, &mut $v)?;
                }
                $v
            }};
        }
        if let Some(elem) = ty.array_elem() {
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0usize);
            let mut parts = Vec::with_capacity(sel.len());
            for &k in sel {
                if self.blocks[k].codec != ARRAY {
                    return Err(corrupt(name, "array-vector block codec"));
                }
                let (lens, data) = decode_array_block(elem, self.block_bytes(k)?, self.blocks[k].rows as usize, name)?;
                for l in lens {
                    offsets.push(offsets[offsets.len() - 1] + l as usize);
                }
                parts.push(data);
            }
            let refs: Vec<&Column> = parts.iter().collect();
            let flat = Column::concat(elem, &refs);
            return Ok(Column::from_array(Arc::new(beluga_runtime::value::ArrayVec::new(offsets, flat))));
        }
        let data = match ty.physical() {
            beluga_runtime::types::Physical::I8 | beluga_runtime::types::Physical::None => {
                ColData::I8(each!(v, |_c, b, r, v: &mut Vec<i8>| decode_fixed(b, r, name, v)))
            }
            beluga_runtime::types::Physical::I16 => ColData::I16(each!(v, |c, b, r, v: &mut Vec<i16>| int_block(c, b, r, name, v))),
            beluga_runtime::types::Physical::I32 => ColData::I32(each!(v, |c, b, r, v: &mut Vec<i32>| int_block(c, b, r, name, v))),
            beluga_runtime::types::Physical::I64 => ColData::I64(each!(v, |c, b, r, v: &mut Vec<i64>| int_block(c, b, r, name, v))),
            beluga_runtime::types::Physical::F32 => ColData::F32(each!(v, |_c, b, r, v: &mut Vec<f32>| decode_fixed(b, r, name, v))),
            beluga_runtime::types::Physical::F64 => ColData::F64(each!(v, |c, b, r, v: &mut Vec<f64>| decode_f64(c, b, r, name, v))),
            beluga_runtime::types::Physical::I128 => ColData::I128(each!(v, |_c, b, r, v: &mut Vec<i128>| decode_fixed(b, r, name, v))),
            beluga_runtime::types::Physical::Sym => {
                let codes: Vec<i32> = each!(v, |c, b, r, v: &mut Vec<i32>| int_block(c, b, r, name, v));
                let dict = sym.cloned().unwrap_or_default();
                let limit = dict.names.len() as i32;
                if codes.iter().any(|&c| c < 0 || c >= limit) {
                    return Err(corrupt(name, "symbol code outside the symbol base"));
                }
                ColData::Sym(SymCol { codes: codes.into_iter().map(|c| c as u32).collect(), dict })
            }
            beluga_runtime::types::Physical::Str => {
                let mut s = StrCol::with_capacity(n, 0);
                for &k in sel {
                    let b = self.block_bytes(k)?;
                    decode_strings(b, self.blocks[k].rows as usize, name, &mut s)?;
                }
                ColData::Str(s)
            }
        };
        Ok(Column::new(ty, data))
    }
}

/// The physical types a file decodes straight into a column slice (`decode_into`).
pub trait Decodable: Fixed {
    fn block(codec: u8, b: &[u8], rows: usize, what: &str, out: &mut impl Out<Self>) -> Result<()>;
}

macro_rules! decodable {
    ($($t:ty => $f:expr;)*) => {
        $(impl Decodable for $t {
            fn block(codec: u8, b: &[u8], rows: usize, what: &str, out: &mut impl Out<Self>) -> Result<()> {
                $f(codec, b, rows, what, out)
            }
        })*
    };
}
decodable! {
    i8 => |_c, b, r, w, o| decode_fixed(b, r, w, o);
    i16 => int_block;
    i32 => int_block;
    i64 => int_block;
    f32 => |_c, b, r, w, o| decode_fixed(b, r, w, o);
    f64 => decode_f64;
    i128 => |_c, b, r, w, o| decode_fixed(b, r, w, o);
}

impl ColumnFile {
    /// Decode every block into `out`, which must have exactly `self.rows` elements: one
    /// file's share of a column assembled from several (the caller checked that `T` is
    /// this file's physical type; SYMBOL codes come out as i32 and are checked by it).
    pub fn decode_into<T: Decodable>(&self, out: &mut [std::mem::MaybeUninit<T>]) -> Result<()> {
        if out.len() as u64 != self.rows || self.ty.array_elem().is_some() {
            return Err(corrupt(&self.name, "internal: decode_into of a wrong length or type"));
        }
        let mut o = SliceOut::new(out);
        for (k, b) in self.blocks.iter().enumerate() {
            let before = o.len();
            T::block(b.codec, self.block_bytes(k)?, b.rows as usize, &self.name, &mut o)?;
            if o.len() != before + b.rows as usize {
                return Err(corrupt(&self.name, "block length"));
            }
        }
        Ok(())
    }
}

fn int_block<T: DeltaInt>(codec: u8, b: &[u8], rows: usize, what: &str, out: &mut impl Out<T>) -> Result<()> {
    match codec {
        DELTA => decode_delta(b, rows, what, out),
        RAW => decode_fixed(b, rows, what, out),
        _ => Err(corrupt(what, "unknown codec")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `planes_into` reads value i from byte j at `j * n + i` (the order `compress_values`
    /// writes), for every width.
    fn planes_case<T: Fixed + PartialEq + std::fmt::Debug>(len: usize) {
        let n = len;
        let bytes: Vec<u8> = (0..n * T::W).map(|k| (k * 31 % 251) as u8).collect();
        let want: Vec<T> = (0..n)
            .map(|i| {
                let v: Vec<u8> = (0..T::W).map(|b| bytes[b * n + i]).collect();
                T::get(&v)
            })
            .collect();
        let mut got = vec![T::ZERO];
        planes_into::<T, T>(&bytes, n, "t", &mut got, |_| ()).unwrap();
        assert_eq!(&got[1..], &want[..], "width {} len {len}", T::W);
    }

    #[test]
    fn unshuffle_by_planes_matches_the_strided_order() {
        for len in [0usize, 1, 7, 64, 1001] {
            planes_case::<i8>(len);
            planes_case::<i16>(len);
            planes_case::<i32>(len);
            planes_case::<f64>(len);
            planes_case::<i128>(len);
        }
    }

    fn round(col: &Column) -> Column {
        let bytes = encode(col);
        let f = ColumnFile::open(bytes, "t").unwrap();
        let sym = match &*col.data {
            ColData::Sym(s) => Some(s.dict.clone()),
            _ => None,
        };
        f.decode(None, sym.as_ref()).unwrap()
    }

    #[test]
    fn column_file_round_trips() {
        let n = 200_000;
        let ints: Vec<i32> = (0..n).map(|i| if i % 97 == 0 { i32::NULL } else { (i * 7919 % 1000) as i32 - 500 }).collect();
        let c = round(&Column::from_vec(DataType::Int, ints.clone()));
        assert!(matches!(&*c.data, ColData::I32(v) if *v == ints));
        let longs: Vec<i64> = (0..n).map(|i| if i % 5 == 0 { i64::NULL } else { i64::MAX - i as i64 }).collect();
        let c = round(&Column::from_vec(DataType::Timestamp, longs.clone()));
        assert!(matches!(&*c.data, ColData::I64(v) if *v == longs));
        let dec: Vec<f64> = (0..n).map(|i| if i % 11 == 0 { f64::NULL } else { (i % 1000) as f64 / 10.0 + 80.0 }).collect();
        let c = round(&Column::from_vec(DataType::Double, dec.clone()));
        assert!(matches!(&*c.data, ColData::F64(v) if *v == dec));
        // large values beside many-decimal ones must not overflow the scaled integers
        let wide: Vec<f64> = (0..5000).map(|i| if i % 7 == 0 { 214748.3647 } else { 0.1 + i as f64 * 1e-13 }).collect();
        let (codec, bytes) = encode_f64(&wide);
        let mut back = Vec::new();
        decode_f64(codec, &bytes, wide.len(), "wide", &mut back).expect("decode");
        assert_eq!(back, wide);
        let mixed: Vec<f64> = (0..5000).map(|i| if i % 100 == 7 { 26.110000000000003 } else if i % 3 == 0 { 214748.3647 } else { 44.72 + (i % 50) as f64 / 100.0 }).collect();
        let c = round(&Column::from_vec(DataType::Double, mixed.clone()));
        assert!(matches!(&*c.data, ColData::F64(v) if *v == mixed));
        let raw: Vec<f64> = (0..1000).map(|i| (i as f64).sqrt()).collect();
        let c = round(&Column::from_vec(DataType::Double, raw.clone()));
        assert!(matches!(&*c.data, ColData::F64(v) if *v == raw));
        let shorts: Vec<i16> = vec![i16::NULL, -5, 7, i16::MAX, i16::MIN + 1];
        let c = round(&Column::from_vec(DataType::Short, shorts.clone()));
        assert!(matches!(&*c.data, ColData::I16(v) if *v == shorts));
        let s = StrCol::from_iter(["a", "", "héllo", "xyz"]);
        let c = round(&Column::new(DataType::String, ColData::Str(s.clone())));
        assert!(matches!(&*c.data, ColData::Str(v) if *v == s));
        let sym = SymCol::from_iter(["IBM", "MSFT", "IBM", ""]);
        let c = round(&Column::new(DataType::Symbol, ColData::Sym(sym.clone())));
        assert!(matches!(&*c.data, ColData::Sym(v) if v.codes == sym.codes));
        let empty = round(&Column::from_vec(DataType::Int, Vec::<i32>::new()));
        assert_eq!(empty.len(), 0);
    }

    /// Prices of which a part are printed with float noise (69.19000000000001 is no
    /// decimal of at most 15 places): blocks with up to a third of such values are
    /// DECIMAL (exceptions kept bit for bit), more are RAW, and so are measured values;
    /// every block reads back exactly.
    #[test]
    fn decimal_blocks_take_up_to_a_third_of_exceptions() {
        let noisy = 69.19000000000001;
        assert_eq!(min_scale(noisy), None);
        // prices 60.00 .. 79.99 in random order; an exception is a price one unit in the
        // last place off (as float noise prints: no short decimal)
        let block = |n: usize, every: usize| -> Vec<f64> {
            let mut x: u64 = 0x2545_F491_4F6C_DD1D;
            (0..n)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let p = 60.0 + (x % 2000) as f64 / 100.0;
                    if every > 0 && i % every == every / 2 { f64::from_bits(p.to_bits() + 1) } else { p }
                })
                .collect()
        };
        assert_eq!(min_scale(f64::from_bits(69.19f64.to_bits() + 1)), None);
        let round = |v: &[f64]| -> u8 {
            let (codec, bytes) = encode_f64(v);
            let mut back = Vec::new();
            decode_f64(codec, &bytes, v.len(), "t", &mut back).unwrap();
            assert_eq!(back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), v.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
            codec
        };
        // 0, 1/20, 1/8, 1/5 and 1/4 of the values are exceptions: DECIMAL at scale 2
        for every in [0, 20, 8, 5, 4] {
            let v = block(BLOCK_ROWS, every);
            assert_eq!(round(&v), DECIMAL, "one in {every}");
            assert_eq!(encode_f64(&v).1[0], 2, "one in {every}");
        }
        // a short block (every value's scale is counted) and an uneven spread of
        // exceptions (a whole run of them that a 64-value sample may miss or overweight)
        assert_eq!(round(&block(200, 6)), DECIMAL);
        let mut runs = block(BLOCK_ROWS, 0);
        runs[1000..2500].iter_mut().for_each(|x| *x = noisy);
        assert_eq!(round(&runs), DECIMAL);
        // half of them: RAW; measured values (no short decimal at all): RAW
        assert_eq!(round(&block(BLOCK_ROWS, 2)), RAW);
        let roots: Vec<f64> = (0..BLOCK_ROWS).map(|i| (i as f64).sqrt()).collect();
        assert_eq!(round(&roots), RAW);
        // NULLs and NaN beside exceptions
        let mut with_nulls = block(BLOCK_ROWS, 10);
        with_nulls[5] = f64::NULL;
        with_nulls[6] = f64::NAN;
        assert_eq!(round(&with_nulls), DECIMAL);
        // a DECIMAL block of 1/5 exceptions is smaller than the same values RAW
        let v = block(BLOCK_ROWS, 5);
        assert!(encode_f64(&v).1.len() < encode_raw(&v).len(), "{} vs {}", encode_f64(&v).1.len(), encode_raw(&v).len());
    }

    #[test]
    fn array_vector_columns_round_trip_over_blocks() {
        // 70000 rows of 0..3 elements: two blocks, empty rows, nulls and decimals
        let n = 70_000usize;
        let mut offsets = vec![0usize];
        let mut flat = Vec::new();
        for r in 0..n {
            for k in 0..(r % 4) {
                flat.push(if (r + k) % 13 == 0 { f64::NULL } else { (r * 3 + k) as f64 / 100.0 });
            }
            offsets.push(flat.len());
        }
        let av = beluga_runtime::value::ArrayVec::new(offsets.clone(), Column::from_vec(DataType::Double, flat.clone()));
        let col = Column::from_array(Arc::new(av));
        assert_eq!(col.ty.name(), "DOUBLE[]");
        let back = round(&col);
        let a = back.as_array().expect("an array column");
        assert_eq!(a.offsets, offsets);
        assert!(matches!(&*a.data.data, ColData::F64(v) if *v == flat));
        // a cut file is reported, not misread
        let bytes = encode(&col);
        assert!(ColumnFile::open(bytes[..bytes.len() - 7].to_vec(), "a.col").is_err());
    }

    #[test]
    fn corrupt_files_are_reported() {
        let col = Column::from_vec(DataType::Long, (0..100_000i64).collect::<Vec<_>>());
        let bytes = encode(&col);
        let cut = bytes[..bytes.len() - 10].to_vec();
        assert!(ColumnFile::open(cut, "c.col").err().unwrap().message.contains("c.col"));
        let mut flip = bytes.clone();
        let k = flip.len() - 3;
        flip[k] ^= 0x40;
        let f = ColumnFile::open(flip, "c.col").unwrap();
        assert!(f.decode(None, None).is_err());
        let mut hdr = bytes;
        hdr[10] ^= 1;
        assert!(ColumnFile::open(hdr, "c.col").is_err());
    }

    /// Blocks written before the wide checksum (flag clear, serial `checksum`) still read,
    /// and a flipped byte is caught under either sum.
    #[test]
    fn serial_and_wide_block_sums_both_verify() {
        let vals: Vec<f64> = (0..20_000).map(|i| i as f64 * 0.37).collect();
        let col = Column::from_vec(DataType::Double, vals.clone());
        let bytes = encode(&col);
        let f = ColumnFile::open(bytes.clone(), "w.col").unwrap();
        assert!(f.blocks.iter().all(|b| b.wide_sum));
        // the same blocks as an older file: serial sums, flag clear
        let mut blocks = f.blocks.clone();
        let data = &bytes[f.data_start..];
        for b in &mut blocks {
            b.wide_sum = false;
            b.sum = checksum(&data[b.offset as usize..(b.offset + b.clen as u64) as usize]);
        }
        let mut old = header(col.ty, col.len() as u64, &blocks);
        old.extend_from_slice(data);
        let g = ColumnFile::open(old.clone(), "s.col").unwrap();
        assert!(g.blocks.iter().all(|b| !b.wide_sum));
        assert!(matches!(&*g.decode(None, None).unwrap().data, ColData::F64(v) if *v == vals));
        for (file, start) in [(bytes, f.data_start), (old, g.data_start)] {
            for at in [start + 3, start + 40, file.len() - 1] {
                let mut bad = file.clone();
                bad[at] ^= 0x10;
                let err = ColumnFile::open(bad, "x.col").unwrap().decode(None, None).err().unwrap();
                assert!(err.message.contains("checksum"), "{}", err.message);
            }
        }
    }
}
