//! The permission model of embedded and server sessions (issue 10 §5): a confined session
//! reads and writes only inside its data folder, may not delete files or read the
//! environment, runs and includes only scripts inside the folder; a sealed one (not logged
//! in) touches no file at all; and a script file that does not parse is reported by place,
//! never by quoting its text.

use beluga_runtime::policy::Policy;
use beluga_runtime::Interpreter;
use beluga_tests::{interpreter, with_stack};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("beluga-policy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).expect("create scratch dir");
    p
}

fn error_of(i: &mut Interpreter, src: &str) -> Option<String> {
    i.run_source(src, None).err().map(|e| e.message)
}

#[test]
fn a_confined_session_stays_in_its_data_folder() {
    with_stack(|| {
        let top = scratch("confined");
        let root = top.join("data");
        let outside = top.join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.csv"), "a,b\n1,2\n").unwrap();
        std::fs::write(root.join("prices.csv"), "sym,price\nA,1.5\nB,2.5\n").unwrap();
        std::fs::write(root.join("lib.dos"), "def twice(x) { return 2 * x }\n").unwrap();
        let o = outside.display().to_string();
        let mut i = interpreter();
        i.policy = Policy::confined(&root);
        // inside the folder: relative paths are taken there
        assert_eq!(error_of(&mut i, "t = loadText(\"prices.csv\"); assert (exec sum(price) from t) == 4.0"), None);
        assert_eq!(error_of(&mut i, "mkdir(\"out\"); saveText(t, \"out/copy.csv\")"), None);
        assert!(root.join("out/copy.csv").is_file());
        assert_eq!(error_of(&mut i, "run(\"lib.dos\"); assert twice(21) == 42"), None);
        assert_eq!(error_of(&mut i, "db = database(\"mydb\", VALUE, `A`B); pt = createPartitionedTable(db, t, `pt, `sym); pt.append!(t)"), None);
        assert!(root.join("mydb/dbmeta").is_file());
        // outside: refused, whatever the builtin
        let refused = [
            format!("loadText(\"{o}/secret.csv\")"),
            "loadText(\"../outside/secret.csv\")".to_string(),
            format!("saveText(t, \"{o}/leak.csv\")"),
            format!("files(\"{o}\")"),
            format!("exists(\"{o}/secret.csv\")"),
            format!("file(\"{o}/secret.csv\")"),
            format!("mkdir(\"{o}/x\")"),
            format!("database(\"{o}/db\", VALUE, 1..3)"),
            format!("run(\"{o}/secret.csv\")"),
            "rm(\"prices.csv\")".to_string(),
            "rmdir(\"out\", true)".to_string(),
            "getEnv(\"HOME\")".to_string(),
            "getHomeDir()".to_string(),
        ];
        for src in &refused {
            let e = error_of(&mut i, src).unwrap_or_else(|| panic!("{src} was allowed"));
            assert!(e.contains("Permission denied"), "{src}: {e}");
        }
        assert!(root.join("prices.csv").is_file(), "rm ran");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1, "something was written outside");
        let _ = std::fs::remove_dir_all(&top);
    });
}

#[test]
fn a_sealed_session_touches_no_file() {
    with_stack(|| {
        let mut i = interpreter();
        i.policy = Policy::Sealed;
        assert_eq!(error_of(&mut i, "x = sum(1..10); assert x == 55"), None);
        for src in ["loadText(\"/etc/hostname\")", "files(\"/\")", "database(\"/tmp/x\", VALUE, 1..3)", "run(\"a.dos\")"] {
            let e = error_of(&mut i, src).unwrap_or_else(|| panic!("{src} was allowed"));
            assert!(e.contains("Permission denied"), "{src}: {e}");
        }
    });
}

#[test]
fn a_file_that_does_not_parse_is_never_quoted() {
    with_stack(|| {
        let top = scratch("quote");
        let f = top.join("key.txt");
        std::fs::write(&f, "first line ok\nsecret hunter2 = = ;\n").unwrap();
        let inc = top.join("inc.dos");
        std::fs::write(&inc, format!("#include \"{}\"\n", f.display())).unwrap();
        let mut i = interpreter();
        let e = error_of(&mut i, &format!("run(\"{}\")", f.display())).expect("parsed a key file");
        assert!(!e.contains("hunter2") && !e.contains("secret") && !e.contains("first"), "{e}");
        assert!(e.contains("key.txt") && e.contains("line "), "{e}");
        i.current_file = Some(inc.clone());
        let e = error_of(&mut i, &std::fs::read_to_string(&inc).unwrap()).expect("included a key file");
        assert!(!e.contains("hunter2") && !e.contains("secret"), "{e}");
        assert!(e.contains("key.txt"), "{e}");
        let _ = std::fs::remove_dir_all(&top);
    });
}
