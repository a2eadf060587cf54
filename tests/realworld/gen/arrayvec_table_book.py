"""Expected values for tests/realworld/arrayvec_table_book.dos (numpy/pandas, independent
of Beluga).

Two symbols, eight one-minute snapshots each, five bid and five ask levels per snapshot:
the levels live in array-vector TABLE COLUMNS (bidP/askP DOUBLE[], bidV/askV INT[]) and
every feature is computed with SQL over those columns:
  spread = askP[0] - bidP[0]
  wmid   = (bidP[0]*askV[0] + askP[0]*bidV[0]) / (bidV[0] + askV[0])   (level-1 weighted mid)
  imb    = (sum bidV - sum askV) / (sum bidV + sum askV)              (5-level depth imbalance)
  deep   = snapshots whose 5-level bid depth exceeds 12000
  per symbol averages of spread and imbalance
Trades: 30 prints, grouped per symbol and minute with toArray(price) -> DOUBLE[] rows, then
the count, vwap-free mean and max of each minute's array.
Run: python3 arrayvec_table_book.py and paste the printed literals into the script.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(7312026)
syms = ["AAA", "BBB"]
rows = []
for s, base in zip(syms, [50.0, 120.0]):
    mid = base
    for m in range(8):
        mid = round(mid + rng.normal(0, 0.05) * base / 50, 2)
        tick = 0.01
        bp = [round(mid - tick * (k + 1), 2) for k in range(5)]
        ap = [round(mid + tick * (k + 1), 2) for k in range(5)]
        bv = [int(x) * 100 for x in rng.integers(1, 40, 5)]
        av = [int(x) * 100 for x in rng.integers(1, 40, 5)]
        rows.append((s, m, bp, ap, bv, av))

df = pd.DataFrame(rows, columns=["sym", "minute", "bidP", "askP", "bidV", "askV"])
b0 = np.array([r[0] for r in df.bidP]); a0 = np.array([r[0] for r in df.askP])
bv0 = np.array([r[0] for r in df.bidV], dtype=float); av0 = np.array([r[0] for r in df.askV], dtype=float)
df["spread"] = a0 - b0
df["wmid"] = (b0 * av0 + a0 * bv0) / (bv0 + av0)
sb = np.array([sum(r) for r in df.bidV], dtype=float); sa = np.array([sum(r) for r in df.askV], dtype=float)
df["imb"] = (sb - sa) / (sb + sa)
df["sb"] = sb.astype(int)


def dl(xs):
    return "[" + ",".join(repr(float(x)) for x in xs) + "]"


def il(xs):
    return "[" + ",".join(str(int(x)) for x in xs) + "]"


def flat(col, fmt):
    return " ".join(fmt(x) for r in col for x in r)


def ends(col):
    return " ".join(str(x) for x in np.cumsum([len(r) for r in col]))


print("// data")
print("syms =", "`" + "`".join(df.sym))
print("mins =", " ".join(str(m) for m in df.minute))
print("bidPflat =", flat(df.bidP, lambda x: f"{x:.2f}"))
print("askPflat =", flat(df.askP, lambda x: f"{x:.2f}"))
print("bidVflat =", flat(df.bidV, str))
print("askVflat =", flat(df.askV, str))
print("// expected")
print("spread", dl(df.spread))
print("wmid", dl(df.wmid))
print("imb", dl(df.imb))
print("sumBidV", il(df.sb))
deep = df[df.sb > 12000]
print("deep rows", len(deep), "syms", list(deep.sym), "minutes", list(deep.minute))
g = df.groupby("sym").agg(avgSpread=("spread", "mean"), avgImb=("imb", "mean"), maxDepth=("sb", "max"))
print("per sym", g.to_dict())
# level-3 (index 2) bid volume per row, rowMax of ask volume
print("bidV2", il([r[2] for r in df.bidV]))
print("maxAskV", il([max(r) for r in df.askV]))
print("avgBidP", dl([np.mean(r) for r in df.bidP]))

# trades
tr = []
for k in range(30):
    s = syms[k % 2]
    m = int(rng.integers(0, 4))
    px = round((50.0 if s == "AAA" else 120.0) + rng.normal(0, 0.1), 2)
    tr.append((s, m, px))
tdf = pd.DataFrame(tr, columns=["sym", "minute", "price"])
print("tsyms =", "`" + "`".join(tdf.sym))
print("tmins =", " ".join(str(m) for m in tdf.minute))
print("tprices =", " ".join(f"{p:.2f}" for p in tdf.price))
gg = tdf.groupby(["sym", "minute"], sort=True).price.agg(list)
print("groups (sorted by sym, minute):")
print("gsym", "`" + "`".join(k[0] for k in gg.index))
print("gmin", il([k[1] for k in gg.index]))
print("gcount", il([len(v) for v in gg]))
print("gavg", dl([np.mean(v) for v in gg]))
print("gmax", dl([max(v) for v in gg]))
print("gfirst", dl([v[0] for v in gg]))
