"""A set of correlation ids as a paged bitmap: one bit per id, pages only where ids are.

Which GPU events count follows HTA: with two or more ProfilerSteps, a GPU event counts only if
a host event before the last step carries its correlation id. CUPTI hands out ids in order,
one per API call, so the ids of recorded launches are dense in a few ranges (with small gaps
for unrecorded calls): a bit per id in those ranges is about a byte per eight launches, flat
next to the few hundred bytes of JSON each launch takes in the trace. Ids scattered far apart
cost one small page each (PAGE_IDS / 8 bytes plus the page's entry), still less than the
events that carried them.
"""

from __future__ import annotations

from collections.abc import Iterable

PAGE_SHIFT = 10                    # 1,024 ids per page: 128 bytes
_MASK = (1 << PAGE_SHIFT) - 1


class CorrelationSet:
    def __init__(self, ids: Iterable[float] = ()) -> None:
        self.pages: dict[int, bytearray] = {}
        for c in ids:
            self.add(c)

    def add(self, c: float) -> None:
        i = int(c)
        page = self.pages.get(i >> PAGE_SHIFT)
        if page is None:
            page = self.pages[i >> PAGE_SHIFT] = bytearray((_MASK + 1) >> 3)
        o = i & _MASK
        page[o >> 3] |= 1 << (o & 7)

    def __contains__(self, c: float) -> bool:
        i = int(c)
        page = self.pages.get(i >> PAGE_SHIFT)
        if page is None:
            return False
        o = i & _MASK
        return bool(page[o >> 3] >> (o & 7) & 1)

    def freeze(self) -> None:
        """Nothing to fold: kept so callers need not know the representation."""
