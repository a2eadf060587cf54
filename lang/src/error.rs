//! Parse errors: one type for lexer, pre-pass and grammar errors.

use crate::lexer::Tok;
use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub message: String,
    pub span: Span,
}

impl ParseError {
    pub fn new(message: impl Into<String>, span: Span) -> ParseError {
        ParseError { message: message.into(), span }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

pub const EQ_MSG: &str =
    "Please use '==' rather than '=' as equal operator in non-sql expression.";

/// Maps lalrpop's error into ours. `src` is used to show the offending text.
pub fn from_lalrpop(
    e: lalrpop_util::ParseError<usize, Tok, ParseError>,
    src: &str,
) -> ParseError {
    use lalrpop_util::ParseError as E;
    let show = |l: usize, r: usize, t: &Tok| -> String {
        if r > l && r <= src.len() && src.is_char_boundary(l) && src.is_char_boundary(r) {
            let s = &src[l..r];
            if s == "\n" {
                return "newline".into();
            }
            let s: String = s.chars().take(40).collect();
            format!("`{s}`")
        } else {
            format!("{t}")
        }
    };
    match e {
        E::InvalidToken { location } => {
            ParseError::new("invalid token", Span::new(location, location))
        }
        E::UnrecognizedEof { location, .. } => {
            ParseError::new("unexpected end of input", Span::new(location, location))
        }
        E::UnrecognizedToken { token: (l, t, r), .. } => {
            if t == Tok::Assign {
                return ParseError::new(EQ_MSG, Span::new(l, r));
            }
            if t == Tok::Sep && r == l {
                return ParseError::new("unexpected end of input", Span::new(l, r));
            }
            ParseError::new(format!("unexpected token {}", show(l, r, &t)), Span::new(l, r))
        }
        E::ExtraToken { token: (l, t, r) } => {
            ParseError::new(format!("unexpected token {}", show(l, r, &t)), Span::new(l, r))
        }
        E::User { error } => error,
    }
}
