"""`regime test [DIR...]`: run the pack tests beside the packs and report rule coverage."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.engine import api, packtest

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def test(
    dirs: Annotated[list[Path] | None, typer.Argument(
        help="Layer directories (or *.test.yaml files) whose tests to run. Default: built-in packs.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List passing tests too.")] = False,
) -> None:
    """Run pack tests (*.test.yaml): each case's expected conclusions, with coverage of the rules."""
    given = dirs or packtest.default_dirs()
    try:
        layers = packtest.layers_for(given)
        k = api.knowledge(layers)
        api.runner(k)
        files = packtest.test_files(given)
    except RegimeError as err:
        _fail_input(err)
    results, bad = [], 0
    for path in files:
        try:
            for result in packtest.run_file(path, k):
                results.append(result)
                _print(result, verbose)
        except RegimeError as err:
            bad += 1
            sys.stderr.write(f"error: {err.located(file=str(path))}\n")
    tested = {packtest.layer_name(layer) for layer in layers} or {"built-in"}
    n, total, missing = packtest.coverage(results, [r for r in k.rules if r.layer in tested])
    failed = sum(1 for r in results if not r.ok)
    out = sys.stdout
    out.write(f"rules fired by tests: {n}/{total}\n")
    if missing:
        out.write(f"not fired by any test: {', '.join(missing)}\n")
    out.write(f"{len(results) - failed} passed, {failed} failed, {len(files)} file(s)\n")
    if bad:
        raise typer.Exit(EXIT_BAD_INPUT)
    if failed or not files:
        raise typer.Exit(EXIT_FAILED)


def _print(result: packtest.Result, verbose: bool) -> None:
    where = f"{result.file}:{result.line or 0}"
    if result.ok:
        if verbose:
            sys.stdout.write(f"PASS {where} {result.name}\n")
        return
    sys.stdout.write(f"FAIL {where} {result.name}\n")
    for line in result.failures:
        sys.stdout.write(f"  {line}\n")


def _fail_input(err: RegimeError) -> None:
    sys.stderr.write(f"error: {err}\n")
    raise typer.Exit(EXIT_BAD_INPUT)
