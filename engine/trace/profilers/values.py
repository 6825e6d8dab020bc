"""The one gate every number read from a profiler file passes: a finite number of bounded size.

One small function for every reader in this package, on the same bound as the trace reader's
guards (engine/trace/guards.py) and every fact: core.limits.MAX_MAGNITUDE. JSON decoding goes
through those guards (json_walk.py), so nesting and out-of-range numbers are refused the same way.
"""

from __future__ import annotations

import math

from regime.core.limits import MAX_MAGNITUDE as MAGNITUDE  # as every number in a case
from regime.engine.trace.source import TraceError


def number(v: object, file: str, where: str, field: str) -> float:
    """v as a float, or a located TraceError: not a number, not finite, or too large."""
    if type(v) is int and -MAGNITUDE <= v <= MAGNITUDE:
        return float(v)   # the common case (SQLite integers), one test
    if type(v) is int or type(v) is float:
        x = float(v)
    elif isinstance(v, str):
        try:
            x = float(v.replace(",", "")) if v.strip() else math.nan
        except ValueError:
            raise TraceError(f"not a number: {v[:40]!r}", file, where, field) from None
    else:
        raise TraceError("missing" if v is None else f"not a number: {str(v)[:40]!r}", file, where, field)
    if not math.isfinite(x) or abs(x) > MAGNITUDE:
        raise TraceError(f"not a finite number within ±{MAGNITUDE:g}: {str(v)[:40]}", file, where, field)
    return x


def time_ns(start: object, end: object, file: str, where: str, max_us: float) -> tuple[float, float]:
    """A [start, end) interval in ns as µs, checked: both numbers, end not before start, and no
    longer than the longest kernel trace_reading.yaml allows."""
    if type(start) is int and type(end) is int and 0 <= start <= end <= MAGNITUDE \
            and end - start <= max_us * 1e3:
        return start / 1e3, end / 1e3   # the common case, checked at once
    s, e = number(start, file, where, "start"), number(end, file, where, "end")
    if s < 0:
        raise TraceError(f"negative timestamp {s:.0f} ns", file, where, "start")
    if e < s:
        raise TraceError(f"ends {s - e:.0f} ns before it starts", file, where, "end")
    if (e - s) / 1e3 > max_us:
        raise TraceError(f"duration {(e - s) / 1e3:.3g} µs is longer than the {max_us:.3g} µs limit",
                         file, where, "end")
    return s / 1e3, e / 1e3
