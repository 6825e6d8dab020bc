"""`--format json`: the one envelope every command writes on stdout (schemas/envelope.schema.json).

`regime_version`, `schema_version`, `results` (the command's own items), `errors` (file, line,
field, message: one per refused input or mistake) and `summary` (counts); `grade` adds the class
`statistics`. JSON is data: what users wrote is kept as written (json.dumps escapes control
characters), never rewritten for a screen. `regime diagnose` streams the same shape (Stream).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import regime
from regime.core.errors import RegimeError, one_line

SCHEMA_VERSION = 1  # of the envelope; raised when a script reading it must change
KEYS = ("regime_version", "schema_version", "results", "errors", "summary")


def document(results: Sequence[Any], errors: Sequence[dict[str, Any]], summary: dict[str, int],
             statistics: dict[str, Any] | None = None) -> str:
    """The envelope as one JSON document; results keep their own key order."""
    doc: dict[str, Any] = {"regime_version": regime.__version__, "schema_version": SCHEMA_VERSION,
                           "results": list(results), "errors": list(errors), "summary": summary}
    if statistics is not None:
        doc["statistics"] = statistics
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def sorted_keys(doc: Any) -> Any:
    """`doc` with its mappings' keys in order at every level, for a result written once."""
    return json.loads(json.dumps(doc, sort_keys=True))


def error_dicts(err: RegimeError | str, file: str | None = None) -> list[dict[str, Any]]:
    """Each error of an input as the envelope's `errors` hold them: file, line, field, message."""
    if not isinstance(err, RegimeError):
        return [{"file": file, "line": None, "field": None, "message": one_line(str(err))}]
    return [{"file": e.file or file, "line": e.line, "field": e.field, "message": one_line(e.message)}
            for e in err.all()]


def member(entry: dict[str, Any]) -> str:
    """One result as an indented member of a streamed envelope's `results` (keys sorted)."""
    text = json.dumps(entry, indent=2, sort_keys=True, ensure_ascii=False)
    return "\n".join("    " + line for line in text.split("\n"))


class Stream:
    """The envelope written as results come: head, each member, then errors and summary (the
    top level in KEYS order, as `document` writes it)."""

    def __init__(self) -> None:
        self.count = 0
        self.errors: list[dict[str, Any]] = []

    def head(self) -> str:
        return (f'{{\n  "regime_version": {json.dumps(regime.__version__)},\n'
                f'  "schema_version": {SCHEMA_VERSION},\n  "results": [')

    def item(self, body: str) -> str:
        self.count += 1
        return ("\n" if self.count == 1 else ",\n") + body

    def tail(self, summary: dict[str, int]) -> str:
        close = "\n  ]" if self.count else "]"
        errors = json.dumps(self.errors, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        counts = json.dumps(summary, indent=2, sort_keys=True).replace("\n", "\n  ")
        return f'{close},\n  "errors": {errors},\n  "summary": {counts}\n}}\n'
