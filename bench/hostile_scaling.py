"""How the cost of two hostile input shapes grows with their size (issue 25): linear or not.

    .venv/bin/python bench/hostile_scaling.py [--before PATH] [--base-events 2000] [--base-words 500]

- trailing header: a trace of N empty events and one kernel, `deviceProperties` written AFTER
  `traceEvents` (fuzz corpus trace-trailing-header-quadratic), timed through measure();
- long item: a written answer whose one Fixes item is N words "batching" (fuzz corpus
  grade-long-item-quadratic), timed through Grader.grade().

Each shape is timed at 1x, 4x and 16x its base size, each in a fresh process (imports, knowledge
and the grader's load excluded: only the call), fastest of --repeat. The figure to read is the
ratio per doubling, (t16 / t1) ** (1 / 4): 2 is linear, 4 quadratic; the 1x time of the same run
is the baseline, so a loaded machine slows all sizes alike. `--before PATH`: a checkout of an
earlier commit (e.g. `git worktree add /tmp/before 261ebbd`, then copy vendor/durable/*.so into
it: the grader needs the built engine), timed the same way in the same run (through PYTHONPATH,
with this venv's dependencies). `--shape trace|grade` times one shape only. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (1, 4, 16)

TRACE = """
import sys, time
from pathlib import Path
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.measure import measure
from regime.engine.trace.settings import settings
c, s = load_classifier(), settings()
t = time.perf_counter()
m = measure(Path(sys.argv[1]), c, s)
print(time.perf_counter() - t, m.events)
"""

GRADE = """
import sys, time
from pathlib import Path
from regime.engine.grading.grader import Grader
g = Grader()
g.grade(Path("answers/a_chatbot.solution.md"))  # the case's key is computed once per class: not timed
t = time.perf_counter()
r = g.grade(Path(sys.argv[1]))
print(time.perf_counter() - t, r.graded)
"""


def trailing_header(path: Path, events: int) -> Path:
    kernel = {"ph": "X", "cat": "kernel", "name": "k", "ts": 100, "dur": 5, "pid": 0, "tid": 7,
              "args": {"device": 0, "stream": 7, "correlation": 1}}
    body = ",".join(["{}"] * events)
    device = [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150000000000}]
    path.write_text('{"traceEvents": [' + json.dumps(kernel) + "," + body + '], "deviceProperties": '
                    + json.dumps(device) + "}", encoding="utf-8")
    return path


def long_item(path: Path, words: int) -> Path:
    text = "---\ncase: a_chatbot\n---\n## Fixes\n1. " + "batching " * words + "x\n"
    path.write_text(text, encoding="utf-8")
    return path


def timed(script: str, arg: Path, source: Path, repeat: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(source)}
    best = float("inf")
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", script, str(arg)], capture_output=True, text=True,
                             env=env, cwd=source, check=True).stdout.split()
        best = min(best, float(out[0]))
    return best


def row(label: str, times: list[float]) -> str:
    per_doubling = (times[-1] / times[0]) ** (1 / 4) if times[0] > 0 else float("nan")
    cells = "  ".join(f"{t:8.3f} s" for t in times)
    return f"  {label:<8} {cells}   ratio per doubling {per_doubling:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, help="a checkout of the earlier commit, timed the same way")
    ap.add_argument("--base-events", type=int, default=2000)
    ap.add_argument("--base-words", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--shape", choices=("trace", "grade", "all"), default="all")
    args = ap.parse_args()
    sources = [("after", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    with tempfile.TemporaryDirectory(prefix="regime-hostile-") as tmp:
        work = Path(tmp)
        shapes = [("trailing header: events", args.base_events, trailing_header, TRACE, ".json"),
                  ("long item: words", args.base_words, long_item, GRADE, ".md")]
        for title, base, make, script, suffix in shapes:
            if args.shape != "all" and (script is TRACE) != (args.shape == "trace"):
                continue
            files = [make(work / f"{n * base}{suffix}", n * base) for n in SIZES]
            print(f"{title} {', '.join(f'{n * base:,}' for n in SIZES)} (1x, 4x, 16x)")
            for label, source in sources:
                print(row(label, [timed(script, f, source, args.repeat) for f in files]), flush=True)


if __name__ == "__main__":
    main()
