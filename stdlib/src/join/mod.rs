//! Builtins: table joiners (ej, sej, lj, lsj, fj, cj, aj, wj, pwj) and the SQL predicate
//! functions (in, notIn, between, notBetween, notLike and their upper-case forms,
//! coalesce, nullIf, distinct). The row matching lives in `beluga_runtime::kernels::join`
//! and the result layout in `beluga_runtime::sql::join`, so that `a join b on …` in SQL
//! and these functions share one implementation.

use beluga_runtime::CallCtx;
use crate::table::{eval_with_columns, names_arg};
use crate::util::{col, describe, like_form, opt};
use beluga_lang::ast::BinOp;
use beluga_runtime::column::Column;
use beluga_runtime::eval::ops;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::kernels::join::asof::asof_rows;
use beluga_runtime::kernels::join::{align_key_types, shared_key_ids, EquiKind};
use beluga_runtime::sql::join::{assemble, cross_join, equi_join, key_indices, right_prefix, Layout};
use beluga_runtime::sql::order::{sort_perm, SortKey};
use beluga_runtime::types::common_type;
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

/// Prefix for right columns whose names collide: the table's name, else the name of the
/// variable holding this very table (tables are shared by `Arc`), else `rhs`.
fn prefix_of(i: &CallCtx, t: &Arc<Table>) -> String {
    if t.name.is_some() {
        return right_prefix(t);
    }
    let same = |v: &Value| matches!(v, Value::Table(x) if Arc::ptr_eq(x, t));
    let found = i.frames()
        .last()
        .and_then(|f| f.vars.iter().find(|(_, v)| same(v)).map(|(k, _)| k.clone()))
        .or_else(|| i.globals().iter().find(|(_, v)| same(v)).map(|(k, _)| k.clone()))
        .or_else(|| i.shared().lock().ok().and_then(|m| m.iter().find(|(_, v)| same(v)).map(|(k, _)| k.clone())));
    found.unwrap_or_else(|| right_prefix(t))
}

/// A table argument; a partitioned-table handle is loaded whole through the storage hook.
fn table_arg(_i: &mut CallCtx, name: &str, v: &Value) -> Result<Arc<Table>> {
    match v {
        Value::Table(t) => Ok(t.clone()),
        Value::Handle(h) => match h.table_source() {
            Some(src) => Ok(Arc::new(src.table()?)),
            None => Err(Error::arg(format!("[{name}] can't read this handle as a table"))),
        },
        other => Err(Error::arg(format!("The table arguments of [{name}] must be tables, not {}", describe(other)))),
    }
}

/// `matchingCols` and the optional `rightMatchingCols`.
fn key_names(name: &str, args: &[Value], k: usize) -> Result<(Vec<String>, Vec<String>)> {
    let l = names_arg(name, &args[k])?;
    let r = match opt(args, k + 1) {
        Some(v) => names_arg(name, v)?,
        None => l.clone(),
    };
    if l.len() != r.len() || l.is_empty() {
        return Err(Error::arg(format!("[{name}] needs the same number of left and right matching columns")));
    }
    Ok((l, r))
}

/// A row filter argument: a BOOL vector/scalar, or metacode evaluated on the table.
fn filter_arg(i: &mut CallCtx, name: &str, v: Option<&Value>, t: &Table) -> Result<Option<Vec<bool>>> {
    let v = match v {
        None => return Ok(None),
        Some(Value::Code(e)) => eval_with_columns(i, t, e)?,
        Some(v) => v.clone(),
    };
    let c = match &v {
        Value::Scalar(c) => {
            let keep = c.i64_at(0).map(|x| x != 0).unwrap_or(false);
            return Ok(Some(vec![keep; t.rows()]));
        }
        Value::Vector(c) if c.len() == t.rows() => c.clone(),
        other => {
            return Err(Error::arg(format!(
                "The filter of [{name}] must be a BOOL vector of the table length, not {}",
                describe(other)
            )))
        }
    };
    Ok(Some((0..c.len()).map(|k| c.i64_at(k).map(|x| x != 0).unwrap_or(false)).collect()))
}

fn equi(i: &mut CallCtx, name: &str, args: &[Value], kind: EquiKind) -> Result<Table> {
    let left = table_arg(i, name, &args[0])?;
    let right = table_arg(i, name, &args[1])?;
    let (lk, rk) = key_names(name, args, 2)?;
    let lf = filter_arg(i, name, opt(args, 4), &left)?;
    let rf = filter_arg(i, name, opt(args, 5), &right)?;
    let prefix = prefix_of(i, &right);
    let (t, _) = equi_join(&left, &right, &lk, &rk, kind, lf.as_deref(), rf.as_deref(), &prefix)?;
    Ok(t)
}

fn ej(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::table(equi(i, "ej", &a, EquiKind::Inner)?))
}

fn lj(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::table(equi(i, "lj", &a, EquiKind::Left)?))
}

fn lsj(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::table(equi(i, "lsj", &a, EquiKind::LeftSemi)?))
}

fn fj(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::table(equi(i, "fj", &a, EquiKind::Full)?))
}

/// `sej`: `ej` with the result sorted by the join columns.
fn sej(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let t = equi(i, "sej", &a, EquiKind::Inner)?;
    let (lk, _) = key_names("sej", &a, 2)?;
    let idx = key_indices(&t, &lk, "left")?;
    let keys: Vec<SortKey> = idx.iter().map(|&k| SortKey { col: &t.cols[k], asc: true, nulls_first: None }).collect();
    let perm = sort_perm(&keys, t.rows());
    Ok(Value::table(t.take_usize(&perm)))
}

fn cj(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let left = table_arg(i, "cj", &a[0])?;
    let right = table_arg(i, "cj", &a[1])?;
    let (t, _) = cross_join(&left, &right, &prefix_of(i, &right))?;
    Ok(Value::table(t))
}

/// Equality-key ids (all rows one bucket when only the ordered key is given) and the
/// ordered key columns of both sides.
struct Ordered {
    lids: Vec<u32>,
    rids: Vec<u32>,
    n: usize,
    ltime: Column,
    rtime: Column,
    rkeys: Vec<usize>,
}

fn ordered_keys(name: &str, left: &Table, right: &Table, lk: &[String], rk: &[String]) -> Result<Ordered> {
    let li = key_indices(left, lk, "left")?;
    let ri = key_indices(right, rk, "right")?;
    let last = li.len() - 1;
    let (lids, rids, n) = if last == 0 {
        (vec![0; left.rows()], vec![0; right.rows()], 1)
    } else {
        let lc: Vec<&Column> = li[..last].iter().map(|&k| &left.cols[k]).collect();
        let rc: Vec<&Column> = ri[..last].iter().map(|&k| &right.cols[k]).collect();
        shared_key_ids(&lc, &rc)?
    };
    let (ltime, rtime) = align_key_types(&left.cols[li[last]], &right.cols[ri[last]])
        .map_err(|e| Error::type_err(format!("[{name}]: {}", e.message)))?;
    Ok(Ordered { lids, rids, n, ltime, rtime, rkeys: ri })
}

/// `aj`: for each left row the last right row (same equality keys) whose ordered key is
/// not after the left one. The right ordered key column is kept (prefixed on collision).
fn aj(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let left = table_arg(i, "aj", &a[0])?;
    let right = table_arg(i, "aj", &a[1])?;
    let (lk, rk) = key_names("aj", &a, 2)?;
    let o = ordered_keys("aj", &left, &right, &lk, &rk)?;
    let ri = asof_rows(&o.lids, &o.ltime, &o.rids, &o.rtime, o.n)?;
    let li: Vec<i64> = (0..left.rows() as i64).collect();
    let keep = [o.rkeys[o.rkeys.len() - 1]];
    let prefix = prefix_of(i, &right);
    let (t, _) = assemble(&left, &right, &li, &ri, &Layout { right_keys: &o.rkeys, keep_right: &keep, right_name: &prefix, coalesce_keys: None })?;
    Ok(Value::table(t))
}

mod window;
use window::{pwj, wj};

// ------------------------------------------------------------------ predicates

/// `in(X, Y)`; for a keyed table Y, X gives the key values (a tuple of vectors for
/// several key columns) and the result says which key combinations exist in Y.
fn in_(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    if let Value::Table(t) = &a[1] {
        if !t.keys.is_empty() {
            return in_keyed(&a[0], t);
        }
    }
    ops::binary(BinOp::In, &a[0], &a[1])
}

fn in_keyed(x: &Value, t: &Table) -> Result<Value> {
    let parts: Vec<Column> = match x {
        Value::Tuple(items) => items.iter().map(|v| col("in", v)).collect::<Result<_>>()?,
        other => vec![col("in", other)?],
    };
    if parts.len() != t.keys.len() {
        return Err(Error::arg(format!("[in] needs {} key values for this keyed table", t.keys.len())));
    }
    let n = parts.iter().map(|c| c.len()).max().unwrap_or(0);
    let parts: Vec<Column> = parts.into_iter().map(|c| if c.len() == 1 && n > 1 { c.take_usize(&vec![0; n]) } else { c }).collect();
    let kidx = key_indices(t, &t.keys, "keyed")?;
    let l: Vec<&Column> = parts.iter().collect();
    let r: Vec<&Column> = kidx.iter().map(|&k| &t.cols[k]).collect();
    let (li, ri, ng) = shared_key_ids(&l, &r)?;
    let mut present = vec![false; ng];
    for &g in &ri {
        if (g as usize) < ng {
            present[g as usize] = true;
        }
    }
    let out: Vec<i8> = li.iter().map(|&g| ((g as usize) < ng && present[g as usize]) as i8).collect();
    let c = Column::from_vec(DataType::Bool, out);
    Ok(if x.is_scalar() { Value::Scalar(c) } else { Value::Vector(c) })
}
fn not_in(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::binary(BinOp::NotIn, &a[0], &a[1])
}
fn between(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::binary(BinOp::Between, &a[0], &a[1])
}
fn not_between(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::binary(BinOp::NotBetween, &a[0], &a[1])
}
fn like_upper(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::binary(BinOp::Like, &a[0], &a[1])
}
fn not_like(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::binary(BinOp::NotLike, &a[0], &a[1])
}

/// Rows of `base` replaced where `pick[k]` says so: a vectorized merge of two columns.
fn merge(base: &Column, other: &Column, take_other: &[bool]) -> Column {
    let n = base.len();
    let both = Column::concat(base.ty, &[base, other]);
    let idx: Vec<usize> = (0..n)
        .map(|k| if take_other[k] { n + if other.len() == 1 { 0 } else { k } } else { k })
        .collect();
    both.take_usize(&idx)
}

/// `coalesce(X1, X2, …)`: each null of X1 filled from the first later argument that is not
/// null at that position.
fn coalesce(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let mut ty = DataType::Void;
    for v in &a {
        let t = match v {
            Value::Void => DataType::Void,
            other => col("coalesce", other)?.ty,
        };
        ty = common_type(ty, t).ok_or_else(|| Error::type_err(format!("The arguments of [coalesce] must have the same type, not {ty} and {t}")))?;
    }
    if ty == DataType::Void {
        return Ok(a[0].clone());
    }
    let scalar = a[0].is_scalar();
    let mut acc = match &a[0] {
        Value::Void => Column::nulls(ty, 1),
        v => {
            let c = col("coalesce", v)?;
            if c.ty == ty { c } else { cast_column(&c, ty)? }
        }
    };
    for v in &a[1..] {
        let c = match v {
            Value::Void => continue,
            v => {
                let c = col("coalesce", v)?;
                if c.ty == ty { c } else { cast_column(&c, ty)? }
            }
        };
        if c.len() != 1 && c.len() != acc.len() {
            return Err(Error::size("The arguments of [coalesce] must be scalars or vectors of the same length"));
        }
        let fill: Vec<bool> = (0..acc.len()).map(|k| acc.is_null(k) && !c.is_null(if c.len() == 1 { 0 } else { k })).collect();
        if fill.iter().any(|&f| f) {
            acc = merge(&acc, &c, &fill);
        }
    }
    // the first matrix argument gives the result its shape and labels
    Ok(match a.iter().find(|v| matches!(v, Value::Matrix(_))) {
        Some(m) if acc.len() == m.size() => like_form(m, acc),
        _ if scalar => Value::Scalar(acc),
        _ => Value::Vector(acc),
    })
}

/// `nullIf(X, Y)`: null where X equals Y, else X.
fn null_if(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let eq = ops::binary(BinOp::Eq, &a[0], &a[1])?;
    let x = col("nullIf", &a[0])?;
    let e = col("nullIf", &eq)?;
    let n = x.len().max(e.len());
    if x.is_empty() != e.is_empty() {
        return Err(Error::size("nullIf: X and Y must have the same length"));
    }
    let x = if x.len() == 1 && n > 1 { x.take_usize(&vec![0; n]) } else { x };
    let hit: Vec<bool> = (0..n).map(|k| e.i64_at(if e.len() == 1 { 0 } else { k }).unwrap_or(0) != 0).collect();
    let out = merge(&x, &Column::nulls(x.ty, 1), &hit);
    Ok(match &a[0] {
        Value::Matrix(_) => like_form(&a[0], out),
        _ if a[0].is_scalar() && a[1].is_scalar() => Value::Scalar(out),
        _ => Value::Vector(out),
    })
}

/// `distinct(X)`: the distinct elements of a vector. The manual leaves the order open, and
/// every example of funcs/d/distinct.md (`distinct 4 5 5 2 3` ⇒ `[3,2,5,4]`, the array
/// vector example, `set`) lists them last-first by first appearance: that order is kept.
fn distinct(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match &a[0] {
        Value::Table(_) => Err(Error::unsupported("distinct", "a table")),
        v => {
            // an array vector: the distinct elements of all its rows
            let c = match v {
                Value::ArrayVector(a) => a.data.clone(),
                _ => col("distinct", v)?,
            };
            let g = beluga_runtime::sql::keys::group_ids(&[&c]);
            let mut first = g.first.clone();
            first.reverse();
            Ok(Value::Vector(c.take_usize(&first)))
        }
    }
}

/// `unpivot(obj, keyColNames, valueColNames, [func])`: the value columns stacked into one
/// `value` column, with `valueType` naming the source column (or `func` of its name).
fn unpivot(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let t = table_arg(i, "unpivot", &a[0])?;
    let keys = match opt(&a, 1) {
        Some(v) => names_arg("unpivot", v)?,
        None => vec![],
    };
    let vals = names_arg("unpivot", &a[2])?;
    if vals.is_empty() {
        return Err(Error::arg("unpivot needs at least one value column"));
    }
    let kidx = key_indices(&t, &keys, "")?;
    let vidx = key_indices(&t, &vals, "")?;
    let (m, k) = (t.rows(), vidx.len());
    let rep: Vec<usize> = (0..m * k).map(|r| r % m).collect();
    let mut names: Vec<String> = kidx.iter().map(|&c| t.names[c].clone()).collect();
    let mut cols: Vec<Column> = kidx.iter().map(|&c| t.cols[c].take_usize(&rep)).collect();
    let labels: Vec<Value> = match opt(&a, 3) {
        Some(f) => {
            let f = f.clone();
            vals.iter().map(|n| i.call_value(&f, vec![Value::string(n)])).collect::<Result<_>>()?
        }
        None => vals.iter().map(|n| Value::string(n)).collect(),
    };
    let mut tb = beluga_runtime::sql::ColBuilder::new();
    for l in &labels {
        tb.push(l, m, "the valueType of unpivot")?;
    }
    names.push("valueType".into());
    cols.push(tb.finish()?);
    let mut ty = DataType::Void;
    for &c in &vidx {
        ty = common_type(ty, t.cols[c].ty)
            .ok_or_else(|| Error::type_err("The value columns of [unpivot] must have the same data type"))?;
    }
    let parts: Vec<Column> = vidx.iter().map(|&c| if t.cols[c].ty == ty { Ok(t.cols[c].clone()) } else { cast_column(&t.cols[c], ty) }).collect::<Result<_>>()?;
    let refs: Vec<&Column> = parts.iter().collect();
    names.push("value".into());
    cols.push(Column::concat(ty, &refs));
    Ok(Value::table(Table::new(names, cols)?))
}

/// `interval` only has a meaning inside `group by` (the SQL executor handles it there).
fn interval(_: &mut CallCtx, _: Vec<Value>) -> Result<Value> {
    Err(Error::runtime("The function [interval] must be used in a group by clause"))
}

pub const DEFS: &[Builtin] = &[
    fp("aj", Kind::System, 3, 4, aj, &["leftTable", "rightTable", "matchingCols", "rightMatchingCols"]),
    fp("between", Kind::Elementwise, 2, 2, between, &["X", "Y"]),
    fp("cj", Kind::System, 2, 2, cj, &["leftTable", "rightTable"]),
    fp("coalesce", Kind::Elementwise, 2, u8::MAX, coalesce, &["X1", "X2", "args"]),
    fp("distinct", Kind::System, 1, 1, distinct, &["X"]),
    fp("ej", Kind::System, 3, 6, ej, &["leftTable", "rightTable", "matchingCols", "rightMatchingCols", "leftFilter", "rightFilter"]),
    fp("fj", Kind::System, 3, 4, fj, &["leftTable", "rightTable", "matchingCols", "rightMatchingCols"]),
    fp("in", Kind::Elementwise, 2, 2, in_, &["X", "Y"]),
    fp("interval", Kind::System, 3, 8, interval, &["X", "duration", "fill", "step", "explicitOffset", "closed", "label", "origin"]),
    fp("lj", Kind::System, 3, 6, lj, &["leftTable", "rightTable", "matchingCols", "rightMatchingCols", "leftFilter", "rightFilter"]),
    fp("lsj", Kind::System, 3, 6, lsj, &["leftTable", "rightTable", "matchingCols", "rightMatchingCols", "leftFilter", "rightFilter"]),
    fp("LIKE", Kind::Elementwise, 2, 2, like_upper, &["X", "pattern"]),
    fp("NOTBETWEEN", Kind::Elementwise, 2, 2, not_between, &["X", "Y"]),
    fp("NOTIN", Kind::Elementwise, 2, 2, not_in, &["X", "Y"]),
    fp("NOTLIKE", Kind::Elementwise, 2, 2, not_like, &["X", "pattern"]),
    fp("notBetween", Kind::Elementwise, 2, 2, not_between, &["X", "Y"]),
    fp("notIn", Kind::Elementwise, 2, 2, not_in, &["X", "Y"]),
    fp("notLike", Kind::Elementwise, 2, 2, not_like, &["X", "pattern"]),
    fp("nullIf", Kind::Elementwise, 2, 2, null_if, &["X", "Y"]),
    fp("pwj", Kind::System, 5, 6, pwj, &["leftTable", "rightTable", "window", "aggs", "matchingCols", "rightMatchingCols"]),
    fp("sej", Kind::System, 3, 6, sej, &["leftTable", "rightTable", "matchingCols", "rightMatchingCols", "leftFilter", "rightFilter"]),
    fp("unpivot", Kind::System, 3, 4, unpivot, &["obj", "keyColNames", "valueColNames", "func"]),
    fp("wj", Kind::System, 5, 6, wj, &["leftTable", "rightTable", "window", "aggs", "matchingCols", "rightMatchingCols"]),
];

#[cfg(test)]
mod tests {
    use beluga_runtime::{Interpreter, Registry};

    fn session() -> Interpreter {
        let mut r = Registry::new();
        crate::register(&mut r);
        Interpreter::new(r)
    }

    /// Run statements in one session; return what the last one printed.
    fn last(src: &str) -> String {
        let mut i = session();
        let mut lines: Vec<&str> = src.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        let tail = lines.pop().unwrap_or("");
        for l in lines {
            let out = i.run_repl_text(l);
            assert!(!out.contains("Error"), "{l}: {out}");
        }
        i.run_repl_text(tail).trim_end().to_string()
    }

    const T: &str = "t1 = table(1 2 3 3 as id, 7.8 4.6 5.1 0.1 as value, 4 3 2 1 as x)
        t2 = table(5 3 1 as id, 300 500 800 as qty, 44 66 88 as x)";

    #[test]
    fn equi_joins_layout_and_prefix() {
        assert_eq!(
            last(&format!("{T}\nej(t1, t2, `id)")),
            "id value x qty t2_x\n-- ----- - --- ----\n1  7.8   4 800 88\n3  5.1   2 500 66\n3  0.1   1 500 66"
        );
        assert_eq!(
            last(&format!("{T}\nlj(t1, t2, `id)")),
            "id value x qty t2_x\n-- ----- - --- ----\n1  7.8   4 800 88\n2  4.6   3\n3  5.1   2 500 66\n3  0.1   1 500 66"
        );
        assert_eq!(
            last(&format!("{T}\nlsj(t2, t1, `id)")),
            "id qty x  value t1_x\n-- --- -- ----- ----\n5  300 44\n3  500 66 5.1   2\n1  800 88 7.8   4"
        );
        assert_eq!(
            last(&format!("{T}\nfj(t1, t2, `id)")),
            "id value x t2_id qty t2_x\n-- ----- - ----- --- ----\n1  7.8   4 1     800 88\n2  4.6   3\n3  5.1   2 3     500 66\n3  0.1   1 3     500 66\n           5     300 44"
        );
        assert_eq!(
            last(&format!("{T}\nsej(t2, t1, `id)")),
            "id qty x  value t1_x\n-- --- -- ----- ----\n1  800 88 7.8   4\n3  500 66 5.1   2\n3  500 66 0.1   1"
        );
        assert_eq!(last(&format!("{T}\nexec value from ej(t1, t2, `id, , t1.id == 3)")), "[5.1,0.1]");
    }

    #[test]
    fn sql_join_syntax() {
        assert_eq!(
            last(&format!("{T}\nselect id, value, t2.x from t1 left join t2 on t1.id = t2.id where value > 1")),
            "id value x\n-- ----- --\n1  7.8   88\n2  4.6\n3  5.1   66"
        );
        assert_eq!(
            last(&format!("{T}\nselect * from t2 right join t1 on t2.id = t1.id")),
            "id qty x  value t1_x\n-- --- -- ----- ----\n1  800 88 7.8   4\n2         4.6   3\n3  500 66 5.1   2\n3  500 66 0.1   1"
        );
        assert_eq!(
            last(&format!("{T}\nselect id, value, qty, x from t1 inner join t2 on t1.id=t2.id and t1.x=t2.x")),
            "id value qty x\n-- ----- --- -\n"
                .trim_end()
        );
        assert_eq!(
            last("a = table(2010 2011 as year)\nb = table(`IBM`C as Ticker)\nselect * from a cross join b where year > 2010"),
            "year Ticker\n---- ------\n2011 IBM\n2011 C"
        );
    }

    const LR: &str = "l = table(`A`A`B as sym, 1 5 3 as t, 10 20 30 as v)
        r = table(`A`A`A`B as sym, 0 2 4 3 as t, 1.0 2.0 3.0 4.0 as p)";

    #[test]
    fn asof_and_window_joins() {
        assert_eq!(
            last(&format!("{LR}\naj(l, r, `sym`t)")),
            "sym t v  r_t p\n--- - -- --- -\nA   1 10 0   1\nA   5 20 4   3\nB   3 30 3   4"
        );
        assert_eq!(
            last(&format!("{LR}\nwj(l, r, -2:0, <[avg(p), count(p), sum(p), first(p), last(p), max(p)]>, `sym`t)")),
            "sym t v  avg_p count_p sum_p first_p last_p max_p\n--- - -- ----- ------- ----- ------- ------ -----\nA   1 10 1     1       1     1       1      1\nA   5 20 3     1       3     3       3      3\nB   3 30 4     1       4     4       4      4"
        );
        assert_eq!(
            last(&format!("{LR}\npwj(l, r, -1:0, <[first(p), avg(p)]>, `sym`t)")),
            "sym t v  first_p avg_p\n--- - -- ------- -----\nA   1 10 1       1\nA   5 20 3       3\nB   3 30 4       4"
        );
        // an empty window: count 0, other aggregates null
        assert_eq!(last(&format!("{LR}\nexec count_p from wj(l, r, 10:20, <count(p)>, `sym`t)")), "[0,0,0]");
    }

    const G: &str = "t = table(`a`b`a`c`b`a as k, 1 2 3 4 5 6 as v, 1.5 NULL 2.5 4.0 1.0 3.0 as w)";

    #[test]
    fn group_context_and_order() {
        assert_eq!(
            last(&format!("{G}\nselect sum(v), avg(w), count(*) from t group by k")),
            "k sum_v avg_w    count\n- ----- -------- -----\na 10    2.333333 3\nb 7     1        2\nc 4     4        1"
        );
        assert_eq!(
            last(&format!("{G}\nselect k, max(v) - min(v) as rng from t group by k order by rng desc, k")),
            "k rng\n- ---\na 5\nb 3\nc 0"
        );
        assert_eq!(last(&format!("{G}\nexec sum(v) from t group by k")), "[10,7,4]");
        assert_eq!(
            last(&format!("{G}\nselect v, cumsum(v) as cs, sum(v) as tot, v - avg(v) as dev from t context by k csort v desc limit 2")),
            "v cs tot dev\n- -- --- ---------\n6 6  10  2.666667\n3 9  10  -0.333333\n5 5  7   1.5\n2 7  7   -1.5\n4 4  4   0"
        );
        assert_eq!(last(&format!("{G}\nselect top 2 * from t order by w desc")), "k v w\n- - -\nc 4 4\na 6 3");
        // top-N selection path (limit much smaller than the row count)
        let big = "t = table(12 3 7 1 9 4 11 2 8 5 10 6 as v, 1..12 as id)";
        assert_eq!(last(&format!("{big}\nexec v from t order by v desc limit 2")), "[12,11]");
        assert_eq!(last(&format!("{big}\nexec id from t order by v % 3, v desc limit 1, 2")), "[5,12]");
        assert_eq!(last(&format!("{G}\nexec count(*) from t where k in `a`b, v > 1")), "4");
    }

    #[test]
    fn update_delete_insert() {
        let src = format!(
            "{G}\nupdate t set v = v * 10 where k = `a\ndelete from t where v > 40\ninsert into t values (`d, 7, 7.5), (`e, 8, NULL)\nupdate t set z = v + 1 where k = `b\nt"
        );
        assert_eq!(
            last(&src),
            "k v  w   z\n- -- --- -\na 10 1.5\nb 2      3\na 30 2.5\nc 4  4\nb 5  1   6\nd 7  7.5\ne 8"
        );
        assert_eq!(
            last(&format!("{G}\nupdate t set v = v - min(v) context by k\nexec v from t")),
            "[0,0,2,0,3,5]"
        );
    }

    #[test]
    fn pivot_by_and_interval() {
        let p = "t = table(1 1 2 2 2 as d, `x`y`x`y`x as s, 1.0 2.0 3.0 4.0 5.0 as v)";
        assert_eq!(last(&format!("{p}\nselect v from t pivot by d, s")), "d x y\n- - -\n1 1 2\n2 5 4");
        assert_eq!(last(&format!("{p}\nselect count(v) from t pivot by d, s")), "d x y\n- - -\n1 1 1\n2 2 1");
        let i = "t = table(0 1 2 6 7 as x, 1.0 2.0 3.0 4.0 5.0 as v)";
        assert_eq!(
            last(&format!("{i}\nselect sum(v) from t group by interval(x, 2, \"prev\")")),
            "interval_x sum_v\n---------- -----\n0          3\n2          3\n4          3\n6          9"
        );
        assert_eq!(
            last(&format!("{i}\nselect sum(v) from t group by interval(x, 2, \"linear\")")),
            "interval_x sum_v\n---------- -----\n0          3\n2          3\n4          6\n6          9"
        );
    }

    #[test]
    fn cgroup_by_cumulates() {
        let t = "t = table(`A`A`A`A`B`B`B`B as sym, 09:30:06 09:30:28 09:31:46 09:31:59 09:30:19 09:30:43 09:31:23 09:31:56 as time, 10 20 10 30 20 40 30 30 as volume, 10.05 10.06 10.07 10.05 20.12 20.13 20.14 20.15 as price)";
        assert_eq!(
            last(&format!("{t}\nselect wavg(price, volume) as vwap from t group by sym cgroup by minute(time) as minute order by sym, minute")),
            "sym minute vwap\n--- ------ ---------\nA   09:30m 10.056667\nA   09:31m 10.055714\nB   09:30m 20.126667\nB   09:31m 20.135833"
        );
    }

    #[test]
    fn predicates() {
        assert_eq!(last("coalesce(-1 NULL 4 3, NULL 2 NULL 1, 1 4 5 2)"), "[-1,2,4,3]");
        assert_eq!(last("coalesce(int(NULL), int(NULL), 1, 3)"), "1");
        assert_eq!(last("nullIf(1 2 3, 2)"), "[1,,3]");
        assert_eq!(last("between(1 5 9, 2:8)"), "[false,true,false]");
        assert_eq!(last("notIn(1 2 3, 2 3)"), "[true,false,false]");
        assert_eq!(
            last("kt = keyedTable(`name`id, table(`Tom`Sam as name, 1 2 as id))\nin((`Tom`Sam`Tom, 1 1 2), kt)"),
            "[true,false,false]"
        );
        assert_eq!(last("distinct(3 1 3 2 1)"), "[2,1,3]");
        assert_eq!(
            last("t = table(1 2 as id, 4 5 as c1, 7 8 as c2)\nunpivot(t, `id, `c1`c2)"),
            "id valueType value\n-- --------- -----\n1  c1        4\n2  c1        5\n1  c2        7\n2  c2        8"
        );
    }
}
