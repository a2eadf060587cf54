//! Parallel row helpers for SQL clauses. The kernels live in `crate::kernels::par`; this
//! path stays so existing `sql::par::` imports keep working.

pub use crate::kernels::par::*;
