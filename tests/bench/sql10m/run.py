#!/usr/bin/env python3
"""Beluga vs DuckDB on generated in-memory tables (10M rows by default).

    /work/venv/bin/python run.py --beluga target/release/beluga [--rows N] [--only a,b] [--runs K]

Queries are pairs ``q_<name>.dos`` / ``q_<name>.sql`` in this directory.  The first line
of each names its data set: ``// setup: <s>`` / ``-- setup: <s>``; the data set is built by
``setup_<s>.dos`` / ``setup_<s>.sql``.  In setup files ``{N}`` is the row count and
``{N*2}``, ``{N/10}`` ... simple integer scalings of it.  Both systems generate the data
from the same formulas over a row index, so they hold identical data (no CSV involved).

Beluga: one process per query running the setup, then ``timer __r = <query>`` ``--runs``
times (parsed from ``Time elapsed: X ms``), then ``saveText`` of the last result.
DuckDB: in-process, one connection per data set, default thread count; each run is
``con.sql(sql)`` followed by materialising the full result as an Arrow table (the
analogue of Beluga building its in-memory result table).  Reported times are medians.

The answers are compared by column position (names differ): same row and column count;
after sorting both by all columns, numeric columns agree element-wise within a relative
tolerance of 1e-9 (and have equal null counts), other columns agree as text (DuckDB
temporal values are rendered in DolphinDB's format first).
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import duckdb
import polars as pl

HERE = os.path.dirname(os.path.abspath(__file__))
TIMER_RE = re.compile(r"Time elapsed:\s*([0-9.]+)\s*ms")
SETUP_RE = re.compile(r"^\s*(?://|--)\s*setup:\s*(\w+)")
REL_TOL = 1e-9


def discover(only):
    names = sorted(f[2:-4] for f in os.listdir(HERE) if f.startswith("q_") and f.endswith(".dos"))
    names = [n for n in names if os.path.exists(os.path.join(HERE, f"q_{n}.sql"))]
    if only:
        wanted = [w.strip() for w in only.split(",") if w.strip()]
        missing = [w for w in wanted if w not in names]
        if missing:
            sys.exit(f"unknown query name(s): {', '.join(missing)}; have {', '.join(names)}")
        names = [n for n in names if n in wanted]
    return names


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def setup_name(text, path):
    first = text.lstrip().splitlines()[0] if text.strip() else ""
    m = SETUP_RE.match(first)
    if not m:
        sys.exit(f"{path}: first line must name the setup ('// setup: x' or '-- setup: x')")
    return m.group(1)


def substitute(text, n):
    def repl(m):
        expr = m.group(1).replace(" ", "")
        mm = re.fullmatch(r"N(?:([*/])(\d+))?", expr)
        if not mm:
            raise ValueError(f"bad placeholder {{{expr}}}")
        if mm.group(1) == "*":
            return str(n * int(mm.group(2)))
        if mm.group(1) == "/":
            return str(n // int(mm.group(2)))
        return str(n)

    return re.sub(r"\{(N[^}]*)\}", repl, text)


def strip_comments(text, marker):
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith(marker)]
    return "\n".join(lines).strip().rstrip(";")


# ------------------------------------------------------------------ Beluga
def run_beluga(binary, setup_text, query_text, runs, out_csv, timeout):
    query = " ".join(strip_comments(query_text, "//").split())
    lines = [setup_text, 'print("@@setup-done")']
    lines += [f"timer __r = {query}" for _ in range(runs)]
    lines.append(f'saveText(__r, "{out_csv}")')
    with tempfile.NamedTemporaryFile("w", suffix=".dos", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        script = f.name
    try:
        t0 = time.perf_counter()
        p = subprocess.run([binary, script], capture_output=True, text=True, timeout=timeout)
        wall = time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout}s"
    finally:
        os.unlink(script)
    out = p.stdout + p.stderr
    times = [float(x) for x in TIMER_RE.findall(out)]
    if p.returncode != 0 or len(times) != runs or not os.path.exists(out_csv):
        tail = " | ".join(out.strip().splitlines()[-3:])
        return None, f"beluga failed (rc={p.returncode}, {len(times)} timings): {tail}"
    return {"times": times, "wall_s": wall}, None


# ------------------------------------------------------------------ DuckDB
def to_arrow(rel):
    return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()


def run_duckdb(con, sql, runs):
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = to_arrow(con.sql(sql))
        times.append((time.perf_counter() - t0) * 1000.0)
    return times, result


# ------------------------------------------------------------------ answer check
def dolphin_text(col: pl.Series) -> pl.Series:
    dt = col.dtype
    if dt == pl.Date:
        return col.dt.strftime("%Y.%m.%d")
    if isinstance(dt, pl.Datetime):
        return col.dt.strftime("%Y.%m.%dT%H:%M:%S%.3f")
    if dt == pl.Time:
        return col.dt.strftime("%H:%M:%S%.3f")
    if dt == pl.Boolean:
        return col.cast(pl.Int8).cast(pl.Utf8)
    return col.cast(pl.Utf8)


def compare(beluga_csv, duck_table):
    duck = pl.from_arrow(duck_table.rename_columns([f"c{k}" for k in range(duck_table.num_columns)]))
    # positional columns: result names may repeat (e.g. a join's `time` twice)
    with open(beluga_csv, encoding="utf-8") as f:
        header = f.readline()
        has_rows = bool(f.readline())
    width = len(header.rstrip("\n").split(","))
    if has_rows:
        bel = pl.read_csv(beluga_csv, infer_schema=False, has_header=False, skip_rows=1,
                          new_columns=[f"c{k}" for k in range(width)])
    else:
        bel = pl.DataFrame({f"c{k}": pl.Series([], dtype=pl.Utf8) for k in range(width)})
    if bel.height != duck.height:
        return f"rows {bel.height} vs {duck.height}"
    if bel.width != duck.width:
        return f"cols {bel.width} vs {duck.width}"
    names = [f"c{k}" for k in range(duck.width)]
    bel.columns, duck.columns = names, names
    numeric, cols_b, cols_d = [], [], []
    for name in names:
        d = duck[name]
        if d.dtype.is_numeric() or isinstance(d.dtype, pl.Decimal):
            numeric.append(name)
            cols_b.append(bel[name].cast(pl.Float64, strict=False))
            cols_d.append(d.cast(pl.Float64))
        else:
            cols_b.append(bel[name])
            cols_d.append(dolphin_text(d))
    bel, duck = pl.DataFrame(cols_b), pl.DataFrame(cols_d)
    bel_empty = [n for n in names if n not in numeric]
    for n in bel_empty:  # Beluga writes nulls of any type as empty fields
        duck = duck.with_columns(pl.col(n).fill_null(""))
        bel = bel.with_columns(pl.col(n).fill_null(""))
    # sort on text columns first, then numeric columns rounded (float noise must not reorder)
    def keyed(df):
        rounded = [pl.col(n).round_sig_figs(9).alias(f"__k{n}") for n in numeric]
        keys = bel_empty + [f"__k{n}" for n in numeric]
        return df.with_columns(rounded).sort(keys, nulls_last=True).select(names)

    bel, duck = keyed(bel), keyed(duck)
    for n in names:
        b, d = bel[n], duck[n]
        if n in numeric:
            if b.null_count() != d.null_count():
                return f"{n}: nulls {b.null_count()} vs {d.null_count()}"
            diff = (b - d).abs()
            tol = d.abs().fill_null(0) * REL_TOL + 1e-9
            bad = (diff > tol).fill_null(False)
            if bad.any():
                k = int(bad.arg_max())
                return f"{n}: row {k}: {b[k]} vs {d[k]}"
        else:
            neq = b != d
            if neq.any():
                k = int(neq.arg_max())
                return f"{n}: row {k}: {b[k]!r} vs {d[k]!r}"
    return "ok"


# ------------------------------------------------------------------ main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--beluga", required=True, help="path to the release beluga binary")
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--only", default="", help="comma-separated query names")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=1800, help="per Beluga process, seconds")
    ap.add_argument("--no-check", action="store_true", help="skip the answer comparison")
    args = ap.parse_args()
    binary = os.path.abspath(args.beluga)
    names = discover(args.only)
    if not names:
        sys.exit("no queries")

    queries = {}
    for n in names:
        dos, sql = read(os.path.join(HERE, f"q_{n}.dos")), read(os.path.join(HERE, f"q_{n}.sql"))
        s1, s2 = setup_name(dos, f"q_{n}.dos"), setup_name(sql, f"q_{n}.sql")
        if s1 != s2:
            sys.exit(f"q_{n}: setup differs between .dos ({s1}) and .sql ({s2})")
        queries[n] = (s1, dos, strip_comments(sql, "--"))

    rows = []
    tmpdir = tempfile.mkdtemp(prefix="sql10m-")
    setups = sorted({s for s, _, _ in queries.values()})
    threads = None
    for s in setups:
        dos_setup = substitute(read(os.path.join(HERE, f"setup_{s}.dos")), args.rows)
        sql_setup = substitute(read(os.path.join(HERE, f"setup_{s}.sql")), args.rows)
        con = duckdb.connect()
        threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
        t0 = time.perf_counter()
        con.execute(sql_setup)
        print(f"[setup {s}] duckdb {time.perf_counter() - t0:.1f}s", flush=True)
        for n in [n for n in names if queries[n][0] == s]:
            _, dos, sql = queries[n]
            out_csv = os.path.join(tmpdir, f"{n}.csv")
            bel, err = run_beluga(binary, dos_setup, dos, args.runs, out_csv, args.timeout)
            try:
                dtimes, dres = run_duckdb(con, sql, args.runs)
            except duckdb.Error as e:
                dtimes, dres, err = None, None, (err or "") + f" duckdb failed: {e}"
            bms = statistics.median(bel["times"]) if bel else None
            dms = statistics.median(dtimes) if dtimes else None
            if err:
                check = err
            elif args.no_check:
                check = "skipped"
            else:
                try:
                    check = compare(out_csv, dres)
                except Exception as e:  # a malformed answer is a failed check, not a crash
                    check = f"compare error: {e}"
            ratio = (bms / dms) if (bms is not None and dms) else None
            rows.append((n, bms, dms, ratio, check))
            fmt = lambda v: "-" if v is None else f"{v:.1f}"
            print(f"  {n}: beluga {fmt(bms)} ms  duckdb {fmt(dms)} ms  "
                  f"ratio {'-' if ratio is None else f'{ratio:.2f}'}  {check}", flush=True)
            del dres
        con.close()

    print()
    print(f"rows={args.rows:,}  runs={args.runs} (median)  duckdb {duckdb.__version__} "
          f"threads={threads} (default)  beluga={binary}")
    print(f"{'query':<14}{'beluga ms':>12}{'duckdb ms':>12}{'ratio':>8}  check")
    for n, b, d, r, c in rows:
        print(f"{n:<14}{'-' if b is None else f'{b:.1f}':>12}{'-' if d is None else f'{d:.1f}':>12}"
              f"{'-' if r is None else f'{r:.2f}':>8}  {c}")
    return 0 if all(c in ("ok", "skipped") for *_, c in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
