"""Which template section a label or heading names, read as students write labels: misspelled
('rejct', 'evidnce'), qualified after the section's name ('Reject for now', 'Fixes in order'),
or run in, bold, at the head of a paragraph ('**Reject.** Raising the batch ...'). A label is
never read as a lever: one whose qualifier names a lever ('Fix the batch') names no section."""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

from regime.engine.grading.concepts import Concepts

# '**Regime.** It is ...', '**Fixes, in order.**', '__Reject:__ int4 ...': a bold head, then the text
# (a stop inside or after the bold: '**Don't** push the batch' is emphasis, not a label)
RUN_IN = re.compile(r"^\s{0,3}(\*\*|__)(?P<head>[A-Za-z][\w /,'()]{0,30}?)\s*(?:[.:]\s*\1|\1\s*[.:—–])"
                    r"\s*(?P<rest>.*)$")
_QUALIFIER_WORDS = 3     # 'Reject for now', 'Fixes in priority order': a few words after the name
_CUTOFF = 0.8            # difflib ratio for reading a label's word as a heading's ('rejct', 'reject')
_SHORTEST = 3            # shorter words are never read as a misspelled heading word ('fxes': 'fxe')
# '3. Fixes', 'Step 3 - Fixes', 'Part 2: Evidence', 'Q4) Reject': a number before the section's name
# (a word and a space before it, or one letter: not 'int4 - reject', a verdict on a lever)
_NUMBERED = re.compile(r"^\s*(?:[A-Za-z]+\s+|[A-Za-z]?)\d{1,2}\s*[-—–:.)]?\s*(?=[A-Za-z])")
_GLUED = re.compile(r"^\s*(?P<name>[A-Za-z]{3,})\d{1,2}\s*$")   # 'fix1', 'fix2': a numbered label


def section(concepts: Concepts, head: str) -> str | None:
    """The template section `head` names, or None; one numbered before its name names it too."""
    named = _section(concepts, head)
    number = _NUMBERED.match(head) if named is None else None
    glued = _GLUED.match(head) if named is None and number is None else None
    return _section(concepts, head[number.end():]) if number else \
        _section(concepts, glued["name"]) if glued else named


def _section(concepts: Concepts, head: str) -> str | None:
    named = concepts.heading(head)
    if named is not None:
        return named
    ws = tuple(_spelled(concepts, w) for w in concepts.words(head))
    named = concepts.headings.get(ws)
    if named is not None or len(ws) < 2:
        return named
    k = next((k for k in range(len(ws) - 1, 0, -1) if ws[:k] in concepts.headings), 0)   # "do not (yet)":
    first, rest = concepts.headings.get(ws[:k]), " ".join(ws[k:])   # the heading "dont" and a qualifier
    if first is None or len(ws) - k > _QUALIFIER_WORDS or concepts.find("lever", rest) \
            or any(concepts.headings.get((w,)) not in (None, first) for w in ws[k:]):
        return None
    return first


@lru_cache(maxsize=4096)
def _spelled(concepts: Concepts, word: str) -> str:
    """The heading word a label's word misspells, else the word. Unlike the reader's own
    spelling, a cue word counts: 'rejct' over a list is the Reject heading, not a negation. A word
    the concepts file keeps is no typo: "Plain answer:" is not "Plan" (sealed288 d.s2910)."""
    if len(word) < _SHORTEST or any(c.isdigit() for c in word) or word in concepts.keep:
        return word
    pool = sorted({w for key in concepts.headings for w in key if w[:1] == word[:1]})
    if word in pool:
        return word
    close = difflib.get_close_matches(word, pool, n=1, cutoff=_CUTOFF)
    return close[0] if close else word


_STEP = re.compile(r"(?:^|(?<=\s))\(?(\d{1,2})[.)]\s+")   # "1. ", "1) ", "(1) "


def steps(item: str) -> list[str]:
    """An item that numbers its own steps inline ('1. graph capture 2. torch.compile 3. re-measure,
    then batching', sealed178 e.s1803) as one item per step, so that each step's words stay in
    it; the text before step 1 stays an item of its own. Any other item is itself."""
    for first in (1, 2):   # from 2 when the item's own list mark was its '1.' ('1. graphs 2. compile')
        marks, expected = [], first
        for m in _STEP.finditer(item):
            if int(m[1]) == expected:
                marks.append(m)
                expected += 1
        if len(marks) >= 2:
            break
    else:
        return [item]
    cuts = [m.start() for m in marks] + [len(item)]
    head = item[:cuts[0]].strip()
    return ([head] if head else []) + [item[m.end():cuts[i + 1]].strip() for i, m in enumerate(marks)]
