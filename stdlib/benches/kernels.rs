//! Kernel benchmarks over 10M doubles (with 1% nulls), each builtin called through the
//! registry exactly as a script calls it, beside plain Rust loops over the same array.
//! Run: `cargo bench -p beluga-stdlib --bench kernels`.

use beluga_runtime::column::Column;
use beluga_runtime::{DataType, Interpreter, Registry, Value};
use std::sync::OnceLock;

const N: usize = 10_000_000;
const WINDOW: usize = 20;

fn data() -> &'static Vec<f64> {
    static D: OnceLock<Vec<f64>> = OnceLock::new();
    D.get_or_init(|| {
        let mut x: u64 = 0x2545F4914F6CDD1D;
        (0..N)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 100 == 7 { -f64::MAX } else { (x % 10_000) as f64 / 100.0 }
            })
            .collect()
    })
}

fn vector() -> Value {
    Value::Vector(Column::from_vec(DataType::Double, data().clone()))
}

fn interp() -> Interpreter {
    let mut r = Registry::new();
    beluga_stdlib::register(&mut r);
    Interpreter::new(r)
}

fn call(name: &str, extra: Vec<Value>) -> impl FnMut() -> Value {
    let mut i = interp();
    let v = vector();
    let name = name.to_string();
    move || {
        let mut args = vec![v.clone()];
        args.extend(extra.iter().cloned());
        i.call_builtin_by_name(&name, args).expect("builtin")
    }
}

fn main() {
    divan::main();
}

#[divan::bench(sample_count = 10)]
fn sum(b: divan::Bencher) {
    let mut f = call("sum", vec![]);
    b.bench_local(&mut f);
}

#[divan::bench(sample_count = 10)]
fn avg(b: divan::Bencher) {
    let mut f = call("avg", vec![]);
    b.bench_local(&mut f);
}

#[divan::bench(sample_count = 10)]
fn mavg(b: divan::Bencher) {
    let mut f = call("mavg", vec![Value::int(WINDOW as i32)]);
    b.bench_local(&mut f);
}

#[divan::bench(sample_count = 10)]
fn msum(b: divan::Bencher) {
    let mut f = call("msum", vec![Value::int(WINDOW as i32)]);
    b.bench_local(&mut f);
}

#[divan::bench(sample_count = 10)]
fn mmax(b: divan::Bencher) {
    let mut f = call("mmax", vec![Value::int(WINDOW as i32)]);
    b.bench_local(&mut f);
}

#[divan::bench(sample_count = 10)]
fn cumsum(b: divan::Bencher) {
    let mut f = call("cumsum", vec![]);
    b.bench_local(&mut f);
}

#[divan::bench(sample_count = 10)]
fn deltas(b: divan::Bencher) {
    let mut f = call("deltas", vec![]);
    b.bench_local(&mut f);
}

#[divan::bench(sample_count = 5)]
fn rank(b: divan::Bencher) {
    let mut f = call("rank", vec![]);
    b.bench_local(&mut f);
}

#[divan::bench(sample_count = 5)]
fn sort(b: divan::Bencher) {
    let mut f = call("sort", vec![]);
    b.bench_local(&mut f);
}

/// Baseline: a plain Rust moving sum (or mean) with null skipping and minPeriods = window
/// (the output contract of msum/mavg), allocating its result like the builtins do.
fn plain_rolling(d: &[f64], avg: bool) -> Vec<f64> {
    let mut out = vec![-f64::MAX; d.len()];
    let (mut s, mut cnt) = (0.0f64, 0usize);
    for i in 0..d.len() {
        let x = d[i];
        if x != -f64::MAX {
            s += x;
            cnt += 1;
        }
        if i >= WINDOW {
            let y = d[i - WINDOW];
            if y != -f64::MAX {
                s -= y;
                cnt -= 1;
            }
        }
        if i + 1 >= WINDOW && cnt > 0 {
            out[i] = if avg { s / cnt as f64 } else { s };
        }
    }
    out
}

#[divan::bench(sample_count = 10)]
fn plain_rust_msum(b: divan::Bencher) {
    let d = data();
    b.bench_local(|| divan::black_box(plain_rolling(d, false)));
}

#[divan::bench(sample_count = 10)]
fn plain_rust_mavg(b: divan::Bencher) {
    let d = data();
    b.bench_local(|| divan::black_box(plain_rolling(d, true)));
}

/// Baseline: a plain Rust null-skipping sum.
#[divan::bench(sample_count = 10)]
fn plain_rust_sum(b: divan::Bencher) {
    let d = data();
    b.bench_local(|| divan::black_box(d.iter().filter(|&&x| x != -f64::MAX).sum::<f64>()));
}
