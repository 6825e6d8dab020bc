"""The shared options as typer parameters, built from cli/core.py's specs: one declaration of
each, reused by every command (Semgrep's pattern), so `--rules` or `--jobs` cannot drift."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from regime.engine.cli import core


def option(opt: core.Opt, **extra: Any) -> Any:
    """A typer.Option for `opt`: its flags, help and metavar (flags show no value)."""
    return typer.Option(*opt.flags, help=extra.pop("help", opt.help), metavar=opt.metavar, **extra)


def choices(opt: core.Opt) -> type[Enum]:
    """An enum of the option's choices (typer lists them in help and completes them)."""
    # mypy cannot see it: Enum's functional form returns the new class, typed as an instance
    return Enum(opt.dest.title(), {c: c for c in opt.choices}, type=str)  # type: ignore[return-value]


def value(v: Any) -> Any:
    """A plain value for the core: an enum member's string, a tuple for a repeated option."""
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, list):
        return tuple(v)
    return v


Engine = choices(core.ENGINE)
DiagnoseFormat = choices(core.DIAGNOSE_FORMAT)
Format = choices(core.FORMAT)

CasesArg = Annotated[list[Path] | None, typer.Argument(help=core.CASES_HELP, metavar="CASE",
                                                         show_default=False)]
CaseArg = Annotated[Path, typer.Argument(help=core.CASE_HELP, metavar="CASE")]
RulesOpt = Annotated[list[Path] | None, option(core.RULES)]
JobsOpt = Annotated[int, option(core.JOBS, min=0)]
SchedulerOpt = Annotated[str | None, option(core.SCHEDULER, show_default=False)]
# mypy cannot see them: these enums are classes built at import from core's choices (typer
# needs a class to list and complete them), and a variable is not a type to mypy.
EngineOpt = Annotated[Engine, option(core.ENGINE)]  # type: ignore[valid-type]
TraceOpt = Annotated[Path | None, option(core.TRACE)]
SetOpt = Annotated[list[str] | None, option(core.SET)]
QuietOpt = Annotated[bool, option(core.QUIET)]
FullOpt = Annotated[bool, option(core.FULL)]
FormatOpt = Annotated[Format, option(core.FORMAT)]  # type: ignore[valid-type]  # as EngineOpt
DiagnoseFormatOpt = Annotated[DiagnoseFormat, option(core.DIAGNOSE_FORMAT)]  # type: ignore[valid-type]  # as EngineOpt


def exit_with(code: int) -> None:
    """Leave with `code` unless it is success."""
    if code:
        raise typer.Exit(code)
