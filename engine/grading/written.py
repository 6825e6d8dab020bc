"""Written answers (Markdown against the template's headings): front matter names the case,
each template section's items are read for regimes, figures, levers and claims by the
exercise's concepts, negation included. An item naming no lever is read by meaning when that
is clear, and quoted back otherwise.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from regime.core.errors import RegimeError
from regime.engine.grading.answer import SENTENCE, Answer, Mention
from regime.engine.grading.by_meaning import about_a_claim, claim_by_meaning, lever_reason, unmatched
from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.context import judge
from regime.engine.grading.figures import unreadable_numbers
from regime.engine.grading.items import crossed
from regime.engine.grading.judged import Judged
from regime.engine.grading.labels import steps
from regime.engine.grading.layout import EMPHASIS as _EMPHASIS
from regime.engine.grading.layout import PROSE, front_matter, labelled, prose, sections_of
from regime.engine.grading.limiters import adopt_limiter, read_limiter
from regime.engine.grading.offers import offered_if
from regime.engine.grading.openers import (
    agrees,
    announcing,
    disputes,
    introduces,
    labelled_item,
    opens_with_a_lever,
    qualified,
    refusing,
    refuted_after,
)
from regime.engine.grading.profile_entry import profile_entry
from regime.engine.grading.recommending import LIST_WORDS, commits, names_only, recommended
from regime.engine.grading.regimes_read import read_regimes
from regime.engine.grading.scopes import after_aside, answers_no, coordinated, cued, negates, refuses_for_now
from regime.engine.grading.sentences import QUOTED
from regime.engine.grading.sides import agreed_claim, sided
from regime.engine.grading.tables import regime_row, verdict_rows
from regime.engine.grading.turns import conditioned, own_reasons, reopened, same_as_before


def read_written(path: Path, text: str, concepts: Concepts) -> Answer:
    file = str(path)
    meta, body_start = front_matter(path, text)
    if "case" not in meta:
        raise RegimeError("a written answer starts with front matter naming its case "
                          "(---, case: ..., student: ..., ---)", file=file, line=1, field="case")
    a = Answer(file, "markdown", str(meta["case"]),
               None if meta.get("student") is None else str(meta["student"]))
    text, rows, plans = verdict_rows(text, concepts)
    a.lines = text.splitlines()
    sections = sections_of(text, body_start, concepts, a,
                           intro=lambda h: qualified(concepts, h) or refusing(concepts, h))
    if not any(name != PROSE for name in sections):   # no template heading at all: a labelled
        sections = labelled(text, body_start, concepts, a)   # memo, or an essay
    if not any(name != PROSE for name in sections):
        sections, a.prose = sections or prose(text, body_start, lambda p: introduces(concepts, p),
                                              lambda item: opens_with_a_lever(concepts, item), concepts), True
    if not sections:
        raise RegimeError("the answer is empty: write it under the template's headings (## Regime, "
                          "## Evidence, ## Fixes, ## Reject, ## Ask) or as prose", file=file,
                          line=body_start + 1)
    taken: list[tuple[int, str]] = []
    for name, items in sections.items():
        for line, item in [(ln, one) for ln, it in items for one in (steps(it) if name in _PLANS else [it])]:
            for number in unreadable_numbers(item):
                raise RegimeError(f"'{number}' is not a finite number; write the figure as it is",
                                  file=file, line=line, field=name)
            a.said(concepts, _EMPHASIS.sub("", item), line)
            verdict = (line in rows and name not in (PROSE, "fixes", "reject")) \
                or (line in plans and name not in ("fixes", "reject"))   # a table of verdicts, a plan
            item = _STEP_CELL.sub("|", item) if line in plans else item   # '| 4 | quantize weights |':
            head = item.partition(":")[0] if line in rows or name == "fixes" else ""   # a step, not int4;
            own = concepts.heading(_EMPHASIS.sub("", head))
            if own in ("regime", "evidence"):   # '| Regime | ... |': a row of the template's own part;
                #   an item labelled with one in a plan ("Plan for the summarizer / 1. Diagnosis:
                #   prefill, compute-bound.", sealed282 c.s2850, instructor 92), that item only
                verdict, part, item = False, str(own), item.partition(":")[2]
            else:
                part, item = labelled_item(concepts, item) if name == PROSE else (name, item)
            if part == "fixes" and crossed(item):   # '✗ A GPU with more FLOPs' among the fixes refuses
                part, item = labelled_item(concepts, item)   # it, as the cross in a table's row does
            _read_item(a, concepts, "fixes" if verdict else part, line, item)   # under Evidence
            taken.append((line, _EMPHASIS.sub("", item)))
    for line, item in taken:   # "I side with the second engineer": once every refusal is read
        sided(a, concepts, line, item)
    adopt_limiter(a)
    if a.regime is None and len(a.regimes_named) == 1:   # "this should be compute-bound. It is one."
        a.regime = a.nominal_regime   # (only once the whole answer is read: a later verdict wins)
    if a.regime is None and (a.prose or len(a.regimes_named) > 1) and a.fixes \
            and all(names_only(concepts, m.reason) for m in a.fixes):
        a.stuffed, a.fixes = [*a.stuffed, *a.fixes], []   # names under no verdict, with no word of
        #   why: a keyword list commits to none of them (sealed56 b.s586, c.s589: instructor 0),
        #   as under a Regime heading that lists several (sealed63 b.s655), not a terse "prefill"
    return a




def _before_cause(concepts: Concepts, clause: str, causes: tuple[tuple[str, ...], ...]) -> str:
    """The clause's words before its first cause phrase (all of it when it has none)."""
    ws = concepts.words(clause)
    cut = next((i for i in range(len(ws)) if any(tuple(ws[i:i + len(p)]) == p for p in causes)), None)
    return clause if cut is None else " ".join(ws[:cut])


def _read_prose(a: Answer, concepts: Concepts, line: int, text: str) -> None:
    """A paragraph of prose: a sentence naming a regime states it (as under Regime); levers and
    claims are read with their assertion status as under Fixes (an affirmed lever a fix, a negated
    one a rejection, a deferred or conditional one kept for the key to place). A sentence naming
    nothing is argument, not an unreadable item. One naming nothing that refuses ("Two proposals I
    would turn down.") opens a list of rejections: the sentences after it are read as under Reject."""
    sentences_ = SENTENCE.split(text)
    opener = announcing(concepts, sentences_)
    if opener is not None:   # the rejections it announces, each sentence's subject
        _read_item(a, concepts, "reject", line, " ".join(sentences_[opener + 1:]))
        text = " ".join(sentences_[:opener + 1])
    _levers_and_claims(a, concepts, PROSE, line, text, text, set())   # "...; I'd skip it" points back
    read = SENTENCE.split(text)   # (what is left once an announced list of rejections is read)
    for n, sentence in enumerate(read):
        named_before = set(a.regimes_named)
        if concepts.find("regime", sentence):
            read_regimes(a, concepts, sentence)
        if a.regimes_named == named_before or (a.regime is None and a.regimes_named == {a.nominal_regime}):
            read_limiter(a, concepts, line, sentence)   # no regime named, each one ruled out ("the
            #   reverse of a memory-limited decode: the matrix units are busy ...", sealed180 d.s1821),
            #   or only the nominal one ("on paper it is bandwidth-bound, but right now it is limited
            #   by how we launch work", sealed366 e.s3687): what limits it still reads
        named = any(concepts.find(k, sentence) for k in ("claim", "lever"))
        if not named and concepts.context and answers_no(concepts.words(sentence), concepts.context):
            a.says_no.append(line)   # "My answer to the director is no.": the case's question
            continue
        heads = not any(concepts.find(k, sentence.split(":")[0]) for k in ("claim", "lever"))
        if not named and n and agrees(concepts, sentence) and _verdict_quoted(a, concepts, read[n - 1]):
            continue   # 'A colleague said "it's launch overhead, not bandwidth". I agree with her.'
        if heads and agrees(concepts, sentence) and not refuted_after(concepts, read[n + 1:]):
            claim = agreed_claim(concepts, read, n, text)
            if claim is not None and claim not in a.endorsed:   # "I agree with the second engineer.
                #   ... the memory-bound ops are not on the critical path"
                a.endorsed.append(claim)   # (not "I agree with the goal. The second engineer says
                a.statuses.append((line, "meaning", sentence.strip()))   # "..." - that is wrong",
        elif not named and disputes(concepts, sentence) and not (   # sealed135 b.s1372) / "I disagree
                n + 1 < len(read) and agrees(concepts, read[n + 1])):   # with ...", not what the next
            #   sentence agrees with ("... the memory-bound ops shouldn't matter much. I think that's
            #   right", sealed282 b.s2844, instructor 5)
            claim_by_meaning(a, concepts, line, text, quoted=False)
    for sentence in sentences_[opener + 1:] if opener is not None else []:   # "... both proposals
        if concepts.find("regime", sentence):   # come from not looking at it closely. ... So my
            read_regimes(a, concepts, sentence)   # diagnosis is: decode, bandwidth-bound" (sealed186
            #   a.s1881): a verdict among the announced rejections is still the verdict


def _verdict_quoted(a: Answer, concepts: Concepts, sentence: str) -> bool:
    """A quotation in the sentence that states a regime, read as the student's verdict when the
    student then agrees (sealed189 e.s1920, sealed185 e.s1878: "I agree with her."): what the
    student agrees with is that verdict, not a claim guessed from the paragraph."""
    for q in QUOTED.finditer(sentence) if a.regime is None else []:
        said = q[1] or q[2]
        if concepts.find("regime", said) and not concepts.find("claim", said):
            read_regimes(a, concepts, said)
    return a.regime is not None and any(a.regime in m.concepts for q in QUOTED.finditer(sentence)
                                        for m in concepts.find("regime", q[1] or q[2]))


_PLANS = ("fixes", "reject")   # sections whose items may number their own steps inline
_STEP_CELL = re.compile(r"^\s*\|\s*\d+[.)]?\s*\|")   # a plan row's step number, alone in its cell


def _read_item(a: Answer, concepts: Concepts, section: str, line: int, item: str) -> None:
    text = _EMPHASIS.sub("", item)
    if section == "reject" and (after := _nil_answer(concepts, text)):
        section, text = PROSE, after   # "Nothing, int4 is the right call.": the student's own words
    if section == PROSE:
        _read_prose(a, concepts, line, text)
        return
    if section == "regime":
        read_regimes(a, concepts, text)
        if a.regime is None and not concepts.find("regime", text):   # "Prefill-bound (compute).": the
            # word it shortens to; not in an item after the verdict ("Why: ... 14% BW, 3% FLOPs")
            read_regimes(a, concepts, text, "regime_word")
        elif a.regime is None and a.regimes_named == {a.nominal_regime}:
            # only the nominal regime named, the verdict in the word it shortens to: "Bandwidth-bound
            # in principle, but the 14% / 3% profile suggests overhead" (sealed45 e.s478)
            # ... but not from a cause: "Prefill, compute-bound in principle — but running far below
            # that, because attention is spilling its scores to HBM" (sealed197 c.s1991, instructor 100)
            t = concepts.context
            rest = [_before_cause(concepts, c, t.causes if t else ()) for c in clauses(text)
                    if not concepts.find("regime", c) and not set(concepts.words(c)[:1]) & t.premise]
            rest = [c for c in rest if c]   # "... but running far below that because of memory traffic"
            if rest:
                read_regimes(a, concepts, ", ".join(rest), "regime_word")
    elif section == "ask":
        for clause in clauses(text):
            for m in concepts.find("fact", clause):
                if not m.negated and m.concepts[0] not in a.asks:
                    a.asks.append(m.concepts[0])
    elif section in ("fixes", "reject"):
        seen: set[tuple[str, ...]] = set()   # a lever's first mention in the item sets its status
        sentences = conditioned(concepts, SENTENCE.split(text))
        lines = a.lines[max(line - 1, 0):line + 30]
        if section == "reject" and about_a_claim(concepts, sentences, text) \
                and claim_by_meaning(a, concepts, line, text, quoted=False):
            return   # "The second engineer. Compute-bound only describes the matmuls; the ...
            #          to_copy kernels (22%) have no FLOPs, so they absolutely matter." (sealed6 b.s90)
        owns = own_reasons(concepts, sentences, text, lines)   # each sentence has its own subject
        named = [_levers_and_claims(a, concepts, section, line, sentence, own, seen)
                 for sentence, own in zip(sentences, owns, strict=True)]
        if not any(named) and a.regime is None and regime_row(concepts, text):
            _read_prose(a, concepts, line, text)   # "| profiler | 71% | 30% | compute-bound |"
        elif not any(named) and concepts.words(text) and not _aside(concepts, text):
            unmatched(a, concepts, section, line, text)
        elif section == "reject":   # "The second engineer's argument conflates ...": a claim by meaning
            for k, sentence in enumerate(sentences):
                if not named[k] and not (any(named[:k]) and lever_reason(concepts, sentence)):
                    claim_by_meaning(a, concepts, line, sentence, quoted=False)
    if section in ("regime", "evidence") and concepts.context is not None and concepts.find("claim", text):
        # a claim stated as the student's own is endorsed; one quoted or reported ('The second
        # engineer says "... memory-bound ops don't matter."') is someone else's (sealed21 b.s234)
        for j in judge(concepts, concepts.context, ("claim",), text):
            if j.status == "affirmed":
                a.endorsed.extend(c for c in j.match.concepts if c not in a.endorsed)
            elif j.status == "negated":   # '- The second engineer's "we're compute-bound, so memory
                #   ops don't matter" mixes two things up.' under Evidence refutes it (the class of sealed300
                #   b.s3027, whose own wording, "the memory-bound stuff", the claim's aliases still miss)
                a.rejects.append(Mention(j.match.concepts, j.match.phrase, line, j.match.kind, text))


def _levers_and_claims(a: Answer, concepts: Concepts, section: str, line: int, text: str,
                       item: str, seen: set[tuple[str, ...]]) -> bool:
    """Each lever or claim named, read with its assertion status (context.py). Under Fixes an
    affirmed lever is a fix, in the order written ("CUDA graphs, then torch.compile" gives both),
    a negated one a rejection, a deferred or conditional one (the solution's own "then, not
    before") kept as `a.deferred` for the key to place; hedged and attributed ones commit to
    nothing. Under Reject the first sentence naming something gives the rejections, whatever
    its wording. A claim is rejected as the subject of a Reject item or when negated; endorsed
    only when affirmed outside Reject. A lever's first mention in an item sets its status; later
    ones are commentary on it. Each mention keeps its item as its reason (the words around it
    are why), less the later lines that open on a lever of their own (turns.own_reasons). Says
    whether anything was named."""
    if concepts.context is None:
        return False
    judged = same_as_before(concepts, a, judge(concepts, concepts.context, ("claim", "lever"), text), text)
    subject = _subject(concepts, judged, text)
    heard: set[tuple[str, ...]] = set()   # levers first named in someone else's words
    supposed: set[tuple[str, ...]] = set()   # ... or in a world that is not this one, or as done
    for j in judged:
        if section == PROSE and j.status == "affirmed" and profile_entry(concepts, j):
            continue   # "(8% layer_norm, 5% to_copy)": what the profile shows, not a fix
        # a later mention, or an unqualified one overlapping an earlier ("I would not batch the
        # prefills: ... batching only adds work"), is commentary on the first
        if j.match.kind == "lever" and (j.match.concepts in seen or (
                j.status == "affirmed" and any(set(j.match.concepts) & set(s) for s in seen))) \
                and not commits(a, concepts, j, text if section == PROSE else "", heard) \
                and not (j.status == "negated" and j.match.concepts in heard | supposed):
            # (someone else's mention leaves the student's refusal to come: 'Vendor: "int4 = 4x."
            # ... int4 shrinks bytes we aren't short of', sealed108 d.s1110; so does a counterfactual:
            # "If we were serving at batch 1, int4 would be close to a 4x win. ... So no int4", sealed70)
            if j.status in ("deferred", "hypothetical"):   # "not two weeks of hand-fusing. Hand-fused
                _postpone(a, j, item)                       # kernels only if ...": not now, not never
            reopened(concepts, a, j, line)   # "... we're not one. Still, int4 might give us something"
            continue   # "not the same argument as 4-bit weights: ... int4 removes bytes" is commentary
        seen.add(j.match.concepts)
        if j.status == "attributed":
            heard.add(j.match.concepts)
        if j.status in ("counterfactual", "historical"):   # or already in place: '"batching has already
            supposed.add(j.match.concepts)   # done its job" ... why I would not push the batch higher'
            #                                  (sealed155 d.s1574, instructor 100)
        mention = Mention(j.match.concepts, j.match.phrase, line, j.match.kind, item)
        offer = section == "reject" and j.status == "hypothetical" and offered_if(   # "If traffic picks
            concepts, j.sentence, j.match.concepts[0])   # up, raising the batch would be worth doing"
        in_subject = section == "reject" and j.clause in subject and j.status != "prerequisite" and not offer
        if in_subject and j.status == "deferred":   # "just not about starting with hand-written kernels":
            a.deferred.append(replace(mention, later=True))   # refused now, the key places it
        if j.match.kind == "claim":
            if (section == "reject" and j.clause in subject) or j.status == "negated":
                a.rejects.append(mention)
            elif j.status == "affirmed":
                a.endorsed.extend(c for c in j.match.concepts if c not in a.endorsed)
        elif j.status == "negated" and section == "fixes" and any(m.reason == item for m in a.fixes) and any(
                set(j.match.concepts) & set(m.concepts) for m in a.fixes):   # "2. int8 weights. ...;
            continue   # batching does nothing for the speed of a reply" (sealed261 a.s2631): a comparison
        elif in_subject or j.status == "negated":
            a.rejects.append(mention)
        elif section == "reject" and j.status != "prerequisite" and not offer:
            continue
        elif j.status == "affirmed" and section == PROSE and not recommended(concepts, text, j):
            a.statuses.append((line, "mentioned", j.sentence.strip()))
            a.discussed.append(mention)
            continue
        elif j.status == "affirmed":
            a.fixes.append(mention)
            if section == PROSE and _heads(concepts, j, text):   # "**Int4.** Quantizing removes bytes.
                a.topics.append(mention)   # Bytes are not our problem ...": the key may find it argued
        elif j.status == "prerequisite":   # "once graphs are in, ...": a step before the deferred one
            a.deferred.append(replace(mention, later=True))
        elif j.status in ("deferred", "hypothetical"):
            # "once X, quantize" schedules it; "not yet" refuses it for now (sealed2 c.s50)
            ws = concepts.words(j.sentence)
            t = concepts.context
            later = j.status == "deferred" and not (negates(ws, t) or refuses_for_now(ws, t))
            a.deferred.append(replace(mention, later=later, fallback=_fallback(concepts, j)))
        elif j.status == "possible":
            a.hedged.append(mention)
        elif j.status == "listed" and j.listed_as == "affirmed" and j.match.kind == "lever":
            _list_into(a, mention, j.sentence)
        a.statuses.append((line, j.status, j.sentence.strip()))
    return bool(judged)


def _heads(concepts: Concepts, j: Judged, paragraph: str) -> bool:
    """The lever's name alone as the first sentence of a paragraph that goes on: its topic."""
    said = SENTENCE.split(paragraph.strip())
    return len(said) > 1 and j.sentence.strip() == said[0].strip() \
        and concepts.words(j.sentence) == concepts.words(j.match.phrase)


def _fallback(concepts: Concepts, j: Judged) -> bool:
    """A conditional lever whose condition, before its clause, says an earlier step falls short
    ("If CUDA graphs don't close the gap, raise the batch"): kept in reserve, not scheduled."""
    t = concepts.context
    at = j.sentence.find(j.clause_text) if j.clause_text else -1
    if t is None or j.status != "hypothetical" or at <= 0:
        return False
    ws = concepts.words(j.sentence[:at])
    return negates(ws, t) or cued(ws, t.fallback)


def _list_into(a: Answer, mention: Mention, sentence: str) -> None:
    """A lever of an affirmed sentence that names too many to commit to: kept with the others of
    its sentence, for the key to judge the list as a whole (score.py)."""
    group = a.listed[-1] if a.listed and a.listed[-1][0].reason == sentence else None
    if group is None:
        a.listed.append(group := [])
    group.append(Mention(mention.concepts, mention.written, mention.line, mention.kind, sentence))


def _postpone(a: Answer, j: Judged, item: str) -> None:
    """A lever this item negated and now makes conditional or later: the later word is the
    student's verdict ('start with torch.compile, not two weeks of hand-fusing ... hand-fused
    kernels only if something meaningful is left')."""
    earlier = next((m for m in a.rejects if m.concepts == j.match.concepts and m.reason == item), None)
    if earlier is not None:
        a.rejects.remove(earlier)
        a.deferred.append(earlier)


def _nil_answer(concepts: Concepts, text: str) -> str:
    """What follows a Reject item's opening clause that answers "nothing" (`nil:` in context.yaml)
    and names nothing: the student rejects nothing there, and what it says after is its own view,
    read as prose ("Nothing, int4 is the obvious win." endorses int4; "Nothing really, batching
    doesn't apply since ..." still refuses batching). Empty when the item opens otherwise."""
    t = concepts.context
    first = next(iter(clauses(text)), "")
    ws = concepts.words(first)
    if t is None or not any(tuple(ws[:len(p)]) == p for p in t.nil) \
            or any(concepts.find(k, first) for k in ("claim", "lever")):
        return ""
    return text[text.index(first) + len(first):].lstrip(" ,;:.—–-")


def _aside(concepts: Concepts, text: str) -> bool:
    """An item that opens with an `asides:` phrase ('Bound: ...', 'then re-measure the throughput')
    comments on the fixes (their bound, the next measurement), and one ending in a colon
    introduces them; it names no lever to look for."""
    t = concepts.context
    if text.rstrip().endswith(":"):   # 'What I would tell the director:' introduces what follows
        return True
    ws = concepts.words(text)
    while ws and t is not None and (ws[0] in t.terminators | {"then"} or ws[0].isdigit()):   # a step no.
        ws = ws[1:]
    return t is not None and any(tuple(ws[:len(p)]) == p for p in t.asides)


def _subject(concepts: Concepts, judged: list[Judged], text: str) -> set[int]:
    """The clauses an item is about: the first naming something, and the bare names listed
    right after it ('bigger batch, int8: not bandwidth-bound yet' is about both)."""
    if not judged:
        return set()
    subject, last = {judged[0].clause}, judged[0]
    for j in judged[1:]:
        if j.clause in subject:
            continue
        names = {w for k in judged if k.clause == j.clause
                 for key, cs in concepts.phrases[k.match.kind].items()
                 if set(k.match.concepts) <= cs for w in key}   # alias words: "and quantizing the weights"
        ws = concepts.words(j.clause_text)   # (after an aside naming nothing: "batching (it can't fill
        if concepts.context and set(ws[:1]) & concepts.context.adds_subject:   # "...; also the idea
            subject, last = subject | {j.clause}, j                             # to bump batch to 512"
            continue
        if (j.clause != max(subject) + 1 and not coordinated(ws, [list(names)])   # gaps ...) and int8
                and not after_aside(text, last.match.phrase, j.match.phrase)) \
                or set(ws) - names - LIST_WORDS:   # weights (...)", sealed151 e.s1534)
            break
        subject, last = subject | {j.clause}, j
    return subject
