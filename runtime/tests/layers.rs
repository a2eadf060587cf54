//! The runtime is layered bottom-up (issue 11 item 3): types/nulls → column → kernels →
//! value/table/error → ops → eval → sql, with printing (`fmt`) above ops. This test reads
//! every source file and fails when a module names (`crate::x`) a module of a higher layer,
//! so kernels never import the printer, the evaluator or SQL, and so on. It also holds the
//! "one home per kernel" rule (item 4) for the duration-unit table. The few upward
//! references that remain are listed in `ALLOWED` with the reason.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Layer of each top-level module of runtime/src (a directory counts as one module).
/// A module may name modules of its own layer or below.
const LAYERS: &[(&str, u8)] = &[
    // base: no runtime imports beyond this layer
    ("types", 0),
    ("null", 0),
    ("error", 0),
    ("bigalloc", 0),
    ("suggest", 0),
    ("temporal", 1),
    ("guard", 1),
    // storage of columns, and the text of one element (casts to STRING use it)
    ("column", 2),
    ("elemfmt", 2),
    ("kernels", 3),
    ("value", 4),
    ("table", 4),
    ("table_source", 4),
    ("keyindex", 4),
    ("ops", 5),
    // printing sits above ops; the evaluator may print
    ("fmt", 6),
    ("eval", 7),
    ("callctx", 7),
    ("registry", 7),
    ("policy", 7),
    ("sql", 8),
    ("lib", 9),
];

/// Exported macros are named `crate::name!` and live in column.rs.
const MACROS: &[&str] = &["with_numeric", "map_numeric", "match_numeric", "match_int", "map_physical", "zip_numeric"];

/// Upward references that stay, with the reason: (from, to).
const ALLOWED: &[(&str, &str, &str)] = &[
    // `Handle::session_append` lets a stream table or engine run subscribers through the
    // builtin context; the handle trait is declared with the values.
    ("value", "callctx", "Handle::session_append takes the builtin context"),
    // the interpreter dispatches the SQL statements it meets (select, update, insert,
    // delete, union, with) to runtime::sql, which evaluates expressions with it
    ("eval", "sql", "statement dispatch to the SQL executor"),
    // `update!` (stdlib) builds an update statement and runs it through the same executor
    ("callctx", "sql", "update! runs an update statement through the SQL executor"),
];

/// Names lib.rs re-exports at the crate root (`pub use eval::Interpreter;`) and their modules.
fn root_exports(src: &Path) -> Vec<(String, String)> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    let mut out = Vec::new();
    for line in lib.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else { continue };
        let Some((module, names)) = rest.trim_end_matches(';').split_once("::") else { continue };
        for n in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            out.push((n.trim().to_string(), module.to_string()));
        }
    }
    out
}

/// Exported macros defined in `kernels` (`kernels/vmath.rs`): the layer of `kernels`.
const KERNEL_MACROS: &[&str] = &["simd_fn"];

fn layer(m: &str) -> Option<u8> {
    if MACROS.contains(&m) {
        return Some(2);
    }
    if KERNEL_MACROS.contains(&m) {
        return layer("kernels");
    }
    LAYERS.iter().find(|(n, _)| *n == m).map(|&(_, l)| l)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read runtime/src") {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Module names referenced as `crate::name` outside comments, with the line numbers.
fn references(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (no, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(k) = rest.find("crate::") {
            let tail = &rest[k + 7..];
            let name: String = tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name.is_empty() && tail.starts_with('{') {
                panic!("line {}: `crate::{{..}}` imports: name each module so the layer check sees it", no + 1);
            }
            if !name.is_empty() {
                out.push((name, no + 1));
            }
            rest = tail;
        }
    }
    out
}

#[test]
fn runtime_modules_import_only_their_layer_or_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "runtime/src not found at {}", src.display());
    let roots = root_exports(&src);
    let mut bad: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let module = rel.components().next().expect("a path").as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        let Some(own) = layer(&module) else {
            panic!("{}: module `{module}` has no layer in tests/layers.rs", rel.display());
        };
        let text = std::fs::read_to_string(f).expect("read source");
        for (name, line) in references(&text) {
            let name = roots.iter().find(|(n, _)| *n == name).map_or(name, |(_, m)| m.clone());
            let Some(l) = layer(&name) else {
                panic!("{}:{line}: `crate::{name}` is not a known module", rel.display());
            };
            if l > own && !ALLOWED.iter().any(|&(a, b, _)| a == module && b == name) {
                bad.entry(format!("{module} -> {name}")).or_default().push(format!("{}:{line}", rel.display()));
            }
        }
    }
    assert!(bad.is_empty(), "imports that run up the layers: {bad:#?}");
}

#[test]
fn kernels_never_import_printer_evaluator_or_sql() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/kernels");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        for (name, line) in references(&text) {
            assert!(
                !matches!(name.as_str(), "fmt" | "eval" | "sql" | "ops" | "value" | "registry" | "callctx"),
                "{}:{line} imports crate::{name}",
                f.display()
            );
        }
    }
}

/// The duration-unit table (`"ms" => 1_000_000`) exists once, in `temporal::duration_unit_ns`.
#[test]
fn one_duration_unit_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in ["runtime", "stdlib", "storage", "server", "repl"] {
        let d = root.join(krate).join("src");
        if d.is_dir() {
            rust_files(&d, &mut files);
        }
    }
    let tables: Vec<String> = files
        .iter()
        .filter(|f| {
            let t = std::fs::read_to_string(f).unwrap_or_default();
            t.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("\"ms\"") && l.contains("=>") && (l.contains("1_000_000") || l.contains("1000000"))
            })
        })
        .map(|f| f.display().to_string())
        .collect();
    assert_eq!(tables.len(), 1, "duration-unit tables: {tables:?}");
    assert!(tables[0].ends_with("temporal.rs"), "{tables:?}");
}
