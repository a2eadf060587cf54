"""Expected values for tests/realworld/perf_scale.dos (run by hand, paste the output).

Data (same formulas in the script): n = 20000 rows, id = 0..n-1,
v = ((id * 7919) mod 10007) / 10, g = id mod 7, ts = 2024.01.01T00:00:00 + 60 * id.
"""
import numpy as np
import pandas as pd

n = 20000
id_ = np.arange(n)
v = ((id_ * 7919) % 10007) / 10.0
g = id_ % 7
ts = pd.Timestamp("2024-01-01") + pd.to_timedelta(60 * id_, unit="s")
t = pd.DataFrame({"id": id_, "v": v, "g": g, "ts": ts})

# top-N: stable sorts (ties keep input order)
f = t[t.g != 3]
a = f.sort_values("v", ascending=False, kind="stable").head(5)
print("top5 v desc ids:", list(a.id), "v:", list(a.v))
b = f.sort_values(["v", "id"], ascending=[True, False], kind="stable").head(10)
print("top10 v asc id desc ids:", list(b.id))
c = t.sort_values(["g", "v"], ascending=[True, False], kind="stable").head(7)
print("top7 g asc v desc ids:", list(c.id))
d = t[t.id % 5 == 0].sort_values("ts", ascending=False, kind="stable").head(20)
print("top20 ts desc (id%5==0) ids sum:", int(d.id.sum()), "first:", int(d.id.iloc[0]), "last:", int(d.id.iloc[-1]))

# comparisons / iif on doubles with nulls: x = v with every 11th null, y = 500.0 + g
x = v.copy()
x[id_ % 11 == 0] = np.nan
y = 500.0 + g
gt = (np.nan_to_num(x, nan=-np.inf) > y)  # null is the smallest value
print("count x > y:", int(gt.sum()))
pick = np.where(gt, x, y)
print("sum iif(x > y, x, y):", repr(float(np.nansum(pick))))
print("count x == x:", int((~np.isnan(x)).sum() + np.isnan(x).sum()))  # null == null is true

# stored RANGE table by day: whole-day windows are decided by the partition bounds
w = t[(t.ts >= "2024-01-02") & (t.ts <= "2024-01-05 23:59:59")]
print("between days count:", len(w), "sum v:", repr(float(w.v.sum())))
w2 = t[t.ts >= "2024-01-03"].groupby("g").v.mean()
print("avg v by g from 01.03:", [repr(float(x)) for x in w2.values])
w3 = t[(t.ts >= "2024-01-02 12:00:00") & (t.ts < "2024-01-04")]
print("half-day window count:", len(w3), "sum v:", repr(float(w3.v.sum())))

# joins with a stored left table: info has g = 0..5 (6 absent), name a..f
info = pd.DataFrame({"g": np.arange(6), "name": list("abcdef")})
j = t.merge(info, on="g")
jw = j[(j.ts >= "2024-01-02") & (j.ts <= "2024-01-03 12:00:00") & (j.v > 500)]
print("ej where count:", len(jw), "sum v:", repr(float(jw.v.sum())))
l = t.merge(info, on="g", how="left")
lw = l[(l.ts >= "2024-01-06") & (l.ts <= "2024-01-06 06:00:00")]
print("lsj window rows:", len(lw), "null names:", int(lw.name.isna().sum()))
lw2 = l[(l.ts >= "2024-01-06") & (l.name == "b")]
print("lsj name b rows:", len(lw2), "sum id:", int(lw2.id.sum()))
# cross join 3 x 2
print("cj:", [(x, y) for x in [1, 2, 3] for y in ["p", "q"]])
