"""`regime trace TRACE`: measure a profiler's output (any format detect.py knows) and write the
facts as a case file."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.core.escape import one_line
from regime.engine.cli import core
from regime.engine.cli.options import JobsOpt, RulesOpt, SchedulerOpt


class CaseFormat(StrEnum):
    yaml = "yaml"
    json = "json"


def trace(
    traces: Annotated[list[Path], typer.Argument(
        metavar="TRACE", help="Profiler output(s), recognised by content: a Kineto trace (.json, .json.gz), "
        "an Nsight Systems SQLite export, a rocprofv3 JSON, rocpd database or kernel_trace.csv, an nsys "
        "stats or ncu --csv report; several, or a folder, are the ranks "
        "of one job, compared.")],
    hardware: Annotated[str | None, typer.Option(
        "--hardware", metavar="GPU",
        help="Catalogue GPU (default: the trace's deviceProperties name if it matches).")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", metavar="MODEL", help="Catalogue model.")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", "--out", metavar="FILE",
                                                     help="Write the case to this file (one file).")] = None,
    fmt: Annotated[CaseFormat, typer.Option("--format", "-f", help="Case file format.")] = CaseFormat.yaml,
    rules: RulesOpt = None,
    max_bytes: Annotated[float | None, typer.Option(
        "--max-bytes", metavar="BYTES",
        help="Refuse traces that decompress to more than this many bytes.")] = None,
    jobs: JobsOpt = 1,
    scheduler: SchedulerOpt = None,
) -> None:
    """Measure a profiler's output (Kineto, Nsight Systems, rocprofv3, Nsight Compute); write what it
    measures as a case file."""
    try:
        address = core.scheduler(scheduler)  # one trace is one unit: it is measured here
    except RegimeError as err:
        raise typer.Exit(core.refuse(err)) from None
    if len(traces) > 1 or traces[0].is_dir():
        _ranks(traces, jobs, rules, max_bytes, output, fmt, address)
        return
    trace_file = traces[0]
    from regime.engine import api  # imported here: the other commands start without them
    from regime.engine.trace import case_out
    from regime.engine.trace.merge import trace_case, trace_findings
    try:
        k = api.knowledge(rules or [])
        mapping, _ = trace_case(trace_file, k, rules, hardware, model, max_bytes)
    except RegimeError as err:
        raise typer.Exit(core.refuse(err)) from None
    for finding in trace_findings(mapping):
        sys.stderr.write(f"note: {one_line(str(trace_file))}: {one_line(finding.because)}\n")
    if output is not None:
        mapping.pop("id")  # a case file's id is its file name, as for every other case
    text = (json.dumps(mapping, indent=2, ensure_ascii=False) + "\n" if fmt is CaseFormat.json
            else case_out.to_yaml(mapping))
    if output is None:
        sys.stdout.write(text)
        return
    _write(output, text)
    sys.stderr.write(f"wrote {output}: {len(mapping['facts'])} facts measured from {trace_file}\n")


def _ranks(traces: list[Path], jobs: int, rules: list[Path] | None, max_bytes: float | None,
           output: Path | None, fmt: CaseFormat, scheduler: str | None) -> None:
    from regime.engine.trace import case_out
    from regime.engine.trace.ranks import fleet_report
    if output is not None and not output.parent.is_dir():  # before the ranks are measured
        _write(output, "")
    try:
        report, errors = fleet_report(traces, jobs, rules, max_bytes, scheduler)
    except RegimeError as err:  # a bad --rules layer, or a cluster that cannot be used
        raise typer.Exit(core.refuse(err)) from None
    for bad in errors:
        core.error(bad)
    text = (json.dumps(report, indent=2, ensure_ascii=False) + "\n" if fmt is CaseFormat.json
            else case_out.to_yaml(report))
    if output is None:
        sys.stdout.write(text)
    else:
        _write(output, text)
    if errors:
        raise typer.Exit(core.EXIT_BAD_INPUT)


def _write(output: Path, text: str) -> None:
    """Write the case or report; a path that cannot be written is a one-line error, exit 2."""
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        raise typer.Exit(core.refuse(RegimeError(str(err.strerror or err), file=str(output)))) from None
