"""The import structure beyond what import-linter holds.

The layers themselves are an import-linter `layers` contract in pyproject.toml (`make test` runs
`lint-imports`; test_the_layer_contract_is_kept runs it here too, so a plain pytest run sees a
break). What a layers contract cannot say is held here: no module imports itself back through
others, and the folders that regime/'s links expose (engine/, core/, facts/) are importable under
one name only, `regime.*`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from conftest import ROOT

GRAPH = grimp.build_graph("regime")
MODULES = sorted(m for m in GRAPH.modules if not m.startswith("regime.durable"))
LINKED = ("core", "engine", "facts", "rules", "cases")


@pytest.mark.e2e
def test_the_layer_contract_is_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]


def test_no_import_cycles():
    seen: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(m: str, path: list[str]) -> None:
        seen[m] = 1
        for n in sorted(GRAPH.find_modules_directly_imported_by(m)):
            if n == "regime" or n.startswith("regime.durable"):
                continue  # the root facade (lazy regime.grade) and the vendored engine
            if seen.get(n) == 1:
                cycles.append([*path[path.index(n):], n])
            elif n not in seen:
                visit(n, [*path, n])
        seen[m] = 2

    for m in MODULES:
        if m not in seen and m != "regime":
            visit(m, [m])
    assert cycles == []


@pytest.mark.parametrize("folder", LINKED)
def test_each_linked_folder_is_regime_s(folder):
    link = ROOT / "regime" / folder
    assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve()


@pytest.mark.e2e
@pytest.mark.parametrize("folder", ["core", "engine", "facts"])
def test_a_linked_folder_never_loads_as_a_top_level_package(folder):
    """From the checkout's root `import engine` would find the folder; its __init__ refuses, so
    no module is ever loaded twice under two names (two Knowledge classes, two caches)."""
    done = subprocess.run([sys.executable, "-c", f"import {folder}"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode != 0 and f"import regime.{folder}" in done.stderr


@pytest.mark.e2e
def test_the_package_imports_no_top_level_twin():
    done = subprocess.run([sys.executable, "-c", "import sys, regime, regime.engine.cli.app; regime.grade; "
                           "print(sorted(m for m in sys.modules if m.split('.')[0] in "
                           f"{set(LINKED)!r}))"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_every_package_folder_is_shipped():
    """pyproject.toml lists the packages setuptools builds (include-package-data is off): a new
    folder of modules left out of the list imports here and is missing from the wheel."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
                 ["tool"]["setuptools"]["packages"])
    found = {"regime." + ".".join(init.parent.relative_to(ROOT).parts)
             for folder in ("core", "engine", "facts") for init in (ROOT / folder).rglob("__init__.py")}
    assert found - listed == set()
