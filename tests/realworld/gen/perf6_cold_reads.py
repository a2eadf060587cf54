"""Expected values of tests/realworld/perf6_cold_reads.dos, computed with numpy from the
same formulas the script uses to build its table (not from Beluga's output).

Rows k = 0..86399, three days of 28,800 rows (one every 3 s): ts = 2026.04.01T00:00:00 +
3k s; i = k % 28800 (row of the day); level = i, NULL when day 1 (the second day) and
i >= 26000 and i % 7 == 0; temp = (k * 13 % 2000) - 1000; big = (k * k % 1000003) * 1000;
val = (k * 7919 % 100003) / 100.

NULL compares below every value (DolphinDB: a NULL operand of < or <= gives true against a
non-null value; Beluga's in-memory `[1, NULL, 3] < 2` is [true, true, false]), so the
counts of `level < c` include the NULL rows.
"""
import numpy as np

n = 86400
k = np.arange(n, dtype=np.int64)
day = k // 28800
i = k % 28800
null = (day == 1) & (i >= 26000) & (i % 7 == 0)
level = i.astype(float)
level[null] = np.nan
temp = (k * 13 % 2000) - 1000
big = (k * k % 1000003) * 1000
val = (k * 7919 % 100003) / 100.0

def lt(c, le=False):
    ok = (level <= c) if le else (level < c)
    return int((ok | null).sum())

print("nulls", int(null.sum()))
print("level < 100", lt(100), "level <= 26000", lt(26000, True), "level < 0", lt(0))
sel = (level < 100) | null
print("sum val of level < 100", repr(round(val[sel].sum(), 6)))
print("sum val", repr(round(val.sum(), 6)), "sum big", int(big.sum()), "sum temp", int(temp.sum()))
print("min temp", int(temp.min()), "max big", int(big.max()))
# 30-minute window of the third day: 10:00:00 .. 10:30:00 inclusive
t0 = 2 * 86400 + 10 * 3600
w = (3 * k >= t0) & (3 * k <= t0 + 1800)
print("window rows", int(w.sum()), "sum val", repr(round(val[w].sum(), 6)), "sum big", int(big[w].sum()))
print("level >= 28790 count", int((level >= 28790).sum()))
