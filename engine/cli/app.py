"""`regime`: the typer app. Each command is a thin function over cli/core.py: the same case
references, shared options (cli/options.py), errors and exit codes everywhere. Help is plain
text in one style, every command ends with examples, and `--install-completion` covers all
of them (`regime diagnose` included: the shell's completion requests come here)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
import yaml

from regime.engine.cli import core
from regime.engine.cli.options import (
    CasesArg,
    DiagnoseFormatOpt,
    EngineOpt,
    FullOpt,
    JobsOpt,
    QuietOpt,
    RulesOpt,
    SchedulerOpt,
    SetOpt,
    TraceOpt,
    exit_with,
    value,
)

HELP = {"help_option_names": ["-h", "--help"]}


def _argument_type(self: typer.core.TyperArgument, ctx: object) -> str | None:
    """Help in words: an argument named by its metavar (CASE, MODEL) shows no Python type after
    it (typer would print `CASE <list[Path]>`); one without a metavar keeps its choices."""
    return None if self.metavar else typer.core.TyperArgument.display_type(self, ctx)  # type: ignore[arg-type]  # ctx is click's Context


typer.core.TyperArgument.display_type_rich = _argument_type  # type: ignore[method-assign,assignment]  # see _argument_type
app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, context_settings=HELP,
                  help="Diagnose why a GPU ML workload runs as fast as it does.")


EXAMPLES = yaml.safe_load(Path(__file__).with_name("examples.yaml").read_text(encoding="utf-8"))


def examples(command: str) -> str:
    """The end of a command's help: its examples (examples.yaml: data, not code), as written."""
    return "Examples:\n\n\b\n" + "\n".join(f"  {line}" for line in EXAMPLES[command])


@app.command(epilog=examples("diagnose"))
def diagnose(
    cases: CasesArg = None,
    fmt: DiagnoseFormatOpt = core.DIAGNOSE_FORMAT.default,
    rules: RulesOpt = None,
    engine: EngineOpt = core.ENGINE.default,
    trace: TraceOpt = None,
    sets: SetOpt = None,
    quiet: QuietOpt = False,
    full: FullOpt = False,
    jobs: JobsOpt = core.JOBS.default,
    scheduler: SchedulerOpt = None,
) -> None:
    """Diagnose each case: regime, evidence, fixes in priority order, rejections, next
    measurements. Default: every built-in case. Results stream in input order; a refused input
    is reported in its place (and as an 'error:' line on stderr), exit code 2."""
    from regime.engine.cli.diagnose import run_diagnose
    opts = {"refs": [str(c) for c in cases or ()], "format": value(fmt), "rules": value(rules or []),
            "engine": value(engine), "trace": trace, "set": list(sets or []), "quiet": quiet, "full": full,
            "jobs": jobs, "scheduler": scheduler}
    exit_with(run_diagnose(opts))


def _print_version(show: bool) -> None:
    if show:
        from regime.engine.knowledge.version import version_text

        sys.stdout.write(version_text())
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the package, the built-in packs' versions and the durable-rules build.")] = False,
) -> None:
    """Diagnose why a GPU ML workload runs as fast as it does."""


def _register() -> None:
    from regime.engine.cli import check, compare, init, listing, packtest, review, schema, why
    from regime.engine.cli import grade as grading_cli
    from regime.engine.cli import trace as trace_command

    commands: dict[str, Callable[..., None]] = {
        "why": why.why, "trace": trace_command.trace, "report": review.report, "sweep": review.sweep,
        "test": packtest.test, "check": check.check, "list": listing.list_,
        "schema": schema.schema, "grade": grading_cli.grade, "compare": compare.compare,
        "init": init.init}
    for name, command in commands.items():
        app.command(name, epilog=examples(name))(command)
    for info in grading_cli.exercise_app.registered_commands:
        info.epilog = examples(f"exercise {info.name}")
    app.add_typer(grading_cli.exercise_app, name="exercise")


_register()
