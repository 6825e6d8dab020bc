"""Draw the roofline (and the kernel/gap panel) from a report model's chart numbers.

matplotlib is imported lazily: diagnosing never pays for it. Output is deterministic: the Agg
and SVG backends without pyplot's global state, a font that ships with matplotlib, glyphs as
paths, a fixed `svg.hashsalt` and no date or software metadata, so the SVG is byte-stable.
"""

from __future__ import annotations

import io
import math
from typing import Any

STYLE = {
    "font.family": "DejaVu Sans", "font.size": 9, "svg.fonttype": "path", "svg.hashsalt": "regime",
    "path.simplify": True, "axes.grid": True, "grid.alpha": 0.3, "figure.dpi": 100,
}
COLORS = {"roof": "#1f4e79", "extra": "#7f7f7f", "bw": "#c55a11", "ridge": "#595959",
          "workload": "#c00000", "nominal": "#1f4e79", "move": "#2e7d32", "kernel": "#1f4e79",
          "gap": "#c00000"}


def render(chart: dict[str, Any], title: str, fmt: str = "svg") -> bytes:
    """The chart as SVG or PNG bytes."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        panels = 2 if chart.get("overhead") else 1
        fig = Figure(figsize=(7.5 if panels == 1 else 10.5, 4.6))
        grid = fig.add_gridspec(1, panels, width_ratios=[3, 1][:panels])
        _roofline(fig.add_subplot(grid[0, 0]), chart, title)
        if panels == 2:
            _overhead(fig.add_subplot(grid[0, 1]), chart["overhead"])
        return _save(fig, fmt)


def svg_text(chart: dict[str, Any], title: str) -> str:
    """SVG for inlining in HTML: without the XML prolog and DOCTYPE."""
    text = str(render(chart, title, "svg"), "utf-8")
    return text[text.index("<svg"):]


def _span(chart: dict[str, Any]) -> tuple[float, float]:
    points = [chart.get("workload"), chart.get("nominal"), *chart["moves"]]
    xs = [chart["ridge"], *(p["x"] for p in points if p)]
    lo, hi = min(xs), max(xs)
    return 10 ** math.floor(math.log10(lo) - 1), 10 ** math.ceil(math.log10(hi) + 1)


def _roofline(ax, chart: dict[str, Any], title: str) -> None:
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
    ax.annotate(f"ridge {_num(chart['ridge'])} {chart['x_unit']}", (chart["ridge"], top * 1.3),
                ha="center", fontsize=8, color=COLORS["ridge"])
    nominal, workload = chart.get("nominal"), chart.get("workload")
    if nominal:
        ax.plot(nominal["x"], nominal["y"], "o", mfc="none", mec=COLORS["nominal"], ms=9,
                label=f"nominal (theory) {_num(nominal['y'])} {chart['y_unit']}")
    if workload:
        ax.plot(workload["x"], workload["y"], "o", color=COLORS["workload"], ms=7,
                label=f"workload (measured) {_num(workload['y'])} {chart['y_unit']}")
        targets: dict[tuple[float, float], list[dict]] = {}
        for move in chart["moves"]:
            targets.setdefault((move["x"], move["y"]), []).append(move)
        for i, ((x, y), moves) in enumerate(targets.items()):
            ax.annotate("", (x, y), (workload["x"], workload["y"]),
                        arrowprops={"arrowstyle": "->", "color": COLORS["move"], "lw": 1.4})
            text = "\n".join(f"{m['rank']}. {m['lever']} ({m['bound']})" for m in moves)
            ax.annotate(text, (x, y), xytext=(4, -4 - 22 * (i % 2)), textcoords="offset points",
                        fontsize=7, color=COLORS["move"], va="top")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x0, x1)
    ax.set_ylim(min(slope * x0, *(p["y"] for p in (workload, nominal) if p)) / 3, top * 3)
    ax.set_xlabel(f"{chart['x_label']} ({chart['x_unit']})")
    ax.set_ylabel(f"{chart['y_label']} ({chart['y_unit']})")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=7, framealpha=0.9)


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


def _num(x: float) -> str:
    from regime.core.units import format_number
    return format_number(x)


def render_sweep(sweep: dict[str, Any], fmt: str = "svg") -> bytes:
    """The ceiling along a sweep, with a dotted line and a label at each verdict flip."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(8, 4.2))
        ax = fig.add_subplot(1, 1, 1)
        pts = [p for p in sweep["points"] if p["ceiling"] is not None]
        ax.plot([p["value"] for p in pts], [p["ceiling"] for p in pts], "o-", color=COLORS["roof"], ms=3,
                label=sweep["ceiling_name"] or "ceiling")
        top = max((p["ceiling"] for p in pts), default=1.0)
        for i, flip in enumerate(sweep["flips"]):
            x = flip["after"]["value"]
            ax.axvline(x, color=COLORS["workload"], lw=0.8, ls=":")
            text = f"{sweep['fact']} {_num(x)}: " + "; ".join(flip["what"][:2])
            ax.annotate(text, (x, top), xytext=(3, -12 - 11 * i), textcoords="offset points",
                        fontsize=7, color=COLORS["workload"])
        ax.set_xscale("log")
        if pts and min(p["ceiling"] for p in pts) > 0:
            ax.set_yscale("log")
        ax.set_xlabel(sweep["fact"])
        ax.set_ylabel(sweep["ceiling_name"] or "ceiling")
        ax.set_title(f"{sweep['case']}: verdict along {sweep['fact']}", fontsize=10)
        ax.legend(loc="lower right", fontsize=7)
        return _save(fig, fmt)


def _save(fig, fmt: str) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    fig.tight_layout()
    buf = io.BytesIO()
    if fmt == "svg":
        FigureCanvasSVG(fig).print_svg(buf, metadata={"Date": None, "Creator": None})
    else:
        FigureCanvasAgg(fig).print_png(buf, metadata={"Software": None})
    return buf.getvalue()
