"""Expected values for tests/realworld/sql2_*.dos, computed with pandas/numpy.
Run by hand: python3 sql2_gen.py; paste the printed values into the scripts."""
import numpy as np
import pandas as pd


def fmt(xs):
    return "[" + ", ".join("NULL" if (x is None or (isinstance(x, float) and np.isnan(x))) else repr(round(float(x), 8)) for x in xs) + "]"


# sql2_multicol.dos: indicator-style functions returning several columns, per symbol.
# Symbol "C" has a single row (the group-of-size-1 case).
sym = ["A", "A", "A", "B", "B", "C", "A", "B"]
close = [10.0, 10.4, 10.1, 20.0, 20.6, 5.0, 10.9, 20.2]
vol = [100, 250, 130, 400, 380, 50, 300, 420]
df = pd.DataFrame({"sym": sym, "close": close, "vol": vol})
g = df.groupby("sym", sort=False)
# band(x): (2-row moving average, cumulative max, x - cumulative min)
ma2 = g["close"].transform(lambda s: s.rolling(2).mean())
cmax = g["close"].cummax()
dmin = df["close"] - g["close"].cummin()
# DolphinDB's context by keeps groups together, in order of first appearance
order = sorted(range(len(df)), key=lambda r: (list(dict.fromkeys(sym)).index(sym[r]), r))
print("ctx order rows", order)
print("ma2", fmt(ma2[order]))
print("cmax", fmt(cmax[order]))
print("dmin", fmt(dmin[order]))
# stats(close, vol): (vwap, max close, count) per group, groups ascending by sym
agg = g.apply(lambda d: pd.Series({"vwap": np.average(d.close, weights=d.vol), "hi": d.close.max(), "n": len(d)}))
agg = agg.sort_index()
print("group syms", list(agg.index))
print("vwap", fmt(agg.vwap))
print("hi", fmt(agg.hi))
print("n", list(agg.n.astype(int)))
# spread of first/last per group (context by broadcast of a tuple of scalars)
fl = g["close"].agg(lambda s: s.iloc[-1] - s.iloc[0])
print("last-first by sym", {k: round(v, 8) for k, v in fl.items()})

# sql2_imr.dos: distributed median by bisection and Newton's square root, three sources
vals = [[7.5, 1.25, 9.0, 3.5, 12.0], [4.0, 8.25, 2.0, 15.5], [6.0, 11.0, 0.5, 5.25, 13.75, 10.0]]
allv = np.concatenate([np.array(v) for v in vals])
print("n", len(allv), "median", np.median(allv), "sum", allv.sum(), "sumsq", (allv ** 2).sum())
s = (allv ** 2).sum()
x = 1.0
for _ in range(3):
    x = (x + s / x) / 2
print("newton3", repr(round(x, 10)), "sqrt", repr(round(float(np.sqrt(s)), 10)))

# sql2_window.dos: per-sensor rolling statistics with window functions
sensor = ["s1", "s2", "s1", "s1", "s2", "s1", "s2", "s2", "s1"]
minute = [1, 1, 2, 4, 3, 5, 4, 7, 8]
temp = [20.5, 18.0, 21.0, 23.5, 18.5, 22.0, 19.5, 21.0, 24.0]
w = pd.DataFrame({"sensor": sensor, "minute": minute, "temp": temp})
ws = w.sort_values(["sensor", "minute"], kind="stable")
g = ws.groupby("sensor")["temp"]
roll3 = g.transform(lambda s: s.rolling(3, min_periods=1).sum()).reindex(w.index)
cumavg = g.transform(lambda s: s.expanding().mean()).reindex(w.index)
prev = g.shift(1).reindex(w.index)
rn = ws.groupby("sensor").cumcount().add(1).reindex(w.index)
print("roll3", fmt(roll3))
print("cumavg", fmt(cumavg))
print("prev", fmt(prev))
print("row_number", list(rn))
# range between 2 preceding and 1 following on the minute value
mx = []
for r in range(len(w)):
    m = w.minute[r]
    same = w[(w.sensor == w.sensor[r]) & (w.minute >= m - 2) & (w.minute <= m + 1)]
    mx.append(same.temp.max())
print("range_max", fmt(mx))
# whole-partition std (no order by: the frame is the partition)
print("std", fmt(w.groupby("sensor")["temp"].transform(lambda s: s.std(ddof=1))))
# dense rank of temperature over all rows, descending
print("dense_desc", list(w.temp.rank(method="dense", ascending=False).astype(int)))
