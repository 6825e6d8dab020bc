"""`regime diagnose --trace`: a trace's measured facts under a case's; disagreements as findings."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from regime.core import units
from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.knowledge.model import Knowledge
from regime.engine.run.diagnosis import Conclusion
from regime.engine.run.session import EngineFault
from regime.engine.trace import case_out
from regime.engine.trace.kernels import load_classifier
from regime.engine.trace.profilers.detect import measure_any
from regime.engine.trace.settings import Disagreement, settings
from regime.facts.case import Case, load_case
from regime.facts.record import FactRecord


@dataclass(frozen=True)
class Measured:
    """A trace's facts as a case, and what the trace itself says needs a reader's attention."""
    case: Case
    findings: tuple[Conclusion, ...] = ()

    @property
    def path(self) -> str:
        return self.case.path


def trace_case(trace: Path, k: Knowledge, layers: list[Path] | None = None, hardware: str | None = None,
               model: str | None = None, max_bytes: float | None = None) -> tuple[dict, Case]:
    """Measure a trace; return the case mapping and the validated Case built from it."""
    s = settings()
    m = measure_any(trace, load_classifier(layers or []), s, max_bytes)
    extra = {key: entry for key, (entry, _) in k.catalogue.get("hardware", {}).items()}
    mapping = case_out.case_mapping(m, hardware, model, extra, k.vocabulary.__contains__)
    return mapping, load_case(trace, k.vocabulary, k.levers, k.claims, k.catalogue, raw=mapping)


def trace_findings(mapping: dict) -> list[Conclusion]:
    """Findings about the trace itself: a device the catalogue does not know, or none named."""
    profile = mapping.get("profile", {})
    if profile.get("device_unnamed"):
        rule = settings().unnamed_device
        return [Conclusion(kind="finding", id=rule.finding, rule="trace device name",
                           because=" ".join(rule.because.split()), step=0, pack="trace_reading")]
    name = profile.get("device_not_in_catalogue")
    if not name:
        return []
    rule = settings().unknown_device
    return [Conclusion(kind="finding", id=rule.finding, rule="trace device name",
                       because=" ".join(rule.because.split()).format(name=name), step=0,
                       pack="trace_reading")]


def measured_case(trace: Path, k: Knowledge, layers: list[Path] | None = None) -> Measured:
    """The trace's facts as a case; raises RegimeError (located) if the trace is unusable."""
    try:
        mapping, case = trace_case(trace, k, layers)
    except RegimeError as err:
        raise err.located(file=str(trace)) from None
    return Measured(case, tuple(trace_findings(mapping)))


def outcome(path: Path, measured: Measured, k: Knowledge, engine: str = "durable",
            text: str | None = None) -> api.Outcome:
    """One case with the trace's facts beneath it (the trace alone when `path` is the trace);
    `text`: the case file's text, read elsewhere."""
    run = api.runner(k, engine)
    try:
        if str(path) == measured.path:
            d = run.diagnose(measured.case)
            d.conclusions.extend(measured.findings)
            return api.Outcome(path, diagnosis=d)
        case = load_case(path, k.vocabulary, k.levers, k.claims, k.catalogue, text=text)
        merged, findings = merge(case, measured.case, settings().disagreement, k)
        d = run.diagnose(merged)
        d.conclusions.extend([*measured.findings, *findings])
        return api.Outcome(path, diagnosis=d)
    except RegimeError as err:
        return api.Outcome(path, error=err.located(file=str(path)))
    except EngineFault as err:
        return api.Outcome(path, error=RegimeError(f"engine fault (please report): {err}", file=str(path)))


def diagnose_all(trace: Path, cases: list[Path], k: Knowledge,
                 layers: list[Path] | None = None) -> list[api.Outcome]:
    """The trace alone when no case is given; otherwise each case with the trace's facts beneath."""
    try:
        measured = measured_case(trace, k, layers)
    except RegimeError as err:
        return [api.Outcome(trace, error=err)]
    return [outcome(p, measured, k) for p in cases or [trace]]


def merge(case: Case, measured: Case, rule: Disagreement, k: Knowledge) -> tuple[Case, list[Conclusion]]:
    """The trace's facts, then the case's over them; a group the case gives replaces the trace's."""
    case_groups = {n.split("__")[0] for n in case.facts if "__" in n}
    facts = {n: r for n, r in measured.facts.items() if n.split("__")[0] not in case_groups}
    findings: list[Conclusion] = []
    for name, rec in case.facts.items():
        other = measured.facts.get(name)
        if other is not None and _disagree(rec, other, rule.tolerance):
            findings.append(_finding(name, rec, other, rule, k, len(findings)))
        facts[name] = rec
    return replace(case, facts=facts), findings


def _disagree(case: FactRecord, trace: FactRecord, tolerance: float) -> bool:
    if isinstance(case.value, str | bool) or isinstance(trace.value, str | bool):
        return case.value != trace.value
    t = float(trace.value)
    if case.low is not None and case.high is not None:
        return t < case.low * (1 - tolerance) or t > case.high * (1 + tolerance)
    c = float(case.value)
    scale = max(abs(c), abs(t))
    return scale > 0 and abs(c - t) / scale > tolerance


def _finding(name: str, case: FactRecord, trace: FactRecord, rule: Disagreement, k: Knowledge,
             n: int) -> Conclusion:
    def show(rec: FactRecord) -> str:
        if isinstance(rec.value, str | bool):
            return str(rec.value)
        spec = k.vocabulary.get(name.split("__")[0])
        return units.format_quantity(float(rec.value), spec.unit, spec.display)

    because = " ".join(rule.because.split()).format(
        fact=name.replace("__", "."), case_value=case.written or show(case), case_origin=case.origin,
        trace_value=show(trace), trace_origin=trace.origin)
    return Conclusion(kind="finding", id=rule.finding, rule=f"diagnose --trace ({n + 1})", because=because,
                      step=0, pack="trace_reading")
