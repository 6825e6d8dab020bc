"""Trigger scopes over one clause's words, the core of ConText (see context.py): which trigger
phrases a clause holds, which status reaches a word, and what a clause opens with. Kept apart from
context.py, which walks sentences and clauses, so the YAML readers (structured.py) and the regime
reader use the same scopes without the sentence walk."""

from __future__ import annotations

import re

from regime.engine.grading.triggers import Phrase, Triggers

CARRIED = ("hypothetical", "deferred", "counterfactual")   # "If X, Y", "Once X, Y": X covers Y


def carried_status(ws: list[str], t: Triggers, deeds: bool = False) -> str | None:
    """The condition or deferral a clause naming nothing sets up for the clauses after it: its
    trigger may stand anywhere in it ("and if we are finally bandwidth-bound, that is when ...").
    So does a report whose reported words open with a premise: "the second says that since the
    step is compute-bound, memory-bound ops are irrelevant" (sealed236 b.s2382) reports its main
    clause too, after the comma. Not a trigger inside the subject of a statement of its own. For
    levers (`deeds`), a clause opening on a `when_openers` word defers too: "...; when the loop is
    truly bandwidth-bound, batching and int8 weights become the right next steps" (sealed300 e.s3022)."""
    if deeds and ws[:1] and ws[0] in t.when_openers and not _told(ws[1:3]):
        return "deferred"
    hits = triggers(ws, t)
    return next((s for s, start, end, _ in hits if s in CARRIED
                 and not _describes(ws, start, end, t)), None) or next(
        ("attributed" for s, _, end, forward in hits if s == "attributed" and forward
         and ws[end:end + 1] and ws[end] in t.premise), None)


def _told(ws: list[str]) -> bool:
    """A time the student tells of, not a condition: "When I looked at how our other training jobs
    handled the same pattern, the team there simply turned on torch.compile ..., so that's what I
    would do here first" (sealed348 b.s3505, instructor 76: compile recommended, graded deferred)."""
    return len(ws) == 2 and ws[0] in _PERSONS and ws[1].endswith("ed")


def _describes(ws: list[str], start: int, end: int, t: Triggers) -> bool:
    """A trigger within a subject that a copula then predicates, after words of that subject and
    not the student's: "the 4 ms inter-token latency afterwards is perfectly healthy" (sealed295
    c.s2973), "(the 4 ms between later tokens is fine)" (sealed296 c.s2988) put nothing off; "once
    the step is bandwidth-bound" and "we'd do that only once it is" do."""
    before = [w for w in ws[:start] if w not in t.terminators | t.continuing | _FOCUS]   # "Then, and
    #   only if a meaningful gap is left, ..." (sealed254 b.s2562) is a condition
    after = ws[end:end + 3]
    k = next((i for i, w in enumerate(after) if w in BEING), -1)
    return bool(before) and not set(before) & _PERSONS \
        and k >= 0 and not set(after[:k]) & (_PRONOUNS | _PERSONS | t.determiners)


def predicate(ws: list[str], t: Triggers, words: int = 1) -> str | None:
    """The status of a backward trigger opening a clause: a predicate with no subject of its own
    ("..., misses the point"), its subject what the sentence named; after a copula too ("a GPU with
    more FLOPs, is even less useful", sealed90 a.s923). Only triggers of `words` words or more count."""
    bare = list(ws)
    while bare[:1] and bare[0] in t.terminators:   # "..., but they are useless while the GPU
        bare = bare[1:]                              # waits" (sealed129 e.s1313): what it named
    opened = bare = bare[1:] if bare[:1] == ["which"] else bare   # "X, which is wrong": X's predicate
    if bare[:1] and bare[0] in _PRONOUNS and bare[1:2] and bare[1] in _COPULA:
        bare = bare[1:]
    while bare[:1] and bare[0] in _COPULA:
        bare = bare[1:]
        while bare[:1] and bare[0] in _ALSO:   # "..., a GPU with more FLOPs, is also off the table"
            bare = bare[1:]                      # (sealed308 a.s3104)
        while bare[:1] and (bare[0],) in t.forward.get("possible", ()):   # "..., it's probably not
            bare = bare[1:]   # worth much here" (sealed97 a.s993): a hedged refusal leans to refusing,
            #                   as ConText ranks a negation over a hedge (not "might be unnecessary
            #                   fp32 conversions", sealed137 b.s1394, which names a problem)
    return next((status for status, p in t.backward.items() for q in p for w in (ws, opened, bare)
                 if len(q) >= words and tuple(w[:len(q)]) == q), None)


_COPULA = frozenset({"is", "are", "was", "were", "be", "would", "will", "seems", "seem", "looks", "sounds"})
_PRONOUNS = frozenset({"they", "it", "both"})
_ALSO = frozenset({"also", "likewise", "equally", "similarly", "too", "clearly", "simply", "just",
                   "therefore", "hence"})   # "... are therefore 'not yet'" (sealed492 e.s4941)
BEING = frozenset({"is", "are", "was", "were"})   # the copulas, one set for the reader
_PERSONS = frozenset({"i", "we", "you"})
_FOCUS = frozenset({"only", "even", "just", "then"})
_MODALS = frozenset({"would", "will", "should", "could", "do", "did",
                     "also", "just", "really", "definitely", "certainly"})   # "I would also not do"


def opening(ws: list[str], t: Triggers, contrast: bool, qualified: bool = True) -> str | None:
    """The status of a trigger that opens the clause. With `contrast`, only an elliptical clause
    counts: one that opens with a contrast word ("but not for TTFT"), or is the trigger with only
    `elliptical` or pointing-back words after it ("not yet", "maybe then", "so not that"): "not
    ITL" names something else, and "so no 40 GB allocation" is a consequence, not a verdict.
    Without `qualified`, a contrast with words of its own re-judges nothing: 'compute-bound
    overall — but not "done"' (sealed86 b.s885) qualifies a verdict, it does not deny it."""
    i = 0
    while i < len(ws) and ws[i] in t.terminators:
        i += 1
    turned = i > 0 and ws[0] in t.contrast
    rest = tuple(ws[i:])
    if _pseudo(list(rest), 0, t):   # "if we go to batch 8, ...": no condition opens here
        return None
    best: str | None = None
    best_len = 0
    for status, p in t.openers().get(rest[0], ()) if rest else ():
        after = rest[len(p):]   # "but not for TTFT" (or, in a table's cell, "not for TTFT"): a
        # short qualifier; "but neither bandwidth nor compute is saturated" is a statement of its own
        qualifier = qualified and (turned or (bool(after) and after[0] in t.after_no))
        if contrast and not ((qualifier and len(after) <= t.elliptical_words)
                             or set(after) <= t.elliptical | t.anaphora
                             or (turned and status == "hypothetical")):   # "Raise the batch to 8, but
            continue   # only if there's enough concurrent traffic" (sealed143 e.s1455): a condition
            #            on what came before, however long, never a statement of its own
        if rest[:len(p)] == p and (best is None or len(p) > best_len
                                   or (len(p) == best_len and t.rank(status) < t.rank(best))):
            best, best_len = status, len(p)
    return best


_CLAUSAL = ("hypothetical", "attributed")   # a subject right after "whether", "asked" opens their own
#   clause: "The director asked whether we should move to a card with more FLOPs" (sealed268 a.s2710)
#   asks; "After that I'd quantize" is the student's own step


def status_of(ws: list[str], start: int, n: int, t: Triggers,
            found: list[tuple[str, int, int, bool]] | None = None) -> str:
    """The highest-priority status whose trigger's scope reaches the words [start, start + n).
    Triggers are found longest first ('not yet' is one deferral, not a 'not')."""
    found = found if found is not None else triggers(ws, t)
    hits = [status for status, j, end, forward in found   # a condition opening the clause reaches all
            #   of it: "Once the graphs and compile are in and the loop is actually bandwidth-bound, ..."
            if (forward and end <= start and (start - end <= t.window or (j == 0 and status in CARRIED))
                and not set(ws[_past_adverb(ws, end, t):start]) & t.terminators
                and not cued(ws[end + (status in _CLAUSAL):start], t.new_subject))
            or (not forward and j >= start + n and j - (start + n) <= t.window
                and not set(ws[start + n:j]) & t.terminators and not _subject_between(ws[start + n:j]))]
    if not hits and _fronted(ws, start + n, t):
        return "negated"
    status = min(hits, key=t.rank) if hits else "affirmed"
    return "negated" if status == "possible" and _doubted(ws, start, n, found, t) else status


def _subject_between(between: list[str]) -> bool:
    """A subject of its own between a name and a backward trigger after it, joined on: in
    "since we're already compute-limited and it would only lengthen each request" (sealed286
    d.s2889) 'it' is what 'would only' is said of, not the regime."""
    k = next((i for i, w in enumerate(between) if w in _JOINING), -1)
    return k >= 0 and bool(set(between[k + 1:k + 2]) & _PRONOUN_SUBJECTS)


_JOINING = frozenset({"and", "but", "or"})
_PRONOUN_SUBJECTS = frozenset({"it", "they", "we", "i", "you"})


def _doubted(ws: list[str], start: int, n: int, found: list[tuple[str, int, int, bool]], t: Triggers) -> bool:
    """A doubt before what it names and its merit after it: "I'm also not sure pushing the batch
    past 256 is wise" (sealed269 d.s2715, instructor 100: refused) leans to refusing, as "I doubt
    ... is wise" does; "not sure it would help much" stays a hedge."""
    return any(forward and end <= start and tuple(ws[j:end]) in t.doubting for _, j, end, forward in found) \
        and cued(ws[start + n:start + n + t.window], t.merits)


def _fronted(ws: list[str], end: int, t: Triggers) -> bool:
    """An object put first and refused at the end of its clause: "Pushing the batch much past 256
    I'd avoid" (sealed142 d.s1441, instructor 100), "Fusing attention I would not pursue": the
    student's refusal closes the clause, a few words after what it refuses."""
    k = next((i for i in range(end, min(len(ws), end + t.window + 1)) if ws[i] in ("i", "we")), -1)
    return k >= 0 and not set(ws[end:k]) & (t.terminators | t.continuing) and student_refuses(ws[k:], t)


def _past_adverb(ws: list[str], end: int, t: Triggers) -> int:
    """Where a trigger's scope may first be ended: past an adverb right after it ("might still be
    bandwidth-bound": 'still' qualifies the hedge, it ends nothing)."""
    return end + 1 if end < len(ws) and ws[end] in t.adverbs else end


def triggers(ws: list[str], t: Triggers) -> list[tuple[str, int, int, bool]]:
    """(status, start, end, forward) of each trigger in `ws`; one inside a longer one is dropped.
    Phrases are looked up by their first word, so a clause costs one pass over its words."""
    index = t.by_first()
    found = [(status, j, j + len(p), forward)
             for j, w in enumerate(ws) for status, p, forward in index.get(w, ())
             if tuple(ws[j:j + len(p)]) == p and not _own_reading(ws, j, p, status, t)
             and not _pseudo(ws, j, t) and not _compares(ws, j + len(p), p, t)]
    if len(found) < 2:
        return found
    starting: dict[int, list[tuple[str, int, int, bool]]] = {}
    for y in found:
        starting.setdefault(y[1], []).append(y)
    longest = max(y[2] - y[1] for y in found)   # a longer trigger holding x starts this close before it
    return [x for x in found if not any(x[2] <= y[2] and y[2] - y[1] > x[2] - x[1]
                                        for b in range(x[1] - longest, x[1] + 1)
                                        for y in starting.get(b, ()))]


def _pseudo(ws: list[str], j: int, t: Triggers) -> bool:
    """A trigger word that opens a pseudo-trigger ("if we want more throughput, ..." states the
    goal, it puts no condition on the levers after it), or closes one ("25k tokens going through
    at once" defers nothing, sealed138 c.s1406): no trigger, as ConText has them."""
    return any(tuple(ws[j:j + len(p)]) == p or tuple(ws[max(j + 1 - len(p), 0):j + 1]) == p for p in t.pseudo)


def _compares(ws: list[str], end: int, p: tuple[str, ...], t: Triggers) -> bool:
    """A trigger that sets one figure against another ("78% of peak bandwidth against only 4% of
    peak FLOPs is the bandwidth-bound signature", sealed69 a.s713): a figure in the next words."""
    return p in t.compares and any(w[:1].isdigit() for w in ws[end:end + 2])


def _own_reading(ws: list[str], j: int, p: tuple[str, ...], status: str, t: Triggers) -> bool:
    """A one-word attribution ('says', 'claims') whose subject is a measurement ('the profile
    says compute-bound'), or with one word between ('those two numbers together say', sealed111
    a.s1133): the student reports what the numbers show, in their own voice."""
    return status == "attributed" and len(p) == 1 and j > 0 and bool(set(ws[max(0, j - 2):j]) & t.readings)


def postpones(words: list[str], t: Triggers) -> bool:
    """Whether text opens (after 'then') with a deferral or a condition: a YAML fix whose bound
    reads "then, not before: only after re-measuring" is a later step, not a fix now."""
    return opening(words[1:] if words[:1] == ["then"] else words, t, contrast=False) in CARRIED


def hedged(words: list[str], t: Triggers) -> bool:
    """Whether a YAML fix's bound or reason opens with a hedge ("might give some speedup, worth a
    pilot"): named, not committed to, as "CUDA graphs could help" is in prose."""
    return opening(words, t, contrast=False) == "possible"


def cued(ws: list[str], cues: tuple[Phrase, ...]) -> bool:
    """One of the cue phrases occurs in the words."""
    return any(tuple(ws[i:i + len(c)]) == c for c in cues for i in range(len(ws) - len(c) + 1))


def last_cue(ws: list[str], cues: tuple[Phrase, ...]) -> int:
    """Where the last of the cue phrases to start in the words starts; -1 for none. cued(ws[b:],
    cues) is last_cue(ws, cues) >= b, found once for a clause instead of once for each match."""
    return max((i for c in cues for i in range(len(ws) - len(c) + 1) if tuple(ws[i:i + len(c)]) == c),
               default=-1)


def answers_no(words: list[str], t: Triggers) -> bool:
    """A sentence that answers the case's question with a no ('Short answer for the director:
    no', 'my answer to the director is no'): an answer cue, then a negation after it."""
    for i in range(len(words)):
        for p in t.answer:
            if tuple(words[i:i + len(p)]) == p:
                rest = words[i + len(p):]
                return any(s == "negated" and forward for s, _, _, forward in triggers(rest, t))
    return False


def negates(words: list[str], t: Triggers) -> bool:
    """Whether a negation trigger occurs in these (normalized) words."""
    return any(status == "negated" for status, *_ in triggers(words, t))


def refuses_for_now(words: list[str], t: Triggers) -> bool:
    """A deferral worded as a refusal ("not yet"), unlike "once X, then Y" that schedules Y."""
    no = t.forward.get("negated", ())
    return any(status == "deferred" and cued(words[a:b], no) for status, a, b, _ in triggers(words, t))


def student_refuses(ws: list[str], t: Triggers) -> bool:
    """A clause that is the student's refusal and a verb at most: "I would not pursue", "we'd
    skip", not "I would not fuse attention" (which names its object) nor "it does not help"."""
    while ws and ws[0] in t.terminators:
        ws = ws[1:]
    while ws and ws[-1] in t.elliptical:   # "I'd turn down as well"
        ws = ws[:-1]
    hedges = t.forward.get("possible", ())   # "I probably wouldn't buy it" (sealed291 d.s2939, a
    #   table row after "int4 for throughput", instructor 100): a verb and what points back
    return bool(ws) and ws[0] in ("i", "we") and any(   # "we'd avoid": after its modal
        s == "negated" and (
            (forward and (start <= 1 or (start <= 3 and all(
                w in t.generic or w in _MODALS or (w,) in hedges for w in ws[1:start])))
             and (end >= len(ws) - 1 or ws[end] in t.anaphora
                  or (end == len(ws) - 2 and ws[-1] in t.anaphora)))
            or (not forward and start <= 3 and bool(set(ws[start:end]) & t.anaphora)))
        for s, start, end, forward in triggers(ws, t))   # "..., I doubt it would buy anything"
    #   (sealed157 a.s1593): the refusal's object points back to what was named; so does a
    #   backward trigger holding the word that points back ("; I'm setting it aside", sealed285 c.s2880)


def refuses_it(ws: list[str], t: Triggers) -> bool:
    """A clause naming nothing that negates a word pointing back ('I'd skip it', 'avoid that'); the
    word must be in the trigger's own clause: "Don't batch, it's TTFT" refuses nothing before it."""
    while ws and ws[0] in t.terminators:   # "So, no for throughput.": a bare no answers what came before
        ws = ws[1:]
    lead = next((len(p) for p in t.answer_leads if tuple(ws[:len(p)]) == p), 0)   # "My answer is no"
    ws = ws[lead:]
    while ws[1:] and (ws[0],) in t.forward.get("possible", ()):   # "Batching? Probably not - ..."
        ws = ws[1:]   # (sealed164 c.s1666): a hedged refusal leans to refusing, as hedged_refusal reads it
    if ws[:1] == ["no"] and len(ws) <= 1 + t.elliptical_words and (len(ws) == 1 or ws[1] in t.after_no):
        return True   # not "no 5 TB of traffic", which negates a quantity
    if any(s == "negated" and start == 0 and fw and ws[end:end + 1] and ws[end] in t.after_no
           and t.scene_at(ws, end + 2) <= end + t.elliptical_words for s, start, end, fw in triggers(ws, t)):
        return True   # "Reject for throughput." after the vendor's claim (sealed258 d.s2603)
    if any(s == "negated" and end == len(ws) and (start == 0 or (start == 1 and ws[0] in ("i", "we")))
           for s, start, end, _ in triggers(ws, t)) or student_refuses(ws, t):
        return True   # the clause is the refusal and nothing else: "I don't agree", "I wouldn't bother"
        #               (not "ITL (4 ms) isn't", which says something of its own subject)
    return t.doubts_merit(ws) or any(status == "negated" and not _own_subject(ws[:start], t)
               and (t.points_back(_own(ws, start, end, t)) or points_before(ws, start, forward, t))
               for status, start, end, forward in triggers(ws, t))   # "I'd skip it"


def _own_subject(before: list[str], t: Triggers) -> bool:
    """Words of a subject of its own before the refusal: "Tuning kernels won't do it" (sealed257
    a.s2591, after "... or we shrink the weights") refuses the tuning, not what came before. Not a
    frame opening on a preposition: "For this workload I'd advise against it" (sealed289 c.s2917)."""
    return len(before) > 1 and not set(before) & (t.anaphora | {"i", "we", "you"}) \
        and before[0] not in t.frames


def _own(ws: list[str], start: int, end: int, t: Triggers) -> list[str]:
    """A trigger and the few words after it, up to a premise: in "In case A fusion was pointless
    because it was about bytes" (sealed100 e.s1021) the 'it' is the reason's own subject."""
    after = ws[end:end + 3]
    cut = next((i for i, w in enumerate(after) if w in t.premise), len(after))
    return ws[start:end] + after[:cut]


def points_before(ws: list[str], start: int, forward: bool, t: Triggers) -> bool:
    """A backward trigger opening the clause ("That mixes up two things": 'that' is filler) or
    after a word pointing back ("it is wrong"): its subject is what came before."""
    return not forward and (start == 0 or bool(set(ws[max(start - 2, 0):start]) & t.anaphora))


_DENIED = (["is", "not"], ["are", "not"], ["was", "not"])   # "..., and this one is not"
_SUBJECT_WORDS = frozenset({"and", "one", "right"})         # "... and right now it isn't"


def denies_it(ws: list[str], t: Triggers) -> bool:
    """A clause that ends denying what was just named ("..., and this one is not")."""
    return ws[-2:] in _DENIED and ws[0] not in t.contrast and _points_back(ws[:-2], t)


def conceded(ws: list[str], t: Triggers) -> bool:
    """After a contrast word, a denial whose subject is the step itself ("but this one isn't ...")."""
    k = next((i for i in range(1, len(ws) - 1) if ws[i:i + 2] in _DENIED), 0)
    return bool(ws) and ws[0] in t.contrast and k > 1 and _points_back(ws[1:k], t)


def _points_back(subject: list[str], t: Triggers) -> bool:
    """The denial's subject is what was just named ("and this one is not"), not someone of its
    own ("engineer #2 is not", sealed42 b.s450)."""
    return set(subject) <= t.anaphora | t.determiners | t.terminators | t.elliptical | _SUBJECT_WORDS


JOINED = frozenset({"or", "and", "nor"})   # words that join two levers under one verdict


def coordinated(ws: list[str], names: list[list[str]]) -> bool:
    """A clause that is only a conjunction and names ("... (more work, longer TTFT) and weight
    quant (...)", sealed154 c.s1563): the next object of the verdict before its aside."""
    return bool(ws) and ws[0] in JOINED and set(ws) <= JOINED | {w for n in names for w in n}


_ASIDE_THEN = re.compile(r"[\"”’']?\s*\([^()]*\)\s*(?:[,;/+&]|and|or|nor)?\s*", re.I)


def after_aside(sentence: str, before: str, name: str) -> bool:
    """Whether `name` follows `before` with only a bracketed aside and a list separator between
    them ("batching (one long prompt, more work), weight quant (16 GB over 25k tokens ...)",
    sealed159 c.s1612): the next object of the same verdict, its aside being its reason."""
    at = sentence.lower().find(before.lower())
    end = at + len(before) if at >= 0 else -1
    nxt = sentence.lower().find(name.lower(), end) if end >= 0 else -1
    return nxt > end and _ASIDE_THEN.fullmatch(sentence[end:nxt]) is not None


def hedged_refusal(clauses: list[list[str]], t: Triggers, status: str | None) -> str | None:
    """A verdict after a topic's colon (its clauses' words) that opens with a hedge and refuses
    in the same clause ("Quantization: probably not worth it", sealed155 c.s1576) leans to
    refusing: negated, as ConText ranks a negation over a hedge in one scope. A hedge alone
    ("maybe, later") stays one, and so does a refusal hedged again after it ("probably wont do
    much, could try it later", sealed84 a.s865): the student leaves it open."""
    first, *after = clauses or [[]]
    again = any(s == "possible" for ws in after for s, *_ in triggers(ws, t))
    return "negated" if status == "possible" and negates(first, t) and not again else status


def in_own_voice(ws: list[str], t: Triggers) -> str | None:
    """The verdict a student gives in their own voice with a hedge between ("I'd probably hold
    off", "I probably wouldn't bother", sealed177 c.s1795, sealed180 c.s1823): the status of the
    trigger after the subject, its modal and the hedge; a refusal so hedged leans to refusing (a
    hedge and no refusal: 'possible'). None without a hedge there, whose trigger opens the clause
    already ("I would not")."""
    i = 1 if ws[:1] and ws[0] in ("i", "we") else 0
    while i and i < len(ws) and ws[i] in t.generic:
        i += 1
    hedge = i
    while i and i < len(ws) and (ws[i],) in t.forward.get("possible", ()):
        i += 1
    if i == hedge:
        return None
    status = opening(ws[i:], t, contrast=False)
    return "possible" if status in (None, "possible") else status


def before_quote(body: str, clause: str) -> bool:
    """The clause ends where a quotation opens: 'My plan is different from "two weeks of
    hand-written kernels"' (sealed167 b.s1691), whose negation, ending the clause, refuses what
    the quotation names; not "limited by neither: kernel-launch-overhead-bound", elliptical."""
    return re.search(re.escape(clause.rstrip()) + r"\s*[\"“]", body) is not None
