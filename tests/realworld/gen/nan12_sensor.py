"""Expected values for tests/realworld/nan12_sensor_nan.dos: a sensor table where a failed
reading arrived as NaN, a saturated one as inf and a missing one as NULL, and the gain
calibration column (a DOUBLE key) holds NaN and NULL too.

NULL and NaN are kept apart here by hand (None vs float('nan')), since pandas folds both into
one missing value: NULL is the smallest value and is skipped by aggregates; NaN is a value of
its own that sorts above +inf (where numpy.sort puts it), groups with every other NaN, matches
NaN in an equi-join (as pandas.merge does), and makes every moment statistic NaN (numpy).
Run by hand: python3 nan12_sensor.py; paste its output into the script."""
import math
import numpy as np

NAN, INF = float("nan"), float("inf")
dev = list("aaabbbcccddd")
v = [1.5, 2.5, 4.0, 3.0, NAN, 5.0, 2.0, None, 6.0, INF, 1.0, 2.0]
gain = [1.0, 1.0, 0.5, NAN, NAN, 1.0, None, 0.5, NAN, 2.0, None, 1.0]
qty = list(range(1, 13))


def lit(xs):
    out = []
    for x in xs:
        if x is None:
            out.append("NULL")
        elif isinstance(x, float) and math.isnan(x):
            out.append("nan")
        elif isinstance(x, float) and math.isinf(x):
            out.append("inf" if x > 0 else "-inf")
        else:
            out.append(repr(float(x)) if isinstance(x, (float, np.floating)) else repr(x))
    return "[" + ", ".join(out) + "]"


def key(x):
    # NULL first, then numbers (inf included), then NaN
    if x is None:
        return (0, 0.0)
    if math.isnan(x):
        return (2, 0.0)
    return (1, x)


print("v =", lit(v))
print("gain =", lit(gain))
sv = sorted(v, key=key)
print("sort asc =", lit(sv))
print("sort desc =", lit(sorted(v, key=key, reverse=True)))
print("isort asc =", sorted(range(len(v)), key=lambda i: key(v[i])))
# rank (ascending, 0-based, ties get the smallest rank as rank's default tiesMethod='min';
# a NULL is not ranked and gets NULL)
nn = sorted([i for i in range(len(v)) if v[i] is not None], key=lambda i: key(v[i]))
rk = [None] * len(v)
for r, i in enumerate(nn):
    rk[i] = min(rr for rr, ii in enumerate(nn) if key(v[ii]) == key(v[i]))
print("rank =", lit(rk))

# group by gain (NULL group first, NaN group last in order by)
groups = {}
for g, q in zip(gain, qty):
    k = key(g)
    groups.setdefault(k, []).append(q)
ks = sorted(groups)
print("group keys =", [k for k in ks])
print("group count =", [len(groups[k]) for k in ks])
print("group sumqty =", [sum(groups[k]) for k in ks])
print("distinct size =", len(groups))

# order by gain, qty
order = sorted(range(len(qty)), key=lambda i: (key(gain[i]), qty[i]))
print("order by gain,qty -> qty =", [qty[i] for i in order])

# equi-join on gain with a calibration table; NULL never matches, NaN matches NaN
cal_gain = [0.5, 1.0, NAN, None]
cal_label = ["half", "unit", "unknown", "missing"]
pairs = []
for i, g in enumerate(gain):
    for j, c in enumerate(cal_gain):
        if g is None or c is None:
            continue
        if (math.isnan(g) and math.isnan(c)) or g == c:
            pairs.append((qty[i], cal_label[j]))
print("ej rows =", len(pairs))
for lab in sorted(set(l for _, l in pairs)):
    print("ej", lab, "qty sum =", sum(q for q, l in pairs if l == lab))
# context by gain: cumulative qty; the last value of each group is the group sum
print("context by: last cumsum per group (NULL, 0.5, 1.0, 2.0, NaN) =", [sum(groups[k]) for k in ks])


# moment statistics per device: NULLs skipped, NaN/inf give NaN
def clean(d):
    return [x for x, dd in zip(v, dev) if dd == d and x is not None]


def stat(xs, f):
    a = np.array(xs, dtype=float)
    if not np.all(np.isfinite(a)):
        return NAN
    return f(a)


def skew(a):
    m = a.mean()
    m2 = ((a - m) ** 2).mean()
    m3 = ((a - m) ** 3).mean()
    return m3 / m2 ** 1.5


def kurt(a):
    m = a.mean()
    m2 = ((a - m) ** 2).mean()
    m4 = ((a - m) ** 4).mean()
    return m4 / m2 ** 2


for name, f in [("std", lambda a: a.std(ddof=1)), ("var", lambda a: a.var(ddof=1)),
                ("stdp", lambda a: a.std()), ("skew", skew), ("kurtosis", kurt)]:
    print(name, "by dev =", lit([stat(clean(d), f) for d in "abcd"]))
    print(name, "all =", lit([stat([x for x in v if x is not None], f)]))


def corr_dev(d):
    xs = [(x, q) for x, q, dd in zip(v, qty, dev) if dd == d and x is not None]
    a = np.array([p[0] for p in xs])
    b = np.array([p[1] for p in xs], dtype=float)
    if not np.all(np.isfinite(a)):
        return NAN, NAN
    return float(np.corrcoef(a, b)[0, 1]), float(np.cov(a, b, ddof=1)[0, 1])


print("corr by dev =", lit([corr_dev(d)[0] for d in "abcd"]))
print("covar by dev =", lit([corr_dev(d)[1] for d in "abcd"]))

# math functions: NULL in NULL out, NaN in NaN out, inf in what IEEE says, a finite operand
# outside the domain gives NULL (DolphinDB stores an undefined result as NULL)
xs = [NAN, INF, -1.0, 4.0, None, 0.0]


def m(f, x):
    if x is None:
        return None
    if math.isnan(x):
        return NAN
    with np.errstate(all="ignore"):
        r = float(f(np.float64(x)))
    if not math.isfinite(r) and math.isfinite(x):
        return None
    return r


print("x =", lit(xs))
print("log =", lit([m(np.log, x) for x in xs]))
print("sqrt =", lit([m(np.sqrt, x) for x in xs]))
print("exp =", lit([m(np.exp, x) for x in xs]))
