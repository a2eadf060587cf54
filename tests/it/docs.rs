//! The builtin doc table (stdlib/src/docs.tsv): every name is a registered builtin, every
//! example evaluates without error, docs/reference.md is what the table generates, and
//! `help`/`?name` reach the user.

use beluga_tests::{registry, root, with_stack};

#[test]
fn doc_names_are_registered_builtins() {
    let r = registry();
    let missing: Vec<&str> = beluga_stdlib::docs::all().iter().map(|d| d.name).filter(|n| r.lookup(n).is_none()).collect();
    assert!(missing.is_empty(), "docs.tsv names that are not builtins: {missing:?}");
    assert!(beluga_stdlib::docs::all().len() > 800);
}

/// Every example runs without error. Examples that write files do so under `/tmp/`; here
/// that prefix is moved to a directory of this test's own, which must be empty afterwards
/// (every example removes what it wrote).
#[test]
fn every_example_evaluates() {
    let tmp = std::env::temp_dir().join(format!("beluga-doc-examples-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let prefix = format!("{}/", tmp.display());
    let (failures, writers) = with_stack(move || {
        let r = registry();
        let mut failures = Vec::new();
        let (mut ran, mut writers) = (0, 0);
        for d in beluga_stdlib::docs::all().iter().filter(|d| !d.example.is_empty()) {
            let mut i = beluga_runtime::Interpreter::with_registry(r.clone());
            i.output = beluga_runtime::eval::Output::Buffer(String::new());
            ran += 1;
            writers += d.example.contains("\"/tmp/") as usize;
            let example = d.example.replace("\"/tmp/", &format!("\"{prefix}"));
            if let Err(e) = i.run_source(&example, None) {
                failures.push(format!("{}: {} => {}", d.name, d.example, e.message));
            }
        }
        assert!(ran >= 400, "only {ran} examples");
        (failures, writers)
    });
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().filter_map(|e| e.ok().map(|e| e.file_name())).collect();
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "examples that fail:\n{}", failures.join("\n"));
    assert!(writers >= 15, "only {writers} examples write files");
    assert!(left.is_empty(), "examples left files behind: {left:?}");
}

/// Storage's rows (loadTable, database, createPartitionedTable, …) carry a one-line doc and
/// a runnable example like stdlib's, and `help` shows both with the example's value.
#[test]
fn storage_rows_carry_doc_and_example() {
    let mut only = beluga_runtime::Registry::new();
    beluga_storage::register(&mut only);
    let r = registry();
    let mut lacking = Vec::new();
    for name in only.names() {
        let b = r.get(r.lookup(name).unwrap());
        if b.doc.is_empty() || b.example.is_empty() {
            lacking.push(name);
        }
    }
    assert!(only.names().count() > 30, "{} storage rows", only.names().count());
    assert!(lacking.is_empty(), "storage rows without a doc or an example: {lacking:?}");
    let out = with_stack(|| {
        let mut i = beluga_tests::interpreter();
        i.run_repl_text("help(loadTable)\nprint(\"@@@\")\nhelp(\"database\")\nprint(\"@@@\")\nhelp(setColumnComment)")
    });
    let parts: Vec<&str> = out.split("@@@\n").collect();
    assert_eq!(parts.len(), 3, "{out}");
    // loadTable: syntax, doc, the example and the table it prints
    assert!(parts[0].starts_with("loadTable(database, tableName") && parts[0].contains("load a table handle"), "{out}");
    assert!(parts[0].contains("example:") && parts[0].contains("id v") && parts[0].contains("2  4.5"), "{out}");
    assert!(parts[1].contains("create or open a database") && parts[1].contains("example:"), "{out}");
    assert!(parts[2].contains("price in USD"), "{out}");
    // the examples cleaned up after themselves
    assert!(!std::path::Path::new("/tmp/beluga_doc_loadTable").exists() && !std::path::Path::new("/tmp/beluga_doc_setColumnComment").exists());
}

#[test]
fn priority_one_builtins_have_examples() {
    let Some(spec) = beluga_tests::shared_dir().map(|d| d.join("spec/functions.tsv")) else { return };
    let Ok(text) = std::fs::read_to_string(spec) else { return };
    let r = registry();
    let lacking: Vec<String> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 4 && f[3] == "1" && r.lookup(f[0]).is_some()).then(|| f[0].to_string())
        })
        .filter(|n| beluga_stdlib::docs::find(n).is_none_or(|d| d.example.is_empty()))
        // statements rather than functions in the language
        .filter(|n| n != "share" && n != "test")
        .collect();
    assert!(lacking.is_empty(), "priority-1 builtins without an example: {lacking:?}");
}

#[test]
fn reference_is_generated_from_the_table() {
    let want = beluga_stdlib::docs::reference_markdown(&registry());
    let have = std::fs::read_to_string(root().join("docs/reference.md")).unwrap_or_default();
    assert!(
        have == want,
        "docs/reference.md is out of date: run `beluga --gen-reference docs/reference.md`"
    );
}

#[test]
fn help_shows_syntax_doc_and_example() {
    let out = with_stack(|| {
        let mut i = beluga_tests::interpreter();
        i.run_repl_text("help(mavg)\nhelp(\"msum\")\nhelp()\nhelp(\"mavgg\")\nhelp(\"temporal\")")
    });
    // mavg's entry: syntax, doc, its example and the example's value
    assert!(out.contains("mavg(") && out.contains("[moving(m*)]"), "{out}");
    assert!(out.contains("mavg(1 3 2 5 4 6, 3)") && out.contains("[,,2,3.333333,3.666667,5]"), "{out}");
    assert!(out.contains("msum(1 3 2 5 4 6, 3)") && out.contains("[,,6,10,11,15]"), "{out}");
    assert!(out.contains("Topics:") && out.contains("aggregate-stat"), "{out}");
    assert!(out.contains("Did you mean `mavg`?"), "{out}");
    assert!(out.contains("temporal: ") && out.contains("temporalAdd"), "{out}");
}

#[test]
fn help_reaches_both_function_and_topic_of_one_name() {
    let out = with_stack(|| {
        let mut i = beluga_tests::interpreter();
        i.run_repl_text("help(\"string\")\nprint(\"--\")\nhelp(\"topic:string\")\nprint(\"--\")\nhelp(\"topic:strng\")")
    });
    let parts: Vec<&str> = out.split("--").collect();
    assert_eq!(parts.len(), 3, "{out}");
    // the function first, with a pointer to the topic
    assert!(parts[0].starts_with("string(") && parts[0].contains("help(\"topic:string\")"), "{out}");
    // the topic's list: other string functions, one per line
    assert!(parts[1].contains("string: ") && parts[1].contains("charAt") && parts[1].contains("concat"), "{out}");
    assert!(parts[2].contains("Did you mean `topic:string`?"), "{out}");
}
