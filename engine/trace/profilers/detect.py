"""Which profiler wrote a file, by its content (never its name), and the reader for it.

The first bytes (inflated, when gzipped) tell SQLite from JSON from CSV; an SQLite file's
tables tell Nsight Systems from rocpd, a JSON file's first key tells rocprofiler-sdk from
Kineto, a CSV's header line which report it is. A binary file that is none of these is
refused; when its name ends as Nsight's own reports do (.nsys-rep, .qdrep, .ncu-rep), the
error says which command exports a readable one (their binary layout is not documented, so
the name is the only hint, and it only words the error: it never picks a reader).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable
from pathlib import Path

from regime.engine.trace.kernels import Classifier
from regime.engine.trace.measure import Measurement, measure
from regime.engine.trace.settings import Settings
from regime.engine.trace.source import TraceError

HEAD = 64 * 1024

UNKNOWN_BINARY = ("an unknown binary file (not a Kineto, Nsight Systems SQLite, rocprof or Nsight Compute "
                  "CSV output)")
# the name of an unreadable binary file → what it probably is and what to do
_HINTS = {
    ".nsys-rep": "an Nsight Systems report (.nsys-rep) — export it with `nsys export --type sqlite FILE`",
    ".qdrep": "an Nsight Systems report (.qdrep) — export it with `nsys export --type sqlite FILE`",
    ".ncu-rep": "an Nsight Compute report (.ncu-rep) — export it with "
                "`ncu --import FILE --csv --page details`",
}


def head(path: Path) -> bytes:
    """The first bytes of the file, inflated when gzipped (a located error when unreadable)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(HEAD)
            if raw[:2] != b"\x1f\x8b":
                return raw
            f.seek(0)
            with gzip.GzipFile(fileobj=f) as g:
                return g.read(HEAD)
    except (EOFError, zlib.error, OSError) as err:
        if isinstance(err, OSError) and err.strerror:
            raise TraceError(f"cannot read: {err.strerror}", str(path), "byte 0") from None
        return b""  # a truncated gzip: the Kineto reader says where


def kind(data: bytes) -> str:
    """'sqlite', 'json', 'csv', 'kineto' (JSON that is not rocprof's) or a sentence naming an
    unreadable format."""
    from regime.engine.trace.profilers.sqlite_file import is_sqlite
    if is_sqlite(data):
        return "sqlite"
    if data.startswith(b"PK\x03\x04"):
        return "a zip archive — unpack it and give the trace inside"
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] == b"{" and b'"rocprofiler-sdk-tool"' in text[:256]:
        return "rocprof_json"
    if text[:1] in (b"{", b"[") or not text:
        return "kineto"
    if b"\x00" in data[:4096]:
        return UNKNOWN_BINARY
    return "csv"


def measure_any(path: Path, classifier: Classifier, s: Settings,
                max_bytes: float | None = None) -> Measurement:
    """Measure a profiler output of any format Regime reads, chosen by content."""
    limit = max_bytes or s.limits.max_trace_bytes
    k = kind(head(path))
    if k == "kineto":
        return measure(path, classifier, s, max_bytes)
    reader = _READERS.get(k)
    if reader is None:
        hint = next((h for suffix, h in _HINTS.items() if path.name.lower().endswith(suffix)), None)
        raise TraceError(f"not a format Regime reads: {hint if hint and k == UNKNOWN_BINARY else k}",
                         str(path), "byte 0")
    return reader(path, classifier, s, limit)


def _sqlite(path: Path, classifier: Classifier, s: Settings, limit: float) -> Measurement:
    from regime.engine.trace.profilers import nsys_sqlite, rocpd
    from regime.engine.trace.profilers.sqlite_file import SqliteFile
    db = SqliteFile(path, limit, "SQLite database")
    try:
        if rocpd.is_rocpd(db):
            db.what = rocpd.WHAT
            return rocpd.measure_rocpd(db, classifier, s)
        if nsys_sqlite.is_nsys(db):
            db.what = nsys_sqlite.WHAT
            return nsys_sqlite.measure_nsys(db, classifier, s)
        raise TraceError("an SQLite database that is neither an Nsight Systems export (no META_DATA_EXPORT, "
                         "EXPORT_META_DATA or CUPTI_ACTIVITY_KIND_KERNEL table) nor a rocpd database (no "
                         "rocpd_metadata)", str(path), "sqlite_master")
    finally:
        db.close()


def _rocprof_json(path: Path, classifier: Classifier, s: Settings, limit: float) -> Measurement:
    from regime.engine.trace.profilers.rocprof_json import measure_rocprof_json
    return measure_rocprof_json(path, classifier, s, limit)


def _csv(path: Path, classifier: Classifier, s: Settings, limit: float) -> Measurement:
    from regime.engine.trace.profilers.csv_reports import CsvFile, measure_kern_sum
    from regime.engine.trace.profilers.csv_timeline import measure_timeline_csv
    from regime.engine.trace.profilers.ncu_csv import measure_ncu
    with CsvFile(path, limit) as f:
        if f.kind == "nsys_kern_sum":
            return measure_kern_sum(f, classifier)
        if f.kind == "ncu":
            return measure_ncu(f, classifier, s)
        if f.kind == "nsys_nvtx":
            raise TraceError("an nsys stats NVTX push/pop trace holds no GPU activity; give the "
                             "cuda_gpu_trace report (`nsys stats -r cuda_gpu_trace --format csv`) or the "
                             "SQLite export", f.file, str(f.line))
        return measure_timeline_csv(f, classifier, s)


_READERS: dict[str, Callable[[Path, Classifier, Settings, float], Measurement]] = {
    "sqlite": _sqlite, "rocprof_json": _rocprof_json, "csv": _csv}
