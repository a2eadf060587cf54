"""Expected values for tests/realworld/kern6_math_kernels.dos (numpy/pandas, independent of Beluga).

A daily close panel (7 days x 4 stocks, one missing price) as a factor script uses it:
log prices, log returns by deltas, a power transform, square roots, exp of the returns,
two-day deltas of an INT volume matrix, per-day ranks (rowRank: pandas rank(axis=1,
method="min") - 1, missing values unranked) ascending and descending, and checksums of
log / pow / exp over 20,000 generated values (the vectorised kernels' long-input path).
Run: python3 kern6_math_kernels.py and paste.
"""
import numpy as np
import pandas as pd

close = np.array([
    [10.01, 25.68, 40.98, 6.93],
    [9.90, 25.97, 40.93, 7.03],
    [10.21, np.nan, 41.49, 7.01],
    [10.31, 26.35, 41.32, 6.99],
    [10.13, 25.55, 41.65, 6.90],
    [9.96, 25.31, 40.66, 6.93],
    [10.14, 25.19, 40.05, 6.74],
])
vol = np.array([
    [6400, 1200, 2500, 2700],
    [4000, 7400, 5100, 4000],
    [6500, 7200, 7600, 4000],
    [1100, 3700, 2400, 1000],
    [1700, 5000, 8200, 7100],
    [1400, 5400, 1300, 2700],
    [1600, 6200, 1100, 3700],
])


def col_major(a):
    return ", ".join("NULL" if np.isnan(v) else repr(round(float(v), 12)) for v in a.T.ravel())


lp = np.log(close)
print("logp =", col_major(lp))
lr = np.vstack([np.full((1, 4), np.nan), np.diff(lp, axis=0)])
print("logret =", col_major(lr))
print("pow25 =", col_major(close ** 2.5))
print("powm13 =", col_major(close ** (-1.0 / 3.0)))
print("sqrt =", col_major(np.sqrt(close)))
print("expret =", col_major(np.exp(lr)))
dv = np.vstack([np.full((2, 4), np.nan), vol[2:] - vol[:-2]])
print("dvol2 =", col_major(dv))
df = pd.DataFrame(close)
print("rank_asc =", col_major(df.rank(axis=1, method="min").to_numpy() - 1))
# ties: two equal closes in a row
tie = close.copy()
tie[3, 1] = tie[3, 2]
print("tie =", col_major(tie))
print("rank_desc_tie =", col_major(pd.DataFrame(tie).rank(axis=1, method="min", ascending=False).to_numpy() - 1))

k = np.arange(20000)
x = ((k * 7919) % 10007) / 100.0 + 0.5
print("sum log  =", repr(float(np.sum(np.log(x)))))
print("sum pow  =", repr(float(np.sum(np.power(x, 1.7)))))
print("sum exp  =", repr(float(np.sum(np.exp(-x / 10.0)))))
print("sum powv =", repr(float(np.sum(np.power(x, (k % 7) / 3.0 - 1.0)))))
