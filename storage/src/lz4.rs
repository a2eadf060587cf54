//! An LZ4 block decoder for the column files' blocks (written by `lz4_flex`'s
//! compressor, standard LZ4 block format), in safe Rust with every index checked.
//!
//! Why not `lz4_flex`'s decoder: byte-shuffled columns are mostly long runs (the high
//! byte planes of small integers are all zero), which LZ4 stores as matches overlapping
//! their own output (offset 1, thousands of bytes), and `lz4_flex` copies those one byte
//! at a time: perf showed that copy as most of a cold query's decode time. Here a run of
//! one byte is a `fill`, a short period is copied by doubling, and short literals and
//! matches are copied as one fixed 16-byte move.

/// Decode the LZ4 block `inp` into `out`, which must come out exactly full. None when the
/// block is malformed (bad offset, truncated input, output too short or too long).
pub fn decompress_into(inp: &[u8], out: &mut [u8]) -> Option<()> {
    let (n_in, n_out) = (inp.len(), out.len());
    let (mut ip, mut op) = (0usize, 0usize);
    loop {
        let token = *inp.get(ip)?;
        ip += 1;
        let mut ll = (token >> 4) as usize;
        if ll == 15 {
            ll += ext_len(inp, &mut ip)?;
        }
        if ll <= 16 && ip + 16 <= n_in && op + 16 <= n_out {
            // one fixed move; the bytes past `ll` are overwritten by what follows
            let s: [u8; 16] = inp[ip..ip + 16].try_into().ok()?;
            out[op..op + 16].copy_from_slice(&s);
        } else {
            out.get_mut(op..op.checked_add(ll)?)?.copy_from_slice(inp.get(ip..ip.checked_add(ll)?)?);
        }
        ip += ll;
        op += ll;
        if ip >= n_in {
            // the last sequence is literals only
            return (ip == n_in && op == n_out).then_some(());
        }
        let off = u16::from_le_bytes([*inp.get(ip)?, *inp.get(ip + 1)?]) as usize;
        ip += 2;
        let mut ml = (token & 15) as usize + 4;
        if ml == 19 {
            ml += ext_len(inp, &mut ip)?;
        }
        if off == 0 || off > op || ml > n_out - op {
            return None;
        }
        let m = op - off;
        if off >= 16 && ml <= 16 && op + 16 <= n_out {
            // source wholly before `op`: one fixed move
            let s: [u8; 16] = out[m..m + 16].try_into().ok()?;
            out[op..op + 16].copy_from_slice(&s);
        } else if off >= ml {
            out.copy_within(m..m + ml, op);
        } else if off == 1 {
            let b = out[m];
            out[op..op + ml].fill(b);
        } else {
            // period `off` < `ml`: copy the pattern, doubling what is copied each time
            // (the shift from source to destination stays a multiple of `off`)
            let mut done = 0;
            while done < ml {
                let k = (off + done).min(ml - done);
                out.copy_within(m..m + k, op + done);
                done += k;
            }
        }
        op += ml;
    }
}

/// The extension of a length: bytes added until one below 255.
#[inline]
fn ext_len(inp: &[u8], ip: &mut usize) -> Option<usize> {
    let mut s = 0usize;
    loop {
        let b = *inp.get(*ip)?;
        *ip += 1;
        s += b as usize;
        if b != 255 {
            return Some(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::decompress_into;

    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Inputs of every shape LZ4 produces: runs of one byte, short periods, long repeats,
    /// random literals, short and long buffers.
    fn samples() -> Vec<Vec<u8>> {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut out = vec![vec![], vec![7], vec![0; 8192], (0..100u8).collect()];
        for period in [2usize, 3, 5, 7, 8, 15, 16, 17, 31, 64] {
            let pat: Vec<u8> = (0..period).map(|_| xorshift(&mut seed) as u8).collect();
            out.push((0..5000).map(|i| pat[i % period]).collect());
        }
        for len in [17usize, 100, 1000, 65536, 200_000] {
            // runs, repeats and noise mixed
            let mut v = Vec::with_capacity(len);
            while v.len() < len {
                let r = xorshift(&mut seed);
                match r % 4 {
                    0 => v.extend(std::iter::repeat_n((r >> 8) as u8, (r >> 16) as usize % 300)),
                    1 => v.extend((0..(r >> 16) as usize % 40).map(|_| xorshift(&mut seed) as u8)),
                    2 if v.len() > 20 => {
                        let back = 1 + (r >> 8) as usize % v.len().min(70_000);
                        let k = (r >> 32) as usize % 500;
                        for _ in 0..k {
                            v.push(v[v.len() - back]);
                        }
                    }
                    _ => v.push(r as u8),
                }
            }
            v.truncate(len);
            out.push(v);
        }
        // byte-shuffled small integers: a noisy plane then zero planes
        let n = 8192;
        let mut sh = vec![0u8; n * 8];
        for i in 0..n {
            sh[i] = xorshift(&mut seed) as u8 & 0x3f;
        }
        out.push(sh);
        out
    }

    #[test]
    fn decodes_what_lz4_flex_encodes() {
        for raw in samples() {
            let c = lz4_flex::block::compress(&raw);
            let mut got = vec![0u8; raw.len()];
            assert!(decompress_into(&c, &mut got).is_some(), "len {}", raw.len());
            assert_eq!(got, raw, "len {}", raw.len());
            // a buffer too short or too long is an error, not a partial answer
            if !raw.is_empty() {
                let mut short = vec![0u8; raw.len() - 1];
                assert!(decompress_into(&c, &mut short).is_none());
            }
            let mut long = vec![0u8; raw.len() + 1];
            assert!(decompress_into(&c, &mut long).is_none());
        }
    }

    #[test]
    fn corrupt_blocks_never_panic() {
        let mut seed = 12345u64;
        for raw in samples() {
            let c = lz4_flex::block::compress(&raw);
            for t in 0..200 {
                let mut bad = c.clone();
                if bad.is_empty() {
                    break;
                }
                let k = xorshift(&mut seed) as usize % bad.len();
                match t % 3 {
                    0 => bad[k] ^= 1 << (xorshift(&mut seed) % 8),
                    1 => bad.truncate(k),
                    _ => bad[k] = 0xff,
                }
                let mut got = vec![0u8; raw.len()];
                // any answer is fine except a panic; a success must fill the buffer
                let _ = decompress_into(&bad, &mut got);
            }
        }
    }
}
