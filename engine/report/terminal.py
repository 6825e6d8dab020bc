"""Tables and lines for a terminal: words are never cut, lines never end in spaces.

rich fits a table to the width by folding cells mid-word ("continuous_ba/tching") or cutting
them ("bandwidth-bo…"). `fit` instead gives every column at least its longest word, spreads
what is left over the columns that wrap, and drops whole columns (least needed first) while
the words alone do not fit. `trimmed` removes the padding rich leaves at the end of a line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.M)
GAP = 3  # between two columns: a space of padding each side of the (blank) divider


@dataclass(frozen=True)
class Column:
    header: str
    keep: int = 0          # higher is dropped later; the first column is never dropped
    right: bool = False


def fit(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int,
        **table: Any) -> tuple[Table, list[str]]:
    """A table of `rows` within `width` columns with no word cut; returns it and the headers
    of the columns dropped to get there."""
    shown = list(range(len(columns)))
    while len(shown) > 1 and _least(shown, columns, rows) > width:
        shown.remove(min(shown[1:], key=lambda i: columns[i].keep))
    widths = _widths(shown, columns, rows, width)
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1), **table)
    for i, w in zip(shown, widths, strict=True):
        t.add_column(columns[i].header, width=w, justify="right" if columns[i].right else "left",
                     overflow="fold")
    for row in rows:
        t.add_row(*(Text(row[i]) for i in shown))
    return t, [columns[i].header for i in range(len(columns)) if i not in shown]


def words(text: str) -> list[str]:
    return text.split()


def _longest_word(i: int, columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> int:
    return max(len(w) for w in [*words(columns[i].header), *(x for r in rows for x in words(r[i])), "-"])


def _longest_line(i: int, columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> int:
    lines = [columns[i].header, *(line for r in rows for line in r[i].splitlines())]
    return max(len(line) for line in lines)


def _least(shown: list[int], columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> int:
    return sum(_longest_word(i, columns, rows) for i in shown) + GAP * (len(shown) - 1)


def _widths(shown: list[int], columns: Sequence[Column], rows: Sequence[Sequence[str]],
            width: int) -> list[int]:
    low = [_longest_word(i, columns, rows) for i in shown]
    high = [_longest_line(i, columns, rows) for i in shown]
    spare = width - sum(low) - GAP * (len(shown) - 1)
    want = [h - lo for h, lo in zip(high, low, strict=True)]
    if spare >= sum(want):
        return high
    given = [lo + spare * w // max(1, sum(want)) for lo, w in zip(low, want, strict=True)]
    return given


def trim(text: str) -> str:
    """Every line without the spaces (or tabs) before its end or its closing style codes."""
    return _TRAILING.sub(r"\1", text)


@contextmanager
def trimmed(console: Console) -> Iterator[None]:
    """Print through `console` as usual, then write the lines without trailing spaces."""
    with console.capture() as captured:
        yield
    console.file.write(trim(captured.get()))
    console.file.flush()
