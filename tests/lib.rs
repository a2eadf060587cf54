//! Shared helpers for Beluga's integration tests.

use beluga_runtime::{Interpreter, Registry};
use std::path::PathBuf;
use std::sync::Arc;

/// Give this test process its own root of `dfs://` databases (a fresh folder under the
/// temp dir, named by the process id) unless the caller chose one with BELUGA_DFS_ROOT:
/// scripts with fixed names such as `dfs://beluga_store12_orders` then never meet the
/// databases of another test run going on at the same time, nor the user's ~/.beluga.
/// Set once, before the first interpreter exists; child processes (the `beluga` binary
/// run by the CLI tests) inherit it.
pub fn isolate_dfs_root() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("BELUGA_DFS_ROOT").is_some() {
            return;
        }
        let dir = std::env::temp_dir().join(format!("beluga-tests-dfs-{}", std::process::id()));
        // a folder left by an earlier process that had the same id
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::create_dir_all(&dir);
        // SAFETY: std's environment functions take one process-wide lock, and nothing in
        // the test process reads the environment through libc directly.
        unsafe { std::env::set_var("BELUGA_DFS_ROOT", &dir) };
    });
}

/// A registry with every builtin (stdlib and storage).
pub fn registry() -> Arc<Registry> {
    isolate_dfs_root();
    let mut r = Registry::new();
    beluga_stdlib::register(&mut r);
    beluga_storage::register(&mut r);
    Arc::new(r)
}

pub fn interpreter() -> Interpreter {
    Interpreter::with_registry(registry())
}

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The shared folder beside the checkout (`../shared`), or `BELUGA_SHARED`; None when absent.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("BELUGA_SHARED") {
        let p = PathBuf::from(p);
        return p.is_dir().then_some(p);
    }
    let p = root().join("..").join("shared");
    p.is_dir().then_some(p)
}

/// The `beluga` binary built beside the test executables (target/<profile>/deps/it-xxxx →
/// target/<profile>/beluga); None when it was not built (`.ci/run` builds it first).
pub fn beluga_bin() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.join("beluga");
    p.is_file().then_some(p)
}

/// Run every `@testing` case of every `*.dos` file directly in `dir` (in name order) and
/// print one line per failing case and the totals; (passed, failed).
pub fn run_dos_dir(dir: PathBuf) -> (usize, usize) {
    let label = dir.display().to_string();
    let report = with_stack(move || {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map(|x| x == "dos").unwrap_or(false))
            .collect();
        files.sort();
        beluga_stdlib::testing::run_paths(registry(), &files)
    });
    let (passed, failed) = report.totals();
    for l in report.lines() {
        println!("{l}");
    }
    println!("{label}: {passed} passed, {failed} failed");
    (passed, failed)
}

/// Deterministic xorshift generator for the fuzz tests (same seed, same inputs).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Run a closure on a thread with a large stack (the interpreter recurses).
pub fn with_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(f)
        .expect("spawn test thread")
        .join()
        .expect("test thread panicked")
}
