"""The Nsight Systems SQLite and rocprofiler-sdk JSON readers against reading the same rows with
`sqlite3` / `json` alone, in the same run; peak memory on a small and a large generated export.

    .venv/bin/python bench/profiler_readers.py [--rows 2000000] [--small-rows N] [--repeat 3]
        [--only nsys|rocprof]

Baselines: for SQLite, the same ordered query (kernels by process, device, start, each with its
name from StringIds) iterated to the end with the standard library; for rocprof JSON,
`json.load` of the inflated file and a walk over its dispatch records. Each side is the fastest
of --repeat runs, each run in its own process so peak RSS (VmHWM) is that side's alone. The
exports are generated into a temporary folder by make_nsys_export.py (kernels of 50 names on
2 devices, 4 streams, with runtime launches) and deleted as soon as both sides have read them;
--rows sets the large one (the small one is a tenth, or --small-rows). TMPDIR picks the disk.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from make_nsys_export import make_nsys

ROOT = Path(__file__).resolve().parent.parent
ROCPROF = ROOT / "tests" / "data" / "profilers" / "rocprof_json" / "908_results.json.gz"

HWM = "next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')) / 1024"
REGIME = f"""
import json, sys, time
from pathlib import Path
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.profilers.detect import measure_any
from regime.engine.trace.settings import settings
c, s = load_classifier(), settings()
t = time.perf_counter()
m = measure_any(Path(sys.argv[1]), c, s)
print(json.dumps({{"seconds": time.perf_counter() - t, "kernels": m.kernels, "rss_mb": {HWM}}}))
"""
SQLITE = f"""
import json, sqlite3, sys, time
t = time.perf_counter()
db = sqlite3.connect(sys.argv[1])
cur = db.execute("SELECT (globalPid >> 24) & 16777215, deviceId, start, end, streamId, correlationId, "
                 "(SELECT value FROM StringIds WHERE id = k.demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                 "ORDER BY 1, 2, start")
n = 0
while rows := cur.fetchmany(4096):
    n += len(rows)
for _ in db.execute("SELECT start, end, correlationId, (SELECT value FROM StringIds WHERE id = nameId) "
                    "FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY start"):
    pass
print(json.dumps({{"seconds": time.perf_counter() - t, "kernels": n, "rss_mb": {HWM}}}))
"""
JSON = f"""
import gzip, json, sys, time
t = time.perf_counter()
with gzip.open(sys.argv[1]) as f:
    doc = json.load(f)
n = sum(1 for p in doc["rocprofiler-sdk-tool"] for r in p["buffer_records"]["kernel_dispatch"]
        if r["end_timestamp"] >= r["start_timestamp"])
print(json.dumps({{"seconds": time.perf_counter() - t, "kernels": n, "rss_mb": {HWM}}}))
"""


def make_rocprof(path: Path, copies: int) -> None:
    """The real MI350X file with its dispatches repeated `copies` times, shifted in time."""
    with gzip.open(ROCPROF) as f:
        doc = json.load(f)
    proc = doc["rocprofiler-sdk-tool"][0]
    recs = proc["buffer_records"]["kernel_dispatch"]
    span = max(r["end_timestamp"] for r in recs) - min(r["start_timestamp"] for r in recs) + 1
    out = []
    for k in range(copies):
        for r in recs:
            out.append({**r, "start_timestamp": r["start_timestamp"] + k * span,
                        "end_timestamp": r["end_timestamp"] + k * span})
    proc["buffer_records"]["kernel_dispatch"] = out
    with gzip.open(path, "wt", compresslevel=1) as f:
        json.dump(doc, f)


def best(code: str, path: Path, repeat: int) -> dict:
    runs = [json.loads(subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                                      text=True, check=True).stdout) for _ in range(repeat)]
    return min(runs, key=lambda r: r["seconds"]) | {"rss_mb": max(r["rss_mb"] for r in runs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000, help="kernels in the large export "
                    "(16,000,000: about 1 GB)")
    ap.add_argument("--small-rows", type=int, help="kernels in the small one (default: a tenth)")
    ap.add_argument("--only", choices=("nsys", "rocprof"), help="run one format's half only")
    ap.add_argument("--copies", type=int, default=4, help="rocprof JSON: the real file repeated this often")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for label, rows in (("small", a.small_rows or a.rows // 10), ("large", a.rows)):
            if a.only == "rocprof":
                break
            path = Path(tmp) / f"{label}.sqlite"
            make_nsys(path, rows)
            base, ours = best(SQLITE, path, a.repeat), best(REGIME, path, a.repeat)
            assert base["kernels"] == ours["kernels"] == rows
            print(f"nsys sqlite {label}: {rows:,} kernels, {path.stat().st_size / 1e6:,.0f} MB: regime "
                  f"{ours['seconds']:.2f} s / sqlite3 alone {base['seconds']:.2f} s = "
                  f"{ours['seconds'] / base['seconds']:.2f}x; peak RSS regime {ours['rss_mb']:.0f} MB, "
                  f"sqlite3 alone {base['rss_mb']:.0f} MB")
            path.unlink()
        for label, copies in (("real", 1), ("repeated", a.copies)):
            if a.only == "nsys":
                break
            path = Path(tmp) / f"{label}.json.gz"
            make_rocprof(path, copies)
            base, ours = best(JSON, path, a.repeat), best(REGIME, path, a.repeat)
            assert base["kernels"] == ours["kernels"]
            print(f"rocprof json {label} (x{copies}): {ours['kernels']:,} dispatches: regime "
                  f"{ours['seconds']:.2f} s / json alone {base['seconds']:.2f} s = "
                  f"{ours['seconds'] / base['seconds']:.2f}x; peak RSS regime {ours['rss_mb']:.0f} MB, "
                  f"json alone {base['rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
