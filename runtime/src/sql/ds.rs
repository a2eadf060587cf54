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

use crate::callctx::CallCtx;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::table_source::{table_source, Scan};
use crate::value::Value;
use beluga_lang::ast::{Expr, ExprKind, FromItem};
use rayon::prelude::*;

/// Hidden session variable through which one partition is handed to the query.
const PART_VAR: &str = "__sqlds_partition";

/// `sqlDS(sqlObj)`: one data source per partition of the stored table the query reads.
pub fn sql_ds(c: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let i = c.interp();
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
            let mut preds = super::lower::lower_preds(i, &names, &q.where_);
            preds.extend(super::lower::key_fn_preds(i, src, &preds));
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

/// Hidden session variable holding the table `loadTableBySQL(tableName, dbPath, sql)` reads.
const LOAD_VAR: &str = "__loadtablebysql_table";

/// `loadTableBySQL(sql)` (funcs/l/loadTableBySQL.md), and the older form
/// `loadTableBySQL(tableName, dbPath, sql)` where `sql` (metacode or text) selects from the
/// table `tableName` of the database at `dbPath`: the rows of a stored table that satisfy
/// the query's `where` (which prunes partitions like any query on a stored table), with
/// its columns (computed columns allowed), as an in-memory table. As the manual says, the
/// query may not use `top`, `limit`, `group by`, `context by`, `pivot by` or `order by`.
pub fn load_table_by_sql(c: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const F: &str = "loadTableBySQL";
    let (sql, table) = match args.len() {
        1 => (args[0].clone(), None),
        3 => {
            let sql = match &args[2] {
                Value::Code(_) => args[2].clone(),
                v => match v.as_str() {
                    Some(text) => c.call_builtin_by_name("parseExpr", vec![Value::string(text)])?,
                    None => return Err(Error::arg(format!("[{F}] sql must be metacode or a string of a select query"))),
                },
            };
            let t = c.call_builtin_by_name("loadTable", vec![args[1].clone(), args[0].clone()])?;
            (sql, Some(t))
        }
        n => return Err(Error::arg(format!("[{F}] takes sql, or tableName, dbPath and sql ({n} arguments given)"))),
    };
    let not_select = || Error::arg(format!("[{F}] sql must be metacode of a select query, e.g. <select * from pt where date = 2024.01.02>"));
    let mut q = match &sql {
        Value::Code(e) => match &e.kind {
            ExprKind::Select(q) => (**q).clone(),
            _ => return Err(not_select()),
        },
        _ => return Err(not_select()),
    };
    let refused = [
        (q.top.is_some(), "top"),
        (q.limit.is_some(), "limit"),
        (q.group.is_some(), "group by, context by or pivot by"),
        (!q.order.is_empty() || !q.csort.is_empty(), "order by"),
        (q.having.is_some(), "having"),
        (q.exec, "exec (use select)"),
    ];
    if let Some((_, what)) = refused.iter().find(|(bad, _)| *bad) {
        return Err(Error::arg(format!("[{F}] the query may not use {what}")));
    }
    let span = q.span;
    let i = c.interp();
    if let Some(t) = table {
        let alias = match &q.from {
            Some(FromItem::Table(_, alias)) => alias.clone(),
            None => None,
            Some(FromItem::Join(..)) => return Err(Error::arg(format!("[{F}] the query must read one table (no joins)"))),
        };
        q.from = Some(FromItem::Table(Expr::new(ExprKind::Ident(LOAD_VAR.to_string()), span), alias));
        i.globals.insert(LOAD_VAR.to_string(), t);
    } else if !matches!(q.from, Some(FromItem::Table(..))) {
        return Err(Error::arg(format!("[{F}] the query must read one table (no joins)")));
    }
    let r = i.eval(&Expr::new(ExprKind::Select(Box::new(q)), span));
    i.globals.remove(LOAD_VAR);
    r
}

use super::mapreduce::Snapshot;

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
pub fn mr(c: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let i = c.interp();
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

/// `imr(ds, initValue, mapFunc, [reduceFunc], [finalFunc], terminateFunc, [carryover=false])`:
/// iterative map-reduce. The data sources are materialized once and reused by every
/// iteration. Each iteration maps every source with the current estimate (and, with
/// carryover, the object the same source's map call returned last time: the last element of
/// its tuple result), reduces the map results (a tuple of them without reduceFunc) and
/// calls finalFunc(previous estimate, reduced) for the new estimate (the reduced value
/// itself without finalFunc). terminateFunc(previous estimate, new estimate) returning true
/// ends the loop; an integer terminateFunc runs that many iterations. Returns the last
/// estimate.
pub fn imr(c: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let i = c.interp();
    let ds: Vec<Value> = match &args[0] {
        Value::Tuple(items) => items.to_vec(),
        _ => return Err(Error::arg("imr: ds must be a tuple of data sources (wrap a single one in a tuple)")),
    };
    if ds.is_empty() {
        return Err(Error::arg("imr: ds is empty"));
    }
    let init = args.get(1).cloned().unwrap_or(Value::Void);
    let map = is_func(args.get(2)).ok_or_else(|| Error::arg("imr: mapFunc must be a function"))?.clone();
    let reduce = is_func(args.get(3)).cloned();
    let fin = is_func(args.get(4)).cloned();
    let term = args.get(5).cloned().unwrap_or(Value::Void);
    let max_iter: Option<i64> = match &term {
        Value::Scalar(_) => Some(term.as_i64().filter(|&n| n >= 0).ok_or_else(|| {
            Error::arg("imr: terminateFunc must be a function or a non-negative iteration count")
        })?),
        _ if is_func(Some(&term)).is_some() => None,
        _ => return Err(Error::arg("imr: terminateFunc must be a function or a non-negative iteration count")),
    };
    let carryover = args.get(6).and_then(|v| v.as_bool()).unwrap_or(false);
    let data: Vec<Value> = ds.iter().map(|d| materialize(i, d)).collect::<Result<_>>()?;
    let mut carry: Vec<Value> = vec![Value::Void; data.len()];
    let mut est = init;
    let mut iter: i64 = 0;
    loop {
        if let Some(n) = max_iter {
            if iter >= n {
                return Ok(est);
            }
        }
        i.check_interrupt()?;
        let mut mapped = Vec::with_capacity(data.len());
        for (k, d) in data.iter().enumerate() {
            let mut a = vec![d.clone(), est.clone()];
            if carryover {
                a.push(carry[k].clone());
            }
            let r = i.call_value(&map, a)?;
            let r = if carryover {
                match r {
                    Value::Tuple(t) if t.len() >= 2 => {
                        carry[k] = t[t.len() - 1].clone();
                        if t.len() == 2 {
                            t[0].clone()
                        } else {
                            Value::tuple(t[..t.len() - 1].to_vec())
                        }
                    }
                    _ => return Err(Error::arg("imr: with carryover the map function must return a tuple whose last element is carried over")),
                }
            } else {
                r
            };
            mapped.push(r);
        }
        let reduced = match &reduce {
            Some(f) => {
                let mut it = mapped.into_iter();
                let mut acc = it.next().unwrap_or(Value::Void);
                for v in it {
                    acc = reduce2(i, f, acc, v)?;
                }
                acc
            }
            None => Value::tuple(mapped),
        };
        let next = match &fin {
            Some(f) => i.call_value(f, vec![est.clone(), reduced])?,
            None => reduced,
        };
        iter += 1;
        if max_iter.is_none() {
            let stop = i.call_value(&term, vec![est.clone(), next.clone()])?;
            est = next;
            if stop.as_bool().ok_or_else(|| Error::arg("imr: terminateFunc must return a boolean"))? {
                return Ok(est);
            }
        } else {
            est = next;
        }
    }
}

/// `repartitionDS(query, [column], [partitionType], [partitionScheme], [local])`: the rows
/// of a query split into data sources by a column instead of by the stored partitions
/// (funcs/r/repartitionDS.md): VALUE gives one data source per value of the scheme (every
/// distinct value of the column, ascending, when no scheme is given), RANGE one per
/// interval [scheme[k], scheme[k+1]). The column is converted to the scheme's type first
/// (a TIMESTAMP column split by DATE values goes by day). Without a column the query is
/// split as `sqlDS` splits it. Empty data sources are left out; rows outside the scheme
/// (or NULL in the column) belong to none.
pub fn repartition_ds(c: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    use crate::column::Column;
    const F: &str = "repartitionDS";
    let given = |k: usize| args.get(k).filter(|v| !matches!(v, Value::Void));
    let Some(colv) = given(1) else {
        return sql_ds(c, vec![args[0].clone()]);
    };
    let Value::Code(q) = &args[0] else {
        return Err(Error::arg(format!("{F}: query must be metacode of a select query, e.g. <select * from pt>")));
    };
    let name = colv.as_str().ok_or_else(|| Error::arg(format!("{F}: column must be a column name")))?.to_string();
    let kind = match given(2) {
        None => 1,
        Some(v) => v.as_i64().ok_or_else(|| Error::arg(format!("{F}: partitionType must be VALUE or RANGE")))?,
    };
    if kind != 1 && kind != 2 {
        return Err(Error::arg(format!("{F}: partitionType must be VALUE or RANGE")));
    }
    let Value::Table(t) = c.eval(q)? else {
        return Err(Error::arg(format!("{F}: the query must return a table")));
    };
    let col = t.column(&name).ok_or_else(|| Error::arg(format!("{F}: {name} is not a column of the query's result")))?.clone();
    let scheme: Option<Column> = match given(3) {
        Some(Value::Vector(s)) | Some(Value::Scalar(s)) | Some(Value::Pair(s)) => Some(s.clone()),
        Some(_) => return Err(Error::arg(format!("{F}: partitionScheme must be a vector"))),
        None if kind == 2 => return Err(Error::arg(format!("{F}: a RANGE split needs partitionScheme"))),
        None => None,
    };
    split_rows(&t, col, kind, scheme)
}

/// The rows of `t` split by the values of `col` (one of its columns, or a column derived
/// from one): VALUE (kind 1) per value of `scheme` (every distinct value ascending when
/// None), RANGE (kind 2) per interval of `scheme`; a tuple of the non-empty parts.
fn split_rows(t: &crate::table::Table, col: crate::column::Column, kind: i64, scheme: Option<crate::column::Column>) -> Result<Value> {
    use crate::types::DataType;
    use crate::value::Key;
    const F: &str = "repartitionDS";
    let col = match &scheme {
        Some(s) if s.ty != col.ty && s.ty != DataType::Void => crate::kernels::cast::cast_column(&col, s.ty)?,
        _ => col,
    };
    // ordering of keys of one type: integers and temporals, floats, text
    let cmp = |a: &Key, b: &Key| -> std::cmp::Ordering {
        match (a, b) {
            (Key::I(x), Key::I(y)) => x.cmp(y),
            (Key::F(x), Key::F(y)) => f64::from_bits(*x).total_cmp(&f64::from_bits(*y)),
            (Key::S(x), Key::S(y)) => x.cmp(y),
            (Key::B(x), Key::B(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        }
    };
    let row_keys: Vec<Option<Key>> = (0..col.len()).map(|r| (!col.is_null(r)).then(|| Key::of(&col, r))).collect();
    let bounds: Vec<Key> = match &scheme {
        Some(s) => (0..s.len()).filter(|&r| !s.is_null(r)).map(|r| Key::of(s, r)).collect(),
        None => {
            let mut v: Vec<Key> = row_keys.iter().flatten().cloned().collect::<ahash::AHashSet<Key>>().into_iter().collect();
            v.sort_by(|a, b| cmp(a, b));
            v
        }
    };
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); bounds.len()];
    if kind == 1 {
        let at: ahash::AHashMap<&Key, usize> = bounds.iter().enumerate().map(|(k, b)| (b, k)).collect();
        for (r, k) in row_keys.iter().enumerate() {
            if let Some(&b) = k.as_ref().and_then(|k| at.get(k)) {
                rows[b].push(r);
            }
        }
    } else {
        if bounds.windows(2).any(|w| cmp(&w[0], &w[1]) != std::cmp::Ordering::Less) {
            return Err(Error::arg(format!("{F}: a RANGE partitionScheme must increase")));
        }
        for (r, k) in row_keys.iter().enumerate() {
            let Some(k) = k else { continue };
            // the last boundary not above the value starts its interval
            let p = bounds.partition_point(|b| cmp(b, k) != std::cmp::Ordering::Greater);
            if p > 0 && p < bounds.len() {
                rows[p - 1].push(r);
            }
        }
    }
    Ok(Value::tuple(rows.into_iter().filter(|r| !r.is_empty()).map(|r| Value::table(t.take_usize(&r))).collect()))
}

/// `replayDS(sqlObj, [dateColumn], [timeColumn], [timeRepartitionSchema])`: data sources
/// for `replay`, one per date of `dateColumn` in ascending order (funcs/r/replayDS.md);
/// without a date column, one per partition as `sqlDS` gives them. The time-of-day split
/// of `timeRepartitionSchema` only bounds how much DolphinDB loads at once; the data
/// sources here are materialized, so it is accepted and the rows are the same.
pub fn replay_ds(c: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let Some(d) = args.get(1).filter(|v| !matches!(v, Value::Void)) else {
        return sql_ds(c, vec![args[0].clone()]);
    };
    let name = d.as_str().ok_or_else(|| Error::arg("replayDS: dateColumn must be a column name"))?;
    let Value::Code(q) = &args[0] else {
        return Err(Error::arg("replayDS: sqlObj must be metacode of a select query"));
    };
    let Value::Table(t) = c.eval(q)? else {
        return Err(Error::arg("replayDS: the query must return a table"));
    };
    let col = t.column(name).ok_or_else(|| Error::arg(format!("replayDS: {name} is not a column of the query's result")))?;
    // by day, whatever the precision of the date column
    let day = if col.ty.is_temporal() && col.ty != crate::types::DataType::Date && crate::kernels::cast::cast_column(col, crate::types::DataType::Date).is_ok() {
        crate::kernels::cast::cast_column(col, crate::types::DataType::Date)?
    } else {
        col.clone()
    };
    split_rows(&t, day, 1, None)
}
