"""Confidence of each reading and the review queue: a submission whose reading the grader is
unsure of (a hedge, a list, an item tied to no lever) is marked "needs review", with the
sentences that could not be read, so an instructor checks those few instead of every answer.
The confidences are data (rules/grading/context.yaml, `confidence:` and `review_below`)."""

from __future__ import annotations

from dataclasses import dataclass

from regime.engine.grading import risk
from regime.engine.grading.answer import Answer
from regime.engine.grading.score import Part
from regime.engine.grading.triggers import Triggers


@dataclass(frozen=True)
class Reading:
    line: int
    status: str
    confidence: float
    sentence: str


def readings(a: Answer, t: Triggers, reasons: dict[str, str] | None = None,
             unsure: list[tuple[int, str]] | None = None, foreign: bool = False,
             full: frozenset[str] = frozenset(), share: float | None = None) -> list[Reading]:
    """Every status-bearing reading of the answer, every item it could not tie to a lever, every
    reason read as not the key's (`reasons`: key item -> right | wrong | none), every deferral of
    a lever the key rejects that was read as its rejection (`unsure`: line, words), and, with
    `foreign`, figures that mostly match none of the case's. In an answer read as a keyword list
    an unreadable item is one more keyword: it is as sure as the list; in a part already at full
    marks (`full`) it cannot move the score (`unread_moot`). The answer as a whole: read as prose
    without the template's headings, or a written answer whose score (`share` of the maximum)
    falls in one of the `review_bands`, the answers where instructors' grades differ most."""
    out = [Reading(line, status, t.confidence.get(status, 1.0), sentence)
           for line, status, sentence in dict.fromkeys(a.statuses)]
    listed = any(status == "listed" for _, status, _ in a.statuses)
    for part, text in a.unread:
        status = "guessed" if " as " in text and "I read" in text else "unread"
        status = f"{status}_moot" if part in full else status
        sure = t.confidence.get(status, 1.0)
        out.append(Reading(0, status, max(sure, t.confidence.get("listed", sure)) if listed else sure, text))
    out += [Reading(0, "rejoined", t.confidence.get("rejoined", 1.0), n) for n in a.notes
            if "split it into YAML keys" in n]
    out += [Reading(0, "wrong_reason", t.confidence.get("wrong_reason", 1.0), c.replace("_", " "))
            for c, state in sorted((reasons or {}).items()) if state == "wrong"]
    out += [Reading(line, "deferred_reject", t.confidence.get("deferred_reject", 1.0),
                    f"'{said}' deferred, read as rejected") for line, said in unsure or []]
    if a.prose:
        out.append(Reading(0, "prose", t.confidence.get("prose", 1.0),
                           "written without the template's headings: read sentence by sentence"))
    banded = share is not None and any(low <= share < high for low, high in t.review_bands)
    if share is not None and a.format == "markdown" and banded:
        out.append(Reading(0, "partial", t.confidence.get("partial", 1.0),
                           f"a partial answer ({share:.0%} of the points): where grades differ most"))
    if foreign:
        out.append(Reading(0, "foreign_figures", t.confidence.get("foreign_figures", 1.0),
                           "few of the figures match this case's: numbers from another case or variant?"))
    return out


def decide(rs: list[Reading], t: Triggers, share: float, parts: list[Part], penalties: int,
           a: Answer, second: tuple[float, float | None] | None = None) -> list[str]:
    """The review queue's lines for this answer, empty when it is not reviewed. With a fitted
    `review_model` the model decides (the unsure readings are among its features, and are the
    lines shown); without one, any unsure reading does. `second`: what the second reading gives
    the answer (second_reading.py: its share and expected gap), decided by `review_model_second`
    where there is one."""
    lines = queue(rs, t)
    model = t.review_model_second if second is not None and t.review_model_second else t.review_model
    if model is None or any(r.confidence < t.review_always_below for r in rs):
        return lines   # what the grader could not read at all (a key the format lacks) is always shown
    shares = [(p.part, p.points, p.max_points) for p in parts if p.max_points]
    feats = risk.features(share, shares, [r.status for r in rs], bool(lines), penalties,
                          len(a.text.split()), a.format, second if model is t.review_model_second else None)
    if not risk.flagged(model, feats):
        return []
    if second is not None and model is t.review_model_second:
        lines.append(f"second reading: instructors gave answers worded like this one about {_pct(second[0])} "
                     f"of the points (graded {_pct(share)}): check it whole")
    return lines or ["uncertain: an answer read like those where instructors' grades differ most from the "
                     "grader's (the review model, context.yaml): check it whole"]


def _pct(share: float) -> str:
    return f"{min(max(share, 0.0), 1.0):.0%}"


def queue(rs: list[Reading], t: Triggers) -> list[str]:
    """The sentences a reader should check: readings below the review threshold."""
    return list(dict.fromkeys(_shown(r) for r in rs if r.confidence < t.review_below))


def _shown(r: Reading) -> str:
    where = f"line {r.line}: " if r.line else ""
    text = r.sentence if len(r.sentence) <= 160 else r.sentence[:157].rstrip() + "…"
    return f"{where}{r.status}: {text}"
