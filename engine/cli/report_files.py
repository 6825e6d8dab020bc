"""`regime report CASE... -o DIR`: per case a self-contained HTML page, Markdown with a PNG
chart beside it, and the report model as JSON (in the envelope every JSON document of Regime's
has, its one result); one index page links them all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from regime.core.escape import html_text as escape
from regime.engine.api import Outcome
from regime.engine.cli.writers import envelope
from regime.engine.knowledge.model import Knowledge
from regime.engine.report import chart, render_html, render_markdown
from regime.engine.report.model import ReportModel, build


def chart_title(m: ReportModel) -> str:
    from regime.engine.report.display import category
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
    js.write_text(envelope.document([envelope.sorted_keys(m.to_dict())], [], {"cases": 1}), encoding="utf-8")
    return [p for p in (html, md, png, js) if p is not None]


def write_all(outcomes: list[Outcome], k: Knowledge, out: Path) -> list[Path]:
    """Every diagnosed case's files and the index. The index lists every case report in the
    folder, from its JSON, so a second run into the same folder adds to it instead of
    replacing it; cases that could not be diagnosed in this run are listed too."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    fresh: set[str] = set()
    for o in outcomes:
        if o.diagnosis is not None:
            m = build(o.diagnosis, k)
            written += write_case(m, out)
            fresh.add(m.case)
    rows = [_row(doc, fresh) for doc in _reports(out)]
    rows += [f"<tr><td>{escape(o.path.name)}</td><td colspan=5>could not be diagnosed: "
             f"{escape(str(o.error))}</td><td>this run</td></tr>" for o in outcomes if o.diagnosis is None]
    table = ("<table><tr><th>case</th><th>title</th><th>regime</th><th>top fix</th><th>bound</th>"
             "<th></th><th>written</th></tr>" + "".join(rows) + "</table>")
    index = out / "index.html"
    index.write_text(render_html.page("Regime review reports", f"<h1>Regime review reports</h1>\n{table}"),
                     encoding="utf-8")
    return [index, *written]


def _reports(out: Path) -> list[dict]:
    """The report models (CASE.json beside CASE.html) in the folder, by case name."""
    docs = []
    for path in sorted(out.glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        model = _model(doc)
        if model is not None and model.get("case") == path.stem and isinstance(model.get("verdict"), dict) \
                and (out / f"{path.stem}.html").exists():
            docs.append(model)
    return docs


def _model(doc: Any) -> dict | None:
    """The report model a CASE.json holds: the one result of its envelope."""
    results = doc.get("results") if isinstance(doc, dict) else None
    return results[0] if isinstance(results, list) and len(results) == 1 and isinstance(results[0], dict) \
        else None


def _row(doc: dict, fresh: set[str]) -> str:
    case = str(doc["case"])
    top = (doc.get("fixes") or [None])[0]
    bound = ", ".join(f"{b['name']} = {b['text']}" for b in top.get("bounds", [])) if top else ""
    href = quote(case)  # a relative path whatever the name (":" escaped: never javascript: or another scheme)
    return (f'<tr><td><a href="{escape(href)}.html">{escape(case)}</a></td>'
            f"<td>{escape(str(doc.get('title', '')))}</td>"
            f"<td>{escape(str(doc['verdict'].get('line', '')).split(';')[0])}</td>"
            f"<td>{escape(top['title'] if top else '—')}</td><td>{escape(bound)}</td>"
            f'<td><a href="{escape(href)}.md">Markdown</a></td>'
            f"<td>{'this run' if case in fresh else 'an earlier run'}</td></tr>")
