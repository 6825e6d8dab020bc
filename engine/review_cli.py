"""Commands for reviews: `regime report` and `regime sweep`. Registered by engine/cli.py; what
`regime diagnose` adds for people (what-ifs, the summary table) is in engine/review_text.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from regime.core.errors import RegimeError
from regime.engine import api, whatif

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
    Console(highlight=False).print(Text(f"wrote {len(written)} files to {out}/ (open {out / 'index.html'})"))
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
    from regime.engine import review_text
    review_text.print_sweep(result, Console(highlight=False))
