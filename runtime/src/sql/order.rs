//! Multi-key sorting for SQL clauses (order by, csort, ordering of groups). The kernel lives
//! in `crate::kernels::order` (shared with the sorting builtins); this path stays so
//! existing `sql::order::` imports keep working.

pub use crate::kernels::order::*;
