//! The real DolphinDB JavaScript client (npm `dolphindb` 3.1.x) against `beluga server`
//! over WebSocket: runs tests/api/ddb_js_client_test.mjs from `$BELUGA_JS_CLIENT_DIR`
//! (a folder whose node_modules holds dolphindb; `.ci/run` installs one). Skipped, with a
//! message, when node, that folder or the built binary is missing.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn beluga_bin() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.join("beluga");
    p.is_file().then_some(p)
}

#[test]
fn real_js_client_over_websocket() {
    let Some(bin) = beluga_bin() else {
        eprintln!("SKIPPED real_js_client_over_websocket: the beluga binary is not built beside the tests");
        return;
    };
    let Some(dir) = std::env::var_os("BELUGA_JS_CLIENT_DIR").map(PathBuf::from) else {
        eprintln!("SKIPPED real_js_client_over_websocket: BELUGA_JS_CLIENT_DIR is not set (npm install --prefix DIR dolphindb@3.1.48)");
        return;
    };
    if !dir.join("node_modules/dolphindb").is_dir() || Command::new("node").arg("--version").output().is_err() {
        eprintln!("SKIPPED real_js_client_over_websocket: node or {}/node_modules/dolphindb is missing", dir.display());
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/api/ddb_js_client_test.mjs");
    // the client is resolved from the script's folder: run a copy inside DIR
    let copy = dir.join(format!("beluga_js_test_{}.mjs", std::process::id()));
    std::fs::copy(&script, &copy).expect("copy the JS test script");
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = Command::new(&bin)
        .args(["server", "--port", &port.to_string(), "--bind", "127.0.0.1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start beluga server");
    let t0 = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = Command::new("node").arg(&copy).arg(port.to_string()).current_dir(&dir).output();
    let _ = std::fs::remove_file(&copy);
    let _ = server.kill();
    let _ = server.wait();
    let out = out.expect("run node");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert!(!text.contains("FAIL"), "JS client checks failed:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.lines().filter(|l| l.starts_with("PASS")).count() >= 9, "{text}");
    assert!(out.status.success(), "{text}");
}
