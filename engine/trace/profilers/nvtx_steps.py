"""NVTX step ranges of an Nsight Systems export, per process, and the launches each step owns.

An export can hold several processes: one per rank under torchrun, or a server's front end
beside its GPU workers. CUPTI counts correlation ids in each process on its own, so a GPU
process's kernels are matched to steps through its own launches only:
- a process with step ranges of its own uses them (per-process steps, as each rank's);
- a process with none uses those of the one process that has ranges, when exactly one has (a
  step marked in a driver process whose kernels run in worker processes): its launches made
  while a range runs are that step's;
- otherwise its kernels are in no step, and the notes say so.
Each (GPU process, step range) is one Step, and correlation ids are made unique per process
(`qualified`), so every step's range of ids is disjoint from every other's.
"""

from __future__ import annotations

from regime.engine.trace.profilers.gpu_records import step_number
from regime.engine.trace.profilers.sqlite_file import SqliteFile
from regime.engine.trace.profilers.values import number, time_ns
from regime.engine.trace.settings import Settings
from regime.engine.trace.source import TraceError
from regime.engine.trace.steps import Step, StepLaunches

NVTX, STRINGS = "NVTX_EVENTS", "StringIds"
CORR_BITS = 40          # CUPTI correlation ids are 32-bit; 4,096 processes << 40 stay exact in a float
_PID = "(globalTid >> 24) & 16777215"


def qualified(ordinal: int, corr: float) -> float:
    """A correlation id unique across processes (the process's ordinal above its 40 bits)."""
    return float((ordinal << CORR_BITS) + int(corr)) if 0 <= corr < 1 << CORR_BITS else -1.0


def read_ranges(db: SqliteFile, s: Settings, version: str) -> dict[int, list[Step]]:
    """Process id → its NVTX ranges named as steps (trace_reading.yaml `nsys.step_ranges`),
    the first range of each step number, in start order."""
    if not db.has(NVTX):
        return {}
    db.need(NVTX, ("start", "end", "eventType", "text", "textId", "globalTid"), version)
    types = ",".join(str(int(t)) for t in s.nsys.range_event_types)
    sql = (f"SELECT n.rowid, n.start, n.end, COALESCE({_PID}, 0), "
           f"COALESCE(n.text, (SELECT value FROM {STRINGS} WHERE id = n.textId)) FROM {NVTX} AS n "
           f"WHERE n.eventType IN ({types}) AND n.end IS NOT NULL ORDER BY n.start")
    found: dict[int, dict[int, Step]] = {}
    total = 0
    for rowid, start, end, pid, text in db.rows(sql, NVTX):
        where = f"table {NVTX} row {rowid}"
        mine = found.setdefault(int(number(pid, db.file, where, "globalTid")), {})
        n = step_number(text, s.nsys.step_ranges, len(mine)) if isinstance(text, str) else None
        if n is not None and n not in mine:
            ts, te = time_ns(start, end, db.file, where, s.limits.max_kernel_us)
            mine[n] = Step(n, ts, te - ts)
            total += 1
            if total > 1_000_000:
                raise TraceError("more than a million NVTX step ranges", db.file, f"table {NVTX}", "text")
    return {pid: sorted(st.values(), key=lambda st: st.ts) for pid, st in found.items() if st}


class ProcessSteps:
    """The steps of each GPU process (rules above), fed the runtime calls of every process with
    qualified correlation ids: the `launches` matcher of measure.host_side."""

    def __init__(self, ranges: dict[int, list[Step]], ordinals: dict[int, int]) -> None:
        shared = next(iter(ranges)) if len(ranges) == 1 else None
        self.matchers: dict[int, StepLaunches] = {}
        self.steps: list[Step] = []
        said: list[str] = []
        for pid, ordinal in ordinals.items():
            owner = pid if pid in ranges else shared
            if owner is None:
                if ranges:
                    said.append(f"process {pid} has no step ranges of its own and several processes "
                                "have some, so its kernels are in no step")
                continue
            mine = [Step(st.number, st.ts, st.dur) for st in ranges[owner]]
            self.matchers[ordinal] = StepLaunches(mine)
            self.steps.extend(mine)
            whose = "its own ranges" if owner == pid else \
                f"the ranges of process {owner}, by its launches while each ran"
            said.append(f"process {pid}: {whose}")
        self.steps.sort(key=lambda st: st.ts)
        self.note = ("Steps are NVTX ranges per process (each GPU process's kernels belong to a step "
                     "through its own launches): " + "; ".join(said) + ".") if ranges else ""

    def add(self, ts: float, corr: float) -> None:
        if corr >= 0:
            matcher = self.matchers.get(int(corr) >> CORR_BITS)
            if matcher is not None:
                matcher.add(ts, corr)
