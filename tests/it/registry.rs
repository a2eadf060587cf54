//! The builtin registry: every name is registered once (a second row would silently
//! replace the first), and every capable builtin (files, scripts, environment) is marked.

use beluga_tests::registry;

#[test]
fn no_builtin_is_registered_twice() {
    let r = registry();
    let mut d: Vec<&str> = r.duplicates.clone();
    d.sort();
    d.dedup();
    assert!(d.is_empty(), "registered more than once: {d:?}");
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
