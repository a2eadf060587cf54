"""Expected values for tests/realworld/corpus_portfolio.dos (numpy, independent of Beluga).

Daily returns of 4 assets over 12 days (a days x assets matrix). Portfolio math:
  mu      column means
  S       sample covariance matrix (ddof=1)
  w       fixed weights; portfolio return series R @ w, its mean and sample std
  varP    w' S w (equals the variance of the portfolio series)
  gmv     global minimum variance weights: inv(S) 1 / (1' inv(S) 1)
  corrM   correlation matrix
  beta    beta of each asset on the equal-weight market (cov(r_i, m) / var(m))
Run: python3 corpus_portfolio.py and paste.
"""
import numpy as np

rng = np.random.default_rng(42)
T, N = 12, 4
R = np.round(rng.normal(0.001, 0.01, (T, N)) + 0.004 * rng.normal(0, 1, (T, 1)), 4)
w = np.array([0.4, 0.3, 0.2, 0.1])

def mat(a):
    return "matrix(" + ", ".join("[" + ", ".join(repr(round(float(x), 14)) for x in a[:, j]) + "]" for j in range(a.shape[1])) + ")"

def vec(a):
    return "[" + ", ".join(repr(round(float(x), 14)) for x in a) + "]"

print("R = matrix(" + ", ".join("[" + ", ".join(f"{x:.4f}" for x in R[:, j]) + "]" for j in range(N)) + ")")
S = np.cov(R, rowvar=False)
print("expMu =", vec(R.mean(axis=0)))
print("expS =", mat(S))
p = R @ w
print("expP =", vec(p))
print("expPmean =", repr(p.mean()), "expPstd =", repr(p.std(ddof=1)))
print("expVarP =", repr(w @ S @ w))
Si = np.linalg.inv(S)
g = Si @ np.ones(N) / (np.ones(N) @ Si @ np.ones(N))
print("expGmv =", vec(g))
print("expGmvVar =", repr(g @ S @ g))
print("expCorr =", mat(np.corrcoef(R, rowvar=False)))
m = R.mean(axis=1)
beta = np.array([np.cov(R[:, i], m)[0, 1] / m.var(ddof=1) for i in range(N)])
print("expBeta =", vec(beta))
print("expCum =", vec(np.cumprod(1 + p) - 1))
