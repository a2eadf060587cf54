"""Expected values for tests/realworld/stream13_windows.dos (pandas, independent of Beluga).

daily:   two days of ticks (DATE + SECOND columns) on three symbols, 1-minute bars inside
         the sessions 09:30-11:30 and 13:00-15:00 (funcs/c/createDailyTimeSeriesEngine.md):
         a pre-open tick joins the session's first bar, a tick during lunch joins the
         afternoon's first bar, a tick at exactly 11:30:00 or 15:00:00 joins the session's
         last bar (mergeSessionEnd=true). A bar is output once a later tick of its symbol
         arrives the same day (keyPurgeDaily=true drops the rest at the next day).
session: sensor readings of four devices, sessions cut by a 30 s silence
         (funcs/c/createSessionWindowEngine.md); a session is output when the device's
         next reading closes it, labelled by its first reading's time.
Run: python3 stream13_windows.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(2024)
syms = ["A", "B", "C"]
rows = []
for day in [0, 1]:
    for s in syms:
        tods = set(rng.choice(np.arange(9 * 3600 + 20 * 60, 15 * 3600), 45, replace=False).tolist())
        tods.update([11 * 3600 + 1800, 15 * 3600] if s != "C" else [9 * 3600 + 25 * 60 + 7])
        for t in tods:
            rows.append((day, int(t), s, int(rng.integers(1, 50)) * 100, round(10 + rng.normal(0, 0.2), 2)))
df = pd.DataFrame(rows, columns=["day", "tod", "sym", "vol", "price"]).sort_values(["day", "tod", "sym"], kind="stable").reset_index(drop=True)

B1, E1, B2, E2 = 9 * 3600 + 1800, 11 * 3600 + 1800, 13 * 3600, 15 * 3600
def eff(x):
    if x < B1: return B1
    if x < E1: return x
    if x == E1: return E1 - 1
    if x < B2: return B2
    if x < E2: return x
    if x == E2: return E2 - 1
    return None
df["eff"] = df.tod.map(eff)
df["bar"] = (df.eff // 60) * 60 + 60
# a bar is output when a later tick (effective time >= its end) of the symbol arrives that day
last = df.groupby(["day", "sym"]).eff.transform("max")
df["lastEff"] = last
g = df.groupby(["day", "sym", "bar"]).agg(vol=("vol", "sum"), hi=("price", "max"), close=("price", "last"), n=("vol", "size"), lastEff=("lastEff", "first")).reset_index()
g = g[g.lastEff >= g.bar].sort_values(["day", "sym", "bar"])

ints = lambda xs: " ".join(str(int(x)) for x in xs)
print("// daily data")
print("dDay = " + ints(df.day))
print("dTod = " + ints(df.tod))
print("dSym = " + "".join("`" + x for x in df.sym))
print("dVol = " + ints(df.vol))
print("dPrice = " + " ".join("%.2f" % x for x in df.price))
print("// daily bars sorted by day, sym, bar")
print("barN = %d" % len(g))
print("barDay = " + ints(g.day))
print("barEnd = " + ints(g.bar))
print("barVol = " + ints(g.vol))
print("barHi = " + " ".join("%.2f" % x for x in g.hi))
print("barClose = " + " ".join("%.2f" % x for x in g.close))

# ---- sessions
devs = ["d1", "d2", "d3", "d4"]
rr = []
for dv in devs:
    t = 0
    for k in range(25):
        t += int(rng.choice([1000, 4000, 9000, 15000, 29999, 30000, 45000, 120000], p=[.2, .2, .2, .15, .05, .05, .1, .05]))
        rr.append((t, dv, round(20 + rng.normal(0, 1.5), 1)))
ev = pd.DataFrame(rr, columns=["t", "dev", "temp"]).sort_values(["t", "dev"], kind="stable").reset_index(drop=True)
GAP = 30000
ev["sid"] = ev.groupby("dev").t.transform(lambda x: (x.diff() >= GAP).cumsum())
sess = ev.groupby(["dev", "sid"]).agg(start=("t", "min"), end=("t", "max"), n=("t", "size"), avg=("temp", "mean"), mx=("temp", "max")).reset_index()
lastsid = ev.groupby("dev").sid.max()
sess = sess[sess.sid < sess.dev.map(lastsid)].sort_values(["dev", "start"])
print("// session data")
print("sT = " + ints(ev.t))
print("sDev = " + "".join("`" + x for x in ev.dev))
print("sTemp = " + " ".join("%.1f" % x for x in ev.temp))
print("// sessions sorted by dev, start")
print("sesN = %d" % len(sess))
print("sesDev = " + "".join("`" + x for x in sess.dev))
print("sesStart = " + ints(sess.start))
print("sesEnd = " + ints(sess.end + GAP))
print("sesCount = " + ints(sess.n))
print("sesAvg = [" + ", ".join(repr(round(x, 8)) for x in sess.avg) + "]")
print("sesMax = " + " ".join("%.1f" % x for x in sess.mx))
