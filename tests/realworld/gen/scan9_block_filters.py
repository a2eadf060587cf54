"""Expected values of tests/realworld/scan9_block_filters.dos (pandas/numpy).

The table is generated here from the same integer formulas as the script; the queries
are computed with pandas (filters, groups) and numpy (a stable sort for top-n: ties in
time keep table order)."""
import numpy as np
import pandas as pd

n = 90000
k = np.arange(n, dtype=np.int64)
base = np.datetime64("2026-05-01T00:00:00")
ts = base + ((k // 2) * 3).astype("timedelta64[s]")
device = np.array(["d" + str(x) for x in k % 7])
charging = ((k // 20000) % 3 == 1) | (k % 997 == 0)
status = np.where(charging, "charging", np.where(k % 2 == 0, "full", "discharging"))
level = ((k * 7919) % 101).astype(float)
level[k % 53 == 0] = np.nan  # NULL
cpu = ((k * 9973) % 1000) / 10.0
memf = (k * 31) % 100000
memu = (k * 17) % 50000
val = (k % 1000) / 8.0
df = pd.DataFrame(dict(k=k, ts=ts, device=device, status=status, level=level, cpu=cpu, memf=memf, memu=memu, val=val))

print("rows per day", df.groupby(df.ts.dt.date).size().tolist())

c = df[df.status == "charging"]
print("Q1 count", len(c), "sum val", c.val.sum(), "min ts", c.ts.min(), "max ts", c.ts.max())

q2 = df[(df.status == "charging") & (df.level >= 90)]
print("Q2 count", len(q2), "sum mem", (q2.memf + q2.memu).sum())

q3 = df[(df.ts <= np.datetime64("2026-05-02T12:00:00")) & (df.level >= 90) & (df.cpu > 90)]
g = q3.assign(h=q3.ts.dt.hour, m=q3.memf + q3.memu, d=q3.ts.dt.date).groupby(["h", "device"]).agg(d=("d", "max"), m=("m", "max"))
print("Q3 rows", len(q3), "groups", len(g), "sum m", g.m.sum(), "h=7 d5", g.loc[(7, "d5")].tolist() if (7, "d5") in g.index else None)
print("Q3 max d count", (g.d == pd.Timestamp("2026-05-02").date()).sum())

print("Q4 level>=95", int((df.level >= 95).sum()), "level>=0", int((df.level >= 0).sum()), "nulls", int(df.level.isna().sum()))

q5 = df[(df.device == "d3") & (df.status == "charging") & (df.cpu > 99)]
print("Q5", len(q5), q5.k.tolist()[:8], "cpu", q5.cpu.tolist()[:8])

print("Q6", int(((df.status == "charging") & (df.level >= 101)).sum()))


def top(frame, m, desc):
    key = frame.ts.values.astype("datetime64[s]").astype(np.int64)
    order = np.lexsort((frame.k.values, -key if desc else key))
    return frame.iloc[order[:m]]


t7 = top(c, 5, True)
print("Q7 k", t7.k.tolist(), "ts", [str(x) for x in t7.ts], "dev", t7.device.tolist(), "val", t7.val.tolist())
t10 = top(c, 3, True)
print("Q10 k", t10.k.tolist(), "dev", t10.device.tolist())
s8 = df[(df.status == "charging") & (df.device == "d2") & (df.level >= 50)]
t8 = top(s8, 9, True)
print("Q8 k", t8.k.tolist(), "ts", [str(x) for x in t8.ts], "level", t8.level.tolist())
t9 = top(c, 6, False)
print("Q9 k", t9.k.tolist(), "ts", [str(x) for x in t9.ts], "dev", t9.device.tolist())
# top over the whole table by time, no filter, and a filter keeping every row of its blocks
t11 = top(df, 4, True)
print("Q11 k", t11.k.tolist(), "status", t11.status.tolist())
w = df[(df.status == "charging") & (df.ts >= np.datetime64("2026-05-01T05:00:00")) & (df.ts < np.datetime64("2026-05-01T09:00:00"))]
print("Q12 count", len(w), "sum memf", int(w.memf.sum()), "first k", w.k.tolist()[:3], "last k", w.k.tolist()[-3:])
# a LONG key with NULLs (every k % 1000 == 999): NULL is the smallest value, so it comes
# last in descending order and first in ascending order
seq = np.where(k % 1000 == 999, np.iinfo(np.int64).min, k * 10)
df["seq"] = seq
c = df[df.status == "charging"]
o = np.lexsort((c.k.values, -c.seq.values.astype(np.float64)))[:4]
print("Q13 k", c.k.values[o].tolist())
o = np.lexsort((c.k.values, c.seq.values.astype(np.float64)))[:3]
print("Q14 k", c.k.values[o].tolist())
q15 = df[df.device.isin(["d1", "d4"]) & (df.status == "charging")]
print("Q15 count", len(q15), "sum val", q15.val.sum())
q16 = df[df.level.isin(list(range(0, 300, 3))) & (df.status == "charging")]
print("Q16 count", len(q16), "sum memu", int(q16.memu.sum()))
q17 = df[df.level.isin(list(range(-500, 300, 2))) & (df.status == "charging")]
print("Q17 count", len(q17), "sum memu", int(q17.memu.sum()))
