//! The as-of and window-join searches live in `crate::kernels::join::asof` (shared by the
//! join builtins); this path stays so existing `sql::asof::` imports keep working.

pub use crate::kernels::join::asof::*;
