"""The ConText trigger lists and the other reading cues of rules/grading/context.yaml, read into
word tuples by the answer reader's own normalizing (context.py judges with them)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from regime.core.errors import RegimeError
from regime.core.yamlsrc import load_yaml
from regime.engine.grading import risk
from regime.engine.grading.concepts import Concepts

STATUSES = ("affirmed", "negated", "deferred", "hypothetical", "possible", "attributed", "historical",
            "contrasted", "counterfactual", "prerequisite", "asked")
CONTEXT_FILE = "context.yaml"

Phrase = tuple[str, ...]


@dataclass
class Triggers:
    """The trigger lists, read into word tuples by the answer reader's own normalizing."""

    window: int = 8
    priority: tuple[str, ...] = ()
    forward: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)
    backward: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)
    terminators: frozenset[str] = frozenset()
    pseudo: tuple[Phrase, ...] = ()              # ConText's pseudo-triggers: "if we want", not a condition
    new_subject: tuple[Phrase, ...] = ()         # "rather than X I would use Y": a forward scope ends
    compares: frozenset[Phrase] = frozenset()   # "78% against 4%": before a figure, no trigger
    subordinate: frozenset[str] = frozenset()    # "Don't: hand-fuse before ... compile": the label stops
    waiting: frozenset[str] = frozenset()        # "I'd set that aside until ...": a refusal that waits
    contrast: frozenset[str] = frozenset()      # terminators that turn the argument ("but", not "so")
    adverbs: frozenset[str] = frozenset()       # terminators that, right after a trigger, qualify it
    elliptical_words: int = 3                    # words after the trigger of a turning elliptical clause
    scene: frozenset[str] = frozenset()          # "not for throughput on this endpoint": where, not what
    after_no: frozenset[str] = frozenset()       # "no for throughput": a bare no, not "no 5 TB"
    answer_leads: tuple[Phrase, ...] = ()        # "My answer is no": a bare no after its lead
    follows_on: frozenset[Phrase] = frozenset()   # "After that, I'd add X": a step after the last
    topic_openers: tuple[Phrase, ...] = ()       # "On batching and int8.": a heading, no verdict
    now: tuple[Phrase, ...] = ()                 # "... and we should do it now": no condition carried
    fallback: tuple[Phrase, ...] = ()            # "if graphs don't close the gap, ...": kept in reserve
    offered_if: tuple[Phrase, ...] = ()          # "int8 only if memory is still tight": offered
    remote: tuple[Phrase, ...] = ()              # "... only if ITL ever becomes the complaint": declined
    offered_opening: tuple[Phrase, ...] = ()     # "If several documents arrive together, batch them"
    waits_on: tuple[Phrase, ...] = ()            # "if it is still saturated after": the key's own wait
    reopens: tuple[Phrase, ...] = ()             # "Still, int4 might ...": turns back on the item's verdict
    continuing: frozenset[str] = frozenset()     # "And weight quantization: ...": goes on refusing
    adds_subject: frozenset[str] = frozenset()   # "int4; also the idea to bump batch": one more subject
    same: tuple[Phrase, ...] = ()                # "Same for the idea of ...": goes on refusing
    verdict_words: tuple[tuple[str, tuple[Phrase, ...]], ...] = ()   # a YAML verdict in words, in order
    verdict_columns: frozenset[Phrase] = frozenset()   # '| lever | verdict | why |': a row's verdict
    plan_columns: frozenset[Phrase] = frozenset()   # '| step | fix | when |': each row is a fix's item
    verdict_cells: frozenset[str] = frozenset()   # statuses whose trigger opening a cell is the row's verdict
    refusing_cells: frozenset[str] = frozenset()   # words that, opening such a cell, refuse the row
    deeds: frozenset[Phrase] = frozenset()   # 'a waste': judges a thing done, never a regime
    opinions: tuple[Phrase, ...] = ()   # 'compute-bound, I think': the student's own view, not a verdict
    plan_refusals: tuple[Phrase, ...] = ()   # 'nothing' in a plan table's action cell refuses its row
    elliptical: frozenset[str] = frozenset()    # words that may follow a trigger in an elliptical clause
    asides: tuple[Phrase, ...] = ()              # openers of items that comment on the fixes
    nil: tuple[Phrase, ...] = ()                 # a Reject item's "Nothing, ...": it rejects nothing
    labels: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)
    label_openers: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)   # "Where X pays:"
    readings: frozenset[str] = frozenset()      # "the profile says ...": the student's own reading
    anaphora: frozenset[str] = frozenset()      # "I'd skip it": words that point back to the last sentence
    anaphora_written: frozenset[str] = frozenset()   # ... as written: 'that', 'this' are filler words
    speech: frozenset[str] = frozenset()        # 'One teammate said "...": a quotation reported
    premise: frozenset[str] = frozenset()       # "Because X, the moves are:": X is no verdict
    causes: tuple[Phrase, ...] = ()             # "... far below that because of memory traffic": a cause
    clefts: frozenset[str] = frozenset()        # "What I would skip: X": the refusal's object follows
    light_verbs: frozenset[str] = frozenset()   # "avoid doing it": a gerund that leaves 'it' the refused
    recommend: tuple[Phrase, ...] = ()           # in prose, what makes an affirmed lever a recommendation
    not_recommend: tuple[str, ...] = ()          # ... pseudo-cues as written: "next to the weight read"
    imperative: tuple[Phrase, ...] = ()          # ... and verbs that do so opening a clause ("Use X")
    answer: tuple[Phrase, ...] = ()              # "my answer ... is no": a verdict on the question
    announce: frozenset[str] = frozenset()       # "Two proposals I would turn down.": rejections follow
    announce_what: tuple[Phrase, ...] = ()       # "What I'd say no to, for now." then a lever: ... too
    heading: frozenset[str] = frozenset()        # "On the vendor's int4 pitch: no": words around a name
    determiners: frozenset[str] = frozenset()    # a clause opening with one is a noun phrase
    conclude: tuple[Phrase, ...] = ()            # "So the real regime is ...": an essay's verdict
    real: tuple[Phrase, ...] = ()                # "nominally X, really Y": a verdict beside the nominal
    agree: tuple[Phrase, ...] = ()               # "I agree with the second engineer.": a claim endorsed
    sides: tuple[Phrase, ...] = ()               # "I side with the second engineer": ... in an item
    method: tuple[Phrase, ...] = ()              # "I disagree about the method:": the student's own plan next
    endorse: tuple[Phrase, ...] = ()             # '"fuse the elementwise ops" and they're right': taken up
    either: frozenset[str] = frozenset({"or"})   # "compute-bound vs bandwidth-bound": no commitment
    secondary: tuple[Phrase, ...] = ()           # "could partly be launch-bound too": a factor, not a verdict
    approximate: tuple[Phrase, ...] = ()         # "about 40%": round, read to its last non-zero digit
    approximate_within: float = 0.0              # ... at most this share of its value off
    fractions: tuple[tuple[re.Pattern[str], str], ...] = ()   # "a fifth of the step": 20% of it
    described: frozenset[str] = frozenset()      # "memory-bound kernels": the regime of a part, not the step
    described_after: frozenset[str] = frozenset()   # "something memory-bound is eating the time": a part
    whole: frozenset[str] = frozenset()          # "the GPU is doing compute-bound work": the step
    parts_of: frozenset[str] = frozenset()       # "a fat tail of memory-bound work": a part
    spent: frozenset[str] = frozenset()          # "the slice of time spent waiting on memory": a part
    levels: frozenset[str] = frozenset()         # "Compute is at 71%": a resource's level, no verdict
    phases: frozenset[str] = frozenset()         # "during that time the GPU waits on memory": a phase
    described_doing: frozenset[str] = frozenset()   # "the memory-bound work dragging ...": a part
    described_before: frozenset[str] = frozenset()   # "memory-bound time", not "the time is memory-bound"
    generic: frozenset[str] = frozenset()        # "a bandwidth-bound loop would ...": a kind, not this step
    generic_openers: frozenset[str] = frozenset()   # "A bandwidth-bound loop pins HBM": a kind, as subject
    left: tuple[Phrase, ...] = ()                # "crossed from X into Y": the regime the step has left
    places: frozenset[str] = frozenset()         # "out of the X regime": a regime named as a place
    serves: frozenset[str] = frozenset()         # "int4 is a lever for bandwidth-bound decode": where it pays
    applies_to: frozenset[str] = frozenset()     # "true for bandwidth-bound decode": where a claim holds
    goals: tuple[Phrase, ...] = ()               # "For throughput on this endpoint: ...": a goal heads fixes
    goal_openers: frozenset[str] = frozenset()   # ... after one of these, as written ("for", "to")
    question_words: frozenset[str] = frozenset()   # "X — so why is ...?": a question that asks only its tail
    question_leads: frozenset[str] = frozenset()   # words that may come before one
    proposing: tuple[Phrase, ...] = ()           # "can't we just batch ...?": a proposal, not a refusal
    when_openers: frozenset[str] = frozenset()   # "when X, batch": a clause that puts a lever off
    holds_for: tuple[tuple[str, ...], ...] = ()   # "true of a loop that waits on ...": not this step
    holds_off: tuple[tuple[str, ...], ...] = ()   # "I'd hold off on the two proposals": announces refusals
    refused_until: tuple[tuple[str, ...], ...] = ()   # "don't hand-fuse before step 1": a deferral
    refutes: tuple[Phrase, ...] = ()             # '"memory ops don't matter": wrong': after a quotation
    answers_yes: frozenset[str] = frozenset()    # "Chunk the prefill? Yes, but second.": asked, then taken
    takes_up: tuple[Phrase, ...] = ()            # '... told us to X, and I agree': theirs, now ours
    frames: frozenset[str] = frozenset()         # "For this workload, I'd ...": a frame, not a subject
    softeners: frozenset[str] = frozenset()      # "I think that's basically right": skipped in an agreement
    doubting: frozenset[Phrase] = frozenset()    # "not sure X is wise": a doubt ...
    merits: tuple[Phrase, ...] = ()              # ... of the merit after X: a refusal
    concessions: tuple[Phrase, ...] = ()         # "X sounds sensible, but ...": X is refused
    appearances: tuple[Phrase, ...] = ()         # "looks compute-heavy, but ...": hedged
    appearance_window: int = 0                   # words from the concept to the contrast
    speakers: frozenset[str] = frozenset()       # 'Engineer A: "..."': a label quoting someone else
    addressed: frozenset[str] = frozenset()      # 'Note to the director: "..."': the student's own
    speaker_numbers: dict[str, str] = field(default_factory=dict)   # 'engineer two' is the second
    max_levers: int = 3          # per sentence; more is a list, not a commitment
    steps: frozenset[str] = frozenset()   # 'first X, then Y, then Z': steps in order, not a list
    max_regimes: int = 2         # per Regime section
    keyword_terms: int = 3       # bare lever names beside a bare regime: a keyword list
    max_fixes: int = 6           # per answer; more is a list, not a commitment
    menu_share: float = 1.0      # an affirmed list mostly the key's fixes is its menu (score.py)
    confidence: dict[str, float] = field(default_factory=dict)   # status -> how sure the reading is
    review_below: float = 0.6
    review_always_below: float = 0.0   # a reading this unsure is reviewed whatever the model says
    review_bands: tuple[tuple[float, float], ...] = ()   # a written answer scoring in one is reviewed
    review_model: risk.Model | None = None       # fitted to the blind grades: who is reviewed
    review_model_second: risk.Model | None = None   # ... where the answer has a second reading
    _first: dict[str, list[tuple[str, Phrase, bool]]] = field(default_factory=dict)
    _openers: dict[str, list[tuple[str, Phrase]]] = field(default_factory=dict)
    _states: list[Triggers] = field(default_factory=list)

    def of_states(self) -> Triggers:
        """The triggers that judge a regime: without the backward refusals that judge a thing done
        (`deeds`, 'a waste'), since a regime is a state, not an action, built once."""
        if not self._states:
            backward = {s: tuple(p for p in ps if p not in self.deeds) for s, ps in self.backward.items()}
            self._states.append(replace(self, backward=backward, _first={}, _openers={}, _states=[]))
        return self._states[0]

    def by_first(self) -> dict[str, list[tuple[str, Phrase, bool]]]:
        """First word -> (status, phrase, forward) of every trigger phrase, built once."""
        if not self._first:
            for forward, table in ((True, self.forward), (False, self.backward)):
                for status, phrases in table.items():
                    for p in phrases:
                        self._first.setdefault(p[0], []).append((status, p, forward))
        return self._first

    def openers(self) -> dict[str, list[tuple[str, Phrase]]]:
        """First word -> (status, phrase) of every trigger and label phrase, in priority order:
        what can open a clause (scopes.opening), built once."""
        if not self._openers:
            for status in self.priority:
                for p in (*self.forward.get(status, ()), *self.backward.get(status, ()),
                          *self.labels.get(status, ())):
                    self._openers.setdefault(p[0], []).append((status, p))
        return self._openers

    def points_back(self, ws: list[str]) -> bool:
        """A word pointing back among `ws` (a trigger and the words after it) that is the refused
        thing itself, not a gerund's object: "fold it in instead of queueing it" refuses the
        queueing (sealed123 a.s1253), "I'd avoid doing it" refuses it."""
        for w in ws:
            if w in self.anaphora:
                return True
            if w.endswith("ing") and w not in self.light_verbs:
                return False
        return False

    def doubts_merit(self, ws: list[str]) -> bool:
        """A doubt and, after it, a merit of nothing named: 'The vendor told the director that "int4
        will give you up to 4x throughput." I'm not sure that's wise to act on here.' (sealed562
        d.s5643, instructor 100: int4 refused softly) leans to refusing what came before, as "I'm
        not sure int4 is wise" does (scopes._doubted)."""
        return any(tuple(ws[i:i + len(p)]) == p and any(tuple(ws[j:j + len(m)]) == m for m in self.merits
                                                         for j in range(i + len(p), i + len(p) + self.window))
                   for p in self.doubting for i in range(len(ws)))

    def scene_at(self, ws: list[str], start: int) -> int:
        """Where a phrase saying where a refusal holds opens: "Not for throughput on this
        endpoint" (sealed401 d.s4033, instructor 97: int4 refused) is as elliptical as "Not for
        throughput"; not one after a `premise` word: "..., not for bytes as in a chatbot" compares,
        a purpose set against another (sealed421 e.s4231, instructor 100: compile recommended)."""
        return next((n for n in range(start, len(ws)) if ws[n] in self.scene
                     and ws[n - 1] not in self.premise), len(ws))

    def plain(self, ws: list[str]) -> list[str]:
        """The words without the degree words an agreement may carry (`softeners`)."""
        return [w for w in ws if w not in self.softeners]

    def rank(self, status: str) -> int:
        return self.priority.index(status) if status in self.priority else len(self.priority)


def load_triggers(path: Path, concepts: Concepts) -> Triggers:
    raw = load_yaml(path)
    if not isinstance(raw, dict) or not isinstance(raw.get("statuses"), dict):
        raise RegimeError("a context file is a mapping with 'statuses'", file=str(path))

    def phrases(items: list | None) -> tuple[Phrase, ...]:
        if items is not None and not isinstance(items, list):
            raise RegimeError(f"a phrase list is a list, got {type(items).__name__}", file=str(path))
        if any(isinstance(x, bool) for x in items or []):   # YAML reads a bare no / yes as false / true
            raise RegimeError("a phrase list holds a bare yes/no/on/off, which YAML reads as true/false: "
                              "quote it", file=str(path))
        return tuple(p for p in (tuple(concepts.words(str(x))) for x in (items or [])) if p)

    t = Triggers(window=int(raw.get("window", 8)))
    t.priority = tuple(str(s) for s in raw.get("priority") or [])
    for status, body in raw["statuses"].items():
        if status not in STATUSES:
            raise RegimeError(f"unknown status '{status}' (statuses: {', '.join(STATUSES[1:])})",
                              file=str(path), field=f"statuses.{status}")
        body = body or {}
        t.forward[status] = phrases(body.get("forward"))
        t.backward[status] = phrases(body.get("backward"))
    t.terminators = frozenset(w for p in phrases(raw.get("terminators")) for w in p)
    t.pseudo = phrases(raw.get("pseudo"))
    t.new_subject = phrases(raw.get("new_subject"))
    t.compares = frozenset(phrases(raw.get("compares")))
    t.subordinate = frozenset(w for p in phrases(raw.get("subordinate")) for w in p)
    t.waiting = frozenset(w for p in phrases(raw.get("waiting")) for w in p)
    t.contrast = frozenset(w for p in phrases(raw.get("contrast")) for w in p) & t.terminators
    t.adverbs = frozenset(w for p in phrases(raw.get("adverbs")) for w in p) & t.terminators
    t.elliptical_words = int(raw.get("elliptical_words", t.elliptical_words))
    t.scene = frozenset(w for p in phrases(raw.get("scene")) if len(p) == 1 for w in p)
    t.after_no = frozenset(w for p in phrases(raw.get("after_no")) for w in p)
    t.answer_leads = phrases(raw.get("answer_leads"))
    t.follows_on = frozenset(phrases(raw.get("follows_on")))
    t.topic_openers = tuple(phrases(raw.get("topic_openers")))
    t.now = phrases(raw.get("now"))
    t.fallback = phrases(raw.get("fallback"))
    t.reopens = phrases(raw.get("reopens"))
    t.offered_if = phrases(raw.get("offered_if"))
    t.remote = phrases(raw.get("remote"))
    t.offered_opening = phrases(raw.get("offered_opening"))
    t.waits_on = phrases(raw.get("waits_on"))
    t.continuing = frozenset(w for p in phrases(raw.get("continuing")) for w in p)
    t.adds_subject = frozenset(w for p in phrases(raw.get("adds_subject")) for w in p)
    t.same = phrases(raw.get("same"))
    t.verdict_words = _verdict_words(raw.get("verdict_words"), phrases, path)
    t.verdict_columns = frozenset(phrases(raw.get("verdict_columns")))
    t.plan_columns = frozenset(phrases(raw.get("plan_columns")))
    phrases(raw.get("verdict_cells"))   # a list, no bare yes/no
    t.verdict_cells = frozenset(str(s) for s in raw.get("verdict_cells") or ())   # status names as written
    for status in sorted(t.verdict_cells - set(STATUSES)):
        raise RegimeError(f"unknown status '{status}' (statuses: {', '.join(STATUSES[1:])})",
                          file=str(path), field="verdict_cells")
    t.deeds = frozenset(phrases(raw.get("deeds")))
    t.opinions = phrases(raw.get("opinions"))
    t.refusing_cells = frozenset(w for p in phrases(raw.get("refusing_cells")) if len(p) == 1 for w in p)
    t.plan_refusals = phrases(raw.get("plan_refusals"))
    t.elliptical = frozenset(w for p in phrases(raw.get("elliptical")) for w in p)
    t.asides = phrases(raw.get("asides"))
    t.nil = phrases(raw.get("nil"))
    t.labels = {s: phrases(v) for s, v in (raw.get("labels") or {}).items()}
    t.label_openers = {s: phrases(v) for s, v in (raw.get("label_openers") or {}).items()}
    t.readings = frozenset(w for p in phrases(raw.get("readings")) for w in p)
    t.anaphora = frozenset(w for p in phrases(raw.get("anaphora")) for w in p)
    t.anaphora_written = frozenset(str(w).lower() for w in raw.get("anaphora") or [])
    t.speech = frozenset(w for p in phrases(raw.get("speech")) if len(p) == 1 for w in p)
    t.premise = frozenset(w for p in phrases(raw.get("premise")) if len(p) == 1 for w in p)
    t.causes = phrases(raw.get("causes"))
    t.clefts = frozenset(w for p in phrases(raw.get("clefts")) for w in p)
    t.light_verbs = frozenset(w for p in phrases(raw.get("light_verbs")) for w in p)
    t.recommend = phrases(raw.get("recommend"))
    t.not_recommend = tuple(" ".join(str(x).lower().split()) for x in raw.get("not_recommend") or [])
    t.imperative = phrases(raw.get("imperative"))
    t.answer = phrases(raw.get("answer"))
    t.announce = frozenset(w for p in phrases(raw.get("announce")) for w in p)
    t.announce_what = phrases(raw.get("announce_what"))
    t.heading = frozenset(w for p in phrases(raw.get("heading")) for w in p)
    t.determiners = frozenset(str(w).lower() for w in raw.get("determiners") or [])
    t.conclude = phrases(raw.get("conclude"))
    t.real = phrases(raw.get("real"))
    t.agree = phrases(raw.get("agree"))
    t.sides = phrases(raw.get("sides"))
    t.method = phrases(raw.get("method"))
    t.endorse = phrases(raw.get("endorse"))
    t.either = frozenset(w for p in phrases(raw.get("either")) for w in p) or t.either
    t.secondary = phrases(raw.get("secondary"))
    t.approximate = phrases(raw.get("approximate"))
    t.approximate_within = float(raw.get("approximate_within", 0.0))
    t.fractions = _fractions(raw.get("fractions"), path)
    t.described = frozenset(w for p in phrases(raw.get("described")) for w in p)
    t.described_after = frozenset(w for p in phrases(raw.get("described_after")) for w in p)
    t.whole = frozenset(w for p in phrases(raw.get("whole")) for w in p)
    t.parts_of = frozenset(w for p in phrases(raw.get("parts_of")) for w in p)
    t.spent = frozenset(w for p in phrases(raw.get("spent")) for w in p)
    t.levels = frozenset(w for p in phrases(raw.get("levels")) for w in p)
    t.phases = frozenset(w for p in phrases(raw.get("phases")) for w in p)
    t.described_doing = frozenset(w for p in phrases(raw.get("described_doing")) for w in p)
    t.described_before = frozenset(w for p in phrases(raw.get("described_before")) for w in p)
    t.generic = frozenset(w for p in phrases(raw.get("generic")) for w in p)
    t.generic_openers = frozenset(str(w).lower() for w in raw.get("generic_openers") or [])   # filler words
    t.left = tuple(phrases(raw.get("left")))
    t.places = frozenset(w for p in phrases(raw.get("places")) for w in p)
    t.serves = frozenset(w for p in phrases(raw.get("serves")) for w in p)
    t.applies_to = frozenset(w for p in phrases(raw.get("applies_to")) for w in p)
    t.goals = tuple(phrases(raw.get("goals")))
    t.goal_openers = frozenset(str(w).lower() for w in raw.get("goal_openers") or [])   # raw words
    t.question_words = frozenset(w for p in phrases(raw.get("question_words")) for w in p)
    t.question_leads = frozenset(w for p in phrases(raw.get("question_leads")) for w in p)
    t.proposing = phrases(raw.get("proposing_questions"))
    t.when_openers = frozenset(w for p in phrases(raw.get("when_openers")) for w in p)
    t.holds_for = tuple(phrases(raw.get("holds_for")))
    t.refused_until = tuple(phrases(raw.get("refused_until")))
    t.holds_off = tuple(phrases(raw.get("holds_off")))
    t.refutes = phrases(raw.get("refutes"))
    t.takes_up = phrases(raw.get("takes_up"))
    t.frames = frozenset(str(w).lower() for w in raw.get("frames") or [])   # raw words
    t.softeners = frozenset(w for p in phrases(raw.get("softeners")) for w in p)
    t.doubting = frozenset(phrases(raw.get("doubting")))
    t.merits = phrases(raw.get("merits"))
    t.answers_yes = frozenset(w for p in phrases(raw.get("answers_yes")) for w in p)
    t.concessions = phrases(raw.get("concessions"))
    t.appearances = phrases(raw.get("appearances"))
    t.appearance_window = int(raw.get("appearance_window") or 0)
    t.speakers = frozenset(str(w).lower() for w in raw.get("speakers") or [])   # raw words, as written
    t.addressed = frozenset(str(w).lower() for w in raw.get("addressed") or [])
    numbers = raw.get("speaker_numbers") or {}
    t.speaker_numbers = {str(k).lower(): str(v).lower() for k, v in numbers.items()}
    commit = raw.get("commit") or {}
    t.max_levers = int(commit.get("max_levers_per_sentence", t.max_levers))
    t.steps = frozenset(str(w).lower() for w in commit.get("steps") or [])
    t.max_regimes = int(commit.get("max_regimes", t.max_regimes))
    t.keyword_terms = int(commit.get("keyword_terms", t.keyword_terms))
    t.max_fixes = int(commit.get("max_fixes", t.max_fixes))
    t.menu_share = float(commit.get("menu_share", t.menu_share))
    t.confidence = {str(k): float(v) for k, v in (raw.get("confidence") or {}).items()}
    t.review_below = float(raw.get("review_below", t.review_below))
    t.review_always_below = float(raw.get("review_always_below", t.review_always_below))
    t.review_bands = tuple((float(low), float(high)) for low, high in raw.get("review_bands") or [])
    try:
        t.review_model = risk.load(raw.get("review_model"))
    except (ValueError, TypeError, AttributeError) as err:
        raise RegimeError(str(err), file=str(path), field="review_model") from None
    try:
        t.review_model_second = risk.load(raw.get("review_model_second"))
    except (ValueError, TypeError, AttributeError) as err:
        raise RegimeError(str(err), file=str(path), field="review_model_second") from None
    return t


VERDICT_WORDS = ("fix", "reject", "deferred", "hedged")


def _verdict_words(raw: object, phrases: Callable[[list | None], tuple[Phrase, ...]],
                   path: Path) -> tuple[tuple[str, tuple[Phrase, ...]], ...]:
    if not isinstance(raw, dict):
        return ()
    for k in raw:
        if k not in VERDICT_WORDS:
            raise RegimeError(f"unknown verdict '{k}' (verdicts: {', '.join(VERDICT_WORDS)})",
                              file=str(path), field=f"verdict_words.{k}")
    return tuple((str(k), phrases(v)) for k, v in raw.items())


def _fractions(raw: object, path: Path) -> tuple[tuple[re.Pattern[str], str], ...]:
    """`fractions`: a share spelled out -> the percent it names ("a fifth" -> 20), each a
    whole-word, any-case pattern and the figure that stands for it."""
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                            and 0 < v <= 100 for v in raw.values()):
        raise RegimeError("maps a share as written ('a fifth') to the percent it names (20)",
                          file=str(path), field="fractions")
    return tuple((re.compile(rf"\b{re.escape(str(k))}\b", re.I), f"{v:g}%") for k, v in raw.items())
