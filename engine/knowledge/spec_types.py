"""What a pack's `report:` section compiles to (engine/knowledge/spec.py compiles it): plain
dataclasses, so the knowledge cache and the reports never build a pydantic schema."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from regime.core.record import Fields, Record, mutable_record, record
from regime.engine import lang


@record
class Axes(Record):
    """The roofline chart's axes: canonical units, the units shown and their labels."""

    x: str             # canonical units of the axes and of the bandwidth roof's slope
    y: str
    bandwidth: str
    x_display: str
    y_display: str
    x_label: str
    y_label: str


@record
class RoofGroup(Record):
    """A group fact whose members are drawn as separate compute roofs."""

    group: str
    members: tuple[str, ...]


@record
class Overhead(Record):
    """How a fixed per-pass overhead is shown on the chart."""

    unit: str
    display: str


@record
class Point(Record):
    """A point the chart plots: two expressions over the case's facts."""

    x: lang.Expression
    y: lang.Expression


@record
class Chart(Record):
    """The roofline chart a pack's `report:` section asks for."""

    axes: Axes
    compute_roof: lang.Expression
    bandwidth_roof: lang.Expression
    ridge: lang.Expression
    workload: Point
    nominal: Point
    extra_roofs: RoofGroup | None
    moves: dict[str, Point]                 # bound field -> where it moves the workload point
    overhead_when: lang.Expression | None
    overhead: Overhead | None
    overhead_bars: dict[str, lang.Expression]


@mutable_record
class ReportSpec(Fields):
    """A pack's `report:` section, compiled: the chart and what a sweep plots."""

    chart: Chart | None = None
    ceiling: lang.Expression | None = None   # what a sweep plots along the varied fact
    operating_point: tuple[str, ...] = ()    # facts a what-if drops: they held only as measured
    what_if_mark: dict[str, str] = field(default_factory=dict)  # facts set on every changed case
    files: list[str] = field(default_factory=list)


def evaluate(e: lang.Expression | None, facts: dict[str, Any]) -> float | None:
    """A chart expression's value on a case's final facts, or None if a fact it needs is absent."""
    if e is None:
        return None
    try:
        v = lang.value(e.tree, facts)
    except (lang.Missing, KeyError):
        return None
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def holds(e: lang.Expression | None, facts: dict[str, Any]) -> bool:
    return e is not None and lang.truth(e.tree, facts)
