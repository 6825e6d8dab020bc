"""The report model as a Markdown review document (the chart as a PNG beside it, when given)."""

from __future__ import annotations

from urllib.parse import quote

from regime.core.escape import markdown_inline as md
from regime.engine.report.model import Fact, Item, Node, ReportModel


def to_markdown(m: ReportModel, chart_png: str | None = None) -> str:
    lines = [f"# {md(m.case)} — {md(m.title)}", "", f"**Verdict:** {m.verdict.line}", "",
             f"_{m.inputs.knowledge}_", ""]
    for n, (title, items) in enumerate(m.sections()):
        if n == 2 and chart_png:  # after the fixes and rejections, with the evidence
            lines += [f"![Roofline of {md(m.case)}]({quote(chart_png)})", ""]
        if items:
            lines += [f"## {title}", ""] + [_item(i, it) for i, it in enumerate(items, 1)] + [""]
    lines += _inputs(m)
    if m.derivations:
        lines += ["## How each figure was derived", ""]
        for node in m.derivations:
            lines += _tree(node, 0)
        lines.append("")
    if m.appendix:
        lines += ["## Appendix: facts no conclusion uses", "", "| fact | value | source |", "|---|---|---|"]
        lines += [f"| {_cell(f.name)} | {_cell(f.text)} | {_cell(_source(f))} |" for f in m.appendix]
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _source(f: Fact) -> str:
    return f"{f.source}: {f.origin}"


def _inputs(m: ReportModel) -> list[str]:
    i = m.inputs
    lines = ["## Inputs", ""]
    summary = md(i.summary or "")  # the case's words: text, never markup
    if summary:
        lines += [f"> {summary}", ""]
    lines.append(f"- **Case file:** {md(m.path)}")
    if i.hardware:
        lines.append(f"- **Hardware:** {md(i.hardware)}")
    if i.model:
        lines.append(f"- **Model:** {md(i.model)}")
    lines.append(f"- **Knowledge layers:** {'; '.join(i.layers)}")
    if i.overrides:
        lines.append(f"- **Overrides active:** {'; '.join(i.overrides)}")
    lines.append("")
    for title, facts in (("Measured", i.measured), ("From the catalogues", i.catalogue),
                         ("Assumed by the packs", i.assumed)):
        if facts:
            lines += [f"### {title}", "", "| fact | value | source |", "|---|---|---|"]
            for f in facts:
                lines.append(f"| {_cell(f.name)} | {_cell(f.shown())} | {_cell(f.origin)} |")
            lines.append("")
    return lines


def _item(i: int, it: Item) -> str:
    text = f"{i}. **{it.title}** — {it.text}"
    if it.speedup:
        text += f"  \n   **{it.speedup}**"
    if it.bounds:
        text += f"  \n   _Bound: {'; '.join(b.said() for b in it.bounds)}_"
    if it.condition:
        text += f"  \n   _Conditional: {it.condition}_"
    return text


def _tree(n: Node, depth: int) -> list[str]:
    pad = "  " * depth
    f = n.fact
    if n.repeat:
        line = f"{pad}- `{f.name}` = {f.text} _(derived above)_"
    elif f.source != "derived":
        line = f"{pad}- `{f.name}` = {f.shown()} — _{f.source}: {f.origin}_"
    elif n.substituted:
        line = f"{pad}- `{f.name}` = `{n.formula}` = {n.substituted} = **{f.text}** _(rule {n.rule})_"
    else:
        line = f"{pad}- `{f.name}` = **{f.text}** because `{n.formula}` _(rule {n.rule})_"
    return [line] + [x for c in n.children for x in _tree(c, depth + 1)]
