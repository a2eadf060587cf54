//! Tests of stored tables through the `TableSource` trait alone: no interpreter, no
//! syntax. Predicates are built by hand, expected rows are computed from the appended
//! data directly.

use crate::catalog::{write_db_meta, DbMeta};
use crate::handle::{DbHandle, TableHandle};
use crate::partition::Level;
use crate::store::Appender;
use beluga_runtime::column::Column;
use beluga_runtime::kernels::cmp::CmpOp;
use beluga_runtime::table_source::{Pred, Scan, TableSource};
use beluga_runtime::{DataType, Table, Value};
use std::path::PathBuf;
use std::sync::Arc;

const ROWS: usize = 3000;

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("beluga-source-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// A VALUE-partitioned (date) table of `ROWS` rows: date = 18000 + k % 3, sym cycles
/// IBM/MSFT/NA with the date, x = k.
fn table(name: &str) -> (PathBuf, TableHandle) {
    table_of(name, ROWS)
}

/// The same table with `rows` rows.
fn table_of(name: &str, rows: usize) -> (PathBuf, TableHandle) {
    let dir = scratch(name);
    let levels = vec![Level::Value(Column::from_vec(DataType::Date, vec![18000, 18001, 18002]))];
    let meta = DbMeta { levels, engine: "OLAP".into() };
    write_db_meta(&dir, &meta).unwrap();
    let types = vec![DataType::Date, DataType::Symbol, DataType::Double];
    Appender::create(&dir, "pt", vec!["date".into(), "sym".into(), "x".into()], types, vec!["date".into()]).unwrap().commit().unwrap();
    let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta });
    let h = TableHandle { db, name: "pt".into() };
    h.append(&crate::store::tests::sample_with(rows, 18000, |k| k as f64)).unwrap();
    (dir, h)
}

fn date(d: i32) -> Column {
    Column::from_vec(DataType::Date, vec![d])
}

fn dbl(x: f64) -> Column {
    Column::from_vec(DataType::Double, vec![x])
}

/// Sorted x values of a table's `x` column.
fn xs(t: &Table) -> Vec<i64> {
    let k = t.col_index("x").unwrap();
    let mut v: Vec<i64> = (0..t.rows()).map(|r| t.cols[k].f64_at(r).unwrap() as i64).collect();
    v.sort_unstable();
    v
}

/// The x values of the sample rows satisfying `keep(date, x)`.
fn expect(keep: impl Fn(i32, i64) -> bool) -> Vec<i64> {
    (0..ROWS as i64).filter(|&k| keep(18000 + (k % 3) as i32, k)).collect()
}

/// Apply the predicates again to what a scan returned (a scan may return extra rows).
fn exact(t: &Table, keep: impl Fn(i32, i64) -> bool) -> Vec<i64> {
    let (d, x) = (t.col_index("date").unwrap(), t.col_index("x").unwrap());
    let mut v: Vec<i64> = (0..t.rows())
        .filter(|&r| keep(t.cols[d].i64_at(r).unwrap() as i32, t.cols[x].f64_at(r).unwrap() as i64))
        .map(|r| t.cols[x].f64_at(r).unwrap() as i64)
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn schema_rows_and_partitions() {
    let (dir, h) = table("schema");
    let s = h.schema().unwrap();
    assert_eq!(s, vec![("date".into(), DataType::Date), ("sym".into(), DataType::Symbol), ("x".into(), DataType::Double)]);
    assert_eq!(h.rows().unwrap(), ROWS as u64);
    assert_eq!(h.partitions(&[]).unwrap().len(), 3);
    let one = h.partitions(&[Pred::Cmp { col: "date".into(), op: CmpOp::Eq, value: date(18001) }]).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].rows, (ROWS / 3) as u64);
    let two = h.partitions(&[Pred::In { col: "DATE".into(), values: Value::Vector(Column::from_vec(DataType::Date, vec![18000, 18002, 19000])) }]).unwrap();
    assert_eq!(two.len(), 2, "names match ignoring case; values outside the scheme prune nothing");
    let range = h.partitions(&[Pred::Between { col: "date".into(), lo: date(18001), hi: date(18005) }]).unwrap();
    assert_eq!(range.len(), 2);
    let none = h.partitions(&[Pred::Cmp { col: "date".into(), op: CmpOp::Gt, value: date(18002) }]).unwrap();
    assert!(none.is_empty());
    // a predicate on a column that is not a partitioning column prunes nothing
    assert_eq!(h.partitions(&[Pred::Cmp { col: "x".into(), op: CmpOp::Gt, value: dbl(1e9) }]).unwrap().len(), 3);
    assert!(h.partitions(&[Pred::Cmp { col: "nope".into(), op: CmpOp::Eq, value: dbl(1.0) }]).is_err(), "unknown column");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scans_project_filter_and_split() {
    let (dir, h) = table("scan");
    // projection keeps table order and ignores names that are not columns
    let cols = vec!["x".to_string(), "date".to_string(), "y".to_string()];
    let t = &h.scan(Scan { columns: Some(&cols), ..Scan::default() }).unwrap()[0];
    assert_eq!(t.names, vec!["date".to_string(), "x".to_string()]);
    assert_eq!(xs(t), expect(|_, _| true));
    assert_eq!(t.name.as_deref(), Some("pt"));
    // predicates: every matching row comes back, and the loader filters rows itself
    let preds = [Pred::Cmp { col: "date".into(), op: CmpOp::Ge, value: date(18001) }, Pred::Cmp { col: "x".into(), op: CmpOp::Lt, value: dbl(100.0) }];
    let keep = |d: i32, x: i64| d >= 18001 && x < 100;
    let t = &h.scan(Scan { preds: &preds, ..Scan::default() }).unwrap()[0];
    assert_eq!(exact(t, keep), expect(keep));
    assert_eq!(t.rows(), expect(keep).len(), "row filters are applied while loading");
    // between and in on a non-partitioning column, a column-to-column comparison
    let preds = [
        Pred::Between { col: "x".into(), lo: dbl(10.0), hi: dbl(20.0) },
        Pred::In { col: "sym".into(), values: Value::string_vec(["IBM", "NA"]) },
        Pred::ColCmp { left: "x".into(), op: CmpOp::Gt, right: "x".into() },
    ];
    let t = &h.scan(Scan { preds: &preds[..2], ..Scan::default() }).unwrap()[0];
    let keep = |d: i32, x: i64| (10..=20).contains(&x) && d != 18001;
    assert_eq!(exact(t, keep), expect(keep));
    let t = &h.scan(Scan { preds: &preds, ..Scan::default() }).unwrap()[0];
    assert_eq!(t.rows(), 0, "x > x holds for no row");
    // split: one table per partition with rows; restricted to named partitions
    let parts = h.scan(Scan { split: true, ..Scan::default() }).unwrap();
    assert_eq!(parts.len(), 3);
    assert_eq!(parts.iter().map(|p| p.rows()).sum::<usize>(), ROWS);
    let x_small = [Pred::Cmp { col: "x".into(), op: CmpOp::Lt, value: dbl(2.0) }];
    let parts = h.scan(Scan { preds: &x_small, split: true, ..Scan::default() }).unwrap();
    assert_eq!(parts.len(), 2, "a partition without a passing row is left out");
    let ids: Vec<String> = h.partitions(&[]).unwrap().into_iter().map(|p| p.id).collect();
    let only = [ids[2].clone()];
    let t = &h.scan(Scan { partitions: Some(&only), ..Scan::default() }).unwrap()[0];
    assert_eq!(xs(t), expect(|d, _| d == 18002));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn counts_and_decided_tests_from_partition_keys() {
    let (dir, h) = table("count");
    let on = |d| Pred::Cmp { col: "date".into(), op: CmpOp::Eq, value: date(d) };
    assert_eq!(h.count(&[]).unwrap(), Some(ROWS as u64));
    assert_eq!(h.count(&[on(18001)]).unwrap(), Some(expect(|d, _| d == 18001).len() as u64));
    assert_eq!(h.count(&[on(17000)]).unwrap(), Some(0));
    assert_eq!(h.count(&[Pred::Cmp { col: "x".into(), op: CmpOp::Gt, value: dbl(5.0) }]).unwrap(), None, "x is not a partition key");
    assert_eq!(h.count(&[Pred::ColCmp { left: "date".into(), op: CmpOp::Eq, right: "date".into() }]).unwrap(), None);
    let x_pos = Pred::Cmp { col: "x".into(), op: CmpOp::Ge, value: dbl(0.0) };
    let d = h.decided(&[on(18001)], &[on(18001), x_pos.clone(), Pred::Cmp { col: "date".into(), op: CmpOp::Le, value: date(18002) }]).unwrap();
    assert_eq!(d, vec![true, false, true]);
    assert_eq!(h.decided(&[on(17000)], &[on(17000)]).unwrap(), vec![false], "no partition survives");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn append_overwrite_and_rewrite_partitions() {
    let (dir, h) = table("write");
    let more = crate::store::tests::sample_with(30, 18000, |k| (10_000 + k) as f64);
    assert_eq!(h.append(&more).unwrap(), 30);
    assert_eq!(h.rows().unwrap(), (ROWS + 30) as u64);
    // rewrite one partition: drop its rows with x >= 1000
    let pr = h.read_partitions(&[Pred::Cmp { col: "date".into(), op: CmpOp::Eq, value: date(18001) }]).unwrap();
    assert_eq!((pr.parts.len(), pr.tables.len()), (1, 1));
    let t = &pr.tables[0];
    let xk = t.col_index("x").unwrap();
    let keep: Vec<usize> = (0..t.rows()).filter(|&r| t.cols[xk].f64_at(r).unwrap() < 1000.0).collect();
    h.rewrite(pr.version, &pr.parts, &[Arc::new(t.take_usize(&keep))]).unwrap();
    let all = h.table().unwrap();
    let keep = |d: i32, x: i64| d != 18001 || x < 1000;
    let mut want = expect(keep);
    want.extend((0..30).filter(|k| k % 3 != 1).map(|k| 10_000 + k));
    want.sort_unstable();
    assert_eq!(xs(&all), want);
    // a rewrite against an old version writes nothing
    assert!(h.rewrite(pr.version, &pr.parts, &[]).is_err());
    assert_eq!(h.column("X").unwrap().len(), want.len());
    assert!(h.column("nope").is_err());
    // overwrite replaces everything; a tuple of columns appends by position
    h.overwrite(&crate::store::tests::sample_with(6, 18000, |k| k as f64)).unwrap();
    assert_eq!(xs(&h.table().unwrap()), vec![0, 1, 2, 3, 4, 5]);
    let tuple = Value::tuple(more.cols.iter().map(|c| Value::Vector(c.clone())).collect());
    assert_eq!(h.append_value(&tuple).unwrap(), 30);
    assert_eq!(h.rows().unwrap(), 36);
    assert!(h.append_value(&Value::int(1)).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// 40 VALUE partitions of 100 rows each: date = 18000 + k / 100, x = k (LONG).
fn dated_table(name: &str) -> (PathBuf, TableHandle) {
    let dir = scratch(name);
    let levels = vec![Level::Value(Column::from_vec(DataType::Date, (18000..18040).collect::<Vec<i32>>()))];
    let meta = DbMeta { levels, engine: "OLAP".into() };
    write_db_meta(&dir, &meta).unwrap();
    let types = vec![DataType::Date, DataType::Long];
    Appender::create(&dir, "dt", vec!["date".into(), "x".into()], types, vec!["date".into()]).unwrap().commit().unwrap();
    let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.clone()), meta });
    let h = TableHandle { db, name: "dt".into() };
    let n = 4000;
    let t = Table::new(
        vec!["date".into(), "x".into()],
        vec![
            Column::from_vec(DataType::Date, (0..n).map(|k| 18000 + (k / 100) as i32).collect::<Vec<i32>>()),
            Column::from_vec(DataType::Long, (0..n).map(|k| k as i64).collect::<Vec<i64>>()),
        ],
    )
    .unwrap();
    h.append(&t).unwrap();
    (dir, h)
}

/// x of the first `n` rows of `t` passing `keep(date, x)`, stably ordered by column `key`
/// descending (what the executor does with a scan's rows for `top n … order by key desc`).
fn top_x(t: &Table, key: &str, n: usize, keep: impl Fn(i64, i64) -> bool) -> Vec<i64> {
    let (d, x, k) = (t.col_index("date").unwrap(), t.col_index("x").unwrap(), t.col_index(key).unwrap());
    let mut rows: Vec<usize> = (0..t.rows()).filter(|&r| keep(t.cols[d].i64_at(r).unwrap(), t.cols[x].i64_at(r).unwrap())).collect();
    rows.sort_by_key(|&r| std::cmp::Reverse(t.cols[k].i64_at(r).unwrap()));
    rows.iter().take(n).map(|&r| t.cols[x].i64_at(r).unwrap()).collect()
}

#[test]
fn top_desc_scans_skip_partitions_below_the_nth_key() {
    let (dir, h) = dated_table("topdesc");
    let all = h.table().unwrap();
    // no conditions: the newest partitions are read first and the rest is left out
    let t = &h.scan(Scan { top_desc: Some(("date", 5)), ..Scan::default() }).unwrap()[0];
    assert!(t.rows() >= 100 && t.rows() < 4000, "read {} rows", t.rows());
    assert_eq!(top_x(t, "date", 5, |_, _| true), vec![3900, 3901, 3902, 3903, 3904], "ties keep table order");
    assert_eq!(top_x(t, "date", 5, |_, _| true), top_x(&all, "date", 5, |_, _| true));
    // conditions decide how far down it must read: the top 60 of x < 1050 span two partitions
    let preds = [Pred::Cmp { col: "x".into(), op: CmpOp::Lt, value: Column::from_vec(DataType::Long, vec![1050i64]) }];
    let keep = |_: i64, x: i64| x < 1050;
    let t = &h.scan(Scan { preds: &preds, top_desc: Some(("date", 60)), ..Scan::default() }).unwrap()[0];
    let want = top_x(&all, "date", 60, keep);
    assert_eq!(want.len(), 60);
    assert_eq!((want[0], want[49], want[50], want[59]), (1000, 1049, 900, 909));
    assert_eq!(top_x(t, "date", 60, keep), want);
    // a key that is not the partition column, and more rows asked for than pass
    let preds = [Pred::Cmp { col: "date".into(), op: CmpOp::Le, value: date(18005) }];
    let keep = |d: i64, _: i64| d <= 18005;
    let t = &h.scan(Scan { preds: &preds, top_desc: Some(("x", 7)), ..Scan::default() }).unwrap()[0];
    assert_eq!(top_x(t, "x", 7, keep), vec![599, 598, 597, 596, 595, 594, 593]);
    let t = &h.scan(Scan { preds: &preds, top_desc: Some(("x", 1000)), ..Scan::default() }).unwrap()[0];
    assert_eq!(top_x(t, "x", 1000, keep), top_x(&all, "x", 1000, keep));
    assert_eq!(t.rows(), 600);
    // a key that is not integer-like reads everything (the executor orders it)
    let t = &h.scan(Scan { top_desc: Some(("nope", 3)), ..Scan::default() }).unwrap()[0];
    assert_eq!(t.rows(), 4000);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Several blocks per segment (x grows with the row, so blocks are ruled out by their
/// min/max): a scan decodes only the blocks its range keeps, a later scan needing other
/// blocks widens the cached entry, and a whole scan (decoded straight into the assembled
/// columns) still returns every row with its symbol.
#[test]
fn scans_decode_only_kept_blocks_and_widen_the_cache() {
    let n = 3 * 5 * crate::column_file::BLOCK_ROWS + 123;
    let (dir, h) = table_of("blocks", n);
    let in_range = |lo: i64, hi: i64| -> Vec<i64> { (0..n as i64).filter(|&k| k >= lo && k <= hi).collect() };
    let between = |lo: f64, hi: f64| vec![Pred::Between { col: "x".into(), lo: dbl(lo), hi: dbl(hi) }];
    for (lo, hi) in [(10_000, 20_000), (50_000, 90_000), (0, 5), (10_000, 60_000)] {
        let preds = between(lo as f64, hi as f64);
        let t = &h.scan(Scan { preds: &preds, ..Scan::default() }).unwrap()[0];
        assert_eq!(exact(t, |_, x| x >= lo && x <= hi), in_range(lo, hi), "x between {lo} and {hi}");
    }
    let from = (n - 1000) as i64;
    let preds = vec![Pred::Cmp { col: "x".into(), op: CmpOp::Ge, value: dbl(from as f64) }];
    let t = &h.scan(Scan { preds: &preds, ..Scan::default() }).unwrap()[0];
    assert_eq!(xs(t), in_range(from, n as i64));
    let t = &h.scan(Scan::default()).unwrap()[0];
    assert_eq!(xs(t), in_range(0, n as i64));
    let (s, x) = (t.col_index("sym").unwrap(), t.col_index("x").unwrap());
    for r in (0..t.rows()).step_by(997) {
        let k = t.cols[x].f64_at(r).unwrap() as usize;
        assert_eq!(t.cols[s].str_at(r), Some(["IBM", "MSFT", "NA"][k % 3]), "row {r}");
    }
    // after the whole scan, a range is served from the cache and still exact
    let preds = between(30_000.0, 31_000.0);
    let t = &h.scan(Scan { preds: &preds, ..Scan::default() }).unwrap()[0];
    assert_eq!(exact(t, |_, x| (30_000..=31_000).contains(&x)), in_range(30_000, 31_000));
    let _ = std::fs::remove_dir_all(&dir);
}
