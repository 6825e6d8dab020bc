"""One error type for every bad input, so the CLI can print file:line: field: message."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class RegimeError(Exception):
    """Bad input: a case, a pack or a catalogue. Carries where it came from."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field

    def located(self, file: str | None = None, line: int | None = None,
                field: str | None = None) -> RegimeError:
        """Fill in location parts that the raiser did not know."""
        self.file = self.file or file
        self.line = self.line or line
        self.field = self.field or field
        return self

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line:
            where += f":{self.line}"
        field = f" {self.field}:" if self.field else ""
        return f"{where}:{field} {self.message}"


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """A ' (did you mean ...?)' suffix naming the closest known names, or ''."""
    known = sorted(set(known))  # deterministic whatever the container
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    if not close:
        close = [k for k in known if name.lower() in k.lower() or k.lower() in name.lower()][:3]
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
