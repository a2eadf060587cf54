"""Expected values for tests/realworld/sem12_semantics.dos (run by hand: python3 this file).

A cash ledger in DECIMAL(2) cents: rolling sums, highs/lows and averages over a 3-row window
(pandas rolling on exact Decimal values), and the ascending/descending order of a price
column holding NULL (None), -inf, NaN and +inf under the manual's rule (NULL is the smallest
value except that -inf is below it: progr/data_mani/sort_null.md; NaN last, as numpy).
"""
from decimal import Decimal as D
import math

amt = [D("12.50"), D("-3.25"), D("7.10"), None, D("20.00"), D("-1.05")]
w = 3
def window(i):
    return [x for x in amt[max(0, i - w + 1): i + 1] if x is not None]
msum = [None if i < w - 1 else (sum(window(i)) if window(i) else None) for i in range(len(amt))]
mmax = [None if i < w - 1 else (max(window(i)) if window(i) else None) for i in range(len(amt))]
mmin = [None if i < w - 1 else (min(window(i)) if window(i) else None) for i in range(len(amt))]
mavg = [None if i < w - 1 else (float(sum(window(i))) / len(window(i)) if window(i) else None) for i in range(len(amt))]
cmax = []
best = None
for x in amt:
    if x is not None:
        best = x if best is None else max(best, x)
    cmax.append(None if x is None and best is None else best)
print("msum", msum)
print("mmax", mmax)
print("mmin", mmin)
print("mavg", [None if v is None else round(v, 9) for v in mavg])
print("cummax", cmax)

# order of prices with NULL, -inf, NaN, inf
px = [3.0, None, -math.inf, math.nan, math.inf, 1.0]
def key(i):
    v = px[i]
    if v is None:
        return (1, 0.0)
    if v == -math.inf:
        return (0, 0.0)
    if math.isnan(v):
        return (3, 0.0)
    return (2, v)
asc = sorted(range(len(px)), key=key)
desc = sorted(range(len(px)), key=key, reverse=True)
print("isort asc", asc)
print("isort desc", desc)
