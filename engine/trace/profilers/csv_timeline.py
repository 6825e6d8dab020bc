"""CSV reports with one row per GPU activity and its start time, onto the timeline:
`nsys stats -r cuda_gpu_trace` and rocprofv3's `kernel_trace.csv`. Rows come in no promised
order (rocprofv3 writes them by completion), so they go through the on-disk spill."""

from __future__ import annotations

from regime.engine.trace.kernels import Classifier
from regime.engine.trace.measure import Measurement, run_timeline
from regime.engine.trace.profilers.csv_reports import CsvFile
from regime.engine.trace.profilers.values import number, time_ns
from regime.engine.trace.settings import Settings
from regime.engine.trace.source import TraceError
from regime.engine.trace.spill import SortedSpill
from regime.engine.trace.timeline import KERNEL


def measure_timeline_csv(f: CsvFile, classifier: Classifier, s: Settings) -> Measurement:
    nsys = f.kind == "nsys_gpu_trace"
    m = Measurement(f.path, format="an nsys stats GPU trace (cuda_gpu_trace)" if nsys
                    else "a rocprofv3 kernel trace (kernel_trace.csv)")
    spill = SortedSpill(8)
    devices: dict[str, int] = {}
    names: dict[int, str] = {}
    try:
        for line, row in f.rows():
            key, name, rest = (_nsys_row if nsys else _rocprof_row)(row, f, line, classifier, s)
            dev = devices.get(key)
            if dev is None:
                if len(devices) >= 4096:
                    raise TraceError("more than 4,096 devices", f.file, str(line))
                dev = devices[key] = len(devices)
                if name:
                    names[dev] = name
            spill.add((dev, *rest))
            m.events += 1
            m.gpu_events_in_file += 1
            m.kernels_in_file += int(rest[5]) & KERNEL
        if not spill.count:
            raise TraceError("a GPU trace report with no rows", f.file, str(f.line))
        run_timeline(m, spill, classifier, s, names)
    finally:
        spill.close()
    m.notes.append("Each device here is one " + ("`Device` of the report" if nsys else "`Agent_Id` (an agent "
                   "number that counts CPU agents too, not the GPU index)") + ": " + "; ".join(
                       f"device {i} = {k!r}" for k, i in devices.items()) + ".")
    return m


def _nsys_row(row: dict[str, str], f: CsvFile, line: int, classifier: Classifier,
              s: Settings) -> tuple[str, str, tuple]:
    where = str(line)
    start = number(row.get("Start (ns)"), f.file, where, "Start (ns)")
    dur = number(row.get("Duration (ns)"), f.file, where, "Duration (ns)")
    ts, te = time_ns(start, start + dur, f.file, where, s.limits.max_kernel_us)
    name = row.get("Name") or ""
    low = name.lower()
    cat = "gpu_memcpy" if "memcpy" in low and low.startswith("[") else \
        "gpu_memset" if "memset" in low and low.startswith("[") else "kernel"
    device = (row.get("Device") or "0").strip()
    label = device.rsplit("(", 1)[0].strip() if device.endswith(")") else ""
    corr = row.get("CorrId") or "-1"
    return device, label, (ts, te, number(row.get("Strm") or 0, f.file, where, "Strm"),
                           number(corr, f.file, where, "CorrId"), classifier.index(name, cat),
                           KERNEL if cat == "kernel" else 0, line)


def _rocprof_row(row: dict[str, str], f: CsvFile, line: int, classifier: Classifier,
                 s: Settings) -> tuple[str, str, tuple]:
    where = str(line)
    ts, te = time_ns(number(row.get("Start_Timestamp"), f.file, where, "Start_Timestamp"),
                     number(row.get("End_Timestamp"), f.file, where, "End_Timestamp"), f.file, where,
                     s.limits.max_kernel_us)
    kind = row.get("Kind") or ""
    if kind != "KERNEL_DISPATCH":
        raise TraceError(f"expected Kind KERNEL_DISPATCH, got {kind[:40]!r}", f.file, where, "Kind")
    return ((row.get("Agent_Id") or "").strip()[:100], "",
            (ts, te, number(row.get("Queue_Id"), f.file, where, "Queue_Id"),
             number(row.get("Correlation_Id") or -1, f.file, where, "Correlation_Id"),
             classifier.index(row.get("Kernel_Name") or "", "kernel"), KERNEL, line))
