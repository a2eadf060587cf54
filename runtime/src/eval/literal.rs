//! Literals and vector construction from scalars.

use crate::null::Native;
use crate::types::{DataType, Physical};
use crate::value::Value;
use beluga_lang::ast::Literal;

pub use crate::temporal::temporal_type;

pub fn literal_value(l: &Literal) -> Value {
    match l {
        Literal::Bool(b) => Value::scalar(DataType::Bool, vec![b.map(|b| b as i8).unwrap_or(i8::NULL)]),
        Literal::Char(c) => Value::scalar(DataType::Char, vec![c.unwrap_or(i8::NULL)]),
        Literal::Short(v) => Value::scalar(DataType::Short, vec![v.unwrap_or(i16::NULL)]),
        Literal::Int(v) => Value::scalar(DataType::Int, vec![v.unwrap_or(i32::NULL)]),
        Literal::Long(v) => Value::scalar(DataType::Long, vec![v.unwrap_or(i64::NULL)]),
        Literal::Float(v) => Value::scalar(DataType::Float, vec![v.unwrap_or(f32::NULL)]),
        Literal::Double(v) => Value::scalar(DataType::Double, vec![v.unwrap_or(f64::NULL)]),
        Literal::Str(s) => Value::string(s),
        Literal::StrVec(v) => Value::string_vec(v.iter().map(|s| s.as_str())),
        Literal::Temporal(t, v) => {
            let ty = temporal_type(*t);
            match ty.physical() {
                Physical::I64 => Value::scalar(ty, vec![v.unwrap_or(i64::NULL)]),
                _ => Value::scalar(ty, vec![v.map(|x| x as i32).unwrap_or(i32::NULL)]),
            }
        }
        Literal::Duration(n, u) => Value::Duration(*n, u.as_str().into()),
        Literal::Decimal(v, s) => Value::scalar(DataType::Decimal64(*s), vec![*v]),
        Literal::Null => Value::Void,
    }
}

// Vector construction from scalars is value-level: it lives in `crate::ops`.
pub use crate::ops::unify_scalars;
