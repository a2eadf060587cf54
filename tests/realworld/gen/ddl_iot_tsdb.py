"""Expected values for tests/realworld/ddl_iot_tsdb.dos (pandas).

An IoT TSDB table with keepDuplicates=LAST on sortColumns (device, ts): three daily
batches, a re-sent part of day 2 with corrected temperatures, and one device that sends
two readings twice inside day 3's batch. Every row's values follow the formulas the
script uses to build its batches; pandas keeps the last row of each (device, ts).
"""
import pandas as pd
import numpy as np

devs = ["dev01", "dev02", "dev03", "dev04"]


def batch(d):
    rows = []
    for di, dev in enumerate(devs):
        for k in range(12):
            ts = pd.Timestamp(2026, 3, d, 8, 0) + pd.Timedelta(minutes=5 * k)
            temp = 20 + di * 1.5 + ((k * 7 + d * 5 + di * 3) % 13) * 0.25
            hum = 40 + (k * 3 + d + di) % 20
            rows.append((dev, ts, temp, hum))
    return pd.DataFrame(rows, columns=["device", "ts", "temp", "hum"])


b1, b2, b3 = batch(1), batch(2), batch(3)
resend = b2[b2.ts.dt.minute >= 30].copy()
resend["temp"] = resend["temp"] + 1.0
dup3 = b3[(b3.device == "dev03") & (b3.ts.dt.minute.isin([10, 20]))].copy()
dup3["temp"] = dup3["temp"] + 0.5
b3x = pd.concat([b3, dup3])

store = pd.DataFrame(columns=["device", "ts", "temp", "hum"])
counts = []
for b in [b1, b2, resend, b3x]:
    store = pd.concat([store, b]).drop_duplicates(["device", "ts"], keep="last")
    counts.append(len(store))
print("counts after each batch", counts)
store = store.sort_values(["device", "ts"]).reset_index(drop=True)
store["ts"] = pd.to_datetime(store["ts"])
store["temp"] = store["temp"].astype(float)
store["hum"] = store["hum"].astype(int)
day = store.ts.dt.day
print("day2 temp sum per device", [float(round(store[(day == 2) & (store.device == d)].temp.sum(), 6)) for d in devs])
print("day3 dev03 temp at 08:10, 08:20", store[(day == 3) & (store.device == "dev03") & store.ts.dt.minute.isin([10, 20])].temp.tolist())

# windows over day 2, per device ordered by ts
d2 = store[day == 2].copy()
def rng(g, col, before, after, fn):
    out = []
    for t in g.ts:
        w = g[(g.ts >= t - before) & (g.ts <= t + after)][col]
        out.append(fn(w))
    return out
dev2 = d2[d2.device == "dev02"]
a10 = rng(dev2, "temp", pd.Timedelta(minutes=10), pd.Timedelta(0), np.mean)
print("dev02 day2 avg temp range 10m preceding", [float(round(x, 10)) for x in a10])
mh = rng(dev2, "hum", pd.Timedelta(minutes=15), pd.Timedelta(minutes=5), np.max)
print("dev02 day2 max hum range 15m preceding .. 5m following", [int(x) for x in mh])
dev1_3 = store[(day == 3) & (store.device == "dev01")]
print("dev01 day3 sum hum rows 2 preceding", dev1_3.hum.rolling(3, min_periods=1).sum().astype(int).tolist())
# desc order: 10m preceding in descending ts = the next 10 minutes
a10d = rng(dev2, "temp", pd.Timedelta(0), pd.Timedelta(minutes=10), np.mean)
print("dev02 day2 avg temp desc range 10m preceding", [float(round(x, 10)) for x in a10d])
# FIRST table: batch 1 then the same rows with temp + 1: the first ones stay
print("first-table temp sum", round(b1.temp.sum(), 6), "rows", len(b1))
