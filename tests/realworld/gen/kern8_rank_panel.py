"""Expected values of tests/realworld/kern8_rank_panel.dos (pandas ranks, run by hand).

The panel: close[k] = ((k*7919) % 101) / 10 + 5 for k in 0..4499, NULL where k % 17 == 3,
laid column-major into 30 days x 150 stocks (DolphinDB's `$` reshape). Each check is a
weighted sum over the non-null ranks, weight k + 1 for the element's column-major index k.
"""
import numpy as np
import pandas as pd

k = np.arange(4500)
close = ((k * 7919) % 101) / 10 + 5
close[k % 17 == 3] = np.nan
df = pd.DataFrame(close.reshape(150, 30).T)          # days x stocks
w = pd.DataFrame((k + 1).reshape(150, 30).T.astype(float))


def chk(r):
    return float((r * w).sum().sum()), int(r.isna().sum().sum())


print("rowRank min", chk(df.rank(axis=1, method="min") - 1))
print("rowRank desc first", chk(df.rank(axis=1, method="first", ascending=False) - 1))
print("rowRank average pct", repr(chk(df.rank(axis=1, method="average", pct=True))[0]))
print("rowDenseRank", chk(df.rank(axis=1, method="dense") - 1))
print("rank by column max", chk(df.rank(axis=0, method="max") - 1))
s = pd.Series(close)
print("rank vector min", float(((s.rank(method="min") - 1) * (k + 1)).sum()))
print("rank vector desc average", float(((s.rank(method="average", ascending=False) - 1) * (k + 1)).sum()))
