"""What a pack's `report:` section compiles to (engine/report_spec.py compiles it): plain
dataclasses, so the knowledge cache and the reports never build a pydantic schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from regime.engine import expr


@dataclass(frozen=True)
class Axes:
    x: str             # canonical units of the axes and of the bandwidth roof's slope
    y: str
    bandwidth: str
    x_display: str
    y_display: str
    x_label: str
    y_label: str


@dataclass(frozen=True)
class RoofGroup:
    group: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class Overhead:
    unit: str
    display: str


@dataclass(frozen=True)
class Point:
    x: expr.Expression
    y: expr.Expression


@dataclass(frozen=True)
class Chart:
    axes: Axes
    compute_roof: expr.Expression
    bandwidth_roof: expr.Expression
    ridge: expr.Expression
    workload: Point
    nominal: Point
    extra_roofs: RoofGroup | None
    moves: dict[str, Point]                 # bound field -> where it moves the workload point
    overhead_when: expr.Expression | None
    overhead: Overhead | None
    overhead_bars: dict[str, expr.Expression]


@dataclass
class ReportSpec:
    chart: Chart | None = None
    ceiling: expr.Expression | None = None   # what a sweep plots along the varied fact
    operating_point: tuple[str, ...] = ()    # facts a what-if drops: they held only as measured
    what_if_mark: dict[str, str] = field(default_factory=dict)  # facts set on every changed case
    files: list[str] = field(default_factory=list)


def evaluate(e: expr.Expression | None, facts: dict[str, Any]) -> float | None:
    """A chart expression's value on a case's final facts, or None if a fact it needs is absent."""
    if e is None:
        return None
    try:
        v = expr.value(e.tree, facts)
    except (expr.Missing, KeyError):
        return None
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def holds(e: expr.Expression | None, facts: dict[str, Any]) -> bool:
    return e is not None and expr.truth(e.tree, facts)
