"""`--format jsonl`: one JSON object per line, for `jq -c` and for streams that never end.

Each result is one line (keys sorted, as a streamed envelope's members); a refused input is a
result of its own where the command lists one per input (diagnose, report, grade), else each
error is a line of its own, `{"error": {file, line, field, message}}`, so a command
refused before it ran still writes one line saying why. No summary: a line count is the count.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def line(entry: dict[str, Any]) -> str:
    """One object as one line."""
    return json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def document(results: Iterable[dict[str, Any]], errors: Iterable[dict[str, Any]]) -> str:
    """Every result, then every error, one per line."""
    return "".join(line(r) + "\n" for r in results) + "".join(line({"error": e}) + "\n" for e in errors)


class Stream:
    """Lines as results come; nothing before or after them."""

    def __init__(self) -> None:
        self.errors: list[dict[str, Any]] = []

    def head(self) -> str:
        return ""

    def item(self, body: str) -> str:
        return body + "\n"

    def tail(self, summary: dict[str, int]) -> str:
        return ""
