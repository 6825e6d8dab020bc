"""One error type for every bad input, so the CLI can print file:line: field: message."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

# Anything that would break a message across lines or move a terminal's cursor: C0/C1 controls
# and Unicode line/paragraph separators. Messages quote untrusted input, so they are flattened.
_BREAKS = re.compile(r"\s*[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+\s*")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def one_line(text: str) -> str:
    """`text` on one line, with control characters shown as escapes (never sent raw)."""
    text = _BREAKS.sub(" ", text).replace("\t", " ")
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text).strip()


class RegimeError(Exception):
    """Bad input: a case, a pack or a catalogue. Carries where it came from."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 field: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.code = code  # the lint code when a check of `regime check` also guards loading

    def located(self, file: str | None = None, line: int | None = None,
                field: str | None = None) -> RegimeError:
        """Fill in location parts that the raiser did not know."""
        self.file = self.file or file
        self.line = self.line or line
        self.field = self.field or field
        return self

    def all(self) -> list[RegimeError]:
        """Each error this one stands for (one; several for a RegimeErrors)."""
        return [self]

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line:
            where += f":{self.line}"
        field = f" {one_line(self.field)}:" if self.field else ""
        return one_line(f"{where}:{field} {self.message}")


class RegimeErrors(RegimeError):
    """Every error found in one input, so a user fixes them in one pass, not one per run.

    `str()` is the first error plus a count (one line); `all()` gives each of them.
    """

    def __init__(self, errors: Sequence[RegimeError]) -> None:
        flat = [e for err in errors for e in err.all()]
        if not flat:
            raise ValueError("RegimeErrors needs at least one error")
        first = flat[0]
        super().__init__(first.message, first.file, first.line, first.field)
        self.errors = flat

    def located(self, file: str | None = None, line: int | None = None,
                field: str | None = None) -> RegimeError:
        for err in self.errors:
            err.located(file, line, field)
        return super().located(file, line, field)

    def all(self) -> list[RegimeError]:
        return list(self.errors)

    def __str__(self) -> str:
        more = len(self.errors) - 1
        return str(self.errors[0]) + (f" (and {more} more error{'s' * (more > 1)})" if more else "")


class Collector:
    """Gathers RegimeErrors from independent parts of one input; `raise_if_any` at the end."""

    def __init__(self) -> None:
        self.errors: list[RegimeError] = []

    def run(self, fn, *args, **kwargs):
        """Call fn; on RegimeError record it and return None."""
        try:
            return fn(*args, **kwargs)
        except RegimeError as err:
            self.errors.append(err)
            return None

    def raise_if_any(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise RegimeErrors(self.errors)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """A ' (did you mean ...?)' suffix naming the closest known names, or ''."""
    known = sorted(set(known))  # deterministic whatever the container
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    if not close:
        close = [k for k in known if name.lower() in k.lower() or k.lower() in name.lower()][:3]
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
