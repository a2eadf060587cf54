"""Expected values for tests/realworld/corpus_xs_sql.dos (pandas, independent of Beluga).

Long-form factor data (date, stock, value, fwdRet) for 3 dates x 8 stocks, processed per
date the way factor pipelines do it in SQL with `context by date`:
  clipped    value clipped to [1st-smallest-other.., ...]: here to [q10, q90] of the date,
             with quantiles by linear interpolation (numpy default)
  z          (clipped - mean) / sample std per date
  rk         0-based rank of value per date (ascending, distinct values)
  grp        quartile group: rk * 4 / 8 (integer division)
  ic         Pearson correlation of z and fwdRet per date (information coefficient)
  spread     mean fwdRet of group 3 minus group 0 per date
Run: python3 corpus_xs_sql.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(2024)
dates = ["2026.02.02", "2026.02.03", "2026.02.04"]
stocks = [f"S{i:02d}" for i in range(1, 9)]
rows = []
for d in dates:
    v = np.round(rng.normal(0, 1, 8), 3)
    v[rng.integers(0, 8)] = round(float(rng.choice([-6.0, 7.5])), 3)
    f = np.round(0.01 * v + rng.normal(0, 0.02, 8), 4)
    for s, a, b in zip(stocks, v, f):
        rows.append((d, s, a, b))
df = pd.DataFrame(rows, columns=["date", "stock", "value", "fwdRet"])
g = df.groupby("date")
lo = g.value.transform(lambda x: np.quantile(x, 0.1))
hi = g.value.transform(lambda x: np.quantile(x, 0.9))
df["clipped"] = df.value.clip(lo, hi)
df["z"] = df.groupby("date").clipped.transform(lambda x: (x - x.mean()) / x.std())
df["rk"] = df.groupby("date").value.rank(method="first").astype(int) - 1
df["grp"] = df.rk * 4 // 8
def vec(xs):
    return "[" + ", ".join(repr(round(float(x), 12)) for x in xs) + "]"
print("date = [" + ", ".join(df.date) + "]")
print("stock = " + "".join("`" + s for s in df.stock))
print("value = " + " ".join(f"{x:.3f}" for x in df.value))
print("fwdRet = " + " ".join(f"{x:.4f}" for x in df.fwdRet))
print("expLo =", vec(lo.unique()), "expHi =", vec(hi.unique()))
print("expClipped =", vec(df.clipped))
print("expZ =", vec(df.z))
print("expRk =", list(df.rk))
print("expGrp =", list(df.grp))
ic = df.groupby("date").apply(lambda x: np.corrcoef(x.z, x.fwdRet)[0, 1], include_groups=False)
print("expIc =", vec(ic))
sp = df.groupby("date").apply(lambda x: x[x.grp == 3].fwdRet.mean() - x[x.grp == 0].fwdRet.mean(), include_groups=False)
print("expSpread =", vec(sp))
