"""`--format markdown`: a document to paste into a review or an issue.

Everything a user or a pack wrote (names, meanings, messages, file names) goes through
core.escape.markdown_inline, so it renders as the text itself: no heading, link, image or tag
comes from a case or a rule. The writer's own markup (headings, tables, emphasis) is added here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from regime.core.escape import markdown_inline as md
from regime.core.escape import terminal_text


def heading(text: str, level: int = 1) -> str:
    return f"{'#' * level} {md(text)}\n\n"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A table whose every cell is text as written (pipes and markup escaped)."""
    head = "| " + " | ".join(map(md, headers)) + " |\n|" + "---|" * len(headers) + "\n"
    return head + "".join("| " + " | ".join(md(_cell(c)) for c in row) + " |\n" for row in rows) + "\n"


def bullets(items: Iterable[str]) -> str:
    return "".join(f"- {md(x)}\n" for x in items) + "\n"


def code(text: str) -> str:
    """`text` verbatim in a fenced block, its fence longer than any backtick run inside (so a
    line of the text cannot close it); control and bidi characters as visible escapes."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{terminal_text(text).rstrip()}\n{fence}\n\n"


def errors(errs: Iterable[dict[str, Any]]) -> str:
    """Each error as the `error:` line says it, in bold, one per line."""
    return "".join(f"**error:** {md(where(e))}\n" for e in errs)


def refused(file: str, errs: Iterable[dict[str, Any]]) -> str:
    """A refused input in its place in a streamed document: its name, then each error."""
    return f"# {md(file)} — refused\n\n" + errors(errs)


def where(e: dict[str, Any]) -> str:
    """An envelope error as its `error:` line says it: `FILE:LINE: FIELD: message`."""
    spot = f"{e.get('file') or '<input>'}" + (f":{e['line']}" if e.get("line") else "")
    return f"{spot}: {e['field']}: {e['message']}" if e.get("field") else f"{spot}: {e['message']}"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


class Stream:
    """Documents as results come, a blank line between two."""

    def __init__(self) -> None:
        self.count = 0
        self.errors: list[dict[str, Any]] = []

    def head(self) -> str:
        return ""

    def item(self, body: str) -> str:
        self.count += 1
        return "\n" + body if self.count > 1 else body

    def tail(self, summary: dict[str, int]) -> str:
        return ""
