"""What the packs compile to: parameters, levers, claims, rules and the Knowledge holding them.

Kept apart from the pack loader (packs.py) so that running cases, rendering reports and
reading the knowledge cache never build the loader's pydantic schemas.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path
from typing import Any

from regime.core import units
from regime.core.errors import RegimeError
from regime.core.record import Fields, Record, mutable_record, record
from regime.engine import lang
from regime.engine.knowledge.spec_types import ReportSpec
from regime.engine.lang.template import Field, Template
from regime.facts.vocabulary import Interval, Vocabulary

BUILTIN = "built-in"  # the layer name of the packs that ship with regime


@record
class Parameter(Record):
    """A pack parameter: a number, a table by category, or a list of items."""

    name: str
    meaning: str
    source: str
    pack: str
    unit: str = "1"
    display: str | None = None
    value: float | None = None
    table: dict[str, float] | None = None
    items: tuple[str, ...] | None = None
    layer: str = BUILTIN
    range: str | None = None
    file: str = ""
    line: int | None = None
    say: str = ""

    @property
    def interval(self) -> Interval:
        """Declared range; a fraction without one is a share, [0, 1]."""
        if self.range:
            return Interval.parse(self.range)
        return Interval(0.0, 1.0) if self.unit in ("%", units.FRACTION) else Interval(-math.inf, math.inf)


@record
class Lever(Record):
    """A fix a verdict can recommend or reject, and the bottleneck it attacks."""

    id: str
    meaning: str
    attacks: tuple[str, ...]
    aliases: tuple[str, ...]
    escalates: str | None = None    # a stronger form of this lever: same verdicts are said once


@record
class Claim(Record):
    """A statement a rule can reject, with the aliases answers may use."""

    id: str
    text: str
    aliases: tuple[str, ...]


@record
class Rule(Record):
    """One compiled rule: its condition, what it concludes, and where it was written."""

    id: str
    kind: str
    pack: str
    file: str
    line: int
    description: str
    because: Template
    refs: tuple[str, ...]
    when: lang.Expression | None
    formula: lang.Expression | None = None
    target: str | None = None       # fact set by derive/diagnose
    value: str | None = None        # diagnose: the category value it sets
    copy_from: str | None = None    # diagnose: or the category fact whose value it copies
    subject: str | None = None      # finding id, lever, claim or asked fact
    priority: int | None = None
    alternatives: str | None = None   # fix: rules sharing it are one step's alternatives
    for_now: bool = False             # reject: until the fixes before it change the regime
    order: int | None = None
    bound: tuple[str, ...] = ()
    speedup_bound: tuple[tuple[str, str], ...] = ()     # fix: (basis, fact), best basis first
    speedup_expected: tuple[tuple[str, str], ...] = ()
    layer: str = BUILTIN
    precedence: int = 0
    holds: tuple[str, ...] = ()           # finding: verdict kinds it makes conditional
    condition: Template | None = None     # fix/reject: what the verdict depends on
    # justifications said only where their facts hold: the first whose condition holds replaces
    # `because`, so a text never claims what the case does not support
    because_if: tuple[tuple[lang.Expression, Template], ...] = ()
    # the figures the conclusion turns on, each with the alternatives that carry the same
    # argument (`decides:`); None: not said (a diagnosis then takes what its condition compares)
    decides: tuple[tuple[str, ...], ...] | None = None

    def text_fields(self) -> list[Field]:
        """Fields its texts can name: the `because_if` variants first (tried first), then `because`."""
        seen: dict[str, Field] = {}
        for template in [*(t for _, t in self.because_if), self.because]:
            for f in template.fields():
                seen.setdefault(f.key, f)
        return list(seen.values())

    def text_for(self, facts: lang.Facts) -> Template:
        """The justification these facts give: the first `because_if` variant that holds, or `because`."""
        return next((t for w, t in self.because_if if lang.truth(w.tree, facts)), self.because)

    def deciding(self) -> tuple[tuple[str, ...], ...]:
        """The figures this conclusion turns on (the grading key's decisive evidence), each a
        tuple of accepted alternatives: as `decides:` says, or, for a diagnosis that says
        nothing, each number fact its condition compares (a regime's deciding pair)."""
        if self.decides is not None:
            return self.decides
        if self.kind != "diagnose" or self.when is None:
            return ()
        return tuple((f,) for f in lang.compared(self.when.tree))

    def cites(self) -> set[str]:
        """Every field its condition reads or its texts and bound name."""
        texts = [f.key for f in self.text_fields()]
        if self.condition is not None:
            texts += [f.key for f in self.condition.fields()]
        return {*self.reads(), *texts, *self.bound}

    def required(self) -> list[str]:
        """Fields that must be present before the conclusion can be computed."""
        needed = self.formula.required() if self.formula else []
        return [*needed, self.copy_from] if self.copy_from else needed

    def reads(self) -> list[str]:
        """Working-memory fields this rule's condition and formula read (worked out once, and
        kept with the rule in the knowledge cache)."""
        memo = self.__dict__.get("_reads")
        if memo is None:
            seen: dict[str, None] = {}
            for e in (self.when, self.formula):
                if e is not None:
                    for f in e.facts():
                        seen.setdefault(f, None)
            if self.copy_from:
                seen.setdefault(self.copy_from, None)
            memo = self.__dict__["_reads"] = tuple(seen)
        return list(memo)


@record
class Amendment(Record):
    """One change a layer makes to what was loaded before it, for reports and traces."""

    kind: str      # override | disable | replace | and_when
    target: str    # parameter or rule id
    layer: str
    file: str
    line: int | None
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "layer": self.layer,
                "where": f"{self.file}:{self.line or 0}", "detail": self.detail}


@record
class FixOrder(Record):
    """How a category fact's value (the complaint) reorders the fixes: `first` lead, `last` trail."""

    by: str
    first: dict[str, tuple[str, ...]]
    last: dict[str, tuple[str, ...]]


@mutable_record
class Knowledge(Fields):
    """Everything the packs compile to: vocabulary, parameters, levers, claims, rules."""

    vocabulary: Vocabulary
    parameters: dict[str, Parameter] = field(default_factory=dict)
    levers: dict[str, Lever] = field(default_factory=dict)
    claims: dict[str, Claim] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)
    packs: list[str] = field(default_factory=list)
    resources: dict[str, str] = field(default_factory=dict)
    where: dict[str, tuple[str, int | None]] = field(default_factory=dict)  # "lever:id" -> file, line
    layers: list[str] = field(default_factory=list)
    amendments: list[Amendment] = field(default_factory=list)
    # kind ('hardware'/'models') -> name -> (entry, file): catalogue entries the layers add
    catalogue: dict[str, dict[str, tuple[dict, str]]] = field(default_factory=dict)
    findings: set[str] = field(default_factory=set)  # finding ids rules conclude (for messages)
    report: ReportSpec = field(default_factory=ReportSpec)  # what reports chart; what a what-if drops
    # a category fact and, per value, the levers whose fixes lead and trail (the last pack's wins)
    fix_order: FixOrder | None = None
    # what an evaluator derives from this knowledge alone (durable's ruleset text), made when
    # the knowledge is built, so the knowledge cache keeps it (engine/session.py: prepare)
    prepared: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # evaluators built for this knowledge (engine.api.runner), dropped with it
    evaluators: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (the knowledge cache, worker processes) without its evaluators: they hold
        durable's C resources and are rebuilt where they are needed."""
        return {**self.__dict__, "evaluators": {}}

    def scalar_values(self) -> dict[str, float]:
        return {n: p.value for n, p in self.parameters.items() if p.value is not None}


TEST_SUFFIX = ".test.yaml"


def pack_files(dirs: Iterable[Path]) -> list[Path]:
    """The pack files of each directory in name order; pack tests (*.test.yaml) are not packs."""
    files: list[Path] = []
    for d in dirs:
        if d.is_file():
            files.append(d)
        elif d.is_dir():
            files.extend(sorted(p for p in d.iterdir() if p.suffix in (".yaml", ".yml")
                                and not p.name.endswith(TEST_SUFFIX)))
        else:
            raise RegimeError("rules directory does not exist", file=str(d))
    return files


def layer_name(d: Path) -> str:
    """How outputs name a layer: 'built-in' for the shipped packs, else the path as given."""
    from regime.engine.knowledge.paths import RULES_DIR
    return BUILTIN if d.resolve() == RULES_DIR.resolve() else str(d)
