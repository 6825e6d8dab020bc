"""Agreement of `regime grade` with the blind instructor grades of a folder of answers.

Each answer ANSWER has ANSWER.expected.yaml (score, penalties, why, statuses) written before the
grader ran. Prints one line per answer (expected, graded, gap, review flag) and the summary:
share within 10 points, mean absolute gap, share flagged for review and the share of the >10
disagreements the review queue flags.

    python bench/grading_agreement.py answers/new answers/corpus [-v]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from regime.engine.grading.grader import Grader  # noqa: E402


def answers(folder: Path) -> list[Path]:
    """The answers that carry a grade beside them (a folder's README has none)."""
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.endswith(".expected.yaml")
                  and p.with_name(p.name + ".expected.yaml").is_file())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    g = Grader()
    rows = []
    for folder in args.folders:
        for p in answers(folder):
            exp = yaml.safe_load(p.with_name(p.name + ".expected.yaml").read_text(encoding="utf-8"))
            r = g.grade(p)
            review = bool(getattr(r, "review", None))
            rows.append((p, exp["score"], r.score, review, r))
            gap = r.score - exp["score"]
            mark = "  " if abs(gap) <= 10 else "XX"
            print(f"{mark} {p.parent.name}/{p.name:55s} exp {exp['score']:5.1f} got {r.score:5.1f} "
                  f"gap {gap:+6.1f} {'REVIEW' if review else ''} {'' if r.graded else r.errors}")
            if args.verbose and abs(gap) > 10:
                from regime.engine.grading import output
                print("    why:", exp.get("why"))
                print("    " + output.text(r).replace("\n", "\n    "))
    n = len(rows)
    within = sum(1 for _, e, s, _, _ in rows if abs(s - e) <= 10)
    mae = sum(abs(s - e) for _, e, s, _, _ in rows) / n
    flagged = sum(1 for *_, f, _ in rows if f)
    bad = [row for row in rows if abs(row[2] - row[1]) > 10]
    caught = sum(1 for row in bad if row[3])
    print(f"answers {n}: within 10 points {within}/{n} = {within / n:.0%}; mean absolute gap {mae:.1f}; "
          f"flagged {flagged}/{n} = {flagged / n:.0%}; disagreements > 10 flagged {caught}/{len(bad)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
