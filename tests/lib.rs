//! Shared helpers for Beluga's integration tests.

use beluga_runtime::{Interpreter, Registry};
use std::path::PathBuf;
use std::sync::Arc;

/// A registry with every builtin (stdlib and storage).
pub fn registry() -> Arc<Registry> {
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

/// Run a closure on a thread with a large stack (the interpreter recurses).
pub fn with_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(f)
        .expect("spawn test thread")
        .join()
        .expect("test thread panicked")
}
