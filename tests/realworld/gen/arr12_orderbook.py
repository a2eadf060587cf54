"""Expected values for tests/realworld/arr12_orderbook.dos (numpy/pandas, independent of Beluga).

An order-book feature table: 3 symbols x 6 snapshots, bid/ask prices as DOUBLE[] and
volumes as INT[] with 3..5 levels per side. Per snapshot: mid, micro-price (level-1 price
weighted by the opposite side's volume), depth imbalance, volume-weighted bid price
(rowWavg), the price of the largest bid level (rowAt(bidP, rowImax(bidV))), level 2 of the
bids (at/[1]); per symbol (context by): mid return and a 3-snapshot moving imbalance; per
symbol (group by): average spread and the bid volume over 1000 per row (rowAt with a BOOL
array vector).
Run: python3 arr12_orderbook.py and paste the printed lines into the script.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(1202)
syms = ["AAA", "BBB", "CCC"]
base = {"AAA": 50.0, "BBB": 120.0, "CCC": 8.0}
rows = []
for k in range(6):
    for s in syms:
        mid = round(base[s] * (1 + rng.normal(0, 0.002)), 2)
        nb, na = int(rng.integers(3, 6)), int(rng.integers(3, 6))
        bp = [round(mid - 0.01 * (j + 1), 2) for j in range(nb)]
        ap = [round(mid + 0.01 * (j + 1), 2) for j in range(na)]
        bv = [int(x) for x in rng.integers(1, 30, nb) * 100]
        av = [int(x) for x in rng.integers(1, 30, na) * 100]
        rows.append(dict(sym=s, k=k, bp=bp, bv=bv, ap=ap, av=av))
df = pd.DataFrame(rows)


def dos_vec(xs, fmt=repr):
    return "[" + ",".join(fmt(x) for x in xs) + "]"


def av_lit(col):
    ends = np.cumsum([len(r) for r in col])
    flat = [x for r in col for x in r]
    return "arrayVector(" + " ".join(str(e) for e in ends) + ", " + " ".join(repr(x) for x in flat) + ")"


print("syms = " + "`" + "`".join(df.sym))
print("ks = " + " ".join(str(x) for x in df.k))
print("bidP = " + av_lit(df.bp))
print("bidV = " + av_lit(df.bv))
print("askP = " + av_lit(df.ap))
print("askV = " + av_lit(df.av))

b1 = np.array([r[0] for r in df.bp]); a1 = np.array([r[0] for r in df.ap])
bv1 = np.array([r[0] for r in df.bv], float); av1 = np.array([r[0] for r in df.av], float)
df["mid"] = (b1 + a1) / 2
df["micro"] = (b1 * av1 + a1 * bv1) / (bv1 + av1)
sb = np.array([sum(r) for r in df.bv], float); sa = np.array([sum(r) for r in df.av], float)
df["imb"] = (sb - sa) / (sb + sa)
df["vwb"] = [np.average(p, weights=v) for p, v in zip(df.bp, df.bv)]
df["pmax"] = [p[int(np.argmax(v))] for p, v in zip(df.bp, df.bv)]
df["b2"] = [r[1] for r in df.bp]
df["spread"] = a1 - b1
df["bigv"] = [sum(x for x in v if x > 1000) for v in df.bv]
df["nbig"] = [sum(1 for x in v if x > 1000) for v in df.bv]
print("mid:", dos_vec(df.mid))
print("micro:", dos_vec(df.micro))
print("imb:", dos_vec(df.imb))
print("vwb:", dos_vec(df.vwb))
print("pmax:", dos_vec(df.pmax))
print("b2:", dos_vec(df.b2))
print("bigv:", dos_vec(df.bigv))
print("nbig:", dos_vec(df.nbig))
# context by sym (rows in table order within each symbol)
g = df.groupby("sym", sort=False)
df["ret"] = g["mid"].transform(lambda x: x / x.shift(1) - 1)
df["mimb"] = g["imb"].transform(lambda x: x.rolling(3, min_periods=1).mean())
print("ret:", dos_vec(df.ret, lambda x: "NULL" if np.isnan(x) else repr(x)))
print("mimb:", dos_vec(df.mimb))
agg = df.groupby("sym").agg(avgSpread=("spread", "mean"), bigv=("bigv", "sum"), lv=("bv", lambda c: sum(len(r) for r in c)))
print("group sym:", list(agg.index), dos_vec(agg.avgSpread), dos_vec(agg.bigv), dos_vec(agg.lv))
# toArray(mid) per symbol, then its row max
print("maxmid per sym:", dos_vec(df.groupby("sym")["mid"].max()))
