"""Expected values for tests/realworld/corpus_event_study.dos (pandas, independent of Beluga).

Daily closes of four stocks and a market index over 30 trading days; each stock has one
event day (earnings). Market-model event study:
  returns        close / previous close - 1
  estimation     the 10 days ending 3 days before the event (days e-12 .. e-3):
                 alpha, beta by OLS of stock return on market return
  abnormal       AR = r - (alpha + beta * r_m) for days e-2 .. e+2 (5-day window)
  CAR            sum of the 5 ARs per stock; mean CAR across stocks
Run: python3 corpus_event_study.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(404)
T = 30
mret = rng.normal(0.0005, 0.01, T)
mret[0] = 0
mkt = np.round(1000 * np.cumprod(1 + mret), 2)
stocks = {"S1": 15, "S2": 18, "S3": 22, "S4": 25}
closes = {}
for k, (s, e) in enumerate(stocks.items()):
    beta = 0.6 + 0.3 * k
    r = 0.0002 + beta * mret + rng.normal(0, 0.006, T)
    r[e] += [0.04, -0.03, 0.02, 0.05][k]
    r[0] = 0
    closes[s] = np.round(50 * (k + 1) * np.cumprod(1 + r), 2)
px = pd.DataFrame(closes)
px["MKT"] = mkt
ret = px.pct_change()
print("mkt = " + " ".join(f"{x:.2f}" for x in mkt))
for s in stocks:
    print(f"{s} = " + " ".join(f"{x:.2f}" for x in px[s]))
print("events =", list(stocks.values()))
cars, ars, alphas, betas = [], [], [], []
for s, e in stocks.items():
    est = ret.iloc[e - 12:e - 2]
    y, x = est[s].values, est["MKT"].values
    b = np.cov(x, y, ddof=1)[0, 1] / np.var(x, ddof=1)
    a = y.mean() - b * x.mean()
    w = ret.iloc[e - 2:e + 3]
    ar = w[s].values - (a + b * w["MKT"].values)
    alphas.append(a); betas.append(b); ars.append(ar); cars.append(ar.sum())
print("alpha =", [repr(float(x)) for x in alphas])
print("beta =", [repr(float(x)) for x in betas])
for s, ar in zip(stocks, ars):
    print(f"ar_{s} =", "[" + ", ".join(repr(float(x)) for x in ar) + "]")
print("car =", "[" + ", ".join(repr(float(x)) for x in cars) + "]")
print("meanCar =", repr(float(np.mean(cars))))
print("meanAR =", "[" + ", ".join(repr(float(x)) for x in np.mean(ars, axis=0)) + "]")
