//! Builtin documentation: the table `docs.tsv` (name, category, syntax, one-line doc,
//! example) joined with the registry by name. It feeds `help(name)` / `?name` in the REPL,
//! `help()`'s topic list and the generated `docs/reference.md`. The syntax column may be
//! left empty: it is then derived from the registry's parameter names and arity.

use beluga_runtime::CallCtx;
use beluga_runtime::registry::Kind;
use beluga_runtime::{Builtin, Error, Func, Interpreter, Registry, Result, Value};
use std::sync::OnceLock;

/// One row of docs.tsv.
#[derive(Debug, Clone, Copy)]
pub struct Doc {
    pub name: &'static str,
    pub category: &'static str,
    pub syntax: &'static str,
    pub doc: &'static str,
    pub example: &'static str,
}

const TSV: &str = include_str!("docs.tsv");

/// Every documented builtin, in table order.
pub fn all() -> &'static [Doc] {
    static DOCS: OnceLock<Vec<Doc>> = OnceLock::new();
    DOCS.get_or_init(|| {
        TSV.lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let mut f = l.split('\t');
                let mut next = || f.next().unwrap_or("").trim();
                Doc { name: next(), category: next(), syntax: next(), doc: next(), example: next() }
            })
            .collect()
    })
}

pub fn find(name: &str) -> Option<&'static Doc> {
    // indexed once: every registered row is joined with its doc by name
    static BY_NAME: OnceLock<std::collections::HashMap<&'static str, usize>> = OnceLock::new();
    let index = BY_NAME.get_or_init(|| all().iter().enumerate().rev().map(|(k, d)| (d.name, k)).collect());
    index.get(name).map(|&k| &all()[k])
}

/// Topics (categories) with their function counts, sorted by name.
pub fn topics() -> Vec<(&'static str, usize)> {
    let mut v: Vec<(&str, usize)> = Vec::new();
    for d in all() {
        match v.iter_mut().find(|(c, _)| *c == d.category) {
            Some(e) => e.1 += 1,
            None => v.push((d.category, 1)),
        }
    }
    v.sort();
    v
}

/// `name(X, window, [minPeriods])`: the table's syntax, else built from the registry's
/// parameter names (generic X, Y, Z… when it has none); arguments past the minimum
/// are optional.
pub fn syntax(reg: &Registry, name: &str) -> String {
    if let Some(d) = find(name).filter(|d| !d.syntax.is_empty()) {
        return d.syntax.to_string();
    }
    let Some(id) = reg.lookup(name) else { return format!("{name}(...)") };
    let b = reg.get(id);
    const GENERIC: [&str; 6] = ["X", "Y", "Z", "a", "b", "c"];
    let shown = if b.max == u8::MAX { (b.min as usize).max(1) } else { b.max as usize };
    let mut parts: Vec<String> = (0..shown)
        .map(|k| {
            let p = b.params.get(k).copied().unwrap_or_else(|| GENERIC.get(k).copied().unwrap_or("arg"));
            if k >= b.min as usize { format!("[{p}]") } else { p.to_string() }
        })
        .collect();
    if b.max == u8::MAX {
        parts.push("...".into());
    }
    format!("{name}({})", parts.join(", "))
}

/// Run an example in a fresh session of the same registry; its console text.
pub fn run_example(i: &CallCtx, example: &str) -> String {
    let mut s = Interpreter::with_registry(i.registry().clone());
    s.run_repl_text(example)
}

fn indent(text: &str, by: &str) -> String {
    text.trim_end().lines().map(|l| format!("{by}{l}")).collect::<Vec<_>>().join("\n")
}

/// The list of a topic's functions, or None when `name` is no topic.
fn topic_text(name: &str) -> Option<String> {
    let topic: Vec<&Doc> = all().iter().filter(|d| d.category == name).collect();
    if topic.is_empty() {
        return None;
    }
    let w = topic.iter().map(|d| d.name.len()).max().unwrap_or(0);
    let mut out = format!("{name}: {} functions (help(name) for one of them)", topic.len());
    for d in topic {
        out.push_str(&format!("\n  {:w$}  {}", d.name, d.doc));
    }
    Some(out)
}

/// The text `help(name)` prints. A function comes first; when a topic has the same name
/// (`string`), a last line points to it; `help("topic:NAME")` always lists the topic.
pub fn help_text(i: &Interpreter, name: &str) -> String {
    let reg = &i.registry;
    if let Some(t) = name.strip_prefix("topic:") {
        let t = t.trim();
        return topic_text(t).unwrap_or_else(|| match beluga_runtime::suggest::closest(t, topics().into_iter().map(|(c, _)| c)) {
            Some(s) => format!("No topic `{t}`. Did you mean `topic:{s}`?"),
            None => format!("No topic `{t}`. help() lists the topics."),
        });
    }
    if reg.lookup(name).is_some() {
        let mut out = help_function(i, name);
        if topic_text(name).is_some() {
            out = format!("{}\n\n  (`{name}` is also a topic: help(\"topic:{name}\") lists its functions)", out.trim_end());
        }
        return out;
    }
    if let Some(t) = topic_text(name) {
        return t;
    }
    help_rest(i, name)
}

fn help_function(i: &CallCtx, name: &str) -> String {
    let reg = &i.registry();
    {
        let mut out = syntax(reg, name);
        match find(name) {
            Some(d) => {
                out.push_str(&format!("    [{}]\n  {}", d.category, d.doc));
                if !d.example.is_empty() {
                    out.push_str(&format!("\n\n  example:\n    {}\n", d.example));
                    out.push_str(&indent(&run_example(i, d.example), "    "));
                }
            }
            None => out.push_str("\n  (no description yet; see DolphinDB's manual for this function)"),
        }
        out
    }
}

fn help_rest(i: &Interpreter, name: &str) -> String {
    let reg = &i.registry;
    if let Some(Value::Function(Func::User(u))) = i.functions.get(name) {
        return format!("{name} is a function defined in this session:\n{}", indent(&u.def.text, "  "));
    }
    let names = reg.names().chain(topics().into_iter().map(|(c, _)| c));
    match beluga_runtime::suggest::closest(name, names) {
        Some(s) => format!("No help for `{name}`. Did you mean `{s}`?"),
        None => format!("No help for `{name}`. help() lists the topics."),
    }
}

/// The text `help()` prints: how to get help and the list of topics.
pub fn topics_text() -> String {
    let mut out = String::from(
        "Beluga help\n\
         \x20 help(name) or ?name   a function's syntax, description and a worked example (?mavg)\n\
         \x20 help(\"topic\")         the functions of a topic, one line each; when a function\n\
         \x20                       has the topic's name (string), help(\"topic:string\")\n\
         \x20 defs()                every builtin function, as a table\n\
         \x20 In the REPL: Tab completes names, columns, modules and file paths; .timer on|off\n\
         \x20 times each statement; quit, exit or Ctrl-D leaves.\n\
         \x20 Guide: docs/guide.md  Reference: docs/reference.md\n\nTopics:",
    );
    let t = topics();
    for chunk in t.chunks(3) {
        out.push_str("\n ");
        for (c, n) in chunk {
            out.push_str(&format!(" {:<28}", format!("{c} ({n})")));
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
    }
    out
}

fn help(i: &mut Interpreter, a: Vec<Value>) -> Result<Value> {
    let text = match a.first() {
        None => topics_text(),
        Some(Value::Function(Func::Builtin(id))) => {
            let name = i.registry.get(*id).name;
            help_text(i, name)
        }
        Some(Value::Function(Func::User(u))) => match &u.def.name {
            Some(n) => format!("{n} is a function defined in this session:\n{}", indent(&u.def.text, "  ")),
            None => format!("a lambda: {}", u.def.text),
        },
        Some(v) => match v.as_str() {
            Some(s) => help_text(i, s.trim()),
            None => return Err(Error::arg("help(name): name must be a function or a string such as \"mavg\"")),
        },
    };
    i.emit(&text);
    Ok(Value::Void)
}

pub const DEFS: &[Builtin] = &[beluga_runtime::registry::fps("help", Kind::System, 0, 1, help, &["name"])];

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// docs/reference.md: every documented builtin by topic, generated from docs.tsv
/// (`beluga --gen-reference docs/reference.md`; a test checks the file is current).
pub fn reference_markdown(reg: &Registry) -> String {
    let mut out = String::from(
        "# Beluga function reference\n\n\
         Generated from `stdlib/src/docs.tsv` by `beluga --gen-reference docs/reference.md`;\n\
         do not edit by hand. In the REPL, `?name` shows the same entry and runs its example.\n",
    );
    for (cat, n) in topics() {
        out.push_str(&format!("\n## {cat} ({n})\n\n| function | syntax | description | example |\n|---|---|---|---|\n"));
        for d in all().iter().filter(|d| d.category == cat) {
            let ex = if d.example.is_empty() { String::new() } else { format!("`{}`", md_cell(d.example)) };
            out.push_str(&format!(
                "| {} | `{}` | {} | {} |\n",
                d.name,
                md_cell(&syntax(reg, d.name)),
                md_cell(d.doc),
                ex
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses() {
        let d = find("mavg").expect("mavg documented");
        assert_eq!(d.category, "moving(m*)");
        assert!(!d.doc.is_empty() && d.example.starts_with("mavg("));
        assert!(all().len() > 400);
        // no name twice
        let mut names: Vec<&str> = all().iter().map(|d| d.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len(), "a name appears twice in docs.tsv");
    }

    #[test]
    fn syntax_from_registry() {
        let mut r = Registry::new();
        crate::register(&mut r);
        let s = syntax(&r, "mavg");
        assert!(s.starts_with("mavg(") && s.contains(", "), "{s}");
        assert_eq!(syntax(&r, "noSuchFunction"), "noSuchFunction(...)");
    }
}
