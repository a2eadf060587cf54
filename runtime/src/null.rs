//! Null sentinels. Nobody writes a sentinel literal outside this file.
//!
//! Nulls are in-band values, as in DolphinDB: the minimum of each integer type, and
//! -MAX for FLOAT/DOUBLE. Kernels treat a NaN like a null ([`Native::is_null`]); the
//! functions a user asks about nulls and values with tell them apart (see below).
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
//! - A stored NaN (from a conversion, a binary file, a CSV) is a value, distinct from NULL,
//!   wherever a user looks at nulls and values: `isNull`/`isValid`/`hasNull`/`nullFill` do
//!   not see it ([`is_null_strict`], `Column::is_null_strict`), `count` counts it,
//!   `isNanInf`/`countNanInf`/`nanInfFill` find it, it prints as `NaN`, storage and CSV keep
//!   its bits. funcs/i/isNanInf.md keeps the two apart (`includeNull=true` is needed to count
//!   a NULL as NaN/Inf). The aggregates `sum`, `avg`, `prod`, `sum2..4`, `max`, `min` (scalar
//!   and grouped) follow IEEE 754 and numpy: a NaN among the inputs makes the result NaN, an
//!   Infinity makes it ±Infinity; so do the moment statistics (`std`, `var`, `skew`,
//!   `kurtosis`, `corr`, `covar`, `beta`, `wavg`: NaN) and the element-wise math functions
//!   (`log(NaN)` is NaN, `exp(inf)` is inf). In sorting, grouping, `distinct` and equi-joins a
//!   NaN is one value of its own, above +Infinity. The moving/cumulative families and the other
//!   element-wise kernels skip a NaN as they skip a NULL ([`Native::is_null`]), as pandas
//!   rolling does; an operand NaN of `+ - * /` gives NULL. Chosen where the manual is silent:
//!   tests/DISPUTED.md.
//! - ±Infinity propagates through `+ - * /` as IEEE 754 says (`1.0 + inf` is inf, `inf - inf`
//!   is NaN) but is never created from finite operands: `1.0/0` and an overflowing product
//!   are NULL ([`keep_special`]).
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
        v
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
        if v.is_nan() || v.is_infinite() { v as f32 } else { Self::from_f64(v) }
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

/// The NULL sentinel only: a NaN is a value here (isNull, isValid, count, printing).
#[inline(always)]
pub fn is_null_strict<T: Native>(x: T) -> bool {
    x.is_null() && !x.to_f64().is_nan()
}

/// Null test for f64 values computed from other types (NaN or sentinel): kernels use NaN
/// internally for "no value" in vectors they compute.
#[inline(always)]
pub fn f64_null(v: f64) -> bool {
    v == -f64::MAX || v.is_nan()
}

/// IEEE propagation of a computed float result: a finite `r` is kept; a NaN/±Infinity `r` is
/// kept only when some operand already was NaN/±Infinity (`special_in`), else it is an
/// overflow or an undefined operation and becomes NULL.
#[inline(always)]
pub fn keep_special(r: f64, special_in: bool) -> f64 {
    if r.is_finite() || special_in { r } else { <f64 as Native>::NULL }
}

/// Null of DECIMAL storage and of the unscaled i128 form DECIMAL kernels compute in
/// (`kernels::decimal::NULL`); INT128/UUID/IPADDR use i128's own null, 0.
pub const DECIMAL_NULL: i128 = i128::MIN;

pub const NULL_F64: f64 = <f64 as Native>::NULL;
pub const NULL_I32: i32 = <i32 as Native>::NULL;
pub const NULL_I64: i64 = <i64 as Native>::NULL;
pub const NULL_I8: i8 = <i8 as Native>::NULL;
