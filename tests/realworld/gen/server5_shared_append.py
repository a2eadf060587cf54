"""Expected values for tests/realworld/server5_shared_append.dos (pandas, independent of Beluga).

A trade-capture desk script: a trades table is shared as `liveTrades` (`share trades as
liveTrades`) and three feeds append batches to it: `insert into`, `append!` with a table,
and `tableInsert` with columns, plus a function that inserts one row through the shared
name. Both names are one table afterwards. Per symbol: row count, total quantity, VWAP.
Run: python3 server5_shared_append.py and paste the printed lines into the script.
"""
import pandas as pd

syms = ["IBM", "MSFT", "AAPL"]
rows = []
# feed 1: insert into, 6 rows
for k in range(6):
    rows.append((syms[k % 3], 100 + 10 * k, 50.0 + 0.25 * k))
# feed 2: append! of a 4-row table
for k in range(4):
    rows.append((syms[(k + 1) % 3], 200 + 5 * k, 60.0 - 0.5 * k))
# feed 3: tableInsert of 5 rows
for k in range(5):
    rows.append((syms[(k + 2) % 3], 300 - 20 * k, 70.0 + 1.0 * k))
# the function's row
rows.append(("IBM", 1000, 49.5))
df = pd.DataFrame(rows, columns=["sym", "qty", "price"])
g = df.groupby("sym").apply(lambda x: pd.Series({"n": len(x), "q": x.qty.sum(), "vwap": (x.qty * x.price).sum() / x.qty.sum()}), include_groups=False)
g = g.sort_index()
print("rows", len(df))
print("syms", " ".join(g.index))
print("n", [int(v) for v in g.n])
print("q", [int(v) for v in g.q])
print("vwap", [float(v) for v in g.vwap])
