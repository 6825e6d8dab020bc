"""Commands for reviews: `regime report`, `regime sweep`, and what `regime diagnose` adds for
people: `--set` what-ifs and the summary table after a batch. Registered by engine/cli.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from regime.core.errors import RegimeError
from regime.engine import api, display, whatif
from regime.engine.diagnosis import Diagnosis
from regime.engine.packs import Knowledge
from rich import box
from rich.console import Console
from rich.table import Table

RulesOpt = Annotated[list[Path] | None, typer.Option(
    "--rules", help="Extra pack directory or file (site packs, overrides). Repeatable.")]


def _fail(err: RegimeError) -> typer.Exit:
    sys.stderr.write(f"error: {err}\n")
    return typer.Exit(2)


def report(
    cases: Annotated[list[Path] | None, typer.Argument(
        help="Case files. Default: every built-in case.")] = None,
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Directory to write the reports into.")] = Path("report"),
    rules: RulesOpt = None,
) -> None:
    """Write a self-contained HTML page, Markdown with a PNG chart, and JSON per case, plus index.html."""
    from regime.engine import report_cli
    from regime.engine.cli import _knowledge
    from regime.engine.paths import builtin_cases

    k = _knowledge(rules)
    outcomes = api.diagnose_all(cases or builtin_cases(), k)
    written = report_cli.write_all(outcomes, k, out)
    Console(highlight=False).print(f"wrote {len(written)} files to {out}/ (open {out / 'index.html'})")
    failed = [o for o in outcomes if o.error is not None]
    for o in failed:
        sys.stderr.write(f"error: {o.error}\n")
    if failed:
        raise typer.Exit(2)


def sweep(
    case: Annotated[Path, typer.Argument(help="Case file.")],
    vary: Annotated[str, typer.Option("--vary", help="NAME=LOW..HIGH, e.g. batch=1..512.")],
    chart: Annotated[Path | None, typer.Option(
        "--chart", help="Write the chart here (.svg or .png).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    rules: RulesOpt = None,
) -> None:
    """Re-diagnose CASE along a range of one fact: where the verdict flips, and the ceiling on the way."""
    from regime.engine import sweep as sweeping
    from regime.engine.cli import _knowledge

    k = _knowledge(rules)
    try:
        result = sweeping.run(whatif.load(case, k), vary, k)
    except RegimeError as err:
        raise _fail(err.located(file=str(case))) from None
    data = result.to_dict()
    if chart is not None:
        from regime.engine import chart as charting
        chart.write_bytes(charting.render_sweep(data, "png" if chart.suffix.lower() == ".png" else "svg"))
    if fmt == "json":
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        return
    _print_sweep(result, Console(highlight=False))


def _print_sweep(result, console: Console) -> None:
    dropped = ", ".join(display.label(n) for n in result.dropped) or "none"
    console.print(f"[bold]{result.case}[/]: {result.fact} swept; given facts dropped as measured at the "
                  f"original operating point: {dropped}")
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1))
    for col in (result.fact, "regime", "nominal", "top fix", "fixes", result.ceiling_name or "ceiling"):
        table.add_column(col, justify="right" if col in (result.fact, "fixes") else "left")
    for p in result.points:
        table.add_row(f"{p.value:g}", display.category(p.regime), display.category(p.nominal),
                      p.fixes[0] if p.fixes else "—", str(len(p.fixes)), p.ceiling_text)
    console.print(table)
    console.print("\n[bold]Where the verdict flips[/]")
    if not result.flips:
        console.print("  nowhere in this range")
    for f in result.flips:
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1)
        grid.add_row(f"  {result.fact} {f.before.value:g} → {f.after.value:g}:", "; ".join(f.what))
        console.print(grid)


def what_if(paths: list[Path], sets: list[str], k: Knowledge, fmt: str) -> None:
    """`regime diagnose CASE --set name=value`: the changed case's report, led by what changed."""
    from regime.engine import render_markdown, render_text, report

    for path in paths:
        try:
            model, w, diff = whatif.compare(path, sets, k)
        except RegimeError as err:
            raise _fail(err.located(file=str(path))) from None
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
            console.print(f"[bold]{head}[/]")
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column(ratio=1)
            for x in lines:
                grid.add_row("  •", x)
            console.print(grid)
            render_text.print_report(model, console)


def summary(done: list[Diagnosis], k: Knowledge, console: Console) -> None:
    """One row per case: regime, top fix and its bound, how many rejections."""
    from regime.engine.report_model import build

    table = Table(title="Summary", title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1))
    for col, kw in (("case", {"ratio": 3}), ("regime", {"no_wrap": True}), ("top fix", {"ratio": 2}),
                    ("bound", {"ratio": 3}), ("rejected", {"justify": "right", "no_wrap": True})):
        table.add_column(col, overflow="fold", **kw)  # type: ignore[arg-type]
    for d in done:
        m = build(d, k)
        top = m.fixes[0] if m.fixes else None
        bound = ",\n".join(f"{b.name} = {b.text}" for b in top.bounds) if top else ""
        table.add_row(m.case, display.category(m.verdict.regime), top.title if top else "—", bound or "—",
                      str(len(m.rejections)))
    console.print(table)
