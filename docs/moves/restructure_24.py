"""The mechanical move of issue 24 (items 2-3), kept so it can be reviewed and replayed.

`python docs/moves/restructure_24.py` in a checkout from before the move `git mv`s each module
of MOVES and rewrites every import of it (`from OLD import x`, `from PARENT import old_name`,
`import OLD`) across the Python files of the repository, then lets ruff order the imports.
A branch that began before the move runs it once after rebasing to bring its own files along.
Files already moved are skipped, so a second run changes nothing.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDER = {"regime.core": "core", "regime.engine": "engine", "regime.facts": "facts"}

MOVES = {  # old module -> new module
    "regime.engine.knowledge": "regime.engine.knowledge.model",
    "regime.engine.packs": "regime.engine.knowledge.load",
    "regime.engine.knowledge_cache": "regime.engine.knowledge.cache",
    "regime.engine.paths": "regime.engine.knowledge.paths",
    "regime.engine.version": "regime.engine.knowledge.version",
    "regime.engine.report.spec": "regime.engine.knowledge.spec",
    "regime.engine.report.spec_types": "regime.engine.knowledge.spec_types",
    "regime.engine.lint": "regime.engine.authoring.lint",
    "regime.engine.packtest": "regime.engine.authoring.packtest",
    "regime.engine.schema": "regime.engine.authoring.schema",
    "regime.engine.grading.cli": "regime.engine.cli.grade",
    "regime.engine.trace.command": "regime.engine.cli.trace",
    "regime.engine.terminal": "regime.engine.report.terminal",
}
NEW_PACKAGES = {"regime.engine.knowledge": "The knowledge layer: packs read, checked, compiled and cached.",
                "regime.engine.authoring": "Tools for pack authors: lint, pack tests, JSON schemas."}


def path_of(module: str) -> Path:
    top = ".".join(module.split(".")[:2])
    return ROOT / FOLDER[top] / Path(*module.split(".")[2:]).with_suffix(".py")


def move_files() -> None:
    # the module regime.engine.knowledge becomes a package of the same name: move it aside first
    for old, new in MOVES.items():
        src, dst = path_of(old), path_of(new)
        if src.exists() and not dst.exists():
            tmp = src.with_name(src.stem + "__moving.py") if old in NEW_PACKAGES else src
            if tmp != src:
                subprocess.run(["git", "mv", str(src), str(tmp)], cwd=ROOT, check=True)
            dst.parent.mkdir(parents=True, exist_ok=True)
            init = dst.parent / "__init__.py"
            pkg = ".".join(new.split(".")[:-1])
            if not init.exists() and pkg in NEW_PACKAGES:
                init.write_text(f'"""{NEW_PACKAGES[pkg]}"""\n', encoding="utf-8")
                subprocess.run(["git", "add", str(init)], cwd=ROOT, check=True)
            subprocess.run(["git", "mv", str(tmp), str(dst)], cwd=ROOT, check=True)


def _alias(name: str, asname: str | None) -> str:
    return f"{name} as {asname}" if asname and asname != name else name


def rewrite(node: ast.ImportFrom | ast.Import) -> list[str] | None:
    """The import statements that replace `node`, or None when it names nothing that moved."""
    if isinstance(node, ast.Import):
        if not any(a.name in MOVES for a in node.names):
            return None
        return [f"import {MOVES.get(a.name, a.name)}" + (f" as {a.asname}" if a.asname else "")
                for a in node.names]
    mod = node.module or ""
    if node.level or not mod.startswith("regime"):
        return None
    if mod in MOVES:
        return [f"from {MOVES[mod]} import " + ", ".join(_alias(a.name, a.asname) for a in node.names)]
    groups: dict[str, list[str]] = {}
    changed = False
    for a in node.names:
        full = f"{mod}.{a.name}"
        if full in MOVES:
            parent, _, leaf = MOVES[full].rpartition(".")
            groups.setdefault(parent, []).append(_alias(leaf, a.asname or a.name))
            changed = True
        else:
            groups.setdefault(mod, []).append(_alias(a.name, a.asname))
    if not changed:
        return None
    return [f"from {parent} import {', '.join(names)}" for parent, names in groups.items()]


def rewrite_file(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    lines = text.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and (new := rewrite(node)) is not None:
            edits.append((node.lineno, node.end_lineno or node.lineno, node.col_offset, new))
    for start, end, col, new in sorted(edits, reverse=True):
        pad = " " * col
        tail = lines[end - 1][len(lines[end - 1].rstrip("\r\n")):] or "\n"
        comment = lines[end - 1].rstrip("\r\n").split(")")[-1] if "#" in lines[end - 1] else ""
        comment = comment[comment.index("#"):] if "#" in comment else ""
        body = [f"{pad}{s}" for s in new]
        if comment:
            body[-1] += "  " + comment
        lines[start - 1:end] = [b + tail for b in body]
    if edits:
        path.write_text("".join(lines), encoding="utf-8")
    return bool(edits)


def main() -> int:
    move_files()
    files = [p for p in ROOT.rglob("*.py")
             if not any(part.startswith(".") or part in {"vendor", "build", "regime"}
                        for part in p.relative_to(ROOT).parts[:-1])]
    changed = [p for p in files if rewrite_file(p)]
    print(f"{len(changed)} files rewritten")
    ruff = [sys.executable, "-m", "ruff", "check", "--select", "I", "--fix", "-q", str(ROOT)]
    subprocess.run(ruff, cwd=ROOT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
