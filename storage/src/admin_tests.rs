//! Tests of the administration builtins on a scratch database: each change reads back,
//! and each refused request (bad names, path escapes, wrong levels, missing tables)
//! leaves the database's files byte for byte as they were.

use super::*;
use crate::catalog::{read_table, write_db_meta, DbMeta};
use crate::handle::TableHandle;
use beluga_runtime::{Interpreter, Registry};

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("beluga-admin-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn rows(n: usize, day0: i32) -> Table {
    Table::new(
        vec!["date".into(), "id".into(), "x".into()],
        vec![
            Column::from_vec(DataType::Date, (0..n).map(|k| day0 + (k % 2) as i32).collect::<Vec<i32>>()),
            Column::from_vec(DataType::Int, (0..n).map(|k| k as i32).collect::<Vec<i32>>()),
            Column::from_vec(DataType::Double, (0..n).map(|k| k as f64 * 0.5).collect::<Vec<f64>>()),
        ],
    )
    .unwrap()
}

/// A VALUE-on-date database holding table `pt` with `n` rows over two days.
fn setup(name: &str, n: usize) -> (PathBuf, Arc<DbHandle>) {
    let dir = scratch(name);
    let meta = DbMeta { levels: vec![Level::Value(Column::from_vec(DataType::Date, vec![18000, 18001]))], engine: "OLAP".into() };
    write_db_meta(&dir, &meta).unwrap();
    let t = rows(n, 18000);
    let mut ap = Appender::create(&dir, "pt", t.names.clone(), vec![DataType::Date, DataType::Int, DataType::Double], vec!["date".into()]).unwrap();
    ap.push(&t, None).unwrap();
    ap.commit().unwrap();
    (dir.clone(), Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir), meta }))
}

fn db_value_of(db: &Arc<DbHandle>) -> Value {
    crate::handle::db_value((**db).clone())
}

fn s(x: &str) -> Value {
    Value::string(x)
}

/// Every file below `dir` with its bytes (except the writer lock), sorted.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(d: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n != "LOCK") {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

fn sum_x(db: &Arc<DbHandle>, name: &str) -> f64 {
    let h = TableHandle { db: db.clone(), name: name.into() };
    let t = crate::query::load(&h, None, &[], None).unwrap();
    (0..t.rows()).map(|r| t.cols[2].f64_at(r).unwrap_or(0.0)).sum()
}

#[test]
fn renamed_table_reads_and_takes_appends_under_its_new_name() {
    let (dir, db) = setup("rename", 100);
    let mut i = Interpreter::new(Registry::new());
    let want = sum_x(&db, "pt");
    rename_table(&mut i, vec![db_value_of(&db), s("pt"), s("qt")]).unwrap();
    assert!(!catalog::table_exists(&dir, "pt") && catalog::table_exists(&dir, "qt"));
    assert_eq!(sum_x(&db, "qt"), want);
    // appends after the rename, then a second rename: every segment still reads
    let mut ap = Appender::open(&dir, "qt").unwrap();
    ap.push(&rows(10, 18001), None).unwrap();
    ap.commit().unwrap();
    rename_table(&mut i, vec![db_value_of(&db), s("qt"), s("rt")]).unwrap();
    assert_eq!(read_table(&dir, "rt").unwrap().rows(), 110);
    assert_eq!(sum_x(&db, "rt"), want + (0..10).map(|k| k as f64 * 0.5).sum::<f64>());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_crash_between_the_manifest_and_the_folder_rename_leaves_the_old_table() {
    let (dir, db) = setup("rename-crash", 50);
    let want = sum_x(&db, "pt");
    // the first step of rename_to alone: the manifest records the owner name
    let mut ap = Appender::open(&dir, "pt").unwrap();
    ap.meta.opts.origin = "pt".into();
    ap.commit().unwrap();
    crate::cache::forget(&dir);
    assert_eq!(read_table(&dir, "pt").unwrap().opts.origin, "pt");
    assert_eq!(sum_x(&db, "pt"), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refused_renames_change_nothing() {
    let (dir, db) = setup("rename-bad", 20);
    let t = rows(0, 18000);
    Appender::create(&dir, "other", t.names.clone(), vec![DataType::Date, DataType::Int, DataType::Double], vec!["date".into()]).unwrap().commit().unwrap();
    let mut i = Interpreter::new(Registry::new());
    let before = snapshot(&dir);
    for bad in ["other", "../x", "a/b", "", "1abc", "x.y"] {
        assert!(rename_table(&mut i, vec![db_value_of(&db), s("pt"), s(bad)]).is_err(), "{bad}");
    }
    assert!(rename_table(&mut i, vec![db_value_of(&db), s("missing"), s("zz")]).is_err());
    assert!(rename_table(&mut i, vec![db_value_of(&db), s("../pt"), s("zz")]).is_err());
    assert_eq!(snapshot(&dir), before);
    assert!(!dir.parent().unwrap().join("x").join("CURRENT").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn value_partitions_are_added_once_and_refusals_keep_the_scheme() {
    let (dir, db) = setup("addvalue", 10);
    let mut i = Interpreter::new(Registry::new());
    let days = Value::Vector(Column::from_vec(DataType::Date, vec![18002, 18003, 18001]));
    let n = add_value_partitions(&mut i, vec![db_value_of(&db), days.clone()]).unwrap();
    assert_eq!(n.as_i64(), Some(2));
    assert_eq!(add_value_partitions(&mut i, vec![db_value_of(&db), days]).unwrap().as_i64(), Some(0));
    assert_eq!(catalog::read_db_meta(&dir).unwrap().levels[0].count(), 4);
    let before = snapshot(&dir);
    let one = Value::Scalar(Column::from_vec(DataType::Date, vec![18010]));
    assert!(add_value_partitions(&mut i, vec![db_value_of(&db), one.clone(), Value::int(1)]).is_err());
    assert!(add_value_partitions(&mut i, vec![db_value_of(&db), s("abc")]).is_err());
    assert!(add_range_partitions(&mut i, vec![db_value_of(&db), Value::Vector(Column::from_vec(DataType::Date, vec![18003, 18004]))]).is_err());
    assert_eq!(snapshot(&dir), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn range_partitions_grow_only_after_the_last_boundary() {
    let dir = scratch("addrange");
    let meta = DbMeta { levels: vec![Level::Range(Column::from_vec(DataType::Int, vec![0, 50, 100]))], engine: "OLAP".into() };
    write_db_meta(&dir, &meta).unwrap();
    let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta });
    let mut i = Interpreter::new(Registry::new());
    let v = |x: Vec<i32>| Value::Vector(Column::from_vec(DataType::Int, x));
    let before = snapshot(&dir);
    for bad in [vec![50, 150], vec![100, 90], vec![100], vec![120, 150]] {
        assert!(add_range_partitions(&mut i, vec![db_value_of(&db), v(bad.clone())]).is_err(), "{bad:?}");
    }
    assert_eq!(snapshot(&dir), before);
    assert_eq!(add_range_partitions(&mut i, vec![db_value_of(&db), v(vec![100, 150, 200])]).unwrap().as_i64(), Some(2));
    let Level::Range(c) = &catalog::read_db_meta(&dir).unwrap().levels[0] else { panic!("not RANGE") };
    assert_eq!((0..c.len()).map(|k| c.i64_at(k).unwrap()).collect::<Vec<_>>(), vec![0, 50, 100, 150, 200]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn partitions_exist_once_they_hold_rows() {
    let (dir, _db) = setup("exists", 10);
    let mut i = Interpreter::new(Registry::new());
    let base = dir.display().to_string();
    let ask = |i: &mut Interpreter, args: Vec<Value>| exists_partition(i, args).unwrap().as_bool().unwrap();
    assert!(ask(&mut i, vec![s(&format!("{base}/20190414/pt"))]));
    assert!(ask(&mut i, vec![s(&format!("{base}/20190414")), s("pt")]));
    assert!(!ask(&mut i, vec![s(&format!("{base}/20190414"))]));
    assert!(!ask(&mut i, vec![s(&format!("{base}/20190420/pt"))]));
    assert!(!ask(&mut i, vec![s(&format!("{base}/20190414/nosuch"))]));
    assert!(!ask(&mut i, vec![s(&base)]));
    assert!(exists_partition(&mut i, vec![s(&format!("{base}/../20190414/pt"))]).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn replace_column_changes_the_stored_type_or_nothing() {
    let (dir, db) = setup("replace", 30);
    let h = TableHandle { db: db.clone(), name: "pt".into() };
    let want = sum_x(&db, "pt");
    let before = snapshot(&dir);
    let to = |t: DataType| Value::Vector(Column::nulls(t, 0));
    // SYMBOL, the partitioning column, and types the manual does not allow
    for (col, t) in [("id", DataType::Symbol), ("date", DataType::DateTime), ("x", DataType::Date), ("nosuch", DataType::Double)] {
        assert!(crate::builtins_db::stored_replace_column(&h, &[Value::Void, s(col), to(t)]).is_err(), "{col} {t}");
    }
    assert_eq!(snapshot(&dir), before);
    crate::builtins_db::stored_replace_column(&h, &[Value::Void, s("id"), to(DataType::Double)]).unwrap();
    crate::builtins_db::stored_replace_column(&h, &[Value::Void, s("x"), to(DataType::String)]).unwrap();
    let m = read_table(&dir, "pt").unwrap();
    assert_eq!(m.types, vec![DataType::Date, DataType::Double, DataType::String]);
    let t = crate::query::load(&h, None, &[], None).unwrap();
    let ids: f64 = (0..t.rows()).map(|r| t.cols[1].f64_at(r).unwrap()).sum();
    assert_eq!(ids, (0..30).sum::<i32>() as f64);
    let xs: f64 = (0..t.rows()).map(|r| t.cols[2].str_at(r).unwrap().parse::<f64>().unwrap()).sum();
    assert_eq!(xs, want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn type_rules_follow_the_manual() {
    use crate::builtins_db::replace_type_ok as ok;
    assert!(ok(DataType::Int, DataType::Long) && ok(DataType::Int, DataType::Double) && ok(DataType::Float, DataType::Short));
    assert!(ok(DataType::Date, DataType::DateTime) && ok(DataType::Date, DataType::String) && ok(DataType::Blob, DataType::String));
    assert!(!ok(DataType::Symbol, DataType::String) && !ok(DataType::String, DataType::Symbol));
    assert!(!ok(DataType::Double, DataType::Date) && !ok(DataType::String, DataType::Int) && !ok(DataType::Date, DataType::Int));
}
