"""`regime`: diagnose cases, check packs."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from regime.core.errors import RegimeError
from regime.engine import api, explain, report
from regime.engine.paths import builtin_cases
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Diagnose why a GPU ML workload runs as fast as it does.")
EXIT_BAD_INPUT = 2


class Format(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"


RulesOpt = Annotated[list[Path] | None, typer.Option(
    "--rules", help="Extra pack directory or file (site packs, overrides). Repeatable.")]


def _error(message: object) -> None:
    """Errors go to stderr unwrapped, one per line, so they can be grepped and parsed."""
    sys.stderr.write(f"error: {message}\n")


def _knowledge(rules: list[Path] | None):
    try:
        k = api.knowledge(rules or [])
        api.runner(k)  # compile to durable-rules now, so its limits surface as pack errors
        return k
    except RegimeError as err:
        _error(err)
        raise typer.Exit(EXIT_BAD_INPUT) from None


@app.command()
def diagnose(
    cases: Annotated[list[Path] | None, typer.Argument(
        help="Case files. Default: every built-in case.")] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.text,
    rules: RulesOpt = None,
) -> None:
    """Diagnose each case: regime, evidence, fixes in priority order, rejections, next measurements."""
    k = _knowledge(rules)
    paths = cases or builtin_cases()
    outcomes = api.diagnose_all(paths, k)
    done = [o.diagnosis for o in outcomes if o.diagnosis is not None]
    if fmt is Format.json:
        items = [report.to_dict(d, k) for d in done]
        if len(paths) > 1 or done:  # one case argument: an object; several: always an array
            sys.stdout.write(report.to_json(items, single=len(paths) == 1))
    elif fmt is Format.markdown:
        sys.stdout.write("\n".join(report.to_markdown(d, k) for d in done))
    else:
        console = Console(highlight=False)
        for d in done:
            report.print_text(d, k, console)
    failed = [o for o in outcomes if o.error is not None]
    for o in failed:
        _error(o.error)
    if failed:
        sys.stderr.write(f"{len(failed)} of {len(outcomes)} case(s) could not be diagnosed\n")
        raise typer.Exit(EXIT_BAD_INPUT)


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


@app.command()
def check(rules: RulesOpt = None) -> None:
    """Validate the packs (built-in plus --rules) without running a case."""
    k = _knowledge(rules)
    kinds: dict[str, int] = {}
    for r in k.rules:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    Console(highlight=False).print(
        f"ok: {len(k.packs)} packs, {len(k.rules)} rules ({summary}), {len(k.parameters)} parameters, "
        f"{len(k.levers)} levers, {len(k.claims)} claims")


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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
