"""Expected values for tests/realworld/store12_upsert_positions.dos (pandas).

End-of-day positions per (date, account, sym) kept in a partitioned table (VALUE on date)
and a dimension table of account limits. A revised batch upserts positions: rows whose
key exists replace the stored values, the others are appended; with ignoreNull=true a
NULL price in the batch keeps the stored price. Every row follows the script's formulas.
"""
import numpy as np
import pandas as pd

accts = ["A1", "A2", "A3"]
syms = ["AAPL", "IBM", "MSFT", "TSLA"]
rows = []
for d in range(3):
    for a in range(3):
        for s in range(4):
            k = d * 12 + a * 4 + s
            rows.append((pd.Timestamp(2024, 3, 4 + d), accts[a], syms[s], (k * 7 % 11 + 1) * 100, 50 + (k * 13 % 17) * 2.5))
pos = pd.DataFrame(rows, columns=["date", "acct", "sym", "qty", "price"])
# revision: day 2 account A2 new quantities (prices NULL: keep the stored ones), plus two
# new positions on day 3 and one on a new day 4
rev = []
for s in range(4):
    rev.append((pd.Timestamp(2024, 3, 5), "A2", syms[s], 1000 + s * 10, np.nan))
rev.append((pd.Timestamp(2024, 3, 6), "A3", "NVDA", 300, 880.0))
rev.append((pd.Timestamp(2024, 3, 6), "A1", "AMD", 200, 170.5))
rev.append((pd.Timestamp(2024, 3, 7), "A1", "AAPL", 150, 171.25))
rev = pd.DataFrame(rev, columns=["date", "acct", "sym", "qty", "price"])
key = ["date", "acct", "sym"]
m = pos.merge(rev, on=key, how="left", suffixes=("", "_n"))
m["qty"] = m.qty_n.fillna(m.qty).astype(int)
m["price"] = m.price_n.fillna(m.price)  # ignoreNull: a NULL keeps the stored value
m = m[key + ["qty", "price"]]
new = rev.merge(pos[key], on=key, how="left", indicator=True)
new = new[new._merge == "left_only"][key + ["qty", "price"]]
res = pd.concat([m, new], ignore_index=True)
print("rows", len(res), "qty", int(res.qty.sum()), "notional %.4f" % (res.qty * res.price).sum())
a2 = res[(res.date == "2024-03-05") & (res.acct == "A2")].sort_values("sym")
print("A2 day2 qty", a2.qty.tolist(), "price", a2.price.tolist())
print("by date", res.groupby("date").qty.sum().tolist())
# dimension table: limits per account, upsert without ignoreNull
lim = pd.DataFrame({"acct": accts, "limit": [1e6, 2e6, 5e5]})
lim = lim.set_index("acct")
lim.loc["A2", "limit"] = 2.5e6
lim.loc["A4", "limit"] = 7.5e5
print("limits", lim.sort_index().limit.tolist())
