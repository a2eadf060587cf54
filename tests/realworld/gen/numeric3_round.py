"""Expected values for tests/realworld/numeric3_round.dos: rounding DECIMAL prices and fees
exactly (Python decimal, ROUND_HALF_UP = half away from zero for these signs, ROUND_FLOOR,
ROUND_CEILING). Run by hand: python3 numeric3_round.py; paste its output."""
from decimal import Decimal, ROUND_HALF_UP, ROUND_FLOOR, ROUND_CEILING

px = ["101.2349", "99.9950", "-0.0050", "12.3451", "-7.2250", "0.0049"]
print('px = decimal64(["' + '", "'.join(px) + '"], 4)')
q2 = [str(Decimal(p).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)) for p in px]
print('r2 = decimal64(["' + '", "'.join(q2) + '"], 2)')
q0 = [str(Decimal(p).quantize(Decimal("1"), rounding=ROUND_HALF_UP)) for p in px]
print('r0 = decimal64(["' + '", "'.join(q0) + '"], 0)')
fl = [str(Decimal(p).quantize(Decimal("1"), rounding=ROUND_FLOOR)) for p in px]
print('fl = decimal64(["' + '", "'.join(fl) + '"], 0)')
ce = [str(Decimal(p).quantize(Decimal("1"), rounding=ROUND_CEILING)) for p in px]
print('ce = decimal64(["' + '", "'.join(ce) + '"], 0)')
# a fee of 0.35% on 1000 shares, rounded to cents
fee = [str((Decimal(p) * 1000 * Decimal("0.0035")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)) for p in px]
print('fee = decimal64(["' + '", "'.join(fee) + '"], 2)')
