//! One client connection: framing of requests and responses (PROTOCOL.md §1–§4), over
//! plain TCP or a WebSocket on the same port (the first bytes tell which: `GET ` is an
//! HTTP upgrade). Any malformed or truncated frame closes only this connection. While a
//! request runs, a watcher notices a client that went away and interrupts the session.

use crate::session::{self, Job};
use crate::wire::{Decoder, Encoder, WireError};
use crate::State;
use beluga_runtime::eval::Output;
use beluga_runtime::{Interpreter, Value};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Longest header line accepted.
const MAX_HEADER: u64 = 64 << 10;
const FLAG_ASYNC: u32 = 4;
const FLAG_CLEAR_MEMORY: u32 = 16;
/// The client accepts compressed table columns.
const FLAG_COMPRESS: u32 = 64;
/// Smallest `fetchSize` the clients allow (PROTOCOL.md §3.3).
const MIN_FETCH_SIZE: i64 = 8192;
/// The client wants DECIMAL results as DOUBLE (`disableDecimal`).
const FLAG_NO_DECIMAL: u32 = 1 << 23;
/// The client reads a pickle-encoded result (PROTOCOL.md §5.11, `protocol=PROTOCOL_PICKLE`).
const FLAG_PICKLE: u32 = 8;
/// Largest answer buffer a connection keeps for its next answer.
const KEEP_BUFFER: usize = 256 << 20;
/// With FLAG_PICKLE: a table as a list of arrays (`pickleTableToList=True`).
const FLAG_TABLE_TO_LIST: u32 = 1 << 15;

/// Where responses go: whole frames, each one WebSocket message when `ws`.
pub(crate) struct Out {
    w: TcpStream,
    ws: bool,
}

impl Out {
    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        if self.ws {
            let mut h = vec![0x82u8];
            let n = frame.len();
            if n < 126 {
                h.push(n as u8);
            } else if n < 65536 {
                h.push(126);
                h.extend_from_slice(&(n as u16).to_be_bytes());
            } else {
                h.push(127);
                h.extend_from_slice(&(n as u64).to_be_bytes());
            }
            self.w.write_all(&h)?;
        }
        self.w.write_all(frame)?;
        self.w.flush()
    }
}

/// Answer a connection over the limit with an error header, then close it.
pub(crate) fn refuse(mut stream: TcpStream, max: usize) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(2)));
    let msg = format!("0 0 1\nThe server has reached its maximum number of connections ({max})\n");
    let _ = stream.write_all(msg.as_bytes());
}

struct Request {
    api2: bool,
    sid: String,
    flags: u32,
    fetch_size: i64,
    kind: Kind,
}

enum Kind {
    Connect(Option<(String, String)>),
    Job(Job),
    /// A request read to its end but not accepted (over a limit, a type Beluga cannot
    /// hold, inconsistent but framed): answered with this error, the connection stays.
    Refused(String),
}

pub(crate) fn handle(stream: TcpStream, st: Arc<State>) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(st.config.idle_timeout));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(600)));
    let mut first = [0u8; 4];
    let ws = matches!(stream.peek(&mut first), Ok(4) if &first == b"GET ");
    let write_half = match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    };
    let watch_half = stream.try_clone().ok();
    let mut reader: Box<dyn BufRead + Send> = if ws {
        match crate::ws::upgrade(stream, &st) {
            Some(r) => Box::new(BufReader::with_capacity(1 << 16, r)),
            None => return,
        }
    } else {
        Box::new(BufReader::with_capacity(1 << 16, stream))
    };
    let out = Arc::new(Mutex::new(Out { w: write_half, ws }));
    let msg_on = Arc::new(AtomicBool::new(false));
    let sid = format!("{}", 1_000_000_000 + st.next_session.fetch_add(1, Ordering::Relaxed) * 7919 % 1_000_000_000);
    let mut interp = session::new_interpreter(&st);
    let watch = Arc::new(Watch {
        running: Mutex::new(false),
        cv: std::sync::Condvar::new(),
        closed: AtomicBool::new(false),
        gone: AtomicBool::new(false),
        interrupt: interp.interrupt.clone(),
    });
    let watcher = watch_half.as_ref().and_then(|s| s.try_clone().ok()).and_then(|sock| {
        let w = watch.clone();
        std::thread::Builder::new().name("beluga-watch".into()).stack_size(64 << 10).spawn(move || watch_loop(sock, w)).ok()
    });
    let peer = watch_half.as_ref().and_then(|s| s.peer_addr().ok());
    let info = crate::SessionInfo {
        user: "guest".into(),
        ip: peer.map(|p| p.ip().to_string()).unwrap_or_default(),
        port: peer.map(|p| p.port()).unwrap_or(0),
        created: session::now_ms(),
        last_active: session::now_ms(),
        mem: 0,
    };
    st.sessions.lock().unwrap_or_else(|p| p.into_inner()).insert(sid.clone(), info);
    let compact = crate::pickle::Compact::for_peer(peer.is_none_or(|p| p.ip().is_loopback()));
    {
        let out = out.clone();
        let on = msg_on.clone();
        interp.output = Output::Sink(Box::new(move |line: &str| {
            if on.load(Ordering::Relaxed) {
                let mut f = b"MSG\n".to_vec();
                f.extend(line.bytes().filter(|&b| b != 0));
                f.push(0);
                if let Ok(mut o) = out.lock() {
                    let _ = o.send(&f);
                }
            }
        }));
    }
    // the buffer answers are built in, kept between requests (up to KEEP_BUFFER bytes)
    let mut scratch: Vec<u8> = Vec::new();
    loop {
        let req = match read_request(&mut reader, &st) {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                // tell the client why when it can still read, then drop the connection
                if let WireError::Bad(m) = e {
                    let _ = out.lock().map(|mut o| o.send(format!("{sid} 0 1\n{}\n", one_line(&m)).as_bytes()));
                }
                break;
            }
        };
        if trace() {
            let what = match &req.kind {
                Kind::Connect(l) => format!("connect login={}", l.is_some()),
                Kind::Job(Job::Script(t)) => format!("script {}", t.chars().take(300).collect::<String>()),
                Kind::Job(Job::Function(f, a)) => format!("function {f} ({} args)", a.len()),
                Kind::Job(Job::Variable(n, _)) => format!("variable {}", n.join(",")),
                Kind::Refused(m) => format!("refused: {m}"),
            };
            eprintln!("[beluga server {sid}] flags={} {what}", req.flags);
        }
        // async: no answer to a job (not even an error); the connect itself is answered
        // (PROTOCOL.md §3.4; the Python client sends connect with the async flag)
        let silent = req.flags & FLAG_ASYNC != 0 && !matches!(req.kind, Kind::Connect(_));
        let started = std::time::Instant::now();
        let reply_sid = if req.sid == "0" || req.sid.is_empty() { sid.clone() } else { req.sid.clone() };
        let mut streamed: Option<(usize, io::Result<()>)> = None;
        let frame = match req.kind {
            Kind::Connect(login) => connect(&mut interp, &st, &sid, login),
            Kind::Refused(m) => Some(error_frame(&reply_sid, &m)),
            Kind::Job(job) => {
                if req.fetch_size > 0 && req.fetch_size < MIN_FETCH_SIZE {
                    Some(error_frame(&reply_sid, &format!("fetchSize must be at least {MIN_FETCH_SIZE}")))
                } else {
                    msg_on.store(req.api2 && !silent, Ordering::Relaxed);
                    let r = run_watched(&mut interp, &st, job, req.flags & FLAG_CLEAR_MEMORY != 0, &watch);
                    msg_on.store(false, Ordering::Relaxed);
                    match r {
                        None => break, // the client went away
                        Some(Ok(_)) if silent => None,
                        Some(Ok(v)) => {
                            // over plain TCP the answer goes to the socket as it is made;
                            // a WebSocket message needs its length first, so it is built whole
                            let buf = std::mem::take(&mut scratch);
                            let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                            let stream = if o.ws { None } else { Some(&mut o.w as &mut dyn Write) };
                            let a = result_frame(&interp, &reply_sid, &v, req.flags, req.fetch_size, buf, stream, compact);
                            drop(o);
                            match a {
                                Answer::Frame(f) => Some(f),
                                Answer::Sent { buf, bytes, result } => {
                                    if buf.capacity() <= KEEP_BUFFER {
                                        scratch = buf;
                                    }
                                    streamed = Some((bytes, result));
                                    None
                                }
                            }
                        }
                        Some(Err(m)) => Some(error_frame(&reply_sid, &m)),
                    }
                }
            }
        };
        if let Some((bytes, result)) = streamed {
            if trace() {
                eprintln!(
                    "[beluga server {sid}] answered {bytes} bytes (streamed): run+encode+send {:.1} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
            }
            if result.is_err() {
                break;
            }
        }
        if let Some(f) = frame {
            if silent {
                continue;
            }
            let built = started.elapsed();
            let sent = out.lock().map(|mut o| o.send(&f));
            if trace() {
                eprintln!(
                    "[beluga server {sid}] answered {} bytes: run+encode {:.1} ms, send {:.1} ms",
                    f.len(),
                    built.as_secs_f64() * 1e3,
                    (started.elapsed() - built).as_secs_f64() * 1e3
                );
            }
            if !matches!(sent, Ok(Ok(()))) {
                break;
            }
            if f.capacity() <= KEEP_BUFFER {
                scratch = f;
            }
        }
        if let Some(info) = st.sessions.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&sid) {
            info.user = session::user_of(&interp);
            info.last_active = session::now_ms();
            info.mem = session::session_bytes(&interp);
        }
    }
    st.sessions.lock().unwrap_or_else(|p| p.into_inner()).remove(&sid);
    watch.close();
    if let Some(t) = watcher {
        let _ = t.join();
    }
    if let Some(s) = watch_half {
        let _ = s.shutdown(std::net::Shutdown::Both);
    }
}

/// `BELUGA_SERVER_TRACE=1` logs every request to stderr (for protocol debugging).
fn trace() -> bool {
    static T: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *T.get_or_init(|| std::env::var_os("BELUGA_SERVER_TRACE").is_some_and(|v| v != "0"))
}

fn one_line(m: &str) -> String {
    let t = m.replace(['\n', '\r'], " ");
    // the client takes failover paths for these tags; never start with one
    if t.starts_with('<') || t.starts_with("DFS is not enabled") { format!("Error: {t}") } else { t }
}

fn error_frame(sid: &str, m: &str) -> Vec<u8> {
    format!("{sid} 0 1\n{}\n", one_line(m)).into_bytes()
}

/// An answer: a frame to send, or one already written to the socket as it was made
/// (with the buffer it used, the bytes sent and the outcome of the writes).
enum Answer {
    Frame(Vec<u8>),
    Sent { buf: Vec<u8>, bytes: usize, result: io::Result<()> },
}

/// Counts what goes through to the socket.
struct Counted<'a> {
    w: &'a mut dyn Write,
    n: usize,
}

impl Write for Counted<'_> {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let k = self.w.write(b)?;
        self.n += k;
        Ok(k)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// The result: one object, or with `fetch_size` > 0 a table in pieces (§3.3). With
/// `stream` (plain TCP) a table answer is written to it while it is encoded.
fn result_frame(
    i: &Interpreter,
    sid: &str,
    v: &Value,
    flags: u32,
    fetch_size: i64,
    buf: Vec<u8>,
    stream: Option<&mut dyn Write>,
    compact: crate::pickle::Compact,
) -> Answer {
    // no object, except for a fetchSize request: its client reads the piece header whatever
    // the script returned, and an answer without one leaves its block reader waiting on
    // the socket (reading or dropping the reader hung the session); there a statement's
    // nothing is one piece holding NULL
    if matches!(v, Value::Void) && fetch_size <= 0 {
        return Answer::Frame(format!("{sid} 0 1\nOK\n").into_bytes());
    }
    let reg = i.registry.clone();
    let mut e = Encoder::new(Box::new(move |v: &Value| {
        beluga_runtime::fmt::to_console(v, &|id| reg.get(id).name.to_string()).trim_end().to_string()
    }));
    e.decimal_as_double = flags & FLAG_NO_DECIMAL != 0;
    e.compress = flags & FLAG_COMPRESS != 0;
    // the connection's buffer from the last answer: a large result reuses pages already
    // mapped instead of faulting in fresh memory on every request
    e.out = buf;
    e.out.clear();
    e.out.extend_from_slice(format!("{sid} 1 1\nOK\n").as_bytes());
    // only tables are large enough to be worth streaming; the rest is built whole
    let mut counted = match (stream, v) {
        (Some(w), Value::Table(_)) => Some(Counted { w, n: 0 }),
        _ => None,
    };
    if counted.is_none() {
        // one allocation for the whole frame (the wire size is close to the column
        // bytes): growing a large frame by doubling costs copies and page faults
        e.out.reserve(beluga_stdlib::system::mem_size(v).clamp(0, 1 << 34) as usize + 4096);
    }
    if let (Some(c), Value::Table(t)) = (counted.as_mut(), v) {
        if flags & FLAG_PICKLE != 0 && fetch_size <= 0 {
            let mut out = std::mem::take(&mut e.out);
            let as_list = flags & FLAG_TABLE_TO_LIST != 0;
            if let Some(result) = crate::pickle::table(&mut out, Some(c as &mut dyn Write), t, as_list, compact) {
                let bytes = c.n;
                return Answer::Sent { buf: out, bytes, result };
            }
            e.out = out;
        }
    }
    let streaming = counted.is_some();
    if let Some(c) = counted.as_mut() {
        e.stream_to(c);
    }
    match v {
        Value::Table(t) if fetch_size > 0 => e.blocks(t, fetch_size as usize),
        Value::Table(t)
            if flags & FLAG_PICKLE != 0
                && crate::pickle::table(&mut e.out, None, t, flags & FLAG_TABLE_TO_LIST != 0, compact).is_some() => {}
        _ if fetch_size > 0 => {
            // anything else is one piece
            e.out.extend_from_slice(&[25, 1, 1, 0, 0, 0, 1, 0, 0, 0]);
            e.object(v)
        }
        _ => e.object(v),
    }
    if !streaming {
        return Answer::Frame(e.out);
    }
    e.flush();
    let err = e.stream_err.take();
    let buf = std::mem::take(&mut e.out);
    drop(e);
    let bytes = counted.map_or(0, |c| c.n);
    Answer::Sent { buf, bytes, result: err.map_or(Ok(()), Err) }
}

fn connect(i: &mut Interpreter, st: &Arc<State>, sid: &str, login: Option<(String, String)>) -> Option<Vec<u8>> {
    match login {
        None => Some(format!("{sid} 0 1\nOK\n").into_bytes()),
        Some((u, p)) => {
            if st.users.check(&u, &p) {
                session::set_user(i, st, Some(u));
                let mut f = format!("{sid} 1 1\nOK\n").into_bytes();
                f.extend_from_slice(&[1, 0, 1]);
                Some(f)
            } else {
                Some(error_frame(sid, "The user name or password is incorrect."))
            }
        }
    }
}

/// Watches a connection's socket while a request runs: a client that closes it interrupts
/// the session's job. One thread per connection, parked while no request runs; it polls
/// the socket (poll(2), so the socket's own read timeout is left alone) and peeks, never
/// consuming bytes, so the next request stays intact for the reader.
struct Watch {
    running: Mutex<bool>,
    cv: std::sync::Condvar,
    closed: AtomicBool,
    gone: AtomicBool,
    interrupt: Arc<AtomicBool>,
}

impl Watch {
    fn set_running(&self, on: bool) {
        *self.running.lock().unwrap_or_else(|p| p.into_inner()) = on;
        self.cv.notify_all();
    }

    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.cv.notify_all();
    }
}

#[cfg(unix)]
fn watch_loop(sock: TcpStream, w: Arc<Watch>) {
    use std::os::unix::io::AsRawFd;
    let fd = sock.as_raw_fd();
    loop {
        {
            let mut g = w.running.lock().unwrap_or_else(|p| p.into_inner());
            while !*g && !w.closed.load(Ordering::SeqCst) {
                g = w.cv.wait(g).unwrap_or_else(|p| p.into_inner());
            }
        }
        if w.closed.load(Ordering::SeqCst) {
            return;
        }
        let mut p = libc::pollfd { fd, events: libc::POLLIN | libc::POLLRDHUP, revents: 0 };
        // SAFETY: one valid pollfd; `sock` keeps the descriptor open for this thread's life
        let r = unsafe { libc::poll(&mut p, 1, 50) };
        if r <= 0 {
            continue;
        }
        let mut eof = p.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0;
        if !eof && p.revents & libc::POLLIN != 0 {
            let mut b = [0u8; 1];
            // SAFETY: a one-byte buffer we own; MSG_PEEK leaves the byte in the socket
            let n = unsafe { libc::recv(fd, b.as_mut_ptr() as *mut libc::c_void, 1, libc::MSG_PEEK | libc::MSG_DONTWAIT) };
            eof = n == 0;
            if !eof {
                // the client sent more while waiting (pipelined); do not spin on it
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        if eof && *w.running.lock().unwrap_or_else(|p| p.into_inner()) {
            w.gone.store(true, Ordering::SeqCst);
            w.interrupt.store(true, Ordering::SeqCst);
            // wait until the job has stopped before looking again
            w.set_running(false);
        }
    }
}

#[cfg(not(unix))]
fn watch_loop(_sock: TcpStream, _w: Arc<Watch>) {}

/// Run a job while the watcher looks at the socket. None when the client went away.
fn run_watched(i: &mut Interpreter, st: &State, job: Job, clear: bool, w: &Watch) -> Option<Result<Value, String>> {
    w.gone.store(false, Ordering::SeqCst);
    w.set_running(true);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| session::execute(i, st, job, clear)));
    w.set_running(false);
    let r = match r {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.message),
        Err(_) => Err("internal error while running the request".to_string()),
    };
    if w.gone.load(Ordering::SeqCst) { None } else { Some(r) }
}

fn bad<T>(m: impl Into<String>) -> Result<T, WireError> {
    Err(WireError::Bad(m.into()))
}

/// Read one request; None at a clean end of stream (or an idle timeout).
fn read_request(r: &mut Box<dyn BufRead + Send>, st: &State) -> Result<Option<Request>, WireError> {
    let mut line = Vec::new();
    match (&mut *r).take(MAX_HEADER).read_until(b'\n', &mut line) {
        Ok(0) => return Ok(None),
        Ok(_) => {}
        Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    if line.last() != Some(&b'\n') {
        return bad("request header is too long or truncated");
    }
    let text = String::from_utf8_lossy(&line[..line.len() - 1]).into_owned();
    let tok: Vec<&str> = text.trim_end_matches('\r').split(' ').filter(|t| !t.is_empty()).collect();
    let api2 = match tok.first() {
        Some(&"API2") => true,
        Some(&"API") => false,
        _ => return bad("not a DolphinDB API request (expected API or API2)"),
    };
    if tok.len() < 3 {
        return bad("request header has too few fields");
    }
    let sid = tok[1].to_string();
    let len: u64 = tok[2].parse().map_err(|_| WireError::Bad("request header: the body length is not a number".into()))?;
    let opts: Vec<&str> = tok.get(4).map(|o| o.split('_').collect()).unwrap_or_default();
    let flags: u32 = opts.first().and_then(|f| f.parse().ok()).unwrap_or(0);
    let fetch_size: i64 = opts.get(5).and_then(|f| f.parse().ok()).unwrap_or(0);
    let refused = |m: String| Ok(Some(Request { api2, sid: sid.clone(), flags, fetch_size, kind: Kind::Refused(m) }));
    if len > st.config.max_request_bytes {
        let m = format!("{} ({} bytes)", crate::wire::OVER_LIMIT, st.config.max_request_bytes);
        skip_oversized_body(r, len, m.clone())?;
        return refused(m);
    }
    let mut body = Vec::with_capacity(len.min(1 << 20) as usize);
    let got = (&mut *r).take(len).read_to_end(&mut body)?;
    if got as u64 != len {
        return bad("request body is truncated");
    }
    let body = String::from_utf8_lossy(&body).into_owned();
    let (kind_word, rest) = body.split_once('\n').unwrap_or((body.as_str(), ""));
    let budget = st.config.max_request_bytes - len;
    let kind = match kind_word.trim_end_matches('\r') {
        "connect" => {
            let parts: Vec<&str> = rest.split('\n').collect();
            if parts.first() == Some(&"login") && parts.len() >= 3 {
                Kind::Connect(Some((parts[1].to_string(), parts[2].to_string())))
            } else {
                Kind::Connect(None)
            }
        }
        "script" => Kind::Job(Job::Script(rest.to_string())),
        "function" | "variable" => {
            let mut lines: Vec<&str> = rest.split('\n').collect();
            while lines.last().is_some_and(|l| l.trim().is_empty()) {
                lines.pop();
            }
            if lines.len() < 3 {
                return bad(format!("{kind_word} request needs a name, a count and an endian flag"));
            }
            let n: usize = lines[lines.len() - 2]
                .trim()
                .parse()
                .map_err(|_| WireError::Bad(format!("{kind_word} request: the argument count is not a number")))?;
            let name = lines[..lines.len() - 2].join("\n");
            let mut dec = Decoder::new(r, budget);
            if n > 65536 {
                dec.refuse(format!("too many arguments ({n}; at most 65536)"));
            }
            let mut vals = Vec::with_capacity(n.min(65536));
            for _ in 0..n {
                vals.push(dec.object()?);
            }
            if let Some(m) = dec.refused {
                return refused(m);
            }
            if kind_word == "function" {
                Kind::Job(Job::Function(name, vals))
            } else {
                let names: Vec<String> = name.split(',').map(|s| s.trim().to_string()).collect();
                if names.len() != vals.len() {
                    return refused("variable request: names and objects differ in count".into());
                }
                Kind::Job(Job::Variable(names, vals))
            }
        }
        // no objects follow a body of another kind: the stream is still in step
        other => return refused(format!("unknown request kind '{}'", other.chars().take(40).collect::<String>())),
    };
    Ok(Some(Request { api2, sid, flags, fetch_size, kind }))
}

/// Read past a request whose text body alone is over the size limit, keeping none of it:
/// the body is dropped a buffer at a time; for a `function` or `variable` request its last
/// lines give the object count, and the objects after it are read and dropped too. Only a
/// body whose count cannot be read leaves the stream out of step (an error: close).
fn skip_oversized_body(r: &mut Box<dyn BufRead + Send>, len: u64, why: String) -> Result<(), WireError> {
    const KEEP: usize = 128;
    let mut head: Vec<u8> = Vec::new();
    let mut tail: Vec<u8> = Vec::new();
    let mut left = len;
    while left > 0 {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return bad(format!("{why}; the request ended before its announced length"));
        }
        let k = buf.len().min(left as usize);
        if head.len() < KEEP {
            head.extend_from_slice(&buf[..k.min(KEEP - head.len())]);
        }
        tail.extend_from_slice(&buf[k.saturating_sub(KEEP)..k]);
        if tail.len() > KEEP {
            tail.drain(..tail.len() - KEEP);
        }
        r.consume(k);
        left -= k as u64;
    }
    let kind = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    if kind != b"function" && kind != b"variable" {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&tail);
    let lines: Vec<&str> = text.split('\n').map(str::trim).filter(|l| !l.is_empty()).collect();
    let n: usize = match lines.len().checked_sub(2).and_then(|k| lines[k].parse().ok()) {
        Some(n) => n,
        None => return bad("oversized request: its argument count cannot be read"),
    };
    let mut dec = Decoder::new(r, 0);
    dec.refuse(why);
    for _ in 0..n {
        dec.object()?;
    }
    Ok(())
}
