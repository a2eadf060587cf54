"""Expected values for tests/realworld/real12_*.dos (run by hand: python3 real12_gen.py).

Independent computations with numpy/pandas of what the scripts compute in Beluga:
  - real12_topn_replay.dos: top-N by volume (aggrTopN semantics of funcs/ho_funcs/aggrTopN.md:
    a fraction takes floor(n*top) rows but at least one), per-symbol sums after replay.
  - real12_strategy_state.dos: a grid strategy whose state lives in dictionaries nested in a
    context dictionary, replayed tick by tick.
  - real12_table_edits.dos: update! with a filter, z-scores of group means, table column
    slicing by position, columns named after t.col members.
"""
import math
import numpy as np
import pandas as pd

# ---------------------------------------------------------------- topn / replay data
syms = ["S1", "S2", "S3"]
n_per = 12
rows = []
for s_i, s in enumerate(syms):
    for k in range(n_per):
        px = round(10.0 * (s_i + 1) + 0.05 * k + (0.3 if k % 4 == 1 else 0.0), 2)
        vol = 100 + ((k * 37 + s_i * 11) % 50) * 10
        rows.append((s, k, px, vol))
df = pd.DataFrame(rows, columns=["sym", "k", "px", "vol"])
print("# topn data px per sym:")
for s in syms:
    print(s, " ".join(f"{x:.2f}" for x in df[df.sym == s].px), "|", " ".join(str(v) for v in df[df.sym == s].vol))


def top_rows(n, top):
    if 0 < top < 1:
        return max(1, min(n, math.floor(n * top)))
    return min(n, int(top))


def aggr_topn_avg(x, key, top, asc):
    order = sorted(range(len(x)), key=lambda r: (key[r] if asc else -key[r], r))
    k = top_rows(len(x), top)
    return float(np.mean([x[r] for r in order[:k]]))


print("# aggrTopN avg px of the 25% largest volumes, per sym")
for s in syms:
    d = df[df.sym == s]
    print(s, repr(aggr_topn_avg(list(d.px), list(d.vol), 0.25, False)))

print("# moving(aggrTopN{avg,,,0.4,false}, (px, vol), 5, 1) for S2")
d = df[df.sym == "S2"]
px, vol = list(d.px), list(d.vol)
out = []
for r in range(len(px)):
    lo = max(0, r - 4)
    out.append(aggr_topn_avg(px[lo:r + 1], vol[lo:r + 1], 0.4, False))
print(" ".join(repr(round(x, 10)) for x in out))

print("# total vol per sym, and vwap per sym")
for s in syms:
    d = df[df.sym == s]
    print(s, int(d.vol.sum()), repr(float((d.px * d.vol).sum() / d.vol.sum())))

# ---------------------------------------------------------------- grid strategy
prices = {
    "A": [10.0, 9.8, 9.75, 9.9, 10.1, 10.3, 10.25, 10.05, 9.7, 9.9],
    "B": [20.0, 20.5, 20.6, 20.3, 19.8, 19.5, 19.9, 20.1, 20.4, 20.2],
}
alpha, beta, M = 0.01, 0.005, 10000.0
state = {k: {} for k in ["initPrice", "buyLine", "sellLine", "low", "high", "n"]}
trades = []


def reset(sym, base, px, n, mode):
    state["buyLine"][sym] = base * (1 - alpha)
    state["sellLine"][sym] = base * (1 + alpha)
    state["n"][sym] = n
    if mode == 0:
        state["low"][sym], state["high"][sym] = 0.0, 10000.0
    elif mode == 1:
        state["low"][sym], state["high"][sym] = px, 10000.0
    else:
        state["low"][sym], state["high"][sym] = 0.0, px


for t in range(10):
    for sym in ["A", "B"]:
        px = prices[sym][t]
        if sym not in state["initPrice"]:
            state["initPrice"][sym] = px
            reset(sym, px, px, 1, 0)
        init = state["initPrice"][sym]
        if px <= state["buyLine"][sym]:
            n = math.floor(math.log(px / init) / math.log(1 - alpha)) + 1
            if n > state["n"][sym]:
                reset(sym, init * (1 - alpha) ** n, px, n, 1)
        elif px > state["sellLine"][sym]:
            n = math.floor(math.log(px / init) / math.log(1 + alpha)) + 1
            if n > state["n"][sym]:
                reset(sym, init * (1 + alpha) ** n, px, n, 2)
        if state["low"][sym] > 0 and px > state["low"][sym] * (1 + beta):
            qty = int(state["n"][sym] * M / px) // 100 * 100
            trades.append((t, sym, "buy", px, qty))
            state["initPrice"][sym] = px
            reset(sym, px, px, 1, 0)
        elif state["high"][sym] < 10000 and px < state["high"][sym] * (1 - beta):
            qty = int(state["n"][sym] * M / px) // 100 * 100
            trades.append((t, sym, "sell", px, qty))
            state["initPrice"][sym] = px
            reset(sym, px, px, 1, 0)
        if state["low"][sym] > 0:
            state["low"][sym] = min(state["low"][sym], px)
        if state["high"][sym] < 10000:
            state["high"][sym] = max(state["high"][sym], px)
print("# grid trades (tick, sym, side, px, qty)")
for tr in trades:
    print(tr)
print("# final initPrice, n", state["initPrice"], state["n"])

# ---------------------------------------------------------------- table edits
g = pd.DataFrame({
    "id": [1, 1, 2, 2, 3, 3, 4, 4],
    "speed": [60.0, 70.0, 80.0, 84.0, 50.0, 58.0, 90.0, 100.0],
    "brake": [10.0, 14.0, 30.0, 26.0, 5.0, 9.0, 40.0, 44.0],
})
m = g.groupby("id").mean()
z = (m - m.mean()) / m.std(ddof=1)
print("# zscore of group means speed:", [repr(round(x, 10)) for x in z.speed])
print("# zscore of group means brake:", [repr(round(x, 10)) for x in z.brake])
fill = g.copy()
fill["speed"] = np.where(fill.brake > 20, fill.speed * 0.5, fill.speed)
print("# speed after halving rows with brake > 20:", list(fill.speed))
