"""The fact vocabulary: declared names with canonical unit, meaning and valid range."""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from regime.core import units
from regime.core.errors import RegimeError, did_you_mean
from regime.core.record import Record, record
from regime.core.yamlsrc import line_of, load_yaml, validated

if TYPE_CHECKING:  # pydantic is imported on first use: running cases never needs it
    from pydantic import BaseModel

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.yaml")
NAME = re.compile(r"^[a-z](?:[a-z0-9]|_(?!_)){0,63}$")  # no '__': it separates group members
RESERVED = frozenset({"sid", "id"})  # durable-rules' own fields
_INTERVAL = re.compile(r"^\s*([\[(])\s*([^,]+?)\s*,\s*([^,]+?)\s*([\])])\s*$")


@record
class Interval(Record):
    """A range with open or closed ends; used to validate values and to prove divisors nonzero."""

    lo: float
    hi: float
    lo_open: bool = False
    hi_open: bool = False

    @classmethod
    def parse(cls, text: str) -> Interval:
        m = _INTERVAL.match(text)
        if not m:
            raise ValueError(f"range '{text}' is not an interval like '[0, 1]' or '(0, inf)'")
        lo, hi = (_bound(x) for x in (m[2], m[3]))
        if lo > hi:
            raise ValueError(f"range '{text}' runs backwards")
        return cls(lo, hi, m[1] == "(", m[4] == ")")

    @classmethod
    def point(cls, x: float) -> Interval:
        return cls(x, x)

    def contains(self, x: float) -> bool:
        above = x > self.lo or (x == self.lo and not self.lo_open)
        below = x < self.hi or (x == self.hi and not self.hi_open)
        return above and below

    def __str__(self) -> str:
        return f"{'(' if self.lo_open else '['}{self.lo:g}, {self.hi:g}{')' if self.hi_open else ']'}"


def _bound(text: str) -> float:
    t = text.strip().lower()
    if t in ("inf", "+inf"):
        return math.inf
    if t == "-inf":
        return -math.inf
    return float(t)


Kind = Literal["number", "category", "group", "flags"]


@record
class FactSpec(Record):
    """One declared fact name (validated by spec_model() when declared)."""

    name: str
    meaning: str
    kind: Kind = "number"
    say: str = ""    # the fact as people read it in a report or feedback; `{member}` for a group's
    unit: str = "1"
    display: str | None = None
    range: str = "(-inf, inf)"
    values: tuple[str, ...] = ()
    of: Literal["levers", "claims"] | None = None
    sum_max: float | None = None
    origin: str = "vocabulary"

    @property
    def interval(self) -> Interval:
        return Interval.parse(self.range)

    @property
    def numeric(self) -> bool:
        return self.kind in ("number", "group")


@cache
def spec_model() -> type[BaseModel]:
    """The pydantic schema of a declaration, built on first use from FactSpec's own fields
    (one list of fields; running cases never needs pydantic)."""
    from dataclasses import MISSING, fields
    from typing import get_type_hints

    from pydantic import BaseModel, ConfigDict, create_model, field_validator

    class Checks(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)

        @field_validator("name", check_fields=False)
        @classmethod
        def _name(cls, v: str) -> str:
            if not NAME.match(v) or v in RESERVED:
                raise ValueError(f"fact name '{v}' must be lower_snake_case without '__', and not "
                                 f"{' or '.join(sorted(RESERVED))}")
            return v

        @field_validator("range", check_fields=False)
        @classmethod
        def _range(cls, v: str) -> str:
            Interval.parse(v)
            return v

        @field_validator("unit", "display", check_fields=False)
        @classmethod
        def _unit(cls, v: str | None) -> str | None:
            if v is not None and v not in ("%", units.FRACTION):
                units.check_unit(v)
            return v

    hints = get_type_hints(FactSpec)
    spec_fields = {f.name: (hints[f.name], ... if f.default is MISSING else f.default)
                   for f in fields(FactSpec)}
    # create_model's overloads cannot see field definitions built from a dataclass at run time
    return create_model("FactSpecModel", __base__=Checks, **spec_fields)  # type: ignore[call-overload]


class Vocabulary:
    """All declared fact names, the base file plus what packs declare."""

    def __init__(self, specs: dict[str, FactSpec]) -> None:
        self.specs = dict(specs)

    def __contains__(self, name: str) -> bool:
        return name in self.specs

    def get(self, name: str, *, file: str | None = None, line: int | None = None,
            field: str | None = None) -> FactSpec:
        if name not in self.specs:
            raise RegimeError(f"unknown fact '{name}'{did_you_mean(name, self.specs)}",
                              file=file, line=line, field=field, kind="unknown fact")
        return self.specs[name]

    def say(self, field: str) -> str | None:
        """A fact as people read it (`group__member` with the member filled in), or None where
        its declaration has no `say`."""
        name, _, member = field.partition("__")
        spec = self.specs.get(name)
        if spec is None or not spec.say or ("{member}" in spec.say) != bool(member):
            return None
        return spec.say.replace("{member}", member)  # a member is a name as profilers show it

    def extended(self, specs: dict[str, FactSpec], file: str | None = None,
                 lines: object = None) -> Vocabulary:
        clash = sorted(set(specs) & set(self.specs))
        if clash:
            raise RegimeError(f"fact '{clash[0]}' is already declared by {self.specs[clash[0]].origin}",
                              file=file, line=line_of(lines, clash[0]), field=f"facts.{clash[0]}")
        return Vocabulary({**self.specs, **specs})


def parse_specs(raw: object, file: str, origin: str | None = None) -> dict[str, FactSpec]:
    """Validate a `facts:` mapping (from the vocabulary file or a pack)."""
    if not isinstance(raw, dict):
        raise RegimeError("'facts' must be a mapping of name -> declaration", file=file,
                          line=getattr(raw, "line", None) or 1, field="facts")
    specs: dict[str, FactSpec] = {}
    for name, body in raw.items():
        line = line_of(raw, name)
        if not isinstance(body, dict):
            raise RegimeError("declaration must be a mapping", file=file, line=line, field=name)
        model = validated(spec_model(), {"name": name, "origin": origin or file, **body}, file,
                          line=line, prefix=name)
        specs[name] = FactSpec(**model.model_dump())
    return specs


def load_vocabulary(path: Path = VOCABULARY_FILE) -> Vocabulary:
    doc = load_yaml(path)
    if not isinstance(doc, dict) or "facts" not in doc:
        raise RegimeError("vocabulary must have a top-level 'facts' mapping", file=str(path), line=1)
    return Vocabulary(parse_specs(doc["facts"], str(path)))
