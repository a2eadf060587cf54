//! Stored tables: the same queries on a partitioned copy and on the in-memory table, a
//! `loadTextEx` killed with SIGKILL at random moments (the table keeps exactly the old or
//! the new rows and accepts later appends), and the writer lock.

use beluga_runtime::fmt::format_elem;
use beluga_runtime::table_source::{one, table_source, Pred, Scan};
use beluga_runtime::{Interpreter, Value};
use beluga_tests::beluga_bin;
use beluga_tests::{interpreter, with_stack};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("beluga-storage-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).expect("create scratch dir");
    p
}

fn run(i: &mut Interpreter, src: &str) {
    let out = i.run_repl_text(src);
    assert!(!out.contains("Error") && !out.contains("error"), "script failed:\n{src}\n---\n{out}");
}

/// Rows of a table value as sorted text lines (partitioned results come in partition order).
/// The `where` conditions `conds` lowered to predicates against the stored table `pt`
/// (as the SQL planner does), and the `pt` handle.
fn lowered(i: &mut Interpreter, conds: &[&str]) -> (Vec<Pred>, Value) {
    let pt = i.get_var("pt").expect("pt").clone();
    let names: Vec<String> = table_source(&pt).expect("stored").schema().expect("schema").into_iter().map(|(n, _)| n).collect();
    let mut exprs = Vec::new();
    for (k, c) in conds.iter().enumerate() {
        run(i, &format!("cond{k} = <({c})>"));
        match i.get_var(&format!("cond{k}")) {
            Some(Value::Code(e)) => exprs.push((**e).clone()),
            other => panic!("metacode expected, got {other:?}"),
        }
    }
    (beluga_runtime::sql::lower_preds(i, &names, &exprs), pt)
}

fn rows_of(v: &Value) -> Vec<String> {
    match v {
        Value::Table(t) => {
            let mut rows: Vec<String> = (0..t.rows())
                .map(|r| t.cols.iter().map(|c| format_elem(c, r)).collect::<Vec<_>>().join("|"))
                .collect();
            rows.sort();
            let mut out = vec![t.names.join("|")];
            out.extend(rows);
            out
        }
        other => vec![format!("{other:?}")],
    }
}

fn count(i: &mut Interpreter, db: &str) -> i64 {
    run(i, &format!("__c = exec count(*) from loadTable(\"{db}\", `pt)"));
    i.get_var("__c").and_then(|v| v.as_i64()).expect("count is a number")
}

#[test]
fn partitioned_queries_match_in_memory() {
    with_stack(|| {
        let dir = scratch("diff");
        let db = dir.join("db").display().to_string();
        let mut i = interpreter();
        run(
            &mut i,
            &format!(
                r#"n = 60000
k = 0..(n - 1)
t = table(2020.01.01 + k % 10 as date, take(`A`B`C`D`E`F`G`NA, n) as sym, double(k * 7919 % 1000) / 10.0 as price, k * 31 % 100 as qty, 09:30:00 + k % 23400 as time)
db1 = database("", VALUE, 2020.01.01..2020.01.10)
db2 = database("", RANGE, `A`C`E`ZZ)
db = database("{db}", COMPO, [db1, db2])
pt = db.createPartitionedTable(t, `pt, `date`sym)
pt.append!(t[0:30000])
pt.append!(t[30000:n])
pt = loadTable("{db}", `pt)
"#
            ),
        );
        let queries = [
            "select count(*) from T",
            "select count(*) from T where date = 2020.01.03",
            "select sym, date, price from T where date between 2020.01.02 : 2020.01.04, sym in `A`C`NA",
            "select sum(qty), avg(price), max(price), min(price) from T group by sym",
            "select max(price) as m from T where price > 50 group by date",
            "select sym, price, qty from T where qty < 10, sym = `B",
            "select count(*) from T where date >= 2020.01.04, price > 90.5",
            "select date, sym, qty from T where sym = 'NA', date <= 2020.01.02",
            "select count(*) from T where time between 09:30:00 : 09:40:00, date in [2020.01.01, 2020.01.09]",
            "select sum(qty) from T where price > qty group by date, sym",
            "select count(*) from T where date > 2021.01.01",
        ];
        for q in queries {
            run(&mut i, &format!("r1 = {}\nr2 = {}", q.replace(" T", " t"), q.replace(" T", " pt")));
            let a = rows_of(i.get_var("r1").expect("r1"));
            let b = rows_of(i.get_var("r2").expect("r2"));
            assert_eq!(a, b, "results differ for: {q}");
        }
        // partition pruning through the table source: one date of ten, then one symbol
        // range of three (conditions lowered to predicates as the SQL planner does)
        let np = |i: &mut Interpreter, conds: &[&str]| -> usize {
            let (preds, pt) = lowered(i, conds);
            let cols = ["qty".to_string()];
            let src = table_source(&pt).expect("pt is a stored table");
            src.scan(Scan { columns: Some(&cols), preds: &preds, split: true, ..Scan::default() }).expect("scan").len()
        };
        let counts = (
            np(&mut i, &["date = 2020.01.03"]),
            np(&mut i, &["date = 2020.01.03", "sym = `C"]),
            np(&mut i, &["date between 2020.01.02 : 2020.01.04", "sym in `A`F"]),
            np(&mut i, &["qty > 1000"]),
        );
        assert_eq!(counts, (3, 1, 3, 0));
        // pruning and filters pushed into the scan give the same rows as the full query
        let conds = [
            "date = 2020.01.03",
            "date between 2020.01.02 : 2020.01.04; sym in `A`C`NA",
            "price > 50; qty <= 20",
            "sym = 'NA'; date <= 2020.01.02",
            "time between 09:30:00 : 09:40:00; date in [2020.01.01, 2020.01.09]",
            "price > qty; sym >= `E",
            "date > 2021.01.01",
            "2020.01.05 <= date; sym != `B; qty == 3",
        ];
        for c in conds {
            let conds: Vec<&str> = c.split("; ").collect();
            let (preds, pt) = lowered(&mut i, &conds);
            let src = table_source(&pt).expect("pt is a stored table");
            let loaded = one(src.scan(Scan { preds: &preds, ..Scan::default() }).expect("scan")).expect("one table");
            i.set_var("loaded", Value::table(loaded)).expect("set");
            let c = c.replace("; ", ", ");
            run(&mut i, &format!("r1 = select * from t where {c}\nr2 = select * from loaded where {c}"));
            let a = rows_of(i.get_var("r1").expect("r1"));
            let b = rows_of(i.get_var("r2").expect("r2"));
            assert_eq!(a, b, "pushed-down load differs for: {c}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn import_errors_name_file_and_line() {
    with_stack(|| {
        let dir = scratch("errors");
        let db = dir.join("db").display().to_string();
        let bad_quote = dir.join("q.csv");
        std::fs::write(&bad_quote, "id,x\n1,a\n2,b\n3,\"c\n").expect("write");
        let mut i = interpreter();
        let out = i.run_repl_text(&format!("loadText(\"{}\")", bad_quote.display()));
        assert!(out.contains("q.csv") && out.contains("line 4"), "unexpected: {out}");
        let outside = dir.join("r.csv");
        std::fs::write(&outside, "id,x\n1,1.5\n5,2.5\n12,3.5\n2,4.5\n").expect("write");
        run(
            &mut i,
            &format!("db = database(\"{db}\", RANGE, 0 10)\npt = db.createPartitionedTable(table(1 as id, 1.0 as x), `pt, `id)"),
        );
        let out = i.run_repl_text(&format!("loadTextEx(db, `pt, `id, \"{}\")", outside.display()));
        assert!(out.contains("r.csv") && out.contains("line 4") && out.contains("id"), "unexpected: {out}");
        assert_eq!(count(&mut i, &db), 0, "a failed import writes nothing");
        // values that don't fit the column type are nulls, as in DolphinDB
        let odd = dir.join("o.csv");
        std::fs::write(&odd, "id,x\n1,abc\nxyz,2.5\n").expect("write");
        // (and reported: `lenient_import_is_reported`)
        let out = i.run_repl_text(&format!("o = loadText(\"{}\", , table(`id`x as name, `INT`DOUBLE as type))", odd.display()));
        assert!(out.contains("stored as NULL"), "{out}");
        let o = rows_of(i.get_var("o").expect("o"));
        assert_eq!(o, vec!["id|x", "1|", "|2.5"]);
        let _ = std::fs::remove_dir_all(&dir);
    });
}

/// Lenient reading is never silent: fields read by their numeric prefix, fields made NULL
/// and records of the wrong width are counted and reported with the first line of each.
#[test]
fn lenient_import_is_reported() {
    with_stack(|| {
        let dir = scratch("lenient");
        let f = dir.join("d.csv");
        std::fs::write(&f, "id,qty,px\n1,10,1.5\n2,1e3,2.5\n3,0x10,abc\n4,1.7\n5,notanint,3.5,extra\n6,99999999999,4.5\n").expect("write");
        let mut i = interpreter();
        let out = i.run_repl_text(&format!("t = loadText(\"{}\", schema=table(`id`qty`px as name, `INT`INT`DOUBLE as type))", f.display()));
        let lines: Vec<&str> = out.lines().collect();
        let has = |what: &str| lines.iter().any(|l| l.contains("d.csv") && l.contains(what));
        assert!(has("column qty: 3 fields read by their numeric prefix (first at line 3)"), "{out}");
        assert!(has("column qty: 2 fields not a number of the column's type, stored as NULL (first at line 6)"), "{out}");
        assert!(has("column px: 1 field not a number of the column's type, stored as NULL (first at line 4)"), "{out}");
        assert!(has("1 record with fewer fields than the header, missing fields are NULL (first at line 5)"), "{out}");
        assert!(has("1 record with more fields than the header, extra fields ignored (first at line 6)"), "{out}");
        let t = rows_of(i.get_var("t").expect("t"));
        assert_eq!(t, vec!["id|qty|px", "1|10|1.5", "2|1|2.5", "3|0|", "4|1|", "5||3.5", "6||4.5"]);
        // a clean file says nothing
        let c = dir.join("c.csv");
        std::fs::write(&c, "id,qty\n1,2\n3,4\n").expect("write");
        let out = i.run_repl_text(&format!("c = loadText(\"{}\")", c.display()));
        assert_eq!(out.trim(), "", "{out}");
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn load_text_ex_survives_sigkill() {
    let Some(bin) = beluga_bin() else {
        eprintln!("SKIPPED load_text_ex_survives_sigkill: the beluga binary is not built beside the tests");
        return;
    };
    with_stack(move || {
        let dir = scratch("kill");
        let db = dir.join("db").display().to_string();
        // a CSV big enough to take a while to import
        let csv = dir.join("big.csv");
        let mut text = String::from("date,sym,price,qty\n");
        let n_new: i64 = 400_000;
        for k in 0..n_new {
            text.push_str(&format!("2020.01.{:02},S{},{}.{},{}\n", 1 + k % 5, k % 97, k % 1000, k % 100, k % 7));
        }
        std::fs::write(&csv, text).expect("write csv");
        let mut i = interpreter();
        run(
            &mut i,
            &format!(
                r#"t = table(2020.01.01 2020.01.02 as date, `S1`S2 as sym, 1.5 2.5 as price, 1 2 as qty)
db = database("{db}", VALUE, 2020.01.01..2020.01.05)
pt = db.createPartitionedTable(t, `pt, `date)
pt.append!(t)
"#
            ),
        );
        let mut expected = count(&mut i, &db);
        assert_eq!(expected, 2);
        let script = dir.join("load.dos");
        std::fs::write(&script, format!("db = database(\"{db}\")\nloadTextEx(db, `pt, `date, \"{}\")\n", csv.display()))
            .expect("write script");
        let mut seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(7) | 1;
        let mut outcomes = (0, 0);
        for round in 0..6 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let delay = Duration::from_millis(20 + seed % 1500);
            let mut child = Command::new(&bin).arg(&script).spawn().expect("spawn beluga");
            let start = Instant::now();
            while start.elapsed() < delay {
                if child.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let _ = child.kill(); // SIGKILL
            let _ = child.wait();
            let now = count(&mut i, &db);
            assert!(
                now == expected || now == expected + n_new,
                "round {round}: after SIGKILL at {delay:?} the table has {now} rows; expected {expected} or {}",
                expected + n_new
            );
            if now == expected { outcomes.0 += 1 } else { outcomes.1 += 1 }
            expected = now;
            // the database still accepts writes
            run(&mut i, &format!("loadTable(\"{db}\", `pt).append!(table(2020.01.03 as date, `S3 as sym, 3.5 as price, 3 as qty))"));
            expected += 1;
            assert_eq!(count(&mut i, &db), expected);
        }
        eprintln!("sigkill rounds: {} rolled back, {} completed", outcomes.0, outcomes.1);
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn second_writer_gets_a_clear_error() {
    with_stack(|| {
        let dir = scratch("lock");
        let db = dir.join("db").display().to_string();
        let mut i = interpreter();
        run(
            &mut i,
            &format!(
                "t = table(1 2 as id, 1.0 2.0 as x)\ndb = database(\"{db}\", RANGE, 0 10)\npt = db.createPartitionedTable(t, `pt, `id)"
            ),
        );
        let lock = std::fs::OpenOptions::new().write(true).open(dir.join("db").join("LOCK")).expect("open LOCK");
        lock.lock().expect("take the lock");
        // SAFETY: the tests of this binary read this variable only here
        unsafe { std::env::set_var("BELUGA_LOCK_TIMEOUT_MS", "200") };
        let out = i.run_repl_text("pt.append!(t)");
        assert!(out.contains("another process"), "unexpected: {out}");
        drop(lock);
        run(&mut i, "pt.append!(t)");
        assert_eq!(count(&mut i, &db), 2);
        let _ = std::fs::remove_dir_all(&dir);
    });
}

/// Two results are the same value: names, column types, row order; floating columns equal
/// up to rounding of the summation order (partial sums are merged across partitions).
fn same_result(a: &Value, b: &Value) -> Result<(), String> {
    match (a, b) {
        (Value::Table(x), Value::Table(y)) => {
            if x.names != y.names {
                return Err(format!("names {:?} vs {:?}", x.names, y.names));
            }
            if x.rows() != y.rows() {
                return Err(format!("rows {} vs {}", x.rows(), y.rows()));
            }
            for (k, (c, d)) in x.cols.iter().zip(&y.cols).enumerate() {
                if c.ty != d.ty {
                    return Err(format!("column {} type {:?} vs {:?}", x.names[k], c.ty, d.ty));
                }
                for r in 0..c.len() {
                    let same = if c.ty.is_floating() {
                        match (c.is_null(r), d.is_null(r), c.f64_at(r), d.f64_at(r)) {
                            (true, true, ..) => true,
                            (false, false, Some(u), Some(v)) => (u - v).abs() <= 1e-9 * u.abs().max(v.abs()).max(1.0),
                            _ => false,
                        }
                    } else {
                        format_elem(c, r) == format_elem(d, r)
                    };
                    if !same {
                        return Err(format!("column {} row {r}: {} vs {}", x.names[k], format_elem(c, r), format_elem(d, r)));
                    }
                }
            }
            Ok(())
        }
        _ if format!("{a:?}") == format!("{b:?}") => Ok(()),
        _ => Err(format!("{a:?} vs {b:?}")),
    }
}

const MR_DATA: &str = r#"n = 30000
k = 0..(n - 1)
price = iif(k % 13 == 0, double(NULL), double(k * 7919 % 1000) / 4.0)
qty = iif(k % 17 == 0, int(NULL), k * 31 % 100)
g = iif(k % 11 == 0, int(NULL), k % 5)
t = table(2020.01.01 + k % 10 as date, take(`A`B`C`D`E`F`G`NA, n) as sym, price, qty, k % 7 + 1 as w, 09:30:00 + k % 23400 as time, g)
db1 = database("", VALUE, 2020.01.01..2020.01.10)
db2 = database("", RANGE, `A`C`E`ZZ)
"#;

#[test]
fn mapreduce_aggregates_match_in_memory() {
    with_stack(|| {
        let dir = scratch("mr");
        let db = dir.join("db").display().to_string();
        let mut i = interpreter();
        run(
            &mut i,
            &format!(
                "{MR_DATA}db = database(\"{db}\", COMPO, [db1, db2])\npt = db.createPartitionedTable(t, `pt, `date`sym)\npt.append!(t[0:12000])\npt.append!(t[12000:n])\npt = loadTable(\"{db}\", `pt)\nm = select * from pt\n"
            ),
        );
        // `m` is the stored table in memory (rows in partition order, as the concatenated
        // partitions); every query takes the map-reduce path (checked by its run counter)
        let queries = [
            "select sum(qty), avg(price), count(price), min(price), max(qty), first(price), last(qty), firstNot(price), lastNot(price) from T group by sym",
            "select std(price), var(price), stdp(price), varp(price), count(*) from T where date >= 2020.01.03 group by date, sym",
            "select wavg(price, w), wsum(price, qty), count(*) as n from T where qty > 20 group by g",
            "select avg(price) as ap, sum(qty) as sq from T where price > 240 group by date having sum(qty) > 100 order by ap desc",
            "select count(*) from T where date = 2020.01.04",
            "select count(*) from T where date between 2020.01.02 : 2020.01.05, price > 100",
            "select count(*), avg(price), max(sym), min(time), std(price), wavg(qty, w) from T where qty < 3",
            "exec sum(qty) from T where date > 2020.01.08",
            "select sym, date, first(time), last(time) from T group by sym, date order by date desc, sym limit 7",
            "select round(avg(price), 1) as r, max(price) - min(price) as spread from T group by date, minute(time) as m having count(*) > 2",
            "select avg(price) from T where sym = `B, qty > 50 group by date",
            "select top 3 sym, sum(qty) as s from T group by sym order by s desc",
            "select max(qty) from T where time between 09:40:00 : 10:00:00 group by g, sym",
            "exec avg(price) from T group by date",
        ];
        for q in queries {
            run(&mut i, &format!("r1 = {}", q.replace(" T", " m")));
            let before = beluga_runtime::sql::mapreduce_runs();
            run(&mut i, &format!("r2 = {}", q.replace(" T", " pt")));
            assert!(beluga_runtime::sql::mapreduce_runs() > before, "not run map-reduce style: {q}");
            let (a, b) = (i.get_var("r1").expect("r1"), i.get_var("r2").expect("r2"));
            if let Err(e) = same_result(a, b) {
                panic!("results differ for: {q}\n{e}");
            }
        }
        // other shapes take the ordinary path and still agree (no row left, median, context by)
        let others = [
            "select sum(price) from T where qty > 1000 group by sym",
            "select median(price) from T group by sym",
            "select sym, price - avg(price) as d from T where date = 2020.01.02 context by sym",
            "select count(*) from T where qty > 1000",
        ];
        for q in others {
            run(&mut i, &format!("r1 = {}\nr2 = {}", q.replace(" T", " m"), q.replace(" T", " pt")));
            let (a, b) = (i.get_var("r1").expect("r1"), i.get_var("r2").expect("r2"));
            if let Err(e) = same_result(a, b) {
                panic!("results differ for: {q}\n{e}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    });
}

/// Inode and modification time of every file in the partition folders of a table.
fn part_files(tdir: &std::path::Path) -> std::collections::BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = std::collections::BTreeMap::new();
    let mut stack: Vec<PathBuf> = std::fs::read_dir(tdir).expect("table dir").flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("partition dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(m) = std::fs::metadata(&p) {
                out.insert(p, (m.ino(), m.modified().expect("mtime")));
            }
        }
    }
    out
}

fn same_rows(i: &mut Interpreter, what: &str) {
    run(i, "r1 = select * from t order by date, sym, time, price, qty, w\nr2 = select * from pt order by date, sym, time, price, qty, w");
    let (a, b) = (i.get_var("r1").expect("r1"), i.get_var("r2").expect("r2"));
    if let Err(e) = same_result(a, b) {
        panic!("stored table differs from the in-memory one after {what}\n{e}");
    }
}

#[test]
fn update_delete_rewrite_only_touched_partitions() {
    with_stack(|| {
        let dir = scratch("dml");
        let db = dir.join("db").display().to_string();
        let tdir = dir.join("db").join("pt");
        let mut i = interpreter();
        run(
            &mut i,
            &format!(
                "{MR_DATA}db = database(\"{db}\", COMPO, [db1, db2])\npt = db.createPartitionedTable(t, `pt, `date`sym)\npt.append!(t)\npt = loadTable(\"{db}\", `pt)\n"
            ),
        );
        // one partition (2020.01.03, [C, E)) changes: no other file is touched or added
        let before = part_files(&tdir);
        let stmt = "update T set price = price + 1, qty = qty * 2 where date = 2020.01.03, sym = `C";
        run(&mut i, &format!("{}\n{}", stmt.replace(" T ", " t "), stmt.replace(" T ", " pt ")));
        let after = part_files(&tdir);
        for (p, id) in &before {
            assert_eq!(after.get(p), Some(id), "file {} was rewritten or removed", p.display());
        }
        let added: Vec<&PathBuf> = after.keys().filter(|p| !before.contains_key(*p)).collect();
        assert!(!added.is_empty(), "the updated partition got no new file");
        for p in &added {
            let s = p.display().to_string();
            assert!(s.contains("20200103") && s.contains("C_E"), "a file outside the updated partition was written: {s}");
        }
        same_rows(&mut i, stmt);
        // a delete touching one date only
        let before = part_files(&tdir);
        let stmt = "delete from T where date = 2020.01.07, qty > 50";
        run(&mut i, &format!("{}\n{}", stmt.replace(" T ", " t "), stmt.replace(" T ", " pt ")));
        let after = part_files(&tdir);
        for p in after.keys().filter(|p| !before.contains_key(*p)) {
            assert!(p.display().to_string().contains("20200107"), "delete wrote outside its partitions: {}", p.display());
        }
        same_rows(&mut i, stmt);
        // statements over many partitions, a partitioning column moving rows, nothing matched
        for stmt in [
            "delete from T where qty > 90",
            "update T set w = w + 100 where price > 200",
            "update T set date = 2020.01.09 where date = 2020.01.02, qty < 30",
            "update T set sym = `D where sym = `A, date = 2020.01.05",
            "update T set price = 0.0 where qty > 1000",
        ] {
            run(&mut i, &format!("{}\n{}", stmt.replace(" T ", " t "), stmt.replace(" T ", " pt ")));
            same_rows(&mut i, stmt);
        }
        // failing statements change nothing: a value outside the partition scheme (found
        // while writing) and an update value of the wrong size (found while evaluating)
        for stmt in ["update pt set sym = `ZZZ where date = 2020.01.06", "update pt set qty = [1, 2, 3] where date >= 2020.01.04"] {
            let before = part_files(&tdir);
            let out = i.run_repl_text(stmt);
            assert!(out.contains("rror") || out.contains("outside") || out.contains("size"), "no error for {stmt}: {out}");
            assert_eq!(before, part_files(&tdir), "a failed statement changed files: {stmt}");
            same_rows(&mut i, stmt);
        }
        let _ = std::fs::remove_dir_all(&dir);
    });
}

/// The in-memory cache of stored tables never serves old data: the same queries on the
/// stored table and on an in-memory copy agree before and after every kind of write
/// (append, update, delete, dropPartition, dropTable and a new table of the same name)
/// and after `clearAllCache()`; each query runs twice (the second from memory).
#[test]
fn cached_queries_follow_every_write() {
    with_stack(|| {
        let dir = scratch("cache");
        let db = dir.join("db").display().to_string();
        let mut i = interpreter();
        let all = "order by date, sym, time, price, qty, w, g";
        let queries = [
            format!("select * from {{T}} where date = 2020.01.03 {all}"),
            format!("select * from {{T}} {all}"),
            "select sym, date, price, qty from {T} where date between 2020.01.02 : 2020.01.05, time >= 10:00:00 order by date, sym, price, qty".to_string(),
            "select avg(price) as p, sum(qty) as q, count(*) as c from {T} where date between 2020.01.02 : 2020.01.06 group by sym, date order by sym, date".to_string(),
            "select count(*) from {T}".to_string(),
            "select count(*) from {T} where date > 2020.01.04".to_string(),
        ];
        let check = |i: &mut Interpreter, what: &str| {
            for (k, q) in queries.iter().enumerate() {
                for rep in 0..2 {
                    run(i, &format!("a = {}\nb = {}", q.replace("{T}", "pt"), q.replace("{T}", "t")));
                    let (a, b) = (i.get_var("a").expect("a"), i.get_var("b").expect("b"));
                    if let Err(e) = same_result(a, b) {
                        panic!("after {what}, query {k} (run {rep}) differs from the in-memory table: {e}");
                    }
                }
            }
        };
        let setup = format!(
            "{MR_DATA}full = t\ndb = database(\"{db}\", COMPO, [db1, db2])\npt = db.createPartitionedTable(t, `pt, `date`sym)\npt.append!(full[0:20000])\npt = loadTable(\"{db}\", `pt)\nt = full[0:20000]\n"
        );
        run(&mut i, &setup);
        check(&mut i, "the first append");
        run(&mut i, "pt.append!(full[20000:30000])\nt = full");
        check(&mut i, "a second append");
        run(&mut i, "update pt set price = price * 2 where date = 2020.01.03\nupdate t set price = price * 2 where date = 2020.01.03");
        check(&mut i, "update");
        run(&mut i, "delete from pt where date = 2020.01.04, qty > 50\ndelete from t where date = 2020.01.04, qty > 50");
        check(&mut i, "delete");
        run(&mut i, &format!("dropPartition(database(\"{db}\"), 2020.01.02, `pt)\nt = select * from t where date != 2020.01.02"));
        check(&mut i, "dropPartition");
        run(&mut i, "clearAllCache()");
        check(&mut i, "clearAllCache");
        // a table of the same name with other values, same shape
        run(
            &mut i,
            &format!(
                "dropTable(database(\"{db}\"), `pt)\nt = select date, sym, price + 1.0 as price, qty, w, time, g from full\npt = database(\"{db}\").createPartitionedTable(t, `pt, `date`sym)\npt.append!(t)\npt = loadTable(\"{db}\", `pt)"
            ),
        );
        check(&mut i, "dropTable and a new table");
        let _ = std::fs::remove_dir_all(&dir);
    });
}

/// DECIMAL columns are stored as scaled integers with their scale: a partitioned table
/// created from a schema with DECIMAL32(2)/DECIMAL128(6) reads back the same exact values
/// and types in a fresh session; values were chosen so a float round trip would show.
#[test]
fn decimal_columns_round_trip() {
    let dir = scratch("decimal");
    let db = dir.join("db").to_string_lossy().replace('\\', "/");
    with_stack(move || {
        let mut i = interpreter();
        run(
            &mut i,
            &format!(
                "t = table(1:0, `sym`price`w, [SYMBOL, DECIMAL32(2), DECIMAL128(6)])\n\
                 tableInsert(t, `a`b`a`c, decimal32([\"0.10\", \"0.20\", \"1234567.89\", \"-0.05\"], 2), decimal128([\"0.000001\", \"12345678901234567890.123456\", \"\", \"1\"], 6))\n\
                 db = database(\"{db}\", VALUE, `a`b`c)\n\
                 pt = db.createPartitionedTable(t, `pt, `sym)\n\
                 pt.append!(t)\n"
            ),
        );
        let mut j = interpreter();
        run(
            &mut j,
            &format!(
                "u = select * from loadTable(\"{db}\", `pt) order by sym, price\n\
                 __p = string(u.price)\n__w = string(u.w)\n__t = typestr(u.w)\n\
                 __s = string(exec sum(price) from loadTable(\"{db}\", `pt) where sym = `a)\n\
                 __ty = schema(loadTable(\"{db}\", `pt)).colDefs.typeString"
            ),
        );
        let txt = |v: &str| match j.get_var(v) {
            Some(Value::Vector(c)) => (0..c.len()).map(|k| format_elem(&c, k)).collect::<Vec<_>>().join(","),
            Some(Value::Scalar(c)) => format_elem(&c, 0),
            other => format!("{other:?}"),
        };
        assert_eq!(txt("__p"), "0.10,1234567.89,0.20,-0.05");
        assert_eq!(txt("__w"), "0.000001,,12345678901234567890.123456,1.000000");
        assert_eq!(txt("__t"), "FAST DECIMAL128 VECTOR");
        assert_eq!(txt("__s"), "1234567.99");
        assert_eq!(txt("__ty"), "SYMBOL,DECIMAL32(2),DECIMAL128(6)");
    });
}
