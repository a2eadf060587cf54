"""Where an upload's time goes: client serialization vs the wire vs the server's parse+store.

Usage: python upload_split.py PORT [RUNS] [SIZES]   (a `beluga server` on 127.0.0.1:PORT;
SIZES like 100,1000,10000,100000). The 45-column frame is bench_api.py's. For each batch
size: (1) `s.upload(part)` end to end; (2) the exact request bytes the client sent, captured
by a recording proxy; (3) those bytes replayed on a raw socket (transfer + server parse and
store, no client work); (4) a loopback copy of the same bytes (socketpair, no server).
Client serialization is estimated as (1) - (3). Medians of RUNS (default 5).
"""
import socket, sys, time, threading, statistics, os
import numpy as np, pandas as pd, dolphindb as ddb
port = int(sys.argv[1]); reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
sizes = [int(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 else [100, 1000, 10000, 100000]

def wide_frame(rows, seed=7):
    rng = np.random.default_rng(seed)
    cols = {}
    for k in range(15): cols[f"d{k}"] = rng.standard_normal(rows)
    for k in range(15): cols[f"i{k}"] = rng.integers(0, 1_000_000, rows, dtype=np.int32)
    for k in range(5): cols[f"l{k}"] = rng.integers(0, 1 << 40, rows, dtype=np.int64)
    syms = np.array([f"S{k:04d}" for k in range(500)], dtype=object)
    for k in range(5): cols[f"s{k}"] = syms[rng.integers(0, 500, rows)]
    base = np.datetime64("2024-01-02T09:30:00", "ns")
    for k in range(5): cols[f"t{k}"] = base + rng.integers(0, 6 * 3600 * 10**9, rows).astype("timedelta64[ns]")
    return pd.DataFrame(cols)

# recording proxy: client -> server bytes are kept in rec
rec = bytearray(); recording = [False]
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(1); pport = ls.getsockname()[1]
def proxy():
    c, _ = ls.accept(); u = socket.create_connection(("127.0.0.1", port))
    def back():
        while True:
            d = u.recv(1 << 20)
            if not d: break
            c.sendall(d)
    threading.Thread(target=back, daemon=True).start()
    while True:
        d = c.recv(1 << 20)
        if not d: break
        if recording[0]: rec.extend(d)
        u.sendall(d)
threading.Thread(target=proxy, daemon=True).start()
sp = ddb.session(); sp.connect("127.0.0.1", pport, "admin", "123456")
s = ddb.session(); s.connect("127.0.0.1", port, "admin", "123456")
df = wide_frame(max(sizes))

def med(f):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts)

def raw_session():
    c = socket.create_connection(("127.0.0.1", port)); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    c.sendall(b"API 0 8\nconnect\n"); c.recv(4096); return c

def replay(c, req):
    c.sendall(req)
    got = b""
    while not got.endswith(b"OK\n"):
        got += c.recv(4096)

def loop_copy(req):
    a, b = socket.socketpair(); N = len(req); buf = bytearray(N); mv = memoryview(buf)
    th = threading.Thread(target=lambda: a.sendall(req)); t0 = time.perf_counter(); th.start(); got = 0
    while got < N: got += b.recv_into(mv[got:])
    th.join(); t = time.perf_counter() - t0; a.close(); b.close(); return t

print("| batch rows | request bytes | s.upload end to end ms | client serialization ms (est.) | replay of the bytes: wire + server parse/store ms | loopback copy of the bytes ms | upload MB/s | share of loopback bandwidth |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in sizes:
    part = df.iloc[:n]
    rec.clear(); recording[0] = True
    sp.upload({"chunk": part}); time.sleep(0.2); recording[0] = False
    req = bytes(rec)
    t_up = med(lambda: s.upload({"chunk": part}))
    c = raw_session()
    t_rep = med(lambda: replay(c, req)); c.close()
    ts = []
    for _ in range(reps): ts.append(loop_copy(req))
    t_loop = statistics.median(ts)
    assert s.run("size(chunk)") == n
    print(f"| {n:,} | {len(req):,} | {t_up*1e3:.1f} | {max(t_up - t_rep, 0)*1e3:.1f} | {t_rep*1e3:.1f} | {t_loop*1e3:.1f} | "
          f"{len(req)/t_up/1e6:.0f} | {t_loop / t_up * 100:.0f}% |", flush=True)
print("load average (1, 5, 15 min):", os.getloadavg())
