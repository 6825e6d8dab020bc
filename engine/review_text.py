"""What `regime diagnose` adds for people: `--set` what-ifs led by what changed (rendered per case
by engine/cli/diagnose.py, in the same envelope as any diagnosis), and the summary table after a
batch (`--quiet`: only the table). No typer here: diagnose starts without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from regime.engine import display, whatif
from regime.engine.report_model import ReportModel


def _head(w: whatif.WhatIf) -> str:
    return (f"What-if {', '.join(w.sets)}; dropped as measured at the original operating point: "
            f"{', '.join(display.label(n) for n in w.dropped) or 'none'}"
            + (f"; kept (nothing re-derives them): {', '.join(w.kept)}" if w.kept else ""))


def what_if_doc(w: whatif.WhatIf, diff: dict[str, Any]) -> dict[str, Any]:
    """The `what_if` member of a what-if's JSON result: what was set, dropped, kept, changed."""
    return {"set": w.sets, "dropped": w.dropped, "kept": w.kept, "changes": diff}


def what_if_markdown(model: ReportModel, w: whatif.WhatIf, diff: dict[str, Any]) -> str:
    from regime.engine import render_markdown
    return (f"> {_head(w)}\n>\n" + "".join(f"> - {x}\n" for x in whatif.describe(diff)) + "\n"
            + render_markdown.to_markdown(model))


def print_what_if(model: ReportModel, w: whatif.WhatIf, diff: dict[str, Any], console) -> None:
    """The changed case's text report, led by what changed."""
    from regime.engine import render_text
    from rich.table import Table
    from rich.text import Text

    console.print(Text(_head(w), style="bold"))
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    for x in whatif.describe(diff):
        grid.add_row(Text("  •"), Text(x))
    console.print(grid)
    render_text.print_report(model, console)


def summary_row(m: ReportModel) -> tuple[str, ...]:
    """One case's row: case, regime, top fix, its bound, how many rejections."""
    top = m.fixes[0] if m.fixes else None
    bound = ",\n".join(f"{b.name} = {b.text}" for b in top.bounds) if top else ""
    return (m.case, display.category(m.verdict.regime), top.title if top else "—", bound or "—",
            str(len(m.rejections)))


def refused_row(file: str) -> tuple[str, ...]:
    return (Path(file).stem, "refused", "—", "—", "—")


def summary(rows: list[tuple[str, ...]], console) -> None:
    """The table that ends a batch: one row per diagnosed case (refused ones say so)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Summary", title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1))
    for col, kw in (("case", {"ratio": 3}), ("regime", {"no_wrap": True}), ("top fix", {"ratio": 2}),
                    ("bound", {"ratio": 3}), ("rejected", {"justify": "right", "no_wrap": True})):
        table.add_column(col, overflow="fold", **kw)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)
