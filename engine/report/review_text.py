"""What `regime diagnose` adds for people: `--set` what-ifs led by what changed (rendered per case
by engine/cli/diagnose.py, in the same envelope as any diagnosis), and the summary table after a
batch (`--quiet`: only the table). No typer here: diagnose starts without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from regime.core.names import file_id
from regime.engine.report import display, terminal
from regime.engine.report.model import ReportModel
from regime.engine.report.terminal import Column
from regime.engine.report.whatif_diff import WhatIf, describe, words


def _head(w: WhatIf) -> str:
    return (f"What-if {', '.join(w.sets)}; dropped as measured at the original operating point: "
            f"{', '.join(display.label(n) for n in w.dropped) or 'none'}"
            + (f"; kept (nothing re-derives them): {', '.join(w.kept)}" if w.kept else ""))


def what_if_doc(w: WhatIf, diff: dict[str, Any]) -> dict[str, Any]:
    """The `what_if` member of a what-if's JSON result: what was set, dropped, kept, changed."""
    return {"set": w.sets, "dropped": w.dropped, "kept": w.kept, "changes": diff}


def what_if_markdown(model: ReportModel, w: WhatIf, diff: dict[str, Any]) -> str:
    from regime.engine.report import render_markdown
    return (f"> {_head(w)}\n>\n" + "".join(f"> - {x}\n" for x in describe(diff, said=words(model))) + "\n"
            + render_markdown.to_markdown(model))


def print_what_if(model: ReportModel, w: WhatIf, diff: dict[str, Any], console, full: bool = True) -> None:
    """The changed case's text report, led by what changed in its verdict; the figures that
    changed, in words, and the whole report with `full`."""
    from rich.table import Table
    from rich.text import Text

    from regime.engine.report import render_text

    with terminal.trimmed(console):
        console.print(Text(_head(w), style="bold"))
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1)
        for x in describe(diff, full, words(model)):
            grid.add_row(Text("  •"), Text(x))
        console.print(grid)
    render_text.print_report(model, console, full=full)


def summary_row(m: ReportModel) -> tuple[str, ...]:
    """One case's row: case, regime, top fix, its bound, how many rejections."""
    top = m.fixes[0] if m.fixes else None
    bound = top.speedup_short or ",\n".join(b.said() for b in top.bounds) if top else ""
    return (m.case, display.category(m.verdict.regime), top.title if top else "—", bound or "—",
            str(len(m.rejections)))


def refused_row(file: str) -> tuple[str, ...]:
    return (file_id(Path(file).stem), "refused", "—", "—", "—")


SUMMARY = (Column("case", keep=9), Column("regime", keep=5), Column("top fix", keep=4),
           Column("bound", keep=2), Column("rejected", keep=1, right=True))


def summary(rows: list[tuple[str, ...]], console) -> None:
    """The table that ends a batch: one row per diagnosed case (refused ones say so). Columns
    that do not fit without cutting a word are left out, and the table says which."""
    from rich.text import Text

    table, dropped = terminal.fit(SUMMARY, rows, console.width, title="Summary", title_justify="left")
    with terminal.trimmed(console):
        console.print(table)
        if dropped:
            console.print(Text(f"(not shown at {console.width} columns: {', '.join(dropped)}; "
                               "see each case's report)", style="dim"))


SWEEP = (Column("value", keep=9, right=True), Column("regime", keep=8), Column("nominal", keep=3),
         Column("top fix", keep=6), Column("fixes", keep=1, right=True), Column("ceiling", keep=7))


def print_sweep(result, console) -> None:
    """`regime sweep` for people: the verdict at each point, then where it flips."""
    from rich.table import Table
    from rich.text import Text

    dropped = ", ".join(display.label(n) for n in result.dropped) or "none"
    rows = [(f"{p.value:g}", display.category(p.regime), display.category(p.nominal),
             p.fixes[0] if p.fixes else "—", str(len(p.fixes)), p.ceiling_text) for p in result.points]
    columns = [Column(result.fact, c.keep, c.right) if c.header == "value" else c for c in SWEEP]
    table, hidden = terminal.fit(columns, rows, console.width)
    with terminal.trimmed(console):
        console.print(Text.assemble((result.case, "bold"), f": {result.fact} swept; given facts dropped as "
                                    f"measured at the original operating point: {dropped}"))
        if result.ceiling_name:
            console.print(Text(f"ceiling: {result.ceiling_name}"))
        console.print(table)
        if hidden:
            console.print(Text(f"(not shown at {console.width} columns: {', '.join(hidden)}; "
                               "-f json has every point)", style="dim"))
        console.print(Text.assemble("\n", ("Where the verdict flips", "bold")))
        if not result.flips:
            console.print("  nowhere in this range")
        for f in result.flips:
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column(ratio=1)
            where = f"  {result.fact} {f.before.value:g} → {f.after.value:g}:"
            grid.add_row(Text(where), Text("; ".join(f.what)))
            console.print(grid)
