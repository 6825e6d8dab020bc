"""A set of correlation ids kept as sorted runs of consecutive ids, not one entry per id.

Which GPU events count follows HTA: with two or more ProfilerSteps, a GPU event counts only if
a host event before the last step carries its correlation id. Runtime calls take consecutive
ids as they are made, so the ids before the cutoff are a few long runs; memory follows the
number of runs (gaps), not of launches.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable


class CorrelationSet:
    def __init__(self, ids: Iterable[float]) -> None:
        """`ids` in ascending order (duplicates allowed)."""
        lo, hi = array("d"), array("d")
        for c in ids:
            if hi and c <= hi[-1] + 1:
                hi[-1] = max(hi[-1], c)
            else:
                lo.append(c)
                hi.append(c)
        self.lo, self.hi = lo, hi

    def __contains__(self, c: float) -> bool:
        k = bisect.bisect_right(self.lo, c) - 1
        return k >= 0 and c <= self.hi[k]

    @property
    def runs(self) -> int:
        return len(self.lo)
