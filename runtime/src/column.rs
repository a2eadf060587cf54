//! Typed column storage: one plain `Vec<T>` per physical type, tagged with a logical
//! `DataType`; shared by `Arc` and copied on write.

use crate::null::{Native, DECIMAL_NULL};
use crate::types::{DataType, Physical};
use ahash::AHashMap;
use std::sync::Arc;

/// STRING storage: one byte buffer plus offsets (len + 1 entries).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StrCol {
    pub offsets: Vec<usize>,
    pub bytes: Vec<u8>,
}

impl StrCol {
    pub fn new() -> StrCol {
        StrCol { offsets: vec![0], bytes: Vec::new() }
    }
    pub fn with_capacity(n: usize, bytes: usize) -> StrCol {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        StrCol { offsets, bytes: Vec::with_capacity(bytes) }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    #[inline]
    pub fn get(&self, i: usize) -> &str {
        // bytes only ever receive whole &str values, so every slice is valid UTF-8
        let b = &self.bytes[self.offsets[i]..self.offsets[i + 1]];
        std::str::from_utf8(b).unwrap_or("")
    }
    #[inline]
    pub fn push(&mut self, s: &str) {
        self.bytes.extend_from_slice(s.as_bytes());
        self.offsets.push(self.bytes.len());
    }
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }
    pub fn from_iter<'a>(it: impl IntoIterator<Item = &'a str>) -> StrCol {
        let mut c = StrCol::new();
        for s in it {
            c.push(s);
        }
        c
    }
    /// Replace element i (O(n): rebuilds the buffer tail).
    pub fn set(&mut self, i: usize, s: &str) {
        let mut out = StrCol::with_capacity(self.len(), self.bytes.len());
        for j in 0..self.len() {
            out.push(if j == i { s } else { self.get(j) });
        }
        *self = out;
    }
}

/// Symbol base: code 0 is the empty (null) symbol.
#[derive(Clone, Debug)]
pub struct SymbolDict {
    pub names: Vec<Arc<str>>,
    pub index: AHashMap<Arc<str>, u32>,
}

impl Default for SymbolDict {
    fn default() -> Self {
        let empty: Arc<str> = Arc::from("");
        let mut index = AHashMap::new();
        index.insert(empty.clone(), 0);
        SymbolDict { names: vec![empty], index }
    }
}

impl SymbolDict {
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&c) = self.index.get(s) {
            return c;
        }
        let a: Arc<str> = Arc::from(s);
        let c = self.names.len() as u32;
        self.names.push(a.clone());
        self.index.insert(a, c);
        c
    }
    pub fn get(&self, code: u32) -> &str {
        &self.names[code as usize]
    }
}

/// SYMBOL storage: codes into a shared symbol base.
#[derive(Clone, Debug)]
pub struct SymCol {
    pub codes: Vec<u32>,
    pub dict: Arc<SymbolDict>,
}

impl SymCol {
    pub fn new() -> SymCol {
        SymCol { codes: Vec::new(), dict: Arc::new(SymbolDict::default()) }
    }
    pub fn get(&self, i: usize) -> &str {
        self.dict.get(self.codes[i])
    }
    pub fn push(&mut self, s: &str) {
        let c = Arc::make_mut(&mut self.dict).intern(s);
        self.codes.push(c);
    }
    pub fn from_iter<'a>(it: impl IntoIterator<Item = &'a str>) -> SymCol {
        let mut c = SymCol::new();
        for s in it {
            c.push(s);
        }
        c
    }
}

impl Default for SymCol {
    fn default() -> Self {
        SymCol::new()
    }
}

#[derive(Clone, Debug)]
pub enum ColData {
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Sym(SymCol),
    Str(StrCol),
    I128(Vec<i128>),
    /// An array-vector column (`INT[]` ...): row offsets plus one flat column of the
    /// element type, shared with `Value::ArrayVector` so a column and a value convert in
    /// O(1). The column's `ty` is `DataType::Array(elem)`.
    Array(Arc<ArrayVec>),
}

/// Dispatch on the numeric physical variants of a `ColData`, binding the slice as `$v`.
/// Evaluates to `Option<_>`: None for Sym/Str.
#[macro_export]
macro_rules! with_numeric {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::column::ColData::I8($v) => Some($body),
            $crate::column::ColData::I16($v) => Some($body),
            $crate::column::ColData::I32($v) => Some($body),
            $crate::column::ColData::I64($v) => Some($body),
            $crate::column::ColData::F32($v) => Some($body),
            $crate::column::ColData::F64($v) => Some($body),
            $crate::column::ColData::I128($v) => Some($body),
            _ => None,
        }
    };
}

/// Rebuild a `ColData` variant by variant with a body generic over the element type (the
/// role of polars' `with_match_physical_numeric_polars_type!`): `$v` is bound to the
/// numeric vector of each of the seven numeric variants and `$body` must give a `Vec` of
/// the same element type, wrapped back into the same variant; the arms after it handle
/// the rest (`ColData::Sym`, `ColData::Str`):
///
/// ```ignore
/// let data = map_numeric!(&*c.data, v => v[a..b].to_vec(),
///     ColData::Sym(s) => ColData::Sym(s.slice(a, b)),
///     ColData::Str(s) => ColData::Str(s.slice(a, b)));
/// ```
#[macro_export]
macro_rules! map_numeric {
    ($data:expr, $v:ident => $body:expr, $($rest:pat => $other:expr),+ $(,)?) => {
        match $data {
            $crate::column::ColData::I8($v) => $crate::column::ColData::I8($body),
            $crate::column::ColData::I16($v) => $crate::column::ColData::I16($body),
            $crate::column::ColData::I32($v) => $crate::column::ColData::I32($body),
            $crate::column::ColData::I64($v) => $crate::column::ColData::I64($body),
            $crate::column::ColData::F32($v) => $crate::column::ColData::F32($body),
            $crate::column::ColData::F64($v) => $crate::column::ColData::F64($body),
            $crate::column::ColData::I128($v) => $crate::column::ColData::I128($body),
            $($rest => $other),+
        }
    };
}

/// Match a `ColData` with one arm generic over the seven numeric variants: `$v` is bound
/// to each numeric vector and, written `$v: $T`, `$T` names its element type (`i8` ..
/// `i128`), as polars' `with_match_physical_numeric_polars_type!` binds `$T`. Unlike
/// [`map_numeric!`] the body's value is not wrapped; the arms after it handle the rest.
/// Cases that differ for one numeric variant (DECIMAL's `I128`) go in an outer match:
///
/// ```ignore
/// match &*c.data {
///     ColData::I128(v) if decimal => ..,
///     d => match_numeric!(d, v: T => v.iter().filter(|x| x.is_null()).count(), _ => 0),
/// }
/// ```
#[macro_export]
macro_rules! match_numeric {
    ($data:expr, $v:ident $(: $T:ident)? => $body:expr $(, $rest:pat $(if $g:expr)? => $other:expr)* $(,)?) => {
        // the integer arms are match_int!'s; the float and 128-bit arms come first in its rest
        $crate::match_int!($data, $v $(: $T)? => $body,
            $crate::column::ColData::F32($v) => { $(type $T = f32;)? $body },
            $crate::column::ColData::F64($v) => { $(type $T = f64;)? $body },
            $crate::column::ColData::I128($v) => { $(type $T = i128;)? $body }
            $(, $rest $(if $g)? => $other)*
        )
    };
}

/// [`match_numeric!`] over the four integer variants only (`I8`, `I16`, `I32`, `I64`:
/// BOOL/CHAR, SHORT, INT and LONG with the temporal types stored as them).
#[macro_export]
macro_rules! match_int {
    ($data:expr, $v:ident $(: $T:ident)? => $body:expr $(, $rest:pat $(if $g:expr)? => $other:expr)* $(,)?) => {
        match $data {
            $crate::column::ColData::I8($v) => { $(type $T = i8;)? $body }
            $crate::column::ColData::I16($v) => { $(type $T = i16;)? $body }
            $crate::column::ColData::I32($v) => { $(type $T = i32;)? $body }
            $crate::column::ColData::I64($v) => { $(type $T = i64;)? $body }
            $($rest $(if $g)? => $other),*
        }
    };
}

/// Build a `ColData` from a physical type: for each numeric `Physical` the body runs
/// with `$T` bound to the element type and must give a `Vec<$T>`, wrapped into the
/// matching variant; the arms after it handle `Sym`, `Str` and `None`:
///
/// ```ignore
/// let data = map_physical!(ty.physical(), T => vec![T::NULL; n],
///     Physical::Sym => .., Physical::Str => .., Physical::None => ..);
/// ```
#[macro_export]
macro_rules! map_physical {
    ($phys:expr, $T:ident => $body:expr $(, $rest:pat $(if $g:expr)? => $other:expr)* $(,)?) => {
        match $phys {
            $crate::types::Physical::I8 => { type $T = i8; $crate::column::ColData::I8($body) }
            $crate::types::Physical::I16 => { type $T = i16; $crate::column::ColData::I16($body) }
            $crate::types::Physical::I32 => { type $T = i32; $crate::column::ColData::I32($body) }
            $crate::types::Physical::I64 => { type $T = i64; $crate::column::ColData::I64($body) }
            $crate::types::Physical::F32 => { type $T = f32; $crate::column::ColData::F32($body) }
            $crate::types::Physical::F64 => { type $T = f64; $crate::column::ColData::F64($body) }
            $crate::types::Physical::I128 => { type $T = i128; $crate::column::ColData::I128($body) }
            $($rest $(if $g)? => $other),*
        }
    };
}

/// Match two `ColData` of the same numeric variant, binding both vectors (`$a` from the
/// first, `$b` from the second) for one generic body; the arms after it handle the rest
/// (mismatched variants, symbols, strings):
///
/// ```ignore
/// zip_numeric!((out.data_mut(), &*src.data), (d, s) => copy(d, s), _ => ..)
/// ```
#[macro_export]
macro_rules! zip_numeric {
    ($pair:expr, ($a:ident, $b:ident) => $body:expr $(, $rest:pat $(if $g:expr)? => $other:expr)* $(,)?) => {
        match $pair {
            ($crate::column::ColData::I8($a), $crate::column::ColData::I8($b)) => $body,
            ($crate::column::ColData::I16($a), $crate::column::ColData::I16($b)) => $body,
            ($crate::column::ColData::I32($a), $crate::column::ColData::I32($b)) => $body,
            ($crate::column::ColData::I64($a), $crate::column::ColData::I64($b)) => $body,
            ($crate::column::ColData::F32($a), $crate::column::ColData::F32($b)) => $body,
            ($crate::column::ColData::F64($a), $crate::column::ColData::F64($b)) => $body,
            ($crate::column::ColData::I128($a), $crate::column::ColData::I128($b)) => $body,
            $($rest $(if $g)? => $other),*
        }
    };
}

/// An array vector (`INT[]`, `DOUBLE[]`, ...): rows of varying length stored as one flat
/// typed column plus row offsets (`offsets[r]..offsets[r+1]` is row r; rows + 1 entries).
/// The storage of both an `ELEM[]` table column (`ColData::Array`) and the value
/// `Value::ArrayVector`; element-wise kernels run on the flat column, row functions see it
/// through `padded()` (one column per position, short rows padded with nulls), which
/// null-ignoring reductions accept as is. Building one from a value: `value.rs`.
#[derive(Clone, Debug)]
pub struct ArrayVec {
    pub offsets: Vec<usize>,
    pub data: Column,
    padded: std::sync::OnceLock<Vec<Column>>,
}

impl ArrayVec {
    pub fn new(offsets: Vec<usize>, data: Column) -> ArrayVec {
        ArrayVec { offsets, data, padded: std::sync::OnceLock::new() }
    }
    /// Rows given as columns of the element type `ty`.
    pub fn from_rows(ty: DataType, rows: &[Column]) -> ArrayVec {
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0);
        for r in rows {
            offsets.push(offsets[offsets.len() - 1] + r.len());
        }
        let refs: Vec<&Column> = rows.iter().collect();
        ArrayVec::new(offsets, Column::concat(ty, &refs))
    }
    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }
    pub fn row_len(&self, r: usize) -> usize {
        self.offsets[r + 1] - self.offsets[r]
    }
    pub fn row(&self, r: usize) -> Column {
        self.data.slice(self.offsets[r], self.offsets[r + 1])
    }
    /// Rows at `idx` (out-of-range positions give empty rows).
    pub fn take(&self, idx: &[i64]) -> ArrayVec {
        let n = self.rows() as i64;
        let mut offsets = Vec::with_capacity(idx.len() + 1);
        offsets.push(0usize);
        let mut pos = Vec::new();
        for &k in idx {
            if k >= 0 && k < n {
                let (a, b) = (self.offsets[k as usize], self.offsets[k as usize + 1]);
                pos.extend((a..b).map(|p| p as i64));
            }
            offsets.push(pos.len());
        }
        ArrayVec::new(offsets, self.data.take(&pos))
    }
    /// Contiguous rows [start, end).
    pub fn slice(&self, start: usize, end: usize) -> ArrayVec {
        let end = end.min(self.rows());
        let start = start.min(end);
        let base = self.offsets[start];
        let offsets = self.offsets[start..=end].iter().map(|o| o - base).collect();
        ArrayVec::new(offsets, self.data.slice(base, self.offsets[end]))
    }
    /// Rows of `self` followed by rows of `other` (same element type; the caller casts).
    pub fn concat(&self, other: &ArrayVec) -> ArrayVec {
        let mut offsets = self.offsets.clone();
        let base = *offsets.last().unwrap_or(&0);
        offsets.extend(other.offsets[1..].iter().map(|o| o + base));
        let mut data = self.data.clone();
        data.append(&other.data);
        ArrayVec::new(offsets, data)
    }
    /// Same row shape, new flat data (element-wise results).
    pub fn with_data(&self, data: Column) -> ArrayVec {
        ArrayVec::new(self.offsets.clone(), data)
    }
    /// Widest row.
    pub fn width(&self) -> usize {
        (0..self.rows()).map(|r| self.row_len(r)).max().unwrap_or(0)
    }
    /// Column j holds element j of every row (null where the row is shorter).
    pub fn padded(&self) -> &Vec<Column> {
        self.padded.get_or_init(|| {
            let n = self.rows();
            (0..self.width())
                .map(|j| {
                    let idx: Vec<i64> =
                        (0..n).map(|r| if j < self.row_len(r) { (self.offsets[r] + j) as i64 } else { -1 }).collect();
                    self.data.take(&idx)
                })
                .collect()
        })
    }
    /// Inverse of `padded()` over this shape: row r takes the first `row_len(r)` cells of
    /// the per-position columns `cols`.
    pub fn from_padded(&self, cols: &[Column]) -> ArrayVec {
        let ty = cols.first().map(|c| c.ty).unwrap_or(self.data.ty);
        let w = cols.len().max(1);
        let refs: Vec<&Column> = cols.iter().collect();
        let all = Column::concat(ty, &refs); // column-major: cell (r, j) at j * rows + r
        let n = self.rows();
        let mut idx = Vec::with_capacity(self.data.len());
        for r in 0..n {
            for j in 0..self.row_len(r).min(w) {
                idx.push((j * n + r) as i64);
            }
        }
        ArrayVec::new(self.offsets.clone(), all.take(&idx))
    }
}

/// A typed column (vector payload).
#[derive(Clone, Debug)]
pub struct Column {
    pub ty: DataType,
    pub data: Arc<ColData>,
}

/// Conversion of a native Vec into column storage.
pub trait IntoColData {
    fn into_data(self) -> ColData;
}
macro_rules! into_col_data {
    ($($t:ty => $var:ident),* $(,)?) => {
        $(impl IntoColData for Vec<$t> {
            fn into_data(self) -> ColData {
                ColData::$var(self)
            }
        })*
    };
}
into_col_data!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, f32 => F32, f64 => F64, i128 => I128);
impl IntoColData for StrCol {
    fn into_data(self) -> ColData {
        ColData::Str(self)
    }
}
impl IntoColData for SymCol {
    fn into_data(self) -> ColData {
        ColData::Sym(self)
    }
}

impl ColData {
    pub fn len(&self) -> usize {
        match self {
            ColData::Sym(s) => s.codes.len(),
            ColData::Str(s) => s.len(),
            ColData::Array(a) => a.rows(),
            d => with_numeric!(d, v => v.len()).unwrap_or(0),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Empty storage of the physical class of `ty`.
    pub fn empty(ty: DataType, cap: usize) -> ColData {
        if let Some(e) = ty.array_elem() {
            return ColData::Array(Arc::new(ArrayVec::new(vec![0], Column::new(e, ColData::empty(e, cap)))));
        }
        map_physical!(ty.physical(), T => Vec::<T>::with_capacity(cap),
            Physical::Sym => ColData::Sym(SymCol::new()),
            Physical::Str => ColData::Str(StrCol::with_capacity(cap, 0)),
            Physical::None => ColData::I8(Vec::with_capacity(cap)),
        )
    }
}

impl Column {
    /// An array-vector column over `a` (type `ELEM[]`).
    pub fn from_array(a: Arc<ArrayVec>) -> Column {
        let ty = DataType::array_of(a.data.ty).unwrap_or(DataType::Array(a.data.ty.id() as u8));
        Column { ty, data: Arc::new(ColData::Array(a)) }
    }
    /// The array vector of an array-vector column.
    pub fn as_array(&self) -> Option<&Arc<ArrayVec>> {
        match &*self.data {
            ColData::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn new(ty: DataType, data: ColData) -> Column {
        Column { ty, data: Arc::new(data) }
    }
    pub fn from_vec<V: IntoColData>(ty: DataType, v: V) -> Column {
        Column::new(ty, v.into_data())
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn data_mut(&mut self) -> &mut ColData {
        Arc::make_mut(&mut self.data)
    }

    /// `n` nulls of type `ty`.
    pub fn nulls(ty: DataType, n: usize) -> Column {
        if let Some(e) = ty.array_elem() {
            // a null row of an array vector holds one null element (as `append!` makes of `[]`)
            let av = ArrayVec::new((0..=n).collect(), Column::nulls(e, n));
            return Column::new(ty, ColData::Array(Arc::new(av)));
        }
        let data = match ty.physical() {
            // DECIMAL's null is its own sentinel; INT128/UUID/IPADDR use i128's (0)
            Physical::I128 if ty.decimal_scale().is_some() => ColData::I128(vec![DECIMAL_NULL; n]),
            p => map_physical!(p, T => vec![T::NULL; n],
                Physical::Sym => ColData::Sym(SymCol { codes: vec![0; n], dict: Arc::new(SymbolDict::default()) }),
                Physical::Str => {
                    let mut s = StrCol::with_capacity(n, 0);
                    for _ in 0..n {
                        s.push("");
                    }
                    ColData::Str(s)
                },
                Physical::None => ColData::I8(vec![i8::NULL; n])
            ),
        };
        Column::new(ty, data)
    }

    /// Element i is a floating NaN (null for the kernels, a value for isNull: null.rs).
    pub fn is_nan_at(&self, i: usize) -> bool {
        match &*self.data {
            ColData::F32(v) => v[i].is_nan(),
            ColData::F64(v) => v[i].is_nan(),
            _ => false,
        }
    }

    /// Element i is the NULL sentinel; a NaN is a value here (isNull, isValid, count,
    /// printing: null.rs), where [`Column::is_null`] (the kernels' test) counts it as null.
    pub fn is_null_strict(&self, i: usize) -> bool {
        self.is_null(i) && !self.is_nan_at(i)
    }

    pub fn is_null(&self, i: usize) -> bool {
        match &*self.data {
            ColData::I128(v) if self.ty.decimal_scale().is_some() => v[i] == DECIMAL_NULL,
            ColData::Sym(s) => s.codes[i] == 0 || s.get(i).is_empty(),
            ColData::Str(s) => s.get(i).is_empty(),
            // an array row is null when empty or when it is the single null of a null row
            ColData::Array(a) => a.row_len(i) == 0 || (a.row_len(i) == 1 && a.data.is_null(a.offsets[i])),
            d => with_numeric!(d, v => v[i].is_null()).unwrap_or(false),
        }
    }

    /// Null mask as a vector of bools.
    pub fn null_mask(&self) -> Vec<bool> {
        (0..self.len()).map(|i| self.is_null(i)).collect()
    }

    /// Text of element i for STRING/SYMBOL columns.
    pub fn str_at(&self, i: usize) -> Option<&str> {
        match &*self.data {
            ColData::Str(s) => Some(s.get(i)),
            ColData::Sym(s) => Some(s.get(i)),
            _ => None,
        }
    }

    /// Element i as f64 (None when null or not numeric).
    pub fn f64_at(&self, i: usize) -> Option<f64> {
        if let Some(s) = self.ty.decimal_scale() {
            return self.unscaled_at(i).map(|x| x as f64 / 10i128.pow(s as u32) as f64);
        }
        let r = with_numeric!(&*self.data, v => if v[i].is_null() { None } else { Some(v[i].to_f64()) });
        r.flatten()
    }

    /// Unscaled value of element i of a DECIMAL column stored as i32/i64/i128 (None when
    /// null or not such storage); DECIMAL kernels widen every element through this.
    pub fn unscaled_at(&self, i: usize) -> Option<i128> {
        match &*self.data {
            ColData::I32(v) => (!v[i].is_null()).then(|| v[i] as i128),
            ColData::I64(v) => (!v[i].is_null()).then(|| v[i] as i128),
            ColData::I128(v) => (v[i] != DECIMAL_NULL).then(|| v[i]),
            _ => None,
        }
    }

    /// Element i as i64 (None when null or not numeric).
    pub fn i64_at(&self, i: usize) -> Option<i64> {
        if let Some(s) = self.ty.decimal_scale() {
            // DECIMAL: the integer part (toward zero)
            return self.unscaled_at(i).map(|x| (x / 10i128.pow(s as u32)) as i64);
        }
        let r = with_numeric!(&*self.data, v => if v[i].is_null() { None } else { Some(v[i].to_i64()) });
        r.flatten()
    }

    /// Rows selected by index; an index out of range (or negative) gives null.
    pub fn take(&self, idx: &[i64]) -> Column {
        fn pick<T: Native>(v: &[T], idx: &[i64]) -> Vec<T> {
            idx.iter()
                .map(|&i| if i >= 0 && (i as usize) < v.len() { v[i as usize] } else { T::NULL })
                .collect()
        }
        let data = match &*self.data {
            ColData::I128(v) if self.ty.decimal_scale().is_some() => ColData::I128(
                idx.iter()
                    .map(|&i| if i >= 0 && (i as usize) < v.len() { v[i as usize] } else { DECIMAL_NULL })
                    .collect(),
            ),
            d => map_numeric!(d, v => pick(v, idx),
                ColData::Sym(s) => ColData::Sym(SymCol {
                    codes: idx
                        .iter()
                        .map(|&i| if i >= 0 && (i as usize) < s.codes.len() { s.codes[i as usize] } else { 0 })
                        .collect(),
                    dict: s.dict.clone(),
                }),
                ColData::Str(s) => {
                    let mut out = StrCol::with_capacity(idx.len(), 0);
                    for &i in idx {
                        out.push(if i >= 0 && (i as usize) < s.len() { s.get(i as usize) } else { "" });
                    }
                    ColData::Str(out)
                },
                ColData::Array(a) => ColData::Array(Arc::new(a.take(idx)))
            ),
        };
        Column::new(self.ty, data)
    }

    /// Rows selected by 32-bit index; an index out of range (`u32::MAX` on purpose)
    /// gives null. Half the index bytes of `take` for the row numbers of a join.
    pub fn take_u32(&self, idx: &[u32]) -> Column {
        fn pick<T: Native>(v: &[T], idx: &[u32]) -> Vec<T> {
            idx.iter().map(|&i| v.get(i as usize).copied().unwrap_or(T::NULL)).collect()
        }
        let data = match &*self.data {
            ColData::I128(v) if self.ty.decimal_scale().is_some() => {
                ColData::I128(idx.iter().map(|&i| v.get(i as usize).copied().unwrap_or(DECIMAL_NULL)).collect())
            }
            d => map_numeric!(d, v => pick(v, idx),
                ColData::Sym(s) => ColData::Sym(SymCol {
                    codes: idx.iter().map(|&i| s.codes.get(i as usize).copied().unwrap_or(0)).collect(),
                    dict: s.dict.clone(),
                }),
                ColData::Str(_) | ColData::Array(_) => {
                    let wide: Vec<i64> = idx.iter().map(|&i| if (i as usize) < self.len() { i as i64 } else { -1 }).collect();
                    return self.take(&wide);
                }
            ),
        };
        Column::new(self.ty, data)
    }

    /// Rows by usize index (all in range).
    pub fn take_usize(&self, idx: &[usize]) -> Column {
        fn pick<T: Copy>(v: &[T], idx: &[usize]) -> Vec<T> {
            crate::guard::map_polled(idx, |&i| v[i])
        }
        let data = crate::map_numeric!(&*self.data, v => pick(v, idx),
            ColData::Sym(s) => ColData::Sym(SymCol { codes: pick(&s.codes, idx), dict: s.dict.clone() }),
            ColData::Str(s) => {
                let mut out = StrCol::with_capacity(idx.len(), 0);
                for &i in idx {
                    out.push(s.get(i));
                }
                ColData::Str(out)
            },
            ColData::Array(a) => {
                let idx: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
                ColData::Array(Arc::new(a.take(&idx)))
            }
        );
        Column::new(self.ty, data)
    }

    /// Rows where mask is true.
    pub fn filter(&self, mask: &[bool]) -> Column {
        let idx: Vec<usize> = mask.iter().enumerate().filter(|(_, m)| **m).map(|(i, _)| i).collect();
        self.take_usize(&idx)
    }

    /// Contiguous rows [start, end).
    pub fn slice(&self, start: usize, end: usize) -> Column {
        let end = end.min(self.len());
        let start = start.min(end);
        let data = crate::map_numeric!(&*self.data, v => v[start..end].to_vec(),
            ColData::Sym(s) => ColData::Sym(SymCol { codes: s.codes[start..end].to_vec(), dict: s.dict.clone() }),
            ColData::Str(s) => ColData::Str(StrCol::from_iter((start..end).map(|i| s.get(i)))),
            ColData::Array(a) => ColData::Array(Arc::new(a.slice(start, end))),
        );
        Column::new(self.ty, data)
    }

    /// Append another column of the same physical type (caller casts first).
    pub fn append(&mut self, other: &Column) {
        let d = Arc::make_mut(&mut self.data);
        zip_numeric!((d, &*other.data), (a, b) => a.extend_from_slice(b),
            (ColData::Sym(a), ColData::Sym(b)) => {
                if Arc::ptr_eq(&a.dict, &b.dict) {
                    a.codes.extend_from_slice(&b.codes);
                } else {
                    for &c in &b.codes {
                        a.push(b.dict.get(c));
                    }
                }
            },
            (ColData::Sym(a), ColData::Str(b)) => {
                for s in b.iter() {
                    a.push(s);
                }
            },
            (ColData::Str(a), ColData::Str(b)) => {
                for s in b.iter() {
                    a.push(s);
                }
            },
            (ColData::Str(a), ColData::Sym(b)) => {
                for &c in &b.codes {
                    a.push(b.dict.get(c));
                }
            },
            (ColData::Array(a), ColData::Array(b)) => *a = Arc::new(a.concat(b)),
            _ => debug_assert!(false, "append of mismatched physical types"),
        )
    }

    /// Overwrite rows in place: row `rows[j]` takes `src`'s row `from[j]`, in order (a later
    /// pair for the same row wins); with `skip_null` a NULL source value leaves the row as it
    /// is (a NaN is a value). Copy on write: the storage is copied first only when shared.
    /// O(pairs) for fixed-width and SYMBOL columns and for STRING rows whose new text has
    /// the old length; other STRING and array-vector columns are rebuilt once.
    pub fn set_rows(&mut self, rows: &[usize], src: &Column, from: &[usize], skip_null: bool) {
        let keep = |s: usize| skip_null && src.is_null_strict(s);
        let pairs = || rows.iter().copied().zip(from.iter().copied()).filter(|&(_, s)| !keep(s));
        if pairs().next().is_none() {
            return;
        }
        let same_len_text = match (&*self.data, &*src.data) {
            (ColData::Str(a), _) => pairs().all(|(r, s)| src.str_at(s).map(|x| x.len()) == Some(a.offsets[r + 1] - a.offsets[r])),
            _ => true,
        };
        let d = Arc::make_mut(&mut self.data);
        let done = zip_numeric!((&mut *d, &*src.data), (a, b) => {
                for (r, s) in pairs() {
                    a[r] = b[s];
                }
                true
            },
            (ColData::Sym(a), _) if src.ty.is_literal() || matches!(&*src.data, ColData::Sym(_)) => {
                let same = matches!(&*src.data, ColData::Sym(b) if Arc::ptr_eq(&a.dict, &b.dict));
                for (r, s) in pairs() {
                    a.codes[r] = match &*src.data {
                        ColData::Sym(b) if same => b.codes[s],
                        _ => {
                            let text = src.str_at(s).unwrap_or("");
                            match a.dict.index.get(text) {
                                Some(&c) => c,
                                None => Arc::make_mut(&mut a.dict).intern(text),
                            }
                        }
                    };
                }
                true
            },
            (ColData::Str(a), ColData::Str(_) | ColData::Sym(_)) if same_len_text => {
                for (r, s) in pairs() {
                    let text = src.str_at(s).unwrap_or("");
                    a.bytes[a.offsets[r]..a.offsets[r + 1]].copy_from_slice(text.as_bytes());
                }
                true
            },
            _ => false,
        );
        if done {
            return;
        }
        // a general rebuild: one gather over the column followed by the source
        let n = self.len();
        let mut idx: Vec<usize> = (0..n).collect();
        for (r, s) in pairs() {
            idx[r] = n + s;
        }
        *self = Column::concat(self.ty, &[self, src]).take_usize(&idx);
    }

    /// Concatenate columns of one type.
    pub fn concat(ty: DataType, cols: &[&Column]) -> Column {
        let n = cols.iter().map(|c| c.len()).sum();
        let mut out = Column::new(ty, ColData::empty(ty, n));
        for c in cols {
            out.append(c);
        }
        out
    }

    /// Index of row i's value in f64 (NaN for null); used by generic slow paths.
    pub fn to_f64_vec(&self) -> Option<Vec<f64>> {
        if let Some(s) = self.ty.decimal_scale() {
            let p = 10i128.pow(s as u32) as f64;
            return Some((0..self.len()).map(|i| self.unscaled_at(i).map_or(f64::NAN, |x| x as f64 / p)).collect());
        }
        with_numeric!(&*self.data, v => v.iter().map(|x| if x.is_null() { f64::NAN } else { x.to_f64() }).collect())
    }
}

/// Build a column from an f64 vector of a given floating/other type (nulls as NaN).
pub fn f64_column(v: Vec<f64>) -> Column {
    Column::from_vec(
        DataType::Double,
        v.into_iter().map(|x| if x.is_nan() { f64::NULL } else { x }).collect::<Vec<f64>>(),
    )
}
