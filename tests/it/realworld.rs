//! The real-world corpus: scripts of the kind DolphinDB users write (indicator modules,
//! factor libraries on matrices, bars from ticks, DECIMAL money, partitioned IoT data...),
//! each checking its results against values computed independently (numpy/pandas in
//! `tests/realworld/gen/`, or the manual's examples), never Beluga's own output.
//! Every `@testing` case of every file must pass.

use beluga_tests::{registry, root, with_stack};

#[test]
fn realworld_scripts_pass() {
    let dir = root().join("tests/realworld");
    let report = with_stack(move || {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("tests/realworld")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map(|x| x == "dos").unwrap_or(false))
            .collect();
        files.sort();
        beluga_stdlib::testing::run_paths(registry(), &files)
    });
    let (passed, failed) = report.totals();
    for l in report.lines() {
        println!("{l}");
    }
    println!("tests/realworld: {passed} passed, {failed} failed");
    assert_eq!(failed, 0, "some tests/realworld cases failed");
}
