"""Expected values for tests/realworld/corpus_iot_db.dos (pandas, independent of Beluga).

Three days of sensor readings (3 devices, one reading every 4 hours, one missing
temperature on day 2) written as one CSV file per day, imported day after day into a
date-partitioned database. Expected per (device, day): mean temperature (missing skipped),
max humidity, reading count; per device over all days: mean temp; readings above 25.0
degrees; the count after each import.
Run: python3 corpus_iot_db.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(21)
rows = []
for d in range(3):
    for h in range(0, 24, 4):
        for dev, base in (("dev01", 21.0), ("dev02", 24.0), ("dev03", 19.0)):
            temp = round(base + 3 * np.sin(h / 24 * 2 * np.pi) + rng.normal(0, 0.8), 1)
            hum = int(rng.integers(35, 70))
            rows.append((f"2026.06.0{d + 1}T{h:02d}:15:00", dev, temp, hum, d))
df = pd.DataFrame(rows, columns=["ts", "device", "temp", "hum", "day"])
df.loc[(df.day == 1) & (df.device == "dev02") & (df.ts.str.contains("T08")), "temp"] = np.nan

for d in range(3):
    part = df[df.day == d]
    lines = ["ts,device,temp,hum"] + [f"{r.ts},{r.device},{'' if pd.isna(r.temp) else r.temp},{r.hum}" for r in part.itertuples()]
    print(f'day{d + 1} = "' + "\\n".join(lines) + '\\n"')
g = df.groupby(["device", "day"])
s = pd.DataFrame({"avgT": g.temp.mean(), "maxH": g.hum.max(), "n": g.size()}).reset_index().sort_values(["device", "day"])
print("avgT =", [round(x, 10) for x in s.avgT])
print("maxH =", list(s.maxH))
print("n =", list(s.n))
print("devAvg =", [round(x, 10) for x in df.groupby("device").temp.mean()])
hot = df[df.temp > 25.0].sort_values("ts")
print("hot =", list(zip(hot.ts, hot.device, hot.temp)))
print("after day1/day2 counts:", (df.day == 0).sum(), (df.day <= 1).sum())
print("day2 count nonnull temp:", df[df.day == 1].temp.count())
