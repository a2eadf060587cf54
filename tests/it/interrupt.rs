//! Ctrl-C stops long work promptly: the real binary runs a script on standard input whose
//! last statement is long (a sort, a join, a group by, a range sum, an element-wise
//! expression, a CSV import); once the setup has printed READY the test sends SIGINT after
//! ~300 ms and expects "Execution was interrupted" on stderr, a non-zero exit within 2 s
//! (longer on an overloaded machine, see `deadline`)
//! and nothing from the statements after it. A statement that finishes before the signal
//! fails the test too (the case is then too small to show anything). Cases run one at a
//! time: each holds a few hundred MB. The REPL case checks that the session goes on.

use beluga_tests::beluga_bin;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One big case at a time (memory on a small shared machine).
static SERIAL: Mutex<()> = Mutex::new(());

/// How long the binary may take to stop after SIGINT: 2 s, stretched on a machine busier
/// than its cores (load average per core, at most 4x) so other work can't fail the test.
fn deadline() -> Duration {
    let load = std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok()).unwrap_or(0.0);
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as f64;
    Duration::from_secs_f64(2.0 * (load / cores).clamp(1.0, 4.0))
}

fn sigint(pid: u32) {
    let ok = Command::new("kill").args(["-INT", &pid.to_string()]).status().map(|s| s.success()).unwrap_or(false);
    assert!(ok, "could not send SIGINT to {pid}");
}

/// Run `setup`, then `long` (which must still be running 300 ms after READY), SIGINT it.
fn interrupt_case(name: &str, setup: &str, long: &str) {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(bin) = beluga_bin() else {
        eprintln!("SKIPPED {name}: the beluga binary is not built beside the tests");
        return;
    };
    let script = format!("{setup}\nprint(\"READY\")\n{long}\nprint(\"AFTER\")\n");
    let mut child = Command::new(&bin)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start beluga");
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let pid = child.id();
    // stdout lines arrive through a channel so the wait for READY can time out
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(|l| l.ok()) {
            let _ = tx.send(line);
        }
    });
    let mut err = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut seen = Vec::new();
    let ready = loop {
        match rx.recv_timeout(Duration::from_secs(300)) {
            Ok(l) if l.trim() == "READY" => break true,
            Ok(l) => seen.push(l),
            Err(_) => break false,
        }
    };
    if !ready {
        let _ = child.kill();
        let e = err_reader.join().unwrap_or_default();
        panic!("{name}: the setup did not finish; stdout {seen:?}, stderr {e}");
    }
    std::thread::sleep(Duration::from_millis(300));
    if let Ok(Some(st)) = child.try_wait() {
        let e = err_reader.join().unwrap_or_default();
        panic!("{name}: the long statement ended before the interrupt ({st}); stderr {e}");
    }
    let sent = Instant::now();
    sigint(pid);
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if sent.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{name}: still running 60 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    let limit = deadline();
    let _ = reader.join();
    let rest: Vec<String> = rx.try_iter().collect();
    let stderr = err_reader.join().unwrap_or_default();
    assert!(stderr.contains("Execution was interrupted"), "{name}: stderr {stderr:?}, status {status}");
    assert!(!status.success() && status.code().is_some(), "{name}: status {status}");
    assert!(!rest.iter().any(|l| l.contains("AFTER")), "{name}: the run went on after the interrupt: {rest:?}");
    assert!(took <= limit, "{name}: took {took:?} to stop after SIGINT (limit {limit:?})");
}

#[test]
fn interrupt_sort() {
    // a two-key order by (the comparator path) over 20M rows, and the sort builtin
    interrupt_case(
        "order by",
        "n = 20000000; t = table(rand(1000, n) as a, rand(1.0, n) as b)",
        "r = select * from t order by a, b desc",
    );
}

#[test]
fn interrupt_sort_builtin() {
    interrupt_case("sort", "x = rand(1.0, 40000000)", "y = sort(x)");
}

#[test]
fn interrupt_join() {
    interrupt_case(
        "equi join",
        "n = 10000000; t1 = table(rand(2000000, n) as id, rand(1.0, n) as v); t2 = table(rand(2000000, n) as id, rand(1.0, n) as w)",
        "r = select * from ej(t1, t2, `id)",
    );
}

#[test]
fn interrupt_group_by() {
    interrupt_case(
        "group by",
        "n = 30000000; t = table(rand(1000000000000, n) as k, rand(1.0, n) as v)",
        "r = select sum(v) as s from t group by k",
    );
}

#[test]
fn interrupt_range_sum() {
    interrupt_case("range sum", "x = 1", "s = sum(1..2000000000)");
}

#[test]
fn interrupt_elementwise() {
    let e = (0..60).map(|k| format!("x * {k}.5")).collect::<Vec<_>>().join(" + ");
    interrupt_case("element-wise", "x = rand(1.0, 30000000)", &format!("y = {e}"));
}

#[test]
fn interrupt_csv_import() {
    let dir = std::env::temp_dir().join(format!("beluga-interrupt-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.csv");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(w, "id,name,day,price,qty").unwrap();
        let mut x: u64 = 88172645463325252;
        for i in 0..6_000_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // quoted fields take the record-at-a-time parser
            writeln!(w, "{i},\"n{},{}\",2024.{:02}.{:02},{}.{},{}", x % 1000, x % 7, 1 + x % 12, 1 + x % 28, x % 10000, x % 100, x % 500).unwrap();
        }
    }
    let p = path.display().to_string().replace('\\', "/");
    interrupt_case("csv import", "x = 1", &format!("t = loadText(\"{p}\")"));
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------ the REPL goes on

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("run tmux");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn wait_for(session: &str, needle: &str, times: usize, limit: Duration) -> Option<String> {
    let start = Instant::now();
    loop {
        let s = tmux(&["capture-pane", "-p", "-S", "-200", "-t", session]);
        if s.matches(needle).count() >= times {
            return Some(s);
        }
        if start.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn interrupt_repl_sort_then_go_on() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("SKIPPED: tmux is not installed");
        return;
    }
    let Some(bin) = beluga_bin() else { return };
    let home = std::env::temp_dir().join(format!("beluga-repl-intr-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&home);
    let session = format!("beluga_intr_{}", std::process::id());
    let cmd = format!("HOME={} {}", home.display(), bin.display());
    tmux(&["new-session", "-d", "-s", &session, "-x", "120", "-y", "40", &cmd]);
    let minute = Duration::from_secs(120);
    let run = || -> Result<(), String> {
        wait_for(&session, "Ctrl-D exits", 1, minute).ok_or("no banner")?;
        tmux(&["send-keys", "-t", &session, "x = rand(1.0, 40000000); print(`READY)", "Enter"]);
        wait_for(&session, "\nREADY", 1, minute).ok_or("setup did not finish")?;
        std::thread::sleep(Duration::from_millis(200));
        tmux(&["send-keys", "-t", &session, "y = sort(x); print(`DONE)", "Enter"]);
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        tmux(&["send-keys", "-t", &session, "C-c"]);
        let s = wait_for(&session, "Execution was interrupted", 1, Duration::from_secs(30)).ok_or("no interrupt message")?;
        let took = sent.elapsed();
        if s.contains("\nDONE") {
            return Err("the sort finished before the interrupt".into());
        }
        if took > deadline() + Duration::from_millis(500) {
            return Err(format!("took {took:?} to report the interrupt"));
        }
        // the session is usable: the data is still there and a new statement runs
        std::thread::sleep(Duration::from_millis(200));
        tmux(&["send-keys", "-t", &session, "size(x) + 2", "Enter"]);
        wait_for(&session, "40000002", 1, minute).ok_or("the next statement did not run")?;
        Ok(())
    };
    let r = run();
    let screen = tmux(&["capture-pane", "-p", "-S", "-200", "-t", &session]);
    tmux(&["kill-session", "-t", &session]);
    let _ = std::fs::remove_dir_all(&home);
    if let Err(e) = r {
        panic!("{e}; screen:\n{screen}");
    }
}
