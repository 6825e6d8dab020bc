"""What a run's verdicts mean together, decided after every rule has fired.

Three general steps, driven by the packs' declarations and never by lever names:
a lever that `escalates` another (a stronger form of the same change) and gets the same verdict
is said once (see _fold_siblings); a finding that `holds` verdict kinds makes
them conditional on resolving it; the fixes that remain get ranks 1, 2, 3... in priority order,
except that a pack's `fix_order:` puts the levers the case's complaint asks for first, and
those it hurts last.
"""

from __future__ import annotations

from dataclasses import replace

from regime.engine.knowledge.model import Knowledge
from regime.engine.run.diagnosis import Conclusion, Diagnosis

VERDICTS = ("fix", "reject")


def settle(d: Diagnosis, k: Knowledge) -> None:
    proposed = _proposed(d, k)
    d.conclusions = _fold_siblings(d.conclusions, k, proposed)
    d.conclusions = _hold(d.conclusions)
    d.conclusions = _rank(d.conclusions, _order(d, k))


def _proposed(d: Diagnosis, k: Knowledge) -> set[str]:
    flags = [s.name for s in k.vocabulary.specs.values() if s.kind == "flags" and s.of == "levers"]
    return {name.split("__", 1)[1] for name in d.facts for f in flags if name.startswith(f"{f}__")}


def _fold_siblings(items: list[Conclusion], k: Knowledge, proposed: set[str]) -> list[Conclusion]:
    """Say a shared verdict once. A fix on an escalation nobody proposed stands behind the same fix
    on the milder lever (the milder fix is always worth listing: less risk). A rejection of both
    is one argument: it stands on the proposed lever, or on the milder one when neither (or both)
    was proposed."""
    verdict = {(c.kind, c.lever) for c in items if c.kind in VERDICTS and c.lever is not None}
    folded: dict[tuple[str, str], str] = {}
    for kind, lever in sorted(verdict):
        milder = k.levers[lever].escalates
        if milder is None or (kind, milder) not in verdict:
            continue
        if lever not in proposed:
            folded[(kind, lever)] = milder
        elif kind == "reject" and milder not in proposed:
            folded[(kind, milder)] = lever
    return [replace(c, folded_into=folded[(c.kind, c.lever)])
            if c.kind in VERDICTS and c.lever is not None and (c.kind, c.lever) in folded else c
            for c in items]


def _hold(items: list[Conclusion]) -> list[Conclusion]:
    holders = [c for c in items if c.kind == "finding" and c.holds]
    if not holders:
        return items
    out = []
    for c in items:
        held = [h for h in holders if c.kind in h.holds]
        if held:
            note = "; ".join(f"held back by finding '{h.id}' ({h.rule}): re-check the data first"
                             for h in held)
            c = replace(c, condition=f"{c.condition}; {note}" if c.condition else note)
        out.append(c)
    return out


def _order(d: Diagnosis, k: Knowledge) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The levers that lead and trail for this case's value of the pack's `fix_order: by` fact."""
    if k.fix_order is None or d.facts.get(k.fix_order.by) is None:
        return (), ()
    value = str(d.facts[k.fix_order.by].value)
    return k.fix_order.first.get(value, ()), k.fix_order.last.get(value, ())


def _rank(items: list[Conclusion], order: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
          ) -> list[Conclusion]:
    """Priority order, except that the complaint's `first` levers lead and its `last` trail."""
    first, last = order

    def key(c: Conclusion) -> tuple[int, int, int]:
        lever = c.lever or ""
        if lever in first:
            return 0, first.index(lever), c.step
        if lever in last:
            return 2, last.index(lever), c.step
        return 1, c.priority or 99, c.step

    fixes = sorted((c for c in items if c.kind == "fix" and c.folded_into is None), key=key)
    ranks = {id(c): i for i, c in enumerate(fixes, 1)}
    return [replace(c, rank=ranks[id(c)]) if id(c) in ranks else c for c in items]
