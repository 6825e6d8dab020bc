"""Hardware counters from CUPTI range-profiler traces (Kineto `cuda_profiler_range` events).

Each range is one kernel, replayed by the profiler while it reads counters; its args hold the
counter values. Which counter is which precision, and how many FLOPs one instruction is worth
(an FMA is two), comes from facts/trace_reading.yaml, as HTA's cupti_counter_analysis does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from regime.engine.trace.guards import measured_value
from regime.engine.trace.settings import Counters as CounterSettings


@dataclass
class Range:
    index: int
    name: str
    ts: float
    dur: float
    flops: dict[str, float]
    dram_bytes: float | None


@dataclass
class CounterTotals:
    """Sums over every range; `listed` keeps the first few ranges for the profile."""
    ranges: int = 0
    flops: dict[str, float] = field(default_factory=dict)
    dram_bytes: float = 0.0
    dram_ranges: int = 0
    flop_ranges: int = 0            # ranges with at least one FLOP counter measured
    tensor_counters: bool = False
    time_us: float = 0.0            # union of the ranges' intervals
    durations: set[float] = field(default_factory=set)
    listed: list[Range] = field(default_factory=list)
    _end: float = -math.inf

    @property
    def flops_total(self) -> float:
        return math.fsum(self.flops.values())

    @property
    def flop_rate(self) -> float | None:
        """None when no range measured a FLOP counter: not measured is not 0 FLOP/s."""
        return self.flops_total / (self.time_us * 1e-6) if self.flop_ranges and self.time_us > 0 else None

    @property
    def dram_bandwidth(self) -> float | None:
        return self.dram_bytes / (self.time_us * 1e-6) if self.dram_ranges and self.time_us > 0 else None


class CounterReader:
    """Accumulates ranges as the trace streams by (ranges arrive in time order in Kineto
    traces; the union below treats a range that starts before the last end as overlapping)."""

    def __init__(self, s: CounterSettings) -> None:
        self.s = s
        self.per_instruction = {name: (prec, float(n)) for name, (prec, n) in s.flops.items()}
        self.totals = CounterTotals(flops={p: 0.0 for p, _ in s.flops.values()})

    def add(self, index: int, name: str, ts: float, dur: float, args: dict, file: str = "<trace>") -> None:
        """One range's counters. A null counter was not measured (skipped); a negative, non-finite
        or implausible one refuses the trace at this event (guards.measured_value)."""
        t, s = self.totals, self.s
        t.ranges += 1
        flops: dict[str, float] = {}
        for key, value in args.items():
            hit = self.per_instruction.get(key)
            if hit is not None:
                v = measured_value(value, file, index, key)
                if v is not None:
                    flops[hit[0]] = flops.get(hit[0], 0.0) + v * hit[1]
            elif not t.tensor_counters and key.startswith(tuple(s.tensor_prefixes)):
                t.tensor_counters = True
        for prec, v in flops.items():
            t.flops[prec] += v
        if flops:
            t.flop_ranges += 1
        dram = _dram(args, s, file, index)
        if dram is not None:
            t.dram_bytes += dram
            t.dram_ranges += 1
        start, end = ts, ts + dur
        t.time_us += max(0.0, end - max(start, t._end))
        t._end = max(t._end, end)
        t.durations.add(dur)
        if len(t.listed) < s.max_listed_ranges:
            t.listed.append(Range(index, name, ts, dur, flops, dram))


def _dram(args: dict, s: CounterSettings, file: str, index: int) -> float | None:
    whole = measured_value(args.get(s.dram_bytes), file, index, s.dram_bytes)
    if whole is not None:
        return whole
    found = [v for v in (measured_value(args.get(k), file, index, k) for k in s.dram_bytes_parts)
             if v is not None]
    return math.fsum(found) if found else None
