"""What a heading, a paragraph's last line or a sentence does to the items around it, read
before any lever is: opens a template section by label ('- Fix: CUDA graphs'), introduces a list
of refusals or recommendations ('What I would not do:'), announces the rejections that follow
('Two proposals I would turn down.'), or sides with or disputes someone ('I agree with the
second engineer.')."""

from __future__ import annotations

import re

from regime.engine.grading.answer import SENTENCE
from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.items import CROSSES
from regime.engine.grading.labels import RUN_IN, section
from regime.engine.grading.layout import EMPHASIS as _EMPHASIS
from regime.engine.grading.layout import PROSE
from regime.engine.grading.recommending import recommends
from regime.engine.grading.scopes import cued, negates, opening, refuses_for_now
from regime.engine.grading.sentences import QUOTED

_QUALIFIED = re.compile(r"[,(]")


def labelled_item(concepts: Concepts, item: str) -> tuple[str, str]:
    """A paragraph or list item of prose that opens with a template section's name as a label
    ('- Fix: CUDA graphs', '- Reject: int4, past the ridge', sealed104 e.s1065) is read as an item
    of that section; so is one that opens with a cross ('- ✗ fusing attention: already flash, <7%
    possible', sealed115 b.s1178), as a table's cross refuses its row. Any other stays prose."""
    if item.lstrip()[:1] in CROSSES and item.lstrip()[1:].strip():
        return "reject", item.lstrip()[1:].strip()
    run_in = RUN_IN.match(item)   # '**Rejected for now.** Raising the batch ...' (sealed183 e.s1851)
    head, colon, rest = (run_in["head"], ":", run_in["rest"]) if run_in else item.partition(":")
    named = section(concepts, _EMPHASIS.sub("", head)) if colon and len(head) <= 30 else None
    return (named, rest.strip()) if named in ("fixes", "reject") and rest.strip() else (PROSE, item)


def opens_with_a_lever(concepts: Concepts, item: str) -> bool:
    """A list item whose first clause opens with a lever ("1. Continuous batching so that ...", "1)
    <a lever> so ...", "1. Turn on torch.compile": its step number is no clause). Not one that
    reports someone's proposal first ("4. A colleague argued we should 'just get a card with more
    TFLOPs'. I disagree", "5. Someone else wants to fuse ...", sealed245 a.s2476): not a step."""
    first = next((c for c in clauses(item) if not c.strip().strip("(").isdigit()), "")
    found = concepts.find("lever", first)
    speakers = concepts.context.speakers if concepts.context is not None else frozenset()
    return bool(found) and not set(concepts.words(first)[:found[0].start]) & speakers


def introduces(concepts: Concepts, paragraph: str) -> str | None:
    """The section a paragraph ending in a colon opens for the list after it: a template
    heading's name ('Fixes:'), else refusals ('What I would not do:') or recommendations ('What
    I would do, in this order:')."""
    last = SENTENCE.split(paragraph.strip())[-1].rstrip(":")
    last = QUOTED.sub('""', last)   # what it quotes is not the student's: 'My colleague's read ("it's
    t = concepts.context            # the launches, not the model") is right, and the fix follows from
    #                                 it:' (sealed240 e.s2425, instructor 100) opens no refusals
    named = concepts.heading(last) or concepts.heading(_QUALIFIED.split(last)[0])   # "Fixes, in
    #   order" (sealed149 e.s1511): the template's name, then a qualifier of its own
    if named in ("fixes", "reject") or t is None:
        return named
    head, comma, rest = last.partition(",")
    if comma and concepts.words(head)[:1] and concepts.words(head)[0] in t.premise:
        last = rest   # "Because we can't go past the ceiling, the useful moves are:" (sealed34 a.s361)
    parts = clauses(last)   # "One stream can't beat the ceiling, so we either make more tokens share
    turn = [i for i, c in enumerate(parts) if i and concepts.words(c)[:1] and   # each weight read or
            concepts.words(c)[0] in t.terminators - t.contrast]   # ...:" (sealed251 a.s2531): what
    last = " ".join(parts[turn[-1]:]) if turn else last   # follows from the premise opens the list
    ws = concepts.words(last)
    if negates(ws, t) and cued(ws, (*t.agree, *t.sides, *t.method)):   # "I side with the first engineer on
        return None   # *what* to attack, but not on *how*:" (sealed170 b.s1721): the side is qualified,
    #                   the list after it is the student's own plan, its items read on their own
    if negates(ws, t) and concepts.find("lever", last):   # "I would not start with the two weeks of
        return None   # hand-fusion though:" (sealed273 b.s2752) refuses its own lever; its list is the plan
    return "reject" if negates(ws, t) else "fixes" if recommends(concepts, last, t) else None


def refusing(concepts: Concepts, heading: str) -> str | None:
    """A heading not the template's that refuses ('## Not worth it', sealed78 b.s802) heads
    rejections; not one that joins template sections ('## Fixes / Reject', a table of verdicts)."""
    if any(concepts.heading(part) for part in _JOINED.split(heading)):
        return None
    return "reject" if introduces(concepts, heading) == "reject" else None


_JOINED = re.compile(r"\s*(?:[/&+,]|\band\b)\s*")


def qualified(concepts: Concepts, heading: str) -> str | None:
    """A template heading with a qualifier after a comma or in brackets ('## Fixes, in order',
    sealed149 e.s1511) names its section, unless the qualifier names another ('## Fixes, Reject'; not
    '## Evidence (the numbers)', the same section again)."""
    head, *rest = _QUALIFIED.split(heading, 1)
    named = concepts.heading(head)
    return None if not named or any(concepts.heading(p) not in (None, named)
                                    for p in _JOINED.split("".join(rest))) else named


def announcing(concepts: Concepts, sentences: list[str]) -> int | None:
    """The first of a paragraph's sentences, not its last, that names nothing and announces the
    rejections after it."""
    return next((i for i, s in enumerate(sentences[:-1]) if not any(concepts.find(k, s) for k in ("claim",
                 "lever")) and announces(concepts, s, sentences[i + 1])), None)


def announces(concepts: Concepts, sentence: str, after: str = "") -> bool:
    """A sentence that refuses things it goes on to name ('Two proposals I would turn down.',
    'The following I would not do:', 'Not yet for the two proposals on the table.', sealed137
    e.s1391): a negation, or a deferral worded as one (or as `holds_off`: "So I'd hold off on the two
    proposals.", sealed202 e.s2041), and one of the context file's `announce` words;
    or a free relative of the student's own that refuses (`announce_what`) when the sentence `after`
    opens on a lever's name (its first or second word), as after a label: "What I'd say no to, for
    now. Raising the batch and quantizing the weights." (sealed168 e.s1701)."""
    t = concepts.context
    ws = concepts.words(sentence)
    return t is not None and (negates(ws, t) or refuses_for_now(ws, t) or cued(ws, t.holds_off)) and (
        bool(set(ws) & t.announce) or (any(tuple(ws[:len(p)]) == p for p in t.announce_what)
                                       and any(m.start <= 1 for m in concepts.find("lever", after))))


def agrees(concepts: Concepts, sentence: str) -> bool:
    """A sentence that sides with someone ('I agree with the second engineer.'): its paragraph
    states, in its own words, the claim it agrees with (sealed63 b.s653, instructor 7). What follows
    the agreement's colon may be the claim, negative in itself ("I agree with the second engineer:
    the memory-bound kernels are not what's limiting it", sealed158 b.s1607, instructor 2). A
    negation counts only in the agreement's own clause, up to its cue ("I don't agree with"): the
    claim reported before it may be negative in itself ("The second engineer pointed out that ...
    the memory-bound kernels are not on the critical path, and I think that is right", sealed281
    b.s2834, instructor 1)."""
    t = concepts.context
    if t is None:
        return False
    said = [t.plain(concepts.words(c)) for c in clauses(sentence)]
    for n, ws in enumerate(said):
        end = next((i + len(c) for i in range(len(ws)) for c in t.agree
                    if tuple(ws[i:i + len(c)]) == c), None)
        if end is not None:   # ... and not one a contrast after it takes back ("I agree with the first
            return not negates(ws[:end], t) and not any(   # engineer's diagnosis, though not with the
                opening(w, t, contrast=False) == "negated" or (w[:1] and w[0] in t.contrast and negates(w, t))
                for w in said[n + 1:])   # plan", sealed151 b.s1534)
    return False


def disputes(concepts: Concepts, sentence: str) -> bool:
    """A sentence that negates something it does not name: under Reject it would be a rejection."""
    t = concepts.context
    return t is not None and negates(concepts.words(sentence), t)


def refuted_after(concepts: Concepts, later: list[str]) -> bool:
    """A later sentence of the paragraph quotes someone and calls it wrong ('The second engineer
    says "..." - that is wrong.'): an agreement before it was with someone else, not with the claim
    (not "... would be optimizing the wrong resource", which quotes no one)."""
    t = concepts.context
    return t is not None and any(cued(concepts.words(c), t.refutes) for s in later if _QUOTE.search(s)
                                 for c in clauses(s))


_QUOTE = re.compile(r"[\"“”]")
