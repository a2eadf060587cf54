//! Conversions between Beluga values and plain Rust values: scalars (i64, i32, f64, bool,
//! String) and vectors of them, with `Option` forms that keep nulls.

use beluga_runtime::null::Native;
use beluga_runtime::{ColData, Column, DataType, Error, StrCol, Value};

type Result<T> = std::result::Result<T, Error>;

/// A Rust value that can become a Beluga value.
pub trait ToValue {
    fn to_value(self) -> Value;
}

/// Convert any [`ToValue`] (a shorthand for closures returning results).
pub fn to_value<T: ToValue>(v: T) -> Value {
    v.to_value()
}

/// A Rust value read out of a Beluga value.
pub trait FromValue: Sized {
    fn from_value(v: &Value) -> Result<Self>;
}

impl ToValue for Value {
    fn to_value(self) -> Value {
        self
    }
}
impl ToValue for i64 {
    fn to_value(self) -> Value {
        Value::long(self)
    }
}
impl ToValue for i32 {
    fn to_value(self) -> Value {
        Value::int(self)
    }
}
impl ToValue for f64 {
    fn to_value(self) -> Value {
        Value::double(self)
    }
}
impl ToValue for bool {
    fn to_value(self) -> Value {
        Value::bool(self)
    }
}
impl ToValue for &str {
    fn to_value(self) -> Value {
        Value::string(self)
    }
}
impl ToValue for String {
    fn to_value(self) -> Value {
        Value::string(&self)
    }
}
impl ToValue for Vec<i64> {
    fn to_value(self) -> Value {
        Value::Vector(Column::from_vec(DataType::Long, self))
    }
}
impl ToValue for Vec<i32> {
    fn to_value(self) -> Value {
        Value::Vector(Column::from_vec(DataType::Int, self))
    }
}
impl ToValue for Vec<f64> {
    fn to_value(self) -> Value {
        Value::Vector(Column::from_vec(DataType::Double, self))
    }
}
impl ToValue for Vec<bool> {
    fn to_value(self) -> Value {
        Value::Vector(Column::from_vec(DataType::Bool, self.into_iter().map(|b| b as i8).collect::<Vec<i8>>()))
    }
}
impl ToValue for Vec<String> {
    fn to_value(self) -> Value {
        Value::Vector(Column::new(DataType::String, ColData::Str(StrCol::from_iter(self.iter().map(|s| s.as_str())))))
    }
}
impl ToValue for Vec<&str> {
    fn to_value(self) -> Value {
        Value::string_vec(self)
    }
}
impl ToValue for Vec<Option<i64>> {
    fn to_value(self) -> Value {
        self.into_iter().map(|x| x.unwrap_or(i64::NULL)).collect::<Vec<i64>>().to_value()
    }
}
impl ToValue for Vec<Option<f64>> {
    fn to_value(self) -> Value {
        self.into_iter().map(|x| x.unwrap_or(f64::NULL)).collect::<Vec<f64>>().to_value()
    }
}

fn column_of<'a>(v: &'a Value, want: &str) -> Result<&'a Column> {
    match v {
        Value::Vector(c) | Value::Scalar(c) | Value::Pair(c) => Ok(c),
        other => Err(Error::type_err(format!("expected a {want}, got a {}", describe(other)))),
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Void => "VOID",
        Value::Scalar(_) => "scalar",
        Value::Vector(_) => "vector",
        Value::Pair(_) => "pair",
        Value::Matrix(_) => "matrix",
        Value::Set(_) => "set",
        Value::Dict(_) => "dictionary",
        Value::Table(_) => "table",
        Value::Tuple(_) => "tuple",
        Value::Function(_) => "function",
        _ => "non-data value",
    }
}

/// Elements as i64 (None for nulls); error for non-integral types.
fn ints(c: &Column) -> Result<Vec<Option<i64>>> {
    let g = |x: i64| if x == i64::MIN { None } else { Some(x) };
    Ok(match &*c.data {
        ColData::I8(v) => v.iter().map(|&x| (!x.is_null()).then_some(x as i64)).collect(),
        ColData::I16(v) => v.iter().map(|&x| (!x.is_null()).then_some(x as i64)).collect(),
        ColData::I32(v) => v.iter().map(|&x| (!x.is_null()).then_some(x as i64)).collect(),
        ColData::I64(v) => v.iter().map(|&x| g(x)).collect(),
        _ => return Err(Error::type_err(format!("expected integers, got {:?}", c.ty))),
    })
}

/// Elements as f64 (None for nulls); error for strings.
fn floats(c: &Column) -> Result<Vec<Option<f64>>> {
    Ok(match &*c.data {
        ColData::F32(v) => v.iter().map(|&x| (!x.is_null()).then_some(x as f64)).collect(),
        ColData::F64(v) => v.iter().map(|&x| (!x.is_null()).then_some(x)).collect(),
        _ => ints(c)
            .map_err(|_| Error::type_err(format!("expected numbers, got {:?}", c.ty)))?
            .into_iter()
            .map(|x| x.map(|x| x as f64))
            .collect(),
    })
}

fn strings(c: &Column) -> Result<Vec<String>> {
    Ok(match &*c.data {
        ColData::Str(s) => s.iter().map(|x| x.to_string()).collect(),
        ColData::Sym(s) => (0..s.codes.len()).map(|i| s.get(i).to_string()).collect(),
        _ => return Err(Error::type_err(format!("expected strings, got {:?}", c.ty))),
    })
}

fn no_nulls<T>(v: Vec<Option<T>>) -> Result<Vec<T>> {
    v.into_iter()
        .enumerate()
        .map(|(i, x)| x.ok_or_else(|| Error::runtime(format!("element {i} is null; convert to a Vec<Option<_>>"))))
        .collect()
}

fn one<T>(v: Vec<T>, c: &Column) -> Result<T> {
    if v.len() != 1 {
        return Err(Error::type_err(format!("expected a scalar, got {} elements of {:?}", v.len(), c.ty)));
    }
    Ok(v.into_iter().next().expect("length checked"))
}

impl FromValue for Value {
    fn from_value(v: &Value) -> Result<Self> {
        Ok(v.clone())
    }
}
impl FromValue for Vec<Option<i64>> {
    fn from_value(v: &Value) -> Result<Self> {
        ints(column_of(v, "vector")?)
    }
}
impl FromValue for Vec<i64> {
    fn from_value(v: &Value) -> Result<Self> {
        no_nulls(ints(column_of(v, "vector")?)?)
    }
}
impl FromValue for Vec<i32> {
    fn from_value(v: &Value) -> Result<Self> {
        let x = Vec::<i64>::from_value(v)?;
        x.into_iter()
            .map(|n| i32::try_from(n).map_err(|_| Error::runtime(format!("{n} does not fit in an i32"))))
            .collect()
    }
}
impl FromValue for Vec<Option<f64>> {
    fn from_value(v: &Value) -> Result<Self> {
        floats(column_of(v, "vector")?)
    }
}
/// Nulls become NaN.
impl FromValue for Vec<f64> {
    fn from_value(v: &Value) -> Result<Self> {
        Ok(floats(column_of(v, "vector")?)?.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect())
    }
}
impl FromValue for Vec<bool> {
    fn from_value(v: &Value) -> Result<Self> {
        let c = column_of(v, "vector")?;
        if c.ty != DataType::Bool {
            return Err(Error::type_err(format!("expected BOOL, got {:?}", c.ty)));
        }
        no_nulls(ints(c)?).map(|x| x.into_iter().map(|b| b != 0).collect())
    }
}
/// STRING or SYMBOL; nulls are empty strings.
impl FromValue for Vec<String> {
    fn from_value(v: &Value) -> Result<Self> {
        strings(column_of(v, "vector")?)
    }
}
impl FromValue for i64 {
    fn from_value(v: &Value) -> Result<Self> {
        let c = column_of(v, "scalar")?;
        one(no_nulls(ints(c)?)?, c)
    }
}
impl FromValue for Option<i64> {
    fn from_value(v: &Value) -> Result<Self> {
        if matches!(v, Value::Void) {
            return Ok(None);
        }
        let c = column_of(v, "scalar")?;
        one(ints(c)?, c)
    }
}
impl FromValue for i32 {
    fn from_value(v: &Value) -> Result<Self> {
        let n = i64::from_value(v)?;
        i32::try_from(n).map_err(|_| Error::runtime(format!("{n} does not fit in an i32")))
    }
}
/// Nulls become NaN.
impl FromValue for f64 {
    fn from_value(v: &Value) -> Result<Self> {
        let c = column_of(v, "scalar")?;
        one(floats(c)?, c).map(|x| x.unwrap_or(f64::NAN))
    }
}
impl FromValue for bool {
    fn from_value(v: &Value) -> Result<Self> {
        let c = column_of(v, "scalar")?;
        if c.ty != DataType::Bool {
            return Err(Error::type_err(format!("expected BOOL, got {:?}", c.ty)));
        }
        one(no_nulls(ints(c)?)?, c).map(|b| b != 0)
    }
}
impl FromValue for String {
    fn from_value(v: &Value) -> Result<Self> {
        let c = column_of(v, "scalar")?;
        one(strings(c)?, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_with_nulls() {
        let v = vec![Some(1i64), None, Some(-3)].to_value();
        assert_eq!(Vec::<Option<i64>>::from_value(&v).unwrap(), [Some(1), None, Some(-3)]);
        assert!(Vec::<i64>::from_value(&v).is_err());
        let f = vec![Some(1.5), None].to_value();
        let back = Vec::<f64>::from_value(&f).unwrap();
        assert_eq!(back[0], 1.5);
        assert!(back[1].is_nan());
        let s = vec!["a", "", "c"].to_value();
        assert_eq!(Vec::<String>::from_value(&s).unwrap(), ["a", "", "c"]);
        assert_eq!(Vec::<bool>::from_value(&vec![true, false].to_value()).unwrap(), [true, false]);
    }

    #[test]
    fn scalars_and_type_errors() {
        assert_eq!(i64::from_value(&Value::int(7)).unwrap(), 7);
        assert_eq!(f64::from_value(&Value::int(7)).unwrap(), 7.0);
        assert_eq!(String::from_value(&Value::symbol("ab")).unwrap(), "ab");
        assert!(String::from_value(&Value::int(1)).is_err());
        assert!(i64::from_value(&vec![1i64, 2].to_value()).is_err());
        assert_eq!(Option::<i64>::from_value(&Value::Void).unwrap(), None);
    }
}
