"""A Measurement as a case: facts with units, a source line per fact, the detail people check.

Fact names come from the vocabulary and the trace_evidence pack; each figure says where in
the trace it came from, so a diagnosis built on it leads back to the file.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import yaml
from regime.core.errors import RegimeError
from regime.engine.trace.measure import Measurement
from regime.facts import catalogue


def _pct(x: float) -> str:
    return f"{x * 100:.6g}%"


def _us(x: float) -> str:
    return f"{x:.6g} us"


def case_mapping(m: Measurement, hardware: str | None = None, model: str | None = None,
                 extra_hardware: dict[str, dict] | None = None) -> dict[str, Any]:
    """The case file `regime trace` writes: title, hardware, facts, sources, profile detail.
    `extra_hardware`: catalogue entries that knowledge layers add, matched like the built-in ones."""
    name = m.path.name
    facts: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def put(fact: str, value: Any, what: str) -> None:
        facts[fact] = value
        sources[fact] = f"{name}: {what}"

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
    put("kernel_count", m.kernels, f"events with cat 'kernel' in the analysed window{excl}")
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
    hw, unknown = (hardware, None) if hardware else _catalogue_name(m, extra_hardware)
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
    return out


def _case_id(name: str) -> str:
    stem = name.removesuffix(".gz").removesuffix(".json").lower()
    clean = "".join(c if c.isalnum() or c in "_-" else "_" for c in stem).strip("_-")
    return ("trace_" + clean)[:64] if clean else "trace"


def _shares(category_us: dict[str, float], total: float) -> dict[str, str]:
    """Percentages rounded down to 0.0001%, so that they never add up to more than 100%."""
    return {c: f"{math.floor(us / total * 1e6) / 1e4:.4f}%" for c, us in category_us.items()}


def _steps(m: Measurement, put) -> None:
    done = [st for st in m.steps if st.number != m.excluded_step and st.gpu_events]
    if not done:
        return
    put("step_time", _us(statistics.median(st.dur for st in done)),
        f"median CPU duration of {len(done)} ProfilerStep annotations "
        f"(#{done[0].number}–#{done[-1].number})")
    kernels = statistics.median(st.kernels for st in done)
    if kernels >= 1:
        put("kernels_per_step", int(kernels) if kernels == int(kernels) else kernels,
            f"median kernels per step over {len(done)} steps, kernels "
            "assigned to a step by their launch's correlation id")


def _catalogue_name(m: Measurement, extra: dict[str, dict] | None) -> tuple[str | None, str | None]:
    """(catalogue key, None) for the first named device, matched by key, name or alias;
    (None, the name) when no entry lists it; (None, None) when the trace names no device."""
    for d in m.devices:
        if d.name:
            try:
                return catalogue.lookup("hardware", d.name, extra)[0], None
            except RegimeError:
                return None, d.name
    return None, None


def _summary(m: Measurement) -> str:
    names = sorted({d.name for d in m.devices if d.name}) or ["no deviceProperties"]
    text = (f"Measured by `regime trace` from {m.path.name} ({m.events:,} events, {', '.join(names)}). "
            f"Idle share {m.idle_share:.2%} on exact timestamps; HTA 0.5's rounding of each interval "
            f"inward to whole µs gives {m.hta_idle_share:.2%}.")
    o = m.overlaps
    if o.count:
        text += (f" {o.count:,} GPU events start before the previous one on their stream ends (timestamp "
                 f"jitter, {o.total_us:,.3f} µs in all, largest {o.largest_us:,.3f} µs at event "
                 f"{o.largest_at}); the idle union merges them.")
    return text


def _profile(m: Measurement) -> dict[str, Any]:
    steps = [{"step": st.number, "cpu_us": round(st.dur, 3), "kernels": st.kernels,
              "gpu_busy_us": round(st.busy_us, 3), "gpu_span_us": round(st.span_us, 3),
              "idle_share": round(1 - st.busy_us / st.span_us, 6) if st.span_us > 0 else None}
             for st in m.steps if st.number != m.excluded_step and st.gpu_events]
    devices = [{"id": d.id, "name": d.name, "gpu_events": d.events, "kernels": d.kernels,
                "window_us": round(d.window_us, 3), "busy_us": round(d.busy_us, 3),
                "idle_share": round(d.idle_share, 6), "hta_idle_share": round(d.hta_idle_share, 6)}
               for d in m.devices]
    return {"trace": str(m.path), "idle_share": round(m.idle_share, 6),
            "hta_idle_share": round(m.hta_idle_share, 6), "events": m.events,
            "gpu_events_in_file": m.gpu_events_in_file,
            "kernels_in_file": m.kernels_in_file, "excluded_step": m.excluded_step,
            "excluded_gpu_events": m.excluded_events,
            "same_stream_overlaps": {"count": m.overlaps.count, "total_us": round(m.overlaps.total_us, 3),
                                     "largest_us": round(m.overlaps.largest_us, 3),
                                     "largest_at_event": m.overlaps.largest_at},
            "devices": devices, "steps": steps,
            "kernel_time_us": {c: round(v, 3) for c, v in m.category_us.items()}}


def to_yaml(mapping: dict[str, Any]) -> str:
    return yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True, width=100)
