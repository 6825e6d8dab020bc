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
from regime.engine.cli import core, writers
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
    fmt: Annotated[CaseFormat, typer.Option("--format", "-f", help=(
        "yaml: the case file; json: the case as JSON in the file -o names, and on stdout the "
        "envelope every command writes (the case its one result)."))] = CaseFormat.yaml,
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
        raise typer.Exit(core.refuse(err, fmt.value)) from None
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
        raise typer.Exit(core.refuse(err, fmt.value)) from None
    for finding in trace_findings(mapping):
        sys.stderr.write(f"note: {one_line(str(trace_file))}: {one_line(finding.because)}\n")
    if output is not None:
        mapping.pop("id")  # a case file's id is its file name, as for every other case
        _write(output, _case_text(mapping, fmt), fmt)
        sys.stderr.write(one_line(f"wrote {output}: {len(mapping['facts'])} facts measured from {trace_file}")
                         + "\n")
    if fmt is CaseFormat.json:
        writers.emit(writers.Output([mapping], {"traces": 1, "facts": len(mapping["facts"])}), "json")
    elif output is None:
        sys.stdout.write(case_out.to_yaml(mapping))


def _case_text(mapping: dict, fmt: CaseFormat) -> str:
    """The case file's text: YAML, or the same mapping as JSON (a case's format, not the envelope)."""
    from regime.engine.trace import case_out
    return json.dumps(mapping, indent=2, ensure_ascii=False) + "\n" if fmt is CaseFormat.json \
        else case_out.to_yaml(mapping)


def _ranks(traces: list[Path], jobs: int, rules: list[Path] | None, max_bytes: float | None,
           output: Path | None, fmt: CaseFormat, scheduler: str | None) -> None:
    from regime.engine.trace import case_out
    from regime.engine.trace.ranks import fleet_report
    if output is not None and not output.parent.is_dir():  # before the ranks are measured
        _write(output, "", fmt)
    try:
        report, errors = fleet_report(traces, jobs, rules, max_bytes, scheduler)
    except RegimeError as err:  # a bad --rules layer, or a cluster that cannot be used
        raise typer.Exit(core.refuse(err, fmt.value)) from None
    for bad in errors:
        core.error(bad)
    if output is not None:
        _write(output, _case_text(report, fmt), fmt)
    if fmt is CaseFormat.json:
        located = [e for bad in errors for e in core.error_dicts(bad)]
        counts = {"traces": len(traces), "refused": len(errors)}
        writers.emit(writers.Output([report], counts, located), "json")
    elif output is None:
        sys.stdout.write(case_out.to_yaml(report))
    if errors:
        raise typer.Exit(core.EXIT_BAD_INPUT)


def _write(output: Path, text: str, fmt: CaseFormat) -> None:
    """Write the case or report; a path that cannot be written is a one-line error, exit 2."""
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        raise typer.Exit(core.refuse(RegimeError(str(err.strerror or err), file=str(output)),
                                     fmt.value)) from None
