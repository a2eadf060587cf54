//! Differential SQL test: the same queries through Beluga and through DuckDB (Python
//! `duckdb`, installed by .ci/run) on generated data; the rows must agree.

use beluga_runtime::column::{ColData, Column, StrCol, SymCol};
use beluga_runtime::{DataType, Table, Value};
use beluga_tests::with_stack;
use std::process::Command;

/// (Beluga query, DuckDB query, whether row order matters)
const QUERIES: &[(&str, &str, bool)] = &[
    ("select sym, sum(qty) as s, count(*) as c from t group by sym",
     "select sym, sum(qty) s, count(*) c from t group by sym", false),
    ("select sym, avg(price) as a, max(price) as mx, min(price) as mn from t where qty > 50 group by sym",
     "select sym, avg(price) a, max(price) mx, min(price) mn from t where qty > 50 group by sym", false),
    ("select sym, day, sum(qty) as s, count(price) as n from t group by sym, day",
     "select sym, day, sum(qty) s, count(price) n from t group by sym, day", false),
    ("select id, sym, price from t where price > 50, sym in [\"S1\", \"S3\"]",
     "select id, sym, price from t where price > 50 and sym in ('S1', 'S3')", false),
    ("select top 10 id, price from t order by price desc, id",
     "select id, price from t where price is not null order by price desc, id limit 10", true),
    ("select id, sym, cumsum(qty) as cs from t context by sym",
     "select id, sym, sum(qty) over (partition by sym order by id rows unbounded preceding) cs from t", false),
    ("select id, sym, qty, mavg(qty, 3) as ma from t context by sym",
     "select id, sym, qty, case when row_number() over w >= 3 then avg(qty) over (partition by sym order by id rows 2 preceding) end ma from t window w as (partition by sym order by id)", false),
    ("select sym, wavg(price, qty) as w from t group by sym",
     "select sym, sum(price * qty) / sum(case when price is not null then qty end) w from t group by sym", false),
    ("select count(*) as c from t where price between 10 and 20",
     "select count(*) c from t where price between 10 and 20", false),
    ("select distinct sym from t", "select distinct sym from t", false),
    ("select sym, std(price) as sd, var(price) as v from t group by sym",
     "select sym, stddev_samp(price) sd, var_samp(price) v from t group by sym", false),
    ("select sym, sum(qty) as s from t group by sym having sum(qty) > 25000",
     "select sym, sum(qty) s from t group by sym having sum(qty) > 25000", false),
    ("select id, sym, qty, sector from ej(t, s, `sym)",
     "select t.id, t.sym, t.qty, s.sector from t join s on t.sym = s.sym", false),
    ("select id, sym, sector from lj(t, s, `sym)",
     "select t.id, t.sym, s.sector from t left join s on t.sym = s.sym", false),
    ("select sym, day, first(price) as f, last(qty) as l from t group by sym, day",
     "select sym, day, first(price order by id) f, last(qty order by id) l from t group by sym, day", false),
    ("select sym, max(qty) - min(qty) as rng from t where day >= 3 group by sym",
     "select sym, max(qty) - min(qty) rng from t where day >= 3 group by sym", false),
];

const N: usize = 20_000;

struct Data {
    id: Vec<i32>,
    sym: Vec<String>,
    day: Vec<i32>,
    price: Vec<Option<f64>>,
    qty: Vec<i32>,
}

fn generate() -> Data {
    let mut x: u64 = 0x243F6A8885A308D3;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut d = Data { id: vec![], sym: vec![], day: vec![], price: vec![], qty: vec![] };
    for i in 0..N {
        d.id.push(i as i32);
        d.sym.push(format!("S{}", next() % 7));
        d.day.push((next() % 5) as i32);
        d.price.push(if next() % 20 == 0 { None } else { Some((next() % 10_000) as f64 / 100.0) });
        d.qty.push((next() % 100) as i32 + 1);
    }
    d
}

fn beluga_table(d: &Data) -> Table {
    let price: Vec<f64> = d.price.iter().map(|p| p.unwrap_or(-f64::MAX)).collect();
    Table::new(
        vec!["id".into(), "sym".into(), "day".into(), "price".into(), "qty".into()],
        vec![
            Column::from_vec(DataType::Int, d.id.clone()),
            Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(d.sym.iter().map(|s| s.as_str())))),
            Column::from_vec(DataType::Int, d.day.clone()),
            Column::from_vec(DataType::Double, price),
            Column::from_vec(DataType::Int, d.qty.clone()),
        ],
    )
    .expect("table")
}

fn sectors() -> (Vec<&'static str>, Vec<&'static str>) {
    // S6 has no sector row: exercises unmatched rows of joins
    (vec!["S0", "S1", "S2", "S3", "S4", "S5"], vec!["tech", "tech", "energy", "bank", "bank", "retail"])
}

fn write_csv(d: &Data, dir: &std::path::Path) {
    let mut s = String::from("id,sym,day,price,qty\n");
    for i in 0..N {
        let p = d.price[i].map(|p| format!("{p}")).unwrap_or_default();
        s.push_str(&format!("{},{},{},{},{}\n", d.id[i], d.sym[i], d.day[i], p, d.qty[i]));
    }
    std::fs::write(dir.join("t.csv"), s).expect("write t.csv");
    let (syms, secs) = sectors();
    let mut s = String::from("sym,sector\n");
    for (a, b) in syms.iter().zip(secs) {
        s.push_str(&format!("{a},{b}\n"));
    }
    std::fs::write(dir.join("s.csv"), s).expect("write s.csv");
}

/// Normalise a cell: numbers to 6 decimals, nulls to "".
fn norm(s: &str) -> String {
    let t = s.trim();
    if t.is_empty() || t == "None" || t == "nan" {
        return String::new();
    }
    match t.parse::<f64>() {
        Ok(f) => format!("{:.6}", f + 0.0),
        Err(_) => t.to_string(),
    }
}

fn cell(c: &Column, i: usize) -> String {
    if c.is_null(i) {
        return String::new();
    }
    match c.str_at(i) {
        Some(s) => s.to_string(),
        None => c.f64_at(i).map(|f| f.to_string()).unwrap_or_default(),
    }
}

fn rows_of(v: &Value) -> Vec<Vec<String>> {
    match v {
        Value::Table(t) => (0..t.rows()).map(|r| t.cols.iter().map(|c| norm(&cell(c, r))).collect()).collect(),
        other => vec![vec![format!("{other:?}")]],
    }
}

fn duckdb_rows(dir: &std::path::Path) -> Option<Vec<Vec<Vec<String>>>> {
    let mut script = String::from(
        "import duckdb, sys\ncon = duckdb.connect()\n",
    );
    script.push_str(&format!(
        "con.execute(\"create table t as select * from read_csv('{}', header=true, columns={{'id':'INTEGER','sym':'VARCHAR','day':'INTEGER','price':'DOUBLE','qty':'INTEGER'}})\")\n",
        dir.join("t.csv").display()
    ));
    script.push_str(&format!(
        "con.execute(\"create table s as select * from read_csv('{}', header=true)\")\n",
        dir.join("s.csv").display()
    ));
    script.push_str("qs = sys.stdin.read().split('\\n@@\\n')\nfor q in qs:\n    for row in con.execute(q).fetchall():\n        print('\\t'.join('' if c is None else str(c) for c in row))\n    print('@@')\n");
    let input: Vec<&str> = QUERIES.iter().map(|q| q.1).collect();
    let py = std::env::var("BELUGA_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut child = Command::new(py)
        .arg("-c")
        .arg(&script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    use std::io::Write;
    child.stdin.take()?.write_all(input.join("\n@@\n").as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        eprintln!("duckdb side failed: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut res = Vec::new();
    let mut cur = Vec::new();
    for line in text.lines() {
        if line == "@@" {
            res.push(std::mem::take(&mut cur));
        } else {
            cur.push(line.split('\t').map(norm).collect());
        }
    }
    Some(res)
}

#[test]
fn sql_agrees_with_duckdb() {
    let have_duckdb = Command::new(std::env::var("BELUGA_PYTHON").unwrap_or_else(|_| "python3".into()))
        .args(["-c", "import duckdb"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !have_duckdb {
        eprintln!("SKIPPED sql_agrees_with_duckdb: Python's duckdb module is not installed (pip install duckdb)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("beluga-sqldiff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let data = generate();
    write_csv(&data, &dir);
    let expected = duckdb_rows(&dir).expect("duckdb results");
    let table = beluga_table(&data);
    let got: Vec<Result<Vec<Vec<String>>, String>> = with_stack(move || {
        let mut i = beluga_tests::interpreter();
        i.set_var("t", Value::table(table)).expect("t");
        let (syms, secs) = sectors();
        let s = Table::new(
            vec!["sym".into(), "sector".into()],
            vec![
                Column::new(DataType::Symbol, ColData::Sym(SymCol::from_iter(syms))),
                Column::new(DataType::String, ColData::Str(StrCol::from_iter(secs))),
            ],
        )
        .expect("s");
        i.set_var("s", Value::table(s)).expect("s");
        QUERIES
            .iter()
            .map(|(q, _, _)| {
                let stmts = i.parse(q).map_err(|e| e.message)?;
                let v = i.exec_top(&stmts[0]).map_err(|e| e.message)?.unwrap_or(Value::Void);
                Ok(rows_of(&v))
            })
            .collect()
    });
    let mut failures = Vec::new();
    for (k, ((q, _, ordered), want)) in QUERIES.iter().zip(expected).enumerate() {
        match &got[k] {
            Err(e) => failures.push(format!("query {k} `{q}` failed in Beluga: {e}")),
            Ok(rows) => {
                let (mut a, mut b) = (rows.clone(), want.clone());
                if !ordered {
                    a.sort();
                    b.sort();
                }
                if a != b {
                    let first = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
                    failures.push(format!(
                        "query {k} `{q}`: {} rows vs DuckDB's {}; first difference at row {first}: {:?} vs {:?}",
                        a.len(),
                        b.len(),
                        a.get(first),
                        b.get(first)
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{} of {} queries agree with DuckDB", QUERIES.len() - failures.len(), QUERIES.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
