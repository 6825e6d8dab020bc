"""`regime test [DIR...]`: run the pack tests beside the packs and report rule coverage."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core
from regime.engine.cli.options import RulesOpt, TextOrJsonOpt, exit_with, value


def test(
    dirs: Annotated[list[Path] | None, typer.Argument(
        metavar="DIR", show_default=False,
        help="Layer directories (or *.test.yaml files) whose tests to run. Default: the --rules "
             "layers', else the built-in packs'.")] = None,
    rules: RulesOpt = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List passing tests too.")] = False,
    fmt: TextOrJsonOpt = core.TEXT_OR_JSON.default,
) -> None:
    """Run pack tests (*.test.yaml): each case's expected conclusions, with coverage of the rules.
    --rules layers are loaded as for every command, and their tests run when no DIR is given."""
    from regime.engine.authoring import packtest  # its pydantic models: only `test` builds them
    given = dirs or rules or packtest.default_dirs()
    try:
        layers = list(dict.fromkeys([*(rules or []), *packtest.layers_for(given)]))
        k = core.knowledge(layers)
        files = packtest.test_files(given)
    except RegimeError as err:
        exit_with(core.refuse(err, value(fmt)))
        return
    text = value(fmt) == "text"
    results, bad, errors = [], 0, []
    for path in files:
        try:
            for result in packtest.run_file(path, k):
                results.append(result)
                if text:
                    _print(result, verbose)
        except RegimeError as err:
            bad += 1
            core.error(err.located(file=str(path)))
            errors.extend(core.error_dicts(err, str(path)))
    tested = {packtest.layer_name(d.parent if d.is_file() else d) for d in given}
    n, total, missing = packtest.coverage(results, [r for r in k.rules if r.layer in tested])
    failed = sum(1 for r in results if not r.ok)
    if not text:
        rows = [{"name": r.name, "file": str(r.file), "line": r.line, "ok": r.ok,
                 "failures": list(r.failures)} for r in results]
        sys.stdout.write(core.envelope(rows, errors, {
            "passed": len(results) - failed, "failed": failed, "refused": bad, "files": len(files),
            "rules_fired": n, "rules": total}))
    else:
        _summary(n, total, missing, len(results) - failed, failed, bad, len(files))
    if bad:
        exit_with(core.EXIT_BAD_INPUT)
    exit_with(core.EXIT_FAILED if failed or not files else core.EXIT_OK)


def _summary(n: int, total: int, missing: list[str], passed: int, failed: int, bad: int, files: int) -> None:
    out = sys.stdout
    out.write(f"rules fired by tests: {n}/{total}\n")
    if missing:
        out.write(f"not fired by any test: {', '.join(missing)}\n")
    refused = f", {bad} file(s) refused (see their error: lines)" if bad else ""
    out.write(f"{passed} passed, {failed} failed{refused}, {files} file(s)\n")


def _print(result, verbose: bool) -> None:
    where = f"{result.file}:{result.line or 0}"
    if result.ok:
        if verbose:
            sys.stdout.write(f"PASS {where} {result.name}\n")
        return
    sys.stdout.write(f"FAIL {where} {result.name}\n")
    for line in result.failures:
        sys.stdout.write(f"  {line}\n")

