//! Builtins: string family (length, slicing, case, trimming, padding, search, split/join).
//!
//! Kernels read STRING/SYMBOL columns in place (`StrCol` bytes + offsets, symbol codes) and
//! write into one output buffer (helpers in `string_core`); SYMBOL inputs are transformed
//! once per distinct name.

use beluga_runtime::CallCtx;
use beluga_runtime::column::{ColData, Column, StrCol};
use beluga_runtime::eval::ops;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{f, fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};

pub(crate) use crate::string_core::{
    apply_n, char_offset, check_text, common_len, floor_boundary, str_col, strings_to, text_int, text_map,
    text_pred, Arg,
};
use crate::util::describe;

// ---------------------------------------------------------------- length

fn strlen(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_int("strlen", &a[0], &|s| s.len() as i32)
}

fn strlenu(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_int("strlenu", &a[0], &|s| s.chars().count() as i32)
}

// ---------------------------------------------------------------- slicing

/// substr/substru core: byte (or char) offset and optional length.
fn substr_impl(name: &'static str, a: &[Value], chars: bool) -> Result<Value> {
    let extras: Vec<Value> = a[1..].to_vec();
    apply_n(name, &a[0], &extras, &|x, ex, n| {
        check_text(name, &x.col)?;
        let off = ex[0].ints(name, "offset")?;
        let len = match ex.get(1) {
            Some(l) if l.col.ty != DataType::Void || !l.scalar => Some(l.ints(name, "length")?),
            _ => None,
        };
        let (so, sl) = (ex[0].scalar, ex.get(1).map(|l| l.scalar).unwrap_or(true));
        let mut out = StrCol::with_capacity(n, 0);
        for i in 0..n {
            let s = x.text(i);
            let o = off[if so { 0 } else { i }];
            let l = len.as_ref().map(|v| v[if sl { 0 } else { i }]);
            if s.is_empty() || o.is_null() || l.is_some_and(|l| l.is_null()) {
                out.push("");
                continue;
            }
            let o = o.max(0) as usize;
            let (start, end) = if chars {
                let st = char_offset(s, o);
                let en = match l {
                    Some(l) if l >= 0 => st + char_offset(&s[st..], l as usize),
                    Some(_) => st,
                    None => s.len(),
                };
                (st, en)
            } else {
                let st = o.min(s.len());
                let en = match l {
                    Some(l) if l >= 0 => st.saturating_add(l as usize).min(s.len()),
                    Some(_) => st,
                    None => s.len(),
                };
                (floor_boundary(s, st), floor_boundary(s, en))
            };
            out.push(&s[start..end.max(start)]);
        }
        Ok(str_col(out))
    })
}

fn substr(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    substr_impl("substr", &a, false)
}

fn substru(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    substr_impl("substru", &a, true)
}

fn left_right(name: &'static str, a: &[Value], left: bool) -> Result<Value> {
    apply_n(name, &a[0], &a[1..2], &|x, ex, n| {
        check_text(name, &x.col)?;
        let k = ex[0].ints(name, "length")?;
        let mut out = StrCol::with_capacity(n, 0);
        for i in 0..n {
            let s = x.text(i);
            let k = k[ex[0].idx(i)];
            if k.is_null() || k <= 0 {
                out.push("");
                continue;
            }
            let k = k as usize;
            if left {
                out.push(&s[..floor_boundary(s, k)]);
            } else {
                let st = s.len().saturating_sub(k);
                let mut st = st;
                while st < s.len() && !s.is_char_boundary(st) {
                    st += 1;
                }
                out.push(&s[st..]);
            }
        }
        Ok(str_col(out))
    })
}

fn left(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    left_right("left", &a, true)
}

fn right(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    left_right("right", &a, false)
}

// ---------------------------------------------------------------- case and trimming

fn upper(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_map("upper", &a[0], &|s, o| {
        o.push_str(s);
        o.make_ascii_uppercase();
    })
}

fn lower(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_map("lower", &a[0], &|s, o| {
        o.push_str(s);
        o.make_ascii_lowercase();
    })
}

fn trim(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_map("trim", &a[0], &|s, o| o.push_str(s.trim_matches(' ')))
}

fn ltrim(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_map("ltrim", &a[0], &|s, o| o.push_str(s.trim_start_matches(' ')))
}

fn rtrim(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_map("rtrim", &a[0], &|s, o| o.push_str(s.trim_end_matches(' ')))
}

fn strip(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_map("strip", &a[0], &|s, o| o.push_str(s.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c'))))
}

// ---------------------------------------------------------------- padding and repetition

fn pad(name: &'static str, a: &[Value], left: bool) -> Result<Value> {
    if a.len() > 2 && !matches!(a[2], Value::Scalar(_) | Value::Void) {
        return Err(Error::arg(format!("The pattern argument of [{name}] must be a string scalar")));
    }
    let pattern: String = match a.get(2) {
        Some(Value::Scalar(c)) => {
            check_text(name, c)?;
            c.str_at(0).unwrap_or("").to_string()
        }
        _ => " ".to_string(),
    };
    if pattern.is_empty() {
        return Err(Error::arg(format!("The pattern argument of [{name}] can't be empty")));
    }
    let pat: Vec<char> = pattern.chars().collect();
    apply_n(name, &a[0], &a[1..2], &|x, ex, n| {
        check_text(name, &x.col)?;
        let k = ex[0].ints(name, "length")?;
        let mut out = StrCol::with_capacity(n, 0);
        let mut buf = String::new();
        for i in 0..n {
            let s = x.text(i);
            let k = k[ex[0].idx(i)];
            if k.is_null() || k < 0 || s.is_empty() {
                out.push("");
                continue;
            }
            if k > 1 << 28 {
                return Err(Error::arg(format!("The length argument of [{name}] is too large")));
            }
            let k = k as usize;
            let have = s.chars().count();
            buf.clear();
            if have >= k {
                buf.push_str(&s[..char_offset(s, k)]);
            } else {
                let fill = k - have;
                if !left {
                    buf.push_str(s);
                }
                for j in 0..fill {
                    buf.push(pat[j % pat.len()]);
                }
                if left {
                    buf.push_str(s);
                }
            }
            out.push(&buf);
        }
        Ok(str_col(out))
    })
}

fn lpad(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    pad("lpad", &a, true)
}

fn rpad(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    pad("rpad", &a, false)
}

fn repeat(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    apply_n("repeat", &a[0], &a[1..2], &|x, ex, n| {
        check_text("repeat", &x.col)?;
        let k = ex[0].ints("repeat", "n")?;
        let mut out = StrCol::with_capacity(n, 0);
        let mut buf = String::new();
        for i in 0..n {
            let s = x.text(i);
            let k = k[ex[0].idx(i)];
            if k.is_null() || k <= 0 {
                out.push("");
                continue;
            }
            if (s.len() as u128) * (k as u128) > (1u128 << 31) {
                return Err(Error::arg("The result of [repeat] is too long"));
            }
            buf.clear();
            for _ in 0..k {
                buf.push_str(s);
            }
            out.push(&buf);
        }
        Ok(str_col(out))
    })
}

// ---------------------------------------------------------------- characters

fn char_at(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    apply_n("charAt", &a[0], &a[1..2], &|x, ex, n| {
        check_text("charAt", &x.col)?;
        let k = ex[0].ints("charAt", "index")?;
        let r: Vec<i8> = (0..n)
            .map(|i| {
                let s = x.text(i).as_bytes();
                let k = k[ex[0].idx(i)];
                if k.is_null() || k < 0 || k as usize >= s.len() {
                    i8::NULL
                } else {
                    s[k as usize] as i8
                }
            })
            .collect();
        Ok(Column::from_vec(DataType::Char, r))
    })
}

fn to_char_array(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let one = |s: &str| -> Column { Column::from_vec(DataType::Char, s.bytes().map(|b| b as i8).collect::<Vec<i8>>()) };
    match &a[0] {
        Value::Scalar(c) => {
            check_text("toCharArray", c)?;
            Ok(Value::Vector(one(c.str_at(0).unwrap_or(""))))
        }
        Value::Vector(c) => {
            check_text("toCharArray", c)?;
            Ok(Value::tuple((0..c.len()).map(|i| Value::Vector(one(c.str_at(i).unwrap_or("")))).collect()))
        }
        Value::Void => Ok(Value::Vector(Column::from_vec(DataType::Char, Vec::<i8>::new()))),
        other => Err(Error::unsupported("toCharArray", describe(other))),
    }
}

// ---------------------------------------------------------------- search

fn starts_ends(name: &'static str, a: &[Value], starts: bool) -> Result<Value> {
    apply_n(name, &a[0], &a[1..2], &|x, ex, n| {
        check_text(name, &x.col)?;
        if !ex[0].is_text() {
            return Err(Error::unsupported(name, ex[0].col.ty));
        }
        let r: Vec<i8> = (0..n)
            .map(|i| {
                let (s, p) = (x.text(i), ex[0].text(i));
                (if starts { s.starts_with(p) } else { s.ends_with(p) }) as i8
            })
            .collect();
        Ok(Column::from_vec(DataType::Bool, r))
    })
}

fn starts_with(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    starts_ends("startsWith", &a, true)
}

fn ends_with(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    starts_ends("endsWith", &a, false)
}

fn strpos(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    apply_n("strpos", &a[0], &a[1..2], &|x, ex, n| {
        check_text("strpos", &x.col)?;
        if !ex[0].is_text() {
            return Err(Error::unsupported("strpos", ex[0].col.ty));
        }
        let r: Vec<i32> = (0..n)
            .map(|i| {
                let (s, p) = (x.text(i), ex[0].text(i));
                s.find(p).map(|k| k as i32).unwrap_or(-1)
            })
            .collect();
        Ok(Column::from_vec(DataType::Int, r))
    })
}

fn str_replace(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    apply_n("strReplace", &a[0], &a[1..3], &|x, ex, n| {
        check_text("strReplace", &x.col)?;
        if !ex[0].is_text() || !ex[1].is_text() {
            return Err(Error::arg("The pattern and replacement of [strReplace] must be strings"));
        }
        let mut out = StrCol::with_capacity(n, 0);
        let mut buf = String::new();
        for i in 0..n {
            let (s, p, r) = (x.text(i), ex[0].text(i), ex[1].text(i));
            if p.is_empty() || !s.contains(p) {
                out.push(s);
                continue;
            }
            buf.clear();
            let mut last = 0;
            for (k, _) in s.match_indices(p) {
                buf.push_str(&s[last..k]);
                buf.push_str(r);
                last = k + p.len();
            }
            buf.push_str(&s[last..]);
            out.push(&buf);
        }
        Ok(str_col(out))
    })
}

// ---------------------------------------------------------------- join and split

/// Text of element i of a STRING/CHAR/other column as concat sees it (nulls → "").
fn push_elem_text(buf: &mut String, c: &Column, i: usize) {
    if c.is_null(i) {
        return;
    }
    match &*c.data {
        ColData::Str(_) | ColData::Sym(_) => buf.push_str(c.str_at(i).unwrap_or("")),
        ColData::I8(v) if c.ty == DataType::Char => buf.push(v[i] as u8 as char),
        _ => buf.push_str(&beluga_runtime::fmt::format_elem(c, i)),
    }
}

fn concat(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let y = a.get(1).cloned().unwrap_or(Value::Void);
    let mut sep = String::new();
    match &y {
        Value::Void => {}
        Value::Scalar(c) => push_elem_text(&mut sep, c, 0),
        other => return Err(Error::arg(format!("The second argument of [concat] must be a scalar, not {}", describe(other)))),
    }
    match &a[0] {
        Value::Void => Ok(Value::string(&sep)),
        Value::Scalar(c) => {
            let mut buf = String::new();
            push_elem_text(&mut buf, c, 0);
            buf.push_str(&sep);
            Ok(Value::string(&buf))
        }
        Value::Vector(c) => {
            let mut buf = String::new();
            for i in 0..c.len() {
                if i > 0 {
                    buf.push_str(&sep);
                }
                push_elem_text(&mut buf, c, i);
            }
            Ok(Value::string(&buf))
        }
        other => Err(Error::unsupported("concat", describe(other))),
    }
}

/// Parts of `s` split by `d` (whole-string delimiter); no delimiter → characters.
fn split_one<'a>(s: &'a str, d: &str) -> Vec<&'a str> {
    if d.is_empty() {
        return s.char_indices().map(|(k, ch)| &s[k..k + ch.len_utf8()]).collect();
    }
    s.split(d).collect()
}

fn split(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let delim: Option<String> = match a.get(1) {
        None | Some(Value::Void) => None,
        Some(Value::Scalar(c)) => {
            let mut d = String::new();
            push_elem_text(&mut d, c, 0);
            Some(d)
        }
        Some(other) => return Err(Error::arg(format!("The delimiter of [split] must be a scalar, not {}", describe(other)))),
    };
    match &a[0] {
        Value::Scalar(c) => {
            check_text("split", c)?;
            let s = c.str_at(0).unwrap_or("");
            match &delim {
                None => Ok(Value::Vector(Column::from_vec(DataType::Char, s.bytes().map(|b| b as i8).collect::<Vec<i8>>()))),
                Some(d) => Ok(Value::Vector(str_col(StrCol::from_iter(split_one(s, d))))),
            }
        }
        Value::Vector(c) => {
            check_text("split", c)?;
            // an array vector in DolphinDB; here a columnar tuple: column j holds part j of each
            // row (rows with fewer parts get empty strings)
            let d = delim.unwrap_or_default();
            let parts: Vec<Vec<&str>> = (0..c.len()).map(|i| split_one(c.str_at(i).unwrap_or(""), &d)).collect();
            let width = parts.iter().map(|p| p.len()).max().unwrap_or(0);
            let cols: Vec<Value> = (0..width)
                .map(|j| {
                    let mut out = StrCol::with_capacity(parts.len(), 0);
                    for p in &parts {
                        out.push(p.get(j).copied().unwrap_or(""));
                    }
                    Value::Vector(str_col(out))
                })
                .collect();
            Ok(Value::tuple(cols))
        }
        Value::Void => Ok(Value::Vector(str_col(StrCol::new()))),
        other => Err(Error::unsupported("split", describe(other))),
    }
}

// ---------------------------------------------------------------- pattern matching

fn like_impl(name: &str, a: &[Value], ci: bool) -> Result<Value> {
    ops::elementwise(&a[0], &a[1], &|x: &Column, sx: bool, p: &Column, sp: bool| {
        check_text(name, x)?;
        check_text(name, p)?;
        ops::like_column(name, x, sx, p, sp, ci, false)
    })
}

fn like(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    like_impl("like", &a, false)
}

fn ilike(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    like_impl("ilike", &a, true)
}

// ---------------------------------------------------------------- character classes

fn initcap(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_map("initcap", &a[0], &|s, o| {
        let mut prev_alnum = false;
        for ch in s.chars() {
            if prev_alnum {
                o.extend(ch.to_lowercase());
            } else {
                o.extend(ch.to_uppercase());
            }
            prev_alnum = ch.is_alphanumeric();
        }
    })
}

fn is_alnum(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_pred("isAlNum", &a[0], &|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric()))
}

fn is_alpha(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_pred("isAlpha", &a[0], &|s| !s.is_empty() && s.chars().all(|c| c.is_alphabetic()))
}

fn is_digit(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_pred("isDigit", &a[0], &|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()))
}

fn is_numeric(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_pred("isNumeric", &a[0], &|s| !s.is_empty() && s.chars().all(|c| c.is_numeric()))
}

fn is_space(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_pred("isSpace", &a[0], &|s| !s.is_empty() && s.chars().all(|c| c.is_whitespace()))
}

fn is_lower(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_pred("isLower", &a[0], &|s| s.chars().any(|c| c.is_lowercase()) && !s.chars().any(|c| c.is_uppercase()))
}

fn is_upper(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_pred("isUpper", &a[0], &|s| s.chars().any(|c| c.is_uppercase()) && !s.chars().any(|c| c.is_lowercase()))
}

/// Title case: every cased run starts with an uppercase letter followed only by lowercase.
fn title_case(s: &str) -> bool {
    let mut seen = false;
    let mut prev_cased = false;
    for c in s.chars() {
        if c.is_uppercase() {
            if prev_cased {
                return false;
            }
            prev_cased = true;
            seen = true;
        } else if c.is_lowercase() {
            if !prev_cased {
                return false;
            }
            prev_cased = true;
            seen = true;
        } else {
            prev_cased = false;
        }
    }
    seen
}

fn is_title(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    text_pred("isTitle", &a[0], &title_case)
}

pub const DEFS: &[Builtin] = &[
    fp("charAt", Kind::Elementwise, 2, 2, char_at, &["X", "index"]),
    fp("concat", Kind::Elementwise, 1, 2, concat, &["X", "Y"]),
    fp("endsWith", Kind::Elementwise, 2, 2, ends_with, &["X", "str"]),
    fp("ilike", Kind::Elementwise, 2, 2, ilike, &["X", "pattern"]),
    f("initcap", Kind::Elementwise, 1, 1, initcap),
    f("isAlNum", Kind::Elementwise, 1, 1, is_alnum),
    f("isAlpha", Kind::Elementwise, 1, 1, is_alpha),
    f("isDigit", Kind::Elementwise, 1, 1, is_digit),
    f("isLower", Kind::Elementwise, 1, 1, is_lower),
    f("isNumeric", Kind::Elementwise, 1, 1, is_numeric),
    f("isSpace", Kind::Elementwise, 1, 1, is_space),
    f("isTitle", Kind::Elementwise, 1, 1, is_title),
    f("isUpper", Kind::Elementwise, 1, 1, is_upper),
    fp("left", Kind::Elementwise, 2, 2, left, &["X", "n"]),
    fp("like", Kind::Elementwise, 2, 2, like, &["X", "pattern"]),
    f("lower", Kind::Elementwise, 1, 1, lower),
    fp("lpad", Kind::Elementwise, 2, 3, lpad, &["str", "length", "pattern"]),
    f("ltrim", Kind::Elementwise, 1, 1, ltrim),
    fp("repeat", Kind::Elementwise, 2, 2, repeat, &["X", "n"]),
    fp("right", Kind::Elementwise, 2, 2, right, &["X", "n"]),
    fp("rpad", Kind::Elementwise, 2, 3, rpad, &["str", "length", "pattern"]),
    f("rtrim", Kind::Elementwise, 1, 1, rtrim),
    fp("split", Kind::Elementwise, 1, 2, split, &["str", "delimiter"]),
    fp("startsWith", Kind::Elementwise, 2, 2, starts_with, &["X", "str"]),
    f("strip", Kind::Elementwise, 1, 1, strip),
    f("strlen", Kind::Elementwise, 1, 1, strlen),
    f("strlenu", Kind::Elementwise, 1, 1, strlenu),
    fp("strpos", Kind::Elementwise, 2, 2, strpos, &["X", "str"]),
    fp("strReplace", Kind::Elementwise, 3, 3, str_replace, &["str", "pattern", "replacement"]),
    fp("substr", Kind::Elementwise, 2, 3, substr, &["X", "offset", "length"]),
    fp("substru", Kind::Elementwise, 2, 3, substru, &["X", "offset", "length"]),
    f("toCharArray", Kind::Elementwise, 1, 1, to_char_array),
    f("trim", Kind::Elementwise, 1, 1, trim),
    f("upper", Kind::Elementwise, 1, 1, upper),
];

/// Run a script through a fresh interpreter with every stdlib builtin; the printed output
/// without the final newline.
#[cfg(test)]
pub(crate) fn run(src: &str) -> String {
    let mut r = beluga_runtime::Registry::new();
    crate::register(&mut r);
    let mut i = beluga_runtime::Interpreter::new(r);
    let out = i.run_repl_text(src);
    out.strip_suffix('\n').unwrap_or(&out).to_string()
}

#[cfg(test)]
mod tests {
    use super::run;

    /// Every string over {a, b} (length <= 4) against every pattern over {a, b, %, _}
    /// (length <= 4): the compiled matcher agrees with a plain recursive definition of LIKE.
    #[test]
    fn string_like_matches_reference() {
        fn all(alpha: &[char], max: usize) -> Vec<String> {
            let mut out = vec![String::new()];
            let mut level = vec![String::new()];
            for _ in 0..max {
                level = level.iter().flat_map(|s| alpha.iter().map(move |c| format!("{s}{c}"))).collect();
                out.extend(level.iter().cloned());
            }
            out
        }
        fn reference(s: &[char], p: &[char]) -> bool {
            match p.first() {
                None => s.is_empty(),
                Some('%') => (0..=s.len()).any(|k| reference(&s[k..], &p[1..])),
                Some(&c) => !s.is_empty() && (c == '_' || c == s[0]) && reference(&s[1..], &p[1..]),
            }
        }
        let strs = all(&['a', 'b'], 4);
        let pats = all(&['a', 'b', '%', '_'], 4);
        for p in &pats {
            let lp = beluga_runtime::eval::ops::LikePat::new(p, false);
            let pc: Vec<char> = p.chars().collect();
            for s in &strs {
                let sc: Vec<char> = s.chars().collect();
                assert_eq!(lp.matches(s), reference(&sc, &pc), "{s} like {p}");
            }
        }
    }

    #[test]
    fn string_basics() {
        assert_eq!(run("strlen('abcdefg')"), "7");
        assert_eq!(run("strlen([\"abc\",\"123456789\"])"), "[3,9]");
        assert_eq!(run("substr(\"This is a test\", 5, 2)"), "is");
        assert_eq!(run("substr(\"This is a test\", 8, 100)"), "a test");
        assert_eq!(run("substr(\"This is a test\", 5)"), "is a test");
        assert_eq!(run("left(\"I love this game!\", 6)"), "I love");
        assert_eq!(run("right(\"I love this game!\", 6)"), " game!");
        assert_eq!(run("upper(`Ibm`C`AapL)"), "[\"IBM\",\"C\",\"AAPL\"]");
        assert_eq!(run("trim([\"  t1\", \" t2 \"])"), "[\"t1\",\"t2\"]");
        assert_eq!(run("lpad(`Hello, 12, `0)"), "0000000Hello");
        assert_eq!(run("rpad(\"Hello\", 2)"), "He");
        assert_eq!(run("repeat(`AB`CD, 2)"), "[\"ABAB\",\"CDCD\"]");
        assert_eq!(run("charAt([\"hello\",\"world\"], [3,4])"), "['l','d']");
        assert_eq!(run("strpos(\"abcdefg\", \"ah\")"), "-1");
        assert_eq!(run("strReplace(\"The ball is red.\", \"red\", \"green\")"), "The ball is green.");
        assert_eq!(run("concat(`IBM`GOOG`APPL, \",\")"), "IBM,GOOG,APPL");
        assert_eq!(run("split(`xyz1, `xyz)"), "[,\"1\"]");
        assert_eq!(run("initcap(\"nihao, hello@you\")"), "Nihao, Hello@You");
        assert_eq!(run("initcap(\"1aBBBBBB\")"), "1abbbbbb");
        assert_eq!(run("isDigit(\"10.05\")"), "false");
        assert_eq!(run("isTitle(\"Hello World\")"), "true");
        assert_eq!(run("upper(symbol(`a`b`a))"), "[\"A\",\"B\",\"A\"]");
        assert_eq!(run("strlen(string())"), "0");
        assert_eq!(run("like(`ABCDEFG, \"%DE%\")"), "true");
        assert_eq!(run("like(`ABCDEFG, `DE)"), "false");
        assert_eq!(run("ilike(`IBM`ibm`MSFT`Goog`YHOO`ORCL, \"%oo%\")"), "[false,false,false,true,true,false]");
        assert_eq!(run("like(\"añb\", \"a_b\")"), "true");
        assert_eq!(run("like(\"abc\", \"a%c%\")"), "true");
    }
}

// The family's other files (stdlib/src/string/); lib.rs keeps the old flat paths as aliases.
pub mod base;
pub mod format;
pub mod regex;
pub mod regex_fns;
pub mod text;

/// Register every row of this family: this module's and its files'.
pub fn register(r: &mut beluga_runtime::Registry) {
    [DEFS, regex_fns::DEFS, format::DEFS, text::DEFS].iter().for_each(|defs| r.extend(defs));
}
