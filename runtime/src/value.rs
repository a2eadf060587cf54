//! Values: the data forms of DolphinDB over typed columns.

use crate::column::{ColData, Column, StrCol, SymCol};
use crate::null::Native;
use crate::table::Table;
use crate::types::{DataForm, DataType};
use ahash::AHashMap;
use beluga_lang::ast::{Expr, FuncDef};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Hashable key of one scalar element (dictionaries, sets, group by on slow paths).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    I(i64),
    F(u64),
    S(Arc<str>),
    B(i128),
}

impl Key {
    pub fn of(col: &Column, i: usize) -> Key {
        crate::match_int!(&*col.data, v => Key::I(if v[i].is_null() { i64::MIN } else { v[i].to_i64() }),
            // NULL is one key, every NaN one other key (a NaN is a value: null.rs)
            ColData::F32(v) => Key::F(if v[i].is_nan() { f64::NAN.to_bits() } else if v[i].is_null() { u64::MAX } else { (v[i] as f64 + 0.0).to_bits() }),
            ColData::F64(v) => Key::F(if v[i].is_nan() { f64::NAN.to_bits() } else if v[i].is_null() { u64::MAX } else { (v[i] + 0.0).to_bits() }),
            ColData::I128(v) => Key::B(v[i]),
            ColData::Sym(s) => Key::S(s.dict.names[s.codes[i] as usize].clone()),
            ColData::Str(s) => Key::S(Arc::from(s.get(i))),
            ColData::Array(a) => Key::S(Arc::from(crate::elemfmt::array_row_text(a, i))),
        )
    }
}

/// Values of a dictionary: a typed column, or arbitrary values (ANY dictionary).
#[derive(Clone, Debug)]
pub enum DictVals {
    Col(Column),
    Any(Vec<Value>),
}

#[derive(Clone, Debug)]
pub struct Dict {
    pub keys: Column,
    pub vals: DictVals,
    pub index: AHashMap<Key, usize>,
    pub ordered: bool,
    pub key_type: DataType,
    pub val_type: DataType,
}

#[derive(Clone, Debug)]
pub struct SetVal {
    /// Members in insertion order.
    pub items: Column,
    pub index: AHashMap<Key, usize>,
}

#[derive(Clone, Debug)]
pub struct Matrix {
    /// Column-major data: element (r, c) at `c * rows + r`.
    pub data: Column,
    pub rows: usize,
    pub cols: usize,
    pub row_labels: Option<Box<Value>>,
    pub col_labels: Option<Box<Value>>,
    /// An indexed series (`indexedSeries`, `setIndexedSeries!`) or indexed matrix
    /// (`setIndexedMatrix!`): binary operations with another indexed operand align on the
    /// labels (outer join) instead of positions (`ops::align_indexed`).
    pub indexed: bool,
}

impl Matrix {
    pub fn column(&self, c: usize) -> Column {
        self.data.slice(c * self.rows, (c + 1) * self.rows)
    }
}

/// Array vectors are column storage (`column::ArrayVec`); a value becomes rows of one here.
pub use crate::column::ArrayVec;

impl ArrayVec {
    /// Rows for an `ELEM[]` table column from a value: an array vector (row by row), a
    /// tuple (one row per element: a vector, a scalar, or an empty/void row), or a vector
    /// or scalar as one row. An empty row is stored as `[null]` (arrayVector.md).
    pub fn rows_of(v: &Value, elem: DataType) -> crate::error::Result<ArrayVec> {
        use crate::kernels::cast::cast_column;
        let fit = |c: &Column| -> crate::error::Result<Column> {
            if c.is_empty() || c.ty == DataType::Void {
                Ok(Column::nulls(elem, c.len().max(1)))
            } else if c.ty == elem {
                Ok(c.clone())
            } else if c.ty.is_literal() != elem.is_literal() {
                Err(crate::error::Error::type_err(format!("Incompatible type. Expected: {}[], Actual: {}", elem, c.ty)))
            } else {
                cast_column(c, elem)
            }
        };
        match v {
            Value::ArrayVector(a) if a.data.ty == elem => Ok((**a).clone()),
            Value::ArrayVector(a) => Ok(a.with_data(cast_column(&a.data, elem)?)),
            Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => Ok(ArrayVec::from_rows(elem, &[fit(c)?])),
            Value::Void => Ok(ArrayVec::from_rows(elem, &[Column::nulls(elem, 1)])),
            Value::Tuple(items) => {
                let mut rows = Vec::with_capacity(items.len());
                for it in items.iter() {
                    rows.push(match it {
                        Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => fit(c)?,
                        Value::Void => Column::nulls(elem, 1),
                        Value::Tuple(t) if t.is_empty() => Column::nulls(elem, 1),
                        other => {
                            return Err(crate::error::Error::type_err(format!(
                                "An array-vector row must be a vector, not {}",
                                describe(other)
                            )))
                        }
                    });
                }
                Ok(ArrayVec::from_rows(elem, &rows))
            }
            other => Err(crate::error::Error::type_err(format!(
                "Can't make rows of {}[] from {}",
                elem,
                describe(other)
            ))),
        }
    }
}

/// Name and type ID of the array-vector type of an element type (kept here for the
/// `value::array_type` path; it lives with the types).
pub use crate::types::array_type;

/// The element type of an array-vector type constant (`INT[]` evaluates to
/// `Value::Constant("INT[]", 68)`; `DECIMAL32(2)[]` keeps its scale in the name).
pub fn array_elem_type(v: &Value) -> Option<DataType> {
    match v {
        Value::Constant(name, id) if *id > 64 && name.ends_with("[]") => {
            DataType::from_name(name).and_then(DataType::array_elem).or_else(|| DataType::from_id(*id - 64))
        }
        _ => None,
    }
}

/// How error messages name the kind of a value ("a dictionary", "INT", "an array vector (INT[])").
pub fn describe(v: &Value) -> String {
    match v {
        Value::Function(_) => "a function".into(),
        Value::Set(_) => "a set".into(),
        Value::Dict(_) => "a dictionary".into(),
        Value::Table(_) => "a table".into(),
        Value::Duration(..) => "a DURATION".into(),
        Value::Code(_) => "metacode".into(),
        Value::Handle(_) => "a handle".into(),
        Value::ArrayVector(av) => match array_type(av.data.ty) {
            Some((name, _)) => format!("an array vector ({name})"),
            None => "an array vector".into(),
        },
        Value::Constant(name, _) if array_elem_type(v).is_some() => format!("the array-vector type {name}"),
        other => format!("{}", other.data_type()),
    }
}

/// A user function with the values it captured when it was created (closures).
#[derive(Debug)]
pub struct UserFunc {
    pub def: Arc<FuncDef>,
    pub captured: Vec<(String, Value)>,
    /// Module namespace the function was defined in, if any.
    pub module: Option<String>,
}

/// Function values.
#[derive(Clone, Debug)]
pub enum Func {
    /// Index into the session's builtin registry.
    Builtin(u32),
    User(Arc<UserFunc>),
    /// `f{a, , c}`: fixed positional slots (None = free) and fixed keyword arguments.
    /// A fixed positional argument is a `Bound`: the object itself, shared by every copy
    /// of the partial application and by the variable it was bound from.
    Partial(Arc<Func>, Arc<Vec<Option<Bound>>>, Arc<Vec<(String, Value)>>),
    /// `f:E` and friends.
    Template(Arc<Func>, Arc<str>),
}

impl Func {
    /// A partial application of `inner` with these fixed values (each in a cell of its own).
    pub fn partial(inner: Func, fixed: Vec<Option<Value>>, named: Vec<(String, Value)>) -> Func {
        Func::Partial(Arc::new(inner), Arc::new(fixed.into_iter().map(|v| v.map(Bound::new)).collect()), Arc::new(named))
    }
}

/// A fixed argument of a partial application (`f{t, state}`).
///
/// DolphinDB passes arguments by reference (progr/named_func.md: a `mutable` parameter
/// changes the caller's object, a scalar included), and a partial application keeps the
/// objects it was given, not copies: a stream handler `f{resultTable, stateDict}` or
/// `cumulativeAverage{avgT, 0.0 0.0}` (tutorials/func_progr_cases.md 4.3, 5.2) updates its
/// bound table, dictionary or vector in place, and the next call, like the script variable
/// the object came from, sees the update. So every fixed argument — table, dictionary,
/// vector, matrix, set, tuple or scalar alike — is held in a shared cell:
///
/// * `f{t}` with `t` a variable links the variable to the cell (`Interpreter::bind_var`):
///   an in-place change through either (`append!`, `d[k] = v`, `x += 1`, a `mutable`
///   parameter) is seen by the other; assigning the variable anew (`t = ...`) makes it
///   another object and ends the link, as it does in DolphinDB.
/// * `f{expr}` gets a cell of its own, kept by every copy of the partial application.
/// * a shared table (`share t as st; f{st}`) is bound by its registered name, which is its
///   identity across sessions.
///
/// Only a `mutable` parameter of a user function or the first argument of an in-place
/// builtin (`append!`, `tableInsert`, other `!` functions) can change the object; a
/// parameter without `mutable` still refuses in-place changes ("Constant variable [t]
/// can't be modified.").
#[derive(Clone)]
pub enum Bound {
    Cell(Arc<std::sync::Mutex<Value>>),
    Shared(Arc<str>),
}

impl Bound {
    pub fn new(v: Value) -> Bound {
        Bound::Cell(Arc::new(std::sync::Mutex::new(v)))
    }
    /// The value of an object's own cell (None for a shared table bound by name).
    pub fn peek(&self) -> Option<Value> {
        match self {
            Bound::Cell(c) => Some(c.lock().unwrap_or_else(|p| p.into_inner()).clone()),
            Bound::Shared(_) => None,
        }
    }
    pub fn same(&self, other: &Bound) -> bool {
        match (self, other) {
            (Bound::Cell(a), Bound::Cell(b)) => Arc::ptr_eq(a, b),
            (Bound::Shared(a), Bound::Shared(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Debug for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Cell(c) => match c.try_lock() {
                Ok(v) => write!(f, "Bound({:?})", *v),
                Err(_) => write!(f, "Bound(<in use>)"),
            },
            Bound::Shared(n) => write!(f, "Bound(shared {n})"),
        }
    }
}

/// Storage handles (databases, partitioned tables) implement this; runtime knows nothing of files.
pub trait Handle: Send + Sync + fmt::Debug {
    fn as_any(&self) -> &dyn Any;
    /// Console form, e.g. `DB[dfs://valuedb]`.
    fn display(&self) -> String;
    fn type_name(&self) -> &'static str {
        "HANDLE"
    }
    /// The stored table behind the handle, when it is one (queries scan it through this).
    fn table_source(&self) -> Option<&dyn crate::table_source::TableSource> {
        None
    }
    /// Appending through the session: a stream table delivers the rows to its subscribers
    /// and a streaming engine computes on them, both with the interpreter. `rows` is a
    /// table or a tuple of columns; None when the handle is not such a target (appends
    /// then go through `table_source`).
    fn session_append(&self, _i: &mut crate::callctx::CallCtx, _rows: &Value) -> Option<crate::error::Result<u64>> {
        None
    }
}

#[derive(Clone, Debug)]
pub enum Value {
    /// Untyped NULL (VOID scalar).
    Void,
    /// A scalar: a column of length 1.
    Scalar(Column),
    Vector(Column),
    Pair(Column),
    Matrix(Arc<Matrix>),
    Set(Arc<SetVal>),
    Dict(Arc<Dict>),
    Table(Arc<Table>),
    /// ANY vector.
    Tuple(Arc<Vec<Value>>),
    Function(Func),
    /// A type constant such as `INT`; compares equal to its type ID.
    Type(DataType),
    /// `5m`, `3M`, `1d`: count and unit.
    Duration(i64, Arc<str>),
    /// Metacode `<expr>`.
    Code(Arc<Expr>),
    Handle(Arc<dyn Handle>),
    /// An array vector (`INT[]` ...): a vector whose elements are vectors.
    ArrayVector(Arc<ArrayVec>),
    /// A named constant with no behaviour (form names, partition types, chart types…): name and numeric value.
    Constant(&'static str, i32),
}

pub type V = Value;

impl Value {
    // ---- constructors
    pub fn scalar<T: crate::column::IntoColData>(ty: DataType, v: T) -> Value {
        Value::Scalar(Column::from_vec(ty, v))
    }
    pub fn bool(b: bool) -> Value {
        Value::scalar(DataType::Bool, vec![b as i8])
    }
    pub fn bool_null() -> Value {
        Value::scalar(DataType::Bool, vec![i8::NULL])
    }
    pub fn int(v: i32) -> Value {
        Value::scalar(DataType::Int, vec![v])
    }
    pub fn long(v: i64) -> Value {
        Value::scalar(DataType::Long, vec![v])
    }
    pub fn double(v: f64) -> Value {
        Value::scalar(DataType::Double, vec![f64::from_f64(v)])
    }
    /// A computed DOUBLE that keeps NaN/±Infinity when an input already held one
    /// (`crate::null::keep_special`).
    pub fn double_ieee(v: f64, special_in: bool) -> Value {
        Value::scalar(DataType::Double, vec![crate::null::keep_special(v, special_in)])
    }
    pub fn string(s: &str) -> Value {
        Value::Scalar(Column::new(DataType::String, ColData::Str(StrCol::from_iter([s]))))
    }
    pub fn symbol(s: &str) -> Value {
        Value::Scalar(Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter([s]))))
    }
    pub fn null_of(ty: DataType) -> Value {
        if ty == DataType::Void {
            Value::Void
        } else {
            Value::Scalar(Column::nulls(ty, 1))
        }
    }
    pub fn vector(col: Column) -> Value {
        Value::Vector(col)
    }
    pub fn int_vec(v: Vec<i32>) -> Value {
        Value::Vector(Column::from_vec(DataType::Int, v))
    }
    pub fn long_vec(v: Vec<i64>) -> Value {
        Value::Vector(Column::from_vec(DataType::Long, v))
    }
    /// A computed DOUBLE vector: NaN marks "no value" and is stored as NULL (null.rs).
    pub fn double_vec(mut v: Vec<f64>) -> Value {
        v.iter_mut().filter(|x| x.is_nan()).for_each(|x| *x = f64::NULL);
        Value::Vector(Column::from_vec(DataType::Double, v))
    }
    pub fn bool_vec(v: Vec<bool>) -> Value {
        Value::Vector(Column::from_vec(DataType::Bool, v.into_iter().map(|b| b as i8).collect::<Vec<i8>>()))
    }
    pub fn string_vec<'a>(v: impl IntoIterator<Item = &'a str>) -> Value {
        Value::Vector(Column::new(DataType::String, ColData::Str(StrCol::from_iter(v))))
    }
    pub fn tuple(v: Vec<Value>) -> Value {
        Value::Tuple(Arc::new(v))
    }
    pub fn table(t: Table) -> Value {
        Value::Table(Arc::new(t))
    }
    /// The value of a table column: a vector, or an array vector for an `ELEM[]` column.
    pub fn of_column(col: Column) -> Value {
        match &*col.data {
            ColData::Array(a) => Value::ArrayVector(a.clone()),
            _ => Value::Vector(col),
        }
    }

    // ---- introspection
    pub fn form(&self) -> DataForm {
        match self {
            Value::Vector(_) | Value::Tuple(_) | Value::ArrayVector(_) => DataForm::Vector,
            Value::Pair(_) => DataForm::Pair,
            Value::Matrix(_) => DataForm::Matrix,
            Value::Set(_) => DataForm::Set,
            Value::Dict(_) => DataForm::Dict,
            Value::Table(_) => DataForm::Table,
            _ => DataForm::Scalar,
        }
    }

    pub fn data_type(&self) -> DataType {
        match self {
            Value::Void => DataType::Void,
            Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => c.ty,
            Value::Matrix(m) => m.data.ty,
            Value::Set(s) => s.items.ty,
            Value::Dict(d) => d.val_type,
            Value::Table(_) => DataType::Any,
            Value::Tuple(_) => DataType::Any,
            Value::Function(_) => DataType::FunctionDef,
            Value::Type(_) => DataType::Int,
            Value::Duration(..) => DataType::Duration,
            Value::Code(_) => DataType::Code,
            Value::Handle(_) => DataType::Handle,
            Value::Constant(..) => DataType::Int,
            Value::ArrayVector(a) => a.data.ty,
        }
    }

    /// The column of a scalar, vector or pair.
    pub fn column(&self) -> Option<&Column> {
        match self {
            Value::Scalar(c) | Value::Vector(c) | Value::Pair(c) => Some(c),
            _ => None,
        }
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self, Value::Scalar(_) | Value::Void | Value::Type(_) | Value::Constant(..))
    }

    /// True for VOID and for typed null scalars.
    pub fn is_null_scalar(&self) -> bool {
        match self {
            Value::Void => true,
            Value::Scalar(c) => c.is_null(0),
            _ => false,
        }
    }

    /// Number of elements (rows for a table), as `size`.
    pub fn size(&self) -> usize {
        match self {
            Value::Scalar(_) | Value::Void => 1,
            Value::Vector(c) | Value::Pair(c) => c.len(),
            Value::Matrix(m) => m.rows * m.cols,
            Value::Set(s) => s.items.len(),
            Value::Dict(d) => d.keys.len(),
            Value::Table(t) => t.rows(),
            Value::Tuple(t) => t.len(),
            Value::ArrayVector(a) => a.rows(),
            _ => 1,
        }
    }

    // ---- scalar accessors
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Scalar(c) => c.f64_at(0),
            Value::Type(t) => Some(t.id() as f64),
            Value::Constant(_, v) => Some(*v as f64),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Scalar(c) => match &*c.data {
                ColData::F32(_) | ColData::F64(_) => c.f64_at(0).map(|f| f.round() as i64),
                _ => c.i64_at(0),
            },
            Value::Type(t) => Some(t.id() as i64),
            Value::Constant(_, v) => Some(*v as i64),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        self.as_f64().map(|f| f != 0.0)
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Scalar(c) => c.str_at(0),
            _ => None,
        }
    }
    pub fn as_func(&self) -> Option<&Func> {
        match self {
            Value::Function(f) => Some(f),
            _ => None,
        }
    }
}
