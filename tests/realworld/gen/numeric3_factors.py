"""Expected values for tests/realworld/numeric3_factors.dos: a cross-sectional factor library
on a dates x securities close matrix (12 dates, 5 securities), as quants write it in
DolphinDB: returns, cross-sectional ranks and z-scores, an iif signal, a linearly
decay-weighted momentum, rolling correlation with the market, and a neutralised factor.
Expected values from pandas; run by hand (python3 numeric3_factors.py) and paste."""
import numpy as np
import pandas as pd

rng = np.random.default_rng(7)
D, S = 12, 5
close = np.round(50 + np.cumsum(rng.normal(0, 1.0, (D, S)), axis=0), 2)
vol = rng.integers(1000, 100000, (D, S))
px = pd.DataFrame(close)
ret = px / px.shift(1) - 1
# cross-sectional rank per date, 0-based ascending (DolphinDB rowRank); no ties in ret
xrank = ret.rank(axis=1, method="first") - 1
# cross-sectional z-score per date with the sample std (rowStd)
z = ret.sub(ret.mean(axis=1), axis=0).div(ret.std(axis=1), axis=0)
# signal: +1 above the cross-sectional mean, -1 otherwise; a NULL compares as the minimum
# value (funcs/i/iif.md, nullAsMinValueForComparison=true), so the first date is all -1
sig = np.where(ret.gt(ret.mean(axis=1), axis=0), 1.0, -1.0)
# decay-weighted momentum: weights 1..4 over the last 4 returns (DolphinDB wma(X, 4))
w = np.arange(1, 5, dtype=float)
wma = ret.rolling(4).apply(lambda x: np.dot(x, w) / w.sum(), raw=True)
# rolling 5-day correlation of each security with the equal-weight market return; as
# DolphinDB's m-functions do, every window from the 5th row on is computed over its
# non-null pairs (the first return is NULL), the first 4 rows are NULL
mkt = ret.mean(axis=1)
mc = ret.apply(lambda c: c.rolling(5, min_periods=2).corr(mkt))
mc.iloc[:4] = np.nan
# volume-weighted price per date across securities (rowWavg)
vwap = (close * vol).sum(axis=1) / vol.sum(axis=1)


def mat(df):
    a = np.asarray(df, dtype=float)
    cols = []
    for j in range(a.shape[1]):
        cols.append("[" + ", ".join("NULL" if np.isnan(x) else repr(float(x)) for x in a[:, j]) + "]")
    return "matrix(" + ", ".join(cols) + ")"


def vec(v):
    return "[" + ", ".join("NULL" if np.isnan(x) else repr(float(x)) for x in np.asarray(v, dtype=float)) + "]"


print("close =", mat(close))
print("vol =", "matrix(" + ", ".join("[" + ", ".join(str(int(x)) for x in vol[:, j]) + "]" for j in range(S)) + ")")
print("e_ret =", mat(ret))
print("e_rank =", mat(xrank))
print("e_z =", mat(z))
print("e_sig =", mat(sig))
print("e_wma =", mat(wma))
print("e_mc =", mat(mc))
print("e_vwap =", vec(vwap))
