"""`regime`: diagnose cases, check packs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.engine import api, explain, lint_cli, list_cli, packtest_cli, review_cli, schema_cli
from regime.engine.grading import cli as grading_cli
from regime.engine.trace import command as trace_command

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Diagnose why a GPU ML workload runs as fast as it does.")
EXIT_BAD_INPUT = 2


RulesOpt = Annotated[list[Path] | None, typer.Option(
    "--rules", help="Extra pack directory or file (site packs, overrides). Repeatable.")]


def _error(message: object) -> None:
    """Errors go to stderr unwrapped, one per line, so they can be grepped and parsed; an input
    with several mistakes gets a line for each."""
    for one in message.all() if isinstance(message, RegimeError) else [message]:
        sys.stderr.write(f"error: {one}\n")


def _knowledge(rules: list[Path] | None):
    try:
        k = api.knowledge(rules or [])
        api.runner(k)  # compile to durable-rules now, so its limits surface as pack errors
        return k
    except RegimeError as err:
        _error(err)
        raise typer.Exit(EXIT_BAD_INPUT) from None


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True,
                               "help_option_names": []})
def diagnose(ctx: typer.Context) -> None:
    """Diagnose cases or directories of them, streamed in order (`regime diagnose --help`)."""
    from regime.engine import diagnose_cli  # the command's own parser: see regime.engine.entry
    raise typer.Exit(diagnose_cli.main(ctx.args))


@app.command()
def why(
    case: Annotated[Path, typer.Argument(help="Case file.")],
    subject: Annotated[str, typer.Argument(help="Rule id, lever, claim, finding id or fact name.")],
    rules: RulesOpt = None,
) -> None:
    """Why (or why not) a conclusion: each rule about SUBJECT, clause by clause, on CASE's facts."""
    k = _knowledge(rules)
    try:
        about = explain.rules_about(subject, k)
        d = api.diagnose(case, k)
    except RegimeError as err:
        _error(err)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    for rule in about:
        sys.stdout.write("\n".join(explain.explain(rule, d, k)) + "\n\n")


app.command(name="trace")(trace_command.trace)


def _print_version(value: bool) -> None:
    if value:
        from regime.engine.version import version_text

        sys.stdout.write(version_text())
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the package, the built-in packs' versions and the durable-rules build.")] = False,
) -> None:
    """Diagnose why a GPU ML workload runs as fast as it does."""


grading_cli.register(app)
app.command("test")(packtest_cli.test)
app.command("check")(lint_cli.check)
app.command("list")(list_cli.list_)
app.command("schema")(schema_cli.schema)
app.command()(review_cli.report)
app.command()(review_cli.sweep)


def main() -> None:
    from regime.engine.entry import main as entry
    entry()


if __name__ == "__main__":
    main()
