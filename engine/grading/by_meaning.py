"""Items read by meaning: a Reject item or sentence whose words point to one claim, and an item
naming no lever by any alias, read as the lever its distinctive words point to (and said so), or
quoted back with the closest guess. Split from written.py, which reads what is named."""

from __future__ import annotations

import re

from regime.engine.grading.answer import Answer, Mention
from regime.engine.grading.concepts import Concepts, clauses
from regime.engine.grading.recommending import LABEL_WORDS
from regime.engine.grading.scopes import cued
from regime.engine.grading.sides import party, sides


def claim_by_meaning(a: Answer, concepts: Concepts, line: int, text: str, quoted: bool = True) -> bool:
    """Under Reject, an item (or, `quoted` False, a sentence of an item that names a lever
    elsewhere) whose words point clearly to one claim rejects it. A whole item read so is quoted
    back as a guess; a sentence among named ones is a surer reading, recorded as `meaning`
    (a claim the key has no verdict on costs nothing). Says whether it did."""
    claim = concepts.guess("claim", text) or _the_speakers(concepts, text)
    if claim is None or claim in a.endorsed or any(claim in m.concepts for m in a.rejects):
        return False
    shown = text if len(text) <= 60 else text[:57].rstrip() + "…"
    a.rejects.append(Mention((claim,), shown, line, "claim", text))
    if quoted:
        a.unread.append(("rejections", f"line {line}: I read '{shown}' as rejecting the claim "
                                       f"'{claim.replace('_', ' ')}', the one closest in meaning"))
    else:
        a.statuses.append((line, "meaning", text.strip()))
    return True


def lever_reason(concepts: Concepts, sentence: str) -> bool:
    """A Reject item's sentence after the one naming its lever, refuting no one and naming no
    speaker, is why the lever is refused, not a claim refused by meaning: "Two weeks of hand-fusing
    layer_norm and silu. Those kernels are memory-bound and we are not, so speeding them up would
    not change the step time." (sealed566 b.s5684, instructor 5) argues the claim it was read as
    rejecting; "The second engineer is wrong: ..." still answers the claim."""
    t = concepts.context
    return t is not None and not cued(concepts.words(sentence), t.refutes) and not party(concepts, sentence)


_HEAD = re.compile(r"^\s*([^;:]{1,60})[;:]\s*\S")   # a few words before a semicolon or colon


def _the_speakers(concepts: Concepts, text: str) -> str | None:
    """The claim a Reject item answers when its head, before a semicolon or colon, names only a
    speaker by rank ("The second engineer's view; ...", not "Note to manager: ..."): the
    knowledge's one claim, if it has just one (which claim a speaker holds is the case's prose,
    not its facts)."""
    said = _HEAD.match(text)
    t = concepts.context
    ordinals = set(t.speaker_numbers.values()) if t is not None else set()
    if (said is None or not party(concepts, said[1]) & ordinals or len(concepts.claim_ids) != 1
            or sides(concepts, said[1])   # not "The second engineer has a point: ..."
            or any(concepts.find(k, said[1]) for k in ("claim", "lever"))):
        return None
    return next(iter(concepts.claim_ids))


def about_a_claim(concepts: Concepts, sentences: list[str], text: str) -> bool:
    """A Reject item that opens with a few words naming nothing ('The second engineer.') and
    whose words point more to a claim than to any lever: it answers that claim, and the levers
    it names argue against it (a longer first sentence argues on its own: sealed b.s22). One
    sentence whose head before a semicolon or colon names only a speaker answers that speaker's
    claim, whatever levers its words lean to."""
    head = sentences[0]
    if len(sentences) < 2 and _the_speakers(concepts, head) is not None:
        return True   # "The second engineer's view; the 22% ... is real time" (sealed275 b.s2778)
    if len(sentences) < 2 or len(concepts.words(head)) > LABEL_WORDS + 1:
        return False
    return not any(concepts.find(k, head) for k in ("claim", "lever")) \
        and concepts.best("claim", text) > concepts.best("lever", text)


def unmatched(a: Answer, concepts: Concepts, section: str, line: int, text: str) -> None:
    """An item naming no lever by any alias: read by meaning when its distinctive words point
    clearly to one lever (and said so), else quoted back with the closest guess. A negated item
    under Fixes ("- Don't: accept 'compute-bound, so the memory-bound kernels can be ignored'")
    rejects as a Reject item does, a claim among what it may reject."""
    shown = text if len(text) <= 60 else text[:57].rstrip() + "…"
    part = "fixes" if section == "fixes" else "rejections"
    head = _verdict_head(text)
    rejecting = section == "reject" or concepts.negates(head)
    if rejecting and concepts.best("claim", text) > concepts.best("lever", text) \
            and claim_by_meaning(a, concepts, line, text):   # "The second engineer: memory-bound
        return                                                 # ops do take time, so they matter"
    meant = concepts.guess("lever", text)
    if meant is not None:
        mention = Mention((meant,), shown, line, reason=text)
        if rejecting:
            a.rejects.append(mention)
        else:
            a.fixes.append(mention)
        a.unread.append((part, f"line {line}: I read '{shown}' as {meant.replace('_', ' ')}, the lever "
                               "closest in meaning; name it to be sure"))
        return
    if rejecting and claim_by_meaning(a, concepts, line, text):
        return   # "memory-bound ops do NOT stop mattering ...": the claim, rejected
    guess = concepts.closest("lever", text)
    hint = f"; did you mean {guess}?" if guess else "; name it as the exercise does (its id or a usual name)"
    a.unread.append((part, f"line {line}: I could not tell which lever '{shown}' means{hint}"))


def _verdict_head(text: str) -> str:
    """The item's first clause, with its label's verdict: "X so one prompt can't hog it": X
    stands; 'batch 512: no' (a table's verdict cell) keeps its "no"."""
    parts = clauses(text)
    head = parts[0] if parts else text
    if len(parts) > 1 and text[text.find(head) + len(head):].lstrip().startswith(":"):
        head = f"{head}: {parts[1]}"
    return head
