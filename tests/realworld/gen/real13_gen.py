"""Expected values for tests/realworld/real13_*.dos (run by hand: python3 real13_gen.py).

Independent computations with plain Python loops and numpy/pandas:
- real13_padded_indicators.dos: an exponential average seeded by the simple average of
  the first complete window (TA-Lib style) and Wilder's RSI, on series with leading
  missing values; a strict "between" test; rows of a slice.
- real13_script_forms.dos: a factor table built from metacode, leading-comma select
  lists, a fund report (annualised return, volatility, max drawdown) and tumbling-window
  statistics over a matrix.
"""
import numpy as np
import pandas as pd

NAN = float("nan")


def seeded_ema(x, period):
    x = list(x)
    n = len(x)
    b = next((i for i, v in enumerate(x) if not np.isnan(v)), -1)
    out = [NAN] * n
    if b < 0 or b + period > n:
        return out
    seed = sum(x[b:b + period]) / period
    k = 2.0 / (period + 1)
    out[b + period - 1] = seed
    y = seed
    for i in range(b + period, n):
        y = y * (1 - k) + x[i] * k
        out[i] = y
    return out


def wilder_rsi(x, period):
    x = list(x)
    n = len(x)
    b = next((i for i, v in enumerate(x) if not np.isnan(v)), -1)
    out = [NAN] * n
    if b < 0 or b + period >= n:
        return out
    ch = [NAN] + [x[i] - x[i - 1] for i in range(1, n)]
    gains = [max(c, 0.0) if not np.isnan(c) else NAN for c in ch]
    losses = [max(-c, 0.0) if not np.isnan(c) else NAN for c in ch]
    g = sum(gains[b + 1:b + period + 1]) / period
    l = sum(losses[b + 1:b + period + 1]) / period
    out[b + period] = 100 * g / (g + l)
    for i in range(b + period + 1, n):
        g = (g * (period - 1) + gains[i]) / period
        l = (l * (period - 1) + losses[i]) / period
        out[i] = 100 * g / (g + l)
    return out


def fmt(v):
    return "[" + ", ".join("NULL" if np.isnan(a) else f"{a:.10f}" for a in v) + "]"


px = [NAN, NAN, 20.0, 20.4, 20.1, 20.9, 21.3, 21.0, 20.6, 21.8, 22.4, 22.1, 21.7, 22.9]
print("padded: px =", px)
print("seededEma(px, 4) =", fmt(seeded_ema(px, 4)))
print("wilderRsi(px, 5) =", fmt(wilder_rsi(px, 5)))
qx = [50.0, 49.5, 49.8, 50.6, 51.0, 50.2, 49.9, 50.7]
print("seededEma(qx, 3) =", fmt(seeded_ema(qx, 3)))
print("wilderRsi(qx, 3) =", fmt(wilder_rsi(qx, 3)))
s = np.array([5.0, 1.0, 7.0, 3.0, 4.0]); a = np.array([1.0, 2.0, 8.0, 3.0, 6.0]); b = np.array([6.0, 0.0, 6.0, 9.0, 2.0])
print("between =", list(((a < s) & (s < b)) | ((a > s) & (s > b))))

# ---- script forms: fund report
days = pd.bdate_range("2024-01-01", periods=12)
nav = {
    "FA": [1.00, 1.02, 1.01, 1.05, 1.04, 1.00, 0.97, 0.99, 1.03, 1.06, 1.05, 1.08],
    "FB": [2.00, 1.98, 1.95, 1.97, 2.02, 2.05, 2.04, 2.10, 2.08, 2.01, 2.03, 2.07],
}
for k, v in nav.items():
    v = np.array(v)
    r = np.diff(v) / v[:-1]
    ann = (1 + (v[-1] - v[0]) / v[0]) ** (252 / 730) - 1
    vol = r.std(ddof=1) * np.sqrt(252)
    peak = np.maximum.accumulate(v)
    i = int(np.argmax((peak - v) / peak))
    j = int(np.argmax(v[:i])) if i > 0 else 0
    mdd = 0 if i == 0 else (v[j] - v[i]) / v[j]
    print(f"fund {k}: annRet={ann:.12f} vol={vol:.12f} mdd={mdd:.12f} sharpe={(ann - 0.03) / vol:.12f}")

# ---- script forms: tumbling windows of 3 rows over a 9x2 matrix
m = np.array([[4, 1], [6, 3], [5, 8], [9, 2], [7, 7], [3, 5], [8, 6], [2, 9], [1, 4]], dtype=float)
sums = [m[i:i + 3].sum(axis=0) for i in range(0, 9, 3)]
print("rolling(sum, m, 3, 3) =", sums)
cs = np.vstack([np.cumsum(m[i:i + 3], axis=0) for i in range(0, 9, 3)])
print("rolling(cumsum, m, 3, 3) col0 =", list(cs[:, 0]), "col1 =", list(cs[:, 1]))
v = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
print("rolling(cummax, v, 4, 4) =", list(np.concatenate([np.maximum.accumulate(v[i:i + 4]) for i in range(0, 8, 4)])))

# ---- script forms: factor table from metacode (group means of renamed columns)
raw = pd.DataFrame({"code": ["A", "B", "A", "B", "A", "B"], "px": [10.0, 20.0, 11.0, 19.0, 12.0, 21.0], "qty": [100, 200, 150, 250, 120, 180]})
raw["notional"] = raw.px * raw.qty
print("notional by code:", raw.groupby("code").notional.sum().to_dict())
print("vwap by code:", (raw.groupby("code").notional.sum() / raw.groupby("code").qty.sum()).round(12).to_dict())

# ---- snapshot levels: bid prices/quantities of 3 levels over 4 snapshots (descending
# prices); the change of resting bid amount between consecutive snapshots after aligning
# the price levels (only prices inside both books' common range count, as "bid" alignment)
bids = [[10.02, 10.01, 10.00], [10.03, 10.02, 10.01], [10.02, 10.00, 9.99], [10.02, 10.01, 10.00]]
qtys = [[300, 200, 500], [100, 250, 150], [400, 50, 700], [350, 120, 80]]


def align_bid(left, right):
    hi = max(max(left), max(right))
    lo = max(min(left), min(right))
    vals = sorted(set(left) | set(right), reverse=True)
    li, ri = [], []
    for v in vals:
        if lo <= v <= hi:
            li.append(left.index(v) if v in left else -1)
            ri.append(right.index(v) if v in right else -1)
    return li, ri


for t in range(1, 4):
    li, ri = align_bid(bids[t], bids[t - 1])
    amt = 0.0
    for a, b in zip(li, ri):
        q = (qtys[t][a] if a >= 0 else 0) - (qtys[t - 1][b] if b >= 0 else 0)
        p = bids[t][a] if a >= 0 else bids[t - 1][b]
        amt += p * q
    print(f"snapshot {t}: left={li} right={ri} amountDiff={amt:.6f}")
