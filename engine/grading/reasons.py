"""Whether the reason an answer gives for a fix or a rejection is the key's reason.

A key item carries the rule's own justification ("because", rendered with its numbers) and the
facts that rule cites. A student's reason is the key's when it states one of those figures (its
deciding figure), or when the content words it shares with the justification weigh at least
`min_weight`. A word weighs by its rarity among all the rules' justifications (log inverse
document frequency over the knowledge), so "FLOP" or "batch", which half the rules say, count
for little and "invisible", "amortized" or "category error" for much. Words that only name the
lever as written, the rubric's `reasons.ignore` words and the one-word assertion triggers are
not content. Words are compared by a light stem ('limited' is 'limit', 'tiles' is 'tiled').
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from regime.engine.grading.answer import Answer, Mention
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.context import judge as statuses
from regime.engine.grading.figures import matches, off_key, quantities
from regime.engine.grading.key import Item, Key
from regime.engine.grading.misreads import misreads, stem, stems
from regime.engine.grading.reading import Read
from regime.engine.grading.rubric import ReasonsPart
from regime.engine.grading.scopes import cued, negates
from regime.engine.grading.sentences import sentences, unreported
from regime.engine.grading.sides import naming

RIGHT, WRONG, NONE = "right", "wrong", "none"
ELSEWHERE = "elsewhere"   # a bare rejection the answer argues elsewhere
CARRIED = "carried"       # a bare fix the answer argues elsewhere, in words



@dataclass
class Index:
    """Stem weights over every rule's justification, and the words that are never a reason."""

    weights: dict[str, float] = field(default_factory=dict)
    unknown: float = 1.0            # a stem no justification uses
    ignore: frozenset[str] = frozenset()
    min_weight: float = 1.0
    min_words: int = 2             # content words of another argument that make a reason wrong
    synonyms: dict[str, str] = field(default_factory=dict)   # stem -> the knowledge's stem
    same: tuple[tuple[str, ...], ...] = ()   # "same reason": the reason is the item's before
    off_value: tuple[float, float] = (0.0, 0.0)   # rubric.yaml reasons.off_value: a wrong value
    misreads: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)   # rubric: misreads
    _seen: dict[tuple[str, frozenset[str]], frozenset[str]] = field(default_factory=dict)

    def stems(self, concepts: Concepts, text: str, own: frozenset[str] = frozenset()) -> frozenset[str]:
        """Content stems of `text`, memoized: a class repeats the key's justifications."""
        got = self._seen.get((text, own))
        if got is None:
            got = frozenset(s for w in concepts.words(text) if w not in own and w not in self.ignore
                            and not w.replace(".", "").isdigit() and len(w.rstrip("s")) > 2
                            and (s := self.synonym(stem(w))) not in own and s not in self.ignore)
            if len(self._seen) >= 16384:   # a class's own texts fill it: start again, keep it bounded
                self._seen.clear()
            self._seen[(text, own)] = got
        return got

    def synonym(self, s: str) -> str:
        """The knowledge's stem for a student's ("gap" is "idle"): one vocabulary for both sides."""
        return self.synonyms.get(s, s)

    def weight(self, stems: Iterable[str]) -> float:
        return sum(self.weights.get(s, self.unknown) for s in stems)


def build_index(concepts: Concepts, justifications: Iterable[str], part: ReasonsPart) -> Index:
    """Weights from the knowledge's rule justifications (their template text); a connective
    ("because") weighs nothing, though it still counts as a word of a reason given."""
    idx = Index(ignore=frozenset(w for x in part.ignore for w in concepts.words(x))
                | frozenset(concepts.filler) | frozenset(concepts.ignore), min_weight=part.min_weight,
                min_words=part.min_words, synonyms={stem(k): stem(v) for k, v in part.synonyms.items()},
                same=tuple(p for p in (tuple(concepts.words(x)) for x in part.same) if p),
                off_value=part.off_value, misreads={lever: tuple(tuple(stems(concepts, x)) for x in xs)
                                                    for lever, xs in part.misreads.items()})
    idx.ignore |= frozenset(stem(w) for w in idx.ignore) | _trigger_words(concepts)
    docs = [idx.stems(concepts, text) for text in justifications]
    n = len(docs) or 1
    df: dict[str, int] = {}
    for d in docs:
        for s in d:
            df[s] = df.get(s, 0) + 1
    idx.weights = {s: math.log((n + 1) / (c + 1)) for s, c in df.items()}
    idx.unknown = math.log(n + 1)
    idx.weights |= {idx.synonym(stem(w)): 0.0 for x in part.connectives for w in concepts.words(x)}
    return idx


def states(a: Answer, key: Key, concepts: Concepts, tolerance: float, carry: bool = True) -> dict[str, str]:
    """The reason each of the key's levers or claims was given with: the best over its mentions
    (one right reason is enough; NONE only when no mention gives any). An item given bare has
    the key's reason when the answer argues it elsewhere ("1. FlashAttention" after an Evidence
    section on the score matrix that never leaves on-chip memory): the blind grades credit a
    reason stated anywhere in the answer, and give about half for none. Not from an answer whose
    figures are another case's (`carry` False): its argument is about something else (sealed20
    a.s228, an answer to one case built on another's figures: "batching with no reason")."""
    out: dict[str, str] = {}
    order = (RIGHT, CARRIED, ELSEWHERE, WRONG, NONE)
    bare: list[tuple[Mention, str]] = []
    mentions = [*a.fixes, *a.rejects, *a.deferred, *a.hedged, *(m for group in a.listed for m in group)]
    for m in mentions:
        for c in m.concepts:
            if key.item(c) is not None:
                got = judge(m.reason, m.written, c, key, concepts, concepts.reasons, tolerance)
                if got != RIGHT and m in a.deferred and a.regime == key.regime and _for_now(key, c) \
                        and _put_off(concepts, m):   # "raise batch: not yet - only after 1-2" (sealed87
                    got = RIGHT   # e.s897): the key's own "then, not before" argues a rejection that holds
                    #   until its fixes, from an answer that read the regime they fix (not sealed79
                    #   e.s819's "bandwidth-bound ... not yet": "defers batching without the argument")
                if got != RIGHT and (before := _same_as(concepts, m, mentions)) is not None:
                    got = min(got, judge(before.reason, before.written, c, key, concepts, concepts.reasons,
                                         tolerance), key=order.index)
                if got != RIGHT and m.kind == "claim":   # its refusal argued where the answer quotes it
                    got = min([got, *(judge(p, m.written, c, key, concepts, concepts.reasons, tolerance)
                                      for p in naming(a, concepts, c))], key=order.index)
                if got != RIGHT and a.regime in (None, key.regime) and _not_its_regime(concepts, m, c, key):
                    got = RIGHT   # "More FLOPs GPU - we are not compute bound" (sealed66 a.s684)
                if got == NONE:
                    bare.append((m, c))
                out[c] = min(got, out.get(c, NONE), key=order.index)
    for m, c in bare if carry else []:   # argued elsewhere in the answer, unless argued otherwise
        if out[c] == NONE:               # where it is named: "int4: no, too much accuracy lost" then
            out[c] = min(_carried(a, m, c, key, concepts, tolerance), out[c], key=order.index)
    for m in a.discussed:   # a paragraph on a lever the answer refuses elsewhere argues its verdict
        for c in m.concepts:   # ("Int4 reduces bytes. Bytes are not what we are short of ...")
            if out.get(c, RIGHT) != RIGHT and judge(m.reason, m.written, c, key, concepts, concepts.reasons,
                                                    tolerance) == RIGHT:
                out[c] = RIGHT
    return out


def _for_now(key: Key, concept: str) -> bool:
    """The key rejects `concept` only until its fixes change the regime (`for_now`)."""
    return any(i.id == concept and i.for_now for i in key.rejects)


def _put_off(concepts: Concepts, m: Mention) -> bool:
    """A mention put off in time ("not yet", "only after 1-2", "once graphs are in"): its
    sentence carries a deferral cue (context.yaml `deferred`). Not one kept under another
    condition ("only if graphs don't close the gap", "only if traffic stays at batch 1":
    sealed154 e.s1566, sealed125 e.s1275, the wrong condition for the blind grades), nor one
    hedged ("int8 | maybe later? | could help with bandwidth", sealed97 e.s998: a maybe)."""
    t = concepts.context
    if t is None or m.fallback:
        return False
    cues = (*t.forward.get("deferred", ()), *t.backward.get("deferred", ()))
    hedges = (*t.forward.get("possible", ()), *t.backward.get("possible", ()))
    written = m.written.lower()
    said = [concepts.words(s) for s in sentences(m.reason) if written in s.lower()]
    return any(cued(ws, cues) for ws in said) and not any(cued(ws, hedges) for ws in said)


def _same_as(concepts: Concepts, m: Mention, mentions: list[Mention]) -> Mention | None:
    """The item before `m` when `m`'s reason points back to it ("- Batch now: doesn't fill 38%
    idle time. - Weight quant now: same reason.", sealed72 e.s746, instructor 100): its reason
    is argued for this lever too. The nearest mention on an earlier line."""
    ws = concepts.words(m.reason)
    if not any(tuple(ws[i:i + len(p)]) == p for p in concepts.reasons.same for i in range(len(ws))):
        return None
    earlier = [b for b in mentions if b.line < m.line]
    return max(earlier, key=lambda b: b.line) if earlier else None


def take_argued_refusals(a: Answer, key: Key, concepts: Concepts, read: Read, tolerance: float) -> None:
    """A lever the key rejects that the answer only discusses, never recommending, hedging or
    refusing it, with the key's argument where it is named, and a negation ("Quantization cuts
    bytes, and bytes are not what limits us: bandwidth is mostly idle", sealed155 d.s1571): a refusal
    argued, as the blind grades read it. Taken as a rejection, with its mention as the reason; so is
    a lever's name heading a paragraph, read as a fix (`a.topics`: "**Int4.** Quantizing weights
    removes bytes. Bytes are not our problem ...", sealed185 d.s1871), argued the same way."""
    t = concepts.context
    if t is None:
        return
    topics = [m for m in a.topics if m in a.fixes]
    open_ = {i.id for i in key.rejects} - {*read.fixes, *read.rejects, *read.leans, *read.hedged}
    for m in [*a.discussed, *topics]:
        took = open_ | {c for c in m.concepts if m in topics and read.fixes.count(c) == 1}
        for c in sorted(set(m.concepts) & took & {i.id for i in key.rejects} - set(read.rejects)):
            near = _near(concepts, m.reason, c)
            if negates(concepts.words(m.reason), t) and \
                    judge(near, m.written, c, key, concepts, concepts.reasons, tolerance) == RIGHT:
                a.rejects.append(replace(m, concepts=(c,)))
                read.rejects.append(c)
                if c in read.fixes:
                    read.fixes.remove(c)
                    a.fixes = [f for f in a.fixes if f is not m]


def _near(concepts: Concepts, text: str, concept: str) -> str:
    """The sentences naming the lever, each with the one after it ("a GPU with more FLOPs is money
    spent on the resource we barely use"): where a discussion argues it."""
    said = sentences(text)
    return " ".join(" ".join(said[i:i + 2]) for i, s in enumerate(said)
                    if any(concept in f.concepts for f in concepts.find("lever", s)))


def credit(got: dict[str, str], concept: str, rules: ReasonsPart) -> float:
    """An item's share of its credit: whole with the key's reason, part without it."""
    state = got.get(concept, NONE)
    return {RIGHT: 1.0, WRONG: rules.wrong, ELSEWHERE: rules.elsewhere, CARRIED: rules.carried}.get(
        state, rules.missing)


def feedback(got: dict[str, str], items: list[Item], verb: str, rules: ReasonsPart) -> list[str]:
    """A line for each credited item whose reason cost something, with the key's reason."""
    out = []
    for i in items:
        state = got.get(i.id, NONE)
        name = i.id.replace("_", " ")
        if state == WRONG and rules.wrong < 1:
            out.append(f"Right {verb}, not its reason: {name}: {i.because}")
        elif state == NONE and rules.missing < 1:
            out.append(f"{name.capitalize()}: say why: {i.because}")
        elif state in (ELSEWHERE, CARRIED) and credit(got, i.id, rules) < 1:
            out.append(f"{name.capitalize()}: say why where you name it (your answer argues it elsewhere): "
                       f"{i.because}")
    return out


def _carried(a: Answer, m: Mention, concept: str, key: Key, concepts: Concepts, tolerance: float) -> str:
    """An item argued elsewhere: by a figure its rule cites, or in its justification's words. A
    rejection written with no words of its own is not argued by a figure elsewhere: a bare name
    under `reject:` after the figure its rule cites in the evidence (sealed22 d.s247, "rejected
    with no reason", -10; nine YAML answers alike); a bare fix still is (the first instructor's
    corpus credits it). Argued only in words elsewhere, a bare item is ELSEWHERE (a rejection) or
    CARRIED (a fix), each with its own share of the credit (rubric.yaml): the blind grades
    take part of its credit ("Batching the prefills." after "TTFT is the complaint", sealed41
    c.s437, "-8: batching rejected with no reason"; "- flash attn" under "- 40 GB = attention
    scores (N^2)", sealed120 c.s1225, "-5: FlashAttention named without a reason")."""
    own = set(concepts.words(m.reason)) - set(concepts.words(m.written))
    if (own or key.item(concept) not in key.rejects) and _figured(a, key, concept, tolerance):
        return RIGHT
    argued = bool(a.text) and _argued(a.text, m.written, concept, key, concepts, concepts.reasons)
    return NONE if not argued else ELSEWHERE if key.item(concept) in key.rejects else CARRIED


def _argued(text: str, written: str, concept: str, key: Key, concepts: Concepts, idx: Index) -> bool:
    """The words of the item's justification (and of the levers named with it) in `text`, beyond
    the levers the text names: only those (a figure or the regime's argument is the evidence's,
    not this item's reason). The whole text is stemmed once, for all its bare items."""
    item = key.item(concept)
    if item is None:
        return False
    named, own = _named(concepts, text)
    given = frozenset(concepts.words(f"{written} {concept.replace('_', ' ')}"))
    given |= frozenset(stem(w) for w in given)
    said = idx.stems(concepts, text, own) - given
    items = [item, *(i for c in sorted(named - {concept}) if (i := key.item(c)) is not None)]
    argued = idx.stems(concepts, ". ".join(i.because for i in items)) - own - given   # memoized per key
    return idx.weight(said & argued) >= idx.min_weight


def _figured(a: Answer, key: Key, concept: str, tolerance: float) -> bool:
    """The answer states one of the figures the item's rule cites somewhere (its Evidence, say),
    with its unit: a ceiling in tok/s in a YAML evidence list argues a bare lever whose rule cites it.
    Not on another item's line, where it is that item's reason: a rejection's "not the bottleneck
    at 25k tokens" does not argue the bare fix before it (sealed26 c.s284)."""
    item = key.item(concept)
    if item is None:
        return False
    cited = [key.figures[n] for n in item.cites if n in key.figures]
    others = {m.line for m in (*a.fixes, *a.rejects) if m.line and concept not in m.concepts}
    return any(matches(s.q, v, f.unit, tolerance) for s in a.numbers for f in cited for v in f.readings()
               if s.q.unit and s.line not in others)


def judge(reason: str, written: str, concept: str, key: Key, concepts: Concepts, idx: Index,
          tolerance: float) -> str:
    """RIGHT when `reason` carries the key item's argument, WRONG when it gives another one,
    NONE when it gives none (fewer than `min_words` words beyond the levers it names and the
    words that describe the lever itself, and no number). An item naming several of the key's
    levers argues for them together: any of their justifications counts. For a rejection the
    case's regime argument is an accepted reason too ("the FLOPs are idle" for not buying FLOPs)."""
    item = key.item(concept)
    reason = unreported(concepts, reason)
    if item is None or not reason.strip():
        return NONE
    named, own = _named(concepts, reason)   # another lever's name the key argues with argues: "Attention
    argues = idx.stems(concepts, item.because) & _named(concepts, reason, concept)[1]   # fusion I'd leave
    own = frozenset(w for w in own if w not in argues and stem(w) not in argues)   # alone; it is already
    #                                                              flash-attention" (sealed343 b.s3460)
    given = concepts.words(f"{written} {concept.replace('_', ' ')}")
    own = own | frozenset(given) | frozenset(stem(w) for w in given)
    said = idx.stems(concepts, reason, own)
    numbers = [q for q in quantities(reason) if not (q.unit == "" and q.value <= 1)]
    if not said and not numbers:
        return NONE
    items = [item, *(i for c in sorted(named - {concept}) if (i := key.item(c)) is not None)]
    cited = [key.figures[n] for i in items for n in i.cites if n in key.figures]
    misread = idx.misreads.get(concept, ()) if not any(i.id == concept for i in key.rejects) else ()
    if misreads(concepts, misread, reason):
        return WRONG   # a mechanism the lever lacks (rubric.yaml reasons.misreads), whatever it cites
    if off_key(numbers, cited, key.figures.values(), tolerance, idx.off_value):
        return WRONG   # a cited figure written wrong (rubric.yaml reasons.off_value), whatever else is right
    if any(matches(q, v, f.unit, tolerance) for q in numbers for f in cited for v in f.readings()):
        return RIGHT
    rejected = any(i.id == concept for i in key.rejects)
    if not rejected and _elsewhere(concepts, reason, concept):
        return WRONG
    argued = idx.stems(concepts, ". ".join([*(i.because for i in items),
                                            key.regime_because if rejected else ""]), own)
    if not rejected:   # "cuts the attention FLOPs" shares 'FLOP' with "the FLOP rate climbs": an outcome
        argued -= _off_resource(concepts, idx, reason, concept, own)   # the key names, not its means
    if idx.weight(said & argued) >= idx.min_weight:
        return RIGHT
    if len(items) > 2 and said & idx.stems(concepts, key.regime_because, own):
        return RIGHT   # a menu framed by the regime: "attack compute: fp8 GEMMs, fused attention, ..."
    meaning = frozenset(stem(w) for w in concepts.meanings.get(concept, ()))
    other = said - meaning     # words that only describe the lever are no argument
    return WRONG if len(other) >= idx.min_words else NONE


def _not_its_regime(concepts: Concepts, m: Mention, concept: str, key: Key) -> bool:
    """A rejection the key shares whose reason denies the regime whose limit the lever attacks
    (concepts.yaml `resources`), where the key's regime is another: the key's argument in one
    clause. Not from an answer that diagnosed another regime: its "not memory-bound" is read off
    that (sealed67 e.s697, instructor: "rejected for a wrong reason")."""
    regimes = concepts.relieves.get(concept, frozenset())
    if not regimes or key.regime in regimes or concepts.context is None \
            or not any(i.id == concept for i in key.rejects):
        return False
    return any(j.status == "negated" and set(j.match.concepts) & regimes
               for j in statuses(concepts, concepts.context, ("regime",), m.reason))


def _elsewhere(concepts: Concepts, reason: str, concept: str) -> bool:
    """A fix argued by a resource its lever does not attack (levers.yaml `attacks`, as regimes
    through concepts.yaml `resources`; the resource in a reason's words, `resource_words`), and
    by none it does: "CUDA graphs keep the weights in on-chip cache, so each step reads fewer
    bytes from HBM" (sealed109 e.s1116), "graph replay ... each kernel runs at a higher FLOP
    rate" (sealed101 e.s1036): the right lever, the wrong reason."""
    attacks = concepts.relieves.get(concept, frozenset())
    if not attacks or len(sentences(reason)) > 1:   # a paragraph argues more than this one fix
        return False
    named = {c for kind in ("regime", "resource_word") for m in concepts.find(kind, reason)
             for c in m.concepts}
    return bool(named) and not named & attacks


def _off_resource(concepts: Concepts, idx: Index, reason: str, concept: str,
                  own: frozenset[str]) -> frozenset[str]:
    """The stems of the resources a fix's reason names that its lever does not attack (sealed123
    c.s1258, "FlashAttention cuts the attention FLOPs", instructor: the wrong reason): the key's
    justification may name that resource as an outcome ("the FLOP rate climbs"), never as the
    lever's means, so they argue nothing for it."""
    attacks = concepts.relieves.get(concept, frozenset())
    if not attacks:
        return frozenset()
    off = " ".join(m.phrase for kind in ("regime", "resource_word") for m in concepts.find(kind, reason)
                   if not set(m.concepts) & attacks)
    return idx.stems(concepts, off, own) if off else frozenset()


@lru_cache(maxsize=4096)
def _named(concepts: Concepts, text: str, other_than: str = "") -> tuple[frozenset[str], frozenset[str]]:
    """The levers and claims named in `text` (but those naming `other_than`), and their words (and
    stems): they name, they do not argue."""
    concepts_named: set[str] = set()
    ws: set[str] = set()
    for kind in ("lever", "claim"):   # the whole text: 'torch.compile' is one name, not two clauses
        for m in (m for m in concepts.find(kind, text) if other_than not in m.concepts):
            ws |= set(concepts.words(m.phrase))
            concepts_named |= set(m.concepts)
    return frozenset(concepts_named), frozenset(ws | {stem(w) for w in ws})


def _trigger_words(concepts: Concepts) -> frozenset[str]:
    """The one-word triggers that open a scope (not, if, once, might ...): how an item is
    asserted, not why. A longer trigger's words are content elsewhere: 'little gain' does not
    make "gain" or 'far from' "far" no reason."""
    t = concepts.context
    if t is None:
        return frozenset()
    return frozenset(w for table in (t.forward, t.labels) for phrases in table.values()
                     for p in phrases if len(p) == 1 for w in p)
