//! Group ids for SQL clauses. The kernel lives in `crate::kernels::group` (shared with the
//! grouping builtins); this path stays so existing `sql::keys::` imports keep working.

pub use crate::kernels::group::*;
