"""Expected values for tests/realworld/arr12_typed_arrays.dos (pandas + Python's decimal,
independent of Beluga).

Fills of three trading desks: per fill a row of fee legs as DECIMAL64(2) (exact money),
the times of the partial executions as TIMESTAMP[] and the child-order sizes as LONG[].
Per fill: total fee (exact), largest leg, mean leg (DOUBLE), number of legs, first and
last execution time, span in milliseconds, total size. Per desk (group by): fee total.
Run: python3 arr12_typed_arrays.py and paste the printed lines into the script.
"""
from decimal import Decimal
import numpy as np
import pandas as pd

rng = np.random.default_rng(77)
desks = ["eq", "fx", "rates"]
rows = []
t0 = pd.Timestamp("2026-03-02 09:30:00")
for i in range(9):
    n = int(rng.integers(1, 4))
    fees = [Decimal(int(x)) / 100 for x in rng.integers(5, 900, n)]
    m = int(rng.integers(1, 5))
    offs = sorted(int(x) for x in rng.integers(0, 60000, m))
    ts = [t0 + pd.Timedelta(minutes=7 * i, milliseconds=o) for o in offs]
    sizes = [int(x) * 100 for x in rng.integers(1, 40, m)]
    rows.append(dict(desk=desks[i % 3], fees=fees, ts=ts, sizes=sizes))
df = pd.DataFrame(rows)


def ts_text(t):
    return t.strftime("%Y.%m.%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}"


def ends(col):
    return " ".join(str(x) for x in np.cumsum([len(r) for r in col]))


print("desk = `" + "`".join(df.desk))
print("fees = arrayVector(" + ends(df.fees) + ", decimal64([" + ",".join('"%s"' % f for r in df.fees for f in r) + "], 2))")
print("ts = arrayVector(" + ends(df.ts) + ", [" + ",".join(ts_text(t) for r in df.ts for t in r) + "])")
print("sizes = arrayVector(" + ends(df.sizes) + ", " + " ".join(str(s) + "l" for r in df.sizes for s in r) + ")")
print("feeSum:", "[" + ",".join(str(sum(r)) for r in df.fees) + "]")
print("feeMax:", "[" + ",".join(str(max(r)) for r in df.fees) + "]")
print("feeAvg:", "[" + ",".join(repr(float(sum(r)) / len(r)) for r in df.fees) + "]")
print("legs:", "[" + ",".join(str(len(r)) for r in df.fees) + "]")
print("first:", "[" + ",".join(ts_text(r[0]) for r in df.ts) + "]")
print("last:", "[" + ",".join(ts_text(r[-1]) for r in df.ts) + "]")
print("spanMs:", "[" + ",".join(str(int((r[-1] - r[0]) / pd.Timedelta(milliseconds=1))) for r in df.ts) + "]")
print("sizeSum:", "[" + ",".join(str(sum(r)) for r in df.sizes) + "]")
g = df.assign(fs=[sum(r) for r in df.fees]).groupby("desk")["fs"].apply(lambda s: sum(s, Decimal(0)))
print("deskFee:", list(g.index), "[" + ",".join(str(x) for x in g) + "]")
