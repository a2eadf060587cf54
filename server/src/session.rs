//! The interpreter side of a server session: the registries (full after login, with file
//! access confined to the data folder unless the user is trusted; a guest one whose
//! file-touching builtins refuse to run), the builtins the clients call right
//! after connecting (`isNodeInitialized`, `login`, `logout`), and one request's execution
//! (script, function call, variable upload) with its bookkeeping: clear-memory flag,
//! per-session memory limit, and the lock that orders writers of `share`d objects.

use beluga_runtime::CallCtx;
use crate::State;
use beluga_runtime::registry::f;
use beluga_runtime::{ColData, Column, Error, Interpreter, Kind, Registry, Result, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// Stack of a session thread: the interpreter recurses on nested expressions and calls.
pub const STACK_SIZE: usize = 128 << 20;

const EXT_STATE: &str = "beluga.server.state";
const EXT_USER: &str = "beluga.server.user";
/// `use` statements of a session that has not logged in look here (and find nothing).
const GUEST_MODULE_DIR: &str = "/nonexistent/beluga-guest-modules";

/// Builtins that read or write files or the environment: refused until a session logs in.
const GUEST_DENIED: &[&str] = &[
    "loadTable", "loadText", "loadTextEx", "ploadText", "saveText", "saveTextFile", "extractTextSchema",
    "database", "dropDatabase", "dropPartition", "dropTable", "existsDatabase", "existsTable", "createTable",
    "createPartitionedTable", "createDimensionTable", "getTables", "truncate", "files", "file", "exists",
    "mkdir", "rm", "rmdir", "readLine", "readLines", "writeLine", "writeLines", "close", "run", "runScript",
    "getEnv", "getHomeDir", "clearCachedDatabase", "submitJob", "submitJobEx",
];

/// (registry after login, registry before it). Both have the same ids, so values holding
/// builtins stay valid when a session logs in.
pub fn registries() -> (Arc<Registry>, Arc<Registry>) {
    let mut r = Registry::new();
    beluga_stdlib::register(&mut r);
    beluga_storage::register(&mut r);
    // the server's own login/logout replace stdlib's single-session rows on purpose
    r.replace(&[
        beluga_runtime::registry::fps("login", Kind::System, 2, 3, login, &["userId", "password", "enableEncryption"]),
        beluga_runtime::registry::fs("logout", Kind::System, 0, 2, logout),
    ]);
    r.extend(&[
        f("isNodeInitialized", Kind::System, 0, 0, is_node_initialized),
        f("getCurrentSessionAndUser", Kind::System, 0, 0, current_user),
        f("getSessionMemoryStat", Kind::System, 0, 0, session_memory_stat),
    ]);
    crate::jobs::register(&mut r);
    let full = Arc::new(r.clone());
    for name in GUEST_DENIED {
        if let Some(id) = r.lookup(name) {
            r.defs[id as usize].call = beluga_runtime::Call::Plain(denied);
        }
    }
    (full, Arc::new(r))
}

fn denied(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Err(Error::runtime("Not logged in: a session must log in before it can read or write files"))
}

fn is_node_initialized(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Ok(Value::bool(true))
}

fn text_arg(v: &Value, what: &str) -> Result<String> {
    match v {
        Value::Scalar(c) => match &*c.data {
            ColData::Str(s) => Ok(s.get(0).to_string()),
            ColData::Sym(s) => Ok(s.get(0).to_string()),
            _ => Err(Error::arg(format!("login: {what} must be a string"))),
        },
        _ => Err(Error::arg(format!("login: {what} must be a string"))),
    }
}

fn state_of(i: &CallCtx) -> Option<Arc<State>> {
    i.ext_ref().get(EXT_STATE).and_then(|b| b.downcast_ref::<Arc<State>>()).cloned()
}

fn login(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let user = text_arg(&args[0], "userId")?;
    let pwd = text_arg(&args[1], "password")?;
    let st = state_of(i).ok_or_else(|| Error::runtime("login: not running inside a server"))?;
    if !st.users.check(&user, &pwd) {
        return Err(Error::runtime("The user name or password is incorrect."));
    }
    set_user(i, &st, Some(user));
    Ok(Value::bool(true))
}

fn logout(i: &mut Interpreter, _args: Vec<Value>) -> Result<Value> {
    if let Some(st) = state_of(i) {
        set_user(i, &st, None);
    }
    Ok(Value::Void)
}

fn current_user(i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    let u = i.ext_ref().get(EXT_USER).and_then(|b| b.downcast_ref::<String>()).cloned().unwrap_or_else(|| "guest".into());
    Ok(Value::string(&u))
}

fn session_memory_stat(i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    use beluga_runtime::{DataType, Table};
    let st = state_of(i).ok_or_else(|| Error::runtime("getSessionMemoryStat: not running inside a server"))?;
    let m = st.sessions.lock().unwrap_or_else(|p| p.into_inner());
    let mut rows: Vec<(&String, &crate::SessionInfo)> = m.iter().collect();
    rows.sort_by(|a, b| a.0.cmp(b.0));
    let strs = |f: &dyn Fn(&String, &crate::SessionInfo) -> String| -> Column {
        let v: Vec<String> = rows.iter().map(|(k, s)| f(k, s)).collect();
        match Value::string_vec(v.iter().map(|x| x.as_str())) {
            Value::Vector(c) => c,
            _ => unreachable!("string_vec builds vectors"),
        }
    };
    let cols = vec![
        strs(&|_, s| s.user.clone()),
        strs(&|k, _| k.clone()),
        Column::from_vec(DataType::Long, rows.iter().map(|(_, s)| s.mem as i64).collect::<Vec<i64>>()),
        strs(&|_, s| s.ip.clone()),
        Column::from_vec(DataType::Int, rows.iter().map(|(_, s)| s.port as i32).collect::<Vec<i32>>()),
        Column::from_vec(DataType::Timestamp, rows.iter().map(|(_, s)| s.created).collect::<Vec<i64>>()),
        Column::from_vec(DataType::Timestamp, rows.iter().map(|(_, s)| s.last_active).collect::<Vec<i64>>()),
    ];
    let names = ["userId", "sessionId", "memSize", "remoteIP", "remotePort", "createTime", "lastActiveTime"];
    Ok(Value::table(Table::new(names.iter().map(|s| s.to_string()).collect(), cols)?))
}

pub(crate) fn user_of(i: &CallCtx) -> String {
    i.ext_ref().get(EXT_USER).and_then(|b| b.downcast_ref::<String>()).cloned().unwrap_or_else(|| "guest".into())
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Switch a session between guest and logged-in.
pub(crate) fn set_user(i: &mut Interpreter, st: &Arc<State>, user: Option<String>) {
    match user {
        Some(u) => {
            // confined to the data folder unless the operator named this user trusted
            if st.config.trusted_users.iter().any(|t| *t == u) {
                i.policy = beluga_runtime::policy::Policy::Trusted;
                i.module_dir = std::env::var_os("BELUGA_MODULE_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("modules"));
            } else {
                i.policy = beluga_runtime::policy::Policy::confined(st.data_root.clone());
                i.module_dir = st.data_root.join("modules");
            }
            i.registry = st.full.clone();
            i.ext.insert(EXT_USER, Box::new(u));
        }
        None => {
            // the guest registry refuses its file builtins by name; the sealed policy refuses
            // every capable row as well (one rule for whatever else carries a capability)
            i.policy = beluga_runtime::policy::Policy::Sealed;
            i.registry = st.guest.clone();
            i.module_dir = PathBuf::from(GUEST_MODULE_DIR);
            i.ext.remove(EXT_USER);
        }
    }
}

pub(crate) fn logged_in(i: &CallCtx) -> bool {
    i.ext_ref().contains_key(EXT_USER)
}

/// A fresh guest session.
pub(crate) fn new_interpreter(st: &Arc<State>) -> Interpreter {
    let mut i = Interpreter::with_registry(st.guest.clone());
    i.shared = st.shared.clone();
    i.ext.insert(EXT_STATE, Box::new(st.clone()));
    set_user(&mut i, st, None);
    i
}

/// What a request asks for.
pub(crate) enum Job {
    Script(String),
    Function(String, Vec<Value>),
    Variable(Vec<String>, Vec<Value>),
}

impl Job {
    fn text(&self) -> &str {
        match self {
            Job::Script(s) | Job::Function(s, _) => s,
            Job::Variable(..) => "",
        }
    }
}

/// Run one request in a session: the value to send back (Void = no object).
pub(crate) fn execute(i: &mut Interpreter, st: &State, job: Job, clear_after: bool) -> Result<Value> {
    let names = shared_names_in(st, &i.aliases, job.text());
    let r = if names.is_empty() {
        run_job(i, job)
    } else if is_write(job.text()) {
        let _w = st.shared_gate.write().unwrap_or_else(|p| p.into_inner());
        run_job(i, job)
    } else {
        let _r = st.shared_gate.read().unwrap_or_else(|p| p.into_inner());
        run_job(i, job)
    };
    i.interrupt.store(false, std::sync::atomic::Ordering::Relaxed);
    i.frames.clear();
    i.col_scopes.clear();
    if clear_after {
        clear_session(i);
    }
    let used = session_bytes(i);
    if used > st.config.session_memory_bytes {
        clear_session(i);
        return Err(Error::runtime(format!(
            "Out of memory: the session's variables hold about {} MB, more than its limit of {} MB; they were cleared",
            used >> 20,
            st.config.session_memory_bytes >> 20
        )));
    }
    r
}

fn run_job(i: &mut Interpreter, job: Job) -> Result<Value> {
    match job {
        Job::Script(src) => {
            if !logged_in(i) && src.contains("#include") {
                return Err(Error::runtime("Not logged in: #include reads a file"));
            }
            let mut last = Value::Void;
            let mut keep = |_: &mut Interpreter, v: Value| last = v;
            i.run_source(&src, Some(&mut keep))?;
            Ok(last)
        }
        Job::Function(expr, args) => {
            let e = expr.trim();
            // `f{v}` applied to args, where v is a variable: run `f(v, args...)` so that an
            // in-place function (`tableInsert`, a lambda with a `mutable` parameter, as the
            // clients' appenders and upserters send) updates the variable itself
            if let Some((head, var)) = trailing_partial_var(e) {
                if i.has_var(var) || i.get_shared(var).is_some() {
                    let mut call = format!("{head}({var}");
                    let names: Vec<String> = (0..args.len()).map(|k| format!("__beluga_api_arg{k}")).collect();
                    for (n, v) in names.iter().zip(args) {
                        i.globals.insert(n.clone(), v);
                        call.push_str(", ");
                        call.push_str(n);
                    }
                    call.push(')');
                    let mut last = Value::Void;
                    let mut keep = |_: &mut Interpreter, v: Value| last = v;
                    let r = i.run_source(&call, Some(&mut keep));
                    for n in &names {
                        i.globals.remove(n);
                    }
                    r?;
                    return Ok(last);
                }
            }
            let f = if is_ident(e) {
                i.resolve(e)?
            } else {
                let mut last = Value::Void;
                let mut keep = |_: &mut Interpreter, v: Value| last = v;
                i.run_source(e, Some(&mut keep))?;
                last
            };
            if !matches!(f, Value::Function(_)) {
                return Err(Error::runtime(format!("{e} is not a function")));
            }
            i.call_value(&f, args)
        }
        Job::Variable(names, vals) => {
            for (n, v) in names.iter().zip(vals) {
                if !is_ident(n) {
                    return Err(Error::arg(format!("'{n}' is not a valid variable name")));
                }
                i.set_var(n, v)?;
            }
            Ok(Value::Void)
        }
    }
}

fn clear_session(i: &mut Interpreter) {
    i.globals.clear();
    i.links.clear();
    i.aliases.clear();
    i.consts.clear();
    i.functions.clear();
}

/// `head{name}` with a plain identifier inside the last braces: (head, name).
fn trailing_partial_var(e: &str) -> Option<(&str, &str)> {
    let body = e.strip_suffix('}')?;
    let open = body.rfind('{')?;
    let name = body[open + 1..].trim();
    let head = body[..open].trim();
    (is_ident(name) && !head.is_empty()).then_some((head, name))
}

pub(crate) fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_alphabetic() || x == '_') && c.all(|x| x.is_alphanumeric() || x == '_')
}

/// Names of shared objects the text mentions as whole identifiers.
fn shared_names_in(st: &State, aliases: &ahash::AHashMap<String, String>, text: &str) -> Vec<String> {
    let m = match st.shared.lock() {
        Ok(m) => m,
        Err(p) => p.into_inner(),
    };
    if m.is_empty() || text.is_empty() {
        return vec![];
    }
    // a shared table another request is appending to in place is out of the map for that
    // time, with a marker in its place: it still counts, so this request waits at the gate
    // (`t` after `share t as st` is another name of `st`)
    let shared = |w: &str| m.contains_key(w) || m.contains_key(&beluga_runtime::eval::busy_marker(w));
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && (shared(w) || aliases.get(*w).is_some_and(|t| shared(t))))
        .map(|w| w.to_string())
        .collect()
}

/// Whether a request may modify what it names (conservative: any in-place call or DML).
fn is_write(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains('!') || ["tableinsert", "insert", "update", "delete", "upsert", "share", "undef", "="].iter().any(|w| t.contains(w))
}

/// Estimated bytes held by the session's variables.
pub(crate) fn session_bytes(i: &CallCtx) -> u64 {
    i.globals().values().map(|v| beluga_stdlib::system::mem_size(v).max(0) as u64).sum()
}

#[cfg(test)]
mod registry_tests {
    /// The server's registries hold every crate's rows (stdlib with its stream rows,
    /// storage, the session and job builtins): no name is registered twice.
    #[test]
    fn no_builtin_is_registered_twice() {
        let (full, guest) = super::registries();
        for r in [full, guest] {
            assert!(r.duplicates.is_empty(), "registered more than once: {:?}", r.duplicates);
            assert!(r.lookup("submitJob").is_some() && r.lookup("login").is_some() && r.lookup("loadTable").is_some());
            assert!(r.lookup("streamTable").is_some() && r.lookup("unsubscribeTable").is_some());
        }
    }
}

#[cfg(test)]
mod inplace_tests {
    //! Appends to a shared table grow it in place, whatever the path (`insert into`,
    //! `append!`, `tableInsert`) and whichever name of a `share t as st` pair is used:
    //! the first column's storage stays the same allocation, and both names see the rows.
    use beluga_runtime::{Interpreter, Value};
    use std::sync::Arc;

    fn table_of(i: &Interpreter, name: &str) -> Arc<beluga_runtime::Table> {
        match i.get_var(name).cloned().or_else(|| i.get_shared(name)) {
            Some(Value::Table(t)) => t,
            other => panic!("{name} is not a table: {other:?}"),
        }
    }

    fn col_ptr(i: &Interpreter, name: &str) -> usize {
        Arc::as_ptr(&table_of(i, name).cols[0].data) as *const u8 as usize
    }

    #[test]
    fn shared_table_appends_do_not_copy() {
        let (full, _) = super::registries();
        let mut i = Interpreter::with_registry(full);
        i.run_source("t = table(1000:0, `k`v, [INT, DOUBLE]); share t as st", None).unwrap();
        i.run_source("insert into st values(1, 1.5)", None).unwrap();
        let p = col_ptr(&i, "st");
        let steps = [
            "insert into st values(2, 2.5)",
            "insert into t values(3, 3.5)",
            "append!(st, table(4 5 as k, 4.5 5.5 as v))",
            "append!(t, table([6] as k, [6.5] as v))",
            "tableInsert(st, 7, 7.5)",
            "tableInsert(t, 8 9, 8.5 9.5)",
            "insert into st (v, k) values(10.5, 10)",
        ];
        for s in steps {
            i.run_source(s, None).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(col_ptr(&i, "st"), p, "{s} copied the shared table");
        }
        // one table under both names, holding every row in order
        assert!(Arc::ptr_eq(&table_of(&i, "t"), &table_of(&i, "st")));
        let t = table_of(&i, "st");
        let k: Vec<i64> = (0..t.rows()).map(|r| t.cols[0].i64_at(r).unwrap()).collect();
        assert_eq!(k, (1..=10).collect::<Vec<i64>>());
        // a query over the shared table sees them too, and re-binding `t` leaves `st` alone
        i.run_source("t = 0", None).unwrap();
        let mut last = Value::Void;
        let mut keep = |_: &mut Interpreter, v: Value| last = v;
        i.run_source("exec sum(v) from st", Some(&mut keep)).unwrap();
        assert_eq!(last.as_f64(), Some(60.0));
    }
}
