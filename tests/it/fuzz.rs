//! Bounded fuzzing: mutated conformance scripts plus hostile inputs must never panic, hang
//! or overflow the stack. Every input runs in a fresh session under a watchdog.

use beluga_tests::{registry, shared_dir, with_stack, Rng};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const HOSTILE: &[&str] = &[
    "",
    "\0",
    "x = \"abc\0def\"; x",
    "\"unterminated",
    "'unterminated",
    "/* unterminated comment",
    "`",
    "x = ((((((((((1",
    "]]]]]]",
    "}}}",
    "def f(x){ return f(x) }; f(1)",
    "def g(x){ return g(x + 1) + 1 }; g(0)",
    "0..3000000000",
    "til(10000000000)",
    "take(1, 5000000000)",
    "array(INT, -5)",
    "1/0; 1%0; 0\\0; -2147483648; 2147483648; 9223372036854775807l + 1",
    "x = 1 2 3; x[10000000000]; x[-1]; x[1:100]",
    "while (true) {}",
    "for (i in 0:1000000000) { }",
    "select from where group by",
    "update set where",
    "a, b, c = 1 2",
    "2012.13.45; 25:61:61; 2012.02.30",
    "@testing: case = \"x\"",
    "::::::::",
    "f{,,,,,}(1)",
    "each(each, each)",
    "t = table(1 2 3 as a); t[`zz] ; t[5]; t[1:10]",
    "d = dict(INT, INT); d[1 2 3] = 4 5; d[\"a\"]",
];

fn deep(n: usize, open: &str, close: &str, inner: &str) -> String {
    format!("{}{}{}", open.repeat(n), inner, close.repeat(n))
}

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut b: Vec<u8> = src.as_bytes().to_vec();
    let tokens: &[&[u8]] = &[b"(", b")", b"[", b"]", b"{", b"}", b",", b";", b"\n", b"`", b"\"", b"-", b":", b"..", b" select ", b" NULL ", b"0", b"1.5", b"$", b"!"];
    for _ in 0..1 + rng.below(4) {
        if b.is_empty() {
            break;
        }
        let p = rng.below(b.len());
        match rng.below(4) {
            0 => {
                b.remove(p);
            }
            1 => {
                let t = tokens[rng.below(tokens.len())];
                for (k, c) in t.iter().enumerate() {
                    b.insert(p + k, *c);
                }
            }
            2 => {
                let q = (p + rng.below(40)).min(b.len());
                let chunk: Vec<u8> = b[p..q].to_vec();
                for (k, c) in chunk.iter().enumerate() {
                    b.insert(q + k, *c);
                }
            }
            _ => b.truncate(p),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Run one input; returns the printed text. Panics (failing the test) on an internal error.
fn run_one(src: String) -> Duration {
    let reg = registry();
    with_stack(move || {
        let mut i = beluga_runtime::Interpreter::with_registry(reg);
        let flag = i.interrupt.clone();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let dog = std::thread::spawn(move || {
            if rx.recv_timeout(Duration::from_secs(3)).is_err() {
                flag.store(true, Ordering::Relaxed);
            }
        });
        let start = Instant::now();
        let out = i.run_repl_text(&src);
        let took = start.elapsed();
        let _ = tx.send(());
        let _ = dog.join();
        assert!(!out.contains("internal error"), "internal error on input {src:?}:\n{out}");
        took
    })
}

#[test]
fn hostile_inputs_do_not_crash_or_hang() {
    let mut inputs: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
    inputs.push(deep(20_000, "(", ")", "1"));
    inputs.push(deep(20_000, "[", "]", "1"));
    inputs.push(deep(5_000, "{", "}", ""));
    inputs.push(format!("x = {}", "1 + ".repeat(50_000) + "1"));
    inputs.push("-".repeat(100_000) + "1");
    inputs.push(deep(300, "f(", ")", "1"));
    inputs.push("def f(x){ if (x <= 0) return 0; return 1 + f(x - 1) }; f(100000)".into());
    for src in inputs {
        let took = run_one(src.clone());
        assert!(took < Duration::from_secs(15), "input took {took:?}: {:?}", &src[..src.len().min(80)]);
    }
}

#[test]
fn mutated_conformance_scripts_do_not_crash() {
    let Some(shared) = shared_dir() else {
        eprintln!("SKIPPED mutated_conformance_scripts_do_not_crash: ../shared is not beside this checkout");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(shared.join("conformance"))
        .expect("conformance dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let rounds: usize = std::env::var("BELUGA_FUZZ_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(6);
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        let cases = beluga_stdlib::testing::split_cases(&text);
        for case in cases.iter().step_by(3) {
            for _ in 0..rounds {
                let src = mutate(&mut rng, &case.text);
                run_one(src);
            }
        }
    }
}
