"""The report model as rich text for a terminal: wrapped lines keep their indentation."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from regime.engine.report import terminal
from regime.engine.report.model import SECTIONS, Fact, Item, Node, ReportModel


def print_report(m: ReportModel, console: Console, appendix: bool = True, full: bool = True) -> None:
    """The report as rich text: whole, or (`full` False) the one screen a person reads first."""
    with terminal.trimmed(console):
        if full:
            _report(m, console, appendix)
        else:
            _screen(m, console)


SCREEN = ("fixes", "rejections", "asks")  # what one screen holds, after the verdict


def _screen(m: ReportModel, console: Console) -> None:
    """Verdict, fixes with their bounds, rejections and asks; the rest is named, behind --full."""
    console.rule(Text.assemble((m.case, "bold"), f" — {m.title}"))
    console.print(_hang("Verdict:", Text(m.verdict.line, style="bold")))
    for attr, _, title in SECTIONS:
        items = getattr(m, attr)
        if attr in SCREEN and items:
            console.print(Text.assemble("\n", (title, "bold")))
            console.print(_numbered([_item(it, full=False) for it in items]))
    rest = [f"{len(getattr(m, attr))} {title.lower()}" for attr, _, title in SECTIONS
            if attr not in SCREEN and getattr(m, attr)]
    rest += ["inputs", "how each figure was derived" if m.derivations else "", m.inputs.knowledge]
    named = ", ".join(r for r in rest if r)
    console.print(Text.assemble("\n", ("more: --full", "bold"), " ", (f"({named})", "dim")))


def _report(m: ReportModel, console: Console, appendix: bool) -> None:
    console.rule(Text.assemble((m.case, "bold"), f" — {m.title}"))
    console.print(_hang("Verdict:", Text(m.verdict.line, style="bold")))
    console.print(Text(m.inputs.knowledge, style="dim"))
    for title, items in m.sections():
        if items:
            console.print(Text.assemble("\n", (title, "bold")))
            console.print(_numbered([_item(it) for it in items]))
    _inputs(m, console)
    if m.derivations:
        console.print(Text.assemble("\n", ("How each figure was derived", "bold"), " ",
                                    ("(down to measured, catalogue and assumed facts)", "dim")))
        for node in m.derivations:
            console.print(_tree(node))
    if appendix and m.appendix:
        console.print(Text.assemble("\n", ("Appendix", "bold"), " ",
                                    (f"({len(m.appendix)} facts no conclusion uses)", "dim")))
        console.print(_hang("", Text(", ".join(f"{f.name} = {f.text}" for f in m.appendix), style="dim")))


def _hang(head: str, body: RenderableType, indent: int = 2) -> Table:
    """A two-column grid: the body wraps under itself, not under the head."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, min_width=indent)
    grid.add_column(ratio=1)
    grid.add_row(Text(head), body)
    return grid


def _numbered(rows: list[RenderableType]) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(justify="right", no_wrap=True, min_width=3)
    grid.add_column(ratio=1)
    for i, row in enumerate(rows, 1):
        grid.add_row(Text(f"{i}."), row)
    return grid


def _item(it: Item, full: bool = True) -> RenderableType:
    """One conclusion; on one screen a fix's speedup figure stands for its raw bound facts."""
    style = {"fix": "bold green", "reject": "bold red", "ask": "bold yellow"}.get(it.kind, "bold cyan")
    lines = [Text.assemble((it.title, style), ": ", it.text)]
    if it.speedup:
        lines.append(Text(it.speedup, style="bold green"))
    if it.bounds and (full or not it.speedup):
        lines.append(Text("bound: " + "; ".join(b.said() for b in it.bounds), style="green"))
    if it.condition:
        lines.append(Text(f"conditional: {it.condition}", style="yellow"))
    return Group(*lines)


def _inputs(m: ReportModel, console: Console) -> None:
    i = m.inputs
    console.print(Text.assemble("\n", ("Inputs", "bold")))
    rows = [("case", f"{m.path}" + (f": {i.summary}" if i.summary else ""))]
    rows += [("hardware", i.hardware)] if i.hardware else []
    rows += [("model", i.model)] if i.model else []
    rows += [("overrides", "; ".join(i.overrides))] if i.overrides else []
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, min_width=12, style="dim")
    grid.add_column(ratio=1)
    for head, body in rows:
        grid.add_row(Text(f"  {head}"), Text(str(body)))
    for title, facts in (("measured", i.measured), ("catalogue", i.catalogue), ("assumed", i.assumed)):
        for n, f in enumerate(facts):
            grid.add_row(Text(f"  {title}" if n == 0 else ""), _fact_line(f))
    console.print(grid)


def _fact_line(f: Fact) -> Text:
    return Text.assemble((f.name, "bold"), f" = {f.shown()}  ", (f.origin, "dim"))


def _tree(node: Node) -> Tree:
    tree = Tree(_node_label(node), guide_style="dim")
    _grow(tree, node)
    return tree


def _grow(tree: Tree, node: Node) -> None:
    for child in node.children:
        branch = tree.add(_node_label(child))
        _grow(branch, child)


def _node_label(n: Node) -> Text:
    f = n.fact
    if n.repeat:
        return Text.assemble((f.name, "bold"), f" = {f.text} ", ("(derived above)", "dim"))
    if f.source != "derived":
        return Text.assemble((f.name, "bold"), f" = {f.shown()}  ", (f"{f.source}: {f.origin}", "dim"))
    if n.substituted:
        return Text.assemble((f.name, "bold"), f" = {n.formula} = {n.substituted} = ", (f.text, "bold"),
                             ("  " + n.rule, "dim"))
    return Text.assemble((f.name, "bold"), " = ", (f.text, "bold"), f" because {n.formula}",
                         ("  " + n.rule, "dim"))
