//! Sessions are independent and may run at once on different threads of one process:
//! variables, functions, random seeds and print sinks stay per session; `share`d objects
//! are visible only to sessions that joined the same map; an interrupt stops one session.

use beluga::{FromValue, Session, Value};
use std::sync::{Arc, Barrier, Mutex};

fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> std::thread::JoinHandle<T> {
    std::thread::Builder::new().stack_size(64 << 20).spawn(f).expect("spawn")
}

#[test]
fn eight_sessions_on_eight_threads_are_isolated() {
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8i64)
        .map(|k| {
            let b = barrier.clone();
            on_big_stack(move || {
                let mut s = Session::new();
                let printed = Arc::new(Mutex::new(Vec::<String>::new()));
                let p2 = printed.clone();
                s.on_print(move |l| p2.lock().unwrap().push(l.to_string()));
                s.set("k", k).unwrap();
                s.run(&format!("def f(x) {{ return x * {} }}", k + 1)).unwrap();
                s.run("setRandomSeed(42)").unwrap();
                b.wait();
                let mut sums = Vec::new();
                for round in 0..20i64 {
                    s.set("v", (0..1000).map(|x| x + k + round).collect::<Vec<i64>>()).unwrap();
                    let r: i64 = s.eval("sum(v) + f(k)").unwrap();
                    sums.push(r);
                    s.run("print(\"k=\" + string(k))").unwrap();
                }
                let rand: Vec<f64> = s.eval("rand(1.0, 3)").unwrap();
                (k, sums, printed.lock().unwrap().clone(), rand, s.get("k"))
            })
        })
        .collect();
    let mut rands = Vec::new();
    for h in handles {
        let (k, sums, printed, rand, kv) = h.join().expect("session thread");
        for (round, r) in sums.iter().enumerate() {
            let round = round as i64;
            // sum(0..999) + 1000*(k+round) + k*(k+1)
            assert_eq!(*r, 499_500 + 1000 * (k + round) + k * (k + 1), "session {k} round {round}");
        }
        assert_eq!(printed.len(), 20);
        assert!(printed.iter().all(|l| *l == format!("k={k}")), "session {k} saw another's prints: {printed:?}");
        assert_eq!(i64::from_value(&kv.unwrap()).unwrap(), k);
        rands.push(rand);
    }
    // the same seed in every session gives the same numbers: no generator is shared
    assert!(rands.windows(2).all(|w| w[0] == w[1]), "{rands:?}");
}

#[test]
fn shared_objects_and_interrupts() {
    let mut a = Session::new();
    let mut b = Session::new();
    b.use_shared(a.shared());
    a.run("share table(1 2 3 as x) as st").unwrap();
    let n: i64 = b.eval("exec sum(x) from st").unwrap();
    assert_eq!(n, 6);
    b.run("append!(st, table(4 as x))").unwrap();
    let n: i64 = a.eval("exec count(*) from st").unwrap();
    assert_eq!(n, 4, "an append through one session is seen by the other");
    // a third session has its own map
    let mut c = Session::new();
    assert!(c.run("select * from st").is_err());

    let h = a.interrupt_handle();
    let t = on_big_stack(move || {
        let r = a.run("s = 0\nfor (i in 0..100000000) { s += i }\ns");
        (r.is_err(), a.run("1 + 1").map(|v| i64::from_value(&v).unwrap()))
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    h.interrupt();
    let (interrupted, after) = t.join().unwrap();
    assert!(interrupted, "the loop was interrupted");
    assert_eq!(after.unwrap(), 2, "the session is usable after an interrupt");
}

#[test]
fn registered_closure_and_call() {
    let mut s = Session::new();
    let calls = Arc::new(Mutex::new(0));
    let c2 = calls.clone();
    s.register("countedAdd", move |args: &[Value]| {
        *c2.lock().unwrap() += 1;
        let a = Vec::<f64>::from_value(&args[0])?;
        let b = f64::from_value(&args[1])?;
        Ok(beluga::to_value(a.into_iter().map(|x| x + b).collect::<Vec<f64>>()))
    });
    let v: Vec<f64> = s.eval("countedAdd(1.0 2.0 3.0, 0.5)").unwrap();
    assert_eq!(v, [1.5, 2.5, 3.5]);
    assert_eq!(*calls.lock().unwrap(), 1);
    // errors from Rust reach the script
    s.register("failing", |_args: &[Value]| Err(beluga::Error::runtime("no luck")));
    let e = s.run("failing(1)").unwrap_err();
    assert!(e.message.contains("no luck"), "{}", e.message);
    // call by name, builtin and script-defined
    let r = s.call("add", vec![Value::int(2), Value::int(3)]).unwrap();
    assert_eq!(i64::from_value(&r).unwrap(), 5);
    assert!(s.call("noSuchFunction", vec![]).is_err());
    // clear keeps registered closures
    s.set("x", 1i64).unwrap();
    s.clear();
    assert!(s.get("x").is_none());
    let v: Vec<f64> = s.eval("countedAdd(1.0, 1.0)").unwrap();
    assert_eq!(v, [2.0]);
    assert!(s.set("not a name", 1i64).is_err());
}

/// A wrapped row (storage's `size` for stored tables) hands other values to the row it
/// replaced in ITS OWN registry: two sessions whose registries wrap different earlier rows
/// run at once on two threads, each writing and reading its own database, and each sees
/// its own delegate (a process-global map of replaced rows would give both the same one).
#[test]
fn two_registries_with_different_wrapped_rows_on_two_threads() {
    use beluga::Registry;
    use beluga_runtime::registry::{f, Kind};
    fn ninety_nine(_: &mut beluga_runtime::CallCtx, _: Vec<Value>) -> beluga::Result<Value> {
        Ok(Value::int(99))
    }
    let plain = beluga::default_registry();
    let mut custom = Registry::new();
    beluga_stdlib::register(&mut custom);
    custom.replace(&[f("size", Kind::Aggregate, 1, 1, ninety_nine)]);
    beluga_storage::register(&mut custom);
    beluga::add_trampoline(&mut custom);
    let custom = Arc::new(custom);
    let base = std::env::temp_dir().join(format!("beluga_two_registries_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = [(plain, 5i64), (custom, 99i64)]
        .into_iter()
        .enumerate()
        .map(|(k, (reg, want))| {
            let b = barrier.clone();
            let dir = base.join(format!("db{k}")).display().to_string().replace('\\', "/");
            on_big_stack(move || {
                let mut s = Session::with_registry(reg);
                b.wait();
                let mut got = Vec::new();
                for round in 0..10i64 {
                    let n: i64 = s.eval("size(1 2 3 4 5)").unwrap();
                    got.push(n);
                    // the stored-table side of the same wrapper: rows of a partitioned table
                    s.run(&format!(
                        "db = database(\"{dir}/r{round}\", VALUE, 1 2 3)\n\
                         t = table(1 2 3 as id, 1.0 2.0 3.0 as v)\n\
                         pt = db.createPartitionedTable(t, `pt, `id)\n\
                         pt.append!(t)"
                    ))
                    .unwrap();
                    let rows: i64 = s.eval("size(loadTable(db, `pt))").unwrap();
                    assert_eq!(rows, 3, "session {k} round {round}: rows of its stored table");
                }
                (want, got)
            })
        })
        .collect();
    for h in handles {
        let (want, got) = h.join().unwrap();
        assert!(got.iter().all(|&n| n == want), "want {want} from every call, got {got:?}");
    }
    let _ = std::fs::remove_dir_all(&base);
}
