//! DolphinDB `@testing` files: each case runs in a fresh session; `assert` failures,
//! uncaught errors and the `exception = 1` / `syntaxError = 1` expectations decide it.

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

/// Split a file into cases at `@testing:` lines. Code before the first case becomes a preamble
/// prepended (as blank-line-preserving text) to every case.
pub fn split_cases(text: &str) -> Vec<Case> {
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
                text: preamble.clone(),
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

/// Run one case in a fresh session.
pub fn run_case(registry: Arc<Registry>, file: &str, dir: Option<&Path>, case: &Case) -> CaseResult {
    let mut i = Interpreter::with_registry(registry);
    i.output = Output::Buffer(String::new());
    i.test.case = case.name.clone();
    if let Some(d) = dir {
        i.current_file = Some(d.join(file));
        // modules used by test files live in `modules/` beside them
        let m = d.join("modules");
        if m.is_dir() {
            i.module_dir = m;
        }
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
                (false, match line {
                    Some(l) => format!("line {l}: {}", e.message),
                    None => e.message.clone(),
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

/// Run every case of the given files or directories (directories: their files, sorted).
pub fn run_paths(registry: Arc<Registry>, paths: &[PathBuf]) -> Report {
    let mut report = Report::default();
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect())
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
        for case in split_cases(&text) {
            report.cases.push(run_case(registry.clone(), &name, dir.as_deref(), &case));
        }
    }
    report
}
