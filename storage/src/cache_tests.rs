//! Tests of the read caches: hits share data, every kind of write is seen, eviction keeps
//! the budget, `clearAllCache` empties everything.

use beluga_runtime::CallCtx;
use super::*;
use crate::catalog::{write_db_meta, DbMeta};
use crate::handle::{db_value, DbHandle, TableHandle};
use crate::store::Appender;
use beluga_runtime::column::SymCol;
use beluga_runtime::{DataType, Interpreter, Registry, Table, Value};

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("beluga-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// `n` rows over days `day0..day0+3`, x = (k + 0.5) * scale.
fn sample(n: usize, day0: i32, scale: f64) -> Table {
    crate::store::tests::sample_with(n, day0, |k| (k as f64 + 0.5) * scale)
}

fn create(dir: &Path) -> TableHandle {
    let levels = vec![Level::Value(Column::from_vec(DataType::Date, vec![18000, 18001, 18002]))];
    let meta = DbMeta { levels, engine: "OLAP".into() };
    write_db_meta(dir, &meta).unwrap();
    let types = vec![DataType::Date, DataType::Symbol, DataType::Double];
    Appender::create(dir, "pt", vec!["date".into(), "sym".into(), "x".into()], types, vec!["date".into()]).unwrap().commit().unwrap();
    let db = Arc::new(DbHandle { path: dir.display().to_string(), dir: Some(dir.to_path_buf()), meta });
    TableHandle { db, name: "pt".into() }
}

fn append(h: &TableHandle, t: &Table) {
    let mut ap = Appender::open(h.db.dir().unwrap(), &h.name).unwrap();
    ap.push(t, None).unwrap();
    ap.commit().unwrap();
}

/// (date, sym, x) rows of a table, sorted.
fn rows(t: &Table) -> Vec<(i64, String, u64)> {
    let mut v: Vec<(i64, String, u64)> = (0..t.rows())
        .map(|k| {
            let x = t.cols[2].f64_at(k).unwrap();
            (t.cols[0].i64_at(k).unwrap(), t.cols[1].str_at(k).unwrap_or("").to_string(), x.to_bits())
        })
        .collect();
    v.sort();
    v
}

fn load_all(_i: &mut CallCtx, h: &TableHandle) -> Table {
    crate::load::load(h, None, &[], None).unwrap()
}

fn date_value(d: i32) -> Value {
    Value::Scalar(Column::from_vec(DataType::Date, vec![d]))
}

#[test]
fn hits_share_data_and_every_write_is_seen() {
    let dir = scratch("writes");
    let h = create(&dir);
    let mut i = Interpreter::new(Registry::new());
    append(&h, &sample(30, 18000, 1.0));
    let a = load_all(&mut i, &h);
    assert_eq!(rows(&a), rows(&sample(30, 18000, 1.0)));
    // a second load of whole partitions shares the assembled columns
    let b = load_all(&mut i, &h);
    assert!(a.cols.iter().zip(&b.cols).all(|(x, y)| Arc::ptr_eq(&x.data, &y.data)));
    // per-partition tables share the cached segment columns
    let p1 = crate::load::load_partitions(&h, None, &[], None, false).unwrap();
    let p2 = crate::load::load_partitions(&h, None, &[], None, false).unwrap();
    assert_eq!(p1.len(), 3);
    assert!(p1.iter().zip(&p2).all(|(x, y)| Arc::ptr_eq(&x.cols[2].data, &y.cols[2].data)));
    // the manifest is kept too
    assert!(Arc::ptr_eq(&h.meta().unwrap(), &h.meta().unwrap()));

    // append: new rows, new symbols
    let more = {
        let mut t = sample(6, 18000, 100.0);
        t.cols[1] = Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(["A", "B", "C", "D", "E", "F"])));
        t
    };
    append(&h, &more);
    let c = load_all(&mut i, &h);
    let mut want = rows(&sample(30, 18000, 1.0));
    want.extend(rows(&more));
    want.sort();
    assert_eq!(rows(&c), want);

    // update (a partition rewritten): x of day 18001 multiplied by 10
    let meta = h.meta().unwrap();
    let mut parts = crate::load::load_whole_partitions(&h, &[]).unwrap();
    let k = meta.parts.iter().position(|p| p.key == vec![1]).unwrap();
    let old = &parts.2[k];
    let x10: Vec<f64> = (0..old.rows()).map(|r| old.cols[2].f64_at(r).unwrap() * 10.0).collect();
    let mut upd = old.clone();
    upd.cols[2] = Column::from_vec(DataType::Double, x10);
    crate::rewrite::rewrite_parts(&h, parts.0, &[parts.1[k].clone()], &[Arc::new(upd)]).unwrap();
    let want: Vec<_> =
        want.iter().map(|(d, s, x)| (*d, s.clone(), if *d == 18001 { (f64::from_bits(*x) * 10.0).to_bits() } else { *x })).collect();
    let mut want_sorted = want.clone();
    want_sorted.sort();
    assert_eq!(rows(&load_all(&mut i, &h)), want_sorted);

    // delete (a partition rewritten with fewer rows): day 18002 loses its rows with x >= 20
    parts = crate::load::load_whole_partitions(&h, &[]).unwrap();
    let k = parts.1.iter().position(|d| d == &meta.parts.iter().find(|p| p.key == vec![2]).unwrap().dir).unwrap();
    let old = &parts.2[k];
    let keep: Vec<bool> = (0..old.rows()).map(|r| old.cols[2].f64_at(r).unwrap() < 20.0).collect();
    let del = old.filter(&keep);
    crate::rewrite::rewrite_parts(&h, parts.0, &[parts.1[k].clone()], &[Arc::new(del)]).unwrap();
    let want: Vec<_> = want_sorted.iter().filter(|(d, _, x)| *d != 18002 || f64::from_bits(*x) < 20.0).cloned().collect();
    assert_eq!(rows(&load_all(&mut i, &h)), want);

    // dropPartition
    let dbv = db_value((*h.db).clone());
    crate::builtins_db::drop_partition(&mut i, vec![dbv.clone(), date_value(18000), Value::string("pt")]).unwrap();
    let want: Vec<_> = want.iter().filter(|(d, _, _)| *d != 18000).cloned().collect();
    assert_eq!(rows(&load_all(&mut i, &h)), want);

    // dropTable, then a table of the same name and shape with other values
    let before = load_all(&mut i, &h);
    crate::builtins_db::drop_table(&mut i, vec![dbv.clone(), Value::string("pt")]).unwrap();
    assert!(crate::load::load(&h, None, &[], None).is_err());
    let h = create(&dir);
    append(&h, &sample(30, 18000, -1.0));
    let after = load_all(&mut i, &h);
    assert_eq!(rows(&after), rows(&sample(30, 18000, -1.0)));
    assert!(!Arc::ptr_eq(&before.cols[2].data, &after.cols[2].data));

    // dropDatabase, then the database again with other values
    crate::builtins_db::drop_database(&mut i, vec![Value::string(&dir.display().to_string())]).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    let h = create(&dir);
    append(&h, &sample(30, 18000, 0.5));
    assert_eq!(rows(&load_all(&mut i, &h)), rows(&sample(30, 18000, 0.5)));

    // clearAllCache: nothing shared afterwards, same rows
    let a = load_all(&mut i, &h);
    let (bytes, entries, _) = usage();
    assert!(bytes > 0 && entries > 0);
    crate::builtins_db::clear_all_cache(&mut i, vec![]).unwrap();
    let b = load_all(&mut i, &h);
    assert!(!Arc::ptr_eq(&a.cols[2].data, &b.cols[2].data));
    assert_eq!(rows(&a), rows(&b));
    let _ = std::fs::remove_dir_all(&dir);
}

fn entry(n: usize) -> Arc<Decoded> {
    Arc::new(Decoded::whole(Column::from_vec(DataType::Long, vec![7i64; n]), vec![]))
}

fn seg(k: u64) -> Key {
    Key::Seg { table: 1, seg: k, col: 0 }
}

#[test]
fn clock_eviction_keeps_the_budget_and_recently_used_entries() {
    let one = 1000 * 8 + 64;
    let mut c = Columns { map: AHashMap::new(), ring: VecDeque::new(), bytes: 0, budget: 3 * one, stats: Stats::default(), seen: AHashSet::new() };
    let st = (1, 2, 3);
    for k in 0..3 {
        c.put(seg(k), entry(1000), st);
    }
    assert_eq!((c.map.len(), c.bytes), (3, 3 * one));
    // entry 0 is used: the next insertion evicts 1 (the oldest unused), then 2
    assert!(c.get(&seg(0), st).is_some());
    c.put(seg(3), entry(1000), st);
    assert!(c.map.contains_key(&seg(0)) && !c.map.contains_key(&seg(1)));
    c.put(seg(4), entry(1000), st);
    assert!(c.map.contains_key(&seg(0)) && !c.map.contains_key(&seg(2)));
    assert!(c.bytes <= c.budget);
    assert_eq!(c.stats.evictions, 2);
    // another stamp (the file changed) is a miss
    assert!(c.get(&seg(0), (9, 9, 9)).is_none());
    // an entry larger than the budget is not kept; replacing an entry keeps one ring slot
    c.put(seg(9), entry(10_000), st);
    assert!(!c.map.contains_key(&seg(9)));
    c.put(seg(4), entry(10), st);
    assert_eq!(c.ring.iter().filter(|k| **k == seg(4)).count(), 1);
    assert_eq!(c.bytes, c.map.values().map(|s| s.bytes).sum::<usize>());
    // retain drops entries and their ring slots
    c.retain(|k| *k != seg(0));
    assert!(!c.ring.contains(&seg(0)) && c.bytes == c.map.values().map(|s| s.bytes).sum::<usize>());
}

/// The x values of the rows of `t` on day `d`, in order.
fn xs_on(t: &Table, d: i64) -> Vec<f64> {
    (0..t.rows()).filter(|&k| t.cols[0].i64_at(k) == Some(d)).map(|k| t.cols[2].f64_at(k).unwrap()).collect()
}

#[test]
fn partitions_of_several_segments_are_joined_once_and_shared() {
    let dir = scratch("joinparts");
    let h = create(&dir);
    let (a, b) = (sample(30, 18000, 1.0), sample(12, 18000, 100.0));
    append(&h, &a);
    append(&h, &b);
    assert!(h.meta().unwrap().parts.iter().all(|p| p.segs.len() == 2));
    let p1 = crate::load::load_partitions(&h, None, &[], None, false).unwrap();
    assert_eq!(p1.len(), 3);
    for (k, t) in p1.iter().enumerate() {
        // one partition per day, its rows in segment order: the first append's, then the second's
        let d = 18000 + k as i64;
        assert!((0..t.rows()).all(|r| t.cols[0].i64_at(r) == Some(d)));
        let mut want = xs_on(&a, d);
        want.extend(xs_on(&b, d));
        assert_eq!(xs_on(t, d), want);
        assert_eq!(t.cols[1].str_at(0), Some(["IBM", "MSFT", "NA"][k]));
    }
    // a second query shares every column of every partition (nothing copied)
    let p2 = crate::load::load_partitions(&h, None, &[], None, false).unwrap();
    assert!(p1.iter().zip(&p2).all(|(x, y)| x.cols.iter().zip(&y.cols).all(|(u, v)| Arc::ptr_eq(&u.data, &v.data))));
    // a subset of the columns: the same joined columns
    let only_x = crate::load::load_partitions(&h, Some(&["x".to_string()]), &[], None, false).unwrap();
    assert!(p1.iter().zip(&only_x).all(|(x, y)| Arc::ptr_eq(&x.cols[2].data, &y.cols[0].data)));
    // a condition on rows still filters them (segment by segment)
    let gt = beluga_runtime::table_source::Pred::Cmp {
        col: "x".into(),
        op: beluga_runtime::kernels::cmp::CmpOp::Gt,
        value: Column::from_vec(DataType::Double, vec![20.0]),
    };
    // (a segment keeping most of its rows comes back whole: the caller filters)
    let f = crate::load::load_partitions(&h, None, &[gt.clone()], None, false).unwrap();
    let mut got: Vec<f64> = f.iter().flat_map(|t| (0..t.rows()).map(|r| t.cols[2].f64_at(r).unwrap()).collect::<Vec<_>>()).collect();
    got.retain(|&x| x > 20.0);
    got.sort_by(f64::total_cmp);
    let mut want: Vec<f64> = (20..30).map(|k| k as f64 + 0.5).chain((0..12).map(|k| (k as f64 + 0.5) * 100.0)).collect();
    want.sort_by(f64::total_cmp);
    assert_eq!(got, want);
    // with `segments`, each filtered partition comes as one table per segment: same rows
    let fs = crate::load::load_partitions(&h, None, &[gt], None, true).unwrap();
    assert_eq!((f.len(), fs.len()), (3, 6));
    let mut got: Vec<f64> = fs.iter().flat_map(|t| (0..t.rows()).map(|r| t.cols[2].f64_at(r).unwrap()).collect::<Vec<_>>()).collect();
    got.retain(|&x| x > 20.0);
    got.sort_by(f64::total_cmp);
    assert_eq!(got, want);
    // an append makes the joined columns stale: the new rows are seen
    append(&h, &sample(3, 18000, -1.0));
    let p3 = crate::load::load_partitions(&h, None, &[], None, false).unwrap();
    assert_eq!(p3.iter().map(|t| t.rows()).sum::<usize>(), 45);
    assert_eq!(xs_on(&p3[0], 18000).last(), Some(&-0.5));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A filtered read of columns never read before decodes them block by block and keeps
/// nothing; the second read keeps them decoded, the third is served from that; all three
/// give the same rows. Forgetting the table (as a drop or `clearAllCache` does) starts the
/// count again.
#[test]
fn filtered_columns_are_kept_from_their_second_read() {
    use beluga_runtime::kernels::cmp::CmpOp;
    use beluga_runtime::table_source::Pred;
    let dir = scratch("secondread");
    let h = create(&dir);
    // 20,000 rows per day: three blocks per partition
    append(&h, &sample(60_000, 18000, 1.0));
    let preds = [Pred::Cmp { col: "x".into(), op: CmpOp::Ge, value: Column::from_vec(DataType::Double, vec![59_990.0]) }];
    let want: Vec<(i64, String, u64)> =
        rows(&sample(60_000, 18000, 1.0)).into_iter().filter(|r| f64::from_bits(r.2) >= 59_990.0).collect();
    assert_eq!(want.len(), 10);
    let st = table_state(h.db.dir().unwrap(), "pt").unwrap();
    let tdir = crate::catalog::table_dir(h.db.dir().unwrap(), "pt").unwrap();
    let p = st.meta.parts.iter().find(|p| p.rows() > 0).unwrap();
    let (part, seg) = (p.dir.clone(), p.segs[0].id);
    let cached = |c: usize| matches!(st.seg_source(&tdir, &part, seg, c).unwrap(), SegSource::Cached(_));
    for round in 0..3 {
        let t = crate::load::load(&h, None, &preds, None).unwrap();
        assert_eq!(rows(&t), want, "read {round}");
        assert_eq!((cached(1), cached(2)), (round > 0, round > 0), "read {round}");
    }
    forget(&dir);
    let st2 = table_state(h.db.dir().unwrap(), "pt").unwrap();
    assert_eq!(rows(&crate::load::load(&h, None, &preds, None).unwrap()), want);
    assert!(matches!(st2.seg_source(&tdir, &part, seg, 2).unwrap(), SegSource::File(_)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn split_scans_return_segments_a_filter_keeps_mostly_as_cached() {
    let dir = scratch("dense");
    let h = create(&dir);
    // 3,000 rows over three days (one segment each), x = 0.5, 1.5, ...
    append(&h, &sample(3000, 18000, 1.0));
    let whole = crate::load::load_partitions(&h, None, &[], None, false).unwrap();
    let cmp = |op, v: f64| beluga_runtime::table_source::Pred::Cmp {
        col: "x".into(),
        op,
        value: Column::from_vec(DataType::Double, vec![v]),
    };
    use beluga_runtime::kernels::cmp::CmpOp;
    // x > 10 keeps all but a few rows of the first day: every segment comes back whole,
    // sharing the cached columns (no gathered copy)
    let dense = crate::load::load_partitions(&h, None, &[cmp(CmpOp::Gt, 10.0)], None, false).unwrap();
    assert_eq!(dense.len(), 3);
    for (a, b) in whole.iter().zip(&dense) {
        assert_eq!(a.rows(), b.rows());
        assert!(a.cols.iter().zip(&b.cols).all(|(x, y)| Arc::ptr_eq(&x.data, &y.data)));
    }
    // x < 10 keeps few rows: exactly those, gathered
    let sparse = crate::load::load_partitions(&h, None, &[cmp(CmpOp::Lt, 10.0)], None, false).unwrap();
    let got: Vec<f64> = sparse.iter().flat_map(|t| (0..t.rows()).map(|r| t.cols[2].f64_at(r).unwrap()).collect::<Vec<_>>()).collect();
    let mut got = got;
    got.sort_by(f64::total_cmp);
    assert_eq!(got, (0..10).map(|k| k as f64 + 0.5).collect::<Vec<_>>());
    // `load` (one table, exact rows) still filters a dense condition row by row
    let one = crate::load::load(&h, None, &[cmp(CmpOp::Gt, 10.0)], None).unwrap();
    assert_eq!(one.rows(), 2990);
    let _ = std::fs::remove_dir_all(&dir);
}
