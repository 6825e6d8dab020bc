"""Grading exercise answers against the engine's own diagnosis.

The Python API for a course's autograder script::

    import regime
    results = regime.grade(["submissions/"], variants="variants/", jobs=2)
    for r in results:
        print(r.submission, r.graded, r.score, r.max_score, r.errors)

`grade` never raises for a bad submission: it returns one Result per submission, "not graded"
with located errors where the submission could not be read. It raises RegimeError only when
the knowledge or the rubric (`rules`) is broken.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from regime.engine.grading.grader import Grader, Result

__all__ = ["Grader", "Result", "grade"]


def grade(answers: Iterable[str | Path], *, variants: str | Path | None = None,
          rules: Iterable[str | Path] = (), jobs: int = 1) -> list[Result]:
    """Grade answer files (or folders of them); one Result per submission, in input order.

    variants: the folder `regime exercise make` wrote; each student is graded on their variant.
    rules: extra pack folders; their grading/*.yaml override the rubric.
    jobs: worker processes for a large class.
    """
    from regime.engine.grading import batch
    grader = Grader([Path(r) for r in rules])
    paths = batch.expand([Path(a) for a in answers])
    return batch.grade_all(grader, paths, None if variants is None else Path(variants), jobs)
