"""Expected values for tests/realworld/server3_batch_append.dos: a table grown batch by
batch (50 chunks of 100 rows: id = k*100 + 0..99, px = id * 0.5, sym cycling A, B, C within
each chunk), as a server-side collector fed by a client would be. Run: python3 this file."""
import numpy as np

ids = np.concatenate([k * 100 + np.arange(100) for k in range(50)])
px = ids * 0.5
sym = np.concatenate([np.array(["A", "B", "C"])[np.arange(100) % 3] for _ in range(50)])
print("rows", len(ids))
print("sum id", int(ids.sum()))
print("sum px", float(px.sum()))
print("count A", int((sym == "A").sum()), "count C", int((sym == "C").sum()))
print("last id", int(ids[-1]), "max px", float(px.max()))
