"""The client's floor for one TAQ day: how long the real client takes to receive a pickle
answer of the same size that asks nothing of numpy or pandas (one bytes object, served from
memory by a helper process), beside the real answer and `pickle.load` of the same frame.

Usage: python taq_floor.py PORT DAY.csv [ROUNDS] [BEFORE_PORT]   (a `beluga server
--trust-user admin` must listen on 127.0.0.1:PORT; the day is loaded once as the shared table
`taq`; with BEFORE_PORT a second server, e.g. an older build, is one more path of each round). Each round runs
the three paths one after the other; prints min and median of ROUNDS (default 9) of the wall
time and of the client's own CPU time (`time.process_time`, all its threads). The helper is a
Python process, slower to send than the server: its wall time is no floor, its client CPU is.
"""
import multiprocessing, os, pickle, socket, statistics, sys, tempfile, threading, time
import dolphindb as ddb, dolphindb.settings as keys


def answer_size(port):
    """Bytes of the server's pickle answer to `taq` (a raw socket speaking the protocol)."""
    c = socket.create_connection(("127.0.0.1", port))
    c.sendall(b"API 0 8\nconnect\n")
    sid = c.recv(4096).split(b" ")[0]
    body = b"script\ntaq"
    c.sendall(b"API2 " + sid + b" " + str(len(body)).encode() + b" / 40_1_4_64__0\n" + body)
    n = 0
    c.settimeout(2.0)
    while True:
        try:
            k = c.recv(1 << 20)
        except socket.timeout:
            break
        if not k:
            break
        n += len(k)
    c.close()
    return n


def minimal_server(listener, n):
    """Answers the connect, then `taq` with a pickle stream of one n-byte bytes object."""
    body = b"OK\n" + bytes([0, 6 | 0x20]) + b"\x80\x04\x8e" + n.to_bytes(8, "little") + b"\0" * n + b"."

    def serve(c):
        f = c.makefile("rb")
        while True:
            line = f.readline()
            if not line:
                return
            req = f.read(int(line.split()[2]))
            if req.startswith(b"connect"):
                c.sendall(b"1 1 1\nOK\n" + bytes([1, 0, 1]) if b"login" in req else b"1 0 1\nOK\n")
            elif req == b"script\ntaq":
                c.sendall(b"1 1 1\n")
                c.sendall(body)
            else:
                c.sendall(b"1 0 1\nOK\n")

    while True:
        c, _ = listener.accept()
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def pickle_session(port, csv):
    """A PROTOCOL_PICKLE session on the server at `port`, whose shared `taq` is loaded."""
    s = ddb.session()
    s.connect("127.0.0.1", port, "admin", "123456")
    if not s.run("defined(`taq, SHARED)"):
        s.run(f"share loadText('{csv}') as taq")
    sp = ddb.session(protocol=keys.PROTOCOL_PICKLE)
    sp.connect("127.0.0.1", port, "admin", "123456")
    return sp


def main():
    port, csv = int(sys.argv[1]), sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    before = int(sys.argv[4]) if len(sys.argv) > 4 else None
    sp = pickle_session(port, csv)
    size = answer_size(port)
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    helper = multiprocessing.Process(target=minimal_server, args=(ls, size - 40), daemon=True)
    helper.start()
    sm = ddb.session(protocol=keys.PROTOCOL_PICKLE)
    sm.connect("127.0.0.1", ls.getsockname()[1], "admin", "123456")
    df = sp.run("taq")
    pk = os.path.join(tempfile.mkdtemp(prefix="beluga-floor-"), "taq.pickle")
    with open(pk, "wb") as f:
        pickle.dump(df, f)
    rows = len(df)
    del df
    paths = {}
    if before:
        sb = pickle_session(before, csv)
        paths[f"server on port {before} (before), sb.run('taq')"] = lambda: sb.run("taq")
    paths |= {
        f"beluga server, sp.run('taq') ({size / 1e6:.1f} MB answer)": lambda: sp.run("taq"),
        "same size, one bytes object from a helper process (the client only receives)": lambda: sm.run("taq"),
        f"pickle.load of the same frame ({os.path.getsize(pk) / 1e6:.1f} MB file)": lambda: pickle.load(open(pk, "rb")),
    }
    times = {k: [] for k in paths}
    cpu = {k: [] for k in paths}
    for _ in range(rounds):
        for k, f in paths.items():
            t0, c0 = time.perf_counter(), time.process_time()
            r = f()
            times[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
            del r
    os.remove(pk)
    helper.terminate()
    print(f"{rows:,} rows; {rounds} rounds; load average {os.getloadavg()}")
    print("| path | wall min s | wall median s | client CPU min s | client CPU median s |")
    print("|---|---:|---:|---:|---:|")
    for k, v in times.items():
        c = cpu[k]
        print(f"| {k} | {min(v):.3f} | {statistics.median(v):.3f} | {min(c):.3f} | {statistics.median(c):.3f} |")


if __name__ == "__main__":
    main()
