"""Expected values for tests/realworld/corpus_resample.dos (pandas, independent of Beluga).

Irregular readings of one meter over 20 minutes with two gaps. Resampled to 2-minute
buckets (left-closed, labelled by the bucket start) with pandas resample:
  mean + no fill (NaN), mean + forward fill, mean + linear interpolation, mean with 0.0,
  last value, count; and 5-minute totals.
Run: python3 corpus_resample.py and paste.
"""
import numpy as np
import pandas as pd

rng = np.random.default_rng(17)
secs = np.sort(rng.choice(np.r_[0:300, 420:780, 960:1200], 22, replace=False))
vals = np.round(rng.uniform(10, 30, len(secs)), 1)
s = pd.Series(vals, index=pd.to_datetime("2026-07-01 08:00:00") + pd.to_timedelta(secs, unit="s"))

def t(sec):
    return f"08:{sec // 60:02d}:{sec % 60:02d}"

def vec(xs):
    return "[" + ", ".join("NULL" if pd.isna(x) else repr(round(float(x), 10)) for x in xs) + "]"

print("ts = [" + ", ".join(t(int(x)) for x in secs) + "]")
print("v = " + " ".join(f"{x:.1f}" for x in vals))
r = s.resample("2min")
mean = r.mean()
print("buckets = [" + ", ".join(x.strftime("%H:%M:%S") for x in mean.index) + "]")
print("meanNull =", vec(mean))
print("meanPrev =", vec(mean.ffill()))
print("meanLinear =", vec(mean.interpolate("linear")))
print("meanZero =", vec(mean.fillna(0.0)))
print("lastPrev =", vec(r.last().ffill()))
print("cnt =", list(r.count()))
f = s.resample("5min").sum()
print("five = [" + ", ".join(x.strftime("%H:%M:%S") for x in f.index) + "]", vec(f))
