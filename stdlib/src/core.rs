//! Core builtins the language and the test format rely on: introspection, construction,
//! equality, printing, the test runner.

use beluga_runtime::CallCtx;
use crate::util::{col, describe, int_arg, like_form, opt};
use beluga_runtime::column::{ColData, Column};
use beluga_runtime::eval::ops;
use beluga_runtime::guard;
#[allow(unused_imports)]
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::types::{DataType, Physical};
use beluga_runtime::value::{Dict, DictVals, Func, Key};
use beluga_runtime::{Error, Interpreter, Result, Table, Value};
use std::sync::Arc;

// ------------------------------------------------------------ introspection

/// `typestr(x)`.
pub fn type_string(v: &Value) -> String {
    let fast = |t: DataType| if matches!(t, DataType::String | DataType::Blob) { "" } else { "FAST " };
    match v {
        Value::Void => "VOID".into(),
        Value::Scalar(c) => c.ty.name().into(),
        Value::Vector(c) => format!("{}{} VECTOR", fast(c.ty), c.ty.name()),
        Value::Pair(c) => format!("{} PAIR", c.ty.name()),
        Value::Matrix(m) => format!("{}{} MATRIX", fast(m.data.ty), m.data.ty.name()),
        Value::Set(s) => format!("{} SET", s.items.ty.name()),
        Value::Dict(d) => format!("{}->{} DICTIONARY", d.key_type.name(), d.val_type.name()),
        Value::Table(_) => "IN-MEMORY TABLE".into(),
        Value::Tuple(_) => "ANY VECTOR".into(),
        Value::Function(_) => "FUNCTIONDEF".into(),
        Value::Type(_) | Value::Constant(..) => "INT".into(),
        Value::Duration(..) => "DURATION".into(),
        Value::Code(_) => "CODE".into(),
        Value::Handle(h) => h.type_name().into(),
        Value::ArrayVector(a) => format!("FAST {}[] VECTOR", a.data.ty.name()),
    }
}

fn typestr(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::string(&type_string(&a[0])))
}

fn type_(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::int(match &a[0] {
        Value::Table(_) => DataType::Any.id(),
        Value::Type(_) | Value::Constant(..) => DataType::Int.id(),
        Value::ArrayVector(a) => a.data.ty.id() + 64,
        v => v.data_type().id(),
    }))
}

fn form(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::int(a[0].form() as i32))
}

fn size(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::int(a[0].size() as i32))
}

fn rows(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::int(match &a[0] {
        Value::Table(t) => t.rows(),
        Value::Matrix(m) => m.rows,
        other => other.size(),
    } as i32))
}

fn cols(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::int(match &a[0] {
        Value::Table(t) => t.ncols(),
        Value::Matrix(m) => m.cols,
        Value::Vector(_) | Value::Pair(_) => 1,
        other => return Err(Error::unsupported("cols", describe(other))),
    } as i32))
}

fn shape(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (r, c) = match &a[0] {
        Value::Table(t) => (t.rows(), t.ncols()),
        Value::Matrix(m) => (m.rows, m.cols),
        Value::Vector(v) | Value::Pair(v) => (v.len(), 1),
        Value::Scalar(_) | Value::Void => (1, 1),
        other => return Err(Error::unsupported("shape", describe(other))),
    };
    Ok(Value::Pair(Column::from_vec(DataType::Int, vec![r as i32, c as i32])))
}

// ------------------------------------------------------------ equality

/// Same form, type and value; floats within 10^-precision when given. Nested tuples are
/// walked with an explicit stack (any depth, no recursion).
pub fn eq_obj(a: &Value, b: &Value, precision: Option<i64>) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Tuple(x), Value::Tuple(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y.iter()).rev());
            }
            _ => {
                if !eq_obj_one(a, b, precision) {
                    return false;
                }
            }
        }
    }
    true
}

fn eq_obj_one(a: &Value, b: &Value, precision: Option<i64>) -> bool {
    let tol = precision.map(|p| 10f64.powi(-(p as i32))).unwrap_or(1e-9);
    match (a, b) {
        (Value::Void, Value::Void) => true,
        (Value::Scalar(x), Value::Scalar(y)) | (Value::Vector(x), Value::Vector(y)) | (Value::Pair(x), Value::Pair(y)) => {
            cols_equal(x, y, tol)
        }
        (Value::ArrayVector(x), Value::ArrayVector(y)) => x.offsets == y.offsets && cols_equal(&x.data, &y.data, tol),
        (Value::ArrayVector(x), Value::Vector(y)) | (Value::Vector(y), Value::ArrayVector(x)) => {
            cols_equal(&Column::from_array(x.clone()), y, tol)
        }
        (Value::Matrix(x), Value::Matrix(y)) => x.rows == y.rows && x.cols == y.cols && cols_equal(&x.data, &y.data, tol),
        (Value::Tuple(x), Value::Tuple(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| eq_obj(p, q, precision)),
        (Value::Table(x), Value::Table(y)) => {
            x.names == y.names && x.cols.iter().zip(&y.cols).all(|(p, q)| cols_equal(p, q, tol))
        }
        (Value::Set(x), Value::Set(y)) => {
            x.items.ty == y.items.ty && x.index.len() == y.index.len() && x.index.keys().all(|k| y.index.contains_key(k))
        }
        (Value::Dict(x), Value::Dict(y)) => {
            x.index.len() == y.index.len()
                && x.index.iter().all(|(k, &i)| match y.index.get(k) {
                    None => false,
                    Some(&j) => eq_obj(&dict_val(x, i), &dict_val(y, j), precision),
                })
        }
        (Value::Type(x), Value::Type(y)) => x == y,
        (Value::Duration(n, u), Value::Duration(m, w)) => n == m && u == w,
        _ => false,
    }
}

fn dict_val(d: &Dict, i: usize) -> Value {
    match &d.vals {
        DictVals::Col(c) => Value::Scalar(c.slice(i, i + 1)),
        DictVals::Any(v) => v[i].clone(),
    }
}

fn cols_equal(x: &Column, y: &Column, tol: f64) -> bool {
    if x.len() != y.len() {
        return false;
    }
    // array-vector columns: the same row shapes and equal cells
    match (x.as_array(), y.as_array()) {
        (Some(a), Some(b)) => return a.offsets == b.offsets && cols_equal(&a.data, &b.data, tol),
        (None, None) => {}
        _ => return false,
    }
    if x.ty != y.ty {
        // integral types of one family compare by value (INT vs LONG literal forms)
        let ok = (x.ty.is_integral() && y.ty.is_integral()) || (x.ty.is_literal() && y.ty.is_literal());
        if !ok {
            return false;
        }
    }
    match (&*x.data, &*y.data) {
        (ColData::F64(_) | ColData::F32(_), _) | (_, ColData::F64(_) | ColData::F32(_)) => (0..x.len()).all(|i| {
            match (x.f64_at(i), y.f64_at(i)) {
                (None, None) => true,
                (Some(p), Some(q)) => (p - q).abs() <= tol * (1.0f64).max(p.abs().max(q.abs())) || p == q,
                _ => false,
            }
        }),
        (ColData::Str(_) | ColData::Sym(_), _) => (0..x.len()).all(|i| x.str_at(i) == y.str_at(i)),
        _ => (0..x.len()).all(|i| Key::of(x, i) == Key::of(y, i) || (x.is_null(i) && y.is_null(i)) || x.i64_at(i) == y.i64_at(i) && x.i64_at(i).is_some()),
    }
}

fn eq_obj_b(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let p = opt(&a, 2).and_then(|v| v.as_i64());
    Ok(Value::bool(eq_obj(&a[0], &a[1], p)))
}

// ------------------------------------------------------------ nulls

fn null_mask(name: &str, v: &Value, want_null: bool) -> Result<Value> {
    let _ = name;
    ops::unary_col(v, &|c: &Column| {
        // a NaN is a value, not a null (null.rs)
        let r: Vec<i8> = (0..c.len()).map(|i| (c.is_null_strict(i) == want_null) as i8).collect();
        Ok(Column::from_vec(DataType::Bool, r))
    })
}

fn is_null(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    null_mask("isNull", &a[0], true)
}
fn is_valid(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    null_mask("isValid", &a[0], false)
}
fn is_void(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::bool(matches!(a[0], Value::Void)))
}
fn has_null(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let c = col("hasNull", &a[0])?;
    Ok(Value::bool((0..c.len()).any(|i| c.is_null_strict(i))))
}

// ------------------------------------------------------------ logic helpers

fn all_(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let c = col("all", &a[0])?;
    Ok(Value::bool((0..c.len()).all(|i| c.is_null(i) || c.f64_at(i).map(|x| x != 0.0).unwrap_or(!c.str_at(i).unwrap_or("").is_empty()))))
}
fn any_(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let c = col("any", &a[0])?;
    Ok(Value::bool((0..c.len()).any(|i| c.f64_at(i).map(|x| x != 0.0).unwrap_or(false))))
}

/// `iif(cond, trueResult, falseResult)`, element-wise.
fn iif(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let cond = col("iif", &a[0])?;
    let n = cond.len();
    let pick = |v: &Value| -> Result<(Column, bool)> {
        match v {
            Value::Scalar(c) => Ok((c.clone(), true)),
            Value::Void => Ok((Column::nulls(DataType::Void, 1), true)),
            Value::Vector(c) | Value::Pair(c) if c.len() == n => Ok((c.clone(), false)),
            // a matrix branch lines up element by element with the condition (column-major)
            Value::Matrix(m) if m.data.len() == n => Ok((m.data.clone(), false)),
            other => Err(Error::arg(format!("iif: invalid branch {}", describe(other)))),
        }
    };
    let (t, ts) = pick(&a[1])?;
    let (e, es) = pick(&a[2])?;
    let ty = beluga_runtime::types::common_type(t.ty, e.ty)
        .filter(|t| *t != DataType::Void)
        .ok_or_else(|| Error::type_err(format!("iif: incompatible branch types {} and {}", t.ty, e.ty)))?;
    let t = if t.ty != ty { beluga_runtime::kernels::cast::cast_column(&t, ty)? } else { t };
    let e = if e.ty != ty { beluga_runtime::kernels::cast::cast_column(&e, ty)? } else { e };
    if let Some(out) = iif_fast(&cond, &t, ts, &e, es, ty) {
        return Ok(match &a[0] {
            Value::Matrix(_) => like_form(&a[0], out),
            c if c.is_scalar() => Value::Scalar(out),
            _ => Value::Vector(out),
        });
    }
    let idx_t: Vec<i64> = (0..n).map(|i| if ts { 0 } else { i as i64 }).collect();
    let idx_e: Vec<i64> = (0..n).map(|i| if es { 0 } else { i as i64 }).collect();
    let tt = t.take(&idx_t);
    let ee = e.take(&idx_e);
    let mask: Vec<bool> = (0..n).map(|i| cond.f64_at(i).map(|x| x != 0.0).unwrap_or(false)).collect();
    let nullmask: Vec<bool> = (0..n).map(|i| cond.is_null(i)).collect();
    // choose per element
    let order: Vec<i64> = (0..n).map(|i| if mask[i] { i as i64 } else { (n + i) as i64 }).collect();
    let both = Column::concat(ty, &[&tt, &ee]);
    let mut out = both.take(&order);
    if nullmask.iter().any(|&m| m) {
        let nulls: Vec<i64> = (0..n).map(|i| if nullmask[i] { -1 } else { i as i64 }).collect();
        out = out.take(&nulls);
    }
    // the result takes the condition's form: a matrix condition (labels and all) gives a matrix
    Ok(match &a[0] {
        Value::Matrix(_) => like_form(&a[0], out),
        c if c.is_scalar() => Value::Scalar(out),
        _ => Value::Vector(out),
    })
}

/// `iif` on a BOOL condition and fixed-width numeric branches of one physical type: one
/// pass choosing per element (a null condition gives null), which the compiler vectorizes.
fn iif_fast(cond: &Column, t: &Column, ts: bool, e: &Column, es: bool, ty: DataType) -> Option<Column> {
    use beluga_runtime::column::ColData;
    use beluga_runtime::null::Native;
    if ty.decimal_scale().is_some() || (ts && t.is_empty()) || (es && e.is_empty()) {
        return None;
    }
    let ColData::I8(c) = &*cond.data else { return None };
    beluga_runtime::simd_fn! {
        // compiled for AVX-512/AVX2 when the CPU has them
        fn pick[T: Native](c: &[i8], t: &[T], ts: bool, e: &[T], es: bool) -> Vec<T> {
            let choose = |k: i8, x: T, y: T| if k == i8::NULL { T::NULL } else if k != 0 { x } else { y };
            match (ts, es) {
                (false, false) => c.iter().zip(t).zip(e).map(|((&k, &x), &y)| choose(k, x, y)).collect(),
                (true, false) => c.iter().zip(e).map(|(&k, &y)| choose(k, t[0], y)).collect(),
                (false, true) => c.iter().zip(t).map(|(&k, &x)| choose(k, x, e[0])).collect(),
                (true, true) => c.iter().map(|&k| choose(k, t[0], e[0])).collect(),
            }
        }
    }
    let data = match (&*t.data, &*e.data) {
        (ColData::F64(x), ColData::F64(y)) => ColData::F64(pick(c, x, ts, y, es)),
        (ColData::F32(x), ColData::F32(y)) => ColData::F32(pick(c, x, ts, y, es)),
        (ColData::I64(x), ColData::I64(y)) => ColData::I64(pick(c, x, ts, y, es)),
        (ColData::I32(x), ColData::I32(y)) => ColData::I32(pick(c, x, ts, y, es)),
        (ColData::I16(x), ColData::I16(y)) => ColData::I16(pick(c, x, ts, y, es)),
        (ColData::I8(x), ColData::I8(y)) => ColData::I8(pick(c, x, ts, y, es)),
        _ => return None,
    };
    Some(Column::new(ty, data))
}

// ------------------------------------------------------------ construction

fn til(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let n = int_arg("til", &a[0], "n")?;
    if n < 0 || n > 2_000_000_000 {
        return Err(Error::arg("The argument of til must be a non-negative integer"));
    }
    guard::need(n as usize, if a[0].data_type() == DataType::Long { 8 } else { 4 })?;
    if a[0].data_type() == DataType::Long {
        return Ok(Value::long_vec((0..n).collect()));
    }
    Ok(Value::int_vec((0..n as i32).collect()))
}

fn seq_(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::seq(&a[0], &a[1])
}

fn pair_(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    ops::pair(&a[0], &a[1])
}

/// `take(X, n)`: cycle through X.
fn take(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    // take(X, counts): element i repeated counts[i] times
    if let (Value::Vector(x), Value::Vector(counts)) = (&a[0], &a[1]) {
        if x.len() != counts.len() {
            return Err(Error::size("take: X and the counts must have the same length"));
        }
        let mut total: usize = 0;
        for k in 0..x.len() {
            total = total.saturating_add(counts.i64_at(k).unwrap_or(0).max(0) as usize);
        }
        guard::need(total, 8 + guard::elem_bytes(x.ty))?;
        let mut idx = guard::vec_with_capacity(total)?;
        for k in 0..x.len() {
            let c = counts.i64_at(k).unwrap_or(0).max(0);
            idx.extend(std::iter::repeat(k as i64).take(c as usize));
        }
        return Ok(Value::Vector(x.take(&idx)));
    }
    let n = int_arg("take", &a[1], "n")?;
    if let Value::Matrix(m) = &a[0] {
        // rows, cycling; negative n takes from the end
        let rows = m.rows as i64;
        let n_rows = usize::try_from(n.unsigned_abs()).map_err(|_| guard::oom_error(None))?;
        guard::need(n_rows, 8)?;
        guard::need2(n_rows, m.cols, 8 + guard::elem_bytes(m.data.ty))?;
        let sel: Vec<i64> = if n >= 0 {
            (0..n).map(|i| if rows == 0 { -1 } else { i % rows }).collect()
        } else {
            (0..-n).map(|i| if rows == 0 { -1 } else { (rows - (-n) % rows + i).rem_euclid(rows) }).collect()
        };
        let mut idx = Vec::with_capacity(sel.len() * m.cols);
        for c in 0..m.cols as i64 {
            for &r in &sel {
                idx.push(if r < 0 { -1 } else { c * rows + r });
            }
        }
        let mut out = (**m).clone();
        out.data = m.data.take(&idx);
        out.rows = sel.len();
        out.row_labels = None;
        return Ok(Value::Matrix(Arc::new(out)));
    }
    if n.unsigned_abs() > 2_000_000_000 {
        return Err(Error::arg("take: n is too large"));
    }
    let per_row = match &a[0] {
        Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => 8 + guard::elem_bytes(c.ty),
        Value::Table(t) => 8 + t.cols.iter().map(|c| guard::elem_bytes(c.ty)).sum::<usize>(),
        _ => std::mem::size_of::<Value>(),
    };
    guard::need(n.unsigned_abs() as usize, per_row)?;
    match &a[0] {
        Value::Void => Err(Error::arg("Not allowed to create void vector")),
        Value::Scalar(c) => Ok(Value::Vector(c.take(&vec![0; n.unsigned_abs() as usize]))),
        Value::Vector(c) | Value::Pair(c) => {
            let len = c.len() as i64;
            if len == 0 {
                return Ok(Value::Vector(c.clone()));
            }
            let idx: Vec<i64> = if n >= 0 { (0..n).map(|i| i % len).collect() } else { (0..-n).map(|i| (len - (-n) % len + i).rem_euclid(len)).collect() };
            Ok(Value::Vector(c.take(&idx)))
        }
        Value::Tuple(t) => {
            let len = t.len();
            if len == 0 {
                return Ok(Value::tuple(Vec::new()));
            }
            Ok(Value::tuple((0..n.unsigned_abs() as usize).map(|i| t[i % len].clone()).collect()))
        }
        Value::Table(t) => {
            let len = t.rows() as i64;
            let idx: Vec<i64> = (0..n.abs()).map(|i| if len == 0 { -1 } else { i % len }).collect();
            Ok(Value::table(t.take(&idx)))
        }
        other => Err(Error::unsupported("take", describe(other))),
    }
}

/// A conversion function named like a type stands for that type where a type is expected
/// (`array(int, 10)`, `matrix(double, 2, 3)`, `table(1:0, `a`b, [symbol, double])`, as the
/// manual's older examples write them); tuples are mapped item by item.
pub fn type_from_function(i: &CallCtx, v: Value) -> Value {
    match v {
        Value::Function(Func::Builtin(id)) => {
            let name = i.registry().get(id).name;
            match DataType::from_name(name) {
                Some(t) if name.chars().all(|c| c.is_ascii_lowercase()) => Value::Type(t),
                _ => v,
            }
        }
        Value::Tuple(items) if items.iter().any(|x| matches!(x, Value::Function(Func::Builtin(_)))) => {
            Value::tuple(items.iter().map(|x| type_from_function(i, x.clone())).collect())
        }
        other => other,
    }
}

/// Parse a type argument: a type constant or a type name string.
pub fn type_arg(name: &str, v: &Value) -> Result<DataType> {
    match v {
        Value::Type(t) => Ok(*t),
        // `INT[]`: the array-vector type (a table column of rows of INT)
        Value::Constant(..) if beluga_runtime::value::array_elem_type(v).is_some() => {
            beluga_runtime::value::array_elem_type(v)
                .and_then(DataType::array_of)
                .ok_or_else(|| Error::arg(format!("{name}: {} has no array-vector type", describe(v))))
        }
        Value::Scalar(c) if c.ty.is_literal() => {
            let s = c.str_at(0).unwrap_or("");
            DataType::from_name(s).ok_or_else(|| Error::arg(format!("{name}: unknown type {s}")))
        }
        Value::Scalar(c) if c.ty.is_integral() => DataType::from_id(c.i64_at(0).unwrap_or(-1) as i32)
            .ok_or_else(|| Error::arg(format!("{name}: unknown type id"))),
        other => Err(Error::arg(format!("{name}: expected a data type, got {}", describe(other)))),
    }
}

/// Column of `n` default values of `ty` (0 for numbers, empty strings, nulls for temporals).
pub fn default_column(ty: DataType, n: usize) -> Column {
    if ty.is_temporal() || ty == DataType::Void {
        return Column::nulls(ty, n);
    }
    match ty.physical() {
        Physical::I8 => Column::from_vec(ty, vec![0i8; n]),
        Physical::I16 => Column::from_vec(ty, vec![0i16; n]),
        Physical::I32 => Column::from_vec(ty, vec![0i32; n]),
        Physical::I64 => Column::from_vec(ty, vec![0i64; n]),
        Physical::F32 => Column::from_vec(ty, vec![0f32; n]),
        Physical::F64 => Column::from_vec(ty, vec![0f64; n]),
        _ => Column::nulls(ty, n),
    }
}

/// As `default_column`, with numeric buffers reserved fallibly (an error, not an abort,
/// when the system refuses the memory).
fn try_default_column(ty: DataType, n: usize) -> Result<Column> {
    if ty.is_temporal() || ty == DataType::Void {
        return Ok(Column::nulls(ty, n));
    }
    Ok(match ty.physical() {
        Physical::I8 => Column::from_vec(ty, guard::vec_filled(0i8, n)?),
        Physical::I16 => Column::from_vec(ty, guard::vec_filled(0i16, n)?),
        Physical::I32 => Column::from_vec(ty, guard::vec_filled(0i32, n)?),
        Physical::I64 => Column::from_vec(ty, guard::vec_filled(0i64, n)?),
        Physical::F32 => Column::from_vec(ty, guard::vec_filled(0f32, n)?),
        Physical::F64 => Column::from_vec(ty, guard::vec_filled(0f64, n)?),
        _ => Column::nulls(ty, n),
    })
}

/// `array(type, [size], [capacity], [defaultValue])`.
/// The first argument may be an existing vector (a template): its type is the new vector's,
/// and its length the default initial size (funcs/a/array.md: `y = array(x)`).
fn array(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    if let Some(v) = a.first_mut() {
        *v = type_from_function(i, std::mem::replace(v, Value::Void));
    }
    if let Some(et) = beluga_runtime::value::array_elem_type(&a[0]) {
        // array vector: `size` empty rows (DolphinDB allows only 0 here; more rows are empty)
        let n = opt(&a, 1).map(|v| int_arg("array", v, "size")).transpose()?.unwrap_or(0);
        if !(0..=2_000_000_000).contains(&n) {
            return Err(Error::arg("array: invalid size"));
        }
        let av = beluga_runtime::value::ArrayVec::new(vec![0; n as usize + 1], Column::nulls(et, 0));
        return Ok(Value::ArrayVector(Arc::new(av)));
    }
    let (ty, dflt_n) = match &a[0] {
        Value::Vector(c) => (c.ty, c.len() as i64),
        Value::Tuple(t) => (DataType::Any, t.len() as i64),
        v => (type_arg("array", v)?, 0),
    };
    let n = opt(&a, 1).map(|v| int_arg("array", v, "size")).transpose()?.unwrap_or(dflt_n);
    if n < 0 || n > 2_000_000_000 {
        return Err(Error::arg("array: invalid size"));
    }
    if ty == DataType::Any {
        return Ok(Value::tuple(guard::vec_filled(Value::Void, n as usize)?));
    }
    guard::need_col(n as usize, ty)?;
    if ty == DataType::Void {
        return Err(Error::arg("Not allowed to create void vector"));
    }
    match a.get(3) {
        // `array(DOUBLE, n, cap, NULL)`: a NULL default fills with NULL (ta's padding idiom),
        // not with the zeros of an omitted default
        Some(Value::Void) => Ok(Value::Vector(Column::nulls(ty, n as usize))),
        Some(d) => {
            let c = col("array", d)?;
            let c = if c.ty != ty { beluga_runtime::kernels::cast::cast_column(&c, ty)? } else { c };
            Ok(Value::Vector(c.take(&vec![0; n as usize])))
        }
        None => Ok(Value::Vector(try_default_column(ty, n as usize)?)),
    }
}

/// `table(X as a, ...)` or `table(capacity:size, colNames, colTypes)`.
fn table(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    if a.len() == 3 {
        a[2] = type_from_function(i, std::mem::replace(&mut a[2], Value::Void));
        if let (Value::Pair(shape), true) = (&a[0], a[1].data_type().is_literal()) {
            let size = shape.i64_at(1).unwrap_or(0).max(0) as usize;
            let names = col("table", &a[1])?;
            let types: Vec<DataType> = match &a[2] {
                Value::Tuple(t) => t.iter().map(|v| type_arg("table", v)).collect::<Result<_>>()?,
                Value::Vector(c) => (0..c.len())
                    .map(|k| {
                        if c.ty.is_literal() {
                            type_arg("table", &Value::string(c.str_at(k).unwrap_or("")))
                        } else {
                            type_arg("table", &Value::Scalar(c.slice(k, k + 1)))
                        }
                    })
                    .collect::<Result<_>>()?,
                v => vec![type_arg("table", v)?],
            };
            if types.len() != names.len() {
                return Err(Error::arg("table: the number of column names and types differ"));
            }
            let mut cols = Vec::new();
            let mut ns = Vec::new();
            for (k, ty) in types.iter().enumerate() {
                ns.push(names.str_at(k).unwrap_or("").to_string());
                cols.push(default_column(*ty, size));
            }
            return Ok(Value::table(Table::new(ns, cols)?));
        }
    }
    let names: Vec<String> = (0..a.len()).map(|k| format!("C{k}")).collect();
    beluga_runtime::table::table_from(names, a)
}

fn dict_(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    // dict(keyType, valueType, [ordered]) or dict(keys, values, [ordered])
    let ordered = opt(&a, 2).and_then(|v| v.as_bool()).unwrap_or(false);
    if let (Value::Type(kt), Value::Type(vt)) = (&a[0], &a[1]) {
        let vals = if *vt == DataType::Any { DictVals::Any(vec![]) } else { DictVals::Col(Column::nulls(*vt, 0)) };
        return Ok(Value::Dict(Arc::new(Dict {
            keys: Column::nulls(*kt, 0),
            vals,
            index: Default::default(),
            ordered,
            key_type: *kt,
            val_type: *vt,
        })));
    }
    let keys = col("dict", &a[0])?;
    let n = keys.len();
    let vals: Vec<Value> = match &a[1] {
        Value::Vector(c) | Value::Pair(c) if c.len() == n => (0..n).map(|k| Value::Scalar(c.slice(k, k + 1))).collect(),
        Value::Tuple(t) if t.len() == n => t.iter().cloned().collect(),
        Value::Scalar(_) => vec![a[1].clone(); n],
        _ => return Err(Error::size("dict: keys and values must have the same length")),
    };
    let kv: Vec<Value> = (0..n).map(|k| Value::Scalar(keys.slice(k, k + 1))).collect();
    let d = beluga_runtime::eval::build_dict_pub(&kv, vals, ordered)?;
    // keep the declared value type when values were a typed vector
    Ok(d)
}

fn set_(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match &a[0] {
        Value::Set(_) => Ok(a[0].clone()),
        v => Ok(ops::make_set(col("set", v)?)),
    }
}

/// Positions in console order: insertion order for ordered dicts, reversed otherwise.
fn dict_order(d: &Dict) -> Vec<i64> {
    let n = d.keys.len() as i64;
    if d.ordered { (0..n).collect() } else { (0..n).rev().collect() }
}

fn keys(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match &a[0] {
        Value::Dict(d) => Ok(Value::Vector(d.keys.take(&dict_order(d)))),
        Value::Table(t) => Ok(Value::string_vec(t.names.iter().map(|s| s.as_str()))),
        Value::Set(s) => {
            let n = s.items.len() as i64;
            Ok(Value::Vector(s.items.take(&(0..n).rev().collect::<Vec<i64>>())))
        }
        other => Err(Error::unsupported("keys", describe(other))),
    }
}

fn values(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    match &a[0] {
        Value::Dict(d) => {
            let order = dict_order(d);
            Ok(match &d.vals {
                DictVals::Col(c) => Value::Vector(c.take(&order)),
                DictVals::Any(v) => Value::tuple(order.iter().map(|&k| v[k as usize].clone()).collect()),
            })
        }
        Value::Table(t) => Ok(Value::tuple(t.cols.iter().map(|c| Value::Vector(c.clone())).collect())),
        other => Err(Error::unsupported("values", describe(other))),
    }
}

/// `append!(obj, x)` for vectors, tuples, tables, sets.
fn append(i: &mut CallCtx, mut a: Vec<Value>) -> Result<Value> {
    let x = a.pop().unwrap_or(Value::Void);
    let target = a.pop().unwrap_or(Value::Void);
    append_value(i, target, x)
}

pub fn append_value(i: &mut CallCtx, target: Value, x: Value) -> Result<Value> {
    match target {
        Value::Vector(mut c) => {
            let add = match &x {
                Value::Scalar(s) | Value::Vector(s) | Value::Pair(s) => s.clone(),
                Value::Void => Column::nulls(c.ty, 1),
                other => return Err(Error::type_err(format!("Incompatible type. Expected: {}, Actual: {}", c.ty, describe(other)))),
            };
            if add.ty != c.ty {
                let ok = (c.ty.is_literal() || !add.ty.is_literal()) && !(c.ty.is_numeric() && add.ty.is_literal());
                if !ok {
                    return Err(Error::type_err(format!("Incompatible type. Expected: {}, Actual: {}", c.ty, add.ty)));
                }
            }
            let add = if add.ty != c.ty && !(add.ty.is_literal() && c.ty.is_literal()) {
                beluga_runtime::kernels::cast::cast_column(&add, c.ty)?
            } else {
                add
            };
            c.append(&add);
            Ok(Value::Vector(c))
        }
        Value::Tuple(t) => {
            let mut t = Arc::unwrap_or_clone(t);
            t.push(x);
            Ok(Value::tuple(t))
        }
        Value::Set(s) => {
            let mut items = s.items.clone();
            let add = col("append!", &x)?;
            let add = if add.ty != items.ty && !(add.ty.is_literal() && items.ty.is_literal()) {
                beluga_runtime::kernels::cast::cast_column(&add, items.ty)?
            } else {
                add
            };
            items.append(&add);
            Ok(ops::make_set(items))
        }
        Value::Table(mut t) => {
            // in place when the caller handed over the only reference (amortised O(rows
            // appended)); copy-on-write when the table is also held elsewhere. On failure
            // the untouched table goes back through inplace_out for the caller to restore.
            match append_rows_in_place(Arc::make_mut(&mut t), &x) {
                Ok(()) => Ok(Value::Table(t)),
                Err(e) => {
                    *i.inplace_out() = Some(Value::Table(t));
                    Err(e)
                }
            }
        }
        Value::Matrix(m) => ops::join(&Value::Matrix(m), &x),
        Value::ArrayVector(av) => {
            // each vector appended is one row: a vector/scalar adds one row, a tuple of
            // vectors or another array vector adds one row per element
            let ty = av.data.ty;
            let mut rows: Vec<Column> = (0..av.rows()).map(|r| av.row(r)).collect();
            let fit = |c: &Column| -> Result<Column> {
                if c.is_empty() {
                    // an empty row is stored as [null] (progr/data_types_forms/arrayVector.md)
                    Ok(Column::nulls(ty, 1))
                } else if c.ty == ty {
                    Ok(c.clone())
                } else if c.ty == DataType::Void || (!c.ty.is_literal() && !ty.is_literal()) {
                    beluga_runtime::kernels::cast::cast_column(c, ty)
                } else {
                    Err(Error::type_err(format!("Incompatible type. Expected: {}[], Actual: {}", ty, c.ty)))
                }
            };
            match &x {
                Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => rows.push(fit(c)?),
                Value::Void => rows.push(Column::nulls(ty, 1)),
                Value::ArrayVector(b) => {
                    for r in 0..b.rows() {
                        rows.push(fit(&b.row(r))?);
                    }
                }
                Value::Tuple(items) => {
                    for it in items.iter() {
                        match it {
                            Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => rows.push(fit(c)?),
                            Value::Void => rows.push(Column::nulls(ty, 1)),
                            Value::Tuple(t) if t.is_empty() => rows.push(Column::nulls(ty, 1)),
                            other => {
                                return Err(Error::type_err(format!("append!: an array vector row must be a vector, not {}", describe(other))))
                            }
                        }
                    }
                }
                other => return Err(Error::type_err(format!("append!: cannot append {} to an array vector", describe(other)))),
            }
            Ok(Value::ArrayVector(Arc::new(beluga_runtime::value::ArrayVec::from_rows(ty, &rows))))
        }
        Value::Handle(h) => {
            // stream tables and streaming engines append in the session (see stream/)
            if let Some(r) = h.session_append(i, &x) {
                r?;
                return Ok(Value::Handle(h));
            }
            // stored tables append through their table source
            let Some(src) = h.table_source() else { return Err(Error::unsupported("append!", h.type_name())) };
            src.append_value(&x)?;
            Ok(Value::Handle(h))
        }
        other => Err(Error::unsupported("append!", describe(&other))),
    }
}

/// The column of `v` for a table column of type `ty`: an `ELEM[]` column takes rows
/// (`ArrayVec::rows_of`), any other column the value's column.
pub fn table_part(name: &str, v: &Value, ty: DataType) -> Result<Column> {
    match ty.array_elem() {
        Some(e) => Ok(Column::from_array(Arc::new(beluga_runtime::value::ArrayVec::rows_of(v, e)?))),
        None => col(name, v),
    }
}

/// Append rows (a table matched by position, or a tuple of columns) to a table; all or nothing.
pub fn append_rows(mut t: Table, x: &Value) -> Result<Table> {
    append_rows_in_place(&mut t, x)?;
    Ok(t)
}

/// `append_rows` on a table in place: every part is checked and converted before the
/// first column grows, so on error the table is unchanged.
pub fn append_rows_in_place(t: &mut Table, x: &Value) -> Result<()> {
    let parts: Vec<Column> = match x {
        Value::Table(s) => {
            if s.ncols() != t.ncols() {
                return Err(Error::arg(format!(
                    "The number of columns of the table to insert ({}) doesn't match the target ({})",
                    s.ncols(),
                    t.ncols()
                )));
            }
            s.cols.clone()
        }
        Value::Tuple(items) => {
            if items.len() != t.ncols() {
                return Err(Error::arg("The number of values doesn't match the number of columns"));
            }
            items.iter().zip(&t.cols).map(|(v, tc)| table_part("append!", v, tc.ty)).collect::<Result<_>>()?
        }
        Value::Dict(d) => {
            let mut out = Vec::new();
            for (name, tc) in t.names.iter().zip(&t.cols) {
                let k = Value::string(name);
                let v = beluga_runtime::eval::dict_get_pub(d, &k)?;
                out.push(table_part("append!", &v, tc.ty)?);
            }
            out
        }
        other => return Err(Error::arg(format!("Can't append {} to a table", describe(other)))),
    };
    let mut converted = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        let target = &t.cols[k];
        let p = if p.ty != target.ty && !(p.ty.is_literal() && target.ty.is_literal()) {
            if (target.ty.is_numeric() && p.ty.is_literal()) || (target.ty.array_elem().is_some() != p.ty.array_elem().is_some()) {
                return Err(Error::type_err(format!(
                    "The column [{}] expects type {}, but the value is {}",
                    t.names[k], target.ty, p.ty
                )));
            }
            beluga_runtime::kernels::cast::cast_column(p, target.ty).map_err(|e| {
                Error::type_err(format!("The column [{}]: {}", t.names[k], e.message))
            })?
        } else {
            p.clone()
        };
        converted.push(p);
    }
    let n = converted.first().map(|c| c.len()).unwrap_or(0);
    if converted.iter().any(|c| c.len() != n) {
        return Err(Error::size("The columns to append have different lengths"));
    }
    // a keyed or indexed table: a row whose key exists replaces it, as `insert into` does
    if !t.keys.is_empty() {
        crate::table::insert_rows(t, &converted)?;
        return Ok(());
    }
    for (k, c) in converted.iter().enumerate() {
        t.cols[k].append(c);
    }
    Ok(())
}

// ------------------------------------------------------------ output and session

fn print(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    for v in &a {
        let text = match v {
            Value::Scalar(c) if c.ty.is_literal() => c.str_at(0).unwrap_or("").to_string(),
            other => i.format(other),
        };
        i.emit(&text);
    }
    Ok(Value::Void)
}

fn share_(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = crate::util::str_arg("share", &a[1], "name")?.to_string();
    i.share(a[0].clone(), &name)?;
    Ok(a[0].clone())
}

fn func_by_name(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = crate::util::str_arg("funcByName", &a[0], "name")?.to_string();
    let op = match name.as_str() {
        "+" => "add",
        "-" => "sub",
        "*" => "mul",
        "/" => "div",
        "\\" => "ratio",
        "%" => "mod",
        "**" => "dot",
        "==" => "eq",
        "!=" | "<>" => "ne",
        "<" => "lt",
        "<=" => "le",
        ">" => "gt",
        ">=" => "ge",
        "&&" => "and",
        "||" => "or",
        "&" => "bitAnd",
        "|" => "bitOr",
        "^" => "bitXor",
        "<<" => "lshift",
        ">>" => "rshift",
        "<-" => "join",
        ".." => "seq",
        ":" => "pair",
        "$" => "cast",
        other => other,
    };
    i.resolve_function(op)
}

fn assert_(i: &mut Interpreter, a: Vec<Value>) -> Result<Value> {
    let ok = ops::all_true(a.last().unwrap_or(&Value::Void));
    if !ok {
        let case = i.test.case.clone();
        i.test.failures.push((case.clone(), String::new(), format!("Testing case {case} failed")));
    }
    Ok(Value::Void)
}

/// `test(path)`: run DolphinDB `@testing` files and print a summary.
fn test_(i: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let path = crate::util::str_arg("test", &a[0], "path")?.to_string();
    let report = crate::testing::run_paths(i.registry().clone(), &[std::path::PathBuf::from(&path)]);
    for line in report.lines() {
        i.emit(&line);
    }
    let (passed, failed) = report.totals();
    i.emit(&format!("#Fail/#Total Testing Cases: {}/{}", failed, passed + failed));
    Ok(Value::Void)
}

fn is_function_value(f: &Value) -> bool {
    matches!(f, Value::Function(Func::Builtin(_)) | Value::Function(_))
}

fn is_function_b(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    Ok(Value::bool(is_function_value(&a[0])))
}

pub const DEFS: &[Builtin] = &[
    f("typestr", Kind::System, 1, 1, typestr),
    f("type", Kind::System, 1, 1, type_),
    f("form", Kind::System, 1, 1, form),
    f("size", Kind::Aggregate, 1, 1, size),
    f("rows", Kind::Aggregate, 1, 1, rows),
    f("cols", Kind::System, 1, 1, cols),
    // the manual's table page counts columns with `t1.columns()` (progr/data_types_forms/table.md)
    f("columns", Kind::System, 1, 1, cols),
    f("shape", Kind::System, 1, 1, shape),
    fp("eqObj", Kind::System, 2, 3, eq_obj_b, &["obj1", "obj2", "precision"]),
    f("isNull", Kind::Elementwise, 1, 1, is_null),
    f("isValid", Kind::Elementwise, 1, 1, is_valid),
    f("isVoid", Kind::System, 1, 1, is_void),
    f("hasNull", Kind::Aggregate, 1, 1, has_null),
    f("all", Kind::Aggregate, 1, 1, all_),
    f("any", Kind::Aggregate, 1, 1, any_),
    f("iif", Kind::Elementwise, 3, 3, iif),
    f("til", Kind::System, 1, 1, til),
    f("seq", Kind::System, 2, 2, seq_),
    f("pair", Kind::System, 2, 2, pair_),
    f("take", Kind::System, 2, 2, take),
    fp("array", Kind::System, 1, 4, array, &["dataType", "initialSize", "capacity", "defaultValue"]),
    f("table", Kind::System, 1, u8::MAX, table),
    fp("dict", Kind::System, 2, 3, dict_, &["keyObj", "valueObj", "ordered"]),
    f("set", Kind::System, 1, 1, set_),
    f("keys", Kind::System, 1, 1, keys),
    f("values", Kind::System, 1, 1, values),
    f("append!", Kind::System, 2, 2, append),
    f("print", Kind::System, 0, u8::MAX, print),
    f("share", Kind::System, 2, 2, share_),
    f("funcByName", Kind::System, 1, 1, func_by_name),
    beluga_runtime::registry::fs("assert", Kind::System, 1, 2, assert_),
    f("test", Kind::System, 1, 2, test_),
    f("isFunction", Kind::System, 1, 1, is_function_b),
];
