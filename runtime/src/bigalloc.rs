//! Large blocks (columns of ~100k rows and more) for the counting global allocator: mapped
//! 2 MiB-aligned with transparent huge pages, and kept in a small cache when freed so the
//! next column of the same size reuses them.
//!
//! Why: a whole-column kernel allocates its output, writes it once and the previous value
//! is freed. Through malloc each such block is a fresh mmap: on a 10M-row DOUBLE column
//! ~20,000 page faults, each zeroing a 4 KiB page in the kernel, then a munmap with its TLB
//! flush — more time than `x > y` or `sqrt(x)` itself (perf: `clear_page_erms` 60% of a
//! `sqrt` loop). Huge pages cut the faults 512-fold; the cache removes faults and zeroing
//! altogether when a block of the same rounded size comes back (the usual case: one column
//! length, one element width). The cache holds at most [`CACHE_BYTES`] in [`SLOTS`] blocks,
//! so the process's resident memory exceeds its live data by at most that much.

use std::sync::Mutex;

/// Requests at least this large (and aligned to at most [`HP`]) take this path.
pub const BIG: usize = 1 << 20;
/// Huge-page size and the granularity of block sizes.
const HP: usize = 2 << 20;
/// Freed blocks kept for reuse, at most this many bytes in all ...
const CACHE_BYTES: usize = 1 << 30;
/// ... in at most this many blocks.
const SLOTS: usize = 32;

struct Cache {
    /// (address, mapped size); address 0 = empty slot
    blocks: [(usize, usize); SLOTS],
    bytes: usize,
    /// insertion counter per slot (oldest evicted first)
    age: [u64; SLOTS],
    clock: u64,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache { blocks: [(0, 0); SLOTS], bytes: 0, age: [0; SLOTS], clock: 0 });

/// Whether a layout is served here.
#[inline]
pub fn is_big(size: usize, align: usize) -> bool {
    size >= BIG && align <= HP && cfg!(target_os = "linux")
}

#[inline]
fn rounded(size: usize) -> usize {
    size.next_multiple_of(HP)
}

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Take a cached block for `cap` bytes: the smallest one of at least `cap` and at most
/// twice that; a larger block's tail beyond `cap` goes back to the system, its head is
/// reused (already faulted in, nothing to zero).
///
/// Why not exact sizes only: at the large scale the filtered columns of one query differ
/// in length from partition to partition and run to run, so exact matches missed and the
/// warm runs of t07/t08/t10 faulted in fresh pages for most of their columns (large8).
fn take_cached(cap: usize) -> Option<*mut u8> {
    let (a, s) = {
        let mut c = lock();
        let i = (0..SLOTS).filter(|&i| c.blocks[i].0 != 0 && c.blocks[i].1 >= cap && c.blocks[i].1 <= 2 * cap).min_by_key(|&i| c.blocks[i].1)?;
        let (a, s) = c.blocks[i];
        c.blocks[i] = (0, 0);
        c.bytes -= s;
        (a, s)
    };
    if s > cap {
        unmap(a + cap, s - cap); // both multiples of the huge-page size
    }
    Some(a as *mut u8)
}

#[cfg(target_os = "linux")]
fn map(cap: usize) -> *mut u8 {
    // over-map by one huge page and trim, so the block starts on a 2 MiB boundary
    let len = cap + HP;
    // SAFETY: an anonymous private mapping; no existing memory is touched.
    let p = unsafe {
        libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
    };
    if p == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let start = p as usize;
    let aligned = start.next_multiple_of(HP);
    let head = aligned - start;
    let tail = len - head - cap;
    // SAFETY: the trimmed ranges lie inside the mapping just made and are not used; the
    // advice only selects the page size of the block.
    unsafe {
        if head > 0 {
            libc::munmap(start as *mut libc::c_void, head);
        }
        if tail > 0 {
            libc::munmap((aligned + cap) as *mut libc::c_void, tail);
        }
        libc::madvise(aligned as *mut libc::c_void, cap, libc::MADV_HUGEPAGE);
    }
    aligned as *mut u8
}

#[cfg(not(target_os = "linux"))]
fn map(_: usize) -> *mut u8 {
    std::ptr::null_mut()
}

#[cfg(target_os = "linux")]
fn unmap(p: usize, cap: usize) {
    // SAFETY: `p..p+cap` is a whole block mapped by `map` and no longer referenced.
    unsafe {
        libc::munmap(p as *mut libc::c_void, cap);
    }
}

#[cfg(not(target_os = "linux"))]
fn unmap(_: usize, _: usize) {}

/// A block of at least `size` bytes (null when the system refuses).
pub fn alloc(size: usize, zeroed: bool) -> *mut u8 {
    let cap = rounded(size);
    if let Some(p) = take_cached(cap) {
        if zeroed {
            // SAFETY: the block is ours and `cap` bytes long.
            unsafe { std::ptr::write_bytes(p, 0, size) };
        }
        return p;
    }
    map(cap) // fresh anonymous pages are zero
}

/// Return a block of `size` requested bytes to the cache (or to the system when full).
pub fn free(p: *mut u8, size: usize) {
    let cap = rounded(size);
    if cap > CACHE_BYTES / 2 {
        return unmap(p as usize, cap);
    }
    let mut evict: [(usize, usize); SLOTS] = [(0, 0); SLOTS];
    let mut ne = 0;
    {
        let mut c = lock();
        // make room: oldest blocks first
        while c.bytes + cap > CACHE_BYTES || c.blocks.iter().all(|&(a, _)| a != 0) {
            let Some(i) = (0..SLOTS).filter(|&i| c.blocks[i].0 != 0).min_by_key(|&i| c.age[i]) else { break };
            evict[ne] = c.blocks[i];
            ne += 1;
            c.bytes -= c.blocks[i].1;
            c.blocks[i] = (0, 0);
        }
        if let Some(i) = c.blocks.iter().position(|&(a, _)| a == 0) {
            c.blocks[i] = (p as usize, cap);
            c.bytes += cap;
            c.clock += 1;
            c.age[i] = c.clock;
        } else {
            evict[ne] = (p as usize, cap);
            ne += 1;
        }
    }
    // unmap outside the lock
    for &(a, s) in &evict[..ne] {
        unmap(a, s);
    }
}

/// Resize a block of this path to `new` bytes (both sizes big); null when refused (the
/// old block is then untouched).
#[cfg(target_os = "linux")]
pub fn realloc(p: *mut u8, old: usize, new: usize) -> *mut u8 {
    let (oc, nc) = (rounded(old), rounded(new));
    if oc == nc {
        return p;
    }
    if nc < oc {
        // SAFETY: the tail beyond the new rounded size belongs to this block and is unused.
        unsafe { libc::munmap(p.add(nc) as *mut libc::c_void, oc - nc) };
        return p;
    }
    // grow: a fresh aligned block, then move the pages over (no copy of the data)
    let q = map(nc);
    if q.is_null() {
        return q;
    }
    // SAFETY: both blocks are ours; MREMAP_FIXED moves the old pages onto the start of the
    // new block (replacing its untouched pages) and unmaps the old range.
    let r = unsafe {
        libc::mremap(p as *mut libc::c_void, oc, oc, libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED, q as *mut libc::c_void)
    };
    if r == libc::MAP_FAILED {
        // fall back to a copy
        // SAFETY: `old` bytes are valid in `p`; `q` has room for `nc >= old`.
        unsafe { std::ptr::copy_nonoverlapping(p, q, old) };
        free(p, old);
    }
    q
}

#[cfg(not(target_os = "linux"))]
pub fn realloc(_: *mut u8, _: usize, _: usize) -> *mut u8 {
    std::ptr::null_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_reused_and_resized() {
        let n = 3 * BIG + 5;
        let p = alloc(n, true);
        assert!(!p.is_null());
        assert_eq!(p as usize % HP, 0);
        // SAFETY: n bytes are ours
        unsafe {
            assert!((0..n).step_by(4099).all(|i| *p.add(i) == 0));
            std::ptr::write_bytes(p, 7, n);
        }
        free(p, n);
        // same rounded size: handed back, and zeroed on request
        let q = alloc(n - 3, true);
        assert!(!q.is_null());
        // SAFETY: n - 3 bytes are ours
        unsafe { assert!((0..n - 3).step_by(4099).all(|i| *q.add(i) == 0)) };
        // grow keeps the contents
        // SAFETY: as above
        unsafe { std::ptr::write_bytes(q, 9, n - 3) };
        let r = realloc(q, n - 3, 5 * HP + 1);
        assert!(!r.is_null());
        // SAFETY: the first n - 3 bytes were carried over
        unsafe { assert!((0..n - 3).step_by(977).all(|i| *r.add(i) == 9)) };
        let s = realloc(r, 5 * HP + 1, 2 * HP);
        assert_eq!(s, r);
        // SAFETY: shrinking keeps the head
        unsafe { assert_eq!(*s.add(HP), 9) };
        free(s, 2 * HP);
    }

    #[test]
    fn a_larger_cached_block_serves_a_smaller_request() {
        // sizes no other test uses, so the shared cache holds only this test's blocks of them
        let p = alloc(13 * HP, false);
        assert!(!p.is_null());
        // SAFETY: 13 huge pages are ours
        unsafe { std::ptr::write_bytes(p, 3, 13 * HP) };
        free(p, 13 * HP);
        // 7 huge pages fit in the cached 13 (at most twice the request): same block, head kept
        let q = alloc(7 * HP - 100, false);
        assert_eq!(q, p);
        // SAFETY: 7 huge pages are ours (the tail beyond them went back to the system)
        unsafe { assert!((0..7 * HP - 100).step_by(4093).all(|i| *q.add(i) == 3)) };
        free(q, 7 * HP - 100);
        // a request of less than half a cached block maps a fresh one
        let r = alloc(3 * HP, true);
        assert_ne!(r, q);
        free(r, 3 * HP);
        let t = alloc(7 * HP, false);
        assert_eq!(t, q);
        free(t, 7 * HP);
    }
}

/// Keep memory freed through malloc (blocks below [`BIG`]) in the process for reuse
/// (glibc): never serve them by their own mapping, and trim the heap only past 256 MiB
/// free at its top.
///
/// Why: a query allocates and frees per-partition intermediates of 100 KB - 1 MB (a
/// 40k-row segment's column, a group-id vector). With glibc's defaults each is its own
/// mapping or is trimmed on free, so the next one is faulted in again page by page, each
/// page zeroed by the kernel: d16 at medium scale spent more time in the kernel (sys
/// 0.29-0.37 s for 80 runs) than in the query (user 0.6 s); with these settings, sys
/// 0.01-0.02 s at the same peak RSS. Called once by `Interpreter::new` (every session and
/// embedding) and by the text import.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: mallopt only sets allocator parameters; it is safe to call at any time.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
            }
        });
    }
}
