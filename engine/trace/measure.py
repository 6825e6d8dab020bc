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

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from regime.engine.trace.corrset import CorrelationSet
from regime.engine.trace.counters import CounterReader, CounterTotals
from regime.engine.trace.guards import MAX_ID, decode_or_none, event_args, event_id
from regime.engine.trace.kernels import Classifier
from regime.engine.trace.quantiles import LogHistogram
from regime.engine.trace.reader import IDS, NO_IDS, Event, Ids, TraceError, TraceReader
from regime.engine.trace.settings import Settings
from regime.engine.trace.spill import SortedSpill
from regime.engine.trace.steps import LaunchMatcher, Step, StepLaunches
from regime.engine.trace.timeline import KERNEL, STREAMLESS, Context, Device, StreamOverlaps, Timeline


@dataclass
class Measurement:
    path: Path
    events: int = 0
    bytes: int = 0
    gpu_events_in_file: int = 0
    gpu_events_without_stream: int = 0   # kept, args naming no stream: placed by tid, off HTA's timeline
    any_streamless: bool = False         # any GPU event in the file without a stream id
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
    graph_launches: CorrelationSet = field(default_factory=CorrelationSet)  # ids of graph launches
    last_step_mark: float = -math.inf   # latest start of a step's mark on the GPU timeline (HTA's cutoff)
    format: str = "a PyTorch profiler (Kineto) trace"   # what read it, said in the summary
    notes: list[str] = field(default_factory=list)      # what a reader of another format adds
    utilization: dict[str, tuple[float, str]] = field(default_factory=dict)  # fact → (value, source)

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
    def hta_idle_share(self) -> float | None:
        """None where HTA gives no figure: its whole-µs rounding empties every interval."""
        w = sum(d.hta_window_us for d in self.devices)
        busy = sum(d.hta_busy_us for d in self.devices)
        return 1 - busy / w if w > 0 < busy else None

    @property
    def comm_us(self) -> float:
        return sum(d.comm_us for d in self.devices)

    @property
    def comm_comp_overlap(self) -> float | None:
        """Share of communication kernel time with computation running on the same device
        (HTA's get_comm_comp_overlap); None without communication kernels."""
        comm = self.comm_us
        return sum(d.comm_overlap_us for d in self.devices) / comm if comm > 0 else None

    @property
    def hta_comm_comp_overlap(self) -> float | None:
        """The same on HTA's whole-µs rounding, as HTA as shipped computes it."""
        comm = sum(d.hta_comm[0] for d in self.devices)
        return sum(d.hta_comm_overlap_us for d in self.devices) / comm if comm > 0 else None


_GPU, _RUNTIME, _ANNOTATION, _SPAN, _SYNC, _COUNTER, _STEP_MARK = range(7)


def measure(path: Path, classifier: Classifier, s: Settings, max_bytes: float | None = None) -> Measurement:
    """Read the trace once; raise TraceError (located) on anything that is not a usable trace."""
    reader = TraceReader(path, max_bytes or s.limits.max_trace_bytes, s.limits.max_event_bytes)
    m = Measurement(path)
    gpu = SortedSpill(8)
    runtime = SortedSpill(5)  # ts, dur, correlation, is_launch, is_graph_launch
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
        launched = host_side(m, runtime)  # type: ignore[arg-type] # the spill's records are 5-tuples
        if gpu.count:
            _timeline(m, gpu, classifier, s, launched, span)
    finally:
        gpu.close()
        runtime.close()
    return m


def _kinds(s: Settings) -> dict[str, int]:
    kinds: dict[str, int] = {c: _STEP_MARK for c in s.step_cutoff_categories}
    kinds.update({"Trace": _SPAN, s.counters.category: _COUNTER})
    kinds.update(dict.fromkeys(s.step_categories, _ANNOTATION))
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
    graph_calls = frozenset(s.graph_launch_calls)
    step_prefix = s.step_annotation
    max_kernel = s.limits.max_kernel_us
    sync_cat = len(classifier.names)  # a slot past the kernel categories: timeline only
    steps: dict[int, Step] = {}
    span: tuple[float, float] | None = None
    any_streamless = False
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
                streamless = ids.stream is None or ids.stream == -1   # HTA's "no stream"
                any_streamless = any_streamless or streamless
                if type(ts) is float or type(dur) is float:
                    m.float_timestamps = True
                name = ev.name
                gpu.add((_int(ev.pid if ids.device is None else ids.device, i, file, "device"), ts, ts + dur,
                         _int(ev.tid if ids.stream is None else ids.stream, i, file, "stream"),
                         _corr(ids), classifier.index(name if isinstance(name, str) else "", cat),
                         (KERNEL if is_kernel else 0) | (STREAMLESS if streamless else 0), i))
            elif kind == _SYNC:
                ids = _ids(ev, i, file)
                stream = ids.stream
                if type(stream) is int and stream >= 0:  # a wait on a stream; device-wide syncs are not
                    m.sync_events_in_file += 1
                    gpu.add((_int(ev.pid if ids.device is None else ids.device, i, file, "device"), ts,
                             ts + dur, stream, _corr(ids), sync_cat, False, i))
            elif kind == _RUNTIME:
                name = ev.name
                named = type(name) is str
                runtime.add((ts, dur, _corr(_ids(ev, i, file)), named and name in launch_calls,
                             named and name in graph_calls))
            elif kind == _COUNTER:
                name = ev.name
                counters.add(i, name if isinstance(name, str) else "", ts, dur, _args(ev, i, file), file)
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
    m.any_streamless = any_streamless
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
    return event_args(memoryview(ev.args), file, i) if ev.args else {}


def _int(v: object, i: int, file: str, key: str) -> int:
    return event_id(v, file, i, key)


def _ids(ev: Event, i: int, file: str) -> Ids:
    """device, stream and correlation from the raw args, nothing else decoded."""
    raw = ev.args
    if not raw:
        return NO_IDS
    ids = decode_or_none(IDS, raw)
    if ids is None:  # null, not an object, a number out of range: _args says which
        _args(ev, i, file)
        return NO_IDS
    c = ids.correlation
    if type(c) is int and not -MAX_ID <= c < MAX_ID:  # other types name no launch: ignored
        event_id(c, file, i, "correlation")  # refuses it, located
    return ids


def _corr(ids: Ids) -> float:
    c = ids.correlation
    return float(c) if type(c) is int else -1.0


def host_side(m: Measurement, runtime: Iterable[tuple[float, float, float, bool, bool]],
              leave_out_last: bool = True, launches: LaunchMatcher | None = None) -> CorrelationSet | None:
    """Runtime calls (start, duration, correlation, is a launch, is a graph launch) in start order: step
    correlation ranges (`launches`, by default m.steps matched by time), the correlation ids launched
    before the last step (None when no step is left out: Kineto's last step is cut short,
    `leave_out_last`), and the host's time in runtime calls over the analysed window."""
    steps = m.steps
    cutoff = max(steps[-1].ts, m.last_step_mark) if len(steps) >= 2 and leave_out_last else None
    if cutoff is not None:
        m.excluded_step = steps[-1].number
    lo = steps[0].ts if steps else -math.inf
    hi = cutoff if cutoff is not None else (steps[0].ts + steps[0].dur if steps else math.inf)
    launched = CorrelationSet() if cutoff is not None else None
    stop = cutoff if cutoff is not None else -math.inf  # launches before it are kept
    match = launches or StepLaunches(steps)
    first, last = math.inf, -math.inf
    for ts, dur, corr, is_launch, is_graph in runtime:
        if is_graph and corr >= 0:
            m.graph_launches.add(corr)
        match.add(ts, corr)
        if launched is not None and ts < stop and corr >= 0:
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
    run_timeline(m, gpu, classifier, s, dev_names, launched, span, m.float_timestamps)


def run_timeline(m: Measurement, records: Iterable[tuple], classifier: Classifier, s: Settings,
                 dev_names: dict[int, str], launched: CorrelationSet | None = None,
                 span: tuple[float, float] | None = None, rounding: bool = False) -> None:
    """GPU records in (device, start) order into m's devices, mix, gaps and steps: the one
    timeline every reader (Kineto, Nsight Systems, rocprof) feeds."""
    n = len(classifier.names)
    comm_cat = classifier.names.index(s.communication_category) \
        if s.communication_category in classifier.names else -1
    ctx = Context(str(m.path), dev_names, rounding, n, comm_cat, s.checks.same_stream_overlap_us,
                  graphs=m.graph_launches, long_gap=(s.long_gap.min_us, s.long_gap.window_share),
                  any_streamless=m.any_streamless)
    t = Timeline(ctx, m.steps, launched, span, s.checks.clock_slack_us, n + 1)
    t.run(records)
    if not t.devices:
        raise TraceError(f"no GPU activity left after leaving out ProfilerStep#{m.excluded_step}",
                         str(m.path), "traceEvents", "cat")
    m.devices, m.gap, m.overlaps, m.excluded_events = t.devices, t.gap, t.overlaps, t.excluded
    m.gpu_events_without_stream = t.streamless
    m.kernel_duration, m.sync_events = t.mix.kernel_duration, t.mix.sync_events
    m.category_us = dict(zip(classifier.names, t.mix.category_us[:n], strict=True))
