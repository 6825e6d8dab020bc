"""A set of correlation ids kept as sorted runs of consecutive ids, not one entry per id.

Which GPU events count follows HTA: with two or more ProfilerSteps, a GPU event counts only if
a host event before the last step carries its correlation id. Runtime calls take consecutive
ids as they are made, so the ids before the cutoff are a few long runs; memory follows the
number of runs (gaps) plus one batch of ids waiting to be folded in, not the number of launches.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable

BATCH = 1 << 16  # ids held before they are sorted and folded into the runs


class CorrelationSet:
    def __init__(self, ids: Iterable[float] = ()) -> None:
        self.lo, self.hi = array("d"), array("d")
        self.pending = array("d")
        for c in ids:
            self.add(c)
        self.freeze()

    def add(self, c: float) -> None:
        self.pending.append(c)
        if len(self.pending) >= BATCH:
            self.freeze()

    def freeze(self) -> None:
        """Fold the waiting ids into the runs (call before testing membership)."""
        if not self.pending:
            return
        ids = sorted(self.pending)
        self.pending = array("d")
        runs: list[tuple[float, float]] = []
        a = b = ids[0]
        for c in ids:  # locals only: this loop sees every id
            if c > b + 1:
                runs.append((a, b))
                a = c
            if c > b:
                b = c
        runs.append((a, b))
        runs.extend(zip(self.lo, self.hi, strict=True))
        runs.sort()
        lo, hi = array("d"), array("d")
        for a, b in runs:  # the runs, a few
            if hi and a <= hi[-1] + 1:
                if b > hi[-1]:
                    hi[-1] = b
            else:
                lo.append(a)
                hi.append(b)
        self.lo, self.hi = lo, hi

    def __contains__(self, c: float) -> bool:
        k = bisect.bisect_right(self.lo, c) - 1
        return k >= 0 and c <= self.hi[k]

    @property
    def runs(self) -> int:
        return len(self.lo)
