//! Non-interactive runs: a script file, `-e EXPR` and standard input. Statements run one
//! at a time; echoed values are written (and flushed) as each statement finishes; an
//! error goes to stderr as `name:line:column: message` and stops the run unless
//! `--keep-going` was given. The caller turns the outcome into the exit status.

use crate::render;
use beluga_runtime::eval::split_segments;
use beluga_runtime::{Error, Interpreter, Value};
use std::io::Write;

/// Which statement values are printed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Echo {
    /// every expression statement (stdin and `-e`, like the REPL)
    All,
    /// only the script's last statement (`beluga -i FILE`)
    Last,
    /// nothing but what the script prints itself (`beluga FILE`)
    None,
}

pub struct Opts {
    /// how errors name the source: a path, `<stdin>` or `<expr>`
    pub name: String,
    pub echo: Echo,
    pub keep_going: bool,
    /// miette's graphical report (stderr is a terminal)
    pub fancy: bool,
    pub color: bool,
}

/// Run `src`; returns whether every statement succeeded.
pub fn run_text(interp: &mut Interpreter, src: &str, opts: &Opts) -> bool {
    let text = match interp.preprocess(src) {
        Ok(t) => t,
        Err(e) => {
            report(&e, opts, src);
            return false;
        }
    };
    let segments = split_segments(&text);
    let nseg = segments.len();
    let mut ok = true;
    for (si, (offset, seg)) in segments.into_iter().enumerate() {
        // (offset within `text`, statement) pairs to run
        let units: Vec<(usize, beluga_lang::ast::Stmt)> = match interp.parse(seg) {
            Ok(stmts) => stmts.into_iter().map(|s| (offset, s)).collect(),
            Err(e) => {
                report(&shift(e, offset), opts, &text);
                ok = false;
                if !opts.keep_going {
                    return false;
                }
                // recover: parse the segment piece by piece and run the pieces that parse
                let mut v = Vec::new();
                for (lo, piece) in split_statements(seg) {
                    match interp.parse(piece) {
                        Ok(stmts) => v.extend(stmts.into_iter().map(|s| (offset + lo, s))),
                        Err(e) => report(&shift(e, offset + lo), opts, &text),
                    }
                }
                v
            }
        };
        let n = units.len();
        for (k, (off, stmt)) in units.iter().enumerate() {
            let last = si + 1 == nseg && k + 1 == n;
            match interp.exec_top(stmt) {
                Ok(Some(v)) => {
                    if opts.echo == Echo::All || (opts.echo == Echo::Last && last) {
                        echo_value(interp, &v);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    ok = false;
                    let stop = e.kind == beluga_runtime::ErrorKind::Interrupted;
                    report(&shift(e, *off), opts, &text);
                    // Ctrl-C ends the run even with --keep-going
                    if !opts.keep_going || stop {
                        return false;
                    }
                }
            }
        }
    }
    ok
}

/// Ctrl-C in a non-interactive run: the first interrupts the running statement (it stops
/// with "Execution was interrupted" and the run ends with a non-zero status); a second one
/// while the first is still pending ends the process at once (exit status 130), so a run
/// can always be stopped.
pub fn install_sigint(interp: &Interpreter) {
    let flag = interp.interrupt.clone();
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, std::sync::atomic::Ordering::Relaxed) {
            let _ = writeln!(std::io::stderr(), "Execution was interrupted");
            std::process::exit(130);
        }
    });
}

/// Print a statement's value and flush, so piped output appears statement by statement.
pub fn echo_value(interp: &Interpreter, v: &Value) {
    if matches!(v, Value::Void) {
        return;
    }
    let text = interp.format(v);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

fn shift(mut e: Error, offset: usize) -> Error {
    if let Some(s) = e.span.as_mut() {
        s.start += offset as u32;
        s.end += offset as u32;
    }
    e
}

fn report(e: &Error, opts: &Opts, text: &str) {
    let msg = render::render(e, &opts.name, text, opts.fancy, opts.color);
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{msg}");
}

pub use beluga_runtime::eval::split_statements;
