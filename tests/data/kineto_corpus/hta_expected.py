"""Expected figures for the corpus: HTA 0.5's own, and step figures read with `json` alone.

    HTA_VENV/bin/python hta_expected.py [--check]     # run from tests/data/kineto_corpus

Needs HolisticTraceAnalysis 0.5.0 (PyPI) in the interpreter that runs it; shares no code with
Regime. For each file of SOURCES.json: HTA's temporal breakdown (idle µs, window µs: its
`kernel_time(us)`, the first GPU start to the last GPU end on HTA's rounding) and the kernels
HTA keeps (it leaves out those launched in the last ProfilerStep); the ProfilerStep
annotations with `json`; for a trimmed file, the same HTA figures on the original (under
--originals DIR as OWNER/REPO/PATH), which must be equal. Writes EXPECTED.json (or, with
--check, compares).
"""

import argparse
import gzip
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def hta(path: Path) -> dict:
    from hta.trace_analysis import TraceAnalysis
    logging.disable(logging.WARNING)
    d = tempfile.mkdtemp()
    try:
        ext = "json.gz" if path.name.endswith(".gz") else "json"
        os.symlink(path.resolve(), os.path.join(d, "rank-0." + ext))
        a = TraceAnalysis(trace_dir=d)
        rank = sorted(a.t.traces)[0]
        kcs = [v for k, v in a.t.symbol_table.get_sym_id_map().items() if k.lower() == "kernel"]
        kernels = int(a.t.get_trace(rank)["cat"].isin(kcs).sum())
        df = a.get_temporal_breakdown(visualize=False)
        return {"kernels": kernels, "idle_us": float(df["idle_time(us)"][0]),
                "window_us": float(df["kernel_time(us)"][0]), "idle_pct": float(df["idle_time_pctg"][0])}
    except Exception as e:  # HTA's failure is a figure too
        return {"error": type(e).__name__}
    finally:
        shutil.rmtree(d)


def steps(path: Path) -> dict:
    """ProfilerStep#N annotations (first of each number); the median duration of all but the
    last when there are two or more (the last is cut short and left out, as HTA does)."""
    raw = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
    doc = json.loads(raw)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    found: dict[int, tuple[float, float]] = {}
    for e in events:
        name = str(e.get("name", ""))
        if e.get("ph") == "X" and name.startswith("ProfilerStep#") and name[13:].isdigit() \
                and str(e.get("cat", "")).lower() in ("user_annotation", "operator", "cpu_op"):
            found.setdefault(int(name[13:]), (e["ts"], e["dur"]))
    order = sorted(found, key=lambda n: found[n][0])
    kept = order[:-1] if len(order) >= 2 else order
    out = {"numbers": order}
    if kept:
        out["median_us"] = statistics.median(found[n][1] for n in kept)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--originals", type=Path, help="folder holding the untrimmed files as OWNER/REPO/PATH")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    sources = json.loads((HERE / "SOURCES.json").read_text())
    out = {}
    for name, src in sorted(sources.items()):
        path = HERE / name
        fig = {"hta": hta(path), "steps": steps(path)}
        if src.get("trimmed") and a.originals:
            orig = hta(a.originals / src["repo"] / src["path"])
            if orig != fig["hta"]:
                sys.exit(f"{name}: HTA differs on the original: {orig} vs {fig['hta']}")
            fig["hta_on_original"] = "equal"
        out[name] = fig
        print(name, json.dumps(fig), flush=True)
    text = json.dumps(out, indent=1, sort_keys=True) + "\n"
    if a.check:
        old = json.loads((HERE / "EXPECTED.json").read_text())
        bad = [n for n in out if {k: v for k, v in out[n].items() if k != "hta_on_original"}
               != {k: v for k, v in old.get(n, {}).items() if k != "hta_on_original"}]
        sys.exit(f"differ: {bad}" if bad else 0)
    (HERE / "EXPECTED.json").write_text(text)


if __name__ == "__main__":
    main()
