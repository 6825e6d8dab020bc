"""One error type for every bad input, so the CLI can print file:line: field: message."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

# Errors reported per input; the rest are counted ("… and 19,990 more unknown keys"). An input
# with 20,000 mistakes is refused as fast as one with ten, without a did-you-mean for each.
MAX_REPORTED = 10

# Anything that would break a message across lines or move a terminal's cursor: C0/C1 controls
# and Unicode line/paragraph separators. Messages quote untrusted input, so they are flattened.
_BREAKS = re.compile(r"\s*[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+\s*")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")  # and bidi


def one_line(text: str) -> str:
    """`text` on one line, with control characters shown as escapes (never sent raw)."""
    text = _BREAKS.sub(" ", text).replace("\t", " ")
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text).strip()


class RegimeError(Exception):
    """Bad input: a case, a pack or a catalogue. Carries where it came from."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 field: str | None = None, code: str | None = None, kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.code = code  # the lint code when a check of `regime check` also guards loading
        self.kind = kind  # what to call many of these when they are counted, e.g. "unknown key"

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

    def __reduce__(self) -> tuple:
        """Pickle as plain data (class, message, and the location fields), so an error found in a
        `--jobs N` worker reaches the parent as it was raised. Exception's own reduce calls
        cls(*args), which subclasses with other signatures (TraceError, RegimeErrors) cannot take."""
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line:
            where += f":{self.line}"
        field = f" {one_line(self.field)}:" if self.field else ""
        return one_line(f"{where}:{field} {self.message}")


def _rebuild(cls: type[RegimeError], args: tuple, state: dict) -> RegimeError:
    """Unpickle a RegimeError (or subclass) without calling its __init__."""
    err = cls.__new__(cls, *args)
    err.args = args
    err.__dict__.update(state)
    return err


class RegimeErrors(RegimeError):
    """Every error found in one input, so a user fixes them in one pass, not one per run; past
    MAX_REPORTED they are counted by kind, not kept.

    `str()` is the first error plus a count (one line); `all()` gives each kept error and, when
    some were only counted, a last one saying how many.
    """

    errors: list[RegimeError]
    counted: Counter[str]

    def __init__(self, errors: Sequence[RegimeError], more: Mapping[str, int] | None = None) -> None:
        flat: list[RegimeError] = []
        counted: Counter[str] = Counter(more or {})
        for err in errors:
            flat += err.errors if isinstance(err, RegimeErrors) else [err]
            counted.update(err.counted if isinstance(err, RegimeErrors) else {})
        if not flat:
            raise ValueError("RegimeErrors needs at least one error")
        if len(flat) > MAX_REPORTED:  # keep one-off errors over the many of a kind, in input order
            keep = sorted(range(len(flat)), key=lambda i: (flat[i].kind is not None, i))[:MAX_REPORTED]
            kept = set(keep)
            counted.update(e.kind or "error" for i, e in enumerate(flat) if i not in kept)
            flat = [flat[i] for i in sorted(keep)]
        first = flat[0]
        super().__init__(first.message, first.file, first.line, first.field)
        self.errors = flat
        self.counted = counted

    def located(self, file: str | None = None, line: int | None = None,
                field: str | None = None) -> RegimeError:
        for err in self.errors:
            err.located(file, line, field)
        return super().located(file, line, field)

    def all(self) -> list[RegimeError]:
        total = sum(self.counted.values())
        if not total:
            return list(self.errors)
        what = f"{next(iter(self.counted))}s" if len(self.counted) == 1 else "errors"
        return [*self.errors, RegimeError(f"… and {total:,} more {what}", file=self.errors[0].file)]

    def __str__(self) -> str:
        more = len(self.errors) - 1 + sum(self.counted.values())
        return str(self.errors[0]) + (f" (and {more:,} more error{'s' * (more > 1)})" if more else "")


class Collector:
    """Gathers RegimeErrors from independent parts of one input; `raise_if_any` at the end.
    Once `full`, callers count cheap errors with `count` instead of building them."""

    def __init__(self) -> None:
        self.errors: list[RegimeError] = []
        self.more: Counter[str] = Counter()

    @property
    def full(self) -> bool:
        return len(self.errors) >= MAX_REPORTED

    def count(self, kind: str) -> None:
        """One more error of `kind`, past the cap: counted, not built."""
        self.more[kind] += 1

    def run(self, fn, *args, **kwargs):
        """Call fn; on RegimeError record it and return None."""
        try:
            return fn(*args, **kwargs)
        except RegimeError as err:
            self.errors.append(err)
            return None

    def raise_if_any(self) -> None:
        if len(self.errors) == 1 and not self.more:
            raise self.errors[0]
        if self.errors:
            raise RegimeErrors(self.errors, self.more)


# Suggestions left for the input being read (None: no budget). Past MAX_REPORTED errors the
# rest are only counted, so searching names for them would be time spent on nothing shown.
_SUGGESTIONS: ContextVar[list[int] | None] = ContextVar("suggestions", default=None)


@contextmanager
def one_input() -> Iterator[None]:
    """While one input is read: at most MAX_REPORTED did-you-mean searches."""
    token = _SUGGESTIONS.set([MAX_REPORTED])
    try:
        yield
    finally:
        _SUGGESTIONS.reset(token)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """A ' (did you mean ...?)' suffix naming the closest known names, or '' (also once the
    input being read has had its MAX_REPORTED searches)."""
    left = _SUGGESTIONS.get()
    if left is not None:
        if left[0] <= 0:
            return ""
        left[0] -= 1
    import difflib  # only a refused input pays for it

    known = sorted(set(known))  # deterministic whatever the container
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    if not close:
        close = [k for k in known if name.lower() in k.lower() or k.lower() in name.lower()][:3]
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
