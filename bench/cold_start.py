"""Benchmark: cold start of `regime diagnose a_chatbot --format json` against the bare import of
the package's own import, `python -c "import regime.durable, pydantic, yaml"`, as a ratio of
medians from one interleaved run (target: <= 1.5x). Prints figures; asserts nothing.

    python bench/cold_start.py [--repeat 15] [--base-tree DIR]

"Cold" is a new process each time, with the knowledge cache as a user's second run finds it;
the first run after a change (no cache) is shown separately, as is REGIME_CACHE=0. Bytecode
is cached as an installed wheel has it: PYTHONDONTWRITEBYTECODE is dropped from the runs'
environment, so an editable checkout compiles its modules once, not on every run.

`--base-tree DIR`: also time another checkout (one with its own `.venv`, e.g. a worktree of the
previous main), its command and its baseline, interleaved with this tree's in the same rounds,
so a change is measured against what it changed on the same machine state.
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

BASE_IMPORT = "import regime.durable, pydantic, yaml"
ARGS = ["diagnose", "a_chatbot", "--format", "json"]


def _once(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    return time.perf_counter() - t0


def _commands(python: Path) -> tuple[list[str], list[str]]:
    """(baseline, command) run with this interpreter's venv."""
    return [str(python), "-c", BASE_IMPORT], [str(python.with_name("regime")), *ARGS]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--base-tree", type=Path, help="another checkout with its own .venv")
    args = parser.parse_args()
    trees = {"this tree": Path(sys.executable)}
    if args.base_tree is not None:
        trees[f"base {args.base_tree}"] = args.base_tree.resolve() / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory(prefix="regime-cache-") as cache:
        env = {**os.environ}
        env.pop("REGIME_CACHE", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        envs = {name: {**env, "XDG_CACHE_HOME": os.path.join(cache, str(i))} for i, name in enumerate(trees)}
        firsts = {}
        for name, python in trees.items():
            base, cmd = _commands(python)
            _once(base, envs[name])  # writes bytecode where the interpreter may
            firsts[name] = _once(cmd, envs[name])  # builds the cache entry
        times: dict[str, dict[str, list[float]]] = {n: {"base": [], "warm": [], "off": []} for n in trees}
        for _ in range(args.repeat):  # interleaved, so load on the machine hits every series alike
            for name, python in trees.items():
                base, cmd = _commands(python)
                times[name]["base"].append(_once(base, envs[name]))
                times[name]["warm"].append(_once(cmd, envs[name]))
                times[name]["off"].append(_once(cmd, {**envs[name], "REGIME_CACHE": "0"}))
    for name, t in times.items():
        b, w, o = (statistics.median(t[k]) for k in ("base", "warm", "off"))
        print(f"{name}: $ python -c {BASE_IMPORT!r}; $ regime {' '.join(ARGS)}")
        print(f"  baseline import:               {b * 1000:6.0f} ms (median of {args.repeat})")
        print(f"  with the knowledge cache:      {w * 1000:6.0f} ms  = {w / b:.2f}x baseline (goal <= 1.5x)")
        print(f"  REGIME_CACHE=0:                {o * 1000:6.0f} ms  = {o / b:.2f}x baseline")
        print(f"  first run, cache being built:  {firsts[name] * 1000:6.0f} ms (one run)")


if __name__ == "__main__":
    main()
