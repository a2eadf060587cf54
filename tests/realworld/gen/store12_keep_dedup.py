"""Expected values for tests/realworld/store12_keep_dedup.dos (pandas).

A TSDB quote table (sortColumns sym, time) of 200,000 rows in one daily partition, then a
correction batch: 3,000 re-sent quotes with new prices, 1,000 new quotes after the last
one, and the first 10 corrections sent a second time inside the batch. keepDuplicates=LAST
keeps the last row of every (sym, time), FIRST the first one; both read back sorted by
(sym, time). The formulas are the script's.
"""
import numpy as np
import pandas as pd

n = 200000
base = pd.Timestamp("2024-01-02 09:30:00")
syms = np.array([f"S{k}" for k in range(50)])
i = np.arange(n)
t0 = pd.DataFrame({
    "sym": syms[i % 50],
    "time": base + pd.to_timedelta(i * 100, unit="ms"),
    "price": 10 + (i * 37 % 1000) / 100.0,
    "qty": i % 97 + 1,
})
k = np.arange(3000)
j = k * 61
corr = pd.DataFrame({"sym": syms[j % 50], "time": base + pd.to_timedelta(j * 100, unit="ms"), "price": 500.0 + k, "qty": np.full(3000, 7)})
k2 = np.arange(1000)
new = pd.DataFrame({"sym": syms[k2 % 50], "time": base + pd.to_timedelta((n + k2) * 100, unit="ms"), "price": 20.0 + k2 / 4.0, "qty": k2 % 5 + 1})
k3 = np.arange(10)
again = pd.DataFrame({"sym": syms[(k3 * 61) % 50], "time": base + pd.to_timedelta(k3 * 61 * 100, unit="ms"), "price": 900.0 + k3, "qty": np.full(10, 9)})
batch = pd.concat([corr, new, again], ignore_index=True)
print("batch rows", len(batch))
for keep in ["last", "first"]:
    allrows = pd.concat([t0, batch], ignore_index=True)
    r = allrows.drop_duplicates(["sym", "time"], keep=keep).sort_values(["sym", "time"], kind="stable").reset_index(drop=True)
    print(keep, "count", len(r), "sumPrice %.4f" % r.price.sum(), "sumQty", int(r.qty.sum()))
    s7 = r[r.sym == "S7"]
    print(keep, "S7 count", len(s7), "S7 sumPrice %.4f" % s7.price.sum())
    print(keep, "first rows", r.head(3).to_dict("records"))
    print(keep, "last row", r.tail(1).to_dict("records"))
    for jj in [0, 61, 122, 610]:
        row = r[(r.sym == syms[jj % 50]) & (r.time == base + pd.Timedelta(milliseconds=jj * 100))]
        print(keep, "key", jj, syms[jj % 50], row.price.tolist(), row.qty.tolist())
