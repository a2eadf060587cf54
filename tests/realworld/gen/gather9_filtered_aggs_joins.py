"""Generator of tests/realworld/gather9_filtered_aggs_joins.dos: quotes of three days in a
date-partitioned database (two segments a day), aggregated under a dense and a sparse filter, and joined to a
symbol table. Expected values from pandas. Run: python3 gather9_filtered_aggs_joins.py > ../gather9_filtered_aggs_joins.dos"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(9)
syms = ["AAPL", "IBM", "MSFT", "ORCL", "XOM"]
rows = []
for day in ["2026.03.02", "2026.03.03", "2026.03.04"]:
    # ZZZ trades only before the open: its group exists in the partition, not in the session
    for k in range(3):
        rows.append((day, "ZZZ", 8 * 3600 + 60 * k, 10.0 + k, 10.5 + k, 100))
    for k in range(120):
        s = syms[rng.integers(0, 5)]
        # ~96% of the rows in the session 09:30-16:00, the rest before or after it
        if rng.random() < 0.96:
            t = int(rng.integers(9 * 3600 + 1800, 16 * 3600 + 1))
        else:
            t = int(rng.choice([rng.integers(7 * 3600, 9 * 3600 + 1800), rng.integers(16 * 3600 + 1, 18 * 3600)]))
        bid = round(float(rng.uniform(20, 200)), 2)
        ofr = round(bid + float(rng.uniform(0.01, 0.5)), 2)
        qty = int(rng.integers(1, 50)) * 100
        # NULLs: bid, ofr and qty are empty now and then
        if rng.random() < 0.08:
            bid = None
        if rng.random() < 0.08:
            ofr = None
        if rng.random() < 0.1:
            qty = None
        rows.append((day, s, t, bid, ofr, qty))
# IBM's quotes of the last day all before the open or without qty in the session
df = pd.DataFrame(rows, columns=["date", "sym", "time", "bid", "ofr", "qty"])
df = df.sort_values(["date", "time"], kind="stable").reset_index(drop=True)
df["qty"] = df["qty"].astype("Int64")


def fmt_t(s):
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def fmt(x):
    if x is None or (isinstance(x, float) and np.isnan(x)) or x is pd.NA:
        return ""
    return f"{x:.2f}" if isinstance(x, float) else str(x)


def csv_of(part):
    return "date,sym,time,bid,ofr,qty\\n" + "".join(
        f"{r.date},{r.sym},{fmt_t(r.time)},{fmt(r.bid)},{fmt(r.ofr)},{fmt(r.qty)}\\n" for r in part.itertuples())


# two files, each holding part of every day (the first 60% of its rows, then the rest):
# every date partition gets two segments, in table order
pos = df.groupby("date").cumcount()
size = df.groupby("date")["date"].transform("size")
early_part = pos < (size * 0.6).astype(int)
csv_a, csv_b = csv_of(df[early_part]), csv_of(df[~early_part])

info = pd.DataFrame({"sym": ["AAPL", "IBM", "MSFT", "ORCL", "ZZZ"],
                     "sector": ["tech", "tech", "tech", "software", "none"],
                     "lot": [100, 100, 50, 100, 10]})


def dvec(v):
    return "[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), 10)) for x in v) + "]"


def ivec(v):
    return "[" + ", ".join("NULL" if pd.isna(x) else str(int(x)) for x in v) + "]"


def svec(v):
    return "[" + ", ".join('"' + x + '"' for x in v) + "]"


def first_of(s):
    return s.iloc[0]


def last_of(s):
    return s.iloc[-1]


def grouped(sub):
    sub = sub.copy()
    sub["mid"] = (sub["ofr"] + sub["bid"]) / 2.0
    g = sub.groupby(["sym", "date"], sort=True)
    out = pd.DataFrame({
        "mid": g["mid"].mean(),
        "q": g["qty"].sum(min_count=1),
        "nq": g["qty"].count(),
        "n": g.size(),
        "lo": g["bid"].min(),
        "hi": g["ofr"].max(),
        "fb": g["bid"].agg(first_of),
        "lastofr": g["ofr"].agg(last_of),
    }).reset_index()
    return out


session = (df["time"] >= 9 * 3600 + 1800) & (df["time"] <= 16 * 3600)
dense = grouped(df[session])
sparse = grouped(df[df["bid"] > 170])
import sys
print(f"// share of rows in the session: {session.mean():.3f} per segment {df[session].groupby([df.date, early_part]).size().div(df.groupby([df.date, early_part]).size()).round(3).tolist()}; bid > 170: {(df['bid'] > 170).mean():.3f}", file=sys.stderr)


def checks(name, r):
    return "\n".join([
        f'assert 1, eqObj(r.sym, symbol({svec(r["sym"])}))',
        f'assert 2, eqObj(r.date, {"[" + ", ".join(r["date"]) + "]"})',
        f'assert 3, max(abs(nullFill(r.mid, -1.0) - nullFill({dvec(r["mid"])}, -1.0))) < 1e-9',
        f'assert 4, eqObj(r.q, long({ivec(r["q"])}))',
        f'assert 5, eqObj(r.nq, {ivec(r["nq"])})',
        f'assert 6, eqObj(r.n, {ivec(r["n"])})',
        f'assert 7, eqObj(r.lo, {dvec(r["lo"])})',
        f'assert 8, eqObj(r.hi, {dvec(r["hi"])})',
        f'assert 9, eqObj(r.fb, {dvec(r["fb"])})',
        f'assert 10, eqObj(r.lastofr, {dvec(r["lastofr"])})',
    ])


QUERY = ("select avg(ofr + bid) / 2.0 as mid, sum(qty) as q, count(qty) as nq, count(*) as n, "
         "min(bid) as lo, max(ofr) as hi, first(bid) as fb, last(ofr) as lastofr from t "
         "where {cond} group by sym, date order by sym, date")

ses = df[session]
tot = {"n": len(ses), "avgbid": ses["bid"].mean(), "q": ses["qty"].sum(), "mx": ses["ofr"].max()}

j = df.merge(info, on="sym", how="inner")
tech_hi = j[(j["sector"] == "tech") & (j["bid"] > 150)]
early = j[j["time"] < 10 * 3600]
lj = df.merge(info, on="sym", how="left")
lj_xom = lj[lj["sym"] == "XOM"]
dup = pd.DataFrame({"sym": ["IBM", "IBM", "MSFT"], "tag": ["a", "b", "c"]})
jd = df.merge(dup, on="sym", how="inner")

print(f"""// Quotes of three days in a database partitioned by date (two imports: two segments a day), with
// NULL bids, offers and sizes, aggregated per symbol and day under a filter that keeps
// most rows (the regular session, ~93%, 90-96% per segment: the segments come back whole and the
// aggregates run under the mask) and one that keeps few (bid > 170: gathered rows), and
// joined to a symbol table (a unique key: 32-bit lookups; a key with two rows: pairs).
// ZZZ trades only before the open: its group must not appear under the session filter.
// Expected values: tests/realworld/gen/gather9_filtered_aggs_joins.py (pandas).

@testing: case = "setup"
root = "/tmp/beluga_gather9_quotes"
if (exists(root)) rmdir(root, true)
mkdir(root)
saveTextFile("{csv_a}", root + "/quotes_a.csv")
saveTextFile("{csv_b}", root + "/quotes_b.csv")
schema = table(`date`sym`time`bid`ofr`qty as name, `DATE`SYMBOL`SECOND`DOUBLE`DOUBLE`INT as type)
db = database(root + "/db", VALUE, 2026.03.02..2026.03.04)
// two imports: every day's partition holds two segments
loadTextEx(db, `quotes, `date, root + "/quotes_a.csv", , schema)
loadTextEx(db, `quotes, `date, root + "/quotes_b.csv", , schema)
assert 1, (exec count(*) from loadTable(root + "/db", `quotes)) == {len(df)}

@testing: case = "dense_filter_group_by"
t = loadTable(root + "/db", `quotes)
r = {QUERY.format(cond="time between 09:30:00 : 16:00:00")}
{checks("dense", dense)}
assert 11, !(`ZZZ in r.sym)

@testing: case = "dense_filter_two_conditions"
// a partition-decided date condition and the session: the same groups minus the first day
r = {QUERY.format(cond="date >= 2026.03.03, time between 09:30:00 : 16:00:00")}
{checks("dense2", dense[dense["date"] >= "2026.03.03"].reset_index(drop=True))}

@testing: case = "sparse_filter_group_by"
r = {QUERY.format(cond="bid > 170.0")}
{checks("sparse", sparse)}

@testing: case = "dense_filter_no_group"
t = loadTable(root + "/db", `quotes)
r = select count(*) as n, avg(bid) as ab, sum(qty) as q, max(ofr) as mx from t where time between 09:30:00 : 16:00:00
assert 1, r.n[0] == {tot["n"]}
assert 2, abs(r.ab[0] - {float(tot["avgbid"])!r}) < 1e-9
assert 3, r.q[0] == {int(tot["q"])}
assert 4, r.mx[0] == {float(tot["mx"])!r}

@testing: case = "equi_join_filters_on_either_side"
info = table(symbol({svec(info["sym"])}) as sym, symbol({svec(info["sector"])}) as sector, {ivec(info["lot"])} as lot)
t = loadTable(root + "/db", `quotes)
// a condition on the right table's column and one on the stored left table's
r = select date, time, sym, bid, lot from ej(t, info, `sym) where sector = "tech", bid > 150.0 order by date, time, sym
assert 1, r.rows() == {len(tech_hi)}
assert 2, eqObj(r.bid, {dvec(tech_hi.sort_values(["date", "time", "sym"], kind="stable")["bid"])})
assert 3, eqObj(r.lot, {ivec(tech_hi.sort_values(["date", "time", "sym"], kind="stable")["lot"])})
// distinct of a right column after the join, the left side filtered
d = select distinct sector from ej(t, info, `sym) where time < 10:00:00
assert 4, eqObj(sort(string(d.sector)), {svec(sorted(early["sector"].unique()))})
// left join: XOM has no row in info, its sector and lot are NULL
l = select sym, sector, lot from lj(t, info, `sym) where sym = `XOM
assert 5, l.rows() == {len(lj_xom)}
assert 6, all(isNull(l.sector)) && all(isNull(l.lot))
// a right key with two rows: every pair
p = select count(*) as n from ej(t, table(symbol({svec(dup["sym"])}) as sym, {svec(dup["tag"])} as tag), `sym)
assert 7, p.n[0] == {len(jd)}
rmdir(root, true)
""")
