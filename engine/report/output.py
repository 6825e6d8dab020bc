"""Render a Diagnosis: the JSON contract, rich text for people, Markdown for reviews."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from regime.core import units
from regime.core.errors import RegimeError, one_line
from regime.core.escape import terminal_text
from regime.core.names import file_id
from regime.engine.knowledge.model import Knowledge
from regime.engine.run.diagnosis import Conclusion, Diagnosis

if TYPE_CHECKING:  # rich is imported by the text renderers only: JSON output never loads it
    from rich.console import Console

KIND_ORDER = ("diagnose", "finding", "fix", "reject", "ask")


def _round(x: Any) -> Any:
    """Six significant figures: stable across platforms, plenty for every figure we print."""
    if isinstance(x, float):
        return x if x.is_integer() and abs(x) < 2**53 else float(f"{x:.6g}")
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_round(v) for v in x]
    return x


def ordered(d: Diagnosis) -> list[Conclusion]:
    """What a report says, in its order, then the verdicts folded behind a sibling's."""
    return [c for kind in KIND_ORDER for c in d.of_kind(kind)] + d.folded()


def to_dict(d: Diagnosis, k: Knowledge) -> dict[str, Any]:
    facts = {}
    for name in sorted(d.facts):
        rec = d.facts[name]
        entry: dict[str, Any] = {"value": rec.value, "unit": rec.unit, "source": rec.source,
                                 "origin": rec.origin, "text": show_fact(name, d, k)}
        if rec.source == "derived":
            entry.update(rule=rec.rule, formula=rec.formula, inputs=list(rec.inputs))
        if rec.written is not None:
            entry["written"] = rec.written
        if rec.low is not None:
            entry["range"] = [rec.low, rec.high]
        if rec.layer is not None:
            entry["layer"] = rec.layer
        facts[name] = entry
    conclusions = []
    for c in ordered(d):
        item: dict[str, Any] = {"kind": c.kind, "id": c.id, "rule": c.rule, "because": c.because}
        for key in ("lever", "claim", "priority", "rank", "order", "fact", "condition", "folded_into"):
            if getattr(c, key) is not None:
                item[key] = getattr(c, key)
        if c.holds:
            item["holds"] = list(c.holds)
        if c.kind == "fix":
            item["bound"] = [{"fact": b.fact, "value": b.value, "unit": b.unit, "text": b.text}
                             for b in c.bound] or None
            item["speedup_bound"] = c.speedup_bound
            item["speedup_basis"] = c.speedup_basis
            if c.speedup_expected is not None:
                item["speedup_expected"] = c.speedup_expected
        if c.refs:
            item["refs"] = list(c.refs)
        conclusions.append(item)
    trace = [{"step": f.step, "rule": f.rule, "kind": f.kind, "pack": f.pack, "layer": f.layer,
              "matched": dict(sorted(f.matched.items())), "asserted": f.asserted} for f in d.trace]
    return _round({"case": d.case, "title": d.title, "regime": d.fact_value("regime"),
                   "nominal_regime": d.fact_value("nominal_regime"), "facts": facts,
                   "conclusions": conclusions, "trace": trace,
                   "knowledge": {"layers": d.layers, "amendments": d.amendments}})


def to_json(payload: Any) -> str:
    """The deterministic JSON text of a diagnosis entry or a whole envelope."""
    return json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def entry(d: Diagnosis, k: Knowledge, file: str) -> dict[str, Any]:
    """One diagnosed input of a batch: the diagnosis and the file it came from."""
    return {**to_dict(d, k), "file": file}


def refused_entry(err: RegimeError, file: str) -> dict[str, Any]:
    """One refused input of a batch, in its place: where and why, never only on stderr."""
    errors = [{"file": e.file or file, "line": e.line, "field": e.field, "message": one_line(e.message)}
              for e in err.all()]
    return {"case": file_id(Path(file).stem), "file": file, "error": errors[0], "errors": errors}


def show_fact(name: str, d: Diagnosis, k: Knowledge) -> str:
    rec = d.facts[name]
    if isinstance(rec.value, str | bool):
        return str(rec.value)
    if rec.source == "assumed":  # a pack parameter
        param = k.parameters[name.split("[")[0]]
        display = param.display or ("%" if rec.unit == units.FRACTION else None)
        return units.format_quantity(float(rec.value), rec.unit, display)
    spec = k.vocabulary.get(name.split("__")[0])
    return units.format_quantity(float(rec.value), spec.unit, spec.display)


# ---- text ------------------------------------------------------------------------------------

def print_text(d: Diagnosis, k: Knowledge, console: Console) -> None:
    """The review report (engine/report/model.py) as rich text."""
    from regime.engine.report import model, render_text
    render_text.print_report(model.build(d, k), console)


def print_refused(err: RegimeError, file: str, console: Console) -> None:
    from rich.text import Text

    from regime.engine.report import terminal
    with terminal.trimmed(console):
        name = terminal_text(Path(file).name)  # a file name is the user's text
        console.rule(Text.assemble((name, "bold"), " — ", ("refused", "red")))  # full path follows
        for e in err.all():
            console.print(Text.assemble(("error:", "red"), f" {e}"))


# ---- markdown --------------------------------------------------------------------------------

def to_markdown(d: Diagnosis, k: Knowledge) -> str:
    """The review report (engine/report/model.py) as Markdown."""
    from regime.engine.report import model, render_markdown
    return render_markdown.to_markdown(model.build(d, k))
