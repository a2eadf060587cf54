"""Expected values for tests/realworld/stream_reactive.dos and stream_bars.dos.

Ticks for four symbols over 40 minutes (seeded), printed as DolphinDB vectors; then the
indicators of modules/stream/indicators.dos per symbol with pandas (rolling mean/std,
shift, diff, cumsum), and 1-minute OHLC bars and 2-minute sliding volume sums with the
time-series engine's rules (funcs/c/createTimeSeriesEngine.md): windows on one grid
aligned from the first tick, a symbol's window is output once a later tick of that
symbol arrives, empty windows are not output.
Run: python3 tests/realworld/gen/stream_gen.py
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(20240301)
n = 240
syms = np.array(["A", "B", "C", "D"])[rng.integers(0, 4, n)]
offs = np.sort(rng.integers(0, 40 * 60000, n))  # ms after 09:30:00.000
base_price = {"A": 10.0, "B": 20.0, "C": 35.0, "D": 8.0}
price = np.empty(n)
last = dict(base_price)
for k in range(n):
    s = syms[k]
    last[s] = round(last[s] + rng.integers(-20, 21) / 100.0, 2)
    price[k] = last[s]
qty = rng.integers(1, 50, n) * 100

df = pd.DataFrame({"sym": syms, "off": offs, "price": price, "qty": qty})

def vec(xs, fmt):
    return " ".join(fmt(x) for x in xs)

def dvec(xs, digits=10):
    return "[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), digits)) for x in xs) + "]"

print("// ---- ticks")
print("tickSym = `" + "`".join(syms))
print("tickOff = " + vec(offs, str))
print("tickPrice = " + vec(price, lambda x: f"{x:.2f}"))
print("tickQty = " + vec(qty, str))

# indicators per symbol, in input order
g = df.groupby("sym", sort=False)
z = (df.price - g.price.transform(lambda s: s.rolling(5).mean())) / g.price.transform(lambda s: s.rolling(5).std())
ret = df.price / g.price.shift(1) - 1
flow = g.qty.transform(lambda s: s.rolling(3).sum())
cumv = g.qty.cumsum()
chg = g.price.diff()
prv = g.price.shift(1)
print("// ---- indicators in input order")
print("expZ = " + dvec(z))
print("expRet = " + dvec(ret))
print("expFlow = " + dvec(flow))
print("expCumVol = " + dvec(cumv))
print("expChange = " + dvec(chg))
print("expPrev = " + dvec(prv))

def windows(window, step, align):
    x0 = int(df.off.min())
    base = x0 // align * align + step - window
    out = []
    for s in ["A", "B", "C", "D"]:
        d = df[df.sym == s]
        t = d.off.to_numpy()
        end = base + window
        while end <= t.max():
            m = (t >= end - window) & (t < end)
            if m.any():
                # a later tick of the symbol at or after `end` exists since end <= max
                w = d[m]
                out.append((s, end - window, end, w.price.iloc[0], w.price.max(), w.price.min(), w.price.iloc[-1], int(w.qty.sum()), len(w), float((w.price * w.qty).sum())))
            end += step
    return out

bars = windows(60000, 60000, 60000)
print("// ---- 1-minute bars sorted by sym, start (start offsets in ms)")
print("barSym = `" + "`".join(b[0] for b in bars))
print("barStart = " + vec([b[1] for b in bars], str))
print("barOpen = " + dvec([b[3] for b in bars]))
print("barHigh = " + dvec([b[4] for b in bars]))
print("barLow = " + dvec([b[5] for b in bars]))
print("barClose = " + dvec([b[6] for b in bars]))
print("barVol = " + vec([b[7] for b in bars], str))
print("barNotional = " + dvec([b[9] for b in bars], 6))
# pandas resample cross-check of the same bars (left-closed, left-labelled)
ts = pd.Timestamp("2024-03-01 09:30:00") + pd.to_timedelta(df.off, unit="ms")
r = df.assign(ts=ts).set_index("ts").groupby("sym").resample("1min").agg({"price": ["first", "max", "min", "last"], "qty": "sum"}).dropna()
lastbar = df.assign(ts=ts).groupby("sym").ts.max().dt.floor("1min")
r = r[[ts_ != lastbar[s] for s, ts_ in r.index]]
assert len(r) == len(bars), (len(r), len(bars))
assert np.allclose(r[("price", "first")].to_numpy(), [b[3] for b in bars])
assert np.allclose(r[("qty", "sum")].to_numpy(), [b[7] for b in bars])

slide = windows(120000, 60000, 60000)
print("// ---- 2-minute windows every minute: sorted by sym, end (end offsets in ms)")
print("slSym = `" + "`".join(b[0] for b in slide))
print("slEnd = " + vec([b[2] for b in slide], str))
print("slVol = " + vec([b[7] for b in slide], str))
print("slCount = " + vec([b[8] for b in slide], str))
