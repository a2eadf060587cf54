"""Expected values for tests/realworld/arrayvec_orderbook.dos (numpy, independent of Beluga).

Order-book snapshots with a varying number of levels per side (2..5), bid/ask prices as
DOUBLE[] and volumes as INT[] array vectors. Features per snapshot: best bid (max bid
price), best ask (min ask price), spread, depth-weighted mid
(sum(p*v) over both sides / sum(v) over both sides), order imbalance
(sum bidvol - sum askvol) / (sum bidvol + sum askvol), and the level counts.
Run: python3 arrayvec_orderbook.py > /tmp/out.dos and paste the case into the script.
"""
import numpy as np

rng = np.random.default_rng(20261201)
N = 12
mid0 = 100.0
bid_p, bid_v, ask_p, ask_v = [], [], [], []
for i in range(N):
    mid = round(mid0 + rng.normal(0, 0.3), 2)
    nb = int(rng.integers(2, 6))
    na = int(rng.integers(2, 6))
    bp = [round(mid - 0.01 * (k + 1) - 0.01 * int(rng.integers(0, 2)) * k, 2) for k in range(nb)]
    ap = [round(mid + 0.01 * (k + 1) + 0.01 * int(rng.integers(0, 2)) * k, 2) for k in range(na)]
    bid_p.append(bp)
    ask_p.append(ap)
    bid_v.append([int(x) for x in rng.integers(1, 50, nb) * 100])
    ask_v.append([int(x) for x in rng.integers(1, 50, na) * 100])


def ends(rows):
    return " ".join(str(x) for x in np.cumsum([len(r) for r in rows]))


def flat(rows, fmt):
    return " ".join(fmt(x) for r in rows for x in r)


def dlist(xs):
    return "[" + ",".join(repr(float(x)) for x in xs) + "]"


best_bid = [max(r) for r in bid_p]
best_ask = [min(r) for r in ask_p]
spread = [a - b for a, b in zip(best_ask, best_bid)]
sbv = np.array([sum(r) for r in bid_v], dtype=float)
sav = np.array([sum(r) for r in ask_v], dtype=float)
notional = np.array([np.dot(p, v) + np.dot(q, w) for p, v, q, w in zip(bid_p, bid_v, ask_p, ask_v)])
wmid = notional / (sbv + sav)
imb = (sbv - sav) / (sbv + sav)

print(f'bidP = arrayVector({ends(bid_p)}, {flat(bid_p, lambda x: f"{x:.2f}")})')
print(f'bidV = arrayVector({ends(bid_v)}, {flat(bid_v, str)})')
print(f'askP = arrayVector({ends(ask_p)}, {flat(ask_p, lambda x: f"{x:.2f}")})')
print(f'askV = arrayVector({ends(ask_v)}, {flat(ask_v, str)})')
print("// expected")
print("bestBid", dlist(best_bid))
print("bestAsk", dlist(best_ask))
print("spread", dlist(spread))
print("sumBidVol", "[" + ",".join(str(int(x)) for x in sbv) + "]")
print("sumAskVol", "[" + ",".join(str(int(x)) for x in sav) + "]")
print("wmid", dlist(wmid))
print("imbalance", dlist(imb))
print("bidLevels", [len(r) for r in bid_p])
print("askLevels", [len(r) for r in ask_p])
print("bidVolL1", [r[0] for r in bid_v])
