"""Turns of argument that span clauses or sentences: a concession and the contrast after it
("X sounds sensible, but ..."), and a sentence that only puts a condition on the one before
("Don't: start with hand-fused kernels. Only if 1+2 leave a gap.")."""

from __future__ import annotations

import re

from regime.engine.grading.answer import Answer, Mention
from regime.engine.grading.concepts import Concepts, clauses, words
from regime.engine.grading.judged import Judged, as_status
from regime.engine.grading.layout import EMPHASIS
from regime.engine.grading.scopes import CARRIED, carried_status, cued, negates, opening, refuses_it, triggers
from regime.engine.grading.sentences import CLAUSE
from regime.engine.grading.triggers import Triggers


def conditioned(concepts: Concepts, sentences: list[str]) -> list[str]:
    """The sentences, each naming nothing and opening with a condition joined to the one before:
    "Don't: start with hand-fused kernels. Only if 1+2 leave a gap." (sealed92 b.s943) puts the
    refused step later, as one sentence judged whole would (`judge` reads the two together); so
    is one that takes up the words reported before it ("I agree with the vendor; roll it out."), and
    one that opens refusing what it points back to and names nothing new ("Batching was my first
    thought ...; I'm setting it aside — ... so batching only stretches every request's TTFT",
    sealed285 c.s2880, instructor 100)."""
    out: list[str] = []
    t = concepts.context
    for s in sentences:
        if out and t is not None and _joins(concepts, t, out[-1], s):
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    return out


def _joins(concepts: Concepts, t: Triggers, before: str, s: str) -> bool:
    """Whether sentence `s` only qualifies, takes up or refuses what the one `before` it named."""
    first = next(iter(clauses(s)), "")
    bare, bare_first = not concepts.find("lever", s), not concepts.find("lever", first)
    return (bare and opening(concepts.words(s), t, contrast=False) in CARRIED[:2]) \
        or (_a_label(concepts, before) and bare_first and negates(concepts.words(first), t)) \
        or (bare and taken_up(concepts, t, s)) \
        or (bare_first and (refuses_it(concepts.words(first), t) or points_back_in(words(first), t)
                            or (cued(concepts.words(first), t.refutes) and _reports(concepts, t, before))
                            or turns_to_refusing(concepts, t, s))
            and _named(concepts, s) <= _named(concepts, before))   # "I don't think that buys anything"


def turns_to_refusing(concepts: Concepts, t: Triggers, s: str) -> bool:
    """A later clause that refuses what it points back to, before the sentence names
    anything: "A bigger batch. I looked at it, but I'm setting it aside: it speeds up a bandwidth-
    bound loop" (sealed301 e.s3036, instructor: the batch refused)."""
    for n, c in enumerate(clauses(s)):
        if concepts.find("lever", c):
            return False
        ws = concepts.words(c)
        if n and (refuses_it(ws, t) or points_back_in(words(c), t)):
            return True
    return False


def _reports(concepts: Concepts, t: Triggers, sentence: str) -> bool:
    """A sentence reporting someone ("Second engineer said memory-bound ops don't matter ..."):
    "Wrong: that label is about the FLOP-carrying kernels" after it refutes them (sealed305 b.s3079)."""
    return bool(set(concepts.words(sentence)) & (t.speech | t.speakers))


def _named(concepts: Concepts, text: str) -> set[str]:
    return {c for m in concepts.find("lever", text) for c in m.concepts}


def _a_label(concepts: Concepts, sentence: str) -> bool:
    """A sentence that is a lever's name alone, as a bold label ends ('**Fusing attention.**
    Probably not worth it - already flash at 7%', sealed167 b.s1693): the refusal after it is
    its verdict, as 'Name: verdict' is."""
    found = concepts.find("lever", sentence)
    named = {w for m in found for w in concepts.words(m.phrase)}
    return bool(found) and not set(concepts.words(sentence)) - named


def conceded_before(concepts: Concepts, t: Triggers, sentence: str, found: list[Judged]) -> list[Judged]:
    """A concession then a contrast refuses what was named before it: "Fusing the elementwise ops
    sounds sensible, but at batch 1 those ops touch a tiny fraction ..." (sealed121 a.s1233);
    what the turn names itself, or re-judges ("but not yet"), is left as read. An appearance
    conceded then turned ("which looks compute-heavy, but the weights are 68 GB ...", sealed116
    d.s1185) commits to nothing: it is hedged, unless the turn names another of its kind."""
    ws = concepts.words(sentence)
    at = next((i for i in range(len(ws)) for c in t.concessions if tuple(ws[i:i + len(c)]) == c
               and ws[i + len(c):i + len(c) + 1] and ws[i + len(c)] in t.contrast), None)
    found = [as_status(j, "negated") if at is not None and j.status == "affirmed"
             and _before(concepts.words(j.match.phrase), ws[:at]) else j for j in found]
    after = [i + len(c) for c in t.appearances for i in range(len(ws) - len(c) + 1)
             if tuple(ws[i:i + len(c)]) == c]   # found once: a sentence's cost stays linear in its length
    if not after:
        return found
    kinds: dict[str, set[tuple[str, ...]]] = {}
    for k in found:
        kinds.setdefault(k.match.kind, set()).add(k.match.concepts)
    return [as_status(j, "possible") if j.status == "affirmed" and len(kinds[j.match.kind]) < 2
            and _looks(concepts.words(j.match.phrase), ws, after, t) else j for j in found]
    #   not where another of its kind is named: the turn weighs the two ("71% FLOPs looks
    #   compute-bound, but ... it might still be bandwidth-bound", sealed26 d.s287)


def _looks(phrase: list[str], ws: list[str], after: list[int], t: Triggers) -> bool:
    """The phrase right after an appearance word ('looks', 'seems': `after` is where each ends), a
    contrast word a few words on."""
    n = len(phrase)
    return any(ws[i:i + n] == phrase and set(ws[i + n:i + n + t.appearance_window]) & t.contrast
               for i in after)


def _before(phrase: list[str], ws: list[str]) -> bool:
    return any(ws[i:i + len(phrase)] == phrase for i in range(len(ws) - len(phrase) + 1))


def own_reasons(concepts: Concepts, sentences: list[str], item: str, lines: list[str]) -> list[str]:
    """Each sentence's reason: the item without the other sentences that start a line, open on a
    lever of their own and name none of this sentence's. One label holding a fix per line ("FlashAttention,
    because it cuts the FLOPs.\\nChunked ... to make the long prompt faster.", sealed153 c.s1557) is
    one item, but the second line's figure argues its own lever, not the first. `lines` are the
    answer's lines from the item's first."""
    named = [{c for m in concepts.find("lever", s) for c in m.concepts} for s in sentences]
    starts = [EMPHASIS.sub("", ln).strip().lstrip("-*0123456789.) ").strip() for ln in lines[1:]]
    opens = [_on_its_line(starts, s) and _opens_on_lever(concepts, s) for s in sentences]
    out = []
    for i, mine in enumerate(named):
        reason = item
        for j, other in enumerate(sentences):
            if j != i and opens[j] and mine and not (named[j] & mine):
                reason = reason.replace(other, " ", 1)
        out.append(reason)
    return out


def _on_its_line(starts: list[str], sentence: str) -> bool:
    """The sentence starts a later line of the item (within one line a sentence may lean on the one
    before: "Int4 ... bandwidth is mostly idle. Pushing the batch higher would also not help")."""
    head = sentence.strip()[:30]
    return bool(head) and any(ln.startswith(head) for ln in starts)


def _opens_on_lever(concepts: Concepts, sentence: str) -> bool:
    """The sentence's first clause names a lever in its first two words ("Chunked ... to ...",
    "Then int8 ...")."""
    first = next(iter(clauses(sentence)), "")
    return any(m.start <= 1 for m in concepts.find("lever", first))


def reopened(concepts: Concepts, a: Answer, j: Judged, line: int) -> bool:
    """A later mention in an item, hedged in a sentence that turns back on what the item said of
    it (`reopens`): "That's true for the other regime, and we're not in it. Still, int4 might
    give us something, so a pilot could be worth running" (sealed159 d.s1616); so does one right
    before the lever in its clause: "int4 - vendor says 4x. prob not 4x here but int4 might still
    give a decent speedup, worth piloting for throughput" (sealed269 d.s2717); and a condition
    after the turn offers it as a hedge does ("... so on its own it won't deliver the promised
    speedup. However, if the vendor can demonstrate ..., then we should adopt int4", sealed256
    d.s2589, instructor 61: int4 adopted on a condition). The item's refusal,
    or its mere discussion, gives way to the hedge: the lever is left open. Says whether it did."""
    t = concepts.context
    ws = concepts.words(j.sentence)
    pre = concepts.words(j.clause_text)[:j.match.start]
    if t is None or j.status not in ("possible", "hypothetical") or not any(
            tuple(ws[:len(p)]) == p or (pre and tuple(pre[-len(p):]) == p) for p in t.reopens):
        return False
    if any(m.concepts == j.match.concepts and m.line == line for m in a.fixes):
        return False   # recommended first: a hedge after it adds nothing
    a.rejects = [m for m in a.rejects if not (m.concepts == j.match.concepts and m.line == line)]
    a.discussed = [m for m in a.discussed if not (m.concepts == j.match.concepts and m.line == line)]
    a.hedged.append(Mention(j.match.concepts, j.match.phrase, line, j.match.kind, j.sentence))
    a.statuses.append((line, "possible", j.sentence.strip()))
    return True


_BREAK = re.compile(r"\s[—–-]{1,2}\s|[:;]\s")   # a dash between words, a colon or a semicolon


def asked(t: Triggers, sentence: str, found: list[Judged]) -> list[Judged]:
    """A sentence ending in '?' asks what it affirms: all of it, or only what follows its last
    dash, colon or semicolon when that part opens with a question word ("Prefill is a
    compute-bound job — so why is the FLOP rate only 20%?", sealed162 c.s1642): the statement
    before the break stands."""
    if not sentence.rstrip().rstrip("\"”’'").endswith("?"):
        return found
    breaks = list(_BREAK.finditer(sentence))
    tail = re.findall(r"[a-z]+", sentence[breaks[-1].end():].lower()) if breaks else []
    while tail and tail[0] in t.question_leads:
        tail = tail[1:]
    start = breaks[-1].end() if tail and tail[0] in t.question_words else 0
    return [as_status(j, "asked") if (j.status == "affirmed" or (j.status == "negated" and _proposes(t, j)))
            and (not start or sentence.find(j.clause_text) >= start) else j for j in found]


def _proposes(t: Triggers, j: Judged) -> bool:
    """A question whose clause opens on a proposing negation ("can't we just batch more users
    together?", context.yaml `proposing_questions`): it asks for the lever, it refuses nothing."""
    said = _NOT.sub(" not", _CANT.sub(lambda m: _STEMS[m[1].lower()], j.clause_text))
    ws = [w for w in re.findall(r"[a-z]+", said.lower()) if w not in t.question_leads]
    return any(tuple(ws[:len(p)]) == p for p in t.proposing)


_CANT = re.compile(r"\b(can|won)['’]t\b", re.I)   # the contractions whose stem changes
_STEMS = {"can": "can not", "won": "will not"}
_NOT = re.compile(r"n['’]t\b", re.I)


def taken_up(concepts: Concepts, t: Triggers, sentence: str) -> bool:
    """Someone else's words the student then takes up, with no contrast or negation after the
    agreement: 'the vendor's field engineer told us to capture ... in a HIP graph, and I agree: it
    removes the launch gaps' (sealed171 e.s1740); 'The vendor told the director int4 gives ~4x
    .... I agree with the vendor; roll it out.' (sealed247 d.s2500). `sentence` is what comes
    after their words."""
    said = clauses(sentence)
    ws = t.plain(concepts.words(said[0])) if said else []
    while ws and (ws[0] == "so" or ws[0] in t.continuing):
        ws = ws[1:]
    return any(tuple(ws[:len(p)]) == p for p in t.takes_up) and not any(
        negates(w, t) or (w[:1] and w[0] in t.terminators and w[0] != "so")
        or opening(w, t, contrast=False) in ("hypothetical", "deferred")   # "I agree, if the users
        for w in map(concepts.words, said))   # can accept slightly higher latency" (sealed238 e.s2407)


_AND = re.compile(r"\s+and\s+", re.I)


def answers_yes(concepts: Concepts, t: Triggers, sentence: str) -> str | None:
    """The status a 'yes' opening the sentence gives what the question before it asked: affirmed,
    or deferred when a step word follows ("Yes, but second")."""
    ws = concepts.words(sentence)
    if not ws or ws[0] not in t.answers_yes or negates(ws, t):
        return None
    return "deferred" if set(ws[1:]) & t.steps else "affirmed"


def answers_no(concepts: Concepts, t: Triggers, sentence: str) -> bool:
    """A sentence whose first clause is a bare 'no' answers the question before it, whatever it
    goes on to say: "Raise batch? No — past the ridge, more batch adds step time about 1:1"
    (sealed291 d.s2939, instructor 100, a table row '| Raise batch? | no — ... |')."""
    said = clauses(sentence)
    return bool(said) and concepts.words(said[0]) == ["no"]


def taken_up_within(concepts: Concepts, t: Triggers, sentence: str, found: list[Judged]) -> list[Judged]:
    """Someone else's words the same sentence goes on to agree with ("the vendor's field engineer
    told us to capture ... in a HIP graph, and I agree", sealed171 e.s1740)."""
    heard = [j for j in found if j.status == "attributed" and j.clause_text]
    said = heard[-1].clause_text if heard else ""
    rest = sentence[sentence.rfind(said) + len(said):]
    joined = _AND.split(said)[-1] if heard and len(_AND.split(said)) > 1 else None   # "A colleague
    if not heard or not (taken_up(concepts, t, rest) or (   # suggested quantizing the weights to int8
            joined is not None and taken_up(concepts, t, joined + rest))):   # and I agree: ..." (sealed269
        return found   # e.s2717, instructor 0: the student's own main fix)
    return [as_status(j, "affirmed") if j.status == "attributed" else j for j in found]


def refuted_first(concepts: Concepts, t: Triggers, sentence: str, found: list[Judged]) -> bool:
    """A sentence refuting what the one before reported, before it names anything of its own:
    'The vendor says "int4 gives you up to 4x". That's true at small batch, not here: ...
    dequantizing int4 before each GEMM puts extra load on the compute units' (sealed169 d.s1719,
    instructor 100: int4 refused)."""
    end = sentence.find(found[0].clause_text) if found and found[0].clause_text else len(sentence)
    return any(cued(concepts.words(c), t.refutes) for c in clauses(sentence[:max(end, 0)]))


_VERDICTS = ("negated", "deferred", "hypothetical")   # what a "same" carries on past an affirmed name


def same_as_before(concepts: Concepts, a: Answer, judged: list[Judged], text: str) -> list[Judged]:
    """A sentence or item that says its levers get the same verdict as the one before ("Same for
    quantizing the weights", sealed170 e.s1724; '"Quantize the weights" (proposal 2): same
    objection', sealed142 e.s1445) judges each lever it affirms as the answer's last verdict was,
    when that refused or put off: a `same` phrase opening it, or opening what follows its label."""
    t = concepts.context
    last = next((s for _, s, _ in reversed(a.statuses) if s in (*_VERDICTS, "affirmed")), None)
    if t is None or last not in _VERDICTS:
        return judged
    head, colon, rest = text.partition(":")
    if not (cued(concepts.words(text)[:4], t.same) or (colon and len(concepts.words(head)) <= 6
                                                      and cued(concepts.words(rest)[:4], t.same))):
        return judged
    return [as_status(j, last) if j.status == "affirmed" and j.match.kind == "lever" else j for j in judged]


def points_back_in(full: list[str], t: Triggers) -> bool:
    """A forward refusal with a word pointing back after it, among the clause's words as written
    ('that' and 'this' are filler elsewhere): "I don't think that buys anything here" (sealed84
    a.s863, sealed93 a.s953, after "Someone suggested fusing the elementwise ops"); so is a doubt
    of its merit: "I'm not sure that is wise" (sealed298 a.s3004, after "Someone else floated a GPU
    with more FLOPs", instructor 97: refused), and so does a noun of proposing: "On int4. I'm not
    sure the vendor's offer is wise for this endpoint" (sealed387 d.s3900, instructor 95)."""
    back = t.anaphora_written | t.announce   # "I'm not sure the vendor's pitch is wise" (sealed387 d.s3900)
    return any(forward and set(full[end:end + 3]) & back and (
        (status == "negated" and (start == 0 or (start == 1 and full[0] in ("i", "we"))))   # the student's
        or (tuple(full[start:end]) in t.doubting and full[:1] in (["i"], ["we"]) and start <= 2   # own:
            and cued(full[end + 1:end + 1 + t.window], t.merits)))   # not "justified against that"
        for status, start, end, forward in triggers(full, t))


_SAYS = re.compile(r"^\s*(?P<who>[^:(]{1,30})\((?P<said>[^)]{1,240})\)\s*:\s*(?P<rest>.*)$", re.S)


def refuted_after(j: Judged, ws: list[str], end: int, t: Triggers,
                  hits: list[tuple[str, int, int, bool]]) -> Judged:
    """Someone else's claim refuted in its own clause, after it (`end`: where it ends in `ws`): "The
    second engineer's line that ... I don't agree with" (sealed681 b.s6839), "... mixes up two things"
    (sealed451 b.s4536): a refutation, or a backward negation, after what they said."""
    if j.status == "attributed" and (cued(ws[end:], t.refutes) or any(
            s == "negated" and not fw and b >= end for s, b, _, fw in hits)):
        return as_status(j, "negated")
    return j


def speaker_refuted(concepts: Concepts, t: Triggers, sentence: str, found: list[Judged]) -> list[Judged]:
    """A speaker's label with what they said in brackets, refuted after its colon: "Second engineer
    (compute-bound, therefore the memory-bound ops are irrelevant): wrong." (sealed299 b.s3011,
    instructor 100, graded 70 with the claim endorsed). The regime they name is theirs."""
    m = _SAYS.match(sentence)
    if not m or not set(concepts.words(m["who"])) & t.speakers:
        return found
    first = concepts.words(CLAUSE.split(m["rest"])[0])
    if not (cued(first, t.refutes) or refuses_it(first, t)):
        return found
    return [as_status(j, "negated") if j.match.kind != "regime" and j.clause_text.strip()
            and j.clause_text.strip() in m["said"] else j for j in found]


def kept(concepts: Concepts, j: Judged) -> Judged:
    """A lever named as what it would change left as it is ("keep the batch where it is",
    concepts.yaml `kept`): affirmed, it refuses the lever; refused, it takes it up."""
    if tuple(concepts.words(j.match.phrase)) not in concepts.kept:
        return j
    flipped = {"affirmed": "negated", "negated": "affirmed"}.get(j.status)
    return as_status(j, flipped) if flipped else j


def refuses_last(concepts: Concepts, t: Triggers, sentence: str, verdict: bool = False) -> str | None:
    """A sentence naming nothing that refuses what the sentence before named ("I'd skip it"),
    'deferred' if it waits ("I'm setting that aside until ...", sealed410 e.s4128). Not one a condition
    opens ("if it's a dedicated box, it isn't needed", sealed40 c.s425), reports someone first (sealed265
    a.s2673) or first says what is in place ("... already does its job, so I'd leave it", sealed284)."""
    for c in CLAUSE.split(sentence):
        ws = concepts.words(c) if c.strip() else []
        cut = next((n for n, w in enumerate(ws) if n > 1 and w in t.waiting), len(ws))
        if carried_status(ws, t) == "hypothetical" or set(ws) & t.speech - set(_own_speech(ws)):
            return None   # (but "I'd say no" is the student's own: sealed303 d.s3057)
        for own, status in ((ws, "negated"), (ws[:cut], "deferred"))[:1 + (cut < len(ws))]:
            if own and (refuses_it(own, t) or (not verdict and points_back_in(words(c), t))):
                return status   # (a verdict is not undone by "overhead-bound; not saturating either")
        if ws[:1] and ws[0] not in t.anaphora | {"i", "we"} \
                and "historical" in [s for s, *_ in triggers(ws, t)]:
            break
    return None


def _own_speech(ws: list[str]) -> list[str]:
    """Verbs of speech the student says ("I'd say no", "we'd tell them no")."""
    return [w for n, w in enumerate(ws) if n and set(ws[max(n - 2, 0):n]) & {"i", "we"}]
