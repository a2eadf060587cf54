//! Golden print corpus: runs every `../shared/print/*.txt` file through the interpreter in
//! REPL echo mode and compares the printed text with DolphinDB's.
//!
//! File format: `>> input` lines, each followed by the exact console output (possibly
//! none). A file is one session, run top to bottom. `unordered.txt` compares each case's
//! lines as a multiset (hash-ordered containers). Trailing spaces and trailing blank lines
//! do not count. Only cases with expected output are scored.
//!
//! `PRINT_GOLDEN_VERBOSE=1` prints every failing case; `PRINT_GOLDEN_FILE=name` runs one file.

use beluga_runtime::{Interpreter, Registry};
use std::path::{Path, PathBuf};

/// The overall pass rate (percent) must not drop below this. Raise it with the rate.
const FLOOR_PERCENT: f64 = 91.8;

struct Case {
    input: String,
    expected: Vec<String>,
}

fn parse_corpus(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix(">>") {
            let input = rest.strip_prefix(' ').unwrap_or(rest);
            cases.push(Case {
                input: input.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(c) = cases.last_mut() {
            c.expected.push(line.to_string());
        }
        // lines before the first `>>` are the file's comment header
    }
    cases
}

/// Trailing spaces of each line and trailing blank lines do not count.
fn normalize(lines: &[String]) -> Vec<String> {
    let mut v: Vec<String> = lines.iter().map(|l| l.trim_end().to_string()).collect();
    while v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

fn new_session() -> Interpreter {
    let mut registry = Registry::new();
    beluga_stdlib::register(&mut registry);
    beluga_storage::register(&mut registry);
    Interpreter::new(registry)
}

struct FileResult {
    name: String,
    passed: usize,
    total: usize,
}

fn run_file(path: &Path, verbose: bool) -> FileResult {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap();
    let unordered = name.starts_with("unordered");
    let mut interp = new_session();
    let (mut passed, mut total) = (0, 0);
    for case in parse_corpus(&text) {
        let out = interp.run_repl_text(&case.input);
        let actual: Vec<String> = normalize(&out.lines().map(str::to_string).collect::<Vec<_>>());
        let expected = normalize(&case.expected);
        if expected.is_empty() {
            continue;
        }
        total += 1;
        let ok = if unordered {
            let (mut a, mut e) = (actual.clone(), expected.clone());
            a.sort();
            e.sort();
            a == e
        } else {
            actual == expected
        };
        if ok {
            passed += 1;
        } else if verbose {
            println!("--- {name}: >> {}", case.input);
            println!("expected:\n{}", expected.join("\n"));
            println!("actual:\n{}", actual.join("\n"));
        }
    }
    FileResult {
        name,
        passed,
        total,
    }
}

#[test]
fn print_golden() {
    // `BELUGA_SHARED` names the shared folder when it is not beside the checkout (worktrees)
    let dir = match std::env::var_os("BELUGA_SHARED") {
        Some(p) => PathBuf::from(p).join("print"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/print"),
    };
    if !dir.is_dir() {
        println!("print_golden: skipped, {} not found", dir.display());
        return;
    }
    let verbose = std::env::var_os("PRINT_GOLDEN_VERBOSE").is_some();
    let only = std::env::var("PRINT_GOLDEN_FILE").ok();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter(|p| {
            only.as_ref()
                .is_none_or(|o| p.file_stem().is_some_and(|s| s == o.as_str()))
        })
        .collect();
    files.sort();
    let (mut passed, mut total) = (0, 0);
    for f in &files {
        let r = run_file(f, verbose);
        println!(
            "{:<16} {:>4}/{:<4} {:>5.1}%",
            r.name,
            r.passed,
            r.total,
            pct(r.passed, r.total)
        );
        passed += r.passed;
        total += r.total;
    }
    let rate = pct(passed, total);
    println!("print_golden: {passed}/{total} cases = {rate:.1}% (floor {FLOOR_PERCENT}%)");
    assert!(
        only.is_some() || rate >= FLOOR_PERCENT,
        "print golden pass rate {rate:.1}% fell below the floor {FLOOR_PERCENT}%"
    );
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}
