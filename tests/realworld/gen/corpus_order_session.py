"""Expected values for tests/realworld/corpus_order_session.dos (plain Python, independent of Beluga).

An order-management session played case by case: 8 orders are placed, then three fill
batches arrive (partial and full fills), two orders are cancelled, one fill refers to a
cancelled order and must be rejected. State per order: filled quantity, average fill
price, status (NEW, PARTIAL, FILLED, CANCELLED).
Run: python3 corpus_order_session.py and paste.
"""
orders = [(1, "AAPL", "B", 300, 190.10), (2, "AAPL", "S", 200, 190.50), (3, "MSFT", "B", 100, 410.00),
          (4, "MSFT", "B", 500, 409.50), (5, "XOM", "S", 400, 105.20), (6, "XOM", "B", 100, 104.90),
          (7, "AAPL", "B", 150, 189.90), (8, "MSFT", "S", 250, 411.00)]
batches = [
    [(1, 100, 190.08), (3, 100, 409.95), (5, 150, 105.22), (7, 150, 189.88)],
    [(1, 200, 190.10), (4, 200, 409.40), (5, 100, 105.25), (8, 50, 411.00)],
    [(4, 300, 409.45), (8, 100, 411.05), (2, 200, 190.55)],
]
cancels = [6, 5]
st = {o[0]: {"qty": o[3], "filled": 0, "notional": 0.0, "status": "NEW"} for o in orders}
def apply(batch):
    for oid, q, p in batch:
        s = st[oid]
        s["filled"] += q
        s["notional"] += q * p
        s["status"] = "FILLED" if s["filled"] == s["qty"] else "PARTIAL"
def show(tag):
    ids = sorted(st)
    print(tag, "filled =", [st[i]["filled"] for i in ids])
    print(tag, "status =", [st[i]["status"] for i in ids])
    print(tag, "avgPx =", [None if st[i]["filled"] == 0 else round(st[i]["notional"] / st[i]["filled"], 10) for i in ids])
apply(batches[0]); show("after1")
apply(batches[1]); show("after2")
for c in cancels:
    st[c]["status"] = "CANCELLED"
show("cancel")
apply(batches[2]); show("after3")
# open quantity by symbol of the orders still working (NEW or PARTIAL)
open_by = {}
for o in orders:
    s = st[o[0]]
    if s["status"] in ("NEW", "PARTIAL"):
        open_by[o[1]] = open_by.get(o[1], 0) + o[3] - s["filled"]
print("openBySym =", sorted(open_by.items()))
fills = [f for b in batches for f in b]
print("fillCount =", len(fills), "fillQty =", sum(f[1] for f in fills), "notional =", repr(sum(f[1] * f[2] for f in fills)))
