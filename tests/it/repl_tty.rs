//! The REPL through a real terminal (tmux): multi-line input, an error then a correct
//! statement, history recall, Ctrl-C interrupting a running statement, Ctrl-D exiting.

use beluga_tests::beluga_bin;
use beluga_tests::root;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("run tmux");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn screen(session: &str) -> String {
    tmux(&["capture-pane", "-p", "-S", "-200", "-t", session])
}

/// Wait until the pane shows `needle` `times` times.
fn wait_for(session: &str, needle: &str, times: usize) -> String {
    let start = Instant::now();
    loop {
        let s = screen(session);
        if s.lines().filter(|l| l.trim_end() == needle || l.contains(needle)).count() >= times {
            return s;
        }
        if start.elapsed() > Duration::from_secs(60) {
            panic!("timed out waiting for {needle:?} ({times}x); screen:\n{s}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn send(session: &str, keys: &[&str]) {
    let mut args = vec!["send-keys", "-t", session];
    args.extend_from_slice(keys);
    tmux(&args);
    // type like a person: keys typed ahead are kept (repl_keeps_lines_typed_ahead), but the
    // screen checks below read more simply when each line has been echoed first
    std::thread::sleep(Duration::from_millis(150));
}

#[test]
fn repl_in_a_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED repl_in_a_terminal: tmux is not installed");
        return;
    }
    let Some(bin) = beluga_bin() else {
        eprintln!("SKIPPED repl_in_a_terminal: the beluga binary is not built beside the tests");
        return;
    };
    let home = std::env::temp_dir().join(format!("beluga-repl-home-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&home);
    let session = format!("beluga_test_{}", std::process::id());
    let cmd = format!("HOME={} {}", home.display(), bin.display());
    let _ = root();
    tmux(&["new-session", "-d", "-s", &session, "-x", "120", "-y", "60", &cmd]);
    wait_for(&session, "Ctrl-D exits", 1);

    // multi-line input: the vector stays open across lines
    // each line is sent once the previous one shows on screen: keys typed ahead while the
    // REPL is still busy are not what this test is about, and under load they raced
    send(&session, &["x = [1,", "Enter"]);
    wait_for(&session, "x = [1,", 1);
    send(&session, &["2, 30]", "Enter"]);
    wait_for(&session, "2, 30]", 1);
    send(&session, &["x[0] + x[1] + x[2]", "Enter"]);
    wait_for(&session, "33", 1);

    // an error, then a correct statement: the session survives
    send(&session, &["x + `abc", "Enter"]);
    wait_for(&session, "x + `abc", 1);
    send(&session, &["undefinedThing + 1", "Enter"]);
    wait_for(&session, "Cannot recognize the token undefinedThing", 1);
    send(&session, &["x * 2", "Enter"]);
    wait_for(&session, "[2,4,60]", 1);

    // history recall: Up re-enters the previous line
    send(&session, &["Up", "Enter"]);
    wait_for(&session, "[2,4,60]", 2);

    // Ctrl-C interrupts a running statement
    send(&session, &["i = 0; while (true) { i = i + 1 }", "Enter"]);
    std::thread::sleep(Duration::from_millis(700));
    send(&session, &["C-c"]);
    wait_for(&session, "interrupted", 1);
    send(&session, &["40 + 2", "Enter"]);
    wait_for(&session, "42", 1);

    // Ctrl-D exits; the history file was written
    send(&session, &["C-d"]);
    let start = Instant::now();
    while tmux(&["has-session", "-t", &session]).is_empty() && Command::new("tmux").args(["has-session", "-t", &session]).status().map(|s| s.success()).unwrap_or(false) {
        if start.elapsed() > Duration::from_secs(10) {
            tmux(&["kill-session", "-t", &session]);
            panic!("the REPL did not exit on Ctrl-D");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let hist = std::fs::read_to_string(home.join(".beluga_history")).unwrap_or_default();
    assert!(hist.contains("x[0] + x[1]"), "history file lacks entries: {hist:?}");
    let _ = std::fs::remove_dir_all(&home);
}

/// Wait until the tmux session has ended (the REPL exited).
fn wait_exit(session: &str) -> bool {
    let start = Instant::now();
    while Command::new("tmux").args(["has-session", "-t", session]).status().map(|s| s.success()).unwrap_or(false) {
        if start.elapsed() > Duration::from_secs(10) {
            tmux(&["kill-session", "-t", session]);
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    true
}

/// Start the REPL in a fresh tmux session; None when tmux or the binary is missing.
fn start_repl(tag: &str, env: &str) -> Option<(String, PathBuf)> {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed");
        return None;
    }
    let bin = beluga_bin()?;
    let home = std::env::temp_dir().join(format!("beluga-repl-{tag}-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&home);
    let session = format!("beluga_{tag}_{}", std::process::id());
    let cmd = format!("HOME={} {env} {}", home.display(), bin.display());
    tmux(&["new-session", "-d", "-s", &session, "-x", "120", "-y", "60", &cmd]);
    wait_for(&session, "Ctrl-D exits", 1);
    Some((session, home))
}

#[test]
fn repl_completes_highlights_and_quits() {
    let Some((session, home)) = start_repl("complete", "") else { return };
    let banner = screen(&session);
    assert!(banner.contains(&format!("Beluga {}", env!("CARGO_PKG_VERSION"))) && banner.contains("help()"), "{banner}");
    send(&session, &["myTrades = table(1 2 3 as qtyShares, 10.0 20.0 30.0 as pxLast)", "Enter"]);
    // a column after select, a session variable, a column after where: each completed by Tab
    send(&session, &["select qtyS", "Tab"]);
    send(&session, &[" from myTr", "Tab"]);
    send(&session, &[" where pxL", "Tab"]);
    send(&session, &[" > 15", "Enter"]);
    wait_for(&session, "select qtyShares from myTrades where pxLast > 15", 1);
    let s = wait_for(&session, "qtyShares", 2);
    // rows 2 and 3 qualify
    let after = s.split("where pxLast > 15").nth(1).unwrap_or("");
    assert!(after.lines().any(|l| l.trim() == "2") && after.lines().any(|l| l.trim() == "3"), "{s}");
    send(&session, &["sqr", "Tab"]);
    send(&session, &["(49)", "Enter"]);
    wait_for(&session, "sqrt(49)", 1);
    wait_for(&session, "7", 1);
    send(&session, &["myTrades.px", "Tab"]);
    send(&session, &["Enter"]);
    wait_for(&session, "myTrades.pxLast", 1);
    wait_for(&session, "[10,20,30]", 1);

    // highlighting: keywords and strings are coloured on a colour terminal
    send(&session, &["s = \"abc\" // a comment", "Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    let coloured = tmux(&["capture-pane", "-e", "-p", "-t", &session]);
    let line = coloured.lines().find(|l| l.contains("abc")).unwrap_or("");
    assert!(line.contains('\u{1b}'), "no colour in {line:?}");

    // the timer
    send(&session, &[".timer on", "Enter"]);
    wait_for(&session, "timer is on", 1);
    send(&session, &["1 + 1", "Enter"]);
    wait_for(&session, "Time elapsed:", 1);
    send(&session, &[".timer off", "Enter"]);
    wait_for(&session, "timer is off", 1);

    send(&session, &["exit()", "Enter"]);
    assert!(wait_exit(&session), "exit() did not end the REPL");
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn repl_plain_under_no_color_and_quit() {
    let Some((session, home)) = start_repl("nocolor", "NO_COLOR=1") else { return };
    send(&session, &["s = \"abc\" // a comment", "Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    send(&session, &["undefinedName + 1", "Enter"]);
    wait_for(&session, "Cannot recognize the token undefinedName", 1);
    let coloured = tmux(&["capture-pane", "-e", "-p", "-t", &session]);
    assert!(!coloured.contains('\u{1b}'), "colour despite NO_COLOR:\n{coloured:?}");
    send(&session, &["quit", "Enter"]);
    assert!(wait_exit(&session), "quit did not end the REPL");
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn repl_truncates_and_locates_errors_in_earlier_functions() {
    let Some((session, home)) = start_repl("truncate", "NO_COLOR=1") else { return };
    send(&session, &["big = table(1..100000 as id, take(`a`b, 100000) as s)", "Enter"]);
    send(&session, &["big", "Enter"]);
    let s = wait_for(&session, "[100,000 rows x 2 columns]", 1);
    assert!(s.lines().any(|l| l.trim_end() == "...") && s.lines().any(|l| l.starts_with("100000 b")), "{s}");
    // a function defined in one input fails in a later one: the report names the first input
    send(&session, &["def g(x) { return x + missingThing }", "Enter"]);
    send(&session, &["g(1)", "Enter"]);
    let s = wait_for(&session, "<input 3>:1:", 1);
    assert!(s.contains("return x + missingThing"), "{s}");
    send(&session, &["?msum", "Enter"]);
    wait_for(&session, "[,,6,10,11,15]", 1);
    send(&session, &["quit", "Enter"]);
    assert!(wait_exit(&session));
    let _ = std::fs::remove_dir_all(&home);
}

/// Lines typed while a statement still runs are all kept: they wait in the terminal and
/// are read, one per prompt, once the statement finishes (rustyline's read buffer is carried
/// from one prompt to the next: its `buffer-redux` feature).
#[test]
fn repl_keeps_lines_typed_ahead() {
    let Some((session, home)) = start_repl("typeahead", "") else { return };
    send(&session, &["sleep(2000)", "Enter"]);
    // three lines at once, while sleep still runs
    tmux(&["send-keys", "-t", &session, "a = 20", "Enter", "b = 22", "Enter", "a * 100 + b", "Enter"]);
    let s = wait_for(&session, "2022", 1);
    assert!(s.contains("b = 22"), "{s}");
    send(&session, &["quit", "Enter"]);
    assert!(wait_exit(&session), "quit did not end the REPL");
    let _ = std::fs::remove_dir_all(&home);
}
