"""Expected values for tests/realworld/corpus_indicators.dos (pandas, independent of Beluga).

Daily closes of three tickers (random walks, sorted by ticker then day). Indicators per
ticker, as the module modules/corpus/ta.dos defines them:
  sma(n)      rolling mean over n rows (NULL until n rows)
  bollUp(n)   sma + 2 * sample std over n rows
  rsi(n)      Cutler's RSI: 100 * sum(gains, n) / (sum(gains, n) + sum(losses, n)),
              the first day's change counted as 0
  mom(n)      close / close n rows back - 1
  stoch(n)    (close - rolling min) / (rolling max - rolling min)
Run: python3 corpus_indicators.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(7)
rows = []
for sym, p0 in (("AAA", 20.0), ("BBB", 55.0), ("CCC", 8.0)):
    p = p0
    for d in range(9):
        p = round(p * (1 + rng.normal(0, 0.02)), 2)
        rows.append((sym, d, p))
df = pd.DataFrame(rows, columns=["sym", "day", "close"])
g = df.groupby("sym")["close"]
N = 4
df["sma"] = g.transform(lambda s: s.rolling(N).mean())
df["bollUp"] = g.transform(lambda s: s.rolling(N).mean() + 2 * s.rolling(N).std())
def rsi(s):
    d = s.diff().fillna(0.0)
    up = d.clip(lower=0).rolling(N).sum()
    dn = (-d).clip(lower=0).rolling(N).sum()
    return 100 * up / (up + dn)
df["rsi"] = g.transform(rsi)
df["mom"] = g.transform(lambda s: s / s.shift(2) - 1)
df["stoch"] = g.transform(lambda s: (s - s.rolling(N).min()) / (s.rolling(N).max() - s.rolling(N).min()))

def vec(xs):
    return "[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), 10)) for x in xs) + "]"

print("sym = " + "".join("`" + s for s in df.sym))
print("close = " + " ".join(f"{x:.2f}" for x in df.close))
for c in ["sma", "bollUp", "rsi", "mom", "stoch"]:
    print(f"exp_{c} = {vec(df[c])}")
last = df.groupby("sym").tail(1)
print("last_rsi =", vec(last.rsi), "last_sym =", list(last.sym))
# signal count: days with rsi > 60 per ticker
sig = df[df.rsi > 60].groupby("sym").size().reindex(["AAA", "BBB", "CCC"], fill_value=0)
print("signals =", list(sig))
