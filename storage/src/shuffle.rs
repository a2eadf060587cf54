//! Byte-plane unshuffle for the column files' fixed-width blocks: byte j of value i is
//! stored at `j * n + i` (planes compress well: the high bytes of small numbers are runs),
//! and a decoder puts the bytes back value by value. On x86-64, 16 values at a time with
//! SSE2 byte/word/dword interleaves (SSE2 is part of the baseline target), instead of W
//! single-byte loads per value; elsewhere, and for the tail, one byte at a time.

use std::mem::MaybeUninit;

/// Write the `n` values of `w` bytes whose planes are in `raw` into `dst`, value after
/// value (`dst[i * w + j] = raw[j * n + i]`). Panics unless `raw` and `dst` hold `n * w`
/// bytes (callers size both from the block's row count).
pub fn unshuffle(raw: &[u8], n: usize, w: usize, dst: &mut [MaybeUninit<u8>]) {
    assert!(raw.len() >= n * w && dst.len() >= n * w, "unshuffle: buffers shorter than the block");
    if w == 1 {
        for (d, &s) in dst[..n].iter_mut().zip(&raw[..n]) {
            d.write(s);
        }
        return;
    }
    let done = wide(raw, n, w, dst);
    for i in done..n {
        for j in 0..w {
            dst[i * w + j].write(raw[j * n + i]);
        }
    }
}

/// The first 16 * (n / 16) values (how many were written).
#[cfg(target_arch = "x86_64")]
fn wide(raw: &[u8], n: usize, w: usize, dst: &mut [MaybeUninit<u8>]) -> usize {
    use std::arch::x86_64::*;
    let blocks = n / 16;
    let rp = raw.as_ptr();
    let dp = dst.as_mut_ptr() as *mut u8;
    // SAFETY: SSE2 is always available on x86-64. Block b reads bytes [j * n + 16b,
    // j * n + 16b + 16) of each plane j < w, inside raw[..n * w] since 16b + 16 <= n, and
    // writes dst bytes [16b * w, 16(b + 1) * w), inside dst[..n * w]; unaligned loads
    // and stores throughout.
    unsafe {
        let ld = |j: usize, i: usize| _mm_loadu_si128(rp.add(j * n + i) as *const __m128i);
        match w {
            2 => {
                for b in 0..blocks {
                    let i = b * 16;
                    let (x0, x1) = (ld(0, i), ld(1, i));
                    let o = dp.add(i * 2) as *mut __m128i;
                    _mm_storeu_si128(o, _mm_unpacklo_epi8(x0, x1));
                    _mm_storeu_si128(o.add(1), _mm_unpackhi_epi8(x0, x1));
                }
            }
            4 => {
                for b in 0..blocks {
                    let i = b * 16;
                    let (x0, x1, x2, x3) = (ld(0, i), ld(1, i), ld(2, i), ld(3, i));
                    // bytes 0-1 and 2-3 of values 0-7 (lo) and 8-15 (hi)
                    let (al, ah) = (_mm_unpacklo_epi8(x0, x1), _mm_unpackhi_epi8(x0, x1));
                    let (cl, ch) = (_mm_unpacklo_epi8(x2, x3), _mm_unpackhi_epi8(x2, x3));
                    let o = dp.add(i * 4) as *mut __m128i;
                    _mm_storeu_si128(o, _mm_unpacklo_epi16(al, cl));
                    _mm_storeu_si128(o.add(1), _mm_unpackhi_epi16(al, cl));
                    _mm_storeu_si128(o.add(2), _mm_unpacklo_epi16(ah, ch));
                    _mm_storeu_si128(o.add(3), _mm_unpackhi_epi16(ah, ch));
                }
            }
            8 => {
                for b in 0..blocks {
                    let i = b * 16;
                    let x: [__m128i; 8] = std::array::from_fn(|j| ld(j, i));
                    // byte pairs (2j, 2j+1) of values 0-7 and 8-15
                    let pl: [__m128i; 4] = std::array::from_fn(|k| _mm_unpacklo_epi8(x[2 * k], x[2 * k + 1]));
                    let ph: [__m128i; 4] = std::array::from_fn(|k| _mm_unpackhi_epi8(x[2 * k], x[2 * k + 1]));
                    // bytes 0-3 (q0) and 4-7 (q1) of values 4k..4k+3
                    let q0 = [
                        _mm_unpacklo_epi16(pl[0], pl[1]),
                        _mm_unpackhi_epi16(pl[0], pl[1]),
                        _mm_unpacklo_epi16(ph[0], ph[1]),
                        _mm_unpackhi_epi16(ph[0], ph[1]),
                    ];
                    let q1 = [
                        _mm_unpacklo_epi16(pl[2], pl[3]),
                        _mm_unpackhi_epi16(pl[2], pl[3]),
                        _mm_unpacklo_epi16(ph[2], ph[3]),
                        _mm_unpackhi_epi16(ph[2], ph[3]),
                    ];
                    let o = dp.add(i * 8) as *mut __m128i;
                    for k in 0..4 {
                        _mm_storeu_si128(o.add(2 * k), _mm_unpacklo_epi32(q0[k], q1[k]));
                        _mm_storeu_si128(o.add(2 * k + 1), _mm_unpackhi_epi32(q0[k], q1[k]));
                    }
                }
            }
            _ => return 0,
        }
    }
    blocks * 16
}

#[cfg(not(target_arch = "x86_64"))]
fn wide(_raw: &[u8], _n: usize, _w: usize, _dst: &mut [MaybeUninit<u8>]) -> usize {
    0
}

#[cfg(test)]
mod tests {
    use super::unshuffle;
    use std::mem::MaybeUninit;

    #[test]
    fn unshuffle_matches_the_plane_order_for_every_width_and_tail() {
        for w in [1usize, 2, 4, 8, 16] {
            for n in [0usize, 1, 15, 16, 17, 33, 100, 8192] {
                let raw: Vec<u8> = (0..n * w).map(|k| (k * 131 % 251) as u8).collect();
                let mut dst = vec![MaybeUninit::<u8>::uninit(); n * w];
                unshuffle(&raw, n, w, &mut dst);
                for i in 0..n {
                    for j in 0..w {
                        // SAFETY: every byte was written by unshuffle (checked value by value)
                        assert_eq!(unsafe { dst[i * w + j].assume_init() }, raw[j * n + i], "w {w} n {n} value {i} byte {j}");
                    }
                }
            }
        }
    }
}
