"""Expected values for tests/realworld/store13_iot_daily.dos (pandas).

Hourly sensor readings per (date, device) in a database partitioned by date, imported one
day at a time: each day's partition is added with addValuePartitions before its import,
then a correction batch is upserted on (date, device, ts) with ignoreNull=true, and the
humidity column changes type from INT to DOUBLE. Every row follows the script's formulas.
"""
import numpy as np
import pandas as pd


def day(d):
    rows = []
    for k in range(4):
        for h in range(6):
            rows.append((pd.Timestamp(2024, 5, 1 + d), "D%d" % (k + 1), pd.Timestamp(2024, 5, 1 + d, h),
                         20 + ((d * 24 + k * 6 + h) * 7 % 13) * 0.5, 40 + (d * 5 + k * 3 + h) % 9))
    return pd.DataFrame(rows, columns=["date", "device", "ts", "temp", "hum"])


base = pd.concat([day(d) for d in range(3)], ignore_index=True)
print("initial rows", len(base), "sum temp %.4f" % base.temp.sum(), "sum hum", int(base.hum.sum()))
full = pd.concat([base, day(3)], ignore_index=True)
print("after day 4 rows", len(full), "sum temp %.4f" % full.temp.sum())
sel = full[(full.date >= "2024-05-02") & (full.date <= "2024-05-03")]
print("loadTableBySQL 05.02-05.03 rows", len(sel), "sum temp %.4f" % sel.temp.sum())
d2 = full[(full.date == "2024-05-02") & (full.device == "D3")]
print("05.02 D3 temps", d2.temp.tolist())

corr = pd.DataFrame([
    (pd.Timestamp(2024, 5, 2), "D2", pd.Timestamp(2024, 5, 2, 0), 99.5, np.nan),
    (pd.Timestamp(2024, 5, 2), "D2", pd.Timestamp(2024, 5, 2, 1), 99.0, np.nan),
    (pd.Timestamp(2024, 5, 2), "D2", pd.Timestamp(2024, 5, 2, 2), 98.5, np.nan),
    (pd.Timestamp(2024, 5, 4), "D5", pd.Timestamp(2024, 5, 4, 0), 30.0, 50),
    (pd.Timestamp(2024, 5, 4), "D5", pd.Timestamp(2024, 5, 4, 1), 31.0, 51),
    (pd.Timestamp(2024, 5, 5), "D1", pd.Timestamp(2024, 5, 5, 0), 25.0, 45),
], columns=["date", "device", "ts", "temp", "hum"])
key = ["date", "device", "ts"]
m = full.merge(corr, on=key, how="left", suffixes=("", "_n"))
m["temp"] = m.temp_n.fillna(m.temp)
m["hum"] = m.hum_n.fillna(m.hum)
m = m[key + ["temp", "hum"]]
new = corr.merge(full[key], on=key, how="left", indicator=True)
new = new[new._merge == "left_only"][key + ["temp", "hum"]]
res = pd.concat([m, new], ignore_index=True)
print("after upsert rows", len(res), "sum temp %.4f" % res.temp.sum(), "sum hum %.1f" % res.hum.sum())
print("D2 05.02 temps", res[(res.date == "2024-05-02") & (res.device == "D2")].sort_values("ts").temp.tolist())
print("D2 05.02 hums", res[(res.date == "2024-05-02") & (res.device == "D2")].sort_values("ts").hum.tolist())
print("rows per date", res.groupby("date").size().tolist())
print("avg temp per date", [round(x, 10) for x in res.groupby("date").temp.mean().tolist()])

# tableUpsert on (date, device, ts): D1 at 05.05 00:00 exists (updated), D2 at 01:00 is new
res2 = res.copy()
hum = res2.hum.astype(float)
mask = (res2.date == "2024-05-05") & (res2.device == "D1") & (res2.ts == pd.Timestamp(2024, 5, 5, 0))
res2.loc[mask, "temp"] = 26.0
res2.loc[mask, "hum"] = 45.0
res2 = pd.concat([res2, pd.DataFrame([(pd.Timestamp(2024, 5, 5), "D2", pd.Timestamp(2024, 5, 5, 1), 27.0, 46.0)], columns=res2.columns)], ignore_index=True)
print("tableUpsert inserted 1 updated", int(mask.sum()), "rows", len(res2), "sum temp %.4f" % res2.temp.sum(), "sum hum %.1f" % res2.hum.astype(float).sum())
