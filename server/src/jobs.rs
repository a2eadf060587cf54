//! Batch jobs (`submitJob`, `getJobReturn`, `getJobStatus`, `getRecentJobs`, `cancelJob`):
//! a function call handed to a fixed pool of worker threads. Jobs outlive the request and
//! the session that submitted them; the job table is one process-wide, lock-protected map.
//! Each job runs in its own interpreter with the submitter's registry (so a guest's job is
//! a guest too), policy, memory budget, script functions and shared objects.
//! The pool is per process: the server's sessions and the CLI/batch runner
//! (`repl/src/main.rs` registers these builtins too) share it.

use beluga_runtime::CallCtx;
use beluga_runtime::eval::Output;
use beluga_runtime::registry::fp;
use beluga_runtime::{Column, DataType, Error, Interpreter, Kind, Registry, Result, Table, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

pub fn register(r: &mut Registry) {
    r.extend(&[
        beluga_runtime::registry::fps("submitJob", Kind::System, 3, u8::MAX, submit_job, &["jobId", "jobDesc", "func"]),
        fp("getJobReturn", Kind::System, 1, 2, get_job_return, &["jobId", "blocking"]),
        fp("getJobStatus", Kind::System, 1, 1, get_job_status, &["jobId"]),
        fp("getRecentJobs", Kind::System, 0, 1, get_recent_jobs, &["n"]),
        fp("cancelJob", Kind::System, 1, 1, cancel_job, &["jobId"]),
    ]);
}

struct Rec {
    id: String,
    desc: String,
    user: String,
    received: i64,
    start: Option<i64>,
    end: Option<i64>,
    result: Option<std::result::Result<Value, String>>,
    interrupt: Arc<AtomicBool>,
    /// what the worker runs; taken when it starts
    work: Option<Work>,
}

struct Work {
    interp: Interpreter,
    func: Value,
    args: Vec<Value>,
}

#[derive(Default)]
struct Jobs {
    recs: HashMap<String, Rec>,
    /// submission order, for getRecentJobs
    order: Vec<String>,
    queue: VecDeque<String>,
    workers: usize,
}

struct Pool {
    jobs: Mutex<Jobs>,
    /// signalled when a job is queued
    queued: Condvar,
    /// signalled when a job ends
    done: Condvar,
}

fn pool() -> &'static Pool {
    static P: OnceLock<Pool> = OnceLock::new();
    P.get_or_init(|| Pool { jobs: Mutex::new(Jobs::default()), queued: Condvar::new(), done: Condvar::new() })
}

fn lock() -> std::sync::MutexGuard<'static, Jobs> {
    pool().jobs.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

fn worker_count() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).max(2)
}

fn worker() {
    loop {
        let (id, work, interrupt) = {
            let mut g = lock();
            loop {
                if let Some(id) = g.queue.pop_front() {
                    let rec = match g.recs.get_mut(&id) {
                        Some(r) => r,
                        None => continue,
                    };
                    match rec.work.take() {
                        Some(w) => {
                            rec.start = Some(now_ms());
                            break (id, w, rec.interrupt.clone());
                        }
                        None => continue, // cancelled while queued
                    }
                }
                g = pool().queued.wait(g).unwrap_or_else(|p| p.into_inner());
            }
        };
        let Work { mut interp, func, args } = work;
        interp.interrupt = interrupt.clone();
        // kernels on this worker thread see the job's interrupt flag and the submitting
        // session's memory accountant
        beluga_runtime::guard::install_interrupt(interrupt);
        beluga_runtime::guard::install_budget(interp.budget.clone());
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| interp.call_value(&func, args)));
        let r = match r {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(e.message),
            Err(_) => Err("internal error in the job".to_string()),
        };
        let mut g = lock();
        if let Some(rec) = g.recs.get_mut(&id) {
            rec.end = Some(now_ms());
            rec.result = Some(r);
        }
        drop(g);
        pool().done.notify_all();
    }
}

fn str_arg(v: &Value, f: &str, what: &str) -> Result<String> {
    match v {
        Value::Scalar(c) if matches!(c.ty, DataType::String | DataType::Symbol) => {
            let t = beluga_runtime::kernels::cast::cast_column(c, DataType::String)?;
            match &*t.data {
                beluga_runtime::ColData::Str(s) => Ok(s.get(0).to_string()),
                _ => Err(Error::arg(format!("{f}: {what} must be a string"))),
            }
        }
        Value::Void => Ok(String::new()),
        _ => Err(Error::arg(format!("{f}: {what} must be a string"))),
    }
}

fn submit_job(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let mut args = args.into_iter();
    let id = str_arg(&args.next().unwrap_or(Value::Void), "submitJob", "jobId")?;
    let desc = str_arg(&args.next().unwrap_or(Value::Void), "submitJob", "jobDesc")?;
    let func = args.next().unwrap_or(Value::Void);
    if !matches!(func, Value::Function(_)) {
        return Err(Error::arg("submitJob: func must be a function"));
    }
    if id.is_empty() || !id.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(Error::arg("submitJob: jobId must be a non-empty string of letters, digits and underscores"));
    }
    let fargs: Vec<Value> = args.collect();
    let desc = if desc.is_empty() {
        match &func {
            Value::Function(f) => i.func_name(f),
            _ => String::new(),
        }
    } else {
        desc
    };
    let mut job = Interpreter::with_registry(i.registry.clone());
    job.shared = i.shared.clone();
    job.functions = i.functions.clone();
    job.module_dir = i.module_dir.clone();
    // the job may do no more than the session that submitted it
    job.policy = i.policy.clone();
    job.budget = i.budget.clone();
    job.output = Output::Buffer(String::new());
    for (k, v) in &i.ext {
        // the session's user and server state go with the job (strings and Arcs only)
        if let Some(s) = v.downcast_ref::<String>() {
            job.ext.insert(k, Box::new(s.clone()));
        }
    }
    let user = i
        .ext
        .get("beluga.server.user")
        .and_then(|b| b.downcast_ref::<String>())
        .cloned()
        .unwrap_or_else(|| "guest".into());
    let mut g = lock();
    // a repeated id gets a numbered suffix, as DolphinDB does
    let mut real = id.clone();
    let mut k = 1;
    while g.recs.contains_key(&real) {
        real = format!("{id}{k}");
        k += 1;
    }
    g.recs.insert(
        real.clone(),
        Rec {
            id: real.clone(),
            desc,
            user,
            received: now_ms(),
            start: None,
            end: None,
            result: None,
            interrupt: Arc::new(AtomicBool::new(false)),
            work: Some(Work { interp: job, func, args: fargs }),
        },
    );
    g.order.push(real.clone());
    g.queue.push_back(real.clone());
    let want = worker_count();
    while g.workers < want {
        let ok = std::thread::Builder::new()
            .name("beluga-job".into())
            .stack_size(crate::session::STACK_SIZE)
            .spawn(worker)
            .is_ok();
        if !ok {
            break;
        }
        g.workers += 1;
    }
    drop(g);
    pool().queued.notify_one();
    Ok(Value::string(&real))
}

fn get_job_return(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let id = str_arg(&args[0], "getJobReturn", "jobId")?;
    let blocking = args.get(1).and_then(|v| v.as_bool()).unwrap_or(false);
    let mut g = lock();
    loop {
        let rec = g.recs.get(&id).ok_or_else(|| Error::runtime(format!("getJobReturn: no job with id {id}")))?;
        match &rec.result {
            Some(Ok(v)) => return Ok(v.clone()),
            Some(Err(m)) => return Err(Error::runtime(format!("The job {id} failed: {m}"))),
            None if !blocking => {
                return Err(Error::runtime(format!("The job {id} is not complete yet; call getJobReturn(\"{id}\", true) to wait")));
            }
            None => {
                g = pool().done.wait(g).unwrap_or_else(|p| p.into_inner());
            }
        }
    }
}

fn ts(v: Option<i64>) -> i64 {
    v.unwrap_or(i64::MIN)
}

fn status_table(recs: &[&Rec]) -> Result<Value> {
    let s = |f: &dyn Fn(&Rec) -> String| Value::string_vec(recs.iter().map(|r| f(r)).collect::<Vec<_>>().iter().map(|x| x.as_str()));
    let col = |v: Value| match v {
        Value::Vector(c) => c,
        _ => unreachable!("string_vec builds vectors"),
    };
    let names = [
        "node", "userID", "jobId", "rootJobId", "jobDesc", "priority", "parallelism", "receivedTime", "startTime", "endTime",
        "errorMsg",
    ];
    let cols: Vec<Column> = vec![
        col(s(&|_| "local".into())),
        col(s(&|r| r.user.clone())),
        col(s(&|r| r.id.clone())),
        col(s(&|r| r.id.clone())),
        col(s(&|r| r.desc.clone())),
        Column::from_vec(DataType::Int, vec![4i32; recs.len()]),
        Column::from_vec(DataType::Int, vec![1i32; recs.len()]),
        Column::from_vec(DataType::Timestamp, recs.iter().map(|r| r.received).collect::<Vec<i64>>()),
        Column::from_vec(DataType::Timestamp, recs.iter().map(|r| ts(r.start)).collect::<Vec<i64>>()),
        Column::from_vec(DataType::Timestamp, recs.iter().map(|r| ts(r.end)).collect::<Vec<i64>>()),
        col(s(&|r| match &r.result {
            Some(Err(m)) => m.clone(),
            _ => String::new(),
        })),
    ];
    Ok(Value::table(Table::new(names.iter().map(|s| s.to_string()).collect(), cols)?))
}

fn get_job_status(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let id = str_arg(&args[0], "getJobStatus", "jobId")?;
    let g = lock();
    let rec = g.recs.get(&id).ok_or_else(|| Error::runtime(format!("getJobStatus: no job with id {id}")))?;
    status_table(&[rec])
}

fn get_recent_jobs(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let g = lock();
    let n = match args.first() {
        Some(v) => match v.as_i64() {
            Some(n) if n > 0 => n as usize,
            _ => return Err(Error::arg("getRecentJobs: n must be a positive integer")),
        },
        None => g.order.len(),
    };
    let start = g.order.len().saturating_sub(n);
    let recs: Vec<&Rec> = g.order[start..].iter().filter_map(|id| g.recs.get(id)).collect();
    status_table(&recs)
}

fn cancel_job(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let ids: Vec<String> = match &args[0] {
        Value::Vector(c) => {
            let t = beluga_runtime::kernels::cast::cast_column(c, DataType::String)?;
            match &*t.data {
                beluga_runtime::ColData::Str(s) => s.iter().map(|x| x.to_string()).collect(),
                _ => vec![],
            }
        }
        v => vec![str_arg(v, "cancelJob", "jobId")?],
    };
    let mut g = lock();
    for id in ids {
        let rec = g.recs.get_mut(&id).ok_or_else(|| Error::runtime(format!("cancelJob: no job with id {id}")))?;
        if rec.result.is_some() {
            continue;
        }
        if rec.work.take().is_some() {
            // still queued: it never runs
            rec.end = Some(now_ms());
            rec.result = Some(Err("The job was cancelled".into()));
        } else {
            rec.interrupt.store(true, Ordering::Relaxed);
        }
    }
    drop(g);
    pool().done.notify_all();
    Ok(Value::Void)
}
