//! Builtins: modifying containers in place (pop!, remove!, removeHead!, removeTail!, erase!,
//! clear!, dictUpdate!, push!, join!, appendTuple!, memberModify!), copies, set union,
//! duplicates and grouping helpers (isDuplicated, groups).

use beluga_runtime::CallCtx;
use crate::util::{col, describe, int_arg, opt};
use beluga_runtime::column::Column;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::value::{Dict, DictVals, Key, Matrix, SetVal};
use beluga_runtime::{DataType, Error, Result, Value};
use std::sync::Arc;

// ------------------------------------------------------------------ grouping helpers

/// Group ids of rows keyed by one or more equal-length columns, numbered in order of first
/// appearance. Returns (id per row, number of groups, first row of each group).
pub fn group_ids(cols: &[Column]) -> Result<(Vec<u32>, usize, Vec<usize>)> {
    let n = cols.first().map(|c| c.len()).unwrap_or(0);
    if cols.iter().any(|c| c.len() != n) {
        return Err(Error::size("All grouping columns must have the same length"));
    }
    // the one grouping kernel, shared with SQL `group by`
    let refs: Vec<&Column> = cols.iter().collect();
    let g = beluga_runtime::kernels::group::group_ids(&refs);
    Ok((g.gid, g.n, g.first))
}

/// Group ids renumbered so that groups are in ascending order of their keys.
pub fn sorted_group_ids(cols: &[Column]) -> Result<(Vec<u32>, usize, Vec<usize>)> {
    let (ids, g, firsts) = group_ids(cols)?;
    let keys: Vec<Column> = cols.iter().map(|c| c.take_usize(&firsts)).collect();
    let order = crate::order::argsort_multi(&keys, &[true])?;
    let mut renum = vec![0u32; g];
    for (new, &old) in order.iter().enumerate() {
        renum[old] = new as u32;
    }
    let ids: Vec<u32> = ids.iter().map(|&x| renum[x as usize]).collect();
    let firsts: Vec<usize> = order.iter().map(|&o| firsts[o]).collect();
    Ok((ids, g, firsts))
}

/// Row indices of each group (in row order).
pub fn group_members(ids: &[u32], g: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); g];
    for (r, &id) in ids.iter().enumerate() {
        out[id as usize].push(r);
    }
    out
}

/// Columns of a grouping argument: a vector, a tuple of vectors, or a table.
pub fn key_cols(name: &str, v: &Value) -> Result<Vec<Column>> {
    match v {
        Value::Tuple(items) => items.iter().map(|x| col(name, x)).collect(),
        Value::Table(t) => Ok(t.cols.clone()),
        Value::Matrix(m) => Ok((0..m.cols).map(|c| m.column(c)).collect()),
        other => Ok(vec![col(name, other)?]),
    }
}

pub fn rebuild_dict(d: &Dict, keep: &[usize]) -> Dict {
    let keys = d.keys.take_usize(keep);
    let vals = match &d.vals {
        DictVals::Col(c) => DictVals::Col(c.take_usize(keep)),
        DictVals::Any(v) => DictVals::Any(keep.iter().map(|&i| v[i].clone()).collect()),
    };
    let index = (0..keys.len()).map(|i| (Key::of(&keys, i), i)).collect();
    Dict { keys, vals, index, ordered: d.ordered, key_type: d.key_type, val_type: d.val_type }
}

pub fn rebuild_set(items: Column) -> SetVal {
    let index = (0..items.len()).map(|i| (Key::of(&items, i), i)).collect();
    SetVal { items, index }
}

fn keep_except(n: usize, drop: &[bool]) -> Vec<usize> {
    (0..n).filter(|&i| !drop[i]).collect()
}

// ------------------------------------------------------------------ in-place removal

fn pop(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Vector(c) => {
            let n = c.len();
            if n == 0 {
                return Ok(Value::null_of(c.ty));
            }
            *i.inplace_out() = Some(Value::Vector(c.slice(0, n - 1)));
            Ok(Value::Scalar(c.slice(n - 1, n)))
        }
        Value::Tuple(t) => {
            let mut v = (**t).clone();
            let last = v.pop().unwrap_or(Value::Void);
            *i.inplace_out() = Some(Value::tuple(v));
            Ok(last)
        }
        other => Err(Error::unsupported("pop!", describe(other))),
    }
}

fn index_list(name: &str, v: &Value, n: usize) -> Result<Vec<bool>> {
    let c = col(name, v)?;
    if c.ty == DataType::Bool && c.len() == n && !v.is_scalar() {
        return Ok((0..n).map(|k| c.i64_at(k).map(|x| x != 0).unwrap_or(false)).collect());
    }
    if !c.ty.is_integral() {
        return Err(Error::arg(format!("The index argument of [{name}] must be integral")));
    }
    let mut drop = vec![false; n];
    for k in 0..c.len() {
        if let Some(p) = c.i64_at(k) {
            if p < 0 || p as usize >= n {
                return Err(Error::arg(format!("The index {p} of [{name}] is out of range")));
            }
            drop[p as usize] = true;
        }
    }
    Ok(drop)
}

fn remove(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Vector(c) => {
            let drop = index_list("remove!", &args[1], c.len())?;
            Ok(Value::Vector(c.take_usize(&keep_except(c.len(), &drop))))
        }
        Value::Tuple(t) => {
            let drop = index_list("remove!", &args[1], t.len())?;
            Ok(Value::tuple(t.iter().enumerate().filter(|(k, _)| !drop[*k]).map(|(_, v)| v.clone()).collect()))
        }
        Value::Table(t) => {
            let drop = index_list("remove!", &args[1], t.rows())?;
            Ok(Value::table(t.take_usize(&keep_except(t.rows(), &drop))))
        }
        other => Err(Error::unsupported("remove!", describe(other))),
    }
}

fn remove_ends(name: &str, v: &Value, n: i64, head: bool) -> Result<Value> {
    if n < 0 {
        return Err(Error::arg(format!("The n argument of [{name}] must be non-negative")));
    }
    let range = |len: usize| -> (usize, usize) {
        let n = (n as usize).min(len);
        if head { (n, len) } else { (0, len - n) }
    };
    match v {
        Value::Vector(c) => {
            let (a, b) = range(c.len());
            Ok(Value::Vector(c.slice(a, b)))
        }
        Value::Tuple(t) => {
            let (a, b) = range(t.len());
            Ok(Value::tuple(t[a..b].to_vec()))
        }
        Value::Table(t) => {
            let (a, b) = range(t.rows());
            Ok(Value::table(t.slice(a, b)))
        }
        other => Err(Error::unsupported(name, describe(other))),
    }
}

fn remove_head(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let n = match opt(&args, 1) {
        Some(v) => int_arg("removeHead!", v, "n")?,
        None => 1,
    };
    remove_ends("removeHead!", &args[0], n, true)
}

fn remove_tail(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let n = match opt(&args, 1) {
        Some(v) => int_arg("removeTail!", v, "n")?,
        None => 1,
    };
    remove_ends("removeTail!", &args[0], n, false)
}

fn erase(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Dict(d) => {
            let k = col("erase!", &args[1])?;
            let (dk, k) = crate::order_search::align_keys(&d.keys, &k)?;
            let gone: ahash::AHashSet<Key> = (0..k.len()).map(|j| Key::of(&k, j)).collect();
            let keep: Vec<usize> = (0..dk.len()).filter(|&j| !gone.contains(&Key::of(&dk, j))).collect();
            Ok(Value::Dict(Arc::new(rebuild_dict(d, &keep))))
        }
        Value::Set(s) => {
            let k = col("erase!", &args[1])?;
            let (items, k) = crate::order_search::align_keys(&s.items, &k)?;
            let gone: ahash::AHashSet<Key> = (0..k.len()).map(|j| Key::of(&k, j)).collect();
            let keep: Vec<usize> = (0..items.len()).filter(|&j| !gone.contains(&Key::of(&items, j))).collect();
            Ok(Value::Set(Arc::new(rebuild_set(s.items.take_usize(&keep)))))
        }
        Value::Table(t) => {
            let mask = match &args[1] {
                Value::Code(e) => crate::table::eval_with_columns(i, t, e)?,
                other => other.clone(),
            };
            let m = col("erase!", &mask)?;
            if m.len() != t.rows() && m.len() != 1 {
                return Err(Error::size("The filter of [erase!] must have one value per row"));
            }
            let keep: Vec<usize> = (0..t.rows())
                .filter(|&r| !m.i64_at(if m.len() == 1 { 0 } else { r }).map(|x| x != 0).unwrap_or(false))
                .collect();
            Ok(Value::table(t.take_usize(&keep)))
        }
        other => Err(Error::unsupported("erase!", describe(other))),
    }
}

fn clear(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    Ok(match &args[0] {
        Value::Vector(c) => Value::Vector(c.slice(0, 0)),
        Value::Matrix(m) => Value::Matrix(Arc::new(Matrix {
            data: m.data.slice(0, 0),
            rows: m.rows,
            cols: 0,
            row_labels: m.row_labels.clone(),
            col_labels: None,
            indexed: false,
        })),
        Value::Set(s) => Value::Set(Arc::new(rebuild_set(s.items.slice(0, 0)))),
        Value::Dict(d) => Value::Dict(Arc::new(rebuild_dict(d, &[]))),
        Value::Table(t) => Value::table(t.slice(0, 0)),
        Value::Tuple(_) => Value::tuple(vec![]),
        other => return Err(Error::unsupported("clear!", describe(other))),
    })
}

// ------------------------------------------------------------------ dictionaries

/// Whether a dictionary has the key in the one-element column `k` (converted like `d[k]`).
pub fn dict_has(d: &Dict, k: &Column) -> bool {
    let kc = if k.ty != d.key_type && !(k.ty.is_literal() && d.key_type.is_literal()) {
        beluga_runtime::kernels::cast::cast_column(k, d.key_type).unwrap_or_else(|_| k.clone())
    } else {
        k.clone()
    };
    !kc.is_empty() && d.index.contains_key(&Key::of(&kc, 0))
}

fn dict_update(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let d = match &args[0] {
        Value::Dict(d) => d.clone(),
        other => return Err(Error::unsupported("dictUpdate!", describe(other))),
    };
    let func = args[1].clone();
    let keys = &args[2];
    let params = &args[3];
    let init = opt(&args, 4).cloned();
    let kc = col("dictUpdate!", keys)?;
    let n = kc.len();
    let param_at = |k: usize| -> Value {
        match params {
            Value::Vector(c) | Value::Pair(c) if c.len() == n => Value::Scalar(c.slice(k, k + 1)),
            Value::Tuple(t) if t.len() == n => t[k].clone(),
            other => other.clone(),
        }
    };
    let mut cur = Value::Dict(d);
    for k in 0..n {
        let key = Value::Scalar(kc.slice(k, k + 1));
        let exists = match &cur {
            Value::Dict(dd) => dict_has(dd, &kc.slice(k, k + 1)),
            _ => false,
        };
        let p = param_at(k);
        let newv = if exists {
            let old = i.index_value(cur.clone(), vec![key.clone()])?;
            i.call_value(&func, vec![old, p])?
        } else {
            match &init {
                Some(f) => i.call_value(f, vec![p])?,
                None => p,
            }
        };
        cur = i.assign_index(cur, &[Some(key)], newv)?;
    }
    Ok(cur)
}

// ------------------------------------------------------------------ appending

fn push(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    i.call_builtin_by_name("append!", args)
}

/// `join(X, Y)` / `X <- Y`, including matrices (add columns).
pub fn join_values(x: &Value, y: &Value) -> Result<Value> {
    if let Value::Matrix(m) = x {
        let c = match y {
            Value::Vector(c) => c.clone(),
            Value::Matrix(n) if n.rows == m.rows => n.data.clone(),
            _ => return Err(Error::size("The vector or matrix joined to a matrix must have the same number of rows")),
        };
        if m.rows == 0 || c.len() % m.rows != 0 {
            return Err(Error::size("The vector or matrix joined to a matrix must have the same number of rows"));
        }
        let ty = beluga_runtime::types::common_type(m.data.ty, c.ty)
            .ok_or_else(|| Error::type_err(format!("Can't join {} with {}", m.data.ty, c.ty)))?;
        let a = if m.data.ty != ty { beluga_runtime::kernels::cast::cast_column(&m.data, ty)? } else { m.data.clone() };
        let b = if c.ty != ty { beluga_runtime::kernels::cast::cast_column(&c, ty)? } else { c.clone() };
        return Ok(Value::Matrix(Arc::new(Matrix {
            data: Column::concat(ty, &[&a, &b]),
            rows: m.rows,
            cols: m.cols + c.len() / m.rows,
            row_labels: m.row_labels.clone(),
            col_labels: None,
            indexed: false,
        })));
    }
    beluga_runtime::eval::ops::join(x, y)
}

fn join(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    join_values(&args[0], &args[1])
}

fn join_inplace(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Table(_) | Value::Vector(_) => i.call_builtin_by_name("append!", args),
        _ => join_values(&args[0], &args[1]),
    }
}

fn append_tuple(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let mut t = match &args[0] {
        Value::Tuple(t) => (**t).clone(),
        other => return Err(Error::unsupported("appendTuple!", describe(other))),
    };
    let whole = opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(false);
    match &args[1] {
        Value::Tuple(y) if !whole => t.extend(y.iter().cloned()),
        Value::Tuple(_) => t.push(args[1].clone()),
        other => return Err(Error::arg(format!("The Y argument of [appendTuple!] must be a tuple, not {}", describe(other)))),
    }
    Ok(Value::tuple(t))
}

fn member_modify(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let mut t = match &args[0] {
        Value::Tuple(t) => (**t).clone(),
        other => return Err(Error::unsupported("memberModify!", describe(other))),
    };
    let func = args[1].clone();
    let idx = col("memberModify!", &args[2])?;
    let params = opt(&args, 3).cloned();
    for k in 0..idx.len() {
        let p = idx.i64_at(k).ok_or_else(|| Error::arg("The indices of [memberModify!] can't be null"))?;
        if p < 0 || p as usize >= t.len() {
            return Err(Error::arg(format!("The index {p} of [memberModify!] is out of range")));
        }
        let mut call_args = vec![t[p as usize].clone()];
        if let Some(ps) = &params {
            let arg = match ps {
                Value::Tuple(pt) if pt.len() == idx.len() && !args[2].is_scalar() => pt[k].clone(),
                other => other.clone(),
            };
            call_args.push(arg);
        }
        // the function modifies the member in place: its first argument is the new member
        let name = match &func {
            Value::Function(fu) => i.func_name(fu),
            _ => String::new(),
        };
        *i.inplace_out() = None;
        let r = i.call_value(&func, call_args)?;
        let newv = if name.ends_with('!') { i.inplace_out().take().unwrap_or(r) } else { r };
        t[p as usize] = newv;
    }
    Ok(Value::tuple(t))
}

fn copy(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    Ok(args[0].clone())
}

fn deep_copy(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    fn deep(v: &Value) -> Value {
        match v {
            Value::Tuple(t) => Value::tuple(t.iter().map(deep).collect()),
            Value::Scalar(c) => Value::Scalar(Column::new(c.ty, (*c.data).clone())),
            Value::Vector(c) => Value::Vector(Column::new(c.ty, (*c.data).clone())),
            Value::Table(t) => Value::table((**t).clone()),
            Value::Dict(d) => Value::Dict(Arc::new((**d).clone())),
            other => other.clone(),
        }
    }
    Ok(deep(&args[0]))
}

// ------------------------------------------------------------------ sets and duplicates

fn as_set(name: &str, v: &Value) -> Result<Arc<SetVal>> {
    match v {
        Value::Set(s) => Ok(s.clone()),
        other => match beluga_runtime::eval::ops::make_set(col(name, other)?) {
            Value::Set(s) => Ok(s),
            _ => Err(Error::unsupported(name, describe(other))),
        },
    }
}

fn union(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = as_set("union", &args[0])?;
    let y = as_set("union", &args[1])?;
    let (xi, yi) = crate::order_search::align_keys(&x.items, &y.items)?;
    let xkeys: ahash::AHashSet<Key> = (0..xi.len()).map(|k| Key::of(&xi, k)).collect();
    let extra: Vec<usize> = (0..yi.len()).filter(|&k| !xkeys.contains(&Key::of(&yi, k))).collect();
    let add = y.items.take_usize(&extra);
    let add = if add.ty != x.items.ty { beluga_runtime::kernels::cast::cast_column(&add, x.items.ty)? } else { add };
    Ok(Value::Set(Arc::new(rebuild_set(Column::concat(x.items.ty, &[&x.items, &add])))))
}

fn keep_policy(v: Option<&Value>) -> Result<i64> {
    match v {
        None => Ok(0),
        Some(Value::Constant(_, n)) => Ok(*n as i64),
        Some(x) => {
            if let Some(s) = x.as_str() {
                return match s.to_ascii_uppercase().as_str() {
                    "FIRST" => Ok(0),
                    "LAST" => Ok(1),
                    "NONE" => Ok(2),
                    _ => Err(Error::arg("The keep argument of [isDuplicated] must be FIRST, LAST or NONE")),
                };
            }
            x.as_i64().filter(|k| (0..=2).contains(k)).ok_or_else(|| {
                Error::arg("The keep argument of [isDuplicated] must be FIRST, LAST or NONE")
            })
        }
    }
}

fn is_duplicated(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let keep = keep_policy(opt(&args, 1))?;
    let cols = key_cols("isDuplicated", &args[0])?;
    let (ids, g, _) = group_ids(&cols)?;
    let n = ids.len();
    let mut out = vec![0i8; n];
    match keep {
        0 => {
            let mut seen = vec![false; g];
            for r in 0..n {
                let id = ids[r] as usize;
                out[r] = seen[id] as i8;
                seen[id] = true;
            }
        }
        1 => {
            let mut seen = vec![false; g];
            for r in (0..n).rev() {
                let id = ids[r] as usize;
                out[r] = seen[id] as i8;
                seen[id] = true;
            }
        }
        _ => {
            let mut cnt = vec![0u32; g];
            for &id in &ids {
                cnt[id as usize] += 1;
            }
            for r in 0..n {
                out[r] = (cnt[ids[r] as usize] > 1) as i8;
            }
        }
    }
    Ok(Value::Vector(Column::from_vec(DataType::Bool, out)))
}

fn groups(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let x = match &args[0] {
        Value::Vector(c) | Value::Pair(c) => c.clone(),
        other => return Err(Error::unsupported("groups", describe(other))),
    };
    let mode = opt(&args, 1).and_then(|v| v.as_str()).unwrap_or("dict").to_ascii_lowercase();
    let sorted = mode != "dict";
    let (ids, g, firsts) = if sorted { sorted_group_ids(&[x.clone()])? } else { group_ids(&[x.clone()])? };
    let members = group_members(&ids, g);
    let vecs: Vec<Value> = members
        .iter()
        .map(|m| Value::Vector(Column::from_vec(DataType::Int, m.iter().map(|&r| r as i32).collect::<Vec<i32>>())))
        .collect();
    let keys = x.take_usize(&firsts);
    match mode.as_str() {
        "dict" => {
            let index = (0..keys.len()).map(|k| (Key::of(&keys, k), k)).collect();
            let kt = keys.ty;
            Ok(Value::Dict(Arc::new(Dict {
                keys,
                vals: DictVals::Any(vecs),
                index,
                ordered: false,
                key_type: kt,
                val_type: DataType::Any,
            })))
        }
        "table" => {
            // DolphinDB stores the indices in an array vector column; we keep one index
            // vector per key in a tuple column-free form: a table of keys plus the tuple.
            Err(Error::unsupported("groups", "mode 'table' (array vector columns are not supported)"))
        }
        "vector" | "tuple" => Ok(Value::tuple(vecs)),
        other => Err(Error::arg(format!("The mode argument of [groups] must be dict, table, vector or tuple, not {other}"))),
    }
}

pub const DEFS: &[Builtin] = &[
    fp("appendTuple!", Kind::System, 2, 3, append_tuple, &["X", "Y", "wholistic"]),
    f("asis", Kind::System, 1, 1, copy),
    fp("clear!", Kind::System, 1, 1, clear, &["X"]),
    f("copy", Kind::System, 1, 1, copy),
    f("deepCopy", Kind::System, 1, 1, deep_copy),
    fp("dictUpdate!", Kind::System, 4, 5, dict_update, &["dictionary", "function", "keys", "parameters", "initFunc"]),
    fp("erase!", Kind::System, 2, 2, erase, &["obj", "key"]),
    fp("groups", Kind::System, 1, 2, groups, &["X", "mode"]),
    fp("isDuplicated", Kind::VectorToVector, 1, 2, is_duplicated, &["X", "keep"]),
    fp("join", Kind::System, 2, 2, join, &["X", "Y"]),
    fp("join!", Kind::System, 2, 2, join_inplace, &["X", "Y"]),
    fp("memberModify!", Kind::System, 3, 4, member_modify, &["obj", "function", "indices", "parameters"]),
    fp("pop!", Kind::System, 1, 1, pop, &["obj"]),
    f("push!", Kind::System, 2, 3, push),
    fp("remove!", Kind::System, 2, 2, remove, &["obj", "index"]),
    fp("removeHead!", Kind::System, 1, 2, remove_head, &["obj", "n"]),
    fp("removeTail!", Kind::System, 1, 2, remove_tail, &["obj", "n"]),
    fp("union", Kind::System, 2, 2, union, &["X", "Y"]),
];

// The family's other files (stdlib/src/containers/); lib.rs keeps the old flat paths as aliases.
pub mod access;
pub mod fill;
pub mod misc;
pub mod shift;
pub mod tests;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, access::DEFS, fill::DEFS, misc::DEFS, shift::DEFS].iter().for_each(|defs| r.extend(defs));
}
