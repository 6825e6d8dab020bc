"""One writer per output format, used by every command: text.py (people), envelope.py (json),
jsonl.py (one object per line), markdown.py (a review document); the HTML and CSV a command
writes to files are their own modules (engine/report/render_html.py, engine/grading/output.py).

A command says what it has to say once, as an Output (its results as data, its errors located,
its counts, and how it reads as text and as Markdown), and `emit` writes it in the chosen
format; `regime diagnose`, which streams, frames each case's rendered body with `stream(fmt)`.
Formats owned by other tools (Gradescope and PrairieLearn results.json, a case file from
`regime trace -o`) are written by those commands as the tools define them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any, Protocol

from regime.core.errors import RegimeError
from regime.core.record import Fields, mutable_record
from regime.engine.cli.writers import envelope, jsonl, markdown, text

FORMATS = ("text", "json", "jsonl", "markdown")


@mutable_record
class Output(Fields):
    """What one command run says, whatever the format: `results` and `errors` as the envelope
    holds them, `summary` its counts, and the text and Markdown renderings (made only when
    asked for; each escapes what users wrote through its writer)."""

    results: Sequence[Any]
    summary: dict[str, int]
    errors: Sequence[dict[str, Any]] = ()
    text: Callable[[], str] = lambda: ""
    markdown: Callable[[], str] | None = None
    statistics: dict[str, Any] | None = field(default=None)
    in_place: bool = False  # each refused input is also a result, carrying its errors (jsonl: no extra line)


def render(out: Output, fmt: str) -> str:
    """`out` in `fmt`; Markdown falls back to the text in a code block when a command has none."""
    if fmt == "json":
        return envelope.document(out.results, out.errors, out.summary, out.statistics)
    if fmt == "jsonl":
        return jsonl.document(out.results, () if out.in_place else out.errors)
    if fmt == "markdown":
        if out.markdown is not None:
            return out.markdown() + markdown.errors(out.errors)
        said = out.text()
        block = "```\n" + said.replace("```", "'''") + "```\n" if said else ""
        return block + markdown.errors(out.errors)
    return out.text()


def emit(out: Output, fmt: str) -> None:
    """Write `out` on stdout in `fmt`."""
    sys.stdout.write(render(out, fmt))
    sys.stdout.flush()


def refusal(err: RegimeError | str, fmt: str) -> None:
    """A command refused before it ran: in json its envelope with no results and the error, in
    jsonl the error's line, in markdown its `**error:**` lines; text says it on stderr only."""
    if fmt in ("json", "jsonl", "markdown"):
        emit(Output([], {"refused": 1}, envelope.error_dicts(err)), fmt)


class Frame(Protocol):
    """How a format frames a streamed run: before, around each item, after (with the counts)."""

    errors: list[dict[str, Any]]

    def head(self) -> str: ...
    def item(self, body: str) -> str: ...
    def tail(self, summary: dict[str, int]) -> str: ...


def stream(fmt: str) -> Frame:
    """The framing of a streamed run (`regime diagnose`): head, each rendered item, tail."""
    kinds: dict[str, type[Frame]] = {"json": envelope.Stream, "jsonl": jsonl.Stream,
                                     "markdown": markdown.Stream}
    return kinds.get(fmt, text.Stream)()


def body(entry: dict[str, Any], fmt: str) -> str:
    """One streamed result's JSON text: a line for jsonl, an envelope member for json."""
    return jsonl.line(entry) if fmt == "jsonl" else envelope.member(entry)
