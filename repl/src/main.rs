//! The `beluga` binary: REPL, batch runner (`beluga file.dos`), stdin mode and test runner.

mod render;
mod repl;

use beluga_runtime::{Interpreter, Registry};
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;

/// Counts live bytes so the session's memory budget sees what earlier statements hold.
#[global_allocator]
static ALLOC: beluga_runtime::guard::CountingAlloc = beluga_runtime::guard::CountingAlloc;

/// Interpreter stack: deep recursion in user scripts stays within this.
const STACK_SIZE: usize = 512 * 1024 * 1024;

fn registry() -> Registry {
    let mut r = Registry::new();
    beluga_stdlib::register(&mut r);
    beluga_storage::register(&mut r);
    r
}

fn usage() -> &'static str {
    "usage: beluga [--module-dir DIR] [FILE.dos]\n       beluga test PATH...\n       beluga -e SCRIPT\n(with no FILE: an interactive REPL on a terminal, or the script read from standard input)"
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let child = std::thread::Builder::new().stack_size(STACK_SIZE).spawn(move || run(args));
    match child.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("beluga: internal error");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> ExitCode {
    if args.first().map(String::as_str) == Some("server") {
        return beluga_server::main_with_args(&args[1..]);
    }
    let mut module_dir: Option<PathBuf> = None;
    let mut rest = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--module-dir" => match it.next() {
                Some(d) => module_dir = Some(PathBuf::from(d)),
                None => {
                    eprintln!("{}", usage());
                    return ExitCode::from(2);
                }
            },
            "-V" | "--version" => {
                println!("beluga {}", env!("CARGO_PKG_VERSION"));
                return ExitCode::SUCCESS;
            }
            "-h" | "--help" => {
                println!("{}", usage());
                return ExitCode::SUCCESS;
            }
            _ => rest.push(a),
        }
    }
    let mut interp = Interpreter::new(registry());
    if let Some(d) = module_dir {
        interp.module_dir = d;
    }
    match rest.first().map(|s| s.as_str()) {
        Some("test") => run_tests(interp, &rest[1..]),
        Some("-e") => {
            let src = rest[1..].join(" ");
            print!("{}", interp.run_repl_text(&src));
            ExitCode::SUCCESS
        }
        Some(file) => run_file(interp, file),
        None => {
            if std::io::stdin().is_terminal() {
                repl::run(interp)
            } else {
                let mut src = String::new();
                if let Err(e) = std::io::stdin().read_to_string(&mut src) {
                    eprintln!("beluga: can't read standard input: {e}");
                    return ExitCode::from(2);
                }
                print!("{}", interp.run_repl_text(&src));
                ExitCode::SUCCESS
            }
        }
    }
}

fn run_file(mut interp: Interpreter, file: &str) -> ExitCode {
    let src = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("beluga: can't read {file}: {e}");
            return ExitCode::from(2);
        }
    };
    interp.current_file = Some(PathBuf::from(file));
    match interp.run_source(&src, None) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let text = interp.preprocess(&src).unwrap_or(src);
            eprintln!("{}", render::render(&e, file, &text, std::io::stderr().is_terminal()));
            ExitCode::from(1)
        }
    }
}

fn run_tests(interp: Interpreter, paths: &[String]) -> ExitCode {
    if paths.is_empty() {
        eprintln!("{}", usage());
        return ExitCode::from(2);
    }
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let report = beluga_stdlib::testing::run_paths(interp.registry.clone(), &paths);
    for line in report.lines() {
        println!("{line}");
    }
    for (file, passed, total) in report.per_file() {
        println!("{file}: {passed}/{total}");
    }
    let (passed, failed) = report.totals();
    println!("{passed} passed, {failed} failed");
    if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
