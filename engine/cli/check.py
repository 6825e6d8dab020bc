"""`regime check`: load the packs (built-in plus --rules), then lint them."""

from __future__ import annotations

from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core, writers
from regime.engine.cli.options import FormatOpt, RulesOpt, exit_with, value

CodesOpt = Annotated[list[str] | None, typer.Option(
    metavar="CODE", help="Codes or prefixes (RG001, RG00). Repeatable.")]


def check(
    rules: RulesOpt = None,
    select: CodesOpt = None,
    ignore: CodesOpt = None,
    codes: Annotated[bool, typer.Option("--codes", help="List the lint codes and exit.")] = False,
    fmt: FormatOpt = core.FORMAT.default,
) -> None:
    """Validate the packs (built-in plus --rules) and lint them: errors first, then warnings."""
    from regime.engine.authoring import lint, packtest  # the linter loads pint: only `check` pays for it
    from regime.engine.knowledge.paths import RULES_DIR, builtin_cases
    if codes:
        listed = [{"code": c.code, "severity": c.severity, "name": c.name, "summary": c.summary}
                  for c in lint.CODES.values()]
        writers.emit(writers.Output(listed, {"codes": len(listed)}, text=lambda: _codes_text(listed)),
                     value(fmt))
        return
    pick = _split(select, value(fmt))
    drop = _split(ignore, value(fmt))
    try:
        k = core.knowledge(rules or [])
    except RegimeError as err:  # the loader's refusal; RG002/RG006/RG007 carry their code
        exit_with(core.refuse(err, value(fmt)))
        return
    inputs = [*builtin_cases(), *packtest.test_files([RULES_DIR, *packtest.layers_for(rules or [])])]
    found = [f for f in lint.lint(k, inputs) if lint.selected(f.code, pick, drop)]
    errors = sum(f.severity == "error" for f in found)
    results = [{"code": f.code, "severity": f.severity, "file": f.file, "line": f.line, "rule": f.rule,
                "message": f.message} for f in found]
    counts = {"errors": errors, "warnings": len(found) - errors, "rules": len(k.rules)}
    writers.emit(writers.Output(results, counts, text=lambda: _text(found, k, counts),
                                markdown=lambda: _markdown(results, counts)), value(fmt))
    exit_with(core.EXIT_FAILED if errors else core.EXIT_OK)


def _text(found: list, k, counts: dict[str, int]) -> str:
    """Each finding on its line, then the count; or what was loaded when nothing was found."""
    from regime.engine.cli.writers import text
    if found:
        return text.lines([*map(str, found), f"{counts['errors']} error(s), {counts['warnings']} warning(s)"])
    kinds: dict[str, int] = {}
    for r in k.rules:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    return text.lines([f"ok: {len(k.packs)} packs, {len(k.rules)} rules ({summary}), {len(k.parameters)} "
                       f"parameters, {len(k.levers)} levers, {len(k.claims)} claims"])


def _markdown(results: list[dict], counts: dict[str, int]) -> str:
    from regime.engine.cli.writers import markdown
    head = markdown.heading(f"regime check: {counts['errors']} error(s), {counts['warnings']} warning(s)")
    columns = ("code", "severity", "file", "line", "rule", "message")
    return head + (markdown.table(columns, ([r[c] for c in columns] for r in results)) if results else "")


def _codes_text(listed: list[dict]) -> str:
    from regime.engine.cli.writers import text
    return text.lines(f"{c['code']} {c['severity']:<7} {c['name']}: {c['summary']}" for c in listed)


def _split(values: list[str] | None, fmt: str) -> list[str]:
    from regime.engine.authoring import lint
    out = [v.strip() for item in values or [] for v in item.split(",") if v.strip()]
    unknown = [v for v in out if not any(c.startswith(v.upper()) for c in lint.CODES)]
    if unknown:
        exit_with(core.refuse(f"unknown lint code '{unknown[0]}' (see regime check --codes)", fmt))
    return out
