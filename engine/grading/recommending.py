"""Whether prose recommends the lever it names or only describes it ("Int4 shrinks bytes."): a
recommending cue in its sentence, the sentence before it or the first step of its enumeration,
or a sentence of lever names alone, as a list item under Fixes would be."""

from __future__ import annotations

import re

from regime.engine.grading.answer import Answer
from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.judged import Judged
from regime.engine.grading.scopes import negates, triggers
from regime.engine.grading.sentences import CLAUSE, FIRST_PERSON, sentences
from regime.engine.grading.triggers import Triggers
from regime.engine.grading.turns import answers_yes, taken_up
from regime.engine.grading.wording import words

LIST_WORDS = {"and", "or", "nor", "also"}
_QUESTION = re.compile(r"\?[\"”’']?\s*$")   # a sentence that asks, inside a quotation or not
LABEL_WORDS = 3   # 'For throughput:' labels a list; a longer head before a colon says something,
GOAL_WORDS = 8    # ... unless it names nothing and holds no trigger: the goal the list serves


def recommended(concepts: Concepts, paragraph: str, j: Judged) -> bool:
    """Prose recommends a lever in its own sentence ('I'd start with torch.compile'; 'Flash
    attention.', the name alone, as a list item would), in the sentence before that names
    nothing ('The obvious move is to stop serving one request at a time. With continuous
    batching the weight read is shared ...'), or in an enumeration whose first step recommends
    ('Fixes: (1) CUDA graphs ...; (2) torch.compile ...', sealed45 e.s474); otherwise it
    describes it."""
    t = concepts.context
    if t is None or _recommends(concepts, t, j.sentence):
        return True
    said = sentences(paragraph)
    i = next((k for k, s in enumerate(said) if s == j.sentence), 0)
    if i and taken_up(concepts, t, j.sentence) and any(
            set(j.match.concepts) & set(m.concepts) for m in concepts.find("lever", said[i - 1])):
        return True   # ... or takes up the words before it that named it ("A colleague suggested fp8
        #   matmuls instead. I agree with her, since fp8 raises the math throughput", sealed318 d.s3209)
    first = i
    while first > 0 and _ENUMERATED.match(said[first]) and _ENUMERATION.search(said[first - 1]):
        first -= 1
    if first < i and _recommends(concepts, t, said[first]):
        return True
    if i + 1 < len(said) and (_takes_up(concepts, t, said[i + 1]) or taken_up(concepts, t, said[i + 1])
                              or (_QUESTION.search(said[i]) and answers_yes(concepts, t, said[i + 1]))):
        return True   # ... or answers the question yes ('The director asked, "can't we just batch more
        #   users together?" Yes — that's the right call.', sealed294 e.s2965), or one that takes up
        #   someone else's words: "A colleague suggested capturing
        #               the step in a CUDA graph. I agree — it's the first thing to do" (sealed288 e.s2904)
    for before in reversed(said[max(i - _BACK, 0):i]):   # the nearest sentences before it naming nothing
        if any(concepts.find(k, before) for k in ("lever", "claim", "regime")):
            return False   # not "Yes, 61% means the step is compute-bound"
        if recommends(concepts, before, t):   # nor 'What I'd tell the director: "Not for this
            return not negates(concepts.words(before), t)   # endpoint.' (sealed89 d.s911): a refusal
    return False   # recommends nothing after it; "What would actually help is letting requests share a
    #   step. Our traffic is bursty, ...; with continuous batching they ride along" (sealed304 a.s3066)


_BACK = 2   # sentences naming nothing back to the one that recommends what comes next


def commits(a: Answer, concepts: Concepts, j: Judged, paragraph: str, heard: set[tuple[str, ...]]) -> bool:
    """A later affirmed mention of a lever its paragraph only described or reported before is the
    student's commitment to it: one narrowing it ("the real moves are ... to shrink the weights.
    ... Second, weight quant to int8", sealed134 a.s1363), or one in prose that recommends it
    after a description ("Each step launches kernels for the norms, RoPE, the residual adds ...
    the fix is ...: fuse the elementwise ops", sealed117 a.s1197, instructor 26, graded 46.9) or
    after someone else's words ("I agree with the person who suggested fusing the elementwise ops:
    ... fusing them into the matmul epilogues is the main fix", sealed148 a.s1507, 17 vs 29.4)."""
    if j.status != "affirmed" or any(set(j.match.concepts) & set(m.concepts)
                                     for m in (*a.fixes, *a.rejects, *a.hedged, *a.deferred)):
        return False
    if any(set(j.match.concepts) < set(m.concepts) for m in a.discussed):
        return True
    before = _heard(j, heard) or any(set(j.match.concepts) & set(m.concepts) for m in a.discussed)
    if not paragraph or not before or concepts.context is None:
        return False
    said = clauses(j.sentence)   # the cue before it in its clause, or in the clause it completes
    at = next((i for i, c in enumerate(said) if c.strip() == j.clause_text.strip()), -1)   # ("the
    lead = " ".join(concepts.words(j.clause_text)[:j.match.start])   # fix is to ...: fuse X")
    cues = [*said[max(at - 1, 0):at], lead]
    return (at >= 0 and any(recommends(concepts, c, concepts.context) for c in cues)) \
        or _step_alone(concepts, concepts.context, j) \
        or (before and taken_up(concepts, concepts.context, j.sentence))   # (sealed318 d.s3209)


def _heard(j: Judged, heard: set[tuple[str, ...]]) -> bool:
    return any(set(j.match.concepts) & set(h) for h in heard)


def _step_alone(concepts: Concepts, t: Triggers, j: Judged) -> bool:
    """A clause that is the lever's name and step words only: "... before anyone has tried
    torch.compile, which fuses exactly these ops. Compile first; hand-write kernels only for what
    is still left" (sealed294 b.s2969, instructor 94) puts it in the plan."""
    ws = concepts.words(j.clause_text)
    rest = ws[:j.match.start] + ws[j.match.start + (len(concepts.words(j.match.phrase)) or 1):]
    return bool(rest) and set(rest) <= t.steps


def _takes_up(concepts: Concepts, t: Triggers, sentence: str) -> bool:
    """A sentence opening with a recommendation of what points back, with no trigger and naming
    nothing in that clause: "I would do both, batching first" after two levers described (sealed120
    c.s1224); not "Possibly worth a small pilot for the memory it frees" (sealed121 d.s1236)."""
    first = clauses(sentence)[0] if sentence.strip() else ""
    ws = concepts.words(first)
    if tuple(ws) in t.follows_on:   # "... so the 40 GB never exists. After that, I'd add chunked prefill"
        return recommends(concepts, sentence, t)   # (sealed270 c.s2724): a next step after it
    back = set(ws) & t.anaphora or (set(words(first)[:1]) & t.anaphora_written and set(ws) & FIRST_PERSON)
    return bool(back) and recommends(concepts, first, t) and not triggers(ws, t) \
        and not any(concepts.find(k, first) for k in ("lever", "claim", "regime"))   # "...; that is what
    #   I would do first" (sealed324 e.s3309, instructor 47: the graph recommended), not "That should
    #   win back a good part of the 22%" (sealed109 b.s1113), which says what it does


def _recommends(concepts: Concepts, t: Triggers, sentence: str) -> bool:
    """The sentence itself recommends: the template's heading inline ("Fixes: (1) CUDA graphs
    ...; (2) ...", sealed45 e.s474), a recommending cue, or lever names alone."""
    head, colon, _ = sentence.partition(":")
    ws = set(concepts.words(head))   # "Main fix: batch ...", then "Also: FlashAttention to reduce ..."
    also = bool(ws) and ws <= t.adds_subject   # (sealed270 c.s2726): one more of the same
    return bool(colon and (concepts.heading(head) == "fixes" or _goal(concepts, t, head) or also)) \
        or recommends(concepts, sentence, t) or names_only(concepts, sentence, prose=True)


def _goal(concepts: Concepts, t: Triggers, head: str, opened: bool = True) -> bool:
    """A label naming the goal what follows serves ("For throughput on this endpoint: fp8 GEMMs,
    fused attention, ...", sealed155 d.s1574; "To get more tokens/s:", sealed159 d.s1620): a
    heading of fixes, as "Fixes:" is. Not `opened`, any label naming the goal, before names alone
    (names_only)."""
    ws = concepts.words(head)
    opener = head.strip().split(" ", 1)[0].lower()
    goal = any(tuple(ws[i:i + len(p)]) == p for p in t.goals for i in range(len(ws)))
    return (opener in t.goal_openers or not opened) and goal \
        and not any(concepts.find(k, head) for k in ("lever", "claim", "regime"))


_ENUMERATED = re.compile(r"^\s*(?:\(\d+\)|\d+[.)])\s+")        # a sentence opening '(2) ' or '2. '
_ENUMERATION = re.compile(r"\(\d+\)|(?:^|\s)\d+[.)]\s")        # ... after one holding a step


def names_only(concepts: Concepts, sentence: str, prose: bool = False) -> bool:
    """A sentence that is lever names and nothing else, after a short label ('Flash attention.',
    'For throughput: fp8 GEMMs, better tiling, fused attention.', sealed31 d.s335): a list item
    written inline, a recommendation as a Fixes list would be."""
    head, colon, rest = sentence.partition(":")
    t = concepts.context
    if colon and len(concepts.words(head)) <= LABEL_WORDS:
        sentence = rest
    elif colon and prose and _goal_head(concepts, head):   # after the goal it serves, each item's
        sentence = ASIDE.sub(" ", rest)                   # aside in brackets is its reason (not after
        #   a short label: "Rejct: batching (longer TTFT), weight quant (weights not the bottlenek)",
        #   sealed142 c.s1450, refuses in its asides)
    elif colon and t is not None and _goal(concepts, t, head, opened=False):
        sentence = rest   # or a longer label naming the goal: "More throughput here means fewer or
        #   cheaper FLOPs: fp8 GEMMs, fused attention, speculative decoding" (sealed121 d.s1240)
    found = concepts.find("lever", sentence)
    named = {w for m in found for w in concepts.words(m.phrase)}
    extra = set(concepts.words(sentence)) - named - LIST_WORDS   # a word or two qualify a list
    #   (not a trigger: 'maybe bigger batch'); "torch.compile now." is the name and when (sealed305 b.s3079)
    extra -= {p[0] for p in (t.now if t is not None else ()) if len(p) == 1}
    levers = {m.concepts for m in found}   # one lever twice is one name ('Int4 shrinks weight
    #   bytes.': 'int4' and 'shrink the weights', sealed82 d.s841, a description)
    return bool(named) and len(extra) < len(levers) and not (t is not None and extra & set(t.by_first()))


ASIDE = re.compile(r"\([^()]*\)")


def _goal_head(concepts: Concepts, head: str) -> bool:
    """A longer head before a colon in prose that labels the list after it with the goal it
    serves, naming nothing and refusing or hedging nothing ('For throughput on this endpoint: fp8
    GEMMs (a higher compute roof), fused attention, better GEMM tiling', sealed127 d.s1300,
    instructor 100, graded 82.4 with no compute fix)."""
    ws = concepts.words(head)
    t = concepts.context
    return t is not None and len(ws) <= GOAL_WORDS and not triggers(ws, t) \
        and not any(concepts.find(k, head) for k in ("lever", "claim", "regime"))


def recommends(concepts: Concepts, sentence: str, t: Triggers) -> bool:
    """Whether a sentence of prose recommends ('I'd start with', 'the fix is', 'first, ...', a
    clause opening with an imperative: 'Use FlashAttention') rather than describes ('int4 shrinks
    bytes', 'a GPU with more FLOPs is money spent on the resource we use 4% of')."""
    words = concepts.words(_unpseudo(sentence, t.not_recommend))
    if any(tuple(words[i:i + len(p)]) == p for p in t.recommend for i in range(len(words))):
        return True
    for clause in CLAUSE.split(sentence):
        first = clause.strip().split(" ", 1)[0].lower()
        if first in t.determiners or "/" in first:
            continue   # "the add/mul/silu kernels", "add/mul/silu at 9%": a noun phrase, not "add ..."
        ws = concepts.words(clause)
        while ws and (ws[0] in t.terminators or ws[0] in ("and", "then", "also", "just")):
            ws = ws[1:]
        numbered = ws[1:2] and ws[1][:1].isdigit()   # not "(batch 1 to ~32)": a noun before a number
        if any(tuple(ws[:len(p)]) == p and not (len(p) == 1 and numbered) for p in t.imperative):
            return True
    return False


def _unpseudo(sentence: str, pseudo: tuple[str, ...]) -> str:
    """The sentence with each pseudo-cue cut out, matched as written (the reader's normalizing
    drops "to": "next to the weight read" would be "next")."""
    for p in pseudo:
        sentence = re.sub(rf"(?i)\b{re.escape(p)}\b", " , ", sentence)
    return sentence
