"""Expected values for tests/realworld/corpus_panel_reshape.dos (pandas, independent of Beluga).

Monthly sales of four regions in wide form (one column per region, 6 months). Reshaped:
  long     melt, ordered region by region (as DolphinDB's unpivot orders its output)
  stats    per region: total, best month, month-over-month growth of the last month
  panel    the long rows, shuffled and with two rows dropped, back to a months x regions
           matrix (missing cells NaN), with an explicit region list adding a region
           that has no rows
Run: python3 corpus_panel_reshape.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(31)
months = pd.period_range("2026-01", periods=6, freq="M")
regions = ["north", "south", "east", "west"]
wide = pd.DataFrame(np.round(rng.uniform(100, 500, (6, 4)), 1), columns=regions)
wide.insert(0, "month", [f"{m.year}.{m.month:02d}M" for m in months])
print("month = [" + ", ".join(wide.month) + "]")
for r in regions:
    print(f"{r} = " + " ".join(f"{x:.1f}" for x in wide[r]))
long = wide.melt(id_vars="month", var_name="valueType", value_name="value")
print("longType =", "[" + ", ".join('"' + x + '"' for x in long.valueType) + "]")
print("longValue =", "[" + ", ".join(f"{x:.1f}" for x in long.value) + "]")
g = long.groupby("valueType", sort=True)
print("regionsSorted =", list(g.value.sum().index))
print("total =", [round(x, 6) for x in g.value.sum()])
best = long.loc[g.value.idxmax()].sort_values("valueType")
print("bestMonth =", list(best.month))
growth = wide[regions].iloc[-1] / wide[regions].iloc[-2] - 1
print("lastGrowth (north south east west) =", [round(x, 12) for x in growth])
perm = rng.permutation(len(long))
sh = long.iloc[perm]
sh = sh[~((sh.valueType == "east") & (sh.month == wide.month[2])) & ~((sh.valueType == "west") & (sh.month == wide.month[5]))]
print("shMonth = [" + ", ".join(sh.month) + "]")
print("shRegion =", "[" + ", ".join('"' + x + '"' for x in sh.valueType) + "]")
print("shValue =", "[" + ", ".join(f"{x:.1f}" for x in sh.value) + "]")
pv = sh.pivot(index="month", columns="valueType", values="value").reindex(columns=regions + ["central"])
for c in pv.columns:
    print(f"panel_{c} =", "[" + ", ".join("NULL" if pd.isna(x) else f"{x:.1f}" for x in pv[c]) + "]")
