"""Expected values of tests/realworld/store14_backup_restore.dos (pandas, run by hand).

The table: n = 10000 rows, ID = row % 100, date = the five days 2017.08.07..11 in blocks
of 2000 rows (take(dates, n).sort()), x = row / 10; partitioned by VALUE(date) x
RANGE(ID: 0 50 100), i.e. ten partitions.
"""
import numpy as np
import pandas as pd

n = 10000
r = np.arange(n)
days = pd.to_datetime(["2017-08-07", "2017-08-08", "2017-08-09", "2017-08-10", "2017-08-11"])
t = pd.DataFrame({"ID": r % 100, "date": np.repeat(days, n // 5), "x": r / 10})
t["rng"] = np.where(t.ID < 50, "0_50", "50_100")
parts = t.groupby([t.date.dt.strftime("%Y%m%d"), "rng"]).agg(rows=("x", "size"), sx=("x", "sum"))
print("partitions:", len(parts))
print("partitions with date > 2017.08.10:", len(parts.loc[["20170811"]]))
print("sum x:", t.x.sum())
late = t[(t.date == days[4]) & (t.ID < 50)]
print("rows / sum x of 20170811/0_50:", len(late), late.x.sum())
mid = t[(t.date == days[2]) & (t.ID < 50)]
print("rows / sum x of 20170809/0_50:", len(mid), mid.x.sum())
print("sum x after x+1 in 20170809/0_50:", t.x.sum() + len(mid))
print("sum x of date 2017.08.10:", t[t.date == days[3]].x.sum())
