"""Measure a Kineto trace in one streaming pass: GPU timeline, kernel mix, steps, host runtime.

The pass keeps only counters and two on-disk spills (GPU intervals, runtime calls); the
timeline figures come from a merge of the spilled GPU intervals in start order afterwards.
Which GPU events count follows HTA (Holistic Trace Analysis) so the two can be compared:
with two or more ProfilerStep annotations, a GPU event counts only if a runtime call before
the last step carries its correlation id (the profiler usually stops inside the last step),
stream syncs are on the busy timeline, and the window runs from the first GPU start to the
last GPU end on each device.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import orjson

from regime.engine.trace.corrset import CorrelationSet
from regime.engine.trace.counters import CounterReader, CounterTotals
from regime.engine.trace.kernels import Classifier
from regime.engine.trace.quantiles import LogHistogram
from regime.engine.trace.reader import IDS, NO_IDS, Event, Ids, TraceError, TraceReader
from regime.engine.trace.settings import Settings
from regime.engine.trace.spill import SortedSpill


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
    comm_us: float = 0.0         # union of communication kernels
    comp_us: float = 0.0         # union of the other kernels (HTA's "computation")
    comm_or_comp_us: float = 0.0  # union of both: comm ∩ comp = comm + comp − this

    @property
    def comm_overlap_us(self) -> float:
        return self.comm_us + self.comp_us - self.comm_or_comp_us

    @property
    def idle_share(self) -> float:
        return 1 - self.busy_us / self.window_us if self.window_us > 0 else 0.0

    @property
    def hta_idle_share(self) -> float:
        return 1 - self.hta_busy_us / self.hta_window_us if self.hta_window_us > 0 else 0.0


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


@dataclass
class Measurement:
    path: Path
    events: int = 0
    bytes: int = 0
    gpu_events_in_file: int = 0
    sync_events_in_file: int = 0
    sync_events: int = 0
    kernels_in_file: int = 0
    devices: list[Device] = field(default_factory=list)
    category_us: dict[str, float] = field(default_factory=dict)
    kernel_duration: LogHistogram = field(default_factory=LogHistogram)
    gap: LogHistogram = field(default_factory=LogHistogram)
    steps: list[Step] = field(default_factory=list)
    excluded_step: int | None = None
    excluded_events: int = 0
    runtime_us: float = 0.0
    launch_us: float = 0.0
    launches: int = 0
    host_window_us: float = 0.0
    float_timestamps: bool = False
    header: dict = field(default_factory=dict)
    overlaps: StreamOverlaps = field(default_factory=StreamOverlaps)
    counters: CounterTotals | None = None
    last_step_mark: float = -math.inf   # latest start of a step's mark on the GPU timeline (HTA's cutoff)

    @property
    def kernels(self) -> int:
        return sum(d.kernels for d in self.devices)

    @property
    def window_us(self) -> float:
        return sum(d.window_us for d in self.devices)

    @property
    def idle_share(self) -> float:
        w = self.window_us
        return 1 - sum(d.busy_us for d in self.devices) / w if w > 0 else 0.0

    @property
    def hta_idle_share(self) -> float:
        w = sum(d.hta_window_us for d in self.devices)
        return 1 - sum(d.hta_busy_us for d in self.devices) / w if w > 0 else 0.0

    @property
    def comm_us(self) -> float:
        return sum(d.comm_us for d in self.devices)

    @property
    def comm_comp_overlap(self) -> float | None:
        """Share of communication kernel time with computation running on the same device
        (HTA's get_comm_comp_overlap); None without communication kernels."""
        comm = self.comm_us
        return sum(d.comm_overlap_us for d in self.devices) / comm if comm > 0 else None


_GPU, _RUNTIME, _ANNOTATION, _SPAN, _SYNC, _COUNTER, _STEP_MARK = range(7)
# GPU spill record: device, start, end, stream, correlation, category, is_kernel, event index
_G_DEV, _G_START, _G_END, _G_STREAM, _G_CORR, _G_CAT, _G_KERNEL, _G_INDEX = range(8)


def measure(path: Path, classifier: Classifier, s: Settings, max_bytes: float | None = None) -> Measurement:
    """Read the trace once; raise TraceError (located) on anything that is not a usable trace."""
    reader = TraceReader(path, max_bytes or s.limits.max_trace_bytes, s.limits.max_event_bytes)
    m = Measurement(path)
    gpu = SortedSpill(8)
    runtime = SortedSpill(4)  # ts, dur, correlation, is_launch
    counters = CounterReader(s.counters)
    try:
        span = _read(reader, m, classifier, s, gpu, runtime, counters)
        m.header = reader.header
        m.bytes = reader.base + len(reader.buf)
        if counters.totals.ranges:
            m.counters = counters.totals
        if not gpu.count and m.counters is None:
            raise TraceError(f"no GPU activity: none of {m.events:,} events has cat "
                             f"{', '.join((*s.gpu_categories, s.counters.category))} (a CPU-only profile?)",
                             str(path), "traceEvents", "cat")
        launched = _host_side(m, runtime, s)
        if gpu.count:
            _timeline(m, gpu, classifier, s, launched, span)
    finally:
        gpu.close()
        runtime.close()
    return m


def _kinds(s: Settings) -> dict[str, int]:
    kinds: dict[str, int] = {c: _STEP_MARK for c in s.step_cutoff_categories}
    kinds.update({"user_annotation": _ANNOTATION, "Trace": _SPAN, s.counters.category: _COUNTER})
    for names, kind in ((s.gpu_categories, _GPU), (s.runtime_categories, _RUNTIME),
                        (s.sync_categories, _SYNC)):
        for c in names:
            for spelling in (c, c.lower(), c.capitalize(), c.title()):
                kinds[spelling] = kind
    # Kineto before PyTorch 1.10 wrote Memcpy/Memset/Runtime
    kinds.update({"Memcpy": _GPU, "Memset": _GPU, "Runtime": _RUNTIME})
    return kinds


def _read(reader: TraceReader, m: Measurement, classifier: Classifier, s: Settings,
          gpu: SortedSpill, runtime: SortedSpill, counters: CounterReader) -> tuple[float, float] | None:
    kinds = _kinds(s)
    launch_calls = frozenset(s.launch_calls)
    step_prefix = s.step_annotation
    max_kernel = s.limits.max_kernel_us
    sync_cat = len(classifier.names)  # a slot past the kernel categories: timeline only
    steps: dict[int, Step] = {}
    span: tuple[float, float] | None = None
    file = str(m.path)
    for first, chunk in reader.chunks():
        m.events += len(chunk)
        for j, ev in enumerate(chunk):
            cat = ev.cat
            kind = kinds.get(cat) if type(cat) is str else None
            if kind is None or ev.ph != "X":
                continue
            i = first + j
            ts, dur = ev.ts, ev.dur
            if not (type(ts) in _NUMBER and type(dur) in _NUMBER and 0 <= dur <= max_kernel and ts >= 0):
                ts, dur = _time(ev, i, file, max_kernel)  # says what is wrong
            if kind == _GPU:
                ids = _ids(ev, i, file)
                cat = cat.lower()
                is_kernel = cat == "kernel"
                m.gpu_events_in_file += 1
                m.kernels_in_file += is_kernel
                if type(ts) is float or type(dur) is float:
                    m.float_timestamps = True
                name = ev.name
                gpu.add((_int(ev.pid if ids.device is None else ids.device, i, file, "device"), ts, ts + dur,
                         _int(ev.tid if ids.stream is None else ids.stream, i, file, "stream"),
                         _corr(ids), classifier.index(name if isinstance(name, str) else "", cat),
                         is_kernel, i))
            elif kind == _SYNC:
                ids = _ids(ev, i, file)
                stream = ids.stream
                if type(stream) is int and stream >= 0:  # a wait on a stream; device-wide syncs are not
                    m.sync_events_in_file += 1
                    gpu.add((_int(ev.pid if ids.device is None else ids.device, i, file, "device"), ts,
                             ts + dur, stream, _corr(ids), sync_cat, False, i))
            elif kind == _RUNTIME:
                name = ev.name
                runtime.add((ts, dur, _corr(_ids(ev, i, file)), type(name) is str and name in launch_calls))
            elif kind == _COUNTER:
                name = ev.name
                counters.add(i, name if isinstance(name, str) else "", ts, dur, _args(ev, i, file))
            elif kind == _STEP_MARK:
                name = ev.name
                if isinstance(name, str) and name.startswith(step_prefix) and ts > m.last_step_mark:
                    m.last_step_mark = ts
            elif kind == _ANNOTATION:
                name = ev.name
                if isinstance(name, str) and name.startswith(step_prefix):
                    number = name[len(step_prefix):]
                    if number.isdigit() and int(number) not in steps:
                        steps[int(number)] = Step(int(number), ts, dur)
            elif span is None:
                span = (ts, ts + dur)
    m.steps = sorted(steps.values(), key=lambda st: st.ts)
    return span


_NUMBER = (int, float)


def _time(ev: Event, i: int, file: str, max_kernel: float) -> tuple[float, float]:
    ts, dur = ev.ts, ev.dur
    if type(ts) in _NUMBER and type(dur) in _NUMBER and 0 <= dur <= max_kernel and ts >= 0:
        return ts, dur  # the common case, checked cheaply (JSON has no NaN)
    for key, v in (("ts", ts), ("dur", dur)):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise TraceError(f"{'missing' if v is None else 'not a number: ' + repr(v)[:40]}",
                             file, f"event {i}", f"traceEvents[{i}].{key}")
    if dur < 0:
        raise TraceError(f"negative duration {dur} µs", file, f"event {i}", f"traceEvents[{i}].dur")
    if dur > max_kernel:
        raise TraceError(f"duration {dur:.3g} µs is longer than the {max_kernel:.3g} µs limit",
                         file, f"event {i}", f"traceEvents[{i}].dur")
    if ts < 0:
        raise TraceError(f"negative timestamp {ts} (clock reset?)", file, f"event {i}",
                         f"traceEvents[{i}].ts")
    return ts, dur


def _args(ev: Event, i: int, file: str) -> dict:
    """The event's args, decoded now: the parse left them raw, as most events never need them."""
    raw = ev.args
    args = orjson.loads(memoryview(raw)) if raw else None  # msgspec has checked it is valid JSON
    if type(args) is dict:
        return args
    if args is None:
        return {}
    raise TraceError(f"expected an object, got {type(args).__name__} {str(args)[:40]!r}", file,
                     f"event {i}", f"traceEvents[{i}].args")


def _int(v: object, i: int, file: str, key: str) -> int:
    if type(v) is int:
        return v
    if isinstance(v, str) and v.lstrip("-").isdigit():
        return int(v)
    raise TraceError(f"expected an integer {key} id, got {str(v)[:40]!r}", file, f"event {i}",
                     f"traceEvents[{i}].args.{key}")


def _ids(ev: Event, i: int, file: str) -> Ids:
    """device, stream and correlation from the raw args, nothing else decoded."""
    raw = ev.args
    if not raw:
        return NO_IDS
    try:
        return IDS.decode(raw)
    except msgspec.ValidationError:  # null, or not an object: _args says which
        _args(ev, i, file)
        return NO_IDS


def _corr(ids: Ids) -> float:
    c = ids.correlation
    return float(c) if type(c) is int else -1.0


def _host_side(m: Measurement, runtime: SortedSpill, s: Settings) -> CorrelationSet | None:
    """Runtime calls in start order: step correlation ranges, the correlation ids launched
    before the last step (None when no step is left out), and the host's time in runtime calls
    over the analysed window."""
    steps = m.steps
    cutoff = max(steps[-1].ts, m.last_step_mark) if len(steps) >= 2 else None
    if cutoff is not None:
        m.excluded_step = steps[-1].number
    lo = steps[0].ts if steps else -math.inf
    hi = cutoff if cutoff is not None else (steps[0].ts + steps[0].dur if steps else math.inf)
    launched = CorrelationSet() if cutoff is not None else None
    k = 0
    first, last = math.inf, -math.inf
    for ts, dur, corr, is_launch in runtime:
        while k < len(steps) and steps[k].ts + steps[k].dur <= ts:
            k += 1
        if k < len(steps) and steps[k].ts <= ts and corr >= 0:
            steps[k].corr_lo = min(steps[k].corr_lo, corr)
            steps[k].corr_hi = max(steps[k].corr_hi, corr)
        if launched is not None and ts < cutoff and corr >= 0:
            launched.add(corr)
        if lo <= ts < hi:
            m.runtime_us += dur
            if is_launch:
                m.launch_us += dur
                m.launches += 1
            first, last = min(first, ts), max(last, ts + dur)
    if steps:
        m.host_window_us = hi - lo
    elif last > first:
        m.host_window_us = last - first
    if launched is not None:
        launched.freeze()
    return launched


def _timeline(m: Measurement, gpu: SortedSpill, classifier: Classifier, s: Settings,
              launched: CorrelationSet | None, span: tuple[float, float] | None) -> None:
    names = m.header.get("deviceProperties")
    dev_names = {d["id"]: d["name"] for d in names  # an entry of other types names no device
                 if isinstance(d, dict) and type(d.get("id")) is int and isinstance(d.get("name"), str)} \
        if isinstance(names, list) else {}
    sync_cat = len(classifier.names)
    cat_us = [0.0] * (sync_cat + 1)  # the last slot: stream syncs, timeline only
    comm_cat = classifier.names.index(s.communication_category) \
        if s.communication_category in classifier.names else -1
    comm, comp, both = Union(), Union(), Union()
    tol, slack = s.checks.same_stream_overlap_us, s.checks.clock_slack_us
    step_lo = [st.corr_lo for st in m.steps]
    file = str(m.path)
    dev: Device | None = None
    busy_s = busy_e = hta_s = hta_e = 0.0
    last_end: dict[float, tuple[float, int]] = {}
    step_state: dict[int, list[float]] = {}
    for rec in gpu:
        corr = rec[_G_CORR]
        if launched is not None and (corr < 0 or corr not in launched):
            m.excluded_events += 1
            continue
        start, end, index = rec[_G_START], rec[_G_END], int(rec[_G_INDEX])
        if dev is None or rec[_G_DEV] != dev.id:
            if dev is not None:
                _close_device(m, dev, busy_s, busy_e, hta_s, hta_e, step_state)
                _close_unions(dev, comm, comp, both)
            dev = Device(int(rec[_G_DEV]), dev_names.get(int(rec[_G_DEV])))
            m.devices.append(dev)
            busy_s, busy_e = start, end
            hta_s, hta_e = _hta_round(start, end, m.float_timestamps)
            dev.hta_window_us = -hta_s  # completed at close: last end − first start
            dev.window_us = -start
            last_end, step_state = {}, {}
        else:
            if start > busy_e:
                dev.busy_us += busy_e - busy_s
                m.gap.add(start - busy_e)
                busy_s, busy_e = start, end
            else:
                m.gap.add(0.0)
                busy_e = max(busy_e, end)
            rs, re_ = _hta_round(start, end, m.float_timestamps)
            if rs > hta_e:
                dev.hta_busy_us += hta_e - hta_s
                hta_s, hta_e = rs, re_
            else:
                hta_e = max(hta_e, re_)
        if span is not None and not (span[0] - slack <= start <= span[1] + slack):
            raise TraceError(f"starts {min(abs(start - span[0]), abs(start - span[1])) / 1e6:.3g} s outside "
                             f"the profiled window (clock reset?)", file, f"event {index}",
                             f"traceEvents[{index}].ts")
        cat = int(rec[_G_CAT])
        if cat == sync_cat:  # a wait overlaps the work it waits on: no stream-order check
            m.sync_events += 1
            prev = None
        else:
            prev = last_end.get(rec[_G_STREAM])
        if prev is not None and start < prev[0]:
            if start < prev[0] - tol:
                raise TraceError(f"overlaps event {prev[1]} on stream {int(rec[_G_STREAM])} by "
                                 f"{prev[0] - start:.3f} µs, more than the {tol:g} µs of timestamp "
                                 "jitter tolerated (trace_reading.yaml); kernels on one stream run "
                                 "one after another",
                                 file, f"event {index}", f"traceEvents[{index}].ts")
            m.overlaps.add(prev[0] - start, index)
        if cat != sync_cat and (prev is None or end > prev[0]):
            last_end[rec[_G_STREAM]] = (end, index)
        dur = end - start
        dev.events += 1
        cat_us[cat] += dur
        if rec[_G_KERNEL]:
            dev.kernels += 1
            m.kernel_duration.add(dur)
            (comm if cat == comm_cat else comp).add(start, end)
            both.add(start, end)
        if step_lo:
            _step_add(m, step_lo, step_state, corr, start, end, bool(rec[_G_KERNEL]))
    if dev is None:
        raise TraceError(f"no GPU activity left after leaving out ProfilerStep#{m.excluded_step}",
                         file, "traceEvents", "cat")
    _close_device(m, dev, busy_s, busy_e, hta_s, hta_e, step_state)
    _close_unions(dev, comm, comp, both)
    cat_us.pop()
    m.category_us = dict(zip(classifier.names, cat_us, strict=True))


def _close_unions(dev: Device, comm: Union, comp: Union, both: Union) -> None:
    dev.comm_us, dev.comp_us, dev.comm_or_comp_us = comm.close(), comp.close(), both.close()
    comm.total = comp.total = both.total = 0.0


def _hta_round(start: float, end: float, rounding: bool) -> tuple[float, float]:
    """HTA 0.5 rounds float timestamps inward to whole µs (ceil start, floor end)."""
    return (math.ceil(start), math.floor(end)) if rounding else (start, end)


def _step_add(m: Measurement, step_lo: list[float], state: dict[int, list[float]], corr: float,
              start: float, end: float, is_kernel: bool) -> None:
    k = bisect.bisect_right(step_lo, corr) - 1
    if k < 0 or corr > m.steps[k].corr_hi:
        return
    st = state.get(k)
    if st is None:  # first start, last end, busy start, busy end, busy, kernels, events
        state[k] = [start, end, start, end, 0.0, float(is_kernel), 1.0]
        return
    st[1] = max(st[1], end)
    if start > st[3]:
        st[4] += st[3] - st[2]
        st[2], st[3] = start, end
    else:
        st[3] = max(st[3], end)
    st[5] += is_kernel
    st[6] += 1


def _close_device(m: Measurement, dev: Device, busy_s: float, busy_e: float, hta_s: float,
                  hta_e: float, step_state: dict[int, list[float]]) -> None:
    dev.busy_us += busy_e - busy_s
    dev.window_us += busy_e  # window_us held −first start
    dev.hta_busy_us += hta_e - hta_s
    dev.hta_window_us += hta_e
    for k, st in step_state.items():
        step = m.steps[k]
        step.busy_us += st[4] + st[3] - st[2]
        step.span_us += st[1] - st[0]
        step.kernels += int(st[5])
        step.gpu_events += int(st[6])
