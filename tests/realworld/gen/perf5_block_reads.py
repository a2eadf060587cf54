"""Expected values of tests/realworld/perf5_block_reads.dos, computed with pandas/numpy
from the same formulas the script uses to build its table (not from Beluga's output).

Rows k = 0..59999: ts = 2026.03.01T00:00:00 + 4k seconds, device = "dev" + str(k % 5),
val = (k * 37 % 1000) / 10.
"""
import numpy as np
import pandas as pd

n = 60000
k = np.arange(n)
ts = pd.Timestamp("2026-03-01 00:00:00") + pd.to_timedelta(4 * k, unit="s")
df = pd.DataFrame({"ts": ts, "device": ["dev%d" % (i % 5) for i in k], "val": (k * 37 % 1000) / 10.0})

w = df[(df.ts >= "2026-03-02 10:00:00") & (df.ts <= "2026-03-02 10:30:00")]
print("window count", len(w), "sum", round(w.val.sum(), 6))
w3 = w[w.device == "dev3"]
print("dev3 rows", len(w3), "vals first5", list(w3.val[:5]), "ts first", w3.ts.iloc[0])
hi = df[df.val >= 99.5]
print("val>=99.5 count", len(hi))
late = df[df.ts >= "2026-03-03 18:00:00"]
print("late count", len(late), "max val", late.val.max())
per_day = df.groupby(df.ts.dt.date).val.agg(["count", "sum"])
print("per day", [(str(d), int(r["count"]), round(r["sum"], 6)) for d, r in per_day.iterrows()])

# cumsum with NULLs: a NULL repeats the sum so far; leading NULLs stay NULL
x = np.array([np.nan, np.nan, 1.25, 2.5, np.nan, -0.75, 10.0, np.nan, 3.125])
c = np.cumsum(np.where(np.isnan(x), 0.0, x))
c[:2] = np.nan
print("cumsum", list(c))
v = (np.arange(100000) * 7 % 1000) / 100.0
cs = np.cumsum(v)
print("cumsum big last", repr(cs[-1]), "at 54321", repr(cs[54321]))
