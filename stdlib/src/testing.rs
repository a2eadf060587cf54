//! DolphinDB `@testing` files. As in DolphinDB, comments are removed from the whole file
//! first (a block comment may span several `@testing` markers and hide the cases inside),
//! each case is then parsed on its own (so `syntaxError = 1` works), and the cases of one
//! file run in order in ONE session: what an earlier case defines stays visible to later
//! ones; a case that throws ends that case only. Each file gets a fresh session.
//! `assert` failures, uncaught errors and the `exception = 1` / `syntaxError = 1`
//! expectations decide a case.

use beluga_runtime::eval::Output;
use beluga_runtime::{ErrorKind, Interpreter, Registry};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Wall-clock limit for one case before it is interrupted.
pub const CASE_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Clone, Debug)]
pub struct CaseResult {
    pub file: String,
    pub case: String,
    pub passed: bool,
    /// why it failed (first failing assert or the error)
    pub message: String,
}

#[derive(Clone, Debug, Default)]
pub struct Report {
    pub cases: Vec<CaseResult>,
}

impl Report {
    pub fn totals(&self) -> (usize, usize) {
        let p = self.cases.iter().filter(|c| c.passed).count();
        (p, self.cases.len() - p)
    }
    /// One line per failing case.
    pub fn lines(&self) -> Vec<String> {
        self.cases
            .iter()
            .filter(|c| !c.passed)
            .map(|c| format!("FAILED {} :: {} :: {}", c.file, c.case, c.message))
            .collect()
    }
    /// Pass counts per file: (file, passed, total), in order of first appearance.
    pub fn per_file(&self) -> Vec<(String, usize, usize)> {
        let mut out: Vec<(String, usize, usize)> = Vec::new();
        for c in &self.cases {
            match out.iter_mut().find(|(f, _, _)| *f == c.file) {
                Some(e) => {
                    e.1 += c.passed as usize;
                    e.2 += 1;
                }
                None => out.push((c.file.clone(), c.passed as usize, 1)),
            }
        }
        out
    }
}

/// One `@testing` case of a file.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub exception: bool,
    pub syntax_error: bool,
    pub text: String,
    /// 1-based line of the case's first line of code in the file
    pub line: usize,
}

fn attr(header: &str, key: &str) -> Option<String> {
    let pos = header.find(key)?;
    let rest = header[pos + key.len()..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    if let Some(r) = rest.strip_prefix('"') {
        return r.find('"').map(|e| r[..e].to_string());
    }
    Some(rest.split(|c: char| c == ',' || c.is_whitespace()).next().unwrap_or("").to_string())
}

/// `text` with its `//` and `/* */` comments blanked out (newlines kept, so lines keep their
/// numbers); string literals are left alone. An unterminated block comment runs to the end.
pub fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' {
            // a string literal, with backslash escapes, ends at its quote or the line's end
            out.push(c);
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] != b'\n' {
                    out.push(b[i]);
                    i += 1;
                }
                out.push(b[i]);
                i += 1;
            }
            if i < b.len() && b[i] == c {
                out.push(c);
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = text[i + 2..].find("*/").map(|k| i + 2 + k + 2).unwrap_or(b.len());
            for &x in &b[i..end] {
                blank(&mut out, x);
            }
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    // only ASCII bytes were replaced, by ASCII: still UTF-8
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The code of a file before its first `@testing` marker (comments removed).
pub fn preamble(text: &str) -> String {
    let text = strip_comments(text);
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("@testing:") {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Split a file into cases at `@testing:` lines, after removing its comments. Code before
/// the first case is not part of any case (see `preamble`); a file without markers is one
/// case, `adhocTesting`.
pub fn split_cases(text: &str) -> Vec<Case> {
    let text = strip_comments(text);
    let text = text.as_str();
    let mut cases = Vec::new();
    let mut preamble = String::new();
    let mut cur: Option<Case> = None;
    for (lineno, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(h) = t.strip_prefix("@testing:") {
            if let Some(c) = cur.take() {
                cases.push(c);
            }
            let name = attr(h, "case").unwrap_or_else(|| format!("case{}", cases.len() + 1));
            cur = Some(Case {
                name,
                exception: attr(h, "exception").map(|v| v == "1" || v == "true").unwrap_or(false),
                syntax_error: attr(h, "syntaxError").map(|v| v == "1" || v == "true").unwrap_or(false),
                text: String::new(),
                line: lineno + 2,
            });
            continue;
        }
        match cur.as_mut() {
            Some(c) => {
                c.text.push_str(line);
                c.text.push('\n');
            }
            None => {
                preamble.push_str(line);
                preamble.push('\n');
            }
        }
    }
    if let Some(c) = cur.take() {
        cases.push(c);
    }
    if cases.is_empty() && !preamble.trim().is_empty() {
        cases.push(Case { name: "adhocTesting".into(), exception: false, syntax_error: false, text: preamble, line: 1 });
    }
    cases
}

/// A fresh session for the cases of one file.
pub fn file_session(registry: Arc<Registry>, file: &str, dir: Option<&Path>) -> Interpreter {
    let mut i = Interpreter::with_registry(registry);
    i.output = Output::Buffer(String::new());
    if let Some(d) = dir {
        i.current_file = Some(d.join(file));
        // modules used by test files live in `modules/` beside them
        let m = d.join("modules");
        if m.is_dir() {
            i.module_dir = m;
        }
    }
    i
}

/// Run one case in a fresh session.
pub fn run_case(registry: Arc<Registry>, file: &str, dir: Option<&Path>, case: &Case) -> CaseResult {
    let mut i = file_session(registry, file, dir);
    run_case_in(&mut i, file, case)
}

/// Run one case in the session `i` (which keeps what earlier cases defined).
pub fn run_case_in(i: &mut Interpreter, file: &str, case: &Case) -> CaseResult {
    i.test.case = case.name.clone();
    i.test.failures.clear();
    i.interrupt.store(false, Ordering::Relaxed);
    i.frames.clear();
    i.col_scopes.clear();
    i.depth = 0;
    // what the case prints is not kept across cases
    if let Output::Buffer(b) = &mut i.output {
        b.clear();
    }
    // watchdog: interrupt a case that runs too long
    let flag = i.interrupt.clone();
    let (tx, rx) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if rx.recv_timeout(CASE_TIMEOUT).is_err() {
            flag.store(true, Ordering::Relaxed);
        }
    });
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| i.run_source(&case.text, None)));
    let _ = tx.send(());
    let _ = watchdog.join();
    let (passed, message) = match result {
        Err(_) => (false, "internal error (panic)".to_string()),
        Ok(Err(e)) => {
            let is_syntax = e.kind == ErrorKind::Syntax;
            if case.syntax_error {
                (is_syntax, if is_syntax { String::new() } else { format!("expected a syntax error, got: {}", e.message) })
            } else if case.exception {
                (true, String::new())
            } else {
                let line = e.span.map(|s| line_of(&case.text, s.start as usize) + case.line - 1);
                (false, match (&e.location, line) {
                    (Some(loc), _) => format!("{loc}: {}", e.message),
                    (None, Some(l)) => format!("line {l}: {}", e.message),
                    (None, None) => e.message.clone(),
                })
            }
        }
        Ok(Ok(())) => {
            if case.syntax_error {
                (false, "expected a syntax error".into())
            } else if case.exception {
                (false, "expected an exception".into())
            } else if let Some((_, sub, msg)) = i.test.failures.first() {
                (false, if sub.is_empty() { msg.clone() } else { format!("assert {sub}: {msg}") })
            } else {
                (true, String::new())
            }
        }
    };
    CaseResult { file: file.to_string(), case: case.name.clone(), passed, message }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Whether a file inside a test folder is a script: `.dos` (ours) or `.txt` (the extension
/// DolphinDB's own test files use). A README or data file beside them is not run.
fn is_test_script(p: &std::path::Path) -> bool {
    p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("dos") || e.eq_ignore_ascii_case("txt"))
}

/// Run every case of the given files or directories (directories: their test scripts,
/// sorted; a file named explicitly runs whatever its extension).
pub fn run_paths(registry: Arc<Registry>, paths: &[PathBuf]) -> Report {
    run_paths_with(registry, paths, None)
}

/// `run_paths` with the module folder given on the command line (`beluga --module-dir D
/// test ...`): it wins over a `modules/` folder beside the test files.
pub fn run_paths_with(registry: Arc<Registry>, paths: &[PathBuf], module_dir: Option<&Path>) -> Report {
    let mut report = Report::default();
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| is_test_script(p)).collect())
                .unwrap_or_default();
            entries.sort();
            files.extend(entries);
        } else {
            files.push(p.clone());
        }
    }
    for f in files {
        let name = f.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let text = match std::fs::read_to_string(&f) {
            Ok(t) => t,
            Err(e) => {
                report.cases.push(CaseResult { file: name, case: "<file>".into(), passed: false, message: e.to_string() });
                continue;
            }
        };
        let dir = f.parent().map(|p| p.to_path_buf());
        report.cases.extend(run_file_text_with(registry.clone(), &name, dir.as_deref(), &text, module_dir));
    }
    report
}

/// Run the cases of one file's text in order, in one session: the code before the first
/// case runs first (an error there is reported as a failing `<preamble>` case).
pub fn run_file_text(registry: Arc<Registry>, file: &str, dir: Option<&Path>, text: &str) -> Vec<CaseResult> {
    run_file_text_with(registry, file, dir, text, None)
}

fn run_file_text_with(
    registry: Arc<Registry>,
    file: &str,
    dir: Option<&Path>,
    text: &str,
    module_dir: Option<&Path>,
) -> Vec<CaseResult> {
    let mut out = Vec::new();
    let mut i = file_session(registry, file, dir);
    if let Some(m) = module_dir {
        i.module_dir = m.to_path_buf();
    }
    let cases = split_cases(text);
    let pre = preamble(text);
    let has_markers = strip_comments(text).lines().any(|l| l.trim_start().starts_with("@testing:"));
    if has_markers && !pre.trim().is_empty() {
        let c = Case { name: "<preamble>".into(), exception: false, syntax_error: false, text: pre, line: 1 };
        let r = run_case_in(&mut i, file, &c);
        if !r.passed {
            out.push(r);
        }
    }
    for case in &cases {
        out.push(run_case_in(&mut i, file, case));
    }
    out
}
