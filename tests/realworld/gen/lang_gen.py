"""Expected values for tests/realworld/lang_*.dos, computed with numpy/pandas.
Run by hand: python3 lang_gen.py; paste the printed values into the scripts."""
import numpy as np
import pandas as pd

pd.set_option("display.precision", 12)

def fmt(xs):
    return "[" + ", ".join("NULL" if (x is None or (isinstance(x, float) and np.isnan(x))) else repr(round(float(x), 10)) for x in xs) + "]"

# factor module (lang_module_factors.dos)
sym = ["A", "A", "A", "A", "A", "B", "B", "B", "B", "B"]
px = [10.0, 10.5, 10.2, 10.8, 11.0, 20.0, 19.5, 19.8, 20.4, 21.0]
df = pd.DataFrame({"sym": sym, "px": px})
g = df.groupby("sym")["px"]
mom = g.transform(lambda s: s / s.shift(2) - 1)
z = g.transform(lambda s: (s - s.rolling(3).mean()) / s.rolling(3).std(ddof=1))
print("momentum2", fmt(mom))
print("zscore3", fmt(z))
# trailing-dot literals and shadowed builtins
print("avg_0_1.5_2", np.mean([0.0, 1.5, 2.0]))
# per-sym summary: sum, max, count, and last-first range
agg = df.groupby("sym")["px"].agg(["sum", "max", "count"])
print("sum", list(agg["sum"]), "max", list(agg["max"]), "count", list(agg["count"]))
rng = df.groupby("sym")["px"].agg(lambda s: s.iloc[-1] - s.iloc[0])
print("range", [round(v, 10) for v in rng])
# context by multi-col: cumsum and px*2 per sym
cs = g.cumsum()
print("cumsum", fmt(cs))
# weighted mid price from parseExpr-built calls: wavg(px, qty)
qty = [100, 200, 150, 300, 250, 50, 80, 120, 60, 90]
df["qty"] = qty
w = df.groupby("sym").apply(lambda d: np.average(d.px, weights=d.qty), include_groups=False)
print("wavg", [round(v, 10) for v in w])
# arity/defaults: f(a, b=3) = a * b + 1
print("defaults", 4 * 3 + 1, 4 * 5 + 1)
# session tutorial: value-weighted return over the whole table
ret = df.groupby("sym")["px"].transform(lambda s: s.pct_change())
print("ret", fmt(ret))
print("sum_ret_nonnull", round(float(ret.sum(skipna=True)), 10))

# SQL macro variables (lang_sql_macros.dos), the table of progr/macrovariations
m = pd.DataFrame({
    "city": ["Rome", "London", "London", "Rome", "Rome"],
    "sold1": [200, 500, 100, 300, 300],
    "sold2": [2100, 1500, 1100, 3100, 2300],
})
print("avg_sold1_by_city", m.groupby("city")["sold1"].mean().round(10).to_dict())
print("rowsum", list(m.sold1 + m.sold2))
print("cumsum_sold2_by_city", list(m.groupby("city")["sold2"].cumsum()))
print("sold1>150 sum sold2", int(m[m.sold1 > 150].sold2.sum()))

# test-file layout (lang_testing_layout.dos): a running VWAP over cases
trades_px = [100.0, 100.5, 99.8, 101.2]
trades_qty = [300, 200, 500, 100]
print("vwap", round(float(np.average(trades_px, weights=trades_qty)), 10))
print("vwap_first2", round(float(np.average(trades_px[:2], weights=trades_qty[:2])), 10))
