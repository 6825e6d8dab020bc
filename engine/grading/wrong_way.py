"""Figures read the wrong way: an answer that commits to another regime than the key's and
quotes the very figures that decide the key's regime has read them against their meaning. The
blind grades take that evidence item with the regime ("-15: 71%/30% quoted but read as a memory
bottleneck", sealed142 d.s1445), where a figure that explains a finding (a ceiling, a share of
time) still shows work the answer did."""

from __future__ import annotations

from collections.abc import Sequence

from regime.engine.grading.key import Figure, Key
from regime.engine.grading.rubric import ReadWrongWay


def credited(key: Key, items: Sequence[Sequence[Figure]], missing: Sequence[str | None],
             rule: ReadWrongWay, regime: str | None) -> float:
    """The decisive items an answer states (`missing` None), each counted 1, but in an answer
    that names another regime than the key's `rule.share` for an item all of whose figures are
    ones the verdict's rules (`rule.kinds`) compare. A verdict in `rule.spared` (at the
    ridge) places those figures between the regimes, not against the key's reading."""
    wrong = regime not in (None, key.regime, *rule.spared) and key.regime is not None
    verdict = {n for x in key.decisive if x.kind in rule.kinds for n in x.names} if wrong else set()
    return sum(rule.share if verdict and {f.name for f in item} <= verdict else 1.0
               for item, miss in zip(items, missing, strict=True) if miss is None)
