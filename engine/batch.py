"""Many cases, in order, with flat memory: expand the inputs, fan them out, stream them back.

Results come back in input order whatever the number of workers: a bounded window of tasks is
in flight, and the oldest is awaited first (a reorder buffer by index), so at most `window`
results are held at once. Workers are forked after the knowledge is loaded and compiled, so
each inherits it instead of loading it again; where fork is unavailable they load it
themselves (from the knowledge cache).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from regime.core.errors import RegimeError

if TYPE_CHECKING:  # multiprocessing is imported only for a pool: one case should start fast
    from concurrent.futures import Future, ProcessPoolExecutor

CASE_SUFFIXES = (".yaml", ".yml")
WINDOW_PER_JOB = 8
T = TypeVar("T")
R = TypeVar("R")


def expand(inputs: Iterable[Path | RegimeError]) -> Iterator[Path | RegimeError]:
    """Each file as given; each directory as its case files, sorted by name (not recursive).

    A directory without cases is an error in its place, so it is reported like a bad file;
    errors already found about an input pass through in their place."""
    for path in inputs:
        if isinstance(path, RegimeError):
            yield path
        elif path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix in CASE_SUFFIXES and p.is_file())
            if not found:
                yield RegimeError(f"no case files ({', '.join('*' + s for s in CASE_SUFFIXES)}) "
                                  "in this directory", file=str(path))
            yield from found
        else:
            yield path


def jobs_wanted(jobs: int) -> int:
    """`--jobs 0` means one worker per CPU."""
    return max(1, os.cpu_count() or 1) if jobs == 0 else jobs


def ordered_map(work: Callable[[T], R], items: Iterable[T], jobs: int,
                init: Callable[..., None] | None = None, init_args: Sequence[Any] = (),
                lost: Callable[[T, str], R] | None = None) -> Iterator[R]:
    """`map(work, items)` over `jobs` processes, lazily and in order.

    A worker that dies (a crash in native code) breaks the pool: the cases that were in flight
    are retried one at a time in a fresh pool, so only the culprit is reported, via `lost`."""
    if jobs <= 1:
        if init is not None:
            init(*init_args)
        yield from map(work, items)
        return
    pool = _Pool(work, jobs, init, init_args)
    try:
        yield from pool.run(iter(items), lost or _reraise)
    finally:
        pool.close()


def _reraise(item: Any, why: str) -> Any:
    raise RuntimeError(f"a worker process died on {item!r}: {why}")


class _Pool:
    def __init__(self, work: Callable, jobs: int, init: Callable | None, init_args: Sequence[Any]) -> None:
        self.work, self.jobs, self.init, self.init_args = work, jobs, init, tuple(init_args)
        self.window = jobs * WINDOW_PER_JOB
        self.executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        return ProcessPoolExecutor(self.jobs, mp_context=ctx, initializer=self.init, initargs=self.init_args)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)

    def run(self, items: Iterator, lost: Callable) -> Iterator:
        from concurrent.futures.process import BrokenProcessPool

        pending: deque[tuple[Any, Future]] = deque()
        while True:
            while len(pending) < self.window and (item := next(items, _END)) is not _END:
                try:
                    pending.append((item, self.executor.submit(self.work, item)))
                except BrokenProcessPool as err:  # a worker died while the window was filling
                    yield from self._isolate([*(i for i, _ in pending), item], lost, err)
                    pending.clear()
            if not pending:
                return
            item, future = pending.popleft()
            try:
                yield future.result()
            except BrokenProcessPool as err:
                yield from self._isolate([item, *(i for i, _ in pending)], lost, err)
                pending.clear()

    def _isolate(self, suspects: list, lost: Callable, err: BaseException) -> Iterator:
        """Rerun the cases a dead worker took down with it, one at a time, in a fresh pool."""
        from concurrent.futures.process import BrokenProcessPool

        self._restart()
        for item in suspects:
            try:
                yield self.executor.submit(self.work, item).result()
            except BrokenProcessPool:
                yield lost(item, f"a worker process died ({err or 'no reason given'})")
                self._restart()

    def _restart(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = self._start()


_END = object()
