"""Justification templates: '{peak_bw} / {weight_bytes} = {ceiling_tokens_per_s}'.

Fields name facts (optionally a group member `kernel_share[to_copy]`) or scalar parameters,
with an optional display unit `@GB/s` (`@-` for the bare number in the fact's display unit).
There is no number format: every figure is rounded by core/units.format_number, so a sentence
shows it as the tables and the derivation tree do. Fields are checked at load time; rendering
never evaluates anything.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping

from regime.core import units
from regime.core.errors import RegimeError, did_you_mean
from regime.core.names import member_id
from regime.core.record import Record, record
from regime.facts.vocabulary import Vocabulary

_FIELD = re.compile(r"^(?P<name>[a-z][a-z0-9_]*)(?:\[(?P<member>[^\]]+)\])?(?:@(?P<unit>[^:]+))?$")
BARE = "-"


@record
class Field(Record):
    """A `{fact[member]@unit}` placeholder in a rule's text."""

    name: str
    member: str | None
    unit: str | None

    @property
    def key(self) -> str:
        return self.name if self.member is None else f"{self.name}__{self.member}"


@record
class Template(Record):
    """A rule's text split into literal parts and placeholders, parsed once at load."""

    text: str
    parts: tuple[tuple[str, Field | None], ...]

    def fields(self) -> list[Field]:
        return [f for _, f in self.parts if f is not None]

    def render(self, show: Callable[[Field], str]) -> str:
        return "".join(lit + (show(f) if f else "") for lit, f in self.parts)


def parse_template(text: object, vocabulary: Vocabulary, scalars: Mapping[str, str]) -> Template:
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
           scalars: Mapping[str, str]) -> Field:
    """Check one {field}: it names a fact (a member for groups) or a scalar parameter, and any
    unit override fits that quantity. `scalars` maps parameter names to their units."""
    m = _FIELD.match(name)
    if not m or conv:
        raise RegimeError(f"template field '{{{name}}}' is not a fact, parameter or fact@unit")
    fact, member, unit = m["name"], m["member"], m["unit"]
    if spec:
        raise RegimeError(f"template field '{{{name}:{spec}}}': a number format is not allowed; every "
                          f"figure is rounded by one rule (docs/engine.md, 'Rounding for people'): "
                          f"write {{{name}}}")
    if fact in vocabulary:
        fspec = vocabulary.get(fact)
        if (fspec.kind in ("group", "flags")) != bool(member):
            raise RegimeError(f"template field '{{{name}}}': "
                              + (f"{fact} is a {fspec.kind}; name a member, e.g. {{{fact}[...]}}"
                                 if not member else f"{fact} has no members"))
        if fspec.kind in ("category", "flags") and unit:
            raise RegimeError(f"template field '{{{name}}}': {fact} is not a number")
        canonical = fspec.unit
    elif fact in scalars:
        if member:
            raise RegimeError(f"template field '{{{name}}}': parameter {fact} has no members")
        canonical = scalars[fact]
    else:
        known = [*vocabulary.specs, *scalars]
        raise RegimeError(f"template names unknown fact '{fact}'{did_you_mean(fact, known)}")
    if unit and unit != BARE:
        _check_unit(unit, canonical, name)
    return Field(fact, member_id(member) if member else None, unit)


def _check_unit(unit: str, canonical: str, name: str) -> None:
    dimensionless = canonical in ("1", "%", units.FRACTION)
    try:
        fits = dimensionless if unit == "%" else units.same_dimension(unit, canonical)
    except ValueError as err:
        raise RegimeError(f"template field '{{{name}}}': {err}") from None
    if not fits:
        raise RegimeError(f"template unit '{unit}' does not fit '{{{name}}}' ({canonical})")
