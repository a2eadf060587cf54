"""Expected values for tests/realworld/kern9_log_kernels.dos (numpy, independent of Beluga).

Log returns of a long intraday price path (every ratio within 10% of 1: the inputs next to
1 where a logarithm loses digits), log prices of a 330 x 150 panel with missing prices
(the matrix path), logarithms in base 10 and 2, and single values at the edges: 1, values
one step either side of 1, powers of two, the smallest normal and a subnormal, the
largest double. Checksums weight element k by (k % 13) + 1 so a shifted or reordered
result changes them. Run: python3 kern9_log_kernels.py and paste.
"""
import numpy as np

n = 200_000
k = np.arange(n, dtype=np.int64)
# a price path: 100 * product of ratios in [0.95, 1.05)
ratio = ((k * 7919) % 10007) / 10007.0 * 0.1 + 0.95
w = (k % 13 + 1).astype(np.float64)
lr = np.log(ratio)
print("sum log ratio:", repr(float(np.sum(lr))))
print("weighted:", repr(float(np.sum(lr * w))))
print("log ratio[0:5]:", [repr(float(v)) for v in lr[:5]])
print("log10 weighted:", repr(float(np.sum(np.log10(ratio) * w))))
print("log2 weighted:", repr(float(np.sum(np.log2(ratio) * w))))

# panel: x = ((k*7919) mod 10007)/100 + 1, missing where k % 17 == 3, 330 x 150 column-major
kk = np.arange(49_500, dtype=np.int64)
x = ((kk * 7919) % 10007) / 100.0 + 1.0
x[kk % 17 == 3] = np.nan
lx = np.log(x)
ww = (kk % 13 + 1).astype(np.float64)
print("panel nulls:", int(np.isnan(lx).sum()))
print("panel weighted:", repr(float(np.nansum(lx * ww))))

edges = [1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0), 0.5, 2.0, 1024.0, 2.2250738585072014e-308,
         4.9e-322, 1.7976931348623157e308, 0.984375, 1.03125, 0.999, 1.001, 101.06]
print("edges:", ", ".join(repr(float(np.log(v))) for v in edges))
