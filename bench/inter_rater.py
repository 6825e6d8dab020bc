"""How well two blind instructors agree with each other, and how well `regime grade` agrees with each.

answers/second/SET/ANSWER.expected.yaml holds a second instructor's grade of answers/SET/ANSWER,
written blind (neither the first grade nor the grader seen), with that instructor's weights in
WEIGHTS.md. Prints, per set and in all: answers within 10 points between the two instructors,
between the grader and each, and the mean absolute gaps.

    python bench/inter_rater.py            # every set in answers/second
    python bench/inter_rater.py sealed13   # one set
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from regime.engine.grading.grader import Grader  # noqa: E402

SECOND = ROOT / "answers" / "second"


def _score(path: Path) -> float:
    return float(yaml.safe_load(path.read_text(encoding="utf-8"))["score"])


def rows(name: str, g: Grader) -> list[tuple[str, float, float, float]]:
    """(answer, first instructor, second instructor, grader) for every doubly graded answer."""
    out = []
    for second in sorted((SECOND / name).glob("*.expected.yaml")):
        answer = ROOT / "answers" / name / second.name.removesuffix(".expected.yaml")
        first = answer.with_name(answer.name + ".expected.yaml")
        out.append((answer.name, _score(first), _score(second), g.grade(answer).score))
    return out


def summary(label: str, rs: list[tuple[str, float, float, float]]) -> str:
    n = len(rs)

    def within(i: int, j: int) -> int:
        return sum(1 for r in rs if abs(r[i] - r[j]) <= 10)

    def gap(i: int, j: int) -> float:
        return sum(abs(r[i] - r[j]) for r in rs) / n

    def pair(i: int, j: int) -> str:
        return f"{within(i, j)} ({within(i, j) / n:.0%}, mean gap {gap(i, j):.1f})"

    return (f"{label}: {n} answers within 10 points: instructors {pair(1, 2)}; "
            f"grader-first {pair(3, 1)}; grader-second {pair(3, 2)}")


def main() -> int:
    names = sys.argv[1:] or sorted(p.name for p in SECOND.iterdir() if p.is_dir())
    g = Grader()
    every: list[tuple[str, float, float, float]] = []
    for name in names:
        rs = rows(name, g)
        every += rs
        print(summary(name, rs))
        for r in rs:
            if abs(r[1] - r[2]) > 10 or abs(r[3] - (r[1] + r[2]) / 2) > 10:
                print(f"   {r[0]:55s} first {r[1]:5.1f} second {r[2]:5.1f} grader {r[3]:5.1f}")
    if len(names) > 1:
        print(summary("all", every))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
