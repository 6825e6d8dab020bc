"""A case missing an essential input is refused, not reported as 'undetermined' with its
measurements silently ignored.

The packs say what is essential: an ask with `order: 0` names a missing input (no hardware,
no phase, no model size). When such an ask fires, no regime was reached and a number the case
measured was read by no rule, the case is refused at that fact's line with the ask's words
(exit 2): the person learns what to add, and that what they measured went unused. With a
regime reached, or nothing measured that went unused, the ask only leads the report.
"""

from __future__ import annotations

import re

from regime.core.errors import RegimeError
from regime.engine.run.diagnosis import Diagnosis
from regime.facts.record import FactRecord

_LINE = re.compile(r":(\d+)$")


def refusal(d: Diagnosis) -> RegimeError | None:
    """The located error for a case whose essential input is missing, or None."""
    missing = [c for c in d.of_kind("ask") if c.order == 0]
    if not missing or any(c.kind == "diagnose" for c in d.conclusions):
        return None
    read = _reaching(d, {c.rule for c in missing})
    unused = sorted((r for r in d.facts.values() if _written_in_case(r) and r.name not in read),
                    key=lambda r: _line(r.origin))
    if not unused:
        return None
    names = " and ".join(", ".join(r.name for r in unused).rsplit(", ", 1))
    words = "; ".join(" ".join(c.because.split()) for c in missing)
    return RegimeError(f"{names} cannot be used yet: {words}", file=d.path,
                       line=_line(unused[0].origin) or 1, field=f"facts.{unused[0].name}")


def _reaching(d: Diagnosis, leading: set[str]) -> set[str]:
    """Every fact some conclusion rests on (other than the leading asks themselves): the facts
    its rule matched, and through each derived fact the facts its rule read."""
    derived_by = {f.rule: f for f in d.trace if f.kind == "derive"}
    todo = [n for f in d.trace if f.kind != "derive" and f.rule not in leading for n in f.matched]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        rec = d.facts.get(name)
        if rec is not None and rec.rule:
            todo.extend(rec.inputs)
            firing = derived_by.get(rec.rule)
            todo.extend(firing.matched if firing else ())
    return seen


def _written_in_case(r: FactRecord) -> bool:
    """A number under the case's `facts:` (its origin is a line of the case file); categories
    (phase, dtypes) say what runs, they measure nothing that could go unused."""
    return (r.source == "measured" and r.unit not in ("flag", "category") and "__" not in r.name
            and _line(r.origin) > 0)


def _line(origin: str) -> int:
    match = _LINE.search(origin)
    return int(match[1]) if match else 0
