"""The report model as one self-contained HTML page: inline CSS and SVG, no scripts, no fetches."""

from __future__ import annotations

from html import escape

from regime.engine.report_model import Fact, Item, Node, ReportModel

CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1a1a1a;line-height:1.45}
h1{font-size:1.5rem;margin-bottom:.3rem}h2{font-size:1.15rem;border-bottom:1px solid #ccc;margin-top:1.8rem}
.verdict{font-size:1.1rem;font-weight:bold;background:#eef3f8;border-left:5px solid #1f4e79;
padding:.6rem .8rem}
.summary{color:#444;font-style:italic}table{border-collapse:collapse;margin:.4rem 0}
td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}
th{background:#f4f4f4}.src{color:#666;font-size:.85rem}code{font-family:"DejaVu Sans Mono",monospace;
font-size:.88rem}.bound{color:#2e7d32}.fix b{color:#2e7d32}.reject b{color:#c00000}
ul.tree{list-style:none;padding-left:1.1rem;border-left:1px dotted #aaa}
ul.tree.root{border:none;padding-left:0}
.chart svg{max-width:100%;height:auto}.conditional{color:#9a6700}.rule{color:#888;font-size:.8rem}
"""


def to_html(m: ReportModel, chart_svg: str | None) -> str:
    parts = [f"<h1>{escape(m.case)} — {escape(m.title)}</h1>",
             f'<p class="verdict" id="verdict">Verdict: {escape(m.verdict.line)}</p>',
             f'<p class="src" id="knowledge">{escape(m.inputs.knowledge)}</p>']
    if chart_svg:
        parts.append(f'<figure class="chart" id="chart">{chart_svg}</figure>')
    parts += _inputs(m)
    for title, items in m.sections():
        if items:
            parts += [f"<h2>{escape(title)}</h2>", "<ol>", *(_item(it) for it in items), "</ol>"]
    if m.derivations:
        parts += ["<h2>How each figure was derived</h2>", '<ul class="tree root">',
                  *(_tree(n) for n in m.derivations), "</ul>"]
    if m.appendix:
        parts += [f"<h2>Appendix</h2><details><summary>{len(m.appendix)} facts no conclusion uses</summary>",
                  _table(m.appendix, written=False), "</details>"]
    return page(f"{m.case} — {m.title}", "\n".join(parts))


def page(title: str, body: str) -> str:
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


def _inputs(m: ReportModel) -> list[str]:
    i = m.inputs
    out = ["<h2>Inputs</h2>"]
    if i.summary:
        out.append(f'<p class="summary">{escape(i.summary)}</p>')
    rows = [("Case file", m.path), ("Hardware", i.hardware), ("Model", i.model),
            ("Knowledge layers", "; ".join(i.layers)), ("Overrides active", "; ".join(i.overrides))]
    out.append("<table>" + "".join(f"<tr><th>{k}</th><td>{escape(v)}</td></tr>" for k, v in rows if v)
               + "</table>")
    for title, facts in (("Measured (as written)", i.measured), ("From the catalogues", i.catalogue),
                         ("Assumed by the packs", i.assumed)):
        if facts:
            out += [f"<h3>{title}</h3>", _table(facts, written=True)]
    return out


def _table(facts: list[Fact], written: bool) -> str:
    rows = []
    for f in facts:
        shown = f.written if written and f.source == "measured" and f.written else f.text
        rows.append(f"<tr><td><code>{escape(f.name)}</code></td><td>{escape(shown)}</td>"
                    f'<td class="src">{escape(f.source)}: {escape(f.origin)}</td></tr>')
    return "<table><tr><th>fact</th><th>value</th><th>source</th></tr>" + "".join(rows) + "</table>"


def _item(it: Item) -> str:
    bound = ""
    if it.bounds:
        bound = ('<br><span class="bound">bound: '
                 + escape(", ".join(f"{b.name} = {b.text}" for b in it.bounds)) + "</span>")
    if it.condition:
        bound += f'<br><span class="conditional">conditional: {escape(it.condition)}</span>'
    return (f'<li class="{escape(it.kind)}"><b>{escape(it.title)}</b> — {escape(it.text)}{bound} '
            f'<span class="rule">[{escape(it.rule)}]</span></li>')


def _tree(n: Node) -> str:
    f = n.fact
    name = f"<code>{escape(f.name)}</code>"
    if n.repeat:
        label = f"{name} = {escape(f.text)} <i>(derived above)</i>"
    elif f.source != "derived":
        label = f'{name} = {escape(f.text)} <span class="src">— {escape(f.source)}: {escape(f.origin)}</span>'
    elif n.substituted:
        label = (f"{name} = <code>{escape(n.formula)}</code> = {escape(n.substituted)} = "
                 f'<b>{escape(f.text)}</b> <span class="rule">[{escape(n.rule)}]</span>')
    else:
        label = (f"{name} = <b>{escape(f.text)}</b> because <code>{escape(n.formula)}</code> "
                 f'<span class="rule">[{escape(n.rule)}]</span>')
    kids = f'<ul class="tree">{"".join(_tree(c) for c in n.children)}</ul>' if n.children else ""
    return f"<li>{label}{kids}</li>"
