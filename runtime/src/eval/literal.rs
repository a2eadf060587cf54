//! Literals and vector construction from scalars.

use crate::column::{ColData, Column, StrCol};
use crate::error::Result;
use crate::null::Native;
use crate::types::{common_type, DataType, Physical};
use crate::value::Value;
use beluga_lang::ast::{Literal, TemporalType};

pub fn temporal_type(t: TemporalType) -> DataType {
    match t {
        TemporalType::Date => DataType::Date,
        TemporalType::Month => DataType::Month,
        TemporalType::Time => DataType::Time,
        TemporalType::Minute => DataType::Minute,
        TemporalType::Second => DataType::Second,
        TemporalType::DateTime => DataType::DateTime,
        TemporalType::Timestamp => DataType::Timestamp,
        TemporalType::NanoTime => DataType::NanoTime,
        TemporalType::NanoTimestamp => DataType::NanoTimestamp,
        TemporalType::DateHour => DataType::DateHour,
    }
}

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
    if ty.decimal_scale().is_some() {
        // DECIMAL items share type and scale (common_type): copy the unscaled values
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
    let float_src = items.iter().any(|v| v.data_type().is_floating());
    let data = match ty.physical() {
        Physical::I8 => ColData::I8(num(items, float_src)),
        Physical::I16 => ColData::I16(num(items, float_src)),
        Physical::I32 => ColData::I32(num(items, float_src)),
        Physical::I64 => ColData::I64(num(items, float_src)),
        Physical::F32 => ColData::F32(num(items, true)),
        Physical::F64 => ColData::F64(num(items, true)),
        Physical::I128 => ColData::I128(num(items, false)),
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
        }
        Physical::None => ColData::I8(vec![i8::NULL; items.len()]),
    };
    Column::new(ty, data)
}
