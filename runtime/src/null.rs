//! Null sentinels. Nobody writes a sentinel literal outside this file.
//!
//! Nulls are in-band values, as in DolphinDB: the minimum of each integer type, and
//! -MAX for FLOAT/DOUBLE (NaN produced by arithmetic also counts as null for floats).
//!
//! NaN and Infinity, the one rule (everything else follows it):
//! - Arithmetic and math functions (`+ - * /`, `log`, `sqrt`, ...) never produce NaN or
//!   ±Infinity: such a result is stored as NULL (`1.0/0`, `log(0)`, `sqrt(-1)`), as DolphinDB
//!   does for division by zero (funcs/i/isNull.md: `isNull(1/0)` is true). That is
//!   [`Native::from_f64`].
//! - Conversions keep the IEEE values NaN and ±Infinity: text to FLOAT/DOUBLE
//!   (`double("nan")`, `float(`inf)`), FLOAT ↔ DOUBLE, and a vector built from such scalars
//!   (`[1.5, float(`nan), float(`inf), NULL]`, the example of funcs/i/isNanInf.md, gives
//!   `isNanInf` = `[false,true,true,false]`). Integers have neither: they become NULL.
//! - A stored NaN (from a conversion, a binary file, a CSV) is null for every null test
//!   (`is_null` below): `isNull`, `isValid`, `nullFill`, aggregates skipping nulls, and it
//!   prints like NULL. Only `isNanInf`, `countNanInf` and `nanInfFill` tell NaN apart from the
//!   NULL sentinel (-MAX). The manual (funcs/n/nanInfFill.md) says NaN and Inf are replaced
//!   by NULL inside DolphinDB and only arrive from outside; it does not say how `isNull`
//!   treats one that did arrive: this is Beluga's choice (tests/DISPUTED.md).
//! - ±Infinity is an ordinary (non-null) value: it compares, sorts (-inf below NULL) and
//!   prints as `Infinity`/`-Infinity`; arithmetic on it that overflows gives NULL.

/// A physical element type of a column.
pub trait Native: Copy + Send + Sync + PartialOrd + 'static + std::fmt::Debug {
    const NULL: Self;
    fn is_null(self) -> bool;
    /// Convert to f64 (null → NaN is NOT done here; callers check is_null first).
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    fn to_i64(self) -> i64;
    fn from_i64(v: i64) -> Self;
    /// Conversion from f64 that keeps infinities of floating targets (type conversion,
    /// not arithmetic, where overflow becomes null).
    fn from_f64_keep_inf(v: f64) -> Self {
        Self::from_f64(v)
    }
    /// NaN for floating types (kept by conversions), NULL for the others.
    fn from_f64_nan() -> Self {
        Self::NULL
    }
    /// Zero of the type (used for defaults and sums).
    const ZERO: Self;
}

macro_rules! native_int {
    ($t:ty) => {
        impl Native for $t {
            const NULL: Self = <$t>::MIN;
            const ZERO: Self = 0;
            #[inline(always)]
            fn is_null(self) -> bool {
                self == <$t>::MIN
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                if v.is_nan() || v.is_infinite() || v == f64::MIN {
                    return Self::NULL;
                }
                let r = v.round();
                if r < <$t>::MIN as f64 || r > <$t>::MAX as f64 {
                    Self::NULL
                } else {
                    r as $t
                }
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                if v == i64::MIN {
                    Self::NULL
                } else {
                    v as $t
                }
            }
        }
    };
}
native_int!(i8);
native_int!(i16);
native_int!(i32);
native_int!(i64);

impl Native for i128 {
    const NULL: Self = 0;
    const ZERO: Self = 0;
    fn is_null(self) -> bool {
        self == 0
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as i128
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_i64(v: i64) -> Self {
        v as i128
    }
}

impl Native for f64 {
    fn from_f64_nan() -> Self {
        f64::NAN
    }
    fn from_f64_keep_inf(v: f64) -> Self {
        if v.is_nan() { Self::NULL } else { v }
    }
    const NULL: Self = -f64::MAX;
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn is_null(self) -> bool {
        self == -f64::MAX || self.is_nan()
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        if v.is_nan() || v.is_infinite() { Self::NULL } else { v }
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        if v == i64::MIN { Self::NULL } else { v as f64 }
    }
}

impl Native for f32 {
    fn from_f64_nan() -> Self {
        f32::NAN
    }
    fn from_f64_keep_inf(v: f64) -> Self {
        if v.is_nan() { Self::NULL } else if v.is_infinite() { v as f32 } else { Self::from_f64(v) }
    }
    const NULL: Self = -f32::MAX;
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn is_null(self) -> bool {
        self == -f32::MAX || self.is_nan()
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        if v.is_nan() || v.is_infinite() || v.abs() > f32::MAX as f64 {
            Self::NULL
        } else {
            v as f32
        }
    }
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        if v == i64::MIN { Self::NULL } else { v as f32 }
    }
}

/// Null test for f64 values computed from other types (NaN or sentinel).
#[inline(always)]
pub fn f64_null(v: f64) -> bool {
    <f64 as Native>::is_null(v)
}

pub const NULL_F64: f64 = <f64 as Native>::NULL;
pub const NULL_I32: i32 = <i32 as Native>::NULL;
pub const NULL_I64: i64 = <i64 as Native>::NULL;
pub const NULL_I8: i8 = <i8 as Native>::NULL;
