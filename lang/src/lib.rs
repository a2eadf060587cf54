//! Beluga's front end: logos lexer, token pre-pass, lalrpop grammar, AST with spans.
//! Knows nothing of values.
//!
//! Pipeline: `lexer::lex` (logos) → `prepass::prepass` (context-sensitive token
//! refinement) → lalrpop grammar (flat operator chains) → `fold` (precedence).

pub mod ast;
mod astbuild;
pub mod error;
mod fold;
pub mod lexer;
mod prepass;
pub mod span;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused)]
    grammar
);

pub use error::ParseError;
pub use span::Span;

use ast::{Expr, Stmt};

fn tokens(
    src: &str,
    is_function: &dyn Fn(&str) -> bool,
    expr_mode: bool,
) -> Result<Vec<prepass::Triple>, ParseError> {
    let raw = lexer::lex(src)?;
    prepass::prepass(raw, src, is_function, expr_mode)
}

/// Parse a whole script segment. `is_function(name)` tells whether a bare identifier names a
/// function known to the session (builtin or user function) and not a session variable.
pub fn parse_script(src: &str, is_function: &dyn Fn(&str) -> bool) -> Result<Vec<Stmt>, ParseError> {
    parse_stmts(src, is_function, false)
}

fn parse_stmts(
    src: &str,
    is_function: &dyn Fn(&str) -> bool,
    expr_mode: bool,
) -> Result<Vec<Stmt>, ParseError> {
    let toks = tokens(src, is_function, expr_mode)?;
    grammar::ScriptParser::new()
        .parse(src, toks.into_iter().map(Ok::<_, ParseError>))
        .map_err(|e| error::from_lalrpop(e, src))
}

/// Parse one expression.
pub fn parse_expr(src: &str, is_function: &dyn Fn(&str) -> bool) -> Result<Expr, ParseError> {
    let mut stmts = parse_stmts(src, is_function, true)?;
    match (stmts.len(), stmts.pop()) {
        (1, Some(ast::Stmt { kind: ast::StmtKind::Expr(e), .. })) => Ok(e),
        (_, Some(s)) => Err(ParseError::new("expected a single expression", s.span)),
        (_, None) => Err(ParseError::new("expected an expression", Span::new(0, src.len()))),
    }
}

#[cfg(test)]
mod tests;
