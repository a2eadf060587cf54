"""Expected values of tests/realworld/imp24_wifi_symbols.dos (run by hand: python3 imp24_wifi_symbols.py).

Wi-Fi scan log: 6,000 rows, 300 devices reporting every 4 hours (time-sorted), BSSIDs and
SSIDs that share their first 16 bytes and differ only after them or in length.
"""
import pandas as pd

BSS = ["01:02:03:04:05:06", "01:02:03:04:05:07", "A0:B1:C5:D2:E0:F3", "01:02:03:04:05:0", "01:02:03:04:05:06:7"]
SS = ["corporate-guest-network", "corporate-guest-net", "corporate-guest-networks", "demo-net"]
rows = []
for i in range(6000):
    rows.append(dict(
        t=pd.Timestamp("2026-06-01 00:00:00") + pd.Timedelta(seconds=(i // 300) * 14400),
        device="dev" + str(i % 300),
        bssid=BSS[(i * 7) % 5],
        ssid=SS[(i * 3 + i // 300) % 4],
        rssi=-(30 + (i * 13) % 60),
    ))
df = pd.DataFrame(rows)
g = df.groupby("bssid").agg(n=("rssi", "size"), s=("rssi", "sum")).sort_index()
print("bssid", list(g.index), list(g.n), list(g.s))
g = df.groupby("ssid").agg(n=("rssi", "size"), lo=("rssi", "min")).sort_index()
print("ssid", list(g.index), list(g.n), list(g.lo))
g = df.groupby(df.t.dt.date).agg(n=("rssi", "size"), d=("device", "nunique")).sort_index()
print("day", [str(x) for x in g.index], list(g.n), list(g.d))
x = df[(df.ssid == "corporate-guest-net") & (df.bssid == "01:02:03:04:05:0")]
print("pair", len(x), x.rssi.sum(), x.device.nunique())
