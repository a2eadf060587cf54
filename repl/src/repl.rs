//! The interactive REPL: history, multi-line input while brackets are open, Ctrl-C to cancel
//! a line or interrupt a running statement, Ctrl-D to exit.

use crate::render;
use beluga_runtime::Interpreter;
use rustyline::error::ReadlineError;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Completer, Helper, Highlighter, Hinter};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

/// Keeps reading lines while brackets, braces or a string are open.
#[derive(Completer, Helper, Highlighter, Hinter)]
struct Input;

impl Validator for Input {
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
            b'/' if i + 1 < b.len() && b[i + 1] == b'*' => {
                match src[i + 2..].find("*/") {
                    Some(p) => i += p + 3,
                    None => return true,
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    depth > 0
}

pub fn run(mut interp: Interpreter) -> ExitCode {
    let config = rustyline::Config::builder().auto_add_history(false).build();
    let mut rl: rustyline::Editor<Input, rustyline::history::FileHistory> = match rustyline::Editor::with_config(config) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("beluga: can't start the line editor: {e}");
            return ExitCode::from(2);
        }
    };
    rl.set_helper(Some(Input));
    let history = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".beluga_history"));
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }
    let flag = interp.interrupt.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    println!("Beluga {} — DolphinDB-compatible scripting. Ctrl-D exits.", env!("CARGO_PKG_VERSION"));
    let mut n = 0usize;
    loop {
        match rl.readline("> ") {
            Ok(line) => {
                if line.trim().is_empty() {
                    continue;
                }
                let _ = rl.add_history_entry(line.as_str());
                if let Some(h) = &history {
                    let _ = rl.append_history(h);
                }
                n += 1;
                interp.interrupt.store(false, Ordering::Relaxed);
                let mut echo = |i: &mut Interpreter, v: beluga_runtime::Value| {
                    let text = i.format(&v);
                    println!("{text}");
                };
                if let Err(e) = interp.run_source(&line, Some(&mut echo)) {
                    let name = format!("<input {n}>");
                    let text = interp.preprocess(&line).unwrap_or(line.clone());
                    eprintln!("{}", render::render(&e, &name, &text, true, crate::color_wanted(true)));
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("beluga: {e}");
                break;
            }
        }
    }
    ExitCode::SUCCESS
}
