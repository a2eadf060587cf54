//! Error rendering: miette's graphical report for humans (with file:line:column),
//! plain text elsewhere.

use beluga_runtime::Error;
use miette::{Diagnostic, NamedSource, SourceSpan};
use std::fmt;

#[derive(Debug)]
struct Diag {
    message: String,
    label: String,
    src: NamedSource<String>,
    span: Option<SourceSpan>,
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for Diag {}

impl Diagnostic for Diag {
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.src)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span?;
        Some(Box::new(std::iter::once(miette::LabeledSpan::new_with_span(Some(self.label.clone()), span))))
    }
}

/// 1-based line and column of a byte offset.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let off = offset.min(src.len());
    let before = &src[..off];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map(|p| off - p).unwrap_or(off + 1);
    (line, col)
}

/// Render an error against its source text.
pub fn render(err: &Error, name: &str, src: &str, fancy: bool, color: bool) -> String {
    let prefix = match err.kind {
        beluga_runtime::ErrorKind::Syntax => "Syntax Error: ",
        _ => "",
    };
    let message = format!("{prefix}{}", err.message);
    let span = err.span.filter(|s| (s.end as usize) <= src.len() && s.start <= s.end);
    if !fancy {
        return match span {
            Some(s) => {
                let (l, c) = line_col(src, s.start as usize);
                format!("{name}:{l}:{c}: {message}")
            }
            None => format!("{name}: {message}"),
        };
    }
    let diag = Diag {
        message: message.clone(),
        label: "here".into(),
        src: NamedSource::new(name, src.to_string()),
        span: span.map(|s| SourceSpan::new((s.start as usize).into(), (s.end - s.start) as usize)),
    };
    let mut out = String::new();
    let theme = if color { miette::GraphicalTheme::unicode() } else { miette::GraphicalTheme::unicode_nocolor() };
    let handler = miette::GraphicalReportHandler::new_themed(theme);
    if handler.render_report(&mut out, &diag).is_err() {
        return message;
    }
    if let Some(s) = span {
        let (l, c) = line_col(src, s.start as usize);
        if !out.contains(&format!("{name}:{l}:{c}")) {
            out = format!("{name}:{l}:{c}\n{out}");
        }
    }
    out
}

/// The REPL's text for a value (the console text; see fmt for truncation).
pub fn console_text(interp: &beluga_runtime::Interpreter, v: &beluga_runtime::Value) -> String {
    interp.format(v)
}
