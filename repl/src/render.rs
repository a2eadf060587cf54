//! Error rendering: miette's graphical report for humans (with file:line:column),
//! plain text elsewhere.

use beluga_runtime::{Error, Value};
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
    // raised in a module: the module's file and line, not the script's
    if let Some(loc) = &err.location {
        return format!("{loc}: {message}");
    }
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

/// Columns of the terminal on stdout, if it is one.
pub fn terminal_width() -> Option<usize> {
    #[cfg(unix)]
    {
        // SAFETY: TIOCGWINSZ fills a winsize struct we own
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
        if ok && ws.ws_col > 0 {
            return Some(ws.ws_col as usize);
        }
    }
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok())
}

/// The REPL's limits: the same head-and-tail rule as scripts, with small thresholds, and
/// tables fitted to the terminal width.
pub fn repl_limits(width: Option<usize>) -> beluga_runtime::fmt::Limits {
    beluga_runtime::fmt::Limits {
        max_rows: 40,
        head_rows: 20,
        tail_rows: 10,
        max_elems: 100,
        head_elems: 50,
        tail_elems: 10,
        width,
    }
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The footer the REPL adds below a value it did not show whole.
pub fn footer(v: &Value, text: &str, l: &beluga_runtime::fmt::Limits) -> Option<String> {
    let cut_cols = text.lines().next().is_some_and(|h| h.trim_end().ends_with("..."));
    let rows_cols = |r: usize, c: usize| {
        let col = if c == 1 { "column" } else { "columns" };
        format!("[{} rows x {} {col}]", thousands(r), thousands(c))
    };
    match v {
        Value::Table(t) if t.rows() > l.max_rows || cut_cols => Some(rows_cols(t.rows(), t.cols.len())),
        Value::Matrix(m) if m.rows > l.max_rows || cut_cols => Some(rows_cols(m.rows, m.cols)),
        Value::Vector(c) if c.len() > l.max_elems => Some(format!("[{} elements]", thousands(c.len()))),
        Value::Tuple(items) if items.len() > l.max_elems => Some(format!("[{} elements]", thousands(items.len()))),
        Value::Dict(d) if d.keys.len() > l.max_rows => Some(format!("[{} entries]", thousands(d.keys.len()))),
        _ => None,
    }
}

/// The REPL's text for a value: the console text under the REPL's limits, with a footer
/// when it was cut.
pub fn console_text(interp: &beluga_runtime::Interpreter, v: &Value) -> String {
    let l = repl_limits(terminal_width());
    let text = beluga_runtime::fmt::with_limits(l, || interp.format(v));
    match footer(v, &text, &l) {
        Some(f) => format!("{text}\n{f}"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footers() {
        assert_eq!(thousands(1000000), "1,000,000");
        assert_eq!(thousands(999), "999");
        let mut r = beluga_runtime::Registry::new();
        beluga_stdlib::register(&mut r);
        let mut i = beluga_runtime::Interpreter::new(r);
        i.run_source("t = table(1..1000000 as id, take(`a`b, 1000000) as s, 1..1000000 * 2 as v, 1..1000000 as w, 1..1000000 as z)", None).unwrap();
        let t = i.resolve("t").unwrap();
        let text = console_text(&i, &t);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.last(), Some(&"[1,000,000 rows x 5 columns]"));
        // header, dashes, 20 head rows, `...`, 10 tail rows, footer
        assert_eq!(lines.len(), 2 + 20 + 1 + 10 + 1);
        assert_eq!(lines[22], "...");
        assert!(lines[32].starts_with("1000000 b"), "{text}");
        let v = i.run_repl_text("1..10");
        assert_eq!(v.trim(), "[1,2,3,4,5,6,7,8,9,10]");
        let big = beluga_runtime::Value::Vector(beluga_runtime::Column::from_vec(beluga_runtime::DataType::Int, (0..500).collect::<Vec<i32>>()));
        let text = console_text(&i, &big);
        assert!(text.ends_with(",...,490,491,492,493,494,495,496,497,498,499]\n[500 elements]"), "{text}");
    }
}
