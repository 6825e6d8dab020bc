"""Confidence of each reading and the review queue: a submission whose reading the grader is
unsure of (a hedge, a list, an item tied to no lever) is marked "needs review", with the
sentences that could not be read, so an instructor checks those few instead of every answer.
The confidences are data (rules/grading/context.yaml, `confidence:` and `review_below`)."""

from __future__ import annotations

from dataclasses import dataclass

from regime.engine.grading.answer import Answer
from regime.engine.grading.context import Triggers


@dataclass(frozen=True)
class Reading:
    line: int
    status: str
    confidence: float
    sentence: str


def readings(a: Answer, t: Triggers) -> list[Reading]:
    """Every status-bearing reading of the answer, and every item it could not tie to a lever."""
    out = [Reading(line, status, t.confidence.get(status, 1.0), sentence)
           for line, status, sentence in dict.fromkeys(a.statuses)]
    for _, text in a.unread:
        status = "guessed" if " as " in text and "I read" in text else "unread"
        out.append(Reading(0, status, t.confidence.get(status, 1.0), text))
    out += [Reading(0, "rejoined", t.confidence.get("rejoined", 1.0), n) for n in a.notes
            if "split it into YAML keys" in n]
    return out


def queue(rs: list[Reading], t: Triggers) -> list[str]:
    """The sentences a reader should check: readings below the review threshold."""
    return list(dict.fromkeys(_shown(r) for r in rs if r.confidence < t.review_below))


def _shown(r: Reading) -> str:
    where = f"line {r.line}: " if r.line else ""
    text = r.sentence if len(r.sentence) <= 160 else r.sentence[:157].rstrip() + "…"
    return f"{where}{r.status}: {text}"
