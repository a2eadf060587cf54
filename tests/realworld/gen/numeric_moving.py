"""Expected values for tests/realworld/numeric_moving.dos: pandas rolling statistics on a
price-like series that ends in a flat stretch, a perfectly linear pair and a constant
series. Run by hand (python3 numeric_moving.py); paste the printed lines into the script."""
import numpy as np
import pandas as pd

def ddb(v):
    """A DolphinDB DOUBLE vector literal; NaN prints as NULL."""
    return "[" + ", ".join("NULL" if np.isnan(x) else repr(float(x)) for x in v) + "]"

# a deterministic walk around 100 with large moves, then 12 days flat at 103.25
rng = np.random.default_rng(20240101)
steps = np.round(rng.normal(0, 2.5, 28), 2)
walk = np.round(100 + np.cumsum(steps), 2)
px = np.concatenate([walk, np.full(12, 103.25)])
# a second series: exactly linear in px for the whole length (y = 2 px - 50)
py = 2 * px - 50
# a third series: noise, so beta/corr have ordinary values
pz = np.round(100 + rng.normal(0, 1.0, len(px)), 2)
w = 6
s, y, z = pd.Series(px), pd.Series(py), pd.Series(pz)
print("px =", ddb(px))
print("pz =", ddb(pz))
print("w =", w)
print("std_x =", ddb(s.rolling(w).std()))
print("var_x =", ddb(s.rolling(w).var()))
print("cov_xz =", ddb(s.rolling(w).cov(z)))
print("corr_xz =", ddb(s.rolling(w).corr(z)))
print("skew_x =", ddb(s.rolling(w).skew()))
print("kurt_x =", ddb(s.rolling(w).kurt()))
print("mean_x =", ddb(s.rolling(w).mean()))
# beta of z on x (DolphinDB mbeta(Y, X, w): cov(Y, X) / var(X))
print("beta_zx =", ddb(s.rolling(w).cov(z) / s.rolling(w).var()))
