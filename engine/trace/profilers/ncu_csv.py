"""Nsight Compute CSV (`ncu --csv`): per-launch Speed-Of-Light DRAM and compute throughput,
time-weighted into bw_util and flop_util, and the launches' kernel mix.

The details page has one row per (launch, metric), the launch's rows together; a metric is
keyed by (section, name) because the same name appears in two sections with different units.
The raw page has one row per launch, a column per metric, and the units on the line after
the header. Which names are read is trace_reading.yaml's `ncu:`.
"""

from __future__ import annotations

from dataclasses import dataclass

from regime.engine.trace.kernels import Classifier
from regime.engine.trace.measure import Measurement
from regime.engine.trace.profilers.csv_reports import CsvFile
from regime.engine.trace.profilers.values import number
from regime.engine.trace.settings import Ncu, Settings
from regime.engine.trace.source import TraceError


@dataclass
class Launch:
    name: str = ""
    duration_us: float | None = None
    dram: float | None = None
    compute: float | None = None


class _Totals:
    def __init__(self, m: Measurement, classifier: Classifier) -> None:
        self.m, self.classifier = m, classifier
        self.time = self.dram = self.compute = 0.0
        self.cat_us = dict.fromkeys(classifier.names, 0.0)

    def add(self, launch: Launch, file: str, where: str) -> None:
        for field, v in (("Duration", launch.duration_us), ("DRAM Throughput", launch.dram),
                         ("Compute (SM) Throughput", launch.compute)):
            if v is None:
                raise TraceError(f"launch of {launch.name[:60]!r} has no {field}", file, where, field)
            if v < 0 or (field != "Duration" and v > 100):
                raise TraceError(f"{field} {v:g} outside its range", file, where, field)
        d = float(launch.duration_us or 0.0)
        self.time += d
        self.dram += d * float(launch.dram or 0.0)
        self.compute += d * float(launch.compute or 0.0)
        self.cat_us[self.classifier.names[self.classifier.index(launch.name, "kernel")]] += d
        self.m.kernels_in_file += 1
        self.m.events += 1


def measure_ncu(f: CsvFile, classifier: Classifier, s: Settings) -> Measurement:
    m = Measurement(f.path, format="an Nsight Compute CSV (ncu --csv)")
    t = _Totals(m, classifier)
    raw = "Metric Name" not in f.header
    (_raw if raw else _details)(f, s.ncu, t)
    if t.time <= 0:
        raise TraceError("no kernel launch with a duration", f.file, str(f.line))
    m.category_us = t.cat_us
    n = m.kernels_in_file
    source = (f"{f.path.name}: {'raw' if raw else 'details'} page, {n:,} launches over {t.time:,.3f} µs, "
              "each weighted by its duration")
    m.utilization = {
        "bw_util": (t.dram / t.time / 100, f"{source}: DRAM throughput % of peak ({s.ncu.dram})"),
        "flop_util": (t.compute / t.time / 100, f"{source}: compute (SM) throughput % of peak "
                      f"({s.ncu.compute}), the busiest SM pipe, an upper bound on FLOP utilization")}
    m.notes.append("Nsight Compute replays each kernel alone: no timeline, so no idle share or gaps; the "
                   "utilizations are the profiled launches' only.")
    return m


def _unit(unit: str, file: str, where: str, ncu: Ncu) -> float:
    scale = ncu.time_units.get(unit.strip())
    if scale is None:
        raise TraceError(f"unknown duration unit {unit[:20]!r} (known: {', '.join(ncu.time_units)})",
                         file, where, "Metric Unit")
    return scale


def _details(f: CsvFile, ncu: Ncu, t: _Totals) -> None:
    current, launch, at = None, Launch(), "1"
    for line, row in f.rows():
        key = (row.get("ID"), row.get("Process ID"))
        if key != current:
            if current is not None:
                t.add(launch, f.file, at)
            current, launch, at = key, Launch(name=(row.get("Kernel Name") or "")[:4096]), str(line)
        if row.get("Section Name") != ncu.section:
            continue
        metric, where = row.get("Metric Name"), str(line)
        if metric == ncu.duration:
            launch.duration_us = number(row.get("Metric Value"), f.file, where, "Metric Value") * _unit(
                row.get("Metric Unit") or "", f.file, where, ncu)
        elif metric == ncu.dram:
            launch.dram = number(row.get("Metric Value"), f.file, where, "Metric Value")
        elif metric == ncu.compute:
            launch.compute = number(row.get("Metric Value"), f.file, where, "Metric Value")
    if current is not None:
        t.add(launch, f.file, at)


def _raw(f: CsvFile, ncu: Ncu, t: _Totals) -> None:
    def pick(names: tuple[str, ...]) -> str:
        for n in names:
            if n in f.header:
                return n
        raise TraceError(f"no column {names[0]} in the raw page", f.file, str(f.header_line), names[0])
    dur, dram, comp = pick(ncu.raw_duration), pick(ncu.raw_dram), pick(ncu.raw_compute)
    units: dict[str, str] | None = None
    for line, row in f.rows():
        if units is None:
            units = row
            continue
        where = str(line)
        scale = _unit(units.get(dur) or "", f.file, str(f.header_line + 1), ncu)
        t.add(Launch(name=(row.get("Kernel Name") or "")[:4096],
                     duration_us=number(row.get(dur), f.file, where, dur) * scale,
                     dram=number(row.get(dram), f.file, where, dram),
                     compute=number(row.get(comp), f.file, where, comp)), f.file, where)
