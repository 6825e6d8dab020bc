"""`regime test [DIR...]`: run the pack tests beside the packs and report rule coverage."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from regime.core.errors import RegimeError
from regime.engine.cli import core, writers
from regime.engine.cli.options import FormatOpt, RulesOpt, exit_with, value


def test(
    dirs: Annotated[list[Path] | None, typer.Argument(
        metavar="DIR", show_default=False,
        help="Layer directories (or *.test.yaml files) whose tests to run. Default: the --rules "
             "layers', else the built-in packs'.")] = None,
    rules: RulesOpt = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List passing tests too.")] = False,
    fmt: FormatOpt = core.FORMAT.default,
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
    live = value(fmt) == "text"  # text shows each failure as it comes
    results, bad, errors = [], 0, []
    for path in files:
        try:
            for result in packtest.run_file(path, k):
                results.append(result)
                if live:
                    sys.stdout.write(_result_text(result, verbose))
        except RegimeError as err:
            bad += 1
            core.error(err.located(file=str(path)))
            errors.extend(core.error_dicts(err, str(path)))
    tested = {packtest.layer_name(d.parent if d.is_file() else d) for d in given}
    n, total, missing = packtest.coverage(results, [r for r in k.rules if r.layer in tested])
    failed = sum(1 for r in results if not r.ok)
    rows = [{"name": r.name, "file": str(r.file), "line": r.line, "ok": r.ok,
             "failures": list(r.failures)} for r in results]
    counts = {"passed": len(results) - failed, "failed": failed, "refused": bad, "files": len(files),
              "rules_fired": n, "rules": total}
    writers.emit(writers.Output(rows, counts, errors, text=lambda: _summary(counts, missing),
                                markdown=lambda: _markdown(rows, counts, missing, verbose)), value(fmt))
    if bad:
        exit_with(core.EXIT_BAD_INPUT)
    exit_with(core.EXIT_FAILED if failed or not files else core.EXIT_OK)


def _summary(counts: dict[str, int], missing: list[str]) -> str:
    from regime.engine.cli.writers import text
    lines = [f"rules fired by tests: {counts['rules_fired']}/{counts['rules']}"]
    if missing:
        lines.append(f"not fired by any test: {', '.join(missing)}")
    refused = f", {counts['refused']} file(s) refused (see their error: lines)" if counts["refused"] else ""
    lines.append(f"{counts['passed']} passed, {counts['failed']} failed{refused}, {counts['files']} file(s)")
    return text.lines(lines)


def _result_text(result, verbose: bool) -> str:
    from regime.engine.cli.writers import text
    where = f"{result.file}:{result.line or 0}"
    if result.ok:
        return text.lines([f"PASS {where} {result.name}"]) if verbose else ""
    return text.lines([f"FAIL {where} {result.name}", *(f"  {line}" for line in result.failures)])


def _markdown(rows: list[dict], counts: dict[str, int], missing: list[str], verbose: bool) -> str:
    """The counts, the rules no test fires, and the failing tests (every test with --verbose)."""
    from regime.engine.cli.writers import markdown
    out = markdown.heading(f"regime test: {counts['passed']} passed, {counts['failed']} failed")
    out += markdown.bullets([f"rules fired by tests: {counts['rules_fired']}/{counts['rules']}",
                             *([f"not fired by any test: {', '.join(missing)}"] if missing else [])])
    shown = [r for r in rows if verbose or not r["ok"]]
    if shown:
        out += markdown.table(("test", "where", "result", "failures"),
                              ([r["name"], f"{r['file']}:{r['line'] or 0}", "pass" if r["ok"] else "FAIL",
                                "; ".join(r["failures"])] for r in shown))
    return out
