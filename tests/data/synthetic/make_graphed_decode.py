"""Writes graphed_decode_long_wait.json.gz: a small Kineto trace shaped like TraceLens's
sglang Qwen3-8B decode trace (issue 23): one 463 ms idle gap in a 474 ms window, 545 of 555
kernels replayed from a HIP graph (their correlation ids are those of hipGraphLaunch calls).

Run from the repository root: python tests/data/synthetic/make_graphed_decode.py
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

OUT = Path(__file__).with_name("graphed_decode_long_wait.json.gz")


def events() -> list[dict]:
    ev: list[dict] = []
    t, corr = 1000.0, 1
    kernels = 0

    def kernel(name: str, ts: float, dur: float, c: int) -> None:
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 2, "tid": 1, "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": 1, "correlation": c}})

    def call(name: str, ts: float, c: int) -> None:
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": 4.0,
                   "args": {"correlation": c}})

    # nine eager kernels (sampling, bookkeeping) before the graphs, one after the wait: 10 in all
    for i in range(9):
        call("hipLaunchKernel", t - 5, corr)
        kernel(f"elementwise_kernel_{i}", t, 50.0, corr)
        t += 52.0
        corr += 1
        kernels += 1
    # five graph replays of 109 kernels each: 545 kernels, back to back, ~1 µs apart
    for _ in range(5):
        call("hipGraphLaunch", t - 5, corr)
        for j in range(109):
            name = "Cijk_Alik_Bljk_BBS_BH_MT64x64" if j % 3 == 0 else \
                ("paged_attention_ll4mi" if j % 3 == 1 else "rms_norm_kernel")
            kernel(name, t, 9.0, corr)
            t += 10.0
            kernels += 1
        corr += 1
    # then the host waits 463 ms for the next request before one last eager kernel
    t += 463_000.0
    call("hipLaunchKernel", t - 5, corr)
    kernel("elementwise_kernel_last", t, 40.0, corr)
    return ev


def main() -> None:
    trace = {"deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}],
             "traceEvents": events()}
    with gzip.open(OUT, "wt") as f:
        json.dump(trace, f)


if __name__ == "__main__":
    main()
