#!/usr/bin/env python3
"""Medium-scale benchmark: Beluga vs DuckDB / Polars / pandas through ../shared/bench/run.py.

Why: CI runs the benchmark queries at 300k rows, where costs that dominate at the scale
users have stay invisible. This script generates the medium data set outside the
repository (once), runs run.py on it and writes one table per data set with, per engine
and query, the warm median, the cold run (first timed run in a fresh process) and the
peak RSS, plus each engine's ratio to the fastest peer and the geometric mean.

    python3 tests/bench/medium/medium.py --engine-bin $CARGO_TARGET_DIR/release/beluga \
        [--data /work/bench-medium] [--queries d11,d18] [--datasets devices] [--no-setup]

Not run by CI (minutes of CPU, ~1.3 GB of CSV). See tests/bench/README.md.

`--scale large` runs the same queries on the large data set (devices 3,000 x 10,000 = 30M
rows; TAQ 8,000 symbols, 20M rows/day x 5 days = 100M rows; ~8.6 GB of CSV, default
folder /work/bench-large), leaving out `--skip` queries (default d12 and d13: their
90M- and 30M-row answers are checksummed row by row in Python, which took 12 GB of RSS). With `--growth-from <results.json of a medium run>`
it adds a table of the time growth per query (large / medium, beside the row-count
growth) and the engine's peak RSS beside the best peer's.

How: run.py is driven with `--warmup 0 --runs N+1`, so the first timed run of each
query is the cold one and the warm median is taken over the other N. Each child process
run.py starts (one peer worker per data set, one engine process per query) is wrapped
in `/usr/bin/time -f %M`, which gives its peak RSS: per query for the engine, per data
set (the worker's whole life, import included) for the peers.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
def _default_bench() -> str:
    """../shared/bench beside the checkout (or beside its parent, for /work/wt/NAME worktrees)."""
    if os.environ.get("BELUGA_SHARED"):
        return os.path.join(os.environ["BELUGA_SHARED"], "bench")
    for up in (("..",), ("..", "..")):
        cand = os.path.abspath(os.path.join(REPO, *up, "shared", "bench"))
        if os.path.exists(os.path.join(cand, "run.py")):
            return cand
    return os.path.abspath(os.path.join(REPO, "..", "shared", "bench"))


DEFAULT_BENCH = _default_bench()
PEERS = ["duckdb", "polars", "pandas"]


# generator arguments and default folder per scale
SCALES = {
    "medium": {"data": "/work/bench-medium", "points": "1000", "taq_rows": "4000000", "skip": ""},
    "large": {"data": "/work/bench-large", "points": "10000", "taq_rows": "20000000", "skip": "d12,d13"},
}


def gen_data(bench: str, data: str, scale: str = "medium") -> None:
    """Generate the data set of a scale once (deterministic generators)."""
    sc = SCALES[scale]
    dev, taq = os.path.join(data, "devices"), os.path.join(data, "taq")
    if not os.path.exists(os.path.join(dev, "meta.json")):
        subprocess.run([sys.executable, os.path.join(bench, "gen_devices.py"), "--devices", "3000",
                        "--points", sc["points"], "--out", dev], check=True)
    if not os.path.exists(os.path.join(taq, "meta.json")):
        subprocess.run([sys.executable, os.path.join(bench, "gen_taq.py"), "--symbols", "8000",
                        "--rows", sc["taq_rows"], "--days", "5", "--out", taq], check=True)


class RssShim(types.SimpleNamespace):
    """Stands in for run.py's `subprocess` module: every `run` goes through /usr/bin/time."""

    def __init__(self):
        super().__init__(**{k: getattr(subprocess, k) for k in dir(subprocess) if not k.startswith("__") and k != "run"})
        self.peaks: list[tuple[list[str], int]] = []

    def run(self, cmd, *a, **kw):  # noqa: D401 - same signature as subprocess.run
        if not isinstance(cmd, list) or not os.path.exists("/usr/bin/time"):
            return subprocess.run(cmd, *a, **kw)
        fd, path = tempfile.mkstemp(prefix="rss_")
        os.close(fd)
        try:
            p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", path] + cmd, *a, **kw)
            with open(path) as f:
                lines = [l for l in f.read().split() if l.isdigit()]
            self.peaks.append((cmd, int(lines[-1]) if lines else 0))
            return p
        finally:
            os.remove(path)


def fmt_ms(s):
    if s is None:
        return "-"
    ms = s * 1e3
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 1 else f"{ms:.2f}"


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def table(everything: dict, peaks: list) -> str:
    # peak RSS: peers per (system, dataset) worker, engine per query script
    peer_rss, engine_rss = {}, {}
    for cmd, kb in peaks:
        if "--system" in cmd:
            peer_rss[(cmd[cmd.index("--system") + 1], cmd[cmd.index("--dataset") + 1])] = kb
        elif cmd and cmd[-1].endswith(".dos"):
            engine_rss[os.path.basename(cmd[-1])[:-4]] = kb
    out = []
    for dataset, d in everything["datasets"].items():
        reports = d["reports"]
        systems = list(reports)
        out += [f"## {dataset}", "", "### CSV import (rows/s; ratio = engine / best peer)", ""]
        imps = {s: (reports[s].get("import") or {}).get("rows_per_s") for s in systems}
        best_imp = max([v for s, v in imps.items() if s in PEERS and v] or [0])
        for s in systems:
            v = imps[s]
            out.append(f"- {s}: {v:,.0f} rows/s" + (f" ({v / best_imp:.2f}x best peer)" if v and best_imp else "")
                       if v else f"- {s}: -")
        out += ["", "Times in ms: warm = median of the timed runs after the first, cold = the first "
                "run in a fresh process; RSS in MB (peers: the worker's peak over the data set).", "",
                "| query | " + " | ".join(f"{s} warm | {s} cold | {s} RSS" for s in systems)
                + " | engine/best warm | engine cold/best warm | checks |",
                "|---|" + "---:|" * (3 * len(systems) + 2) + "---|"]
        ratios = []
        for qid in sorted({q for s in systems for q in reports[s]["queries"]}):
            cells, warm = [], {}
            for s in systems:
                e = reports[s]["queries"].get(qid, {})
                t = e.get("times") or []
                w = statistics.median(t[1:]) if len(t) > 1 else (t[0] if t else None)
                c = t[0] if t else None
                if reports[s].get("reused"):     # an earlier run.py run (warm-up untimed)
                    w, c = e.get("median"), None
                warm[s] = (w, c)
                kb = engine_rss.get(qid) if s == "engine" else peer_rss.get((s, dataset))
                cells += [fmt_ms(w) if t else ("ERR" if "error" in e else "-"), fmt_ms(c),
                          f"{kb / 1024:,.0f}" if kb else "-"]
            best = min([warm[s][0] for s in systems if s in PEERS and warm[s][0]] or [0]) or None
            ew, ec = warm.get("engine", (None, None))
            r = ew / best if ew and best else None
            rc = ec / best if ec and best else None
            if r:
                ratios.append(r)
            checks = ", ".join(f"{s}:{reports[s]['queries'].get(qid, {}).get('check', '-')[:40]}" for s in systems
                               if reports[s]["queries"].get(qid, {}).get("check") not in ("ok", "ref"))
            out.append(f"| {qid} | " + " | ".join(cells) + f" | {r:.2f} |" if r else f"| {qid} | " + " | ".join(cells) + " | - |")
            out[-1] += (f" {rc:.2f} |" if rc else " - |") + f" {checks or 'all ok'} |"
        g = geomean(ratios)
        slow = sum(1 for r in ratios if r > 1.0)
        out += ["", f"engine/best-peer warm geomean: {g:.2f}; queries > 1.0: {slow} of {len(ratios)}" if g else "", ""]
    return "\n".join(out)


def dataset_rows(d: dict) -> int | None:
    """Rows of a data set's main table: from run.py's copy of its meta.json, else from the
    import reports."""
    m = d.get("meta") or {}
    if m.get("rows_readings") or m.get("rows_total"):
        return m.get("rows_readings") or m.get("rows_total")
    for r in d.get("reports", {}).values():
        rows = (r.get("import") or {}).get("rows")
        if rows:
            return rows
    return None


def growth(everything: dict, peaks: list, base_path: str, data: str) -> str:
    """Per query: the engine's time at this scale over its time in an earlier (smaller) run,
    beside the growth of the row count; and its peak RSS beside the best peer's."""
    with open(base_path) as f:
        base = json.load(f)
    engine_rss = {os.path.basename(c[-1])[:-4]: kb for c, kb in peaks if c and c[-1].endswith(".dos")}
    peer_rss: dict = {}
    for cmd, kb in peaks:
        if "--system" in cmd:
            peer_rss[(cmd[cmd.index("--system") + 1], cmd[cmd.index("--dataset") + 1])] = kb
    out = ["## growth", "",
           "time ratio = this run / the earlier run (engine warm median, else its single run); "
           "a ratio at or below the row ratio means time grows no faster than the data.", ""]
    for ds, d in everything["datasets"].items():
        b = base["datasets"].get(ds, {})
        rows_now, rows_then = dataset_rows(d), dataset_rows(b)
        if not rows_now:
            rows_now = meta_rows(data, ds)
        row_ratio = rows_now / rows_then if rows_now and rows_then else None
        eng, eng0 = d["reports"].get("engine", {}), b.get("reports", {}).get("engine", {})
        out += [f"### {ds}: rows {rows_then or '?':,} -> {rows_now or '?':,}"
                + (f" ({row_ratio:.1f}x)" if row_ratio else ""), "",
                "| query | earlier ms | now ms | time ratio | / row ratio | engine RSS MB | best peer RSS MB |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        best_peer = min([kb for (s, dd), kb in peer_rss.items() if s in PEERS and dd == ds and kb] or [0]) or None
        ratios = []
        for qid, e in sorted(eng.get("queries", {}).items()):
            t = e.get("times") or []
            now = statistics.median(t[1:]) if len(t) > 1 else (t[0] if t else None)
            t0 = eng0.get("queries", {}).get(qid, {}).get("times") or []
            then = statistics.median(t0[1:]) if len(t0) > 1 else (t0[0] if t0 else None)
            r = now / then if now and then else None
            rel = r / row_ratio if r and row_ratio else None
            if rel:
                ratios.append(rel)
            kb = engine_rss.get(qid)
            out.append(f"| {qid} | {fmt_ms(then)} | {fmt_ms(now)} | {r:.1f} |" if r else f"| {qid} | {fmt_ms(then)} | {fmt_ms(now)} | - |")
            out[-1] += (f" {rel:.2f} |" if rel else " - |") + (f" {kb / 1024:,.0f} |" if kb else " - |") \
                + (f" {best_peer / 1024:,.0f} |" if best_peer else " - |")
        g = geomean(ratios)
        out += ["", f"geomean of (time ratio / row ratio): {g:.2f}; queries growing faster than the rows: "
                f"{sum(1 for x in ratios if x > 1.0)} of {len(ratios)}" if g else "", ""]
    return "\n".join(out)


def meta_rows(data: str, ds: str) -> int | None:
    try:
        with open(os.path.join(data, ds, "meta.json")) as f:
            m = json.load(f)
        return m.get("rows_readings") if ds == "devices" else m.get("rows_total")
    except OSError:
        return None


def merge_peers(everything: dict, path: str, peaks: list) -> dict:
    """Put the peer reports of an earlier run beside this run's engine reports and check
    the engine's answers against the earlier reference peer (as run.py does)."""
    import checksum  # noqa: E402  (../shared/bench/checksum.py, on sys.path)
    with open(path) as f:
        old = json.load(f)
    for ds, d in everything["datasets"].items():
        prev = old["datasets"].get(ds, {}).get("reports", {})
        peers = {s: {**r, "reused": True} for s, r in prev.items() if s in PEERS}
        d["reports"] = {**peers, **{s: r for s, r in d["reports"].items() if s not in PEERS}}
        for qid, e in d["reports"].get("engine", {}).get("queries", {}).items():
            ref = next((peers[s]["queries"][qid] for s in PEERS if s in peers and "summary" in peers[s]["queries"].get(qid, {})), None)
            if "error" in e:
                e["check"] = "error"
            elif ref is not None and "summary" in e:
                diffs = checksum.compare(ref["summary"], e["summary"])
                e["check"] = "ok" if not diffs else "MISMATCH: " + "; ".join(diffs[:4])
    # the earlier run's peak RSS of the peers, if it kept them (rss.json beside results.json)
    rss_path = os.path.join(os.path.dirname(os.path.abspath(path)), "rss.json")
    if os.path.exists(rss_path):
        with open(rss_path) as f:
            peaks += [(cmd, kb) for cmd, kb in json.load(f) if "--system" in cmd]
    return everything


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.environ.get("BENCH_DIR", DEFAULT_BENCH), help="the shared bench folder (run.py)")
    ap.add_argument("--scale", choices=sorted(SCALES), default="medium",
                    help="medium (3M/20M rows) or large (30M/100M rows); sets the default --data and --skip")
    ap.add_argument("--data", default=None, help="data folder, outside the repository (default per scale)")
    ap.add_argument("--skip", default=None, help="query ids to leave out (default per scale: large skips d12,d13)")
    ap.add_argument("--growth-from", default=None,
                    help="results.json of a run at a smaller scale: add the time-growth and RSS table")
    ap.add_argument("--engine-bin", default=None,
                    help="Beluga's binary; without it only the peers run (e.g. once at a large scale, to be "
                         "reused with --peers-from)")
    ap.add_argument("--runs", type=int, default=3, help="warm runs (one cold run is added)")
    ap.add_argument("--datasets", default="devices,taq")
    ap.add_argument("--systems", default=",".join(PEERS))
    ap.add_argument("--queries", default="")
    ap.add_argument("--no-setup", action="store_true", help="reuse the engine databases")
    ap.add_argument("--db-root", default=None,
                    help="engine database folder (run.py's default: <data>/db); a second folder lets two binaries "
                         "whose files differ be measured on the same data")
    ap.add_argument("--out", default=None, help="results folder (default <data>/results/<stamp>)")
    ap.add_argument("--peers-from", default=None,
                    help="results.json of an earlier run (same data): reuse its peer reports and run only "
                         "the engine (the peers do not change between engine builds)")
    args = ap.parse_args(argv)

    sc = SCALES[args.scale]
    args.data = args.data or sc["data"]
    skip = {q for q in (sc["skip"] if args.skip is None else args.skip).split(",") if q}
    gen_data(args.bench, args.data, args.scale)
    sys.path.insert(0, args.bench)
    import run  # noqa: E402  (../shared/bench/run.py)
    if skip and not args.queries:
        import spec  # noqa: E402  (../shared/bench/spec.py)
        dsets = args.datasets.split(",")
        args.queries = ",".join(q.id for q in spec.QUERIES if q.dataset in dsets and q.id not in skip)

    shim = RssShim()
    run.subprocess = shim
    out = args.out or os.path.join(args.data, "results", __import__("time").strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    systems = "" if args.peers_from else args.systems
    rargs = ["--data", args.data, "--datasets", args.datasets, "--systems", systems,
             "--warmup", "0", "--runs", str(args.runs + 1), "--out", out, "--max-seconds", "600"]
    if args.engine_bin:
        rargs += ["--engine-bin", args.engine_bin]
    if args.queries:
        rargs += ["--queries", args.queries]
    if not args.no_setup:
        rargs.append("--engine-setup")
    if args.db_root:
        rargs += ["--db-root", args.db_root]
    cwd = os.getcwd()
    os.chdir(args.bench)       # the peers' worker is started as `-m peers.worker`
    try:
        run.main(rargs)
    finally:
        os.chdir(cwd)
    # the peak RSS of every child, kept beside results.json so that a later --peers-from run
    # can show the peers' RSS next to the engine's
    with open(os.path.join(out, "rss.json"), "w") as f:
        json.dump(shim.peaks, f)
    with open(os.path.join(out, "results.json")) as f:
        everything = json.load(f)
    if args.peers_from:
        everything = merge_peers(everything, args.peers_from, shim.peaks)
    text = table(everything, shim.peaks)
    if args.growth_from:
        text += "\n" + growth(everything, shim.peaks, args.growth_from, args.data)
    with open(os.path.join(out, "medium.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    print(f"\nwritten to {os.path.join(out, 'medium.md')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
