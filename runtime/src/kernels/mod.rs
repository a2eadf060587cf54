//! Typed kernels: generic over `Native`, instantiated once per physical type.

pub mod arith;
pub mod cmp;
pub mod cast;
pub mod decimal;
pub mod group;
pub mod intacc;
pub mod join;
pub mod order;
pub mod par;
pub mod parse;
pub mod vmath;

use crate::column::Column;
use crate::error::{Error, Result};
use crate::null::Native;
use crate::temporal::convert_temporal;
use crate::types::{DataType, Physical};

/// Convert a temporal (or integral) column to another temporal type, vectorized.
pub fn temporal_to(col: &Column, to: DataType) -> Result<Column> {
    if col.ty == to {
        return Ok(col.clone());
    }
    let from = col.ty;
    if !from.is_temporal() {
        return Ok(Column::from_vec(to, arith::as_native::<i64>(col).into_owned()).retag_physical());
    }
    let src = arith::as_native::<i64>(col);
    let mut out = Vec::with_capacity(src.len());
    for &v in src.iter() {
        if v.is_null() {
            out.push(i64::NULL);
        } else {
            out.push(convert_temporal(from, to, v).map_err(|_| {
                Error::type_err(format!("Can't convert {from} to {to}"))
            })?);
        }
    }
    Ok(Column::from_vec(to, out).retag_physical())
}

impl Column {
    /// Make the physical storage match `self.ty` (after building an i64 column for a 4-byte type).
    pub fn retag_physical(self) -> Column {
        let ty = self.ty;
        match (ty.physical(), &*self.data) {
            (Physical::I32, crate::column::ColData::I64(v)) => {
                Column::from_vec(ty, v.iter().map(|&x| if x.is_null() { i32::NULL } else { x as i32 }).collect::<Vec<i32>>())
            }
            _ => self,
        }
    }
}
