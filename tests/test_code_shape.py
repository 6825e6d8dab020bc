"""The shape the code keeps for the next engineer: modules short enough to read, type-check
exemptions that say why.

A module over LIMIT lines says in its docstring why it is one module ("over 400 lines
because ..."); every `# type: ignore` carries its reason on the same line or the comment line
above, so the next person can tell a checker's blind spot from a bug being hidden.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = ("core", "engine", "facts")
LIMIT = 400
_IGNORE = re.compile(r"#\s*type:\s*ignore(\[[^\]]*\])?(?P<after>.*)$")


def _modules() -> list[Path]:
    return sorted(p for d in PACKAGE_DIRS for p in (ROOT / d).rglob("*.py"))


def test_modules_were_found():
    assert len(_modules()) > 50


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_long_module_says_why_it_is_one(path):
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n")
    if lines <= LIMIT:
        return
    doc = ast.get_docstring(ast.parse(text)) or ""
    assert re.search(rf"(?<!not )over {LIMIT} lines", doc, re.I), (
        f"{path.relative_to(ROOT)} is {lines} lines: split it along a seam, or say in its docstring "
        f"why it is one module ('over {LIMIT} lines because ...')")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_type_ignore_says_why(path):
    bare = [f"{path.relative_to(ROOT)}:{line}" for line, ok in _type_ignores(path) if not ok]
    assert not bare, f"a type: ignore without its reason (same line, or a comment above): {bare}"


def _type_ignores(path: Path) -> list[tuple[int, bool]]:
    """(line, has a reason) for each `# type: ignore` comment (read as a comment, never inside a
    string): a reason is more comment text after it, or a comment line just above with words."""
    comments = {tok.start[0]: (tok.string, tok.line.strip().startswith("#"))
                for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
                if tok.type == tokenize.COMMENT}
    out = []
    for line, (text, _) in comments.items():
        m = _IGNORE.search(text)
        if not m:
            continue
        above, whole_line = comments.get(line - 1, ("", False))
        out.append((line, "#" in m["after"] or (whole_line and re.search(r"[A-Za-z]{3}", above) is not None)))
    return out


def test_the_type_ignore_check_reads_comments_only(tmp_path):
    src = tmp_path / "m.py"
    src.write_text('s = "# type: ignore"\n'
                   "# ------------------------------------------------\n"
                   "x = f()  # type: ignore[misc]\n"
                   "# mypy cannot see it: f is built at import\n"
                   "y = f()  # type: ignore[misc]\n"
                   "z = f()  # type: ignore[misc]  # f is built at import\n", encoding="utf-8")
    assert _type_ignores(src) == [(3, False), (5, True), (6, True)]
