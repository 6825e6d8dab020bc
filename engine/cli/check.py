"""`regime check`: load the packs (built-in plus --rules), then lint them."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core
from regime.engine.cli.options import RulesOpt, TextOrJsonOpt, exit_with, value

CodesOpt = Annotated[list[str] | None, typer.Option(
    metavar="CODE", help="Codes or prefixes (RG001, RG00). Repeatable.")]


def check(
    rules: RulesOpt = None,
    select: CodesOpt = None,
    ignore: CodesOpt = None,
    codes: Annotated[bool, typer.Option("--codes", help="List the lint codes and exit.")] = False,
    fmt: TextOrJsonOpt = core.TEXT_OR_JSON.default,
) -> None:
    """Validate the packs (built-in plus --rules) and lint them: errors first, then warnings."""
    from regime.engine.authoring import lint, packtest  # the linter loads pint: only `check` pays for it
    from regime.engine.knowledge.paths import RULES_DIR, builtin_cases
    if codes:
        for c in lint.CODES.values():
            sys.stdout.write(f"{c.code} {c.severity:<7} {c.name}: {c.summary}\n")
        return
    pick = _split(select)
    drop = _split(ignore)
    try:
        k = core.knowledge(rules or [])
    except RegimeError as err:  # the loader's refusal; RG002/RG006/RG007 carry their code
        exit_with(core.refuse(err, value(fmt)))
        return
    inputs = [*builtin_cases(), *packtest.test_files([RULES_DIR, *packtest.layers_for(rules or [])])]
    found = [f for f in lint.lint(k, inputs) if lint.selected(f.code, pick, drop)]
    for f in found:
        sys.stdout.write(f"{f}\n")
    errors = sum(f.severity == "error" for f in found)
    if value(fmt) == "json":
        results = [{"code": f.code, "severity": f.severity, "file": f.file, "line": f.line, "rule": f.rule,
                    "message": f.message} for f in found]
        sys.stdout.write(core.envelope(results, [], {"errors": errors, "warnings": len(found) - errors,
                                                     "rules": len(k.rules)}))
        exit_with(core.EXIT_FAILED if errors else core.EXIT_OK)
        return
    if not found:
        kinds: dict[str, int] = {}
        for r in k.rules:
            kinds[r.kind] = kinds.get(r.kind, 0) + 1
        summary = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        sys.stdout.write(f"ok: {len(k.packs)} packs, {len(k.rules)} rules ({summary}), "
                         f"{len(k.parameters)} parameters, {len(k.levers)} levers, {len(k.claims)} claims\n")
    else:
        sys.stdout.write(f"{errors} error(s), {len(found) - errors} warning(s)\n")
    exit_with(core.EXIT_FAILED if errors else core.EXIT_OK)


def _split(values: list[str] | None) -> list[str]:
    from regime.engine.authoring import lint
    out = [v.strip() for item in values or [] for v in item.split(",") if v.strip()]
    unknown = [v for v in out if not any(c.startswith(v.upper()) for c in lint.CODES)]
    if unknown:
        exit_with(core.refuse(f"unknown lint code '{unknown[0]}' (see regime check --codes)"))
    return out
