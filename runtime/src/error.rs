//! The one runtime error type: a kind, a message and (once known) the span of the failing
//! expression. Kernels create errors without spans; the interpreter attaches them.

use beluga_lang::Span;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Syntax,
    /// operator applied to incompatible types (`SYSTEM_Operator`)
    Type,
    /// general runtime failure (`SYSTEM_Runtime`)
    Runtime,
    Arity,
    Argument,
    Size,
    Name,
    /// `throw`
    User,
    Io,
    Interrupted,
    Internal,
}

#[derive(Clone, Debug)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub span: Option<Span>,
    /// The value given to `throw` (a `Value`; the interpreter puts it in and takes it out).
    /// Kept opaque so the error type sits below the values and every kernel can return it.
    pub thrown: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
    /// `file:line:column` of the failing expression when it is not in the script being run
    /// (inside a module); set once, where the error leaves the module's code.
    pub location: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), span: None, thrown: None, location: None }
    }
    pub fn runtime(m: impl Into<String>) -> Error {
        Error::new(ErrorKind::Runtime, m)
    }
    pub fn type_err(m: impl Into<String>) -> Error {
        Error::new(ErrorKind::Type, m)
    }
    pub fn arg(m: impl Into<String>) -> Error {
        Error::new(ErrorKind::Argument, m)
    }
    pub fn size(m: impl Into<String>) -> Error {
        Error::new(ErrorKind::Size, m)
    }
    pub fn name(m: impl Into<String>) -> Error {
        Error::new(ErrorKind::Name, m)
    }
    pub fn syntax(m: impl Into<String>, span: Span) -> Error {
        Error { kind: ErrorKind::Syntax, message: m.into(), span: Some(span), thrown: None, location: None }
    }
    /// "not supported for type X" in one wording for every builtin.
    pub fn unsupported(func: &str, what: impl fmt::Display) -> Error {
        Error::type_err(format!("The function [{func}] is not supported for {what}"))
    }
    /// Attach a span if none is set yet.
    pub fn or_span(mut self, span: Span) -> Error {
        if self.span.is_none() && self.location.is_none() {
            self.span = Some(span);
        }
        self
    }
    /// The error's span, taken as a place in `file` whose text is `src`, becomes its
    /// location (`file:line:column`); the caller's span is then never attached.
    pub fn locate_in(mut self, file: &str, src: &str) -> Error {
        if self.location.is_none() {
            if let Some(sp) = self.span.take() {
                let at = (sp.start as usize).min(src.len());
                let before = src.get(..at).unwrap_or("");
                let line = before.matches('\n').count() + 1;
                let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
                self.location = Some(format!("{file}:{line}:{col}"));
            } else {
                self.location = Some(file.to_string());
            }
        }
        self
    }
    /// The category string seen as `ex[0]` in a catch block.
    pub fn category(&self) -> &'static str {
        match self.kind {
            ErrorKind::User => "USER",
            ErrorKind::Type => "SYSTEM_Operator",
            ErrorKind::Syntax => "SYSTEM_Syntax",
            _ => "SYSTEM_Runtime",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
