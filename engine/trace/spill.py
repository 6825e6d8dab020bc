"""Records kept on disk, not in memory: sorted runs of fixed-width float tuples, merged on read.

A 2 GB trace holds millions of GPU intervals; the stream-merged idle time needs them in start
order, and the file gives them in no particular order. Holding them would make memory grow
with the trace, so runs of RUN records are sorted in memory and written to an anonymous
temporary file, then merged lazily (heapq.merge): memory is one run plus a read-ahead budget
shared by the runs (a smaller block each as their number grows), so it stays flat.
"""

from __future__ import annotations

import heapq
import tempfile
from array import array
from collections.abc import Iterator
from itertools import chain
from typing import IO

RUN = 200_000
MERGE_BUDGET = 1 << 22  # bytes of read-ahead shared by all runs of one merge
MIN_READ = 16           # records read at a time from a run, however many runs there are


class SortedSpill:
    """Append tuples of `width` floats; iterate them back in sorted order."""

    def __init__(self, width: int, run: int | None = None) -> None:
        self.width, self.run = width, run or RUN
        self.pending: list[tuple[float, ...]] = []
        self.runs: list[tuple[int, int]] = []  # (byte offset, record count)
        self.file: IO[bytes] | None = None
        self.count = 0

    def add(self, record: tuple[float, ...]) -> None:
        self.pending.append(record)
        self.count += 1
        if len(self.pending) >= self.run:
            self._flush()

    def _flush(self) -> None:
        if not self.pending:
            return
        if self.file is None:
            self.file = tempfile.TemporaryFile()  # noqa: SIM115 - lives until close()
        f = self.file
        self.pending.sort()
        flat = array("d", chain.from_iterable(self.pending))  # one C loop, not one call per record
        f.seek(0, 2)
        self.runs.append((f.tell(), len(self.pending)))
        flat.tofile(f)
        self.pending = []

    def __iter__(self) -> Iterator[tuple[float, ...]]:
        if not self.runs:
            self.pending.sort()
            return iter(self.pending)
        self._flush()
        block = max(MIN_READ, MERGE_BUDGET // (len(self.runs) * self.width * 8))
        if len(self.runs) == 1:  # heapq.merge is Python code per record: skip it when it has no work
            return self._read_run(*self.runs[0], block)
        return heapq.merge(*(self._read_run(off, n, block) for off, n in self.runs))

    def _read_run(self, offset: int, count: int, block: int) -> Iterator[tuple[float, ...]]:
        w, done, f = self.width, 0, self.file
        assert f is not None  # runs exist only once _flush has opened the file
        while done < count:
            take = min(block, count - done)
            f.seek(offset + done * w * 8)
            flat = array("d")
            flat.fromfile(f, take * w)
            yield from zip(*[iter(flat)] * w, strict=True)  # records as tuples, built in C
            done += take

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        self.pending = []
