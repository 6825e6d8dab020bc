"""Numbers as people write them, read one way for every input: cases, catalogues, packs,
`--set` and answers.

What is read: thousands separators (`2,048`, as Regime prints them), a `k` or `M` written
straight after the number (`2k`, `1.5M tokens`: thousand and million, as people count
tokens; `2 kB` and `2 ms` stay units) and units spelled out with `per` (`tokens per
second` is `tokens/second`). The number itself is matched by a strict pattern: a value
string is never handed to an evaluator.
"""

from __future__ import annotations

import re

# The whole part of a number, with or without thousands separators ('2,048' or '2048').
DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d+)"
# A decimal number ('2,048.5', '.5', '1e-3'); prose (grading/figures.py) asks digits after a point.
NUMBER = rf"[+-]?(?:{DIGITS}(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
# A count suffix: directly after the number, and not the start of a unit ('2kB', '2Mtok' are not).
SUFFIX = r"[kKM](?![A-Za-z])"
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6}
_PER = re.compile(r"\s+per\s+", re.I)


def plain(text: str) -> str:
    """The number without its thousands separators: '2,048' -> '2048'."""
    return text.replace(",", "")


def value(number: str, suffix: str | None = None) -> float:
    """'2,048' -> 2048.0; ('2', 'k') -> 2000.0. ValueError for text that is not NUMBER."""
    if not re.fullmatch(NUMBER, number.strip()):
        raise ValueError(f"'{number}' is not a number")
    return float(plain(number)) * (_SCALE[suffix] if suffix else 1.0)


def spelled(unit: str) -> str:
    """A unit spelled out with 'per' written as pint reads it: 'tokens per second' -> 'tokens/second'."""
    return _PER.sub("/", f" {unit} ").strip()


def per(text: str) -> str:
    """Every ' per ' in free text as '/' (answers: '120 tokens per second')."""
    return _PER.sub("/", text)
