//! Shared helpers for the string family: broadcast arguments (`Arg`, `apply_n`), and
//! kernels that map STRING/SYMBOL columns in place (`map_strings`, `strings_to`) — one
//! output buffer per column, SYMBOL inputs transformed once per distinct name.

use beluga_runtime::column::{ColData, Column, StrCol, SymCol, SymbolDict};
use beluga_runtime::eval::ops;
use beluga_runtime::kernels::arith::as_native;
use beluga_runtime::{DataType, Error, Result, Value};
use std::borrow::Cow;
use std::sync::Arc;

use crate::util::describe;

/// One broadcast argument: its column and whether it is a scalar.
#[derive(Clone)]
pub(crate) struct Arg {
    pub col: Column,
    pub scalar: bool,
}

impl Arg {
    pub fn of(name: &str, v: &Value) -> Result<Arg> {
        Ok(match v {
            Value::Scalar(c) => Arg { col: c.clone(), scalar: true },
            Value::Void => Arg { col: Column::nulls(DataType::Void, 1), scalar: true },
            Value::Vector(c) | Value::Pair(c) => Arg { col: c.clone(), scalar: false },
            Value::Type(t) => Arg { col: Column::from_vec(DataType::Int, vec![t.id()]), scalar: true },
            Value::Constant(_, n) => Arg { col: Column::from_vec(DataType::Int, vec![*n]), scalar: true },
            other => return Err(Error::unsupported(name, describe(other))),
        })
    }
    #[inline]
    pub fn idx(&self, i: usize) -> usize {
        if self.scalar { 0 } else { i }
    }
    /// Text of element i ("" for null or non-text).
    #[inline]
    pub fn text(&self, i: usize) -> &str {
        self.col.str_at(self.idx(i)).unwrap_or("")
    }
    /// Integer values (nulls kept as i64 null); error unless integral/VOID.
    pub fn ints(&self, name: &str, what: &str) -> Result<Cow<'_, [i64]>> {
        let t = self.col.ty;
        if !(t.is_integral() || t == DataType::Void || t.is_floating()) {
            return Err(Error::arg(format!("The {what} argument of [{name}] must be an integer")));
        }
        Ok(as_native::<i64>(&self.col))
    }
    pub fn is_text(&self) -> bool {
        self.col.ty.is_literal() || self.col.ty == DataType::Void
    }
}

/// Common length of broadcast arguments (non-scalars must agree).
pub(crate) fn common_len(name: &str, args: &[&Arg]) -> Result<usize> {
    let mut n: Option<usize> = None;
    for a in args {
        if a.scalar {
            continue;
        }
        match n {
            None => n = Some(a.col.len()),
            Some(m) if m != a.col.len() => {
                return Err(Error::size(format!("The arguments of [{name}] must have the same length ({m} vs {})", a.col.len())))
            }
            _ => {}
        }
    }
    Ok(n.unwrap_or(1))
}

/// Apply `f(x, extras, n)` with DolphinDB's broadcasting. When every extra argument is a
/// scalar, `x` may have any form (scalar, vector, matrix, tuple, dict, table) and keeps it.
pub(crate) fn apply_n(
    name: &str,
    x: &Value,
    extras: &[Value],
    f: &dyn Fn(&Arg, &[Arg], usize) -> Result<Column>,
) -> Result<Value> {
    let ex: Vec<Arg> = extras.iter().map(|v| Arg::of(name, v)).collect::<Result<_>>()?;
    if ex.iter().all(|a| a.scalar) {
        return ops::unary_col(x, &|c: &Column| {
            let a = Arg { col: c.clone(), scalar: false };
            f(&a, &ex, c.len())
        });
    }
    let xa = Arg::of(name, x)?;
    let mut all: Vec<&Arg> = vec![&xa];
    all.extend(ex.iter());
    let n = common_len(name, &all)?;
    let xa = if xa.scalar { xa } else { Arg { scalar: false, ..xa } };
    Ok(Value::Vector(f(&xa, &ex, n)?))
}

pub(crate) fn check_text(name: &str, c: &Column) -> Result<()> {
    if c.ty.is_literal() || c.ty == DataType::Void {
        Ok(())
    } else {
        Err(Error::unsupported(name, c.ty))
    }
}

/// Map every string of a STRING/SYMBOL column through `f` (writing into a reused buffer).
/// Nulls stay null; a SYMBOL column stays SYMBOL and is transformed once per distinct name.
pub(crate) fn map_strings(c: &Column, f: &mut dyn FnMut(&str, &mut String)) -> Column {
    let mut buf = String::new();
    match &*c.data {
        ColData::Str(s) => {
            let mut out = StrCol::with_capacity(s.len(), s.bytes.len());
            for i in 0..s.len() {
                let x = s.get(i);
                if x.is_empty() {
                    out.push("");
                    continue;
                }
                buf.clear();
                f(x, &mut buf);
                out.push(&buf);
            }
            Column::new(DataType::String, ColData::Str(out))
        }
        ColData::Sym(s) => {
            let mut dict = SymbolDict::default();
            let codes: Vec<u32> = if s.dict.names.len() <= 2 * s.codes.len() + 16 {
                let table: Vec<u32> = s
                    .dict
                    .names
                    .iter()
                    .map(|n| {
                        if n.is_empty() {
                            0
                        } else {
                            buf.clear();
                            f(n, &mut buf);
                            dict.intern(&buf)
                        }
                    })
                    .collect();
                s.codes.iter().map(|&c| table[c as usize]).collect()
            } else {
                s.codes
                    .iter()
                    .map(|&c| {
                        let n = s.dict.get(c);
                        if n.is_empty() {
                            0
                        } else {
                            buf.clear();
                            f(n, &mut buf);
                            dict.intern(&buf)
                        }
                    })
                    .collect()
            };
            Column::new(DataType::Symbol, ColData::Sym(SymCol { codes, dict: Arc::new(dict) }))
        }
        _ => Column::nulls(DataType::String, c.len()),
    }
}

/// Evaluate `f` on every string of a STRING/SYMBOL column (SYMBOL: once per distinct name).
/// Non-text columns (VOID) are treated as nulls: `f("")`.
pub(crate) fn strings_to<T: Copy>(c: &Column, f: &mut dyn FnMut(&str) -> T) -> Vec<T> {
    match &*c.data {
        ColData::Str(s) => (0..s.len()).map(|i| f(s.get(i))).collect(),
        ColData::Sym(s) if s.dict.names.len() <= 2 * s.codes.len() + 16 => {
            let table: Vec<T> = s.dict.names.iter().map(|n| f(n)).collect();
            s.codes.iter().map(|&c| table[c as usize]).collect()
        }
        ColData::Sym(s) => s.codes.iter().map(|&c| f(s.dict.get(c))).collect(),
        _ => {
            let v = f("");
            vec![v; c.len()]
        }
    }
}

/// Element-wise text → text over any form.
pub(crate) fn text_map(name: &str, v: &Value, f: &dyn Fn(&str, &mut String)) -> Result<Value> {
    ops::unary_col(v, &|c: &Column| {
        check_text(name, c)?;
        Ok(map_strings(c, &mut |s, o| f(s, o)))
    })
}

/// Element-wise text predicate → BOOL over any form.
pub(crate) fn text_pred(name: &str, v: &Value, f: &dyn Fn(&str) -> bool) -> Result<Value> {
    ops::unary_col(v, &|c: &Column| {
        check_text(name, c)?;
        let r: Vec<i8> = strings_to(c, &mut |s| f(s) as i8);
        Ok(Column::from_vec(DataType::Bool, r))
    })
}

/// Element-wise text → INT over any form.
pub(crate) fn text_int(name: &str, v: &Value, f: &dyn Fn(&str) -> i32) -> Result<Value> {
    ops::unary_col(v, &|c: &Column| {
        check_text(name, c)?;
        let r: Vec<i32> = strings_to(c, &mut |s| f(s));
        Ok(Column::from_vec(DataType::Int, r))
    })
}

/// Builder for a STRING result column.
pub(crate) fn str_col(out: StrCol) -> Column {
    Column::new(DataType::String, ColData::Str(out))
}

/// Byte offset of the `k`-th character of `s` (or `s.len()` past the end).
#[inline]
pub(crate) fn char_offset(s: &str, k: usize) -> usize {
    if s.is_ascii() {
        return k.min(s.len());
    }
    s.char_indices().nth(k).map(|(b, _)| b).unwrap_or(s.len())
}

/// Largest char boundary <= i.
#[inline]
pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

