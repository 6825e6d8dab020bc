"""`regime trace` on every trace in HTA's test data, against HTA's own figures, file by file.

    .venv/bin/python bench/hta_traces.py HTA_REPO/tests/data [--hta-python /tmp/hta-venv/bin/python]

For each *.json / *.json.gz under the folder: regime's HTA-compatible idle share and kernel
count, and (with --hta-python) HTA 0.5's temporal breakdown idle % and the kernels it keeps, run
in that interpreter (HTA is never a dependency). A trace regime refuses shows its one-line error.
The table this prints is quoted in docs/trace.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HTA = """
import json, logging, os, shutil, sys, tempfile
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
src = sys.argv[1]
d = tempfile.mkdtemp()
try:
    ext = "json.gz" if src.endswith(".gz") else "json"
    os.symlink(os.path.abspath(src), os.path.join(d, "rank-0." + ext))
    a = TraceAnalysis(trace_dir=d)
    rank = sorted(a.t.traces)[0]
    kcs = [v for k, v in a.t.symbol_table.get_sym_id_map().items() if k.lower() == "kernel"]  # Kernel too
    tr = a.t.get_trace(rank)
    df = a.get_temporal_breakdown(visualize=False)
    print(json.dumps({"kernels": int(tr["cat"].isin(kcs).sum()),
                      "idle_pct": float(df["idle_time_pctg"][0])}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__}))
finally:
    shutil.rmtree(d)
"""


def regime(path: Path) -> dict:
    from regime.engine.trace.kernels import load_classifier
    from regime.engine.trace.measure import measure
    from regime.engine.trace.reader import TraceError
    from regime.engine.trace.settings import settings
    try:
        m = measure(path, load_classifier(), settings())
    except TraceError as err:
        return {"error": str(err).split(": ", 1)[-1][:90]}
    out = {"kernels": m.kernels, "idle_pct": round(m.hta_idle_share * 100, 2) if m.devices else None,
           "overlaps": m.overlaps.count}
    if m.counters is not None:
        out["counter_flops"] = m.counters.flops_total
    return out


def hta(python: str, path: Path) -> dict:
    r = subprocess.run([python, "-c", HTA, str(path)], capture_output=True, text=True, timeout=600)
    lines = r.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else {"error": "no output"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data", type=Path, help="HTA's tests/data folder")
    p.add_argument("--hta-python", help="interpreter of a venv with HolisticTraceAnalysis installed")
    args = p.parse_args()
    files = sorted(f for f in args.data.rglob("*") if f.name.endswith((".json", ".json.gz")))
    print("| trace | regime: kernels, idle % (HTA rounding) | HTA 0.5: kernels, idle % | equal |")
    print("|---|---|---|---|")
    read = agree = compared = 0
    for f in files:
        mine = regime(f)
        theirs = hta(args.hta_python, f) if args.hta_python else None
        if "error" in mine:
            cell = f"refused: {mine['error']}"
        else:
            read += 1
            extra = f", {mine['overlaps']} same-stream overlaps" if mine["overlaps"] else ""
            extra += f", counters {mine['counter_flops']:,.0f} FLOPs" if "counter_flops" in mine else ""
            cell = f"{mine['kernels']:,}, {mine['idle_pct']}{extra}"
        other, same = "not run", ""
        if theirs is not None:
            other = (f"{theirs['kernels']:,}, {theirs['idle_pct']}" if "error" not in theirs
                     else f"fails: {theirs['error']}")
            if "error" not in theirs and "error" not in mine and mine["idle_pct"] is not None:
                compared += 1
                ok = mine["idle_pct"] == theirs["idle_pct"] and mine["kernels"] == theirs["kernels"]
                agree += ok
                same = "yes" if ok else ("idle only" if mine["idle_pct"] == theirs["idle_pct"] else "NO")
        print(f"| {f.relative_to(args.data)} | {cell} | {other} | {same} |", flush=True)
    print(f"\nread {read} of {len(files)} files; idle and kernels equal to HTA on {agree} of {compared} "
          "that both measure")
    sys.exit(0)


if __name__ == "__main__":
    main()
