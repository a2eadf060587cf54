#!/usr/bin/env python3
"""sem13 matrix-shape audit (issue 12 item 11): writes a Beluga script that calls every
element-wise, moving, cumulative, TopN, null-handling and operator builtin listed in
../shared/spec/functions.tsv on a labelled dates x securities matrix and prints, for each,
"LOST ..." when the result is not a matrix of the same shape and labels, or "error" when
no call shape is accepted (tm* take vectors by the manual, funcs/themes/tmFunctions.md).
Usage: python3 sem13_matrix_audit.py out.dos && beluga --keep-going out.dos
Result on 2026-12-02: no builtin that accepts a matrix loses its shape or labels; the
registry-driven test tests/it/matrix_forms.rs keeps it so."""
import csv, os, sys
SPEC = os.path.join(os.environ.get("BELUGA_SHARED", os.path.join(os.path.dirname(__file__), "../../../../shared")), "spec/functions.tsv")
cats = {"math", "moving(m*)", "cumulative(cum*)", "moving-topN", "null-handling", "operator", "ta-lib", "time-moving(tm*)"}
names = []
for row in csv.reader(open(SPEC), delimiter="\t"):
    if len(row) >= 2 and row[1] in cats:
        names.append(row[0])
# calls to try, first success counts
def calls(n):
    if n.startswith("tm"):
        return [f"{n}(rowNames(m), m, 3d)", f"{n}(rowNames(m), m, m, 3d)"]
    if n.endswith("TopN"):
        return [f"{n}(m, m, 3, 2)", f"{n}(m, m, m, 3, 2)", f"{n}(m, 3, 2)"]
    if n.startswith("m") and n not in ("mod", "max", "min", "mul", "mask"):
        return [f"{n}(m, 3)", f"{n}(m, m, 3)", f"{n}(m, 3, 0.5)", f"{n}(m, true, 3)"]
    if n.startswith("cum"):
        return [f"{n}(m)", f"{n}(m, m)", f"{n}(m, 2)"]
    return [f"{n}(m)", f"{n}(m, 2)", f"{n}(m, m)", f"{n}(m, 0.5)", f"{n}(m, 3, 2)"]
out = ["m = matrix(1.5 -2.0 NULL 4.25 3.0 1.0, -0.5 3.0 2.0 -1.0 0.5 2.5, 0.25 1.0 -3.5 2.5 1.5 0.75)",
       "m.rename!(2024.01.02..2024.01.07, `AAA`BBB`CCC)",
       "def shapeOk(r, m) { return form(r) == 3 && rows(r) == rows(m) && cols(r) == cols(m) && eqObj(rowNames(r), rowNames(m)) && eqObj(colNames(r), colNames(m)) }",
       "def describe(r) { if (form(r) == 3) return 'matrix ' + string(rows(r)) + 'x' + string(cols(r)) + ' labels ' + string(isVoid(rowNames(r))) ; return 'form ' + string(form(r)) + ' size ' + string(size(r)) }"]
for n in names:
    cs = calls(n)
    # nested try: first call that does not raise is judged
    body = f'print("{n}: error")'
    for c in reversed(cs):
        esc = c.replace('"', '\\"')
        body = f'try {{ r = {c}; if (!shapeOk(r, m)) print("{n}: LOST " + describe(r) + " by {esc}") }} catch(e) {{ {body} }}'
    out.append(body)
open(sys.argv[1], "w").write("\n".join(out) + "\n")
