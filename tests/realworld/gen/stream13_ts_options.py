"""Expected values for tests/realworld/stream13_ts_options.dos (pandas, independent of Beluga).

Ticks of four symbols arrive slightly out of order (each at most 1.5 s late against the
ticks before it) into 1-minute windows with acceptedDelay=2000 ms
(funcs/c/createTimeSeriesEngine.md: a window [s, e) is computed at the first tick at or
after e + acceptedDelay; ticks of the window arriving before that still count). So every
tick counts, and a symbol's window is output iff the symbol has a tick at or after its
end + 2000. Metrics are order-free: sum of volume, max price, tick count.
Run: python3 stream13_ts_options.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(77)
rows = []
for s in ["IF", "IC", "IH", "IM"]:
    ts = np.sort(rng.choice(np.arange(0, 10 * 60000), 60, replace=False))
    for t in ts:
        rows.append((int(t), s, int(rng.integers(1, 20)), round(4000 + rng.normal(0, 5), 1)))
df = pd.DataFrame(rows, columns=["t", "sym", "vol", "price"])
DELAY = 2000
# arrival order: time plus a jitter below 1500 ms (so nothing is later than the delay)
df["arr"] = df.t + rng.integers(0, 1500, len(df))
df = df.sort_values(["arr", "sym"], kind="stable").reset_index(drop=True)
df["end"] = (df.t // 60000) * 60000 + 60000
mx = df.groupby("sym").t.max()
g = df.groupby(["sym", "end"]).agg(vol=("vol", "sum"), hi=("price", "max"), n=("t", "size")).reset_index()
g = g[g.end + DELAY <= g.sym.map(mx)].sort_values(["sym", "end"])
ints = lambda xs: " ".join(str(int(x)) for x in xs)
print("aT = " + ints(df.t))
print("aSym = " + "".join("`" + x for x in df.sym))
print("aVol = " + ints(df.vol))
print("aPrice = " + " ".join("%.1f" % x for x in df.price))
print("outN = %d" % len(g))
print("outSym = " + "".join("`" + x for x in g.sym))
print("outEnd = " + ints(g.end))
print("outVol = " + ints(g.vol))
print("outHi = " + " ".join("%.1f" % x for x in g.hi))
print("outN2 = " + ints(g.n))
# how many ticks arrive before an earlier-stamped tick of the same symbol
late = sum((grp.t.values[1:] < np.maximum.accumulate(grp.t.values)[:-1]).sum() for _, grp in df.groupby("sym"))
print("// late ticks: %d" % late)
