"""The import layers hold: core <- facts <- engine.lang <- knowledge <- engine.run <- services and
reports <- trace and grading <- the CLI. A module imports only from its own layer or below, and
no two packages import each other. (An AST walk, so lazy imports inside functions count too.)

Layers are named by module path patterns, lowest first; a new module lands in the layer of the
first pattern it matches. The root package `regime` is a facade (its `__version__` and the
lazily imported `regime.grade`) and stands outside the layers.
"""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

import pytest
from conftest import ROOT

FOLDERS = {"core": "regime.core", "facts": "regime.facts", "engine": "regime.engine"}

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("regime.core", "regime.core.*")),
    ("facts", ("regime.facts", "regime.facts.*")),
    ("lang", ("regime.engine.lang", "regime.engine.lang.*")),
    ("knowledge", ("regime.engine", "regime.engine.knowledge", "regime.engine.packs",
                   "regime.engine.paths", "regime.engine.version", "regime.engine.report.spec",
                   "regime.engine.report.spec_types")),  # a pack's report: section, compiled on load
    ("run", ("regime.engine.run", "regime.engine.run.*")),
    # the grade/exercise and trace commands are CLI modules that live beside what they run
    ("cli", ("regime.engine.cli", "regime.engine.cli.*", "regime.engine.grading.cli",
             "regime.engine.trace.command")),
    ("commands", ("regime.engine.trace", "regime.engine.trace.*", "regime.engine.grading",
                  "regime.engine.grading.*")),
    ("services", ("regime.engine.*",)),  # api, explain, packtest, lint, batch, reports, ...
]
ORDER = ["core", "facts", "lang", "knowledge", "run", "services", "commands", "cli"]


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [FOLDERS[rel.parts[0]], *rel.parts[1:]]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))}


def layer(module: str) -> str:
    return next(name for name, patterns in LAYERS if any(fnmatch.fnmatch(module, p) for p in patterns))


def imports(path: Path) -> set[str]:
    """Modules of this package that `path` imports (a `from P import m` of a submodule names m)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("regime."):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in MODULES else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("regime."))
    return {m for m in out if m in MODULES}


GRAPH = {m: imports(p) - {m} for m, p in MODULES.items()}


def test_every_module_has_a_layer_and_the_patterns_are_in_order():
    assert [name for name, _ in LAYERS if name not in ORDER] == []
    assert {layer(m) for m in MODULES} <= set(ORDER)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_from_its_layer_or_below(module):
    rank = ORDER.index(layer(module))
    above = sorted(f"{m} ({layer(m)})" for m in GRAPH[module] if ORDER.index(layer(m)) > rank)
    assert above == [], f"{module} ({layer(module)}) imports from a higher layer"


def _unit(module: str) -> str:
    """core and facts are one unit each; in engine, each sub-package or top-level module is, split
    by layer where a package spans two (a pack's report: section compiles in the knowledge layer)."""
    parts = module.split(".")
    return f"{'.'.join(parts[:3] if parts[1] == 'engine' else parts[:2])}[{layer(module)}]"


# Pairs of units that import each other for now, each with the reason and the way out.
KNOWN_MUTUAL: dict[tuple[str, str], str] = {
    ("regime.engine.report[services]", "regime.engine.whatif[services]"):
        "report.review_text.what_if runs what-ifs (whatif), which build report models (report.model, "
        "report.display); moving what_if out of review_text (to the review CLI or whatif) ends it",
}


def test_no_two_packages_import_each_other():
    """Below the CLI, whose modules (moving to engine/cli/) register commands with each other."""
    edges = {(_unit(a), _unit(b)) for a, outs in GRAPH.items() for b in outs
             if _unit(a) != _unit(b) and "cli" not in (layer(a), layer(b))}
    mutual = sorted((a, b) for a, b in edges if (b, a) in edges and a < b and (a, b) not in KNOWN_MUTUAL)
    assert mutual == []


def test_no_import_cycles_below_the_cli():
    """The CLI's own modules (moving to engine/cli/) register commands with each other."""
    seen: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(m: str, path: list[str]) -> None:
        seen[m] = 1
        for n in sorted(GRAPH[m]):
            if layer(n) == "cli":
                continue
            if seen.get(n) == 1:
                cycles.append([*path[path.index(n):], n])
            elif n not in seen:
                visit(n, [*path, n])
        seen[m] = 2

    for m in sorted(MODULES):
        if m not in seen and layer(m) != "cli":
            visit(m, [m])
    assert cycles == []
