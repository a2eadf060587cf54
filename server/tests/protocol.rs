//! The wire protocol from raw sockets (no client library): connect with and without a
//! login, script/function/variable requests, MSG print frames, the async flag, errors,
//! malformed and truncated frames, connection and request-size limits, the idle timeout,
//! guest restrictions and the WebSocket transport. Each test runs its own server on a
//! free loopback port.

use beluga_server::{start, Config, Server};
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::time::Duration;

fn server(f: impl FnOnce(&mut Config)) -> Server {
    let mut c = Config { port: 0, bind: IpAddr::V4(Ipv4Addr::LOCALHOST), ..Config::default() };
    f(&mut c);
    start(c).expect("start server")
}

fn conn(s: &Server) -> TcpStream {
    let c = TcpStream::connect(s.addr).expect("connect");
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    c
}

/// Read one response up to its status line: (header line, status line); a print frame
/// gives ("MSG", its text).
fn read_frame(c: &mut TcpStream) -> (String, String) {
    let line = |c: &mut TcpStream| {
        let mut v = Vec::new();
        let mut b = [0u8; 1];
        loop {
            match c.read(&mut b) {
                Ok(1) if b[0] == b'\n' => break,
                Ok(1) => v.push(b[0]),
                _ => break,
            }
        }
        String::from_utf8_lossy(&v).into_owned()
    };
    let h = line(c);
    if h == "MSG" {
        // a print frame: the text up to NUL
        let mut v = Vec::new();
        let mut b = [0u8; 1];
        while c.read(&mut b).unwrap_or(0) == 1 && b[0] != 0 {
            v.push(b[0]);
        }
        return (h, String::from_utf8_lossy(&v).into_owned());
    }
    let st = line(c);
    (h, st)
}

fn request(kind: &str, flags: u32, body: &str) -> Vec<u8> {
    format!("{kind} 0 {} / {flags}_1_4_64__0\n{body}", body.len()).into_bytes()
}

fn connect_login(c: &mut TcpStream) {
    let body = "connect\nlogin\nadmin\n123456\nfalse";
    c.write_all(format!("API 0 {} / 32_1_4_2\n{body}", body.len()).as_bytes()).unwrap();
    let (h, st) = read_frame(c);
    assert!(h.ends_with(" 1 1"), "{h}");
    assert_eq!(st, "OK");
    let mut b = [0u8; 3];
    c.read_exact(&mut b).unwrap();
    assert_eq!(b, [1, 0, 1], "BOOL true after a login");
}

fn int_result(c: &mut TcpStream) -> i32 {
    let (h, st) = read_frame(c);
    assert!(h.ends_with(" 1 1"), "header {h} status {st}");
    assert_eq!(st, "OK");
    let mut b = [0u8; 6];
    c.read_exact(&mut b).unwrap();
    assert_eq!(&b[..2], &[4, 0], "INT scalar");
    i32::from_le_bytes([b[2], b[3], b[4], b[5]])
}

#[test]
fn script_function_variable_and_prints() {
    let s = server(|_| {});
    let mut c = conn(&s);
    connect_login(&mut c);
    c.write_all(&request("API2", 32, "script\nprint(\"hello\")\n1+41")).unwrap();
    assert_eq!(read_frame(&mut c), ("MSG".to_string(), "hello".to_string()));
    assert_eq!(int_result(&mut c), 42);
    // function with two INT arguments
    let mut req = request("API2", 32, "function\nadd{100}\n1\n1");
    req.extend_from_slice(&[4, 0]);
    req.extend_from_slice(&7i32.to_le_bytes());
    c.write_all(&req).unwrap();
    assert_eq!(int_result(&mut c), 107);
    // variable upload of an INT vector, then use it
    let mut req = request("API2", 32, "variable\nv\n1\n1");
    req.extend_from_slice(&[4, 1]);
    req.extend_from_slice(&3i32.to_le_bytes());
    req.extend_from_slice(&1i32.to_le_bytes());
    for x in [5i32, 6, 7] {
        req.extend_from_slice(&x.to_le_bytes());
    }
    c.write_all(&req).unwrap();
    let (h, st) = read_frame(&mut c);
    assert!(h.ends_with(" 0 1") && st == "OK", "{h} {st}");
    c.write_all(&request("API2", 32, "script\nint(sum(v))")).unwrap();
    assert_eq!(int_result(&mut c), 18);
    // an error is one line in the status position
    c.write_all(&request("API2", 32, "script\nnoSuchFunction(1)")).unwrap();
    let (h, st) = read_frame(&mut c);
    assert!(h.ends_with(" 0 1"), "{h}");
    assert!(st.contains("noSuchFunction"), "{st}");
    // the old API kind gets no MSG frames
    c.write_all(&request("API", 32, "script\nprint(\"quiet\")\n5")).unwrap();
    assert_eq!(int_result(&mut c), 5);
    // async: no reply at all; the next request's reply comes first
    c.write_all(&request("API2", 36, "script\nasyncVar = 9")).unwrap();
    c.write_all(&request("API2", 32, "script\nasyncVar + 1")).unwrap();
    assert_eq!(int_result(&mut c), 10);
    // clear memory (16) drops variables after the job
    c.write_all(&request("API2", 48, "script\nasyncVar")).unwrap();
    assert_eq!(int_result(&mut c), 9);
    c.write_all(&request("API2", 32, "script\nasyncVar")).unwrap();
    let (_, st) = read_frame(&mut c);
    assert_ne!(st, "OK");
    // a chunked result (fetchSize): a scalar is one piece of an ANY vector
    c.write_all(b"API2 0 10 / 32_1_4_64__8192\nscript\n1+1").unwrap();
    let (h, st) = read_frame(&mut c);
    assert!(h.ends_with(" 1 1") && st == "OK", "{h} {st}");
    let mut b = [0u8; 16];
    c.read_exact(&mut b).unwrap();
    assert_eq!(b, [25, 1, 1, 0, 0, 0, 1, 0, 0, 0, 4, 0, 2, 0, 0, 0]);
    // below the clients' minimum it is refused with an error, not a wrong frame
    c.write_all(b"API2 0 10 / 32_1_4_64__100\nscript\n1+1").unwrap();
    let (_, st) = read_frame(&mut c);
    assert!(st.contains("fetchSize"), "{st}");
    s.stop();
}

#[test]
fn guests_and_logins() {
    let s = server(|_| {});
    let mut c = conn(&s);
    c.write_all(b"API 0 8 / 32_1_4_2\nconnect\n").unwrap();
    let (h, st) = read_frame(&mut c);
    assert!(h.ends_with(" 0 1") && st == "OK", "{h} {st}");
    c.write_all(&request("API2", 32, "script\nint(2*3)")).unwrap();
    assert_eq!(int_result(&mut c), 6);
    for script in ["files(\"/\")", "loadText(\"/etc/hostname\")", "#include \"/etc/hostname\"", "run(\"/tmp/x.dos\")"] {
        c.write_all(&request("API2", 32, &format!("script\n{script}"))).unwrap();
        let (_, st) = read_frame(&mut c);
        assert!(st.contains("log in") || st.contains("Not logged in"), "{script}: {st}");
    }
    // a wrong password is refused; the right one opens the files
    let mut bad = conn(&s);
    let body = "connect\nlogin\nadmin\nwrong\nfalse";
    bad.write_all(format!("API 0 {} / 32_1_4_2\n{body}", body.len()).as_bytes()).unwrap();
    let (_, st) = read_frame(&mut bad);
    assert!(st.contains("incorrect"), "{st}");
    c.write_all(&request("API2", 32, "script\nlogin(\"admin\", \"123456\")\nint(size(files(\".\")) >= 0)")).unwrap();
    assert_eq!(int_result(&mut c), 1);
    // logged in, but still confined to the data folder
    c.write_all(&request("API2", 32, "script\nfiles(\"/\")")).unwrap();
    let (_, st) = read_frame(&mut c);
    assert!(st.contains("outside this session's data folder"), "{st}");
    s.stop();

    // not on loopback and no users file: no built-in admin (bound to 127.0.0.1 here all the
    // same, the check is on the configured users)
    let dir = std::env::temp_dir().join(format!("beluga-users-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let users = dir.join("users");
    std::fs::write(&users, format!("alice:{}\n", beluga_server::auth::sha256_hex("s3cret"))).unwrap();
    let s = server(|c| c.users = Some(users.clone()));
    let mut c = conn(&s);
    let body = "connect\nlogin\nalice\ns3cret\nfalse";
    c.write_all(format!("API 0 {} / 32_1_4_2\n{body}", body.len()).as_bytes()).unwrap();
    let (h, _) = read_frame(&mut c);
    assert!(h.ends_with(" 1 1"), "{h}");
    s.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The built-in admin/123456 account exists only on a loopback server: bound to every
/// interface (0.0.0.0) without a users file, nobody can log in, neither at connect nor
/// with `login(...)` later, even from 127.0.0.1; with a users file its users can.
#[test]
fn default_admin_only_on_loopback() {
    let s = server(|c| c.bind = IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    let addr = std::net::SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), s.addr.port());
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let body = "connect\nlogin\nadmin\n123456\nfalse";
    c.write_all(format!("API 0 {} / 32_1_4_2\n{body}", body.len()).as_bytes()).unwrap();
    let (_, st) = read_frame(&mut c);
    assert!(st.contains("incorrect"), "admin/123456 on a non-loopback server: {st}");
    let mut g = TcpStream::connect(addr).unwrap();
    g.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    g.write_all(b"API 0 8 / 32_1_4_2\nconnect\n").unwrap();
    let (h, st) = read_frame(&mut g);
    assert!(h.ends_with(" 0 1") && st == "OK", "{h} {st}");
    g.write_all(&request("API2", 32, "script\nlogin(\"admin\", \"123456\")")).unwrap();
    let (_, st) = read_frame(&mut g);
    assert!(st.contains("incorrect"), "login() on a non-loopback server: {st}");
    g.write_all(&request("API2", 32, "script\nloadText(\"x.csv\")")).unwrap();
    let (_, st) = read_frame(&mut g);
    assert!(st.contains("log in") || st.contains("Not logged in"), "still a guest: {st}");
    s.stop();
}

/// A logged-in session reads and writes inside `--data` only (and so do its jobs); a user
/// named with `--trust-user` is unconfined; a guest touches nothing.
#[test]
fn logged_in_sessions_are_confined_unless_trusted() {
    let dir = std::env::temp_dir().join(format!("beluga-confined-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let outside = std::env::temp_dir().join(format!("beluga-outside-{}.csv", std::process::id()));
    std::fs::write(&outside, "a\n5\n6\n").unwrap();
    let out = outside.to_string_lossy().to_string();
    let s = server(|c| c.data = Some(dir.clone()));
    let mut c = conn(&s);
    connect_login(&mut c);
    // a relative path lands inside the data folder and reads back
    c.write_all(&request("API2", 32, "script\nsaveText(table(1 2 40 as a), \"inside.csv\")\nint(exec sum(a) from loadText(\"inside.csv\"))")).unwrap();
    assert_eq!(int_result(&mut c), 43);
    assert!(dir.join("inside.csv").is_file(), "the file was written inside --data");
    for script in [format!("loadText(\"{out}\")"), "saveText(table(1 as a), \"../escape.csv\")".to_string(), "getEnv(\"HOME\")".to_string()] {
        c.write_all(&request("API2", 32, &format!("script\n{script}"))).unwrap();
        let (_, st) = read_frame(&mut c);
        assert!(st.contains("Permission denied"), "{script}: {st}");
    }
    // a job runs under its submitter's policy
    c.write_all(&request("API2", 32, &format!("script\nsubmitJob(\"confJob\", \"\", loadText, \"{out}\")\ngetJobReturn(\"confJob\", true)"))).unwrap();
    let (_, st) = read_frame(&mut c);
    assert!(st.contains("Permission denied"), "job: {st}");
    // a guest may not even read inside the data folder
    let mut g = conn(&s);
    g.write_all(b"API 0 8 / 32_1_4_2\nconnect\n").unwrap();
    read_frame(&mut g);
    g.write_all(&request("API2", 32, "script\nloadText(\"inside.csv\")")).unwrap();
    let (_, st) = read_frame(&mut g);
    assert!(st.contains("log in") || st.contains("Not logged in"), "guest: {st}");
    s.stop();

    // --trust-user admin: admin's sessions read anywhere the process can
    let s = server(|c| {
        c.data = Some(dir.clone());
        c.trusted_users = vec!["admin".into()];
    });
    let mut c = conn(&s);
    connect_login(&mut c);
    c.write_all(&request("API2", 32, &format!("script\nint(exec sum(a) from loadText(\"{out}\"))"))).unwrap();
    assert_eq!(int_result(&mut c), 11);
    s.stop();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&outside);
}

#[test]
fn malformed_frames_close_only_their_connection() {
    let s = server(|c| c.max_request_bytes = 1 << 20);
    let mut good = conn(&s);
    connect_login(&mut good);
    let cases: Vec<Vec<u8>> = vec![
        b"HELLO\n".to_vec(),
        b"API2 0 notanumber / 32\n".to_vec(),
        b"API2 0 999999999 / 32\n".to_vec(),
        b"API2 0 20 / 32\nscript\n1".to_vec(),
        b"API2 0 12 / 32\nfunction\nf\n".to_vec(),
        [b"API2 0 16 / 32\nfunction\nadd\n1\n1".to_vec(), vec![99, 1, 0, 0]].concat(),
        [b"API2 0 16 / 32\nfunction\nadd\n1\n1".to_vec(), vec![5, 1, 255, 255, 255, 127, 1, 0, 0, 0]].concat(),
        [b"API2 0 16 / 32\nfunction\nadd\n1\n1".to_vec(), vec![145, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, b'x', 0, 0, 0, 0, 0]].concat(),
        vec![0xff; 100],
        vec![],
    ];
    for (k, bytes) in cases.iter().enumerate() {
        let mut c = conn(&s);
        c.write_all(bytes).unwrap();
        let _ = c.shutdown(std::net::Shutdown::Write);
        let mut sink = Vec::new();
        // the server closes the connection (read ends) instead of hanging or crashing
        let r = c.read_to_end(&mut sink);
        assert!(r.is_ok() || sink.is_empty(), "case {k}");
        assert!(!String::from_utf8_lossy(&sink).contains("OK"), "case {k} got OK: {:?}", String::from_utf8_lossy(&sink));
    }
    // random prefixes of a valid function request
    let mut valid = request("API2", 32, "function\nadd\n2\n1");
    for x in [3i32, 4] {
        valid.extend_from_slice(&[4, 0]);
        valid.extend_from_slice(&x.to_le_bytes());
    }
    for cut in 0..valid.len() {
        let mut c = conn(&s);
        connect_login(&mut c);
        c.write_all(&valid[..cut]).unwrap();
        let _ = c.shutdown(std::net::Shutdown::Write);
        let mut sink = Vec::new();
        let _ = c.read_to_end(&mut sink);
    }
    good.write_all(&request("API2", 32, "script\n40+2")).unwrap();
    assert_eq!(int_result(&mut good), 42, "the server still serves the first connection");
    s.stop();
}

#[test]
fn connection_limit_and_idle_timeout() {
    let s = server(|c| {
        c.max_connections = 2;
        c.idle_timeout = Duration::from_millis(700);
    });
    let mut a = conn(&s);
    let mut b = conn(&s);
    connect_login(&mut a);
    connect_login(&mut b);
    let mut third = conn(&s);
    let mut text = String::new();
    let _ = third.read_to_string(&mut text);
    assert!(text.contains("maximum number of connections"), "{text}");
    // idle sessions are closed, which frees their slots
    std::thread::sleep(Duration::from_millis(1500));
    let mut sink = Vec::new();
    assert_eq!(a.read_to_end(&mut sink).unwrap_or(0), 0, "idle connection closed");
    let t0 = std::time::Instant::now();
    while s.connections() > 0 && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut c = conn(&s);
    connect_login(&mut c);
    c.write_all(&request("API2", 32, "script\n1+1")).unwrap();
    assert_eq!(int_result(&mut c), 2);
    drop(b);
    s.stop();
}

#[test]
fn abandoned_request_is_cancelled() {
    let s = server(|_| {});
    let mut c = conn(&s);
    connect_login(&mut c);
    // an endless loop; the client goes away
    c.write_all(&request("API2", 32, "script\nx = 0\ndo { x += 1 } while (true)")).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.connections(), 1);
    drop(c);
    let t0 = std::time::Instant::now();
    while s.connections() > 0 && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(s.connections(), 0, "the session ended after its client left");
    s.stop();
}

#[test]
fn shared_table_concurrent_appends() {
    let s = server(|_| {});
    let mut c = conn(&s);
    connect_login(&mut c);
    c.write_all(&request("API2", 32, "script\nshare table(100000:0, `k`v, [INT, INT]) as st\n1")).unwrap();
    assert_eq!(int_result(&mut c), 1);
    let addr = s.addr;
    let threads: Vec<_> = (0..8)
        .map(|k| {
            std::thread::spawn(move || {
                let mut c = TcpStream::connect(addr).unwrap();
                c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
                connect_login(&mut c);
                for r in 0..25 {
                    c.write_all(&request("API2", 32, &format!("script\ntableInsert(st, take({k}, 4), take({r}, 4))"))).unwrap();
                    assert_eq!(int_result(&mut c), 4);
                    c.write_all(&request("API2", 32, "script\nappend!(st, table(int(-1) as k, int(-1) as v))\nint(1)")).unwrap();
                    assert_eq!(int_result(&mut c), 1);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    c.write_all(&request("API2", 32, "script\nint(exec count(*) from st)")).unwrap();
    assert_eq!(int_result(&mut c), 8 * 25 * 5, "no append was lost");
    s.stop();
}

#[test]
fn websocket_transport() {
    let s = server(|_| {});
    let mut c = conn(&s);
    c.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        c.read_exact(&mut b).unwrap();
        head.push(b[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    assert!(head.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "{head}");
    let send = |c: &mut TcpStream, payload: &[u8]| {
        let mask = [1u8, 2, 3, 4];
        let mut f = vec![0x82u8];
        if payload.len() < 126 {
            f.push(0x80 | payload.len() as u8);
        } else {
            f.push(0x80 | 126);
            f.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        }
        f.extend_from_slice(&mask);
        f.extend(payload.iter().enumerate().map(|(i, x)| x ^ mask[i % 4]));
        c.write_all(&f).unwrap();
    };
    let recv = |c: &mut TcpStream| -> Vec<u8> {
        let mut h = [0u8; 2];
        c.read_exact(&mut h).unwrap();
        assert_eq!(h[0], 0x82, "binary message");
        let mut n = (h[1] & 0x7f) as usize;
        if n == 126 {
            let mut e = [0u8; 2];
            c.read_exact(&mut e).unwrap();
            n = u16::from_be_bytes(e) as usize;
        }
        let mut p = vec![0u8; n];
        c.read_exact(&mut p).unwrap();
        p
    };
    send(&mut c, &request("API2", 0, "connect\nlogin\nadmin\n123456"));
    let r = recv(&mut c);
    assert!(String::from_utf8_lossy(&r).contains("\nOK\n"), "{:?}", String::from_utf8_lossy(&r));
    send(&mut c, &request("API2", 0, "script\nprint(\"ws\")\n20+22"));
    assert_eq!(recv(&mut c), b"MSG\nws\0");
    let r = recv(&mut c);
    assert!(r.ends_with(&[4, 0, 42, 0, 0, 0]), "{r:?}");
    // a refused request is answered with one error message; the socket stays usable
    let mut up = request("API2", 0, "variable\ndm\n1\n1");
    up.extend_from_slice(&[29, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
    send(&mut c, &up);
    let r = String::from_utf8_lossy(&recv(&mut c)).into_owned();
    assert!(r.contains(" 0 1\n") && r.contains("DATEMINUTE"), "{r:?}");
    send(&mut c, &request("API2", 0, "script\n20+22"));
    let r = recv(&mut c);
    assert!(r.ends_with(&[4, 0, 42, 0, 0, 0]), "{r:?}");
    // the same port keeps serving plain TCP sessions beside the WebSocket one, and both
    // see the same shared objects
    send(&mut c, &request("API2", 0, "script\nshare table(1 2 3 as a) as wsShared\nint(1)"));
    let r = recv(&mut c);
    assert!(r.ends_with(&[4, 0, 1, 0, 0, 0]), "{r:?}");
    let mut t = conn(&s);
    connect_login(&mut t);
    t.write_all(&request("API2", 32, "script\nint(exec sum(a) from wsShared)")).unwrap();
    assert_eq!(int_result(&mut t), 6);
    send(&mut c, &request("API2", 0, "script\n20+22"));
    let r = recv(&mut c);
    assert!(r.ends_with(&[4, 0, 42, 0, 0, 0]), "{r:?}");
    s.stop();
}

/// Read a response whose object is a STRING scalar.
fn string_result(c: &mut TcpStream) -> String {
    let (h, st) = read_frame(c);
    assert!(h.ends_with(" 1 1"), "header {h} status {st}");
    let mut b = [0u8; 2];
    c.read_exact(&mut b).unwrap();
    assert_eq!(b, [18, 0], "STRING scalar");
    let mut v = Vec::new();
    let mut x = [0u8; 1];
    while c.read(&mut x).unwrap_or(0) == 1 && x[0] != 0 {
        v.push(x[0]);
    }
    String::from_utf8_lossy(&v).into_owned()
}

#[test]
fn jobs_outlive_their_session_and_can_be_cancelled() {
    let s = server(|_| {});
    let mut c = conn(&s);
    connect_login(&mut c);
    c.write_all(&request("API2", 32, "script\ndef slowSum(n) { s = 0; for (i in 1..n) { s += i }; return int(s) }\nsubmitJob(\"protoJob\", \"a sum\", slowSum, 20000)")).unwrap();
    assert_eq!(string_result(&mut c), "protoJob");
    // a repeated id gets a suffix
    c.write_all(&request("API2", 32, "script\nsubmitJob(\"protoJob\", \"again\", slowSum, 10)")).unwrap();
    assert_eq!(string_result(&mut c), "protoJob1");
    // the submitting session goes away; the job still finishes and another session reads it
    drop(c);
    let mut d = conn(&s);
    connect_login(&mut d);
    d.write_all(&request("API2", 32, "script\ngetJobReturn(\"protoJob\", true)")).unwrap();
    assert_eq!(int_result(&mut d), 200010000);
    // an endless job is cancelled; its return is then an error naming the interruption
    d.write_all(&request("API2", 32, "script\ndef forever() { x = 0; do { x += 1 } while (true); return x }\nsubmitJob(\"endless\", \"\", forever)")).unwrap();
    assert_eq!(string_result(&mut d), "endless");
    std::thread::sleep(Duration::from_millis(200));
    d.write_all(&request("API2", 32, "script\ncancelJob(\"endless\")\nint(1)")).unwrap();
    assert_eq!(int_result(&mut d), 1);
    d.write_all(&request("API2", 32, "script\ngetJobReturn(\"endless\", true)")).unwrap();
    let (_, st) = read_frame(&mut d);
    assert!(st.contains("endless") && st.to_lowercase().contains("interrupt"), "{st}");
    d.write_all(&request("API2", 32, "script\nint(exec count(*) from getRecentJobs() where jobId in [\"protoJob\", \"protoJob1\", \"endless\"])")).unwrap();
    assert_eq!(int_result(&mut d), 3);
    d.write_all(&request("API2", 32, "script\nint(size(exec errorMsg from getJobStatus(\"protoJob\") where errorMsg == \"\"))")).unwrap();
    assert_eq!(int_result(&mut d), 1);
    // a guest may not submit jobs
    let mut g = conn(&s);
    g.write_all(b"API 0 8 / 32_1_4_2\nconnect\n").unwrap();
    let _ = read_frame(&mut g);
    g.write_all(&request("API2", 32, "script\nsubmitJob(\"g\", \"\", add, 1, 2)")).unwrap();
    let (_, st) = read_frame(&mut g);
    assert!(st.contains("log in"), "{st}");
    s.stop();
}

/// A request whose framing is intact but which the server cannot accept (over the size
/// limit, a type Beluga has no column for, inconsistent contents) is read to its end and
/// answered with an error in the protocol's form; the same connection then keeps working.
#[test]
fn refused_requests_keep_the_connection() {
    let s = server(|c| c.max_request_bytes = 1 << 20);
    let mut c = conn(&s);
    connect_login(&mut c);
    let with = |body: &str, objs: &[u8]| [request("API2", 32, body), objs.to_vec()].concat();
    let long_vec = |n: usize| {
        let mut v = vec![5u8, 1];
        v.extend_from_slice(&(n as i32).to_le_bytes());
        v.extend_from_slice(&1i32.to_le_bytes());
        for k in 0..n as i64 {
            v.extend_from_slice(&k.to_le_bytes());
        }
        v
    };
    let string_vec = |n: usize, each: usize| {
        let mut v = vec![18u8, 1];
        v.extend_from_slice(&(n as i32).to_le_bytes());
        v.extend_from_slice(&1i32.to_le_bytes());
        for _ in 0..n {
            v.extend(std::iter::repeat_n(b'a', each));
            v.push(0);
        }
        v
    };
    let mut table_bad_len = vec![0u8, 6];
    table_bad_len.extend_from_slice(&2i32.to_le_bytes());
    table_bad_len.extend_from_slice(&1i32.to_le_bytes());
    table_bad_len.extend_from_slice(b"\0a\0");
    table_bad_len.extend_from_slice(&[4, 1, 3, 0, 0, 0, 1, 0, 0, 0]);
    table_bad_len.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
    let mut lz4_dod = vec![26u8, 1];
    lz4_dod.extend_from_slice(&28i32.to_le_bytes());
    lz4_dod.extend_from_slice(&1i32.to_le_bytes());
    lz4_dod.extend_from_slice(&[0, 1, 0xff, 2, 5, 8, 0, 0]);
    lz4_dod.extend_from_slice(&0i32.to_le_bytes());
    lz4_dod.extend_from_slice(&1i32.to_le_bytes());
    lz4_dod.extend_from_slice(&(-1i32).to_le_bytes());
    lz4_dod.extend_from_slice(&[9; 8]);
    let mut str_array = vec![64u8 + 18, 1];
    str_array.extend_from_slice(&1i32.to_le_bytes());
    str_array.extend_from_slice(&2i32.to_le_bytes());
    str_array.extend_from_slice(&[1, 0, 1, 0, 2]);
    str_array.extend_from_slice(b"ab\0c\0");
    let mut dec_scale = vec![38u8, 1];
    dec_scale.extend_from_slice(&2i32.to_le_bytes());
    dec_scale.extend_from_slice(&1i32.to_le_bytes());
    dec_scale.extend_from_slice(&40i32.to_le_bytes());
    dec_scale.extend_from_slice(&[7; 16]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        // an upload over the limit, a vector of 200,000 LONG (1.6 MB)
        ("upload over the size limit", with("variable\nbig\n1\n1", &long_vec(200_000)), "maximum request size"),
        // over the limit inside a string column
        ("strings over the size limit", with("variable\nbigs\n1\n1", &string_vec(3, 500_000)), "maximum request size"),
        // a function call whose argument is over the limit, followed by a second argument
        ("function argument over the limit", with("function\nadd\n2\n1", &[long_vec(200_000), vec![4, 0, 1, 0, 0, 0]].concat()), "maximum request size"),
        // a script whose text alone is over the limit
        ("script over the limit", request("API2", 32, &format!("script\n{}1", " ".repeat(1_100_000))), "maximum request size"),
        ("function body over the limit", with(&format!("function\n{}add\n2\n1", " ".repeat(1_100_000)), &[4, 0, 1, 0, 0, 0, 4, 0, 2, 0, 0, 0]), "maximum request size"),
        ("unknown request kind", request("API2", 32, "frobnicate\nx"), "unknown request kind"),
        ("DATEMINUTE vector", with("variable\ndm\n1\n1", &[29, 1, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]), "DATEMINUTE"),
        ("symbol base repeats a name", with("variable\nsy\n1\n1", &[145, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, b'x', 0, b'x', 0, 2, 0, 0, 0]), "repeats"),
        ("symbol index outside its base", with("variable\nsy\n1\n1", &[145, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, b'x', 0, 9, 0, 0, 0]), "outside"),
        ("DECIMAL scale out of range", with("variable\nd\n1\n1", &dec_scale), "scale 40"),
        ("pair of ANY", with("variable\np\n1\n1", &[25, 2, 2, 0, 0, 0, 1, 0, 0, 0, 4, 0, 1, 0, 0, 0, 4, 0, 2, 0, 0, 0]), "pair"),
        ("table column of the wrong length", with("variable\nt\n1\n1", &table_bad_len), "rows"),
        ("delta-of-delta compressed column", with("variable\nz\n1\n1", &lz4_dod), "compression method 2"),
        ("STRING array vector", with("variable\nsa\n1\n1", &str_array), "STRING"),
        ("names and objects differ", with("variable\na,b\n1\n1", &[4, 0, 1, 0, 0, 0]), "differ"),
        ("dictionary repeats a key", with("variable\ndd\n1\n1", &[4, 5, 4, 1, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 1, 2, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0]), "repeats a key"),
    ];
    for (what, bytes, want) in &cases {
        c.write_all(bytes).unwrap();
        let (h, st) = read_frame(&mut c);
        assert!(h.ends_with(" 0 1"), "{what}: header {h}");
        assert!(st.contains(want), "{what}: expected an error naming '{want}', got '{st}'");
        c.write_all(&request("API2", 32, "script\n40+2")).unwrap();
        assert_eq!(int_result(&mut c), 42, "{what}: the connection still answers");
    }
    // nothing of the refused uploads was bound
    c.write_all(&request("API2", 32, "script\nint(defined([\"big\", \"bigs\", \"dm\", \"sy\", \"t\", \"z\", \"sa\", \"a\"]).sum())")).unwrap();
    assert_eq!(int_result(&mut c), 0);
    // async: a refused request gets no answer either; the next one does
    c.write_all(&[request("API2", 36, "variable\nbig\n1\n1"), long_vec(200_000)].concat()).unwrap();
    c.write_all(&request("API2", 32, "script\n1+1")).unwrap();
    assert_eq!(int_result(&mut c), 2);
    s.stop();
}

/// The per-session memory limit holds for variables a script makes, not only uploads:
/// past the limit the request fails with "Out of memory", the session's variables are
/// cleared, and the connection keeps working (the Python test covers uploads).
#[test]
fn session_memory_limit_on_script_variables() {
    let s = server(|c| c.session_memory_bytes = 4 << 20);
    let mut c = conn(&s);
    connect_login(&mut c);
    c.write_all(&request("API2", 32, "script\nsmall = 1..1000\nint(size(small))")).unwrap();
    assert_eq!(int_result(&mut c), 1000);
    // 1,000,000 LONG = 8 MB
    c.write_all(&request("API2", 32, "script\nbig = long(1..1000000)\n1")).unwrap();
    let (h, st) = read_frame(&mut c);
    assert!(h.ends_with(" 0 1") && st.contains("Out of memory"), "{h} {st}");
    c.write_all(&request("API2", 32, "script\nint(sum(defined([\"small\", \"big\"])))")).unwrap();
    assert_eq!(int_result(&mut c), 0, "the session's variables were cleared");
    // under the limit again: the session goes on
    c.write_all(&request("API2", 32, "script\nv = 1..100000\nint(size(v))")).unwrap();
    assert_eq!(int_result(&mut c), 100000);
    s.stop();
}
