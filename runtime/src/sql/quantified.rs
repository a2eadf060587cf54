//! Quantified comparisons of `where`/`having` conditions: `x op any(s)` and `x op all(s)`
//! (progr/sql/any.md), with `s` a one-column query, a vector or a scalar.
//!
//! The result for each x is the `or` (any) / `and` (all) of `x op e` over the elements e
//! of s, under the usual comparison rules (a null compares as the smallest value of its
//! type, `==`/`!=` treat null as a value). It is computed on whole columns, never per
//! pair:
//! * `< <= > >=`: one comparison with the extreme of s that decides the fold (x > any(s)
//!   iff x > min(s), x > all(s) iff x > max(s), ...), the minimum being null when s holds
//!   one; a NaN element of a floating set is compared on its own and folded in, as NaN
//!   stands outside the order;
//! * `== any` is membership (`in`, hashed), `!= all` its negation;
//! * `== all` / `!= any` depend on whether s holds a single distinct value.
//!
//! An empty s gives false for any and true for all.

use crate::column::Column;
use crate::error::{Error, Result};
use crate::eval::Interpreter;
use crate::ops;
use crate::value::Value;
use beluga_lang::ast::BinOp;

/// The elements of the set operand as one column.
fn set_column(set: Value) -> Result<Column> {
    match set {
        Value::Vector(c) => Ok(c),
        Value::Scalar(c) => Ok(c),
        Value::Table(t) => {
            if t.ncols() != 1 {
                return Err(Error::runtime(format!(
                    "The query of an any/all comparison must return one column, not {}",
                    t.ncols()
                )));
            }
            Ok(t.cols[0].clone())
        }
        Value::Tuple(items) if items.is_empty() => Ok(Column::nulls(crate::types::DataType::Void, 0)),
        Value::Tuple(items) => match ops::unify_scalars(&items)? {
            Some(v) => set_column(v),
            None => Err(Error::type_err("The operand of any/all must be a vector of one type or a one-column query")),
        },
        other => Err(Error::type_err(format!(
            "The operand of any/all must be a vector or a one-column query, not {}",
            ops::describe(&other)
        ))),
    }
}

/// A BOOL constant shaped like x (a vector of x's length, or a scalar).
fn constant(x: &Value, b: bool) -> Value {
    match x {
        Value::Vector(c) => Value::bool_vec(vec![b; c.len()]),
        _ => Value::bool(b),
    }
}

fn element(c: &Column, k: usize) -> Value {
    Value::Scalar(c.slice(k, k + 1))
}

pub(crate) fn compare(i: &mut Interpreter, op: BinOp, all: bool, x: Value, set: Value) -> Result<Value> {
    let s = set_column(set)?;
    if s.is_empty() {
        return Ok(constant(&x, all));
    }
    match op {
        BinOp::Eq | BinOp::Ne => equality(i, op, all, x, s),
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => ordering(i, op, all, x, s),
        _ => Err(Error::runtime(format!("any/all cannot follow the operator {}", op.func_name()))),
    }
}

fn equality(i: &mut Interpreter, op: BinOp, all: bool, x: Value, s: Column) -> Result<Value> {
    match (op, all) {
        (BinOp::Eq, false) => i.binary_op(BinOp::In, x, Value::Vector(s)),
        (BinOp::Ne, true) => {
            let r = i.binary_op(BinOp::In, x, Value::Vector(s))?;
            ops::not_value(&r)
        }
        // `== all` / `!= any`: s with one distinct value v is `== v` / `!= v`; with more,
        // no x equals all of them and every x differs from one
        _ => {
            let v = element(&s, 0);
            let same = i.binary_op(BinOp::Eq, Value::Vector(s), v.clone())?;
            let single = match &same {
                Value::Vector(c) => (0..c.len()).all(|k| c.i64_at(k) == Some(1)),
                other => ops::truthy(other)?,
            };
            if single {
                i.binary_op(op, x, v)
            } else {
                Ok(constant(&x, op == BinOp::Ne))
            }
        }
    }
}

fn ordering(i: &mut Interpreter, op: BinOp, all: bool, x: Value, s: Column) -> Result<Value> {
    // the extreme that decides: x > any(s) ⇔ x > min(s), x > all(s) ⇔ x > max(s), and
    // the mirror for < and <=
    let want_min = matches!(op, BinOp::Gt | BinOp::Ge) != all;
    let nan: Vec<bool> = (0..s.len()).map(|k| s.is_nan_at(k)).collect();
    let has_nan = nan.iter().any(|&b| b);
    let nulls = s.null_mask();
    let has_null = nulls.iter().any(|&b| b);
    let keep: Vec<bool> = nan.iter().zip(&nulls).map(|(&a, &b)| !a && !b).collect();
    let ordered = if has_nan || has_null { s.filter(&keep) } else { s.clone() };
    let extreme = if want_min && has_null {
        Some(Value::null_of(s.ty))
    } else if !ordered.is_empty() {
        Some(i.call_builtin_by_name(if want_min { "min" } else { "max" }, vec![Value::Vector(ordered)])?)
    } else if has_null {
        Some(Value::null_of(s.ty))
    } else {
        None
    };
    let fold = if all { BinOp::And } else { BinOp::Or };
    let mut acc = match extreme {
        Some(e) => Some(i.binary_op(op, x.clone(), e)?),
        None => None,
    };
    if has_nan {
        let k = nan.iter().position(|&b| b).unwrap_or(0);
        let r = i.binary_op(op, x, element(&s, k))?;
        acc = Some(match acc {
            Some(a) => ops::binary(fold, &a, &r)?,
            None => r,
        });
    }
    acc.ok_or_else(|| Error::runtime("any/all over an empty set"))
}
