"""The rubric is data: rules/grading/rubric.yaml, merged with an instructor's layers.

A layer is any `grading/rubric*.yaml` under a `--rules` directory, read by core/layered.py's one
rule: its mappings merge into the built-in rubric key by key and everything else (lists,
numbers) replaces; each layer is validated and its mistakes reported at its own FILE:LINE.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from regime.core.layered import layer_files, read_layers

PARTS = ("regime", "evidence", "fixes", "order", "rejections", "proposals", "asks")
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Penalty(_Strict):
    id: str
    when: Literal["recommends", "rejects", "endorses", "leans"]
    rules: list[str]
    points: float = Field(ge=0)
    feedback: str
    unless: list[str] = []   # rules whose fix the answer recommends: then this side is no trap
    scope: Literal["any", "asked", "unasked"] = "any"   # the key items it charges: those the case
    #   asks about (its proposals, claims, named traps), the others, or any
    same_as: list[str] = []   # penalties that charge the same error from its other side: where
    #   one of them is charged, this side costs `same_points` besides its item
    same_points: float = Field(0.0, ge=0)
    secondary: float | None = Field(None, ge=0)   # a lever recommended after a key fix: a second
    #   step, not the plan (None: it costs `points` wherever it stands)
    argued_by: list[str] = []   # regimes: a refusal is this trap only where its item names one
    #   (or a `same_as` penalty is charged): one refused for its cost costs only its item


class RegimePart(_Strict):
    nominal_share: float = Field(0.25, ge=0, le=1)
    hedged: float = Field(1.0, ge=0, le=1)     # of the verdict's share, when it is only hedged
    opined: float = Field(1.0, ge=0, le=1)     # ... when an opinion marker qualifies it ("I think")
    denied_nominal: float = Field(0.0, ge=0, le=1)   # ... when the answer names no regime but rules
    #                                                  out the nominal one the step is not in
    qualified: float = Field(0.0, ge=0, le=1)   # ... when it names the key's regime, the nominal
    #   one too, "in principle" and turns to another "in practice"

    def verdict(self, hedged: bool, opined: bool) -> float:
        """The share of the verdict's part that a right regime earns as it is committed to."""
        return self.hedged if hedged else self.opined if opined else 1.0


class Supporting(_Strict):
    share: float = Field(0.2, ge=0, le=1)   # of the evidence part
    enough: int = Field(3, ge=1)            # supporting figures that earn all of it


class ReadWrongWay(_Strict):
    kinds: list[Literal["regime", "nominal_regime", "finding", "fix", "reject"]] = []
    share: float = Field(1.0, ge=0, le=1)   # of an item of only those rules' figures, regime wrong
    spared: list[str] = []                  # verdicts that place the figures between the regimes
    misreads: dict[str, list[str]] = {}     # regime -> phrases that read its figures the wrong way
    unless: list[str] = []                  # words that keep a clause from stating such a phrase
    feedback: str = "Read the wrong way: '{clause}'; these figures earn {share} of their item"


class EvidencePart(_Strict):
    sources: list[Literal["derived", "measured", "catalogue", "assumed"]] = ["derived"]
    relative_tolerance: float = Field(0.005, ge=0, le=1)
    # whose deciding figures (rules' `decides:`) are the decisive evidence: the rules that set
    # the regime or the nominal regime, and findings, fixes and rejections
    decided_by: list[Literal["regime", "nominal_regime", "finding", "fix", "reject"]] = \
        ["regime", "finding", "fix"]
    supporting: Supporting = Supporting()
    thresholds: dict[str, float] = {}   # fact -> factor: a threshold needs no stating that far away
    without_regime: float = Field(1.0, ge=0, le=1)   # of the part, when the answer commits to no regime
    hedged_regime: float = Field(1.0, ge=0, le=1)    # of the part, when it only hedges its regime
    wrong_regime: float = Field(1.0, ge=0, le=1)     # of the part, when it commits to another regime
    read_wrong_way: ReadWrongWay = Field(default_factory=lambda: ReadWrongWay())


class FixesPart(_Strict):
    enough: int | None = Field(None, ge=1)  # key fixes that earn the whole part (None: all)
    rank_power: float = Field(0.0, ge=0.0, le=4.0)  # the key's fix #r weighs 1 / r ** rank_power
    hedged: float = Field(0.0, ge=0.0, le=1.0)      # share of a key fix's credit when only hedged
    hedged_argued: float | None = Field(None, ge=0.0, le=1.0)   # ... hedged with the key's reason

    def hedge(self, argued: bool) -> float:
        """The share a hedged key fix earns: a hedge with the key's reason argues the step."""
        return self.hedged_argued if argued and self.hedged_argued is not None else self.hedged
    alternatives: float = Field(0.0, ge=0.0, le=1.0)  # of a menu step, the share its other items earn
    full_at: int | None = Field(None, ge=1, le=20)    # steps a key asks for the part's whole weight


class ReasonsPart(_Strict):
    """What the right lever earns without the key's reason (a share of its credit)."""

    wrong: float = Field(0.5, ge=0, le=1)      # a reason given that is not the key's
    missing: float = Field(1.0, ge=0, le=1)    # no reason given
    elsewhere: float = Field(1.0, ge=0, le=1)  # a bare rejection whose reason the answer argues elsewhere
    carried: float = Field(1.0, ge=0, le=1)    # a bare fix whose reason it argues elsewhere in words
    min_weight: float = Field(1.0, ge=0)       # rarity-weight of the words shared with the key's
    min_words: int = Field(2, ge=1)            # words of another argument that make a reason wrong
    ignore: list[str] = []                     # words that are never a reason
    connectives: list[str] = []                # words that mark a reason but weigh nothing
    synonyms: dict[str, str] = {}              # a student's word -> the knowledge's word for it
    same: list[str] = []                       # "same reason": the item before gives the reason
    off_value: tuple[float, float] = (0.0, 0.0)   # a number this far from a figure the item cites, and
    #   none of the key's: a wrong value ("the ceiling goes to 430 tokens/s" where the key has 408)
    misreads: dict[str, list[str]] = {}   # lever -> phrases that credit it with a mechanism it
    #   lacks ("graph-captured kernels run faster"): a wrong reason


class Borrowed(_Strict):
    """Figures from another case of the exercise: a penalty once `min` of them outnumber this
    case's own (borrowed.py); 0 points checks nothing."""

    min: int = Field(2, ge=1)
    points: float = Field(0.0, ge=0, le=100)
    by_name: bool = False   # a figure another case's key states under the same name is not this case's
    feedback: str = "Figures from another case: {figures} are case {case}'s, not this one's."


class Unsupported(_Strict):
    """A fix the key neither asks for nor rejects, recommended in an item of its own: an extra the
    case does not support (penalties.py `extras`); 0 points checks nothing."""

    points: float = Field(0.0, ge=0, le=100)
    feedback: str = "{concept} is an extra fix the worked solution does not call for here."


class OrderPart(_Strict):
    method: Literal["pairwise"] = "pairwise"
    first_alone: float = Field(0.0, ge=0, le=1)   # of the part, for the key's first fix given alone
    argued: float = Field(0.0, ge=0, le=1)   # of the part that rests on the ordered fixes' reasons


class Limits(_Strict):
    max_bytes: int = Field(262144, ge=1024, le=64 * 1024 * 1024)


class Rubric(_Strict):
    rubric: str
    description: str = ""
    total: float = Field(100, gt=0)
    weights: dict[str, float]
    regime: RegimePart = RegimePart()
    evidence: EvidencePart = EvidencePart()
    order: OrderPart = OrderPart()
    fixes: FixesPart = FixesPart()
    reasons: ReasonsPart = ReasonsPart()
    limits: Limits = Limits()
    significant: int = Field(2, ge=1, le=6)     # figures of a decimal in feedback ('~78%')
    penalties: list[Penalty] = []
    borrowed: Borrowed = Borrowed()
    unsupported: Unsupported = Unsupported()

    @model_validator(mode="after")
    def _parts(self) -> Rubric:
        unknown = sorted(set(self.weights) - set(PARTS))
        if unknown:
            raise ValueError(f"unknown rubric part '{unknown[0]}' (parts: {', '.join(PARTS)})")
        if any(w < 0 for w in self.weights.values()) or not any(self.weights.values()):
            raise ValueError("weights are >= 0 and at least one is positive")
        ids = [p.id for p in self.penalties]
        if len(set(ids)) != len(ids):
            raise ValueError("penalty ids must be unique")
        return self

    def weight(self, part: str) -> float:
        return self.weights.get(part, 0.0)


def rubric_files(builtin: Path, layers: list[Path]) -> list[Path]:
    """The rubric files in the order they apply: built-in first, then each layer's
    grading/rubric*.yaml (its concepts*.yaml and variants*.yaml are read by their own loaders)."""
    return [builtin, *layer_files(layers, "grading", "rubric")]


def load_rubric(files: list[Path]) -> Rubric:
    return read_layers(Rubric, files, "rubric")


def fill(template: str, values: dict[str, str]) -> str:
    """Replace {name} with a key value; a name the key lacks stays visible as {name}."""
    return " ".join(_PLACEHOLDER.sub(lambda m: values.get(m[1], m[0]), template).split())
