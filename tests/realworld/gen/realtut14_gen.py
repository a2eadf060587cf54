"""Expected values for tests/realworld/realtut14_tutorial_forms.dos (run by hand:
python3 tests/realworld/gen/realtut14_gen.py). Plain numpy/pandas, independent of Beluga."""
import numpy as np
import pandas as pd

np.set_printoptions(precision=12)

# --- wealth paths: a column of ones in front of growth factors, row-wise drawdown
g = np.array([[1.02, 0.97, 1.01], [0.95, 1.04, 0.99], [1.03, 1.02, 0.96], [0.98, 0.99, 1.05]])
m = np.column_stack([np.ones(4), g])
cum = np.cumprod(m, axis=1)
peak = np.maximum.accumulate(cum, axis=1)
dd = ((cum - peak) / peak).min(axis=1)
print("drawdown", [round(x, 12) for x in dd])

# --- book levels as an array vector, weights 5..1 (level 1 heaviest)
bids = [[10.0, 9.98, 9.95, 9.9, 9.85], [20.1, 20.05, 20.0, 19.9, 19.7], [5.5, 5.45, 5.44, 5.4, 5.3]]
w = np.array([5, 4, 3, 2, 1], dtype=float)
print("rowWavg", [round(float(np.dot(b, w) / w.sum()), 12) for b in bids])
def wskew(x, w):
    x = np.asarray(x)
    mu = np.dot(x, w) / w.sum()
    d = x - mu
    var = np.dot(d * d, w) / w.sum()
    sd = np.sqrt(var)
    n = len(w)
    adj = np.sqrt((n - 1) * n) / (n - 2)
    return np.dot(d * d, d) / (var * sd) * adj / n
print("wskew", [round(float(wskew(b, w)), 12) for b in bids])

# --- basket value from a long quote table: last price per (time, symbol), forward filled,
# weighted and summed across symbols
q = pd.DataFrame({
    "sym": ["X", "Y", "X", "Z", "Y", "X", "Z", "Y", "X"],
    "t": [1, 1, 2, 2, 3, 3, 3, 4, 4],
    "px": [10.0, 20.0, 10.5, 5.0, 19.5, 10.4, 5.2, 19.8, 10.6],
})
wt = {"X": 0.5, "Y": 0.3, "Z": 0.2}
q["wpx"] = q.px * q.sym.map(wt)
wide = q.pivot_table(index="t", columns="sym", values="wpx", aggfunc="last").ffill()
print("basket", [round(x, 12) for x in wide.sum(axis=1)])
avgw = q.pivot_table(index="t", columns="sym", values="px", aggfunc="mean").ffill()
print("avgsum", [round(x, 12) for x in avgw.sum(axis=1)])

# --- ema with a NULL after the seed window: the NULL enters the recursion as 0
def ema0(x, n):
    a = 2 / (n + 1)
    s = next(i for i, v in enumerate(x) if v is not None)
    out = [None] * len(x)
    e = sum(x[s:s + n]) / n
    out[s + n - 1] = e
    for k in range(s + n, len(x)):
        v = 0.0 if x[k] is None else x[k]
        e = a * v + (1 - a) * e
        out[k] = e
    return out
print("ema", [None if v is None else round(v, 12) for v in ema0([None, 0.3, 0.25, 0.35, None, 0.4, 0.45], 3)])
