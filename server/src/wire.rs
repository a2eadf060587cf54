//! DolphinDB's object serialization (PROTOCOL.md §5), both directions: the data forms the
//! API clients send and expect (scalar, vector, pair, matrix, set, dictionary, table,
//! tuple) over Beluga's typed columns. Decoding is streaming (objects arrive in pieces) and
//! bounded: every length is checked against a byte budget before anything is allocated,
//! so a malformed or hostile frame ends in an error, never a panic or a huge allocation.

use beluga_runtime::column::SymbolDict;
use beluga_runtime::null::Native;
use beluga_runtime::value::{ArrayVec, DictVals, Key, SetVal};
use beluga_runtime::{ColData, Column, DataType, Dict, Matrix, StrCol, SymCol, Table, Value};
use ahash::AHashMap;
use std::io::{BufRead, Read};
use std::sync::Arc;

/// Wire errors: the connection that produced one is closed. A request that is framed
/// correctly but cannot be accepted (over a limit, a type Beluga has no column for) is not
/// a wire error: the decoder reads it to its end and records the reason in
/// [`Decoder::refused`], so the server answers with an error and keeps the connection.
#[derive(Debug)]
pub enum WireError {
    Io(std::io::Error),
    Bad(String),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Io(e) => write!(f, "{e}"),
            WireError::Bad(m) => write!(f, "{m}"),
        }
    }
}

impl From<std::io::Error> for WireError {
    fn from(e: std::io::Error) -> Self {
        WireError::Io(e)
    }
}

pub type WResult<T> = std::result::Result<T, WireError>;

fn bad<T>(m: impl Into<String>) -> WResult<T> {
    Err(WireError::Bad(m.into()))
}

const FORM_SCALAR: u8 = 0;
const FORM_VECTOR: u8 = 1;
const FORM_PAIR: u8 = 2;
const FORM_MATRIX: u8 = 3;
const FORM_SET: u8 = 4;
const FORM_DICT: u8 = 5;
const FORM_TABLE: u8 = 6;
const SYMBOL_WITH_BASE: u8 = 128 + 17;
const TYPE_ANY: u8 = 25;
const TYPE_COMPRESS: u8 = 26;
const TYPE_DATEMINUTE: u8 = 29;
/// Why a request over `--max-request-mb` is refused.
pub const OVER_LIMIT: &str = "Request is larger than the server's maximum request size";
/// Deepest nesting of tuples/dictionaries accepted (a guard against stack exhaustion).
const MAX_DEPTH: usize = 64;

/// Plain fixed-width values whose little-endian bytes are the wire encoding, so a whole
/// column moves with one copy (no per-element work) on little-endian machines.
pub(crate) trait Pod: Copy + Default {
    fn swap_le(self) -> Self;
}
macro_rules! pod_int {
    ($($t:ty),*) => {$(impl Pod for $t { fn swap_le(self) -> Self { <$t>::from_le(self) } })*};
}
pod_int!(i8, u8, i16, i32, u32, i64, i128);
impl Pod for f32 {
    fn swap_le(self) -> Self {
        f32::from_bits(u32::from_le(self.to_bits()))
    }
}
impl Pod for f64 {
    fn swap_le(self) -> Self {
        f64::from_bits(u64::from_le(self.to_bits()))
    }
}

/// The bytes of a slice of plain values.
fn pod_bytes<T: Pod>(v: &[T]) -> &[u8] {
    // SAFETY: T is a primitive integer or float (no padding, every byte initialized); the
    // byte slice covers exactly the same memory and lives as long as `v`
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// Elements read per step: memory grows with the data actually received.
const READ_STEP_BYTES: usize = 8 << 20;

// ----------------------------------------------------------------------------- decoding

/// Reads objects from a byte stream, counting bytes against a budget.
pub struct Decoder<'a, R: BufRead> {
    r: &'a mut R,
    /// bytes still allowed for this request
    pub budget: u64,
    /// symbol bases seen in the current top-level object, by id
    bases: AHashMap<i32, Arc<SymbolDict>>,
    depth: usize,
    /// Why this request cannot be accepted although its framing is intact. Once set, the
    /// decoder keeps parsing the structure to find the request's end but stores no values
    /// (bulk data is read and dropped), so a refused upload costs no memory.
    pub refused: Option<String>,
}

impl<'a, R: BufRead> Decoder<'a, R> {
    pub fn new(r: &'a mut R, budget: u64) -> Self {
        Decoder { r, budget, bases: AHashMap::new(), depth: 0, refused: None }
    }

    /// Refuse the request (the first reason wins) and read the rest of it without keeping it.
    pub fn refuse(&mut self, m: impl Into<String>) {
        if self.refused.is_none() {
            self.refused = Some(m.into());
        }
    }

    fn discarding(&self) -> bool {
        self.refused.is_some()
    }

    fn take(&mut self, n: u64) -> WResult<()> {
        if self.discarding() {
            return Ok(());
        }
        if n > self.budget {
            self.refuse(OVER_LIMIT);
            return Ok(());
        }
        self.budget -= n;
        Ok(())
    }

    /// Read and drop `n` bytes (the bulk data of a refused request), a buffer at a time.
    fn discard(&mut self, n: u64) -> WResult<()> {
        let got = std::io::copy(&mut (&mut *self.r).take(n), &mut std::io::sink())?;
        if got != n {
            return Err(WireError::Io(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "truncated object")));
        }
        Ok(())
    }

    /// Bulk bytes (symbol codes, BLOB cells, LZ4 blocks): None, after reading past them,
    /// when the request is refused.
    fn bulk(&mut self, n: usize) -> WResult<Option<Vec<u8>>> {
        self.take(n as u64)?;
        if self.discarding() {
            self.discard(n as u64)?;
            return Ok(None);
        }
        self.bytes(n).map(Some)
    }

    fn bytes(&mut self, n: usize) -> WResult<Vec<u8>> {
        self.take(n as u64)?;
        // grow with the data actually received, so a frame that claims more than it
        // sends costs no more memory than it sent
        let mut b = Vec::with_capacity(n.min(1 << 20));
        let got = (&mut *self.r).take(n as u64).read_to_end(&mut b)?;
        if got != n {
            return Err(WireError::Io(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "truncated object")));
        }
        Ok(b)
    }

    fn u8(&mut self) -> WResult<u8> {
        Ok(self.bytes(1)?[0])
    }

    fn i32(&mut self) -> WResult<i32> {
        let b = self.bytes(4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn count(&mut self, what: &str) -> WResult<usize> {
        let n = self.i32()?;
        if n < 0 {
            return bad(format!("negative {what} in a serialized object"));
        }
        Ok(n as usize)
    }

    /// A zero-terminated string; bytes are checked against the budget as they arrive.
    fn cstr(&mut self) -> WResult<String> {
        let mut out = Vec::new();
        self.cstr_into(&mut out)?;
        Ok(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    /// The bytes of a zero-terminated string (without the zero) into `out`, read a
    /// buffer at a time rather than byte by byte.
    fn cstr_into(&mut self, out: &mut Vec<u8>) -> WResult<()> {
        out.clear();
        if self.discarding() {
            // up to the terminating zero, a buffer at a time, keeping nothing
            loop {
                let buf = self.r.fill_buf()?;
                if buf.is_empty() {
                    return Err(WireError::Io(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "truncated string")));
                }
                match buf.iter().position(|&b| b == 0) {
                    Some(k) => {
                        self.r.consume(k + 1);
                        return Ok(());
                    }
                    None => {
                        let k = buf.len();
                        self.r.consume(k);
                    }
                }
            }
        }
        let lim = self.budget;
        let n = (&mut *self.r).take(lim).read_until(0, out)?;
        if out.last() != Some(&0) {
            return if n as u64 >= lim {
                // over the limit inside a string: drop the rest of it and refuse
                self.refuse(OVER_LIMIT);
                out.clear();
                self.cstr_into(out)
            } else {
                Err(WireError::Io(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "truncated string")))
            };
        }
        self.budget -= n as u64;
        out.pop();
        Ok(())
    }

    /// One complete top-level object (symbol bases are scoped to it).
    pub fn object(&mut self) -> WResult<Value> {
        self.bases.clear();
        self.value()
    }

    fn value(&mut self) -> WResult<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return bad("serialized object nested too deeply");
        }
        let ty = self.u8()?;
        let form = self.u8()?;
        let v = self.value_body(ty, form);
        self.depth -= 1;
        // a refused request's values are placeholders: nothing of it is kept
        if self.discarding() { v.map(|_| Value::Void) } else { v }
    }

    fn value_body(&mut self, ty: u8, form: u8) -> WResult<Value> {
        match form {
            FORM_SCALAR => self.scalar(ty),
            FORM_VECTOR | FORM_PAIR => {
                let rows = self.count("row count")?;
                let cols = self.count("column count")?;
                if ty == TYPE_ANY {
                    let mut items = Vec::with_capacity(rows.min(1 << 16));
                    for _ in 0..rows {
                        items.push(self.value()?);
                    }
                    if form == FORM_PAIR {
                        self.refuse("a pair of ANY is not supported");
                    }
                    return Ok(Value::tuple(items));
                }
                if ty == TYPE_COMPRESS && form == FORM_VECTOR {
                    // rows is the compressed byte count here
                    return self.compressed(rows);
                }
                if (64..128).contains(&ty) {
                    let v = self.array_vector(ty - 64, rows, cols)?;
                    if form == FORM_PAIR {
                        self.refuse("a pair of array vectors is not supported");
                    }
                    return Ok(v);
                }
                if cols != 1 {
                    return bad(format!("vector with {cols} columns"));
                }
                let col = self.column(ty, rows)?;
                Ok(if form == FORM_PAIR {
                    if rows != 2 {
                        self.refuse("a pair must have two elements");
                    }
                    Value::Pair(col)
                } else {
                    Value::Vector(col)
                })
            }
            FORM_MATRIX => {
                let labels = self.u8()?;
                let row_labels = if labels & 1 != 0 { Some(Box::new(self.value()?)) } else { None };
                let col_labels = if labels & 2 != 0 { Some(Box::new(self.value()?)) } else { None };
                let ty2 = self.u8()?;
                let form2 = self.u8()?;
                if form2 != FORM_MATRIX || ty2 != ty {
                    return bad("matrix data does not repeat the matrix flag");
                }
                let rows = self.count("row count")?;
                let cols = self.count("column count")?;
                let n = rows.checked_mul(cols).ok_or_else(|| WireError::Bad("matrix too large".into()))?;
                // a DECIMAL matrix carries one scale word after its shape, as a vector does
                // after its length (PROTOCOL.md §5.6, §5.8)
                let data = self.column(ty, n)?;
                if self.discarding() {
                    return Ok(Value::Void);
                }
                Ok(Value::Matrix(Arc::new(Matrix { data, rows, cols, row_labels, col_labels, indexed: false })))
            }
            FORM_SET => {
                let v = self.value()?;
                match v {
                    Value::Vector(c) => Ok(beluga_runtime::eval::ops::make_set(c)),
                    _ => {
                        self.refuse("a set's keys must be a vector");
                        Ok(Value::Void)
                    }
                }
            }
            // a chart is encoded like a dictionary: read it to its end, then refuse it
            FORM_DICT | 7 => {
                let keys = self.value()?;
                let vals = self.value()?;
                if form == 7 {
                    self.refuse("charts cannot be uploaded");
                }
                match keys {
                    _ if self.discarding() => Ok(Value::Void),
                    Value::Vector(keys) => make_dict(keys, vals).or_else(|e| {
                        self.refuse(e.to_string());
                        Ok(Value::Void)
                    }),
                    _ => {
                        self.refuse("a dictionary's keys must be a vector");
                        Ok(Value::Void)
                    }
                }
            }
            FORM_TABLE => {
                let rows = self.count("row count")?;
                let ncols = self.count("column count")?;
                let name = self.cstr()?;
                let mut names = Vec::with_capacity(ncols.min(4096));
                for _ in 0..ncols {
                    names.push(self.cstr()?);
                }
                let mut cols = Vec::with_capacity(names.len());
                for n in &names {
                    let v = self.value()?;
                    if self.discarding() {
                        continue;
                    }
                    match v {
                        Value::Vector(c) if c.len() == rows => cols.push(c),
                        Value::Vector(c) => self.refuse(format!("column {n} has {} rows, the table {rows}", c.len())),
                        Value::ArrayVector(a) if a.rows() == rows => cols.push(Column::from_array(a)),
                        Value::ArrayVector(a) => self.refuse(format!("column {n} has {} rows, the table {rows}", a.rows())),
                        _ => self.refuse(format!("column {n} is not a vector")),
                    }
                }
                if self.discarding() {
                    return Ok(Value::Void);
                }
                let mut t = match Table::new(names, cols) {
                    Ok(t) => t,
                    Err(e) => {
                        self.refuse(e.message);
                        return Ok(Value::Void);
                    }
                };
                if !name.is_empty() {
                    t.name = Some(name);
                }
                Ok(Value::table(t))
            }
            f => bad(format!("unknown data form {f}")),
        }
    }

    fn scalar(&mut self, ty: u8) -> WResult<Value> {
        match ty {
            0 => {
                self.u8()?;
                Ok(Value::Void)
            }
            17 => Ok(Value::symbol(&self.cstr()?)),
            18 => Ok(Value::string(&self.cstr()?)),
            37..=39 => {
                let scale = self.i32()?;
                let c = self.decimal_column(ty, 1, scale)?;
                Ok(Value::Scalar(c))
            }
            _ => Ok(Value::Scalar(self.column(ty, 1)?)),
        }
    }

    /// `n` values of type `ty` (symbol vectors with base, strings, fixed widths).
    fn column(&mut self, ty: u8, n: usize) -> WResult<Column> {
        if ty == SYMBOL_WITH_BASE {
            let id = self.i32()?;
            let size = self.count("symbol base size")?;
            let dict = if size == 0 {
                match self.bases.get(&id) {
                    Some(d) => d.clone(),
                    None => {
                        self.refuse(format!("symbol base {id} was not sent before"));
                        Arc::new(SymbolDict::default())
                    }
                }
            } else {
                let mut d = SymbolDict::default();
                let mut map = Vec::with_capacity(size.min(1 << 20));
                for k in 0..size {
                    let s = self.cstr()?;
                    if k == 0 && !s.is_empty() {
                        self.refuse("A symbol base's first key must be empty string");
                    }
                    if !self.discarding() {
                        map.push(d.intern(&s));
                    }
                }
                // interned codes equal positions unless the base repeats a name
                if map.iter().enumerate().any(|(i, &c)| c as usize != i) {
                    self.refuse("a symbol base repeats a name");
                }
                let d = Arc::new(d);
                self.bases.insert(id, d.clone());
                d
            };
            let raw = match self.bulk(n.checked_mul(4).ok_or_else(|| WireError::Bad("vector too large".into()))?)? {
                Some(raw) => raw,
                None => return Ok(Column::new(DataType::Symbol, ColData::Sym(SymCol { codes: Vec::new(), dict }))),
            };
            let mut codes = Vec::with_capacity(n);
            for ch in raw.chunks_exact(4) {
                let c = u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]);
                if c as usize >= dict.names.len() {
                    self.refuse("symbol index outside its base");
                    break;
                }
                codes.push(c);
            }
            return Ok(Column::new(DataType::Symbol, ColData::Sym(SymCol { codes, dict })));
        }
        if (64..128).contains(&ty) {
            return bad(format!("array vector (type {ty}) where a plain vector was expected"));
        }
        if ty == TYPE_COMPRESS {
            return bad("a compressed vector where a plain one was expected");
        }
        if (37..=39).contains(&ty) {
            let scale = self.i32()?;
            return self.decimal_column(ty, n, scale);
        }
        if ty == TYPE_DATEMINUTE {
            // four bytes a value: read past them and refuse
            self.refuse("DATEMINUTE is not supported by Beluga");
            self.read_vec::<i32>(n)?;
            return Ok(Column::from_vec(DataType::Int, Vec::<i32>::new()));
        }
        let dt = match DataType::from_id(ty as i32) {
            Some(t) => t,
            None => return bad(format!("unknown data type {ty}")),
        };
        match ty {
            17 | 18 => {
                let mut s = StrCol::with_capacity(n.min(1 << 20), 0);
                let mut buf = Vec::new();
                for _ in 0..n {
                    self.cstr_into(&mut buf)?;
                    if self.discarding() {
                        continue;
                    }
                    match std::str::from_utf8(&buf) {
                        Ok(x) => s.push(x),
                        Err(_) => s.push(&String::from_utf8_lossy(&buf)),
                    }
                }
                Ok(Column::new(dt, ColData::Str(s)))
            }
            32 => {
                let mut s = StrCol::new();
                for _ in 0..n {
                    let len = self.count("blob length")?;
                    if let Some(b) = self.bulk(len)? {
                        s.push(&String::from_utf8_lossy(&b));
                    }
                }
                Ok(Column::new(dt, ColData::Str(s)))
            }
            1 | 2 => Ok(Column::from_vec(dt, self.read_vec::<i8>(n)?)),
            3 => Ok(Column::from_vec(dt, self.read_vec::<i16>(n)?)),
            4 | 6..=11 | 28 => Ok(Column::from_vec(dt, self.read_vec::<i32>(n)?)),
            5 | 12..=14 => Ok(Column::from_vec(dt, self.read_vec::<i64>(n)?)),
            15 => {
                let mut v = self.read_vec::<f32>(n)?;
                v.iter_mut().for_each(|x| *x = norm_f32(*x));
                Ok(Column::from_vec(dt, v))
            }
            16 => {
                let mut v = self.read_vec::<f64>(n)?;
                v.iter_mut().for_each(|x| *x = norm_f64(*x));
                Ok(Column::from_vec(dt, v))
            }
            // the wire's null 128-bit value is all zero, as Beluga's
            19 | 30 | 31 => Ok(Column::from_vec(dt, self.read_vec::<i128>(n)?)),
            _ => bad(format!("data type {} cannot be uploaded", dt.name())),
        }
    }

    /// An LZ4-compressed column (PROTOCOL.md §5.10; what `MultithreadedTableWriter` sends
    /// with `compressMethods`): the 20 header bytes after the column count, then blocks of
    /// int32 size (top bit a flag) + raw LZ4 block of at most 64 KiB of packed values.
    /// Decompressed bytes count against the request budget like received ones.
    fn compressed(&mut self, byte_size: usize) -> WResult<Value> {
        if byte_size < 20 {
            return bad("compressed column shorter than its header");
        }
        let h = self.bytes(20)?;
        let (method, ty) = (h[3], h[4]);
        let scale = i16::from_le_bytes([h[6], h[7]]) as i32;
        let count = i32::from_le_bytes([h[12], h[13], h[14], h[15]]);
        if count < 0 {
            return bad("compressed column with a negative row count");
        }
        // the byte size frames the column: what Beluga cannot read is skipped and refused
        if method != 1 {
            self.refuse(format!("compression method {method} is not supported (only LZ4, 1)"));
        }
        if ty == SYMBOL_WITH_BASE || ty == TYPE_COMPRESS || (64..128).contains(&ty) {
            self.refuse(format!("compressed columns of type {ty} are not supported"));
        }
        if self.discarding() {
            self.discard((byte_size - 20) as u64)?;
            return Ok(Value::Void);
        }
        let mut left = byte_size - 20;
        let mut plain = Vec::new();
        while left >= 4 {
            let n = ((self.i32()? as u32) & 0x7fff_ffff) as usize;
            left -= 4;
            let n = n.min(left);
            if n == 0 {
                break;
            }
            left -= n;
            let Some(z) = self.bulk(n)? else { continue };
            match lz4_flex::block::decompress(&z, 1 << 16) {
                Ok(block) => {
                    self.take(block.len() as u64)?;
                    if !self.discarding() {
                        plain.extend_from_slice(&block);
                    }
                }
                Err(e) => self.refuse(format!("bad LZ4 block in a compressed column: {e}")),
            }
        }
        if left != 0 {
            if left < 4 {
                self.discard(left as u64)?;
            }
            self.refuse("compressed column ends inside a block header");
        }
        if self.discarding() {
            return Ok(Value::Void);
        }
        let mut r = &plain[..];
        let mut sub = Decoder::new(&mut r, plain.len() as u64);
        let col = if (37..=39).contains(&ty) {
            sub.decimal_column(ty, count as usize, scale)
        } else {
            sub.column(ty, count as usize)
        };
        let sub_refused = sub.refused.take();
        match col {
            Ok(_) if !r.is_empty() => self.refuse("compressed column holds more bytes than its rows"),
            Ok(col) if sub_refused.is_none() => return Ok(Value::Vector(col)),
            Ok(_) => self.refuse(sub_refused.unwrap_or_default()),
            Err(e) => self.refuse(format!("a compressed column does not decode: {e}")),
        }
        Ok(Value::Void)
    }

    /// An array vector (PROTOCOL.md §5.7): blocks of at most 65535 rows, each with its row
    /// lengths then its cells; `cells` is the total the header announced.
    fn array_vector(&mut self, base: u8, rows: usize, cells: usize) -> WResult<Value> {
        if base == 17 || base == TYPE_ANY || base == TYPE_COMPRESS {
            return bad(format!("array vectors of type {base} are not supported"));
        }
        if matches!(base, 18 | 32) {
            // cells are strings, which the reader can step over: refuse, keep the stream
            self.refuse(format!("array vectors of type {} are not supported", if base == 18 { "STRING" } else { "BLOB" }));
        }
        let scale = if (37..=39).contains(&base) { Some(self.i32()?) } else { None };
        let mut offsets = Vec::with_capacity(rows.min(1 << 20) + 1);
        offsets.push(0usize);
        let mut parts: Vec<Column> = Vec::new();
        let mut total = 0usize;
        while offsets.len() <= rows {
            let head = self.bytes(4)?;
            let in_block = u16::from_le_bytes([head[0], head[1]]) as usize;
            let width = head[2] as usize;
            if in_block == 0 || in_block > rows + 1 - offsets.len() {
                return bad("array vector block has a bad row count");
            }
            if !matches!(width, 1 | 2 | 4) {
                return bad(format!("array vector count width {width} (expected 1, 2 or 4)"));
            }
            let raw = self.bytes(in_block * width)?;
            let mut n = 0usize;
            for ch in raw.chunks_exact(width) {
                let k = match width {
                    1 => ch[0] as usize,
                    2 => u16::from_le_bytes([ch[0], ch[1]]) as usize,
                    _ => u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]) as usize,
                };
                n += k;
                offsets.push(total + n);
            }
            if total + n > cells {
                return bad("array vector has more cells than its header says");
            }
            parts.push(match scale {
                Some(sc) => self.decimal_column(base, n, sc)?,
                None => self.column(base, n)?,
            });
            total += n;
        }
        if total != cells {
            return bad("array vector has fewer cells than its header says");
        }
        if self.discarding() {
            return Ok(Value::Void);
        }
        let ty = match parts.first() {
            Some(c) => c.ty,
            None => match scale {
                Some(sc) => self.decimal_column(base, 0, sc)?.ty,
                None => self.column(base, 0)?.ty,
            },
        };
        let data = if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            let refs: Vec<&Column> = parts.iter().collect();
            Column::concat(ty, &refs)
        };
        Ok(Value::ArrayVector(Arc::new(ArrayVec::new(offsets, data))))
    }

    /// `n` packed little-endian values straight into a typed vector.
    fn read_vec<T: Pod>(&mut self, n: usize) -> WResult<Vec<T>> {
        let w = std::mem::size_of::<T>();
        let total = n.checked_mul(w).ok_or_else(|| WireError::Bad("vector too large".into()))?;
        self.take(total as u64)?;
        if self.discarding() {
            self.discard(total as u64)?;
            return Ok(Vec::new());
        }
        let step = (READ_STEP_BYTES / w).max(1);
        let mut v: Vec<T> = Vec::new();
        while v.len() < n {
            let from = v.len();
            let k = (n - from).min(step);
            v.resize(from + k, T::default());
            // SAFETY: the region [from, from+k) is initialized (zeroed) plain values; any
            // bit pattern is a valid T, so reading bytes into it is sound
            let dst = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().add(from) as *mut u8, k * w) };
            self.r.read_exact(dst)?;
        }
        if cfg!(target_endian = "big") {
            v.iter_mut().for_each(|x| *x = x.swap_le());
        }
        Ok(v)
    }

    /// DECIMAL values arrive as unscaled integers with one scale word; Beluga keeps them
    /// as its own DECIMAL types (same widths, same null patterns: the type's minimum).
    fn decimal_column(&mut self, ty: u8, n: usize, scale: i32) -> WResult<Column> {
        let dt = match ty {
            37 => DataType::Decimal32(0),
            38 => DataType::Decimal64(0),
            _ => DataType::Decimal128(0),
        };
        if scale < 0 || scale > dt.decimal_max_scale() as i32 {
            // the width is known: read past the values and refuse
            self.refuse(format!("{} scale {scale} out of range (0 to {})", dt.name(), dt.decimal_max_scale()));
        }
        let dt = dt.with_scale(scale.clamp(0, dt.decimal_max_scale() as i32) as u8);
        Ok(match ty {
            37 => Column::from_vec(dt, self.read_vec::<i32>(n)?),
            38 => Column::from_vec(dt, self.read_vec::<i64>(n)?),
            _ => Column::from_vec(dt, self.read_vec::<i128>(n)?),
        })
    }
}

fn norm_f32(x: f32) -> f32 {
    if x.is_nan() { f32::NULL } else { x }
}
fn norm_f64(x: f64) -> f64 {
    if x.is_nan() { f64::NULL } else { x }
}
fn make_dict(keys: Column, vals: Value) -> WResult<Value> {
    let n = keys.len();
    let (vals, val_type) = match vals {
        Value::Vector(c) if c.len() == n => {
            let t = c.ty;
            (DictVals::Col(c), t)
        }
        Value::Tuple(items) if items.len() == n => (DictVals::Any(items.to_vec()), DataType::Any),
        _ => return bad("a dictionary's values must be a vector as long as its keys"),
    };
    let mut index = AHashMap::with_capacity(n);
    for i in 0..n {
        index.insert(Key::of(&keys, i), i);
    }
    if index.len() != n {
        return bad("a dictionary repeats a key");
    }
    let key_type = keys.ty;
    Ok(Value::Dict(Arc::new(Dict { keys, vals, index, ordered: false, key_type, val_type })))
}

// ----------------------------------------------------------------------------- encoding

/// Bytes gathered before they go to the socket in one write (streaming).
const FLUSH: usize = 1 << 20;
/// A block at least this long goes to the socket straight from the column (streaming).
const DIRECT: usize = 64 << 10;

/// Writes objects; symbol base ids are numbered per top-level object. By default the
/// bytes gather in `out`; after `stream_to` they go to the socket as they are made (every
/// `FLUSH` bytes, large column blocks straight from the column's memory), so the client
/// reads the first columns while later ones are encoded and no copy of the whole answer
/// exists.
pub struct Encoder<'a> {
    pub out: Vec<u8>,
    stream: Option<&'a mut dyn std::io::Write>,
    /// The first failed write while streaming (the rest of the answer was dropped).
    pub stream_err: Option<std::io::Error>,
    /// Blocks may go straight to the stream (off while `out` is being compressed).
    direct: bool,
    next_base: i32,
    /// The client asked for DECIMAL results as DOUBLE (request flag 1<<23).
    pub decimal_as_double: bool,
    /// The client accepts LZ4-compressed table columns (request flag 64).
    pub compress: bool,
    /// Text for values that have no wire form (functions, handles, metacode).
    pub describe: Box<dyn Fn(&Value) -> String>,
}

impl<'a> Encoder<'a> {
    pub fn new(describe: Box<dyn Fn(&Value) -> String>) -> Self {
        Encoder {
            out: Vec::new(),
            stream: None,
            stream_err: None,
            direct: true,
            next_base: 0,
            decimal_as_double: false,
            compress: false,
            describe,
        }
    }

    /// From now on write to `w` as the answer is made (what `out` holds goes first).
    pub fn stream_to(&mut self, w: &'a mut dyn std::io::Write) {
        self.stream = Some(w);
    }

    /// Send what `out` holds (streaming only); `out` is then empty.
    pub fn flush(&mut self) {
        if self.stream.is_some() && !self.out.is_empty() {
            let b = std::mem::take(&mut self.out);
            self.put(&b);
            self.out = b;
            self.out.clear();
        }
    }

    fn put(&mut self, b: &[u8]) {
        if self.stream_err.is_some() {
            return;
        }
        if let Some(w) = self.stream.as_mut() {
            if let Err(e) = w.write_all(b) {
                self.stream_err = Some(e);
            }
        }
    }

    /// Flush when enough has gathered.
    fn spill(&mut self) {
        if self.direct && self.stream.is_some() && self.out.len() >= FLUSH {
            self.flush();
        }
    }

    fn flag(&mut self, ty: u8, form: u8) {
        self.out.push(ty);
        self.out.push(form);
    }

    fn i32(&mut self, v: i32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn cstr(&mut self, s: &str) {
        // an embedded NUL would end the string early on the client: drop it
        if s.as_bytes().contains(&0) {
            self.out.extend(s.bytes().filter(|&b| b != 0));
        } else {
            self.out.extend_from_slice(s.as_bytes());
        }
        self.out.push(0);
    }

    /// One top-level object.
    pub fn object(&mut self, v: &Value) {
        self.next_base = 0;
        self.value(v);
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Void => {
                self.flag(0, FORM_SCALAR);
                self.out.push(1);
            }
            Value::Scalar(c) => self.scalar(c),
            Value::Vector(c) => self.vector(c, FORM_VECTOR),
            Value::Pair(c) => self.vector(c, FORM_PAIR),
            Value::Tuple(items) => {
                self.flag(TYPE_ANY, FORM_VECTOR);
                self.i32(items.len() as i32);
                self.i32(1);
                for it in items.iter() {
                    self.value(it);
                }
            }
            Value::Matrix(m) => {
                // DECIMAL keeps its type: one scale word after rows and cols (the official
                // clients read it there), unless the client asked for DOUBLE
                let data = self.wire_column(&m.data);
                let ty = wire_type(&data);
                self.flag(ty, FORM_MATRIX);
                let flags = m.row_labels.is_some() as u8 | ((m.col_labels.is_some() as u8) << 1);
                self.out.push(flags);
                if let Some(r) = &m.row_labels {
                    self.value(r);
                }
                if let Some(c) = &m.col_labels {
                    self.value(c);
                }
                self.flag(ty, FORM_MATRIX);
                self.i32(m.rows as i32);
                self.i32(m.cols as i32);
                if let Some(s) = data.ty.decimal_scale() {
                    self.i32(s as i32);
                }
                self.values(&data);
            }
            Value::Set(s) => {
                let items = self.wire_column(&s.items);
                self.flag(wire_type(&items), FORM_SET);
                self.vector(&items, FORM_VECTOR);
            }
            Value::Dict(d) => {
                let keys = self.wire_column(&d.keys);
                match &d.vals {
                    DictVals::Col(c) => {
                        let c = self.wire_column(c);
                        self.flag(wire_type(&c), FORM_DICT);
                        self.vector(&keys, FORM_VECTOR);
                        self.vector(&c, FORM_VECTOR);
                    }
                    DictVals::Any(items) => {
                        self.flag(TYPE_ANY, FORM_DICT);
                        self.vector(&keys, FORM_VECTOR);
                        self.value(&Value::tuple(items.clone()));
                    }
                }
            }
            Value::Table(t) => {
                self.flag(0, FORM_TABLE);
                self.i32(t.rows() as i32);
                self.i32(t.ncols() as i32);
                self.cstr(t.name.as_deref().unwrap_or(""));
                for n in &t.names {
                    self.cstr(n);
                }
                for c in &t.cols {
                    // an `ELEM[]` column goes as an array vector (PROTOCOL.md §5.7)
                    if let Some(a) = c.as_array() {
                        self.array_vector(a);
                        continue;
                    }
                    let c = self.wire_column(c);
                    if self.compress && compressible(&c) {
                        self.compressed_vector(&c);
                    } else {
                        self.vector(&c, FORM_VECTOR);
                    }
                    self.spill();
                }
            }
            Value::ArrayVector(a) => self.array_vector(a),
            Value::Type(t) => self.scalar(&Column::from_vec(DataType::Int, vec![t.id()])),
            Value::Constant(_, n) => self.scalar(&Column::from_vec(DataType::Int, vec![*n])),
            other => {
                let text = (self.describe)(other);
                self.flag(18, FORM_SCALAR);
                self.cstr(&text);
            }
        }
    }

    fn scalar(&mut self, c: &Column) {
        let c = self.wire_column(c);
        let ty = wire_type(&c);
        self.flag(ty, FORM_SCALAR);
        if let Some(s) = c.ty.decimal_scale() {
            self.i32(s as i32);
        }
        self.values(&c);
    }

    fn vector(&mut self, c: &Column, form: u8) {
        let c = self.wire_column(c);
        if let ColData::Sym(s) = &*c.data {
            if !s.codes.is_empty() {
                self.flag(SYMBOL_WITH_BASE, form);
                self.i32(s.codes.len() as i32);
                self.i32(1);
                self.symbol_base(s);
                return;
            }
        }
        // an empty symbol vector goes as plain type 17 (read as strings)
        self.flag(wire_type(&c), form);
        self.i32(c.len() as i32);
        self.i32(1);
        if let Some(s) = c.ty.decimal_scale() {
            self.i32(s as i32);
        }
        self.values(&c);
    }

    /// A table cut into pieces of at most `size` rows for a `fetchSize` request (PROTOCOL.md
    /// §3.3): an ANY vector header whose rows × cols is the number of pieces, then each
    /// piece as a complete table. The client reads the pieces one by one.
    pub fn blocks(&mut self, t: &Table, size: usize) {
        let size = size.max(1);
        let pieces = t.rows().div_ceil(size).max(1);
        self.flag(TYPE_ANY, FORM_VECTOR);
        self.i32(pieces as i32);
        self.i32(1);
        for k in 0..pieces {
            let (a, b) = (k * size, ((k + 1) * size).min(t.rows()));
            let cols: Vec<Column> = t.cols.iter().map(|c| c.slice(a, b)).collect();
            let piece = Table { names: t.names.clone(), cols, keys: Vec::new(), name: t.name.clone(), keyed: Default::default() };
            self.object(&Value::table(piece));
        }
    }

    /// A fixed-width column LZ4-compressed (PROTOCOL.md §5.10): `[26][1]`, int32 byteSize
    /// (the bytes after the next int32), int32 1, then version 0, little-endian 1, charCode
    /// -1, method 1 (LZ4), the real type, the unit width, int16 scale, int32 extra, int32
    /// rows, int32 checksum -1; then blocks of int32 size + raw LZ4 block, each holding at
    /// most 64 KiB of the packed values.
    fn compressed_vector(&mut self, c: &Column) {
        let start = self.out.len();
        let direct = std::mem::replace(&mut self.direct, false);
        self.values(c);
        self.direct = direct;
        let data = self.out.split_off(start);
        let unit = if c.is_empty() { 1 } else { data.len() / c.len() };
        self.flag(TYPE_COMPRESS, FORM_VECTOR);
        let size_at = self.out.len();
        self.i32(0);
        self.i32(1);
        self.out.extend_from_slice(&[0, 1, 0xff, 1, wire_type(c), unit as u8]);
        self.out.extend_from_slice(&(c.ty.decimal_scale().unwrap_or(0) as i16).to_le_bytes());
        self.i32(1);
        self.i32(c.len() as i32);
        self.i32(-1);
        for chunk in data.chunks(1 << 16) {
            let z = lz4_flex::block::compress(chunk);
            self.i32(z.len() as i32);
            self.out.extend_from_slice(&z);
        }
        let byte_size = (self.out.len() - size_at - 8) as i32;
        self.out[size_at..size_at + 4].copy_from_slice(&byte_size.to_le_bytes());
    }

    /// PROTOCOL.md §5.7: `[64+t][1] rows cells [scale]`, then blocks of ≤ 65535 rows, each
    /// `u16 rows, u8 countWidth, u8 0`, the row lengths, then the rows' cells packed.
    fn array_vector(&mut self, a: &ArrayVec) {
        let data = self.wire_column(&a.data);
        let rows = a.rows();
        self.flag(64 + wire_type(&data), FORM_VECTOR);
        self.i32(rows as i32);
        self.i32(data.len() as i32);
        if let Some(s) = data.ty.decimal_scale() {
            self.i32(s as i32);
        }
        let mut r = 0;
        while r < rows {
            let end = (r + 65535).min(rows);
            let longest = (r..end).map(|k| a.row_len(k)).max().unwrap_or(0);
            let width: usize = if longest <= 0xff { 1 } else if longest <= 0xffff { 2 } else { 4 };
            self.out.extend_from_slice(&((end - r) as u16).to_le_bytes());
            self.out.push(width as u8);
            self.out.push(0);
            for k in r..end {
                let n = a.row_len(k) as u32;
                self.out.extend_from_slice(&n.to_le_bytes()[..width]);
            }
            self.values(&data.slice(a.offsets[r], a.offsets[end]));
            r = end;
        }
    }

    fn symbol_base(&mut self, s: &SymCol) {
        let id = self.next_base;
        self.next_base += 1;
        self.i32(id);
        // the client wants "" first: shift codes when this base does not start with it
        let shift = !s.dict.names.first().is_some_and(|n| n.is_empty());
        self.i32((s.dict.names.len() + shift as usize) as i32);
        if shift {
            self.out.push(0);
        }
        for n in &s.dict.names {
            self.cstr(n);
        }
        if shift {
            let codes: Vec<u32> = s.codes.iter().map(|&c| c + 1).collect();
            self.raw(&codes);
        } else {
            self.raw(&s.codes);
        }
    }

    fn raw<T: Pod>(&mut self, v: &[T]) {
        if cfg!(target_endian = "little") {
            let b = pod_bytes(v);
            if self.direct && self.stream.is_some() && b.len() >= DIRECT {
                self.flush();
                self.put(b);
            } else {
                self.out.extend_from_slice(b);
            }
        } else {
            let le: Vec<T> = v.iter().map(|x| x.swap_le()).collect();
            self.out.extend_from_slice(pod_bytes(&le));
        }
    }

    /// The packed values of a column (no header): one copy per fixed-width column.
    fn values(&mut self, c: &Column) {
        match &*c.data {
            ColData::I8(v) => self.raw(v),
            ColData::I16(v) => self.raw(v),
            ColData::I32(v) => self.raw(v),
            ColData::I64(v) => self.raw(v),
            // NaN is not null on the wire: replace it only when the column has one
            ColData::F32(v) if v.iter().any(|x| x.is_nan()) => {
                let w: Vec<f32> = v.iter().map(|&x| norm_f32(x)).collect();
                self.raw(&w)
            }
            ColData::F32(v) => self.raw(v),
            ColData::F64(v) if v.iter().any(|x| x.is_nan()) => {
                let w: Vec<f64> = v.iter().map(|&x| norm_f64(x)).collect();
                self.raw(&w)
            }
            ColData::F64(v) => self.raw(v),
            // UUID/INT128/IPADDR null is 0 in both; DECIMAL128 null is i128::MIN in both
            ColData::I128(v) => self.raw(v),
            // array columns are written by `array_vector`, never as packed values
            ColData::Array(a) => self.values(&a.data),
            ColData::Str(s) if c.ty == DataType::Blob => {
                for (k, x) in s.iter().enumerate() {
                    self.i32(x.len() as i32);
                    self.out.extend_from_slice(x.as_bytes());
                    if k % 4096 == 4095 {
                        self.spill();
                    }
                }
            }
            ColData::Str(s) => {
                for (k, x) in s.iter().enumerate() {
                    self.cstr(x);
                    if k % 4096 == 4095 {
                        self.spill();
                    }
                }
            }
            ColData::Sym(s) => {
                for i in 0..s.codes.len() {
                    self.cstr(s.get(i));
                    if i % 4096 == 4095 {
                        self.spill();
                    }
                }
            }
        }
    }
}

impl Encoder<'_> {
    /// The column as the wire carries it: types the protocol has no id for travel as
    /// STRING; DECIMAL keeps its type unless the client asked for DOUBLE.
    fn wire_column(&self, c: &Column) -> Column {
        use beluga_runtime::kernels::cast::cast_column;
        match c.ty {
            DataType::Decimal32(_) | DataType::Decimal64(_) | DataType::Decimal128(_) if self.decimal_as_double => {
                plain_column(c)
            }
            DataType::Complex | DataType::Point | DataType::Duration | DataType::Any => {
                cast_column(c, DataType::String).unwrap_or_else(|_| c.clone())
            }
            _ => c.clone(),
        }
    }
}

/// Columns sent compressed when the client asks: plain fixed-width types (symbols and
/// strings are not allowed compressed; DECIMAL goes plain to keep its scale word).
fn compressible(c: &Column) -> bool {
    !c.is_empty()
        && c.ty.decimal_scale().is_none()
        && !matches!(&*c.data, ColData::Str(_) | ColData::Sym(_))
        && (c.ty.id() as u8) < TYPE_ANY
}

/// DECIMAL as DOUBLE (the client asked for `disableDecimal`).
fn plain_column(c: &Column) -> Column {
    if c.ty.decimal_scale().is_some() {
        beluga_runtime::kernels::cast::cast_column(c, DataType::Double).unwrap_or_else(|_| c.clone())
    } else {
        c.clone()
    }
}

fn wire_type(c: &Column) -> u8 {
    match &*c.data {
        // a column whose type id the wire does not know is sent by its storage
        ColData::Str(_) if !matches!(c.ty, DataType::String | DataType::Blob | DataType::Symbol) => 18,
        _ => c.ty.id() as u8,
    }
}

/// A set value, for tests.
pub fn set_items(v: &Value) -> Option<&SetVal> {
    match v {
        Value::Set(s) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(v: &Value) -> Value {
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(v);
        let bytes = e.out;
        let mut r = &bytes[..];
        let mut d = Decoder::new(&mut r, 1 << 30);
        let back = d.object().expect("decodes");
        assert!(r.is_empty(), "decoder left {} bytes", r.len());
        back
    }

    #[test]
    fn uuid_bytes_are_little_endian() {
        // PROTOCOL.md §5.3: 5d212a78-cc48-e3b1-4235-b4d91473ee87
        let x = 0x5d212a78_cc48_e3b1_4235_b4d91473ee87u128 as i128;
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(&Value::Scalar(Column::from_vec(DataType::Uuid, vec![x])));
        assert_eq!(&e.out[..4], &[19, 0, 0x87, 0xee]);
        assert_eq!(e.out[17], 0x5d);
    }

    #[test]
    fn symbol_vector_has_empty_first_key() {
        let v = Value::Vector(Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(["x", "y", "x", ""]))));
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(&v);
        // [145][1] rows=4 cols=1 id=0 size then "" first
        assert_eq!(&e.out[..2], &[145, 1]);
        assert_eq!(&e.out[2..6], &4i32.to_le_bytes());
        assert_eq!(e.out[18], 0);
        match roundtrip(&v) {
            Value::Vector(c) => {
                let s: Vec<String> = (0..4).map(|i| match &*c.data {
                    ColData::Sym(s) => s.get(i).to_string(),
                    _ => panic!("not a symbol column"),
                }).collect();
                assert_eq!(s, ["x", "y", "x", ""]);
            }
            _ => panic!("not a vector"),
        }
    }

    #[test]
    fn table_and_tuple_roundtrip() {
        let t = Table::new(
            vec!["a".into(), "b".into()],
            vec![Column::from_vec(DataType::Int, vec![1, i32::MIN]), Column::from_vec(DataType::Double, vec![1.5, f64::NULL])],
        )
        .unwrap();
        let v = Value::tuple(vec![Value::table(t), Value::string("s"), Value::Void]);
        match roundtrip(&v) {
            Value::Tuple(items) => {
                assert_eq!(items.len(), 3);
                match &items[0] {
                    Value::Table(t) => {
                        assert_eq!(t.names, ["a", "b"]);
                        assert!(t.cols[0].is_null(1) && t.cols[1].is_null(1));
                    }
                    _ => panic!("first item is not a table"),
                }
            }
            _ => panic!("not a tuple"),
        }
    }

    #[test]
    fn decimal_keeps_scale_and_nulls() {
        // PROTOCOL.md §5.6: [38][1] rows cols scale, then the unscaled values
        let c = Column::from_vec(DataType::Decimal64(2), vec![12345i64, i64::MIN, -5]);
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(&Value::Vector(c));
        assert_eq!(&e.out[..2], &[38, 1]);
        assert_eq!(&e.out[10..14], &2i32.to_le_bytes());
        assert_eq!(&e.out[14..22], &12345i64.to_le_bytes());
        for v in [
            Value::Vector(Column::from_vec(DataType::Decimal32(4), vec![1i32, i32::MIN])),
            Value::Scalar(Column::from_vec(DataType::Decimal128(30), vec![0i128])),
            Value::Vector(Column::from_vec(DataType::Decimal128(3), vec![i128::MIN, 7])),
        ] {
            let back = roundtrip(&v);
            let (a, b) = match (&v, &back) {
                (Value::Vector(a), Value::Vector(b)) | (Value::Scalar(a), Value::Scalar(b)) => (a, b),
                _ => panic!("form changed"),
            };
            assert_eq!(a.ty, b.ty);
            assert_eq!(format!("{:?}", a.data), format!("{:?}", b.data));
        }
        // a scale past the width's maximum is refused (its value read past, not kept)
        let mut bad = vec![37u8, 0];
        bad.extend_from_slice(&10i32.to_le_bytes());
        bad.extend_from_slice(&1i32.to_le_bytes());
        let mut r = &bad[..];
        let mut d = Decoder::new(&mut r, 1 << 20);
        assert!(matches!(d.object(), Ok(Value::Void)));
        assert!(d.refused.as_deref().is_some_and(|m| m.contains("scale 10")), "{:?}", d.refused);
        assert!(r.is_empty());
    }

    #[test]
    fn decimal_matrix_keeps_type_and_scale() {
        // [38][3] labels, [38][3] rows cols, then one scale word and the unscaled values,
        // column-major (the layout the JS client 3.1.48 reads back as DECIMAL64 scale 2)
        let data = Column::from_vec(DataType::Decimal64(2), vec![125i64, 250, 375, i64::MIN]);
        let m = Value::Matrix(Arc::new(Matrix { data, rows: 2, cols: 2, row_labels: None, col_labels: None, indexed: false }));
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(&m);
        assert_eq!(&e.out[..5], &[38, 3, 0, 38, 3]);
        assert_eq!(&e.out[5..13], &[2, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(&e.out[13..17], &2i32.to_le_bytes());
        assert_eq!(&e.out[17..25], &125i64.to_le_bytes());
        assert_eq!(e.out.len(), 17 + 32);
        match roundtrip(&m) {
            Value::Matrix(b) => {
                assert_eq!((b.rows, b.cols, b.data.ty), (2, 2, DataType::Decimal64(2)));
                assert_eq!(format!("{:?}", b.data.data), format!("{:?}", ColData::I64(vec![125, 250, 375, i64::MIN])));
            }
            _ => panic!("not a matrix"),
        }
        // disableDecimal: DOUBLE, no scale word
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.decimal_as_double = true;
        e.object(&m);
        assert_eq!(&e.out[..5], &[16, 3, 0, 16, 3]);
        assert_eq!(&e.out[13..21], &1.25f64.to_le_bytes());
    }

    #[test]
    fn refused_values_are_read_to_their_end() {
        // a table holding an unsupported DATEMINUTE column, then an INT scalar: the first
        // object is refused but read past, so the second one decodes in step
        let mut b = vec![0u8, 6];
        b.extend_from_slice(&2i32.to_le_bytes());
        b.extend_from_slice(&2i32.to_le_bytes());
        b.extend_from_slice(b"\0a\0m\0");
        b.extend_from_slice(&[4, 1, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
        b.extend_from_slice(&[29, 1, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
        b.extend_from_slice(&[4, 0, 7, 0, 0, 0]);
        let mut r = &b[..];
        let mut d = Decoder::new(&mut r, 1 << 20);
        assert!(matches!(d.object(), Ok(Value::Void)));
        assert!(d.refused.as_deref().is_some_and(|m| m.contains("DATEMINUTE")));
        // still discarding: the next object is read but not kept
        assert!(matches!(d.object(), Ok(Value::Void)));
        assert!(r.is_empty());
        // over the budget: a 1000-row LONG vector against 100 bytes, then the rest is consumed
        let v = Value::Vector(Column::from_vec(DataType::Long, (0..1000i64).collect::<Vec<i64>>()));
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(&v);
        e.object(&Value::string("tail"));
        let mut r = &e.out[..];
        let mut d = Decoder::new(&mut r, 100);
        assert!(matches!(d.object(), Ok(Value::Void)));
        assert!(matches!(d.object(), Ok(Value::Void)));
        assert!(d.refused.as_deref().is_some_and(|m| m.contains("maximum request size")));
        assert!(r.is_empty(), "{} bytes left", r.len());
    }

    #[test]
    fn array_vector_layout_and_roundtrip() {
        // PROTOCOL.md §5.7's example: INT[] [[1,2],[3],[NULL]] as one block
        let av = ArrayVec::new(vec![0, 2, 3, 4], Column::from_vec(DataType::Int, vec![1, 2, 3, i32::MIN]));
        let v = Value::ArrayVector(Arc::new(av));
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(&v);
        assert_eq!(&e.out[..2], &[68, 1]);
        assert_eq!(&e.out[2..10], &[3, 0, 0, 0, 4, 0, 0, 0]);
        assert_eq!(&e.out[10..17], &[3, 0, 1, 0, 2, 1, 1]);
        assert_eq!(e.out.len(), 17 + 16);
        match roundtrip(&v) {
            Value::ArrayVector(b) => {
                assert_eq!(b.offsets, vec![0, 2, 3, 4]);
                assert_eq!(format!("{:?}", b.data.data), format!("{:?}", ColData::I32(vec![1, 2, 3, i32::MIN])));
            }
            _ => panic!("not an array vector"),
        }
        // 70000 rows of growing length: two blocks, wider counts, empty rows included
        let mut offsets = vec![0usize];
        for r in 0..70000usize {
            offsets.push(offsets[r] + if r % 1000 == 7 { 300 } else { r % 3 });
        }
        let cells = *offsets.last().unwrap();
        let data = Column::from_vec(DataType::Long, (0..cells as i64).collect::<Vec<i64>>());
        let v = Value::ArrayVector(Arc::new(ArrayVec::new(offsets.clone(), data)));
        match roundtrip(&v) {
            Value::ArrayVector(b) => {
                assert_eq!(b.offsets, offsets);
                assert_eq!(b.data.len(), cells);
                assert_eq!(b.data.i64_at(cells - 1), Some(cells as i64 - 1));
            }
            _ => panic!("not an array vector"),
        }
        // cell counts that disagree with the header are refused
        let mut bad = e.out.clone();
        bad[6] = 5;
        assert!(Decoder::new(&mut &bad[..], 1 << 20).object().is_err());
    }

    #[test]
    fn compressed_table_columns_and_blocks() {
        let n = 100_000;
        let t = Table::new(
            vec!["x".into(), "s".into(), "d".into()],
            vec![
                Column::from_vec(DataType::Long, (0..n as i64).collect::<Vec<i64>>()),
                Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter((0..n).map(|i| if i % 2 == 0 { "a" } else { "b" })))),
                Column::from_vec(DataType::Double, (0..n).map(|i| i as f64 * 0.5).collect::<Vec<f64>>()),
            ],
        )
        .unwrap();
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.compress = true;
        e.object(&Value::table(t.clone()));
        // the LONG column went compressed: [26][1] right after the names
        let at = 2 + 8 + 1 + 2 + 2 + 2;
        assert_eq!(&e.out[at..at + 2], &[TYPE_COMPRESS, FORM_VECTOR]);
        assert!(e.out.len() < n * 20, "compressed size {}", e.out.len());
        let mut r = &e.out[..];
        match Decoder::new(&mut r, 1 << 30).object().expect("decodes") {
            Value::Table(b) => {
                assert_eq!(b.rows(), n);
                assert_eq!(b.cols[0].i64_at(n - 1), Some(n as i64 - 1));
                assert_eq!(b.cols[2].f64_at(7), Some(3.5));
            }
            _ => panic!("not a table"),
        }
        // fetchSize pieces: 3 tables of 40000, 40000, 20000 rows
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.blocks(&t, 40_000);
        assert_eq!(&e.out[..10], &[25, 1, 3, 0, 0, 0, 1, 0, 0, 0]);
        let mut r = &e.out[10..];
        let mut rows = vec![];
        for _ in 0..3 {
            match Decoder::new(&mut r, 1 << 30).object().expect("piece") {
                Value::Table(p) => rows.push(p.rows()),
                _ => panic!("piece is not a table"),
            }
        }
        assert_eq!(rows, [40_000, 40_000, 20_000]);
        assert!(r.is_empty());
    }

    #[test]
    fn truncated_and_hostile_input_is_an_error() {
        let t = Value::Vector(Column::from_vec(DataType::Long, vec![1i64, 2, 3]));
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(&t);
        for cut in 0..e.out.len() {
            let mut r = &e.out[..cut];
            assert!(Decoder::new(&mut r, 1 << 20).object().is_err(), "cut at {cut}");
        }
        // a vector claiming 2^31-1 rows is refused by the budget before allocating
        let mut big = vec![5u8, 1];
        big.extend_from_slice(&i32::MAX.to_le_bytes());
        big.extend_from_slice(&1i32.to_le_bytes());
        let mut r = &big[..];
        assert!(Decoder::new(&mut r, 1 << 20).object().is_err());
        // unknown forms and types
        for bytes in [[200u8, 0, 0, 0], [4, 9, 0, 0], [4, 1, 255, 255]] {
            let mut r = &bytes[..];
            assert!(Decoder::new(&mut r, 1 << 20).object().is_err());
        }
    }
}

#[cfg(test)]
mod every_type_and_form {
    //! Every data type the wire carries, in every form it can take (scalar, null scalar,
    //! vector with a null, pair, matrix, set, dictionary, table, tuple, array vector), made
    //! by real scripts and sent through the encoder then the decoder: the decoded value
    //! must be the same object (`eqObj` in the interpreter, the same `typestr`) and encode
    //! to the same bytes. The bytes themselves are checked against the real clients in
    //! tests/api/ddb_client_test.py and tests/api/ddb_js_client_test.mjs.
    use super::*;
    use beluga_runtime::Interpreter;

    fn eval(i: &mut Interpreter, src: &str) -> Value {
        let mut last = Value::Void;
        let mut keep = |_: &mut Interpreter, v: Value| last = v;
        i.run_source(src, Some(&mut keep)).unwrap_or_else(|e| panic!("{src}: {e}"));
        last
    }

    fn encode(v: &Value) -> Vec<u8> {
        let mut e = Encoder::new(Box::new(|_| String::new()));
        e.object(v);
        e.out
    }

    /// (type, a non-null scalar, another one): the values the forms are built from.
    const TYPES: &[(&str, &str, &str)] = &[
        ("BOOL", "true", "false"),
        ("CHAR", "'a'", "'z'"),
        ("SHORT", "3h", "-7h"),
        ("INT", "42", "-1"),
        ("LONG", "3000000000l", "-5l"),
        ("FLOAT", "1.5f", "-2.25f"),
        ("DOUBLE", "3.125", "-0.5"),
        ("STRING", "\"abc\"", "\"\""),
        ("SYMBOL", "symbol([\"x\"])[0]", "symbol([\"y\"])[0]"),
        ("DATE", "2024.01.08", "1969.12.31"),
        ("MONTH", "2024.03M", "1999.12M"),
        ("TIME", "13:30:10.008", "00:00:00.001"),
        ("MINUTE", "13:30m", "00:01m"),
        ("SECOND", "13:30:10", "23:59:59"),
        ("DATETIME", "2012.06.13T13:30:10", "1970.01.01T00:00:01"),
        ("TIMESTAMP", "2012.06.13T13:30:10.008", "1960.01.01T00:00:00.001"),
        ("NANOTIME", "13:30:10.008007006", "00:00:00.000000001"),
        ("NANOTIMESTAMP", "2012.06.13T13:30:10.008007006", "2262.01.01T00:00:00.000000001"),
        ("DATEHOUR", "datehour(2024.01.01T13:00:00)", "datehour(1970.01.01T00:00:00)"),
        ("UUID", "uuid(\"5d212a78-cc48-e3b1-4235-b4d91473ee87\")", "uuid(\"00000000-0000-0000-0000-000000000001\")"),
        ("IPADDR", "ipaddr(\"192.168.1.13\")", "ipaddr(\"10.0.0.1\")"),
        ("INT128", "int128(\"e1671797c52e15f763380b45e841ec32\")", "int128(\"00000000000000000000000000000002\")"),
        ("BLOB", "blob(\"bytes\")", "blob(\"\")"),
        ("DECIMAL32", "decimal32(1.25, 2)", "decimal32(-3.5, 2)"),
        ("DECIMAL64", "decimal64(123.456, 3)", "decimal64(-0.001, 3)"),
        ("DECIMAL128", "decimal128(\"12345678901234567890.12\", 2)", "decimal128(0, 2)"),
    ];

    fn check(i: &mut Interpreter, what: &str, src: &str) {
        let v = eval(i, src);
        let bytes = encode(&v);
        let mut r = &bytes[..];
        let mut d = Decoder::new(&mut r, 1 << 30);
        let back = d.object().unwrap_or_else(|e| panic!("{what}: {src}: does not decode: {e:?}"));
        assert!(d.refused.is_none(), "{what}: {src}: refused: {:?}", d.refused);
        assert!(r.is_empty(), "{what}: {src}: {} bytes left after the object", r.len());
        assert_eq!(encode(&back), bytes, "{what}: {src}: encodes differently after the round trip");
        i.set_var("origV", v).unwrap();
        i.set_var("backV", back).unwrap();
        let same = eval(i, "[string(typestr(origV)) == string(typestr(backV)), eqObj(origV, backV)]");
        assert_eq!(format!("{same:?}"), format!("{:?}", eval(i, "[true, true]")), "{what}: {src}: {} / {}", eval_text(i, "origV"), eval_text(i, "backV"));
    }

    fn eval_text(i: &mut Interpreter, name: &str) -> String {
        format!("{:?}", eval(i, &format!("string({name})")))
    }

    #[test]
    fn every_type_in_every_form_round_trips() {
        let (full, _) = crate::session::registries();
        let mut i = Interpreter::with_registry(full);
        let numeric = |t: &str| !matches!(t, "STRING" | "SYMBOL" | "BLOB" | "UUID" | "IPADDR" | "INT128");
        for &(t, a, b) in TYPES {
            check(&mut i, t, a);
            check(&mut i, &format!("{t} null scalar"), &format!("y = take({a}, 1); y[0] = NULL; y[0]"));
            let vec3 = format!("v = [{a}, {b}, {a}]; v[1] = NULL; v");
            check(&mut i, &format!("{t} vector with a null"), &vec3);
            check(&mut i, &format!("{t} empty vector"), &format!("take({a}, 0)"));
            check(&mut i, &format!("{t} table"), &format!("{vec3}; table(v as c, v as d)"));
            check(&mut i, &format!("{t} tuple"), &format!("{vec3}; ({a}, v, (1, {b}))"));
            if t != "BLOB" && !t.starts_with("DECIMAL") {
                check(&mut i, &format!("{t} set"), &format!("set([{a}, {b}])"));
                check(&mut i, &format!("{t} dictionary keys"), &format!("dict([{a}, {b}], [1, 2])"));
            }
            check(&mut i, &format!("{t} dictionary values"), &format!("dict(`k1`k2, [{a}, {b}])"));
            if numeric(t) && !t.starts_with("DECIMAL") {
                check(&mut i, &format!("{t} pair"), &format!("{a} : {b}"));
                check(&mut i, &format!("{t} matrix"), &format!("{vec3}; m = matrix(v, v); m"));
                check(&mut i, &format!("{t} array vector"), &format!("arrayVector(1 3, [{a}, {b}, {a}])"));
            }
        }
        check(&mut i, "symbol vector sharing a base in a table", "table(symbol(`a`b`a) as s, symbol(`c`a`c) as t)");
        check(&mut i, "labelled matrix", "m = matrix(1.5 2.5, 3.5 4.5); m.rename!(`r1`r2, `c1`c2); m");
        check(&mut i, "VOID", "NULL");
    }
}
