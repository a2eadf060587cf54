"""Expected values for tests/realworld/server4_shared_blotter.dos: a shared trade blotter
filled by 50 batches of 20 rows (row i of the day: symbol A/B/C/D by i % 4, quantity
i % 17 + 1, price 10 + (i % 13) * 0.25). Run by hand; paste the printed values."""
import numpy as np
import pandas as pd

i = np.arange(50 * 20)
df = pd.DataFrame({"sym": np.array(["A", "B", "C", "D"])[i % 4], "qty": i % 17 + 1, "px": 10 + (i % 13) * 0.25})
print("rows", len(df))
print("sum qty", int(df.qty.sum()))
g = df.assign(notional=df.qty * df.px).groupby("sym").agg(n=("qty", "size"), q=("qty", "sum"), v=("notional", "sum"))
print("per sym n", g.n.tolist())
print("per sym q", g.q.tolist())
print("per sym v", [repr(x) for x in g.v.tolist()])
half = df.iloc[:500]
print("first 25 batches rows", len(half), "sum qty", int(half.qty.sum()))
print("last row", df.iloc[-1].tolist())
