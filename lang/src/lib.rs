//! Beluga's front end: logos lexer, token pre-pass, lalrpop grammar, AST with spans.
//! Knows nothing of values.

pub mod ast;
pub mod span;

pub use span::Span;
