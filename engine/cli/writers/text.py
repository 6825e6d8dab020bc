"""`--format text`: what a person reads in a terminal, or in a file or pipe.

Colour follows the reader: a terminal gets rich's styles, a pipe or file plain text, `NO_COLOR`
(any non-empty value, no-color.org) plain text in a terminal too (no escape sequence at all:
bold is a style as well), `FORCE_COLOR` styles even into a pipe (rich reads it). What users and
packs wrote is shown with core.escape.terminal_text: a case or a rule cannot move the cursor
or reverse the text on screen. rich is imported only when a console is made.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import IO, Any

from regime.core.escape import terminal_text
from regime.core.record import Record, record


def no_color() -> bool:
    """NO_COLOR is set to something: no styles, whatever the terminal."""
    return bool(os.environ.get("NO_COLOR"))


@record
class Style(Record):
    """How the user's terminal renders rich text, as data, so a worker elsewhere renders for it."""

    width: int
    terminal: bool
    color_system: str | None

    @classmethod
    def of(cls, stream: Any) -> Style:
        from rich.console import Console
        c = Console(file=stream)
        return cls(c.width, c.is_terminal, None if no_color() else c.color_system)

    def console(self, buffer: IO[str]):
        """A console writing into `buffer` as the user's terminal would show it."""
        from rich.console import Console
        return Console(file=buffer, width=self.width, force_terminal=self.terminal,
                       # rich reads color_system back as str; it is one of the names it takes
                       color_system=self.color_system, highlight=False)  # type: ignore[arg-type]


def console(stream: Any = None):
    """A console on `stream` (stdout by default) with the reader's style."""
    import sys
    stream = sys.stdout if stream is None else stream
    return Style.of(stream).console(stream)


def lines(texts: Iterable[str]) -> str:
    """Plain lines for a terminal, each shown safely (control and bidi characters as escapes)."""
    return "".join(terminal_text(t) + "\n" for t in texts)


class Stream:
    """Reports as they come, as rendered."""

    def __init__(self) -> None:
        self.errors: list[dict[str, Any]] = []

    def head(self) -> str:
        return ""

    def item(self, body: str) -> str:
        return body

    def tail(self, summary: dict[str, int]) -> str:
        return ""
