"""Expected values for server_shared_tables.dos: a shared trade log that three desks append
to, in the order the script appends (pandas computes the totals independently)."""
import pandas as pd

rows = []
rows += [("AAPL", 100, 10.5), ("MSFT", 200, 20.25)]            # table() that is shared
rows += [("IBM", 50, 30.0)]                                      # append!
rows += [("AAPL", 300, 11.0), ("IBM", 25, 29.5)]                 # tableInsert
rows += [("MSFT", 10, 21.0)]                                     # insert into
df = pd.DataFrame(rows, columns=["sym", "qty", "px"])
print("rows", len(df))
print("qty", int(df.qty.sum()))
print("notional", float((df.qty * df.px).sum()))
g = df.groupby("sym").qty.sum()
print("by sym", dict(g))
