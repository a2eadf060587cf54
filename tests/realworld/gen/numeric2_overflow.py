"""Expected values for tests/realworld/numeric2_overflow.dos: exact integer sums and products
of exchange volumes (Python integers, which never overflow), the LONG range rule (a sum or
product outside [-2^63+1, 2^63-1] is NULL), and element-wise INT/LONG arithmetic in two's
complement as progr/data_types.md documents (a result landing on the null pattern -2^31 or
-2^63 is NULL). Run by hand (python3 numeric2_overflow.py); paste the output into the script."""
import math
import random

LMAX = 2**63 - 1


def long_or_null(v):
    return "NULL" if v > LMAX or v < -LMAX else f"{v}l"


def vec(xs):
    return "[" + ", ".join(xs) + "]"


def wrap(v, bits):
    m = 2**bits
    r = (v + m // 2) % m - m // 2
    return None if r == -(m // 2) else r


random.seed(7)
syms = ["AAPL", "MSFT", "TSLA"]
n = 24
sym = [syms[i % 3] for i in range(n)]
# daily share volumes of heavily traded names: each fits INT, their sums do not
vol = [random.randint(600_000_000, 2_100_000_000) for _ in range(n)]
print("sym = symbol(" + "`" + "`".join(sym) + ")")
print("vol = " + vec(str(v) for v in vol))
print("total =", f"{sum(vol)}l")
print("by_sym = " + vec(f"{sum(v for s, v in zip(sym, vol) if s == k)}l" for k in sorted(syms)))
cs, acc = [], 0
for v in vol:
    acc += v
    cs.append(f"{acc}l")
print("cum = " + vec(cs))
ms = ["NULL", "NULL"] + [f"{vol[i-2] + vol[i-1] + vol[i]}l" for i in range(2, n)]
print("msum3 = " + vec(ms))
# factorials: exact while they fit LONG, NULL after 20!
print("cumprod25 = " + vec(long_or_null(math.factorial(k)) for k in range(1, 26)))
# mprod over 3 consecutive integers 2e6.. : each product ~8e18 (fits) until it does not
base = [2_090_000 + 1000 * k for k in range(10)]
print("base = " + vec(str(b) for b in base))
print("mprod3 = " + vec(["NULL", "NULL"] + [long_or_null(base[i-2] * base[i-1] * base[i]) for i in range(2, 10)]))
# row sums of a 3-column matrix of volumes
print("rowsum = " + vec(f"{vol[i] + vol[i+8] + vol[i+16]}l" for i in range(8)))
# element-wise: two's complement, as the manual documents
a = [2_147_483_000 + 100 * k for k in range(5)]
print("a = " + vec(str(x) for x in a))
print("a_plus_1000 = " + vec("NULL" if wrap(x + 1000, 32) is None else str(wrap(x + 1000, 32)) for x in a))
print("a_times_3 = " + vec("NULL" if wrap(x * 3, 32) is None else str(wrap(x * 3, 32)) for x in a))
print("a_plus_648 = " + vec("NULL" if wrap(x + 648, 32) is None else str(wrap(x + 648, 32)) for x in a))
la = 9_223_372_036_854_775_000
print("l_plus = " + vec("NULL" if wrap(la + d, 64) is None else f"{wrap(la + d, 64)}l" for d in (807, 808, 1000)))
# time of day wraps modulo one day: 13:30m + 2147483647 minutes
print("minute_wrap =", (13 * 60 + 30 + 2147483647) % 1440)
