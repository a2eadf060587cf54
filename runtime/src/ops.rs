//! Operators on whole values: structural broadcasting over forms, then one column kernel;
//! vector construction from scalars; conversion of whole values (`cast_value`). A layer
//! below the evaluator (it never uses the interpreter): types/nulls → column → kernels → value/table → ops → eval → sql, with
//! printing (`fmt`) above ops. `eval::ops` re-exports this module.

use crate::column::{ColData, Column, StrCol};
use crate::error::{Error, Result};
use crate::kernels::arith::{self, ArithOp, LogicOp};
use crate::kernels::cast::{cannot, cast_column};
use crate::kernels::cmp::{self, CmpOp};
use crate::null::Native;
use crate::types::{common_type, DataType, Physical};
use crate::value::{Dict, DictVals, Key, Matrix, SetVal, Value};
use ahash::AHashMap;
use beluga_lang::ast::BinOp;
use std::sync::Arc;

/// Normalise operand values: type constants and named constants act as INT scalars, VOID as a null.
fn norm(v: &Value) -> Value {
    match v {
        Value::Type(t) => Value::int(t.id()),
        Value::Constant(_, n) => Value::int(*n),
        _ => v.clone(),
    }
}

type ColFn<'a> = &'a dyn Fn(&Column, bool, &Column, bool) -> Result<Column>;

/// The row number of every element of an array vector, in storage order.
fn row_of_elements(x: &crate::value::ArrayVec) -> Vec<i64> {
    let mut out = Vec::with_capacity(x.data.len());
    for r in 0..x.rows() {
        out.extend(std::iter::repeat(r as i64).take(x.row_len(r)));
    }
    out
}

/// Apply a column kernel with DolphinDB's broadcasting over data forms.
pub fn elementwise(a: &Value, b: &Value, f: ColFn) -> Result<Value> {
    let _level = crate::guard::Nest::value()?;
    let a = norm(a);
    let b = norm(b);
    match (&a, &b) {
        (Value::ArrayVector(x), Value::ArrayVector(y)) => {
            if x.offsets != y.offsets {
                return Err(Error::size("The two array vectors must have the same shape"));
            }
            Ok(Value::ArrayVector(Arc::new(x.with_data(f(&x.data, false, &y.data, false)?))))
        }
        (Value::ArrayVector(x), _) if b.is_scalar() => {
            let (cb, sb) = scalar_col(&b)?;
            Ok(Value::ArrayVector(Arc::new(x.with_data(f(&x.data, false, &cb, sb)?))))
        }
        (_, Value::ArrayVector(y)) if a.is_scalar() => {
            let (ca, sa) = scalar_col(&a)?;
            Ok(Value::ArrayVector(Arc::new(y.with_data(f(&ca, sa, &y.data, false)?))))
        }
        // a vector with one element per row: every element of row r meets v[r]
        // (tutorials/Array_Vector.md: x * [1, 2, 3, 4]; x - rowWavg(x, w))
        (Value::ArrayVector(x), Value::Vector(v)) if v.len() == x.rows() => {
            let spread = v.take(&row_of_elements(x));
            Ok(Value::ArrayVector(Arc::new(x.with_data(f(&x.data, false, &spread, false)?))))
        }
        (Value::Vector(v), Value::ArrayVector(y)) if v.len() == y.rows() => {
            let spread = v.take(&row_of_elements(y));
            Ok(Value::ArrayVector(Arc::new(y.with_data(f(&spread, false, &y.data, false)?))))
        }
        (Value::Tuple(x), Value::Tuple(y)) => {
            if x.len() != y.len() {
                return Err(Error::size("The two tuples must have the same length"));
            }
            let r: Result<Vec<Value>> = x.iter().zip(y.iter()).map(|(p, q)| elementwise(p, q, f)).collect();
            Ok(Value::tuple(r?))
        }
        (Value::Tuple(x), _) => Ok(Value::tuple(x.iter().map(|p| elementwise(p, &b, f)).collect::<Result<_>>()?)),
        (_, Value::Tuple(y)) => Ok(Value::tuple(y.iter().map(|q| elementwise(&a, q, f)).collect::<Result<_>>()?)),
        // two indexed series/matrices meet on their labels, not their positions
        (Value::Matrix(m), Value::Matrix(n)) if m.indexed && n.indexed => align_indexed(m, n, f),
        (Value::Matrix(m), _) => {
            let (cb, sb) = match &b {
                Value::Matrix(n) => {
                    if n.rows != m.rows || n.cols != m.cols {
                        return Err(Error::size("The two matrices must have the same shape"));
                    }
                    (n.data.clone(), false)
                }
                Value::Vector(c) if c.len() == m.rows && m.cols > 1 => (tile(c, m.cols), false),
                _ => scalar_col(&b)?,
            };
            let data = f(&m.data, false, &cb, sb)?;
            Ok(Value::Matrix(Arc::new(Matrix { data, ..(**m).clone() })))
        }
        (_, Value::Matrix(n)) => {
            let (ca, sa) = match &a {
                Value::Vector(c) if c.len() == n.rows && n.cols > 1 => (tile(c, n.cols), false),
                _ => scalar_col(&a)?,
            };
            let data = f(&ca, sa, &n.data, false)?;
            Ok(Value::Matrix(Arc::new(Matrix { data, ..(**n).clone() })))
        }
        (Value::Dict(d), _) => map_dict(d, |v| elementwise(v, &b, f)),
        (_, Value::Dict(d)) => map_dict(d, |v| elementwise(&a, v, f)),
        (Value::Table(t), _) if b.is_scalar() => {
            let mut t2 = (**t).clone();
            let (cb, _) = scalar_col(&b)?;
            for c in t2.cols.iter_mut() {
                *c = f(c, false, &cb, true)?;
            }
            Ok(Value::table(t2))
        }
        _ => {
            let (ca, sa) = scalar_col(&a)?;
            let (cb, sb) = scalar_col(&b)?;
            let r = f(&ca, sa, &cb, sb)?;
            // a scalar holds exactly one value (a one-column table operand may have 0 or n rows)
            let form_pair = (matches!(a, Value::Pair(_)) || matches!(b, Value::Pair(_))) && r.len() == 2;
            let form_vec = matches!(a, Value::Vector(_)) || matches!(b, Value::Vector(_)) || (r.len() != 1 && !form_pair);
            Ok(if form_vec {
                Value::Vector(r)
            } else if form_pair {
                Value::Pair(r)
            } else {
                Value::Scalar(r)
            })
        }
    }
}

/// The labels of a matrix axis as a column.
fn axis_labels(l: &Option<Box<Value>>) -> Option<&Column> {
    match l.as_deref() {
        Some(Value::Vector(c)) => Some(c),
        _ => None,
    }
}

/// The sorted union of two label columns and, for each union label, its position in `a`
/// and in `b` (-1 where that side lacks it). `b` is converted to the type of `a`.
fn label_union(a: &Column, b: &Column) -> Result<(Column, Vec<i64>, Vec<i64>)> {
    let b = if b.ty != a.ty { cast_column(b, a.ty)? } else { b.clone() };
    let index = |c: &Column| -> AHashMap<Key, i64> { (0..c.len()).map(|i| (Key::of(c, i), i as i64)).collect() };
    let (ia, ib) = (index(a), index(&b));
    let extra: Vec<usize> = (0..b.len()).filter(|&i| !ia.contains_key(&Key::of(&b, i))).collect();
    let all = Column::concat(a.ty, &[a, &b.take_usize(&extra)]);
    let order = crate::kernels::order::argsort(&all, true);
    let labels = all.take_usize(&order);
    let pos = |ix: &AHashMap<Key, i64>| -> Vec<i64> { (0..labels.len()).map(|i| *ix.get(&Key::of(&labels, i)).unwrap_or(&-1)).collect() };
    let (pa, pb) = (pos(&ia), pos(&ib));
    Ok((labels, pa, pb))
}

/// A binary operation between two indexed operands (indexed series or indexed matrices):
/// rows meet by row label and columns by column label, over the union of both (NULL where
/// one side has no cell); an indexed series (no column labels) spreads over the columns of
/// an indexed matrix (funcs/i/indexedSeries.md, tutorials/panel_data.md).
fn align_indexed(m: &Matrix, n: &Matrix, f: ColFn) -> Result<Value> {
    let (Some(rm), Some(rn)) = (axis_labels(&m.row_labels), axis_labels(&n.row_labels)) else {
        return Err(Error::arg("An indexed series or matrix must have row labels"));
    };
    let (rows, prm, prn) = label_union(rm, rn)?;
    let series = |x: &Matrix| x.col_labels.is_none() && x.cols == 1;
    // column positions of each side per output column, and the output column labels
    let (cols, pcm, pcn): (Option<Column>, Vec<i64>, Vec<i64>) = match (axis_labels(&m.col_labels), axis_labels(&n.col_labels)) {
        (Some(cm), Some(cn)) => {
            let (l, a, b) = label_union(cm, cn)?;
            (Some(l), a, b)
        }
        (Some(cm), None) if series(n) => (Some(cm.clone()), (0..m.cols as i64).collect(), vec![0; m.cols]),
        (None, Some(cn)) if series(m) => (Some(cn.clone()), vec![0; n.cols], (0..n.cols as i64).collect()),
        (None, None) if m.cols == n.cols => (None, (0..m.cols as i64).collect(), (0..n.cols as i64).collect()),
        _ => return Err(Error::size("The columns of two indexed matrices must carry labels to be aligned")),
    };
    let cells = |x: &Matrix, pr: &[i64], pc: &[i64]| -> Vec<i64> {
        let mut idx = Vec::with_capacity(pr.len() * pc.len());
        for &c in pc {
            for &r in pr {
                idx.push(if r < 0 || c < 0 { -1 } else { c * x.rows as i64 + r });
            }
        }
        idx
    };
    let left = m.data.take(&cells(m, &prm, &pcm));
    let right = n.data.take(&cells(n, &prn, &pcn));
    let data = f(&left, false, &right, false)?;
    Ok(Value::Matrix(Arc::new(Matrix {
        data,
        rows: rows.len(),
        cols: pcm.len(),
        row_labels: Some(Box::new(Value::Vector(rows))),
        col_labels: cols.map(|c| Box::new(Value::Vector(c))),
        indexed: true,
    })))
}

fn tile(c: &Column, times: usize) -> Column {
    let refs: Vec<&Column> = std::iter::repeat(c).take(times).collect();
    Column::concat(c.ty, &refs)
}

fn map_dict(d: &Dict, f: impl Fn(&Value) -> Result<Value>) -> Result<Value> {
    let vals: Vec<Value> = match &d.vals {
        DictVals::Col(c) => (0..c.len()).map(|i| f(&Value::Scalar(c.slice(i, i + 1)))).collect::<Result<_>>()?,
        DictVals::Any(v) => v.iter().map(&f).collect::<Result<_>>()?,
    };
    let (vals, vt) = match unify_scalars(&vals)? {
        Some(Value::Vector(c)) => {
            let t = c.ty;
            (DictVals::Col(c), t)
        }
        _ => (DictVals::Any(vals), DataType::Any),
    };
    Ok(Value::Dict(Arc::new(Dict { vals, val_type: vt, ..d.clone() })))
}

/// Column and "is scalar" flag of a scalar/vector/pair operand.
pub fn scalar_col(v: &Value) -> Result<(Column, bool)> {
    match v {
        Value::Scalar(c) => Ok((c.clone(), true)),
        Value::Void => Ok((Column::nulls(DataType::Void, 1), true)),
        Value::Vector(c) | Value::Pair(c) => Ok((c.clone(), false)),
        Value::Type(t) => Ok((Column::from_vec(DataType::Int, vec![t.id()]), true)),
        Value::Constant(_, n) => Ok((Column::from_vec(DataType::Int, vec![*n]), true)),
        Value::Table(t) if t.ncols() == 1 => Ok((t.cols[0].clone(), t.rows() == 1)),
        other => Err(Error::type_err(format!(
            "The operator is not supported for {}",
            describe(other)
        ))),
    }
}

pub use crate::value::describe;

pub fn arith_values(op: ArithOp, a: &Value, b: &Value) -> Result<Value> {
    elementwise(a, b, &|x, sa, y, sb| arith::arith(op, x, sa, y, sb))
}

pub fn compare_values(op: CmpOp, a: &Value, b: &Value) -> Result<Value> {
    if let (Value::Set(x), Value::Set(y)) = (a, b) {
        return Ok(Value::bool(set_compare(op, x, y)));
    }
    elementwise(a, b, &|x, sa, y, sb| cmp::compare(op, x, sa, y, sb))
}

fn set_compare(op: CmpOp, x: &SetVal, y: &SetVal) -> bool {
    let sub = |p: &SetVal, q: &SetVal| p.index.keys().all(|k| q.index.contains_key(k));
    match op {
        CmpOp::Eq => x.index.len() == y.index.len() && sub(x, y),
        CmpOp::Ne => !(x.index.len() == y.index.len() && sub(x, y)),
        CmpOp::Le => sub(x, y),
        CmpOp::Lt => sub(x, y) && x.index.len() < y.index.len(),
        CmpOp::Ge => sub(y, x),
        CmpOp::Gt => sub(y, x) && x.index.len() > y.index.len(),
    }
}

/// Integer bitwise kernels.
fn bitwise(op: BinOp, a: &Column, sa: bool, b: &Column, sb: bool) -> Result<Column> {
    if !(a.ty.is_integral() || a.ty == DataType::Void) || !(b.ty.is_integral() || b.ty == DataType::Void) {
        return Err(Error::type_err(format!(
            "The {} operator only supports integral types, not {} and {}",
            op.func_name(),
            a.ty,
            b.ty
        )));
    }
    let long = a.ty == DataType::Long || b.ty == DataType::Long;
    let x = arith::as_native::<i64>(a);
    let y = arith::as_native::<i64>(b);
    let f = |p: i64, q: i64| -> i64 {
        match op {
            BinOp::BitAnd => p & q,
            BinOp::BitOr => p | q,
            BinOp::BitXor => p ^ q,
            BinOp::Shl => p.wrapping_shl(q as u32),
            _ => p.wrapping_shr(q as u32),
        }
    };
    let r = arith::binary_map(&x, &y, sa, sb, f);
    if long {
        Ok(Column::from_vec(DataType::Long, r))
    } else {
        let ty = if a.ty == b.ty && op != BinOp::Shl && op != BinOp::Shr { a.ty } else { DataType::Int };
        let ty = if ty == DataType::Void { DataType::Int } else { ty };
        Ok(Column::from_vec(DataType::Long, r).cast_int_like(ty))
    }
}

impl Column {
    /// Narrow an i64 column to an integral type (values already in range).
    pub fn cast_int_like(self, ty: DataType) -> Column {
        let v = arith::as_native::<i64>(&self);
        match ty {
            DataType::Bool | DataType::Char => Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i8::NULL } else { x as i8 }).collect::<Vec<i8>>()),
            DataType::Short => Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i16::NULL } else { x as i16 }).collect::<Vec<i16>>()),
            DataType::Long => self,
            _ => Column::from_vec(DataType::Int, v.iter().map(|&x| if x.is_null() { i32::NULL } else { x as i32 }).collect::<Vec<i32>>()),
        }
    }
}

/// Set algebra for `& | - ^`.
fn set_op(op: BinOp, x: &SetVal, y: &SetVal) -> Result<Value> {
    let in_y = |i: &usize| y.index.contains_key(&Key::of(&x.items, *i));
    let not_in_x = |i: &usize| !x.index.contains_key(&Key::of(&y.items, *i));
    let (keep, extra): (Vec<usize>, Vec<usize>) = match op {
        // in y's print order (reverse insertion), as DolphinDB prints `x & y`
        BinOp::BitAnd => (vec![], (0..y.items.len()).rev().filter(|i| x.index.contains_key(&Key::of(&y.items, *i))).collect()),
        BinOp::Sub => ((0..x.items.len()).filter(|i| !in_y(i)).collect(), vec![]),
        BinOp::BitOr => ((0..x.items.len()).collect(), (0..y.items.len()).filter(not_in_x).collect()),
        BinOp::BitXor => ((0..x.items.len()).filter(|i| !in_y(i)).collect(), (0..y.items.len()).filter(not_in_x).collect()),
        _ => return Err(Error::type_err("Unsupported set operation")),
    };
    let a = x.items.take_usize(&keep);
    let b = y.items.take_usize(&extra);
    let ty = x.items.ty;
    let b = if b.ty != ty { crate::kernels::cast::cast_column(&b, ty)? } else { b };
    Ok(make_set(Column::concat(ty, &[&a, &b])))
}

/// Build a set from a column (keeps first occurrences in order).
pub fn make_set(col: Column) -> Value {
    let mut index = AHashMap::with_capacity(col.len());
    let mut keep = Vec::with_capacity(col.len());
    for i in 0..col.len() {
        let k = Key::of(&col, i);
        if !index.contains_key(&k) {
            index.insert(k, keep.len());
            keep.push(i);
        }
    }
    let items = if keep.len() == col.len() { col } else { col.take_usize(&keep) };
    Value::Set(Arc::new(SetVal { items, index }))
}

/// Membership `x in y`.
pub fn in_values(x: &Value, y: &Value) -> Result<Value> {
    // `Maturity in (a, b)`: a tuple of scalars is the vector of its elements
    if let Value::Tuple(items) = y {
        if let Some(v) = unify_scalars(items)? {
            return in_values(x, &v);
        }
    }
    let keys_of = |y: &Value| -> Result<ahash::AHashSet<Key>> {
        Ok(match y {
            Value::Set(s) => s.index.keys().cloned().collect(),
            Value::Dict(d) => d.index.keys().cloned().collect(),
            Value::Table(t) if t.ncols() >= 1 => (0..t.rows()).map(|i| Key::of(&t.cols[0], i)).collect(),
            _ => {
                let (c, _) = scalar_col(y)?;
                (0..c.len()).map(|i| Key::of(&c, i)).collect()
            }
        })
    };
    if let Some(v) = sym_in_strings(x, y) {
        return Ok(v);
    }
    match x {
        Value::Tuple(t) => Ok(Value::tuple(t.iter().map(|e| in_values(e, y)).collect::<Result<_>>()?)),
        Value::Set(s) => in_values(&Value::Vector(s.items.clone()), y),
        // a matrix: a BOOL matrix of the same shape and labels (funcs/i/in.md)
        Value::Matrix(m) => match in_values(&Value::Vector(m.data.clone()), y)? {
            Value::Vector(c) => Ok(Value::Matrix(Arc::new(Matrix { data: c, ..(**m).clone() }))),
            other => Ok(other),
        },
        _ => {
            let (xc, xs) = scalar_col(x)?;
            // the values `x` is looked up among (a set's items, a dict's keys, a table's
            // first column)
            let ycol = match y {
                Value::Set(s) => s.items.clone(),
                Value::Dict(d) => d.keys.clone(),
                Value::Table(t) if t.ncols() >= 1 => t.cols[0].clone(),
                _ => scalar_col(y)?.0,
            };
            let yc_ty = ycol.ty;
            // align numeric representations so 1 in 1.0 2.0 works
            // two temporal types meet in the finer one, as the comparison operators do
            // (`2023.01.04 in [2023.01.04T00:00:00]` is true)
            let mut y_conv = None;
            let xc = if xc.ty != yc_ty && xc.ty.is_temporal() && yc_ty.is_temporal() {
                let fine = cmp::comparable_temporal(xc.ty, yc_ty)?;
                if fine != yc_ty {
                    y_conv = Some(fine);
                }
                crate::kernels::temporal_to(&xc, fine)?
            } else if xc.ty != yc_ty && xc.ty.is_numeric() && yc_ty.is_numeric() {
                crate::kernels::cast::cast_column(&xc, yc_ty)?
            } else if xc.ty.is_literal() && yc_ty.is_literal() && xc.ty != yc_ty {
                crate::kernels::cast::cast_column(&xc, yc_ty)?
            } else {
                xc
            };
            let keys = match y_conv {
                Some(fine) => keys_of(&Value::Vector(crate::kernels::temporal_to(&ycol, fine)?))?,
                None => keys_of(y)?,
            };
            let r: Vec<i8> = (0..xc.len()).map(|i| keys.contains(&Key::of(&xc, i)) as i8).collect();
            let c = Column::from_vec(DataType::Bool, r);
            Ok(if xs { Value::Scalar(c) } else { Value::Vector(c) })
        }
    }
}

/// `symbolVector in strings`: membership decided once per dictionary entry and looked up by
/// code, instead of turning every row into a string (None: not this case).
fn sym_in_strings(x: &Value, y: &Value) -> Option<Value> {
    let Value::Vector(xc) = x else { return None };
    let crate::column::ColData::Sym(sym) = &*xc.data else { return None };
    let yc = match y {
        Value::Vector(c) | Value::Scalar(c) => c,
        Value::Set(s) => &s.items,
        _ => return None,
    };
    if !yc.ty.is_literal() {
        return None;
    }
    // each wanted string looked up in the dictionary's index: O(|y|), whatever the
    // dictionary's size (a stored table's dictionary holds every symbol of the table)
    let mut by_code = vec![0i8; sym.dict.names.len()];
    for i in 0..yc.len() {
        if let Some(&code) = sym.dict.index.get(yc.str_at(i).unwrap_or("")) {
            by_code[code as usize] = 1;
        }
    }
    let r: Vec<i8> = sym.codes.iter().map(|&c| by_code.get(c as usize).copied().unwrap_or(0)).collect();
    Some(Value::Vector(Column::from_vec(DataType::Bool, r)))
}

/// A compiled LIKE pattern: `%` any run, `_` (or `?`) one character; case folded for ilike.
pub struct LikePat {
    p: Vec<char>,
    ci: bool,
}

#[inline]
fn fold(c: char) -> char {
    if c.is_ascii() { c.to_ascii_lowercase() } else { c.to_lowercase().next().unwrap_or(c) }
}

impl LikePat {
    pub fn new(p: &str, ci: bool) -> LikePat {
        LikePat { p: p.chars().map(|c| if ci { fold(c) } else { c }).collect(), ci }
    }

    /// Two-pointer wildcard match over the characters of `s` (no allocation).
    pub fn matches(&self, s: &str) -> bool {
        let p = &self.p;
        let at = |i: usize| -> (char, usize) {
            let c = s[i..].chars().next().unwrap_or('\0');
            (if self.ci { fold(c) } else { c }, c.len_utf8())
        };
        let (mut i, mut j) = (0usize, 0usize);
        let (mut star, mut mark) = (None::<usize>, 0usize);
        while i < s.len() {
            let (c, w) = at(i);
            if j < p.len() && p[j] != '%' && (p[j] == '_' || p[j] == '?' || p[j] == c) {
                i += w;
                j += 1;
            } else if j < p.len() && p[j] == '%' {
                star = Some(j);
                mark = i;
                j += 1;
            } else if let Some(st) = star {
                j = st + 1;
                mark += at(mark).1;
                i = mark;
            } else {
                return false;
            }
        }
        while j < p.len() && p[j] == '%' {
            j += 1;
        }
        j == p.len()
    }
}

/// SQL-style `like` with `%` (any run) and `?`/`_` (one character).
pub fn like_match(s: &str, p: &str, ci: bool) -> bool {
    LikePat::new(p, ci).matches(s)
}

/// The LIKE kernel of the operator and of the `like`/`ilike` builtins: strings `x` against
/// patterns `p` (either may be a scalar, `sx`/`sp`), BOOL out. One pattern is compiled once
/// and a SYMBOL column's names are matched once each. The caller checks the types.
pub fn like_column(name: &str, x: &Column, sx: bool, p: &Column, sp: bool, ci: bool, negate: bool) -> Result<Column> {
    use crate::column::ColData;
    if (!sx && !sp && x.len() != p.len()) || (sx && x.is_empty()) || (sp && p.is_empty()) {
        return Err(Error::size(format!("{name}: the strings and the patterns must be the same length")));
    }
    if sp {
        let pat = LikePat::new(p.str_at(0).unwrap_or(""), ci);
        let hit = |s: &str| (pat.matches(s) != negate) as i8;
        let r: Vec<i8> = match &*x.data {
            ColData::Sym(sym) if sym.dict.names.len() <= 2 * sym.codes.len() + 16 => {
                let table: Vec<i8> = sym.dict.names.iter().map(|n| hit(n)).collect();
                sym.codes.iter().map(|&c| table[c as usize]).collect()
            }
            _ => (0..x.len()).map(|i| hit(x.str_at(i).unwrap_or(""))).collect(),
        };
        return Ok(Column::from_vec(DataType::Bool, r));
    }
    let n = if sx { p.len() } else { x.len() };
    let r: Vec<i8> = (0..n)
        .map(|i| {
            let s = x.str_at(if sx { 0 } else { i }).unwrap_or("");
            (LikePat::new(p.str_at(i).unwrap_or(""), ci).matches(s) != negate) as i8
        })
        .collect();
    Ok(Column::from_vec(DataType::Bool, r))
}

fn like_values(x: &Value, p: &Value, ci: bool, negate: bool) -> Result<Value> {
    elementwise(x, p, &|a, sa, b, sb| {
        if !a.ty.is_literal() || !b.ty.is_literal() {
            return Err(Error::type_err("like requires string arguments"));
        }
        like_column("like", a, sa, b, sb, ci, negate)
    })
}

/// `x between a:b`, inclusive on both ends.
pub fn between(x: &Value, range: &Value) -> Result<Value> {
    let (lo, hi) = match range {
        Value::Pair(c) => (Value::Scalar(c.slice(0, 1)), Value::Scalar(c.slice(1, 2))),
        Value::Tuple(t) if t.len() == 2 => (t[0].clone(), t[1].clone()),
        Value::Vector(c) if c.len() == 2 => (Value::Scalar(c.slice(0, 1)), Value::Scalar(c.slice(1, 2))),
        _ => return Err(Error::arg("The right operand of between must be a pair a:b")),
    };
    // between compares temporal values of one type only (a DATE is not between two
    // TIMESTAMPs; tutorials/ddb_comparison_rules_of_time_types.md §3)
    let ty = |v: &Value| v.column().map(|c| c.ty).filter(|t| t.is_temporal());
    if let (Some(a), Some(b)) = (ty(x), ty(&lo)) {
        if a != b {
            return Err(Error::type_err(format!("between(X, Y). Temporal data comparison should have the same data type ({} between {})", a.name(), b.name())));
        }
    }
    let ge = compare_values(CmpOp::Ge, x, &lo)?;
    let le = compare_values(CmpOp::Le, x, &hi)?;
    elementwise(&ge, &le, &|a, sa, b, sb| arith::logic(LogicOp::And, a, sa, b, sb))
}

/// `a..b` inclusive range.
pub fn seq(a: &Value, b: &Value) -> Result<Value> {
    let (ca, cb) = (scalar_col(a)?.0, scalar_col(b)?.0);
    if !a.is_scalar() || !b.is_scalar() {
        return Err(Error::arg("The arguments of seq (..) must be scalars"));
    }
    // two ends of one small integral type keep it ('B'..'Z' is CHAR, 1h..3h SHORT)
    let same_small = ca.ty == cb.ty && matches!(ca.ty, DataType::Char | DataType::Short);
    let ty = if ca.ty.is_temporal() { ca.ty } else if cb.ty.is_temporal() { cb.ty } else if same_small { ca.ty } else {
        crate::types::promote_arith(ca.ty, cb.ty).unwrap_or(DataType::Int)
    };
    if ty.is_floating() {
        return Err(Error::arg("The arguments of seq (..) must be integral or temporal"));
    }
    let (x, y) = match (ca.i64_at(0), cb.i64_at(0)) {
        (Some(x), Some(y)) => (x, y),
        (None, None) => return Ok(Value::Vector(Column::nulls(ty, 0))),
        _ => return Err(Error::arg("The arguments of seq (..) can't be null")),
    };
    let n = (x as i128 - y as i128).unsigned_abs() + 1;
    if n > 2_000_000_000 {
        return Err(Error::arg("The range is too large"));
    }
    let n = n as usize;
    let step: i64 = if x <= y { 1 } else { -1 };
    // INT-backed ranges (the common `1..n`) are built directly, without a LONG buffer;
    // chunk by chunk so a huge range can be interrupted
    if ty == DataType::Int {
        let mut v: Vec<i32> = crate::guard::vec_with_capacity(n)?;
        for r in crate::guard::chunks(n) {
            v.extend(r.map(|k| (x + step * k as i64) as i32));
        }
        return Ok(Value::Vector(Column::from_vec(ty, v)));
    }
    // the LONG buffer plus the final column of the range's type
    crate::guard::need(n, 8 + crate::guard::elem_bytes(ty))?;
    let mut v: Vec<i64> = crate::guard::vec_with_capacity(n)?;
    for r in crate::guard::chunks(n) {
        v.extend(r.map(|k| x + step * k as i64));
    }
    let c = Column::from_vec(DataType::Long, v);
    Ok(Value::Vector(if ty == DataType::Long || ty.physical() == crate::types::Physical::I64 {
        Column { ty, ..c }
    } else if ty.is_temporal() {
        Column { ty, ..c }.retag_physical()
    } else {
        c.cast_int_like(ty)
    }))
}

/// The `:` operator.
pub fn pair(a: &Value, b: &Value) -> Result<Value> {
    // a window of durations (`-5s:0s`, `0d:3d`) has no column type: keep both values
    if matches!(a, Value::Duration(..)) || matches!(b, Value::Duration(..)) {
        return Ok(Value::tuple(vec![a.clone(), b.clone()]));
    }
    let items = [norm(a), norm(b)];
    match unify_scalars(&items)? {
        Some(Value::Vector(c)) => Ok(Value::Pair(c)),
        _ => {
            if items.iter().all(|v| matches!(v, Value::Void)) {
                return Ok(Value::Pair(Column::nulls(DataType::Int, 2)));
            }
            Err(Error::arg("A pair needs two scalars of compatible types"))
        }
    }
}

/// The `<-` operator / `join` for vectors, matrices and tables.
pub fn join(a: &Value, b: &Value) -> Result<Value> {
    match (a, b) {
        (Value::Matrix(m), Value::Matrix(n)) => {
            if m.rows != n.rows {
                return Err(Error::size("The two matrices must have the same number of rows"));
            }
            join_matrix(m, &n.data, n.cols)
        }
        (Value::Matrix(m), Value::Vector(c)) => {
            if c.len() % m.rows.max(1) != 0 {
                return Err(Error::size("The vector length must be a multiple of the matrix rows"));
            }
            join_matrix(m, c, c.len() / m.rows.max(1))
        }
        (Value::Table(x), Value::Table(y)) => {
            let mut t = (**x).clone();
            for (n, c) in y.names.iter().zip(&y.cols) {
                t.set_column(n, c.clone())?;
            }
            Ok(Value::table(t))
        }
        (Value::Tuple(x), _) => {
            let mut v = (**x).clone();
            match b {
                Value::Tuple(y) => v.extend(y.iter().cloned()),
                other => v.push(other.clone()),
            }
            Ok(Value::tuple(v))
        }
        _ => {
            let (ca, _) = scalar_col(a)?;
            let (cb, _) = scalar_col(b)?;
            let ty = crate::types::common_type(ca.ty, cb.ty)
                .ok_or_else(|| Error::type_err(format!("Can't join {} with {}", ca.ty, cb.ty)))?;
            let ca = if ca.ty != ty { crate::kernels::cast::cast_column(&ca, ty)? } else { ca };
            let cb = if cb.ty != ty { crate::kernels::cast::cast_column(&cb, ty)? } else { cb };
            Ok(Value::Vector(Column::concat(ty, &[&ca, &cb])))
        }
    }
}

fn join_matrix(m: &Matrix, extra: &Column, extra_cols: usize) -> Result<Value> {
    let ty = crate::types::common_type(m.data.ty, extra.ty)
        .ok_or_else(|| Error::type_err(format!("Can't join {} with {}", m.data.ty, extra.ty)))?;
    let a = if m.data.ty != ty { crate::kernels::cast::cast_column(&m.data, ty)? } else { m.data.clone() };
    let b = if extra.ty != ty { crate::kernels::cast::cast_column(extra, ty)? } else { extra.clone() };
    Ok(Value::Matrix(Arc::new(Matrix {
        data: Column::concat(ty, &[&a, &b]),
        rows: m.rows,
        cols: m.cols + extra_cols,
        row_labels: m.row_labels.clone(),
        col_labels: None,
        indexed: false,
    })))
}

/// Inner product / matrix multiplication.
pub fn dot(a: &Value, b: &Value) -> Result<Value> {
    let as_mat = |v: &Value, is_left: bool| -> Result<(Vec<f64>, usize, usize)> {
        match v {
            Value::Matrix(m) => Ok((nullable_f64(&m.data), m.rows, m.cols)),
            Value::Vector(c) => {
                let d = nullable_f64(c);
                let n = d.len();
                Ok(if is_left { (d, 1, n) } else { (d, n, 1) })
            }
            _ => Err(Error::arg("Use * rather than ** for scalar and matrix multiplication.")),
        }
    };
    // a vector and a scalar multiply element-wise
    if matches!((a, b), (Value::Vector(_), Value::Scalar(_)) | (Value::Scalar(_), Value::Vector(_))) {
        return arith_values(ArithOp::Mul, a, b);
    }
    if let (Value::Vector(x), Value::Vector(y)) = (a, b) {
        if x.len() != y.len() {
            return Err(Error::size("The two vectors of ** must have the same length"));
        }
        let (p, q) = (nullable_f64(x), nullable_f64(y));
        let s: f64 = p.iter().zip(&q).map(|(u, v)| u * v).sum();
        let ints = x.ty.is_integral() && y.ty.is_integral();
        return Ok(if ints { Value::long(s as i64) } else { Value::double(s) });
    }
    let (p, r1, c1) = as_mat(a, true)?;
    let (q, r2, c2) = as_mat(b, false)?;
    if c1 != r2 {
        return Err(Error::size(format!("The number of columns of the left matrix ({c1}) must equal the rows of the right ({r2})")));
    }
    let mut out = vec![0.0; r1 * c2];
    for j in 0..c2 {
        for k in 0..c1 {
            let bv = q[j * r2 + k];
            for i in 0..r1 {
                out[j * r1 + i] += p[k * r1 + i] * bv;
            }
        }
    }
    let ints = a.data_type().is_integral() && b.data_type().is_integral();
    let data = if ints {
        Column::from_vec(DataType::Long, out.iter().map(|&x| x as i64).collect::<Vec<i64>>())
    } else {
        Column::from_vec(DataType::Double, out)
    };
    Ok(Value::Matrix(Arc::new(Matrix { data, rows: r1, cols: c2, row_labels: None, col_labels: None, indexed: false })))
}

/// Values for products and sums of products: nulls count as 0.
fn nullable_f64(c: &Column) -> Vec<f64> {
    arith::as_native::<f64>(c).iter().map(|&x| if x.is_null() { 0.0 } else { x }).collect()
}

/// Binary operator entry point.
pub fn binary(op: BinOp, a: &Value, b: &Value) -> Result<Value> {
    use BinOp::*;
    match op {
        Add => arith_values(ArithOp::Add, a, b),
        Sub => {
            if let (Value::Set(x), Value::Set(y)) = (a, b) {
                return set_op(op, x, y);
            }
            arith_values(ArithOp::Sub, a, b)
        }
        Mul => arith_values(ArithOp::Mul, a, b),
        Div => arith_values(ArithOp::Div, a, b),
        Mod => arith_values(ArithOp::Mod, a, b),
        Ratio => arith_values(ArithOp::Ratio, a, b),
        Lt => compare_values(CmpOp::Lt, a, b),
        Le => compare_values(CmpOp::Le, a, b),
        Gt => compare_values(CmpOp::Gt, a, b),
        Ge => compare_values(CmpOp::Ge, a, b),
        Eq => compare_values(CmpOp::Eq, a, b),
        Ne => compare_values(CmpOp::Ne, a, b),
        And => elementwise(a, b, &|x, sa, y, sb| arith::logic(LogicOp::And, x, sa, y, sb)),
        Or => elementwise(a, b, &|x, sa, y, sb| arith::logic(LogicOp::Or, x, sa, y, sb)),
        BitAnd | BitOr | BitXor | Shl | Shr => {
            if let (Value::Set(x), Value::Set(y)) = (a, b) {
                return set_op(op, x, y);
            }
            elementwise(a, b, &|x, sa, y, sb| bitwise(op, x, sa, y, sb))
        }
        Pair => pair(a, b),
        Seq => seq(a, b),
        Join => join(a, b),
        Dot => dot(a, b),
        In => in_values(a, b),
        NotIn => not_value(&in_values(a, b)?),
        Like => like_values(a, b, false, false),
        NotLike => like_values(a, b, false, true),
        ILike => like_values(a, b, true, false),
        Between => between(a, b),
        NotBetween => not_value(&between(a, b)?),
        Cast => cast(a, b),
        At => Err(Error::runtime("eachAt (@) is evaluated by the interpreter")),
    }
}

/// `x $ TYPE` or `x $ rows:cols`.
pub fn cast(a: &Value, b: &Value) -> Result<Value> {
    match b {
        Value::Type(t) => cast_value(a, *t),
        Value::Scalar(c) if c.ty.is_literal() => {
            let name = c.str_at(0).unwrap_or("");
            let t = DataType::from_name(name).ok_or_else(|| Error::arg(format!("Unknown type name {name}")))?;
            cast_value(a, t)
        }
        Value::Pair(c) | Value::Vector(c) if c.len() == 2 && c.ty.is_integral() => {
            let rows = c.i64_at(0).unwrap_or(-1);
            let cols = c.i64_at(1).unwrap_or(-1);
            reshape(a, rows, cols)
        }
        _ => Err(Error::arg("The right operand of $ must be a data type or a shape rows:cols")),
    }
}

pub fn reshape(a: &Value, rows: i64, cols: i64) -> Result<Value> {
    let data = match a {
        Value::Vector(c) | Value::Pair(c) => c.clone(),
        Value::Matrix(m) => m.data.clone(),
        _ => return Err(Error::arg("Only a vector or a matrix can be reshaped")),
    };
    let n = data.len() as i64;
    let (rows, cols) = if rows < 0 && cols > 0 { (n / cols, cols) } else if cols < 0 && rows > 0 { (rows, n / rows) } else { (rows, cols) };
    if rows * cols != n || rows < 0 {
        return Err(Error::size(format!("The size of the vector ({n}) doesn't match the shape {rows}:{cols}")));
    }
    Ok(Value::Matrix(Arc::new(Matrix { data, rows: rows as usize, cols: cols as usize, row_labels: None, col_labels: None, indexed: false })))
}

pub fn not_value(v: &Value) -> Result<Value> {
    unary_col(v, &|c| arith::not(c))
}

pub fn neg_value(v: &Value) -> Result<Value> {
    unary_col(v, &|c| arith::neg(c))
}

/// Apply a column function keeping the form (scalar, vector, pair, matrix, tuple, dict).
pub fn unary_col(v: &Value, f: &dyn Fn(&Column) -> Result<Column>) -> Result<Value> {
    let _level = crate::guard::Nest::value()?;
    match v {
        Value::Scalar(c) => Ok(Value::Scalar(f(c)?)),
        Value::Void => Ok(Value::Scalar(f(&Column::nulls(DataType::Void, 1))?)),
        Value::Vector(c) => Ok(Value::Vector(f(c)?)),
        Value::Pair(c) => Ok(Value::Pair(f(c)?)),
        Value::Matrix(m) => Ok(Value::Matrix(Arc::new(Matrix { data: f(&m.data)?, ..(**m).clone() }))),
        Value::Tuple(t) => Ok(Value::tuple(t.iter().map(|x| unary_col(x, f)).collect::<Result<_>>()?)),
        Value::Dict(d) => map_dict(d, |x| unary_col(x, f)),
        Value::Type(t) => Ok(Value::Scalar(f(&Column::from_vec(DataType::Int, vec![t.id()]))?)),
        Value::Table(t) => {
            let mut t2 = (**t).clone();
            for c in t2.cols.iter_mut() {
                *c = f(c)?;
            }
            Ok(Value::table(t2))
        }
        other => Err(Error::type_err(format!("The operation is not supported for {}", describe(other)))),
    }
}

/// Truthiness of a scalar condition (`if`, `while`): null is false.
pub fn truthy(v: &Value) -> Result<bool> {
    match v {
        Value::Void => Ok(false),
        Value::Scalar(c) => {
            if c.is_null(0) {
                return Ok(false);
            }
            match &*c.data {
                ColData::Str(_) | ColData::Sym(_) => Ok(!c.str_at(0).unwrap_or("").is_empty()),
                _ => Ok(c.f64_at(0).map(|x| x != 0.0).unwrap_or(false)),
            }
        }
        Value::Vector(c) if c.len() == 1 => truthy(&Value::Scalar(c.clone())),
        Value::Table(t) if t.rows() == 1 && t.ncols() == 1 => truthy(&Value::Scalar(t.cols[0].clone())),
        Value::Type(_) | Value::Constant(..) => Ok(true),
        _ => Err(Error::type_err("The vector can't be converted to bool scalar.")),
    }
}

/// Whether every element of a BOOL-ish value is true (used by `assert`).
pub fn all_true(v: &Value) -> bool {
    match v {
        Value::Scalar(_) | Value::Void => truthy(v).unwrap_or(false),
        Value::Vector(c) | Value::Pair(c) => (0..c.len()).all(|i| c.f64_at(i).map(|x| x != 0.0).unwrap_or(false)),
        Value::Matrix(m) => (0..m.data.len()).all(|i| m.data.f64_at(i).map(|x| x != 0.0).unwrap_or(false)),
        Value::Tuple(t) => t.iter().all(all_true),
        _ => false,
    }
}

/// Build a typed vector from scalars when their types unify, else None (caller makes a tuple).
pub fn unify_scalars(items: &[Value]) -> Result<Option<Value>> {
    let mut ty = DataType::Void;
    for v in items {
        let t = match v {
            Value::Void => DataType::Void,
            Value::Scalar(c) => c.ty,
            _ => return Ok(None),
        };
        ty = match common_type(ty, t) {
            Some(t) => t,
            None => return Ok(None),
        };
        // temporal types only unify with themselves
        if ty.is_temporal() && t != DataType::Void && t != ty {
            return Ok(None);
        }
    }
    if ty == DataType::Void {
        if items.is_empty() {
            return Ok(Some(Value::Vector(Column::from_vec(DataType::Double, Vec::<f64>::new()))));
        }
        return Ok(None);
    }
    Ok(Some(Value::Vector(build_column(ty, items))))
}

/// Concatenate scalar columns into one column of type `ty`, converting numerics.
pub fn build_column(ty: DataType, items: &[Value]) -> Column {
    if ty.decimal_scale().is_some() || ty.physical() == Physical::I128 {
        // DECIMAL items share type and scale (common_type), and 128-bit items (UUID,
        // IPADDR, INT128) unify only with their own type: copy the values whole (through
        // i64 the upper half of a UUID was lost)
        let cols: Vec<Column> = items
            .iter()
            .map(|v| match v {
                Value::Scalar(c) if c.ty == ty => c.clone(),
                _ => Column::nulls(ty, 1),
            })
            .collect();
        let refs: Vec<&Column> = cols.iter().collect();
        return Column::concat(ty, &refs);
    }
    fn num<T: Native>(items: &[Value], float: bool) -> Vec<T> {
        items
            .iter()
            .map(|v| match v {
                // a NaN scalar (from `double("nan")`) stays NaN, as conversions keep it
                Value::Scalar(c) if float && c.is_nan_at(0) => T::from_f64_nan(),
                Value::Scalar(c) if !c.is_null(0) => {
                    if float {
                        // a conversion, not arithmetic: ±Infinity survives (see null.rs)
                        c.f64_at(0).map(T::from_f64_keep_inf).unwrap_or(T::NULL)
                    } else {
                        c.i64_at(0).map(T::from_i64).unwrap_or(T::NULL)
                    }
                }
                _ => T::NULL,
            })
            .collect()
    }
    // floating targets convert through f64, 128-bit ones through i64, the others as the items are
    let float = match ty.physical() {
        Physical::F32 | Physical::F64 => true,
        Physical::I128 => false,
        _ => items.iter().any(|v| v.data_type().is_floating()),
    };
    let data = crate::map_physical!(ty.physical(), T => num::<T>(items, float),
        Physical::Sym | Physical::Str => {
            let mut s = StrCol::with_capacity(items.len(), 0);
            for v in items {
                s.push(v.as_str().unwrap_or(""));
            }
            if ty == DataType::Symbol {
                ColData::Sym(crate::column::SymCol::from_iter(s.iter()))
            } else {
                ColData::Str(s)
            }
        },
        Physical::None => ColData::I8(vec![i8::NULL; items.len()]),
    );
    Column::new(ty, data)
}

/// Convert a value to type `to`, keeping its form: scalar, vector, pair, matrix and set
/// convert their elements; VOID becomes the typed null; a tuple converts element-wise;
/// a DURATION converts to its text (`string(duration("20H"))` ⇒ "20H").
pub fn cast_value(v: &Value, to: DataType) -> Result<Value> {
    Ok(match v {
        Value::Void if to == DataType::Void => Value::Void,
        Value::Void if to.physical() == Physical::None => return Err(cannot(DataType::Void, to, "")),
        Value::Void => Value::null_of(to),
        // ANY is the type of a tuple: a vector becomes the tuple of its elements, a tuple or a
        // scalar stays as it is (`cast(1 2 3, ANY)` ⇒ `(1,2,3)`)
        Value::Vector(c) | Value::Pair(c) if to == DataType::Any && c.ty != DataType::Any => {
            Value::tuple((0..c.len()).map(|i| Value::Scalar(c.take_usize(&[i]))).collect())
        }
        Value::Tuple(_) | Value::Scalar(_) if to == DataType::Any => v.clone(),
        Value::Scalar(c) => Value::Scalar(cast_column(c, to)?),
        Value::Vector(c) => Value::Vector(cast_column(c, to)?),
        Value::Pair(c) => Value::Pair(cast_column(c, to)?),
        Value::Matrix(m) => Value::Matrix(Arc::new(Matrix {
            data: cast_column(&m.data, to)?,
            rows: m.rows,
            cols: m.cols,
            row_labels: m.row_labels.clone(),
            col_labels: m.col_labels.clone(),
            indexed: m.indexed,
        })),
        Value::Set(s) => {
            let items = cast_column(&s.items, to)?;
            let mut index = AHashMap::with_capacity(items.len());
            let mut keep = Vec::with_capacity(items.len());
            for i in 0..items.len() {
                let k = Key::of(&items, i);
                if !index.contains_key(&k) {
                    index.insert(k, keep.len());
                    keep.push(i);
                }
            }
            let items = if keep.len() == items.len() { items } else { items.take_usize(&keep) };
            Value::Set(Arc::new(SetVal { items, index }))
        }
        Value::Tuple(items) => {
            Value::Tuple(Arc::new(items.iter().map(|x| cast_value(x, to)).collect::<Result<Vec<_>>>()?))
        }
        Value::Type(t) => cast_value(&Value::int(t.id()), to)?,
        Value::Constant(_, n) => cast_value(&Value::int(*n), to)?,
        Value::Duration(n, unit) if to.is_literal() => cast_value(&Value::string(&format!("{n}{unit}")), to)?,
        other => return Err(cannot(other.data_type(), to, "")),
    })
}

#[cfg(test)]
mod cast_tests {
    use super::*;
    use DataType::*;

    fn col<V: crate::column::IntoColData>(ty: DataType, v: V) -> Column {
        Column::from_vec(ty, v)
    }

    #[test]
    fn cast_values_keep_form() {
        let v = cast_value(&Value::Void, Int).unwrap();
        assert!(matches!(&v, Value::Scalar(c) if c.ty == Int && c.is_null(0)));
        assert!(matches!(cast_value(&Value::Void, Void).unwrap(), Value::Void));
        let v = cast_value(&Value::double(8.9), Int).unwrap();
        assert_eq!(v.as_i64(), Some(9));
        assert_eq!(v.data_type(), Int);
        let p = cast_value(&Value::Pair(col(Int, vec![1, 2])), Double).unwrap();
        assert!(matches!(&p, Value::Pair(c) if c.ty == Double));
        let vv = cast_value(&Value::string_vec(["IBM", "MS"]), Symbol).unwrap();
        assert!(matches!(&vv, Value::Vector(c) if c.ty == Symbol && c.len() == 2));
        let m = Value::Matrix(Arc::new(Matrix {
            data: col(Int, vec![1, 2, 3, 4]),
            rows: 2,
            cols: 2,
            row_labels: None,
            col_labels: None,
            indexed: false,
        }));
        assert!(matches!(cast_value(&m, Double).unwrap(), Value::Matrix(m) if m.data.ty == Double && m.rows == 2));
        let t = cast_value(&Value::tuple(vec![Value::int(1), Value::string("2")]), Long).unwrap();
        assert!(matches!(&t, Value::Tuple(x) if x[1].as_i64() == Some(2) && x[0].data_type() == Long));
        let set = SetVal { items: col(Double, vec![1.1, 1.2, 2.0]), index: AHashMap::new() };
        let s = cast_value(&Value::Set(Arc::new(set)), Int).unwrap();
        assert!(matches!(&s, Value::Set(s) if s.items.len() == 2 && s.index.len() == 2));
        let d = cast_value(&Value::Duration(20, Arc::from("H")), String).unwrap();
        assert_eq!(d.as_str(), Some("20H"));
        assert_eq!(cast_value(&Value::string("a"), Any).unwrap().as_str(), Some("a"));
        let t = cast_value(&Value::Vector(col(Int, vec![4, 5])), Any).unwrap();
        assert!(matches!(&t, Value::Tuple(x) if x.len() == 2 && x[1].as_i64() == Some(5)));
        assert!(cast_value(&Value::int(1), Uuid).is_err());
    }

    #[test]
    fn symbols_in_strings_with_a_dictionary_larger_than_the_column() {
        use crate::column::{ColData, SymCol};
        // a stored segment: three rows whose dictionary holds 5,000 symbols
        let mut sc = SymCol::new();
        for k in 0..5000 {
            sc.push(&format!("S{k}"));
        }
        sc.push("");
        let dict = sc.dict.clone();
        let code = |n: &str| dict.index[n];
        let rows = SymCol { codes: vec![code("S7"), code(""), code("S4999")], dict };
        let x = Value::Vector(Column::new(Symbol, ColData::Sym(rows)));
        let got = |y: Value| match in_values(&x, &y).unwrap() {
            Value::Vector(c) => (0..c.len()).map(|i| c.i64_at(i) == Some(1)).collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(got(Value::string_vec(["S4999", "NOPE", "S7"])), vec![true, false, true]);
        assert_eq!(got(Value::string_vec(["S8"])), vec![false, false, false]);
        // the empty string is the null symbol
        assert_eq!(got(Value::string_vec(["", "S1"])), vec![false, true, false]);
    }
}
