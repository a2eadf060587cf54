"""Expected values for robust_shared_in_functions.dos: fills logged by three helper
functions (insert into / append! / tableInsert) into one shared table, then summarised.
Run by hand: python3 robust_shared_in_functions.py"""
import pandas as pd

fills = []
for i in range(1, 11):          # logFill(sym, qty, px) via insert into
    fills.append(("AAPL" if i % 2 else "MSFT", i * 10, 100 + i * 0.5))
for i in range(1, 6):           # logBatch via append!
    fills.append(("IBM", i * 7, 50 + i * 0.25))
for i in range(1, 4):           # logPair via tableInsert
    fills.append(("MSFT", i * 3, 200 - i))
df = pd.DataFrame(fills, columns=["sym", "qty", "px"])
print("rows", len(df))
print("sum qty", df.qty.sum())
print("notional", (df.qty * df.px).sum())
g = df.groupby("sym").qty.sum().sort_index()
print("by sym", list(g.index), list(g.values))
