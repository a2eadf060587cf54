#!/usr/bin/env python3
"""Expected values of perf7_decimal_prices.dos (numpy): quotes whose prices have 2 and 4
decimals (stored as scaled integers), with NULLs and values that are no short decimal."""
import numpy as np

n = 60000
k = np.arange(n, dtype=np.int64)
bid = (k * 7919 % 100003) / 100.0 + 10
bid = np.where(k % 1013 == 5, 1.0 / 3, bid)
bid = np.where(k % 997 == 0, np.nan, bid)
ofr = bid + (k % 17) / 10000.0
day = k // 20000
size = (k * 31 % 500) + 100
print("count null bid", int(np.isnan(bid).sum()))
for d in range(3):
    m = day == d
    print("day", d, "sum bid %.6f" % np.nansum(bid[m]), "max ofr %.4f" % np.nanmax(ofr[m]), "min bid %.17g" % np.nanmin(bid[m]))
m = (day == 1) & (bid > 500)
print("day1 bid>500 count", int(m.sum()), "sum ofr %.6f" % ofr[m].sum())
sp = ofr - bid
print("max spread %.17g" % np.nanmax(sp), "count spread > 0.0015", int((sp > 0.0015).sum()))
w = ~np.isnan(bid)
print("wavg bid by size %.9f" % ((bid[w] * size[w]).sum() / size[w].sum()))
