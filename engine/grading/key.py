"""The answer key is the engine's own diagnosis of a case, reduced to what a student can state.

Nothing here is hand-written: regime, figures, fixes, rejections, verdicts and asks all come
from the conclusions a run produced, and each keeps the justification ("because") the rule
rendered with its numbers, so feedback can quote it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from regime.core.units import FRACTION
from regime.engine.knowledge.model import Knowledge, Rule
from regime.engine.report.output import show_fact
from regime.engine.run.diagnosis import Diagnosis


@dataclass(frozen=True)
class Figure:
    """A number fact the key's conclusions cite, in canonical units."""

    name: str
    value: float
    unit: str
    text: str                 # as the engine displays it, e.g. '120 tokens/s'
    source: str               # measured, catalogue, assumed or derived
    formula: str = ""         # derived facts: how it was computed
    cited_by: str = ""        # the first rule whose justification or bound cites it

    def readings(self) -> tuple[float, ...]:
        """A share and its complement carry one argument: '96% idle' is '4% used'."""
        return (self.value, 1 - self.value) if self.unit == FRACTION and 0 < self.value < 1 else (self.value,)


@dataclass(frozen=True)
class Item:
    """A fix, rejection or ask of the key, with the rule's rendered justification."""

    id: str                   # lever, claim or asked fact
    rule: str
    because: str
    rank: int = 0             # fixes: position in priority order (1 = first)
    bound: str = ""
    cites: tuple[str, ...] = ()   # the facts its justification and bound cite: its deciding figures
    group: str = ""           # fixes: its rule's `alternatives` (one step offered as a menu)
    for_now: bool = False     # rejects: until the fixes before it change the regime


@dataclass(frozen=True)
class Decisive:
    """A figure a conclusion of the key turns on (its rule's `decides:`), with the figures that
    carry the same argument in other words: stating any one of them earns it."""

    names: tuple[str, ...]    # key figures, the rule's own first
    rule: str
    kind: str                 # what it decides: the fact a diagnosis sets (regime, nominal_regime),
                              # or the conclusion's kind (finding, fix, reject)


@dataclass
class Key:
    case: str
    title: str
    regime: str | None
    nominal_regime: str | None
    regime_because: str = ""
    nominal_because: str = ""
    figures: dict[str, Figure] = field(default_factory=dict)
    fixes: list[Item] = field(default_factory=list)
    rejects: list[Item] = field(default_factory=list)
    asks: list[Item] = field(default_factory=list)
    verdicts: dict[str, str] = field(default_factory=dict)   # proposal/claim -> fix | reject | none
    claims: list[str] = field(default_factory=list)           # which verdicts are on claims
    findings: list[str] = field(default_factory=list)         # finding ids (consistency checks)
    facts: dict[str, str] = field(default_factory=dict)       # every fact as displayed (feedback)
    regime_rules: list[str] = field(default_factory=list)     # the rules that set the regimes
    decisive: list[Decisive] = field(default_factory=list)    # what the fired conclusions turn on

    def decided(self, kinds: Sequence[str],
                thresholds: Mapping[str, float] | None = None) -> list[tuple[str, ...]]:
        """The decisive items of these kinds, each a tuple of figures any one of which earns it.
        Items that share a figure argue one point (the tokens per pass that put a step past the
        ridge also put it past the elementwise crossover): they are one item, so a number
        written once earns one point."""
        items: list[tuple[str, ...]] = []
        for x in self.decisive:
            if x.kind not in kinds:
                continue
            joined = [i for i, names in enumerate(items) if set(names) & set(x.names)]
            if not joined:
                items.append(x.names)
                continue
            first = joined[0]
            items[first] = tuple(dict.fromkeys([*(n for i in joined for n in items[i]), *x.names]))
            items = [names for i, names in enumerate(items) if i == first or i not in joined]
        return self._far(items, thresholds or {})

    def _far(self, items: list[tuple[str, ...]], thresholds: Mapping[str, float]) -> list[tuple[str, ...]]:
        """A threshold figure (rubric `thresholds`) asked on its own joins the item it is compared
        with, of its unit, when that one is the threshold's factor or more away: a figure a
        hundred times past a threshold is past it whatever the threshold's digits (a worked
        solution may argue it without them), where one a few percent past turns on both."""
        out = list(items)
        for names in items:
            if len(names) != 1 or names[0] not in thresholds or names[0] not in self.figures:
                continue
            t = self.figures[names[0]]
            far = next((i for i, other in enumerate(out) if other != names and any(
                f.unit == t.unit and f.value > 0 and t.value > 0
                and max(f.value / t.value, t.value / f.value) >= thresholds[t.name]
                for f in (self.figures[n] for n in other if n in self.figures))), None)
            if far is not None:
                out[far] = (*out[far], t.name)
                out.remove(names)
        return out

    def steps(self) -> list[list[Item]]:
        """The key's fixes as the worked solution's steps, in priority order: fixes whose rules
        share `alternatives` are one step (a menu, in no order), placed where its first one ranks."""
        out: list[list[Item]] = []
        at: dict[str, list[Item]] = {}
        for i in self.fixes:
            if i.group and i.group in at:
                at[i.group].append(i)
                continue
            out.append([i])
            if i.group:
                at[i.group] = out[-1]
        return out

    def item(self, concept: str) -> Item | None:
        return next((i for i in [*self.fixes, *self.rejects] if i.id == concept), None)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Key:
        raw = dict(raw)
        raw["figures"] = {n: Figure(**f) for n, f in raw["figures"].items()}
        for part in ("fixes", "rejects", "asks"):
            raw[part] = [Item(**{**i, "cites": tuple(i.get("cites", ()))}) for i in raw[part]]
        raw["decisive"] = [Decisive(tuple(x["names"]), x["rule"], x["kind"]) for x in raw.get("decisive", [])]
        return cls(**raw)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def build_key(d: Diagnosis, k: Knowledge) -> Key:
    """Reduce a diagnosis to its key: what it concludes and the figures those conclusions cite."""
    key = Key(d.case, d.title, _str(d.fact_value("regime")), _str(d.fact_value("nominal_regime")))
    rules = {r.id: r for r in k.rules}
    for c in d.of_kind("diagnose"):
        if c.fact == "regime":
            key.regime_because = c.because
            key.regime_rules.append(c.rule)
        elif c.fact == "nominal_regime":
            key.nominal_because = c.because
            key.regime_rules.append(c.rule)
    concluded = [*d.of_kind("diagnose"), *d.of_kind("finding"), *d.of_kind("fix"), *d.of_kind("reject")]
    for c in concluded:
        for name in _cites(c, rules, d.memory):
            _cite(key, d, k, name, c.rule)
    key.decisive = _decisive(key, d, k, [rules[c.rule] for c in concluded if c.rule in rules])
    for rank, c in enumerate(d.of_kind("fix"), 1):
        bound = ", ".join(f"{b.fact} = {b.text}" for b in c.bound)
        group = getattr(rules.get(c.rule), "alternatives", None) or ""
        key.fixes.append(Item(c.lever or c.id, c.rule, c.because, rank, bound,
                              _cites(c, rules, d.memory), group))
    key.rejects = [Item(c.lever or c.claim or c.id, c.rule, c.because, cites=_cites(c, rules, d.memory),
                        for_now=bool(getattr(rules.get(c.rule), "for_now", False)))
                   for c in d.of_kind("reject")]
    key.asks = [Item(c.id, c.rule, c.because, rank) for rank, c in enumerate(d.of_kind("ask"), 1)]
    key.findings = sorted({c.id for c in d.of_kind("finding")})
    key.verdicts = _verdicts(d, key)
    key.claims = sorted(v for v in key.verdicts if v in k.claims)
    key.facts = {n: show_fact(n, d, k) for n in sorted(d.facts)}
    return key


def _cites(c: Any, rules: dict[str, Any], memory: dict[str, Any]) -> tuple[str, ...]:
    """The facts a conclusion's justification (the text variant used) and bound cite, in order."""
    rule = rules.get(c.rule)
    cited = [f.key for f in rule.text_for(memory).fields()] if rule else []
    return tuple(dict.fromkeys([*cited, *(b.fact for b in c.bound)]))


def _decisive(key: Key, d: Diagnosis, k: Knowledge, fired: list[Rule]) -> list[Decisive]:
    """What each fired conclusion turns on, as figures of this case: a variant whose verdict
    flips fires other rules and so gets their figures. An item none of whose figures the case
    has is left out; one asked again by another conclusion of the same kind is asked once."""
    out: list[Decisive] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for rule in fired:
        for alternatives in rule.deciding():
            for name in alternatives:
                _cite(key, d, k, name, rule.id)
            names = tuple(n for n in alternatives if n in key.figures)
            kind = (rule.target or rule.kind) if rule.kind == "diagnose" else rule.kind
            if names and (kind, names) not in seen:
                seen.add((kind, names))
                out.append(Decisive(names, rule.id, kind))
    return out


def _cite(key: Key, d: Diagnosis, k: Knowledge, name: str, rule: str) -> None:
    rec = d.facts.get(name)
    if rec is None or name in key.figures or isinstance(rec.value, str | bool):
        return
    key.figures[name] = Figure(name, float(rec.value), rec.unit, show_fact(name, d, k),
                               rec.source, rec.formula or "", rule)


def _verdicts(d: Diagnosis, key: Key) -> dict[str, str]:
    """The key's verdict on each proposal and claim the case puts forward."""
    fixed = {i.id for i in key.fixes}
    rejected = {i.id for i in key.rejects}
    out = {}
    for name, rec in d.facts.items():
        item = name.partition("__")[2]
        if rec.unit == "flag" and item:
            out[item] = "fix" if item in fixed else "reject" if item in rejected else "none"
    return dict(sorted(out.items()))


def _str(v: Any) -> str | None:
    return None if v is None else str(v)
