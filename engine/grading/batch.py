"""Grade a whole class: expand folders, grade in N processes (or on a Dask cluster), keep input
order, show progress only on a terminal. One result per submission, whatever happens to it."""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from regime.core.errors import RegimeError
from regime.engine.grading import variants as variant_files
from regime.engine.grading.answer import read_text
from regime.engine.grading.grader import Grader, Result

_WORKER: tuple[Grader, Path | None] | None = None
CHUNK = 64
CLUSTER_CHUNK = 8  # submissions per Dask task: one round trip for several


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


@dataclass(frozen=True)
class Marking:
    """What grading one submission needs besides it: the grader (knowledge, rubric, concepts,
    every built-in case's key) and the variants folder, both as content. Pickled once to each
    `--scheduler` worker."""

    grader: Grader
    variants: variant_files.Copied | None = None


@dataclass(frozen=True)
class Submitted:
    """A submission as a worker elsewhere gets it: its path as given and its text, read here
    (or the error reading it gave)."""

    path: Path
    text: str | RegimeError


def grade_one(marking: Marking, item: Submitted) -> Result:
    """One submission graded into its row: the unit of work of `regime grade --scheduler`, a pure
    function of the submission and `marking`; never raises for a bad submission."""
    return marking.grader.grade(item.path, marking.variants, item.text)


def submitted(paths: Iterable[Path], max_bytes: int) -> Iterator[Submitted]:
    """Each submission read (bounded) here, lazily, as content for a worker."""
    for p in paths:
        try:
            yield Submitted(p, read_text(p, max_bytes))
        except RegimeError as err:
            yield Submitted(p, err)


def _lost(item: Submitted, why: str) -> Result:
    lost = Result(str(item.path), graded=False)
    lost.refuse(f"internal error while grading (please report): {why}")
    return lost


def grade_all(grader: Grader, paths: list[Path], variants: Path | None = None, jobs: int = 1,
              progress: Callable[[int], None] | None = None, scheduler: str | Any = None) -> list[Result]:
    """Grade every path (in order). With jobs > 1, forked workers share the loaded grader; with
    a `scheduler`, Dask workers each get a copy of it (raises RegimeError if none can)."""
    global _WORKER
    _WORKER = (grader, variants)
    results: list[Result] = []
    if scheduler is not None:
        from regime.engine.distributed import cluster
        marking = Marking(grader.portable(), variant_files.Copied.of(variants) if variants else None)
        for r in cluster.ordered_map(scheduler, grade_one, submitted(paths, grader.rubric.limits.max_bytes),
                                     marking, _lost, chunk=CLUSTER_CHUNK):
            results.append(r)
            if progress:
                progress(1)
        return results
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


def grade_with_progress(grader: Grader, paths: list[Path], variants: Path | None, jobs: int,
                        scheduler: str | None = None) -> list[Result]:
    """A rich progress bar on a terminal; silent otherwise."""
    if not sys.stderr.isatty() or len(paths) < 2:
        return grade_all(grader, paths, variants, jobs, scheduler=scheduler)
    from rich.progress import Progress
    with Progress(transient=True) as bar:
        task = bar.add_task("grading", total=len(paths))
        return grade_all(grader, paths, variants, jobs, lambda n: bar.advance(task, n), scheduler)
