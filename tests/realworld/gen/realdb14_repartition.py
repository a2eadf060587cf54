"""Expected values of tests/realworld/store14_import_repartition.dos (pandas, run by hand).

tb1: k = 0..299, timestamp = 2010.01.01T09:30:00.000 + k * 7 hours, sym = "A" + (k % 40 + 1),
qty = k, price = k * 0.5.
"""
import pandas as pd

k = pd.Series(range(300))
ts = pd.Timestamp("2010-01-01 09:30:00") + pd.to_timedelta(k * 7, unit="h")
t = pd.DataFrame({"ts": ts, "sym": "A" + (k % 40 + 1).astype(str), "qty": k, "price": k * 0.5})
days = t.groupby(t.ts.dt.date).size()
print("distinct days:", len(days), "first sizes:", list(days.iloc[:4]), "last:", days.iloc[-1])
months = t.groupby(t.ts.dt.to_period("M")).size()
print("rows per month:", list(months))
print("sum qty:", t.qty.sum(), "sum price:", t.price.sum())
jan = t[t.ts < pd.Timestamp("2010-02-01")]
print("january rows / sum qty:", len(jan), jan.qty.sum())
