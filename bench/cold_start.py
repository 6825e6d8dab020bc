"""Benchmark: cold start of `regime diagnose a_chatbot --format json` against the bare import of
the package's own import, `python -c "import regime.durable, pydantic, yaml"`, as a ratio of
medians from one interleaved run (target: <= 1.5x). Prints figures; asserts nothing.

    python bench/cold_start.py [--repeat 15]

"Cold" is a new process each time, with the knowledge cache as a user's second run finds it;
the first run after a change (no cache) is shown separately, as is REGIME_CACHE=0. Bytecode
is cached as an installed wheel has it: PYTHONDONTWRITEBYTECODE is dropped from the runs'
environment, so an editable checkout compiles its modules once, not on every run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REGIME = Path(sys.executable).with_name("regime")
BASELINE = [sys.executable, "-c", "import regime.durable, pydantic, yaml"]
COMMAND = [str(REGIME), "diagnose", "a_chatbot", "--format", "json"]


def _once(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="regime-cache-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        env.pop("REGIME_CACHE", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        _once(BASELINE, env)  # writes bytecode where the interpreter may
        first = _once(COMMAND, env)  # builds the cache entry
        base, warm, off = [], [], []
        for _ in range(args.repeat):  # interleaved, so load on the machine hits all three alike
            base.append(_once(BASELINE, env))
            warm.append(_once(COMMAND, env))
            off.append(_once(COMMAND, {**env, "REGIME_CACHE": "0"}))
    b, w, o = (statistics.median(x) for x in (base, warm, off))
    print(f"$ python {BASELINE[1]} {BASELINE[2]!r}")
    print(f"  baseline import:               {b * 1000:6.0f} ms (median of {args.repeat})")
    print(f"$ {' '.join(COMMAND)}")
    print(f"  with the knowledge cache:      {w * 1000:6.0f} ms  = {w / b:.2f}x baseline (target <= 1.5x)")
    print(f"  REGIME_CACHE=0:                {o * 1000:6.0f} ms  = {o / b:.2f}x baseline")
    print(f"  first run, cache being built:  {first * 1000:6.0f} ms (one run)")


if __name__ == "__main__":
    main()
