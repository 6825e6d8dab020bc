"""What a what-if changed, for people: the diagnosis with changed facts (engine/whatif.py
makes it) against the original, as regime, fixes, rejections and cited figures."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from regime.engine.report import display
from regime.engine.report.model import ReportModel
from regime.engine.run.diagnosis import Diagnosis


@dataclass
class WhatIf:
    sets: list[str]
    diagnosis: Diagnosis
    dropped: list[str] = field(default_factory=list)   # given facts that no longer hold
    kept: list[str] = field(default_factory=list)      # dropped, but nothing re-derives them


def changes(before: ReportModel, after: ReportModel) -> dict[str, Any]:
    """Regime, fixes, rejections and the figures either report cites, before and after."""
    out: dict[str, Any] = {}
    for key in ("regime", "nominal"):
        a, b = getattr(before.verdict, key), getattr(after.verdict, key)
        if a != b:
            out[key] = [display.category(a), display.category(b)]
    for key in ("fixes", "rejections"):
        a = [it.title for it in getattr(before, key)]
        b = [it.title for it in getattr(after, key)]
        if a != b:
            out[key] = {"before": a, "after": b, "added": [x for x in b if x not in a],
                        "removed": [x for x in a if x not in b]}
    figures = {}
    all_before, all_after = _all_facts(before), _all_facts(after)
    for name in dict.fromkeys([*_cited(before), *_cited(after)]):
        a, b = all_before.get(name, "—"), all_after.get(name, "—")
        if a != b:
            figures[name] = [a, b]
    if figures:
        out["figures"] = figures
    return out


def _cited(m: ReportModel) -> list[str]:
    """The derived figures a report cites: the nodes of its derivation trees."""
    out: list[str] = []

    def walk(n) -> None:
        if n.fact.source == "derived" and isinstance(n.fact.value, float):
            out.append(n.fact.name)
        for c in n.children:
            walk(c)
    for n in m.derivations:
        walk(n)
    return out


def _all_facts(m: ReportModel, attr: str = "text") -> dict[str, str]:
    out = {f.name: getattr(f, attr) for f in m.appendix}

    def walk(n) -> None:
        out[n.fact.name] = getattr(n.fact, attr)
        for c in n.children:
            walk(c)
    for n in m.derivations:
        walk(n)
    return out


def words(m: ReportModel) -> dict[str, str]:
    """The figures a report shows, by name, in the words people read them in (where they have some)."""
    return {name: say for name, say in _all_facts(m, "say").items() if say}


def describe(diff: dict[str, Any], full: bool = True, said: dict[str, str] | None = None) -> list[str]:
    """The changes as lines for people: the verdict's first (regime, fixes, rejections), then each
    changed figure in words (`said`: name -> words); without `full`, only how many figures changed."""
    lines = []
    for key, label in (("regime", "regime"), ("nominal", "nominal regime")):
        if key in diff:
            lines.append(f"{label}: {diff[key][0]} → {diff[key][1]}")
    for key, label in (("fixes", "fixes"), ("rejections", "rejections")):
        if key in diff:
            d = diff[key]
            parts = [f"+{x}" for x in d["added"]] + [f"−{x}" for x in d["removed"]]
            order = "" if parts else " (reordered)"
            lines.append(f"{label}: {', '.join(d['before']) or 'none'} → {', '.join(d['after']) or 'none'}"
                         f"{order}" + (f" ({', '.join(parts)})" if parts else ""))
    figures = diff.get("figures", {})
    if figures and not full:
        lines.append(f"{len(figures)} figure{'s' if len(figures) > 1 else ''} changed (--full lists them)")
    elif figures:
        lines += [f"{(said or {}).get(name, name)}: {a} → {b}" for name, (a, b) in figures.items()]
    return lines or ["nothing the report shows changed"]
