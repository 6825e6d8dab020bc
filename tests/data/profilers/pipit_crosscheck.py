#!/usr/bin/env python3
"""Optional cross-check of the nsys_sqlite figures with pipit's own reader.

NOT standard-library only and NOT run by the test-suite: it needs pandas and
numpy and a checkout of hpcgroup/pipit at commit
ad30bc8498bdd16cc93b4eb8397d5d5bbae3e33b ("ready for review", 2024-10-04),
the commit that carries pipit/readers/nsight_sqlite_reader.py and these
fixtures.  (The package called "pipit" on PyPI is an unrelated 1 kB
placeholder, version 0.0.1, so pip cannot install hpcgroup's pipit.)

How it was run (2026-12-01):

    git -C <pipit mirror> archive ad30bc8 | tar -x -C /tmp/pipit_src
    python3 -m venv /tmp/pipit && /tmp/pipit/bin/pip install pandas numpy
    PYTHONPATH=/tmp/pipit_src /tmp/pipit/bin/python pipit_crosscheck.py

It prints, per sqlite fixture, the kernel count, summed kernel time and the
union busy time of pipit's "gpu_trace" events, next to the same figures from
reference_figures.py; the result is recorded in EXPECTED.yaml under
pipit_agreement (copied by hand from this script's output).
"""

import gzip
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import reference_figures as ref  # noqa: E402
from pipit.readers.nsight_sqlite_reader import NSightSQLiteReader  # noqa: E402


def pipit_figures(sqlite_path):
    trace = NSightSQLiteReader(sqlite_path, trace_types=["gpu_trace"]).read()
    ev = trace.events
    enter = ev[ev["Event Type"] == "Enter"]
    ivs = list(zip(enter["Timestamp (ns)"].astype(int), enter["_matching_timestamp"].astype(int), enter["type"]))
    kern = [(s, e) for s, e, t in ivs if t == "kernel"]
    return {
        "kernel_count": len(kern),
        "kernel_total_ns_sum": int(sum(e - s for s, e in kern)),
        "kernels_busy_ns": ref.union_length(kern),
        "gpu_events": len(ivs),
        "all_busy_ns": ref.union_length([(s, e) for s, e, _ in ivs]),
    }


def main():
    out = {}
    for rel in ("nsys_sqlite/perlmutter-cloverleaf-cuda.sqlite.gz",
                "nsys_sqlite/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz"):
        src = os.path.join(HERE, rel)
        with tempfile.TemporaryDirectory() as td:
            p = os.path.join(td, "x.sqlite")
            with open(p, "wb") as fh:
                fh.write(gzip.open(src).read())
            try:
                got = pipit_figures(p)
            except Exception as exc:  # pipit's reader has known bugs; record them
                got = {"error": f"{type(exc).__name__}: {exc}"}
        mine = ref.nsys_sqlite_figures(src)
        dev = next(iter(mine["per_device"].values()))
        want = {"kernel_count": mine["kernel_count"], "kernel_total_ns_sum": mine["kernel_total_ns_sum"],
                "kernels_busy_ns": dev["kernels"]["busy_ns"],
                "gpu_events": mine["kernel_count"] + mine["memcpy_count"] + mine["memset_count"],
                "all_busy_ns": dev["all"]["busy_ns"]}
        out[rel] = {"pipit": got, "reference": want,
                    "agree": {k: got.get(k) == v for k, v in want.items()}}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
