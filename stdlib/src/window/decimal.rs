//! DECIMAL inputs of the window families (m*, cum*, tm*, TopN, TA): one adapter around a
//! prepared kernel instead of a DECIMAL path in every statistic.
//!
//! The result types follow DolphinDB's DECIMAL tutorial ("DECIMAL 的计算输出", linked from
//! funcs/d/decimal32.md): the sum family (msum, cumsum, tmsum, msumTopN, cumsumTopN,
//! tmsumTopN, cumPositiveStreak) returns a DECIMAL one size wider (32 → 64 → 128, scale
//! kept); max, min, first, last, firstNot and lastNot with their cum/m/tm forms keep the
//! input's DECIMAL type; every other statistic returns DOUBLE.
//!
//! How: DECIMAL32/64 slices are their unscaled integers, so for the first two classes the
//! slice is re-typed to INT/LONG (no copy), the integer kernel runs, and its INT/LONG output
//! is re-typed to the DECIMAL result. DECIMAL128 (no 128-bit integer kernels) and the DOUBLE
//! class go through DOUBLE values (`unscaled / 10^scale`).

use crate::window::{Kernel, Prep, Slice};
use beluga_runtime::column::Column;
use beluga_runtime::kernels::decimal as dec;
use beluga_runtime::null::Native;
use beluga_runtime::{DataType, Result};

/// How a window function's DECIMAL input maps to its result type.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Class {
    /// same DECIMAL type as the input (extremes, ends)
    Keep,
    /// one size wider (sums)
    Sum,
    /// DOUBLE
    Double,
}

fn class_of(name: &str) -> Class {
    match name {
        "mmax" | "mmin" | "mfirst" | "mlast" | "mfirstNot" | "mlastNot" | "cummax" | "cummin" | "cumfirstNot"
        | "cumlastNot" | "tmmax" | "tmmin" | "tmfirst" | "tmlast" => Class::Keep,
        "msum" | "cumsum" | "tmsum" | "msumTopN" | "cumsumTopN" | "tmsumTopN" | "cumPositiveStreak" => Class::Sum,
        _ => Class::Double,
    }
}

/// The column a DECIMAL slice is computed as: its unscaled integers re-typed (Keep/Sum of
/// DECIMAL32/64) or its values as DOUBLE (a copy of the slice's range).
fn proxy(s: &Slice, class: Class) -> (Column, usize) {
    let ty = match (class, s.ty()) {
        (Class::Keep | Class::Sum, DataType::Decimal32(_)) => Some(DataType::Int),
        (Class::Keep | Class::Sum, DataType::Decimal64(_)) => Some(DataType::Long),
        _ => None,
    };
    if let Some(ty) = ty {
        return (Column { ty, data: s.col.data.clone() }, s.off);
    }
    let p = dec::pow10(s.ty().decimal_scale().unwrap_or(0) as u32) as f64;
    let v: Vec<f64> = (s.off..s.off + s.len)
        .map(|i| match s.col.unscaled_at(i) {
            Some(x) => x as f64 / p,
            None => f64::NULL,
        })
        .collect();
    (Column::from_vec(DataType::Double, v), 0)
}

/// The DECIMAL result type of a Keep/Sum statistic of input type `t`.
fn result_type(class: Class, t: DataType) -> DataType {
    let s = t.decimal_scale().unwrap_or(0);
    match (class, t) {
        (Class::Sum, DataType::Decimal32(_)) => DataType::Decimal64(s),
        (Class::Sum, _) => DataType::Decimal128(s),
        _ => t,
    }
}

/// Re-type one output of the integer/DOUBLE kernel as the DECIMAL result.
fn back(out: Column, class: Class, input: DataType) -> Result<Column> {
    let to = result_type(class, input);
    let scale = to.decimal_scale().unwrap_or(0);
    match out.ty {
        DataType::Int | DataType::Long => dec::from_unscaled(to, dec::unscaled(&out)),
        DataType::Double => {
            let v: Vec<i128> = (0..out.len())
                .map(|i| out.f64_at(i).and_then(|x| dec::from_f64(x, scale)).unwrap_or(dec::NULL))
                .collect();
            dec::from_unscaled(to, v)
        }
        // an output that is not the statistic's value (a count, an index) stays as it is
        _ => Ok(out),
    }
}

/// Wrap a prepared call so that DECIMAL data slices are computed as described above.
/// Calls without DECIMAL slices run the original kernel unchanged.
pub fn adapt(p: Prep<'_>) -> Prep<'_> {
    let Prep { name, data, kernel, wants_labels, numeric_only } = p;
    let class = class_of(name);
    let wrapped: Kernel = Box::new(move |s: &[Slice]| {
        let Some(input) = s.iter().map(|x| x.ty()).find(|t| dec::is_decimal(*t)) else {
            return kernel(s);
        };
        let proxies: Vec<Option<(Column, usize)>> =
            s.iter().map(|x| dec::is_decimal(x.ty()).then(|| proxy(x, class))).collect();
        let slices: Vec<Slice> = s
            .iter()
            .zip(&proxies)
            .map(|(x, p)| match p {
                Some((c, off)) => Slice { col: c, off: *off, len: x.len },
                None => *x,
            })
            .collect();
        let outs = kernel(&slices)?;
        if class == Class::Double {
            return Ok(outs);
        }
        outs.into_iter().map(|o| back(o, class, input)).collect()
    });
    Prep { name, data, kernel: wrapped, wants_labels, numeric_only }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_tutorial() {
        assert_eq!(class_of("mmax"), Class::Keep);
        assert_eq!(class_of("tmsum"), Class::Sum);
        assert_eq!(class_of("mavg"), Class::Double);
        assert_eq!(result_type(Class::Sum, DataType::Decimal32(2)), DataType::Decimal64(2));
        assert_eq!(result_type(Class::Sum, DataType::Decimal64(3)), DataType::Decimal128(3));
        assert_eq!(result_type(Class::Keep, DataType::Decimal64(3)), DataType::Decimal64(3));
    }
}
