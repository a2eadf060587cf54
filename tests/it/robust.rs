//! No input aborts, hangs or ignores Ctrl-C: each reproduction from issue 10 (§2–§3) runs
//! against the real binary (memory budget, SIGINT) or the library (nesting, regex, CSV,
//! vectorised adverbs), under small budgets so the tests stay fast and memory-light.

use beluga_tests::beluga_bin;
use beluga_tests::{interpreter, with_stack};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The tests of this module are CPU-heavy for a few seconds each; they take turns so the
/// timing-sensitive terminal tests running beside them (repl_tty) are not starved on a
/// two-core machine.
static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn heavy() -> std::sync::MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run a script through the binary's stdin with a memory budget; (stdout, stderr, seconds).
fn run_bin(script: &str, max_memory: &str) -> Option<(String, String, f64)> {
    let bin = beluga_bin()?;
    let start = Instant::now();
    // --keep-going: every statement runs even after one fails (errors go to stderr)
    let mut child = Command::new(bin)
        .arg("--keep-going")
        .env("BELUGA_MAX_MEMORY", max_memory)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start beluga");
    child.stdin.take().expect("stdin").write_all(script.as_bytes()).expect("write script");
    let out = child.wait_with_output().expect("wait for beluga");
    // an error makes the exit status non-zero; what matters is that the process ended by
    // itself (no abort, no signal)
    assert!(out.status.code().is_some(), "beluga was killed: {:?}; stderr: {}", out.status, String::from_utf8_lossy(&out.stderr));
    Some((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        start.elapsed().as_secs_f64(),
    ))
}

/// Run a script in a fresh session on a large stack; the console text.
fn run_lib(src: &str) -> String {
    run_lib_timed(src).0
}

/// As `run_lib`, with the CPU seconds the session's thread used (wall time is meaningless on
/// a machine shared with parallel builds; quadratic work shows in CPU time).
fn run_lib_timed(src: &str) -> (String, f64) {
    let src = src.to_string();
    with_stack(move || {
        let t0 = thread_cpu_secs();
        let out = interpreter().run_repl_text(&src);
        (out, thread_cpu_secs() - t0)
    })
}

/// CPU time of the calling thread (user + system) from /proc; 0 where unavailable.
fn thread_cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/thread-self/stat") else { return 0.0 };
    // fields after the parenthesised command name: state is field 3, utime 14, stime 15
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |k: usize| f.get(k - 3).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(14) + ticks(15)) / 100.0
}

#[test]
fn huge_allocations_fail_with_the_budget_message_and_the_session_goes_on() {
    let _turn = heavy();
    // every statement asks for far more than 200 MB; each must fail fast with the message
    let script = "\
sum(1..2000000000)
x = array(LONG, 1000000000)
m = matrix(DOUBLE, 40000, 40000)
size(cross(+, 1..100000, 1..100000))
t1 = table(1..100000 as a); t2 = table(1..100000 as b); size(cj(t1, t2))
size(select * from cj(t1, t2))
take(matrix(1 2, 3 4), 10000000000)
histogram2d(1 2 3, 1 2 3, 100000)
1..1999999999
40 + 2
";
    let Some((out, err, secs)) = run_bin(script, "200000000") else {
        eprintln!("SKIPPED: the beluga binary is not built beside the tests");
        return;
    };
    let oom: Vec<&str> = err.lines().filter(|l| l.contains("out of memory: this statement needs")).collect();
    assert!(oom.len() >= 9, "expected 9 budget errors, got {}:\n{out}\n{err}", oom.len());
    for l in &oom {
        assert!(l.contains("the limit is 190.7 MB"), "{l}");
    }
    // the first statement: 2e9 LONGs plus the final column, in GB
    assert!(oom[0].contains("GB"), "{}", oom[0]);
    assert_eq!(out.lines().last(), Some("42"), "the session answers after the failures:\n{out}");
    assert!(secs < 20.0, "took {secs} s");
}

#[test]
fn set_max_mem_size_changes_the_budget() {
    let _turn = heavy();
    let script = "\
setMaxMemSize(0.01)
x = 1..10000000
setMaxMemSize(2)
size(1..10000000)
";
    let Some((out, err, _)) = run_bin(script, "100000000000") else {
        eprintln!("SKIPPED: the beluga binary is not built beside the tests");
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert!(err.lines().any(|l| l.contains("out of memory: this statement needs") && l.contains("the limit is 10.2 MB")), "{err}");
    assert_eq!(lines.last(), Some(&"10000000"), "{out}");
    // a bad size is an argument error, not a crash
    let (out, err, _) = run_bin("setMaxMemSize(-1)\n1 + 2\n", "100000000000").expect("binary");
    assert!(err.contains("must be a positive number of GB"), "{err}");
    assert_eq!(out.lines().last(), Some("3"));
}

#[test]
fn deeply_nested_tuples_print_and_compare_without_overflow() {
    let _turn = heavy();
    let out = run_lib(
        "x = 1; for (i in 0:700000) { x = [x] }; y = 1; for (i in 0:700000) { y = [y] }\n\
         x\n\
         x == y\n\
         eqObj(x, y)\n\
         y = 2; for (i in 0:700000) { y = [y] }; eqObj(x, y)\n\
         print(\"alive\")",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("((((") && lines[0].contains("(...)") && lines[0].len() < 1000, "{}", &out[..out.len().min(2000)]);
    assert!(lines[1].contains("nested more than 10000 levels"), "{out}");
    assert_eq!(&lines[2..], &["true", "false", "alive"]);
    // shallow nesting still prints in full
    let out = run_lib("[[1, 2], [3, [4]]]");
    assert_eq!(out.trim(), "([1,2],(3,[4]))");
}

#[test]
fn deep_parse_nesting_is_a_syntax_error() {
    let _turn = heavy();
    let src = format!("x = {}1{}\n1 + 1", "(".repeat(100_000), ")".repeat(100_000));
    let out = run_lib(&src);
    assert!(out.contains("nesting too deep"), "{out}");
    assert_eq!(out.lines().last(), Some("2"));
}

#[test]
fn regex_long_strings_and_deep_patterns() {
    let _turn = heavy();
    // a million-character match and a 5000-deep pattern: results or errors, no overflow
    let out = run_lib(
        "s = \"a\"; for (i in 0:20) { s += s }\n\
         regexCount(s, \"(a|b)*\")\n\
         regexCount(s, \"a\")\n\
         p = concat(take(\"(\", 5000)) + \"a\" + concat(take(\")\", 5000))\n\
         regexCount(\"aaa\", p)\n\
         regexReplace(s, \"a\", \"b\") == concat(take(\"b\", 1048576))",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "1", "{out}");
    assert_eq!(lines[1], "1048576", "{out}");
    assert!(lines[2].contains("nested too deeply"), "{out}");
    assert_eq!(lines[3], "true", "{out}");
}

#[test]
fn regex_count_and_replace_are_linear() {
    let _turn = heavy();
    // 800 KB with 200k matches: the old engine re-inspected the whole string per match
    let (out, secs) = run_lib_timed(
        "s = \"ab12 \"; for (i in 0:17) { s += s }\n\
         strlen(s)\n\
         regexCount(s, \"[0-9]+\")\n\
         strlen(regexReplace(s, \"([a-z]+)([0-9]+)\", \"$2$1\"))\n\
         regexCount(s, \"(a)b\\\\1?\")",
    );
    assert_eq!(out.lines().collect::<Vec<_>>(), vec!["655360", "131072", "655360", "131072"], "{out}");
    assert!(secs < 3.0, "took {secs} s of CPU");
}

#[test]
fn string_append_in_a_loop_is_linear() {
    let _turn = heavy();
    let (out, secs) = run_lib_timed("s = \"x\"; for (i in 0:300000) { s += \"ab\" }; strlen(s)\nt = s; t += \"!\"; strlen(s), strlen(t)\nsubstr(t, 0, 5)");
    assert_eq!(out.lines().collect::<Vec<_>>(), vec!["600001", "(600001,600002)", "xabab"], "{out}");
    assert!(secs < 3.0, "took {secs} s of CPU");
}

#[test]
fn each_and_cross_vectorised_equal_the_per_element_path() {
    let _turn = heavy();
    // the same function written so it is vectorised (an operator, a lambda of operators)
    // and so it is not (a block body with two statements): the results must be identical
    let (out, secs) = run_lib_timed(
        "x = 1 2 NULL 4 -5; y = 10 0 3 NULL 2\n\
         f = def(a, b) { c = a; return c * 2 + b / 3 - (a > b) }\n\
         v1 = each(x -> x + 1, x); v2 = each(def(a) { b = a; return b + 1 }, x)\n\
         eqObj(v1, v2), typestr(v1) == typestr(v2), v1\n\
         r1 = each(def(a, b) { return a * 2 + b / 3 - (a > b) }, x, y); r2 = each(f, x, y)\n\
         eqObj(r1, r2), typestr(r1) == typestr(r2), r1\n\
         c1 = cross(+, 1 2 3, 10 20); c2 = cross(def(a, b) { c = a; return c + b }, 1 2 3, 10 20)\n\
         eqObj(c1, c2), eqObj(c1.rowNames(), c2.rowNames()), eqObj(c1.colNames(), c2.colNames()), flatten(c1)\n\
         each(sqrt, 4.0 9.0 NULL)\n\
         each(x -> x + 1, 1..10000000)[9999999]",
    );
    // values worked out by hand: x + 1; a*2 + b/3 - (a > b) with integer division
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "(true,true,[2,3,,5,-4])", "{out}");
    assert_eq!(lines[1], "(true,true,[5,3,,,-10])", "{out}");
    assert_eq!(lines[2], "(true,true,true,[11,12,13,21,22,23])", "{out}");
    assert_eq!(lines[3], "[2,3,]", "{out}");
    assert_eq!(lines[4], "10000001", "{out}");
    // ten million elements in one column call, not ten million boxed calls
    assert!(secs < 3.0, "took {secs} s of CPU");
}

#[test]
fn csv_records_have_a_size_limit_and_long_records_load() {
    let _turn = heavy();
    let out = run_lib("try { loadText(\"/dev/zero\") } catch (e) { print(e[1]) }\n1 + 1");
    assert!(out.contains("a record is longer than 64 MB"), "{out}");
    assert_eq!(out.lines().last(), Some("2"));
    // a 40 MB record (longer than one read chunk) between two ordinary ones
    let dir = std::env::temp_dir().join(format!("beluga-robust-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("long.csv");
    let mut text = String::from("id,s\n1,a\n2,");
    text.push_str(&"x".repeat(40 << 20));
    text.push_str("\n3,c\n");
    std::fs::write(&file, text).expect("write csv");
    let out = run_lib(&format!("t = loadText(\"{}\"); t.id\nstrlen(t.s)", file.display()));
    assert_eq!(out.lines().collect::<Vec<_>>(), vec!["[1,2,3]", &format!("[1,{},1]", 40 << 20)], "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_stops_a_long_kernel_and_the_session_goes_on() {
    let _turn = heavy();
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let Some(bin) = beluga_bin() else {
        eprintln!("SKIPPED: the beluga binary is not built beside the tests");
        return;
    };
    let tmux = |args: &[&str]| {
        let o = Command::new("tmux").args(args).output().expect("tmux");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let session = format!("beluga_robust_{}", std::process::id());
    let home = std::env::temp_dir().join(format!("beluga-robust-home-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&home);
    tmux(&["new-session", "-d", "-s", &session, "-x", "150", "-y", "50", &format!("HOME={} {}", home.display(), bin.display())]);
    let wait_for = |needle: &str, limit: Duration| -> Option<Duration> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if tmux(&["capture-pane", "-p", "-t", &session]).contains(needle) {
                return Some(start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    };
    assert!(wait_for("Ctrl-D exits", Duration::from_secs(10)).is_some());
    // a 64 MB string, then one regex call over it on the backtracking engine (seconds of work
    // inside one builtin: only the kernel's own checks can stop it)
    tmux(&["send-keys", "-t", &session, "s = \"ab\"; for (i in 0:25) { s += s }; strlen(s)", "Enter"]);
    assert!(wait_for("67108864", Duration::from_secs(20)).is_some(), "{}", tmux(&["capture-pane", "-p", "-t", &session]));
    tmux(&["send-keys", "-t", &session, "regexCount(s, \"(a)b\\\\1?\") + regexCount(s, \"(b)a\\\\1?\") + regexCount(s, \"(a)b\\\\1?\")", "Enter"]);
    std::thread::sleep(Duration::from_millis(800));
    tmux(&["send-keys", "-t", &session, "C-c"]);
    let took = wait_for("interrupted", Duration::from_secs(5));
    let screen = tmux(&["capture-pane", "-p", "-t", &session]);
    tmux(&["send-keys", "-t", &session, "40 + 2", "Enter"]);
    let next = wait_for("42", Duration::from_secs(5));
    tmux(&["kill-session", "-t", &session]);
    let _ = std::fs::remove_dir_all(&home);
    let took = took.unwrap_or_else(|| panic!("no interrupt within 5 s:\n{screen}"));
    assert!(took < Duration::from_secs(1), "the interrupt took {took:?}");
    assert!(!screen.contains("100663295"), "the statement finished instead of stopping:\n{screen}");
    assert!(next.is_some(), "the session did not answer after the interrupt");
}
