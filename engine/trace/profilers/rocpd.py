"""rocpd SQLite databases (`rocprofv3 --output-format rocpd`, ROCm 7.0's default) into a Measurement.

Read through the un-suffixed views (`rocpd_kernel_dispatch`, ...) the schema defines over its
uuid-suffixed tables, joining on `guid` as well as `id` so that merged databases stay apart.
Each GPU agent is one device of the timeline, its HSA queue the stream; copies count on the
GPU end of the copy. Two layouts share `schema_version` "3" (tests/data/profilers/SCHEMAS.md):
- inline: a dispatch row holds agent_id, queue_id, start, end (ROCm/rocm-systems, 2025-05);
- track: it holds track_id, start_id, end_id; agent and queue are in `rocpd_track`, the times
  in `rocpd_timestamp` (ROCm/rocprofiler-sdk 19d33bb3).
`_Layout` gives each the same four SQL expressions, so one query reads both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from regime.engine.trace.kernels import Classifier
from regime.engine.trace.measure import Measurement, run_timeline
from regime.engine.trace.profilers.gpu_records import flags, merged
from regime.engine.trace.profilers.sqlite_file import SqliteFile
from regime.engine.trace.profilers.values import number, time_ns
from regime.engine.trace.settings import Settings
from regime.engine.trace.source import TraceError

WHAT = "rocpd database"
DISPATCH, COPY, AGENT, SYMBOL = ("rocpd_kernel_dispatch", "rocpd_memory_copy", "rocpd_info_agent",
                                 "rocpd_info_kernel_symbol")
TRACK, TIMESTAMP = "rocpd_track", "rocpd_timestamp"
_GPU_END = (f"CASE WHEN (SELECT type FROM {AGENT} A WHERE A.id = C.dst_agent_id AND A.guid = C.guid) = 'GPU' "
            "THEN C.dst_agent_id ELSE C.src_agent_id END")


@dataclass(frozen=True)
class _Layout:
    """SQL for a row's agent, queue, start and end (row alias `R`), and the columns it needs."""
    agent: str
    queue: str
    start: str
    end: str
    columns: tuple[str, ...]


_INLINE = _Layout("R.agent_id", "R.queue_id", "R.start", "R.end", ("start", "end"))
_ON_TRACK = f"FROM {TRACK} T WHERE T.id = R.track_id AND T.guid = R.guid)"
_AT = f"FROM {TIMESTAMP} S WHERE S.guid = R.guid AND S.id = R."
_TRACK = _Layout(f"(SELECT T.agent_id {_ON_TRACK}", f"(SELECT T.queue_id {_ON_TRACK}",
                 f"(SELECT S.value {_AT}start_id)", f"(SELECT S.value {_AT}end_id)",
                 ("track_id", "start_id", "end_id"))


def is_rocpd(db: SqliteFile) -> bool:
    return db.has("rocpd_metadata")


def schema_version(db: SqliteFile) -> str:
    sql = "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'"
    for (value,) in db.rows(sql, "rocpd_metadata"):
        return str(value)[:20]
    return "unknown"


def measure_rocpd(db: SqliteFile, classifier: Classifier, s: Settings) -> Measurement:
    version = schema_version(db)
    m = Measurement(Path(db.file), format=f"a rocpd database (schema {version})")
    for view in (DISPATCH, AGENT, SYMBOL):
        if not db.has(view):
            raise TraceError(f"{WHAT} (schema {version}) has no {view} table or view", db.file,
                             "sqlite_master")
    layout = _layout(db, version)
    db.need(DISPATCH, ("id", "guid", "kernel_id") + (() if layout is _TRACK else ("agent_id", "queue_id"))
            + layout.columns, version)
    agents = {int(number(i, db.file, f"table {AGENT}", "id")): str(name)[:200] if name else ""
              for i, name in db.rows(f"SELECT id, COALESCE(product_name, model_name, name) FROM {AGENT} "
                                     "WHERE type = 'GPU' ORDER BY id", AGENT)}
    keys = {a: i for i, a in enumerate(sorted(agents))}
    sources = [_dispatches(db, layout, keys, classifier, s, m)]
    if db.has(COPY) and {*layout.columns, "dst_agent_id", "src_agent_id"} <= set(db.columns(COPY)):
        sources.append(_copies(db, layout, keys, classifier, s, m))
    run_timeline(m, merged(sources), classifier, s, {keys[a]: n for a, n in agents.items() if n})
    if not m.devices:
        raise TraceError(f"{WHAT} (schema {version}): no kernel dispatches", db.file, f"table {DISPATCH}")
    m.notes.append("Each device here is one GPU agent: " + "; ".join(
        f"device {i} = agent {a} ({agents[a] or 'unnamed'})" for a, i in keys.items())
        + "; streams are HSA queues" + ("; agents, queues and times from rocpd_track and rocpd_timestamp."
                                         if layout is _TRACK else "."))
    return m


def _layout(db: SqliteFile, version: str) -> _Layout:
    """Which of the two layouts (module docstring) the dispatch table has, by its columns."""
    columns = set(db.columns(DISPATCH))
    if "start" in columns or "start_id" not in columns:
        return _INLINE    # need() names what is missing
    for table, cols in ((TRACK, ("id", "guid", "agent_id", "queue_id")),
                        (TIMESTAMP, ("id", "guid", "value"))):
        if not db.has(table):
            raise TraceError(f"{WHAT} (schema {version}): dispatches point at {table} (start_id, track_id), "
                             "which the database lacks", db.file, "sqlite_master")
        db.need(table, cols, version)
    return _TRACK


def _device(keys: dict[int, int], agent: object, file: str, where: str) -> int:
    a = int(number(agent, file, where, "agent_id"))
    if a not in keys:
        raise TraceError(f"agent {a} is not a GPU in {AGENT}", file, where, "agent_id")
    return keys[a]


def _dispatches(db: SqliteFile, layout: _Layout, keys: dict[int, int], classifier: Classifier, s: Settings,
                m: Measurement) -> Iterator[tuple]:
    sql = (f"SELECT R.id, {layout.agent}, {layout.start}, {layout.end}, {layout.queue}, "
           f"(SELECT COALESCE(Y.display_name, Y.kernel_name) FROM {SYMBOL} Y "
           f"WHERE Y.id = R.kernel_id AND Y.guid = R.guid) FROM {DISPATCH} R ORDER BY 2, 3")
    kernel = flags(True)
    for rid, agent, start, end, queue, name in db.rows(sql, DISPATCH):
        where = f"table {DISPATCH} id {rid}"
        ts, te = time_ns(start, end, db.file, where, s.limits.max_kernel_us)
        m.events += 1
        m.kernels_in_file += 1
        m.gpu_events_in_file += 1
        yield (_device(keys, agent, db.file, where), ts, te, number(queue, db.file, where, "queue_id"), -1.0,
               classifier.index(name if isinstance(name, str) else "", "kernel"), kernel, rid)


def _copies(db: SqliteFile, layout: _Layout, keys: dict[int, int], classifier: Classifier, s: Settings,
            m: Measurement) -> Iterator[tuple]:
    memcpy = classifier.index("Memcpy", "gpu_memcpy")
    sql = (f"SELECT C.id, {_GPU_END}, {layout.start.replace('R.', 'C.')}, {layout.end.replace('R.', 'C.')} "
           f"FROM {COPY} C ORDER BY 2, 3")
    for rid, agent, start, end in db.rows(sql, COPY):
        where = f"table {COPY} id {rid}"
        ts, te = time_ns(start, end, db.file, where, s.limits.max_kernel_us)
        m.events += 1
        m.gpu_events_in_file += 1
        yield _device(keys, agent, db.file, where), ts, te, -2.0, -1.0, memcpy, 0, rid
