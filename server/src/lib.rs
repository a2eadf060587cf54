//! `beluga server`: DolphinDB's client wire protocol (see /shared/spec/PROTOCOL.md) so the
//! official Python and JavaScript API clients can run scripts, call functions and move
//! tables to and from a Beluga process.
//!
//! Design: one TCP connection is one session (its own interpreter); each connection runs
//! on its own OS thread, and the number of connections is capped (`max_connections`), so
//! the threads form a bounded pool. Sessions block on their socket between requests and
//! run CPU-bound, synchronous evaluation during them, so an async runtime would buy
//! nothing but a second scheduler; a bounded set of plain threads keeps each session's
//! deep interpreter stack and its blocking reads simple. `share`d objects live in one map
//! that every session holds.

pub mod auth;
mod conn;
pub mod jobs;
mod pickle;
mod session;
mod ws;
pub mod wire;

use auth::Users;
use beluga_runtime::eval::Shared;
use beluga_runtime::Registry;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// Server settings (command line: `beluga server [--port N] [--bind ADDR] [--data DIR]
/// [--users FILE] [--max-connections N] [--max-request-mb N] [--session-memory-mb N]
/// [--idle-timeout SECS]`).
#[derive(Clone, Debug)]
pub struct Config {
    pub port: u16,
    pub bind: IpAddr,
    /// Root folder of `dfs://` databases (sets BELUGA_DFS_ROOT for the process) and the
    /// only folder a logged-in session may read or write files in. Without it the root is
    /// the storage default (`$BELUGA_DFS_ROOT`, else `~/.beluga/dfs`).
    pub data: Option<PathBuf>,
    /// Users whose sessions are not confined to the data folder (`--trust-user NAME`,
    /// repeatable). Empty by default: every session is confined.
    pub trusted_users: Vec<String>,
    pub users: Option<PathBuf>,
    pub max_connections: usize,
    /// Largest request (text body plus serialized arguments) in bytes.
    pub max_request_bytes: u64,
    /// Memory the variables of one session may hold, in bytes (an estimate of column sizes).
    pub session_memory_bytes: u64,
    /// A session that sends nothing for this long is closed.
    pub idle_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            port: 8848,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            data: None,
            trusted_users: Vec::new(),
            users: None,
            max_connections: 64,
            max_request_bytes: 2 << 30,
            session_memory_bytes: 8 << 30,
            idle_timeout: Duration::from_secs(3600),
        }
    }
}

pub const USAGE: &str = "usage: beluga server [--port 8848] [--bind 127.0.0.1] [--data DIR] [--users FILE]\n                     [--max-connections 64] [--max-request-mb 2048] [--session-memory-mb 8192]\n                     [--idle-timeout 3600] [--trust-user NAME]\n--users FILE: lines of name:sha256hex(password) or name:salt:sha256hex(salt+password).\nThe built-in admin/123456 account exists only when the server listens on a loopback address.\nA logged-in session reads and writes files only inside --data DIR (default ~/.beluga/dfs);\n--trust-user NAME lifts that for NAME's sessions. A session that has not logged in touches no files.";

impl Config {
    /// Parse the arguments after `server`.
    pub fn from_args(args: &[String]) -> Result<Config, String> {
        let mut c = Config::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut val = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
            let num = |name: &str, v: String| v.parse::<u64>().map_err(|_| format!("{name}: '{v}' is not a number"));
            match a.as_str() {
                "--port" => {
                    let v = val("--port")?;
                    c.port = v.parse().map_err(|_| format!("--port: '{v}' is not a port number"))?
                }
                "--bind" => {
                    let v = val("--bind")?;
                    c.bind = if v == "localhost" { IpAddr::V4(Ipv4Addr::LOCALHOST) } else {
                        v.parse().map_err(|_| format!("--bind: '{v}' is not an IP address"))?
                    }
                }
                "--data" => c.data = Some(PathBuf::from(val("--data")?)),
                "--users" => c.users = Some(PathBuf::from(val("--users")?)),
                "--trust-user" => c.trusted_users.push(val("--trust-user")?),
                "--max-connections" => c.max_connections = num(a, val(a)?)?.max(1) as usize,
                "--max-request-mb" => c.max_request_bytes = num(a, val(a)?)?.max(1) << 20,
                "--session-memory-mb" => c.session_memory_bytes = num(a, val(a)?)?.max(1) << 20,
                "--idle-timeout" => c.idle_timeout = Duration::from_secs(num(a, val(a)?)?.max(1)),
                "-h" | "--help" => return Err(USAGE.to_string()),
                other => return Err(format!("unknown option {other}\n{USAGE}")),
            }
        }
        Ok(c)
    }
}

/// What every session of one server shares.
pub(crate) struct State {
    pub config: Config,
    pub users: Users,
    /// The folder logged-in sessions are confined to (absolute).
    pub data_root: PathBuf,
    /// Registry after login, and the one a session starts with (file builtins refused).
    pub full: Arc<Registry>,
    pub guest: Arc<Registry>,
    pub shared: Shared,
    /// Requests that name a shared object: writers exclusive, readers together.
    pub shared_gate: RwLock<()>,
    pub connections: AtomicUsize,
    pub next_session: AtomicU64,
    pub stop: AtomicBool,
    pub sessions_ended: AtomicU64,
    /// Open sessions by id (`getSessionMemoryStat`).
    pub sessions: Mutex<std::collections::HashMap<String, SessionInfo>>,
}

/// What `getSessionMemoryStat` reports about one open session.
#[derive(Clone, Debug)]
pub(crate) struct SessionInfo {
    pub user: String,
    pub ip: String,
    pub port: u16,
    pub created: i64,
    pub last_active: i64,
    pub mem: u64,
}

/// A running server (from [`start`]).
pub struct Server {
    pub addr: SocketAddr,
    state: Arc<State>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Number of open connections.
    pub fn connections(&self) -> usize {
        self.state.connections.load(Ordering::Relaxed)
    }

    /// Stop accepting connections and wait for the accept loop to end.
    pub fn stop(mut self) {
        self.state.stop.store(true, Ordering::Relaxed);
        // wake the accept loop
        let _ = std::net::TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Bind and serve until the process ends.
pub fn serve(config: Config) -> io::Result<()> {
    let mut s = start(config)?;
    eprintln!("beluga server listening on {}", s.addr);
    if let Some(t) = s.thread.take() {
        let _ = t.join();
    }
    Ok(())
}

/// Bind and serve on a background thread.
pub fn start(config: Config) -> io::Result<Server> {
    let users = match &config.users {
        Some(p) => Users::load(p).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?,
        None => Users::default(),
    };
    let users = if config.bind.is_loopback() { users.with_builtin_admin() } else { users };
    if users.is_empty() {
        eprintln!("beluga server: no users (not on loopback and no --users file): clients can connect but not log in");
    }
    if let Some(d) = &config.data {
        std::fs::create_dir_all(d)?;
        // SAFETY: set before any server thread starts; storage reads it when it resolves a
        // dfs:// path. Embedders running other threads should set BELUGA_DFS_ROOT themselves.
        unsafe { std::env::set_var("BELUGA_DFS_ROOT", d) };
    }
    let data_root = match &config.data {
        Some(d) => d.clone(),
        None => beluga_storage::catalog::dfs_root(),
    };
    std::fs::create_dir_all(&data_root)?;
    let data_root = data_root.canonicalize()?;
    let listener = TcpListener::bind(SocketAddr::new(config.bind, config.port))?;
    let addr = listener.local_addr()?;
    let (full, guest) = session::registries();
    let state = Arc::new(State {
        config,
        users,
        data_root,
        full,
        guest,
        shared: Arc::new(Mutex::new(Default::default())),
        shared_gate: RwLock::new(()),
        connections: AtomicUsize::new(0),
        next_session: AtomicU64::new(1),
        stop: AtomicBool::new(false),
        sessions_ended: AtomicU64::new(0),
        sessions: Mutex::new(Default::default()),
    });
    let st = state.clone();
    let thread = std::thread::Builder::new().name("beluga-accept".into()).spawn(move || accept_loop(listener, st))?;
    Ok(Server { addr, state, thread: Some(thread) })
}

fn accept_loop(listener: TcpListener, state: Arc<State>) {
    for stream in listener.incoming() {
        if state.stop.load(Ordering::Relaxed) {
            break;
        }
        let stream = match stream {
            Ok(s) => s,
            Err(_) => {
                // out of file descriptors and the like: back off instead of spinning
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        let n = state.connections.fetch_add(1, Ordering::SeqCst);
        if n >= state.config.max_connections {
            state.connections.fetch_sub(1, Ordering::SeqCst);
            conn::refuse(stream, state.config.max_connections);
            continue;
        }
        let st = state.clone();
        let spawned = std::thread::Builder::new()
            .name("beluga-session".into())
            .stack_size(session::STACK_SIZE)
            .spawn(move || {
                let st2 = st.clone();
                // a bug in one session must not take the server down
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || conn::handle(stream, st2)));
                st.connections.fetch_sub(1, Ordering::SeqCst);
                st.sessions_ended.fetch_add(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            state.connections.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// `beluga server ARGS...` for the binary: parse, serve, exit code.
pub fn main_with_args(args: &[String]) -> std::process::ExitCode {
    match Config::from_args(args) {
        Ok(c) => match serve(c) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("beluga server: {e}");
                std::process::ExitCode::from(1)
            }
        },
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::from(2)
        }
    }
}
