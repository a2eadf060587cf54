//! Console printing (LANGUAGE.md §3): the exact text DolphinDB's console shows for a value.
//!
//! * `num` (= `crate::elemfmt`, a layer below so kernels can use it): element texts
//!   (floats, CHAR, BOOL, 128-bit types, null literals);
//! * `grid`: tables and matrices;
//! * `expr`: syntax-tree unparsing for metacode and lambdas;
//! * this file: dispatch over the data forms, containers, functions.

mod expr;
mod grid;
use crate::elemfmt as num;
#[cfg(test)]
mod tests;

pub use expr::{expr_text, lambda_text, select_text};
pub use grid::{TABLE_HEAD_ROWS, TABLE_MAX_ROWS, TABLE_TAIL_ROWS, display_width, matrix_text, table_text};
pub use num::{
    FLOAT_DECIMALS, SCI_LOWER, SCI_UPPER, char_quoted, char_text, format_decimal, format_double,
    format_elem, format_elem_quoted, format_float, format_i128, format_scalar, null_literal,
};

use crate::column::Column;
use crate::value::{Dict, DictVals, Func, SetVal, Value};

/// Vectors longer than this print only their first `VEC_HEAD` and last `VEC_TAIL`
/// elements, with `...` between.
pub const VEC_MAX_PRINT: usize = 1024;
pub const VEC_HEAD: usize = 30;
pub const VEC_TAIL: usize = 10;

/// The one truncation rule of every form: an object with more than `max_*` rows
/// (tables, matrices, dictionary entries) or elements (vectors, tuples) shows its first
/// `head_*` and last `tail_*` with a `...` between. `width`: the terminal width tables
/// are fitted to (columns that do not fit become one `...` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_rows: usize,
    pub head_rows: usize,
    pub tail_rows: usize,
    pub max_elems: usize,
    pub head_elems: usize,
    pub tail_elems: usize,
    pub width: Option<usize>,
}

/// Scripts, `print` and `string`: large thresholds, no width limit.
pub const DEFAULT_LIMITS: Limits = Limits {
    max_rows: TABLE_MAX_ROWS,
    head_rows: TABLE_HEAD_ROWS,
    tail_rows: grid::TABLE_TAIL_ROWS,
    max_elems: VEC_MAX_PRINT,
    head_elems: VEC_HEAD,
    tail_elems: VEC_TAIL,
    width: None,
};

thread_local! {
    static LIMITS: std::cell::Cell<Limits> = const { std::cell::Cell::new(DEFAULT_LIMITS) };
}

/// The limits in force on this thread.
pub fn limits() -> Limits {
    LIMITS.with(|l| l.get())
}

/// Format under other limits (the interactive REPL), restoring the previous ones after.
pub fn with_limits<T>(l: Limits, f: impl FnOnce() -> T) -> T {
    let saved = LIMITS.with(|c| c.replace(l));
    let r = f();
    LIMITS.with(|c| c.set(saved));
    r
}

/// Indices of the items shown out of `n`, and after how many of them a `...` goes.
pub fn shown_indices(n: usize, max: usize, head: usize, tail: usize) -> (Vec<usize>, Option<usize>) {
    if n > max && head + tail < n {
        let idx: Vec<usize> = (0..head).chain(n - tail..n).collect();
        (idx, Some(head))
    } else {
        ((0..n).collect(), None)
    }
}
/// Indentation of a nested dictionary under its `key->` line.
pub const DICT_INDENT: &str = "    ";

/// The full text the console prints for a value (no trailing newline; the REPL adds
/// one). VOID prints as the empty string: the REPL should print nothing at all for it.
pub fn to_console(v: &Value, builtin_name: &dyn Fn(u32) -> String) -> String {
    let s = match v {
        Value::Void => String::new(),
        Value::Scalar(c) => format_scalar(c),
        Value::Vector(c) => vector_text(c),
        Value::Pair(c) => pair_text(c),
        Value::Matrix(m) => matrix_text(m),
        Value::Set(s) => set_text(s),
        Value::Dict(d) => dict_text(d, builtin_name),
        Value::Table(t) => table_text(t),
        Value::Tuple(items) => tuple_text(items, builtin_name),
        Value::Function(f) => func_text(f, builtin_name),
        Value::Type(t) => t.name().to_string(),
        Value::Duration(n, u) => format!("{n}{u}"),
        Value::Code(e) => format!("< {} >", expr_text(e)),
        Value::Handle(h) => h.display(),
        Value::Constant(name, _) => name.to_string(),
        Value::ArrayVector(a) => array_vector_text(a),
    };
    // a table/matrix value as the last dict entry leaves a blank line behind; a table or
    // matrix whose last row is all NULL ends in that (empty) row, which stays
    if !matches!(v, Value::Dict(_)) {
        return s;
    }
    let t = s.trim_end_matches('\n');
    if t.len() != s.len() { t.to_string() } else { s }
}

/// What `print(x)` writes (before its newline). DolphinDB's `print` shows the same text
/// as the console echo: strings raw at top level, quoted inside containers.
pub fn to_print(v: &Value, builtin_name: &dyn Fn(u32) -> String) -> String {
    to_console(v, builtin_name)
}

/// `[e0,e1,...]`: strings double-quoted, chars single-quoted, nulls empty; long vectors
/// are cut after `VEC_HEAD` elements.
pub fn vector_text(c: &Column) -> String {
    let l = limits();
    let (idx, cut) = shown_indices(c.len(), l.max_elems, l.head_elems, l.tail_elems);
    let mut s = String::with_capacity(2 + idx.len() * 4);
    s.push('[');
    for (k, &i) in idx.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        if cut == Some(k) {
            s.push_str("...,");
        }
        s.push_str(&format_elem_quoted(c, i));
    }
    s.push(']');
    s
}

/// `[[1,2],[3,4,5]]`: each row as a vector; an empty row prints as nothing (`[,[5]]`).
pub fn array_vector_text(a: &crate::value::ArrayVec) -> String {
    let n = a.rows();
    let shown = if n > VEC_MAX_PRINT { VEC_HEAD } else { n };
    let mut s = String::from("[");
    for r in 0..shown {
        if r > 0 {
            s.push(',');
        }
        if a.row_len(r) > 0 {
            s.push_str(&vector_text(&a.row(r)));
        }
    }
    if shown < n {
        s.push_str(",...");
    }
    s.push(']');
    s
}

/// `a : b` (strings quoted).
pub fn pair_text(c: &Column) -> String {
    let a = if c.is_empty() {
        String::new()
    } else {
        format_elem_quoted(c, 0)
    };
    let b = if c.len() < 2 {
        String::new()
    } else {
        format_elem_quoted(c, 1)
    };
    format!("{a} : {b}")
}

/// `set(4,3,5)`: members in reverse insertion order (DolphinDB prints hash order; the
/// documented examples agree with reverse insertion); a null member prints as its null
/// literal (`set(00i)`).
pub fn set_text(s: &SetVal) -> String {
    let c = &s.items;
    let parts: Vec<String> = (0..c.len())
        .rev()
        .map(|i| {
            if c.is_null(i) {
                null_literal(c.ty).to_string()
            } else {
                format_elem_quoted(c, i)
            }
        })
        .collect();
    format!("set({})", parts.join(","))
}

/// Text of a value inside a container (tuple element, pair, partial-application
/// argument): scalars unquoted except strings/chars, nulls empty.
pub fn nested_text(v: &Value, builtin_name: &dyn Fn(u32) -> String) -> String {
    match v {
        Value::Void => String::new(),
        Value::Scalar(c) => {
            if c.is_empty() {
                String::new()
            } else {
                format_elem_quoted(c, 0)
            }
        }
        Value::Table(_) | Value::Matrix(_) => format!("{}\n", to_console(v, builtin_name)),
        _ => to_console(v, builtin_name),
    }
}

/// `(e0,e1,...)`. A table or matrix element prints as its block; the next element then
/// starts on a new line with the comma.
pub fn tuple_text(items: &[Value], builtin_name: &dyn Fn(u32) -> String) -> String {
    // deep nesting prints its outer levels only (and stays linear in what is printed)
    let Some(_level) = crate::guard::Nest::print() else {
        return "(...)".to_string();
    };
    let l = limits();
    let (idx, cut) = shown_indices(items.len(), l.max_elems, l.head_elems, l.tail_elems);
    let mut s = String::from("(");
    for (k, &i) in idx.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        if cut == Some(k) {
            s.push_str("...,");
        }
        s.push_str(&nested_text(&items[i], builtin_name));
    }
    s.push(')');
    s
}

/// Text of a dictionary value after `key->`.
fn dict_value_text(v: &Value, builtin_name: &dyn Fn(u32) -> String) -> String {
    match v {
        Value::Void => String::new(),
        Value::Scalar(c) => {
            if c.is_empty() {
                String::new()
            } else {
                format_elem(c, 0)
            }
        }
        // blocks start on the next line and leave a blank line after them
        Value::Table(_) | Value::Matrix(_) => format!("\n{}\n", to_console(v, builtin_name)),
        Value::Dict(d) => {
            let inner = dict_text(d, builtin_name);
            let mut s = String::new();
            for line in inner.lines() {
                s.push('\n');
                if !line.is_empty() {
                    s.push_str(DICT_INDENT);
                    s.push_str(line);
                }
            }
            s
        }
        _ => to_console(v, builtin_name),
    }
}

/// One `key->value` line per entry. Ordered dictionaries print in insertion order,
/// unordered ones in reverse insertion order (DolphinDB prints hash order).
pub fn dict_text(d: &Dict, builtin_name: &dyn Fn(u32) -> String) -> String {
    let Some(_level) = crate::guard::Nest::print() else {
        return "...".to_string();
    };
    let n = d.keys.len();
    let order: Vec<usize> = if d.ordered {
        (0..n).collect()
    } else {
        (0..n).rev().collect()
    };
    let l = limits();
    let (shown, cut) = shown_indices(n, l.max_rows, l.head_rows, l.tail_rows);
    let order: Vec<usize> = shown.into_iter().map(|k| order[k]).collect();
    let mut s = String::new();
    for (k, i) in order.into_iter().enumerate() {
        if k > 0 {
            s.push('\n');
        }
        if cut == Some(k) {
            s.push_str("...\n");
        }
        s.push_str(&format_elem(&d.keys, i));
        s.push_str("->");
        match &d.vals {
            DictVals::Col(c) => {
                if i < c.len() {
                    s.push_str(&format_elem(c, i));
                }
            }
            DictVals::Any(vs) => {
                if let Some(v) = vs.get(i) {
                    s.push_str(&dict_value_text(v, builtin_name));
                }
            }
        }
    }
    s
}

/// Function values: a builtin prints its name; a named user function its definition
/// text; a lambda its regenerated definition; a closure `{def (captured, params)->body}{values}`;
/// a partial application `f{args}`; a template `f:E`.
pub fn func_text(f: &Func, builtin_name: &dyn Fn(u32) -> String) -> String {
    match f {
        Func::Builtin(id) => builtin_name(*id),
        Func::User(u) => {
            if u.captured.is_empty() {
                if u.def.name.is_some() {
                    u.def.text.clone()
                } else {
                    lambda_text(&u.def, &[])
                }
            } else {
                let names: Vec<&str> = u.captured.iter().map(|(n, _)| n.as_str()).collect();
                let vals: Vec<String> = u
                    .captured
                    .iter()
                    .map(|(_, v)| nested_text(v, builtin_name))
                    .collect();
                format!("{{{}}}{{{}}}", lambda_text(&u.def, &names), vals.join(", "))
            }
        }
        Func::Partial(inner, fixed, kw) => {
            let mut parts: Vec<String> = fixed
                .iter()
                .map(|a| match a.as_ref() {
                    Some(crate::value::Bound::Shared(name)) => name.to_string(),
                    Some(b) => b.peek().map(|v| nested_text(&v, builtin_name)).unwrap_or_default(),
                    None => String::new(),
                })
                .collect();
            parts.extend(
                kw.iter()
                    .map(|(k, v)| format!("{k}={}", nested_text(v, builtin_name))),
            );
            format!(
                "{}{{{}}}",
                callee_text(inner, builtin_name),
                parts.join(", ")
            )
        }
        Func::Template(inner, t) => format!("{}:{t}", callee_text(inner, builtin_name)),
    }
}

/// A function in callee position: lambdas and closures are wrapped in braces.
fn callee_text(f: &Func, builtin_name: &dyn Fn(u32) -> String) -> String {
    match f {
        Func::User(u) if u.def.name.is_none() && u.captured.is_empty() => {
            format!("{{{}}}", lambda_text(&u.def, &[]))
        }
        Func::User(u) if u.captured.is_empty() => u.def.name.clone().unwrap_or_default(),
        _ => func_text(f, builtin_name),
    }
}
