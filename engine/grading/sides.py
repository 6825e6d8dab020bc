"""Siding with someone: an item or paragraph that takes a speaker's side ('I side with the second
engineer', 'the second engineer is right: ...') and states the speaker's claim in its own words
endorses that claim, whatever the item's other levers and however its words read alone."""

from __future__ import annotations

import re

from regime.engine.grading.answer import SENTENCE, Answer
from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.scopes import cued, negates


def sides(concepts: Concepts, sentence: str) -> bool:
    """A clause of the sentence holds an agreement cue (context.yaml `agree`, `sides`) and no
    negation before it ('I don't side with ...' refuses the side), and no contrast turns the
    sentence after it ('has a point ... but I don't think it means ...': a concession)."""
    t = concepts.context
    if t is None:
        return False
    cues = (*t.agree, *t.sides)
    for clause in clauses(sentence):
        ws = t.plain(concepts.words(clause))
        at = next((i for i in range(len(ws)) for c in cues if tuple(ws[i:i + len(c)]) == c), None)
        if at is not None and not negates(ws[:at], t):
            rest = concepts.words(sentence[sentence.find(clause) + len(clause):])
            return not set(rest) & t.contrast
    return False


def sided(a: Answer, concepts: Concepts, line: int, item: str) -> None:
    """An item that sides with someone and states a claim (by alias or by meaning) endorses it:
    a claim negative in itself ('memory-bound ops don't matter', 'they are not the bottleneck')
    read there is the student's own, not a rejection of it (sealed166 b.s1684 'I side with the
    second engineer here. ... the layer norms and elementwise ops can't be the bottleneck',
    sealed81 b.s834 'the second engineer is right: memory-bound ops ... don't matter much';
    instructors 0 and 1: "endorses the second engineer's claim"). Not where the item calls
    anything wrong ('right that we are compute-bound, wrong that ...'). Called once the
    whole answer is read."""
    t = concepts.context
    sentences = SENTENCE.split(item)
    parts = [c for s in sentences for c in clauses(s)]
    side = [c for s in sentences if sides(concepts, s) for c in clauses(s) if sides(concepts, c)]
    if t is None or not side or any(cued(concepts.words(c), t.refutes) for c in parts):
        return
    named = [c for m in concepts.find("claim", item) for c in m.concepts]
    named += [c for m in a.rejects if m.line == line and m.kind == "claim" for c in m.concepts]
    claim = named[0] if named else stated_claim(concepts, [c for c in parts if c not in side])
    #   what the student states, negative as the claim is ("they can't be the bottleneck"), not
    #   the side's topic ("the first engineer is right about the memory-bound ops", sealed104 b.s1061)
    if claim is None or any(claim in m.concepts and m.line != line for m in a.rejects):
        return   # an answer that refutes the claim elsewhere sided with someone else (sealed107 b.s1091)
    held = holders(a, concepts, claim)
    if held and not held & {p for c in side for p in side_party(concepts, c)}:
        return   # "I side with the first one" where "the second engineer's argument" is the claim
    a.rejects = [m for m in a.rejects if not (claim in m.concepts and m.line == line)]
    if claim not in a.endorsed:
        a.endorsed.append(claim)
        a.statuses.append((line, "sided", item.strip()))


def stated_claim(concepts: Concepts, parts: list[str]) -> str | None:
    """The claim the clauses state, negative as the claims are ("they can't be the bottleneck"),
    guessed by meaning from those that negate: not the side's topic ("the first engineer says the
    memory-bound ops are worth fusing. I agree with that part", sealed253 b.s2552, instructor 93)."""
    t = concepts.context
    stated = [c for c in parts if t is not None and negates(concepts.words(c), t)]
    return concepts.guess("claim", " ".join(stated)) if stated else None


def agreed_claim(concepts: Concepts, read: list[str], n: int, text: str) -> str | None:
    """The claim sentence `n` of `text` agrees with: what a speaker says in its other clauses or
    the sentence before ("The first engineer says the memory-bound ops are worth fusing. I agree
    with that part"), read as `stated_claim`; else the paragraph's meaning ("I agree with the
    second engineer. ... hand-fusing them is two weeks for nothing", sealed173 b.s1756)."""
    said = [c for c in clauses(read[n]) if not sides(concepts, c)] + (clauses(read[n - 1]) if n else [])
    if any(party(concepts, c) for c in said):
        return stated_claim(concepts, said)
    return concepts.guess("claim", text)


def side_party(concepts: Concepts, clause: str) -> set[str]:
    """Whose side a clause takes: the parties named up to its agreement cue ("the first engineer
    has a point"), else just after it ("I side with the second engineer"); not one the clause
    goes on to refuse ("... and the second one does not", sealed205 b.s2071, instructor 100)."""
    t = concepts.context
    ws = concepts.words(clause)
    cues = (*t.agree, *t.sides) if t is not None else ()
    end = next((i + len(c) for i in range(len(ws)) for c in cues if tuple(ws[i:i + len(c)]) == c), len(ws))
    return party(concepts, " ".join(ws[:end])) or party(concepts, " ".join(ws[:end + _AFTER_CUE]))


_AFTER_CUE = 3   # "side with [the second engineer]"


def party(concepts: Concepts, text: str) -> set[str]:
    """Who a clause names: the word before each speaker word ('second' in 'the second engineer',
    'first' in 'the first one' where the speaker word was named before), or its number after it
    ('engineer two', 'Engineer 2': the second)."""
    t = concepts.context
    if t is None:
        return set()
    ws, n = concepts.words(text), t.speaker_numbers
    numbered = {i for i, w in enumerate(ws[:-1]) if w in t.speakers and ws[i + 1] in n}
    before = {n.get(ws[i - 1], ws[i - 1]) for i, w in enumerate(ws) if i and i not in numbered
              and ws[i - 1] not in t.speakers and (w in t.speakers or w == "one")}
    return before | {n[ws[i + 1]] for i in numbered}


_QUOTE = re.compile(r"[\"“][^\"”]{8,}[\"”]")   # a quotation, as students mark someone else's words


def naming(a: Answer, concepts: Concepts, claim: str) -> list[str]:
    """The paragraphs that name a claim, by alias or, quoting it, by meaning: "I side with the
    first engineer" refuses it in one paragraph, and 'The second engineer's line - "compute-bound,
    therefore memory-bound ops can't matter" - mixes up two things. ...' argues why in another
    (sealed276 b.s2781). By meaning only where it quotes: nearly every paragraph of an answer to
    that case leans to the claim's words (tried: as many answers lost as gained)."""
    return [p for p in re.split(r"\n\s*\n", "\n".join(a.lines))
            if any(claim in m.concepts for m in concepts.find("claim", p))
            or (_QUOTE.search(p) and concepts.guess("claim", p) == claim)]


def holders(a: Answer, concepts: Concepts, claim: str) -> set[str]:
    """Who the answer says holds the claim: the parties named in the sentences that name it, by
    alias or by meaning, in the clauses that take no side."""
    out: set[str] = set()
    paragraphs = re.split(r"\n\s*\n|\n(?=#)", "\n".join(a.lines))   # not across a heading
    for s in (s for p in paragraphs for s in SENTENCE.split(" ".join(p.split()))):
        if any(claim in m.concepts for m in concepts.find("claim", s)) or concepts.guess("claim", s) == claim:
            out |= {p for c in clauses(s) if not sides(concepts, c) for p in party(concepts, c)}
    return out
