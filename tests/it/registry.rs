//! The builtin registry: every name is registered once (a second row would silently
//! replace the first), and every capable builtin (files, scripts, environment) is marked.

use beluga_runtime::column::Column;
use beluga_runtime::null::Native;
use beluga_runtime::registry::{Builtin, Call, Caps, Split};
use beluga_runtime::{CallCtx, DataType, Interpreter, Registry, Value};
use beluga_tests::{registry, with_stack};
use std::sync::Arc;

#[test]
fn no_builtin_is_registered_twice() {
    let r = registry();
    let mut d: Vec<&str> = r.duplicates.clone();
    d.sort();
    d.dedup();
    assert!(d.is_empty(), "registered more than once: {d:?}");
}

#[test]
fn session_rows_are_few_and_named() {
    // a builtin that receives the whole interpreter is listed in SESSION_ROWS; every other
    // builtin sees only the narrow CallCtx
    use beluga_runtime::registry::{Call, SESSION_ROWS};
    let r = registry();
    let session: Vec<&str> = r.defs.iter().filter(|b| matches!(b.call, Call::Session(_))).map(|b| b.name).collect();
    for n in &session {
        assert!(SESSION_ROWS.contains(n), "{n} receives the interpreter but is not in SESSION_ROWS");
    }
    assert!(session.contains(&"eval") && session.contains(&"run"), "{session:?}");
    assert!(!session.contains(&"sum") && !session.contains(&"each"), "{session:?}");
    let plain = r.defs.iter().filter(|b| matches!(b.call, Call::Plain(_))).count();
    assert!(session.len() <= SESSION_ROWS.len() && SESSION_ROWS.len() < 16, "{session:?}");
    assert!(plain > 800, "{plain} plain rows");
}

#[test]
fn file_and_environment_builtins_carry_a_capability() {
    let r = registry();
    for name in ["loadText", "loadTextEx", "saveText", "files", "file", "rm", "rmdir", "mkdir", "run", "getEnv", "database", "dropDatabase", "exists"] {
        let id = r.lookup(name).unwrap_or_else(|| panic!("{name} is not registered"));
        assert!(!r.get(id).cap.is_pure(), "{name} is marked pure");
    }
    for name in ["sum", "mavg", "select", "table"] {
        if let Some(id) = r.lookup(name) {
            assert!(r.get(id).cap.is_pure(), "{name} is marked capable");
        }
    }
}

#[test]
fn rows_carry_their_sql_capabilities() {
    let r = registry();
    let caps = |n: &str| *r.caps(n).unwrap_or_else(|| panic!("{n} is not registered"));
    assert!(caps("sum").grouped.is_some());
    assert_eq!(caps("sum").split, Some(Split::Same));
    assert_eq!(caps("mean").split, Some(Split::Avg));
    assert_eq!(caps("count").split, Some(Split::Count));
    assert_eq!(caps("std").split, Some(Split::Var { pop: false, root: true }));
    assert_eq!(caps("wsum").split, Some(Split::Weighted { avg: false }));
    assert!(caps("wavg").grouped2.is_some() && caps("corr").grouped2.is_some());
    assert!(caps("msum").segmented.is_some() && caps("cumsum").segmented.is_some());
    let abs = caps("abs");
    assert!(abs.grouped.is_none() && abs.grouped2.is_none() && abs.split.is_none() && abs.segmented.is_none());
}

// ------------------------------------------------------------ slots agree with their rows

/// Rows of the test input: 3 groups, 14 rows, with nulls; group 2 is all-null in the
/// DOUBLE column (an empty group for the aggregates that skip nulls).
const GID: [u32; 14] = [0, 1, 0, 2, 1, 0, 2, 1, 1, 0, 0, 1, 2, 0];

fn doubles() -> Column {
    let n = f64::NULL;
    Column::from_vec(DataType::Double, vec![1.5, -2.0, 4.25, n, 8.0, n, n, 3.0, 3.0, -7.5, 0.5, 6.0, n, 2.0])
}
fn ints() -> Column {
    let n = i32::NULL;
    Column::from_vec(DataType::Int, vec![3, n, -4, 7, 1, 9, 2, n, 5, 5, -1, 8, 6, 0])
}
fn weights() -> Column {
    Column::from_vec(DataType::Double, vec![1.0, 2.0, 0.5, 3.0, 1.0, 2.0, 1.0, 4.0, 1.5, 2.5, 1.0, 0.25, 2.0, 3.0])
}

/// Call a row's plain call (what the per-group path of the planner does).
fn call_row(i: &mut Interpreter, b: &Builtin, args: Vec<Value>) -> beluga_runtime::Result<Value> {
    match b.call {
        Call::Plain(f) => f(CallCtx::of(i), args),
        Call::Session(f) => f(i, args),
    }
}

/// Equal as the per-group results of one function: both null, or numbers within rounding.
fn same_value(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-9 * (1.0 + y.abs()) || (x.is_nan() && y.is_nan()),
        _ => false,
    }
}

fn scalar_f64(v: &Value) -> Option<Option<f64>> {
    match v {
        Value::Scalar(c) if c.len() == 1 => Some(c.f64_at(0)),
        Value::Void => Some(None),
        _ => None,
    }
}

/// Rows of group `g` of a column.
fn group_rows(c: &Column, gid: &[u32], g: u32) -> Column {
    let idx: Vec<usize> = (0..gid.len()).filter(|&i| gid[i] == g).collect();
    c.take_usize(&idx)
}

/// Compare one aggregate result per group (from a slot) with the row's call per group.
fn compare_groups(i: &mut Interpreter, b: &Builtin, what: &str, got: &Column, inputs: &[Column], out: &mut Vec<String>) {
    if got.len() != 3 {
        out.push(format!("{} {what}: {} values for 3 groups", b.name, got.len()));
        return;
    }
    for g in 0..3u32 {
        let args = inputs.iter().map(|c| Value::Vector(group_rows(c, &GID, g))).collect();
        let want = match call_row(i, b, args) {
            Ok(v) => v,
            Err(e) => {
                out.push(format!("{} {what}: the call fails on group {g} ({}) where the slot gives a value", b.name, e.message));
                continue;
            }
        };
        let Some(w) = scalar_f64(&want) else {
            out.push(format!("{} {what}: the call gives no scalar on group {g}", b.name));
            continue;
        };
        if !same_value(got.f64_at(g as usize), w) {
            out.push(format!("{} {what} group {g}: slot {:?}, call {:?}", b.name, got.f64_at(g as usize), w));
        }
        if what == "grouped" {
            if let Value::Scalar(c) = &want {
                if c.ty != got.ty {
                    out.push(format!("{} {what}: slot type {:?}, call type {:?}", b.name, got.ty, c.ty));
                }
            }
        }
    }
}

/// The arguments a window row is called with in the test: the first is the column
/// (increasing for a time column `T`), the others constants chosen by parameter name.
fn window_args(b: &Builtin, n: usize) -> Option<(Column, Vec<Value>)> {
    let first = b.params.first().copied().unwrap_or("X");
    let membership = |k: usize| Column::from_vec(DataType::Int, (0..n).map(|j| ((j * 5 + k) % 7 % 2) as i32).collect::<Vec<i32>>());
    let col = match first {
        "T" => Column::from_vec(DataType::Int, (0..n as i32).map(|k| k * 2 + (k % 3)).collect::<Vec<i32>>()),
        "membership" => membership(0),
        _ => doubles(),
    };
    let vector = |k: usize| Value::Vector(Column::from_vec(DataType::Double, (0..n).map(|j| ((j * 7 + k * 3) % 11) as f64 - 4.0).collect::<Vec<f64>>()));
    let mut rest = Vec::new();
    for (k, p) in b.params.iter().enumerate().take(b.min as usize).skip(1) {
        rest.push(match *p {
            "window" => Value::int(3),
            "percent" => Value::int(50),
            "top" => Value::int(2),
            "alpha" => Value::double(0.5),
            "maType" => Value::int(0),
            "ascending" => Value::bool(true),
            "groupCount" => Value::int(2),
            "X" | "Y" | "S" | "high" | "low" | "close" | "prevCumValue" => vector(k),
            "membership" | "prevMembership" => Value::Vector(membership(k)),
            _ => return None,
        });
    }
    Some((col, rest))
}

/// Every slot of every row run on a small input and compared with the row's plain call
/// applied group by group: the grouped kernels (`group by`), the map-reduce splits (rows
/// cut into two partitions) and the segmented kernels (`context by`). Returns the
/// disagreements and how many slots were compared.
fn slot_disagreements(r: Arc<Registry>) -> (Vec<String>, usize) {
    with_stack(move || {
        let mut i = Interpreter::with_registry(r.clone());
        let (mut out, mut compared) = (Vec::new(), 0);
        let offsets = [0usize, 5, 9, 14];
        for b in r.defs.iter() {
            let caps = b.caps;
            if let Some(k) = caps.grouped {
                for input in [doubles(), ints()] {
                    compared += 1;
                    match k(&input, &GID, 3) {
                        Some(Ok(got)) => compare_groups(&mut i, b, "grouped", &got, &[input], &mut out),
                        other => out.push(format!("{} grouped declines a {:?} column: {:?}", b.name, input.ty, other.map(|r| r.err().map(|e| e.message)))),
                    }
                }
            }
            if let Some(k) = caps.grouped2 {
                compared += 1;
                match k(&doubles(), &weights(), &GID, 3) {
                    Some(Ok(got)) => compare_groups(&mut i, b, "grouped", &got, &[doubles(), weights()], &mut out),
                    other => out.push(format!("{} grouped2 declines: {:?}", b.name, other.map(|r| r.err().map(|e| e.message)))),
                }
            }
            if caps.split.is_some() {
                let inputs = if caps.grouped2.is_some() || matches!(caps.split, Some(Split::Weighted { .. })) { vec![doubles(), weights()] } else { vec![doubles()] };
                let alt = if inputs.len() == 1 { vec![ints()] } else { vec![ints(), weights()] };
                for input in [inputs, alt] {
                    compared += 1;
                    match beluga_runtime::sql::split_eval(b, &input, &GID, 3, &[6]) {
                        Some(Ok(got)) => compare_groups(&mut i, b, "split", &got, &input, &mut out),
                        other => out.push(format!("{} split fails: {:?}", b.name, other.map(|r| r.err().map(|e| e.message)))),
                    }
                }
            }
            if let Some(k) = caps.segmented {
                let Some((col, rest)) = window_args(b, 14) else {
                    out.push(format!("{}: no test arguments for parameters {:?}", b.name, b.params));
                    continue;
                };
                compared += 1;
                let got = match k(&col, &rest, &offsets) {
                    Some(Ok(c)) => c,
                    // a function of several result columns (mslr, mmse, linearTimeTrend)
                    // is left to the per-group path
                    None if matches!(call_row(&mut i, b, [vec![Value::Vector(col.clone())], rest.clone()].concat()), Ok(Value::Tuple(_))) => continue,
                    other => {
                        out.push(format!("{} segmented declines: {:?}", b.name, other.map(|r| r.err().map(|e| e.message))));
                        continue;
                    }
                };
                let mut want: Vec<Option<f64>> = Vec::new();
                for w in offsets.windows(2) {
                    let mut args = vec![Value::Vector(col.slice(w[0], w[1]))];
                    args.extend(rest.iter().map(|v| match v {
                        Value::Vector(c) => Value::Vector(c.slice(w[0], w[1])),
                        v => v.clone(),
                    }));
                    match call_row(&mut i, b, args) {
                        Ok(Value::Vector(c)) => want.extend((0..c.len()).map(|j| c.f64_at(j))),
                        Ok(v) => out.push(format!("{} call gives {v:?}, not a vector", b.name)),
                        Err(e) => out.push(format!("{} call fails on a segment: {}", b.name, e.message)),
                    }
                }
                let have: Vec<Option<f64>> = (0..got.len()).map(|j| got.f64_at(j)).collect();
                if have.len() != want.len() || have.iter().zip(&want).any(|(a, b)| !same_value(*a, *b)) {
                    out.push(format!("{} segmented: slot {have:?}, call per group {want:?}", b.name));
                }
            }
        }
        (out, compared)
    })
}

#[test]
fn every_slot_agrees_with_its_row_call() {
    let r = registry();
    let with_slots = r.defs.iter().filter(|b| {
        let c = b.caps;
        c.grouped.is_some() || c.grouped2.is_some() || c.split.is_some() || c.segmented.is_some()
    });
    let rows = with_slots.count();
    let (bad, compared) = slot_disagreements(r);
    assert!(bad.is_empty(), "slots that disagree with their rows:\n{}", bad.join("\n"));
    assert!(rows > 150 && compared > rows, "{rows} rows with slots, {compared} comparisons");
}

/// The check above can fail: a row given another function's kernel (sum's row with max's
/// grouped kernel, msum's row with mavg's segmented kernel, avg's row with sum's split)
/// is reported.
#[test]
fn a_slot_of_another_function_is_caught() {
    let mut r = (*registry()).clone();
    let caps = |r: &Registry, n: &str| r.caps(n).copied().unwrap_or_else(|| panic!("{n}"));
    let (max, mavg) = (caps(&r, "max"), caps(&r, "mavg"));
    for (name, edit) in [
        ("sum", Box::new(move |c: &mut Caps| c.grouped = max.grouped) as Box<dyn Fn(&mut Caps)>),
        ("msum", Box::new(move |c: &mut Caps| c.segmented = mavg.segmented)),
        ("avg", Box::new(|c: &mut Caps| c.split = Some(Split::Same))),
    ] {
        let id = r.lookup(name).unwrap();
        edit(&mut r.defs[id as usize].caps);
    }
    let (bad, _) = slot_disagreements(Arc::new(r));
    for name in ["sum grouped", "msum segmented", "avg split"] {
        assert!(bad.iter().any(|l| l.starts_with(name)), "{name} not reported: {bad:?}");
    }
}

#[test]
fn rows_expose_their_doc_and_example() {
    let r = registry();
    let abs = r.get(r.lookup("abs").unwrap());
    assert_eq!(abs.doc, "absolute value, element-wise");
    assert_eq!(abs.example, "abs(-2 3 -4)");
}

/// The SQL planner reads the capability slots of the session's own registry: a session
/// whose rows carry no kernels takes the per-group path and must print the same tables.
/// Both sessions run on threads of their own (no process-global kernel hooks).
#[test]
fn sessions_with_and_without_kernel_slots_agree_on_threads() {
    let full = registry();
    let mut bare = (*full).clone();
    for b in bare.defs.iter_mut() {
        b.caps = Caps::default();
    }
    let bare = Arc::new(bare);
    let script = "t = table(1 1 2 2 3 3 as k, 1.0 2.0 3.0 NULL 5.0 8.0 as v, 2 1 1 3 2 2 as w)\n\
                  select sum(v), avg(v), std(v), max(v), count(v), wavg(v, w), corr(v, w) from t group by k\n\
                  select k, msum(v, 2), cumsum(v) from t context by k\n";
    let run = |r: Arc<Registry>| with_stack(move || Interpreter::with_registry(r).run_repl_text(script));
    let (a, b) = (run(full), run(bare));
    assert!(a.contains("sum_v") && a.contains("msum_v") && a.contains("cumsum_v"), "{a}");
    assert_eq!(a, b);
}
