"""Figures from another case: an answer to one exercise case built on another's numbers (issue
27 class 6: "numbers taken from another case are only 'missing'"). The exercise's cases are the
ones rules/grading/variants.yaml lists; each one's key is the engine's, as for grading."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from regime.core.errors import RegimeError
from regime.core.yamlsrc import load_yaml
from regime.engine.grading.answer import Answer
from regime.engine.grading.figures import Quantity, matches
from regime.engine.grading.key import Key

TOLERANCE = 0.02   # as the variant check: a figure written to two digits matches


def exercise_cases(files: list[Path]) -> list[str]:
    """The case ids the variants files list, in order. A file that cannot be read names none:
    `regime exercise make` reports it; grading does without the check."""
    out: list[str] = []
    for f in files:
        try:
            raw = load_yaml(f) if f.is_file() else None
        except RegimeError:
            continue
        cases = raw.get("cases") if isinstance(raw, dict) else None
        out += [str(c) for c in (cases if isinstance(cases, dict) else {}) if str(c) not in out]
    return out


def borrowed(answer: Answer, key: Key, others: Mapping[str, Key],
             by_name: bool = False) -> tuple[list[str], str]:
    """The figures `answer` states with a unit that match another case's key and none of this
    one's, when they outnumber those that match this one's; and the case most of them are from.
    `by_name`: a figure this key states under a name another case's key gives the same value
    is the exercise's, not this case's (see `_common`)."""
    stated = list(dict.fromkeys(s.q for s in answer.numbers if s.q.unit))
    own = sum(1 for q in stated if _states(q, key) and not _shared(q, key, others)
              and not (by_name and _common(q, key, others)))
    found: list[str] = []
    whose: Counter[str] = Counter()
    for q in stated:
        if _states(q, key):
            continue
        cases = [c for c, k in others.items() if c != key.case and _states(q, k)]
        if cases:
            found.append(q.written)
            whose.update(cases)
    if len(found) <= own or not whose:
        return [], ""
    return found, whose.most_common(1)[0][0]


def _shared(q: Quantity, key: Key, others: Mapping[str, Key]) -> bool:
    """A figure every case of the exercise states (the machine's ridge point, its peak bandwidth)
    tells nothing about which case the answer was written on."""
    rest = [k for c, k in others.items() if c != key.case]
    return bool(rest) and all(_states(q, k) for k in rest)


def _common(q: Quantity, key: Key, others: Mapping[str, Key]) -> bool:
    """A figure this case's key states under the same name and value as another case's (an
    assumption the exercise makes for several cases, such as where elementwise traffic overtakes
    the GEMMs) is that case's as much as this one's: it tells nothing about which case the answer
    was written on (an answer on one case's ceiling and weights beside that shared crossover and
    one figure of its own; rules/grading/rubric.yaml `borrowed`)."""
    names = [f for f in key.figures.values() if matches(q, f.value, f.unit, TOLERANCE)]
    return any(g is not None and g.unit == f.unit and matches(q, g.value, g.unit, TOLERANCE)
               for c, k in others.items() if c != key.case
               for f in names for g in (k.figures.get(f.name),))


def _states(q: Quantity, key: Key) -> bool:
    return any(matches(q, f.value, f.unit, TOLERANCE) for f in key.figures.values())
