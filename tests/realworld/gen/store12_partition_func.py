"""Expected values for tests/realworld/store12_partition_func.dos (pandas).

Order events whose id embeds the trading day ("ORD-20240105-000123"): the script
partitions them by a function that parses that day out of the id (VALUE on DATE) and
hashes the symbol (HASH). Three daily files arrive, one of them with a late-night order
of the next day; later a cancelled order is deleted and one quantity is amended. The
second table is partitioned by a user function of a region code (code div 1000, VALUE
1..5). Every row follows the script's formulas.
"""
import pandas as pd
import numpy as np

syms = ["AAPL", "MSFT", "IBM", "TSLA", "AMZN"]


def day_file(d, n):
    k = np.arange(n)
    day = pd.Timestamp(2024, 1, 4 + d)
    ids = [f"ORD-{day:%Y%m%d}-{(d * 1000 + x):06d}" for x in k]
    return pd.DataFrame({
        "orderId": ids,
        "sym": [syms[(x * 3 + d) % 5] for x in k],
        "qty": (k % 7 + 1) * 100,
        "price": 100 + (k * 13 % 50) / 4.0 + d,
    })


f1, f2, f3 = day_file(1, 40), day_file(2, 55), day_file(3, 30)
# one order of day 3's file carries the next day's id (placed after midnight)
late = pd.DataFrame({"orderId": ["ORD-20240108-009999"], "sym": ["IBM"], "qty": [500], "price": [120.5]})
allo = pd.concat([f1, f2, f3, late], ignore_index=True)
allo["day"] = pd.to_datetime(allo.orderId.str[4:12], format="%Y%m%d")
print("total", len(allo), "days", sorted(allo.day.dt.strftime("%Y.%m.%d").unique()))
g = allo.groupby("day").agg(n=("qty", "size"), q=("qty", "sum"))
print(g)
print("partitions (day, sym hash differ by implementation) distinct days", allo.day.nunique())
print("notional %.4f" % (allo.qty * allo.price).sum())
# delete the cancelled order and amend one quantity
allo = allo[allo.orderId != "ORD-20240106-002010"]
allo.loc[allo.orderId == "ORD-20240105-001003", "qty"] = 900
print("after edit", len(allo), "qty", int(allo.qty.sum()), "day6 n", int((allo.day == "2024-01-06").sum()))
print("MSFT qty", int(allo[allo.sym == "MSFT"].qty.sum()))

# region table
k = np.arange(60)
codes = 1000 + (k * 37 % 4000)
v = (k % 9 + 1) * 1.5
reg = pd.DataFrame({"code": codes, "v": v})
reg["region"] = reg.code // 1000
print(reg.groupby("region").v.agg(["size", "sum"]))

# pruning case: one order looked up by id, and two days' ids with `in`
one = allo[allo.orderId == "ORD-20240106-002011"]
print("lookup", one[["sym", "qty", "price"]].to_dict("records"))
two = allo[allo.orderId.isin(["ORD-20240105-001000", "ORD-20240107-003029"])]
print("in", len(two), int(two.qty.sum()))
print("ids after ORD-20240107", int((allo.orderId > "ORD-20240107").sum()))
