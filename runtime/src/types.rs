//! Data types, data forms and the promotion rules (LANGUAGE.md §2).

use std::fmt;

/// DolphinDB data types. The discriminant is DolphinDB's type ID (`type(x)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DataType {
    Void = 0,
    Bool = 1,
    Char = 2,
    Short = 3,
    Int = 4,
    Long = 5,
    Date = 6,
    Month = 7,
    Time = 8,
    Minute = 9,
    Second = 10,
    DateTime = 11,
    Timestamp = 12,
    NanoTime = 13,
    NanoTimestamp = 14,
    Float = 15,
    Double = 16,
    Symbol = 17,
    String = 18,
    Uuid = 19,
    FunctionDef = 20,
    Handle = 21,
    Code = 22,
    DataSource = 23,
    Resource = 24,
    Any = 25,
    Compressed = 26,
    DateHour = 28,
    IpAddr = 30,
    Int128 = 31,
    Blob = 32,
    Complex = 34,
    Point = 35,
    Duration = 36,
    /// DECIMAL types carry their scale (digits after the point); storage is the
    /// unscaled integer (i32 / i64 / i128).
    Decimal32(u8) = 37,
    Decimal64(u8) = 38,
    Decimal128(u8) = 39,
    /// An array vector (`INT[]`, `DOUBLE[]`, ...) of the element type with this type ID;
    /// DolphinDB's type ID is the element's plus 64. Table columns of this type hold
    /// `ColData::Array` (offsets + one flat column of the element type).
    Array(u8) = 64,
}

/// `DataType::Array(code)`: the code is the element's type ID, except for DECIMAL
/// elements, whose scale is kept in the code: DECIMAL32(s) is `100 + s`, DECIMAL64(s)
/// `120 + s`, DECIMAL128(s) `140 + s` (scales 0-9, 0-18, 0-38 fit between the bases).
const DEC_ARRAY_CODE: [u8; 3] = [100, 120, 140];

/// The element type of an array-type code.
fn array_code_elem(code: u8) -> Option<DataType> {
    match code {
        100..=109 => Some(DataType::Decimal32(code - 100)),
        120..=138 => Some(DataType::Decimal64(code - 120)),
        140..=178 => Some(DataType::Decimal128(code - 140)),
        _ if code < 64 => DataType::from_id(code as i32),
        _ => None,
    }
}

/// Physical storage class of a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Physical {
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Sym,
    Str,
    I128,
    None,
}

/// Data forms (`form(x)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataForm {
    Scalar = 0,
    Vector = 1,
    Pair = 2,
    Matrix = 3,
    Set = 4,
    Dict = 5,
    Table = 6,
}

/// Category used by promotion and printing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Nothing,
    Logical,
    Integral,
    Floating,
    Temporal,
    Literal,
    Binary,
    System,
    Mixed,
    Decimal,
}

pub const ALL_TYPES: &[DataType] = &[
    DataType::Void,
    DataType::Bool,
    DataType::Char,
    DataType::Short,
    DataType::Int,
    DataType::Long,
    DataType::Date,
    DataType::Month,
    DataType::Time,
    DataType::Minute,
    DataType::Second,
    DataType::DateTime,
    DataType::Timestamp,
    DataType::NanoTime,
    DataType::NanoTimestamp,
    DataType::Float,
    DataType::Double,
    DataType::Symbol,
    DataType::String,
    DataType::Uuid,
    DataType::FunctionDef,
    DataType::Handle,
    DataType::Code,
    DataType::DataSource,
    DataType::Resource,
    DataType::Any,
    DataType::Compressed,
    DataType::DateHour,
    DataType::IpAddr,
    DataType::Int128,
    DataType::Blob,
    DataType::Complex,
    DataType::Point,
    DataType::Duration,
    DataType::Decimal32(0),
    DataType::Decimal64(0),
    DataType::Decimal128(0),
];

impl DataType {
    pub fn id(self) -> i32 {
        if let DataType::Array(e) = self {
            return 64 + array_code_elem(e).map(|t| t.id()).unwrap_or(e as i32);
        }
        // SAFETY: a `#[repr(u8)]` enum starts with its u8 discriminant (RFC 2195)
        unsafe { *(&self as *const DataType as *const u8) as i32 }
    }

    /// Scale of a DECIMAL type.
    pub fn decimal_scale(self) -> Option<u8> {
        match self {
            DataType::Decimal32(s) | DataType::Decimal64(s) | DataType::Decimal128(s) => Some(s),
            _ => None,
        }
    }

    /// Largest scale a DECIMAL type of this width holds (9, 18, 38).
    pub fn decimal_max_scale(self) -> u8 {
        match self {
            DataType::Decimal32(_) => 9,
            DataType::Decimal64(_) => 18,
            _ => 38,
        }
    }

    /// The same DECIMAL width with another scale.
    pub fn with_scale(self, s: u8) -> DataType {
        match self {
            DataType::Decimal32(_) => DataType::Decimal32(s),
            DataType::Decimal64(_) => DataType::Decimal64(s),
            DataType::Decimal128(_) => DataType::Decimal128(s),
            t => t,
        }
    }

    /// Name with the scale for DECIMAL types (`DECIMAL32(2)`), as schemas show it.
    pub fn full_name(self) -> String {
        match self.decimal_scale() {
            Some(s) => format!("{}({s})", self.name()),
            None => match self.array_elem() {
                Some(e) if e.decimal_scale().is_some() => format!("{}[]", e.full_name()),
                _ => self.name().to_string(),
            },
        }
    }

    pub fn from_id(id: i32) -> Option<DataType> {
        if id > 64 {
            return DataType::from_id(id - 64).and_then(DataType::array_of);
        }
        ALL_TYPES.iter().copied().find(|t| t.id() == id)
    }

    pub fn name(self) -> &'static str {
        use DataType::*;
        match self {
            Void => "VOID",
            Bool => "BOOL",
            Char => "CHAR",
            Short => "SHORT",
            Int => "INT",
            Long => "LONG",
            Date => "DATE",
            Month => "MONTH",
            Time => "TIME",
            Minute => "MINUTE",
            Second => "SECOND",
            DateTime => "DATETIME",
            Timestamp => "TIMESTAMP",
            NanoTime => "NANOTIME",
            NanoTimestamp => "NANOTIMESTAMP",
            Float => "FLOAT",
            Double => "DOUBLE",
            Symbol => "SYMBOL",
            String => "STRING",
            Uuid => "UUID",
            FunctionDef => "FUNCTIONDEF",
            Handle => "HANDLE",
            Code => "CODE",
            DataSource => "DATASOURCE",
            Resource => "RESOURCE",
            Any => "ANY",
            Compressed => "COMPRESSED",
            DateHour => "DATEHOUR",
            IpAddr => "IPADDR",
            Int128 => "INT128",
            Blob => "BLOB",
            Complex => "COMPLEX",
            Point => "POINT",
            Duration => "DURATION",
            Decimal32(_) => "DECIMAL32",
            Decimal64(_) => "DECIMAL64",
            Decimal128(_) => "DECIMAL128",
            Array(e) => array_code_elem(e)
                .and_then(|t| array_type(t))
                .map(|(n, _)| n)
                .unwrap_or("ANY[]"),
        }
    }

    /// The array-vector type of element type `elem` (`INT` gives `INT[]`); None for element
    /// types that have no array vector (STRING, SYMBOL, ...).
    pub fn array_of(elem: DataType) -> Option<DataType> {
        let code = match elem {
            DataType::Decimal32(s) => DEC_ARRAY_CODE[0] + s,
            DataType::Decimal64(s) => DEC_ARRAY_CODE[1] + s,
            DataType::Decimal128(s) => DEC_ARRAY_CODE[2] + s,
            _ => elem.id() as u8,
        };
        array_type(elem).map(|_| DataType::Array(code))
    }

    /// Element type of an array-vector type.
    pub fn array_elem(self) -> Option<DataType> {
        match self {
            DataType::Array(e) => array_code_elem(e),
            _ => None,
        }
    }

    /// Parse a type name, case-insensitively (`INT`, `"int"`, `` `DOUBLE ``).
    /// `DECIMAL32(2)` carries its scale; a bare DECIMAL name has scale 0.
    pub fn from_name(name: &str) -> Option<DataType> {
        let up = name.trim().to_ascii_uppercase();
        if let Some(base) = up.strip_suffix("[]") {
            return DataType::from_name(base).and_then(DataType::array_of);
        }
        if let Some((base, rest)) = up.split_once('(') {
            let scale: u8 = rest.strip_suffix(')')?.trim().parse().ok()?;
            let t = ALL_TYPES.iter().copied().find(|t| t.name() == base.trim())?;
            return (t.decimal_scale().is_some() && scale <= t.decimal_max_scale()).then(|| t.with_scale(scale));
        }
        ALL_TYPES.iter().copied().find(|t| t.name() == up)
    }

    pub fn physical(self) -> Physical {
        use DataType::*;
        match self {
            Bool | Char => Physical::I8,
            Short => Physical::I16,
            Int | Date | Month | Time | Minute | Second | DateTime | DateHour | Decimal32(_) => {
                Physical::I32
            }
            Long | Timestamp | NanoTime | NanoTimestamp | Decimal64(_) => Physical::I64,
            Float => Physical::F32,
            Double => Physical::F64,
            Symbol => Physical::Sym,
            String | Blob => Physical::Str,
            Uuid | IpAddr | Int128 | Decimal128(_) => Physical::I128,
            _ => Physical::None,
        }
    }

    pub fn category(self) -> Category {
        use DataType::*;
        match self {
            Void => Category::Nothing,
            Bool => Category::Logical,
            Char | Short | Int | Long => Category::Integral,
            Float | Double => Category::Floating,
            Date | Month | Time | Minute | Second | DateTime | Timestamp | NanoTime
            | NanoTimestamp | DateHour => Category::Temporal,
            Symbol | String | Blob => Category::Literal,
            Uuid | IpAddr | Int128 => Category::Binary,
            Any => Category::Mixed,
            Decimal32(_) | Decimal64(_) | Decimal128(_) => Category::Decimal,
            _ => Category::System,
        }
    }

    pub fn is_temporal(self) -> bool {
        self.category() == Category::Temporal
    }
    pub fn is_integral(self) -> bool {
        matches!(self.category(), Category::Integral | Category::Logical)
    }
    pub fn is_floating(self) -> bool {
        self.category() == Category::Floating
    }
    pub fn is_numeric(self) -> bool {
        matches!(self.category(), Category::Integral | Category::Logical | Category::Floating)
    }
    pub fn is_literal(self) -> bool {
        self.category() == Category::Literal
    }
    /// Time-of-day types wrap modulo one day.
    pub fn day_modulus(self) -> Option<i64> {
        match self {
            DataType::Time => Some(86_400_000),
            DataType::Minute => Some(1440),
            DataType::Second => Some(86_400),
            DataType::NanoTime => Some(86_400_000_000_000),
            _ => None,
        }
    }

    /// Rank for numeric promotion: BOOL < CHAR < SHORT < INT < LONG < FLOAT < DOUBLE.
    pub fn numeric_rank(self) -> u8 {
        use DataType::*;
        match self {
            Bool => 1,
            Char => 2,
            Short => 3,
            Int => 4,
            Long => 5,
            Float => 6,
            Double => 7,
            _ => 0,
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Result type of `+ - * % /` on two operand types (§2.4), or None when not arithmetic.
pub fn promote_arith(a: DataType, b: DataType) -> Option<DataType> {
    use DataType::*;
    if a == Void {
        return Some(if b == Void { Void } else { b });
    }
    if b == Void {
        return Some(a);
    }
    if a.is_numeric() && b.is_numeric() {
        let r = a.numeric_rank().max(b.numeric_rank());
        return Some(match r {
            7 => Double,
            6 => Float,
            5 => Long,
            _ => Int,
        });
    }
    None
}

/// Common type of two element types for vector literals, comparison and concatenation.
pub fn common_type(a: DataType, b: DataType) -> Option<DataType> {
    use DataType::*;
    if a == b {
        return Some(a);
    }
    if a == Void {
        return Some(b);
    }
    if b == Void {
        return Some(a);
    }
    if a.is_numeric() && b.is_numeric() {
        return Some(if a.numeric_rank() >= b.numeric_rank() { a } else { b });
    }
    if a.is_literal() && b.is_literal() {
        return Some(String);
    }
    None
}

/// Name and DolphinDB type ID (element type ID + 64) of the array-vector type of `ty`.
pub fn array_type(ty: DataType) -> Option<(&'static str, i32)> {
    use DataType::*;
    let name = match ty {
        Bool => "BOOL[]",
        Char => "CHAR[]",
        Short => "SHORT[]",
        Int => "INT[]",
        Long => "LONG[]",
        Date => "DATE[]",
        Month => "MONTH[]",
        Time => "TIME[]",
        Minute => "MINUTE[]",
        Second => "SECOND[]",
        DateTime => "DATETIME[]",
        Timestamp => "TIMESTAMP[]",
        NanoTime => "NANOTIME[]",
        NanoTimestamp => "NANOTIMESTAMP[]",
        Float => "FLOAT[]",
        Double => "DOUBLE[]",
        DateHour => "DATEHOUR[]",
        Uuid => "UUID[]",
        IpAddr => "IPADDR[]",
        Int128 => "INT128[]",
        Decimal32(_) | Decimal64(_) | Decimal128(_) => decimal_array_name(ty),
        _ => return None,
    };
    Some((name, ty.id() as i32 + 64))
}

/// `DECIMAL32(2)[]`: the name of a DECIMAL array type, scale included (one interned
/// string per width and scale, made on first use).
fn decimal_array_name(ty: DataType) -> &'static str {
    static NAMES: std::sync::OnceLock<Vec<(DataType, &'static str)>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let mut v = Vec::new();
        for (w, max) in [(DataType::Decimal32(0), 9u8), (DataType::Decimal64(0), 18), (DataType::Decimal128(0), 38)] {
            for s in 0..=max {
                let t = w.with_scale(s);
                v.push((t, &*Box::leak(format!("{}[]", t.full_name()).into_boxed_str())));
            }
        }
        v
    });
    names.iter().find(|(t, _)| *t == ty).map(|(_, n)| *n).unwrap_or("DECIMAL[]")
}
