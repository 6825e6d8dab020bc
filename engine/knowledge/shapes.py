"""The YAML shapes of a rule pack (pydantic): what a pack may say, checked before anything is
compiled, so an error names the file, line, rule id and field."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr, model_validator

from regime.core import limits
from regime.core.names import member_id
from regime.facts.vocabulary import Interval

KINDS = ("derive", "diagnose", "finding", "fix", "reject", "ask")
DECIDING = ("diagnose", "finding", "fix", "reject")  # conclusions a figure can decide
ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ParamModel(_Strict):
    meaning: str
    source: str
    say: str = ""  # as people read it in a sentence (a fact's `say`)
    value: float | None = None
    unit: str = "1"
    display: str | None = None
    table: dict[str, float] | None = None
    list: tuple[str, ...] | None = Field(default=None, alias="list")
    range: str | None = None  # valid values, checked at declaration and on every override

    @model_validator(mode="after")
    def _one_shape(self) -> ParamModel:
        shapes = [x is not None for x in (self.value, self.table, self.list)]
        if sum(shapes) != 1:
            raise ValueError("a parameter has exactly one of value, table or list")
        if self.range is not None:
            Interval.parse(self.range)
        for v in [self.value, *(self.table or {}).values()]:
            _plausible(v)
        if self.list is not None:
            ids = [member_id(m) for m in self.list]
            if not ids or len(set(ids)) != len(ids):
                raise ValueError("a list parameter names at least one member, each once")
        return self


def _plausible(v: float | None) -> None:
    if v is not None and not limits.plausible(v):
        raise ValueError(f"{v!r} is out of range ({limits.describe()})")


class LeverModel(_Strict):
    meaning: str
    attacks: tuple[str, ...]  # resource ids, declared in a pack's `resources:` section
    aliases: tuple[str, ...] = ()
    escalates: str | None = None  # a stronger form of this lever: same verdicts are said once


class ClaimModel(_Strict):
    text: str
    aliases: tuple[str, ...] = ()


class VariantModel(_Strict):
    """A justification for the facts `when` names (rules' `because_if`)."""

    when: str
    because: str


class RuleModel(_Strict):
    id: str
    description: str
    when: str | None = None
    because: str
    because_if: tuple[VariantModel, ...] = Field(default=(), max_length=8)  # first that holds wins
    refs: tuple[str, ...] = ()
    derive: str | None = None
    formula: StrictStr | StrictFloat | StrictInt | None = None
    diagnose: str | None = None
    value: str | None = None
    finding: str | None = None
    fix: str | None = None
    priority: int | None = Field(default=None, ge=1, le=99)
    # fix: fix rules that share this name are one step's alternatives, offered in no order
    # ("attack compute: fp8 GEMMs, fused attention, tiling"): a grader counts them as one fix
    alternatives: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]{0,63}$")
    bound: tuple[str, ...] = ()
    # fix: the fact giving "at most N× faster", by basis in the speedup_bases category's order
    speedup_bound: dict[str, str] = {}
    speedup_expected: dict[str, str] = {}    # fix: the point estimate, by basis likewise
    reject: str | None = None
    # reject: the verdict holds until the fixes before it change the regime ("fix the utilization
    # first, then ..."): an answer deferring the lever ("once the gaps are gone, batch") agrees
    for_now: bool = False
    claim: str | None = None
    ask: str | None = None
    order: int | None = Field(default=None, ge=0, le=99)  # 0: an essential input is missing
    replaces: str | None = None      # a layer rule taking the place of a loaded rule
    precedence: int = Field(default=0, ge=0, le=50)  # among rules concluding about one fact
    holds: tuple[str, ...] = ()     # finding: verdict kinds it makes conditional
    condition: str | None = None    # fix/reject: what the verdict depends on (a template)
    # the figures the conclusion turns on: an answer giving the conclusion gives these to support
    # it (the grading key's decisive evidence); a list in place of a name holds alternatives that
    # carry the same argument in other words, any one of which is enough
    decides: tuple[str | tuple[str, ...], ...] | None = Field(default=None, max_length=8)

    @model_validator(mode="after")
    def _one_conclusion(self) -> RuleModel:
        if not ID.match(self.id):
            raise ValueError(f"rule id '{self.id}' must be lower_snake_case")
        given = [k for k in KINDS if getattr(self, k) is not None]
        if self.claim is not None and "reject" not in given:
            given.append("reject")
        if len(given) != 1:
            raise ValueError(f"a rule has exactly one conclusion ({', '.join(KINDS)}); got "
                             f"{', '.join(given) or 'none'}")
        kind = given[0]
        needs = {"derive": ["formula"], "diagnose": ["value"], "fix": ["priority"], "ask": ["order"]}
        for key in needs.get(kind, []):
            if getattr(self, key) is None:
                raise ValueError(f"a {kind} rule needs '{key}'")
        if kind == "reject" and (self.reject is None) == (self.claim is None):
            raise ValueError("a reject rule names exactly one of 'reject' (a lever) or 'claim'")
        if kind != "fix" and (self.priority is not None or self.bound or self.speedup_bound
                              or self.speedup_expected or self.alternatives is not None):
            raise ValueError("'priority', 'alternatives', 'bound' and 'speedup_*' belong to fix rules")
        if self.holds and (kind != "finding" or set(self.holds) - {"fix", "reject"}):
            raise ValueError("'holds' belongs to finding rules and lists fix and/or reject")
        if self.for_now and kind != "reject":
            raise ValueError("'for_now' belongs to reject rules")
        if self.condition is not None and kind not in ("fix", "reject"):
            raise ValueError("'condition' belongs to fix and reject rules")
        if self.decides is not None and kind not in DECIDING:
            raise ValueError(f"'decides' belongs to {', '.join(DECIDING)} rules")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in KINDS if getattr(self, k) is not None) if self.claim is None \
            else "reject"


class OverrideModel(_Strict):
    parameters: dict[str, StrictFloat | StrictInt | StrictStr] = {}  # '60%', 0.6: unit-aware
    disable: tuple[str, ...] = ()     # rule ids or globs ('advise_*')
    and_when: dict[str, str] = {}     # rule id -> extra condition, joined with 'and'


class OrderModel(_Strict):
    """Where a lever's fix goes when a category fact (the complaint) has a given value."""
    first: tuple[str, ...] = ()  # these fixes lead, in this order
    last: tuple[str, ...] = ()   # these follow every other fix, in this order


class FixOrderModel(_Strict):
    by: str                                  # a category fact, e.g. complaint
    orders: dict[str, OrderModel] = {}       # its value -> the order that value asks for


class PackModel(_Strict):
    pack: str
    version: str | None = None  # optional; `regime --version` adds a hash of the file either way
    description: str
    resources: dict[str, str] = {}
    parameters: dict[str, Any] = {}
    facts: dict[str, Any] = {}
    levers: dict[str, Any] = {}
    claims: dict[str, Any] = {}
    rules: list[Any] = []
    overrides: OverrideModel | None = None
    hardware: dict[str, Any] = {}    # catalogue entries this layer adds (same shape as the catalogue)
    models: dict[str, Any] = {}
    report: dict[str, Any] | None = None  # engine/knowledge/spec.py
    fix_order: FixOrderModel | None = None  # engine/run/settle.py ranks fixes by it
