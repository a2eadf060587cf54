//! Data sources and map-reduce over stored tables: `sqlDS(<select … from pt …>)` splits a
//! query into one data source per partition, and `mr(ds, map, [reduce], [final],
//! [parallel])` maps a function over data sources (on rayon, one worker interpreter per
//! source) and folds the results. Why: DolphinDB users write distributed computations
//! this way (funcs/s/sqlDS.md, funcs/m/mr.md); the answers equal the serial query's.
//!
//! A data source here is materialized: the query applied to one partition's rows (a
//! table), rather than DolphinDB's lazy DataSource object; `mr` also accepts metacode
//! data sources and evaluates them. The builtins live here, beside the SQL executor,
//! because splitting a query needs its syntax; the storage crate registers them and reads
//! partitions only through `TableSource`.

use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::table_source::{table_source, Scan};
use crate::value::Value;
use beluga_lang::ast::{Expr, ExprKind, FromItem};
use rayon::prelude::*;

/// Hidden session variable through which one partition is handed to the query.
const PART_VAR: &str = "__sqlds_partition";

/// `sqlDS(sqlObj)`: one data source per partition of the stored table the query reads.
pub fn sql_ds(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let q = match &args[0] {
        Value::Code(e) => match &e.kind {
            ExprKind::Select(q) => q.clone(),
            _ => return Err(Error::arg("sqlDS: sqlObj must be metacode of a select query, e.g. <select * from pt>")),
        },
        _ => return Err(Error::arg("sqlDS: sqlObj must be metacode of a select query, e.g. <select * from pt>")),
    };
    let (src, alias) = match &q.from {
        Some(FromItem::Table(e, alias)) => (e.clone(), alias.clone()),
        _ => return Err(Error::arg("sqlDS: the query must read one table (no joins)")),
    };
    let t = i.eval(&src)?;
    let parts = match table_source(&t) {
        Some(src) => {
            let names: Vec<String> = src.schema()?.into_iter().map(|(n, _)| n).collect();
            let preds = super::lower::lower_preds(i, &names, &q.where_);
            src.scan(Scan { preds: &preds, split: true, ..Scan::default() })?
        }
        // an in-memory table is one data source
        None => match &t {
            Value::Table(t) => vec![(**t).clone()],
            _ => return Err(Error::arg("sqlDS: the query must select from a table")),
        },
    };
    let span = src.span;
    let mut per_part = (*q).clone();
    per_part.from = Some(FromItem::Table(Expr::new(ExprKind::Ident(PART_VAR.to_string()), span), alias));
    let code = Expr::new(ExprKind::Select(Box::new(per_part)), span);
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        i.globals.insert(PART_VAR.to_string(), Value::table(p));
        let r = i.eval(&code);
        i.globals.remove(PART_VAR);
        out.push(r?);
    }
    Ok(Value::tuple(out))
}

/// What a worker interpreter takes from the session (shared, read-only values).
struct Snapshot {
    registry: std::sync::Arc<crate::Registry>,
    globals: ahash::AHashMap<String, Value>,
    functions: ahash::AHashMap<String, Value>,
    consts: ahash::AHashSet<String>,
    shared: crate::eval::Shared,
    module_dir: std::path::PathBuf,
    interrupt: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Snapshot {
    fn of(i: &Interpreter) -> Snapshot {
        Snapshot {
            registry: i.registry.clone(),
            globals: i.globals.clone(),
            functions: i.functions.clone(),
            consts: i.consts.clone(),
            shared: i.shared.clone(),
            module_dir: i.module_dir.clone(),
            interrupt: i.interrupt.clone(),
        }
    }

    /// A worker interpreter with the session's functions, variables and shared objects.
    fn worker(&self) -> Interpreter {
        let mut w = Interpreter::with_registry(self.registry.clone());
        w.globals = self.globals.clone();
        w.functions = self.functions.clone();
        w.consts = self.consts.clone();
        w.shared = self.shared.clone();
        w.module_dir = self.module_dir.clone();
        w.interrupt = self.interrupt.clone();
        w
    }
}

fn materialize(w: &mut Interpreter, ds: &Value) -> Result<Value> {
    match ds {
        Value::Code(e) => w.eval(e),
        v => Ok(v.clone()),
    }
}

fn is_func(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| matches!(v, Value::Function(_)))
}

/// `reduce(a, b)`, applied element by element when both are tuples the function does not
/// take whole (a map function that returns several values).
fn reduce2(i: &mut Interpreter, f: &Value, a: Value, b: Value) -> Result<Value> {
    match (&a, &b) {
        (Value::Tuple(x), Value::Tuple(y)) if x.len() == y.len() => {
            let mut out = Vec::with_capacity(x.len());
            for (p, q) in x.iter().zip(y.iter()) {
                out.push(i.call_value(f, vec![p.clone(), q.clone()])?);
            }
            Ok(Value::tuple(out))
        }
        _ => i.call_value(f, vec![a, b]),
    }
}

/// `mr(ds, mapFunc, [reduceFunc], [finalFunc], [parallel=true])`.
pub fn mr(i: &mut Interpreter, args: Vec<Value>) -> Result<Value> {
    let ds: Vec<Value> = match &args[0] {
        Value::Tuple(items) => items.to_vec(),
        _ => return Err(Error::arg("mr: ds must be a tuple of data sources (wrap a single one in a tuple)")),
    };
    let map = is_func(args.get(1)).ok_or_else(|| Error::arg("mr: mapFunc must be a function"))?.clone();
    let reduce = is_func(args.get(2)).cloned();
    let fin = is_func(args.get(3)).cloned();
    let parallel = args.get(4).and_then(|v| v.as_bool()).unwrap_or(true);
    let mapped: Vec<Value> = if parallel && ds.len() > 1 {
        let base = Snapshot::of(i);
        let results: Vec<Result<Value>> = ds
            .par_iter()
            .map(|d| {
                let mut w = base.worker();
                let v = materialize(&mut w, d)?;
                w.call_value(&map, vec![v])
            })
            .collect();
        results.into_iter().collect::<Result<_>>()?
    } else {
        let mut out = Vec::with_capacity(ds.len());
        for d in &ds {
            let v = materialize(i, d)?;
            out.push(i.call_value(&map, vec![v])?);
        }
        out
    };
    let folded = match &reduce {
        Some(f) => {
            let mut it = mapped.into_iter();
            let mut acc = it.next().ok_or_else(|| Error::arg("mr: ds is empty"))?;
            for v in it {
                acc = reduce2(i, f, acc, v)?;
            }
            acc
        }
        None => Value::tuple(mapped),
    };
    match &fin {
        Some(f) => i.call_value(f, vec![folded]),
        None => Ok(folded),
    }
}
