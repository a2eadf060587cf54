"""Expected values for tests/realworld/numeric3_drift.dos: moving statistics of drifting
series, computed exactly. Each window's statistic is computed with Python Fractions over
the stored doubles (so the reference has no rounding error of its own), rounded once to a
double; pandas rolling is printed next to it as a cross-check (the script asserts the exact
reference to 1e-12 relative). Run by hand: python3 numeric3_drift.py; paste its output.

Series:
  big   1e9 plus a cumulative walk of small noise (a sensor counter or a price index in
        raw units): the squares of the values are 1e18, the variance about 1e-4.
  px    a price around 100.01 with long runs of repeats (ticks of 0.01), the usual
        input of a rolling volatility on quotes.
  lin   2 * big - 7 (exactly linear in big: correlation exactly 1)
  neg   5e8 - big / 2 (exactly linear with negative slope: correlation exactly -1)
  ts    trade times with gaps (seconds) for the time-based tm* windows.
"""
from fractions import Fraction as F
import math
import numpy as np
import pandas as pd

rng = np.random.default_rng(424242)
N = 40
big = 1e9 + np.cumsum(np.round(rng.normal(0, 0.01, N), 4))
ticks = rng.choice([0, 0, 0, 0, 1, -1], N)
px = np.round(100.01 + np.cumsum(ticks) * 0.01, 2)
px[12:24] = 100.01  # a long flat run
lin = 2 * big - 7
neg = 5e8 - big / 2
ts = np.cumsum(rng.choice([1, 1, 2, 3, 7], N))
W = 8


def ddb(v):
    return "[" + ", ".join("NULL" if (x is None or (isinstance(x, float) and math.isnan(x))) else repr(float(x)) for x in v) + "]"


def fr(x):
    return F(float(x))


def moments(w):
    n = len(w)
    m = sum(w, F(0)) / n
    d = [x - m for x in w]
    return n, m, sum(x * x for x in d), sum(x ** 3 for x in d), sum(x ** 4 for x in d)


def stat(w, kind):
    w = [fr(x) for x in w]
    n, m, s2, s3, s4 = moments(w)
    if kind == "avg":
        return float(m)
    if kind == "sum":
        return float(sum(w, F(0)))
    if kind == "var":
        return float(s2 / (n - 1))
    if kind == "varp":
        return float(s2 / n)
    if kind == "std":
        return math.sqrt(s2 / (n - 1)) if s2 else 0.0
    if kind == "stdp":
        return math.sqrt(s2 / n) if s2 else 0.0
    if kind == "skew":  # biased (DolphinDB mskew default biased=true): m3 / m2^1.5
        if s2 == 0:
            return None
        m2, m3 = s2 / n, s3 / n
        return float(m3) / float(m2) ** 1.5
    if kind == "kurt":  # biased, not excess (DolphinDB mkurtosis): m4 / m2^2
        if s2 == 0:
            return None
        m2, m4 = s2 / n, s4 / n
        return float(m4 / (m2 * m2))


def pair(x, y, kind):
    x = [fr(v) for v in x]
    y = [fr(v) for v in y]
    n = len(x)
    mx, my = sum(x, F(0)) / n, sum(y, F(0)) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if kind == "covar":
        return float(sxy / (n - 1))
    if kind == "corr":
        if sxx == 0 or syy == 0:
            return None
        # exact when the ratio is a perfect square (linear series)
        r2 = sxy * sxy / (sxx * syy)
        r = math.sqrt(r2) if r2 != 1 else 1.0
        return math.copysign(r, float(sxy))
    if kind == "beta":  # mbeta(Y, X): cov(Y, X) / var(X); here x is Y, y is X
        if syy == 0:
            return None
        return float(sxy / syy)
    if kind == "wavg":  # mwavg(X, Y): sum(x*y) / sum(y)
        return float(sum(a * b for a, b in zip(x, y)) / sum(y, F(0)))


def rolling(x, kind, w=W):
    return [None if i + 1 < w else stat(x[i + 1 - w:i + 1], kind) for i in range(len(x))]


def rolling2(x, y, kind, w=W):
    return [None if i + 1 < w else pair(x[i + 1 - w:i + 1], y[i + 1 - w:i + 1], kind) for i in range(len(x))]


def trolling(t, x, kind, w):
    # window (t - w, t] of a time column; minPeriods 1
    out = []
    for i in range(len(x)):
        idx = [j for j in range(i + 1) if t[j] > t[i] - w]
        vals = [x[j] for j in idx]
        out.append(stat(vals, kind) if len(vals) >= 2 or kind in ("avg", "sum") else None)
    return out


def trolling2(t, x, y, kind, w):
    out = []
    for i in range(len(x)):
        idx = [j for j in range(i + 1) if t[j] > t[i] - w]
        out.append(pair([x[j] for j in idx], [y[j] for j in idx], kind) if len(idx) >= 2 else None)
    return out


print("big =", ddb(big))
print("px =", ddb(px))
print("ts =", "[" + ", ".join(str(int(t)) for t in ts) + "]")
for name, x in (("big", big), ("px", px)):
    for k in ("avg", "sum", "std", "var", "stdp", "varp", "skew", "kurt"):
        print(f"{name}_{k} =", ddb(rolling(list(x), k)))
print("cov_big_px =", ddb(rolling2(list(big), list(px), "covar")))
print("corr_big_px =", ddb(rolling2(list(big), list(px), "corr")))
print("beta_px_big =", ddb(rolling2(list(px), list(big), "beta")))
print("wavg_big_px =", ddb(rolling2(list(big), list(px), "wavg")))
print("tstd_big =", ddb(trolling(ts, list(big), "std", 10)))
print("tvar_px =", ddb(trolling(ts, list(px), "var", 10)))
print("tcorr_big_px =", ddb(trolling2(ts, list(big), list(px), "corr", 10)))
# cross-check: pandas rolling (not exact on these inputs; printed for the record)
s = pd.Series(big)
ref = np.array([np.nan if v is None else v for v in rolling(list(big), "std")])
pd_std = s.rolling(W).std().to_numpy()
print("# max rel diff exact vs pandas rolling std(big):", np.nanmax(np.abs(pd_std - ref) / np.abs(ref)))
ref = np.array([np.nan if v is None else v for v in rolling2(list(big), list(px), "corr")])
pd_c = s.rolling(W).corr(pd.Series(px)).to_numpy()
print("# max abs diff exact vs pandas rolling corr(big, px):", np.nanmax(np.abs(pd_c - ref)))
