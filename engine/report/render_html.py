"""The report model as one self-contained HTML page: inline CSS and SVG, no scripts, no fetches.

A reviewer reads the verdict, the fixes with their bounds and the rejections with their reason
first, on the first screen; evidence and the chart follow, then inputs and the derivation of
every figure, folded with `<details>` (open only for the figures the verdict cites).
"""

from __future__ import annotations

from regime.core.escape import html_text as escape  # control and bidi characters made visible too
from regime.engine.report.model import Fact, Item, Node, ReportModel

CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;max-width:60rem;margin:1.2rem auto;padding:0 1rem;
color:#1a1a1a;line-height:1.45}
h1{font-size:1.4rem;margin:0 0 .3rem}h2{font-size:1.15rem;border-bottom:1px solid #ccc;margin-top:1.4rem}
.verdict{font-size:1.1rem;font-weight:bold;background:#eef3f8;border-left:5px solid #1f4e79;
padding:.6rem .8rem;margin:.4rem 0}
.summary{color:#444;font-style:italic}table{border-collapse:collapse;margin:.4rem 0}
td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}
th{background:#f4f4f4}.src{color:#666;font-size:.85rem}code{font-family:"DejaVu Sans Mono",monospace;
font-size:.88rem}.bound{color:#2e7d32;font-weight:bold}.fix b{color:#2e7d32}.reject b{color:#c00000}
ol li{margin-bottom:.3rem}summary{cursor:pointer}details.section>summary{font-weight:bold;margin:.4rem 0}
ul.tree{list-style:none;padding-left:1.1rem;border-left:1px dotted #aaa}
ul.tree.root{border:none;padding-left:0}
.chart svg{max-width:100%;height:auto}.conditional{color:#9a6700}.rule{color:#888;font-size:.8rem}
"""
LEAD = ("fixes", "rejections")  # read before the chart and the evidence


def to_html(m: ReportModel, chart_svg: str | None) -> str:
    parts = [f"<h1>{escape(m.case)} — {escape(m.title)}</h1>",
             f'<p class="verdict" id="verdict">Verdict: {escape(m.verdict.line)}</p>']
    sections = dict(zip(("fixes", "rejections", "evidence", "findings", "asks"), m.sections(), strict=True))
    for key in LEAD:
        parts += _section(key, *sections[key])
    if chart_svg:
        parts.append(f'<figure class="chart" id="chart">{chart_svg}</figure>')
    for key in ("evidence", "findings", "asks"):
        parts += _section(key, *sections[key])
    parts += _inputs(m)
    if m.derivations:
        parts += ['<h2 id="derivation">How each figure was derived</h2>', '<ul class="tree root">',
                  *(_tree(n, open_=n.fact.field in m.verdict.cites) for n in m.derivations), "</ul>"]
    if m.appendix:
        parts += [f"<h2>Appendix</h2><details><summary>{len(m.appendix)} facts no conclusion uses</summary>",
                  _table(m.appendix), "</details>"]
    return page(f"{m.case} — {m.title}", "\n".join(parts))


def page(title: str, body: str) -> str:
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


def _section(key: str, title: str, items: list[Item]) -> list[str]:
    if not items:
        return []
    return [f'<h2 id="{key}">{escape(title)}</h2>', "<ol>", *(_item(it) for it in items), "</ol>"]


def _inputs(m: ReportModel) -> list[str]:
    i = m.inputs
    out = ['<h2 id="inputs">Inputs and provenance</h2>',
           f'<p class="src" id="knowledge">{escape(i.knowledge)}</p>']
    if i.summary:
        out.append(f'<p class="summary">{escape(i.summary)}</p>')
    rows = [("Case file", m.path), ("Hardware", i.hardware), ("Model", i.model),
            ("Knowledge layers", "; ".join(i.layers)), ("Overrides active", "; ".join(i.overrides))]
    out.append("<table>" + "".join(f"<tr><th>{k}</th><td>{escape(v)}</td></tr>" for k, v in rows if v)
               + "</table>")
    for title, facts in (("Measured", i.measured), ("From the catalogues", i.catalogue),
                         ("Assumed by the packs", i.assumed)):
        if facts:
            out += [f'<details class="section"><summary>{title}: {len(facts)} facts</summary>',
                    _table(facts), "</details>"]
    return out


def _table(facts: list[Fact]) -> str:
    rows = [f"<tr><td><code>{escape(f.name)}</code></td><td>{escape(f.shown())}</td>"
            f'<td class="src">{escape(f.source)}: {escape(f.origin)}</td></tr>' for f in facts]
    return "<table><tr><th>fact</th><th>value</th><th>source</th></tr>" + "".join(rows) + "</table>"


def _item(it: Item) -> str:
    bound = f'<br><span class="bound">{escape(it.speedup)}</span>' if it.speedup else ""
    if it.bounds:
        bound += ('<br><span class="bound">bound: '
                 + escape("; ".join(b.said() for b in it.bounds)) + "</span>")
    if it.condition:
        bound += f'<br><span class="conditional">conditional: {escape(it.condition)}</span>'
    return (f'<li class="{escape(it.kind)}"><b>{escape(it.title)}</b> — {escape(it.text)}{bound} '
            f'<span class="rule">[{escape(it.rule)}]</span></li>')


def _tree(n: Node, open_: bool = False) -> str:
    label = _label(n)
    if not n.children:
        return f"<li>{label}</li>"
    kids = "".join(_tree(c) for c in n.children)
    return (f"<li><details{' open' if open_ else ''}><summary>{label}</summary>"
            f'<ul class="tree">{kids}</ul></details></li>')


def _label(n: Node) -> str:
    f = n.fact
    name = f"<code>{escape(f.name)}</code>"
    if n.repeat:
        return f"{name} = {escape(f.text)} <i>(derived above)</i>"
    if f.source != "derived":
        src = f"{escape(f.source)}: {escape(f.origin)}"
        return f'{name} = {escape(f.shown())} <span class="src">— {src}</span>'
    if n.substituted:
        return (f"{name} = <code>{escape(n.formula)}</code> = {escape(n.substituted)} = "
                f'<b>{escape(f.text)}</b> <span class="rule">[{escape(n.rule)}]</span>')
    return (f"{name} = <b>{escape(f.text)}</b> because <code>{escape(n.formula)}</code> "
            f'<span class="rule">[{escape(n.rule)}]</span>')
