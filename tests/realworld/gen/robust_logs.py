"""Expected values for tests/realworld/robust_logs.dos (run by hand: python3 robust_logs.py).

Log lines built by a fixed rule are searched with Python's `re` (the reference regex
engine here); prices and spreads with plain Python arithmetic. The printed values are
pasted into the .dos script."""
import re

levels = ["INFO", "WARN", "ERROR", "INFO", "DEBUG"]
users = ["alice", "bob", "carol", "dave"]
lines = []
for i in range(2000):
    lines.append(f"2024.01.{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:{(7 * i) % 60:02d} "
                 f"{levels[i % 5]} code={500 + i % 7} user={users[i % 4]} took={(13 * i) % 997}ms")
log = "\n".join(lines)
print("len", len(log))
print("errors", len(re.findall(r"ERROR", log)))
print("codes 503", len(re.findall(r"code=503\b", log)))
print("digit runs", len(re.findall(r"[0-9]+", log)))
print("users a", len(re.findall(r"user=a\w*", log)))
swapped = re.sub(r"user=(\w+) took=(\d+)ms", r"\2ms by \1", log)
print("swapped len", len(swapped))
print("swapped first", swapped.split("\n")[0])
print("took>=900", sum(1 for l in lines if int(re.search(r"took=(\d+)", l).group(1)) >= 900))

# string assembly in a loop (+=): a CSV line per i
s = ""
for i in range(5000):
    s += f"{i},{i * i % 101};"
print("assembled len", len(s))

# each / cross over prices
prices = [100.0 + ((37 * i) % 50) / 4 for i in range(1000)]
rets = [p / 100.0 - 1 for p in prices]
print("sum rets", repr(sum(rets)))
a = [1.5, 2.0, 4.25]
b = [10.0, 20.0]
print("cross", [[x * 2 - y for y in b] for x in a])
