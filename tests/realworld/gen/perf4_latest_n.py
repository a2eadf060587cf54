"""Expected values for tests/realworld/perf4_latest_n.dos (latest-n readings of a filtered
set from a date-partitioned database). Prints the CSV the script writes and the answers
pandas gives for `top n ... where ... order by ts desc` (a stable sort: among equal
timestamps the rows keep the order of the file)."""
import pandas as pd

rows = []
for day in range(1, 5):
    for hour in range(0, 24, 3):
        for dev in range(1, 5):
            k = day * 100 + hour * 4 + dev
            status = ["charging", "discharging", "full"][(day + hour // 3 + dev) % 3]
            temp = round(20 + (k * 37 % 150) / 10.0, 1)
            rows.append((f"2026.07.0{day}T{hour:02d}:30:00", f"dev0{dev}", status, temp))
df = pd.DataFrame(rows, columns=["ts", "device", "status", "temp"])
print("csv = \"" + "ts,device,status,temp\\n" + "".join(f"{a},{b},{c},{d}\\n" for a, b, c, d in rows) + "\"")


def top(mask, n):
    sub = df[mask].sort_values("ts", ascending=False, kind="stable").head(n)
    return sub


a = top(df.status == "charging", 5)
print("charging top5 ts:", list(a.ts), "device:", list(a.device), "temp:", list(a.temp))
b = top((df.status == "full") & (df.temp > 30), 12)
print("full&temp>30 top12 ts:", list(b.ts), "device:", list(b.device))
c = top(df.temp > 33.5, 100)
print("temp>33.5 top100 n:", len(c), "sum temp:", round(c.temp.sum(), 1), "last ts:", c.ts.iloc[-1])
