"""Expected values for tests/realworld/temporal_fields.dos, computed with Python's own
integer floor division (the calendar rules DolphinDB documents: time of day is the value
modulo one day, floored, also before 1970; a conversion to a coarser unit truncates toward
minus infinity). Run: python3 tests/realworld/gen/temporal_fields.py > /tmp/out.txt and
paste the printed lines into the script."""
import random

random.seed(20261202)
DAY_MS = 86_400_000
# timestamps (ms since 1970) from 1960 to 2035 (inside DATETIME), plus exact day and hour edges, both signs
ms = [0, -1, 1, DAY_MS - 1, DAY_MS, -DAY_MS, -DAY_MS - 1, 3_599_999, 3_600_000, -3_600_000]
ms += [random.randrange(-10 * 365 * DAY_MS, 66 * 365 * DAY_MS) for _ in range(30)]
NULL_AT = 5          # position set to NULL in the script (0-based)


def fmt(v):
    return " ".join("NULL" if x is None else str(x) for x in v)


def vec(name, v):
    # a DolphinDB vector literal; nulls are written as NULL inside a list
    print(f"{name} = [" + ", ".join("NULL" if x is None else str(x) for x in v) + "]")


def f(fn):
    return [None if i == NULL_AT else fn(x) for i, x in enumerate(ms)]


print("raw = " + " ".join(str(x) for x in ms))
vec("wantHour", f(lambda x: (x % DAY_MS) // 3_600_000))
vec("wantMinOfHour", f(lambda x: (x % DAY_MS) // 60_000 % 60))
vec("wantSecOfMin", f(lambda x: (x % DAY_MS) // 1000 % 60))
vec("wantMs", f(lambda x: x % 1000))
vec("wantMinuteRaw", f(lambda x: (x % DAY_MS) // 60_000))          # minute(ts) as its count of minutes
vec("wantSecondRaw", f(lambda x: (x % DAY_MS) // 1000))            # second(ts)
vec("wantDateRaw", f(lambda x: x // DAY_MS))                       # date(ts): days since 1970
vec("wantDatetimeRaw", f(lambda x: x // 1000))                     # datetime(ts): seconds
vec("wantNanoRaw", f(lambda x: x * 1_000_000))                     # nanotimestamp(ts)
# a session's SECOND column: minute() of it, and hour-of-day buckets of DATETIMEs
secs = [random.randrange(0, 86_400) for _ in range(20)]
print("secs = " + " ".join(str(x) for x in secs))
vec("wantSecMinute", [s // 60 for s in secs])
# 1,000,000 DATETIMEs one every 7 s from 1969.12.25 (crosses the epoch): sums of fields
n, start, step = 1_000_000, -7 * 86_400, 7
dts = [start + i * step for i in range(n)]
print("bigSumHour =", sum((x % 86_400) // 3600 for x in dts))
print("bigSumMinute =", sum((x % 86_400) // 60 for x in dts))
print("bigSumDate =", sum(x // 86_400 for x in dts))
print("bigSumMinOfHour =", sum((x % 86_400) // 60 % 60 for x in dts))
# per hour-of-day average of v = i mod 97 (group by hour(time))
acc = {}
for i, x in enumerate(dts):
    h = (x % 86_400) // 3600
    s, c = acc.get(h, (0, 0))
    acc[h] = (s + i % 97, c + 1)
print("wantHourAvg = " + " ".join(repr(acc[h][0] / acc[h][1]) for h in range(24)))
