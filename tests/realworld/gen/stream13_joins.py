"""Expected values for tests/realworld/stream13_joins.dos (pandas, independent of Beluga).

A minute of trades and quotes on three symbols, streamed through the join engines:
  asof:   each trade with the latest quote of its symbol at or before it (merge_asof,
          by sym); a trade is output once a later quote of its symbol has arrived
          (funcs/c/createAsofJoinEngine.md), so trades after their symbol's last quote
          stay unjoined.
  lookup: trades with a reference table (previous close per symbol, latest row per
          symbol wins); half-way a correction for one symbol arrives on the right side;
          a symbol without reference data gives NULL (left join).
  equi:   orders and fills with equal (sym, second): an inner merge.
  semi:   each trade with the first quote of its symbol (left semi join,
          updateRightTable=false): an inner merge with groupby(sym).first().
Run: python3 stream13_joins.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(1302)
syms = ["AAPL", "MSFT", "TSLA"]
base = {"AAPL": 190.0, "MSFT": 410.0, "TSLA": 250.0}

def times(n, lo, hi):
    return np.sort(rng.choice(np.arange(lo, hi), n, replace=False))

qrows = []
for s in syms:
    for t in times(14, 0, 60000):
        mid = base[s] + rng.normal(0, 0.05) * 4
        half = rng.choice([0.01, 0.02, 0.03])
        qrows.append((int(t), s, round(mid - half, 2), round(mid + half, 2)))
q = pd.DataFrame(qrows, columns=["t", "sym", "bid", "ask"]).sort_values(["t", "sym"], kind="stable").reset_index(drop=True)
trows = []
for s in syms:
    for t in times(10, 500, 60000):
        trows.append((int(t), s, round(base[s] + rng.normal(0, 0.1), 2), int(rng.choice([100, 200, 300, 500]))))
tr = pd.DataFrame(trows, columns=["t", "sym", "price", "qty"]).sort_values(["t", "sym"], kind="stable").reset_index(drop=True)

def vec(xs, nd=6):
    return "[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), nd)) for x in xs) + "]"
ints = lambda xs: " ".join(str(int(x)) for x in xs)
syml = lambda xs: "".join("`" + x for x in xs)

print("// data")
print("qt = " + ints(q.t))
print("qsym = " + syml(q.sym))
print("qbid = " + " ".join("%.2f" % x for x in q.bid))
print("qask = " + " ".join("%.2f" % x for x in q.ask))
print("tt = " + ints(tr.t))
print("tsym = " + syml(tr.sym))
print("tprice = " + " ".join("%.2f" % x for x in tr.price))
print("tqty = " + ints(tr.qty))

# ---- asof
qq = q.rename(columns={"t": "qt"})
m = pd.merge_asof(tr.sort_values("t"), qq.sort_values("qt"), left_on="t", right_on="qt", by="sym", allow_exact_matches=True)
last_q = q.groupby("sym").t.max()
m = m[m.t < m.sym.map(last_q)].sort_values(["sym", "t"])
print("// asof, sorted by sym, time")
print("ajN = %d" % len(m))
print("ajT = " + ints(m.t))
print("ajBid = " + vec(m.bid))
print("ajQt = [" + ", ".join("NULL" if pd.isna(x) else str(int(x)) for x in m.qt) + "]")
print("ajSlip = " + vec(m.price - (m.bid + m.ask) / 2, 6))

# ---- lookup: reference rows, then a correction for MSFT after the first half of trades
ref = pd.DataFrame({"sym": ["AAPL", "MSFT", "TSLA", "MSFT"], "prevClose": [189.5, 409.0, 252.0, 408.0]})
refmap = ref.groupby("sym").prevClose.last()  # latest row per symbol
half = len(tr) // 2
corr = refmap.copy(); corr["MSFT"] = 411.0
tr2 = tr.copy()
tr2.loc[tr2.index[half - 1], "sym"] = "NFLX"  # no reference data
pc = [refmap.get(s, np.nan) if k < half else corr.get(s, np.nan) for k, s in enumerate(tr2.sym)]
print("// lookup")
print("lkSym = " + syml(tr2.sym))
print("lkHalf = %d" % half)
print("lkPrev = " + vec(pc, 2))
print("lkRet = " + vec(tr2.price / np.array(pc) - 1, 8))

# ---- equi: orders and fills on whole seconds
orows = [(int(t), s, int(rng.choice([100, 200, 300]))) for s in syms for t in np.sort(rng.choice(60, 12, replace=False))]
frows = [(int(t), s, int(rng.choice([50, 100, 150]))) for s in syms for t in np.sort(rng.choice(60, 12, replace=False))]
o = pd.DataFrame(orows, columns=["sec", "sym", "oq"]).sort_values(["sec", "sym"], kind="stable")
f = pd.DataFrame(frows, columns=["sec", "sym", "fq"]).sort_values(["sec", "sym"], kind="stable")
e = o.merge(f, on=["sec", "sym"]).sort_values(["sym", "sec"])
print("// equi")
print("os = " + ints(o.sec)); print("osym = " + syml(o.sym)); print("oq = " + ints(o.oq))
print("fs = " + ints(f.sec)); print("fsym = " + syml(f.sym)); print("fq = " + ints(f.fq))
print("ejN = %d" % len(e))
print("ejSec = " + ints(e.sec)); print("ejSym = " + syml(e.sym)); print("ejFill = " + ints(e.fq)); print("ejRatio = " + vec(e.fq / e.oq, 8))

# ---- left semi: each trade with its symbol's first quote
first = q.groupby("sym").first()
s2 = tr.merge(first[["bid", "ask"]], left_on="sym", right_index=True).sort_values(["sym", "t"])
print("// semi")
print("lsN = %d" % len(s2))
print("lsBid = " + vec(s2.bid, 2))
print("lsAsk = " + vec(s2.ask, 2))
