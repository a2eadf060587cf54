#!/usr/bin/env python3
"""Element-wise and window kernels: Beluga vs numpy on the same arrays.

Why: a vectorized language is only as fast as its whole-column kernels; this prints, per
kernel and size, Beluga's time beside numpy's (or pandas' where numpy has no kernel) so
slow kernels show up as ratios > 1.

    python3 tests/bench/kernels_vs_numpy.py --beluga $CARGO_TARGET_DIR/release/beluga \
        [--sizes 1000000,10000000] [--reps 5] [--only gt,iif]

Not run by CI. Both sides build identical data from the same formula over the row index
(no files): x = ((k*7919) mod 10007)/100 + 1, y = ((k*104729) mod 9973)/100 + 1, and the
330 x 150 matrices hold the first 49,500 values column-major. Each side times `reps`
repetitions of the kernel after one untimed warm-up and reports the best run in ms;
Beluga runs once per size in one process (`timer(n)` blocks), numpy in this process.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import pandas as pd
except ImportError:  # pandas only serves the window kernels numpy lacks
    pd = None

W = 20  # window of the moving kernels


def data(n):
    k = np.arange(n, dtype=np.int64)
    x = ((k * 7919) % 10007) / 100.0 + 1.0
    y = ((k * 104729) % 9973) / 100.0 + 1.0
    return x, y


def rank_np(a):
    return np.argsort(np.argsort(a, kind="stable"), kind="stable")


def mrank_np(a, w):
    v = np.lib.stride_tricks.sliding_window_view(a, w)
    return (v < v[:, -1:]).sum(axis=1)


def mrank_np_mat(m, w):
    v = np.lib.stride_tricks.sliding_window_view(m, w, axis=0)
    return (v < v[..., -1:]).sum(axis=2)


def np_kernels(x, y, mat):
    """(name, numpy callable, Beluga expression over x, y; None = skip) per kernel."""
    ks = [
        ("gt (x > y)", lambda: x > y, "x > y"),
        ("eq (x == y)", lambda: x == y, "x == y"),
        ("pow (x ** 2.5)", lambda: np.power(x, 2.5), "pow(x, 2.5)"),
        ("sqrt", lambda: np.sqrt(x), "sqrt(x)"),
        ("log", lambda: np.log(x), "log(x)"),
        ("exp", lambda: np.exp(x), "exp(x)"),
        ("iif vs np.where", lambda: np.where(x > y, x, y), "iif(x > y, x, y)"),
        ("rank", lambda: rank_np(x), "rank(x)"),
        ("cumsum", lambda: np.cumsum(x), "cumsum(x)"),
        ("deltas", lambda: np.diff(x, prepend=np.nan), "deltas(x)"),
        (f"mmax({W})", (lambda: pd.Series(x).rolling(W).max().to_numpy()) if pd else
         (lambda: np.lib.stride_tricks.sliding_window_view(x, W).max(axis=1)), f"mmax(x, {W})"),
        (f"mrank({W})", lambda: mrank_np(x, W), f"mrank(x, true, {W})"),
        (f"mcorr({W})", (lambda: pd.Series(x).rolling(W).corr(pd.Series(y)).to_numpy()) if pd else None,
         f"mcorr(x, y, {W})"),
    ]
    return ks


def mat_kernels(m, m2):
    return [
        ("matrix gt", lambda: m > m2, "m > m2"),
        ("matrix pow", lambda: np.power(m, 2.5), "pow(m, 2.5)"),
        ("matrix sqrt", lambda: np.sqrt(m), "sqrt(m)"),
        ("matrix log", lambda: np.log(m), "log(m)"),
        ("matrix iif", lambda: np.where(m > m2, m, m2), "iif(m > m2, m, m2)"),
        ("matrix rowRank", lambda: np.argsort(np.argsort(m, axis=1, kind="stable"), axis=1, kind="stable"), "rowRank(m)"),
        ("matrix rank (columns)", lambda: np.argsort(np.argsort(m, axis=0, kind="stable"), axis=0, kind="stable"), "rank(m)"),
        ("matrix cumsum", lambda: np.cumsum(m, axis=0), "cumsum(m)"),
        ("matrix deltas", lambda: np.diff(m, axis=0, prepend=np.nan), "deltas(m)"),
        (f"matrix mrank({W})", lambda: mrank_np_mat(m, W), f"mrank(m, true, {W})"),
        (f"matrix mmax({W})", (lambda: pd.DataFrame(m).rolling(W).max().to_numpy()) if pd else None, f"mmax(m, {W})"),
        (f"matrix mcorr({W})", (lambda: pd.DataFrame(m).rolling(W).corr(pd.DataFrame(m2)).to_numpy()) if pd else None,
         f"mcorr(m, m2, {W})"),
    ]


def best_ms(f, reps):
    f()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def beluga_times(binary, n, exprs, reps, matrix):
    """One Beluga process: build the data, then one `timer(reps)` block per expression."""
    lines = [f"k = 0..{n - 1}",
             "x = double((k * 7919) % 10007) / 100.0 + 1.0",
             "y = double((k * 104729) % 9973) / 100.0 + 1.0"]
    if matrix:
        lines += ["m = x$330:150", "m2 = y$330:150"]
    for e in exprs:
        lines.append(f"__w = {e}")        # warm-up (and an early error if unsupported)
        for _ in range(reps):
            lines.append(f"timer __r = {e}")
    with tempfile.NamedTemporaryFile("w", suffix=".dos", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    p = subprocess.run([binary, path], capture_output=True, text=True)
    ts = [float(t) for t in re.findall(r"Time elapsed:\s*([0-9.]+)\s*ms", p.stdout + p.stderr)]
    if len(ts) != reps * len(exprs):
        sys.stderr.write(f"beluga failed ({p.returncode}):\n{(p.stdout + p.stderr)[-1500:]}\n")
        return [None] * len(exprs)
    return [min(ts[i * reps:(i + 1) * reps]) for i in range(len(exprs))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--beluga", required=True)
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="", help="substrings of kernel names to run")
    args = ap.parse_args(argv)
    only = [s for s in args.only.split(",") if s]
    pick = lambda ks: [k for k in ks if k[1] is not None and (not only or any(o in k[0] for o in only))]
    print(f"{'kernel':<24} {'size':>10} {'beluga ms':>10} {'numpy ms':>10} {'ratio':>7}")
    ratios = []
    sets = [(int(s), False) for s in args.sizes.split(",") if s] + [(49500, True)]
    for n, matrix in sets:
        x, y = data(n)
        if matrix:
            m, m2 = x.reshape(150, 330).T.copy(), y.reshape(150, 330).T.copy()   # column-major fill
            ks = pick(mat_kernels(m, m2))
        else:
            ks = pick(np_kernels(x, y, None))
        bt = beluga_times(args.beluga, n, [k[2] for k in ks], args.reps, matrix)
        for (name, f, _), b in zip(ks, bt):
            t = best_ms(f, args.reps)
            r = b / t if b is not None and t > 0 else None
            if r:
                ratios.append(r)
            size = "330x150" if matrix else f"{n:,}"
            print(f"{name:<24} {size:>10} {b if b is not None else float('nan'):>10.2f} {t:>10.2f} "
                  f"{r if r else float('nan'):>7.2f}")
    if ratios:
        g = np.exp(np.mean(np.log(ratios)))
        print(f"\ngeomean beluga/numpy: {g:.2f}; kernels slower than numpy: {sum(r > 1 for r in ratios)} of {len(ratios)}")


if __name__ == "__main__":
    main()
