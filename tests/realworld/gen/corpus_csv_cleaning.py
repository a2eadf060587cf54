"""Expected values for tests/realworld/corpus_csv_cleaning.dos (Python re, independent of Beluga).

A messy customer export: names with stray spaces and mixed case, e-mails with upper case
and blanks, phone numbers in five formats, amounts with "$" and thousands separators,
tags separated by ";". Cleaning rules:
  name   trim, runs of spaces -> one space, lower case
  email  trim, lower case; domain = text after "@"; valid = ^[a-z0-9._]+@[a-z0-9-]+(\.[a-z]+)+$
  phone  digits only, last 10 digits; valid when exactly 10 or 11 digits starting with 1
  amount remove "$", "," and spaces, then a number
  tags   number of ";"-separated tags; has "vip" tag
Run: python3 corpus_csv_cleaning.py and paste.
"""
import re

rows = [
    ("1", "  Alice   SMITH ", " Alice.Smith@Example.com", "(555) 123-4567", "$1,234.50", "vip;retail"),
    ("2", "bob  jones", "BOB@mail.example.org ", "555.987.6543", "87.25", "retail"),
    ("3", "Carol de  la  Cruz", "carol_cruz@example.com", "+1 555 222 3333", " 2,000 ", "wholesale;vip;eu"),
    ("4", "  dave", "dave@@example.com", "5551112222", "$15.00", "retail"),
    ("5", "ERIN O'NEIL", "erin.oneil@shop-co.net", "555-444", "$0.99", "vip"),
    ("6", "Frank   Li  ", "Frank.Li@Example.COM", "1-555-777-8888", "12,345.67", "wholesale;eu"),
]
csv = "id,name,email,phone,amount,tags\n" + "".join(",".join('"' + f + '"' if "," in f else f for f in r) + "\n" for r in rows)
print('csv = "' + csv.replace('"', '\\"').replace("\n", "\\n") + '"')
name = [re.sub(" +", " ", r[1].strip()).lower() for r in rows]
email = [r[2].strip().lower() for r in rows]
dom = [e.split("@")[-1] for e in email]
valid = [bool(re.fullmatch(r"[a-z0-9._]+@[a-z0-9-]+(\.[a-z]+)+", e)) for e in email]
digits = [re.sub(r"[^0-9]", "", r[3]) for r in rows]
phone = [d[-10:] for d in digits]
pvalid = [len(d) == 10 or (len(d) == 11 and d[0] == "1") for d in digits]
amount = [float(re.sub(r"[$, ]", "", r[4])) for r in rows]
ntags = [len(r[5].split(";")) for r in rows]
vip = ["vip" in r[5].split(";") for r in rows]
q = lambda xs: "[" + ", ".join('"' + x.replace('"', '\\"') + '"' for x in xs) + "]"
b = lambda xs: "[" + ", ".join("true" if x else "false" for x in xs) + "]"
print("expName =", q(name))
print("expEmail =", q(email))
print("expDomain =", q(dom))
print("expValid =", b(valid))
print("expPhone =", q(phone))
print("expPhoneOk =", b(pvalid))
print("expAmount =", amount)
print("expNtags =", ntags)
print("expVip =", b(vip))
tot = {}
for d, a, v in zip(dom, amount, valid):
    if v:
        tot[d] = tot.get(d, 0) + a
print("byDomain =", sorted(tot.items()))
