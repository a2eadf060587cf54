//! The `beluga` command line driven as a user would: flags, usage errors, `-e`, stdin,
//! `-i`, exit statuses, error locations on stderr, closed pipes.

use beluga_tests::beluga_bin;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

/// Run the binary with `args` and `stdin`; None (test skipped) when it is not built.
pub(crate) fn run(args: &[&str], stdin: &str) -> Option<Output> {
    let Some(bin) = beluga_bin() else {
        eprintln!("SKIPPED: the beluga binary is not built beside the tests");
        return None;
    };
    let mut child = Command::new(bin)
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn beluga");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    Some(child.wait_with_output().expect("wait for beluga"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_documents_flags_and_environment() {
    let Some(o) = run(&["--help"], "") else { return };
    assert!(o.status.success());
    let h = text(&o.stdout);
    for needle in [
        "-e, --execute",
        "-i, --echo",
        "--keep-going",
        "--module-dir",
        "--max-memory",
        "--version",
        "beluga test PATH...",
        "dfs://",
        "BELUGA_MODULE_DIR",
        "BELUGA_DFS_ROOT",
        "BELUGA_CACHE_MB",
        "BELUGA_MAPREDUCE",
        "BELUGA_MAX_MEMORY",
        "NO_COLOR",
    ] {
        assert!(h.contains(needle), "--help lacks {needle}:\n{h}");
    }
    let Some(o) = run(&["--version"], "") else { return };
    assert_eq!(text(&o.stdout).trim(), format!("beluga {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn usage_errors_exit_2_with_usage() {
    for args in [&["--bogus"][..], &["a.dos", "b.dos"], &["test"], &["-i"]] {
        let Some(o) = run(args, "") else { return };
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = text(&o.stderr);
        assert!(e.contains("Usage: beluga"), "{args:?}: no usage text in {e:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // a bad value names the flag and the accepted units
    let Some(o) = run(&["--max-memory", "8 parsecs", "-e", "1"], "") else { return };
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(e.contains("--max-memory") && e.contains("GB"), "{e:?}");
}

#[test]
fn execute_stops_at_first_error_with_location() {
    let Some(o) = run(&["-e", "1+1; x = 2; x*3\nundefinedX + 1\n5*5"], "") else { return };
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "2\n6\n");
    let e = text(&o.stderr);
    assert!(e.starts_with("<expr>:2:1: ") && e.contains("undefinedX"), "{e:?}");

    let Some(o) = run(&["--keep-going", "-e", "1+1\nundefinedX + 1\n5*5"], "") else { return };
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "2\n25\n");

    let Some(o) = run(&["-e", "sum(1..100)"], "") else { return };
    assert!(o.status.success());
    assert_eq!(text(&o.stdout), "5050\n");
}

#[test]
fn stdin_is_a_file_named_stdin() {
    let Some(o) = run(&[], "a = 10\na * 2\n\nb = a +* 3\nprint(a)\n") else { return };
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(e.starts_with("<stdin>:4:"), "{e:?}");
    // a syntax error stops the script before anything runs
    assert_eq!(text(&o.stdout), "");

    let Some(o) = run(&[], "a = 10\na * 2\nsize(a, a, a, a)\nprint(a + 1)\n") else { return };
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "20\n");
    assert!(text(&o.stderr).starts_with("<stdin>:3:1: "), "{}", text(&o.stderr));

    let Some(o) = run(&["--keep-going"], "a = 10\nsize(a, a, a, a)\nprint(a + 1)\n") else { return };
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "11\n");
}

#[test]
fn echo_flag_prints_the_last_value_of_a_script() {
    let dir = std::env::temp_dir().join(format!("beluga-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("last.dos");
    std::fs::write(&f, "t = table(1 2 3 as a, 4 5 6 as b)\n1 + 1\nselect sum(a * b) as s from t\n").unwrap();
    let fs = f.to_str().unwrap();
    let Some(o) = run(&[fs], "") else { return };
    assert!(o.status.success());
    assert_eq!(text(&o.stdout), "", "without -i a script prints only what it prints");
    let Some(o) = run(&["-i", fs], "") else { return };
    assert!(o.status.success(), "{}", text(&o.stderr));
    // 1*4 + 2*5 + 3*6 = 32; the middle statement's value is not shown
    assert_eq!(text(&o.stdout), "s\n--\n32\n");
    let Some(o) = run(&["--echo", fs], "") else { return };
    assert_eq!(text(&o.stdout), "s\n--\n32\n");

    std::fs::write(&f, "x = 1\n\ny = x / \"a\"\nprint(2)\n").unwrap();
    let Some(o) = run(&[fs], "") else { return };
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).starts_with(&format!("{fs}:3:")), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn closed_pipe_is_quiet() {
    let Some(bin) = beluga_bin() else { return };
    let mut child = Command::new(bin)
        .args(["-e", "for (i in 1..200000) { print(i) }"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // the reader is dropped here: later writes hit a closed pipe
    assert_eq!(first, "1\n");
    let o = child.wait_with_output().unwrap();
    let e = text(&o.stderr);
    assert!(e.is_empty(), "stderr after a closed pipe: {e:?}");
}

#[test]
fn errors_suggest_names() {
    let Some(o) = run(&["-e", "t = table(1 2 as price, 3 4 as qty)\nselect pricee from t"], "") else { return };
    let e = text(&o.stderr);
    assert!(e.starts_with("<expr>:2:8: ") && e.contains("column `pricee` not found in t; did you mean `price`?"), "{e:?}");
    // two tables: the one the query reads is named
    let Some(o) = run(&["-e", "t = table(1 2 as price, 3 4 as qty)
u = table(1 2 as price, 5 6 as vol)
select vol, pricee from u"], "") else { return };
    let e = text(&o.stderr);
    assert!(e.contains("column `pricee` not found in u; did you mean `price`?"), "{e:?}");
    let Some(o) = run(&["-e", "x = 5\nx(1)"], "") else { return };
    assert!(text(&o.stderr).contains("<expr>:2:1: x is a variable, not a function"), "{}", text(&o.stderr));
    let Some(o) = run(&["-e", "mavgg(1 2 3, 2)"], "") else { return };
    assert!(text(&o.stderr).contains("did you mean `mavg`?"), "{}", text(&o.stderr));
    // an error inside a function keeps the location in the function's body
    let Some(o) = run(&[], "def f(x) {\n  return x + missingThing\n}\ny = 1\nf(y)\n") else { return };
    assert!(text(&o.stderr).starts_with("<stdin>:2:"), "{}", text(&o.stderr));
}

#[test]
fn plot_writes_svg() {
    let dir = std::env::temp_dir().join(format!("beluga-plot-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let Some(bin) = beluga_bin() else { return };
    let script = "m = matrix(1 2 3 4, 4 3 2 1, 2 2 2 2)\nplot(m, `a`b`c`d, \"three lines\")\n\
                  plot(1 5 2 8 3, , \"dots\", SCATTER)\n\
                  plot(table(`x`y`z as k, 3 1 2 as v), , \"bars\", BAR)\n\
                  plot(0..99, , \"hist\", HISTOGRAM)";
    let o = Command::new(bin).args(["-e", script]).env("BELUGA_PLOT_DIR", &dir).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let paths: Vec<String> = text(&o.stdout).lines().filter_map(|l| l.strip_prefix("plot written to ").map(str::to_string)).collect();
    assert_eq!(paths.len(), 4, "{}", text(&o.stdout));
    let svg: Vec<String> = paths.iter().map(|p| std::fs::read_to_string(p).expect("svg file")).collect();
    for s in &svg {
        assert!(s.starts_with("<?xml") && s.contains("<svg xmlns=\"http://www.w3.org/2000/svg\"") && s.trim_end().ends_with("</svg>"));
        assert!(!s.contains("<script") && !s.contains("href"), "not self-contained");
    }
    // three series of four points, labelled a..d
    assert_eq!(svg[0].matches("<polyline class=\"series\"").count(), 3);
    assert_eq!(svg[0].matches("data-points=\"4\"").count(), 4);
    assert!(svg[0].contains(">three lines</text>") && svg[0].contains(">d</text>"));
    assert_eq!(svg[1].matches("<circle class=\"point\"").count(), 5);
    assert_eq!(svg[2].matches("<rect class=\"bar\"").count(), 3);
    assert!(svg[2].contains(">y</text>") && svg[2].contains(">v</text>"));
    // 100 values in 10 bins of 10
    assert_eq!(svg[3].matches("<rect class=\"bar\"").count(), 10);
    assert_eq!(svg[3].matches("height=\"316.0\"").count(), 10, "equal bins are full height");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `beluga test DIR` runs the folder's test scripts (.dos, .txt) and leaves a README or a
/// data file beside them alone; a file named explicitly still runs.
#[test]
fn test_folder_runs_only_scripts() {
    let dir = std::env::temp_dir().join(format!("beluga-testdir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.dos"), "@testing: case = \"adds\"\nassert 1, 1 + 1 == 2\n").unwrap();
    std::fs::write(dir.join("b.txt"), "@testing: case = \"mul\"\nassert 1, 2 * 3 == 6\n").unwrap();
    std::fs::write(dir.join("README.md"), "# Notes\nThese scripts check arithmetic.\n").unwrap();
    std::fs::write(dir.join("data.csv"), "a,b\n1,2\n").unwrap();
    let Some(out) = run(&["test", dir.to_str().unwrap()], "") else { return };
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("2 passed, 0 failed"), "{stdout}");
    assert!(!stdout.contains("README") && !stdout.contains("data.csv"), "{stdout}");
    // naming the README itself runs it (and it is not a valid script)
    let Some(out) = run(&["test", dir.join("README.md").to_str().unwrap()], "") else { return };
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}
