"""Expected values for tests/realworld/corpus_minute_bars.dos (pandas, independent of Beluga).

Ticks of two symbols over five minutes (09:30:00..09:34:59, second resolution). One-minute
bars per symbol: open, high, low, close, volume, VWAP (sum(p*q)/sum(q)), trade count;
and 2-minute bars aligned to 09:30 (bar(time, 120s)).
Run: python3 corpus_minute_bars.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(3)
rows = []
for sym, p0 in (("IBM", 130.0), ("MSFT", 410.0)):
    secs = np.sort(rng.choice(300, 24, replace=False))
    p = p0
    for s in secs:
        p = round(p + rng.normal(0, 0.05) * p0 / 100, 2)
        rows.append((sym, int(s), p, int(rng.integers(1, 20)) * 100))
df = pd.DataFrame(rows, columns=["sym", "sec", "price", "qty"]).sort_values(["sec", "sym"], kind="stable").reset_index(drop=True)

def bars(width):
    d = df.copy()
    d["bucket"] = d.sec // width * width
    d["pq"] = d.price * d.qty
    g = d.groupby(["sym", "bucket"], sort=True)
    out = pd.DataFrame({"open": g.price.first(), "high": g.price.max(), "low": g.price.min(),
                        "close": g.price.last(), "vol": g.qty.sum(), "vwap": g.pq.sum() / g.qty.sum(),
                        "n": g.size()}).reset_index()
    return out

def t(sec):
    return f"09:{30 + sec // 60:02d}:{sec % 60:02d}"

print("sym = " + "".join("`" + s for s in df.sym))
print("ts = [" + ", ".join(t(s) for s in df.sec) + "]")
print("price = " + " ".join(f"{x:.2f}" for x in df.price))
print("qty = " + " ".join(str(x) for x in df.qty))
for w in (60, 120):
    b = bars(w)
    print(f"// width {w}")
    print("bsym = " + "".join("`" + s for s in b.sym))
    print("bstart = [" + ", ".join(t(s) for s in b.bucket) + "]")
    for c in ["open", "high", "low", "close"]:
        print(f"{c} = " + " ".join(f"{x:.2f}" for x in b[c]))
    print("vol = " + " ".join(str(x) for x in b.vol))
    print("vwap = [" + ", ".join(repr(round(x, 10)) for x in b.vwap) + "]")
    print("n = " + " ".join(str(x) for x in b.n))
