"""Draw the roofline (and the kernel/gap panel) from a report model's chart numbers.

matplotlib is imported lazily: diagnosing never pays for it. Output is deterministic: the Agg
and SVG backends without pyplot's global state, a font that ships with matplotlib, glyphs as
paths, a fixed `svg.hashsalt` and no date or software metadata, so the SVG is byte-stable.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

STYLE: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans", "font.size": 9, "svg.fonttype": "path", "svg.hashsalt": "regime",
    "path.simplify": True, "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": 100,
}
COLORS = {"roof": "#1f4e79", "extra": "#7f7f7f", "bw": "#c55a11", "ridge": "#595959",
          "workload": "#c00000", "nominal": "#1f4e79", "move": "#2e7d32", "kernel": "#1f4e79",
          "gap": "#c00000"}
FLIPS = ["#c00000", "#7030a0", "#c55a11", "#2e7d32"]


def render(chart: dict[str, Any], title: str, fmt: str = "svg") -> bytes:
    """The chart as SVG or PNG bytes."""
    return _save(figure(chart, title), fmt)


def figure(chart: dict[str, Any], title: str) -> Figure:
    """The roofline (and the kernel/gap panel), laid out, its labels placed clear of each other."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        panels = 2 if chart.get("overhead") else 1
        fig = Figure(figsize=(8 if panels == 1 else 10.5, 5.4))
        grid = fig.add_gridspec(1, panels, width_ratios=[3, 1][:panels])
        ax = fig.add_subplot(grid[0, 0])
        labels = _roofline(ax, chart, title)
        if panels == 2:
            _overhead(fig.add_subplot(grid[0, 1]), chart["overhead"])
        _lay_out(fig, ax, labels)
    return fig


def svg_text(chart: dict[str, Any], title: str) -> str:
    """SVG for inlining in HTML: without the XML prolog and DOCTYPE."""
    text = str(render(chart, title, "svg"), "utf-8")
    return text[text.index("<svg"):]


def _span(chart: dict[str, Any]) -> tuple[float, float]:
    points = [chart.get("workload"), chart.get("nominal"), *chart["moves"]]
    xs = [chart["ridge"], *(p["x"] for p in points if p)]
    lo, hi = min(xs), max(xs)
    return 10 ** math.floor(math.log10(lo) - 1), 10 ** math.ceil(math.log10(hi) + 1)


def _roofline(ax, chart: dict[str, Any], title: str) -> list[Label]:
    """Draw the roofs and points; returns the labels to place once the layout is fixed."""
    x0, x1 = _span(chart)
    slope = chart["bandwidth"]["value"]
    top = max(r["value"] for r in chart["roofs"])
    main = next(r["value"] for r in chart["roofs"] if r["main"])
    for roof in chart["roofs"]:
        style = ({"color": COLORS["roof"], "lw": 2} if roof["main"] else
                 {"color": COLORS["extra"], "lw": 1, "ls": "--"})
        ax.plot([roof["value"] / slope, x1], [roof["value"]] * 2, label=f"{roof['name']} {roof['text']}",
                **style)
    ax.plot([x0, main / slope], [slope * x0, main], color=COLORS["bw"], lw=2,
            label=f"bandwidth roof: {chart['bandwidth']['name']} {chart['bandwidth']['text']}")
    if top > main:
        ax.plot([main / slope, top / slope], [main, top], color=COLORS["bw"], lw=1, ls="--")
    ax.axvline(chart["ridge"], color=COLORS["ridge"], lw=0.8, ls=":")
    ridge = f"ridge {chart['ridge_text']}"
    labels = [Label(ridge, (chart["ridge"], top), COLORS["ridge"])]
    nominal, workload = chart.get("nominal"), chart.get("workload")
    if nominal:
        ax.plot(nominal["x"], nominal["y"], "o", mfc="none", mec=COLORS["nominal"], ms=9,
                label=f"nominal (theory) {_said(nominal)}")
    if workload:
        ax.plot(workload["x"], workload["y"], "o", color=COLORS["workload"], ms=7,
                label=f"workload (measured) {_said(workload)}")
        targets: dict[tuple[float, float], list[dict]] = {}
        for move in chart["moves"]:
            targets.setdefault((move["x"], move["y"]), []).append(move)
        for (x, y), moves in targets.items():
            ax.annotate("", (x, y), (workload["x"], workload["y"]),
                        arrowprops={"arrowstyle": "->", "color": COLORS["move"], "lw": 1.4})
            text = "\n".join(f"{m['rank']}. {m['lever']}\n    {m['bound']}" for m in moves)
            labels.append(Label(text, (x, y), COLORS["move"]))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x0, x1)
    ax.set_ylim(min([slope * x0, *(p["y"] for p in (workload, nominal) if p)]) / 3, top * 3)
    ax.set_xlabel(f"{chart['x_label']} ({chart['x_unit']})")
    ax.set_ylabel(f"{chart['y_label']} ({chart['y_unit']})")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize=7, frameon=False)
    return labels


def _overhead(ax, over: dict[str, Any]) -> None:
    bars = over["bars"]
    labels = [b["label"] for b in bars]
    values = [b["value"] for b in bars]
    colors = [COLORS["kernel"], COLORS["gap"], COLORS["extra"]]
    ax.bar(labels, values, color=[colors[i % 3] for i in range(len(bars))])
    for i, b in enumerate(bars):
        ax.annotate(b["text"], (i, b["value"]), ha="center", va="bottom", fontsize=8)
    ax.set_ylabel(f"per step ({over['unit']})")
    ax.set_title("time per step", fontsize=10)
    ax.set_ylim(0, max(values) * 1.2)


def _said(point: dict[str, Any]) -> str:
    """A point's coordinates as the report's text gives them: each fact's words and value
    ('the weight GEMMs' FLOP rate 64.8 TFLOP/s at 256 FLOP/byte'), so the chart never shows an
    unlabelled figure beside a different one in the text."""
    y = f"{point['y_name']} {point['y_text']}" if point["y_name"] else point["y_text"]
    return f"{y} at {point['x_text']}"  # the x axis names what x is


def _num(x: float) -> str:
    from regime.core.units import format_number
    return format_number(x)


def render_sweep(sweep: dict[str, Any], fmt: str = "svg") -> bytes:
    """The ceiling along a sweep, with a dotted line at each verdict flip, said in the legend."""
    return _save(sweep_figure(sweep), fmt)


def sweep_figure(sweep: dict[str, Any]) -> Figure:
    """The sweep chart on the whole width: short marks at the flips, what flips in the legend."""
    import textwrap

    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(8, 4.4 + 0.28 * len(sweep["flips"])))
        ax = fig.add_subplot(1, 1, 1)
        pts = [p for p in sweep["points"] if p["ceiling"] is not None]
        ax.plot([p["value"] for p in pts], [p["ceiling"] for p in pts], "o-", color=COLORS["roof"], ms=3,
                label=sweep["ceiling_name"] or "ceiling")
        top = max((p["ceiling"] for p in pts), default=1.0)
        labels = []
        for i, flip in enumerate(sweep["flips"], 1):
            x = flip["after"]["value"]
            what = "; ".join(flip["what"])
            ax.axvline(x, color=FLIPS[(i - 1) % len(FLIPS)], lw=0.9, ls=":",
                       label=textwrap.fill(f"({i}) {sweep['fact']} {_num(x)}: {what}", 110,
                                           subsequent_indent="      "))
            labels.append(Label(f"({i})", (x, top), FLIPS[(i - 1) % len(FLIPS)]))
        here = sweep.get("measured")
        if here and here["ceiling"] is not None:
            ax.plot([here["value"]], [here["ceiling"]], "D", color=COLORS["workload"], ms=7,
                    label=f"this case: {sweep['fact']} = {_num(here['value'])}, {here['ceiling_text']}")
        ax.set_xscale("log")
        if pts and min(p["ceiling"] for p in pts) > 0:
            ax.set_yscale("log")
        words = sweep.get("fact_name") or sweep["fact"]
        ax.set_xlabel(f"{words} ({sweep['fact']})" if words != sweep["fact"] else words)
        ax.set_ylabel(sweep["ceiling_name"] or "ceiling")
        ax.set_title(f"{sweep['case']}: verdict along {words}", fontsize=10)
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.14), fontsize=7, frameon=False)
        _lay_out(fig, ax, labels)
    return fig


class Label(NamedTuple):
    text: str
    at: tuple[float, float]   # data coordinates of the point it names
    color: str


# Where a label may sit around its point, in points: beside it first, then further down or up.
PLACES = [(dx, sy * dy, "left" if dx > 0 else "right", "top" if sy < 0 else "bottom")
          for dy in (4, 16, 28, 40, 56, 72) for sy in (-1, 1) for dx in (5, -5)]


def _lay_out(fig, ax, labels: list[Label]) -> None:
    """Fix the layout, then place each label at the first spot around its point that lies inside
    the axes and overlaps no text already there (the fewest overlaps when none is free)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig.tight_layout()
    renderer = FigureCanvasAgg(fig).get_renderer()
    room = ax.get_window_extent(renderer)
    taken = [t.get_window_extent(renderer) for t in texts(fig)]
    for label in labels:
        best = None
        for dx, dy, ha, va in PLACES:
            note = ax.annotate(label.text, label.at, xytext=(dx, dy), textcoords="offset points", ha=ha,
                               va=va, fontsize=7, color=label.color, annotation_clip=False)
            note.set_in_layout(False)
            box = note.get_window_extent(renderer)
            cost = sum(_area(box, t) for t in taken) + box.width * box.height - _area(box, room)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, note, box)
            else:
                note.remove()
            if cost == 0:
                break
        if best is not None:
            taken.append(best[2])


def texts(fig) -> list:
    """Every text the figure draws (tick labels in the view, titles, legend entries, notes)."""
    from matplotlib.text import Text
    hidden: set[int] = set()  # tick labels matplotlib keeps for ticks beyond the axis limits, not drawn
    for ax in fig.axes:
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            lo, hi = min(lo, hi), max(lo, hi)
            slack = (hi - lo) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - slack <= tick.get_loc() <= hi + slack:
                    hidden.update((id(tick.label1), id(tick.label2)))
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def _area(a, b) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def _save(fig, fmt: str) -> bytes:
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    with matplotlib.rc_context(STYLE):  # svg.hashsalt and the font apply while writing, too
        return _write(fig, fmt, FigureCanvasAgg, FigureCanvasSVG)


def _write(fig, fmt: str, agg, svg) -> bytes:
    buf = io.BytesIO()
    if fmt == "svg":
        svg(fig).print_svg(buf, metadata={"Date": None, "Creator": None})
    else:
        agg(fig).print_png(buf, metadata={"Software": None})
    return buf.getvalue()
