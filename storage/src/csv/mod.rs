//! Text (CSV) files: a byte-level record splitter, schema inference, and parallel parsing
//! of chunks straight into typed columns.

pub mod infer;
pub mod lexer;
pub mod parse;

pub use lexer::{Dialect, Field};
