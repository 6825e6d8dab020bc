"""GPU activity from any profiler as the timeline's records, in (device, start) order.

Each reader gives per-table iterators already ordered by (device key, start); they are
merged here lazily, their device keys (a process and a GPU, or an agent) numbered in order,
so that the Kineto timeline (measure.run_timeline) runs on them unchanged.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from operator import itemgetter

from regime.engine.trace.timeline import KERNEL

_BY_KEY_START = itemgetter(0, 1)


def merged(sources: Iterable[Iterator[tuple]]) -> Iterator[tuple]:
    """Records (device, start, end, stream, correlation, category, flags, index) from several
    ordered sources, in (device, start) order."""
    return heapq.merge(*sources, key=_BY_KEY_START)


def flags(is_kernel: bool) -> int:
    return KERNEL if is_kernel else 0


def step_number(text: str, prefixes: tuple[str, ...], order: int) -> int | None:
    """The step a range's text names: a prefix (case-insensitive), then separators and a number,
    or nothing (numbered `order`); None for any other text."""
    low = text.lower()
    for prefix in prefixes:
        p = prefix.lower()
        if low.startswith(p):
            rest = low[len(p):].lstrip(" #_-:")
            if not rest:
                return order
            if rest.isdigit() and len(rest) <= 12:
                return int(rest)
    return None
