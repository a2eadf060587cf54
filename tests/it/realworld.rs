//! The real-world corpus: scripts of the kind DolphinDB users write (indicator modules,
//! factor libraries on matrices, bars from ticks, DECIMAL money, partitioned IoT data...),
//! each checking its results against values computed independently (numpy/pandas in
//! `tests/realworld/gen/`, or the manual's examples), never Beluga's own output.
//! Every `@testing` case of every file must pass.

use beluga_tests::{root, run_dos_dir};

#[test]
fn realworld_scripts_pass() {
    let (passed, failed) = run_dos_dir(root().join("tests/realworld"));
    assert!(passed > 0, "no realworld case ran");
    assert_eq!(failed, 0, "some tests/realworld cases failed");
}
