"""`regime trace` against HTA on the same traces, in the same run: events/s and peak RSS.

    .venv/bin/python bench/trace_speed.py [--hta-python /tmp/hta-venv/bin/python] [--synthetic-gb 2]

Each measurement runs in its own process, so peak RSS (VmHWM; ru_maxrss would carry this
parent's peak across exec) is that tool's alone; time
is parse + breakdown inside the process (imports excluded for both). HTA is never a
dependency: install it into a separate venv (`python -m venv /tmp/hta-venv &&
/tmp/hta-venv/bin/pip install HolisticTraceAnalysis`) and pass its interpreter. Synthetic traces
(the V100 trace repeated with shifted timestamps, correlation ids and step numbers) are written
to /tmp and deleted afterwards; HTA runs on them up to --hta-max-mb.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "traces"
DATA = ROOT / "tests" / "data"

REGIME = """
import json, sys, time
from pathlib import Path
def hwm():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.measure import measure
from regime.engine.trace.settings import settings
c, s = load_classifier(), settings()
base = hwm()
t = time.perf_counter()
m = measure(Path(sys.argv[1]), c, s)
dt = time.perf_counter() - t
print(json.dumps({"seconds": dt, "events": m.events, "kernels": m.kernels, "idle": m.idle_share,
                  "hta_idle": m.hta_idle_share, "rss_mb": hwm(), "rss_after_import_mb": base}))
"""

HTA = """
import json, logging, os, shutil, sys, tempfile, time
logging.disable(logging.WARNING)
def hwm():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
from hta.trace_analysis import TraceAnalysis
base = hwm()
d = tempfile.mkdtemp()
src = sys.argv[1]
dst = os.path.join(d, "rank-0." + ("json.gz" if src.endswith(".gz") else "json"))
os.symlink(os.path.abspath(src), dst)
t = time.perf_counter()
a = TraceAnalysis(trace_dir=d)
df = a.get_temporal_breakdown(visualize=False)
dt = time.perf_counter() - t
kcat = a.t.symbol_table.get_sym_id_map().get("kernel")
tr = a.t.get_trace(0)
print(json.dumps({"seconds": dt, "kernels": int((tr["cat"] == kcat).sum()),
                  "idle": float(df["idle_time_pctg"][0]) / 100,
                  "rss_mb": hwm(), "rss_after_import_mb": base}))
shutil.rmtree(d)
"""

IJSON = """
import json, sys, time, ijson
t = time.perf_counter(); n = 0
opener = __import__("gzip").open if sys.argv[1].endswith(".gz") else open
with opener(sys.argv[1], "rb") as f:
    for _ in ijson.items(f, "traceEvents.item", use_float=True):
        n += 1
print(json.dumps({"seconds": time.perf_counter() - t, "events": n, "backend": ijson.backend}))
"""


def run(python: str, code: str, trace: Path, timeout: float) -> dict | None:
    try:
        r = subprocess.run([python, "-c", code, str(trace)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish in {timeout:.0f} s"}
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def synthetic(base: Path, target_bytes: float, out: Path) -> int:
    """Repeat `base`'s events with shifted ts, correlation and step numbers until target_bytes."""
    with (gzip.open(base) if base.suffix == ".gz" else open(base, "rb")) as f:
        doc = json.load(f)
    events = [e for e in doc.pop("traceEvents") if e.get("cat") != "Trace"]  # one span, written last
    ts = [e["ts"] for e in events if isinstance(e.get("ts"), int | float)]
    shift = max(ts) - min(ts) + 1000.0
    header = orjson.dumps(doc)[:-1] + b',"traceEvents":['
    written, copy, n = 0, 0, 0
    with open(out, "wb") as f:
        f.write(header)
        while written < target_bytes:
            parts = []
            for e in events:
                e2 = dict(e)
                if isinstance(e2.get("ts"), int | float):
                    e2["ts"] = e2["ts"] + copy * shift
                args = e2.get("args")
                if isinstance(args, dict) and "correlation" in args:
                    args = dict(args)
                    args["correlation"] = args["correlation"] + copy * 10_000_000
                    e2["args"] = args
                name = e2.get("name")
                if isinstance(name, str) and name.startswith("ProfilerStep#"):
                    e2["name"] = f"ProfilerStep#{int(name[13:]) + copy * 1000}"
                parts.append(orjson.dumps(e2))
            blob = (b"," if copy else b"") + b",\n".join(parts)
            f.write(blob)
            written += len(blob)
            n += len(parts)
            copy += 1
        span = {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans",
                "tid": "PyTorch Profiler", "ts": min(ts) - 1.0, "dur": copy * shift + 2.0}
        f.write(b"," + orjson.dumps(span) + b"]}\n")
    return n


def _gunzipped_size(path: Path) -> int:
    with gzip.open(path) as f:
        return sum(len(b) for b in iter(lambda: f.read(1 << 24), b""))


def row(label: str, size_mb: float, events: int, regime: dict, hta: dict | None) -> str:
    def cell(d: dict | None) -> str:
        if d is None:
            return "not run"
        if "error" in d:
            return d["error"]
        return f"{d['seconds']:.2f} s, {events / d['seconds'] / 1e3:,.0f}k ev/s, {d['rss_mb']:,.0f} MB"
    ratio = ""
    if hta and "error" not in hta and "error" not in regime:
        ratio = (f"{hta['seconds'] / regime['seconds']:.1f}x faster, "
                 f"{hta['rss_mb'] / regime['rss_mb']:.1f}x less memory")
    return f"| {label} | {size_mb:,.0f} MB | {events:,} | {cell(regime)} | {cell(hta)} | {ratio} |"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hta-python", help="interpreter of a venv with HolisticTraceAnalysis installed")
    p.add_argument("--synthetic-gb", type=float, default=2.0,
                   help="size of the big synthetic trace (0: none)")
    p.add_argument("--hta-max-mb", type=float, default=250, help="largest trace HTA is run on")
    p.add_argument("--timeout", type=float, default=1800)
    args = p.parse_args()
    names = ("v100_rank0_train.json.gz", "mi250_minitoy_train_rocm6.json.gz",
             "sampled_rank0_nodevice.json.gz")
    traces = [SHARED / n for n in names if (SHARED / n).exists()] or sorted(DATA.glob("*.gz"))
    me = sys.executable
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; HTA: {args.hta_python or 'not run'}\n")
    print("| trace | JSON size | events | regime trace | HTA 0.5 | ratio |\n|---|---|---|---|---|---|")
    tmp = Path(tempfile.mkdtemp(prefix="regime-bench-"))
    try:
        work: list[tuple[str, Path, float]] = [(t.name, t, 0.0) for t in traces]
        base = next((t for t in traces if "v100" in t.name), traces[0])
        for size in [0.2e9] + ([args.synthetic_gb * 1e9] if args.synthetic_gb else []):
            work.append((f"synthetic {size / 1e9:g} GB (from {base.name})",
                         tmp / f"synthetic_{size / 1e9:g}gb.json", size))
        for label, path, size in work:
            if size:
                subprocess.run([me, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import trace_speed; "
                                "trace_speed.synthetic(*map(__import__('pathlib').Path, sys.argv[2:3]), "
                                "float(sys.argv[3]), __import__('pathlib').Path(sys.argv[4]))",
                                str(Path(__file__).parent), str(base), str(size), str(path)], check=True)
            raw = os.path.getsize(path) if path.suffix == ".json" else _gunzipped_size(path)
            mine = run(me, REGIME, path, args.timeout)
            events = mine.get("events", 0) if mine else 0
            hta = (run(args.hta_python, HTA, path, args.timeout)
                   if args.hta_python and raw <= args.hta_max_mb * 1e6 else None)
            print(row(label, raw / 1e6, events, mine, hta), flush=True)
            if size:
                path.unlink()
            if "error" not in mine and hta and "error" not in hta:
                print(f"|   idle: regime {mine['idle']:.2%} exact, {mine['hta_idle']:.2%} HTA-rounded; "
                      f"HTA {hta['idle']:.2%}; kernels {mine['kernels']} vs {hta['kernels']} | | | | | |",
                      flush=True)
        try:
            import ijson  # noqa: F401 - only to compare parsers; not a dependency
            v100 = next(p for _, p, size in work if "v100" in str(p) and not size)
            ij = run(me, IJSON, v100, args.timeout)
            mine = run(me, REGIME, v100, args.timeout)
            print(f"\nparser choice on {v100.name}: ijson ({ij.get('backend')}) items alone "
                  f"{ij['seconds']:.2f} s; regime's orjson-per-chunk reader + all measurements "
                  f"{mine['seconds']:.2f} s")
        except ImportError:
            print("\n(ijson not installed: parser comparison skipped)")
    finally:
        for f in list(tmp.iterdir()):
            f.unlink()
        tmp.rmdir()


if __name__ == "__main__":
    main()
