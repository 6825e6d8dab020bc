"""rocprofiler-sdk JSON (`rocprofv3 --output-format json`, `<pid>_results.json`) into a Measurement.

The file is one object, `{"rocprofiler-sdk-tool": [one object per process]}`, whose kernel
dispatches sit three levels down; it is walked (json_walk.py), never loaded: 37 MB of JSON
for 44k dispatches is one block in memory here. Dispatch records come in completion order,
not start order, so they go through the on-disk spill the Kineto reader uses. Each (process,
GPU agent) is one device of the timeline; the HSA queue is its stream (queues overlap, so busy
time is their union).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from regime.engine.trace.kernels import Classifier
from regime.engine.trace.measure import Measurement, run_timeline
from regime.engine.trace.profilers.json_walk import JsonWalk
from regime.engine.trace.profilers.values import number, time_ns
from regime.engine.trace.settings import Settings
from regime.engine.trace.source import TraceError
from regime.engine.trace.spill import SortedSpill
from regime.engine.trace.timeline import G_CAT, KERNEL

TOOL = "rocprofiler-sdk-tool"
COPY = -1.0   # category code of a memory copy, before categories are known


class Handle(msgspec.Struct, gc=False):
    handle: Any = None


class Corr(msgspec.Struct, gc=False):
    internal: Any = None


class DispatchInfo(msgspec.Struct, gc=False):
    agent_id: Handle | None = None
    queue_id: Handle | None = None
    kernel_id: Any = None


class Dispatch(msgspec.Struct, gc=False):
    start_timestamp: Any = None
    end_timestamp: Any = None
    correlation_id: Corr | None = None
    dispatch_info: DispatchInfo | None = None


class Copy(msgspec.Struct, gc=False):
    start_timestamp: Any = None
    end_timestamp: Any = None
    dst_agent_id: Handle | None = None
    src_agent_id: Handle | None = None
    correlation_id: Corr | None = None


class Symbol(msgspec.Struct, gc=False):
    kernel_id: Any = None
    formatted_kernel_name: Any = None
    kernel_name: Any = None


def _handle(h: Handle | None) -> Any:
    return None if h is None else h.handle


def _corr(c: Corr | None) -> Any:
    return -1 if c is None or c.internal is None else c.internal


class _State:
    def __init__(self, m: Measurement, s: Settings) -> None:
        self.m, self.s, self.file = m, s, str(m.path)
        self.proc = -1
        self.devices: dict[tuple[int, int], int] = {}
        self.names: dict[int, str] = {}
        self.gpu_agents: dict[int, str] = {}       # this process's GPU agents: handle → product name
        self.symbols: dict[tuple[int, int], str] = {}
        self.spill = SortedSpill(8)

    def process(self, value: Any) -> None:
        self.proc += 1
        self.gpu_agents = {}

    def agents(self, value: Any) -> None:
        if not isinstance(value, list):
            raise TraceError("expected a list of agents", self.file, "agents", f"{TOOL}[{self.proc}].agents")
        for a in value:
            if isinstance(a, dict) and a.get("type") == 2 and isinstance(a.get("id"), dict):
                h = int(number(a["id"].get("handle"), self.file, "agents", "id.handle"))
                name = a.get("product_name") or a.get("name")
                self.gpu_agents[h] = str(name)[:200] if name else ""

    def symbols_chunk(self, first: int, chunk: list[Symbol]) -> None:
        for sym in chunk:
            if sym.kernel_id is None:
                continue
            kid = int(number(sym.kernel_id, self.file, "kernel_symbols", "kernel_id"))
            name = sym.formatted_kernel_name or sym.kernel_name
            self.symbols[(self.proc, kid)] = str(name)[:4096] if name else ""
            if len(self.symbols) > 10_000_000:
                raise TraceError("more than ten million kernel symbols", self.file, "kernel_symbols")

    def _device(self, handle: Any, where: str) -> int:
        h = int(number(handle, self.file, where, "agent_id.handle"))
        key = (self.proc, h)
        dev = self.devices.get(key)
        if dev is None:
            dev = self.devices[key] = len(self.devices)
            name = self.gpu_agents.get(h)
            if name:
                self.names[dev] = name
        return dev

    def dispatches(self, first: int, chunk: list[Dispatch]) -> None:
        max_us, file = self.s.limits.max_kernel_us, self.file
        for j, d in enumerate(chunk):
            where = f"kernel_dispatch[{first + j}]"
            ts, te = time_ns(d.start_timestamp, d.end_timestamp, file, where, max_us)
            info = d.dispatch_info or DispatchInfo()
            kid = int(number(info.kernel_id, file, where, "dispatch_info.kernel_id"))
            self.spill.add((self._device(_handle(info.agent_id), where), ts, te,
                            number(_handle(info.queue_id), file, where, "queue_id.handle"),
                            number(_corr(d.correlation_id), file, where, "correlation_id"),
                            float(self.proc * 2**32 + kid), KERNEL, first + j))
        self.m.kernels_in_file += len(chunk)
        self.m.gpu_events_in_file += len(chunk)

    def copies(self, first: int, chunk: list[Copy]) -> None:
        for j, c in enumerate(chunk):
            where = f"memory_copy[{first + j}]"
            ts, te = time_ns(c.start_timestamp, c.end_timestamp, self.file, where,
                             self.s.limits.max_kernel_us)
            dst = _handle(c.dst_agent_id)
            handle = dst if dst in self.gpu_agents else _handle(c.src_agent_id)
            self.spill.add((self._device(handle, where), ts, te, -2.0, -1.0, COPY, 0, first + j))
        self.m.gpu_events_in_file += len(chunk)


def measure_rocprof_json(path: Path, classifier: Classifier, s: Settings, limit: float) -> Measurement:
    m = Measurement(path, format="a rocprofiler-sdk JSON (rocprofv3 --output-format json)")
    st = _State(m, s)
    proc = (TOOL, "*")
    walk = JsonWalk(path, limit, s.limits.max_event_bytes,
                    values={(*proc, "metadata"): st.process, (*proc, "agents"): st.agents},
                    arrays={(*proc, "kernel_symbols"): (Symbol, st.symbols_chunk),
                            (*proc, "buffer_records", "kernel_dispatch"): (Dispatch, st.dispatches),
                            (*proc, "buffer_records", "memory_copy"): (Copy, st.copies)})
    try:
        walk.run()
        m.events, m.bytes = st.spill.count, walk.r.base + len(walk.r.buf)
        if not st.spill.count:
            raise TraceError("no kernel dispatches or memory copies (was rocprofv3 run with --kernel-trace?)",
                             str(path), "buffer_records", "kernel_dispatch")
        memcpy = classifier.index("Memcpy", "gpu_memcpy")
        cats: dict[float, int] = {COPY: memcpy}

        def category(code: float) -> int:
            got = cats.get(code)
            if got is None:
                name = st.symbols.get((int(code) >> 32, int(code) & 0xFFFFFFFF), "")
                got = cats[code] = classifier.index(name, "kernel")
            return got

        records = ((*r[:G_CAT], category(r[G_CAT]), *r[G_CAT + 1:]) for r in st.spill)
        run_timeline(m, records, classifier, s, st.names)
    finally:
        st.spill.close()
    m.notes.append("Each device here is one GPU agent of one process: " + "; ".join(
        f"device {i} = process #{p} agent {h}" + (f" ({st.names[i]})" if i in st.names else "")
        for (p, h), i in st.devices.items()) + "; streams are HSA queues.")
    return m
