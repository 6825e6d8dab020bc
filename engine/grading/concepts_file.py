"""The shape of rules/grading/concepts.yaml and its layers (`--rules DIR`'s grading/concepts*.yaml).

Read by core/layered.py's one rule (mappings merge key by key, anything else replaces) and
validated after each layer, so `negation: null` or a list where a mapping belongs is a located
error in the layer that wrote it. Lever and claim ids are checked against the loaded packs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo

from regime.core.errors import did_you_mean
from regime.core.layered import read_layers

Phrases = list[str]


def _declared(kind: str) -> AfterValidator:
    """A lever or claim id the loaded packs declare (the validation context lists them)."""
    def check(name: str, info: ValidationInfo) -> str:
        known = (info.context or {}).get(kind + "s")
        if known is not None and name not in known:
            raise ValueError(f"unknown {kind} '{name}'{did_you_mean(name, known)}")
        return name
    return AfterValidator(check)


def _two_words(text: str) -> str:
    if len(text.split()) != 2:
        raise ValueError(f"a compound is two words, got '{text}'")
    return text


LeverId = Annotated[str, _declared("lever")]
ClaimId = Annotated[str, _declared("claim")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Negation(_Strict):
    before: Phrases = []     # a cue before the alias in its clause negates it
    anywhere: Phrases = []   # a cue anywhere in the clause negates it


class Limiters(_Strict):
    phrases: Phrases = []    # 'limited by', 'bound by': what limits the step follows
    after: Phrases = []      # 'is the limit', 'is the bottleneck': what limits the step comes before
    nouns: Phrases = []      # 'a memory-bandwidth problem': what limits the step, right before one
    within: int = Field(8, ge=1, le=20)   # words between the phrase and the regime word
    conditions: Phrases = []   # 'when': a limiter after one in its clause is where a lever pays


class Ambiguity(_Strict):
    ignore: Phrases = []     # words that never resolve an ambiguous alias


class Guess(_Strict):
    min_score: float = Field(1.5, ge=0)
    margin: float = Field(1.5, ge=1)


class Spelling(_Strict):
    keep: Phrases = []       # words never read as a misspelling
    short: dict[str, str] = {}   # a short form students write -> the word it stands for


class VerbLevers(_Strict):
    levers: dict[str, list[LeverId]] = {}   # a bare word -> the levers it names as a verb
    before: Phrases = []     # words after which it is a verb (it is one too opening its clause)
    not_after: Phrases = []  # words after it that make it a noun (a number always does)


class Figure(_Strict):
    say: str = ""
    words: Phrases = []
    factor: bool = False   # a gain also written as the factor it multiplies by: 28% faster is 1.28x


class ConceptsFile(_Strict):
    regimes: dict[str, Phrases] = {}
    regime_words: dict[str, Phrases] = {}   # a Regime section naming none: the word it shortens to
    levers: dict[LeverId, Phrases] = {}
    refusals: dict[LeverId, list[LeverId]] = {}   # refusing a lever the key has no verdict on refuses these
    kin: dict[LeverId, list[LeverId]] = {}   # recommending a lever the key has no verdict on recommends these
    done_by: dict[LeverId, list[LeverId]] = {}    # a lever these fixes carry out: no extra beside them
    stands_for: dict[LeverId, list[LeverId]] = {}   # a lever the key has no verdict on names these
    not_objects: dict[LeverId, Phrases] = {}   # words right after an alias that make it another act
    kept: dict[LeverId, Phrases] = {}   # what a lever changes, named as left as it is: its refusal
    verbs: VerbLevers = VerbLevers()   # bare words naming levers only as verbs ('batch now')
    claims: dict[ClaimId, Phrases] = {}
    facts: dict[str, Phrases] = {}
    headings: dict[str, Phrases] = {}
    filler: Phrases = []
    compounds: list[Annotated[str, AfterValidator(_two_words)]] = []   # read as one word, a filler
    #   word kept: 'instead of' is not 'instead'
    negation: Negation = Negation()
    nominal: Phrases = []
    limiters: Limiters = Limiters()
    ambiguity: Ambiguity = Ambiguity()
    guess: Guess = Guess()
    spelling: Spelling = Spelling()
    figures: dict[str, Figure] = {}
    resources: dict[str, str] = {}   # a resource levers attack -> the regime whose limit it is
    resource_words: dict[str, Phrases] = {}   # a reason's words for each regime's resource


def read_concepts(files: Iterable[Path], levers: Iterable[str], claims: Iterable[str]) -> ConceptsFile:
    """The built-in concepts file with each layer merged over it, validated layer by layer."""
    return read_layers(ConceptsFile, files, "concepts",
                       context={"levers": list(levers), "claims": list(claims)})
