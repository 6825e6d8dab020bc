"""What-if: re-diagnose a case with changed facts, on the same engine, and say what changed.

Changing the configuration invalidates two kinds of given facts: measurements that only held
at the measured operating point (the packs list them under `report: what_if:`), and given
facts that a rule would derive from a changed fact (weight bytes after a new weight dtype).
Both are dropped; a dropped fact that nothing re-derives is restored and said to be kept.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from regime.core.errors import RegimeError, did_you_mean
from regime.engine import api
from regime.engine.knowledge.model import Knowledge
from regime.engine.report.model import ReportModel, build
from regime.engine.report.whatif_diff import WhatIf, changes
from regime.facts.case import Case, load_case, one_fact


@dataclass
class Change:
    """One `--set name=value`, parsed against the vocabulary."""

    name: str
    raw: str


def parse_sets(sets: list[str], k: Knowledge) -> list[Change]:
    out = []
    for text in sets:
        name, sep, raw = text.partition("=")
        name = name.strip()
        if not sep or not raw.strip():
            raise RegimeError("expected NAME=VALUE, e.g. batch=64",
                              field=f"--set {text}")
        spec = k.vocabulary.specs.get(name)
        if spec is None or spec.kind in ("group", "flags"):
            hint = did_you_mean(name, k.vocabulary.specs)
            raise RegimeError(f"'{name}' is not a fact a what-if can set{hint}", field=f"--set {text}")
        out.append(Change(name, raw.strip()))
    return out


def load(path: Path, k: Knowledge, text: str | None = None) -> Case:
    return load_case(Path(path), k.vocabulary, k.levers, k.claims, k.catalogue, text=text)


def apply(case: Case, changes: list[Change], k: Knowledge) -> tuple[Case, list[str]]:
    """A copy of `case` with the changes applied and the facts they invalidate removed."""
    new = copy.copy(case)
    new.facts = dict(case.facts)
    for ch in changes:
        spec = k.vocabulary.get(ch.name)
        try:
            records = one_fact(spec, ch.raw, f"--set {ch.name}")
        except ValueError as err:
            raise RegimeError(str(err), field=f"--set {ch.name}") from None
        for r in records:
            new.facts[r.name] = r
    for name, raw in k.report.what_if_mark.items():
        for r in one_fact(k.vocabulary.get(name), raw, "what-if"):
            new.facts[r.name] = r
    changed = {ch.name for ch in changes}
    stale = set(k.report.operating_point) | _derivable_from(changed, k)
    dropped = sorted(n for n in new.facts if n.split("__")[0] in stale and n not in changed)
    for n in dropped:
        del new.facts[n]
    return new, dropped


def _derivable_from(changed: set[str], k: Knowledge) -> set[str]:
    """Facts some derive rule computes from a changed fact, directly or through other rules."""
    reads: dict[str, set[str]] = {}
    for r in k.rules:
        if r.kind == "derive" and r.formula is not None and r.target:
            reads.setdefault(r.target, set()).update(f.split("__")[0] for f in r.formula.facts())
    depends: set[str] = set()
    grew = True
    while grew:
        grew = False
        for target, inputs in reads.items():
            if target not in depends and inputs & (changed | depends):
                depends.add(target)
                grew = True
    return depends


def run(case: Case, changes: list[Change], k: Knowledge, engine: str = "durable") -> WhatIf:
    """Diagnose the changed case; given facts nothing re-derives are restored and kept."""
    new, dropped = apply(case, changes, k)
    runner = api.runner(k, engine)
    d = runner.diagnose(new)
    lost = [n for n in dropped if n not in d.facts and n.split("__")[0] not in k.report.operating_point]
    if lost:
        for n in lost:
            new.facts[n] = case.facts[n]
        d = runner.diagnose(new)
    return WhatIf([f"{c.name}={c.raw}" for c in changes], d, [n for n in dropped if n not in lost], lost)


def compare(path: Path, sets: list[str], k: Knowledge, text: str | None = None
            ) -> tuple[ReportModel, WhatIf, dict[str, Any]]:
    """The what-if report of one case (`text`: its file's text, read elsewhere): the new model,
    what was dropped, what changed."""
    case = load(path, k, text)
    w = run(case, parse_sets(sets, k), k)
    before = build(api.runner(k).diagnose(case), k)
    after = build(w.diagnosis, k)
    return after, w, changes(before, after)
