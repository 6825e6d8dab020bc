"""Commands for reviews: `regime report` and `regime sweep`, registered by cli/app.py; what
`regime diagnose` adds for people (what-ifs, the summary table) is in engine/report/review_text.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core, writers
from regime.engine.cli.options import (
    CaseArg,
    CasesArg,
    EngineOpt,
    FormatOpt,
    RulesOpt,
    SchedulerOpt,
    SetOpt,
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
    sets: SetOpt = None,
    fmt: FormatOpt = core.FORMAT.default,
) -> None:
    """Write a self-contained HTML page, Markdown with a PNG chart, and JSON per case, plus
    index.html (with --set, of each changed case). Default: every built-in case (with --trace
    and no case, the trace alone). --format: what is said on stdout about what was written."""
    from regime.engine.cli import report_files

    fmt = value(fmt)
    try:
        k = core.knowledge(rules or [], value(engine))
        beneath = core.measured(trace, k, rules or [])
        if sets:
            from regime.engine import whatif
            whatif.parse_sets(list(sets), k)  # a bad --set is refused once, before any case
    except RegimeError as err:
        exit_with(core.refuse(err, fmt))
        return
    outcomes = [_outcome(item, k, value(engine), beneath, trace, rules or [], list(sets or []))
                for item in core.cases(cases or [], trace)]
    if out.suffix and not out.is_dir():  # `-o review.html` reads like one file: say it is not
        sys.stderr.write(writers.text.lines([f"note: {out} is a folder: a report is several files per case, "
                                             f"with {out / 'index.html'} to open"]))
    written = report_files.write_all(outcomes, k, out)
    failed = [o for o in outcomes if o.error is not None]
    for o in failed:
        core.error(o.error)
    results = [_written(o, out) for o in outcomes]
    errors = [e for o in failed for e in core.error_dicts(o.error, str(o.path))]
    said = f"wrote {len(written)} files to {out}/ (open {out / 'index.html'})"
    writers.emit(writers.Output(results, {"cases": len(outcomes), "written": len(written),
                                          "refused": len(failed)}, errors,
                                text=lambda: writers.text.lines([said]), in_place=True), fmt)
    exit_with(core.EXIT_BAD_INPUT if failed else core.EXIT_OK)


def _outcome(item: Path | RegimeError, k, engine: str, beneath, trace: Path | None, rules: list[Path],
             sets: list[str]):
    """One case's api.Outcome: diagnosed (with --set, as the changed case), or why not."""
    from regime.engine.api import Outcome
    if isinstance(item, RegimeError):
        return Outcome(Path(item.file or "?"), error=item)
    if not sets:
        return core.outcome(item, k, engine, beneath)
    try:
        return Outcome(item, diagnosis=core.diagnosis(item, k, engine, trace, rules, sets))
    except RegimeError as err:
        return Outcome(item, error=err.located(file=str(item)))


def _written(o, out: Path) -> dict[str, Any]:
    """One case's result: where its files are, or why it was refused (as diagnose says it)."""
    from regime.engine.report import output
    if o.error is not None:
        return output.refused_entry(o.error, str(o.path))
    case = o.diagnosis.case
    files = [out / f"{case}.{ext}" for ext in ("html", "md", "png", "json")]
    return {"case": case, "file": str(o.path), "files": [str(f) for f in files if f.exists()]}


def sweep(
    case: CaseArg,
    vary: Annotated[str, typer.Option("--vary", metavar="NAME=LOW..HIGH",
                                      help="The fact to vary and its range, e.g. batch=1..512.")],
    chart: Annotated[Path | None, typer.Option(
        "--chart", metavar="FILE", help="Write the chart here (.svg or .png).")] = None,
    fmt: FormatOpt = core.FORMAT.default,
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
    writers.emit(writers.Output([data], {"points": len(data.get("points", []))},
                                text=lambda: _sweep_text(result), markdown=lambda: _sweep_markdown(result)),
                 value(fmt))


def _sweep_text(result) -> str:
    """The sweep's table and flips as the reader's terminal shows them."""
    import io

    from regime.engine.report import review_text
    buffer = io.StringIO()
    review_text.print_sweep(result, writers.text.Style.of(sys.stdout).console(buffer))
    return buffer.getvalue()


def _sweep_markdown(result) -> str:
    """The verdict at each point as a table, then where it flips."""
    from regime.engine.report import display
    md = writers.markdown
    rows = ([f"{p.value:g}", display.category(p.regime), display.category(p.nominal),
             p.fixes[0] if p.fixes else "—", len(p.fixes), p.ceiling_text] for p in result.points)
    flips = [f"{result.fact} {f.before.value:g} → {f.after.value:g}: {'; '.join(f.what)}"
             for f in result.flips]
    return (md.heading(f"{result.case}: {result.fact} swept")
            + md.table((result.fact, "regime", "nominal", "top fix", "fixes", "ceiling"), rows)
            + md.heading("Where the verdict flips", 2) + md.bullets(flips or ["nowhere in this range"]))
