"""The idle gaps long enough to hold a given share of a device's window on their own."""

from __future__ import annotations

import heapq
import math


class BigGaps:
    """The few gaps that could each hold `share` of the window: at most 1/share of them can, so
    the largest ⌈1/share⌉ are kept (a heap), whatever the trace's length."""

    __slots__ = ("heap", "keep", "share")

    def __init__(self, share: float) -> None:
        self.share, self.keep = share, math.ceil(1 / share) if share > 0 else 1
        self.heap: list[float] = []

    def add(self, gap: float) -> None:
        if len(self.heap) < self.keep:
            heapq.heappush(self.heap, gap)
        elif gap > self.heap[0]:
            heapq.heapreplace(self.heap, gap)

    def close(self, window: float) -> tuple[int, float]:
        """How many kept gaps hold the share of the window on their own, and their total."""
        long = [g for g in self.heap if g >= self.share * window]
        return len(long), sum(long)
