"""Expected values for tests/realworld/numeric_factor.dos: factor building blocks on a
dates x securities price matrix, computed column by column with pandas/numpy.
Run by hand (python3 numeric_factor.py); paste the printed lines into the script."""
import numpy as np
import pandas as pd

def vec(v):
    return "[" + ", ".join("NULL" if np.isnan(x) else repr(float(x)) for x in v) + "]"

def mat(df):
    """A DolphinDB matrix literal, column by column."""
    return "matrix(" + ", ".join(vec(df[c].to_numpy(dtype=float)) for c in df.columns) + ")"

rng = np.random.default_rng(7)
dates = pd.date_range("2024-01-02", periods=8, freq="B")
secs = ["S1", "S2", "S3", "S4"]
px = pd.DataFrame(np.round(50 + np.cumsum(rng.normal(0, 1.5, (8, 4)), axis=0), 2), index=dates, columns=secs)
ret = px / px.shift(1) - 1
print("px =", mat(px))
print("absdev =", mat((px - 50).abs()))
print("sgn =", mat(np.sign(px - 50)))
print("z =", mat((px - px.mean()) / px.std()))
print("rk =", mat(px.rank(method="first") - 1))
print("rowrk =", mat(px.rank(axis=1, method="first") - 1))
print("ma3 =", mat(px.rolling(3).mean()))
print("sd3 =", mat(px.rolling(3).std()))
print("cs =", mat(px.cumsum()))
print("rt =", mat(px / px.shift(1)))
print("dl =", mat(px.diff()))
print("mv2 =", mat(px.shift(2)))
print("nx =", mat(px.shift(-1)))
print("pc =", mat(ret))
print("corr4 =", mat(px.rolling(4).corr(px.shift(1))))
print("cnt3 =", mat(px.shift(1).rolling(3, min_periods=1).count()))
