"""What `regime diagnose` adds for people: `--set` what-ifs led by what changed, and the
summary table after a batch (`--quiet`: only the table). No typer here: diagnose starts without it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from regime.core.errors import RegimeError
from regime.engine import display, whatif
from regime.engine.knowledge import Knowledge
from regime.engine.report_model import ReportModel


def what_if(paths: list[Path], sets: list[str], k: Knowledge, fmt: str) -> int:
    """`regime diagnose CASE --set name=value`: the changed case's report, led by what changed.
    Returns the exit code: 2 when a case or a --set was refused."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from regime.engine import render_markdown, render_text, report

    for path in paths:
        try:
            model, w, diff = whatif.compare(path, sets, k)
        except RegimeError as err:
            sys.stderr.write(f"error: {err.located(file=str(path))}\n")
            return 2
        lines = whatif.describe(diff)
        head = (f"What-if {', '.join(w.sets)}; dropped as measured at the original operating point: "
                f"{', '.join(display.label(n) for n in w.dropped) or 'none'}"
                + (f"; kept (nothing re-derives them): {', '.join(w.kept)}" if w.kept else ""))
        if fmt == "json":
            doc = report.to_dict(w.diagnosis, k)  # type: ignore[arg-type]
            doc["what_if"] = {"set": w.sets, "dropped": w.dropped, "kept": w.kept, "changes": diff}
            sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        elif fmt == "markdown":
            sys.stdout.write(f"> {head}\n>\n" + "".join(f"> - {x}\n" for x in lines) + "\n"
                             + render_markdown.to_markdown(model))
        else:
            console = Console(highlight=False)
            console.print(Text(head, style="bold"))
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column(ratio=1)
            for x in lines:
                grid.add_row(Text("  •"), Text(x))
            console.print(grid)
            render_text.print_report(model, console)
    return 0


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
