"""A lever offered on a condition ("int8 only if memory is still tight"), and whether that
condition is the key's own wait ("then, not before") or another ("if users are queueing"): the
sentences of an item that speak of the lever, after a label naming it, up to a reason."""

from __future__ import annotations

import re

from regime.engine.grading.answer import SENTENCE
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.scopes import cued, negates


def offered_if(concepts: Concepts, item: str, concept: str) -> bool:
    """A lever offered on a condition (`offered_if`: "int8 only if memory is still tight") in
    sentences of the item that name it and refuse nothing: no refusal of it beside the condition,
    no denial of the condition ("only if memory gets tight; the weights aren't what's slow"), and
    not one the student does not expect to arise (`remote`: "only if ITL ever becomes the complaint")."""
    t = concepts.context
    if t is None:
        return False
    sentences = _said_of(concepts, item, concept)
    said = [concepts.words(s) for s in sentences]
    opens = [ws for s in sentences for ws in _openings(concepts, s)]
    offered = any(cued(ws, t.offered_if) for ws in said) or any(
        tuple(ws[:len(p)]) == p for ws in opens for p in t.offered_opening)
    return offered and not any(negates(ws, t) or cued(ws, t.remote) for ws in said)


def _openings(concepts: Concepts, sentence: str) -> list[list[str]]:
    """The sentence's words, and those after a lead-in that names no lever: "Along the same lines,
    if several documents come in together, batch their prefills" (sealed460 c.s4627, instructor 84:
    batching offered on a condition) opens on its condition as "If several ..." does; so does one
    after a word carrying on from the sentence before (`continuing`): "And if a lot of documents
    arrive at the same moment, batching their prefills would be worth turning on" (sealed552
    c.s5546, instructor 74: the rejection and 3 more lost)."""
    head, comma, rest = sentence.partition(",")
    lead_in = comma and not concepts.find("lever", head)
    ws = concepts.words(sentence)
    t = concepts.context
    carried = t is not None and ws[:1] and ws[0] in t.continuing
    return [ws] + ([concepts.words(rest)] if lead_in else []) + ([ws[1:]] if carried else [])


def waits_elsewhere(concepts: Concepts, item: str, concept: str, fixes: set[str]) -> bool:
    """A lever the key refuses only for now, offered on a condition that is not the key's wait
    (a regime, one of its fixes, a re-measure: `waits_on`): "If users are queueing at peak times,
    also raise the batch" (sealed297 e.s2998, instructor 69: the rejection lost and 3 more)."""
    t = concepts.context
    if t is None or not offered_if(concepts, item, concept):
        return False
    said = [_condition(concepts, s) for s in _said_of(concepts, item, concept)]
    return not any(concepts.find("regime", s) or cued(concepts.words(s), t.waits_on)
                   or any(set(m.concepts) & (fixes - {concept}) for m in concepts.find("lever", s))
                   for s in said)


def _condition(concepts: Concepts, sentence: str) -> str:
    """The condition a sentence sets: up to its first comma where it opens on one ("If traffic
    picks up, raising the batch would be worth doing right away to put the idle GPU to work",
    sealed542 e.s5448, instructor 76: the idle GPU is the purpose, traffic the condition), else the
    sentence up to a reason ("..., since that spreads the launch cost": no condition, sealed415
    e.s4177, instructor 79)."""
    t = concepts.context
    head, comma, _ = sentence.partition(",")
    ws = concepts.words(head)
    ws = ws[1:] if t is not None and ws[:1] and ws[0] in t.continuing else ws
    if comma and t is not None and any(tuple(ws[:len(p)]) == p for p in t.offered_opening):
        return head
    return _before_reason(concepts, sentence)


def _before_reason(concepts: Concepts, sentence: str) -> str:
    """The sentence up to a clause giving a reason (", since ...": context.yaml `premise`)."""
    t = concepts.context
    return next((sentence[:m.start()] for m in _REASON.finditer(sentence) if t is not None
                 and concepts.words(m[1])[:1] and concepts.words(m[1])[0] in t.premise), sentence)


_REASON = re.compile(r"[,;(]\s*(\w+)")


def _said_of(concepts: Concepts, item: str, concept: str) -> list[str]:
    """The item's sentences naming `concept`, each after a label naming it, but not one whose label
    it shares with another lever the words after the label speak of instead: under "Batch / quant:
    quantizing doesn't help ..., skip it." the refusal is quantization's; the batch is offered in
    the next sentence, "If users are queueing up, though, raising the batch is an easy win"
    (sealed316 e.s3186, instructor 81)."""
    said = []
    for s in SENTENCE.split(item):
        if not any(concept in m.concepts for m in concepts.find("lever", s)):
            continue
        rest = _unlabelled(concepts, s, concept)
        label = s.partition(":")[0] if rest != s else ""
        head = {c for m in concepts.find("lever", label) for c in m.concepts}
        named = {c for m in concepts.find("lever", rest) for c in m.concepts}
        if concept in named or not named & (head - {concept}):
            said.append(rest)
    return said


def _unlabelled(concepts: Concepts, sentence: str, concept: str) -> str:
    """The sentence after a label naming the lever ("Int4: if the vendor's benchmark on our traffic
    shows a gain, we should adopt it", sealed277 d.s2796, instructor 15: adopted on a condition)."""
    head, colon, rest = sentence.partition(":")
    named = colon and any(concept in m.concepts for m in concepts.find("lever", head))
    return rest if named and len(concepts.words(head)) <= 3 else sentence
