//! Every registered builtin called with hostile arguments: empty vectors, huge and negative
//! integers, NULLs, NaN/Infinity, and every form (scalar, vector, pair, matrix, table, dict,
//! set, tuple, string, function, type) at arities 0..=3. Any outcome is fine except a panic
//! (which the REPL reports as "internal error"); the test fails listing every call that
//! panicked.
//!
//! Builtins that touch files, sleep, run scripts or time a function repeatedly are skipped by
//! name (`SKIP`). Sizes are capped: the largest size-like value passed that functions may
//! allocate by is `BIG` (a million); the larger integers (INT/LONG max) are only passed to
//! builtins that do not take a size (`SIZED` lists those that would try to allocate that
//! many elements before the memory budget, another piece of work, can refuse them).

use beluga_tests::{registry, with_stack, Rng};
use std::time::{Duration, Instant};

/// Builtins never called: file system, sleeping, running scripts or jobs, repeating a call.
const SKIP: &[&str] = &[
    "close", "createDimensionTable", "createPartitionedTable", "database", "dropDatabase",
    "dropPartition", "dropTable", "existsDatabase", "existsTable", "extractTextSchema", "file",
    "files", "loadTable", "loadText", "loadTextEx", "ploadText", "mkdir", "readLine", "readLines",
    "rm", "rmdir", "run", "runScript", "saveText", "saveTextFile", "sleep", "writeLine",
    "writeLines", "evalTimer", "test", "clearAllCache", "clearCachedDatabase",
];

/// Builtins that take an element count and would allocate it: they get no INT/LONG max
/// (a size beyond memory is the memory budget's to refuse, not a panic to find here).
const SIZED: &[&str] = &[
    "take", "til", "array", "bigarray", "seq", "repeat", "repmat", "eye", "matrix", "table",
    "stretch", "lpad", "rpad", "norm", "rand", "randBeta", "randBinomial", "randChiSquare",
    "randDiscrete", "randExp", "randF", "randGamma", "randLogistic", "randMultivariateNormal",
    "randNormal", "randPoisson", "randStudent", "randUniform", "randWeibull", "normal",
    "temporalSeq", "arrayVector", "fixedLengthArrayVector", "cutPoints", "linearTimeTrend",
    "kmeans", "oneHot", "histogram", "histogram2d", "gaussianKde", "gaussianKdePredict",
    "string", "format", "stringFormat", "decimalFormat", "bucket", "bucketCount", "shuffle",
    "shuffle!", "panel", "resample", "asFreq", "asfreq", "interval", "createTable",
    "streamTable", "keyedTable", "indexedTable", "keyedStreamTable", "toCharArray", "dict",
    "set", "poly1d", "polyFit", "polynomial", "cell", "cells", "sessionWindow", "twindow",
    "window", "differentialEvolution", "rolling", "rollingPanel", "iterate", "loop", "ploop",
    "each", "peach", "accumulate", "reduce", "tmoving", "moving", "movingWindowData",
    "tmovingWindowData", "wc", "flatten", "split", "cut", "qcut", "digitize", "sumbars",
    "dailyAlignedBar", "volumeBar", "quantileSeries", "cubicHermiteSplineFit",
];

/// The largest size-like integer passed to every builtin.
#[allow(dead_code)]
const BIG: i64 = 1_000_000;

/// Hostile argument values: (name, DolphinDB expression). `huge` marks INT/LONG extremes.
const POOL: &[(&str, &str, bool)] = &[
    ("zero", "0", false),
    ("neg", "-1", false),
    ("one", "1", false),
    ("big", "1000000", false),
    ("imax", "2147483647", true),
    ("lmax", "9223372036854775807", true),
    ("lmin", "-9223372036854775807", true),
    ("dbl", "1.5", false),
    ("negd", "-2.5", false),
    ("void", "NULL", false),
    ("inull", "00i", false),
    ("dnull", "00F", false),
    ("nan", "double(\"nan\")", false),
    ("inf", "double(\"inf\")", false),
    ("sym", "`a", false),
    ("estr", "\"\"", false),
    ("str", "\"x,y;1\"", false),
    ("bool", "true", false),
    ("date", "2024.01.01", true),
    ("ts", "2024.01.01T09:30:00.000", true),
    ("ivec0", "array(INT, 0)", false),
    ("dvec0", "array(DOUBLE, 0)", false),
    ("svec0", "array(STRING, 0)", false),
    ("ivec", "1 2 3", false),
    ("zvec", "0 0 0", false),
    ("dvec", "1.5 NULL -2.5 0.0", false),
    ("nvec", "take(00i, 3)", false),
    ("symv", "`a`b`a", false),
    ("strv", "[\"\", \"z\", \"a,b\"]", false),
    ("datev", "2024.01.01 2024.01.03 2024.01.02", false),
    ("boolv", "[true, false, true]", false),
    ("longv", "1..50", false),
    ("pair", "1:3", false),
    ("mat", "matrix(1 2 3, 4 5 6)", false),
    ("dmat", "matrix(1.5 NULL, -2.0 4.0)", false),
    ("emat", "matrix(INT, 0, 2)", false),
    ("lmat", "m__ = matrix(1 2, 3 4); m__.rename!(2024.01.01 2024.01.02, `A`B); m__", false),
    ("tbl", "table(1 2 3 as a, `x`y`z as b, 1.5 2.5 NULL as c)", false),
    ("etbl", "table(array(INT, 0) as a)", false),
    ("dict", "dict(`a`b, 1 2)", false),
    ("edict", "dict(INT, DOUBLE)", false),
    ("tup", "(1, `a, 2.5, 1 2)", false),
    ("etup", "[]", false),
    ("set", "set(1 2 3)", false),
    ("fn", "add", false),
    ("lam", "x -> x", false),
    ("dur", "1d", false),
    ("code", "<1 + 2>", false),
    ("type", "INT", false),
];

fn setup_script() -> String {
    POOL.iter().map(|(n, e, _)| format!("v_{n} = {e}\n")).collect()
}

struct Report {
    builtins: usize,
    calls: usize,
    panics: Vec<String>,
    slow: Vec<(Duration, String)>,
}

/// Values every pair and triple is drawn from (the rest of the pool goes in singly and paired
/// with these).
const CORE: &[&str] = &["zero", "neg", "lmax", "nan", "void", "ivec0", "ivec", "dvec", "symv", "mat", "tbl", "dict", "tup", "fn"];

/// Argument lists for one builtin: no argument, every pool value alone, every pool value with
/// every core value (both orders), every triple of core values, and random triples.
fn arg_lists(rng: &mut Rng, allowed: &[usize], samples: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![vec![]];
    for &a in allowed {
        out.push(vec![a]);
    }
    let core: Vec<usize> = allowed.iter().copied().filter(|&k| CORE.contains(&POOL[k].0)).collect();
    for &a in allowed {
        for &b in &core {
            out.push(vec![a, b]);
            out.push(vec![b, a]);
        }
    }
    for &a in &core {
        for &b in &core {
            for &c in &core {
                out.push(vec![a, b, c]);
            }
        }
    }
    for _ in 0..samples {
        let a = allowed[rng.below(allowed.len())];
        let b = allowed[rng.below(allowed.len())];
        let c = allowed[rng.below(allowed.len())];
        out.push(vec![a, b, c]);
    }
    out
}

fn fuzz(samples: usize, only: Option<String>) -> Report {
    let reg = registry();
    let mut names: Vec<&'static str> = reg.defs.iter().map(|b| b.name).collect();
    names.sort();
    names.dedup();
    let setup = setup_script();
    let mut rng = Rng(0xD1B54A32D192ED03);
    let trace = std::env::var("BELUGA_FUZZ_TRACE").is_ok();
    let mut rep = Report { builtins: 0, calls: 0, panics: Vec::new(), slow: Vec::new() };
    for name in names {
        if SKIP.contains(&name) || only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let sized = SIZED.contains(&name);
        let allowed: Vec<usize> = (0..POOL.len()).filter(|&k| !(sized && POOL[k].2)).collect();
        let mutating = name.ends_with('!');
        rep.builtins += 1;
        if trace {
            eprintln!("fuzz_builtins: {name}");
        }
        let mut interp = beluga_runtime::Interpreter::with_registry(reg.clone());
        interp.run_repl_text(&setup);
        for args in arg_lists(&mut rng, &allowed, samples) {
            if mutating {
                interp.run_repl_text(&setup);
            }
            let call = format!(
                "{name}({})",
                args.iter().map(|&k| format!("v_{}", POOL[k].0)).collect::<Vec<_>>().join(", ")
            );
            if trace {
                eprintln!("  {call}");
            }
            let start = Instant::now();
            let out = interp.run_repl_text(&call);
            let took = start.elapsed();
            rep.calls += 1;
            if out.contains("internal error") {
                let shown: Vec<&str> = args.iter().map(|&k| POOL[k].1).collect();
                rep.panics.push(format!("{name}({}) -> {}", shown.join(", "), out.trim()));
            }
            if took > Duration::from_millis(500) {
                rep.slow.push((took, call));
            }
        }
    }
    rep
}

#[test]
fn every_builtin_survives_hostile_arguments() {
    let samples: usize = std::env::var("BELUGA_FUZZ_BUILTIN_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let only = std::env::var("BELUGA_FUZZ_BUILTIN").ok();
    let rep = with_stack(move || fuzz(samples, only));
    println!(
        "fuzz_builtins: {} builtins, {} calls, {} panics, {} slow calls (> 0.5 s)",
        rep.builtins,
        rep.calls,
        rep.panics.len(),
        rep.slow.len()
    );
    for (d, c) in &rep.slow {
        println!("slow: {d:?} {c}");
    }
    if std::env::var("BELUGA_FUZZ_BUILTIN").is_err() {
        assert!(rep.builtins > 700, "the registry lost builtins: {}", rep.builtins);
    }
    assert!(rep.panics.is_empty(), "{} calls panicked:\n{}", rep.panics.len(), rep.panics.join("\n"));
}
