"""Expected values for tests/realworld/corpus_lookups.dos and corpus_pivot_report.dos
(pandas, independent of Beluga).

Twenty orders (symbol, side, qty, price, desk). Reference data: symbol -> sector and
symbol -> lot size dictionaries, a set of restricted symbols.
  lookups:  sector of every order (unknown symbols -> "OTHER"), lot-size check
            (qty % lot == 0), restricted flag, notional by sector of allowed orders,
            symbols never traded, a dictionary of running position per symbol.
  pivot:    notional by desk x side (pivot table, missing cells NULL), qty by
            sector x side, and the per-desk buy share.
Run: python3 corpus_lookups_pivot.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(8)
syms = ["AAPL", "MSFT", "XOM", "JPM", "CVX", "GS", "ZZZ"]
sector = {"AAPL": "TECH", "MSFT": "TECH", "XOM": "ENERGY", "CVX": "ENERGY", "JPM": "FIN", "GS": "FIN", "NVDA": "TECH"}
lot = {"AAPL": 100, "MSFT": 100, "XOM": 50, "CVX": 50, "JPM": 10, "GS": 10, "ZZZ": 1}
restricted = {"GS", "ZZZ"}
n = 20
df = pd.DataFrame({
    "sym": rng.choice(syms, n, p=[.2, .2, .15, .15, .1, .1, .1]),
    "side": rng.choice(["B", "S"], n),
    "qty": rng.choice([10, 50, 100, 150, 200, 250, 30], n),
    "price": np.round(rng.uniform(20, 300, n), 2),
    "desk": rng.choice(["D1", "D2", "D3"], n, p=[.45, .45, .1]),
})
df.loc[df.desk == "D3", "side"] = "B"
df["sector"] = df.sym.map(sector).fillna("OTHER")
df["lotOk"] = df.qty % df.sym.map(lot) == 0
df["restr"] = df.sym.isin(restricted)
df["notional"] = df.qty * df.price
q = lambda xs: "[" + ", ".join('"' + x + '"' for x in xs) + "]"
b = lambda xs: "[" + ", ".join("true" if x else "false" for x in xs) + "]"
def vec(xs):
    return "[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), 8)) for x in xs) + "]"
print("sym = " + "".join("`" + s for s in df.sym))
print("side = " + "".join("`" + s for s in df.side))
print("qty = " + " ".join(str(x) for x in df.qty))
print("price = " + " ".join(f"{x:.2f}" for x in df.price))
print("desk = " + "".join("`" + s for s in df.desk))
print("expSector =", q(df.sector))
print("expLotOk =", b(df.lotOk))
print("expRestr =", b(df.restr))
ok = df[~df.restr]
s = ok.groupby("sector").notional.sum().sort_index()
print("allowedBySector =", list(s.index), vec(s))
print("neverTraded =", sorted(set(sector) - set(df.sym)))
pos = {}
for r in df.itertuples():
    pos[r.sym] = pos.get(r.sym, 0) + (r.qty if r.side == "B" else -r.qty)
print("position =", sorted(pos.items()))
pv = df.pivot_table(index="desk", columns="side", values="notional", aggfunc="sum").sort_index()
print("pivotDesk =", list(pv.index), "B", vec(pv["B"]), "S", vec(pv["S"]))
pq = df.pivot_table(index="sector", columns="side", values="qty", aggfunc="sum").sort_index()
print("pivotSectorQty =", list(pq.index), "B", vec(pq["B"]), "S", vec(pq["S"]))
share = (pv["B"] / pv.fillna(0).sum(axis=1))
print("buyShare =", vec(share))
