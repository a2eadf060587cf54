//! Beluga's runtime: data types and null sentinels, typed columns, values, tables, the
//! tree-walking evaluator, the SQL executor, the builtin registry and console printing.

pub mod bigalloc;
pub mod callctx;
pub mod column;
pub mod elemfmt;
pub mod error;
pub mod eval;
pub mod fmt;
pub mod guard;
pub mod kernels;
pub mod keyindex;
pub mod null;
pub mod ops;
pub mod policy;
pub mod registry;
pub mod sql;
pub mod suggest;
pub mod table;
pub mod table_source;
pub mod temporal;
pub mod types;
pub mod value;

pub use callctx::CallCtx;
pub use column::{ColData, Column, StrCol, SymCol};
pub use error::{Error, ErrorKind, Result};
pub use eval::Interpreter;
pub use registry::{Builtin, Call, Kind, Registry};
pub use table::Table;
pub use types::{DataForm, DataType};
pub use value::{Bound, Dict, Func, Key, Matrix, SetVal, Value};
