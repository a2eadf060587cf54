"""Expected values for tests/realworld/stream12_iot_pipeline.dos and stream12_tick_factor.dos.

IoT: six sensors report in rounds 15 s apart (a random subset per round, random order).
pandas computes, per device, what the reactive state engine must give (rolling mean/std
z-score over 4 readings, ema(4) as funcs/e/ema.md defines it: the first window-1 values
NULL, then the mean of the first 4, then alpha = 2/(n+1) recursion; diff; cumulative
humidity), the cross-section after each round (latest reading per device: mean, max,
count, count above 24.5), and the first over-threshold reading per device (what a keyed
stream table keeps, funcs/k/keyedStreamTable.md).

Ticks: eight stocks in two sectors, 30 snapshots 3 s apart. Per stock: 5-snapshot
momentum (sum of simple returns), 5-snapshot return volatility (both over the last 5
rows, NULL for the first 4 rows as DolphinDB's m-functions), emaGap =
ema(price, 5) / mean of the last 10 prices - 1. Per snapshot and sector, over the stocks
whose emaGap is defined: rank (0-based, ties 'min' as DolphinDB's rank), emaGap minus the
sector mean, and the sector mean.
Run: python3 tests/realworld/gen/stream12_gen.py
"""
import numpy as np
import pandas as pd


def vec(xs, fmt=lambda x: repr(round(float(x), 10))):
    out = []
    for x in xs:
        if isinstance(x, float) and np.isnan(x):
            out.append("NULL")
        else:
            out.append(fmt(x))
    return "[" + ", ".join(out) + "]"


def ema(xs, n):
    out = [np.nan] * len(xs)
    if len(xs) < n:
        return out
    e = float(np.mean(xs[:n]))
    out[n - 1] = e
    a = 2.0 / (n + 1)
    for k in range(n, len(xs)):
        e = a * xs[k] + (1 - a) * e
        out[k] = e
    return out


# ------------------------------------------------------------------ IoT
rng = np.random.default_rng(120601)
devs = ["d1", "d2", "d3", "d4", "d5", "d6"]
offset = {"d1": 0.0, "d2": 1.5, "d3": -1.0, "d4": 2.5, "d5": 0.5, "d6": 3.0}
rows = []
for k in range(40):
    m = int(rng.integers(2, 7))
    who = list(rng.permutation(devs)[:m])
    for d in who:
        temp = round(21.0 + offset[d] + float(rng.normal(0, 0.8)), 2)
        hum = int(rng.integers(30, 71))
        rows.append((k, d, k * 15000, temp, hum))
iot = pd.DataFrame(rows, columns=["rnd", "device", "off", "temp", "hum"])
print("// IoT:", len(iot), "readings")
print("iotRound =", vec(iot.rnd, str))
print("iotDevice =", "`" + "`".join(iot.device))
print("iotOff =", vec(iot.off, str))
print("iotTemp =", vec(iot.temp, lambda x: f"{x:.2f}"))
print("iotHum =", vec(iot.hum, str))

z = pd.Series(np.nan, index=iot.index)
sm = pd.Series(np.nan, index=iot.index)
dl = pd.Series(np.nan, index=iot.index)
ch = pd.Series(np.nan, index=iot.index)
for d, g in iot.groupby("device"):
    t = g.temp
    z[g.index] = (t - t.rolling(4).mean()) / t.rolling(4).std()
    sm[g.index] = ema(list(t), 4)
    dl[g.index] = t.diff()
    ch[g.index] = g.hum.cumsum().astype(float)
print("expZ =", vec(z))
print("expSmooth =", vec(sm))
print("expDelta =", vec(dl))
print("expCumHum =", vec(ch))
jump = [(0 if np.isnan(x) else (1 if abs(x) > 1.0 else 0)) for x in dl]
print("expJump =", vec(jump, str))

latest = {}
f_avg, f_max, f_cnt, f_hot, f_off = [], [], [], [], []
for k in range(40):
    g = iot[iot.rnd == k]
    for _, r in g.iterrows():
        latest[r.device] = r.temp
    v = np.array(list(latest.values()))
    f_avg.append(v.mean())
    f_max.append(v.max())
    f_cnt.append(len(v))
    f_hot.append(int((v > 24.5).sum()))
    f_off.append(int(g.off.iloc[-1]))
print("expFleetOff =", vec(f_off, str))
print("expFleetAvg =", vec(f_avg))
print("expFleetMax =", vec(f_max))
print("expFleetCount =", vec(f_cnt, str))
print("expFleetHot =", vec(f_hot, str))
last = iot.groupby("device").tail(1).sort_values("device")
print("expLatestDevice =", "`" + "`".join(last.device))
print("expLatestTemp =", vec(last.temp, lambda x: f"{x:.2f}"))
print("expLatestOff =", vec(last.off, str))
hot = iot[iot.temp > 24.5].groupby("device").head(1)
print("// first alarm per device, in arrival order")
print("expAlarmDevice =", "`" + "`".join(hot.device))
print("expAlarmOff =", vec(hot.off, str))
print("expAlarmTemp =", vec(hot.temp, lambda x: f"{x:.2f}"))

# 30-second windows per device (time-series engine, funcs/c/createTimeSeriesEngine.md):
# windows [30m, 30(m+1)) seconds from 08:00 (the first reading, aligned to 30 s); a
# device's window is output once a later reading of it arrives; empty windows after the
# device's first window are filled: avg carried forward ('ffill'), max NULL ('null').
# Output time is the window start (useWindowStartTime=true). Sorted by device, time.
ts_rows = []
for d, g in iot.groupby("device"):
    w = g.off // 30000
    prev_avg = None
    for m in range(int(w.min()), int(w.max())):
        h = g[w == m]
        if len(h):
            prev_avg = h.temp.mean()
            ts_rows.append((d, m * 30000, prev_avg, h.temp.max()))
        else:
            ts_rows.append((d, m * 30000, prev_avg, np.nan))
tsd = pd.DataFrame(ts_rows, columns=["device", "off", "avg", "max"])
print("expMinDevice =", "`" + "`".join(tsd.device))
print("expMinOff =", vec(tsd.off, str))
print("expMinAvg =", vec(tsd["avg"]))
print("expMinMax =", vec(tsd["max"]))

# ------------------------------------------------------------------ ticks
rng = np.random.default_rng(20241202)
syms = ["S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8"]
sector = {"S1": "tech", "S2": "tech", "S3": "bank", "S4": "tech", "S5": "bank", "S6": "bank", "S7": "tech", "S8": "bank"}
start = {s: 10.0 + 5 * j for j, s in enumerate(syms)}
rows = []
px = dict(start)
for k in range(30):
    for s in rng.permutation(syms):
        px[s] = round(px[s] * (1 + float(rng.normal(0, 0.004))), 2)
        rows.append((k, s, sector[s], k * 3000, px[s]))
tk = pd.DataFrame(rows, columns=["snap", "sym", "sector", "off", "price"])
print("// ticks:", len(tk))
print("tkSym =", "`" + "`".join(tk.sym))
print("tkSector =", "`" + "`".join(tk.sector))
print("tkOff =", vec(tk.off, str))
print("tkPrice =", vec(tk.price, lambda x: f"{x:.2f}"))
mom = pd.Series(np.nan, index=tk.index)
vol = pd.Series(np.nan, index=tk.index)
gap = pd.Series(np.nan, index=tk.index)
for s, g in tk.groupby("sym"):
    p = g.price
    r = p / p.shift(1) - 1
    # DolphinDB's m-functions count rows, not non-null values: the first window-1 rows
    # are NULL, later windows use the non-null values they hold (funcs/m/msum.md: msum of
    # 2 1 3 NULL 6 5 4 over 3 is [,,6,4,9,11,15]); the first return is NULL
    first = pd.Series(range(len(p)), index=g.index) < 4
    mom[g.index] = r.rolling(5, min_periods=1).sum().mask(first)
    vol[g.index] = r.rolling(5, min_periods=2).std().mask(first)
    gap[g.index] = pd.Series(ema(list(p), 5), index=g.index) / p.rolling(10).mean() - 1
print("expMom =", vec(mom))
print("expVol =", vec(vol))
print("expGap =", vec(gap))
tk["gap"] = gap
# cross-section per snapshot: latest row per stock (all stocks report every snapshot)
out = []
for k in range(30):
    g = tk[tk.snap == k]
    g = g[~g.gap.isna()]
    for sec, h in g.groupby("sector"):
        rk = h.gap.rank(method="min") - 1
        mean = h.gap.mean()
        for idx in h.index:
            out.append((k * 3000, h.sym[idx], sec, int(rk[idx]), h.gap[idx] - mean, mean))
xs = pd.DataFrame(out, columns=["off", "sym", "sector", "rk", "dm", "mean"]).sort_values(["off", "sym"])
print("// cross-section outputs sorted by time, sym:", len(xs))
print("expXsOff =", vec(xs.off, str))
print("expXsSym =", "`" + "`".join(xs.sym))
print("expXsRank =", vec(xs.rk, str))
print("expXsDemean =", vec(xs.dm))
print("expXsMean =", vec(xs["mean"]))
