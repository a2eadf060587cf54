//! Builtins for longer text: `tokenize` and `recursiveSplitText`.
//!
//! No DolphinDB reference page was available for these two; the signatures follow the
//! common text-splitting conventions and are reported as such:
//! * `tokenize(text, [separators=" \t\r\n"], [keepEmpty=false])` splits at any of the
//!   separator characters and returns the tokens (a STRING vector; a tuple of vectors for a
//!   vector argument).
//! * `recursiveSplitText(text, [chunkSize=1000], [chunkOverlap=0],
//!   [separators=["\n\n", "\n", " ", ""]])` splits at the first separator that occurs,
//!   merges the pieces greedily into chunks of at most `chunkSize` characters (carrying up
//!   to `chunkOverlap` characters of context into the next chunk) and recurses into pieces
//!   that are still too long with the remaining separators.

use beluga_runtime::CallCtx;
use beluga_runtime::column::StrCol;
use beluga_runtime::registry::{fp, Builtin, Kind};
use beluga_runtime::{Error, Result, Value};

use crate::string::{check_text, str_col};
use crate::util::{describe, opt};

fn text_items(name: &str, v: &Value) -> Result<(Vec<String>, bool)> {
    match v {
        Value::Scalar(c) => {
            check_text(name, c)?;
            Ok((vec![c.str_at(0).unwrap_or("").to_string()], true))
        }
        Value::Vector(c) => {
            check_text(name, c)?;
            Ok(((0..c.len()).map(|i| c.str_at(i).unwrap_or("").to_string()).collect(), false))
        }
        other => Err(Error::unsupported(name, describe(other))),
    }
}

fn collect(parts: Vec<String>) -> Value {
    Value::Vector(str_col(StrCol::from_iter(parts.iter().map(|s| s.as_str()))))
}

fn tokenize(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let (texts, scalar) = text_items("tokenize", &a[0])?;
    let seps: Vec<char> = match opt(&a, 1) {
        None => vec![' ', '\t', '\r', '\n'],
        Some(v) => v.as_str().ok_or_else(|| Error::arg("The separators of [tokenize] must be a string"))?.chars().collect(),
    };
    let keep_empty = opt(&a, 2).and_then(|v| v.as_bool()).unwrap_or(false);
    let one = |s: &str| -> Value {
        let parts: Vec<String> = s.split(|c: char| seps.contains(&c)).filter(|p| keep_empty || !p.is_empty()).map(String::from).collect();
        collect(parts)
    };
    if scalar {
        Ok(one(&texts[0]))
    } else {
        Ok(Value::tuple(texts.iter().map(|s| one(s)).collect()))
    }
}

/// Characters of `s` (chunk sizes count characters, not bytes).
fn clen(s: &str) -> usize {
    s.chars().count()
}

/// The last `n` characters of `s`.
fn tail_chars(s: &str, n: usize) -> &str {
    let total = clen(s);
    if n >= total {
        return s;
    }
    let skip = total - n;
    let b = s.char_indices().nth(skip).map(|(b, _)| b).unwrap_or(s.len());
    &s[b..]
}

fn split_rec(text: &str, seps: &[String], size: usize, overlap: usize, out: &mut Vec<String>) {
    if clen(text) <= size {
        if !text.trim().is_empty() {
            out.push(text.to_string());
        }
        return;
    }
    // first separator present in the text ("" always matches: split into characters)
    let k = seps.iter().position(|s| s.is_empty() || text.contains(s.as_str())).unwrap_or(seps.len());
    let (sep, rest): (&str, &[String]) = match seps.get(k) {
        Some(s) => (s.as_str(), &seps[k + 1..]),
        None => ("", &[]),
    };
    let pieces: Vec<&str> = if sep.is_empty() {
        text.char_indices().map(|(b, c)| &text[b..b + c.len_utf8()]).collect()
    } else {
        text.split(sep).collect()
    };
    let mut cur = String::new();
    for p in pieces {
        if clen(p) > size {
            if !cur.trim().is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            cur.clear();
            split_rec(p, rest, size, overlap, out);
            continue;
        }
        let extra = if cur.is_empty() { 0 } else { clen(sep) };
        if !cur.is_empty() && clen(&cur) + extra + clen(p) > size {
            let carry = tail_chars(&cur, overlap).to_string();
            out.push(std::mem::take(&mut cur));
            if overlap > 0 && clen(&carry) + clen(sep) + clen(p) <= size {
                cur = carry;
            }
        }
        if !cur.is_empty() {
            cur.push_str(sep);
        }
        cur.push_str(p);
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
}

fn recursive_split_text(_: &mut CallCtx, a: Vec<Value>) -> Result<Value> {
    let name = "recursiveSplitText";
    let (texts, scalar) = text_items(name, &a[0])?;
    let size = match opt(&a, 1) {
        None => 1000,
        Some(v) => match v.as_i64() {
            Some(s) if s > 0 => s as usize,
            _ => return Err(Error::arg(format!("The chunkSize of [{name}] must be a positive integer"))),
        },
    };
    let overlap = match opt(&a, 2) {
        None => 0,
        Some(v) => match v.as_i64() {
            Some(o) if o >= 0 && (o as usize) < size => o as usize,
            _ => return Err(Error::arg(format!("The chunkOverlap of [{name}] must be a non-negative integer below chunkSize"))),
        },
    };
    let seps: Vec<String> = match opt(&a, 3) {
        None => vec!["\n\n".into(), "\n".into(), " ".into(), String::new()],
        Some(Value::Scalar(c)) | Some(Value::Vector(c)) if c.ty.is_literal() => {
            (0..c.len()).map(|i| c.str_at(i).unwrap_or("").to_string()).collect()
        }
        Some(other) => return Err(Error::arg(format!("The separators of [{name}] must be strings, not {}", describe(other)))),
    };
    let one = |s: &str| -> Value {
        let mut out = Vec::new();
        split_rec(s, &seps, size, overlap, &mut out);
        collect(out)
    };
    if scalar {
        Ok(one(&texts[0]))
    } else {
        Ok(Value::tuple(texts.iter().map(|s| one(s)).collect()))
    }
}

pub const DEFS: &[Builtin] = &[
    fp(
        "recursiveSplitText",
        Kind::System,
        1,
        4,
        recursive_split_text,
        &["text", "chunkSize", "chunkOverlap", "separators"],
    ),
    fp("tokenize", Kind::System, 1, 3, tokenize, &["text", "separators", "keepEmpty"]),
];

#[cfg(test)]
mod tests {
    use crate::string::run;

    #[test]
    fn string_text_splitting() {
        assert_eq!(run("tokenize(\"a b  c\")"), "[\"a\",\"b\",\"c\"]");
        assert_eq!(run("tokenize(\"a,b;c\", \",;\")"), "[\"a\",\"b\",\"c\"]");
        assert_eq!(run("recursiveSplitText(\"aaa bbb ccc ddd\", 7)"), "[\"aaa bbb\",\"ccc ddd\"]");
        assert_eq!(run("recursiveSplitText(\"abcdefghij\", 4)"), "[\"abcd\",\"efgh\",\"ij\"]");
        assert_eq!(run("recursiveSplitText(\"p1\\n\\np2\", 3)"), "[\"p1\",\"p2\"]");
    }
}
