"""A trace's GPU timeline, one small accumulator per concern (as HTA has one analyzer per concern).

The GPU records arrive from the spill merged in (device, start) order. Each device gets a
DeviceTimeline, which feeds:

- Busy: the exact busy union, the window, and the idle gaps between busy stretches;
- a second Busy on HTA's whole-µs rounding and its choice of events (only those with a
  stream id, when the trace gives them), so the two idle figures can be compared;
- StreamOrder: kernels on one stream overlapping by timestamp jitter (counted) or by more (refused);
- three Unions: communication, computation and both (HTA's comm/comp overlap);
- StepTimes (steps.py): busy time, span and kernels per step, matched by correlation id;
- BigGaps (long_gaps.py): the gaps that alone hold a share of the window.

KernelMix (GPU time per kernel category, kernel durations) and the gap histogram span devices.
Each piece is a few lines over intervals in start order, so a unit test can hold it alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from regime.engine.trace.corrset import CorrelationSet
from regime.engine.trace.long_gaps import BigGaps
from regime.engine.trace.quantiles import LogHistogram
from regime.engine.trace.reader import TraceError
from regime.engine.trace.steps import Step, StepTimes

# GPU spill record: device, start, end, stream, correlation, category, flags, event index
G_DEV, G_START, G_END, G_STREAM, G_CORR, G_CAT, G_FLAGS, G_INDEX = range(8)
KERNEL, STREAMLESS = 1, 2   # flags: a kernel (not a copy or a wait); no stream id (or −1) in its args


@dataclass
class Device:
    id: int
    name: str | None
    events: int = 0
    kernels: int = 0
    window_us: float = 0.0
    busy_us: float = 0.0
    hta_window_us: float = 0.0   # HTA's figures: timestamps rounded inward to whole µs
    hta_busy_us: float = 0.0
    on_hta_timeline: bool = True  # False: none of its events has a stream id, so HTA lists no such device
    comm_us: float = 0.0         # union of communication kernels
    comp_us: float = 0.0         # union of the other kernels (HTA's "computation")
    comm_or_comp_us: float = 0.0  # union of both: comm ∩ comp = comm + comp − this
    hta_comm: tuple[float, float, float] = (0.0, 0.0, 0.0)  # the three unions on HTA's rounding
    graphed_kernels: int = 0      # kernels a graph launch started
    long_gaps: int = 0            # idle gaps that alone hold long_gap's share of the window
    long_gap_us: float = 0.0      # their total

    @property
    def comm_overlap_us(self) -> float:
        return self.comm_us + self.comp_us - self.comm_or_comp_us

    @property
    def hta_comm_overlap_us(self) -> float:
        comm, comp, both = self.hta_comm
        return comm + comp - both

    @property
    def idle_share(self) -> float:
        return 1 - self.busy_us / self.window_us if self.window_us > 0 else 0.0

    @property
    def hta_idle_share(self) -> float | None:
        """None where HTA's rounding leaves no interval (every one under a whole µs): HTA then
        gives no idle figure at all, not 0%."""
        w, busy = self.hta_window_us, self.hta_busy_us
        return 1 - busy / w if w > 0 < busy else None


class Union:
    """Length of the union of intervals given in start order: one open interval, no list."""

    __slots__ = ("end", "start", "total")

    def __init__(self) -> None:
        self.start, self.end, self.total = 0.0, -math.inf, 0.0

    def add(self, start: float, end: float) -> None:
        if start > self.end:
            if self.end > -math.inf:
                self.total += self.end - self.start
            self.start, self.end = start, end
        elif end > self.end:
            self.end = end

    def close(self) -> float:
        if self.end > -math.inf:
            self.total += self.end - self.start
        self.start, self.end = 0.0, -math.inf
        return self.total


class Busy:
    """A device's busy union from its first interval on: busy time, window, and each gap."""

    __slots__ = ("end", "first", "start", "total")

    def __init__(self, start: float, end: float) -> None:
        self.first, self.start, self.end, self.total = start, start, end, 0.0

    def add(self, start: float, end: float) -> float:
        """Extend by an interval starting no earlier than the last; return the idle gap before it
        (0 when it overlaps the busy stretch)."""
        if start > self.end:
            gap = start - self.end
            self.total += self.end - self.start
            self.start, self.end = start, end
            return gap
        if end > self.end:
            self.end = end
        return 0.0

    @property
    def busy(self) -> float:
        return self.total + (self.end - self.start)

    @property
    def window(self) -> float:
        return self.end - self.first


def hta_round(start: float, end: float, rounding: bool) -> tuple[float, float]:
    """HTA 0.5 rounds float timestamps inward to whole µs (ceil start, floor end)."""
    return (math.ceil(start), math.floor(end)) if rounding else (start, end)


@dataclass
class StreamOverlaps:
    """GPU events that start before the previous one on their stream ends. CUPTI timestamps do
    this by a few µs; the idle union merges them, and they are counted here so a reader sees how
    many and how large. Past the bound in trace_reading.yaml the trace is refused as corrupt."""
    count: int = 0
    total_us: float = 0.0
    largest_us: float = 0.0
    largest_at: int | None = None   # event index of the largest

    def add(self, overlap_us: float, index: int) -> None:
        self.count += 1
        self.total_us += overlap_us
        if overlap_us > self.largest_us:
            self.largest_us, self.largest_at = overlap_us, index


class StreamOrder:
    """Kernels on one stream run one after another; an overlap within `tol` µs is jitter."""

    __slots__ = ("file", "last", "overlaps", "tol")

    def __init__(self, tol: float, overlaps: StreamOverlaps, file: str) -> None:
        self.tol, self.overlaps, self.file = tol, overlaps, file
        self.last: dict[float, tuple[float, int]] = {}  # stream → (latest end, its event index)

    def add(self, stream: float, start: float, end: float, index: int) -> None:
        prev = self.last.get(stream)
        if prev is not None and start < prev[0]:
            if start < prev[0] - self.tol:
                raise TraceError(f"overlaps event {prev[1]} on stream {int(stream)} by "
                                 f"{prev[0] - start:.3f} µs, more than the {self.tol:g} µs of "
                                 "timestamp jitter tolerated (trace_reading.yaml); kernels on one "
                                 "stream run one after another",
                                 self.file, f"event {index}", f"traceEvents[{index}].ts")
            self.overlaps.add(prev[0] - start, index)
        if prev is None or end > prev[0]:
            self.last[stream] = (end, index)


@dataclass
class KernelMix:
    """GPU time per kernel category (one slot past them: stream waits, on the timeline only)
    and the kernel duration distribution, over all devices."""
    category_us: list[float]
    kernel_duration: LogHistogram = field(default_factory=LogHistogram)
    sync_events: int = 0


@dataclass(frozen=True)
class Context:
    """What every device's accumulators need to know about the trace and the settings."""
    file: str
    names: dict[int, str]    # device id → name from deviceProperties
    rounding: bool           # float timestamps: HTA rounds them
    sync_cat: int            # category slot of stream waits
    comm_cat: int            # category slot of communication kernels, −1 if none
    tol: float               # same-stream overlap tolerated, µs
    any_streamless: bool     # some GPU event in the file names no stream: keep HTA's other timeline
    graphs: CorrelationSet | None = None   # correlation ids of graph launches (their kernels are graphed)
    long_gap: tuple[float, float] = (math.inf, 1.0)  # a wait: at least min µs and this share of the window


class DeviceTimeline:
    """One device's records in start order, handed to each accumulator."""

    def __init__(self, rec: tuple, ctx: Context, steps: list[Step], mix: KernelMix,
                 gaps: LogHistogram, overlaps: StreamOverlaps) -> None:
        start, end = rec[G_START], rec[G_END]
        self.ctx, self.mix, self.gaps = ctx, mix, gaps
        self.device = Device(int(rec[G_DEV]), ctx.names.get(int(rec[G_DEV])))
        self.busy = Busy(start, end)
        self.hta: Busy | None = None           # every event, rounded as HTA rounds
        self.hta_streams: Busy | None = None   # only those with a stream id, as HTA selects them
        self.streamless = 0
        self._hta_add(rec, start, end)
        self.comm, self.comp, self.both = Union(), Union(), Union()
        self.hta_unions = (Union(), Union(), Union())   # the same on HTA's whole-µs rounding
        self.order = StreamOrder(ctx.tol, overlaps, ctx.file)
        self.steps = StepTimes(steps) if steps else None
        self.big = BigGaps(ctx.long_gap[1])
        self._feed(rec)

    def add(self, rec: tuple) -> None:
        start, end = rec[G_START], rec[G_END]
        gap = self.busy.add(start, end)
        self.gaps.add(gap)
        if gap >= self.ctx.long_gap[0]:
            self.big.add(gap)
        self._hta_add(rec, start, end)
        self._feed(rec)

    def _hta_add(self, rec: tuple, start: float, end: float) -> None:
        """HTA's timeline: whole-µs rounding, and only events with a stream id (HTA gives the
        others stream −1 and leaves them out: an MTIA trace has DMA events without one). Which
        of the two is HTA's depends on all devices' kept events, so Timeline picks at the end;
        a trace with no streamless event at all keeps one accumulator."""
        s, e = hta_round(start, end, self.ctx.rounding)
        if self.hta is None:
            self.hta = Busy(s, e)
        else:
            self.hta.add(s, e)
        if not self.ctx.any_streamless:
            return
        if int(rec[G_FLAGS]) & STREAMLESS:
            self.streamless += 1
        else:
            self.hta_streams = _extend(self.hta_streams, s, e)

    def _feed(self, rec: tuple) -> None:
        start, end, cat = rec[G_START], rec[G_END], int(rec[G_CAT])
        is_kernel = int(rec[G_FLAGS]) & KERNEL
        ctx, mix, dev = self.ctx, self.mix, self.device
        if cat == ctx.sync_cat:  # a wait overlaps the work it waits on: no stream-order check
            mix.sync_events += 1
        else:
            self.order.add(rec[G_STREAM], start, end, int(rec[G_INDEX]))
        dur = end - start
        dev.events += 1
        mix.category_us[cat] += dur
        if is_kernel:
            dev.kernels += 1
            graphs = ctx.graphs
            if graphs is not None and rec[G_CORR] >= 0 and rec[G_CORR] in graphs:
                dev.graphed_kernels += 1
            mix.kernel_duration.add(dur)
            (self.comm if cat == ctx.comm_cat else self.comp).add(start, end)
            self.both.add(start, end)
            s, e = hta_round(start, end, ctx.rounding)
            if s < e:   # HTA drops what its rounding empties
                comm, comp, both = self.hta_unions
                (comm if cat == ctx.comm_cat else comp).add(s, e)
                both.add(s, e)
        if self.steps is not None:
            self.steps.add(rec[G_CORR], start, end, bool(is_kernel))

    def close(self) -> Device:
        dev = self.device
        dev.busy_us, dev.window_us = self.busy.busy, self.busy.window
        if self.hta is not None:
            dev.hta_busy_us, dev.hta_window_us = self.hta.busy, self.hta.window
        dev.comm_us, dev.comp_us = self.comm.close(), self.comp.close()
        dev.comm_or_comp_us = self.both.close()
        comm, comp, both = self.hta_unions
        dev.hta_comm = (comm.close(), comp.close(), both.close())
        dev.long_gaps, dev.long_gap_us = self.big.close(dev.window_us)
        if self.steps is not None:
            self.steps.close()
        return dev


def _extend(busy: Busy | None, start: float, end: float) -> Busy:
    if busy is None:
        return Busy(start, end)
    busy.add(start, end)
    return busy


class Timeline:
    """All devices of one trace: the records the profiler kept (launched before the last step,
    when one is left out), each checked against the profiled window and handed to its device."""

    def __init__(self, ctx: Context, steps: list[Step], launched: CorrelationSet | None,
                 span: tuple[float, float] | None, slack: float, categories: int) -> None:
        self.ctx, self.steps, self.launched, self.span, self.slack = ctx, steps, launched, span, slack
        self.devices: list[Device] = []
        self.mix = KernelMix([0.0] * categories)
        self.gap = LogHistogram()
        self.overlaps = StreamOverlaps()
        self.excluded = 0
        self.streamless = 0   # kept GPU events without a stream id

    def run(self, records: Iterable[tuple]) -> None:
        launched, current = self.launched, None
        timelines: list[DeviceTimeline] = []
        for rec in records:
            corr = rec[G_CORR]
            if launched is not None and (corr < 0 or corr not in launched):
                self.excluded += 1
                continue
            self._in_window(rec[G_START], int(rec[G_INDEX]))
            if current is not None and rec[G_DEV] == current.device.id:
                current.add(rec)
                continue
            if current is not None:
                self.devices.append(current.close())
            current = DeviceTimeline(rec, self.ctx, self.steps, self.mix, self.gap, self.overlaps)
            timelines.append(current)
        if current is not None:
            self.devices.append(current.close())
        self._hta_selection(timelines)

    def _hta_selection(self, timelines: list[DeviceTimeline]) -> None:
        """Where some kept events name a stream and some do not, HTA's figures are those of the
        events with a stream id; a device with none of them is not on HTA's timeline."""
        self.streamless = sum(t.streamless for t in timelines)
        if not 0 < self.streamless < sum(d.events for d in self.devices):
            return
        for t, dev in zip(timelines, self.devices, strict=True):
            streams = t.hta_streams
            dev.hta_busy_us, dev.hta_window_us = (streams.busy, streams.window) if streams else (0.0, 0.0)
            dev.on_hta_timeline = streams is not None

    def _in_window(self, start: float, index: int) -> None:
        span, slack = self.span, self.slack
        if span is not None and not (span[0] - slack <= start <= span[1] + slack):
            raise TraceError(f"starts {min(abs(start - span[0]), abs(start - span[1])) / 1e6:.3g} s outside "
                             f"the profiled window (clock reset?)", self.ctx.file, f"event {index}",
                             f"traceEvents[{index}].ts")
