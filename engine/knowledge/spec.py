"""The `report:` section of a pack: what the review report charts and what a what-if invalidates.

Which facts make a roofline (roofs, ridge, the workload's point), where each fix's bound moves
that point, and which measurements only hold at the measured operating point are knowledge,
so they live in YAML as expressions over facts, parsed and unit-checked like rule formulas.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from regime.core.errors import RegimeError
from regime.core.names import member_id
from regime.core.yamlsrc import line_of, validated
from regime.engine import lang
from regime.engine.knowledge.spec_types import Axes, Chart, Overhead, Point, ReportSpec, RoofGroup
from regime.engine.lang import dimensions


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PointModel(_Strict):
    x: str
    y: str


class RoofGroupModel(_Strict):
    group: str
    members: tuple[str, ...]


class AxesModel(_Strict):
    x: str             # canonical unit of the x axis
    y: str             # canonical unit of the y axis (FLOP rate)
    bandwidth: str     # canonical unit of the bandwidth roof's slope
    x_display: str
    y_display: str
    x_label: str
    y_label: str


class OverheadModel(_Strict):
    when: str
    unit: str
    display: str
    bars: dict[str, str]


class ChartModel(_Strict):
    axes: AxesModel
    compute_roof: str
    bandwidth_roof: str
    ridge: str
    workload: PointModel
    nominal: PointModel
    extra_roofs: RoofGroupModel | None = None
    moves: dict[str, PointModel] = {}
    overhead: OverheadModel | None = None


class SweepModel(_Strict):
    ceiling: str


class WhatIfModel(_Strict):
    operating_point: tuple[str, ...] = ()
    mark: dict[str, str] = {}


class ReportSectionModel(_Strict):
    chart: ChartModel | None = None
    sweep: SweepModel | None = None
    what_if: WhatIfModel | None = None


def compile_sections(sections: Iterable[tuple[str, dict]], ctx: lang.Context) -> ReportSpec:
    """Compile every pack's `report:` section in load order; a later section replaces an
    earlier one key by key (chart, sweep, what_if)."""
    spec = ReportSpec()
    for file, raw in sections:
        if not isinstance(raw, dict):
            raise RegimeError("'report' is a mapping with chart, sweep and what_if", file=file,
                              field="report")
        _section(spec, file, raw, validated(ReportSectionModel, raw, file, prefix="report"), ctx)
    return spec


def _section(spec: ReportSpec, file: str, raw: dict, model: ReportSectionModel, ctx: lang.Context) -> None:
    spec.files.append(file)
    chart, sweep, what_if = model.chart, model.sweep, model.what_if
    if chart is not None:
        spec.chart = _located(file, raw, "chart", lambda: _chart(chart, ctx))
    if sweep is not None:
        spec.ceiling = _located(file, raw, "sweep", lambda: _formula(sweep.ceiling, None, ctx))
    if what_if is not None:
        _located(file, raw, "what_if", lambda: [ctx.vocabulary.get(n) for n in what_if.operating_point])
        spec.operating_point = what_if.operating_point
        _located(file, raw, "what_if", lambda: [ctx.vocabulary.get(n) for n in what_if.mark])
        spec.what_if_mark = dict(what_if.mark)


def _located(file: str, raw: dict, key: str, fn):
    try:
        return fn()
    except RegimeError as err:
        raise RegimeError(err.message, file=file, line=line_of(raw, key),
                          field=f"report.{key}{'.' + err.field if err.field else ''}") from None


def _chart(m: ChartModel, ctx: lang.Context) -> Chart:
    ax = m.axes

    def point(p: PointModel, what: str) -> Point:
        return Point(_formula(p.x, ax.x, ctx, f"{what}.x"), _formula(p.y, ax.y, ctx, f"{what}.y"))

    if m.extra_roofs is not None:
        group = ctx.vocabulary.get(m.extra_roofs.group)
        if group.kind != "group":
            raise RegimeError(f"'{group.name}' is not a group fact", field="extra_roofs.group")
    moves = {_bound_field(name, ctx): point(p, f"moves.{name}") for name, p in m.moves.items()}
    over = m.overhead
    return Chart(
        axes=Axes(**ax.model_dump()), compute_roof=_formula(m.compute_roof, ax.y, ctx, "compute_roof"),
        bandwidth_roof=_formula(m.bandwidth_roof, ax.bandwidth, ctx, "bandwidth_roof"),
        ridge=_formula(m.ridge, ax.x, ctx, "ridge"), workload=point(m.workload, "workload"),
        nominal=point(m.nominal, "nominal"), moves=moves,
        extra_roofs=RoofGroup(m.extra_roofs.group, m.extra_roofs.members) if m.extra_roofs else None,
        overhead_when=_condition(over.when, ctx) if over else None,
        overhead=Overhead(over.unit, over.display) if over else None,
        overhead_bars=_bars(over, ctx) if over else {})


def _bars(over: OverheadModel, ctx: lang.Context) -> dict[str, lang.Expression]:
    return {label: _formula(f, over.unit, ctx, f"overhead.bars.{label}") for label, f in over.bars.items()}


def _formula(source: str, unit: str | None, ctx: lang.Context, where: str = "") -> lang.Expression:
    try:
        e = lang.parse(source, ctx, "formula")
        if unit is not None:
            dimensions.check_formula(e, unit, ctx)
        return e
    except RegimeError as err:
        raise RegimeError(err.message, field=where or None) from None


def _condition(source: str, ctx: lang.Context) -> lang.Expression:
    try:
        e = lang.parse(source, ctx, "condition")
        dimensions.check_condition(e, ctx)
        return e
    except RegimeError as err:
        raise RegimeError(err.message, field="overhead.when") from None


def _bound_field(text: str, ctx: lang.Context) -> str:
    """'fact' or 'group[member]' -> the working-memory field it names."""
    m = re.match(r"^([a-z][a-z0-9_]*)(?:\[([^\]]+)\])?$", text)
    if not m:
        raise RegimeError(f"'{text}' must name a fact or a group member", field=f"moves.{text}")
    ctx.vocabulary.get(m[1])
    return m[1] if not m[2] else f"{m[1]}__{member_id(m[2])}"
