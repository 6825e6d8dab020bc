"""The numbers a roofline chart draws, from the `report: chart:` expressions of the packs.

Kept apart from the drawing (engine/report/chart.py) so the report model, its JSON and the snapshots
hold exactly what the picture shows, without importing matplotlib.
"""

from __future__ import annotations

from typing import Any

from regime.core import units
from regime.engine import lang
from regime.engine.knowledge.model import Knowledge
from regime.engine.knowledge.spec_types import Axes, Chart, Point, evaluate, holds
from regime.engine.report import display
from regime.engine.run.diagnosis import Diagnosis


def build(d: Diagnosis, k: Knowledge, fixes: list) -> dict[str, Any] | None:
    """Roofs, ridge, workload and nominal points, one move per fix with a charted bound, and
    the kernel/gap panel when its condition holds; None when the roofs cannot be drawn."""
    spec = k.report.chart
    if spec is None:
        return None
    facts = {**d.memory, **{n: r.value for n, r in d.facts.items()}}
    ax = spec.axes
    fx, fy = units.factor(ax.x, ax.x_display), units.factor(ax.y, ax.y_display)
    roof, slope, ridge = (evaluate(e, facts) for e in (spec.compute_roof, spec.bandwidth_roof, spec.ridge))
    if roof is None or slope is None or ridge is None:
        return None
    out: dict[str, Any] = {
        "x_unit": ax.x_display, "y_unit": ax.y_display, "x_label": ax.x_label, "y_label": ax.y_label,
        "roofs": [_roof(spec.compute_roof.source, roof, fy, k, main=True),
                  *_extra_roofs(spec, facts, roof, fy, k)],
        "bandwidth": {"name": _name(spec.bandwidth_roof.source, k), "value": slope * fy / fx,
                      "text": display.value_text(spec.bandwidth_roof.source, slope, k)},
        "ridge": ridge * fx,
        "ridge_text": _text(spec.ridge, ridge, ax.x, ax.x_display, k),
        "workload": _point(spec.workload, facts, fx, fy, k, ax),
        "nominal": _point(spec.nominal, facts, fx, fy, k, ax),
        "moves": _moves(spec, fixes, facts, fx, fy, k),
        "overhead": _overhead(spec, facts),
    }
    return out


def _name(fact: str, k: Knowledge) -> str:
    """A fact the chart draws, in the words the report's text uses for it."""
    return display.say(fact, k) or display.label(fact)


def _text(e: lang.Expression, value: float, canonical: str, shown: str, k: Knowledge) -> str:
    """A value the chart shows, rounded as the report's text rounds the same fact (or, for a
    formula, as that text would round a value in the axis's unit)."""
    if isinstance(e.tree, lang.Ref):
        return display.value_text(e.tree.field, value, k)
    return units.format_quantity(value, canonical, shown)


def _roof(name: str, value: float, fy: float, k: Knowledge, main: bool = False) -> dict[str, Any]:
    return {"name": _name(name, k), "value": value * fy, "text": display.value_text(name, value, k),
            "main": main}


def _extra_roofs(spec: Chart, facts: dict, roof: float, fy: float, k: Knowledge) -> list[dict[str, Any]]:
    """The group's roofs above the main one; members with the same peak are one roof, named
    once for all of them (`group[fp8, int8]`), not two lines drawn on top of each other."""
    if spec.extra_roofs is None:
        return []
    same: dict[float, list[str]] = {}
    for m in spec.extra_roofs.members:
        f = f"{spec.extra_roofs.group}__{m}"
        if f in facts and float(facts[f]) > roof:
            same.setdefault(float(facts[f]), []).append(m)
    out = []
    for value, members in same.items():
        r = _roof(f"{spec.extra_roofs.group}__{members[0]}", value, fy, k)
        together = f"{spec.extra_roofs.group}__{', '.join(members)}"
        out.append({**r, "name": display.say(together, k) or display.label(together)})
    return out


def _point(p: Point, facts: dict, fx: float, fy: float, k: Knowledge, ax: Axes) -> dict[str, Any] | None:
    """A point, with each coordinate as the text shows it: a fact's words and rounded value,
    so a figure the chart plots is never a different, unlabelled one beside the text's."""
    x, y = evaluate(p.x, facts), evaluate(p.y, facts)
    if x is None or y is None or x <= 0 or y <= 0:
        return None
    out: dict[str, Any] = {"x": x * fx, "y": y * fy}
    for c, e, v, canonical, shown in (("x", p.x, x, ax.x, ax.x_display),
                                      ("y", p.y, y, ax.y, ax.y_display)):
        out[f"{c}_text"] = _text(e, v, canonical, shown, k)
        out[f"{c}_name"] = _name(e.tree.field, k) if isinstance(e.tree, lang.Ref) else ""
    return out


def _moves(spec: Chart, fixes: list, facts: dict, fx: float, fy: float, k: Knowledge) -> list[dict[str, Any]]:
    out = []
    for rank, fix in enumerate(fixes, 1):
        for b in fix.bounds:
            where = spec.moves.get(b.field)
            point = _point(where, facts, fx, fy, k, spec.axes) if where is not None else None
            if point is not None:
                out.append({"rank": rank, "lever": fix.title, "bound": b.said(), **point})
                break
    return out


def _overhead(spec: Chart, facts: dict) -> dict[str, Any] | None:
    over = spec.overhead
    if over is None or not holds(spec.overhead_when, facts):
        return None
    bars = []
    for label, e in spec.overhead_bars.items():
        v = evaluate(e, facts)
        if v is not None:
            bars.append({"label": label, "value": v * units.factor(over.unit, over.display),
                         "text": units.format_quantity(v, over.unit, over.display)})
    return {"unit": over.display, "bars": bars} if bars else None
