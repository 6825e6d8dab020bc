"""Whether an answer states one of the key's figures: its value near the figure's words (or a
unit that says what it is), the same rate in words or inverted, or a wrong value written with the
figure's own words, called wrong in any format. A derived figure's value that only restates a
measurement is not its derivation."""

from __future__ import annotations

import re

from regime.engine.grading.answer import Answer, Said
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.figures import matches, per_unit, reciprocal
from regime.engine.grading.key import Figure, Key


def stated(a: Answer, f: Figure, tol: float, concepts: Concepts | None,
            key: Key | None = None) -> bool | str:
    """True when the answer states `f`; the value written when it names `f` with a wrong one."""
    named = a.named.get(f.name) or a.named.get(f.name.replace("_", " "))
    if named is not None:
        return True if matches(named[0], f.value, f.unit, tol) else f"{named[0].written} (line {named[1]})"
    for said in a.numbers:
        if matches(said.q, f.value, f.unit, tol):
            if restated(a, said, f, key, tol) and not (concepts and concepts.near(f.name, said.context)):
                continue   # "the 40 GB transient allocation" restates the measurement, derives nothing
            if said.q.unit not in ("", "1", "%") or concepts is None or concepts.near(f.name, said.context):
                return True
        elif (q := per_unit(said.q, f.unit)) is not None and matches(q, f.value, f.unit, tol) \
                and concepts is not None and concepts.near(f.name, said.context):
            return True   # "each weight byte does roughly 256 FLOPs": a rate in words (sealed57 d.s592)
        elif (r := reciprocal(said.q, f.unit)) is not None and matches(r, f.value, f.unit, tol):
            return True   # "4.9 ms per token": the rate's inverse, its unit saying what it is
        elif concepts is not None and f.name in concepts.figure_factors and said.q.unit == "1" \
                and matches(said.q, 1 + f.value, "1", tol) and concepts.near(f.name, said.context):
            return True   # a gain as its factor: "~1.28x faster steps" is a 28% gain (sealed372 b.s3742)
    return wrong_value(a, f, concepts, key, tol)


def restated(a: Answer, said: Said, f: Figure, key: Key | None, tol: float) -> bool:
    """A derived figure's value that is also a measured one's, with fewer than two of the
    formula's operands beside it: the measurement restated ("40 GB allocated"), not derived
    ("40 GB = 32 x 25,000^2 x 2 B"); the blind grades credit the derivation, not the echo."""
    names = set(re.findall(r"[a-z_]+", f.formula)) if key is not None else set()
    if key is None or f.source != "derived" or not any(   # (25,000 tokens per pass is the prompt's)
            g.source == "measured" and g.name not in names | {f.name}
            and matches(said.q, g.value, g.unit, tol) for g in key.figures.values()):
        return False
    operands = [key.figures[n] for n in names if n in key.figures]
    beside = [s.q for s in a.numbers if s.line == said.line and s.context == said.context and s is not said]
    return sum(any(abs(q.value - g.value) <= tol * abs(g.value) for q in beside) for g in operands) < 2


def wrong_value(a: Answer, f: Figure, concepts: Concepts | None, key: Key | None, tol: float) -> bool | str:
    """A number in the figure's units, written with the figure's own words ('ceiling: 240
    tok/s'), that does not match: called wrong, in any answer format, not 'missing'. A share
    or a bare number is not enough to say which figure it means ('22% of kernel time'), and a
    number that is another of the key's figures is that one (the batch-1 ceiling written next to
    the word 'ceiling' is not a wrong int8 ceiling)."""
    if concepts is None:
        return False
    others = [g for g in key.figures.values() if g.name != f.name] if key is not None else []
    for said in a.numbers:
        if said.q.unit in ("", "1", "%") or said.q.canonical(f.unit) is None:
            continue
        if any(matches(said.q, g.value, g.unit, tol) for g in others):
            continue
        if f.name in concepts.figure_words and concepts.near(f.name, said.context):
            return f"{said.q.written} (line {said.line})" if said.line else said.q.written
    return False
