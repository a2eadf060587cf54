//! Builtins: in-memory table functions (columnNames, schema, addColumn, dropColumns!, rename!,
//! replaceColumn!, reorderColumns!, sortBy!, tableInsert, upsert!, keyedTable, indexedTable,
//! streamTable, keyedStreamTable, unionAll, sliceByKey).

use beluga_runtime::CallCtx;
use crate::util::{col, describe, opt};
use ahash::AHashMap;
use beluga_lang::ast::{Expr, ExprKind};
use beluga_runtime::column::Column;
use beluga_runtime::kernels::cast::cast_column;
use beluga_runtime::keyindex;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Table, Value};
use std::sync::Arc;

/// Evaluate an expression with the columns of `t` in scope (metacode filters, sort keys).
pub fn eval_with_columns(i: &mut CallCtx, t: &Table, e: &Expr) -> Result<Value> {
    let mut scope = AHashMap::with_capacity(t.ncols());
    for (n, c) in t.names.iter().zip(&t.cols) {
        scope.insert(n.clone(), Value::Vector(c.clone()));
    }
    i.eval_with_columns(scope, e)
}

fn table_arg<'a>(name: &str, v: &'a Value) -> Result<&'a Arc<Table>> {
    match v {
        Value::Table(t) => Ok(t),
        other => Err(Error::unsupported(name, describe(other))),
    }
}

/// Strings of a STRING/SYMBOL scalar or vector argument.
pub fn names_arg(name: &str, v: &Value) -> Result<Vec<String>> {
    let c = col(name, v)?;
    if !c.ty.is_literal() {
        return Err(Error::arg(format!("The column names of [{name}] must be strings")));
    }
    Ok((0..c.len()).map(|k| c.str_at(k).unwrap_or("").to_string()).collect())
}

fn col_index(t: &Table, name: &str) -> Result<usize> {
    t.col_index(name).ok_or_else(|| Error::name(format!("Unrecognized column name [{name}]")))
}

/// Cast a column to a target column type (strings and symbols interchange freely).
fn conform(name: &str, c: &Column, ty: DataType) -> Result<Column> {
    if c.ty == ty {
        return Ok(c.clone());
    }
    if ty.is_numeric() && c.ty.is_literal() {
        return Err(Error::type_err(format!("The column [{name}] expects type {ty}, but the value is {}", c.ty)));
    }
    cast_column(c, ty).map_err(|e| Error::type_err(format!("The column [{name}]: {}", e.message)))
}

// ------------------------------------------------------------------ metadata

fn column_names(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Table(t) => Ok(Value::string_vec(t.names.iter().map(|s| s.as_str()))),
        // the labels keep their type (a panel's date columns are DATE values, so
        // `m.colNames().find(d)` looks a date up), as rowNames does
        Value::Matrix(m) => Ok(m.col_labels.as_deref().cloned().unwrap_or(Value::Void)),
        other => Err(Error::unsupported("columnNames", describe(other))),
    }
}

/// `rowNames(X)`: the row labels of a matrix (VOID when it has none).
fn row_names(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Matrix(m) => Ok(m.row_labels.as_deref().cloned().unwrap_or(Value::Void)),
        other => Err(Error::unsupported("rowNames", describe(other))),
    }
}

fn schema(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = table_arg("schema", &args[0])?;
    let n = t.ncols();
    let types: Vec<String> = t.cols.iter().map(|c| c.ty.full_name()).collect();
    let col_defs = Table::new(
        vec!["name".into(), "typeString".into(), "typeInt".into(), "extra".into(), "comment".into()],
        vec![
            Column::new(DataType::String, beluga_runtime::column::ColData::Str(beluga_runtime::StrCol::from_iter(t.names.iter().map(|s| s.as_str())))),
            Column::new(DataType::String, beluga_runtime::column::ColData::Str(beluga_runtime::StrCol::from_iter(types.iter().map(|s| s.as_str())))),
            Column::from_vec(DataType::Int, t.cols.iter().map(|c| c.ty.id()).collect::<Vec<i32>>()),
            Column::nulls(DataType::Int, n),
            Column::nulls(DataType::String, n),
        ],
    )?;
    let mut keys = vec![Value::string("chunkPath"), Value::string("partitionColumnIndex"), Value::string("colDefs")];
    let mut vals = vec![Value::string(""), Value::int(-1), Value::table(col_defs)];
    if !t.keys.is_empty() {
        keys.push(Value::string("keyColumns"));
        vals.push(Value::string_vec(t.keys.iter().map(|s| s.as_str())));
    }
    beluga_runtime::eval::build_dict_pub(&keys, vals, true)
}

// ------------------------------------------------------------------ column edits

/// `addColumn(table, colNames, colTypes)`: new null columns (modifies the table).
fn add_column(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    // a stream table grows its columns in place: later appends carry them (tutorials/add_Column.md)
    let stream = crate::stream::table::as_stream(&args[0]);
    let mut t = match stream {
        Some(s) => s.snapshot()?,
        None => (**table_arg("addColumn", &args[0])?).clone(),
    };
    let names = names_arg("addColumn", &args[1])?;
    let types: Vec<DataType> = match &args[2] {
        Value::Tuple(items) => items.iter().map(|v| crate::core::type_arg("addColumn", v)).collect::<Result<_>>()?,
        Value::Vector(c) => (0..c.len())
            .map(|k| {
                if c.ty.is_literal() {
                    crate::core::type_arg("addColumn", &Value::string(c.str_at(k).unwrap_or("")))
                } else {
                    crate::core::type_arg("addColumn", &Value::Scalar(c.slice(k, k + 1)))
                }
            })
            .collect::<Result<_>>()?,
        v => vec![crate::core::type_arg("addColumn", v)?],
    };
    if types.len() != names.len() {
        return Err(Error::arg("The number of column names and column types of [addColumn] must be the same"));
    }
    for (n, ty) in names.iter().zip(types) {
        if t.col_index(n).is_some() {
            return Err(Error::arg(format!("The column [{n}] already exists")));
        }
        let rows = t.rows();
        t.names.push(n.clone());
        t.cols.push(Column::nulls(ty, rows));
    }
    if let Some(s) = stream {
        *s.data.lock().map_err(|_| Error::runtime("stream table lock poisoned"))? = t;
        return Ok(args[0].clone());
    }
    let out = Value::table(t);
    replace_in_caller(i, &args[0], out.clone());
    Ok(out)
}

fn drop_columns(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = table_arg("dropColumns!", &args[0])?;
    let names = names_arg("dropColumns!", &args[1])?;
    let mut drop = vec![false; t.ncols()];
    for n in &names {
        drop[col_index(t, n)?] = true;
    }
    if t.keys.iter().any(|k| t.col_index(k).map(|c| drop[c]).unwrap_or(false)) {
        return Err(Error::arg("Can't drop a key column of a keyed table"));
    }
    let mut out = (**t).clone();
    out.names = t.names.iter().zip(&drop).filter(|(_, d)| !**d).map(|(n, _)| n.clone()).collect();
    out.cols = t.cols.iter().zip(&drop).filter(|(_, d)| !**d).map(|(c, _)| c.clone()).collect();
    Ok(Value::table(out))
}

fn rename(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    match &args[0] {
        Value::Table(t) => {
            let mut out = (**t).clone();
            match opt(&args, 2) {
                None => {
                    let new = names_arg("rename!", &args[1])?;
                    if new.len() > out.ncols() {
                        return Err(Error::arg("More new column names than columns in [rename!]"));
                    }
                    for (k, n) in new.into_iter().enumerate() {
                        out.names[k] = n;
                    }
                }
                Some(newv) => {
                    let old = names_arg("rename!", &args[1])?;
                    let new = names_arg("rename!", newv)?;
                    if old.len() != new.len() {
                        return Err(Error::arg("The old and new names of [rename!] must have the same length"));
                    }
                    for (o, n) in old.iter().zip(new) {
                        let k = col_index(&out, o)?;
                        for key in out.keys.iter_mut() {
                            if key == o {
                                *key = n.clone();
                            }
                        }
                        out.names[k] = n;
                    }
                }
            }
            Ok(Value::table(out))
        }
        Value::Matrix(m) => {
            let mut out = (**m).clone();
            let label = |v: &Value, n: usize, what: &str| -> Result<Option<Box<Value>>> {
                match v {
                    Value::Void => Ok(None),
                    Value::Vector(c) | Value::Pair(c) if c.len() == n => Ok(Some(Box::new(Value::Vector(c.clone())))),
                    Value::Scalar(c) if n == 1 => Ok(Some(Box::new(Value::Vector(c.clone())))),
                    _ => Err(Error::size(format!("The {what} labels of [rename!] must have one element per {what}"))),
                }
            };
            match opt(&args, 2) {
                None => out.col_labels = label(&args[1], m.cols, "column")?,
                Some(c) => {
                    out.row_labels = label(&args[1], m.rows, "row")?;
                    out.col_labels = label(c, m.cols, "column")?;
                }
            }
            Ok(Value::Matrix(Arc::new(out)))
        }
        other => Err(Error::unsupported("rename!", describe(other))),
    }
}

fn replace_column(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = table_arg("replaceColumn!", &args[0])?;
    let names = names_arg("replaceColumn!", &args[1])?;
    let mut out = (**t).clone();
    let parts: Vec<Value> = if names.len() == 1 {
        vec![args[2].clone()]
    } else {
        match &args[2] {
            Value::Tuple(items) if items.len() == names.len() => items.iter().cloned().collect(),
            _ => return Err(Error::arg("replaceColumn! needs one new column per name")),
        }
    };
    for (n, v) in names.iter().zip(parts) {
        let k = col_index(&out, n)?;
        let c = match v {
            Value::Vector(c) => c,
            Value::Scalar(c) => c.take(&vec![0; out.rows()]),
            other => return Err(Error::arg(format!("The new column of [replaceColumn!] must be a vector, not {}", describe(&other)))),
        };
        if c.len() != out.rows() {
            return Err(Error::size(format!(
                "The length of the new column {n} ({}) must equal the table length ({})",
                c.len(),
                out.rows()
            )));
        }
        out.cols[k] = c;
    }
    Ok(Value::table(out))
}

fn reorder_columns(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = table_arg("reorderColumns!", &args[0])?;
    let names = names_arg("reorderColumns!", &args[1])?;
    let mut order: Vec<usize> = Vec::with_capacity(t.ncols());
    for n in &names {
        let k = col_index(t, n)?;
        if order.contains(&k) {
            return Err(Error::arg(format!("The column [{n}] appears twice in [reorderColumns!]")));
        }
        order.push(k);
    }
    for k in 0..t.ncols() {
        if !order.contains(&k) {
            order.push(k);
        }
    }
    let mut out = (**t).clone();
    out.names = order.iter().map(|&k| t.names[k].clone()).collect();
    out.cols = order.iter().map(|&k| t.cols[k].clone()).collect();
    Ok(Value::table(out))
}

fn sort_by(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = table_arg("sortBy!", &args[0])?.clone();
    let keys: Vec<Column> = match &args[1] {
        Value::Code(e) => {
            let v = match &e.kind {
                ExprKind::Vector(items) => {
                    let vals: Vec<Value> = items.iter().map(|x| eval_with_columns(i, &t, x)).collect::<Result<_>>()?;
                    Value::tuple(vals)
                }
                _ => eval_with_columns(i, &t, e)?,
            };
            match v {
                Value::Tuple(items) => items.iter().map(|x| col("sortBy!", x)).collect::<Result<_>>()?,
                other => vec![col("sortBy!", &other)?],
            }
        }
        other => names_arg("sortBy!", other)?.iter().map(|n| col_index(&t, n).map(|k| t.cols[k].clone())).collect::<Result<_>>()?,
    };
    let asc: Vec<bool> = match opt(&args, 2) {
        None => vec![true],
        Some(v) => {
            let c = col("sortBy!", v)?;
            (0..c.len()).map(|k| c.f64_at(k).map(|x| x != 0.0).unwrap_or(true)).collect()
        }
    };
    // a key must have one value per row (a scalar expression such as <1 + 2> has one)
    if let Some(k) = keys.iter().find(|k| k.len() != t.rows()) {
        return Err(Error::size(format!("sortBy!: a sort key has {} values, the table has {} rows", k.len(), t.rows())));
    }
    let idx = crate::order::argsort_multi(&keys, &asc)?;
    Ok(Value::table(t.take_usize(&idx)))
}

/// Metacode argument(s) of `update!`: one `<expr>`, `<[e1, e2]>` for several columns, or a
/// tuple of metacode.
fn code_exprs(name: &str, v: &Value, several: bool) -> Result<Vec<Expr>> {
    match v {
        Value::Code(e) => match &e.kind {
            ExprKind::Vector(items) | ExprKind::Tuple(items) if several => Ok(items.clone()),
            _ => Ok(vec![(**e).clone()]),
        },
        Value::Tuple(items) => items
            .iter()
            .map(|x| match x {
                Value::Code(e) => Ok((**e).clone()),
                other => Err(Error::arg(format!("{name}: expected metacode, got {}", describe(other)))),
            })
            .collect(),
        other => Err(Error::arg(format!("{name}: expected metacode such as <price * 2>, got {}", describe(other)))),
    }
}

/// `update!(table, colNames, newValues, [filter])`: set (or add) columns in place from
/// metacode, only on the rows the filter keeps; the same rules as the SQL `update`
/// statement, which runs it over a hidden variable holding the table.
fn update_bang(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    const NAME: &str = "update!";
    if !matches!(&args[0], Value::Table(_) | Value::Handle(_)) {
        return Err(Error::arg(format!("{NAME}: the first argument must be a table, got {}", describe(&args[0]))));
    }
    let names = names_arg(NAME, &args[1])?;
    let exprs = code_exprs(NAME, &args[2], names.len() > 1)?;
    if exprs.len() != names.len() {
        return Err(Error::arg(format!(
            "{NAME}: {} column names but {} new values",
            names.len(),
            exprs.len()
        )));
    }
    let where_ = match opt(&args, 3) {
        None | Some(Value::Void) => vec![],
        Some(v) => code_exprs(NAME, v, false)?,
    };
    const TMP: &str = "__update_bang_table";
    let u = beluga_lang::ast::UpdateStmt {
        table: Expr::new(ExprKind::Ident(TMP.to_string()), beluga_lang::span::Span::default()),
        sets: names.into_iter().zip(exprs).collect(),
        from: None,
        where_,
        context_by: vec![],
        csort: vec![],
        having: None,
    };
    i.set_var(TMP, args[0].clone())?;
    let r = i.run_update(&u);
    let out = i.take_var(TMP);
    r?;
    out.ok_or_else(|| Error::runtime("update!: the table was lost"))
}

// ------------------------------------------------------------------ inserting and upserting

/// Columns of `x` (table, tuple, dict, or several vectors/scalars) conformed to the schema of `t`.
fn incoming_columns(t: &Table, x: &[Value]) -> Result<Vec<Column>> {
    let parts: Vec<Value> = match x {
        [Value::Table(s)] => s.cols.iter().map(|c| Value::of_column(c.clone())).collect(),
        [Value::Tuple(items)] => items.iter().cloned().collect(),
        [Value::Dict(d)] => {
            let mut out = Vec::new();
            for name in &t.names {
                out.push(beluga_runtime::eval::dict_get_pub(d, &Value::string(name))?);
            }
            out
        }
        many => many.to_vec(),
    };
    if parts.len() != t.ncols() {
        return Err(Error::arg(format!(
            "The number of columns of the data to insert ({}) doesn't match the table ({})",
            parts.len(),
            t.ncols()
        )));
    }
    let n = parts
        .iter()
        .zip(&t.cols)
        .filter_map(|(v, tc)| match v {
            Value::Vector(c) if tc.ty.array_elem().is_none() => Some(c.len()),
            Value::ArrayVector(a) => Some(a.rows()),
            _ => None,
        })
        .next()
        .unwrap_or(1);
    let mut out = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        if t.cols[k].ty.array_elem().is_some() {
            let c = crate::core::table_part("tableInsert", p, t.cols[k].ty)?;
            if c.len() != n {
                return Err(Error::size("The columns to insert have different lengths"));
            }
            out.push(conform(&t.names[k], &c, t.cols[k].ty)?);
            continue;
        }
        let c = match p {
            Value::Vector(c) | Value::Pair(c) => c.clone(),
            Value::Scalar(c) => c.take(&vec![0; n]),
            Value::Void => Column::nulls(t.cols[k].ty, n),
            other => return Err(Error::arg(format!("Can't insert {} into a table column", describe(other)))),
        };
        if c.len() != n {
            return Err(Error::size("The columns to insert have different lengths"));
        }
        out.push(conform(&t.names[k], &c, t.cols[k].ty)?);
    }
    Ok(out)
}

fn key_indices(t: &Table, names: &[String]) -> Result<Vec<usize>> {
    names.iter().map(|n| col_index(t, n)).collect()
}

/// Append or upsert rows into `t` (in place; copy on write when its columns are shared)
/// according to its keys: a keyed or indexed table updates the rows whose key exists
/// through its key index (O(rows inserted)), and appends the others.
pub fn insert_rows(t: &mut Table, src: &[Column]) -> Result<()> {
    if t.keys.is_empty() {
        for (k, c) in src.iter().enumerate() {
            t.cols[k].append(c);
        }
        return Ok(());
    }
    let ki = key_indices(t, &t.keys)?;
    keyindex::upsert(t, &ki, src, false).map(|_| ())
}

/// `tableInsert` and `addColumn` modify their table although their names have no `!`: the
/// new table replaces the variable that holds the argument (found by identity), and is also
/// offered to the interpreter's in-place write-back.
fn replace_in_caller(i: &mut CallCtx, orig: &Value, new: Value) {
    if let Some(name) = crate::meta::var_holding(i, orig) {
        let _ = i.set_var_mutated(&name, new.clone());
    }
    *i.inplace_out() = Some(new);
}

fn table_insert(i: &mut CallCtx, mut args: Vec<Value>) -> Result<Value> {
    if let Value::Handle(h) = &args[0] {
        // stream tables and streaming engines (see stream/)
        let data = if args.len() == 2 { args[1].clone() } else { Value::tuple(args[1..].to_vec()) };
        if let Some(r) = h.session_append(i, &data) {
            return r.map(|n| Value::int(n as i32));
        }
    }
    let src = incoming_columns(table_arg("tableInsert", &args[0])?, &args[1..])?;
    let n = src.first().map(|c| c.len()).unwrap_or(0);
    if matches!(&args[0], Value::Table(_)) {
        // a keyed table upserts (all checks were made above: this can't fail halfway)
        let v = std::mem::replace(&mut args[0], Value::Void);
        in_place(i, v, |t| insert_rows(t, &src))?;
        return Ok(Value::int(n as i32));
    }
    Err(Error::unsupported("tableInsert", describe(&args[0])))
}

/// Change the table `v` in place for a builtin without `!` in its name (`tableInsert`,
/// `tableUpsert`): the caller's variable is taken out, so that this call holds the only
/// reference and the columns change in place (amortised O(rows changed)); a table also held
/// elsewhere is copied first (copy on write). The changed table goes back to every holder
/// (its variable, the shared registry, a `share t as st` alias; other sessions wait on the
/// shared name) and to the interpreter's in-place write-back.
fn in_place<R>(i: &mut CallCtx, v: Value, f: impl FnOnce(&mut Table) -> Result<R>) -> Result<R> {
    *i.inplace_out() = None;
    let name = crate::meta::var_holding(i, &v);
    let mut holders = None;
    let held = name.as_ref().and_then(|n| match i.take_table_for_update(n) {
        Some((v, h)) => {
            holders = Some(h);
            Some(v)
        }
        None => i.take_var(n),
    });
    let Value::Table(mut t) = v else { return Err(Error::arg("a table is required")) };
    drop(held);
    let r = f(Arc::make_mut(&mut t));
    let new = Value::Table(t);
    match (holders, name) {
        (Some(h), _) => i.put_back_table(new.clone(), h),
        (None, Some(name)) => {
            let _ = i.set_var_mutated(&name, new.clone());
        }
        (None, None) => {}
    }
    *i.inplace_out() = Some(new);
    r
}

/// `tableUpsert` on an in-memory keyed or indexed table: `upsert!` in place, answering the
/// pair rows inserted : rows updated (stored tables: storage's wrapper).
fn table_upsert(i: &mut CallCtx, mut args: Vec<Value>) -> Result<Value> {
    let t = table_arg("tableUpsert", &args[0])?;
    let ignore_null = opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(false);
    let key_names = match opt(&args, 3) {
        Some(v) => names_arg("tableUpsert", v)?,
        None => t.keys.clone(),
    };
    if key_names.is_empty() {
        return Err(Error::arg("tableUpsert needs a keyed table or the keyColNames argument"));
    }
    let src = incoming_columns(t, &args[1..2])?;
    let ki = key_indices(t, &key_names)?;
    let v = std::mem::replace(&mut args[0], Value::Void);
    let done = in_place(i, v, |t| keyindex::upsert(t, &ki, &src, ignore_null))?;
    Ok(Value::Pair(Column::from_vec(DataType::Long, vec![done.inserted as i64, done.updated as i64])))
}

fn upsert(i: &mut CallCtx, mut args: Vec<Value>) -> Result<Value> {
    let t = table_arg("upsert!", &args[0])?;
    let ignore_null = opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(false);
    let key_names = match opt(&args, 3) {
        Some(v) => names_arg("upsert!", v)?,
        None => t.keys.clone(),
    };
    if key_names.is_empty() {
        return Err(Error::arg("upsert! needs a keyed table or the keyColNames argument"));
    }
    let src = incoming_columns(t, &args[1..2])?;
    let ki = key_indices(t, &key_names)?;
    let sort = match opt(&args, 4) {
        Some(sc) => {
            let names = names_arg("upsert!", sc)?;
            key_indices(t, &names)?;
            Some(names)
        }
        None => None,
    };
    // the interpreter hands over the variable's only reference (eval/call.rs), so the
    // table is updated in place; all checks are made above, so this can't fail halfway
    let Value::Table(mut t) = std::mem::replace(&mut args[0], Value::Void) else { unreachable!() };
    let tm = Arc::make_mut(&mut t);
    if let Err(e) = keyindex::upsert(tm, &ki, &src, ignore_null) {
        *i.inplace_out() = Some(Value::Table(t));
        return Err(e);
    }
    if let Some(names) = sort {
        let keys: Vec<Column> = names.iter().map(|n| col_index(tm, n).map(|k| tm.cols[k].clone())).collect::<Result<_>>()?;
        let idx = crate::order::argsort_multi(&keys, &[true])?;
        *tm = tm.take_usize(&idx);
    }
    Ok(Value::Table(t))
}

// ------------------------------------------------------------------ keyed and stream tables

pub(crate) fn build_table(i: &mut CallCtx, rest: Vec<Value>) -> Result<Table> {
    let schema_form = rest.len() == 3 && matches!(rest[0], Value::Pair(_));
    let v = if let [Value::Table(t)] = rest.as_slice() {
        Value::Table(t.clone())
    } else if schema_form {
        i.call_builtin_by_name("table", rest)?
    } else {
        // columns are named after the variables passed (found by identity), else C0, C1...
        let names: Vec<String> = rest
            .iter()
            .enumerate()
            .map(|(k, v)| crate::meta::var_holding(i, v).unwrap_or_else(|| format!("C{k}")))
            .collect();
        beluga_runtime::table::table_from(names, rest)?
    };
    match v {
        Value::Table(t) => Ok(Arc::unwrap_or_clone(t)),
        other => Err(Error::arg(format!("Can't build a table from {}", describe(&other)))),
    }
}

/// Keep one row per key: the last value of each key (with a time column, the latest one),
/// at the position of its first occurrence; the key index is built on the way.
fn dedupe_keys(t: Table, keys: &[String], time_col: Option<String>) -> Result<Table> {
    let mut out = Table {
        names: t.names.clone(),
        cols: t.cols.iter().map(|c| c.slice(0, 0)).collect(),
        keys: keys.to_vec(),
        name: t.name.clone(),
        keyed: keyindex::KeyState { time_col, index: None },
    };
    let ki = key_indices(&out, keys)?;
    keyindex::upsert(&mut out, &ki, &t.cols, false)?;
    Ok(out)
}

fn keyed(i: &mut CallCtx, name: &str, args: Vec<Value>, latest: bool) -> Result<Value> {
    let keys = names_arg(name, &args[0])?;
    if keys.is_empty() {
        return Err(Error::arg(format!("{name}: at least one key column is required")));
    }
    let (time_col, rest) = if latest {
        let tc = args.get(1).ok_or_else(|| Error::arg(format!("{name} needs a time column")))?;
        let tc = crate::util::str_arg(name, tc, "timeColumn")?.to_string();
        (Some(tc), &args[2..])
    } else {
        (None, &args[1..])
    };
    if rest.is_empty() {
        return Err(Error::arg(format!("{name} needs the table's columns or schema")));
    }
    let t = build_table(i, rest.to_vec())?;
    for k in &keys {
        let c = &t.cols[col_index(&t, k)?];
        // funcs/k/keyedTable.md: keys are INTEGRAL, TEMPORAL or LITERAL (UUID-like 128-bit
        // types included)
        let ty = c.ty;
        if !(ty.is_integral() || ty.is_temporal() || ty.is_literal() || matches!(&*c.data, beluga_runtime::ColData::I128(_)) && ty.decimal_scale().is_none())
            || ty.array_elem().is_some()
        {
            return Err(Error::type_err(format!("{name}: the key column {k} must be INTEGRAL, TEMPORAL or LITERAL, not {ty}")));
        }
    }
    if let Some(tc) = &time_col {
        let ty = t.cols[col_index(&t, tc)?].ty;
        if !(ty.is_integral() || ty.is_temporal()) || ty.array_elem().is_some() {
            return Err(Error::type_err(format!("{name}: the time column {tc} must be integral or temporal, not {ty}")));
        }
    }
    Ok(Value::table(dedupe_keys(t, &keys, time_col)?))
}

fn keyed_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    keyed(i, "keyedTable", args, false)
}

fn indexed_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    keyed(i, "indexedTable", args, false)
}

/// `latestKeyedTable(keyColumns, timeColumn, ...)` (funcs/l/latestKeyedTable.md): a keyed
/// table where a row replaces the row of its key only if its time is not earlier.
fn latest_keyed_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    keyed(i, "latestKeyedTable", args, true)
}

fn latest_indexed_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    keyed(i, "latestIndexedTable", args, true)
}

fn keyed_stream_table(i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    // a keyed stream table ignores rows whose key already exists instead of updating
    // them; it is a stream table (stream/table.rs) that can be shared and subscribed to
    let keys = names_arg("keyedStreamTable", &args[0])?;
    let t = build_table(i, args[1..].to_vec())?;
    let ki = key_indices(&t, &keys)?;
    Ok(Value::Handle(Arc::new(crate::stream::table::StreamTable::keyed(t, ki))))
}

// ------------------------------------------------------------------ combining and slicing

fn union_all(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let (tables, by_name): (Vec<Arc<Table>>, bool) = match &args[0] {
        Value::Tuple(items) => (
            // NULL items (the unset slots of an `array(ANY, n)` the tables were appended
            // to) contribute no rows
            items.iter().filter(|v| !matches!(v, Value::Void)).map(|v| table_arg("unionAll", v).cloned()).collect::<Result<_>>()?,
            opt(&args, 1).and_then(|v| v.as_bool()).unwrap_or(false),
        ),
        Value::Table(a) => {
            let b = table_arg("unionAll", args.get(1).unwrap_or(&Value::Void))?.clone();
            (vec![a.clone(), b], opt(&args, 2).and_then(|v| v.as_bool()).unwrap_or(false))
        }
        other => return Err(Error::unsupported("unionAll", describe(other))),
    };
    let first = tables.first().ok_or_else(|| Error::arg("unionAll needs at least one table"))?;
    let mut out = Table { names: first.names.clone(), cols: first.cols.clone(), keys: vec![], name: None, keyed: Default::default() };
    for t in &tables[1..] {
        let n = t.rows();
        for k in 0..out.ncols() {
            let src = if by_name {
                t.column(&out.names[k]).cloned().unwrap_or_else(|| Column::nulls(out.cols[k].ty, n))
            } else {
                t.cols.get(k).cloned().ok_or_else(|| Error::arg("The tables of [unionAll] must have the same number of columns"))?
            };
            let src = conform(&out.names[k], &src, out.cols[k].ty)?;
            out.cols[k].append(&src);
        }
        if !by_name && t.ncols() != out.ncols() {
            return Err(Error::arg("The tables of [unionAll] must have the same number of columns"));
        }
    }
    Ok(Value::table(out))
}

fn slice_by_key(_i: &mut CallCtx, args: Vec<Value>) -> Result<Value> {
    let t = table_arg("sliceByKey", &args[0])?;
    if t.keys.is_empty() {
        return Err(Error::arg("sliceByKey needs a keyed or indexed table"));
    }
    let ki = key_indices(t, &t.keys)?;
    let parts: Vec<Column> = match &args[1] {
        Value::Tuple(items) => items.iter().map(|v| col("sliceByKey", v)).collect::<Result<_>>()?,
        other => vec![col("sliceByKey", other)?],
    };
    if parts.len() != ki.len() {
        return Err(Error::arg("The rowKeys of [sliceByKey] must give one value per key column"));
    }
    let aligned: Vec<Column> = parts
        .iter()
        .zip(&ki)
        .map(|(p, &k)| crate::order_search::align_keys(&t.cols[k], p).map(|(_, p)| p))
        .collect::<Result<_>>()?;
    // the table's key index when it is current, else one built for this call
    let built;
    let index = match t.keyed.index.as_deref().filter(|ix| ix.valid_for(t, &ki)) {
        Some(ix) => ix,
        None => {
            built = keyindex::KeyIndex::build(t, &ki);
            &built
        }
    };
    let rows: Vec<usize> = index.lookup(t, &aligned).into_iter().flatten().collect();
    let mut out = t.take_usize(&rows);
    out.keys.clear();
    if let Some(names) = opt(&args, 2) {
        let names = names_arg("sliceByKey", names)?;
        let idx = key_indices(&out, &names)?;
        out = Table::new(names, idx.iter().map(|&k| out.cols[k].clone()).collect())?;
    }
    Ok(Value::table(out))
}

pub const DEFS: &[Builtin] = &[
    fp("addColumn", Kind::System, 3, 3, add_column, &["table", "colNames", "colTypes"]),
    fp("columnNames", Kind::System, 1, 1, column_names, &["X"]),
    fp("colNames", Kind::System, 1, 1, column_names, &["X"]),
    fp("rowNames", Kind::System, 1, 1, row_names, &["X"]),
    fp("dropColumns!", Kind::System, 2, 2, drop_columns, &["table", "colNames"]),
    f("indexedTable", Kind::System, 2, u8::MAX, indexed_table),
    f("latestIndexedTable", Kind::System, 3, u8::MAX, latest_indexed_table),
    f("latestKeyedTable", Kind::System, 3, u8::MAX, latest_keyed_table),
    f("keyedStreamTable", Kind::System, 2, u8::MAX, keyed_stream_table),
    f("keyedTable", Kind::System, 2, u8::MAX, keyed_table),
    fp("rename!", Kind::System, 2, 3, rename, &["X", "Y", "Z"]),
    fp("reorderColumns!", Kind::System, 2, 2, reorder_columns, &["table", "reorderColumns"]),
    fp("replaceColumn!", Kind::System, 3, 3, replace_column, &["table", "colName", "newCol"]),
    fp("schema", Kind::System, 1, 1, schema, &["table"]),
    fp("sliceByKey", Kind::System, 2, 4, slice_by_key, &["table", "rowKeys", "colNames", "preserveOrder"]),
    fp("sortBy!", Kind::System, 2, 3, sort_by, &["table", "sortColumns", "sortDirections"]),
    fp("update!", Kind::System, 3, 4, update_bang, &["table", "colNames", "newValues", "filter"]),
    f("tableInsert", Kind::System, 2, u8::MAX, table_insert),
    fp("unionAll", Kind::System, 1, 3, union_all, &["tableA", "tableB", "byColName"]),
    fp("tableUpsert", Kind::System, 2, 5, table_upsert, &["obj", "newData", "ignoreNull", "keyColNames", "sortColumns"]),
    fp("upsert!", Kind::System, 2, 5, upsert, &["obj", "newData", "ignoreNull", "keyColNames", "sortColumns"]),
];
