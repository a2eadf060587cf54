//! A database owns its folder and nothing else (issue 10 §1): hostile table and database
//! names, a non-database folder, symlinks planted in a database, dropDatabase with foreign
//! files beside the tables, and a segment file copied into another partition's folder.

use beluga_runtime::Interpreter;
use beluga_tests::{interpreter, with_stack};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("beluga-paths-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).expect("create scratch dir");
    p
}

/// Run a script; return the message of the error it raised, or `None` when it succeeded.
fn error_of(i: &mut Interpreter, src: &str) -> Option<String> {
    i.run_source(src, None).err().map(|e| e.message)
}

fn ok(i: &mut Interpreter, src: &str) {
    if let Some(e) = error_of(i, src) {
        panic!("script failed: {e}\n{src}");
    }
}

fn listing(p: &Path) -> Vec<String> {
    let mut v: Vec<String> = walk(p).into_iter().map(|q| q.strip_prefix(p).unwrap().display().to_string()).collect();
    v.sort();
    v
}

fn walk(p: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(p).into_iter().flatten().flatten() {
        out.push(e.path());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(walk(&e.path()));
        }
    }
    out
}

fn setup(i: &mut Interpreter, db: &Path) {
    ok(
        i,
        &format!(
            r#"db = database("{}", VALUE, 1..3)
t = table(1 2 3 1 as id, 1.5 2.5 3.5 4.5 as v)
pt = createPartitionedTable(db, t, "pt", "id")
pt.append!(t)"#,
            db.display()
        ),
    );
}

#[test]
fn hostile_names_touch_nothing_outside_the_database() {
    with_stack(|| {
        let root = scratch("names");
        let victim = root.join("victim");
        std::fs::create_dir_all(victim.join("sub")).unwrap();
        std::fs::write(victim.join("sub/precious.txt"), "keep me").unwrap();
        let db = root.join("dbs/db1");
        let mut i = interpreter();
        setup(&mut i, &db);
        let before = listing(&root);
        let cases = [
            r#"dropTable(db, "../../victim")"#,
            r#"dropTable(db, "../../victim/sub")"#,
            r#"createPartitionedTable(db, t, "../../evil", "id")"#,
            r#"createTable(db, t, "../evil2")"#,
            &format!(r#"createPartitionedTable(db, t, "{}", "id")"#, root.join("abs").display()),
            r#"loadTable(db, "../db1/pt")"#,
            r#"truncate(db, "../../victim")"#,
            r#"database("dfs://../../x", VALUE, 1..3)"#,
            r#"database("dfs://a/../../../x", VALUE, 1..3)"#,
            r#"database("dfs://./x", VALUE, 1..3)"#,
        ];
        for src in cases {
            let e = error_of(&mut i, src).unwrap_or_else(|| panic!("{src} was accepted"));
            assert!(e.contains("Invalid table name") || e.contains("Invalid database path"), "{src}: {e}");
        }
        assert_eq!(listing(&root), before, "a hostile name changed files");
        assert_eq!(std::fs::read_to_string(victim.join("sub/precious.txt")).unwrap(), "keep me");
        // existsTable answers false for a name that cannot exist
        ok(&mut i, &format!(r#"assert existsTable("{}", "../../victim") == false"#, db.display()));
        let _ = std::fs::remove_dir_all(&root);
    });
}

#[test]
fn a_foreign_folder_is_never_adopted_and_drop_database_keeps_foreign_files() {
    with_stack(|| {
        let root = scratch("adopt");
        let home = root.join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("thesis.tex"), "years of work").unwrap();
        let mut i = interpreter();
        let e = error_of(&mut i, &format!(r#"database("{}", VALUE, 1..3)"#, home.display())).expect("adopted a foreign folder");
        assert!(e.contains("not empty and is not a database") && e.contains("thesis.tex"), "{e}");
        assert_eq!(listing(&home), vec!["thesis.tex"]);
        // a database whose folder later receives someone else's file: drop removes only its own
        let db = root.join("db");
        setup(&mut i, &db);
        std::fs::write(db.join("notes.txt"), "mine").unwrap();
        std::fs::create_dir_all(db.join("photos")).unwrap();
        std::fs::write(db.join("photos/a.jpg"), "jpg").unwrap();
        ok(&mut i, &format!(r#"dropDatabase("{}")"#, db.display()));
        assert_eq!(listing(&db), vec!["notes.txt", "photos", "photos/a.jpg"]);
        ok(&mut i, &format!(r#"assert existsDatabase("{}") == false"#, db.display()));
        // an empty database folder disappears entirely
        let db2 = root.join("db2");
        setup(&mut i, &db2);
        ok(&mut i, &format!(r#"dropDatabase("{}")"#, db2.display()));
        assert!(!db2.exists());
        let _ = std::fs::remove_dir_all(&root);
    });
}

#[cfg(unix)]
#[test]
fn symlinks_planted_in_a_database_do_not_lead_outside() {
    with_stack(|| {
        let root = scratch("symlink");
        let outside = root.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep"), "x").unwrap();
        let db = root.join("db");
        let mut i = interpreter();
        setup(&mut i, &db);
        // a table folder that is a symlink to somewhere else
        std::os::unix::fs::symlink(&outside, db.join("evil")).unwrap();
        let e = error_of(&mut i, r#"createPartitionedTable(db, t, "evil", "id")"#).expect("wrote through a symlink");
        assert!(e.contains("outside"), "{e}");
        let e = error_of(&mut i, r#"dropTable(db, "evil")"#).expect("dropped through a symlink");
        assert!(e.contains("outside"), "{e}");
        // a partition folder replaced by a symlink: the next write refuses to follow it
        let p2 = db.join("pt/2");
        std::fs::remove_dir_all(&p2).unwrap();
        std::os::unix::fs::symlink(&outside, &p2).unwrap();
        let e = error_of(&mut i, "pt.append!(table(2 as id, 9.5 as v))").expect("appended through a symlink");
        assert!(e.contains("outside"), "{e}");
        assert_eq!(listing(&outside), vec!["keep"]);
        let _ = std::fs::remove_dir_all(&root);
    });
}

#[test]
fn a_segment_copied_into_another_partition_is_refused() {
    with_stack(|| {
        let root = scratch("segcopy");
        let db = root.join("db");
        let mut i = interpreter();
        setup(&mut i, &db);
        let segs = |part: &str| -> Vec<PathBuf> {
            let mut v: Vec<PathBuf> = walk(&db.join("pt").join(part)).into_iter().filter(|p| p.extension().is_some_and(|e| e == "seg")).collect();
            v.sort();
            v
        };
        let (one, three) = (segs("1"), segs("3"));
        assert_eq!((one.len(), three.len()), (1, 1), "one segment file per partition");
        ok(&mut i, "assert (exec sum(v) from loadTable(db, `pt) where id = 3) == 3.5");
        // partition 1's rows (two of them) copied over partition 3's file
        std::fs::copy(&one[0], &three[0]).unwrap();
        ok(&mut i, "clearAllCache()");
        let e = error_of(&mut i, "exec sum(v) from loadTable(db, `pt) where id = 3").expect("read a misplaced segment");
        assert!(e.contains("wrong folder") && e.contains("pt/1/"), "{e}");
        let _ = std::fs::remove_dir_all(&root);
    });
}
