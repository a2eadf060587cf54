# x and its correctly rounded natural log (mpmath, 200 bits), as hex bit patterns, for
# runtime/src/kernels/vmath.rs's tests. Inputs: random over all normal binades, near 1,
# both sides of every subinterval boundary of ln's 16-entry table, the bench data's range.
import mpmath, struct, random
mpmath.mp.prec = 200
def fb(b): return struct.unpack('<d', struct.pack('<Q', b))[0]
def tb(x): return struct.unpack('<Q', struct.pack('<d', x))[0]
rnd = random.Random(20261202)
xs = []
for _ in range(1500):
    xs.append(fb(((rnd.randrange(1, 2047)) << 52) | rnd.getrandbits(52)))
for _ in range(1000):
    xs.append(fb(tb(1.0) + rnd.randrange(-(1 << 47), 1 << 47)))
for _ in range(300):
    xs.append(fb(tb(1.0) + rnd.randrange(-4096, 4096)))
OFF = 0x3fe5800000000000
for i in range(17):
    for e in (-3, 0, 1, 40, -900, 900):
        b = OFF + i * (1 << 48) + (e << 52)
        for d in (-2, -1, 0, 1, 2):
            xs.append(fb(b + d))
for _ in range(1000):
    xs.append(rnd.randrange(0, 10007) / 100.0 + 1.0)
out = []
for x in xs:
    if not (x > 0 and x < float('inf')) or x < 2.2250738585072014e-308:
        continue
    out.append(f"{tb(x):016x} {tb(float(mpmath.log(mpmath.mpf(x)))):016x}")
open('/work/wt/kern9/runtime/src/kernels/testdata/ln_mpmath.txt', 'w').write("\n".join(out) + "\n")
print(len(out))
