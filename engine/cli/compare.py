"""`regime compare BEFORE AFTER`: what a change measured against what the BEFORE diagnosis said
each fix could buy (its speedup_bound and speedup_expected), the loop a performance engineer runs
after each change and the rows of a calibration table.

The metric is the complaint's (the fact the complaint names: throughput, ttft, itl, step_time),
else the pass time; a rate (per second) improves upward, a time downward, read from its unit.
When the change raised the batch, BEFORE is diagnosed with AFTER's batch as its target batch, so
the larger-batch fix is held to the figure for the batch that was tried.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core, writers
from regime.engine.cli.options import EngineOpt, FormatOpt, RulesOpt, exit_with, value

PHASE_METRIC = "pass_time"  # derive_achieved.yaml: the phase's own metric, when no complaint names one
# A change of batch is the larger-batch fix tried at AFTER's batch: BEFORE is diagnosed with that
# batch as its target (speedup.yaml sizes the fix there), unless BEFORE names a target itself.
BATCH, TARGET_BATCH = "batch", "target_batch"
TRACE_SUFFIXES = (".json", ".gz")


def compare(
    before: Annotated[str, typer.Argument(
        metavar="BEFORE", help="the case (or trace) before the change")],
    after: Annotated[str, typer.Argument(
        metavar="AFTER", help="the case (or trace) after it")],
    lever: Annotated[str | None, typer.Option(
        "--lever", metavar="LEVER", help="the fix the change made (default: every fix)")] = None,
    fmt: FormatOpt = core.FORMAT.default,
    rules: RulesOpt = None,
    engine: EngineOpt = core.ENGINE.default,
) -> None:
    """Measured speedup of AFTER over BEFORE against the BEFORE diagnosis's speedup_bound and
    speedup_expected for each fix (or the one --lever names)."""
    def run() -> int:
        k = core.knowledge(value(rules or []), value(engine))
        b, a = _diagnose(before, k, value(engine)), _diagnose(after, k, value(engine))
        b = as_tried(b, a, k, value(engine))
        row = comparison(b, a, lever)
        writers.emit(writers.Output([row], {"cases": 2, "fixes": len(row["fixes"])}, text=lambda: _text(row)),
                     value(fmt))
        return 0
    exit_with(_guarded(run, value(fmt)))


def _guarded(run, fmt: str) -> int:
    try:
        return run()
    except RegimeError as err:
        return core.refuse(err, fmt)


def _diagnose(ref: str, k, engine: str):
    path = Path(ref)
    if path.suffix in TRACE_SUFFIXES and path.is_file():
        return core.diagnosis(path, k, engine, trace=path)
    return core.diagnosis(core.case(ref), k, engine)


def as_tried(before, after, k, engine: str = "durable"):
    """BEFORE's diagnosis with AFTER's batch as its target batch when the change was a batch
    change of a case file (a trace's case has no file to re-read); else BEFORE unchanged."""
    return at_batch(before, after.fact_value(BATCH), k, engine, f"compare: AFTER's {BATCH}")


def at_batch(before, target, k, engine: str = "durable", origin: str = "compare"):
    """BEFORE's diagnosis with `target` as its target batch (when above its batch and BEFORE
    is a case file naming no target of its own); else BEFORE unchanged."""
    b = before.fact_value(BATCH)
    path = Path(str(before.path))
    if (not isinstance(b, int | float) or not isinstance(target, int | float) or target <= b
            or TARGET_BATCH in before.facts or path.suffix in TRACE_SUFFIXES or not path.is_file()):
        return before
    from regime.engine import api, whatif
    from regime.facts.case import one_fact
    case = whatif.load(path, k)
    case.facts.update({r.name: r for r in one_fact(k.vocabulary.get(TARGET_BATCH), target, origin)})
    return api.runner(k, engine).diagnose(case)


def metric(d) -> str:
    """The complaint's fact when the diagnosis has it, else the pass time."""
    complaint = d.fact_value("complaint")
    return complaint if complaint in d.facts and complaint is not None else PHASE_METRIC


def comparison(before, after, lever: str | None = None) -> dict[str, Any]:
    name = metric(before)
    b, a = before.fact_value(name), after.fact_value(name)
    if not isinstance(b, int | float) or not isinstance(a, int | float) or a <= 0 or b <= 0:
        raise RegimeError(f"both cases need '{name}' to compare", file=before.path, field=name)
    rate = "/s" in before.facts[name].unit
    measured = a / b if rate else b / a
    fixes = [_row(c, measured) for c in before.of_kind("fix") if lever is None or c.lever == lever]
    if lever is not None and not fixes:
        raise RegimeError(f"the BEFORE diagnosis gives no fix '{lever}'", file=before.path, field="lever")
    return {"before": before.case, "after": after.case, "metric": name, "before_value": b,
            "after_value": a, "measured_speedup": round(measured, 4), "fixes": fixes}


def _row(c, measured: float) -> dict[str, Any]:
    out: dict[str, Any] = {"lever": c.lever, "speedup_bound": c.speedup_bound,
                           "speedup_basis": c.speedup_basis, "speedup_expected": c.speedup_expected}
    if c.speedup_bound is not None:
        out["bound_holds"] = measured <= c.speedup_bound * (1 + 1e-9)
        out["tightness"] = round(c.speedup_bound / measured, 4)
    if c.speedup_expected is not None:
        out["expected_over_measured"] = round(c.speedup_expected / measured, 4)
    return out


def _text(row: dict[str, Any]) -> str:
    lines = [f"{row['before']} -> {row['after']}: {row['metric']} {row['before_value']:.4g} -> "
             f"{row['after_value']:.4g}, measured {row['measured_speedup']:.2f}x faster"]
    for f in row["fixes"]:
        if f["speedup_bound"] is None:
            lines.append(f"  {f['lever']}: no speedup figure")
            continue
        held = "holds" if f["bound_holds"] else "BROKEN"
        expected = (f", expected {f['speedup_expected']:.2f}x ({f['expected_over_measured']:.2f} of measured)"
                    if f["speedup_expected"] is not None else "")
        lines.append(f"  {f['lever']}: at most {f['speedup_bound']:.2f}x ({f['speedup_basis']}) — {held}, "
                     f"tightness {f['tightness']:.2f}{expected}")
    return writers.text.lines(lines)


