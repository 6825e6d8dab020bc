"""A lever named as a line of the profile ('5% to_copy', 'to_copy at 5%'), not a fix: what the
kernel breakdown shows, read apart from the prose around it (written.py)."""

from __future__ import annotations

import re

from regime.engine.grading.concepts import Concepts
from regime.engine.grading.judged import Judged


def profile_entry(concepts: Concepts, j: Judged) -> bool:
    """A clause that is a figure and the lever's name ('5% to_copy'), or the name with its share
    right after it ('to_copy at 5% add up to 22%', sealed64 b.s664), reads the profile."""
    ws = concepts.words(j.clause_text)
    rest = set(ws) - set(concepts.words(j.match.phrase))
    after = ws[j.match.start + len(concepts.words(j.match.phrase)):][:2]
    after = after[1:] if after[:1] == ["at"] else after
    at = j.sentence.find(j.clause_text)
    shared = at >= 0 and not after and _SHARE_AFTER.match(j.sentence[at + len(j.clause_text):]) is not None
    clause = j.clause_text.lower()
    target = _TARGET.search(clause, max(clause.find(j.match.phrase.lower()), 0)) is not None
    listed = _SHARES.match(j.clause_text) is not None
    return (bool(rest) and all(_figure(w) for w in rest)) or shared or listed \
        or (bool(after) and _figure(after[0]) and not target)


# "9% add/mul/silu and 5% to_copy" (sealed290 b.s2921, an Evidence paragraph read as prose): a run of
# shares, each before its kernel's name
_SHARES = re.compile(r"^\s*(?:[~≈]?\d+(?:\.\d+)?\s*%\s+[\w/.-]+(?:\s*(?:,|\+|\band\b|\bplus\b)\s*|\s*$))+$")
_TARGET = re.compile(r"\bto\s+[~≈]?\d")   # "raise the batch to 512" (sealed271 d.s2735): where it goes
# "... and to_copy (5%) add up to 22%" (sealed107 b.s1091): a share of the profile after a name;
# not "int8 weights (13 GB)"
_SHARE_AFTER = re.compile(r"\s*\(\s*[~≈]?\d+(?:\.\d+)?\s*%")


def _figure(w: str) -> bool:
    return w.replace(".", "").isdigit()
