"""`regime trace TRACE`: measure a Kineto trace and write the facts as a case file."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core
from regime.engine.cli.options import JobsOpt, RulesOpt


class CaseFormat(StrEnum):
    yaml = "yaml"
    json = "json"


def trace(
    traces: Annotated[list[Path], typer.Argument(
        metavar="TRACE", help="Kineto trace(s): .json or .json.gz; several, or a folder, are the ranks "
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
) -> None:
    """Measure a PyTorch profiler (Kineto) trace; write what it measures as a case file."""
    if len(traces) > 1 or traces[0].is_dir():
        _ranks(traces, jobs, rules, max_bytes, output, fmt)
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
        sys.stderr.write(f"note: {trace_file}: {finding.because}\n")
    if output is not None:
        mapping.pop("id")  # a case file's id is its file name, as for every other case
    text = (json.dumps(mapping, indent=2, ensure_ascii=False) + "\n" if fmt is CaseFormat.json
            else case_out.to_yaml(mapping))
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        raise typer.Exit(core.refuse(RegimeError(str(err.strerror), file=str(output)))) from None
    sys.stderr.write(f"wrote {output}: {len(mapping['facts'])} facts measured from {trace_file}\n")


def _ranks(traces: list[Path], jobs: int, rules: list[Path] | None, max_bytes: float | None,
           output: Path | None, fmt: CaseFormat) -> None:
    from regime.engine.trace import case_out
    from regime.engine.trace.ranks import fleet_report
    report, errors = fleet_report(traces, jobs, rules, max_bytes)
    for err in errors:
        core.error(err)
    text = (json.dumps(report, indent=2, ensure_ascii=False) + "\n" if fmt is CaseFormat.json
            else case_out.to_yaml(report))
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
    if errors:
        raise typer.Exit(core.EXIT_BAD_INPUT)
