"""Assertion status of each lever, claim or regime an answer names, after the ConText algorithm
(Harkema, Dowling, Thornblade, Chapman, J. Biomed. Inform. 42(5), 2009): trigger phrases open a
scope forward or backward, the scope ends at a terminator, a clause boundary or a word window,
and a concept inside takes the trigger's status. Written here without spaCy (medspacy's
dependency tree is too heavy for a grader that must stay fast); the triggers are data
(rules/grading/context.yaml).

ConText's historical value is kept too: a lever already in place ("attention is already
flash-attention", "continuous batching has done its job") is neither recommended nor rejected.

Three additions for how students write: a label before a colon ("Don't: int4 ...") sets the status
of what the rest names; an elliptical clause with no concept of its own ("..., but not yet",
"so not that") re-judges what the sentence named before it; and what a deferral waits for ("once
graphs are in, batching") is its `prerequisite`, neither deferred nor refused itself.
"""

from __future__ import annotations

import re

from regime.engine.grading.concepts import Concepts, Match, words
from regime.engine.grading.judged import Judged
from regime.engine.grading.judged import as_status as _as
from regime.engine.grading.keywords import keyword_list
from regime.engine.grading.scopes import (
    CARRIED,
    JOINED,
    before_quote,
    carried_status,
    conceded,
    coordinated,
    cued,
    denies_it,
    hedged_refusal,
    in_own_voice,
    last_cue,
    negates,
    opening,
    predicate,
    refuses_it,
    status_of,
    student_refuses,
    triggers,
)
from regime.engine.grading.sentences import CLAUSE, QUOTED, clauses_of, reported_quote, sentences, stated
from regime.engine.grading.status_label import carried_label, labelled_own, status_label
from regime.engine.grading.triggers import Triggers
from regime.engine.grading.turns import (
    answers_no,
    answers_yes,
    asked,
    conceded_before,
    kept,
    points_back_in,
    refuses_last,
    refuted_after,
    refuted_first,
    speaker_refuted,
    taken_up,
    taken_up_within,
    turns_to_refusing,
)

_SCARE = re.compile(r"[\"“]([\w'-]+(?: [\w'-]+)?)[\"”]")   # 'it "should" be ...': emphasis, not a quote
_ASIDE = re.compile(r"\([^()]*\)")
_TOPIC = re.compile(r"^\s*([^:]{1,60}):\s*(.*)$", re.S)   # a name heading what follows, with its words
_DASHED = re.compile(r"^\s*([^:—–]{1,60}?)(?:\s*[—–]\s*|\s+--?\s+)((?:I|we)\b.*)$", re.S | re.I)
#   ... or a dash before the student's own verdict: "Batching — I'd hold off" (sealed319 c.s3217)
_FRAMED = re.compile(r"^\s*([^,:]{1,60}?),\s*((?:I|we)\b.*)$", re.S | re.I)   # "On X, I ...": _headed

def judge(concepts: Concepts, t: Triggers, kinds: tuple[str, ...], text: str) -> list[Judged]:
    """Every concept of the first of `kinds` found in each clause of `text`, with its status.
    A sentence naming more than `max_levers` levers is a list, not a commitment: its levers
    are 'listed' (neither recommended nor rejected). A regime, a state, is judged without `deeds`."""
    t = t.of_states() if kinds and all(k.startswith("regime") for k in kinds) else t
    out: list[Judged] = []
    last: list[Judged] = []
    named: list[Judged] = []   # the last sentence that named something
    levers_before: list[Judged] = []   # ... and the last that named a lever, as judged
    label: str | None = None   # a status label the sentence before carries on past its semicolon
    for sentence in sentences(_SCARE.sub(r"\1", text)):
        start = max(len(out), max((j.clause + 1 for j in out), default=0))   # past every clause judged:
        #   "Note to manager: please don't fund a kernel-tuning sprint; fund the batching change." is two
        #   sentences whose clauses must not share a number (sealed193 a.s1951)
        found = conceded_before(concepts, t, sentence, _sentence(concepts, t, kinds, sentence, start, label))
        found = taken_up_within(concepts, t, sentence, found)
        if _topic_only(concepts, t, sentence, found):   # "**On batching and int8.** A colleague argued
            found = [_as(j, "topic") for j in found]   # ... I disagree for now" (sealed263 e.s2658): a
            #   heading; a verdict after it ("**On fusing attention.** No.") still points back to it
        label = carried_label(concepts, t, kinds, sentence, label)
        if not found and last and (refusal := refuses_last(concepts, t, sentence, "regime" in kinds)):
            out[-len(last):] = last = named = _refused(last, "it" in concepts.words(sentence)[:3],   # "I'd
                                                       refusal == "deferred")   # skip it"
            levers_before = [j for j in last if j.match.kind == "lever"] or levers_before
            continue
        if not found and last and all(j.status == "asked" for j in last) \
                and (yes := answers_yes(concepts, t, sentence)):   # "Chunk the prefill? Yes, but second."
            out[-len(last):] = last = named = [_as(j, yes) for j in last]
            continue
        if not found and named and all(j.status == "attributed" for j in named) \
                and taken_up(concepts, t, sentence):   # "The vendor told the director int4 gives
            out[-len(named):] = last = named = [_as(j, "affirmed") for j in named]   # ~4x. I agree
            continue   # with the vendor; roll it out." (sealed247 d.s2500)
        if named and all(j.status == "attributed" for j in named) and refuted_first(   # 'The vendor's
                concepts, t, sentence, found):   # line is "int4 gives 4x". That's true for a bandwidth-
            out[-len(named):] = refuted = [_as(j, "negated") for j in named]   # bound decode and false
            if not found:   # here.' (sealed136 d.s1388); "It is not true for us." (sealed146 d.s1488)
                last = named = refuted
                continue
        cond = None if found or not last else opening(concepts.words(sentence), t, contrast=False)
        if cond in CARRIED[:2]:   # "Don't: start with hand-fused kernels. Only if 1+2 leave a gap."
            out[-len(last):] = last = [_as(j, cond) if j.status in ("negated", "asked") else j for j in last]
            continue   # (sealed92 b.s943): not now, not never; '"Can't we just batch ...?" Not yet.' too
        if found and last and all(j.status == "asked" for j in last) and answers_no(concepts, t, sentence):
            out[-len(last):] = last = named = [_as(j, "negated") for j in last]   # "Raise batch? No — ..."
        heard = all(j.status == "attributed" for j in last)
        if found and last and _opens_refusing(concepts, t, kinds, sentence, heard):   # "I would not do it:
            out[-len(last):] = _refused(last)   # ... a perfect fusion would not show up"
            levers_before = [j for j in _refused(last) if j.match.kind == "lever"] or levers_before
        if named and all(j.status == "negated" for j in named):   # "What I'd turn down: batching
            found = _continued(concepts, t, sentence, found)        # ... And weight quantization: ..."
        if levers_before and cued(concepts.words(sentence)[:4], t.same):   # "Same for the idea of
            first = next(j for j in out if j.match.concepts == levers_before[-1].match.concepts)   # a GPU
            found = [_as(j, first.status) if j.status == "affirmed" else j for j in found]   # ...": as the
        levers_before = [j for j in found if j.match.kind == "lever"] or levers_before   # lever before,
        #   judged where it was first named (a later mention is commentary)
        levers = {j.match.concepts for j in found if j.match.kind == "lever"}   # 'quantization' is one
        many = len(levers) > t.max_levers and not _in_order(concepts, t, sentence, len(levers))
        if levers and (many or keyword_list(concepts, sentence)):   # or a regime among them
            found = [Judged(j.match, "listed", j.sentence, j.clause, j.clause_text, j.status) for j in found]
        out += found
        last = found or (last if concepts.words(sentence)[:1] == ["it"] else found)   # "It could be slower."
        named = found or named
    return [_as(j, "affirmed") if j.match.kind == "claim" and j.status == "deferred" else kept(concepts, j)
            for j in out]
    #   a claim is stated, not postponed ("ops matter less once you're compute bound", sealed128 b.s1310)


def _topic_only(concepts: Concepts, t: Triggers, sentence: str, found: list[Judged]) -> bool:
    """A sentence that is a topic opener ('on', 'about') and the names of what it heads, no more."""
    ws = concepts.words(sentence)
    lead = _opener(ws, t)
    return bool(found and lead) and all(j.status == "affirmed" for j in found) \
        and _bare_names(concepts, found, " ".join(ws[lead:]), t.heading)


def _opener(ws: list[str], t: Triggers) -> int:
    """How many words of a topic opener ('on', 'as for') open the words; 0 for none."""
    return max((len(p) for p in t.topic_openers if tuple(ws[:len(p)]) == p), default=0)


def _headed(concepts: Concepts, t: Triggers, sentence: str) -> re.Match[str] | None:
    """A name heading what follows: before a colon, before a dash and the student's own verdict,
    or framed by a topic opener before a comma and that verdict ("On fusing attention, I'm not
    sure that's wise", sealed328 b.s3317, instructor 95: refused; graded as recommended)."""
    framed = _FRAMED.match(sentence)
    if framed and _opener(concepts.words(framed[1]), t):
        return framed
    return _TOPIC.match(sentence) or _DASHED.match(sentence)


def _refused(last: list[Judged], it: bool = False, waits: bool = False) -> list[Judged]:
    """What a refusal pointing back refuses: all the sentence before named but what a deferral
    there waited for ("... Until then both are pointless", sealed96 e.s983); 'it' the first only
    ("Int8: only if ... after FlashAttention. It won't help TTFT", sealed120 c.s1229). A lever
    deferred after one already put off is what that one waits for: "Batching / int8: only if, after
    graphs and compile, ... so I'm not doing them yet" (sealed224 e.s2266). One that `waits` defers."""
    put_off = [j for n, j in enumerate(last) if j.status == "deferred"
               and any(k.status in ("deferred", "hypothetical") for k in last[:n])]
    status = "deferred" if waits else "negated"
    return [_as(j, "prerequisite") if j in put_off else j if j.status == "prerequisite"
            or (it and j.match != last[0].match) else _as(j, status) for j in last]


_THEY = frozenset({"they"})   # a subject pointing back, in a clause joined to what it names
_REFUSABLE = ("affirmed", "possible", "historical")   # what a refusal pointing back refuses
_LIST = frozenset({"and", "or"})


def _opens_refusing(concepts: Concepts, t: Triggers, kinds: tuple[str, ...], sentence: str,
                    heard: bool = False) -> bool:
    """A sentence whose first clause names nothing and refuses what the sentence before named,
    before arguing with names of its own ("Someone suggested fusing the elementwise ops. I would
    not do it: ... even a perfect fusion would not show up", sealed61 a.s633); after someone
    else's words (`heard`), one that refutes them ("I disagree") too."""
    first = next((c for c in CLAUSE.split(sentence) if c and c.strip()), "")
    if labelled_own(concepts, t, kinds, sentence):
        return False
    return not any(concepts.find(k, first) for k in kinds) and (
        refuses_it(concepts.words(first), t) or points_back_in(words(first), t) or turns_to_refusing(
            concepts, t, sentence) or (heard and cued(concepts.words(first), t.refutes)))   # 'My teammate
    #   said "just batch it, batching always helps decode." I disagree, and I wouldn't quantize' (sealed147)


def _in_order(concepts: Concepts, t: Triggers, sentence: str, levers: int) -> bool:
    """A sentence of steps in order, a step word for every lever past the first or so ('first
    graphs, then torch.compile, then ...'): a plan written in one line, not a list."""
    cues = sum(w in t.steps for w in concepts.words(sentence))
    return cues >= max(2, levers - t.max_levers + 1)


def _continued(concepts: Concepts, t: Triggers, sentence: str, found: list[Judged]) -> list[Judged]:
    """A sentence after a refusal that opens with a continuing word and a bare name before a colon
    ("And weight quantization: at 25,000 tokens per pass ...", sealed37 c.s391) refuses that name too."""
    m = _headed(concepts, t, sentence)
    ws = concepts.words(m[1]) if m else []
    if not ws or ws[0] not in t.continuing:
        return found
    head = " ".join(ws[1:])
    return [_as(j, "negated") if j.status == "affirmed" and j.clause == found[0].clause
            and _bare_names(concepts, [j], head, t.heading) else j for j in found]


def _sentence(concepts: Concepts, t: Triggers, kinds: tuple[str, ...], sentence: str,
              first: int, label: str | None = None) -> list[Judged]:
    label_status, body = status_label(concepts, t, sentence, "regime" in kinds)
    label_status = label_status or label
    found: list[Judged] = []
    carried: str | None = None
    quotes = [(q[1] or q[2]).strip() for q in QUOTED.finditer(body)]
    reported = bool(quotes) and reported_quote(concepts, t, body, "regime" not in kinds)
    taken_up = bool(quotes) and cued(concepts.words(body[:body.find(quotes[0])]), t.endorse)   # "The second
    #   engineer has it right: \"we're compute-bound, ...\"" (sealed106 b.s1083): the student's own claim
    quoted: list[Judged] = []
    condition: list[Judged] = []   # "Only after graphs + compile, ... do batching/int8 make sense"
    trailing: str | None = None    # "Don't: hand-fuse up front - only if 1+2 leave a gap"
    mark, quoting = 0, False
    for n, (inside, clause) in enumerate(parts := clauses_of(body)):
        said = found[mark:] if quoting else None   # what the clause before named, if a quotation
        mark, quoting = len(found), clause.strip() in quotes
        ws = concepts.words(clause)
        matches: list[Match] = next((ms for k in kinds if (ms := concepts.find(k, clause, body))), [])
        opener = opening(ws, t, contrast=False)
        carried = None if ws[:1] and ws[0] in t.terminators - t.contrast else carried   # ", so": ends it
        lead = 1 if ws[:1] and ws[0] in t.contrast else 0   # "Raise the batch to 8, only if the SLO allows"
        if found and (lead or not matches) and any(tuple(ws[lead:lead + len(p)]) == p for p in t.offered_if):
            found = [_as(j, "hypothetical") if j.status == "affirmed" else j for j in found]   # "int8,
            #   but only if memory is still tight (after flash)": a condition on it (sealed143 c.s1460)
        if not matches:
            prev = parts[n - 1][1] if n else ""   # "good for their ITL, not for this TTFT" (sealed342)
            pair = set(ws[1:2]) & t.after_no & set(concepts.words(prev))   # contrasts what it is for
            status = opening(ws, t, contrast=True, qualified="regime" not in kinds and not (
                pair and not any(concepts.find(k, prev) for k in kinds)))
            if status == "negated" and before_quote(body, clause):
                pass   # 'Compute-bound — but not "nothing to gain"': it refuses the quotation (below)
            elif status and found:   # "..., but not yet": re-judges what came before; not a refusal
                found = [j if (status in ("historical", "attributed") and j.status == "negated") or (
                    status == "deferred" and j.match.kind == "regime") else _as(j, status)
                         for j in found]   # that "— already fused" gives its reason (sealed124 b.s1266),
                #   nor "argument" what the student doubts: 'I doubt the "..." argument' (sealed265 b.s2677),
                #   nor a verdict: "the step is compute-bound overall, and the engineer ... is right
                #   about the problem — though not yet about the method" (sealed185 b.s1871)
            elif found and predicate(ws, t) == "negated":   # "The other suggestion, a GPU with
                # more FLOPs, misses the point": a refusal whose subject is what came before (and a
                # quotation: 'But "..." mixes up ...'); right after a quotation, only what it names
                # ('..., so "optimizing the kernels" is the wrong framing', sealed188 a.s1901)
                found = [_as(j, "negated") if (j in said if said is not None else j in quoted or j.status
                                                in ("affirmed", "hypothetical", "attributed")) else j
                         for j in found]
            elif found and predicate(ws, t, words=2) == "deferred":   # "Quantize: helps later, once it's
                #   actually bandwidth-bound" (sealed93 e.s955): a predicate putting what was named off;
                #   a verdict is not put off ("compute-bound overall, ... though not yet about the method")
                found = [_as(j, "deferred") if j.status == "affirmed" and j.match.kind != "regime" else j
                         for j in found]
            elif found and predicate(ws, t, words=4) == "hypothetical":   # "X, Y - are the ones you'd make
                found = [_as(j, "hypothetical") if j.status == "affirmed" else j for j in found]   # for it"
            elif found and ws[:1] and ((ws[0] in t.terminators and (set(ws) & t.anaphora or refuses_it(
                    ws, t))) or (ws[0] == "and" and ws[1:2] and ws[1] in t.anaphora | _THEY)
                    or (ws[0] == "and" and any(not fw and set(ws[b:e]) & t.anaphora   # "..., and set
                                               for _, b, e, fw in triggers(ws, t)))) and any(   # it aside"
                    s == "negated" and (not forward or (ws[b] in ("i", "we") and "regime" not in kinds))
                    for s, b, _, forward in triggers(ws, t)):
                # "..., so I wouldn't do them", "so I would not spend time on it": a backward
                # trigger, or the student's own refusal, and a word pointing back (not "so rather than
                # queueing them, ...", nor "but ... where the waste is"); "..., and they do nothing here yet"
                # (sealed309 e.s3111); "I'd set that aside"; "already flash-attention, so I'd leave it alone"
                found = [_as(j, "negated") if j.status in _REFUSABLE else j for j in found]
            elif found and denies_it(ws, t):   # "... a loop that is really bandwidth-bound, and this is not"
                found = [_as(j, "negated") if j.status == "affirmed" else j for j in found]
            elif found and conceded(ws, t):   # "... would be the standard moves
                # for a bandwidth-bound decoder, but this one isn't limited by bandwidth" (sealed130 e.s1323)
                found = [_as(j, "negated") if j.status == "hypothetical" else j for j in found]
            elif found and student_refuses(ws, t):   # "Fusing attention, which also came up, I would
                # not pursue" (sealed84 b.s863): the fronted object is what the student refuses; so is
                found = [_as(j, "negated") if j.status == "affirmed" or j in quoted else j   # a quotation:
                         for j in found]   # '... said "just batch it". I disagree' (sealed147 e.s1499)
            elif quoted and (negates(ws, t) or cued(ws, t.refutes) or t.doubts_merit(ws)):   # '"memory
                # ops don't matter" is a category mistake', '| "..." | Wrong |' (sealed86 b.s883)
                found = [_as(j, "negated") if j in quoted else j for j in found]
            elif quoted and cued(ws, t.endorse):   # 'Someone suggested "fuse the elementwise ops" and
                # I think they're right' (sealed105 a.s1076): the student takes it up
                found = [_as(j, "affirmed") if j in quoted else j for j in found]
            carried = (None if cued(ws[:2], t.causes) else carried_status(ws, t, "regime" not in kinds)) \
                or carried   # causes
            if any(st == "negated" and b == len(ws) and (b <= 2 or (fw and before_quote(body, clause)))
                   for st, _, b, fw in triggers(ws, t)) \
                    or (ws[-1:] and ws[-1] in t.announce and negates(ws, t)):
                carried = "negated"   # 'And not "just raise the batch further"': a bare negation; "I
                #   would turn down both proposals, raising the batch and ..." (sealed145 e.s1471)
            trailing = opener if found and opener in CARRIED[:2] else None if opener else trailing
            continue   # (a bare negation before a quotation refuses what it quotes)
        trailing = None
        hits, now, until = triggers(ws, t), cued(ws, t.now), last_cue(ws, t.refused_until)   # once a clause,
        plain = next((i for i, w in enumerate(ws) if w in t.subordinate), len(ws))   # not once a match:
        before: tuple[int, str] | None = (0, found[-1].status) if found and coordinated(   # where the last
            ws, [concepts.words(m.phrase) for m in matches]) else None   # match ended, and its status
        for m in matches:
            status = status_of(ws, m.start, len(concepts.words(m.phrase)) or 1, t, hits)
            if status == "affirmed" and before is not None and before[1] != "affirmed" \
                    and set(ws[before[0]:m.start]) <= JOINED:   # "would I raise the batch or quantize
                status = before[1]   # the weights": one status for both (sealed109 e.s1118)
            before = (m.start + (len(concepts.words(m.phrase)) or 1), status)
            if status == "historical" and m.kind != "lever":   # "already compute-bound" is a verdict
                status = "affirmed"
            if status == "affirmed":   # a label covers its line up to a subordinate clause; no condition
                status = (None if now else carried) or (label_status if plain >= m.start else None) or status
                #   or deferral from the clause before reaches "... and we should do it now"
            if status == "negated" and until >= before[0]:   # "Don't: spend two weeks
                status = "deferred"   # hand-fusing before step 1" (sealed124 b.s1264): later, not never
            elif status == "negated" and 0 <= until < m.start and any(   # "I'd hold int8 until batching
                    s == "negated" and fw and b <= until for s, _, b, fw in hits):   # is in" (sealed113
                status = "prerequisite"   # a.s1160): what the refusal waits for, not refused
            if carried is not None and status == carried and condition:   # what the deferred step
                found = [_as(j, "prerequisite") if j in condition else j for j in found]   # waits for
                condition = []
            j = refuted_after(Judged(m, status, sentence, first + n, clause), ws, before[0], t, hits)
            if (status == "affirmed" or (status == "deferred" and m.kind == "claim")) and any(
                    clause.strip() in q for q in quotes) and (m.kind == "claim" or reported) and not taken_up:
                j = _as(j, "attributed")   # a claim quoted is someone else's ('... don't count once you're
                quoted.append(j)           # compute-bound', stated: sealed208 b.s2104), and so is a lever a
                #   reporting verb quotes ('Someone suggested "just fuse the elementwise ops"', sealed101)
            found.append(j)
        if inside and opener not in CARRIED:   # "Only when it is bandwidth-bound does the toolkit (bigger
            continue   # batches, ...) come into play" (sealed175 e.s1771): an aside keeps what it is in
        carried = opener if opener in CARRIED else None
        condition = [j for j in found if j.clause == first + n] if carried else []
    if label_status == "negated":   # 'Don\'t: accept the "compute-bound so ..." argument' (sealed166
        found = [_as(j, "negated") if j.status == "attributed" else j for j in found]   # b.s1690): a
        #   refusing label refuses the words it reports, whoever said them
    if trailing:   # a condition after the refusal: not now, not never (the later word stands)
        found = [_as(j, trailing) if j.status == "negated" else j for j in found]
    found = asked(t, sentence, found)   # "Should we buy the vendor's int4 quantization?" asks
    return _named_then_judged(concepts, t, sentence, speaker_refuted(concepts, t, sentence, found))


def _named_then_judged(concepts: Concepts, t: Triggers, sentence: str, found: list[Judged]) -> list[Judged]:
    """'Int4: not for this endpoint now.': a name alone before a colon, and a trigger opening
    what follows it, is the verdict on that name, whatever words follow the trigger (an
    elliptical clause elsewhere may hold only `elliptical` words: "TTFT problem, not ITL")."""
    m = _headed(concepts, t, sentence)
    if not m:
        return found
    head = [x for k in sorted({j.match.kind for j in found}) for x in concepts.find(k, m[1])]
    named = [j for j in found[:len(head)] if j.status in ("affirmed", "historical")]   # "batching, int8
    #   weights: only if ..." (sealed105 e.s1077): a list of names heads it as one name does; "already
    #   fused" after the verdict gives its reason ('| flash-attention: don't fuse further | already
    #   fused |', sealed407 b.s4096, instructor 97: refused)
    if not named or not _bare_names(concepts, named, m[1], t.heading) or stated(concepts, named, m[1]):
        return found
    if all(set(j.match.concepts) <= _named_first(concepts, m[2]) for j in named):
        return [j for j in found if j not in named]   # "Recommendation on int4: I would not adopt
        #   int4.": the head names the topic, the body's own mention carries the verdict
    rest = concepts.words(m[2])
    lead = 1 if rest[:1] and rest[0] in t.anaphora else 0   # "int4: it might still be worth a pilot"
    clauses = [concepts.words(c) for c in CLAUSE.split(m[2]) if c.strip()]
    status = hedged_refusal(clauses, t, opening(rest[lead:], t, contrast=False))   # (sealed151 d.s1532)
    if status is None and (voiced := in_own_voice(rest, t)) is not None:   # "Batching: I'd probably
        status = hedged_refusal(clauses, t, voiced)   # hold off" (sealed177 c.s1795)
    if status is None and clauses and refuses_it(clauses[0], t) and [   # "Batch: raising it further
            s for s, *_ in triggers(clauses[0], t)].count("negated") == 1:   # would not help" (sealed259
        status = "negated"   # d.s2614); not "Int4: I'm not fully convinced it's useless" (two negations)
    if status is None and (points_back_in(words(CLAUSE.split(m[2])[0]), t)   # "Quantizing weights: I'm not
                           or turns_to_refusing(concepts, t, m[2])):   # sure that's wise here" (sealed297
        status = "negated"   # c.s2997); "On int4: ..., so don't expect a win" (sealed316 d.s3190)
    own = ("regime", "regime_word", "lever", "claim")
    if status is None or (status == "negated" and _named_first(concepts, m[2], own)) or _numbered(rest[1:]):
        return found   # "FlashAttention (tiled): no 40 GB buffer" negates a quantity (sealed65 c.s676)
    return [_as(j, status) if j in named else j for j in found]


def _named_first(concepts: Concepts, rest: str, kinds: tuple[str, ...] = ("lever", "claim")) -> set[str]:
    """What the first clause after a topic's colon names: a trigger's clause that names its own
    ('Overhead-bound: neither bandwidth (14%) nor compute (3%) is saturated', sealed28 e.s307)
    negates that, not the name before the colon."""
    clause = next((c for c in CLAUSE.split(rest) if c.strip()), "")
    return {c for k in kinds for x in concepts.find(k, clause) for c in x.concepts}


def _bare_names(concepts: Concepts, named: list[Judged], head: str, around: frozenset[str]) -> bool:
    """The head names the levers and nothing else but the words that head a topic (`heading`) and
    join a list ('and', 'or')."""
    ws = {w for w in concepts.words(_ASIDE.sub(" ", head)) if not w.isdigit()}   # "Hand-fused kernels
    #   (2 weeks)": an aside; "| 3 | Quantize weights": a table's step number
    names = [set(concepts.words(j.match.phrase)) for j in named]
    return all(ws & name for name in names) and ws <= set().union(*names) | around | _LIST
    #   'Recommendation: FlashAttention first' names none


def _numbered(rest: list[str]) -> bool:
    return bool(rest) and rest[0][:1].isdigit()
