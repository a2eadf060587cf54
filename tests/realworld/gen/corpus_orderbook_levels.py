"""Expected values for tests/realworld/corpus_orderbook_levels.dos (numpy, independent of Beluga).

Level-2 snapshots (5 bid and 5 ask levels) of two symbols, 6 snapshots each, stored wide
(bidPrice1..5, bidVol1..5, askPrice1..5, askVol1..5). Features:
  spread     ask1 - bid1
  mid        (ask1 + bid1) / 2
  micro      weighted mid (bid1 * askVol1 + ask1 * bidVol1) / (askVol1 + bidVol1)
  imb5       (sum bid vol - sum ask vol) / (sum bid vol + sum ask vol), 5 levels
  imb3       the same over the top 3 levels
  bidVwap    volume-weighted average bid price over 5 levels
  depthAvg   average bid volume per level
  imbMa3     3-snapshot moving average of imb5 per symbol
Run: python3 corpus_orderbook_levels.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(77)
rows = []
for sym, p0 in (("600000", 10.0), ("600519", 1650.0)):
    tick = 0.01 if p0 < 100 else 0.5
    mid = p0
    for k in range(6):
        mid = round((mid + rng.normal(0, 2) * tick) / tick) * tick
        b1 = round(mid - tick * int(rng.integers(1, 3)), 2)
        a1 = round(b1 + tick * int(rng.integers(1, 3)), 2)
        bp = [round(b1 - tick * j, 2) for j in range(5)]
        ap = [round(a1 + tick * j, 2) for j in range(5)]
        bv = [int(x) * 100 for x in rng.integers(1, 60, 5)]
        av = [int(x) * 100 for x in rng.integers(1, 60, 5)]
        rows.append((sym, k, bp, bv, ap, av))
def col(i, j):
    return [r[i][j] for r in rows]
print("sym = " + "".join("`" + r[0] for r in rows))
for name, i, fmt in (("bidPrice", 2, "{:.2f}"), ("bidVol", 3, "{}"), ("askPrice", 4, "{:.2f}"), ("askVol", 5, "{}")):
    for j in range(5):
        print(f"{name}{j + 1} = " + " ".join(fmt.format(x) for x in col(i, j)))
bp = np.array([r[2] for r in rows]); bv = np.array([r[3] for r in rows], float)
ap = np.array([r[4] for r in rows]); av = np.array([r[5] for r in rows], float)
def vec(xs):
    return "[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), 12)) for x in xs) + "]"
print("expSpread =", vec(ap[:, 0] - bp[:, 0]))
print("expMid =", vec((ap[:, 0] + bp[:, 0]) / 2))
print("expMicro =", vec((bp[:, 0] * av[:, 0] + ap[:, 0] * bv[:, 0]) / (av[:, 0] + bv[:, 0])))
imb5 = (bv.sum(1) - av.sum(1)) / (bv.sum(1) + av.sum(1))
print("expImb5 =", vec(imb5))
print("expImb3 =", vec((bv[:, :3].sum(1) - av[:, :3].sum(1)) / (bv[:, :3].sum(1) + av[:, :3].sum(1))))
print("expBidVwap =", vec((bp * bv).sum(1) / bv.sum(1)))
print("expDepthAvg =", vec(bv.mean(1)))
s = pd.Series(imb5)
ma = pd.concat([s[:6].rolling(3).mean(), s[6:].rolling(3).mean()])
print("expImbMa3 =", vec(ma))
print("expBidVolSum =", [int(x) for x in bv.sum(1)])
