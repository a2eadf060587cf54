//! Builtins: session and environment (version, getHomeDir, getEnv, getOS, getOSBit, sleep,
//! objs, defined, undef, objByName, member, memSize, mem, refCount, run, runScript,
//! evalTimer, partial, setRandomSeed, setMaxMemSize, getMaxMemSize).

use beluga_runtime::CallCtx;
use crate::util::{col, describe, int_arg, opt};
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::eval::Interpreter;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::value::{DictVals, Func};
use beluga_runtime::{DataType, Error, ErrorKind, Result, Table, Value};
use std::sync::Arc;

const VERSION: &str = "3.00.0 2024.01.01 (beluga 0.1.0)";

fn strings(v: &[String]) -> Column {
    Column::new(DataType::String, ColData::Str(StrCol::from_iter(v.iter().map(|s| s.as_str()))))
}

fn version(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Ok(Value::string(VERSION))
}

fn get_home_dir(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    let dir = std::env::var("BELUGA_HOME")
        .ok()
        .or_else(|| std::env::current_dir().ok().map(|p| p.display().to_string()))
        .unwrap_or_default();
    Ok(Value::string(&dir))
}

fn get_env(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let name = args[0].as_str().ok_or_else(|| Error::arg("The name argument of [getEnv] must be a string"))?;
    let default = opt(&args, 1).and_then(|v| v.as_str()).unwrap_or("").to_string();
    Ok(Value::string(&std::env::var(name).unwrap_or(default)))
}

fn get_os(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Ok(Value::string(std::env::consts::OS))
}

fn get_os_bit(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Ok(Value::int((std::mem::size_of::<usize>() * 8) as i32))
}

fn sleep(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let ms = int_arg("sleep", &args[0], "milliseconds")?;
    if ms < 0 {
        return Err(Error::arg("The argument of [sleep] must be non-negative"));
    }
    // sleep in short steps so an interrupt is noticed; time-driven work of the session
    // (a subscription's throttled batch, `CallCtx::Timer`) runs when it falls due, as a
    // background timer would have run it while the script slept
    let end = std::time::Instant::now() + std::time::Duration::from_millis(ms as u64);
    loop {
        i.run_due_timers()?;
        let now = std::time::Instant::now();
        if now >= end {
            break;
        }
        i.check_interrupt()?;
        let wake = i.next_timer_due().map(|d| d.min(end)).unwrap_or(end);
        // at least 1 ms (work that stays due must not spin), at most 50 ms, never past the end
        let step = wake.saturating_duration_since(now).clamp(std::time::Duration::from_millis(1), std::time::Duration::from_millis(50));
        std::thread::sleep(step.min(end - now));
    }
    Ok(Value::Void)
}

/// `setMaxMemSize(memSize)`: the session's memory budget in GB (fractions allowed); large
/// allocations beyond it fail with an out-of-memory error instead of ending the process.
fn set_max_mem_size(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let gb = match &args[0] {
        Value::Scalar(c) if c.ty.is_numeric() => args[0].as_f64(),
        _ => None,
    };
    match gb {
        Some(g) if g.is_finite() && g > 0.0 && g < 1e9 => {
            beluga_runtime::guard::set_max_memory((g * (1u64 << 30) as f64) as u64);
            Ok(Value::Void)
        }
        _ => Err(Error::arg("The argument of [setMaxMemSize] must be a positive number of GB")),
    }
}

/// `getMaxMemSize()`: the session's memory budget in GB (a Beluga addition, the counterpart
/// of setMaxMemSize).
fn get_max_mem_size(_i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    Ok(Value::double(beluga_runtime::guard::max_memory() as f64 / (1u64 << 30) as f64))
}

// ------------------------------------------------------------------ objects of the session

fn form_name(v: &Value) -> &'static str {
    match v {
        Value::Vector(_) | Value::Tuple(_) => "VECTOR",
        Value::Pair(_) => "PAIR",
        Value::Matrix(_) => "MATRIX",
        Value::Set(_) => "SET",
        Value::Dict(_) => "DICTIONARY",
        Value::Table(_) => "TABLE",
        _ => "SCALAR",
    }
}

fn rows_cols(v: &Value) -> (i64, i64) {
    match v {
        Value::Matrix(m) => (m.rows as i64, m.cols as i64),
        Value::Table(t) => (t.rows() as i64, t.ncols() as i64),
        Value::Scalar(_) | Value::Void => (1, 1),
        other => (other.size() as i64, 1),
    }
}

/// Approximate bytes held by a value (`memSize`; the server's per-session memory limit
/// counts with it too).
pub fn mem_size(v: &Value) -> i64 {
    fn col_bytes(c: &Column) -> i64 {
        match &*c.data {
            ColData::I8(v) => v.len() as i64,
            ColData::I16(v) => 2 * v.len() as i64,
            ColData::I32(v) => 4 * v.len() as i64,
            ColData::F32(v) => 4 * v.len() as i64,
            ColData::I64(v) => 8 * v.len() as i64,
            ColData::F64(v) => 8 * v.len() as i64,
            ColData::I128(v) => 16 * v.len() as i64,
            ColData::Sym(s) => 4 * s.codes.len() as i64,
            ColData::Str(s) => (s.bytes.len() + 8 * s.offsets.len()) as i64,
            ColData::Array(a) => 8 * a.offsets.len() as i64 + col_bytes(&a.data),
        }
    }
    match v {
        Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => col_bytes(c),
        Value::Matrix(m) => col_bytes(&m.data),
        Value::Set(s) => col_bytes(&s.items),
        Value::Dict(d) => {
            col_bytes(&d.keys)
                + match &d.vals {
                    DictVals::Col(c) => col_bytes(c),
                    DictVals::Any(items) => items.iter().map(mem_size).sum(),
                }
        }
        Value::Table(t) => t.cols.iter().map(col_bytes).sum(),
        Value::Tuple(items) => items.iter().map(mem_size).sum::<i64>() + 8 * items.len() as i64,
        Value::ArrayVector(a) => col_bytes(&a.data) + 8 * a.offsets.len() as i64,
        _ => 8,
    }
}

fn objs(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let with_shared = opt(&args, 0).and_then(|v| v.as_bool()).unwrap_or(false);
    let mut entries: Vec<(String, Value, bool)> = i.globals()
        .iter()
        .filter(|(k, _)| !k.starts_with("__"))
        .map(|(k, v)| (k.clone(), v.clone(), false))
        .collect();
    if with_shared {
        if let Ok(m) = i.shared().lock() {
            entries.extend(m.iter().map(|(k, v)| (k.clone(), v.clone(), true)));
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let names: Vec<String> = entries.iter().map(|e| e.0.clone()).collect();
    let types: Vec<String> = entries.iter().map(|e| e.1.data_type().name().to_string()).collect();
    let forms: Vec<String> = entries.iter().map(|e| form_name(&e.1).to_string()).collect();
    let (rows, cols): (Vec<i64>, Vec<i64>) = entries.iter().map(|e| rows_cols(&e.1)).unzip();
    let bytes: Vec<i64> = entries.iter().map(|e| mem_size(&e.1)).collect();
    let shared: Vec<i8> = entries.iter().map(|e| e.2 as i8).collect();
    let t = Table::new(
        vec!["name".into(), "type".into(), "form".into(), "rows".into(), "columns".into(), "bytes".into(), "shared".into()],
        vec![
            strings(&names),
            strings(&types),
            strings(&forms),
            Column::from_vec(DataType::Long, rows),
            Column::from_vec(DataType::Long, cols),
            Column::from_vec(DataType::Long, bytes),
            Column::from_vec(DataType::Bool, shared),
        ],
    )?;
    Ok(Value::table(t))
}

/// Object kind argument: VAR (0), SHARED (1) or DEF (2).
fn kind_arg(name: &str, v: Option<&Value>) -> Result<i64> {
    match v {
        None => Ok(0),
        Some(Value::Constant(_, n)) => Ok(*n as i64),
        Some(x) => match x.as_str() {
            Some(s) => match s.to_ascii_uppercase().as_str() {
                "VAR" => Ok(0),
                "SHARED" => Ok(1),
                "DEF" => Ok(2),
                other => Err(Error::arg(format!("The objType argument of [{name}] must be VAR, SHARED or DEF, not {other}"))),
            },
            None => x.as_i64().filter(|k| (0..=2).contains(k)).ok_or_else(|| Error::arg(format!("The objType argument of [{name}] must be VAR, SHARED or DEF"))),
        },
    }
}

fn names_of(name: &str, v: &Value) -> Result<Vec<String>> {
    let c = col(name, v)?;
    if !c.ty.is_literal() {
        return Err(Error::arg(format!("The names given to [{name}] must be strings")));
    }
    Ok((0..c.len()).map(|k| c.str_at(k).unwrap_or("").to_string()).collect())
}

fn defined(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let names = names_of("defined", &args[0])?;
    let kind = kind_arg("defined", opt(&args, 1))?;
    let out: Vec<i8> = names
        .iter()
        .map(|n| {
            (match kind {
                0 => i.get_var(n).is_some(),
                1 => i.get_shared(n).is_some(),
                _ => i.functions.contains_key(n) || i.registry.lookup(n).is_some(),
            }) as i8
        })
        .collect();
    let c = Column::from_vec(DataType::Bool, out);
    Ok(if args[0].is_scalar() { Value::Scalar(c) } else { Value::Vector(c) })
}

fn undef(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let kind = kind_arg("undef", opt(&args, 1))?;
    let names = names_of("undef", &args[0])?;
    for n in &names {
        match kind {
            0 => {
                i.unlink(n);
                let removed = match i.frames.last_mut() {
                    Some(f) => f.vars.remove(n).is_some(),
                    None => false,
                };
                if !removed {
                    i.globals.remove(n);
                    i.consts.remove(n);
                    // `t` after `share t as st` is a name of `st`: undef drops the name only
                    i.break_alias(n);
                }
            }
            1 => {
                let gone = i.shared.lock().ok().and_then(|mut m| m.remove(n));
                // a name made by `share t as st` keeps the table as a session variable
                if let Some(v) = gone {
                    let names: Vec<String> = i.aliases.iter().filter(|(_, t)| *t == n).map(|(a, _)| a.clone()).collect();
                    for a in names {
                        i.aliases.remove(&a);
                        i.globals.insert(a, v.clone());
                    }
                }
            }
            _ => {
                i.functions.retain(|k, _| k != n && !k.ends_with(&format!("::{n}")));
            }
        }
    }
    Ok(Value::Void)
}

fn obj_by_name(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let name = args[0].as_str().ok_or_else(|| Error::arg("The name argument of [objByName] must be a string"))?.to_string();
    let shared_only = opt(&args, 1).and_then(|v| v.as_bool()).unwrap_or(false);
    if !shared_only {
        if let Some(v) = i.get_var(&name) {
            return Ok(v.clone());
        }
    }
    i.get_shared(&name).ok_or_else(|| Error::name(format!("Can't find the object named {name}")))
}

fn member(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let key = args[1].clone();
    match &args[0] {
        Value::Table(t) => {
            let name = key.as_str().ok_or_else(|| Error::arg("The member of a table must be a column name"))?;
            t.column(name).map(|c| Value::Vector(c.clone())).ok_or_else(|| Error::name(format!("Unrecognized column name [{name}]")))
        }
        Value::Dict(_) => i.index_value(args[0].clone(), vec![key]),
        other => Err(Error::unsupported("member", describe(other))),
    }
}

fn mem_size_fn(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    Ok(Value::long(mem_size(&args[0])))
}

fn mem(i: &mut CallCtx, _args: Vec<Value>) -> Result<Value> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| -> i64 {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|x| x.parse::<i64>().ok())
            .unwrap_or(0)
            * 1024
    };
    let used: i64 = i.globals().values().map(mem_size).sum();
    let keys = vec![Value::string("allocatedBytes"), Value::string("freeBytes"), Value::string("residentBytes")];
    let vals = vec![Value::long(used), Value::long(0), Value::long(kb("VmRSS:"))];
    beluga_runtime::eval::build_dict_pub(&keys, vals, true)
}

fn ref_count(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let name = args[0].as_str().ok_or_else(|| Error::arg("The argument of [refCount] must be a variable name"))?;
    let v = i.get_var(name).ok_or_else(|| Error::name(format!("Cannot recognize the token {name}")))?;
    let n = match v {
        Value::Table(t) => Arc::strong_count(t),
        Value::Dict(d) => Arc::strong_count(d),
        Value::Tuple(t) => Arc::strong_count(t),
        Value::Matrix(m) => Arc::strong_count(m),
        Value::Set(s) => Arc::strong_count(s),
        Value::Vector(c) | Value::Scalar(c) | Value::Pair(c) => Arc::strong_count(&c.data),
        _ => 1,
    };
    Ok(Value::int(n as i32))
}

// ------------------------------------------------------------------ running code

fn run(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let path = args[0].as_str().ok_or_else(|| Error::arg("The scriptFile argument of [run] must be a string"))?.to_string();
    let base = i.current_file.as_ref().and_then(|f| f.parent().map(|p| p.to_path_buf()));
    let full = i.policy.script_path(base.as_deref(), &path)?;
    let text = std::fs::read_to_string(&full).map_err(|e| Error::new(ErrorKind::Io, format!("Can't read the script {}: {e}", full.display())))?;
    let saved = i.current_file.replace(full.clone());
    let r = i.run_source(&text, None);
    i.current_file = saved;
    r.map(|_| Value::Void).map_err(|e| Interpreter::file_syntax_error(&full, &text, e))
}

fn run_script(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let text = args[0].as_str().ok_or_else(|| Error::arg("The script argument of [runScript] must be a string"))?.to_string();
    i.run_source(&text, None).map(|_| Value::Void)
}

fn eval_timer(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let funcs: Vec<Value> = match &args[0] {
        Value::Tuple(t) => t.iter().cloned().collect(),
        other => vec![other.clone()],
    };
    let count = match opt(&args, 1) {
        Some(v) => int_arg("evalTimer", v, "count")?.max(1),
        None => 1,
    };
    let mut names = Vec::with_capacity(funcs.len());
    let mut costs = Vec::with_capacity(funcs.len());
    for f in &funcs {
        let start = std::time::Instant::now();
        for _ in 0..count {
            i.check_interrupt()?;
            i.call_value(f, vec![])?;
        }
        costs.push(start.elapsed().as_secs_f64() * 1000.0);
        names.push(match f {
            Value::Function(func) => i.func_name(func),
            other => describe(other),
        });
    }
    Ok(Value::table(Table::new(
        vec!["funcName".into(), "timeCost".into()],
        vec![strings(&names), Column::from_vec(DataType::Double, costs)],
    )?))
}

fn partial(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let func = match &args[0] {
        Value::Function(f) => f.clone(),
        other => return Err(Error::arg(format!("The first argument of [partial] must be a function, not {}", describe(other)))),
    };
    let fixed: Vec<Option<Value>> = args[1..].iter().map(|v| Some(v.clone())).collect();
    Ok(Value::Function(Func::partial(func, fixed, vec![])))
}

fn set_random_seed(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let seed = int_arg("setRandomSeed", &args[0], "seed")?;
    // splitmix64 of the seed: a non-zero xorshift state
    let mut z = (seed as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    *i.rng() = (z ^ (z >> 31)) | 1;
    Ok(Value::Void)
}

pub const DEFS: &[Builtin] = &[
    beluga_runtime::registry::fps("defined", Kind::System, 1, 2, defined, &["names", "type"]),
    fp("evalTimer", Kind::System, 1, 2, eval_timer, &["funcs", "count"]),
    f("getEnv", Kind::System, 1, 2, get_env),
    f("getHomeDir", Kind::System, 0, 0, get_home_dir),
    f("getOS", Kind::System, 0, 0, get_os),
    f("getOSBit", Kind::System, 0, 0, get_os_bit),
    f("mem", Kind::System, 0, 1, mem),
    fp("member", Kind::System, 2, 2, member, &["obj", "keyOrIndex"]),
    fp("memSize", Kind::System, 1, 1, mem_size_fn, &["obj"]),
    fp("objByName", Kind::System, 1, 2, obj_by_name, &["name", "sharedVar"]),
    fp("objs", Kind::System, 0, 1, objs, &["shared"]),
    f("partial", Kind::System, 1, u8::MAX, partial),
    fp("refCount", Kind::System, 1, 1, ref_count, &["varName"]),
    beluga_runtime::registry::fps("run", Kind::System, 1, 3, run, &["scriptFile", "newSession", "clean"]),
    beluga_runtime::registry::fps("runScript", Kind::System, 1, 1, run_script, &["script"]),
    fp("setMaxMemSize", Kind::System, 1, 1, set_max_mem_size, &["memSize"]),
    f("getMaxMemSize", Kind::System, 0, 0, get_max_mem_size),
    fp("setRandomSeed", Kind::System, 1, 1, set_random_seed, &["seed"]),
    fp("sleep", Kind::System, 1, 1, sleep, &["milliseconds"]),
    beluga_runtime::registry::fps("undef", Kind::System, 1, 2, undef, &["obj", "objType"]),
    f("version", Kind::System, 0, 0, version),
];

pub mod io;
pub mod node;

/// The system family's rows: session and environment, file I/O, the single node's
/// cluster calls.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, io::DEFS, node::DEFS].iter().for_each(|defs| r.extend(defs));
}
