//! The REPL's line-editor helper: tab completion (builtins, keywords, session variables and
//! functions, column names of tables in scope, module names after `use`, file paths inside
//! string literals), syntax highlighting, and multi-line input while brackets are open.

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};
use std::borrow::Cow;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Statement and SQL words offered by completion and coloured by the highlighter.
pub const KEYWORDS: &[&str] = &[
    "def", "defg", "if", "else", "for", "do", "while", "break", "continue", "return", "try", "catch",
    "throw", "module", "use", "const", "share", "timer", "assert", "mutable", "true", "false", "NULL",
    "select", "exec", "update", "delete", "insert", "into", "values", "set", "from", "where", "and",
    "or", "not", "in", "like", "ilike", "between", "as", "group", "context", "pivot", "order", "by",
    "having", "limit", "top", "distinct", "asc", "desc", "case", "when", "then", "end", "union",
    "all", "with", "cgroup", "map", "is", "null",
];

/// What the session knows, refreshed after every statement.
#[derive(Default)]
pub struct Snapshot {
    /// session variables; tables carry their column names
    pub vars: Vec<(String, Option<Vec<String>>)>,
    /// user-defined functions
    pub functions: Vec<String>,
    pub module_dir: PathBuf,
}

pub struct BelugaHelper {
    pub builtins: Vec<String>,
    pub session: Rc<RefCell<Snapshot>>,
    pub color: bool,
}

impl Helper for BelugaHelper {}
impl rustyline::hint::Hinter for BelugaHelper {
    type Hint = String;
}
impl Validator for BelugaHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        Ok(if is_incomplete(ctx.input()) { ValidationResult::Incomplete } else { ValidationResult::Valid(None) })
    }
}

/// Whether the text has unclosed brackets or an unterminated string/block comment.
pub fn is_incomplete(src: &str) -> bool {
    let b = src.as_bytes();
    let mut depth: i64 = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'/' if i + 1 < b.len() && b[i + 1] == b'/' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if i + 1 < b.len() && b[i + 1] == b'*' => match src[i + 2..].find("*/") {
                Some(p) => i += p + 3,
                None => return true,
            },
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    depth > 0
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The start of the open string literal the cursor is in, if any (byte after the quote).
fn open_string(line: &str) -> Option<usize> {
    let mut open: Option<(char, usize)> = None;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match open {
            Some((q, _)) => {
                if c == '\\' {
                    chars.next();
                } else if c == q {
                    open = None;
                } else if c == '\n' {
                    open = None;
                }
            }
            None => {
                if c == '"' || c == '\'' {
                    open = Some((c, i + 1));
                } else if c == '/' && chars.peek().map(|x| x.1) == Some('/') {
                    return None;
                }
            }
        }
    }
    open.map(|(_, s)| s)
}

/// `a::b` names of the `.dos` files under the module folder.
fn module_names(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>, depth: usize) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() && depth < 4 {
                walk(&p, &format!("{prefix}{name}::"), out, depth + 1);
            } else if let Some(stem) = name.strip_suffix(".dos") {
                out.push(format!("{prefix}{stem}"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out, 0);
    out.sort();
    out
}

/// Entries of the folder part of `typed` whose names start with its last part.
fn path_candidates(typed: &str) -> Vec<Pair> {
    let (dir, stem) = match typed.rfind('/') {
        Some(p) => (&typed[..=p], &typed[p + 1..]),
        None => ("", typed),
    };
    let folder = if dir.is_empty() {
        PathBuf::from(".")
    } else if let Some(rest) = dir.strip_prefix("~/") {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(rest)).unwrap_or_else(|| PathBuf::from(dir))
    } else {
        PathBuf::from(dir)
    };
    let Ok(rd) = std::fs::read_dir(&folder) else { return Vec::new() };
    let mut out: Vec<Pair> = rd
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with(stem) || (stem.is_empty() && name.starts_with('.')) {
                return None;
            }
            let slash = if e.path().is_dir() { "/" } else { "" };
            Some(Pair { display: format!("{name}{slash}"), replacement: format!("{dir}{name}{slash}") })
        })
        .collect();
    out.sort_by(|a, b| a.display.cmp(&b.display));
    out
}

/// Names after `from` (and join calls' first arguments are not followed): `from t where`.
fn tables_in(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split(|c: char| !is_word(c)).filter(|w| !w.is_empty()).collect();
    let mut out = Vec::new();
    for w in words.windows(2) {
        if w[0].eq_ignore_ascii_case("from") || w[0].eq_ignore_ascii_case("update") {
            out.push(w[1].to_string());
        }
    }
    out
}

fn has_sql(line: &str) -> bool {
    line.split(|c: char| !is_word(c))
        .any(|w| ["select", "exec", "where", "by", "update", "delete", "having"].iter().any(|k| w.eq_ignore_ascii_case(k)))
}

impl BelugaHelper {
    /// Completion candidates for the word ending at `pos`; returns (start, candidates).
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<Pair>) {
        let before = &line[..pos];
        if let Some(s) = open_string(before) {
            return (s, path_candidates(&before[s..]));
        }
        let start = before.char_indices().rev().take_while(|(_, c)| is_word(*c) || *c == ':').last().map(|(i, _)| i).unwrap_or(pos);
        let prefix = &before[start..];
        let snap = self.session.borrow();
        let columns_of = |t: &str| -> Vec<String> {
            snap.vars.iter().find(|(n, _)| n == t).and_then(|(_, c)| c.clone()).unwrap_or_default()
        };
        // candidate groups in order of preference; each group sorted on its own
        let mut groups: Vec<Vec<String>> = Vec::new();
        let head = before[..start].trim_end();
        if let Some(obj) = before[..start].strip_suffix('.') {
            // `t.` → columns of table t
            let t: String = obj.chars().rev().take_while(|c| is_word(*c)).collect::<Vec<_>>().into_iter().rev().collect();
            groups.push(columns_of(&t));
        } else if head.rsplit(|c: char| !is_word(c)).next() == Some("use") {
            groups.push(module_names(&snap.module_dir));
        } else {
            let sql = has_sql(before);
            if sql {
                let tables = tables_in(line);
                let known: Vec<String> = tables.iter().flat_map(|t| columns_of(t)).collect();
                if known.is_empty() {
                    // `select ` before any `from`: columns of every table in the session
                    groups.push(snap.vars.iter().flat_map(|(_, c)| c.iter().flatten().cloned()).collect());
                } else {
                    groups.push(known);
                }
            }
            if prefix.is_empty() && !sql {
                return (pos, Vec::new());
            }
            groups.push(snap.vars.iter().map(|(n, _)| n.clone()).chain(snap.functions.iter().cloned()).collect());
            groups.push(self.builtins.clone());
            let mut kw: Vec<String> = KEYWORDS.iter().map(|s| s.to_string()).collect();
            if start == 0 {
                kw.extend(["quit", "exit"].iter().map(|s| s.to_string()));
            }
            groups.push(kw);
        }
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<Pair> = Vec::new();
        for mut g in groups {
            g.sort();
            for n in g {
                if n.starts_with(prefix) && seen.insert(n.clone()) {
                    out.push(Pair { display: n.clone(), replacement: n });
                }
            }
        }
        (start, out)
    }
}

impl Completer for BelugaHelper {
    type Candidate = Pair;
    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        Ok(self.candidates(line, pos))
    }
}

const KW_COLOR: &str = "\x1b[1;34m";
const STR_COLOR: &str = "\x1b[32m";
const NUM_COLOR: &str = "\x1b[33m";
const COMMENT_COLOR: &str = "\x1b[90m";
const RESET: &str = "\x1b[0m";

fn is_keyword(w: &str) -> bool {
    KEYWORDS.contains(&w) || (w.len() <= 8 && KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(w) && k.chars().all(|c| c.is_ascii_lowercase())))
}

/// ANSI-coloured copy of `src`: keywords, strings and symbols, numbers and temporal
/// literals, comments. The text itself is unchanged (same display width).
pub fn highlight(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + 32);
    let b = src.as_bytes();
    let mut i = 0;
    let paint = |out: &mut String, color: &str, text: &str| {
        out.push_str(color);
        out.push_str(text);
        out.push_str(RESET);
    };
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = src[i..].find('\n').map(|p| i + p).unwrap_or(b.len());
            paint(&mut out, COMMENT_COLOR, &src[i..end]);
            i = end;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = src[i + 2..].find("*/").map(|p| i + p + 4).unwrap_or(b.len());
            paint(&mut out, COMMENT_COLOR, &src[i..end]);
            i = end;
        } else if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < b.len() && b[j] != c && b[j] != b'\n' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            paint(&mut out, STR_COLOR, &src[i..end]);
            i = end;
        } else if c == b'`' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'.') {
                j += 1;
            }
            paint(&mut out, STR_COLOR, &src[i..j]);
            i = j;
        } else if c.is_ascii_digit() {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.' || b[j] == b':') {
                j += 1;
            }
            paint(&mut out, NUM_COLOR, &src[i..j]);
            i = j;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            let w = &src[i..j];
            if is_keyword(w) {
                paint(&mut out, KW_COLOR, w);
            } else {
                out.push_str(w);
            }
            i = j;
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

impl Highlighter for BelugaHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if self.color { Cow::Owned(highlight(line)) } else { Cow::Borrowed(line) }
    }
    fn highlight_char(&self, _line: &str, _pos: usize, kind: CmdKind) -> bool {
        self.color && kind != CmdKind::MoveCursor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> BelugaHelper {
        let snap = Snapshot {
            vars: vec![
                ("trades".into(), Some(vec!["sym".into(), "price".into(), "qty".into()])),
                ("quotes".into(), Some(vec!["bid".into(), "ask".into()])),
                ("threshold".into(), None),
            ],
            functions: vec!["myFactor".into()],
            module_dir: PathBuf::from("/nonexistent"),
        };
        BelugaHelper {
            builtins: vec!["sum".into(), "sum2".into(), "sqrt".into(), "select".into(), "mavg".into()],
            session: Rc::new(RefCell::new(snap)),
            color: true,
        }
    }

    fn names(h: &BelugaHelper, line: &str) -> (usize, Vec<String>) {
        let (s, v) = h.candidates(line, line.len());
        (s, v.into_iter().map(|p| p.replacement).collect())
    }

    #[test]
    fn completes_builtins_variables_keywords() {
        let h = helper();
        assert_eq!(names(&h, "x = su"), (4, vec!["sum".into(), "sum2".into()]));
        assert_eq!(names(&h, "thr").1, vec!["threshold".to_string(), "throw".to_string()]);
        assert_eq!(names(&h, "myF").1, vec!["myFactor".to_string()]);
        assert!(names(&h, "whi").1.contains(&"while".to_string()));
        assert!(names(&h, "x = ").1.is_empty());
    }

    #[test]
    fn completes_columns() {
        let h = helper();
        assert_eq!(names(&h, "trades.pr"), (7, vec!["price".into()]));
        // columns come before keywords (pivot)
        assert_eq!(names(&h, "select sum(qty) from trades where p").1, vec!["price".to_string(), "pivot".to_string()]);
        // after select with no from: columns of every table
        let all = names(&h, "select ").1;
        assert!(all.contains(&"bid".to_string()) && all.contains(&"sym".to_string()), "{all:?}");
        // a from names the table: the other table's columns are not offered
        assert!(!names(&h, "select b from trades").1.contains(&"bid".to_string()));
    }

    #[test]
    fn completes_paths_in_strings() {
        let dir = std::env::temp_dir().join(format!("beluga-complete-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("prices.csv"), "a\n").unwrap();
        let h = helper();
        let line = format!("loadText(\"{}/pr", dir.display());
        let (s, v) = names(&h, &line);
        assert_eq!(s, "loadText(\"".len());
        assert_eq!(v, vec![format!("{}/prices.csv", dir.display())]);
        let (_, v) = names(&h, &format!("t = loadText('{}/s", dir.display()));
        assert_eq!(v, vec![format!("{}/sub/", dir.display())]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn completes_modules_after_use() {
        let dir = std::env::temp_dir().join(format!("beluga-modules-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("ta")).unwrap();
        std::fs::write(dir.join("ta/indicators.dos"), "module ta::indicators\n").unwrap();
        std::fs::write(dir.join("util.dos"), "module util\n").unwrap();
        let h = helper();
        h.session.borrow_mut().module_dir = dir.clone();
        assert_eq!(names(&h, "use t").1, vec!["ta::indicators".to_string()]);
        assert_eq!(names(&h, "use ").1.len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn highlights_keep_text() {
        let src = "select x from t where s = \"a\" // note\n1.5 + 2023.01.01";
        let h = highlight(src);
        assert!(h.contains("\x1b[1;34mselect\x1b[0m"));
        assert!(h.contains("\x1b[32m\"a\"\x1b[0m"));
        assert!(h.contains("\x1b[90m// note\x1b[0m"));
        assert!(h.contains("\x1b[33m2023.01.01\x1b[0m"));
        let plain: String = {
            let mut s = String::new();
            let mut in_esc = false;
            for c in h.chars() {
                if c == '\x1b' {
                    in_esc = true;
                } else if in_esc {
                    if c == 'm' {
                        in_esc = false;
                    }
                } else {
                    s.push(c);
                }
            }
            s
        };
        assert_eq!(plain, src);
    }

    #[test]
    fn incomplete_input() {
        assert!(is_incomplete("x = [1,"));
        assert!(!is_incomplete("x = [1, 2]"));
        assert!(is_incomplete("def f(x) {"));
        assert!(!is_incomplete("s = \"(\""));
    }
}
