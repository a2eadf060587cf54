//! The builtin registry: every name is registered once (a second row would silently
//! replace the first), and every capable builtin (files, scripts, environment) is marked.

use beluga_runtime::registry::{Caps, Split};
use beluga_runtime::{Interpreter, Registry};
use beluga_tests::{registry, with_stack};
use std::sync::Arc;

#[test]
fn no_builtin_is_registered_twice() {
    let r = registry();
    let mut d: Vec<&str> = r.duplicates.clone();
    d.sort();
    d.dedup();
    assert!(d.is_empty(), "registered more than once: {d:?}");
}

#[test]
fn session_rows_are_few_and_named() {
    // a builtin that receives the whole interpreter is listed in SESSION_ROWS; every other
    // builtin sees only the narrow CallCtx
    use beluga_runtime::registry::{Call, SESSION_ROWS};
    let r = registry();
    let session: Vec<&str> = r.defs.iter().filter(|b| matches!(b.call, Call::Session(_))).map(|b| b.name).collect();
    for n in &session {
        assert!(SESSION_ROWS.contains(n), "{n} receives the interpreter but is not in SESSION_ROWS");
    }
    assert!(session.contains(&"eval") && session.contains(&"run"), "{session:?}");
    assert!(!session.contains(&"sum") && !session.contains(&"each"), "{session:?}");
    let plain = r.defs.iter().filter(|b| matches!(b.call, Call::Plain(_))).count();
    assert!(session.len() <= SESSION_ROWS.len() && SESSION_ROWS.len() < 16, "{session:?}");
    assert!(plain > 800, "{plain} plain rows");
}

#[test]
fn file_and_environment_builtins_carry_a_capability() {
    let r = registry();
    for name in ["loadText", "loadTextEx", "saveText", "files", "file", "rm", "rmdir", "mkdir", "run", "getEnv", "database", "dropDatabase", "exists"] {
        let id = r.lookup(name).unwrap_or_else(|| panic!("{name} is not registered"));
        assert!(!r.get(id).cap.is_pure(), "{name} is marked pure");
    }
    for name in ["sum", "mavg", "select", "table"] {
        if let Some(id) = r.lookup(name) {
            assert!(r.get(id).cap.is_pure(), "{name} is marked capable");
        }
    }
}

#[test]
fn rows_carry_their_sql_capabilities() {
    let r = registry();
    let caps = |n: &str| *r.caps(n).unwrap_or_else(|| panic!("{n} is not registered"));
    assert!(caps("sum").grouped.is_some());
    assert_eq!(caps("sum").split, Some(Split::Same));
    assert_eq!(caps("mean").split, Some(Split::Avg));
    assert_eq!(caps("count").split, Some(Split::Count));
    assert_eq!(caps("std").split, Some(Split::Var { pop: false, root: true }));
    assert_eq!(caps("wsum").split, Some(Split::Weighted { avg: false }));
    assert!(caps("wavg").grouped2.is_some() && caps("corr").grouped2.is_some());
    assert!(caps("msum").segmented.is_some() && caps("cumsum").segmented.is_some());
    let abs = caps("abs");
    assert!(abs.grouped.is_none() && abs.grouped2.is_none() && abs.split.is_none() && abs.segmented.is_none());
}

#[test]
fn every_kernel_table_names_a_registered_row() {
    let mut r = Registry::new();
    beluga_stdlib::register(&mut r);
    let missing = beluga_stdlib::set_kernels(&mut r);
    assert!(missing.is_empty(), "kernel tables name unregistered builtins: {missing:?}");
}

#[test]
fn rows_expose_their_doc_and_example() {
    let r = registry();
    let abs = r.get(r.lookup("abs").unwrap());
    assert_eq!(abs.doc, "absolute value, element-wise");
    assert_eq!(abs.example, "abs(-2 3 -4)");
}

/// The SQL planner reads the capability slots of the session's own registry: a session
/// whose rows carry no kernels takes the per-group path and must print the same tables.
/// Both sessions run on threads of their own (no process-global kernel hooks).
#[test]
fn sessions_with_and_without_kernel_slots_agree_on_threads() {
    let full = registry();
    let mut bare = (*full).clone();
    for b in bare.defs.iter_mut() {
        b.caps = Caps::default();
    }
    let bare = Arc::new(bare);
    let script = "t = table(1 1 2 2 3 3 as k, 1.0 2.0 3.0 NULL 5.0 8.0 as v, 2 1 1 3 2 2 as w)\n\
                  select sum(v), avg(v), std(v), max(v), count(v), wavg(v, w), corr(v, w) from t group by k\n\
                  select k, msum(v, 2), cumsum(v) from t context by k\n";
    let run = |r: Arc<Registry>| with_stack(move || Interpreter::with_registry(r).run_repl_text(script));
    let (a, b) = (run(full), run(bare));
    assert!(a.contains("sum_v") && a.contains("msum_v") && a.contains("cumsum_v"), "{a}");
    assert_eq!(a, b);
}
