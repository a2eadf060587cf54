//! The pickle result encoding (PROTOCOL.md §5.11): when a Python session asks for
//! `protocol=PROTOCOL_PICKLE` (request flag 8), a table result goes as a Python pickle
//! stream that the client unpickles straight into a pandas DataFrame, instead of the
//! DolphinDB encoding that the client turns into Python objects cell by cell.
//!
//! Why: a trading day arrives faster this way than `pickle.load` reads the same frame from
//! disk, because every column is one block of bytes the unpickler hands to numpy as is:
//! - numeric and temporal columns are `numpy.ndarray` objects rebuilt by `__setstate__`
//!   from one bytes object (the same form numpy's own pickles have);
//! - SYMBOL columns become `pandas.Categorical.from_codes(codes, categories)` (categories
//!   an object Index of the symbols the column uses), the form the benchmark's pickled
//!   frame has;
//! - STRING columns become object arrays: `numpy.take(distinct strings, codes)` when values
//!   repeat, else a plain list of strings.
//!
//! - columns of at least `COMPACT_ROWS` rows travel compacted, because the transfer is
//!   most of the time a day takes (the client's own work on the stream is small beside
//!   it): integers whose range fits a narrower type go narrow and the client widens them
//!   (`numpy.asarray(a, dtype)`, one pass that also replaces the copy out of the bytes
//!   object); a column of one repeated value is `numpy.repeat(value, n)`; temporal
//!   columns go in their own unit (4 bytes for DATE/SECOND/…, not 8) and the client
//!   scales them to nanoseconds (`numpy.multiply(a, [unit])` in int64, viewed as
//!   datetime64[ns] by `numpy.ndarray(shape, dtype, buffer)`, no copy); DOUBLE columns of
//!   decimals with few places (prices) go as integers plus the few exceptions, and the
//!   client divides (`numpy.divide`, then `numpy.put` of the exceptions), bitwise the same
//!   values. Every array the client ends with is writable and has the dtype the plain
//!   form gives.
//!
//! Only public, long-standing callables are named (`numpy.ndarray`, `numpy.dtype`,
//! `numpy.take`, `numpy.array`, `numpy.asarray`, `numpy.repeat`, `numpy.multiply`,
//! `numpy.divide`, `numpy.put`, `pandas.DataFrame`, `pandas.Index`, `pandas.Series`,
//! `pandas.Categorical.from_codes`), so the stream loads on any numpy/pandas the client
//! has. Column types follow the DolphinDB manual's PROTOCOL_PICKLE page (api/python/
//! AdvancedOperations/DataTypeCasting/PROTOCOL_PICKLE.md): integer columns with nulls
//! become float64 with NaN, every temporal type datetime64[ns], BOOL with nulls object.
//! Types that page excludes (DECIMAL, BLOB, UUID/IPADDR/INT128, array vectors, other
//! forms) return None, and the server sends the ordinary encoding, which the client also
//! reads (it takes the pickle path only when the form byte has bit 0x20).

use ahash::AHashMap;
use beluga_runtime::column::{ColData, Column, StrCol, SymCol};
use beluga_runtime::table::Table;
use beluga_runtime::types::DataType;
use std::io::{self, Write};

/// Bit 0x20 of the form byte: a pickle stream follows the flag word.
pub const FORM_PICKLED: u8 = 0x20;
const FORM_TABLE: u8 = 6;

// pickle opcodes (protocol 4; CPython's Lib/pickletools.py documents each)
const PROTO: u8 = 0x80;
const STOP: u8 = b'.';
const MARK: u8 = b'(';
const TUPLE: u8 = b't';
const TUPLE1: u8 = 0x85;
const TUPLE2: u8 = 0x86;
const REDUCE: u8 = b'R';
const BUILD: u8 = b'b';
const NONE: u8 = b'N';
const NEWFALSE: u8 = 0x89;
const BININT: u8 = b'J';
const BININT1: u8 = b'K';
const BINBYTES: u8 = b'B';
const BINBYTES8: u8 = 0x8e;
const SHORT_BINUNICODE: u8 = 0x8c;
const BINUNICODE: u8 = b'X';
const STACK_GLOBAL: u8 = 0x93;
const EMPTY_DICT: u8 = b'}';
const SETITEMS: u8 = b'u';
const EMPTY_LIST: u8 = b']';
const APPENDS: u8 = b'e';

const POP: u8 = b'0';
const LONG_BINPUT: u8 = b'r';
const LONG_BINGET: u8 = b'j';
const TUPLE3: u8 = 0x87;

/// Columns shorter than this travel plain (compaction saves little there).
const COMPACT_ROWS: usize = 4096;

/// Which compactions a stream uses. Each trades bytes on the wire for a pass on the
/// client (a cast, a multiply, a divide into fresh memory). Over loopback the bytes are
/// cheap (the client's receive is one copy, and a plain column's array adopts the
/// received buffer without another) and the extra passes cost more CPU than they save,
/// so only narrow integers and repeated values are used; over a real network the bytes
/// are the cost, so everything is (measured in tests/bench/api/README.md, sixth run).
/// `BELUGA_PICKLE_COMPACT` (letters `i` narrow integers, `t` temporal units, `d` decimal
/// doubles, `r` repeated values) overrides both.
#[derive(Clone, Copy, Debug)]
pub struct Compact {
    pub ints: bool,
    pub temporal: bool,
    pub decimals: bool,
    pub repeats: bool,
}

impl Compact {
    pub fn for_peer(loopback: bool) -> Compact {
        static ENV: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        let letters = match ENV.get_or_init(|| std::env::var("BELUGA_PICKLE_COMPACT").ok()) {
            Some(s) => s.as_str(),
            None if loopback => "ir",
            None => "itdr",
        };
        Compact::of(letters)
    }

    fn of(letters: &str) -> Compact {
        Compact {
            ints: letters.contains('i'),
            temporal: letters.contains('t'),
            decimals: letters.contains('d'),
            repeats: letters.contains('r'),
        }
    }
}

/// Items per MARK … APPENDS batch in a list of strings (CPython's pickler uses 1000).
const BATCH: usize = 1000;

/// The whole result object for a table: flag word `[0][6|0x20]`, then the pickle stream
/// of a DataFrame (or, with `as_list`, of a list of numpy arrays, the client's
/// `pickleTableToList`). None when a column has a type the pickle form does not carry
/// (checked before anything is written). With `stream`, whatever `out` holds and the
/// stream go to it as they are made (`out` is then left empty, a scratch buffer); the
/// result is the first write error.
pub fn table<'a>(
    out: &'a mut Vec<u8>,
    stream: Option<&'a mut dyn Write>,
    t: &Table,
    as_list: bool,
    compact: Compact,
) -> Option<io::Result<()>> {
    if t.cols.is_empty() || !t.cols.iter().all(supported) {
        return None;
    }
    let mut p = Pickler { out: Sink::new(out, stream), memo: 0, compact };
    p.out.extend_from_slice(&[0, FORM_TABLE | FORM_PICKLED, PROTO, 4]);
    if as_list {
        p.out.push(EMPTY_LIST);
        p.out.push(MARK);
        for c in &t.cols {
            p.column(c, true);
        }
        p.out.push(APPENDS);
    } else {
        // pandas.DataFrame(data, index=None, columns=None, dtype=None, copy=False): no
        // copy and no consolidation of the columns the stream already built
        p.global("pandas", "DataFrame");
        p.out.push(MARK);
        p.out.push(EMPTY_DICT);
        p.out.push(MARK);
        for (name, c) in t.names.iter().zip(&t.cols) {
            p.text(name);
            p.column(c, false);
        }
        p.out.push(SETITEMS);
        p.out.extend_from_slice(&[NONE, NONE, NONE, NEWFALSE, TUPLE, REDUCE]);
    }
    p.out.push(STOP);
    p.out.flush();
    Some(match p.out.err.take() {
        Some(e) => Err(e),
        None => Ok(()),
    })
}

/// Bytes gathered before they go to the socket in one write.
const FLUSH: usize = 1 << 20;
/// A block at least this long (a column's data) goes to the socket straight from the
/// column, not through the buffer.
const DIRECT: usize = 64 << 10;

/// Where the stream goes: a buffer that, when streaming, is written to the socket every
/// `FLUSH` bytes, with column blocks written from their own memory. Why: the client starts
/// unpickling the first columns while later ones are still being encoded, and no copy of
/// the whole answer is made. Without a stream everything stays in the buffer (a WebSocket
/// message needs its length first).
pub(crate) struct Sink<'a> {
    buf: &'a mut Vec<u8>,
    w: Option<&'a mut dyn Write>,
    err: Option<io::Error>,
    /// Bytes written so far (buffered or sent).
    total: usize,
}

impl<'a> Sink<'a> {
    pub(crate) fn new(buf: &'a mut Vec<u8>, w: Option<&'a mut dyn Write>) -> Self {
        let total = buf.len();
        Sink { buf, w, err: None, total }
    }

    fn push(&mut self, b: u8) {
        self.buf.push(b);
        self.total += 1;
    }

    fn extend_from_slice(&mut self, b: &[u8]) {
        self.total += b.len();
        if self.w.is_some() && b.len() >= DIRECT {
            self.flush();
            put(&mut self.w, &mut self.err, b);
        } else {
            self.buf.extend_from_slice(b);
            if self.w.is_some() && self.buf.len() >= FLUSH {
                self.flush();
            }
        }
    }

    /// Send what the buffer holds (streaming only).
    fn flush(&mut self) {
        if self.w.is_some() && !self.buf.is_empty() {
            put(&mut self.w, &mut self.err, self.buf);
            self.buf.clear();
        }
    }
}

/// Write to the socket unless an earlier write failed (the client went away: the rest of
/// the answer is dropped, and the caller closes the connection).
fn put(w: &mut Option<&mut dyn Write>, err: &mut Option<io::Error>, b: &[u8]) {
    if err.is_some() {
        return;
    }
    if let Some(w) = w {
        if let Err(e) = w.write_all(b) {
            *err = Some(e);
        }
    }
}

/// Column types the pickle form carries (the manual's PROTOCOL_PICKLE table).
fn supported(c: &Column) -> bool {
    use DataType::*;
    matches!(
        c.ty,
        Bool | Char
            | Short
            | Int
            | Long
            | Date
            | Month
            | Time
            | Minute
            | Second
            | DateTime
            | Timestamp
            | NanoTime
            | NanoTimestamp
            | DateHour
            | Float
            | Double
            | Symbol
            | String
    ) && match &*c.data {
        ColData::I128(_) => false,
        ColData::Sym(_) | ColData::Str(_) => matches!(c.ty, Symbol | String),
        _ => !matches!(c.ty, Symbol | String),
    }
}

/// The raw bytes of a slice of plain numbers.
fn bytes_of<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: only called with i8/i16/i32/i64/f32/f64/u8 slices, which have no padding
    // and no invalid bit patterns; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// numpy's byte-order mark for this machine's native order.
const ORDER: char = if cfg!(target_endian = "little") { '<' } else { '>' };

struct Pickler<'a> {
    out: Sink<'a>,
    /// Next free memo slot (LONG_BINPUT / LONG_BINGET).
    memo: u32,
    compact: Compact,
}

impl Pickler<'_> {
    fn text(&mut self, s: &str) {
        let b = s.as_bytes();
        if b.len() < 256 {
            self.out.push(SHORT_BINUNICODE);
            self.out.push(b.len() as u8);
        } else {
            self.out.push(BINUNICODE);
            self.out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        }
        self.out.extend_from_slice(b);
    }

    fn int(&mut self, n: usize) {
        if n < 256 {
            self.out.push(BININT1);
            self.out.push(n as u8);
        } else {
            // row counts are below 2^31 (the wire's own row field is an int32)
            self.out.push(BININT);
            self.out.extend_from_slice(&(n as i32).to_le_bytes());
        }
    }

    fn global(&mut self, module: &str, name: &str) {
        self.text(module);
        self.text(name);
        self.out.push(STACK_GLOBAL);
    }

    /// A 1-d `numpy.ndarray` of `n` items of `dtype` (e.g. "<f8") holding `data`:
    /// `ndarray((0,), 'b')` then `__setstate__((1, (n,), dtype(dtype), False, data))`.
    fn ndarray(&mut self, dtype: &str, n: usize, data: &[u8]) {
        self.ndarray_with(dtype, n, data.len(), |out| out.extend_from_slice(data));
    }

    /// As `ndarray`, with `fill` appending exactly `nbytes` bytes of data straight into
    /// the frame (no temporary copy of a converted column).
    fn ndarray_with(&mut self, dtype: &str, n: usize, nbytes: usize, fill: impl FnOnce(&mut Sink)) {
        self.global("numpy", "ndarray");
        self.out.push(BININT1);
        self.out.push(0);
        self.out.push(TUPLE1);
        self.text("b");
        self.out.push(TUPLE2);
        self.out.push(REDUCE);
        self.out.push(MARK);
        self.out.push(BININT1);
        self.out.push(1);
        self.int(n);
        self.out.push(TUPLE1);
        self.global("numpy", "dtype");
        self.text(dtype);
        self.out.push(TUPLE1);
        self.out.push(REDUCE);
        self.out.push(NEWFALSE);
        if nbytes <= u32::MAX as usize {
            self.out.push(BINBYTES);
            self.out.extend_from_slice(&(nbytes as u32).to_le_bytes());
        } else {
            self.out.push(BINBYTES8);
            self.out.extend_from_slice(&(nbytes as u64).to_le_bytes());
        }
        let at = self.out.total;
        fill(&mut self.out);
        debug_assert_eq!(self.out.total - at, nbytes);
        self.out.push(TUPLE);
        self.out.push(BUILD);
    }

    /// A column of `n` values computed by `f`, written straight into the frame.
    fn mapped<T: Copy, U: Copy>(&mut self, kind: char, v: &[T], f: impl Fn(T) -> U) {
        let dtype = format!("{ORDER}{kind}{}", std::mem::size_of::<U>());
        self.ndarray_with(&dtype, v.len(), v.len() * std::mem::size_of::<U>(), |out| convert(out, v, f));
    }

    /// Category codes, renumbered by `remap`, in the narrowest signed type pandas would
    /// pick for `ncats` (renumbering and narrowing in one pass over the column).
    fn codes(&mut self, codes: &[u32], ncats: usize, remap: impl Fn(u32) -> u32 + Copy) {
        if ncats <= i8::MAX as usize {
            self.mapped('i', codes, |c| remap(c) as i8)
        } else if ncats <= i16::MAX as usize {
            self.mapped('i', codes, |c| remap(c) as i16)
        } else {
            self.mapped('i', codes, |c| remap(c) as i32)
        }
    }

    /// `codes` renumbered by `map` when it is given (an unknown code is category 0).
    fn codes_via(&mut self, codes: &[u32], ncats: usize, map: Option<&[u32]>) {
        match map {
            Some(map) => self.codes(codes, ncats, |c| map.get(c as usize).map_or(0, |&m| if m == u32::MAX { 0 } else { m })),
            None => self.codes(codes, ncats, |c| c),
        }
    }

    fn typed<T: Copy>(&mut self, kind: char, v: &[T]) {
        let dtype = format!("{ORDER}{kind}{}", std::mem::size_of::<T>());
        self.ndarray(&dtype, v.len(), bytes_of(v));
    }

    /// A list of strings: `[]` then MARK … APPENDS in batches.
    fn str_list<'s>(&mut self, items: impl ExactSizeIterator<Item = &'s str>) {
        self.out.push(EMPTY_LIST);
        let mut k = 0;
        for s in items {
            if k % BATCH == 0 {
                if k > 0 {
                    self.out.push(APPENDS);
                }
                self.out.push(MARK);
            }
            self.text(s);
            k += 1;
        }
        if k > 0 {
            self.out.push(APPENDS);
        }
    }

    /// `numpy.array(list, 'O')`: an object array of Python strings.
    fn object_array<'s>(&mut self, items: impl ExactSizeIterator<Item = &'s str>) {
        self.global("numpy", "array");
        self.str_list(items);
        self.text("O");
        self.out.push(TUPLE2);
        self.out.push(REDUCE);
    }

    /// `numpy.take(objects, codes)`: an object array sharing one str per distinct value.
    fn take_objects<'s>(&mut self, distinct: impl ExactSizeIterator<Item = &'s str>, codes: &[i32]) {
        self.global("numpy", "take");
        self.object_array(distinct);
        self.typed('i', codes);
        self.out.push(TUPLE2);
        self.out.push(REDUCE);
    }

    /// An object-dtype column as a `pandas.Series(arr, None, 'O')`, so that pandas keeps
    /// Python strings (pandas ≥ 3 would otherwise infer its own string dtype, a copy).
    fn object_series(&mut self, body: impl FnOnce(&mut Self)) {
        self.global("pandas", "Series");
        self.out.push(MARK);
        body(self);
        self.out.push(NONE);
        self.text("O");
        self.out.push(TUPLE);
        self.out.push(REDUCE);
    }

    /// One column; `plain` = numpy arrays only (for `pickleTableToList`).
    fn column(&mut self, c: &Column, plain: bool) {
        use DataType::*;
        match (&*c.data, c.ty) {
            (ColData::Sym(s), _) => self.symbols(s, plain),
            (ColData::Str(s), _) => self.strings(s, plain),
            (ColData::I8(v), Bool) => {
                if v.contains(&i8::MIN) {
                    // True / False / None objects
                    let codes: Vec<i32> = v.iter().map(|&x| if x == i8::MIN { 2 } else { (x != 0) as i32 }).collect();
                    let f = |p: &mut Self| {
                        p.global("numpy", "take");
                        p.global("numpy", "array");
                        p.out.extend_from_slice(&[MARK, NEWFALSE, 0x88, NONE, b'l']);
                        p.text("O");
                        p.out.extend_from_slice(&[TUPLE2, REDUCE]);
                        p.typed('i', &codes);
                        p.out.extend_from_slice(&[TUPLE2, REDUCE]);
                    };
                    if plain { f(self) } else { self.object_series(f) }
                } else {
                    self.ndarray("|b1", v.len(), bytes_of(v));
                }
            }
            (_, Date | Month | Time | Minute | Second | DateTime | Timestamp | NanoTime | NanoTimestamp | DateHour) => {
                let dtype = format!("{ORDER}M8[ns]");
                match &*c.data {
                    ColData::I32(v) if c.ty != Month => {
                        let k = nanos_per_unit(c.ty);
                        // one min/max pass tells both whether a null is there (NULL is
                        // i32::MIN, the minimum) and the range the compaction needs
                        let range = if v.len() >= COMPACT_ROWS && (self.compact.temporal || self.compact.repeats) { min_max(v) } else { None };
                        match range {
                            Some((lo, hi)) if lo != i32::MIN as i64 => self.scaled_temporal(&dtype, v, k, lo, hi),
                            _ => self.mapped_dtype(&dtype, v, |x| if x == i32::MIN { i64::MIN } else { (x as i64).saturating_mul(k) }),
                        }
                    }
                    ColData::I64(v) => {
                        let k = nanos_per_unit(c.ty);
                        self.mapped_dtype(&dtype, v, |x| if x == i64::MIN { i64::MIN } else { x.saturating_mul(k) })
                    }
                    _ => {
                        let ns = to_nanos(c);
                        self.ndarray(&dtype, ns.len(), bytes_of(&ns));
                    }
                }
            }
            (ColData::I8(v), _) => self.int_column(v, i8::MIN),
            (ColData::I16(v), _) => self.int_column(v, i16::MIN),
            (ColData::I32(v), _) => self.int_column(v, i32::MIN),
            (ColData::I64(v), _) => self.int_column(v, i64::MIN),
            // null is -FLT_MAX / -DBL_MAX in storage; pandas wants NaN
            (ColData::F32(v), _) if v.contains(&-f32::MAX) => {
                self.mapped('f', v, |x| if x == -f32::MAX { f32::NAN } else { x })
            }
            (ColData::F64(v), _) if v.contains(&-f64::MAX) => {
                self.mapped('f', v, |x| if x == -f64::MAX { f64::NAN } else { x })
            }
            (ColData::F32(v), _) => self.typed('f', v),
            (ColData::F64(v), _) if v.len() >= COMPACT_ROWS && self.compact.decimals => self.decimal_doubles(v),
            (ColData::F64(v), _) => self.typed('f', v),
            (ColData::I128(_) | ColData::Array(_), _) => unreachable!("filtered by supported()"),
        }
    }

    fn mapped_dtype<T: Copy>(&mut self, dtype: &str, v: &[T], f: impl Fn(T) -> i64) {
        self.ndarray_with(dtype, v.len(), v.len() * 8, |out| convert(out, v, f));
    }

    /// Integers without nulls keep their width; with a null they become float64 + NaN.
    fn int_column<T: Copy + Ord + Into<i64>>(&mut self, v: &[T], null: T) {
        if v.len() < COMPACT_ROWS {
            if v.contains(&null) {
                self.mapped('f', v, |x| if x == null { f64::NAN } else { x.into() as f64 });
            } else {
                self.typed('i', v);
            }
            return;
        }
        // NULL is the type's minimum: the min/max pass the compaction needs also tells
        // whether there is one (one pass over the column instead of two)
        match min_max(v) {
            Some((lo, _)) if lo == null.into() => self.mapped('f', v, |x| if x == null { f64::NAN } else { x.into() as f64 }),
            range => {
                let dtype = format!("{ORDER}i{}", std::mem::size_of::<T>());
                self.compact_ints(&dtype, v, range, |p| p.typed('i', v));
            }
        }
    }

    /// Integers without nulls whose final dtype is `dtype`: one repeated value as
    /// `numpy.repeat`, a range that fits a narrower type sent narrow and widened by the
    /// client, else `plain`.
    fn compact_ints<T: Copy + Into<i64>>(&mut self, dtype: &str, v: &[T], range: Option<(i64, i64)>, plain: impl FnOnce(&mut Self)) {
        let Some((lo, hi)) = range else { return plain(self) };
        let width = std::mem::size_of::<T>();
        if lo == hi && self.compact.repeats {
            let one = v[0];
            self.repeat(v.len(), |p| p.ndarray(dtype, 1, bytes_of(&[one])));
        } else if !self.compact.ints {
            plain(self)
        } else if width > 1 && lo >= i8::MIN as i64 && hi <= i8::MAX as i64 {
            self.widen(dtype, |p| p.mapped('i', v, |x| Into::<i64>::into(x) as i8));
        } else if width > 2 && lo >= i16::MIN as i64 && hi <= i16::MAX as i64 {
            self.widen(dtype, |p| p.mapped('i', v, |x| Into::<i64>::into(x) as i16));
        } else if width > 4 && lo >= i32::MIN as i64 && hi <= i32::MAX as i64 {
            self.widen(dtype, |p| p.mapped('i', v, |x| Into::<i64>::into(x) as i32));
        } else {
            plain(self)
        }
    }

    /// `numpy.repeat(<one-element array>, n)`.
    fn repeat(&mut self, n: usize, one: impl FnOnce(&mut Self)) {
        self.global("numpy", "repeat");
        one(self);
        self.int(n);
        self.out.push(TUPLE2);
        self.out.push(REDUCE);
    }

    /// `numpy.asarray(<narrow array>, numpy.dtype(dtype))`: a new, writable array.
    fn widen(&mut self, dtype: &str, narrow: impl FnOnce(&mut Self)) {
        self.global("numpy", "asarray");
        narrow(self);
        self.dtype(dtype);
        self.out.push(TUPLE2);
        self.out.push(REDUCE);
    }

    fn dtype(&mut self, dtype: &str) {
        self.global("numpy", "dtype");
        self.text(dtype);
        self.out.push(TUPLE1);
        self.out.push(REDUCE);
    }


    /// DOUBLE values without nulls that are decimals of a few places (prices): when all
    /// but a few are exactly `m / 10^k` for an integer `m` that fits in 32 bits, the
    /// integers travel (4 bytes or fewer, not 8) with the exceptions as (row, value)
    /// pairs, and the client rebuilds the column as `numpy.divide(m, [10^k])` then
    /// `numpy.put(col, rows, values)`. IEEE division is correctly rounded on both sides,
    /// so every value is bitwise the one sent: the check below is the same division.
    fn decimal_doubles(&mut self, v: &[f64]) {
        let n = v.len();
        // the places: the fewest that fit most of a sample
        let sample = &v[..n.min(1024)];
        let places = (0..=4).find(|&k| {
            let s = 10f64.powi(k);
            sample.iter().filter(|&&x| scaled_int(x, s).is_some()).count() * 10 >= sample.len() * 9
        });
        let Some(k) = places else { return self.typed('f', v) };
        let scale = 10f64.powi(k);
        let mut ints: Vec<i32> = Vec::with_capacity(n);
        let mut rows: Vec<i32> = Vec::new();
        let mut vals: Vec<f64> = Vec::new();
        for (r, &x) in v.iter().enumerate() {
            match scaled_int(x, scale) {
                Some(m) => ints.push(m),
                None => {
                    ints.push(0);
                    rows.push(r as i32);
                    vals.push(x);
                    if rows.len() * 8 > n {
                        // more than one in eight: not worth it
                        return self.typed('f', v);
                    }
                }
            }
        }
        let slot = self.memo;
        self.memo += 1;
        self.global("numpy", "divide");
        match min_max(&ints) {
            Some((lo, hi)) if lo >= i16::MIN as i64 && hi <= i16::MAX as i64 => self.mapped('i', &ints, |x| x as i16),
            _ => self.typed('i', &ints),
        }
        self.ndarray(&format!("{ORDER}f8"), 1, bytes_of(&[scale]));
        self.out.push(TUPLE2);
        self.out.push(REDUCE);
        if rows.is_empty() {
            return;
        }
        // keep the column in the memo, patch it (numpy.put returns None, popped), and
        // leave it on the stack
        self.out.push(LONG_BINPUT);
        self.out.extend_from_slice(&slot.to_le_bytes());
        self.global("numpy", "put");
        self.out.push(LONG_BINGET);
        self.out.extend_from_slice(&slot.to_le_bytes());
        self.typed('i', &rows);
        self.typed('f', &vals);
        self.out.push(TUPLE3);
        self.out.push(REDUCE);
        self.out.push(POP);
    }

    /// A temporal column without nulls stored in `unit` nanoseconds: its counts go as is
    /// (or narrower, or one repeated value), and the client builds
    /// `numpy.ndarray((n,), dtype('<M8[ns]'), numpy.multiply(counts, [unit]))`, a
    /// datetime64[ns] view of the int64 product (no copy; `[unit]` is a one-element int64
    /// array, so the product is int64 under numpy 1's value-based casting too).
    fn scaled_temporal(&mut self, dtype: &str, v: &[i32], unit: i64, lo: i64, hi: i64) {
        if lo == hi && self.compact.repeats {
            let ns = (v[0] as i64).saturating_mul(unit);
            return self.repeat(v.len(), |p| p.ndarray(dtype, 1, bytes_of(&[ns])));
        }
        let fits = lo.checked_mul(unit).is_some() && hi.checked_mul(unit).is_some();
        if !fits {
            // out of datetime64[ns]'s range: saturate as the plain form does (no nulls here)
            return self.mapped_dtype(dtype, v, |x| (x as i64).saturating_mul(unit));
        }
        if !self.compact.temporal {
            // every product is in range: a plain multiply, no overflow test per value
            return self.mapped_dtype(dtype, v, |x| (x as i64).wrapping_mul(unit));
        }
        self.global("numpy", "ndarray");
        self.out.push(MARK);
        self.int(v.len());
        self.out.push(TUPLE1);
        self.dtype(dtype);
        self.global("numpy", "multiply");
        if lo >= i16::MIN as i64 && hi <= i16::MAX as i64 {
            self.mapped('i', v, |x| x as i16);
        } else {
            self.typed('i', v);
        }
        self.ndarray(&format!("{ORDER}i8"), 1, bytes_of(&[unit]));
        self.out.push(TUPLE2);
        self.out.push(REDUCE);
        self.out.push(TUPLE);
        self.out.push(REDUCE);
    }

    /// SYMBOL: categories = the symbols the column uses (in dictionary order), codes
    /// renumbered to them; a null symbol is the empty-string category, as the DolphinDB
    /// encoding gives ''.
    fn symbols(&mut self, s: &SymCol, plain: bool) {
        let names = &s.dict.names;
        let mut map = vec![u32::MAX; names.len()];
        for &c in &s.codes {
            if let Some(m) = map.get_mut(c as usize) {
                *m = 0;
            }
        }
        let mut used = Vec::new();
        for (k, m) in map.iter_mut().enumerate() {
            if *m == 0 {
                *m = used.len() as u32;
                used.push(k);
            }
        }
        // renumbered only when some names of the dictionary are unused
        let remap = (used.len() < names.len()).then_some(&map[..]);
        let codes = &s.codes[..];
        let cats = used.iter().map(|&k| &*names[k]);
        if plain {
            self.global("numpy", "take");
            self.object_array(cats);
            self.codes_via(codes, used.len(), remap);
            self.out.push(TUPLE2);
            self.out.push(REDUCE);
            return;
        }
        // pandas.Categorical.from_codes(codes, pandas.Index(cats, 'object'), None, None, False)
        self.global("pandas", "Categorical.from_codes");
        self.out.push(MARK);
        self.codes_via(codes, used.len(), remap);
        self.global("pandas", "Index");
        self.str_list(cats);
        self.text("object");
        self.out.extend_from_slice(&[TUPLE2, REDUCE, NONE, NONE, NEWFALSE, TUPLE, REDUCE]);
    }

    /// STRING: distinct values plus codes when values repeat, else every string.
    fn strings(&mut self, s: &StrCol, plain: bool) {
        let n = s.len();
        let mut index: AHashMap<&str, i32> = AHashMap::new();
        let mut distinct: Vec<&str> = Vec::new();
        let mut codes: Vec<i32> = Vec::with_capacity(n);
        let limit = n / 2 + 1;
        for x in s.iter() {
            let k = *index.entry(x).or_insert_with(|| {
                distinct.push(x);
                distinct.len() as i32 - 1
            });
            codes.push(k);
            if distinct.len() > limit {
                break;
            }
        }
        let repeat = distinct.len() <= limit && codes.len() == n;
        let f = |p: &mut Self| {
            if repeat {
                p.take_objects(distinct.iter().copied(), &codes);
            } else {
                p.object_array(s.iter_exact());
            }
        };
        if plain { f(self) } else { self.object_series(f) }
    }
}

/// `x * s` as an integer `m` when `m / s` gives back exactly `x` (bitwise) and `m` fits
/// in 32 bits; -0.0 never (as an integer it would come back as +0.0). The rounding is the
/// add-and-subtract of 1.5 * 2^52 (nearest, ties to even, for |y| < 2^51) instead of a
/// call to `round`: which integer is tried does not matter, the check decides.
fn scaled_int(x: f64, s: f64) -> Option<i32> {
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    let y = x * s;
    if !(y.abs() < 2_147_483_647.0) {
        return None;
    }
    let m = (y + MAGIC) - MAGIC;
    (m / s == x && x.to_bits() != (-0.0f64).to_bits()).then_some(m as i32)
}

/// Values converted by `f`, a block at a time into one reused buffer; a block (64 Ki
/// values) is large enough that, when streaming, it goes to the socket from that buffer.
fn convert<T: Copy, U: Copy>(out: &mut Sink, v: &[T], f: impl Fn(T) -> U) {
    const BLOCK: usize = 1 << 16;
    let mut tmp: Vec<U> = Vec::with_capacity(v.len().min(BLOCK));
    for chunk in v.chunks(BLOCK) {
        tmp.clear();
        tmp.extend(chunk.iter().map(|&x| f(x)));
        out.extend_from_slice(bytes_of(&tmp));
    }
}

/// The smallest and largest value (None when empty).
fn min_max<T: Copy + Ord + Into<i64>>(v: &[T]) -> Option<(i64, i64)> {
    let first = *v.first()?;
    // compared in the column's own type (which the compiler vectorizes), widened once
    let (lo, hi) = v.iter().fold((first, first), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    Some((lo.into(), hi.into()))
}

/// Exact-size iteration over a STRING column.
trait IterExact {
    fn iter_exact(&self) -> StrIter<'_>;
}
struct StrIter<'a> {
    s: &'a StrCol,
    i: usize,
}
impl<'a> Iterator for StrIter<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        if self.i < self.s.len() {
            self.i += 1;
            Some(self.s.get(self.i - 1))
        } else {
            None
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let r = self.s.len() - self.i;
        (r, Some(r))
    }
}
impl ExactSizeIterator for StrIter<'_> {}
impl IterExact for StrCol {
    fn iter_exact(&self) -> StrIter<'_> {
        StrIter { s: self, i: 0 }
    }
}

/// Days from 1970-01-01 to the first day of a civil month (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// Nanoseconds in one unit of a temporal type stored as a count since the epoch
/// (or since midnight for the time-of-day types).
fn nanos_per_unit(t: DataType) -> i64 {
    use DataType::*;
    match t {
        Date => 86_400_000_000_000,
        Time | Timestamp => 1_000_000,
        Minute => 60_000_000_000,
        Second | DateTime => 1_000_000_000,
        DateHour => 3_600_000_000_000,
        _ => 1,
    }
}

/// A temporal column as nanoseconds since 1970-01-01 (time-of-day types on that day),
/// null as NaT (i64::MIN), as the client's datetime64[ns] columns hold them.
pub fn to_nanos(c: &Column) -> Vec<i64> {
    use DataType::*;
    const NAT: i64 = i64::MIN;
    let scale = nanos_per_unit(c.ty);
    match &*c.data {
        ColData::I32(v) if c.ty == Month => v
            .iter()
            .map(|&m| {
                if m == i32::MIN {
                    NAT
                } else {
                    let (y, mo) = ((m as i64).div_euclid(12), (m as i64).rem_euclid(12) + 1);
                    days_from_civil(y, mo).saturating_mul(86_400_000_000_000)
                }
            })
            .collect(),
        ColData::I32(v) => v.iter().map(|&x| if x == i32::MIN { NAT } else { (x as i64).saturating_mul(scale) }).collect(),
        ColData::I64(v) => v.iter().map(|&x| if x == i64::MIN { NAT } else { x.saturating_mul(scale) }).collect(),
        _ => vec![NAT; c.len()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_doubles_round_trip_exactly() {
        assert_eq!(scaled_int(69.19, 100.0), Some(6919));
        assert_eq!(scaled_int(-12.5, 10.0), Some(-125));
        assert_eq!(scaled_int(0.0, 100.0), Some(0));
        // not m / 100 for any integer m, not a 32-bit integer, no sign, NaN
        assert_eq!(scaled_int(69.19000000000001, 100.0), None);
        assert_eq!(scaled_int(3e9, 1.0), None);
        assert_eq!(scaled_int(-0.0, 1.0), None);
        assert_eq!(scaled_int(f64::NAN, 1.0), None);
        assert_eq!(scaled_int(f64::INFINITY, 1.0), None);
    }

    #[test]
    fn streamed_and_buffered_streams_are_the_same() {
        let n = 50_000;
        let t = Table {
            names: vec!["a".into(), "b".into(), "c".into()],
            cols: vec![
                Column::from_vec(DataType::Int, (0..n as i32).collect::<Vec<_>>()),
                Column::from_vec(DataType::Double, (0..n).map(|i| i as f64 / 100.0).collect::<Vec<_>>()),
                Column::from_vec(DataType::Second, (0..n as i32).map(|i| 34_200 + i % 20_000).collect::<Vec<_>>()),
            ],
            keys: Vec::new(),
            name: None,
            keyed: Default::default(),
        };
        for letters in ["", "ir", "itdr"] {
            let mut whole = Vec::new();
            table(&mut whole, None, &t, false, Compact::of(letters)).unwrap().unwrap();
            let mut sent: Vec<u8> = Vec::new();
            let mut scratch = b"head".to_vec();
            table(&mut scratch, Some(&mut sent as &mut dyn Write), &t, false, Compact::of(letters)).unwrap().unwrap();
            assert_eq!(&sent[..4], b"head");
            assert_eq!(&sent[4..], &whole[..], "compaction {letters:?}");
            assert!(scratch.is_empty());
        }
    }

    #[test]
    fn civil_months() {
        assert_eq!(days_from_civil(1970, 1), 0);
        assert_eq!(days_from_civil(2024, 2), 19754); // 2024-02-01
        assert_eq!(days_from_civil(1969, 12), -31);
    }

    #[test]
    fn nanos_of_temporal_types() {
        let d = Column::from_vec(DataType::Date, vec![19723i32, i32::MIN]); // 2024-01-01
        assert_eq!(to_nanos(&d), vec![19723 * 86_400_000_000_000, i64::MIN]);
        let m = Column::from_vec(DataType::Month, vec![2024 * 12 + 1]); // 2024.02M
        assert_eq!(to_nanos(&m), vec![19754 * 86_400_000_000_000]);
        let t = Column::from_vec(DataType::Time, vec![34_200_001i32]); // 09:30:00.001
        assert_eq!(to_nanos(&t), vec![34_200_001_000_000]);
    }

    #[test]
    fn unsupported_types_fall_back() {
        let t = Table {
            names: vec!["u".into()],
            cols: vec![Column::from_vec(DataType::Uuid, vec![1i128])],
            keys: Vec::new(),
            name: None,
            keyed: Default::default(),
        };
        let mut out = Vec::new();
        assert!(table(&mut out, None, &t, false, Compact::of("itdr")).is_none());
        assert!(out.is_empty());
    }

    #[test]
    fn stream_shape() {
        let t = Table {
            names: vec!["a".into()],
            cols: vec![Column::from_vec(DataType::Int, vec![1i32, 2, 3])],
            keys: Vec::new(),
            name: None,
            keyed: Default::default(),
        };
        let mut out = Vec::new();
        table(&mut out, None, &t, false, Compact::of("itdr")).unwrap().unwrap();
        assert_eq!(&out[..4], &[0, 6 | FORM_PICKLED, PROTO, 4]);
        assert_eq!(*out.last().unwrap(), STOP);
        // the three ints travel as one 12-byte block
        let data: Vec<u8> = [1i32, 2, 3].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert!(out.windows(12).any(|w| w == data.as_slice()));
    }
}
