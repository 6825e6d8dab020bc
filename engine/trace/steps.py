"""Steps (ProfilerStep annotations, NVTX step ranges) and the GPU work each one launched.

A step owns the correlation ids of the launches made while it runs (StepLaunches, fed the
runtime calls in start order); StepTimes then gives each step the GPU work whose correlation
id falls in its range: busy union, span, kernels. Correlation ids only mean something within
one process, so a reader of a multi-process file makes them unique per process and keeps one
Step per (process, step): the ranges of all steps are then disjoint, whatever their order in
time.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Protocol


@dataclass
class Step:
    number: int
    ts: float
    dur: float
    corr_lo: float = math.inf
    corr_hi: float = -math.inf
    kernels: int = 0
    gpu_events: int = 0
    busy_us: float = 0.0
    span_us: float = 0.0


class LaunchMatcher(Protocol):
    """Gives steps the correlation ids of runtime calls fed in start order."""

    def add(self, ts: float, corr: float) -> None: ...


class StepLaunches:
    """Each step's range of correlation ids: those of the runtime calls that start inside it.
    Steps in start order, not overlapping; calls in start order."""

    __slots__ = ("k", "steps")

    def __init__(self, steps: list[Step]) -> None:
        self.steps, self.k = steps, 0

    def add(self, ts: float, corr: float) -> None:
        steps, k = self.steps, self.k
        while k < len(steps) and steps[k].ts + steps[k].dur <= ts:
            k += 1
        self.k = k
        if k < len(steps) and steps[k].ts <= ts and corr >= 0:
            steps[k].corr_lo = min(steps[k].corr_lo, corr)
            steps[k].corr_hi = max(steps[k].corr_hi, corr)


class StepTimes:
    """Per step on one device: first start, last end, busy union, kernels and events of the
    GPU work whose correlation id falls in the step's range of launches."""

    __slots__ = ("hi", "lo", "order", "state", "steps")

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.order = sorted(range(len(steps)), key=lambda k: steps[k].corr_lo)   # disjoint ranges
        self.lo = [steps[k].corr_lo for k in self.order]
        self.hi = [steps[k].corr_hi for k in self.order]
        # step index → [first start, last end, busy start, busy end, busy, kernels, events]
        self.state: dict[int, list[float]] = {}

    def add(self, corr: float, start: float, end: float, is_kernel: bool) -> None:
        j = bisect.bisect_right(self.lo, corr) - 1
        if j < 0 or corr > self.hi[j]:
            return
        k = self.order[j]
        st = self.state.get(k)
        if st is None:
            self.state[k] = [start, end, start, end, 0.0, float(is_kernel), 1.0]
            return
        st[1] = max(st[1], end)
        if start > st[3]:
            st[4] += st[3] - st[2]
            st[2], st[3] = start, end
        else:
            st[3] = max(st[3], end)
        st[5] += is_kernel
        st[6] += 1

    def close(self) -> None:
        for k, st in self.state.items():
            step = self.steps[k]
            step.busy_us += st[4] + st[3] - st[2]
            step.span_us += st[1] - st[0]
            step.kernels += int(st[5])
            step.gpu_events += int(st[6])
