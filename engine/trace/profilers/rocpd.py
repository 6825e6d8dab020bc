"""rocpd SQLite databases (`rocprofv3 --output-format rocpd`, ROCm 7.0's default) into a Measurement.

Read through the un-suffixed views (`rocpd_kernel_dispatch`, ...) the schema defines over its
uuid-suffixed tables, joining on `guid` as well as `id` so that merged databases stay apart.
Each GPU agent is one device of the timeline, its HSA queue the stream; copies count on the
GPU end of the copy. Two layouts share `schema_version` "3": this reads the one with inline
`start`/`end` columns and names the other (timestamps in `rocpd_timestamp`) as unread.
"""

from __future__ import annotations

from collections.abc import Iterator
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
_GPU_END = (f"CASE WHEN (SELECT type FROM {AGENT} A WHERE A.id = C.dst_agent_id AND A.guid = C.guid) = 'GPU' "
            "THEN C.dst_agent_id ELSE C.src_agent_id END")


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
    if "start" not in db.columns(DISPATCH) and "start_id" in db.columns(DISPATCH):
        raise TraceError(f"{WHAT} (schema {version}): this layout keeps timestamps in rocpd_timestamp "
                         "(start_id/end_id), which Regime does not read yet", db.file, f"table {DISPATCH}",
                         "start_id")
    db.need(DISPATCH, ("id", "guid", "agent_id", "kernel_id", "queue_id", "start", "end"), version)
    agents = {int(number(i, db.file, f"table {AGENT}", "id")): str(name)[:200] if name else ""
              for i, name in db.rows(f"SELECT id, COALESCE(product_name, model_name, name) FROM {AGENT} "
                                     "WHERE type = 'GPU' ORDER BY id", AGENT)}
    keys = {a: i for i, a in enumerate(sorted(agents))}
    sources = [_dispatches(db, keys, classifier, s, m)]
    if db.has(COPY) and {"start", "end", "dst_agent_id", "src_agent_id"} <= set(db.columns(COPY)):
        sources.append(_copies(db, keys, classifier, s, m))
    run_timeline(m, merged(sources), classifier, s, {keys[a]: n for a, n in agents.items() if n})
    if not m.devices:
        raise TraceError(f"{WHAT} (schema {version}): no kernel dispatches", db.file, f"table {DISPATCH}")
    m.notes.append("Each device here is one GPU agent: " + "; ".join(
        f"device {i} = agent {a} ({agents[a] or 'unnamed'})" for a, i in keys.items())
        + "; streams are HSA queues.")
    return m


def _device(keys: dict[int, int], agent: object, file: str, where: str) -> int:
    a = int(number(agent, file, where, "agent_id"))
    if a not in keys:
        raise TraceError(f"agent {a} is not a GPU in {AGENT}", file, where, "agent_id")
    return keys[a]


def _dispatches(db: SqliteFile, keys: dict[int, int], classifier: Classifier, s: Settings,
                m: Measurement) -> Iterator[tuple]:
    sql = (f"SELECT K.id, K.agent_id, K.start, K.end, K.queue_id, "
           f"(SELECT COALESCE(S.display_name, S.kernel_name) FROM {SYMBOL} S "
           f"WHERE S.id = K.kernel_id AND S.guid = K.guid) FROM {DISPATCH} K "
           "ORDER BY K.agent_id, K.start")
    kernel = flags(True)
    for rid, agent, start, end, queue, name in db.rows(sql, DISPATCH):
        where = f"table {DISPATCH} id {rid}"
        ts, te = time_ns(start, end, db.file, where, s.limits.max_kernel_us)
        m.events += 1
        m.kernels_in_file += 1
        m.gpu_events_in_file += 1
        yield (_device(keys, agent, db.file, where), ts, te, number(queue, db.file, where, "queue_id"), -1.0,
               classifier.index(name if isinstance(name, str) else "", "kernel"), kernel, rid)


def _copies(db: SqliteFile, keys: dict[int, int], classifier: Classifier, s: Settings,
            m: Measurement) -> Iterator[tuple]:
    memcpy = classifier.index("Memcpy", "gpu_memcpy")
    sql = f"SELECT C.id, {_GPU_END}, C.start, C.end FROM {COPY} C ORDER BY 2, C.start"
    for rid, agent, start, end in db.rows(sql, COPY):
        where = f"table {COPY} id {rid}"
        ts, te = time_ns(start, end, db.file, where, s.limits.max_kernel_us)
        m.events += 1
        m.gpu_events_in_file += 1
        yield _device(keys, agent, db.file, where), ts, te, -2.0, -1.0, memcpy, 0, rid
