#!/usr/bin/env python3
"""Client API benchmark for `beluga server`, driven by the real DolphinDB Python client.

Why: server mode is judged by how fast pandas data moves in and out. Three measurements:
  1. upload throughput of a 45-column table (1M rows by default) in batches of
     100 .. 100,000 rows (`s.upload` of each batch);
  2. concurrent query-and-download: 1, 4 and 16 clients each running the same filtered
     select and downloading its result into pandas;
  3. one TAQ trading day (from /work/shared/bench/gen_taq.py, written under /tmp) into
     pandas through the server, against pickle.load of the same DataFrame.
Usage: python bench_api.py --beluga target/release/beluga [--rows 1000000] [--taq-rows 2000000]
Starts its own server on a free loopback port and stops it at the end. The TAQ generator
runs under $GEN_PYTHON (default python3; it needs pyarrow).
"""
import argparse
import os
import pickle
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pandas as pd
import dolphindb as ddb
import dolphindb.settings  # noqa: F401  (PROTOCOL_PICKLE)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wide_frame(rows, seed=7):
    rng = np.random.default_rng(seed)
    cols = {}
    for k in range(15):
        cols[f"d{k}"] = rng.standard_normal(rows)
    for k in range(15):
        cols[f"i{k}"] = rng.integers(0, 1_000_000, rows, dtype=np.int32)
    for k in range(5):
        cols[f"l{k}"] = rng.integers(0, 1 << 40, rows, dtype=np.int64)
    syms = np.array([f"S{k:04d}" for k in range(500)], dtype=object)
    for k in range(5):
        cols[f"s{k}"] = syms[rng.integers(0, 500, rows)]
    base = np.datetime64("2024-01-02T09:30:00", "ns")
    for k in range(5):
        cols[f"t{k}"] = base + rng.integers(0, 6 * 3600 * 10**9, rows).astype("timedelta64[ns]")
    return pd.DataFrame(cols)


def session(port):
    s = ddb.session()
    assert s.connect("127.0.0.1", port, "admin", "123456")
    return s


def bench_upload(port, rows):
    df = wide_frame(rows)
    mb = df.memory_usage(deep=False).sum() / 1e6
    print(f"\n## 1. upload: {rows:,} rows x {df.shape[1]} columns ({mb:.0f} MB of numeric/object arrays)")
    print("| batch rows | how | batches | seconds | rows/s | MB/s |")
    print("|---:|---|---:|---:|---:|---:|")
    for batch in (100, 1_000, 10_000, 100_000):
        s = session(port)
        s.run("undef all")
        # small batches: a bounded number of them, rate extrapolates
        n = min(rows, batch * 200) if batch < 10_000 else rows
        for grow in ("upload", "local", "appender"):
            if grow == "local":
                # the server-side collector grows batch by batch (in place since append! and
                # tableInsert stopped copying the table they grow)
                s.upload({"chunk": df.iloc[0:1]})
                s.run("acc = select * from chunk where 1 == 0")
            if grow == "appender":
                # the client's tableAppender into a `share`d table: `tableInsert{accS}`
                # with each batch as the argument (the path)
                s.upload({"chunk": df.iloc[0:1]})
                s.run("share (select * from chunk where 1 == 0) as accS")
                app = ddb.tableAppender(table_name="accS", conn=s)
            t0 = time.perf_counter()
            total = 0
            for start in range(0, n, batch):
                part = df.iloc[start:start + batch]
                if grow == "local":
                    s.upload({"chunk": part})
                    s.run("tableInsert(acc, chunk)")  # returns the row count, not the table
                elif grow == "appender":
                    app.append(part)
                else:
                    s.upload({"chunk": part})
                total += len(part)
            dt = time.perf_counter() - t0
            if grow == "local":
                got = s.run("size(acc)")
                assert got == n, (got, n)
            elif grow == "appender":
                got = s.run("size(accS)")
                assert got == n, (got, n)
                s.run("undef(`accS, SHARED)")
            else:
                got = s.run("size(chunk)")
                assert got == len(part), (got, len(part))
            assert total == n
            how = {"upload": "upload", "local": "upload + tableInsert(acc, chunk)",
                   "appender": "tableAppender into a shared table"}[grow]
            print(f"| {batch:,} | {how} | {(n + batch - 1) // batch} | {dt:.2f} | {n / dt:,.0f} | {mb * n / rows / dt:.1f} |")
        s.close()


def cpu_seconds(pid):
    """User+system CPU seconds a process has used so far (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def query_client(port, q, per, expect):
    """One client in its own process: the client library builds DataFrames under the GIL,
    so clients in threads of one interpreter take turns at that step."""
    c = session(port)
    for _ in range(per):
        d = c.run(q)
        assert len(d) == expect
    c.close()


def bench_concurrent(port, rows, server_pid=None):
    s = session(port)
    s.run(f"""
    n = {rows}
    share table(take(`A`B`C`D`E`F`G`H, n) as sym, 1..n as id, rand(100.0, n) as px,
                rand(1000, n) as qty, 2024.01.02T09:30:00.000 + (1..n) * 20 as ts) as benchT
    """)
    q = "select * from benchT where px > 50.0, qty < 500"
    expect = s.run(f"exec count(*) from benchT where px > 50.0, qty < 500")
    print(f"\n## 2. concurrent query + download ({rows:,}-row shared table, {expect:,} rows per answer)")
    print("| clients | as | queries | seconds | queries/s | rows/s downloaded | server CPU s |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    import multiprocessing as mp
    for clients, how in ((1, "threads"), (4, "threads"), (16, "threads"), (4, "processes"), (16, "processes")):
        per = 5
        errs = []

        def work():
            try:
                c = session(port)
                for _ in range(per):
                    d = c.run(q)
                    assert len(d) == expect
                c.close()
            except Exception as e:  # noqa: BLE001
                errs.append(repr(e))

        if how == "threads":
            ts = [threading.Thread(target=work) for _ in range(clients)]
        else:
            ctx = mp.get_context("fork")
            ts = [ctx.Process(target=query_client, args=(port, q, per, expect)) for _ in range(clients)]
        cpu0 = cpu_seconds(server_pid) if server_pid else float("nan")
        t0 = time.perf_counter()
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=600)
        dt = time.perf_counter() - t0
        cpu = (cpu_seconds(server_pid) if server_pid else float("nan")) - cpu0
        assert not errs, errs[:2]
        if how == "processes":
            assert all(t.exitcode == 0 for t in ts), [t.exitcode for t in ts]
        nq = clients * per
        print(f"| {clients} | {how} | {nq} | {dt:.2f} | {nq / dt:.2f} | {nq * expect / dt:,.0f} | {cpu:.2f} |")
    s.run("undef(`benchT, SHARED)")
    s.close()


def bench_taq(port, beluga, taq_rows, taq_csv=None):
    out = tempfile.mkdtemp(prefix="beluga-taq-", dir="/tmp")
    if taq_csv:
        path = taq_csv
    else:
        gen = "/work/shared/bench/gen_taq.py"
        if not os.path.exists(gen):
            gen = os.path.join(os.path.dirname(__file__), "../../../../shared/bench/gen_taq.py")
        subprocess.run([os.environ.get("GEN_PYTHON", "python3"), gen, "--days", "1", "--rows", str(taq_rows), "--out", out],
                       check=True, stdout=subprocess.DEVNULL)
        csv = [f for f in os.listdir(out) if f.endswith(".csv")][0]
        path = os.path.join(out, csv)
    s = session(port)
    # loadText types symbol, ex and mmid as SYMBOL (they repeat): with the pickle encoding
    # they arrive as pandas Categorical, as in the benchmark's pickled frame
    # shared, so that the pickle session below reads the same table
    s.run(f"share loadText('{path}') as taq")
    n = s.run("size(taq)")
    # DolphinDB encoding (the client's default protocol)
    t0 = time.perf_counter()
    df = s.run("taq")
    t_ddb = time.perf_counter() - t0
    # pickle encoding (protocol=PROTOCOL_PICKLE), best of three
    sp = ddb.session(protocol=ddb.settings.PROTOCOL_PICKLE)
    assert sp.connect("127.0.0.1", port, "admin", "123456")
    t_pk = []
    for _ in range(3):
        t0 = time.perf_counter()
        dfp = sp.run("taq")
        t_pk.append(time.perf_counter() - t0)
    t_server = min(t_pk)
    assert dfp.shape == df.shape
    # the same frame with categorical strings, pickled to a file and loaded back (best of three)
    pk = os.path.join(out, "taq.pickle")
    with open(pk, "wb") as f:
        pickle.dump(dfp, f, protocol=pickle.HIGHEST_PROTOCOL)
    t_pl = []
    for _ in range(3):
        t0 = time.perf_counter()
        with open(pk, "rb") as f:
            df2 = pickle.load(f)
        t_pl.append(time.perf_counter() - t0)
    t_pickle = min(t_pl)
    assert df2.shape == df.shape
    print(f"\n## 3. one TAQ day ({n:,} rows x {df.shape[1]} columns) into pandas")
    print("| path | seconds | rows/s |")
    print("|---|---:|---:|")
    print(f"| beluga server, s.run('taq'), DolphinDB encoding | {t_ddb:.3f} | {n / t_ddb:,.0f} |")
    print(f"| beluga server, s.run('taq'), protocol=PROTOCOL_PICKLE | {t_server:.3f} | {n / t_server:,.0f} |")
    print(f"| pickle.load of the same DataFrame (categorical strings) | {t_pickle:.3f} | {n / t_pickle:,.0f} |")
    s.run("undef(`taq, SHARED)")
    s.close()
    sp.close()
    for f in os.listdir(out):
        os.remove(os.path.join(out, f))
    os.rmdir(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--beluga", required=True)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--taq-rows", type=int, default=2_000_000)
    ap.add_argument("--taq-csv", default=None, help="an existing TAQ day CSV instead of generating one")
    ap.add_argument("--skip", default="", help="comma list of 1,2,3 to skip")
    a = ap.parse_args()
    port = free_port()
    # --trust-user admin: part 3 loads its generated CSV from /tmp, outside the data folder
    # a logged-in session is otherwise confined to
    srv = subprocess.Popen([a.beluga, "server", "--port", str(port), "--bind", "127.0.0.1", "--trust-user", "admin"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        skip = set(a.skip.split(","))
        if "1" not in skip:
            bench_upload(port, a.rows)
        if "2" not in skip:
            bench_concurrent(port, a.rows, srv.pid)
        if "3" not in skip:
            bench_taq(port, a.beluga, a.taq_rows, a.taq_csv)
    finally:
        srv.kill()
        srv.wait()


if __name__ == "__main__":
    main()
