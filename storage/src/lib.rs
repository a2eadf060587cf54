//! Partitioned databases on disk, column files, CSV import/export, and their builtins.

use beluga_runtime::Registry;

/// Register the storage builtins.
pub fn register(r: &mut Registry) {
    let _ = r;
}
