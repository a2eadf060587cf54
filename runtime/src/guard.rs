//! Resource guards that keep any input from aborting or hanging the process: a memory
//! budget that large allocations are charged against before they happen (an error instead
//! of Rust's abort on allocation failure), the interrupt flag of the statement being run
//! (Ctrl-C, later a server's request deadline) reachable from kernels that have no
//! interpreter at hand, and a large, known stack for rayon's worker threads.
//!
//! Two budgets apply to every request. The process budget defaults to half of physical
//! memory (`/proc/meminfo`) and is set by the environment variable `BELUGA_MAX_MEMORY`
//! (bytes, `--max-memory`). Each session (interpreter) has its own [`Budget`], installed
//! thread-locally like the interrupt flag: `setMaxMemSize(GB)` sets the session's limit
//! (at most the process budget applies), so two server sessions keep separate limits.
//! When the binary installs [`CountingAlloc`] as its global allocator, the bytes already
//! live count against the budgets too: all live bytes against the process budget, the bytes
//! a session's thread allocated and has not freed against that session's budget (work done
//! on rayon's worker threads counts for the process only). Without the counting allocator
//! only the single request is checked.

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

/// Count `delta` bytes allocated (+) or freed (-): the process total and the session of
/// this thread (if one is installed).
#[inline]
fn count(delta: isize) {
    if delta >= 0 {
        LIVE.fetch_add(delta as usize, Ordering::Relaxed);
    } else {
        LIVE.fetch_sub(delta.unsigned_abs(), Ordering::Relaxed);
    }
    // `try_with`: no panic while the thread's locals are being torn down
    let _ = SESSION.try_with(|b| {
        let p = b.get();
        if !p.is_null() {
            // SAFETY: `HELD` keeps the accountant alive while the pointer is set
            unsafe { &*p }.live.fetch_add(delta as i64, Ordering::Relaxed);
        }
    });
}

/// Large blocks go through [`crate::bigalloc`] (huge pages, reuse of freed columns).
#[inline]
fn big(l: Layout) -> bool {
    crate::bigalloc::is_big(l.size(), l.align())
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = if big(l) { crate::bigalloc::alloc(l.size(), false) } else { unsafe { System.alloc(l) } };
        if !p.is_null() {
            count(l.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = if big(l) { crate::bigalloc::alloc(l.size(), true) } else { unsafe { System.alloc_zeroed(l) } };
        if !p.is_null() {
            count(l.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if big(l) {
            crate::bigalloc::free(p, l.size());
        } else {
            unsafe { System.dealloc(p, l) };
        }
        count(-(l.size() as isize));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = match (big(l), crate::bigalloc::is_big(new, l.align())) {
            (false, false) => unsafe { System.realloc(p, l, new) },
            (true, true) => crate::bigalloc::realloc(p, l.size(), new),
            // across the threshold: a block of the other kind and a copy
            (was, _) => {
                // SAFETY: `new` is non-zero and fits the alignment (GlobalAlloc::realloc's contract)
                let nl = unsafe { Layout::from_size_align_unchecked(new, l.align()) };
                let q = if was { unsafe { System.alloc(nl) } } else { crate::bigalloc::alloc(new, false) };
                if !q.is_null() {
                    // SAFETY: both blocks hold at least min(old, new) bytes and do not overlap
                    unsafe { std::ptr::copy_nonoverlapping(p, q, l.size().min(new)) };
                    if was {
                        crate::bigalloc::free(p, l.size());
                    } else {
                        unsafe { System.dealloc(p, l) };
                    }
                }
                q
            }
        };
        if !q.is_null() {
            count(new as isize - l.size() as isize);
        }
        q
    }
}

/// The memory accountant of one session: its own limit (0 = only the process budget
/// applies) and the bytes its thread holds.
#[derive(Debug, Default)]
pub struct Budget {
    limit: AtomicU64,
    /// bytes allocated minus bytes freed on threads running this session (may drift
    /// below zero when a value is freed by another session; read as at least 0)
    live: std::sync::atomic::AtomicI64,
}

impl Budget {
    /// A new accountant with no limit of its own (BELUGA_MAX_MEMORY / --max-memory apply).
    pub fn new() -> Arc<Budget> {
        Arc::new(Budget::default())
    }
    /// The session's limit in bytes (the process budget when none was set, never above it).
    pub fn limit(&self) -> u64 {
        match self.limit.load(Ordering::Relaxed) {
            0 => process_max_memory(),
            l => l.min(process_max_memory()),
        }
    }
    /// Set the session's limit (`setMaxMemSize`).
    pub fn set_limit(&self, bytes: u64) {
        self.limit.store(bytes.max(1), Ordering::Relaxed);
    }
    /// Bytes the session holds (0 without the counting allocator).
    pub fn live(&self) -> u64 {
        self.live.load(Ordering::Relaxed).max(0) as u64
    }
}

/// Keeps the installed accountant alive; the allocator reads the raw pointer in `SESSION`
/// (a const local without destructor, safe to touch while the thread's locals are torn
/// down). Dropping the holder clears the pointer first.
struct Held(Option<Arc<Budget>>);

impl Drop for Held {
    fn drop(&mut self) {
        let _ = SESSION.try_with(|s| s.set(std::ptr::null()));
    }
}

thread_local! {
    static SESSION: std::cell::Cell<*const Budget> = const { std::cell::Cell::new(std::ptr::null()) };
    static HELD: RefCell<Held> = const { RefCell::new(Held(None)) };
}

/// Make `b` the accountant that allocations and charges on this thread go to (the
/// interpreter does this when it starts a statement; map-reduce workers get their session's).
pub fn install_budget(b: Arc<Budget>) {
    HELD.with(|h| {
        let mut h = h.borrow_mut();
        SESSION.with(|s| s.set(Arc::as_ptr(&b)));
        // the previous accountant is dropped after the pointer moved on
        let _old = h.0.replace(b);
    });
}

/// The accountant of this thread's session, to hand to worker threads.
pub fn budget() -> Option<Arc<Budget>> {
    HELD.with(|h| h.borrow().0.clone())
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

/// The memory budget of this thread's session in bytes (the process budget when no
/// session is installed or it has no limit of its own).
pub fn max_memory() -> u64 {
    match budget() {
        Some(b) => b.limit(),
        None => process_max_memory(),
    }
}

/// The process-wide budget in bytes (BELUGA_MAX_MEMORY, --max-memory, else half of RAM).
pub fn process_max_memory() -> u64 {
    let l = LIMIT.load(Ordering::Relaxed);
    if l != 0 {
        return l;
    }
    let d = default_limit();
    let _ = LIMIT.compare_exchange(0, d, Ordering::Relaxed, Ordering::Relaxed);
    LIMIT.load(Ordering::Relaxed)
}

/// Set the memory budget in bytes of this thread's session (`setMaxMemSize`), or of the
/// process when no session is installed.
pub fn set_max_memory(bytes: u64) {
    match budget() {
        Some(b) => b.set_limit(bytes),
        None => set_process_max_memory(bytes),
    }
}

/// Set the process-wide budget in bytes.
pub fn set_process_max_memory(bytes: u64) {
    LIMIT.store(bytes.max(1), Ordering::Relaxed);
}

/// `1.5 GB` / `300 MB`: the unit the message uses for a size.
pub fn human(bytes: u64) -> String {
    const GB: f64 = (1u64 << 30) as f64;
    const MB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GB { format!("{:.1} GB", b / GB) } else { format!("{:.1} MB", b / MB) }
}

/// The out-of-memory error for a request of `bytes` (None = overflowed usize), naming the
/// session's limit.
pub fn oom_error(bytes: Option<u64>) -> Error {
    let (limit, live) = match budget() {
        Some(b) => (b.limit(), b.live()),
        None => (process_max_memory(), live_bytes()),
    };
    oom_with(bytes, limit, live)
}

fn oom_with(bytes: Option<u64>, limit: u64, live: u64) -> Error {
    let need = match bytes {
        Some(b) => human(b),
        None => "more than 16 EB".to_string(),
    };
    let held = if live >= SMALL { format!(" ({} already in use)", human(live)) } else { String::new() };
    Error::new(
        ErrorKind::Runtime,
        format!("out of memory: this statement needs {need}, the limit is {}{held}", human(limit)),
    )
}

/// Charge a request of `bytes`: an error when what the session holds plus the request
/// would exceed the session's limit, or what the process holds plus the request would
/// exceed the process budget.
pub fn charge(bytes: u64) -> Result<()> {
    if bytes < SMALL {
        return Ok(());
    }
    if let Some(b) = budget() {
        let (limit, live) = (b.limit(), b.live());
        if live.checked_add(bytes).is_none_or(|t| t > limit) {
            return Err(oom_with(Some(bytes), limit, live));
        }
    }
    let (limit, live) = (process_max_memory(), live_bytes());
    match live.checked_add(bytes) {
        Some(total) if total <= limit => Ok(()),
        _ => Err(oom_with(Some(bytes), limit, live)),
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

// One mechanism for long kernels. Code that returns `Result` checks between chunks with
// [`check`] / [`for_chunks`]. Code that cannot return an error (sort comparators, the
// closures of hash and element-wise loops, rayon jobs) polls with [`Poll`] or [`poll`]: on
// an interrupt it unwinds with the private [`Unwind`] payload (no panic message), which
// [`catch`] (and `Interpreter::exec_top` as the backstop) turns into the interrupt error.
// Unwinding leaves every slice a valid permutation and frees what the kernel allocated.

/// The unwind payload of an interrupt noticed where no error can be returned.
pub struct Unwind;

/// Whether a caught panic payload is an interrupt's unwind.
pub fn is_unwind(p: &(dyn std::any::Any + Send)) -> bool {
    p.is::<Unwind>()
}

#[cold]
#[inline(never)]
fn unwind() -> ! {
    std::panic::resume_unwind(Box::new(Unwind))
}

/// Unwind out of the kernel when this thread's session was interrupted.
#[inline]
pub fn poll() {
    if is_interrupted() {
        unwind()
    }
}

/// Run `f`, turning an interrupt's unwind inside it into the interrupt error (other panics
/// go on unwinding).
pub fn catch<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) if is_unwind(&*p) => Err(interrupted()),
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// The session's interrupt flag captured once, cheap to test in a hot loop and usable on
/// any thread (rayon workers have no session of their own).
#[derive(Clone, Default)]
pub struct Poll(Option<Arc<AtomicBool>>);

impl Poll {
    /// The flag of this thread's session (none installed: never interrupted).
    pub fn new() -> Poll {
        Poll(interrupt_flag())
    }
    #[inline]
    pub fn hit(&self) -> bool {
        self.0.as_ref().is_some_and(|a| a.load(Ordering::Relaxed))
    }
    /// The interrupt error when interrupted.
    #[inline]
    pub fn check(&self) -> Result<()> {
        if self.hit() { Err(interrupted()) } else { Ok(()) }
    }
    /// Unwind when interrupted (one relaxed load: fine per comparison of a sort).
    #[inline]
    pub fn now(&self) {
        if self.hit() {
            unwind()
        }
    }
    /// Unwind when interrupted, tested only every [`CHUNK`]th `i` (per-row loops).
    #[inline]
    pub fn at(&self, i: usize) {
        if i & (CHUNK - 1) == 0 {
            self.now()
        }
    }
    /// Run `f` with this flag installed on the current thread (a rayon worker running a
    /// piece of the session's work), restoring the thread's own flag afterwards.
    pub fn scope<T>(&self, f: impl FnOnce() -> T) -> T {
        struct Restore(Option<Arc<AtomicBool>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let old = self.0.take();
                FLAG.with(|f| *f.borrow_mut() = old);
            }
        }
        let old = FLAG.with(|f| std::mem::replace(&mut *f.borrow_mut(), self.0.clone()));
        let _restore = Restore(old);
        f()
    }
}

/// `0..n` in ranges of [`CHUNK`]; `f` runs on each, with an interrupt check before each.
pub fn for_chunks(n: usize, mut f: impl FnMut(std::ops::Range<usize>) -> Result<()>) -> Result<()> {
    let mut lo = 0;
    while lo < n {
        check()?;
        let hi = (lo + CHUNK).min(n);
        f(lo..hi)?;
        lo = hi;
    }
    Ok(())
}

/// `0..n` in ranges of [`CHUNK`] for code that cannot return an error: each step polls
/// (unwinds on an interrupt; see [`catch`]).
pub fn chunks(n: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    let p = Poll::new();
    (0..n.div_ceil(CHUNK)).map(move |c| {
        p.now();
        c * CHUNK..((c + 1) * CHUNK).min(n)
    })
}

/// Collect `f` over `0..n` chunk by chunk, polling between chunks: an element-wise kernel
/// stays vectorized inside a chunk and interruptible between them.
#[inline]
pub fn collect_chunked<O>(n: usize, mut f: impl FnMut(std::ops::Range<usize>, &mut Vec<O>)) -> Vec<O> {
    let mut out = Vec::with_capacity(n);
    for r in chunks(n) {
        f(r, &mut out);
    }
    out
}

/// `src.iter().map(f).collect()`, polling between chunks (an O(n) pass over tens of
/// millions of elements otherwise runs for a second without answering Ctrl-C).
#[inline]
pub fn map_polled<S, O>(src: &[S], mut f: impl FnMut(&S) -> O) -> Vec<O> {
    // one chunk or less: no flag to take (take_usize gathers small groups in hot loops)
    if src.len() <= CHUNK {
        return src.iter().map(f).collect();
    }
    collect_chunked(src.len(), |r, out| out.extend(src[r].iter().map(&mut f)))
}

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
    fn sessions_have_their_own_limits() {
        let (a, b) = (Budget::new(), Budget::new());
        let a2 = a.clone();
        let t = std::thread::spawn(move || {
            let a = a2;
            install_budget(a.clone());
            set_max_memory(2 << 20);
            let e = charge(3 << 20).unwrap_err();
            assert!(e.message.contains("the limit is 2.0 MB"), "{}", e.message);
            install_budget(b.clone());
            // the other session is not limited by a's setting
            assert!(charge(3 << 20).is_ok());
            assert_eq!(max_memory(), process_max_memory());
            set_max_memory(1 << 40);
            // never above the process budget
            assert_eq!(max_memory(), (1u64 << 40).min(process_max_memory()));
        });
        t.join().unwrap();
        assert_eq!(a.limit(), 2 << 20);
    }

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
