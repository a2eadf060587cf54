# Expected values for panel_indexed_align.dos (case "excess_returns_pandas"): stock returns
# (dates x symbols, one source) minus a benchmark return series on a different date set,
# and a weight panel whose symbols and dates overlap only partly. pandas aligns on the
# labels (outer join, NaN where one side is missing), as DolphinDB's indexed objects do.
import pandas as pd

dates = pd.to_datetime(["2023-03-01", "2023-03-02", "2023-03-03", "2023-03-06", "2023-03-07"])
ret = pd.DataFrame({"AAPL": [0.010, -0.020, 0.015, 0.000, 0.005],
                    "IBM": [0.002, 0.004, -0.006, 0.008, -0.001],
                    "MSFT": [-0.010, 0.012, 0.003, -0.004, 0.007]}, index=dates)
bdates = pd.to_datetime(["2023-03-02", "2023-03-03", "2023-03-06", "2023-03-07", "2023-03-08"])
bench = pd.Series([0.001, -0.002, 0.003, 0.004, -0.005], index=bdates)
excess = ret.sub(bench, axis=0)
print("excess (rows = union of dates):")
print(excess.to_string())
for c in excess.columns:
    print(c, [None if pd.isna(x) else round(x, 6) for x in excess[c]])

wdates = pd.to_datetime(["2023-03-03", "2023-03-06", "2023-03-07", "2023-03-08"])
w = pd.DataFrame({"AAPL": [0.5, 0.4, 0.3, 0.2], "GOOG": [0.2, 0.2, 0.3, 0.3], "IBM": [0.3, 0.4, 0.4, 0.5]}, index=wdates)
contrib = ret * w
print("contrib rows:", [d.strftime("%Y.%m.%d") for d in contrib.index])
print("contrib cols:", list(contrib.columns))
for c in contrib.columns:
    print(c, [None if pd.isna(x) else round(x, 6) for x in contrib[c]])
