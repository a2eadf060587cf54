"""Expected values for tests/realworld/corpus_trade_quote_joins.dos (pandas, independent of Beluga).

Trades and quotes of two symbols over one minute (second resolution).
  aj:  each trade gets the last quote at or before its time, same symbol
       (pandas merge_asof, direction="backward", allow_exact_matches=True)
  wj:  for each trade, the quotes of the same symbol in [t-5s, t+0s]: average bid,
       max ask, count (window join semantics: both ends inclusive)
  effective spread 2*|price - mid| / mid where mid comes from the as-of quote
Run: python3 corpus_trade_quote_joins.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(99)
q = []
for sym, p0 in (("AAPL", 190.0), ("TSLA", 250.0)):
    secs = np.sort(rng.choice(60, 14, replace=False))
    p = p0
    for s in secs:
        p = round(p + rng.normal(0, 0.05), 2)
        q.append((sym, int(s), round(p - 0.01 * int(rng.integers(1, 4)), 2), round(p + 0.01 * int(rng.integers(1, 4)), 2)))
quotes = pd.DataFrame(q, columns=["sym", "sec", "bid", "ask"]).sort_values(["sym", "sec"]).reset_index(drop=True)
t = []
for sym in ("AAPL", "TSLA"):
    secs = np.sort(rng.choice(60, 8, replace=False))
    for s in secs:
        qq = quotes[(quotes.sym == sym)]
        ref = qq.bid.mean()
        t.append((sym, int(s), round(ref + rng.normal(0, 0.05), 2), int(rng.integers(1, 10)) * 100))
trades = pd.DataFrame(t, columns=["sym", "sec", "price", "qty"]).sort_values(["sym", "sec"]).reset_index(drop=True)

def ts(s):
    return f"10:00:{s:02d}"

print("qsym = " + "".join("`" + s for s in quotes.sym))
print("qtime = [" + ", ".join(ts(s) for s in quotes.sec) + "]")
print("bid = " + " ".join(f"{x:.2f}" for x in quotes.bid))
print("ask = " + " ".join(f"{x:.2f}" for x in quotes.ask))
print("tsym = " + "".join("`" + s for s in trades.sym))
print("ttime = [" + ", ".join(ts(s) for s in trades.sec) + "]")
print("price = " + " ".join(f"{x:.2f}" for x in trades.price))
print("qty = " + " ".join(str(x) for x in trades.qty))
m = pd.merge_asof(trades.sort_values("sec"), quotes.sort_values("sec"), on="sec", by="sym", direction="backward").sort_values(["sym", "sec"]).reset_index(drop=True)
def vec(xs):
    return "[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), 10)) for x in xs) + "]"
print("ajBid =", vec(m.bid))
print("ajAsk =", vec(m.ask))
print("ajQtime = [" + ", ".join("NULL" if pd.isna(x) else ts(int(x)) for x in
      [quotes[(quotes.sym == r.sym) & (quotes.sec <= r.sec)].sec.max() for r in trades.itertuples()]) + "]")
mid = (m.bid + m.ask) / 2
print("effSpread =", vec(2 * (m.price - mid).abs() / mid))
avgb, maxa, cnt = [], [], []
for r in trades.itertuples():
    w = quotes[(quotes.sym == r.sym) & (quotes.sec >= r.sec - 5) & (quotes.sec <= r.sec)]
    avgb.append(w.bid.mean() if len(w) else np.nan)
    maxa.append(w.ask.max() if len(w) else np.nan)
    cnt.append(len(w))
print("wjAvgBid =", vec(avgb))
print("wjMaxAsk =", vec(maxa))
print("wjCount =", cnt)
# volume-weighted effective spread per symbol over the matched trades
es = 2 * (m.price - mid).abs() / mid
for sym in ("AAPL", "TSLA"):
    k = (m.sym == sym) & es.notna()
    print(sym, "wes =", repr(float((es[k] * m.qty[k]).sum() / m.qty[k].sum())), "matched =", int(k.sum()))
