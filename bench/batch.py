"""Benchmark: N generated cases through the CLI with --jobs J: wall time and peak memory of the
whole process tree (the CLI and its workers). Prints figures; asserts nothing.

    python bench/batch.py [--cases 10000] [--jobs 2] [--format jsonl]

Cases are the shipped ones varied (title, utilizations, batch, throughput) into a temporary
directory (a variation the consistency checks refuse is reported, as a user's would be).
Memory is sampled every 50 ms from /proc over the CLI and all its descendants: the sum of
RSS (counts pages shared between the forked workers once per process, an upper bound) and the
sum of PSS (shared pages split between the processes that share them: the real footprint).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
REGIME = Path(sys.executable).with_name("regime")


def generate(folder: Path, n: int, seed: int = 7) -> None:
    """n cases, each a shipped case with a few facts varied within their valid ranges."""
    rng = random.Random(seed)
    shipped = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "cases").glob("*.yaml"))]
    for i in range(n):
        case = dict(shipped[i % len(shipped)])
        facts = dict(case.get("facts") or {})
        case["title"] = f"{case['title']} (variant {i})"
        for key in ("bw_util", "flop_util"):
            if isinstance(facts.get(key), str) and facts[key].endswith("%"):
                facts[key] = f"{rng.uniform(1, 95):.1f}%"
        if isinstance(facts.get("batch"), int):
            facts["batch"] = rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256])
        if isinstance(facts.get("throughput"), str):
            number, unit = facts["throughput"].split(" ", 1)
            facts["throughput"] = f"{float(number) * rng.uniform(0.5, 1.5):.4g} {unit}"
        case["facts"] = facts
        (folder / f"case_{i:05d}.yaml").write_text(yaml.safe_dump(case, sort_keys=False), encoding="utf-8")


def _tree(root: int) -> list[int]:
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return pids


def _kb(path: str, field: str) -> int:
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Sampler(threading.Thread):
    """Peak summed RSS and PSS (kB) of a process tree, and the most processes seen at once."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.rss, self.pss, self.procs, self.done = pid, 0, 0, 0, False

    def run(self) -> None:
        while not self.done:
            pids = _tree(self.pid)
            self.procs = max(self.procs, len(pids))
            self.rss = max(self.rss, sum(_kb(f"/proc/{p}/status", "VmRSS:") for p in pids))
            self.pss = max(self.pss, sum(_kb(f"/proc/{p}/smaps_rollup", "Pss:") for p in pids))
            time.sleep(0.05)


def run(folder: Path, jobs: int, fmt: str) -> dict[str, float]:
    cmd = [str(REGIME), "diagnose", str(folder), "--format", fmt, "--jobs", str(jobs)]
    print("$", " ".join(cmd), "> /dev/null", flush=True)
    t0 = time.perf_counter()
    with open(os.devnull, "w") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE, text=True)
        sampler = Sampler(proc.pid)
        sampler.start()
        _, err = proc.communicate()
    wall = time.perf_counter() - t0
    sampler.done = True
    sampler.join()
    refused = sum(line.startswith("error: ") for line in err.splitlines())
    return {"wall": wall, "rss": sampler.rss / 1024, "pss": sampler.pss / 1024, "procs": sampler.procs,
            "refused": refused, "rc": proc.returncode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--format", default="jsonl")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="regime-bench-") as tmp:
        folder = Path(tmp)
        generate(folder, args.cases)
        subprocess.run([str(REGIME), "check"], capture_output=True)  # fills the knowledge cache
        r = run(folder, args.jobs, args.format)
    n = args.cases
    print(f"{n} cases, --jobs {args.jobs}, --format {args.format}: {r['wall']:.1f} s wall "
          f"({n / r['wall']:.0f} cases/s), exit {r['rc']}, {r['refused']} refused")
    print(f"peak memory of the process tree ({r['procs']} processes): PSS {r['pss']:.0f} MB, "
          f"RSS summed {r['rss']:.0f} MB (target: <= 100 MB)")


if __name__ == "__main__":
    main()
