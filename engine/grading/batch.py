"""Grade a whole class: expand folders, grade in N processes, keep input order, show progress
only on a terminal. One result per submission, whatever happens to it."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from regime.engine.grading.grader import Grader, Result

_WORKER: tuple[Grader, Path | None] | None = None
CHUNK = 64


EXPECTED_SUFFIX = ".expected.yaml"   # an instructor's expected grade of the answer it sits beside


def expand(inputs: Iterable[Path]) -> list[Path]:
    """Files as given; folders become every file in them (recursively, sorted, hidden ones and
    `X.expected.yaml` sidecars skipped), so a submission in an unknown format is still a row:
    "not graded"."""
    out: list[Path] = []
    for p in inputs:
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and not f.name.endswith(EXPECTED_SUFFIX)
                          and not any(part.startswith(".") for part in f.relative_to(p).parts))
        else:
            out.append(p)
    return out


def _grade_one(path: Path) -> Result:
    assert _WORKER is not None
    grader, variants = _WORKER
    return grader.grade(path, variants)


def grade_all(grader: Grader, paths: list[Path], variants: Path | None = None, jobs: int = 1,
              progress: Callable[[int], None] | None = None) -> list[Result]:
    """Grade every path (in order). With jobs > 1, forked workers share the loaded grader."""
    global _WORKER
    _WORKER = (grader, variants)
    results: list[Result] = []
    if jobs <= 1 or len(paths) < 2 * CHUNK or "fork" not in multiprocessing.get_all_start_methods():
        for p in paths:
            results.append(_grade_one(p))
            if progress:
                progress(1)
        return results
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for r in pool.imap(_grade_one, paths, chunksize=CHUNK):
            results.append(r)
            if progress:
                progress(1)
    return results


def grade_with_progress(grader: Grader, paths: list[Path], variants: Path | None, jobs: int) -> list[Result]:
    """A rich progress bar on a terminal; silent otherwise."""
    if not sys.stderr.isatty() or len(paths) < 2:
        return grade_all(grader, paths, variants, jobs)
    from rich.progress import Progress
    with Progress(transient=True) as bar:
        task = bar.add_task("grading", total=len(paths))
        return grade_all(grader, paths, variants, jobs, lambda n: bar.advance(task, n))
