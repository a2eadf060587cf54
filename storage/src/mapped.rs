//! The bytes of a column image: read into memory, or mapped from its (immutable) file.
//!
//! Why: a cold query used to `pread` every referenced column whole into a fresh buffer,
//! even when block min/max kept one block of forty (a 30-minute window of a day): the
//! copy and the fresh pages it lands in (zeroed by the kernel) cost as much as decoding.
//! A mapping shares the page cache's pages: only the pages of the blocks actually decoded
//! are touched, nothing is copied, nothing is zeroed. Database files are never rewritten
//! in place (writes create new files and commit by renaming `CURRENT`; garbage collection
//! unlinks, which leaves a mapping valid), so a mapped image cannot change under a reader.

use std::ops::Deref;

/// Images below this size are read (a mapping costs two system calls and a fault).
#[cfg(target_os = "linux")]
const MAP_MIN: u64 = 64 << 10;

pub enum Bytes {
    Owned(Vec<u8>),
    #[cfg(target_os = "linux")]
    Mapped(Map),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            #[cfg(target_os = "linux")]
            Bytes::Mapped(m) => m.bytes(),
        }
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Bytes {
        Bytes::Owned(v)
    }
}

/// A read-only private mapping of `len` bytes of a file from `off`.
#[cfg(target_os = "linux")]
pub struct Map {
    base: *mut libc::c_void,
    map_len: usize,
    /// where the requested bytes start inside the mapping (`off` rounded down to a page)
    skip: usize,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone; shared references only
// read it.
#[cfg(target_os = "linux")]
unsafe impl Send for Map {}
#[cfg(target_os = "linux")]
unsafe impl Sync for Map {}

#[cfg(target_os = "linux")]
impl Map {
    fn bytes(&self) -> &[u8] {
        // SAFETY: [base + skip, base + skip + len) lies inside the live mapping
        unsafe { std::slice::from_raw_parts((self.base as *const u8).add(self.skip), self.len) }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: base/map_len are exactly what mmap returned and mapped
        unsafe { libc::munmap(self.base, self.map_len) };
    }
}

/// `len` bytes of `f` from `off` (the caller checked they lie inside the file): mapped
/// when large enough, read otherwise (or when the mapping fails).
pub fn read(f: &std::fs::File, off: u64, len: u64, read_at: impl FnOnce(&mut [u8]) -> std::io::Result<()>) -> std::io::Result<Bytes> {
    #[cfg(target_os = "linux")]
    if len >= MAP_MIN {
        if let Some(m) = map(f, off, len) {
            return Ok(Bytes::Mapped(m));
        }
    }
    let _ = (f, off);
    let mut v = vec![0u8; len as usize];
    read_at(&mut v)?;
    Ok(Bytes::Owned(v))
}

#[cfg(target_os = "linux")]
fn map(f: &std::fs::File, off: u64, len: u64) -> Option<Map> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: sysconf has no preconditions
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let page = if page > 0 { page as u64 } else { 4096 };
    let start = off - off % page;
    let skip = (off - start) as usize;
    let map_len = usize::try_from(len).ok()?.checked_add(skip)?;
    let at = libc::off_t::try_from(start).ok()?;
    // SAFETY: a fresh read-only private mapping of an open file; the result is checked
    let base = unsafe { libc::mmap(std::ptr::null_mut(), map_len, libc::PROT_READ, libc::MAP_PRIVATE, f.as_raw_fd(), at) };
    if base == libc::MAP_FAILED {
        return None;
    }
    Some(Map { base, map_len, skip, len: len as usize })
}

#[cfg(all(test, unix))]
mod tests {
    #[allow(unused_imports)]
    use super::{read, Bytes};

    /// A region at an offset that is not a page multiple, large enough to be mapped, reads
    /// the same bytes as a plain read; a small one is read.
    #[test]
    fn mapped_and_read_regions_hold_the_file_bytes() {
        let p = std::env::temp_dir().join(format!("beluga-mapped-{}", std::process::id()));
        let data: Vec<u8> = (0..300_000u32).map(|k| (k * 7 % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        for (off, len) in [(12_345u64, 200_000u64), (0, 300_000), (4096, 70_000), (77, 100)] {
            let b = read(&f, off, len, |buf| {
                use std::os::unix::fs::FileExt;
                f.read_exact_at(buf, off)
            })
            .unwrap();
            assert_eq!(&b[..], &data[off as usize..(off + len) as usize], "off {off} len {len}");
            #[cfg(target_os = "linux")]
            assert_eq!(matches!(b, Bytes::Mapped(_)), len >= super::MAP_MIN, "off {off} len {len}");
        }
        drop(f);
        let _ = std::fs::remove_file(&p);
    }
}
