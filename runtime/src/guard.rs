//! Resource guards that keep any input from aborting or hanging the process: a memory
//! budget that large allocations are charged against before they happen (an error instead
//! of Rust's abort on allocation failure), the interrupt flag of the statement being run
//! (Ctrl-C, later a server's request deadline) reachable from kernels that have no
//! interpreter at hand, and a large, known stack for rayon's worker threads.
//!
//! The budget is per process (the REPL, a script run and a server worker each hold one
//! session). It defaults to half of physical memory (`/proc/meminfo`), is set by the
//! environment variable `BELUGA_MAX_MEMORY` (bytes) and by `setMaxMemSize(GB)`.
//! When the binary installs [`CountingAlloc`] as its global allocator, the bytes already
//! live count against the budget too; without it only the single request is checked.

use crate::error::{Error, ErrorKind, Result};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Once};

// ------------------------------------------------------------------ memory budget

/// Budget in bytes; 0 = not yet initialised.
static LIMIT: AtomicU64 = AtomicU64::new(0);
/// Bytes live through the global allocator (only counted when [`CountingAlloc`] is installed).
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Requests below this many bytes are not checked (they cannot matter and are frequent).
const SMALL: u64 = 1 << 20;

/// A `GlobalAlloc` over the system allocator that keeps a count of live bytes, so the
/// budget sees what earlier statements still hold. The binary installs it with
/// `#[global_allocator]`.
pub struct CountingAlloc;

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            LIVE.fetch_add(l.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            LIVE.fetch_add(l.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                LIVE.fetch_add(new - l.size(), Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

/// Bytes currently live (0 when the counting allocator is not installed).
pub fn live_bytes() -> u64 {
    LIVE.load(Ordering::Relaxed) as u64
}

/// Physical memory from /proc/meminfo (None where it can't be read).
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

fn default_limit() -> u64 {
    if let Some(v) = std::env::var("BELUGA_MAX_MEMORY").ok().and_then(|s| s.trim().parse::<u64>().ok()) {
        if v > 0 {
            return v;
        }
    }
    // half of RAM: leaves room for the OS, other processes and the copies a statement makes
    physical_memory().map(|m| m / 2).unwrap_or(8 << 30)
}

/// The memory budget in bytes.
pub fn max_memory() -> u64 {
    let l = LIMIT.load(Ordering::Relaxed);
    if l != 0 {
        return l;
    }
    let d = default_limit();
    let _ = LIMIT.compare_exchange(0, d, Ordering::Relaxed, Ordering::Relaxed);
    LIMIT.load(Ordering::Relaxed)
}

/// Set the memory budget in bytes (`setMaxMemSize`, `--max-memory`).
pub fn set_max_memory(bytes: u64) {
    LIMIT.store(bytes.max(1), Ordering::Relaxed);
}

/// `1.5 GB` / `300 MB`: the unit the message uses for a size.
pub fn human(bytes: u64) -> String {
    const GB: f64 = (1u64 << 30) as f64;
    const MB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GB { format!("{:.1} GB", b / GB) } else { format!("{:.1} MB", b / MB) }
}

/// The out-of-memory error for a request of `bytes` (None = overflowed usize).
pub fn oom_error(bytes: Option<u64>) -> Error {
    let limit = max_memory();
    let need = match bytes {
        Some(b) => human(b),
        None => "more than 16 EB".to_string(),
    };
    let live = live_bytes();
    let held = if live >= SMALL { format!(" ({} already in use)", human(live)) } else { String::new() };
    Error::new(
        ErrorKind::Runtime,
        format!("out of memory: this statement needs {need}, the limit is {}{held}", human(limit)),
    )
}

/// Charge a request of `bytes` against the budget: an error when what is live plus the
/// request would exceed it.
pub fn charge(bytes: u64) -> Result<()> {
    if bytes < SMALL {
        return Ok(());
    }
    let limit = max_memory();
    match live_bytes().checked_add(bytes) {
        Some(total) if total <= limit => Ok(()),
        _ => Err(oom_error(Some(bytes))),
    }
}

/// Charge `n` elements of `elem` bytes each (checked arithmetic).
pub fn need(n: usize, elem: usize) -> Result<()> {
    match (n as u64).checked_mul(elem as u64) {
        Some(b) => charge(b),
        None => Err(oom_error(None)),
    }
}

/// Charge `a * b` elements of `elem` bytes; returns `a * b` (checked).
pub fn need2(a: usize, b: usize, elem: usize) -> Result<usize> {
    let n = a.checked_mul(b).ok_or_else(|| oom_error(None))?;
    need(n, elem)?;
    Ok(n)
}

/// Bytes one element of `ty` occupies in a column (a string counts its offset plus a short text).
pub fn elem_bytes(ty: crate::types::DataType) -> usize {
    use crate::types::Physical::*;
    match ty.physical() {
        I8 => 1,
        I16 => 2,
        I32 | F32 | Sym => 4,
        I64 | F64 => 8,
        I128 => 16,
        Str => 16,
        None => 8,
    }
}

/// Charge `n` elements of a column of type `ty`.
pub fn need_col(n: usize, ty: crate::types::DataType) -> Result<()> {
    need(n, elem_bytes(ty))
}

/// An empty vector with room for `n` elements: charged to the budget, reserved with
/// `try_reserve_exact` so a refusal of the system allocator is an error, not an abort.
pub fn vec_with_capacity<T>(n: usize) -> Result<Vec<T>> {
    need(n, std::mem::size_of::<T>())?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| oom_error((n as u64).checked_mul(std::mem::size_of::<T>() as u64)))?;
    Ok(v)
}

/// `n` copies of `x` (charged and reserved like [`vec_with_capacity`]).
pub fn vec_filled<T: Clone>(x: T, n: usize) -> Result<Vec<T>> {
    let mut v = vec_with_capacity(n)?;
    v.resize(n, x);
    Ok(v)
}

// ------------------------------------------------------------------ interrupt flag

thread_local! {
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Make `flag` the interrupt flag kernels on this thread check (the interpreter does this
/// when it starts running a script).
pub fn install_interrupt(flag: Arc<AtomicBool>) {
    FLAG.with(|f| *f.borrow_mut() = Some(flag));
}

/// The interrupt flag of this thread's session, to hand to worker threads.
pub fn interrupt_flag() -> Option<Arc<AtomicBool>> {
    FLAG.with(|f| f.borrow().clone())
}

/// The error a kernel returns when it notices an interrupt.
pub fn interrupted() -> Error {
    Error::new(ErrorKind::Interrupted, "Execution was interrupted")
}

/// Whether the session was interrupted (does not clear the flag; the interpreter clears it
/// when it reports the interrupt).
#[inline]
pub fn is_interrupted() -> bool {
    FLAG.with(|f| f.borrow().as_ref().is_some_and(|a| a.load(Ordering::Relaxed)))
}

/// An error when the session was interrupted: call every few milliseconds of work.
#[inline]
pub fn check() -> Result<()> {
    if is_interrupted() { Err(interrupted()) } else { Ok(()) }
}

/// Rows per chunk in kernels that check for interrupts between chunks.
pub const CHUNK: usize = 1 << 16;

// ------------------------------------------------------------------ nesting depth

thread_local! {
    /// levels of printing and of value kernels entered on this thread (kept apart so a
    /// kernel's depth never shortens what is printed)
    static PRINT_NEST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static VALUE_NEST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Deepest tuple/dictionary nesting printed; deeper levels print as `...`.
pub const MAX_PRINT_NEST: usize = 100;
/// Deepest nesting that recursive value kernels (comparison, arithmetic over tuples) follow.
pub const MAX_VALUE_NEST: usize = 10_000;

type Counter = std::thread::LocalKey<std::cell::Cell<usize>>;

/// One level of recursion into a nested value; the level is left when this is dropped.
pub struct Nest(&'static Counter);

impl Nest {
    fn enter(counter: &'static Counter, limit: usize) -> Option<Nest> {
        counter.with(|n| {
            let d = n.get();
            if d >= limit {
                return None;
            }
            n.set(d + 1);
            Some(Nest(counter))
        })
    }

    /// Enter a level of printing; None beyond `MAX_PRINT_NEST` levels.
    pub fn print() -> Option<Nest> {
        Nest::enter(&PRINT_NEST, MAX_PRINT_NEST)
    }

    /// Enter a level of a value kernel, or the error for too deep a value.
    pub fn value() -> Result<Nest> {
        Nest::enter(&VALUE_NEST, MAX_VALUE_NEST).ok_or_else(|| {
            Error::runtime(format!("The value is nested more than {MAX_VALUE_NEST} levels deep"))
        })
    }
}

impl Drop for Nest {
    fn drop(&mut self) {
        self.0.with(|n| n.set(n.get().saturating_sub(1)));
    }
}

// ------------------------------------------------------------------ threads

/// Stack of every rayon worker: evaluation on workers (map-reduce over partitions) may
/// recurse as deep as the main evaluation thread's bounded depth allows.
pub const WORKER_STACK: usize = 256 * 1024 * 1024;

/// Configure rayon's global pool once (before its first use), with large worker stacks.
pub fn init_threads() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = rayon::ThreadPoolBuilder::new().stack_size(WORKER_STACK).build_global();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        assert!(need(usize::MAX, 8).is_err());
        assert!(need2(usize::MAX / 2, 3, 1).is_err());
        let e = need(1 << 62, 8).unwrap_err();
        assert!(e.message.starts_with("out of memory: this statement needs"), "{}", e.message);
        assert!(need(10, 8).is_ok());
        assert_eq!(human(3 << 29), "1.5 GB");
        assert_eq!(human(300 << 20), "300.0 MB");
    }
}
