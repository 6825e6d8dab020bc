"""Profiler reports in CSV: which one a file is (by its header line), and the readers of the
timeline-free ones.

- `nsys stats -r cuda_gpu_kern_sum`: one row per kernel name, total time and instances, no
  start times: kernel shares only, never idle or gaps.
- `nsys stats -r cuda_gpu_trace` and `rocprofv3 --kernel-trace` CSVs: one row per activity with
  its start; they go on the timeline (csv_timeline.py).
- `ncu --csv` (ncu_csv.py).
Anything before the header (nsys's `Processing [...]` lines, an application's stdout, ncu's
==PROF== lines) is skipped; a file with only ==ERROR== lines says what the tool reported.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from regime.engine.trace.kernels import Classifier
from regime.engine.trace.measure import Measurement
from regime.engine.trace.profilers.values import number
from regime.engine.trace.source import TraceError

PREAMBLE = 500         # lines searched for the header
FIELD_LIMIT = 1 << 20  # one CSV field (a kernel name) longer than this is refused


class CsvFile:
    """The header's columns and the rows after it, with the line number of each."""

    def __init__(self, path: Path, limit: float) -> None:
        self.path, self.file = path, str(path)
        if path.stat().st_size > limit:
            raise TraceError(f"report is larger than the {limit / 1e9:.1f} GB limit (--max-bytes)",
                             self.file, "1")
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        raw = gzip.open(path) if gz else open(path, "rb")  # noqa: SIM115 - closed in close()
        self.text: TextIO = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
        self.line = 0
        self.header: list[str] = []
        self.errors: list[str] = []
        self.header_line = 0
        self.kind = self._find_header()

    def _find_header(self) -> str:
        for raw in self.text:
            self.line += 1
            if len(raw) > FIELD_LIMIT:
                break
            line = raw.strip().lstrip("\ufeff")
            if line.startswith("==ERROR=="):
                self.errors.append(line)
            kind = _header_kind(line)
            if kind:
                self.header = next(csv.reader([line]))
                self.header_line = self.line
                return kind
            if self.line >= PREAMBLE:
                break
        if self.errors:
            raise TraceError(f"the profiler wrote only errors, no report: {self.errors[0][:200]}",
                             self.file, "1")
        raise TraceError("not a profiler report Regime reads: no Kineto/rocprof JSON, Nsight Systems or "
                         "rocpd SQLite, and no CSV header of nsys stats (cuda_gpu_trace, cuda_gpu_kern_sum), "
                         "rocprofv3 (kernel_trace.csv) or ncu --csv", self.file, "1")

    def rows(self) -> Iterator[tuple[int, dict[str, str]]]:
        csv.field_size_limit(FIELD_LIMIT)
        reader = csv.reader(self.text)
        n = len(self.header)
        try:
            for row in reader:
                self.line = self.header_line + reader.line_num
                if not row or row[0].startswith("=="):
                    continue
                yield self.line, dict(zip(self.header, row[:n], strict=False))
        except csv.Error as err:
            raise TraceError(f"malformed CSV: {err}", self.file, str(self.line + 1)) from None

    def close(self) -> None:
        self.text.close()

    def __enter__(self) -> CsvFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _header_kind(line: str) -> str | None:
    if line.startswith('"ID",') or line.startswith("ID,"):
        return "ncu"
    if line.startswith('"Kind","Agent_Id"') or line.startswith("Kind,Agent_Id"):
        return "rocprof_kernel_trace"
    if "Total Time (ns)" in line and "Instances" in line and "Name" in line:
        return "nsys_kern_sum"
    if "Start (ns)" in line and "Duration (ns)" in line and "Strm" in line:
        return "nsys_gpu_trace"
    if "Start (ns)" in line and "RangeStack" in line:
        return "nsys_nvtx"
    return None


def measure_kern_sum(f: CsvFile, classifier: Classifier) -> Measurement:
    """Summed time per kernel category from `Total Time (ns)` (never Avg × Instances: Avg is
    rounded); no timeline, so no idle or gap figure."""
    m = Measurement(f.path, format="an nsys stats kernel summary (cuda_gpu_kern_sum)")
    cat_us = dict.fromkeys(classifier.names, 0.0)
    for line, row in f.rows():
        where = str(line)
        total = number(row.get("Total Time (ns)"), f.file, where, "Total Time (ns)")
        count = number(row.get("Instances"), f.file, where, "Instances")
        if total < 0 or count < 0:
            raise TraceError("negative time or count", f.file, where, "Total Time (ns)")
        cat_us[classifier.names[classifier.index(row.get("Name") or "", "kernel")]] += total / 1e3
        m.kernels_in_file += int(count)
        m.events += 1
    if not m.events:
        raise TraceError("a kernel summary with no rows", f.file, str(f.line))
    m.category_us = cat_us
    m.notes.append("A summary report has no start times: kernel shares only, no idle share, gaps or steps.")
    return m
