//! Our own DolphinDB-style `@testing` files under tests/assert/ and the examples: every case
//! must pass.

use beluga_tests::{root, run_dos_dir, with_stack};

#[test]
fn assert_files_pass() {
    let (passed, failed) = run_dos_dir(root().join("tests/assert"));
    assert!(passed > 0, "no test case ran");
    assert_eq!(failed, 0, "some tests/assert cases failed");
}

#[test]
fn examples_run() {
    let dir = root().join("examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("examples/").filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for f in files.into_iter().filter(|f| f.extension().map(|e| e == "dos").unwrap_or(false)) {
        let name = f.display().to_string();
        let out = with_stack(move || {
            let mut i = beluga_tests::interpreter();
            i.output = beluga_runtime::eval::Output::Buffer(String::new());
            i.current_file = Some(f.clone());
            let src = std::fs::read_to_string(&f).expect("read example");
            i.run_source(&src, None).map(|_| i.take_output()).map_err(|e| e.message)
        });
        match out {
            Ok(text) => assert!(!text.is_empty(), "{name} printed nothing"),
            Err(e) => panic!("{name} failed: {e}"),
        }
    }
}
