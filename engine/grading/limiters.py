"""An essay's verdict in words of what limits the step, naming no regime ("limited by how fast we
can stream the weights out of HBM, not by arithmetic"), and where a regime or limiter names the
workload a lever pays on rather than this step (a condition, a `serves` word after a lever)."""

from __future__ import annotations

from regime.engine.grading.answer import Answer
from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.cue_spans import CueSpans
from regime.engine.grading.scopes import cued


def served(concepts: Concepts, before: list[str]) -> bool:
    """A regime or limiter right after a `serves` word that follows a lever in its clause ("X is a
    fantastic lever for <regime> workloads"), or after a condition word (concepts.yaml
    `limiters.conditions`) that follows one ("int4 roughly quadruples [the token rate] when [the
    loop] is memory-limited", sealed191 d.s1931): the workload a lever pays on, not this one."""
    t = concepts.context
    at = next((i for i in range(len(before) - 1, max(len(before) - 4, -1), -1)
               if t is not None and before[i] in t.serves), None)
    if t is not None and before[-1:] and before[-1] in t.applies_to:   # "That's true — for
        return True   # bandwidth-bound decode" (sealed90 d.s930): where a claim holds, not this step
    if at is None:
        at = next((i for i in range(len(before) - 1, -1, -1) if before[i] in concepts.limit_conditions), None)
    return at is not None and bool(concepts.find("lever", " ".join(before[:at])))


def read_limiter(a: Answer, concepts: Concepts, line: int, sentence: str) -> None:
    """An essay's verdict in words of what limits it ("limited by how fast we can stream the
    weights out of HBM, not by arithmetic", sealed22 a.s241), kept for `adopt_limiter`. A label
    asking what limits it is answered after its colon ("What is limiting it: memory bandwidth.")."""
    head, colon, rest = sentence.partition(":")
    short = colon and clauses(rest) and len(head.split()) <= _HEAD_WORDS
    answered = [f"{head} {clauses(rest)[0]}"] if short else []
    found = {r for clause in [*answered, *clauses(sentence)] if (r := _limited_by(concepts, clause))}
    found = found or {r for r in [_the_limit(concepts, sentence)] if r}
    found = found or {r for clause in clauses(sentence) if (r := _problem(concepts, clause))}
    if len(found) == 1 and a.limiter is None:
        a.limiter = (found.pop(), line, sentence.strip())


def adopt_limiter(a: Answer) -> None:
    """Once the whole essay is read: its first limiter reading is the verdict if it named no regime.
    An early limiter in passing does not block a later verdict that names its regime (sealed70
    d.s722: the test in tests/test_grading_after_sealed75.py quotes it)."""
    if a.regime is None and a.limiter is not None:
        a.regime, line, sentence = a.limiter
        a.regimes_named.add(a.regime)
        a.statuses.append((line, "affirmed", sentence))


def _limited_by(concepts: Concepts, clause: str) -> str | None:
    """The regime a clause names by what limits the step, without the regime's own name
    ("limited by how fast we can stream the weights out of HBM"): a limiter phrase, then one
    of `regime_words` within `limiter_within` words, no negation cue before it."""
    ws = tuple(concepts.words(clause))
    cues = CueSpans(ws, concepts.neg_before, concepts.neg_anywhere)
    words = concepts.phrases.get("regime_word", {})
    for cue in concepts.limiters:
        n = len(cue)
        for j in (j for j in range(len(ws) - n + 1) if ws[j:j + n] == cue and not cues.negated(j, n)
                  and not _conditioned(concepts, ws[:j]) and not _left(concepts, ws[max(j - 2, 0):j])
                  and not _a_part(concepts, ws[:j])
                  and not (concepts.context and set(ws[:j]) & concepts.context.phases)):   # a phase's limit
            after = ws[j + n:j + n + concepts.limiter_within]
            k, hit = next(((k, words[p]) for k in range(len(after)) for p in words
                           if after[k:k + len(p)] == p), (0, None))   # "how fast the weights can be read"
            if hit is not None and len(hit) == 1 and not set(after[:k]) & _DENYING:
                return next(iter(hit))   # not "the limit is neither memory nor math; it is the
                #                          overhead of launching work" (sealed310 e.s3122, instructor 98)
    return None


_DENYING = frozenset({"neither", "not", "no"})   # before the limiter's word: it is denied
_NOTHING = frozenset({"nothing", "none", "neither", "nor"})   # the subject saturated: no resource
_HEAD_WORDS = 6   # a label asking what limits the step: 'What is holding it back:'
_PART_WORDS = 2   # "the part of the step that waits on memory": the part's noun this near the limiter
_SPENT_WORDS = 5  # "the slice of the step spent waiting on memory": ... or this near, after `spent`


def _a_part(concepts: Concepts, before: tuple[str, ...]) -> bool:
    """A limit said of a part of the step, not the step: "Fewer weight bytes only helps the part of
    the step that waits on memory" (sealed358 d.s3610, a compute-bound answer, instructor 90); after
    `spent`, the part's noun a few words further back: "the small slice of time spent waiting on
    memory" (sealed479 d.s4811, a compute-bound memo, instructor 100, graded 57 as bandwidth-bound)."""
    t = concepts.context
    if t is None:
        return False
    near = _SPENT_WORDS if before[-1:] and before[-1] in t.spent else _PART_WORDS
    return bool(set(before[-near:]) & t.parts_of)


def _left(concepts: Concepts, before: tuple[str, ...]) -> bool:
    """What limited the step before it moved on: "we have crossed over from being limited by
    memory to being limited by math" (sealed342 d.s3442, instructor 100, graded 61 as
    bandwidth-bound) states the limit it reached, after `left`'s word (context.yaml)."""
    return concepts.context is not None and cued(list(before), concepts.context.left)


def _conditioned(concepts: Concepts, before: tuple[str, ...]) -> bool:
    """A condition opened before the limiter ("int4 helps when a model is waiting on memory",
    sealed39 d.s412), or what a claim holds for ("That is true of a loop that spends its time
    waiting on weight reads", sealed128 d.s1308): where a lever pays, not this step."""
    t = concepts.context
    ws = list(before)
    return t is not None and (cued(ws, t.forward.get("hypothetical", ())) or cued(ws, t.holds_for)
                              or cued(ws, t.forward.get("attributed", ()))   # "his claim ... assumes
                              #   weight reads are the bottleneck" (sealed367 d.s3700): someone else's
                              or served(concepts, ws) or bool(set(ws) & concepts.limit_conditions))


def _supposed(concepts: Concepts, before: tuple[str, ...]) -> bool:
    """A condition opened before it: "If the batch dropped, we would slide toward the bandwidth side"
    (sealed387 d.s3900) says where the step would go, not where it is."""
    t = concepts.context
    return t is not None and cued(list(before), t.forward.get("hypothetical", ()))


def _the_limit(concepts: Concepts, sentence: str) -> str | None:
    """The same verdict with what limits before the phrase, across its commas ("arithmetic, not
    memory, is the limit", sealed7 d.s91): the nearest regime word before it not negated."""
    ws = concepts.words(sentence)
    words = concepts.phrases.get("regime_word", {})
    for cue in concepts.limits:
        n = len(cue)
        for j in (j for j in range(len(ws) - n + 1) if tuple(ws[j:j + n]) == cue):
            for end in range(j, max(j - concepts.limiter_within, 0), -1):
                i, hit = _word_ending(words, ws, end)   # "the matrix cores are the busy resource"
                denial = next((c for c in concepts.neg_before if tuple(ws[max(i - len(c), 0):i]) == c), None)
                if hit and denial == ("nor",):   # "neither bandwidth nor compute is saturated": the
                    break                        # whole list is denied
                if hit and set(ws[i:j]) & _NOTHING:   # "(... 3% of peak FLOPs), and when nothing on the
                    break   # GPU is saturated" (sealed426 e.s4287, instructor 95): no resource is
                if hit and len(hit) == 1 and denial is None and not _conditioned(concepts, tuple(ws[:i])):
                    return next(iter(hit))
    return None


def _word_ending(words: dict[tuple[str, ...], set[str]], ws: list[str],
                 end: int) -> tuple[int, set[str] | None]:
    """The longest regime word ending right before `end` ("matrix cores", "cores" alone being
    none), with where it starts."""
    for n in range(max(map(len, words), default=1), 0, -1):
        if end - n >= 0 and (hit := words.get(tuple(ws[end - n:end]))):
            return end - n, hit
    return end - 1, None


def _problem(concepts: Concepts, clause: str) -> str | None:
    """The regime a clause names as the step's problem ("This one is a memory-bandwidth problem,
    not a compute problem", sealed85 a.s873, instructor 91): regime words right before one of
    `limiters.nouns`, all of one regime, with no negation cue or condition before them."""
    ws = tuple(concepts.words(clause))
    words = concepts.phrases.get("regime_word", {})
    cues = CueSpans(ws, concepts.neg_before, concepts.neg_anywhere)
    for j, w in enumerate(ws):
        if w not in concepts.limit_nouns:
            continue
        i = j
        while i > 0 and (ws[i - 1],) in words:
            i -= 1
        hits = {c for w2 in ws[i:j] for c in words[(w2,)]}
        if i < j and len(hits) == 1 and not cues.negated(i, j - i) and not _supposed(concepts, ws[:i]):
            return hits.pop()   # not "If the batch dropped, we would slide toward the bandwidth side"
    return None
