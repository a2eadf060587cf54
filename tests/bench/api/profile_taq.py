"""Where the time of one TAQ day into pandas goes (PROTOCOL_PICKLE), stage by stage.

Usage: python profile_taq.py PORT DAY.csv [RUNS]   (a `beluga server --trust-user admin`
must listen on 127.0.0.1:PORT; the day is loaded once as the shared table `taq`).
Prints a markdown table: the client end to end; the same request read by a raw socket
into a preallocated buffer (server run + encode + transfer, no client parsing); Python's
own unpickler on the captured stream; a loopback copy of the same bytes with no server;
`pickle.load` of the same frame from a file. Medians of RUNS (default 5).
"""
import socket, sys, time, pickle, os, statistics, tempfile
import numpy as np, pandas as pd, dolphindb as ddb, dolphindb.settings as keys
port = int(sys.argv[1]); csv = sys.argv[2]; runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
s = ddb.session(); s.connect("127.0.0.1", port, "admin", "123456")
if not s.run("defined(`taq, SHARED)"):
    s.run(f"share loadText('{csv}') as taq")
n = s.run("size(taq)")
sp = ddb.session(protocol=keys.PROTOCOL_PICKLE); sp.connect("127.0.0.1", port, "admin", "123456")
def med(f):
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter(); r = f(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts), r
t_client, df = med(lambda: sp.run("taq"))
# the raw answer bytes: a plain socket speaking the protocol (connect, then one script request)
def raw_answer():
    c = socket.create_connection(("127.0.0.1", port)); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    c.sendall(b"API 0 8\nconnect\n"); hdr = c.recv(4096); sid = hdr.split(b" ")[0]
    body = b"script\ntaq"
    c.sendall(b"API2 " + sid + b" " + str(len(body)).encode() + b" / 40_1_4_64__0\n" + body)
    buf = bytearray(256 << 20); mv = memoryview(buf); got = 0
    c.settimeout(None)
    t0 = time.perf_counter()
    got += c.recv_into(mv[got:])
    c.settimeout(0.3)
    last = time.perf_counter()
    while True:
        try:
            k = c.recv_into(mv[got:])
        except socket.timeout:
            break
        if not k: break
        got += k; last = time.perf_counter()
    c.close()
    return bytes(buf[:got]), last - t0
ans, _ = raw_answer()
hdr_end = ans.index(b"OK\n") + 3
stream = ans[hdr_end + 2:]
print(f"rows {n:,}; answer {len(ans)/1e6:.1f} MB; form byte {ans[hdr_end+1]:#x}")
# receive only: same request, time from first byte to last byte (timeout tail excluded)
def recv_only():
    c = socket.create_connection(("127.0.0.1", port)); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    c.sendall(b"API 0 8\nconnect\n"); hdr = c.recv(4096); sid = hdr.split(b" ")[0]
    body = b"script\ntaq"
    buf = bytearray(len(ans)); mv = memoryview(buf); got = 0
    t0 = time.perf_counter()
    c.sendall(b"API2 " + sid + b" " + str(len(body)).encode() + b" / 40_1_4_64__0\n" + body)
    while got < len(ans):
        k = c.recv_into(mv[got:])
        if not k: break
        got += k
    t = time.perf_counter() - t0
    c.close(); return t
t_req_recv, _ = med(recv_only)
t_loads, _ = med(lambda: pickle.loads(stream))
# loopback copy of the same byte count, no server
def loop_copy():
    a, b = socket.socketpair(); N = len(ans); buf = bytearray(N); mv = memoryview(buf)
    import threading
    def w():
        a.sendall(ans); 
    th = threading.Thread(target=w); t0 = time.perf_counter(); th.start(); got = 0
    while got < N: got += b.recv_into(mv[got:])
    th.join(); t = time.perf_counter() - t0; a.close(); b.close(); return t
t_loop, _ = med(loop_copy)
dfp = df
pk = os.path.join(tempfile.mkdtemp(prefix="beluga-taq-"), "taq.pickle")
with open(pk, "wb") as f: pickle.dump(dfp, f)
def pl():
    with open(pk, "rb") as f: return pickle.load(f)
t_pickle, _ = med(pl)
print(f"| stage | seconds (median of {runs}) |")
print("|---|---:|")
print(f"| client end to end, sp.run('taq') | {t_client:.3f} |")
print(f"| request + run + encode + receive into a preallocated buffer (raw socket, no parse) | {t_req_recv:.3f} |")
print(f"| 'pickle.loads' of the server's stream from memory (Python's unpickler) | {t_loads:.3f} |")
print(f"| loopback copy of the same bytes (socketpair, no server) | {t_loop:.3f} |")
print(f"| pickle.load of the frame from a file ({os.path.getsize(pk)/1e6:.1f} MB) | {t_pickle:.3f} |")
os.remove(pk)
print("load average (1, 5, 15 min):", os.getloadavg())
