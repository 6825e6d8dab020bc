"""Benchmark: grade a generated class with `regime grade --jobs N`, as an instructor would.

2,000 students x 5 cases = 10,000 submissions, each student graded on their own variants, a
tenth of them malformed, YAML and Markdown mixed. Prints the setup (variants, submissions),
then the graded run: wall time, submissions per second, peak memory of the grading processes,
and the rows in the CSV; and, as the baseline measured in the same run, the time to merely read
and parse the same files in one process. Asserts nothing but the row count.

    python bench/grade_class.py [--students 2000] [--jobs 2] [--work /tmp/regime-grade-bench]

The variants (the slow part of the setup: one or two engine runs per student and case) are kept
in --work and reused when the seed and the knowledge are unchanged.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import multiprocessing
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from regime.engine.grading import exercise  # noqa: E402
from regime.engine.grading import variants as vfiles  # noqa: E402
from regime.engine.grading.answer import MARKDOWN_SUFFIXES  # noqa: E402
from regime.engine.grading.grader import Grader  # noqa: E402
from regime.engine.grading.key import Key  # noqa: E402

CASES = ["a_chatbot", "b_training_run", "c_document_summarizer", "d_high_throughput_api", "e_doesnt_add_up"]
_G: Grader | None = None


def _make_one(args: tuple[str, list[str], str, Path]) -> str:
    case, students, seed, out = args
    assert _G is not None
    return exercise.make(_G, ROOT / "cases" / f"{case}.yaml", students, seed, out).statement()


def make_variants(students: list[str], seed: str, out: Path, jobs: int) -> float:
    global _G
    stamp = out / "knowledge.txt"
    _G = Grader()
    if stamp.is_file() and stamp.read_text() == f"{_G.knowledge_hash} {seed} {len(students)}":
        return 0.0
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for line in pool.imap(_make_one, [(c, students, seed, out) for c in CASES]):
            print("  " + line)
    stamp.write_text(f"{_G.knowledge_hash} {seed} {len(students)}")
    return time.perf_counter() - t0


def _figures(key: Key, rng: random.Random, share: float) -> list[tuple[str, str]]:
    figs = [f for f in key.figures.values() if f.source == "derived"]
    return [(f.name, f.text) for f in figs if rng.random() < share]


def _levers(items, rng: random.Random, share: float) -> list[str]:
    return [i.id for i in items if rng.random() < share]


def yaml_answer(student: str, key: Key, rng: random.Random, skill: float) -> str:
    fixes = _levers(key.fixes, rng, skill)
    if rng.random() > skill:
        rng.shuffle(fixes)
    tempting = [i.id for i in key.rejects if i.id not in key.claims]
    if rng.random() > skill and tempting:
        fixes.append(tempting[0])  # the tempting lever
    body = {"case": key.case, "student": student,
            "regime": key.regime if rng.random() < skill else "bandwidth_bound",
            "evidence": [{"figure": n, "value": t} for n, t in _figures(key, rng, skill)],
            "fixes": fixes,
            "reject": [{"lever" if i.id not in key.claims else "claim": i.id, "reason": "see the key"}
                       for i in key.rejects if rng.random() < skill and i.id not in fixes]}
    return yaml.safe_dump(body, sort_keys=False, allow_unicode=True)


def markdown_answer(student: str, key: Key, rng: random.Random, skill: float) -> str:
    regime = (key.regime or "balanced").replace("_", "-")
    lines = ["---", f"case: {key.case}", f"student: {student}", "---", "## Regime", "", f"{regime}.", "",
             "## Evidence", ""]
    lines += [f"- {n.replace('_', ' ')}: {t}" for n, t in _figures(key, rng, skill)]
    lines += ["", "## Fixes", ""]
    lines += [f"{i}. {lever.replace('_', ' ')}" for i, lever in enumerate(_levers(key.fixes, rng, skill), 1)]
    lines += ["", "## Reject", ""]
    lines += [f"- {r.replace('_', ' ')}: not the bottleneck" for r in _levers(key.rejects, rng, skill)]
    return "\n".join(lines) + "\n"


MALFORMED = [
    lambda s, c: ("yaml", f"case: {c}\nstudent: {s}\nregime: [\n"),
    lambda s, c: ("yaml", "a: &a [x, x]\nb: [*a, *a]\n"),
    lambda s, c: ("yaml", f"case: {c}\nstudent: {s}\nregime: bandwidth_bound\nfixes: [warp_drive]\n"),
    lambda s, c: ("yaml", f"case: {c}\nstudent: {s}\nregime: bandwidth_bound\n"
                          "evidence:\n  - {figure: x, value: .nan}\n"),
    lambda s, c: ("md", "\x00\x01binary junk\x02"),
    lambda s, c: ("md", f"---\ncase: {c}\nstudent: {s}\n---\nno headings at all\n"),
    lambda s, c: ("yaml", f"case: no_such_case\nstudent: {s}\nregime: compute_bound\n"),
    lambda s, c: ("yaml", "x" * 300_000),  # over the size limit
]


def make_submissions(students: list[str], variants: Path, out: Path, seed: str) -> int:
    shutil.rmtree(out, ignore_errors=True)
    n = 0
    for i, student in enumerate(students):
        folder = out / vfiles.safe_name(student)
        folder.mkdir(parents=True)
        for j, case in enumerate(CASES):
            rng = random.Random(f"{seed}:{student}:{case}")
            if rng.random() < 0.1:
                kind, text = MALFORMED[(i + j) % len(MALFORMED)](student, case)
                (folder / f"{case}.{kind}").write_text(text, encoding="utf-8")
            else:
                key = vfiles.stored_key(vfiles.paths(variants, student, case)[1], _G.knowledge_hash)
                skill = rng.choice([0.3, 0.6, 0.9, 1.0])
                md = (i + j) % 2
                text = (markdown_answer if md else yaml_answer)(student, key, rng, skill)
                (folder / f"{case}.{'md' if md else 'yaml'}").write_text(text, encoding="utf-8")
            n += 1
    return n


def parse_only(subs: Path) -> float:
    """Baseline: read every submission and parse it (YAML, or split Markdown by lines)."""
    t0 = time.perf_counter()
    for p in sorted(subs.rglob("*")):
        if not p.is_file():
            continue
        data = p.read_bytes()
        if p.suffix in MARKDOWN_SUFFIXES:
            data.decode("utf-8", "replace").splitlines()
        else:
            with contextlib.suppress(yaml.YAMLError):
                yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--students", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", default="bench-1")
    ap.add_argument("--work", type=Path, default=Path("/tmp/regime-grade-bench"))
    args = ap.parse_args()
    students = [f"s{i:05d}" for i in range(args.students)]
    variants, subs, out = args.work / "variants", args.work / "submissions", args.work / "out"
    print(f"setup: variants for {len(students)} students x {len(CASES)} cases")
    took = make_variants(students, args.seed, variants, args.jobs)
    print(f"  variants: {'reused' if took == 0 else f'{took:.0f} s'}")
    n = make_submissions(students, variants, subs, args.seed)
    print(f"  submissions: {n} written under {subs}")
    base = parse_only(subs)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "regime.engine.cli", "grade", str(subs), "--variants", str(variants),
           "--format", "csv", "-o", str(out), "--jobs", str(args.jobs)]
    # A wrapper process runs the command so that its children's peak RSS is the grading's alone
    # (this process has other children: the variant makers).
    wrap = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True); "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(u.ru_maxrss, u.ru_utime + u.ru_stime); sys.exit(r.returncode)")
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", wrap, *cmd], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    rss, cpu = [*done.stdout.split(), "0", "0"][:2]
    peak = int(rss) / 1024
    with (out / "grades.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    not_graded = sum(1 for r in rows if r["status"] == "not graded")
    print(f"command: {' '.join(cmd[1:])}")
    print(f"exit code {done.returncode} (2: some submissions not graded); rows in grades.csv: {len(rows)} "
          f"({not_graded} not graded)")
    print(f"grade (cold start included): {wall:.2f} s wall, {n / wall:.0f} submissions/s, "
          f"peak RSS of one grading process {peak:.0f} MiB")
    print(f"CPU time of the grading processes (user + sys, all workers): {float(cpu):.1f} s "
          f"({float(cpu) / n * 1000:.2f} ms per submission)")
    print(f"baseline, read + parse the same files in one process: {base:.2f} s "
          f"(grading takes {wall / base:.1f}x the baseline)")
    assert len(rows) == n, "every submission must be a row"


if __name__ == "__main__":
    main()
