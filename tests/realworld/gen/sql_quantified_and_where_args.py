"""Expected values of tests/realworld/sql_quantified_and_where_args.dos.

Quantified comparisons `x op any(S)` / `x op all(S)` are computed here by their
definition (progr/sql/any.md: compare x with each element of S, then any/all of the
results), one pair at a time, under DolphinDB's comparison rules (LANGUAGE.md 2.5: a NULL
compares as the smallest value, `==`/`!=` treat NULL as a value). Rows without NULLs are
cross-checked with duckdb, whose ANY/ALL are the SQL standard ones.
Run: python3 tests/realworld/gen/sql_quantified_and_where_args.py
"""
import duckdb

NULL = None
ids = [1, 2, 3, 4, 5, 6, 7, 8]
x = [3, NULL, 7, 1, 5, NULL, 9, 4]
sets = {
    "withnull": [4, 7, NULL],   # select v from s
    "plain": [4, 7],            # select v from s where k = 1
    "empty": [],                # select v from s where k = 5
    "single": [5, 5],           # select v from s2
}

def key(v):
    return (0, 0) if v is None else (1, v)

def cmp(op, a, b):
    if op in ("==", "!="):
        r = (a is None and b is None) or (a is not None and b is not None and a == b)
        return r if op == "==" else not r
    ka, kb = key(a), key(b)
    return {"<": ka < kb, "<=": ka <= kb, ">": ka > kb, ">=": ka >= kb}[op]

def quant(op, q, S):
    out = []
    for i, xv in zip(ids, x):
        rs = [cmp(op, xv, e) for e in S]
        if (any(rs) if q == "any" else all(rs)):
            out.append(i)
    return out

res = {}
for sname, S in sets.items():
    for op in ("<", "<=", ">", ">=", "==", "!="):
        for q in ("any", "all"):
            res[(sname, op, q)] = quant(op, q, S)
            print(sname, op, q, res[(sname, op, q)])

# cross-check with duckdb where neither side holds NULL
con = duckdb.connect()
con.execute("create table t(id int, x int)")
con.executemany("insert into t values (?, ?)", list(zip(ids, x)))
con.execute("create table s(v int)")
con.executemany("insert into s values (?)", [[4], [7]])
for op in ("<", "<=", ">", ">=", "=", "<>"):
    for q in ("any", "all"):
        got = [r[0] for r in con.execute(f"select id from t where x is not null and x {op} {q}(select v from s) order by id").fetchall()]
        pyop = {"=": "==", "<>": "!="}.get(op, op)
        mine = [i for i in res[("plain", pyop, q)] if x[ids.index(i)] is not None]
        assert got == mine, (op, q, got, mine)
print("duckdb agrees on non-null rows")

# having: groups g of t whose sum(x) (NULL skipped) is > all of the x of group 'c'
g = ["a", "b", "a", "c", "b", "a", "c", "b"]
sums = {}
for gv, xv in zip(g, x):
    if xv is not None:
        sums[gv] = sums.get(gv, 0) + xv
cset = [xv for gv, xv in zip(g, x) if gv == "c"]
print("having > all(c):", sorted(k for k, v in sums.items() if all(v > e for e in cset)))
print("sums", sums)

# the assert lines of the case "quantified_null_empty" (pasted into the script)
src = {"withnull": "select v from s", "plain": "select v from s where k = 1",
       "empty": "select v from s where k = 5", "single": "exec v from s2"}
n = 0
for sname in sets:
    for op in ("<", "<=", ">", ">=", "==", "!="):
        for q in ("any", "all"):
            n += 1
            r = res[(sname, op, q)]
            lit = "array(INT, 0)" if not r else "[" + ",".join(map(str, r)) + "]"
            print(f"assert {n}, eqObj(exec id from t where x {op} {q}({src[sname]}), {lit})")
