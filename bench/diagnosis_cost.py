"""Benchmark: diagnosis cost of this tree against a base commit, in the same run (issue 23: the
new derivations — speedup figures, counted traffic, idle kinds — against the previous main).

The base is `git archive`d into a temporary folder (its compiled durable-rules module copied
from this tree's vendor/durable); each tree diagnoses the same case files (the base's built-in
cases) in a fresh interpreter, alternating, and the ratio of medians is printed. Asserts nothing.

    python bench/diagnosis_cost.py [--base 261ebbd] [--rounds 20] [--repeats 3]
    python bench/diagnosis_cost.py --base-tree /tmp/base_speedup   # a `git worktree add` of the base
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import sys, time
from pathlib import Path
from regime.engine import api
from regime.engine.run.session import Runner
from regime.facts.case import load_case
k = api.knowledge()
runner = Runner(k)
cases = [load_case(Path(p), k.vocabulary, k.levers, k.claims) for p in sys.argv[2:]]
for c in cases:
    runner.diagnose(c)
t0 = time.perf_counter()
for _ in range(int(sys.argv[1])):
    for c in cases:
        runner.diagnose(c)
print((time.perf_counter() - t0) / (int(sys.argv[1]) * len(cases)))
"""


def base_tree(commit: str, into: Path) -> Path:
    archive = into / "base.tar"
    with archive.open("wb") as f:
        subprocess.run(["git", "-C", str(ROOT), "archive", commit], stdout=f, check=True)
    with tarfile.open(archive) as t:
        t.extractall(into / "base", filter="tar")
    return with_engine(into / "base")


def with_engine(tree: Path) -> Path:
    """The tree with this tree's compiled durable-rules module beside its sources (a checkout
    has the sources only)."""
    for so in (ROOT / "vendor" / "durable").glob("*.so"):
        if not (tree / "vendor" / "durable" / so.name).exists():
            shutil.copy(so, tree / "vendor" / "durable" / so.name)
    return tree


def ms_per_case(tree: Path, rounds: int, cases: list[str]) -> float:
    env = {"PYTHONPATH": str(tree), "REGIME_CACHE": "0", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(rounds), *cases], env=env, cwd=tree,
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1]) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", default="261ebbd")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--base-tree", type=Path, help="a checkout of the base (instead of --base)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = with_engine(args.base_tree) if args.base_tree else base_tree(args.base, Path(tmp))
        if args.base_tree:
            args.base = subprocess.run(["git", "-C", str(base), "rev-parse", "--short", "HEAD"],
                                       capture_output=True, text=True, check=True).stdout.strip()
        cases = sorted(str(p) for p in (base / "cases").glob("*.yaml"))
        head_ms, base_ms = [], []
        for _ in range(args.repeats):
            base_ms.append(ms_per_case(base, args.rounds, cases))
            head_ms.append(ms_per_case(ROOT, args.rounds, cases))
        b, h = statistics.median(base_ms), statistics.median(head_ms)
        print(f"{len(cases)} cases x {args.rounds} rounds, median of {args.repeats} alternating runs")
        print(f"base {args.base}: {b:.2f} ms/case; this tree: {h:.2f} ms/case; ratio {h / b:.2f}x")


if __name__ == "__main__":
    main()
