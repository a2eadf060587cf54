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

/// Scripts that need the command-line runner's builtins (the job pool of `submitJob`):
/// run with `beluga test` on the built binary, the way users run them.
#[test]
fn realworld_cli_scripts_pass() {
    let Some(bin) = beluga_tests::beluga_bin() else {
        panic!("the beluga binary is not built: run `cargo build --release --bin beluga`");
    };
    beluga_tests::isolate_dfs_root();
    let out = std::process::Command::new(bin)
        .arg("test")
        .arg(root().join("tests/realworld_cli"))
        .output()
        .expect("run beluga test");
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(" passed, 0 failed") && !text.contains("\n0 passed"), "{text}");
}
