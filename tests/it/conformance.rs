//! The shared DolphinDB conformance corpus (../shared/conformance): reports the pass rate per
//! file and fails when the overall rate falls below the floor recorded in
//! tests/conformance_floor.txt (raise it as the rate rises).

use beluga_tests::{registry, root, shared_dir, with_stack};

#[test]
fn conformance_corpus() {
    let Some(shared) = shared_dir() else {
        eprintln!("SKIPPED conformance_corpus: ../shared (the shared conformance corpus) is not beside this checkout");
        return;
    };
    let dir = shared.join("conformance");
    let report = with_stack(move || beluga_stdlib::testing::run_paths(registry(), &[dir]));
    let mut total_pass = 0;
    let mut total = 0;
    println!("conformance pass rate per file:");
    for (file, passed, n) in report.per_file() {
        println!("  {file:<22} {passed:>4}/{n:<4} {:>5.1}%", 100.0 * passed as f64 / n.max(1) as f64);
        total_pass += passed;
        total += n;
    }
    let rate = 100.0 * total_pass as f64 / total.max(1) as f64;
    println!("conformance overall: {total_pass}/{total} = {rate:.1}%");
    if std::env::var_os("BELUGA_VERBOSE").is_some() {
        for l in report.lines() {
            println!("{l}");
        }
    }
    let floor: f64 = std::fs::read_to_string(root().join("tests/conformance_floor.txt"))
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0.0);
    assert!(rate + 1e-9 >= floor, "conformance pass rate {rate:.1}% fell below the floor {floor}%");
}
