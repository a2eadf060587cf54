"""Expected values for tests/realworld/numeric3_nan.dos: a sensor feed whose exporter writes
NaN for a failed reading, inf for a saturated one and nothing for a missing one. Missing
fields are NULL; NaN and inf are IEEE values, so aggregates over them follow IEEE 754
(numpy's sum/mean/max, which propagate NaN) while NULLs are skipped. Run by hand:
python3 numeric3_nan.py; paste its output into the script."""
import math
import numpy as np

rows = [
    ("t01", "12.5"), ("t01", "NaN"), ("t01", "13.25"),
    ("t02", ""), ("t02", "7.75"), ("t02", "8.5"),
    ("t03", "inf"), ("t03", "4.0"), ("t03", ""),
    ("t04", "-inf"), ("t04", "inf"), ("t04", "1.0"),
    ("t05", "2.5"), ("t05", "3.5"), ("t05", "NaN"),
]
print("csv =", repr("dev,v\n" + "".join(f"{d},{v}\n" for d, v in rows)))
devs = sorted({d for d, _ in rows})
val = {d: [float(v) for dd, v in rows if dd == d and v != ""] for d in devs}
nulls = {d: sum(1 for dd, v in rows if dd == d and v == "") for d in devs}


def dd(xs):
    out = []
    for x in xs:
        if math.isnan(x):
            out.append('double("nan")')
        elif math.isinf(x):
            out.append('double("inf")' if x > 0 else '-double("inf")')
        else:
            out.append(repr(float(x)))
    return "[" + ", ".join(out) + "]"


print("devs =", "`" + "`".join(devs))
print("cnt =", [len(val[d]) for d in devs])
print("nnull =", [nulls[d] for d in devs])
print("nspecial =", [sum(1 for x in val[d] if not math.isfinite(x)) for d in devs])
print("sums =", dd([np.sum(val[d]) for d in devs]))
print("avgs =", dd([np.mean(val[d]) for d in devs]))
print("maxs =", dd([np.max(val[d]) for d in devs]))
clean = {d: [x if math.isfinite(x) else 0.0 for x in val[d]] for d in devs}
print("clean_sums =", dd([np.sum(clean[d]) for d in devs]))
allv = [x for d in devs for x in val[d]]
print("total_count =", len(allv))
