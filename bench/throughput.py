"""Benchmark: cases diagnosed per second in one process (cold start excluded; see cold_start.py
and batch.py for the CLI). Prints figures; asserts nothing.

    python bench/throughput.py [--rounds N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from regime.engine import api  # noqa: E402
from regime.engine.knowledge.paths import builtin_cases  # noqa: E402
from regime.engine.run.session import Runner  # noqa: E402
from regime.facts.case import load_case  # noqa: E402


def in_process(rounds: int) -> None:
    t0 = time.perf_counter()
    k = api.knowledge()
    runner = Runner(k)
    paths = builtin_cases()
    cases = [load_case(p, k.vocabulary, k.levers, k.claims) for p in paths]
    setup = time.perf_counter() - t0
    for case in cases:  # warm-up
        runner.diagnose(case)
    t0 = time.perf_counter()
    for _ in range(rounds):
        for case in cases:
            runner.diagnose(case)
    run = time.perf_counter() - t0
    n = rounds * len(cases)
    print(f"knowledge load + compile: {setup * 1000:.0f} ms ({len(k.rules)} rules, {len(k.packs)} packs)")
    print(f"diagnose (validated cases, one process): {n / run:.0f} cases/s "
          f"({run / n * 1000:.2f} ms/case over {n} runs of {len(cases)} cases)")
    t0 = time.perf_counter()
    for _ in range(max(1, rounds // 10)):
        api.diagnose_all(paths, k)
    full = (time.perf_counter() - t0) / (max(1, rounds // 10) * len(paths))
    print(f"load + validate + diagnose from YAML: {1 / full:.0f} cases/s ({full * 1000:.2f} ms/case)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()
    in_process(args.rounds)  # cold start: bench/cold_start.py; batches: bench/batch.py


if __name__ == "__main__":
    main()
