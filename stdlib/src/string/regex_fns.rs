//! Builtins: `regexFind`, `regexFindStr`, `regexCount`, `regexReplace` over the
//! engines in `string_regex`. The pattern is compiled once per call; each string is
//! searched in place, in time linear in its length when the pattern allows.

use beluga_runtime::CallCtx;
use beluga_runtime::column::{Column, StrCol};
use beluga_runtime::eval::ops;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{DataType, Error, Result, Value};

use crate::string::{check_text, str_col, strings_to, Arg};
use crate::string_regex::{expand, Regex};
use crate::util::{describe, opt};

fn pattern_arg(name: &str, v: &Value) -> Result<Regex> {
    match v {
        Value::Scalar(c) if c.ty.is_literal() => Regex::new(c.str_at(0).unwrap_or("")),
        other => Err(Error::arg(format!("The pattern argument of [{name}] must be a string scalar, not {}", describe(other)))),
    }
}

fn offset_arg(name: &str, a: &[Value], i: usize) -> Result<usize> {
    match opt(a, i) {
        None => Ok(0),
        Some(v) => match v.as_i64() {
            Some(o) if o >= 0 => Ok(o as usize),
            _ => Err(Error::arg(format!("The offset argument of [{name}] must be a non-negative integer"))),
        },
    }
}

/// Apply a per-string function over any form of `str`, collecting the first error.
fn per_string<T: Copy>(
    name: &str,
    x: &Value,
    mut f: impl FnMut(&str) -> Result<T>,
    build: impl Fn(Vec<T>) -> Column,
    dflt: T,
) -> Result<Value> {
    let err: std::cell::RefCell<Option<Error>> = std::cell::RefCell::new(None);
    let mut calls = 0usize;
    let mut f = move |s: &str| {
        calls += 1;
        if calls % 1024 == 0 {
            beluga_runtime::guard::check()?;
        }
        f(s)
    };
    let f = std::cell::RefCell::new(&mut f);
    let r = ops::unary_col(x, &|c: &Column| {
        check_text(name, c)?;
        let v = strings_to(c, &mut |s| match (f.borrow_mut())(s) {
            Ok(v) => v,
            Err(e) => {
                err.borrow_mut().get_or_insert(e);
                dflt
            }
        });
        Ok(build(v))
    })?;
    match err.into_inner() {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

fn regex_find(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let re = pattern_arg("regexFind", &a[1])?;
    let off = offset_arg("regexFind", &a, 2)?;
    per_string(
        "regexFind",
        &a[0],
        |s| {
            if off > s.len() {
                return Ok(-1);
            }
            Ok(re.find_at(s, off)?.map(|(st, _, _)| st as i32).unwrap_or(-1))
        },
        |v| Column::from_vec(DataType::Int, v),
        i32::NULL,
    )
}

fn regex_count(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let re = pattern_arg("regexCount", &a[1])?;
    let off = offset_arg("regexCount", &a, 2)?;
    per_string(
        "regexCount",
        &a[0],
        |s| {
            if off > s.len() {
                return Ok(0);
            }
            Ok(re.count(s, off)? as i32)
        },
        |v| Column::from_vec(DataType::Int, v),
        i32::NULL,
    )
}

fn regex_replace(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let re = pattern_arg("regexReplace", &a[1])?;
    let rep = match &a[2] {
        Value::Scalar(c) if c.ty.is_literal() => c.str_at(0).unwrap_or("").to_string(),
        Value::Void => String::new(),
        other => return Err(Error::arg(format!("The replacement of [regexReplace] must be a string, not {}", describe(other)))),
    };
    let off = offset_arg("regexReplace", &a, 3)?;
    let err: std::cell::RefCell<Option<Error>> = std::cell::RefCell::new(None);
    let r = ops::unary_col(&a[0], &|c: &Column| {
        check_text("regexReplace", c)?;
        let mut out = StrCol::with_capacity(c.len(), 0);
        let mut buf = String::new();
        for i in 0..c.len() {
            if i % 1024 == 1023 {
                beluga_runtime::guard::check()?;
            }
            let s = c.str_at(i).unwrap_or("");
            if off > s.len() || !s.is_char_boundary(off) {
                out.push(s);
                continue;
            }
            buf.clear();
            let mut last = 0;
            let mut any = false;
            let r = re.for_each_match(s, off, true, rep.contains('$'), &mut |x, y, caps| {
                any = true;
                buf.push_str(&s[last..x]);
                expand(&rep, s, &caps, &mut buf);
                last = y;
                true
            });
            match r {
                Ok(()) if !any => out.push(s),
                Ok(()) => {
                    buf.push_str(&s[last..]);
                    out.push(&buf);
                }
                Err(e) => {
                    err.borrow_mut().get_or_insert(e);
                    out.push("");
                }
            }
        }
        Ok(str_col(out))
    })?;
    match err.into_inner() {
        Some(e) => Err(e),
        None => Ok(r),
    }
}

fn regex_find_str(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let re = pattern_arg("regexFindStr", &a[1])?;
    let only_first = match opt(&a, 2) {
        None => true,
        Some(v) => v.as_bool().ok_or_else(|| Error::arg("The onlyFirst argument of [regexFindStr] must be a boolean"))?,
    };
    let off = offset_arg("regexFindStr", &a, 3)?;
    let all = |s: &str| -> Result<Column> {
        let mut out = StrCol::new();
        if off <= s.len() {
            for (x, y, _) in re.find_all_caps(s, off, false, false)? {
                out.push(&s[x..y]);
            }
        }
        Ok(str_col(out))
    };
    let first = |s: &str, out: &mut StrCol| -> Result<()> {
        if off <= s.len() {
            let mut hit = None;
            re.for_each_match(s, off, false, false, &mut |x, y, _| {
                hit = Some((x, y));
                false
            })?;
            if let Some((x, y)) = hit {
                out.push(&s[x..y]);
                return Ok(());
            }
        }
        out.push("");
        Ok(())
    };
    let x = Arg::of("regexFindStr", &a[0])?;
    check_text("regexFindStr", &x.col)?;
    if only_first {
        let mut out = StrCol::with_capacity(x.col.len(), 0);
        for i in 0..x.col.len() {
            first(x.text(i), &mut out)?;
        }
        let c = str_col(out);
        Ok(if x.scalar { Value::Scalar(c) } else { Value::Vector(c) })
    } else if x.scalar {
        Ok(Value::Vector(all(x.text(0))?))
    } else {
        let items: Vec<Value> = (0..x.col.len()).map(|i| all(x.text(i)).map(Value::Vector)).collect::<Result<_>>()?;
        Ok(Value::tuple(items))
    }
}

pub const DEFS: &[Builtin] = &[
    fp("regexCount", Kind::Elementwise, 2, 3, regex_count, &["str", "pattern", "offset"]),
    fp("regexFind", Kind::Elementwise, 2, 3, regex_find, &["str", "pattern", "offset"]),
    fp("regexFindStr", Kind::Elementwise, 2, 4, regex_find_str, &["str", "pattern", "onlyFirst", "offset"]),
    fp("regexReplace", Kind::Elementwise, 3, 4, regex_replace, &["str", "pattern", "replacement", "offset"]),
];

#[cfg(test)]
mod tests {
    #[test]
    fn regex_builtins() {
        use crate::string::run;
        assert_eq!(run("regexReplace(\"abc234 ff456\", \"[a-z]+\", \"zzz\")"), "zzz234 zzz456");
        assert_eq!(run("regexFind(\"1231hsdU777_ DW#122ddd\", \"[0-9]+\", 4)"), "8");
        assert_eq!(run("regexCount(\"1231hsdU777_ DW#122ddd\", \"[0-9]+\")"), "3");
        assert_eq!(run("regexCount(\"abc234 ff456\", \"[a-z]\", 3)"), "2");
        assert_eq!(run("regexFindStr('234AA(2)BBB S&P', '([A|B|C|+|-]*)', true)"), "AA");
        assert_eq!(run("regexFindStr('234AA(2)BBB S&P', '([A|B|C|+|-]*)', false)"), "[\"AA\",\"BBB\"]");
        assert_eq!(run("regexReplace(\"2021-01-05\", \"(\\\\d+)-(\\\\d+)-(\\\\d+)\", \"$3/$2/$1\")"), "05/01/2021");
    }
}
