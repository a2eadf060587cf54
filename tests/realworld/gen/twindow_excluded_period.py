"""Expected values of the twindow excludedPeriod case in
tests/realworld/sql_quantified_and_where_args.dos.

funcs/t/twindow.md: excludedPeriod is a daily period taken out of the calculation windows
(a trading day's lunch break). Windows are measured here on the time axis with the
period cut out: a time after the break start moves back by the part of the break it
passed, so a 2-minute window at 13:01 reaches back to 11:29. Plain pandas/python.
"""
import pandas as pd

T = pd.to_datetime(["2024-01-02 11:28:00", "2024-01-02 11:29:30", "2024-01-02 11:30:00",
                    "2024-01-02 13:00:00", "2024-01-02 13:01:00", "2024-01-02 13:03:00",
                    "2024-01-02 14:00:00", "2024-01-03 11:29:00", "2024-01-03 13:00:30"])
x = list(range(1, len(T) + 1))
s, e = pd.Timedelta("11:30:00"), pd.Timedelta("13:00:00")

def squeeze(t):
    day = t.normalize()
    tod = t - day
    days = (day - pd.Timestamp("1970-01-01")).days
    cut = min(max(tod - s, pd.Timedelta(0)), e - s)
    return t - days * (e - s) - cut

ev = [squeeze(t) for t in T]
for lo, hi, name in [(-2, 0, "sum -2m:0m"), (0, 1, "sum 0m:1m")]:
    out = []
    for k in range(len(T)):
        a, b = ev[k] + pd.Timedelta(minutes=lo), ev[k] + pd.Timedelta(minutes=hi)
        out.append(sum(xv for xv, t in zip(x, ev) if a <= t <= b))
    print(name, out)
# without the period, for contrast
plain = []
for k in range(len(T)):
    a, b = T[k] - pd.Timedelta(minutes=2), T[k]
    plain.append(sum(xv for xv, t in zip(x, T) if a <= t <= b))
print("plain -2m:0m", plain)
