"""The review report as data: built once from a Diagnosis and the Knowledge, rendered three ways.

Order is what a reviewer reads first: verdict, fixes with their bounds, rejections with their
reason, evidence, findings and asks, then inputs and the derivation of every figure cited, as
a tree down to measured, catalogue and assumed facts. Facts no conclusion uses go to the
appendix. Every `text` is rounded for people; every `value` keeps full precision for JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from regime.core import units
from regime.core.escape import terminal_text
from regime.engine import lang
from regime.engine.knowledge.model import Knowledge
from regime.engine.report import display
from regime.engine.run.diagnosis import Conclusion, Diagnosis

SECTIONS = (("fixes", "fix", "Fixes, in priority order"), ("rejections", "reject", "Reject"),
            ("evidence", "diagnose", "Evidence"), ("findings", "finding", "Findings"),
            ("asks", "ask", "Measure next"))


@dataclass
class Fact:
    field: str           # working-memory name (JSON only)
    name: str            # as people read it: group[member], not group__member
    value: Any           # full precision
    text: str            # rounded, in its display unit
    source: str          # measured | catalogue | assumed | derived
    origin: str          # case file:line, datasheet line, pack and source, or rule id
    written: str | None = None
    meaning: str = ""
    say: str = ""        # in words (the fact's `say`), where a person reads it in a sentence

    def said(self) -> str:
        """`words = value`: how a bound or a figure reads in a verdict, a chart or a list."""
        return f"{self.say or self.name} = {self.text}"

    def as_written(self) -> str | None:
        """The value as written, where it says more than the rounded text (another unit, a
        range); not where it only has more digits."""
        plain = units.format_written(self.written or "")
        if not plain or plain == self.text or self.text.startswith(plain + " "):  # `4096` of `4096 tokens`
            return None
        return self.written

    def shown(self) -> str:
        """The rounded value, and the value as written where that says more."""
        written = self.as_written()
        return self.text + (f" (as written: {written})" if written else "")


@dataclass
class Node:
    """One fact in a derivation tree; derived facts carry their formula and children."""

    fact: Fact
    formula: str = ""        # symbolic, with the names people read
    substituted: str = ""    # the same with every value in its display unit
    rule: str = ""
    repeat: bool = False     # already expanded above in this report
    children: list[Node] = field(default_factory=list)


@dataclass
class Item:
    kind: str
    id: str
    title: str               # lever, claim, finding id or asked fact, for people
    text: str
    rule: str
    bounds: list[Fact] = field(default_factory=list)
    cites: list[str] = field(default_factory=list)   # names of facts the conclusion uses
    condition: str | None = None                     # what a conditional verdict depends on
    figure: Fact | None = None                       # the figure its `because` concludes with
    speedup: str | None = None                       # fix: "at most N× faster (basis)"
    speedup_short: str | None = None                 # the same for a table cell: "≤ N× (basis)"


@dataclass
class Verdict:
    regime: str | None
    nominal: str | None
    top_fix: str | None
    top_bound: list[Fact]
    line: str
    cites: list[str] = field(default_factory=list)   # the figures the line names (shown open)


@dataclass
class Inputs:
    hardware: str | None
    model: str | None
    summary: str
    measured: list[Fact]
    catalogue: list[Fact]
    assumed: list[Fact]
    knowledge: str           # the diagnosis's one line: layers and amendments
    layers: list[str]
    overrides: list[str]


@dataclass
class ReportModel:
    case: str
    title: str
    path: str
    verdict: Verdict
    inputs: Inputs
    evidence: list[Item]
    fixes: list[Item]
    rejections: list[Item]
    findings: list[Item]
    asks: list[Item]
    derivations: list[Node]
    appendix: list[Fact]
    chart: dict[str, Any] | None = None

    def sections(self) -> list[tuple[str, list[Item]]]:
        return [(title, getattr(self, attr)) for attr, _, title in SECTIONS]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def build(d: Diagnosis, k: Knowledge) -> ReportModel:
    """The report model of one diagnosis."""
    facts = {**d.memory, **{n: r.value for n, r in d.facts.items()}}
    rules = {r.id: r for r in k.rules}
    items = {attr: [_item(c, d, k, rules) for c in d.of_kind(kind)] for attr, kind, _ in SECTIONS}
    cited = _cited([d.facts.get("regime"), d.facts.get("nominal_regime")], items, d)
    trees = _Trees(d, k, facts, rules)
    derivations = [trees.node(f) for f in cited if f not in trees.seen]
    used = trees.seen | set(cited)
    verdict = _verdict(d, items)
    from regime.engine.report import chart_data  # the chart's numbers come from the same facts
    return ReportModel(
        case=terminal_text(d.case), title=terminal_text(d.title), path=terminal_text(Path(d.path).name),
        verdict=verdict,
        inputs=_inputs(d, k, used), derivations=derivations,
        appendix=[fact(n, d, k) for n in sorted(d.facts) if n not in used and not _hidden(n, d)],
        chart=chart_data.build(d, k, items["fixes"]), **items)


def fact(name: str, d: Diagnosis, k: Knowledge) -> Fact:
    rec = d.facts.get(name)
    if rec is None:  # a pack parameter the firing used but the session did not record
        param = k.parameters[display.base(name)]
        value = param.value if param.value is not None else _table_entry(name, param.table)
        return Fact(name, display.label(name), value, display.value_text(name, value, k), "assumed",
                    f"{param.pack}: {param.source}", meaning=param.meaning, say=display.say(name, k))
    origin = rec.origin if rec.source != "derived" else f"rule {rec.rule}"
    return Fact(name, display.label(name), rec.value, display.value_text(name, rec.value, k), rec.source,
                origin, rec.written, display.meaning(name, k), display.say(name, k))


def _table_entry(name: str, table: dict[str, float] | None) -> float | None:
    key = name.partition("[")[2].strip('"]')
    return (table or {}).get(key)


def _hidden(name: str, d: Diagnosis) -> bool:
    """Proposal and claim flags are shown as the items they are, not as facts; a category of a
    group (a kernel class, say) that is zero is left out, as nothing."""
    rec = d.facts[name]
    return rec.unit == "flag" or ("__" in name and _zero(rec.value))


def _zero(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _item(c: Conclusion, d: Diagnosis, k: Knowledge, rules: dict) -> Item:
    rule = rules.get(c.rule)
    firing = next((f for f in d.trace if f.rule == c.rule), None)
    cites: dict[str, None] = {}
    if rule is not None:
        for f in rule.text_for(d.memory).fields():
            cites.setdefault(f.key, None)
    for name in (firing.matched if firing else {}):
        if name in d.facts and d.facts[name].unit != "flag":
            cites.setdefault(name, None)
    for b in c.bound:
        cites.setdefault(b.fact, None)
    if c.speedup_fact:
        cites.setdefault(c.speedup_fact, None)
    title = c.lever or c.claim or (display.category(c.id) if c.kind == "diagnose" else c.id)
    fields = [f.key for f in rule.text_for(d.memory).fields()] if rule is not None else []
    last = next((n for n in reversed(fields) if n in d.facts), None)
    return Item(c.kind, c.id, title, c.because, c.rule,
                [fact(b.fact, d, k) for b in c.bound],
                [n for n in cites if n in d.facts or display.base(n) in k.parameters],
                getattr(c, "condition", None), fact(last, d, k) if last else None,
                display.speedup(c), display.speedup(c, short=True))


def _cited(verdict_facts: list, items: dict[str, list[Item]], d: Diagnosis) -> list[str]:
    order: dict[str, None] = {}
    for rec in verdict_facts:
        if rec is not None:
            order.setdefault(rec.name, None)
    for attr, _, _ in SECTIONS:
        for it in items[attr]:
            for n in [*(b.field for b in it.bounds), *it.cites]:
                order.setdefault(n, None)
    return list(order)


class _Trees:
    """Derivation trees; each derived fact is expanded once, later mentions point back."""

    def __init__(self, d: Diagnosis, k: Knowledge, facts: dict[str, Any], rules: dict) -> None:
        self.d, self.k, self.facts, self.rules = d, k, facts, rules
        self.seen: set[str] = set()

    def node(self, name: str, depth: int = 0) -> Node:
        f = fact(name, self.d, self.k)
        rec = self.d.facts.get(name)
        if rec is None or rec.source != "derived":
            self.seen.add(name)
            return Node(f)
        rule = self.rules.get(rec.rule or "")
        if name in self.seen or depth > 40:
            return Node(f, rule=rec.rule or "", repeat=True)
        self.seen.add(name)
        if rule is not None and rule.formula is not None:
            tree = rule.formula.tree
            kids = display.inputs(tree, self.facts)
            if isinstance(tree, lang.Call) and tree.fn == "total":  # the total as its terms add up
                f.text = display.sum_text([c for c in kids if c in self.facts], self.facts, self.k)[1]
            return Node(f, display.symbolic(tree), display.substituted(tree, self.facts, self.k),
                        rule.id, children=[self.node(c, depth + 1) for c in kids if self._known(c)])
        # a diagnosis: the facts and parameters its condition read
        kids = [*rec.inputs, *(n.name for n in (rule.when.constants() if rule and rule.when else []))]
        condition = rule.when.source if rule is not None and rule.when is not None else ""
        return Node(f, " ".join(condition.split()), "", rec.rule or "",
                    children=[self.node(c, depth + 1) for c in dict.fromkeys(kids) if self._known(c)])

    def _known(self, name: str) -> bool:
        rec = self.d.facts.get(name)
        if rec is not None:
            return not _hidden(name, self.d)
        return display.base(name) in self.k.parameters


def _verdict(d: Diagnosis, items: dict[str, list[Item]]) -> Verdict:
    """One line: the regime and the top fix with its bound; when the regime is undetermined,
    what the findings did establish and the first measurement the packs ask for."""
    regime, nominal = d.fact_value("regime"), d.fact_value("nominal_regime")
    fixes = items["fixes"]
    top = fixes[0] if fixes else None
    line = f"{display.category(regime)}"
    cites: list[str] = [n for n in ("regime", "nominal_regime") if n in d.facts]
    if nominal is not None:
        agree = nominal == regime
        line += f" ({'as theory predicts' if agree else 'theory says ' + display.category(nominal)})"
    if top is not None:
        bound = "; ".join(b.said() for b in top.bounds)
        if top.speedup:  # the comparable figure (issue 23) stands for the raw bound facts
            line += f"; top fix: {top.title}, {top.speedup}"
        else:
            line += f"; top fix: {top.title}" + (f" (bound: {bound})" if bound else "")
        cites += [b.field for b in top.bounds]
    elif regime is None:
        leading = d.of_kind("ask")[:1]
        line, known = _undetermined(line, items, bool(leading) and leading[0].order == 0)
        cites += known
    else:
        line += "; no fix applies"
    return Verdict(regime, nominal, top.title if top else None, top.bounds if top else [], line, cites)


def _undetermined(line: str, items: dict[str, list[Item]], missing: bool) -> tuple[str, list[str]]:
    """What is known without a regime (each finding and the figure it concludes with), and the
    measurement the packs ask for first (the lowest `order` among the asks); an essential input
    missing (an ask of order 0) leads, in the ask's words."""
    if missing:
        return line + "; " + items["asks"][0].text, []
    known = [it.title + (f" ({it.figure.said()})" if it.figure else "")
             for it in items["findings"]]
    line += "; known: " + ("; ".join(known) if known else "nothing yet")
    if items["asks"]:
        line += f"; one measurement would settle it: {items['asks'][0].title}"
    figures = [it.figure.field for it in items["findings"] if it.figure]
    return line + "; no fix applies yet", figures


def _inputs(d: Diagnosis, k: Knowledge, used: set[str]) -> Inputs:
    def listed(source: str) -> list[Fact]:
        return [fact(n, d, k) for n, r in sorted(d.facts.items())
                if r.source == source and n in used and not _hidden(n, d)]
    layers, overrides = layers_and_overrides(d)
    summary = d.summary and terminal_text(d.summary)
    return Inputs(d.hardware, d.model, summary, listed("measured"), listed("catalogue"),
                  listed("assumed"), d.knowledge_line(), layers, overrides)


def layers_and_overrides(d: Diagnosis) -> tuple[list[str], list[str]]:
    """The knowledge layers active for this diagnosis (built-in first) and every amendment they
    make (overrides, disabled, replaced and narrowed rules), with where each was written."""
    amendments = [f"{a['kind']} {a['target']}: {a['detail']} ({a['layer']}, {Path(a['where']).name})"
                  for a in d.amendments]
    return list(d.layers) or ["built-in"], amendments
