"""Numbers in answers: parse what students write ('120 tok/s', '0.12 ktok/s', '120 tokens per
second', '35%', '9×') into canonical units and compare with the key's figures.

A figure matches when it is within the rubric's relative tolerance, or within half a unit of
the last digit the student wrote (so '0.03%' matches 0.0327%, but '100' does not match 103).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from regime.core import numbers, units

if TYPE_CHECKING:   # key.py's figures, read with this module
    from regime.engine.grading.key import Figure

_SPACED = r"\d{1,3}(?:[ \u2009\u202f]\d{3})+(?![\d,]|\.\d)"   # '32 768 tokens': thousands set off by spaces
_NUMBER = re.compile(rf"(?<![\w.])(?P<num>[+-]?(?:{_SPACED}|{numbers.DIGITS})(?:\.\d+)?(?:[eE][+-]?\d+)?)"
                     r"(?=(?P<after>[^\n]{0,40}))")
_UNIT_HEAD = re.compile(r"^\s*(?P<unit>%|×|[xX](?![A-Za-z])|[A-Za-zµ]+(?:\s*/\s*[A-Za-zµ]+)*)")
_RATIO = ("×", "x", "X")
_SYMBOLS = ("d",)   # 'p_layer / 2d': a symbol of a formula; no figure of a profile is in days
# '25k', '2.3k-token', '1.5M tokens': a multiplier written against the digits (not 'kB', 'kW')
_SHORTHAND = re.compile(r"^(?P<m>[kKM])(?=[-\s]|$)-?")
_MULTIPLIERS = {"k": 1e3, "K": 1e3, "M": 1e6}
_BINARY_K = 1024 / 1000   # a 'k' on token counts and sizes is often 1,024
_HEDGES = ("~", "≈")      # a number written approximately (words such as 'about': context.yaml)
# '204 tokens a second': the article as 'per' between a unit and the one it is counted against
_A_PER = re.compile(r"^(\s*[A-Za-zµ]+)\s+an?\s+(?=[A-Za-zµ])")


@dataclass(frozen=True)
class Quantity:
    """A number as written, in pint-readable unit text; `slack` is half its last written digit."""

    value: float
    unit: str          # '' for a bare number, '1' for a ratio (×), else unit text
    slack: float
    written: str
    binary: bool = False   # written with a 'k' multiplier: '32k tokens' may mean 32 × 1,024

    def canonical(self, unit: str) -> float | None:
        """Value in `unit` (the key's canonical unit), or None where the dimensions differ. A bare
        number is read in the figure's unit: the grader credits it only next to that figure's words."""
        target = units.FRACTION if unit == units.FRACTION else unit
        if self.unit == "1":
            return self.value if target in (units.FRACTION, "1") else None
        if self.unit == "":   # a bare number takes the unit of the figure it is written next to
            return self.value
        scale = _scale(self.unit, target)
        return None if scale is None else self.value * scale


def parse_number(text: str) -> tuple[float, float]:
    """'12,345' -> (12345, 0.5); '0.07' -> (0.07, 0.005). Raises ValueError for a number no
    float holds ('1e309'): the slack is parsed from text too, so no exponent can overflow."""
    plain = re.sub(r"[ \u2009\u202f]", "", numbers.plain(text))
    value = float(plain)
    if not math.isfinite(value):
        raise ValueError(f"'{text}' is not a finite number")
    mantissa, _, exp = plain.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return value, float(f"0.5e{int(exp or 0) - decimals}")


def unreadable_numbers(text: str) -> list[str]:
    """Numbers written in `text` that no float holds ('1e309'): an answer stating one is refused."""
    out = []
    for m in _NUMBER.finditer(text[:100_000]):
        try:
            parse_number(m["num"])
        except ValueError:
            out.append(m["num"])
    return out


def quantities(text: str, hedged: Callable[[str], bool] | None = None, within: float = 0.0) -> list[Quantity]:
    """Every number in free text with the unit that follows it, if pint can read one. A round
    number after a hedge ('~40%', `hedged` of the text before it: 'close to 40%') is read to its
    last non-zero digit, at most `within` of its value off (see `rounded`)."""
    out = []
    for m in _NUMBER.finditer(text[:100_000]):
        try:
            value, slack = parse_number(m["num"])
        except ValueError:
            continue
        after = m["after"]
        short = _SHORTHAND.match(after)
        if short:   # '25k-token prompt', '2.3k tokens': a multiplier on the digits, then the unit
            factor = _MULTIPLIERS[short["m"]]
            value, slack, after = value * factor, slack * factor, after[short.end():]
        if after[:1] == "-" and after[1:2].isalpha():   # '4-bit weights', '256-token pass': a compound
            after = after[1:]
        unit = _unit_after(after)
        shown = {"%": "%", "1": "×", "": ""}.get(unit, f" {unit}")
        q = Quantity(value, unit, slack, m["num"] + (short["m"] if short else "") + shown,
                     short is not None and short["m"] in "kK")
        before = text[max(0, m.start() - 40):m.start()]
        if hedged is not None and (before.rstrip().endswith(_HEDGES) or hedged(before)):
            q = rounded(q, m["num"], within)
        out.append(q)
    return out


def rounded(q: Quantity, digits: str, within: float) -> Quantity:
    """`q` written as a round number ('about 40%' for 37.9%, sealed71 e.s738): the zeros that
    end its whole digits are not read as written, so its slack is half a unit of its last
    non-zero digit, but never over `within` of its value ('~100 tokens/s' is not 140)."""
    whole = numbers.plain(digits).lstrip("+-")
    if not whole.isdigit() or not whole.rstrip("0") or whole == whole.rstrip("0"):
        return q
    place = 10 ** (len(whole) - len(whole.rstrip("0")))
    return replace(q, slack=max(q.slack, min(q.slack * place, within * abs(q.value))))


def quantity(value: object, unit: str | None = None) -> Quantity:
    """One evidence value from a structured answer: a number (with `unit`) or '120 tokens/s'.
    Raises ValueError for text that is not a number with a unit, or a non-finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"expected a number with a unit, got {type(value).__name__}")
    if isinstance(value, str) and unreadable_numbers(value):
        raise ValueError(f"'{units.short(value)}' is not a finite number")
    if isinstance(value, int | float):
        if not math.isfinite(float(value)):
            raise ValueError(f"{value!r} is not a finite number")
        text = repr(value)
    else:
        text = value.strip()
    if unit:
        text = f"{text} {unit}"
    found = _one_quantity(text)
    if found is None and "=" in text:   # worked arithmetic: '8 x 4096 = 32,768' states its result last
        found = _one_quantity(text.rsplit("=", 1)[1].strip())
    if found is None:   # a figure, then words about it (see _leading)
        found = _leading(text)
    if found is None:
        raise ValueError(f"'{units.short(text)}' is not one number with a unit (e.g. '120 tokens/s', '35%')")
    return found


def _one_quantity(text: str) -> Quantity | None:
    found = quantities(text)
    rest = _NUMBER.sub("", text, count=1).strip() if found else text
    if len(found) != 1 or _compact(rest) != _compact(found[0].unit if found[0].unit != "1" else rest):
        return None
    return found[0]


def _leading(text: str) -> Quantity | None:
    """A figure written approximately, with its working in parentheses or with words after its
    unit: '~900 tokens', '12% (norm 4 + add 3 + ...)', '33% of step time' state one figure;
    '61% -> 78%' and '9 bananas' (no unit) do not."""
    bare = re.sub(r"\([^()]*\)", " ", text).strip().lstrip("~≈").strip()
    found = _one_quantity(bare) if bare != text else None
    if found is None:
        qs = quantities(bare)
        m = _NUMBER.search(bare)
        if qs and qs[0].unit not in ("", "1") and m is not None and m.start() == 0 \
                and sum(ch.isdigit() for ch in bare) == sum(ch.isdigit() for ch in m["num"]):
            found = qs[0]
    return found


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", numbers.per(f" {text} "))


@lru_cache(maxsize=4096)
def _scale(unit: str, target: str) -> float | None:
    """Factor from `unit` to `target`, or None where the dimensions differ (pint, memoized)."""
    try:
        return units.factor(unit, target) if units.same_dimension(unit, target) else None
    except ValueError:
        return None


def _unit_after(after: str) -> str:
    head = _UNIT_HEAD.match(_A_PER.sub(r"\1/", numbers.per(after), count=1))
    return _readable_unit(head["unit"]) if head else ""


@lru_cache(maxsize=4096)
def _readable_unit(text: str) -> str:
    """The longest leading part of `text` pint reads as a unit ('' if none)."""
    if text in _RATIO:
        return "1"
    if text == "%":
        return "%"
    if text in _SYMBOLS:
        return ""
    parts = [_as_cased(p) for p in re.split(r"\s*/\s*", text)]
    while parts:
        candidate = "/".join(parts)
        try:
            units.check_unit(candidate)
            return candidate
        except ValueError:
            parts.pop()
    return ""


def _as_cased(part: str) -> str:
    """A unit written in lower case that pint reads only with its capitals ('gb' for GB, 'tb',
    'gib', 'tflops'): an answer written all in lower case still gives its figures."""
    def known(u: str) -> bool:
        try:
            units.check_unit(u)
            return True
        except ValueError:
            return False
    if not part.islower() or len(part) < 2 or known(part):   # '4x' is no unit: never 'X' or 's'
        return part
    upper = part.upper()
    cased = [upper, *([upper[:-1] + "s"] if len(part) > 2 and part.endswith("s") else []),
             *([upper[0] + "i" + upper[2:]] if upper[1:2] == "I" else [])]   # 'tflops', 'gib'
    return next((c for c in cased if known(c)), part)


def per_unit(q: Quantity, unit: str) -> Quantity | None:
    """`q` read in a rate `unit` whose numerator its own unit is ('256 FLOPs' for FLOP/byte):
    what a sentence means by "each byte does 256 FLOPs"; None where that is not the case."""
    top, slash, bottom = unit.partition("/")
    if not slash or q.unit in ("", "1", "%") or "/" in q.unit or _scale(q.unit, top) is None:
        return None
    return replace(q, unit=f"{q.unit}/{bottom}")


def reciprocal(q: Quantity, unit: str) -> Quantity | None:
    """`q` written as the inverse of a rate `unit` is: '5 ms/token' is 200 tokens/s (sealed106
    a.s1090 wrote a ceiling as time per token); None where it is not."""
    top, slash, bottom = q.unit.partition("/")
    if not slash or "/" in bottom or q.value <= 0:
        return None
    inverse = f"{bottom}/{top}"
    if _scale(inverse, unit) is None:
        return None
    return Quantity(1 / q.value, inverse, q.slack / q.value ** 2, q.written)


def matches(q: Quantity, value: float, unit: str, relative: float) -> bool:
    """Whether `q` states `value` (canonical `unit`) within tolerance or the written rounding."""
    got = q.canonical(unit)
    if got is None:
        return False
    scale = abs(_scale(q.unit, units.FRACTION if unit == units.FRACTION else unit) or 1.0) \
        if q.unit not in ("", "1") else 1.0
    readings = (got, got * _BINARY_K) if q.binary else (got,)   # '32k' for 8 × 4,096 = 32,768
    return any(abs(x - value) <= max(relative * abs(value), q.slack * scale * _BINARY_K ** q.binary
                                     * (1 + 1e-9)) for x in readings)


_DECIMAL = re.compile(r"(?<![\w.,])([~≈]\s?)?(\d+\.\d+)(?![\d.])")


def as_taught(text: str, significant: int) -> str:
    """Decimals in feedback as a worked solution writes them: `significant` figures (one below
    1), and '~' where that rounds ('78.2%' -> '~78%', '0.989 FLOP/byte' -> '~1 FLOP/byte')."""
    def shown(m: re.Match[str]) -> str:
        x = float(m[2])
        if x == 0:
            return m[0]
        k = (1 if x < 1 else significant) - 1 - math.floor(math.log10(x))
        r = math.floor(x * 10**k + 0.5) / 10**k
        r = float(math.floor(r + 0.5)) if abs(r - math.floor(r + 0.5)) <= 0.02 * r and r >= 1 else r
        out = f"{r:,.10f}".rstrip("0").rstrip(".")
        return f"{m[1] or ''}{out}" if float(out.replace(",", "")) == x else f"{m[1] or '~'}{out}"
    return _DECIMAL.sub(shown, text)


def off_key(numbers: list[Quantity], cited: list[Figure], figures: Iterable[Figure], tol: float,
            window: tuple[float, float]) -> bool:
    """A number whose nearest cited figure in its dimension (not a share, not bare) is more than
    window[0] and at most window[1] (shares) away, and that is none of the key's figures: that
    figure written wrong. A rounding of the nearest figure is no wrong value, though another cited
    figure lies within the window of it."""
    def off(q: Quantity) -> float | None:
        gaps = [abs(v / f.value - 1) for f in cited if f.value and (v := q.canonical(f.unit)) is not None]
        return min(gaps) if gaps else None
    near = [q for q in numbers if q.unit not in ("", "1", "%") and (d := off(q)) is not None
            and window[0] < d <= window[1]]
    return bool(near) and not any(matches(q, g.value, g.unit, tol) for q in near for g in figures)
