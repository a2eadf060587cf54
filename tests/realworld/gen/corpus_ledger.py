"""Expected values for tests/realworld/corpus_ledger.dos (Python decimal, independent of Beluga).

A cash ledger of three accounts: 16 postings (DECIMAL64(2) amounts, positive = credit),
running balance per account (cumsum), totals of credits and debits, month-end interest
at a DECIMAL64(4) daily rate applied to the closing balance (scale 2 + 4 = 6, exact), and
a fee of 0.15% of every debit (scale 2 + 4 = 6).
Run: python3 corpus_ledger.py and paste.
"""
from decimal import Decimal as D
import random

random.seed(5)
accts = ["A01", "B02", "C03"]
rows = []
for i in range(16):
    a = accts[random.randrange(3)]
    cents = random.randrange(-90000, 150000)
    rows.append((a, D(cents).scaleb(-2)))

print("acct = " + "".join("`" + a for a in (r[0] for r in rows)))
print('amt = decimal64([' + ",".join('"' + str(r[1]) + '"' for r in rows) + '], 2)')
bal = {a: D("0.00") for a in accts}
run = []
for a, x in rows:
    bal[a] += x
    run.append(bal[a])
print("running = " + str([str(x) for x in run]))
print("total = " + str(sum((r[1] for r in rows), D("0.00"))))
for a in accts:
    cr = sum((x for b, x in rows if b == a and x > 0), D("0.00"))
    db = sum((x for b, x in rows if b == a and x < 0), D("0.00"))
    print(a, "credits", cr, "debits", db, "close", bal[a])
rate = D("0.0125")
print("interest", [str(bal[a] * rate) for a in accts])
fee = D("0.0015")
fees = [str(-x * fee) for a, x in rows if x < 0]
print("fees", fees, "sumfees", sum((-x * fee for a, x in rows if x < 0), D(0)))
