"""`regime report CASE... -o DIR`: per case a self-contained HTML page, Markdown with a PNG
chart beside it, and the report model as JSON; one index page links them all."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from regime.engine import chart, render_html, render_markdown
from regime.engine.api import Outcome
from regime.engine.knowledge import Knowledge
from regime.engine.report_model import ReportModel, build


def chart_title(m: ReportModel) -> str:
    from regime.engine.display import category
    return f"{m.case}: {category(m.verdict.regime)}"


def write_case(m: ReportModel, out: Path) -> list[Path]:
    """Write one case's files into `out`; returns their paths."""
    svg = png = None
    if m.chart is not None:
        svg = chart.svg_text(m.chart, chart_title(m))
        png = out / f"{m.case}.png"
        png.write_bytes(chart.render(m.chart, chart_title(m), "png"))
    html = out / f"{m.case}.html"
    html.write_text(render_html.to_html(m, svg), encoding="utf-8")
    md = out / f"{m.case}.md"
    md.write_text(render_markdown.to_markdown(m, png.name if png else None), encoding="utf-8")
    js = out / f"{m.case}.json"
    js.write_text(json.dumps(m.to_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                  encoding="utf-8")
    return [p for p in (html, md, png, js) if p is not None]


def write_all(outcomes: list[Outcome], k: Knowledge, out: Path) -> list[Path]:
    """Every diagnosed case's files and the index; failed cases are listed in the index too."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    rows = []
    for o in outcomes:
        if o.diagnosis is None:
            rows.append(f"<tr><td>{escape(o.path.name)}</td><td colspan=4>could not be diagnosed: "
                        f"{escape(str(o.error))}</td></tr>")
            continue
        m = build(o.diagnosis, k)
        written += write_case(m, out)
        top = m.fixes[0] if m.fixes else None
        bound = ", ".join(f"{b.name} = {b.text}" for b in top.bounds) if top else ""
        rows.append(f'<tr><td><a href="{escape(m.case)}.html">{escape(m.case)}</a></td>'
                    f"<td>{escape(m.title)}</td><td>{escape(m.verdict.line.split(';')[0])}</td>"
                    f"<td>{escape(top.title if top else '—')}</td><td>{escape(bound)}</td>"
                    f'<td><a href="{escape(m.case)}.md">Markdown</a></td></tr>')
    table = ("<table><tr><th>case</th><th>title</th><th>regime</th><th>top fix</th><th>bound</th>"
             "<th></th></tr>" + "".join(rows) + "</table>")
    index = out / "index.html"
    index.write_text(render_html.page("Regime review reports", f"<h1>Regime review reports</h1>\n{table}"),
                     encoding="utf-8")
    return [index, *written]
