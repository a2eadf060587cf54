"""Expected values for tests/realworld/corpus_xsfactor.dos (pandas, independent of Beluga).

A dates x securities panel (8 days x 5 stocks) of closes and volumes. Factors:
  ret      close / previous close - 1 (per column)
  rk       cross-sectional rank of ret per day, 0-based, ties get the smallest rank
  z        cross-sectional z-score of ret per day: (x - row mean) / row sample std
  zc       z clipped to [-1, 1]
  sgn      +1 where ret > row mean, -1 elsewhere (NULL row stays NULL... first day)
  mc       rolling 4-day correlation of ret and volume change, per stock
  mv3      3-day moving average of volume, per stock
Run: python3 corpus_xsfactor.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(11)
D, S = 8, 5
close = np.round(np.cumprod(1 + rng.normal(0, 0.02, (D, S)), axis=0) * np.array([10, 25, 40, 7, 90]), 2)
vol = rng.integers(10, 99, (D, S)) * 100
px = pd.DataFrame(close)
vo = pd.DataFrame(vol.astype(float))
ret = px.pct_change()
rk = ret.rank(axis=1, method="min") - 1
z = ret.sub(ret.mean(axis=1), axis=0).div(ret.std(axis=1), axis=0)
zc = z.clip(-1, 1)
dv = vo.pct_change()
mc = ret.rolling(4).corr(dv)
mv3 = vo.rolling(3).mean()

def mat(df, digits=10):
    # DolphinDB matrix literal by columns: matrix(col0, col1, ...)
    cols = []
    for c in df.columns:
        cols.append("[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), digits)) for x in df[c]) + "]")
    return "matrix(" + ", ".join(cols) + ")"

print("close = matrix(" + ", ".join("[" + ", ".join(f"{x:.2f}" for x in close[:, j]) + "]" for j in range(S)) + ")")
print("vol = matrix(" + ", ".join("[" + ", ".join(str(int(x)) for x in vol[:, j]) + "]" for j in range(S)) + ")")
print("expRet =", mat(ret))
print("expRank =", mat(rk))
print("expZ =", mat(z))
print("expZc =", mat(zc))
print("expMc =", mat(mc))
print("expMv3 =", mat(mv3))
# top stock per day by ret (index), from day 1
print("top =", [int(np.nanargmax(ret.values[i])) for i in range(1, D)])
# long-short: mean ret of rank >= 3 minus mean ret of rank <= 1, next day
ls = []
for i in range(1, D - 1):
    r = rk.values[i]
    nxt = ret.values[i + 1]
    ls.append(nxt[r >= 3].mean() - nxt[r <= 1].mean())
print("ls =", [round(x, 10) for x in ls])
