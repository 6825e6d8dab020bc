"""A concept as an answer names it, with its assertion status: what context.py reads and the
answer readers consume, kept apart so the sentence-level readers (turns.py) can build them too."""

from __future__ import annotations

from dataclasses import dataclass

from regime.engine.grading.concepts import Match


@dataclass(frozen=True)
class Judged:
    """A concept named in an item, with its assertion status, the sentence it was read in and
    the number of its clause within the item (the first clause naming something is the subject)."""

    match: Match
    status: str
    sentence: str
    clause: int = 0
    clause_text: str = ""
    listed_as: str = ""    # a listed lever's own status: an affirmed list may be the key's menu


def as_status(j: Judged, status: str) -> Judged:
    """The same mention under another status (a later clause or sentence re-judged it)."""
    return Judged(j.match, status, j.sentence, j.clause, j.clause_text)
