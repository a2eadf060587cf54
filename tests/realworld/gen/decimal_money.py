#!/usr/bin/env python3
"""Expected values for tests/realworld/decimal_money.dos, computed with Python's exact
`decimal` module (never with Beluga). Run: python3 decimal_money.py > ../decimal_money.dos"""
from decimal import Decimal, ROUND_DOWN, getcontext
import random

getcontext().prec = 60
random.seed(20261201)
accts = ["ACC1", "ACC2", "ACC3"]
n = 15
acct = [accts[i % 3] for i in range(n)]
random.shuffle(acct)
price = [Decimal(random.randint(900000, 1200000)) / 10000 for _ in range(n)]  # 4 decimals
price = [p.quantize(Decimal("0.01"), rounding=ROUND_DOWN) for p in price]      # 2 decimals
qty = [random.choice([100, 200, 300, 500, 1000, 1500, 2500]) for _ in range(n)]
fee_rate = Decimal("0.0003")  # DECIMAL64(4)
tax = Decimal("0.75")         # flat fee per trade, DECIMAL64(2)

notional = [p * q for p, q in zip(price, qty)]               # scale 2
fee = [x * fee_rate for x in notional]                        # scale 2 + 4 = 6
total = [x + f + tax for x, f in zip(notional, fee)]          # scale max(2, 6, 2) = 6
unit = [(x / q).quantize(Decimal("0.01"), rounding=ROUND_DOWN) for x, q in zip(total, qty)]  # div keeps scale 6 → truncated at 6
unit6 = [(x / q).quantize(Decimal("0.000001"), rounding=ROUND_DOWN) for x, q in zip(total, qty)]


def s(d, scale):
    return str(d.quantize(Decimal(1).scaleb(-scale)))


def svec(v, scale):
    return "[" + ",".join('"' + s(d, scale) + '"' for d in v) + "]"


def dvec(v, scale):
    return "[" + ",".join('"' + s(d, scale) + '"' for d in v) + "]"


by = {a: [i for i in range(n) if acct[i] == a] for a in accts}
print("// DECIMAL money arithmetic: trade notional (price x quantity), a per-trade fee rate and")
print("// a flat charge, totals by account. Exact fixed-point rules of the DolphinDB manual")
print("// (funcs/d/decimal64.md, decimalMultiply.md): add keeps the larger scale, multiply adds")
print("// the scales, sum widens one size. Expected values: tests/realworld/gen/decimal_money.py")
print("// (Python's decimal module); regenerate with `python3 decimal_money.py > ../decimal_money.dos`.")
print()
common = f"""acct = symbol({'`' + '`'.join(acct)})
price = decimal64({svec(price, 2)}, 2)
qty = {' '.join(map(str, qty))}
"""
print('@testing: case = "notional_is_exact"')
print(common, end="")
print("notional = price * qty")
print('assert 1, typestr(notional) == "FAST DECIMAL64 VECTOR"')
print(f"assert 2, eqObj(string(notional), {svec(notional, 2)})")
print(f'assert 3, string(sum(notional)) == "{s(sum(notional), 2)}"')
print('assert 4, typestr(sum(notional)) == "DECIMAL128"')
print()
print('@testing: case = "fees_and_totals"')
print(common, end="")
print('notional = price * qty')
print('fee = notional * decimal64("0.0003", 4)')
print('total = notional + fee + decimal64("0.75", 2)')
print(f"assert 1, eqObj(string(fee), {svec(fee, 6)})")
print(f"assert 2, eqObj(string(total), {svec(total, 6)})")
print(f'assert 3, string(sum(fee)) == "{s(sum(fee), 6)}"')
print(f"assert 4, eqObj(string(total / qty), {svec(unit6, 6)})")
print(f'assert 5, string(max(total)) == "{s(max(total), 6)}"')
print(f'assert 6, string(min(total)) == "{s(min(total), 6)}"')
avg_total = sum(total) / len(total)
print(f"assert 7, abs(avg(total) - {avg_total:.12f}) < 1e-9")
print()
print('@testing: case = "sums_by_account"')
print(common, end="")
print("t = table(acct, price, qty)")
print("r = select sum(price * qty) as notional, count(*) as n, max(price) as hi from t group by acct order by acct")
print(f"assert 1, eqObj(r.acct, symbol({'`' + '`'.join(accts)}))")
print(f"assert 2, eqObj(string(r.notional), {svec([sum(notional[i] for i in by[a]) for a in accts], 2)})")
print(f"assert 3, eqObj(r.n, {' '.join(str(len(by[a])) for a in accts)})")
print(f"assert 4, eqObj(string(r.hi), {svec([max(price[i] for i in by[a]) for a in accts], 2)})")
cum = []
acc = Decimal(0)
for x in notional:
    acc += x
    cum.append(acc)
print(f"assert 5, eqObj(string(cumsum(price * qty)), {svec(cum, 2)})")
print()
print('@testing: case = "no_float_drift"')
print(common, end="")
print('a = decimal64("0.1", 1)')
print('b = decimal64("0.2", 1)')
print('assert 1, a + b == decimal64("0.3", 1)')
print('x = decimal64(take(["0.10"], 1000), 2)')
print(f'assert 2, string(sum(x)) == "{s(Decimal("0.10") * 1000, 2)}"')
print('assert 3, string(decimal32(142, 2)) == "142.00"')
print(f'assert 4, string(price[0] - price[1]) == "{s(price[0] - price[1], 2)}"')
print("assert 5, (price[0] > price[1]) == " + ("true" if price[0] > price[1] else "false"))
print(f"assert 6, sum(price > decimal64(\"100\", 2)) == {sum(1 for p in price if p > 100)}")
print()
print('@testing: case = "table_schema_and_csv"')
print(common, end="")
print("t = table(1:0, `acct`price`qty, [SYMBOL, DECIMAL64(2), INT])")
print("t.tableInsert(acct, price, qty)")
print('assert 1, schema(t).colDefs.typeString[1] == "DECIMAL64(2)"')
print("f = \"/tmp/beluga_decimal_money.csv\"")
print("saveText(t, f)")
print("sch = table(`acct`price`qty as name, [\"SYMBOL\", \"DECIMAL64(2)\", \"INT\"] as type)")
print("u = loadText(f, , sch)")
print('assert 2, typestr(u.price) == "FAST DECIMAL64 VECTOR"')
print(f"assert 3, eqObj(string(u.price), {svec(price, 2)})")
print(f'assert 4, string(exec sum(price * qty) from u) == "{s(sum(notional), 2)}"')
print()
print('@testing: case = "overflow_is_an_error"')
print("a = decimal32(2000000000, 0)")
print("ok = false")
print("try { b = a + a } catch (ex) { ok = true }")
print("assert 1, ok")
