//! Parallel building blocks for whole-column kernels (SQL executor and builtins) on large inputs: row-chunked maps, gathers
//! through a permutation and per-group counts. Below `PAR_MIN` rows everything runs on the
//! calling thread (no scheduling overhead for small tables, identical results either way).

use crate::column::{ColData, Column, SymCol};
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Inputs shorter than this are processed sequentially.
pub const PAR_MIN: usize = 1 << 16;

/// Number of row chunks for a parallel pass over `n` rows (1 when sequential).
pub fn chunks_for(n: usize) -> usize {
    if n < PAR_MIN {
        1
    } else {
        rayon::current_num_threads().max(1)
    }
}

/// `out[r] = f(r)` for every row, in parallel chunks.
pub fn map_rows<T: Send + Copy + Default>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut out = vec![T::default(); n];
    let parts = chunks_for(n);
    // rayon workers poll the session's flag captured here (guard::catch / exec_top catch the unwind)
    let poll = crate::guard::Poll::new();
    if parts == 1 {
        for (r, o) in out.iter_mut().enumerate() {
            poll.at(r);
            *o = f(r);
        }
        return out;
    }
    let chunk = n.div_ceil(parts * 64).clamp(1, crate::guard::CHUNK);
    out.par_chunks_mut(chunk).enumerate().for_each(|(c, part)| {
        poll.now();
        let base = c * chunk;
        for (j, o) in part.iter_mut().enumerate() {
            *o = f(base + j);
        }
    });
    out
}

/// Elements from which the element-wise maps run on rayon (below, one thread is faster
/// than waking the pool).
pub const PAR_MAP_MIN: usize = 1 << 18;
/// The same for maps of a few nanoseconds per element (the `vmath` logarithm, exponential
/// and power): a second core pays for the wake-up from a few ten thousand elements.
pub const PAR_MATH_MIN: usize = 1 << 15;
/// The same for streaming kernels of a fraction of a nanosecond per element (comparisons,
/// `iif`): memory-bound, so a second core only helps once the operands leave the caches.
pub const PAR_STREAM_MIN: usize = 1 << 22;

/// A vector of `n` elements written once, in place, by `fill(start, part)` for parts of
/// at most [`crate::guard::CHUNK`] elements (`part` is elements `start..start + part.len()`
/// of the result): no zero-filling pass before the kernel writes, and the parts run on
/// rayon from `par_min` elements. An interrupt unwinds out (the parts poll the session's
/// flag) without exposing the unwritten buffer.
///
/// # Safety
/// `fill` must write every element of every `part` it is given.
pub unsafe fn build_vec<T: Send>(n: usize, par_min: usize, fill: &(dyn Fn(usize, &mut [MaybeUninit<T>]) + Sync)) -> Vec<T> {
    const CH: usize = crate::guard::CHUNK;
    let mut out: Vec<T> = Vec::with_capacity(n);
    let poll = crate::guard::Poll::new();
    let body = |(c, part): (usize, &mut [MaybeUninit<T>])| {
        poll.now();
        fill(c * CH, part)
    };
    let spare = &mut out.spare_capacity_mut()[..n];
    if n >= par_min && rayon::current_num_threads() > 1 {
        spare.par_chunks_mut(CH).enumerate().for_each(body);
    } else {
        spare.chunks_mut(CH).enumerate().for_each(body);
    }
    // SAFETY: the caller's `fill` wrote every element of every part, and the parts cover
    // the first n elements (an interrupt unwinds before this line, leaving the length 0)
    unsafe { out.set_len(n) };
    out
}

/// `part` as initialised values, after a kernel wrote all of it.
///
/// # Safety
/// Every element of `part` must have been written.
pub unsafe fn assume_init_mut<T>(part: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: MaybeUninit<T> has T's layout and the caller says every element is written
    unsafe { &mut *(part as *mut [MaybeUninit<T>] as *mut [T]) }
}

fn gather<T: Copy + Send + Sync + Default>(v: &[T], idx: &[usize]) -> Vec<T> {
    map_rows(idx.len(), |r| v[idx[r]])
}

/// `c.take_usize(idx)` with the numeric and symbol gathers run in parallel chunks.
pub fn take(c: &Column, idx: &[usize]) -> Column {
    if idx.len() < PAR_MIN {
        return c.take_usize(idx);
    }
    let data = crate::map_numeric!(&*c.data, v => gather(v, idx),
        ColData::Sym(s) => ColData::Sym(SymCol { codes: gather(&s.codes, idx), dict: s.dict.clone() }),
        ColData::Str(_) | ColData::Array(_) => return c.take_usize(idx),
    );
    Column::new(c.ty, data)
}

fn scatter_vec<T: Copy + Default>(v: &[T], dest: &[u32]) -> Vec<T> {
    let mut out = vec![T::default(); v.len()];
    for (&x, &d) in v.iter().zip(dest) {
        out[d as usize] = x;
    }
    out
}

/// The column with row r moved to position `dest[r]` (`dest` a permutation). For a
/// counting-sort order this writes a few sequential streams, which caches far better
/// than gathering through the inverse permutation.
pub fn scatter(c: &Column, dest: &[u32]) -> Column {
    let data = crate::map_numeric!(&*c.data, v => scatter_vec(v, dest),
        ColData::Sym(s) => ColData::Sym(SymCol { codes: scatter_vec(&s.codes, dest), dict: s.dict.clone() }),
        ColData::Str(_) | ColData::Array(_) => {
            let mut perm = vec![0usize; dest.len()];
            for (r, &d) in dest.iter().enumerate() {
                perm[d as usize] = r;
            }
            return c.take_usize(&perm);
        }
    );
    Column::new(c.ty, data)
}

/// Rows per group (`gid[r] < n` for every row).
pub fn group_counts(gid: &[u32], n: usize) -> Vec<u32> {
    let parts = chunks_for(gid.len());
    let count = |ids: &[u32]| {
        let mut c = vec![0u32; n];
        for &g in ids {
            c[g as usize] += 1;
        }
        c
    };
    // per-chunk tables must stay small next to the rows they count
    if parts == 1 || n.saturating_mul(parts) > gid.len() {
        return count(gid);
    }
    let chunk = gid.len().div_ceil(parts);
    gid.par_chunks(chunk).map(count).reduce(
        || vec![0u32; n],
        |mut a, b| {
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            a
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    #[test]
    fn parallel_take_and_counts_match_sequential() {
        let n = PAR_MIN * 3 + 17;
        let v: Vec<i64> = (0..n as i64).map(|x| x * 7 % 1000).collect();
        let c = Column::from_vec(DataType::Long, v.clone());
        let idx: Vec<usize> = (0..n).map(|r| (r * 7919) % n).collect();
        let t = take(&c, &idx);
        let want: Vec<i64> = idx.iter().map(|&i| v[i]).collect();
        match &*t.data {
            ColData::I64(got) => assert_eq!(got, &want),
            _ => panic!("type changed"),
        }
        let dest: Vec<u32> = idx.iter().map(|&i| i as u32).collect();
        let sc = scatter(&c, &dest);
        match &*sc.data {
            ColData::I64(got) => assert!(dest.iter().enumerate().all(|(r, &d)| got[d as usize] == v[r])),
            _ => panic!("type changed"),
        }
        let gid: Vec<u32> = (0..n).map(|r| (r % 10) as u32).collect();
        let cnt = group_counts(&gid, 10);
        assert_eq!(cnt.iter().sum::<u32>() as usize, n);
        assert_eq!(cnt[0] as usize, n.div_ceil(10));
        assert_eq!(cnt[9] as usize, (n - 9).div_ceil(10));
    }
}
