//! The interactive REPL: history, multi-line input while brackets are open, tab completion
//! and highlighting (see `helper`), `?name` and `help()`, `.timer on|off`, `quit`/`exit`,
//! Ctrl-C to cancel a line or interrupt a running statement, Ctrl-D to exit.

use crate::helper::{BelugaHelper, Snapshot};
use crate::render;
use beluga_runtime::{Interpreter, Value};
use rustyline::error::ReadlineError;
use std::cell::RefCell;
use std::io::Write;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// What the REPL does with one entered line before the interpreter sees it.
#[derive(Debug, PartialEq)]
pub enum Command {
    Quit,
    Timer(bool),
    /// `?name`: the text to run instead (`help("name")`)
    Run(String),
    Script,
}

pub fn command(line: &str) -> Command {
    let t = line.trim().trim_end_matches(';').trim();
    match t {
        "quit" | "exit" | "exit()" | "quit()" => Command::Quit,
        ".timer on" => Command::Timer(true),
        ".timer off" => Command::Timer(false),
        _ => match t.strip_prefix('?') {
            Some(name) if !name.trim().is_empty() => Command::Run(format!("help(\"{}\")", name.trim().replace('"', ""))),
            Some(_) => Command::Run("help()".into()),
            None => Command::Script,
        },
    }
}

/// Refresh what completion knows about the session.
fn snapshot(interp: &Interpreter, snap: &mut Snapshot) {
    snap.vars = interp
        .globals
        .iter()
        .map(|(n, v)| {
            let cols = match v {
                Value::Table(t) => Some(t.names.clone()),
                _ => None,
            };
            (n.clone(), cols)
        })
        .collect();
    snap.functions = interp.functions.keys().cloned().collect();
    snap.module_dir = interp.module_dir.clone();
}

/// The input an error's span falls in, and the error with its span made local to it.
pub fn locate(inputs: &[(usize, String)], mut e: beluga_runtime::Error) -> (usize, beluga_runtime::Error) {
    let last = inputs.len().saturating_sub(1);
    let Some(span) = e.span else { return (last, e) };
    let s = span.start as usize;
    let k = inputs.iter().rposition(|(start, _)| *start <= s).unwrap_or(last);
    let off = inputs.get(k).map(|(start, _)| *start).unwrap_or(0) as u32;
    if let Some(sp) = e.span.as_mut() {
        sp.start = sp.start.saturating_sub(off);
        sp.end = sp.end.saturating_sub(off);
    }
    (k, e)
}

pub fn run(mut interp: Interpreter) -> ExitCode {
    let color = crate::color_wanted(true);
    let config = rustyline::Config::builder()
        .auto_add_history(false)
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut rl: rustyline::Editor<BelugaHelper, rustyline::history::FileHistory> = match rustyline::Editor::with_config(config) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("beluga: can't start the line editor: {e}");
            return ExitCode::from(2);
        }
    };
    let session = Rc::new(RefCell::new(Snapshot::default()));
    snapshot(&interp, &mut session.borrow_mut());
    let builtins: Vec<String> = interp.registry.names().map(|s| s.to_string()).collect();
    rl.set_helper(Some(BelugaHelper { builtins, session: session.clone(), color }));
    let history = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".beluga_history"));
    if let Some(h) = &history {
        let _ = rl.load_history(h);
    }
    let flag = interp.interrupt.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    println!("Beluga {} — a DolphinDB-compatible scripting language", env!("CARGO_PKG_VERSION"));
    println!("help() lists topics, ?name describes a function, Tab completes; quit or Ctrl-D exits.");
    let mut timer = false;
    // Every input is parsed at its own offset in one virtual text (earlier inputs replaced by
    // newlines), so a span inside a function defined in an earlier input still names that
    // input: (start offset, text) of each input so far.
    let mut inputs: Vec<(usize, String)> = Vec::new();
    let mut total = 0usize;
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
                let src = match command(&line) {
                    Command::Quit => break,
                    Command::Timer(on) => {
                        timer = on;
                        println!("timer is {}", if on { "on" } else { "off" });
                        continue;
                    }
                    Command::Run(s) => s,
                    Command::Script => line.clone(),
                };
                interp.interrupt.store(false, Ordering::Relaxed);
                let start = Instant::now();
                let mut echo = |i: &mut Interpreter, v: Value| {
                    if matches!(v, Value::Void) {
                        return;
                    }
                    let text = crate::render::console_text(i, &v);
                    let mut o = std::io::stdout().lock();
                    let _ = writeln!(o, "{text}");
                    let _ = o.flush();
                };
                let text = interp.preprocess(&src).unwrap_or(src.clone());
                let padded = format!("{}{text}", "\n".repeat(total));
                inputs.push((total, text.clone()));
                total += text.len() + 1;
                if let Err(e) = interp.run_source(&padded, Some(&mut echo)) {
                    let (k, local) = locate(&inputs, e);
                    let text = &inputs[k].1;
                    eprintln!("{}", render::render(&local, &format!("<input {}>", k + 1), text, true, color));
                }
                if timer {
                    let ms = start.elapsed().as_secs_f64() * 1000.0;
                    println!("Time elapsed: {ms:.3} ms");
                }
                snapshot(&interp, &mut session.borrow_mut());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(command("quit"), Command::Quit);
        assert_eq!(command(" exit() "), Command::Quit);
        assert_eq!(command("exit;"), Command::Quit);
        assert_eq!(command(".timer on"), Command::Timer(true));
        assert_eq!(command(".timer off"), Command::Timer(false));
        assert_eq!(command("?mavg"), Command::Run("help(\"mavg\")".into()));
        assert_eq!(command("?"), Command::Run("help()".into()));
        assert_eq!(command("exit_code = 1"), Command::Script);
    }
}
