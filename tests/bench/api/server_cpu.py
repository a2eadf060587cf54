"""The server's CPU per answer of one TAQ day, without any client decoding.

Usage: python server_cpu.py PORT PID DAY.csv [ANSWERS] [FLAGS]
(a `beluga server --trust-user admin` with process id PID must listen on 127.0.0.1:PORT).
Loads the day once as the shared table `taq`, then asks for `taq` ANSWERS times (default
10) over a raw socket that reads the answer into a preallocated buffer and drops it, and
prints the server's user+system CPU per answer (from /proc/PID/stat, so other processes'
load does not count), the answer's size and the wall time per answer. FLAGS is the
request's flag word: 40 = pickle (default), 32 = the DolphinDB encoding.
"""
import os, socket, statistics, sys, time

port, pid, csv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
answers = int(sys.argv[4]) if len(sys.argv) > 4 else 10
flags = int(sys.argv[5]) if len(sys.argv) > 5 else 40
tick = os.sysconf("SC_CLK_TCK")


def cpu():
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / tick


def read_line(c):
    b = bytearray()
    while True:
        x = c.recv(1)
        if not x or x == b"\n":
            return bytes(b)
        b += x


c = socket.create_connection(("127.0.0.1", port))
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
login = b"connect\nlogin\nadmin\n123456\nfalse"
c.sendall(b"API 0 %d / 32_1_4_2\n" % len(login) + login)
sid = read_line(c).split(b" ")[0]
read_line(c)
c.recv(3)


def ask(script, fl, sink):
    body = b"script\n" + script.encode()
    c.sendall(b"API2 %s %d / %d_1_4_64__0\n" % (sid, len(body), fl) + body)
    # one answer: read until the server is quiet (the frame has no overall length)
    mv = memoryview(sink)
    got = c.recv_into(mv)
    c.settimeout(0.25)
    last = time.perf_counter()
    while True:
        try:
            k = c.recv_into(mv[got:] if got < len(sink) else mv)
        except socket.timeout:
            break
        if not k:
            break
        got += k
        last = time.perf_counter()
    c.settimeout(None)
    return got, last


sink = bytearray(512 << 20)
ask(f"if (!defined(`taq, SHARED)) {{ share loadText('{csv}') as taq }}; size(taq)", 32, sink)
walls, cpus, size = [], [], 0
for _ in range(answers):
    c0, t0 = cpu(), time.perf_counter()
    size, last = ask("taq", flags, sink)
    walls.append(last - t0)
    cpus.append(cpu() - c0)
# /proc counts in clock ticks (10 ms): the mean over all answers, not a median of ticks
print(f"answer {size / 1e6:.1f} MB; server CPU per answer {sum(cpus) / len(cpus) * 1000:.1f} ms "
      f"(over {answers}); wall to last byte: median {statistics.median(walls) * 1000:.0f} ms "
      f"(load {os.getloadavg()[0]:.1f})")
