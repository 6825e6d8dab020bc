"""Units at the boundary: parse what people write, convert to canonical, format for display.

`pint` does the unit algebra. Numbers are matched with a strict pattern first, so a value
string is never handed to an expression evaluator of any kind. pint is imported on first
need only: every conversion it answers is remembered (and kept with the knowledge cache), so
a run whose units were all seen before never loads it.
"""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from regime.core import numbers
from regime.core.limits import MAX_MAGNITUDE, MIN_MAGNITUDE, describe, plausible
from regime.core.record import Record, record

if TYPE_CHECKING:
    import pint

__all__ = ["MAX_MAGNITUDE", "MIN_MAGNITUDE", "describe", "plausible"]

_NUM = rf"(?:{numbers.NUMBER})(?:{numbers.SUFFIX})?"
_QTY = re.compile(rf"^\s*(?P<lo>{_NUM})(?:\s*(?:-|–|to)\s*(?P<hi>{_NUM}))?\s*(?P<unit>[^\d\s].*)?$")
_SPLIT = re.compile(rf"^(?P<num>{numbers.NUMBER})(?P<suffix>{numbers.SUFFIX})?$")
# A unit is names joined by '/' or '*', each with an optional small integer power: no numbers,
# parentheses or nested powers, which pint would otherwise evaluate (and '9**9**9' hangs it).
_NAME = r"[A-Za-z%µ]+(?:\s*(?:\*\*|\^)\s*-?\d)?"
_UNIT_TEXT = re.compile(rf"^{_NAME}(?:\s*[/*]\s*{_NAME})*$")

FRACTION = "fraction"


@cache
def registry() -> pint.UnitRegistry:
    """pint's default units, except that information gets its own dimension.

    pint makes `bit` dimensionless, so a byte would convert to a plain fraction. A redefinition
    after loading is ignored by pint, so the default definitions are loaded with that one line
    changed (and without pint's disk cache, whose cold and warm states disagreed).
    """
    import pint

    here = Path(pint.__file__).parent
    text = (here / "default_en.txt").read_text(encoding="utf-8")
    constants = (here / "constants_en.txt").read_text(encoding="utf-8")
    if "\nbit = []\n" not in text or "@import constants_en.txt" not in text:
        raise RuntimeError(f"pint {pint.__version__}: unexpected default_en.txt; update core/units.py")
    text = text.replace("\nbit = []\n", "\nbit = [information]\n")
    text = text.replace("@import constants_en.txt", constants)
    ureg: pint.UnitRegistry = pint.UnitRegistry(None, on_redefinition="raise")
    ureg.load_definitions(text.splitlines())
    ureg.define("FLOP = [flop] = flop = FLOPs")
    ureg.define("token = [token] = tok")
    return ureg


def parse_unit(text: str) -> pint.Unit:
    """The pint unit `text` names; ValueError unless it is a plain multiplicative unit."""
    if text == FRACTION or text in ("", "1"):
        return registry().dimensionless
    if len(text) > 40 or not _UNIT_TEXT.match(text.strip()):
        raise ValueError(f"'{short(text)}' is not a unit")
    try:
        unit = registry().parse_units(text.strip().replace("µ", "u"))
    except Exception as err:
        raise ValueError(f"unknown unit '{text}'") from err
    for name in unit._units:
        definition = registry()._units[name]
        if getattr(definition, "is_logarithmic", False):
            raise ValueError(f"'{text}' is a logarithmic unit; write the plain ratio or quantity")
        if not definition.is_multiplicative:
            raise ValueError(f"'{text}' is an offset unit; write an absolute one (e.g. kelvin, not degC)")
    return unit


def check_unit(text: str) -> None:
    """Raise ValueError if `text` is not a unit pint knows."""
    parse_unit(text)


# (from, to) -> the multiplier taking a magnitude in `from` to `to`, or None when the two are
# different kinds of quantity. Only pint's answers go in; unknown units are never remembered.
_CONVERSIONS: dict[tuple[str, str], float | None] = {}


def conversion(from_unit: str, to_unit: str) -> float | None:
    """The factor from one unit to another, None if they measure different things.

    Units agree when they reduce to the same base units: 'GB/s' and 'byte/s' do; 'radian' and
    '%' do not, though pint calls both dimensionless.
    """
    key = (from_unit, to_unit)
    if key not in _CONVERSIONS:
        a, b = parse_unit(from_unit), parse_unit(to_unit)
        same = registry().get_root_units(a)[1] == registry().get_root_units(b)[1]
        _CONVERSIONS[key] = float(registry().Quantity(1.0, a).to(b).magnitude) if same else None
    return _CONVERSIONS[key]


def conversions() -> dict[tuple[str, str], float | None]:
    """Every conversion answered so far (for the knowledge cache)."""
    return dict(_CONVERSIONS)


def remember(known: dict[tuple[str, str], float | None]) -> None:
    """Take conversions pint answered in an earlier run, with the same pint and this module."""
    _CONVERSIONS.update(known)


def same_dimension(a: str, b: str) -> bool:
    return conversion(a, b) is not None


def factor(from_unit: str, to_unit: str) -> float:
    """Multiplier taking a magnitude in from_unit to to_unit."""
    scale = conversion(from_unit, to_unit)
    if scale is None:
        raise ValueError(f"cannot convert {from_unit} to {to_unit}")
    return scale


@record
class Parsed(Record):
    """A measured number in canonical units; low/high are set when a range was written."""

    value: float
    low: float | None = None
    high: float | None = None
    written: str = ""
    unit: str = ""       # the unit as written ('' for a bare number)

    def share_hint(self, canonical: str) -> str:
        """'; did you mean 78%?' for a bare 78 where a share (0-1) is expected, else ''."""
        if canonical != FRACTION or self.unit or not 1 < self.value <= 100:
            return ""
        return f"; did you mean {format_number(self.value)}%?"


def parse_quantity(raw: object, canonical: str) -> Parsed:
    """Parse `26 GB`, `4%`, `6-30 us`, `2,048 tokens`, `2k`, `160 tokens per second` or a bare
    number into `canonical` units (core/numbers.py says what is read).

    A bare number is taken as already canonical only where the unit cannot be misread
    (dimensionless quantities and token counts); elsewhere a unit is required.
    """
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError(f"expected a number with a unit, got {type(raw).__name__} {short(raw)}")
    if isinstance(raw, int | float):
        if not _bare_ok(canonical):
            raise ValueError(f"{short(raw)} has no unit; write one, e.g. '{_hint(canonical)}'")
        return Parsed(_finite(raw), written=short(raw))
    match = _QTY.match(raw)
    if not match:
        raise ValueError(f"'{short(raw)}' is not a number with a unit (e.g. '2 TB/s', '4%', '6-30 us')")
    unit_text = numbers.spelled((match["unit"] or "").strip())
    if not unit_text and not _bare_ok(canonical):
        raise ValueError(f"'{short(raw)}' has no unit; expected something like '{_hint(canonical)}'")
    scale = conversion(unit_text, canonical) if unit_text else 1.0
    if scale is None:
        raise ValueError(f"'{short(raw)}' is in {short(unit_text)}, which is not a {_kind(canonical)}")
    lo = _finite(_number(match["lo"]) * scale)
    if match["hi"] is None:
        return Parsed(lo, written=raw, unit=unit_text)
    hi = _finite(_number(match["hi"]) * scale)
    if hi < lo:
        raise ValueError(f"range '{raw}' runs backwards")
    return Parsed((lo + hi) / 2, lo, hi, written=raw, unit=unit_text)


def _number(text: str) -> float:
    split = _SPLIT.match(text)
    assert split is not None  # _QTY matched it
    return numbers.value(split["num"], split["suffix"])


def _finite(x: int | float) -> float:
    try:
        value = float(x)
    except OverflowError:  # an int beyond any float
        value = math.inf
    if not plausible(value):
        raise ValueError(f"{short(x)} is not a plausible value ({describe()} in canonical units)")
    return value


def _bare_ok(canonical: str) -> bool:
    return canonical in (FRACTION, "1", "token")


def _hint(canonical: str) -> str:
    """An example of the unit people write, e.g. 'N GB' for bytes (no figures of any GPU)."""
    written = {FRACTION: "%", "byte": "GB", "byte/s": "TB/s", "FLOP/s": "TFLOP/s", "token/s": "tokens/s",
               "s": "ms"}.get(canonical, canonical)
    return "N%" if written == "%" else f"N {written}"


def short(raw: object, limit: int = 60) -> str:
    """Bounded text of untrusted input for messages (never a full repr of a huge structure)."""
    text = raw if isinstance(raw, str) else f"{type(raw).__name__}"
    if isinstance(raw, int) and not isinstance(raw, bool) and abs(raw) > 10**limit:
        text = f"an integer of about {round(raw.bit_length() * math.log10(2))} digits"
    elif isinstance(raw, int | float | bool) or raw is None:
        text = repr(raw)
    return text if len(text) <= limit else text[:limit] + "..."


def _kind(canonical: str) -> str:
    if canonical in (FRACTION, "1"):
        return "plain number or percentage"
    return f"quantity in {canonical} (e.g. '{_hint(canonical)}')"


def format_number(x: float) -> str:
    """The one rounding rule for people (docs/engine.md, "Rounding for people"): three
    significant figures, whole numbers from 100 up, thousands separators from 10,000, never an
    exponent. A percentage is rounded as the number of percent it shows (59.3%, 3.97%), so a
    figure reads the same in a sentence, a table, a chart and the derivation tree."""
    ax = abs(x)
    if ax >= 10000:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.0f}"
    if ax == 0:
        return "0"
    digits = max(0, 2 - math.floor(math.log10(ax)))
    text = f"{x:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_quantity(value: float, canonical: str, display: str | None) -> str:
    """`value` (canonical units) in `display` units, by format_number: '3350 GB/s', '59.3%'."""
    display = display or canonical
    if display == "%":
        return f"{format_number(value * 100)}%"
    if display in (FRACTION, "1"):
        return format_number(value)
    text = format_number(value * factor(canonical, display))
    if text == "1" and display.isalpha() and display.endswith("s"):
        display = display[:-1]  # "1 token", not "1 tokens"
    return f"{text} {display}"


def format_terms(values: list[float]) -> tuple[list[str], str]:
    """Terms of a sum and its total by format_number; where the terms so rounded would not add
    up to the total as shown, every term and the total get the fewest decimal places that do
    (14.44% + 14.44% + 14.44% = 43.32%, not 14.4% × 3 = 43.3%): the rule's one exception."""
    total = math.fsum(values)
    text = [format_number(v) for v in values]
    if format_number(math.fsum(float(t.replace(",", "")) for t in text)) == format_number(total):
        return text, format_number(total)
    places = next((p for p in range(7) if round(math.fsum(round(v, p) for v in values), p)
                   == round(total, p)), 6)
    return [f"{v:,.{places}f}" for v in values], f"{total:,.{places}f}"


def format_written(written: str) -> str:
    """A value as a case wrote it ('1.67555%', '6-30 us'), its numbers by format_number, so that
    a report can tell whether the text as written says more than the rounded figure; text that
    is not a number with a unit comes back as it is."""
    match = _QTY.match(written)
    if not match:
        return written
    text = format_number(_number(match["lo"]))  # '3,584' and '2k' as the number reader reads them
    if match["hi"] is not None:
        text += "-" + format_number(_number(match["hi"]))
    unit = (match["unit"] or "").strip()
    return text + ("" if not unit else unit if unit == "%" else " " + unit)
