"""Expected values for tests/realworld/nan12_decimal_ledger.dos: an invoice ledger in DECIMAL
money, computed with Python's decimal module (exact), fractions for the weighted average, and
plain Python integers for the exact integer sums (LONG results, no wrap). Rounding of text and
of round() is half away from zero (decimal.ROUND_HALF_UP), as DolphinDB rounds text since
2.00.10 (funcs/d/decimal64.md, note). Run by hand: python3 nan12_decimal.py; paste its output
into the script."""
from decimal import Decimal as D, ROUND_HALF_UP
from fractions import Fraction

cust = ["acme", "acme", "bolt", "bolt", "bolt", "core"]
price = [D("19.99"), D("0.10"), D("1234.50"), D("0.01"), D("99.95"), D("5.00")]
qty = [3, 7, 1, 250, 2, 12]
rate = D("0.0825")  # sales tax

total = [p * q for p, q in zip(price, qty)]
print("total =", [str(t) for t in total])
tax = [(t * rate).quantize(D("0.01"), rounding=ROUND_HALF_UP) for t in total]
print("tax =", [str(t) for t in tax])
for c in sorted(set(cust)):
    ts = [t for t, cc in zip(total, cust) if cc == c]
    ps = [(p, q) for p, q, cc in zip(price, qty, cust) if cc == c]
    wavg = Fraction(sum(Fraction(p) * q for p, q in ps)) / sum(q for _, q in ps)
    print(c, "sum =", sum(ts), "min =", min(ts), "max =", max(ts), "first =", ts[0], "last =", ts[-1],
          "avg =", float(Fraction(sum(ts)) / len(ts)), "wavg(price, qty) =", float(wavg),
          "sumqty =", sum(q for _, q in ps))
cum = {}
out = []
for t, c in zip(total, cust):
    cum[c] = cum.get(c, D(0)) + t
    out.append(str(cum[c]))
print("cumsum by cust (row order) =", out)
print("grand total =", sum(total), "tax total =", sum(tax))

# text to DECIMAL64(2): half away from zero
for s in ["1.005", "2.675", "-0.125", "4.5677", "1.341"]:
    print("decimal64(%s, 2) =" % s, D(s).quantize(D("0.01"), rounding=ROUND_HALF_UP))
print("ten dimes =", sum([D("0.10")] * 10))

# integer sums are exact LONG
print("sum(1..100000) =", sum(range(1, 100001)), "sum of four INT maxima =", 4 * 2147483647)
big = [9007199254740993, 1, 1, 2147483647, 2147483647]
print("window sums over 3 rows ending at each row =", [sum(big[max(0, i - 2):i + 1]) for i in range(len(big))])
print("wavg(price, qty) over all rows =", float(sum(Fraction(p) * q for p, q in zip(price, qty)) / sum(qty)))
px = [D("10.01"), D("10.02"), D("10.03"), D("10.04"), D("10.05")]
print("window sums of px =", [str(sum(px[max(0, i - 2):i + 1])) for i in range(5)])
