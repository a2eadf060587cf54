//! The real DolphinDB Python client (PyPI `dolphindb` 3.0.6.1) against `beluga server`:
//! starts the built `beluga` binary on a free loopback port and runs
//! tests/api/ddb_client_test.py, which prints PASS/FAIL per check. Skipped, with a
//! message, when the binary is not built beside the tests or the client is not installed
//! (`.ci/run` installs it; `BELUGA_PYTHON` picks the interpreter).

use std::io::{BufRead, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn beluga_bin() -> Option<PathBuf> {
    // target/<profile>/deps/python_client-xxxx → target/<profile>/beluga
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.join("beluga");
    p.is_file().then_some(p)
}

fn python() -> String {
    std::env::var("BELUGA_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn has_client(py: &str) -> bool {
    Command::new(py)
        .args(["-c", "import dolphindb, pandas, numpy"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind a free port").local_addr().expect("local addr").port()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_server(bin: &PathBuf, port: u16, data: &std::path::Path, extra: &[&str]) -> Server {
    start_server_env(bin, port, data, extra, &[])
}

fn start_server_env(bin: &PathBuf, port: u16, data: &std::path::Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let child = Command::new(bin)
        .envs(env.iter().copied())
        .args(["server", "--port", &port.to_string(), "--bind", "127.0.0.1", "--data"])
        .arg(data)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start beluga server");
    let s = Server(child);
    let t0 = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(t0.elapsed() < Duration::from_secs(20), "beluga server did not listen on port {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    s
}

#[test]
fn real_python_client() {
    let Some(bin) = beluga_bin() else {
        eprintln!("SKIPPED real_python_client: the beluga binary is not built beside the tests (cargo build --release --bin beluga)");
        return;
    };
    let py = python();
    if !has_client(&py) {
        eprintln!("SKIPPED real_python_client: `{py}` cannot import dolphindb (pip install dolphindb==3.0.6.1)");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let script = root.join("tests/api/ddb_client_test.py");
    let data = std::env::temp_dir().join(format!("beluga-api-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let port = free_port();
    let mut server = start_server(&bin, port, &data, &[]);
    // a second server with small limits, for the refusal checks (request size, session
    // memory, connection count, idle timeout)
    let limits_port = free_port();
    let limits_data = data.join("limits");
    let mut limits = start_server(
        &bin,
        limits_port,
        &limits_data,
        &["--max-request-mb", "1", "--session-memory-mb", "4", "--max-connections", "4", "--idle-timeout", "4"],
    );

    // a third with every pickle compaction on (what a client on another host gets)
    let compact_port = free_port();
    let mut compact = start_server_env(
        &bin,
        compact_port,
        &data.join("compact"),
        &[],
        &[("BELUGA_PICKLE_COMPACT", "itdr")],
    );

    let mut child = Command::new(&py)
        .arg(&script)
        .arg(port.to_string())
        .arg(limits_port.to_string())
        .arg(compact_port.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the Python client script");
    let mut out = String::new();
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            lines.push(l);
        }
        lines
    });
    // bounded: the script's own checks are bounded; this guards against a hang
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for the client") {
            break Some(s);
        }
        if t0.elapsed() > Duration::from_secs(600) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let lines = reader.join().unwrap_or_default();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    for l in &lines {
        out.push_str(l);
        out.push('\n');
    }
    println!("{out}");
    let failed: Vec<&String> = lines.iter().filter(|l| l.starts_with("FAIL")).collect();
    let passed = lines.iter().filter(|l| l.starts_with("PASS")).count();
    // the server is still alive after everything the script threw at it
    let alive = server.0.try_wait().map(|s| s.is_none()).unwrap_or(false)
        && limits.0.try_wait().map(|s| s.is_none()).unwrap_or(false)
        && compact.0.try_wait().map(|s| s.is_none()).unwrap_or(false);
    let _ = std::fs::remove_dir_all(&data);
    assert!(alive, "the server exited during the client test");
    assert!(status.is_some(), "the client script did not finish in 10 minutes\n{out}");
    assert!(failed.is_empty(), "{} checks failed:\n{}\nstderr:\n{}", failed.len(), failed.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"), err);
    assert!(passed >= 80, "only {passed} checks passed\n{out}\nstderr:\n{err}");
    assert!(status.map(|s| s.success()).unwrap_or(false), "client script failed\n{out}\nstderr:\n{err}");
}
