"""Commands for reviews: `regime report` and `regime sweep`, registered by cli/app.py; what
`regime diagnose` adds for people (what-ifs, the summary table) is in engine/report/review_text.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core
from regime.engine.cli.options import (
    CaseArg,
    CasesArg,
    EngineOpt,
    RulesOpt,
    SchedulerOpt,
    SetOpt,
    TextOrJsonOpt,
    TraceOpt,
    exit_with,
    value,
)


def report(
    cases: CasesArg = None,
    out: Annotated[Path, typer.Option(
        "--out", "-o", metavar="FOLDER", help="The folder to write the reports into (several files "
        "per case, and index.html); made if missing.")] = Path("report"),
    rules: RulesOpt = None,
    engine: EngineOpt = core.ENGINE.default,
    trace: TraceOpt = None,
) -> None:
    """Write a self-contained HTML page, Markdown with a PNG chart, and JSON per case, plus
    index.html. Default: every built-in case (with --trace and no case, the trace alone)."""
    from regime.engine.api import Outcome
    from regime.engine.cli import report_files

    try:
        k = core.knowledge(rules or [], value(engine))
        beneath = core.measured(trace, k, rules or [])
    except RegimeError as err:
        exit_with(core.refuse(err))
        return
    outcomes = [Outcome(Path(item.file or "?"), error=item) if isinstance(item, RegimeError)
                else core.outcome(item, k, value(engine), beneath) for item in core.cases(cases or [], trace)]
    if out.suffix and not out.is_dir():  # `-o review.html` reads like one file: say it is not
        sys.stderr.write(f"note: {out} is a folder: a report is several files per case, with "
                         f"{out / 'index.html'} to open\n")
    written = report_files.write_all(outcomes, k, out)
    from rich.console import Console
    from rich.text import Text

    Console(highlight=False).print(Text(f"wrote {len(written)} files to {out}/ (open {out / 'index.html'})"))
    failed = [o.error for o in outcomes if o.error is not None]
    for failure in failed:
        core.error(failure)
    exit_with(core.EXIT_BAD_INPUT if failed else core.EXIT_OK)


def sweep(
    case: CaseArg,
    vary: Annotated[str, typer.Option("--vary", metavar="NAME=LOW..HIGH",
                                      help="The fact to vary and its range, e.g. batch=1..512.")],
    chart: Annotated[Path | None, typer.Option(
        "--chart", metavar="FILE", help="Write the chart here (.svg or .png).")] = None,
    fmt: TextOrJsonOpt = core.TEXT_OR_JSON.default,
    rules: RulesOpt = None,
    engine: EngineOpt = "compiled",  # dozens of diagnoses: the faster evaluator, same answers
    trace: TraceOpt = None,
    sets: SetOpt = None,
    scheduler: SchedulerOpt = None,
) -> None:
    """Re-diagnose CASE along a range of one fact: where the verdict flips, and the ceiling on the way
    (with --set, of the changed case)."""
    from regime.engine import sweep as sweeping
    from regime.engine import whatif

    try:
        address = core.scheduler(scheduler)
        k = core.knowledge(rules or [], value(engine))
        path = core.case(case)
        start = core.loaded(path, k, trace, rules or [])
        if sets:
            start = whatif.apply(start, whatif.parse_sets(list(sets), k), k)[0]
        result = sweeping.run(start, vary, k, value(engine), address)
    except RegimeError as err:
        exit_with(core.refuse(err.located(file=str(case)), value(fmt)))
        return
    data = result.to_dict()
    if chart is not None:
        from regime.engine.report import chart as charting
        chart.write_bytes(charting.render_sweep(data, "png" if chart.suffix.lower() == ".png" else "svg"))
    if value(fmt) == "json":
        sys.stdout.write(core.envelope([data], [], {"points": len(data.get("points", []))}))
        return
    from rich.console import Console

    from regime.engine.report import review_text
    review_text.print_sweep(result, Console(highlight=False))
