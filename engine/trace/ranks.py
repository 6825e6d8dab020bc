"""Several traces of one distributed job, one per rank: per-rank facts, cross-rank findings.

Each rank's trace is measured on its own (`measure_rank`, the unit of work: in `--jobs`
processes, or on a Dask cluster with `--scheduler`, engine/distributed/), and only a small
summary of each comes back; the comparison then runs over the summaries. Which differences
are findings, and their wording, is in facts/trace_reading.yaml (`ranks:`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from regime.core.errors import RegimeError
from regime.engine import batch
from regime.engine.trace import case_out
from regime.engine.trace.kernels import Classifier, load_classifier
from regime.engine.trace.measure import Measurement
from regime.engine.trace.profilers.detect import measure_any
from regime.engine.trace.settings import Ranks, settings

TRACE_SUFFIXES = (".json", ".json.gz", ".sqlite", ".sqlite.gz", ".db", ".csv")


@dataclass
class RankSummary:
    """What the comparison needs from one rank's trace (small: it crosses processes)."""
    path: str
    rank: int | None
    devices: list[str]
    idle_share: float
    hta_idle_share: float | None
    kernels: int
    step_us: float | None            # median ProfilerStep duration
    window_us: float
    comm_share: float | None         # communication kernels' union / the GPU window
    comm_comp_overlap: float | None
    hta_comm_comp_overlap: float | None
    kernel_mix: dict[str, float]     # share of kernel time by category
    facts: dict[str, Any] = field(default_factory=dict)


def expand(inputs: list[Path]) -> list[Path | RegimeError]:
    """Files as given; a directory as its traces (*.json, *.json.gz), sorted by name."""
    out: list[Path | RegimeError] = []
    for path in inputs:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.name.endswith(TRACE_SUFFIXES))
            if not found:
                suffixes = ", ".join("*" + x for x in TRACE_SUFFIXES)
                out.append(RegimeError(f"no traces ({suffixes}) in this directory", file=str(path)))
            out.extend(found)
        else:
            out.append(path)
    return out


def _summary(m: Measurement) -> RankSummary:
    info = m.header.get("distributedInfo")
    rank = info.get("rank") if isinstance(info, dict) else None
    steps = [st.dur for st in m.steps if st.number != m.excluded_step and st.gpu_events]
    total = sum(m.category_us.values())
    return RankSummary(
        path=str(m.path), rank=rank if type(rank) is int else None,
        devices=sorted({d.name for d in m.devices if d.name}), idle_share=m.idle_share,
        hta_idle_share=m.hta_idle_share, kernels=m.kernels,
        step_us=statistics.median(steps) if steps else None, window_us=m.window_us,
        comm_share=m.comm_us / m.window_us if m.window_us > 0 else None,
        comm_comp_overlap=m.comm_comp_overlap, hta_comm_comp_overlap=m.hta_comm_comp_overlap,
        kernel_mix={c: us / total for c, us in m.category_us.items()} if total > 0 else {},
        facts=case_out.case_mapping(m)["facts"])


@dataclass(frozen=True)
class Reading:
    """What measuring a rank needs besides its trace: the kernel classifier (built-in names and
    the site layers', as content) and the size limit. Made once, on the client; pickled to
    each worker (`--jobs` or `--scheduler`)."""
    classifier: Classifier
    max_bytes: float | None = None


def reading(layers: list[Path] | None = None, max_bytes: float | None = None) -> Reading:
    """The Reading for these site layers (their kernels.yaml) and limit. Raises RegimeError."""
    return Reading(load_classifier(layers or []), max_bytes)


def measure_rank(reading: Reading, item: Path | RegimeError, shown: str | None = None
                 ) -> RankSummary | RegimeError:
    """One rank's trace measured into its summary, or its error (never raises for bad input):
    the unit of work, a pure function of the trace and `reading`. `shown` is the name the
    caller gave the trace when `item` is that trace's absolute path (a worker whose working
    directory differs): the summary and errors then name it as the caller did."""
    if isinstance(item, RegimeError):
        return item
    try:
        got: RankSummary | RegimeError = _summary(measure_any(item, reading.classifier, settings(),
                                                              reading.max_bytes))
    except RegimeError as err:
        got = err
    return got if shown is None else _renamed(got, str(item), shown)


def _renamed(got: RankSummary | RegimeError, real: str, shown: str) -> RankSummary | RegimeError:
    def swap(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: swap(x) for k, x in v.items()}
        if isinstance(v, list):
            return [swap(x) for x in v]
        return shown if v == real else v
    if isinstance(got, RegimeError):
        for e in got.all():
            e.file = shown if e.file == real else e.file
        return got
    got.path, got.facts = shown, swap(got.facts)
    return got


@dataclass(frozen=True)
class RankInput:
    """A trace as a cluster worker gets it: the absolute path on shared storage, and the name
    the caller gave it."""
    path: Path
    shown: str


def measure_input(reading: Reading, item: RankInput | RegimeError) -> RankSummary | RegimeError:
    """measure_rank for a RankInput (the unit `--scheduler` sends)."""
    if isinstance(item, RegimeError):
        return item
    return measure_rank(reading, item.path, item.shown)


def inputs(paths: list[Path]) -> list[RankInput | RegimeError]:
    """The traces as units for workers elsewhere: each absolute, named as given."""
    return [i if isinstance(i, RegimeError) else RankInput(i.absolute(), str(i)) for i in expand(paths)]


_WORKER: dict[str, Reading] = {}  # this pool process's Reading (`--jobs`)


def _init(r: Reading) -> None:
    _WORKER["reading"] = r


def _one(item: Path | RegimeError) -> RankSummary | RegimeError:
    return measure_rank(_WORKER["reading"], item)


def lost(item: Any, why: str) -> RegimeError:
    """The error row of a trace whose worker died on it."""
    file = item.shown if isinstance(item, RankInput) else str(item)
    return RegimeError(f"the worker measuring this trace died ({why})", file=file)


def measure_ranks(paths: list[Path], jobs: int = 1, layers: list[Path] | None = None,
                  max_bytes: float | None = None, scheduler: str | Any = None
                  ) -> list[RankSummary | RegimeError]:
    """Each trace measured (in order, over `jobs` processes, or on the Dask cluster at
    `scheduler`); a bad one is its error, in place."""
    r = reading(layers, max_bytes)
    if scheduler is not None:
        from regime.engine.distributed import cluster
        return list(cluster.ordered_map(scheduler, measure_input, inputs(paths), r, lost))
    return list(batch.ordered_map(_one, expand(paths), batch.jobs_wanted(jobs), _init, (r,), lost))


def compare(ranks: list[RankSummary]) -> dict[str, Any]:
    """The fleet report: one row per rank, the spread, and the findings trace_reading.yaml names."""
    rule = settings().ranks
    rows = [_row(i, r) for i, r in enumerate(ranks)]
    out: dict[str, Any] = {"ranks": rows}
    if len(ranks) < 2:
        out["findings"] = []
        return out
    idle = [r.idle_share for r in ranks]
    out["idle_spread"] = {"min": round(min(idle), 6), "max": round(max(idle), 6),
                          "spread": round(max(idle) - min(idle), 6),
                          "median": round(statistics.median(idle), 6)}
    findings = [*_straggler(ranks, rows, rule), *_idle_spread(ranks, rows, rule)]
    out["findings"] = findings
    return out


def _row(i: int, r: RankSummary) -> dict[str, Any]:
    def rnd(x: float | None) -> float | None:
        return None if x is None else round(x, 6)
    return {"rank": r.rank if r.rank is not None else i, "trace": r.path, "devices": r.devices,
            "idle_share": rnd(r.idle_share), "hta_idle_share": rnd(r.hta_idle_share), "kernels": r.kernels,
            "step_us": None if r.step_us is None else round(r.step_us, 3),
            "gpu_window_us": round(r.window_us, 3), "comm_share": rnd(r.comm_share),
            "comm_comp_overlap": rnd(r.comm_comp_overlap),
            "hta_comm_comp_overlap": rnd(r.hta_comm_comp_overlap), "facts": r.facts}


def _step(r: RankSummary) -> tuple[float, str]:
    return (r.step_us, "median step time") if r.step_us is not None else (r.window_us, "GPU window")


def _straggler(ranks: list[RankSummary], rows: list[dict], rule: Ranks) -> list[dict[str, str]]:
    times = [_step(r) for r in ranks]
    what = times[0][1] if len({w for _, w in times}) == 1 else "step time (or GPU window)"
    median = statistics.median(t for t, _ in times)
    slow = max(range(len(ranks)), key=lambda i: times[i][0])
    ratio = times[slow][0] / median if median > 0 else 1.0
    if ratio < rule.straggler_ratio:
        return []
    r, others = ranks[slow], [x for i, x in enumerate(ranks) if i != slow]
    diffs = _differences(r, others)
    because = " ".join(rule.straggler_because.split()).format(
        rank=rows[slow]["rank"], what=what, time=f"{times[slow][0]:,.0f} µs", median=f"{median:,.0f} µs",
        ratio=f"{ratio:.3g}", threshold=f"{rule.straggler_ratio:g}", differences=diffs)
    return [{"id": rule.straggler_finding, "rank": rows[slow]["rank"], "because": because}]


def _differences(r: RankSummary, others: list[RankSummary]) -> str:
    """How the slow rank differs from the others' median: idle, communication, kernel mix."""
    def med(values: list[float | None]) -> float | None:
        found = [v for v in values if v is not None]
        return statistics.median(found) if found else None
    parts = []
    for label, mine, theirs in (("idle", r.idle_share, med([o.idle_share for o in others])),
                                ("communication", r.comm_share, med([o.comm_share for o in others]))):
        if mine is not None and theirs is not None:
            parts.append(f"{label} {mine:.1%} of its GPU window against {theirs:.1%}")
    cats = set(r.kernel_mix).union(*(o.kernel_mix for o in others))
    if cats:
        gaps = {c: r.kernel_mix.get(c, 0.0) - (med([o.kernel_mix.get(c, 0.0) for o in others]) or 0.0)
                for c in cats}
        c = max(gaps, key=lambda k: abs(gaps[k]))
        parts.append(f"{c} kernels {r.kernel_mix.get(c, 0.0):.1%} of its kernel time against "
                     f"{r.kernel_mix.get(c, 0.0) - gaps[c]:.1%}")
    return "; ".join(parts)


def _idle_spread(ranks: list[RankSummary], rows: list[dict], rule: Ranks) -> list[dict[str, str]]:
    idle = [r.idle_share for r in ranks]
    lo, hi = min(range(len(idle)), key=idle.__getitem__), max(range(len(idle)), key=idle.__getitem__)
    spread = idle[hi] - idle[lo]
    if spread < rule.idle_spread_notable:
        return []
    because = " ".join(rule.idle_spread_because.split()).format(
        spread=f"{spread * 100:.3g} points", low_rank=rows[lo]["rank"], low=f"{idle[lo]:.1%}",
        high_rank=rows[hi]["rank"], high=f"{idle[hi]:.1%}",
        threshold=f"{rule.idle_spread_notable * 100:g} points")
    return [{"id": rule.idle_spread_finding, "because": because}]


def fleet_report(paths: list[Path], jobs: int = 1, layers: list[Path] | None = None,
                 max_bytes: float | None = None, scheduler: str | Any = None
                 ) -> tuple[dict[str, Any], list[RegimeError]]:
    """`regime trace DIR|TRACE...`: the comparison over the traces that read, and the errors
    of those that did not (each reported; the rest still compared)."""
    got = measure_ranks(paths, jobs, layers, max_bytes, scheduler)
    errors = [r for r in got if isinstance(r, RegimeError)]
    report = compare([r for r in got if isinstance(r, RankSummary)])
    return report, errors
