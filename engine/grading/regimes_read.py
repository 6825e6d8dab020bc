"""The regime (and nominal regime) a written answer states: a Regime section's line or an essay's
sentences, read with their assertion status, lists and slashed pairs committing to none, and an
essay that names no regime read for what limits the step (limiters.py)."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from itertools import pairwise

from regime.engine.grading.answer import Answer
from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.context import judge
from regime.engine.grading.judged import Judged
from regime.engine.grading.keywords import bare_names
from regime.engine.grading.limiters import served
from regime.engine.grading.scopes import BEING, cued
from regime.engine.grading.sentences import hedges_between
from regime.engine.grading.triggers import Triggers
from regime.engine.grading.wording import words

_SLASHED = re.compile(r"\s+/\s+")
_SIDE = re.compile(r"[.;:,\n()→⇒—–]|\s=?-+>?\s")   # what ends a side of a slash


def read_regimes(a: Answer, concepts: Concepts, text: str, kind: str = "regime") -> None:
    """The regime (and nominal regime) the student affirms. Hedged or negated ones commit to
    nothing, and a section naming more regimes than the context file allows commits to none."""
    if _slashed_pair(concepts, text, kind) or _slashed_list(concepts, text, kind):   # "compute-bound /
        #   memory-bound", or a list of terms between slashes: no verdict
        a.regime = a.nominal_regime = None
        a.statuses.append((0, "listed", text.strip()))
        return
    text = _SLASHED.sub(", ", text)
    if kind == "regime_word":
        text = ", ".join(c for c in clauses(text) if not _a_level(concepts, c))
    judged = _primary(concepts, judge(concepts, concepts.context, (kind,), text) if concepts.context else [])
    judged = [replace(j, status="possible") if j.status == "asked" and _headed(concepts, j) else j
              for j in judged]   # "Regime: overhead bound? BW 14%, FLOPs 3%": a verdict, hedged
    named = {c for j in judged if j.status != "negated" for c in j.match.concepts}  # ruled out is not listed
    a.regimes_denied |= {c for j in judged if j.status == "negated" for c in j.match.concepts}
    bare = {c for j in judged if j.status == "affirmed" and _bare(concepts, j)   # not "Nominally it's
            and not _nominal(concepts, j, judged, concepts.context.contrast)   # batch-1 decode (bandwidth-
            for c in j.match.concepts}   # bound)" beside the verdict (sealed102 e.s1047)
    seen = named if a.prose else a.regimes_named | named   # an essay weighs regimes sentence by sentence
    many = bool(named) and len(seen) > concepts.context.max_regimes
    listed = (many and len(_concluded(concepts, judged)) != 1) or len(bare) > 1 \
        or _keywords(concepts, judged) \
        or (a.regime_bare and any(_alone(concepts, j) and a.regime not in j.match.concepts for j in judged))
    #   "- compute-bound", later "- memory-bound": a keyword list's terms (sealed113 b.s1159)
    if listed or _either(concepts, judged):
        if not (a.prose and a.regime is not None and not a.regime_bare):   # an essay's verdict stands
            a.regime = a.nominal_regime = None   # over a later "a workload that is X or Y pins one"
        a.regimes_named |= named
        a.statuses.append((0, "listed", text.strip()))
        return
    a.regimes_named |= named
    t = concepts.context
    # "... so nominally X, but in practice Y": the clause with the cue states the verdict; a cue in a
    # clause naming no regime concludes something else ("... idle - so the most it can win", sealed21 d.s231)
    set_aside = {(j.sentence, c) for j in judged if _nominal(concepts, j, judged, t.contrast)
                 for c in j.match.concepts}
    nominal = {sentence for sentence, _ in set_aside}

    def concludes(j: Judged) -> bool:
        ws = concepts.words(j.clause_text)
        before = clauses(j.sentence.split(j.clause_text)[0]) if j.clause_text.strip() else []
        if len(ws) <= 2 and before and not concepts.find("regime", before[-1]):   # "So the regime is
            ws = concepts.words(before[-1]) + ws   # decode, bandwidth-bound": the verdict in apposition
        # "So the diagnosis is launch-overhead-bound, nominally bandwidth-bound" (sealed182 e.s1841):
        # a verdict beside another regime it sets aside as nominal states the considered diagnosis,
        # over an earlier first guess ("My first instinct was 'batch-1 decode, so bandwidth-bound'")
        return cued(ws, t.conclude) or _headed(concepts, j) or (j.sentence in nominal and (
            cued(ws, t.real) or not any((j.sentence, c) in set_aside for c in j.match.concepts)))

    concluding = any(concludes(j) for j in judged)
    if concluding:
        judged = sorted(judged, key=lambda j: not concludes(j))
    for j in judged:
        if j.status != "affirmed" and not (j.status == "possible" and len(named) == 1
                                           and not hedges_between(concepts, t, j.sentence)):
            a.statuses.append((0, j.status, j.sentence.strip()))
            continue
        if _nominal(concepts, j, judged, t.contrast):
            a.nominal_regime = a.nominal_regime or j.match.concepts[0]
        elif a.regime is None or (concluding and (not a.regime_concluded
                                                  or (j.sentence, a.regime) in set_aside)):
            #   "So the real regime is ..."; "So: nominally bandwidth-bound, actually launch-overhead-
            #   bound" after a first guess it sets aside (sealed212 e.s2141)
            a.regime, a.regime_hedged = j.match.concepts[0], j.status == "possible"
            a.regime_opined = _opined(concepts, j)
            a.regime_concluded = concluding
            a.regime_bare = a.prose and _alone(concepts, j)   # (a keyword list's first term)
    if any(j.status == "possible" and a.regime not in j.match.concepts and j.sentence == k.sentence
           for j in judged for k in judged if a.regime in k.match.concepts and k.status == "affirmed"):
        a.regime_hedged = True   # "71% FLOPs looks compute-bound, but ... it might still be
        #                          bandwidth-bound": another regime kept open beside the verdict


def _concluded(concepts: Concepts, judged: list[Judged]) -> set[str]:
    """The regimes affirmed in a sentence that concludes ("So this is launch-overhead-bound.", after
    the nominal regime and the two a workload could be, sealed215 e.s2171): the verdict, not a list
    of terms. Each sentence's words are read once (a long list of names is one sentence)."""
    concludes: dict[str, bool] = {}
    for j in judged:
        if j.status == "affirmed" and j.sentence not in concludes:
            concludes[j.sentence] = cued(concepts.words(j.sentence), concepts.context.conclude)
    return {c for j in judged if j.status == "affirmed" and concludes[j.sentence] for c in j.match.concepts}


def _opined(concepts: Concepts, j: Judged) -> bool:
    """The student's opinion marker in the verdict's clause ("Mostly compute-bound I think", "I
    believe it is compute-bound") or as a clause of its own beside it ("Bandwidth-bound, I think —
    78% of bandwidth"): the verdict is offered, not committed to, though less than "probably"."""
    t = concepts.context
    if t is None or not t.opinions:
        return False
    if cued(concepts.words(j.clause_text), t.opinions):
        return True
    return any(tuple(w for w in concepts.words(c) if w not in t.terminators) in t.opinions
               for c in clauses(j.sentence))


def _headed(concepts: Concepts, j: Judged) -> bool:
    """A sentence of prose headed by the template's Regime heading ("Regime: compute-bound.",
    sealed106 d.s1088) or by a conclusion ("Two independent readings, one conclusion:
    compute-bound.", sealed120 d.s1221) states the verdict, as a Regime section does."""
    head, colon, _ = j.sentence.strip().partition(":")
    t = concepts.context
    return bool(colon) and len(head) <= 60 and j.clause_text.strip() not in head and (
        concepts.heading(head) == "regime" or (t is not None and cued(concepts.words(head), t.conclude)))


def _lead_in(j: Judged, judged: list[Judged]) -> str:
    """The words a regime's nominal cue may stand in: its clause, and for the first regime of its
    sentence the clauses before it too ("On paper this is a batch-1 loop, so you would expect it to
    look like the chatbot — bandwidth-bound", sealed31 e.s336); not "nominally X, actually Y"."""
    first = min((k for k in judged if k.sentence == j.sentence), key=lambda k: k.clause)
    at = j.sentence.find(j.clause_text)
    return j.sentence[:at + len(j.clause_text)] if first is j and at >= 0 else j.clause_text


def _nominal(concepts: Concepts, j: Judged, judged: list[Judged], turns: frozenset[str]) -> bool:
    """A nominal cue in the regime's own part of its clause, or before the sentence's first
    regime with no turning word between ("On paper a batch-1 loop, so bandwidth-bound — but
    right now ...", sealed32 e.s341: the 'so' stays in the frame 'on paper' opened; not "X
    even though it is nominally Y", where the cue comes after X). A clause that concludes ("so we
    are past the crossover and compute-bound", sealed57 d.s592) states the verdict whatever frame
    opened its sentence ("The back-of-envelope agrees: ...")."""
    t = concepts.context
    if concepts.is_nominal(j.clause_text, j.match.phrase, t.terminators - t.adverbs if t else frozenset()):
        #   an adverb ends no frame: "Nominally this is still a bandwidth-bound batch-1 decode, but what
        #   limits it today is launch overhead" (sealed693 e.s6952, instructor 100)
        return True
    lead_in = _lead_in(j, judged)
    if lead_in == j.clause_text or (t is not None and cued(concepts.words(j.clause_text), t.conclude)):
        return False   # "The back-of-envelope agrees: ..., so we are ... compute-bound" concludes
    before = lead_in[:len(lead_in) - len(j.clause_text)]
    lead = concepts.words(before) + concepts.words(j.clause_text)[:j.match.start]
    cut = max((i for i, w in enumerate(lead) if w in turns), default=-1)
    return concepts.is_nominal(" ".join(lead[cut + 1:]))


def _primary(concepts: Concepts, judged: list[Judged]) -> list[Judged]:
    """Without the regimes that describe a part of the step ('these memory-bound kernels',
    sealed22 b.s245) or are named only as a secondary factor beside another ('Probably bandwidth-
    bound, though it could partly be launch-bound too', sealed22 a.s246): a caveat, not an
    alternative; the blind grades read the first as the (hedged) verdict."""
    t = concepts.context
    if t is not None:
        kinds = _kinds_as_subject(concepts, judged, t.generic_openers)
        judged = [j for i, j in enumerate(judged) if i not in kinds]
        judged = [j for j in judged if not _describes_a_part(concepts, j, t.described, t.described_after)
                  and not _left(concepts, j, judged, t.left)
                  and not served(concepts, before := _before(concepts, j))
                  and not cued(before[-_NEAR:], t.holds_for)]   # "the right treatment for a loop
    #   that is actually limited by bandwidth" (sealed125 e.s1273): where a claim holds, not this step
    regimes = {c for j in judged for c in j.match.concepts}
    if t is None or len(regimes) < 2:
        return judged
    secondary = {text: cued(concepts.words(text), t.secondary) for text in {j.clause_text for j in judged}}
    kept = [j for j in judged if not secondary[j.clause_text]]   # once a clause, not once a mention
    return kept if kept else judged


_NEAR = 12   # words before a regime that can say what a claim holds for: linear in a long clause


def _describes_a_part(concepts: Concepts, j: Judged, described: frozenset[str],
                      after: frozenset[str]) -> bool:
    """A regime said of a part of the step: before a part's noun ("memory-bound kernels"), between
    a share's noun and what it shares ("a fat tail of memory-bound work that matters", sealed289
    b.s2915, a compute-bound answer, instructor 95), or after a word of `described_after`."""
    ws = concepts.words(j.clause_text)
    end = j.match.start + len(concepts.words(j.match.phrase))
    t = concepts.context
    kind = t is not None and end < len(ws) and (
        (ws[end] not in t.terminators | _JOINS and bool(set(ws[end + 1:end + 3]) & t.generic))
        or (ws[end] in t.generic and bool(set(words(j.clause_text)) & _RELATIVE)))   # "a bandwidth-bound
    #   loop would have HBM near saturation", "A loop that was really bandwidth-bound would have HBM
    #   pinned" (sealed231 e.s2331): a kind of step, not this one (not "is bandwidth-bound and would")
    before = described | (t.described_before if t is not None else frozenset())
    doing = t is not None and end + 1 < len(ws) and ws[end] in t.described_doing \
        and ws[end + 1].endswith("ing")   # "That is the memory-bound work dragging the average to
    #   20%" (sealed276 c.s2783, a compute-bound essay, instructor 92), not "compute-bound work that"
    return (end < len(ws) and ws[end] in before) or kind or doing \
        or (j.match.start > 0 and ws[j.match.start - 1] in after \
            and not _of_the_step(ws, j.match.start - 1, t)) \
        or (t is not None and j.match.start > 0 and end < len(ws) and ws[j.match.start - 1] in t.parts_of) \
        or _said_of_a_part(ws, j.match.start, described) or _relative_subject(j.clause_text, described)


def _of_the_step(ws: list[str], at: int, t: Triggers | None) -> bool:
    """The word `at`, before the regime, says the regime of the step after all: a verb whose subject
    is the whole step ("the GPU is (already) doing compute-bound work", sealed318 c.s3209; not
    "attention is doing memory-bound work"), or the end of an appearance ("looks like BW-bound ...
    on paper", sealed34 e.s365: the nominal regime; not "it is behaving like a memory-bound job",
    sealed310 c.s3122)."""
    near = ws[max(at - 4, 0):at]
    return t is not None and (any(tuple(ws[at + 1 - len(p):at + 1]) == p for p in t.appearances) or (
        ws[at].endswith("ing") and any(w in t.whole and nxt in BEING | {"s"} for w, nxt in pairwise(near))))


def _said_of_a_part(ws: list[str], start: int, described: frozenset[str]) -> bool:
    """A regime said of a part through a copula, an adverb or so between: "The attention kernels
    are memory-bound in practice" (sealed238 c.s2404, a compute-bound answer, instructor 92)."""
    copula = next((i for i in range(start - 1, max(start - 3, 0) - 1, -1) if ws[i] in BEING), None)
    return copula is not None and copula > 0 and ws[copula - 1] in described


@lru_cache(maxsize=1024)
def _relative_subject(clause: str, described: frozenset[str]) -> bool:
    """A regime said of a part a relative clause restricts: the clause's one copula, near its end,
    follows a part's noun and a relative pronoun ("the kernels that write and re-read it are
    memory-bound, dragging the FLOP rate down", sealed300 c.s3028, a compute-bound essay). Read
    once per clause: a Regime section of many names is one long clause."""
    raw = words(clause)
    copula = max((i for i, w in enumerate(raw) if w in BEING), default=None)   # the regime after it
    return copula is not None and copula >= len(raw) - 4 and sum(w in BEING for w in raw) == 1 and any(
        raw[i] in described and raw[i + 1] in _RELATIVE for i in range(copula - 1))


def _kinds_as_subject(concepts: Concepts, judged: list[Judged], openers: frozenset[str]) -> set[int]:
    """The regimes (by index) that open a sentence as kinds of step, with a verb after their noun:
    "A bandwidth-bound or compute-bound loop pins one of them" (sealed135 e.s1371, an overhead-bound
    essay). Not "a compute-bound workload that is running inefficiently" (sealed130 c.s1326), a
    verdict in apposition, nor "A compute-bound step.", a verdict alone."""
    out: set[int] = set()
    for j in judged:
        if j.match.start > 1:
            continue   # (before reading the clause: a long one naming many regimes stays linear)
        raw = words(j.clause_text)
        lead = 1 if raw[:1] and raw[0] in _ALTERNATIVE | _CONTRAST else 0   # ", and a bandwidth-bound
        if j.match.start != lead or raw[lead:lead + 1] == [] or raw[lead] not in openers or not (
                lead or j.clause == 0 or j.sentence.lstrip().startswith(j.clause_text.strip())):
            continue   # loop does not sit at 14% of bandwidth" (sealed239 e.s2411): a clause of its own
        mine = [i for i, k in enumerate(judged) if (k.sentence, k.clause) == (j.sentence, j.clause)]
        ws, pos, taken = concepts.words(j.clause_text), lead, []
        while pos < len(ws):
            at = next((i for i in mine if judged[i].match.start == pos), None)
            if at is None and ws[pos] not in _ALTERNATIVE:
                break
            taken += [at] if at is not None else []
            pos += len(concepts.words(judged[at].match.phrase)) if at is not None else 1
        noun = raw.index(ws[pos]) if pos < len(ws) and ws[pos] in raw else None
        if noun is not None and len(ws) - pos > 2 and noun + 1 < len(raw) and raw[noun + 1] not in _RELATIVE:
            out.update(taken)
    return out


_ALTERNATIVE, _CONTRAST = frozenset({"or", "and", "nor"}), frozenset({"but", "while", "whereas"})
_RELATIVE = frozenset({"that", "which", "who", "where", "whose", "with"})


_JOINS = frozenset({"and", "or", "which", "it", "we", "i", "you", "they"})   # "compute-bound I would say"


def _before(concepts: Concepts, j: Judged) -> list[str]:
    """The words before a regime in its clause, and across an aside just before the clause: "Int4
    gives a big win (up to ~4x) on bandwidth-bound ..." (sealed106 d.s1082) is one clause."""
    ws = concepts.words(j.clause_text)[:j.match.start]
    at = j.sentence.find(j.clause_text)
    lead = j.sentence[:at].rstrip() if at > 0 else ""
    if lead.endswith(")") and "(" in lead:
        prior = clauses(lead[:lead.rindex("(")])
        ws = (concepts.words(prior[-1]) if prior else []) + ws
    return ws


def _left(concepts: Concepts, j: Judged, judged: list[Judged], left: tuple[tuple[str, ...], ...]) -> bool:
    """The regime the step has left ("crossed from bandwidth-bound into compute-bound"): one of
    `left` right before it, and another regime after it in the same clause, or one of `places`
    right after it ("taken us out of the bandwidth-bound regime", "numbers from the
    bandwidth-bound world"): a place the step is not in."""
    ws = concepts.words(j.clause_text)
    before = tuple(ws[:j.match.start])
    if not any(before[len(before) - len(p):] == p for p in left if len(p) <= len(before)):
        return False   # (the cheap test first: a long clause of regime names is linear)
    end = j.match.start + len(concepts.words(j.match.phrase))
    place = concepts.context is not None and end < len(ws) and ws[end] in concepts.context.places
    return place or any(k.clause == j.clause and k.sentence == j.sentence and k.match.start > j.match.start
                        and k.match.concepts != j.match.concepts for k in judged)


def _slashed_pair(concepts: Concepts, text: str, kind: str) -> bool:
    """Two different regimes either side of a slash ('compute-bound / memory-bound'): offered as
    alternatives, as with 'or'; the student commits to neither."""
    for m in re.finditer(r"\s*/\s*", text):
        left = _SIDE.split(text[:m.start()])[-1]   # a parenthesis ends a side: 'launch-bound /
        right = _SIDE.split(text[m.end():])[0]      # overhead-bound (nominally BW-bound)' is one
        found = [{c for x in concepts.find(kind, side) for c in x.concepts} for side in (left, right)]
        if found[0] and found[1] and found[0] != found[1]:
            return True
    return False


def _slashed_list(concepts: Concepts, text: str, kind: str) -> bool:
    """Three or more terms between slashes, two of them regimes (sealed40 a.s427, four terms,
    instructor: 'four regimes listed, none committed to'): a keyword list, even of synonyms."""
    sides = _SLASHED.split(text)
    return len(sides) > 2 and sum(1 for s in sides if concepts.find(kind, s)) > 1


def _either(concepts: Concepts, judged: list[Judged]) -> bool:
    """Two regimes offered as alternatives in one clause ('compute-bound or bandwidth-bound
    depending on batch', 'compute bound vs bandwidth bound (check roofline)', sealed62 d.s646):
    the student weighs them and commits to neither."""
    by_clause: dict[tuple[str, int], set[str]] = {}   # a clause of its sentence: each sentence
    for j in judged:                                     # counts its clauses from 0
        if j.status != "negated":
            by_clause.setdefault((j.sentence, j.clause), set()).update(j.match.concepts)
    for n, cs in by_clause.items():
        ws = concepts.words(next(j.clause_text for j in judged if (j.sentence, j.clause) == n))
        names = {w for j in judged if (j.sentence, j.clause) == n for w in concepts.words(j.match.phrase)}
        either = concepts.context.either if concepts.context is not None else frozenset({"or"})
        if len(cs) > 1 and (set(ws) & either or set(ws) - names <= {"and", "both"}):
            return True   # 'Compute bound and bandwith bound' names both and commits to neither
    return False


def _keywords(concepts: Concepts, judged: list[Judged]) -> bool:
    """A regime named bare beside `keyword_terms` bare lever names or more ("Relevant:
    compute-bound, bandwidth, int4, fp8, ridge point, speculative decoding, dequantization",
    sealed258 d.s2610, instructor 0: "no regime committed"): a keyword list's term."""
    t = concepts.context
    return t is not None and any(len(bare_names(concepts, "lever", j.sentence)) >= t.keyword_terms
                                 for j in judged if j.status == "affirmed" and _bare(concepts, j))


def _bare(concepts: Concepts, j: Judged) -> bool:
    """A clause that is the regime's name and nothing else: 'compute-bound, bandwidth-bound' is an
    enumeration of alternatives, not a verdict with its qualifier ('nominally bandwidth-bound')."""
    return concepts.words(j.clause_text) == concepts.words(j.match.phrase)


def _alone(concepts: Concepts, j: Judged) -> bool:
    """A sentence, or list item, that is the regime's name and nothing else."""
    return j.status == "affirmed" and concepts.words(j.sentence) == concepts.words(j.match.phrase)


def _a_level(concepts: Concepts, clause: str) -> bool:
    """A resource's word as the subject of its level ("Compute is at 71%", "bandwidth only at 30%"):
    how busy it is, not the verdict a Regime section shortens to (context.yaml `levels`)."""
    t = concepts.context
    if t is None or not t.levels:
        return False
    ws = concepts.words(clause)
    for m in concepts.find("regime_word", clause):
        k = m.start + len(concepts.words(m.phrase))
        while k < len(ws) and ws[k] in t.levels:
            k += 1
        if k < len(ws) and ws[k][:1].isdigit():
            return True
    return False
