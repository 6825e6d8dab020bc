"""Justification templates: '{peak_bw} / {weight_bytes} = {ceiling_tokens_per_s}'.

Fields name facts (optionally a group member `kernel_share[to_copy]`) or scalar parameters,
with an optional display unit `@GB/s` (`@-` for the bare number in the fact's display unit)
and a Python number format `:.0f` / `:.2%`. Fields are
checked at load time; rendering never evaluates anything.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine import units
from engine.errors import RegimeError, did_you_mean
from engine.expr import member_id
from facts.vocabulary import Vocabulary

_FIELD = re.compile(r"^(?P<name>[a-z][a-z0-9_]*)(?:\[(?P<member>[^\]]+)\])?(?:@(?P<unit>[^:]+))?$")
BARE = "-"
_SPEC = re.compile(r"^,?(?:\.\d{1,2})?[fg%]?$")


@dataclass(frozen=True)
class Field:
    name: str
    member: str | None
    unit: str | None
    spec: str | None

    @property
    def key(self) -> str:
        return self.name if self.member is None else f"{self.name}__{self.member}"


@dataclass(frozen=True)
class Template:
    text: str
    parts: tuple[tuple[str, Field | None], ...]

    def fields(self) -> list[Field]:
        return [f for _, f in self.parts if f is not None]

    def render(self, show: Callable[[Field], str]) -> str:
        return "".join(lit + (show(f) if f else "") for lit, f in self.parts)


def parse_template(text: object, vocabulary: Vocabulary, scalars: Mapping[str, object]) -> Template:
    if not isinstance(text, str):
        raise RegimeError("template must be text")
    text = " ".join(text.split())  # YAML folded blocks leave newlines and a trailing break
    try:
        pieces = list(string.Formatter().parse(text))
    except ValueError as err:
        raise RegimeError(f"malformed template: {err}") from None
    parts: list[tuple[str, Field | None]] = []
    for literal, name, spec, conv in pieces:
        if name is None:
            parts.append((literal, None))
            continue
        parts.append((literal, _field(name, spec, conv, vocabulary, scalars)))
    return Template(text, tuple(parts))


def _field(name: str, spec: str | None, conv: str | None, vocabulary: Vocabulary,
           scalars: Mapping[str, object]) -> Field:
    m = _FIELD.match(name)
    if not m or conv:
        raise RegimeError(f"template field '{{{name}}}' is not a fact, parameter or fact@unit")
    fact = m["name"]
    if fact not in vocabulary and fact not in scalars:
        known = [*vocabulary.specs, *scalars]
        raise RegimeError(f"template names unknown fact '{fact}'{did_you_mean(fact, known)}")
    if spec and not _SPEC.match(spec):
        raise RegimeError(f"template format '{spec}' is not allowed (use e.g. .0f, .1f, .2%)")
    unit = m["unit"]
    if unit and unit != BARE and fact in vocabulary:
        canonical = vocabulary.get(fact).unit
        if unit != "%" and not units.same_dimension(unit, canonical):
            raise RegimeError(f"template unit '{unit}' does not fit {fact} ({canonical})")
    member = member_id(m["member"]) if m["member"] else None
    return Field(fact, member, unit, spec or None)
