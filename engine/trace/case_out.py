"""A Measurement as a case: facts with units, a source line per fact, the detail people check.

Fact names come from the vocabulary and the trace_evidence pack; each figure says where in
the trace it came from, so a diagnosis built on it leads back to the file.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from typing import Any

import yaml

from regime.core.errors import RegimeError
from regime.engine.trace.counters import CounterTotals
from regime.engine.trace.measure import Measurement
from regime.engine.trace.settings import settings
from regime.facts import catalogue


def _pct(x: float) -> str:
    return f"{x * 100:.6g}%"


def _us(x: float) -> str:
    return f"{x:.6g} us"


def case_mapping(m: Measurement, hardware: str | None = None, model: str | None = None,
                 extra_hardware: dict[str, dict] | None = None,
                 known: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """The case file `regime trace` writes: title, hardware, facts, sources, profile detail.
    `extra_hardware`: catalogue entries that knowledge layers add, matched like the built-in ones;
    `known`: whether the vocabulary declares a fact (figures it does not stay in the profile)."""
    name = m.path.name
    facts: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def put(fact: str, value: Any, what: str) -> None:
        facts[fact] = value
        sources[fact] = f"{name}: {what}"

    if m.devices:
        _timeline_facts(m, put)
    elif m.category_us and sum(m.category_us.values()) > 0:
        total = sum(m.category_us.values())
        put("kernel_share", _shares(m.category_us, total),
            f"summed kernel durations by kernel-name category (facts/kernels.yaml) over {total:,.0f} µs of "
            f"kernel time in {m.format}")
    for fact, (value, source) in m.utilization.items():
        facts[fact] = _pct(value)
        sources[fact] = source
    if m.counters is not None:
        _counter_facts(m.counters, put, known or (lambda _: False))
    _steps(m, put)
    if m.host_window_us > 0:
        where = ("the analysed ProfilerSteps" if m.steps else "the span of the runtime calls")
        put("runtime_share", _pct(m.runtime_us / m.host_window_us),
            f"{m.runtime_us:,.0f} µs in runtime API calls (cat cuda_runtime/cuda_driver) / "
            f"{m.host_window_us:,.0f} µs of {where}")
        put("launch_share", _pct(m.launch_us / m.host_window_us),
            f"{m.launch_us:,.0f} µs in {m.launches:,} kernel-launch calls (cudaLaunchKernel, "
            "hipLaunchKernel, ...) / the same window")
    out: dict[str, Any] = {"id": _case_id(name), "title": f"Profiler trace {name}",
                           "summary": _summary(m)}
    hw, unknown, pattern = (hardware, None, None) if hardware else _catalogue_name(m, extra_hardware)
    if hw:
        out["hardware"] = hw
    if model:
        out["model"] = model
    out["facts"] = facts
    out["sources"] = sources
    out["profile"] = _profile(m)
    if unknown:
        out["profile"]["device_not_in_catalogue"] = unknown
        out["summary"] += f" The device \"{unknown}\" matches no hardware catalogue entry."
    if pattern:
        out["profile"]["device_matched_by_pattern"] = pattern
        out["summary"] += (f" The device \"{pattern['name']}\" is catalogue entry {hw} by the pattern table "
                           f"(facts/device_names.yaml): {pattern['because']}.")
    if m.devices and not hw and not any(d.name for d in m.devices):
        out["profile"]["device_unnamed"] = True
    return out


def _timeline_facts(m: Measurement, put) -> None:
    excl = (f"; events launched in ProfilerStep#{m.excluded_step} (the last, often cut short) left out, "
            f"as HTA does" if m.excluded_step is not None else "")
    devs = ", ".join(f"device {d.id}" for d in m.devices)
    put("gpu_idle_share", _pct(m.idle_share),
        f"1 − union of {sum(d.events for d in m.devices):,} GPU intervals (kernels, copies, fills; all "
        f"streams merged) / the window from the first GPU start to the last GPU end, "
        f"{m.window_us:,.0f} µs on {devs}{excl}")
    if len(m.devices) > 1:
        put("device_idle_share", {f"gpu{d.id}": _pct(d.idle_share) for d in m.devices},
            "per device, as gpu_idle_share")
    put("kernel_count", m.kernels, f"events with cat 'kernel' in the analysed window{excl}" if _kineto(m)
        else f"kernels in {m.format}")
    _idle_kinds(m, put)
    for fact, q, label in (("kernel_duration", 0.5, "median"),
                           ("kernel_duration_p90", 0.9, "90th percentile")):
        v = m.kernel_duration.quantile(q)
        if v:
            put(fact, _us(v), f"{label} duration of {m.kernels:,} kernels (0.1% histogram resolution)")
    gap = m.gap.quantile(0.5)
    if gap is not None:
        put("kernel_gap", _us(gap), f"median idle gap before each of {m.gap.count:,} GPU events on the "
            "stream-merged timeline (0 when it starts while another runs)")
    total = sum(m.category_us.values())
    if total > 0:
        put("kernel_share", _shares(m.category_us, total),
            f"summed durations by kernel-name category (facts/kernels.yaml) over {total:,.0f} µs of GPU time")


def _idle_kinds(m: Measurement, put) -> None:
    """What the idle time is: a few long gaps (host stalls, syncs, waits) and kernels a graph
    replayed, each its own fact (facts/trace_reading.yaml sets what counts as long)."""
    limit = settings().long_gap
    long_us, count = sum(d.long_gap_us for d in m.devices), sum(d.long_gaps for d in m.devices)
    what = (f"idle gaps each holding {limit.window_share:.0%} or more of their device's window "
            f"(and {limit.min_us:,.0f} µs or more)")
    if m.window_us > 0:
        put("long_gap_idle_share", _pct(long_us / m.window_us),
            f"{count:,} {what}, {long_us:,.0f} µs in all / the {m.window_us:,.0f} µs window")
        put("long_gap_count", count, f"{what} on the stream-merged timeline")
    if m.kernels:
        graphed = sum(d.graphed_kernels for d in m.devices)
        put("graphed_kernel_share", _pct(graphed / m.kernels),
            f"{graphed:,} of {m.kernels:,} kernels carry the correlation id of a graph launch "
            "(cudaGraphLaunch, hipGraphLaunch)")


def _counter_facts(c: CounterTotals, put, known: Callable[[str], bool]) -> None:
    """Counter figures as facts, under the names trace_reading.yaml gives, where the vocabulary
    declares them (the profile carries them in any case)."""
    names = settings().counters.facts
    what = (f"{_flops_text(c)} over the union of {c.ranges:,} cuda_profiler_range intervals, "
            f"{c.time_us:,.0f} µs{_replay_note(c)}")
    figures = {"flop_rate": (c.flop_rate, "FLOP/s", f"CUPTI SASS counters: {what}"),
               "dram_bandwidth": (c.dram_bandwidth, "byte/s",
                                  f"dram__bytes counters: {c.dram_bytes:,.0f} bytes in {c.dram_ranges:,} "
                                  f"ranges over {c.time_us:,.0f} µs{_replay_note(c)}")}
    for figure, (value, unit, source) in figures.items():
        fact = names.get(figure)
        if value is not None and fact and known(fact):
            put(fact, f"{value:.6g} {unit}", source)


def _flops_text(c: CounterTotals) -> str:
    parts = ", ".join(f"{p} {v:,.0f}" for p, v in c.flops.items() if v)
    return f"{c.flops_total:,.0f} FLOPs ({parts or 'none'}; an FMA counts two)"


def _replay_note(c: CounterTotals) -> str:
    if len(c.durations) == 1 and c.ranges > 1:
        return ("; every range has the same duration, so the times are the profiler's replay ranges, "
                "not the kernels' own: the rate is over the ranges' time")
    return ""


def _counters_profile(c: CounterTotals) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ranges": c.ranges, "flops_by_precision": {p: v for p, v in c.flops.items()},
        "flops_total": c.flops_total, "time_us": round(c.time_us, 3),
        "flop_rate": c.flop_rate, "source": f"{_flops_text(c)}{_replay_note(c)}"}
    if c.dram_ranges:
        out["dram_bytes"] = c.dram_bytes
        out["dram_bandwidth"] = c.dram_bandwidth
    if not c.tensor_counters:
        out["note"] = ("no tensor-pipe counters in the trace: tensor-core FLOPs are not counted, so the "
                       "FLOPs and rate are the FP pipes' only (a lower bound for matrix work)")
    out["per_range"] = [{"event": r.index, "name": r.name[:120],
                         "flops": {p: v for p, v in r.flops.items() if v},
                         **({"dram_bytes": r.dram_bytes} if r.dram_bytes is not None else {})}
                        for r in c.listed]
    return out


def _kineto(m: Measurement) -> bool:
    return m.format == Measurement.format


def _case_id(name: str) -> str:
    stem = name.removesuffix(".gz")
    for suffix in (".json", ".sqlite", ".db", ".csv", ".log"):
        stem = stem.removesuffix(suffix)
    stem = stem.lower()
    clean = "".join(c if c.isalnum() or c in "_-" else "_" for c in stem).strip("_-")
    return ("trace_" + clean)[:64] if clean else "trace"


def _shares(category_us: dict[str, float], total: float) -> dict[str, str]:
    """Percentages rounded down to 0.0001%, so that they never add up to more than 100%."""
    return {c: f"{math.floor(us / total * 1e6) / 1e4:.4f}%" for c, us in category_us.items()}


def _steps(m: Measurement, put) -> None:
    done = [st for st in m.steps if st.number != m.excluded_step and st.gpu_events]
    if not done:
        return
    what = "ProfilerStep annotations" if _kineto(m) else "step ranges (one per GPU process and step)"
    put("step_time", _us(statistics.median(st.dur for st in done)),
        f"median CPU duration of {len(done)} {what} (#{done[0].number}–#{done[-1].number})")
    kernels = statistics.median(st.kernels for st in done)
    if kernels >= 1:
        put("kernels_per_step", int(kernels) if kernels == int(kernels) else kernels,
            f"median kernels per step over {len(done)} steps, kernels "
            "assigned to a step by their launch's correlation id")


def _catalogue_name(m: Measurement, extra: dict[str, dict] | None
                    ) -> tuple[str | None, str | None, dict[str, str] | None]:
    """(catalogue key, None, None) for the first named device, matched by key, name or alias;
    (key, None, how) when the device-name pattern table matches it instead; (None, the name,
    None) when neither does; (None, None, None) when the trace names no device."""
    for d in m.devices:
        if d.name:
            try:
                return catalogue.lookup("hardware", d.name, extra)[0], None, None
            except RegimeError:
                found = catalogue.device_pattern(d.name)
                if found is None:
                    return None, d.name, None
                return found[0], None, {"name": d.name, "entry": found[0], "because": found[1]}
    return None, None, None


def _summary(m: Measurement) -> str:
    names = sorted({d.name for d in m.devices if d.name}) or [
        "no deviceProperties" if _kineto(m) else "no device names"]
    what = "" if _kineto(m) else f", {m.format}"
    text = f"Measured by `regime trace` from {m.path.name}{what} ({m.events:,} events, {', '.join(names)})."
    if m.devices and not _kineto(m):
        text += f" Idle share {m.idle_share:.2%} on exact timestamps."
    elif m.devices and m.hta_idle_share is None:
        text += (f" Idle share {m.idle_share:.2%} on exact timestamps; HTA 0.5's rounding of each interval "
                 "inward to whole µs empties every one (all shorter than a µs), so HTA gives no idle figure.")
    elif m.devices:
        text += (f" Idle share {m.idle_share:.2%} on exact timestamps; HTA 0.5's rounding of each interval "
                 f"inward to whole µs gives {m.hta_idle_share:.2%}.")
    c = m.counters
    if c is not None:
        text += f" Hardware counters over {c.ranges:,} profiler ranges: {_flops_text(c)}"
        text += ("." if c.tensor_counters
                 else "; no tensor-pipe counters, so tensor-core FLOPs are not counted.")
    o = m.overlaps
    if o.count:
        text += (f" {o.count:,} GPU events start before the previous one on their stream ends (timestamp "
                 f"jitter, {o.total_us:,.3f} µs in all, largest {o.largest_us:,.3f} µs at event "
                 f"{o.largest_at}); the idle union merges them.")
    n = m.gpu_events_without_stream
    if 0 < n < sum(d.events for d in m.devices):
        text += (f" {n:,} GPU events name no stream: they are busy time here, placed by thread id, and "
                 "left out of the HTA-rounded figure as HTA leaves them out (stream −1).")
    for note in m.notes:
        text += " " + note
    return text


def _profile(m: Measurement) -> dict[str, Any]:
    steps = [{"step": st.number, "cpu_us": round(st.dur, 3), "kernels": st.kernels,
              "gpu_busy_us": round(st.busy_us, 3), "gpu_span_us": round(st.span_us, 3),
              "idle_share": round(1 - st.busy_us / st.span_us, 6) if st.span_us > 0 else None}
             for st in m.steps if st.number != m.excluded_step and st.gpu_events]
    devices = [{"id": d.id, "name": d.name, "gpu_events": d.events, "kernels": d.kernels,
                "window_us": round(d.window_us, 3), "busy_us": round(d.busy_us, 3),
                "idle_share": round(d.idle_share, 6),
                "hta_idle_share": _round(d.hta_idle_share) if d.on_hta_timeline else None}
               for d in m.devices]
    return {"trace": str(m.path), "idle_share": round(m.idle_share, 6),
            "hta_idle_share": _round(m.hta_idle_share), "events": m.events,
            "gpu_events_in_file": m.gpu_events_in_file,
            "kernels_in_file": m.kernels_in_file, "excluded_step": m.excluded_step,
            "excluded_gpu_events": m.excluded_events,
            **({"gpu_events_without_stream": m.gpu_events_without_stream}
               if m.gpu_events_without_stream else {}),
            "same_stream_overlaps": {"count": m.overlaps.count, "total_us": round(m.overlaps.total_us, 3),
                                     "largest_us": round(m.overlaps.largest_us, 3),
                                     "largest_at_event": m.overlaps.largest_at},
            "devices": devices, "steps": steps,
            "kernel_time_us": {c: round(v, 3) for c, v in m.category_us.items()},
            **({"counters": _counters_profile(m.counters)} if m.counters is not None else {})}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def to_yaml(mapping: dict[str, Any]) -> str:
    return yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True, width=100)
