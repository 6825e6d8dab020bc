"""Nsight Systems SQLite exports (`nsys export --type sqlite`) into a Measurement.

Kernels, memcpys and memsets are the GPU timeline; CUDA runtime calls (launches, graph
launches) the host side; NVTX ranges whose text trace_reading.yaml names are steps. Each
(process, GPU) pair is one device of the timeline, said so in the case's summary. Every query
is an ordered cursor read a batch at a time (sqlite_file.py): memory is flat in the export's
size. Tables are looked up before they are read: a lazy export leaves empty ones out, and
export schema 2.x lacks the ENUM_* tables. SCHEMAS.md (tests/data/profilers) lists what each
version holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from regime.engine.trace.kernels import Classifier
from regime.engine.trace.measure import Measurement, host_side, run_timeline
from regime.engine.trace.profilers.gpu_records import flags, merged
from regime.engine.trace.profilers.nvtx_steps import ProcessSteps, qualified, read_ranges
from regime.engine.trace.profilers.sqlite_file import SqliteFile
from regime.engine.trace.profilers.values import number, time_ns
from regime.engine.trace.settings import Settings
from regime.engine.trace.source import TraceError

WHAT = "Nsight Systems export"
KERNELS, MEMCPY, MEMSET = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                           "CUPTI_ACTIVITY_KIND_MEMSET")
RUNTIME, GPUS, STRINGS = "CUPTI_ACTIVITY_KIND_RUNTIME", "TARGET_INFO_GPU", "StringIds"
_GPU_COLUMNS = ("start", "end", "deviceId", "streamId", "correlationId", "globalPid")


def is_nsys(db: SqliteFile) -> bool:
    return db.has("META_DATA_EXPORT") or db.has("EXPORT_META_DATA") or db.has(KERNELS)


def schema_version(db: SqliteFile) -> str:
    for table in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if db.has(table) and {"name", "value"} <= set(db.columns(table)):
            for (value,) in db.rows(f"SELECT value FROM {table} WHERE name = 'EXPORT_SCHEMA_VERSION'", table):
                return str(value)[:20]
    return "unknown"


def measure_nsys(db: SqliteFile, classifier: Classifier, s: Settings) -> Measurement:
    m = Measurement(Path(db.file), format=f"an Nsight Systems SQLite export (schema {schema_version(db)})")
    version = m.format.split("schema ")[1].rstrip(")")
    tables = [t for t in (KERNELS, MEMCPY, MEMSET) if db.has(t)]
    if not tables:
        raise TraceError(f"{WHAT} (schema {version}) has no GPU activity tables ({KERNELS}, {MEMCPY}, "
                         f"{MEMSET}): was CUDA traced (`nsys profile -t cuda`)?", db.file, "sqlite_master")
    for t in tables:
        db.need(t, _GPU_COLUMNS + (("demangledName",) if t == KERNELS else ()), version)
    if db.has(KERNELS) and not db.has(STRINGS):
        raise TraceError(f"{WHAT} (schema {version}) has kernels but no {STRINGS} table for their names",
                         db.file, "sqlite_master")
    keys = _device_keys(db, tables)
    names = _gpu_names(db, s, keys, version)
    ordinals = {pid: i for i, pid in enumerate(sorted({pid for pid, _ in keys}))}
    steps = ProcessSteps(read_ranges(db, s, version), ordinals)
    m.steps = steps.steps
    launched = host_side(m, _runtime(db, s, version, m, ordinals), leave_out_last=False, launches=steps)
    sources = [_activity(db, t, keys, ordinals, classifier, s, m) for t in tables]
    if keys:
        run_timeline(m, merged(sources), classifier, s, names, launched)
    else:
        raise TraceError(f"{WHAT} (schema {version}): no kernels, copies or fills in {', '.join(tables)}",
                         db.file, f"table {tables[0]}")
    m.notes.append("Each device here is one GPU of one process: " + "; ".join(
        f"device {i} = process {pid} GPU {dev}" + (f" ({names[i]})" if i in names else "")
        for (pid, dev), i in keys.items()) + f"; GPU names from {GPUS}.{s.nsys.device_key} = deviceId.")
    if steps.note:
        m.notes.append(steps.note)
    return m


def _device_keys(db: SqliteFile, tables: list[str]) -> dict[tuple[int, int], int]:
    """(process id, device id) → the timeline's device number, in sorted order."""
    found: set[tuple[int, int]] = set()
    for t in tables:
        for gpid, dev in db.rows(f"SELECT DISTINCT globalPid, deviceId FROM {t}", t):
            found.add((int(number(gpid or 0, db.file, f"table {t}", "globalPid")) >> 24 & 0xFFFFFF,
                       int(number(dev, db.file, f"table {t}", "deviceId"))))
            if len(found) > 4096:
                raise TraceError("more than 4,096 (process, GPU) pairs", db.file, f"table {t}", "deviceId")
    return {k: i for i, k in enumerate(sorted(found))}


def _gpu_names(db: SqliteFile, s: Settings, keys: dict[tuple[int, int], int], version: str) -> dict[int, str]:
    if not db.has(GPUS):
        return {}
    key = s.nsys.device_key
    db.need(GPUS, (key, "name"), version)
    by_id = {int(number(k, db.file, f"table {GPUS}", key)): str(n)[:200]
             for k, n in db.rows(f"SELECT {key}, name FROM {GPUS}", GPUS) if n}
    return {i: by_id[dev] for (_, dev), i in keys.items() if dev in by_id}


def _activity(db: SqliteFile, table: str, keys: dict[tuple[int, int], int], ordinals: dict[int, int],
              classifier: Classifier, s: Settings, m: Measurement) -> Iterator[tuple]:
    """One table's rows as timeline records, ordered by (process, device, start); correlation
    ids qualified by the process (nvtx_steps.qualified)."""
    is_kernel = table == KERNELS
    name_sql = (f"(SELECT value FROM {STRINGS} WHERE id = t.demangledName)" if is_kernel else "NULL")
    cat = "kernel" if is_kernel else ("gpu_memcpy" if table == MEMCPY else "gpu_memset")
    fixed = classifier.index("Memcpy" if table == MEMCPY else "Memset", cat)
    max_us, file = s.limits.max_kernel_us, db.file
    sql = (f"SELECT rowid, (globalPid >> 24) & 16777215, deviceId, start, end, streamId, correlationId, "
           f"{name_sql} FROM {table} AS t ORDER BY 2, 3, start")
    flag = flags(is_kernel)
    for rowid, pid, dev, start, end, stream, corr, name in db.rows(sql, table):
        where = f"table {table} row {rowid}"
        ts, te = time_ns(start, end, file, where, max_us)
        m.gpu_events_in_file += 1
        m.events += 1
        m.kernels_in_file += is_kernel
        key = (int(number(pid or 0, file, where, "globalPid")), int(number(dev, file, where, "deviceId")))
        yield (keys[key], ts, te, number(stream, file, where, "streamId"),
               qualified(ordinals[key[0]], number(corr or -1, file, where, "correlationId")),
               classifier.index(name if isinstance(name, str) else "", cat) if is_kernel else fixed,
               flag, rowid)


def _runtime(db: SqliteFile, s: Settings, version: str, m: Measurement,
             ordinals: dict[int, int]) -> Iterator[tuple]:
    """CUDA runtime calls in start order: (start µs, duration µs, correlation qualified by the
    process, is a launch, is a graph launch); a process with no GPU work has no ordinal, and its
    calls no correlation. nsys names calls with a version suffix (cudaLaunchKernel_v7000)."""
    if not db.has(RUNTIME):
        return
    db.need(RUNTIME, ("start", "end", "correlationId", "nameId", "globalTid"), version)
    launches, graphs = frozenset(s.launch_calls), frozenset(s.graph_launch_calls)
    seen: dict[str, tuple[bool, bool]] = {}
    sql = (f"SELECT r.rowid, r.start, r.end, r.correlationId, COALESCE((r.globalTid >> 24) & 16777215, 0), "
           f"(SELECT value FROM {STRINGS} WHERE id = r.nameId) FROM {RUNTIME} AS r ORDER BY r.start")
    for rowid, start, end, corr, pid, name in db.rows(sql, RUNTIME):
        where = f"table {RUNTIME} row {rowid}"
        ts, te = time_ns(start, end, db.file, where, s.limits.max_kernel_us)
        m.events += 1
        text = name if isinstance(name, str) else ""
        kind = seen.get(text)
        if kind is None:
            base = text.split("_v")[0]
            kind = (base in launches, base in graphs)
            if len(seen) < 10_000:
                seen[text] = kind
        ordinal = ordinals.get(pid)
        c = number(corr or -1, db.file, where, "correlationId")
        yield ts, te - ts, -1.0 if ordinal is None else qualified(ordinal, c), *kind
