"""Expected values of tests/realworld/keyed_upsert_index.dos, computed with pandas.

A keyed table keeps one row per key: the rows of the table and of every batch, in order,
deduplicated with drop_duplicates(keep='last') give each key's values; the row order is
the order in which keys first appeared (pd.unique). A latest keyed table keeps, per key,
the first row with the greatest time (later rows with an equal time win)."""
import numpy as np
import pandas as pd


def keyed(frames, keys):
    allrows = pd.concat(frames, ignore_index=True)
    order = allrows[keys].drop_duplicates(keep="first")
    last = allrows.drop_duplicates(keys, keep="last")
    return order.merge(last, on=keys, how="left")


def latest(frames, keys, tcol):
    allrows = pd.concat(frames, ignore_index=True)
    order = allrows[keys].drop_duplicates(keep="first")
    rows = []
    for _, g in allrows.groupby(keys, sort=False):
        cur = None
        for _, r in g.iterrows():
            if cur is None or r[tcol] >= cur[tcol]:
                cur = r
        rows.append(cur)
    best = pd.DataFrame(rows)
    return order.merge(best, on=keys, how="left")


# case batch_duplicates
base = pd.DataFrame({"id": [1, 2, 3, 4, 5], "v": [1.5, 2.5, 3.5, 4.5, 5.5], "q": [10, 20, 30, 40, 50]})
b1 = pd.DataFrame({"id": [3, 6, 3, 7, 6, 1], "v": [30.0, 60.0, 31.0, 70.0, 61.0, 10.0], "q": [300, 600, 310, 700, 610, 100]})
r = keyed([base, b1], ["id"])
print("batch_duplicates", r.id.tolist(), r.v.tolist(), r.q.tolist())

# case multi_column_keys: 60 batches of 20 rows, by four routes
syms = ["S%02d" % k for k in range(13)]
frames = []
for b in range(60):
    i = np.arange(20)
    frames.append(pd.DataFrame({
        "sym": [syms[(b * 7 + k) % 13] for k in i],
        "date": pd.Timestamp("2024-01-01") + pd.to_timedelta((b * 3 + i) % 9, unit="D"),
        "px": b * 100.0 + i,
        "n": b * 20 + i,
    }))
r = keyed(frames, ["sym", "date"])
print("multi rows", len(r), "sum px", r.px.sum(), "sum n", r.n.sum())
print("multi head", r.sym.head(4).tolist(), [d.strftime("%Y.%m.%d") for d in r.date.head(4)], r.px.head(4).tolist())
x = r[(r.sym == "S05") & (r.date == pd.Timestamp("2024-01-07"))]
print("multi S05 2024.01.07", x.px.tolist(), x.n.tolist())
print("multi S00 px sorted by date", r[r.sym == "S00"].sort_values("date").px.tolist())

# case symbol_timestamp_keys (upsert! ignoreNull=true)
t0 = pd.Timestamp("2024-03-01 09:30:00")
ms = pd.to_timedelta
base = pd.DataFrame({"sym": ["A", "B", "A", "C"], "ts": [t0, t0, t0 + ms(1, "ms"), t0], "px": [10.0, 20.0, 11.0, 30.0], "vol": [100, 200, 110, 300]})
upd = pd.DataFrame({"sym": ["A", "C", "D", "A", "D"], "ts": [t0 + ms(1, "ms"), t0, t0, t0, t0],
                    "px": [np.nan, 31.0, 40.0, 12.0, np.nan], "vol": [111, np.nan, 400, np.nan, 401]})
# ignoreNull: a NULL keeps the value before it, so fold each key's rows column by column
allrows = pd.concat([base, upd], ignore_index=True)
order = allrows[["sym", "ts"]].drop_duplicates()
vals = allrows.groupby(["sym", "ts"], sort=False)[["px", "vol"]].last()  # last non-null per column
r = order.merge(vals.reset_index(), on=["sym", "ts"])
print("symts", r.sym.tolist(), [str(x) for x in r.ts], r.px.tolist(), r.vol.tolist())

# case latest_keyed
def T(s):
    return pd.Timestamp("2024-03-01 " + s)
f0 = pd.DataFrame({"sym": ["A", "B", "C"], "t": [T("09:30:05"), T("09:30:05"), T("09:30:05")], "px": [1.0, 2.0, 3.0]})
f1 = pd.DataFrame({"sym": ["A", "B", "A", "D", "D", "C"],
                   "t": [T("09:30:04"), T("09:30:06"), T("09:30:07"), T("09:30:09"), T("09:30:08"), T("09:30:05")],
                   "px": [10.0, 20.0, 11.0, 40.0, 41.0, 30.0]})
f2 = pd.DataFrame({"sym": ["B", "A", "E", "E"], "t": [T("09:30:01"), T("09:30:07"), T("09:30:02"), T("09:30:01")], "px": [21.0, 12.0, 50.0, 51.0]})
r = latest([f0, f1, f2], ["sym"], "t")
print("latest", r.sym.tolist(), [x.strftime("%H:%M:%S") for x in r.t], r.px.tolist())
