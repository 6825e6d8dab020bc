"""Sentences and clauses as the assertion-status reader (context.py) cuts them, and the one
judgment made on clauses alone: a regime weighed between two hedges commits to neither."""

from __future__ import annotations

import re

from regime.engine.grading.answer import SHORTENED
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.judged import Judged
from regime.engine.grading.scopes import BEING, cued, opening, triggers
from regime.engine.grading.triggers import Triggers

_SENTENCE = re.compile(rf"(?<=[.!?;]){SHORTENED}(?:(?<!\betc\.)\s+|\s+(?=[A-Z0-9]))"
                       rf"|(?<=[!?][\"”])\s+(?=[A-Z])")
#   not after 'prob.', 'approx.', nor 'etc.' before a small letter ("(norms, RoPE etc. are a
#   negligible slice) and a higher-FLOP GPU" under "Not worth it:", sealed336 a.s3384); after a
#   quoted question: 'The director asked, "can't we just batch more users together?" Yes — that's
#   the right call.' (sealed294 e.s2965, instructor 0: the batching taken up)
QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")   # a quotation: its words in group 1 or 2
CLAUSE = re.compile(rf"[;:!?()\[\]—–|→⇒]|,(?=\s|$)|\.{SHORTENED}(?=\s|$)|\s-\s|\s=?-+>?\s|\"|“|”")
#   (not at the comma of "32,768", nor at the stop of 'prob.')
FIRST_PERSON = frozenset({"i", "we", "my", "our"})


def sentences(text: str) -> list[str]:
    """The sentences `judge` reads, in order."""
    return _SENTENCE.split(text)


def clauses_of(body: str) -> list[tuple[bool, str]]:
    """The clauses of a sentence, each with whether a parenthesis is still open after it."""
    out, at = [], 0
    for part in CLAUSE.split(body):
        at = body.find(part, at) + len(part)
        if part and part.strip():
            out.append((body.count("(", 0, at) > body.count(")", 0, at), part))
    return out


def hedges_between(concepts: Concepts, t: Triggers, sentence: str) -> bool:
    """Two clauses of the sentence open with a hedge ('Maybe compute-bound, maybe memory'):
    the student weighs alternatives and commits to neither."""
    opened = [opening(concepts.words(c), t, contrast=False) for c in CLAUSE.split(sentence)
              if c.strip() and names_a_regime(concepts, c)   # 'Probably X, I think': one regime
              and not cued(concepts.words(c), t.secondary)]
    return opened.count("possible") > 1


def names_a_regime(concepts: Concepts, clause: str) -> bool:
    """A regime, a word it shortens to ('maybe memory') or any '-bound' ('maybe attention-bound')."""
    return bool(concepts.find("regime", clause) or concepts.find("regime_word", clause)
                or "bound" in concepts.words(clause))


def reported_quote(concepts: Concepts, t: Triggers, body: str, owned: bool = True) -> bool:
    """Whether a sentence's quotation is someone else's words: an `attributed` trigger, a verb or
    noun of speech right before a quotation mark ('said "'), or as the subject of a copula before
    it ('Ravi's suggestion in the standup was "just batch it and quantize"', sealed298 e.s3009,
    instructor 100, graded 35 with both read as the student's fixes), a possessive before it where
    levers and claims are read (`owned`), or a speaker's label."""
    if any(s == "attributed" for s, *_ in triggers(concepts.words(body), t)):
        return True
    for q in QUOTED.finditer(body):
        ws = concepts.words(body[:q.start()])
        if set(ws[-_SAID:]) & t.speech or (ws[-1:] and ws[-1] in BEING and set(ws[-_SUBJECT:]) & t.speech):
            return True
        if owned and _OWNER.search(body[:q.start()]):   # 'The director's "just quantize it" has the
            return True   # same problem' (sealed428 e.s4304, instructor 95: refuted): whose words they are
    return _speaker_label(body, t)   # 'Engineer A: "give me two weeks and I'll hand-fuse ..."'


_OWNER = re.compile(r"\w['’]s\s*$")   # a possessive right before the quotation mark
_SUBJECT = 6   # words back to the noun of speech a copula predicates ("suggestion in the standup was")
_SAID = 4      # words back to a verb of speech: 'Ravi said in standup, "batch the prefills"' (sealed348)


def _speaker_label(body: str, t: Triggers) -> bool:
    """A label naming a speaker before a quotation ('Engineer A: "..."', sealed137 b.s1393; "The
    vendor's pitch, as relayed to me:", sealed157 d.s1599), not one first addressing someone ('Note to')."""
    q = QUOTED.search(body)
    head = re.findall(r"[a-z]+", (label := body[:q.start()].rstrip() if q else "").lower())
    who = next((i for i, w in enumerate(head) if w in t.speakers), None)
    return label.endswith(":") and who is not None and not set(head[:who]) & t.addressed


def unreported(concepts: Concepts, reason: str) -> str:
    """The reason without what it reports someone else saying: 'The vendor says "int4 means 4x
    fewer bytes, so up to 4x the throughput." I would still say no: accuracy' answers the vendor's
    figures with accuracy (sealed142 d.s1443, instructor: the wrong reason). A quotation counts as
    reported after a verb of speech or a speaker (context.yaml `speech`, `speakers`), not the
    student's own words quoted ("what I'd tell the director: ...", sealed92 d.s941)."""
    t = concepts.context
    if t is None or ('"' not in reason and "“" not in reason):
        return reason
    for q in reversed(list(QUOTED.finditer(reason))):
        before = set(concepts.words(reason[:q.start()])[-5:])
        if before & (t.speech | t.speakers) and not before & FIRST_PERSON:
            reason = f"{reason[:q.start()]} {reason[q.end():]}"
    return reason


def stated(concepts: Concepts, named: list[Judged], head: str) -> bool:
    """A regime said with a copula before a colon is a statement, not a topic the words after the
    colon judge: "That is compute-bound: the opposite pattern to a single-user chatbot." (sealed344
    d.s3461, instructor 100, graded 61 with compute-bound denied)."""
    regime = any(j.match.kind in ("regime", "regime_word") for j in named)
    return regime and bool(set(concepts.words(head)) & BEING)
