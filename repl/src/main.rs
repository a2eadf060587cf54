//! The `beluga` binary: REPL, batch runner (`beluga file.dos`, `-e`, stdin), test runner.
//! The command line is parsed by clap so unknown flags and stray arguments are errors
//! with the usage text, and `--help` documents every flag and environment variable.

mod batch;
mod helper;
mod render;
mod repl;

use beluga_runtime::{Interpreter, Registry};
use clap::{Arg, ArgAction, ArgMatches, Command};
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
    // submitJob & co.: the process-wide job pool the server's sessions use
    beluga_server::jobs::register(&mut r);
    r
}

const AFTER_HELP: &str = "\
With no FILE and no -e: an interactive REPL when standard input is a terminal, otherwise
the script read from standard input (each expression's value is printed, like the REPL).
Ctrl-C stops the running statement (`Execution was interrupted`, exit status 1); a second
Ctrl-C ends the process at once.

`beluga server [--port 8848] [--bind ADDR] [--data DIR] [--users FILE] ...` serves
DolphinDB's API protocol to the official clients (`beluga server --help` for its flags).

Databases: a path `dfs://name` given to database(), loadTable() and friends is a folder
under $BELUGA_DFS_ROOT (default ~/.beluga/dfs); any other path is a folder on disk.

Environment:
  BELUGA_MODULE_DIR   where `use a::b` finds a/b.dos (default ./modules; --module-dir wins)
  BELUGA_DFS_ROOT     root folder of dfs:// databases (default ~/.beluga/dfs)
  BELUGA_CACHE_MB     memory for cached partition columns, in MB (default 1/4 of RAM)
  BELUGA_MAPREDUCE    `off` turns off per-partition parallel aggregation
  BELUGA_MAX_MEMORY   memory budget of a session in bytes (--max-memory sets it)
  BELUGA_PLOT_DIR     folder plot() writes its SVG files to (default: the system temp folder)
  NO_COLOR            any value: no colours in the REPL and in error reports

Examples:
  beluga                                  start the REPL (type help() there)
  beluga examples/quickstart.dos          run a script
  beluga -i report.dos                    run a script and show its last value
  beluga -e 'sum(1..100)'                 evaluate an expression
  beluga < script.dos                     run a script from standard input (also `beluga -`)
  beluga test tests/assert                run @testing files";

fn cli() -> Command {
    Command::new("beluga")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Beluga: a DolphinDB-compatible vectorized scripting language")
        .override_usage("beluga [OPTIONS] [FILE.dos]\n       beluga test PATH...")
        .arg(
            Arg::new("file")
                .value_name("FILE.dos")
                .num_args(0..)
                .help("script to run; `test PATH...` runs DolphinDB @testing files or folders instead"),
        )
        .arg(
            Arg::new("execute")
                .short('e')
                .long("execute")
                .value_name("SCRIPT")
                .help("run SCRIPT (statements separated by ; or newlines) and print each value"),
        )
        .arg(
            Arg::new("echo")
                .short('i')
                .long("echo")
                .action(ArgAction::SetTrue)
                .help("with FILE: print the value of the script's last statement"),
        )
        .arg(
            Arg::new("keep-going")
                .long("keep-going")
                .action(ArgAction::SetTrue)
                .help("after an error in a script, -e or stdin, go on with the next statement (exit status still 1)"),
        )
        .arg(
            Arg::new("module-dir")
                .long("module-dir")
                .value_name("DIR")
                .value_parser(clap::value_parser!(PathBuf))
                .help("where `use a::b` finds a/b.dos (overrides BELUGA_MODULE_DIR)"),
        )
        .arg(
            Arg::new("max-memory")
                .long("max-memory")
                .value_name("SIZE")
                .value_parser(parse_size)
                .help("memory budget of the session, e.g. 512MB or 8GB (sets BELUGA_MAX_MEMORY)"),
        )
        .arg(
            Arg::new("gen-reference")
                .long("gen-reference")
                .value_name("OUT.md")
                .value_parser(clap::value_parser!(PathBuf))
                .exclusive(true)
                .help("write the function reference generated from the doc table (docs/reference.md) and exit"),
        )
        .after_help(AFTER_HELP)
}

/// `8GB`, `512MB`, `64k`, `1000` (bytes) → bytes. Units are powers of 1024.
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| format!("`{s}` is not a size such as 512MB or 8GB"))?;
    let mult: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        u => return Err(format!("unknown size unit `{u}` (use B, KB, MB, GB or TB)")),
    };
    if !(n > 0.0) {
        return Err(format!("`{s}` must be a positive size"));
    }
    Ok((n * mult as f64) as u64)
}

fn main() -> ExitCode {
    // `beluga server ...` has its own flags (server/src/lib.rs)
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("server") {
        return beluga_server::main_with_args(&args[1..]);
    }
    let m = match cli().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            // --help and --version print to stdout and succeed; real errors exit 2
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let Some(bytes) = m.get_one::<u64>("max-memory") {
        // SAFETY: no other thread exists yet; the session reads the variable when created
        unsafe { std::env::set_var("BELUGA_MAX_MEMORY", bytes.to_string()) };
    }
    let child = std::thread::Builder::new().stack_size(STACK_SIZE).spawn(move || run(m));
    match child.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("beluga: internal error");
            ExitCode::from(2)
        }
    }
}

/// Piped output: die quietly when the reader goes away (`beluga -e ... | head -1`)
/// instead of failing on every later write.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of a signal has no memory effects
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Colours on: stderr/stdout is a terminal and NO_COLOR is unset or empty.
pub fn color_wanted(terminal: bool) -> bool {
    terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn run(m: ArgMatches) -> ExitCode {
    if let Some(out) = m.get_one::<PathBuf>("gen-reference") {
        let text = beluga_stdlib::docs::reference_markdown(&registry());
        return match std::fs::write(out, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("beluga: can't write {}: {e}", out.display());
                ExitCode::from(2)
            }
        };
    }
    let mut interp = Interpreter::new(registry());
    if let Some(d) = m.get_one::<PathBuf>("module-dir") {
        interp.module_dir = d.clone();
    }
    let positional: Vec<String> = m.get_many::<String>("file").map(|v| v.cloned().collect()).unwrap_or_default();
    if positional.first().is_some_and(|p| p == "test") {
        if positional.len() < 2 {
            return usage_error("`beluga test` needs at least one PATH");
        }
        let paths: Vec<PathBuf> = positional[1..].iter().map(PathBuf::from).collect();
        return run_tests(interp, &paths, m.contains_id("module-dir"));
    }
    if positional.len() > 1 {
        return usage_error(&format!("unexpected argument '{}': give one script FILE", positional[1]));
    }
    if m.get_flag("echo") && positional.is_empty() {
        return usage_error("-i/--echo needs a script FILE");
    }
    if m.contains_id("execute") && !positional.is_empty() {
        return usage_error("give either -e SCRIPT or a script FILE, not both");
    }
    let keep_going = m.get_flag("keep-going");
    let stderr_tty = std::io::stderr().is_terminal();
    let opts = |name: &str, echo| batch::Opts {
        name: name.to_string(),
        echo,
        keep_going,
        fancy: stderr_tty,
        color: color_wanted(stderr_tty),
    };
    let from_stdin = positional.first().is_some_and(|p| p == "-");
    if !(positional.is_empty() && !m.contains_id("execute") && std::io::stdin().is_terminal() && !from_stdin) {
        // every non-interactive run: Ctrl-C interrupts the statement like in the REPL
        batch::install_sigint(&interp);
    }
    let ok = if let Some(src) = m.get_one::<String>("execute") {
        default_sigpipe();
        batch::run_text(&mut interp, src, &opts("<expr>", batch::Echo::All))
    } else if let Some(file) = positional.first().filter(|_| !from_stdin).map(PathBuf::from) {
        let file = &file;
        default_sigpipe();
        let src = match std::fs::read_to_string(file) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("beluga: can't read {}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        interp.current_file = Some(file.clone());
        let echo = if m.get_flag("echo") { batch::Echo::Last } else { batch::Echo::None };
        batch::run_text(&mut interp, &src, &opts(&file.display().to_string(), echo))
    } else if std::io::stdin().is_terminal() && !from_stdin {
        return repl::run(interp);
    } else {
        default_sigpipe();
        let mut src = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut src) {
            eprintln!("beluga: can't read standard input: {e}");
            return ExitCode::from(2);
        }
        batch::run_text(&mut interp, &src, &opts("<stdin>", batch::Echo::All))
    };
    if ok { ExitCode::SUCCESS } else { ExitCode::from(1) }
}

/// A command-line mistake found after parsing: clap's error format and usage, exit 2.
fn usage_error(msg: &str) -> ExitCode {
    let _ = cli().error(clap::error::ErrorKind::ArgumentConflict, msg).print();
    ExitCode::from(2)
}

fn run_tests(interp: Interpreter, paths: &[PathBuf], explicit_module_dir: bool) -> ExitCode {
    let module_dir = explicit_module_dir.then(|| interp.module_dir.clone());
    let report = beluga_stdlib::testing::run_paths_with(interp.registry.clone(), paths, module_dir.as_deref());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8GB"), Ok(8 << 30));
        assert_eq!(parse_size("512mb"), Ok(512 << 20));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("8 parsecs").is_err());
        assert!(parse_size("GB").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn cli_is_consistent() {
        cli().debug_assert();
    }
}
