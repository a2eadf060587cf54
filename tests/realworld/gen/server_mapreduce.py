"""Expected values for server_mapreduce.dos: 12 rows over three daily partitions,
qty = 1..12, px = qty * 0.5, y = 2 + 3*qty - 0.5*px^2 + e with e a fixed pattern."""
import numpy as np

qty = np.arange(1, 13, dtype=float)
px = qty * 0.5
e = np.array([0.1, -0.2, 0.05, 0.0, -0.1, 0.2, 0.15, -0.05, 0.0, 0.1, -0.15, 0.05])
y = 2 + 3 * qty - 0.5 * px ** 2 + e
m = qty > 2
print("notional(qty>2)", float((qty[m] * px[m]).sum()))
print("rows(qty>2)", int(m.sum()))
X = np.column_stack([np.ones(12), qty, px ** 2])
beta = np.linalg.lstsq(X, y, rcond=None)[0]
print("ols", [round(b, 10) for b in beta])
print("y", [round(v, 10) for v in y])
