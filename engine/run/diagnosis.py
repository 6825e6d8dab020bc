"""What a session concludes: conclusions, trace firings, and the Diagnosis that holds them."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from regime.core.record import Fields, Record, mutable_record, record
from regime.facts.record import FactRecord


@record
class Bound(Record):
    """A fact's value a conclusion rests on, with its unit and how it reads."""

    fact: str
    value: float
    unit: str
    text: str


@record
class Conclusion(Record):
    """One thing a rule concluded: a finding, verdict, ask or regime."""

    kind: str                  # derive/diagnose are facts; these are the rest plus diagnoses
    id: str                    # finding id, lever, claim, asked fact, or regime value
    rule: str
    because: str
    step: int
    pack: str = ""
    lever: str | None = None
    claim: str | None = None
    priority: int | None = None
    order: int | None = None
    bound: tuple[Bound, ...] = ()
    refs: tuple[str, ...] = ()
    fact: str | None = None    # diagnose: which fact it set
    holds: tuple[str, ...] = ()     # finding: kinds of verdict it makes conditional
    condition: str | None = None    # fix/reject: what the verdict depends on, when not sound alone
    folded_into: str | None = None  # verdict: the sibling lever whose same verdict stands for it
    rank: int | None = None         # fix: 1, 2, 3... in the order a report gives them
    speedup_bound: float | None = None     # fix: at most this many times faster (×)
    speedup_basis: str | None = None       # fix: what sized it (trace, profiler, counting)
    speedup_fact: str | None = None        # fix: the fact that holds speedup_bound
    speedup_expected: float | None = None  # fix: the point estimate, where the evidence allows


@record
class Firing(Record):
    """One rule firing, as the trace records it: what it matched and asserted."""

    step: int
    rule: str
    kind: str
    pack: str
    matched: dict[str, Any]
    asserted: dict[str, Any]
    layer: str = "built-in"


@mutable_record
class Diagnosis(Fields):
    """What a session concludes for one case: facts, conclusions and firings."""

    case: str
    title: str
    path: str
    facts: dict[str, FactRecord] = field(default_factory=dict)
    conclusions: list[Conclusion] = field(default_factory=list)
    trace: list[Firing] = field(default_factory=list)
    memory: dict[str, Any] = field(default_factory=dict)  # final working memory (why / why not)
    layers: list[str] = field(default_factory=list)        # knowledge layers, built-in first
    amendments: list[dict[str, Any]] = field(default_factory=list)  # overrides, replacements, ...

    def knowledge_line(self) -> str:
        """One line naming the active layers and how many amendments they make."""
        text = "knowledge: " + " + ".join(self.layers or ["built-in"])
        if self.amendments:
            text += "; " + "; ".join(f"{a['kind']} {a['target']} ({a['detail']})" for a in self.amendments)
        return text
    summary: str = ""
    hardware: str | None = None  # catalogue names, for reports
    model: str | None = None

    def fact_value(self, name: str) -> Any:
        rec = self.facts.get(name)
        return None if rec is None else rec.value

    def of_kind(self, kind: str) -> list[Conclusion]:
        """The conclusions a report gives, in its order; folded verdicts stand behind a sibling."""
        items = [c for c in self.conclusions if c.kind == kind and c.folded_into is None]
        if kind == "fix":
            return sorted(items, key=lambda c: (c.rank or 99, c.priority or 99, c.step))
        if kind == "finding":  # a finding that holds verdicts back leads
            return sorted(items, key=lambda c: (not c.holds, c.step))
        if kind == "ask":
            return sorted(items, key=lambda c: (99 if c.order is None else c.order, c.step))
        return items

    def folded(self) -> list[Conclusion]:
        """Verdicts the report leaves to a sibling lever's identical verdict."""
        return [c for c in self.conclusions if c.folded_into is not None]
