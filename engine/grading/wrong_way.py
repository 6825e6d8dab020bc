"""Figures read the wrong way: an answer that commits to another regime than the key's and
quotes the very figures that decide the key's regime has read them against their meaning. The
blind grades take that evidence item with the regime ("-15: 71%/30% quoted but read as a memory
bottleneck", sealed142 d.s1445), where a figure that explains a finding (a ceiling, a share of
time) still shows work the answer did. The same holds under the key's own regime when the answer
says what reading them against their meaning says (rubric.yaml `read_wrong_way.misreads`: "30% of
bandwidth, so there is plenty of bandwidth headroom to exploit" where compute binds)."""

from __future__ import annotations

from collections.abc import Sequence

from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.key import Figure, Key
from regime.engine.grading.misreads import misreads, stems
from regime.engine.grading.rubric import ReadWrongWay


def credited(key: Key, items: Sequence[Sequence[Figure]], missing: Sequence[str | None],
             rule: ReadWrongWay, regime: str | None, misread: bool = False) -> float:
    """The decisive items an answer states (`missing` None), each counted 1, but in an answer
    that names another regime than the key's `rule.share` for an item all of whose figures are
    ones the verdict's rules (`rule.kinds`) compare. A verdict in `rule.spared` (at the
    ridge) places those figures between the regimes, not against the key's reading. `misread`:
    the answer reads them against their meaning under any verdict (`misread_clause`)."""
    wrong = (misread or regime not in (None, key.regime, *rule.spared)) and key.regime is not None
    verdict = {n for x in key.decisive if x.kind in rule.kinds for n in x.names} if wrong else set()
    return sum(rule.share if verdict and {f.name for f in item} <= verdict else 1.0
               for item, miss in zip(items, missing, strict=True) if miss is None)


def misread_clause(text: str, key: Key, rule: ReadWrongWay, concepts: Concepts | None) -> str | None:
    """The first clause of the answer that spells a phrase reading the key's regime figures
    against their meaning, none of `rule.unless` in it ("the 70% of bandwidth headroom is
    irrelevant" reads them right)."""
    if concepts is None:
        return None
    phrases = tuple(tuple(stems(concepts, p)) for p in rule.misreads.get(key.regime or "", []))
    if not phrases:
        return None
    unless = {w for u in rule.unless for w in stems(concepts, u)}
    return next((c.strip() for c in clauses(text)
                 if misreads(concepts, phrases, c) and not unless & set(stems(concepts, c))), None)


def misread_line(clause: str, rule: ReadWrongWay) -> str:
    """The feedback naming the clause that read the figures the wrong way (rubric.yaml's words)."""
    shown = clause if len(clause) <= 80 else clause[:77].rstrip() + "…"
    return rule.feedback.format(clause=shown, share=f"{rule.share:.0%}")
