"""Named penalties: a wrong side an answer takes (a rejected lever recommended, a key fix
rejected, a rejected claim endorsed) charged once, by the first penalty whose rules cover it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from regime.engine.grading.answer import Answer
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.figures import as_taught
from regime.engine.grading.key import Item, Key
from regime.engine.grading.rubric import Rubric, fill


@dataclass
class Applied:
    id: str
    points: float
    feedback: str


def words(concept: str) -> str:
    """A lever or claim id as feedback writes it."""
    return concept.replace("_", " ")


def charge(wrong: list[tuple[str, str]], key: Key, rubric: Rubric, concepts: Concepts | None,
           named_with: Mapping[str, set[str]] | None = None,
           fixes: list[str] | None = None) -> tuple[list[Applied], set[tuple[str, str]]]:
    """Each named penalty applies once, to the first wrong side it covers; a catch-all one
    (`rules: ["*"]`) to every wrong side no named penalty took, as the blind grades charge each
    trap an answer falls into (sealed13 c.s152 fell into two: 0 from both instructors). A side
    refused for a fix its penalty lists under `unless`, named in the same item (`named_with`:
    concept -> levers named where it is refused), is no trap ("I wouldn't bother hand-writing
    kernels for two weeks, torch.compile should cover it", sealed21 b.s240), or recommended as one
    of the answer's `fixes` (hand fusion refused below torch.compile in a fix list, sealed56
    b.s587) where the error it repeats (`same_as`) is not charged, is no trap either: it costs
    only its item. One error is charged once: a penalty
    listing under `same_as` one already charged (a claim endorsed, then the fix it dismisses
    refused) costs its `same_points` instead. A lever
    recommended after one of the key's fixes (`fixes`: the answer's, in order) is a second step
    beside the right plan: it costs the penalty's `secondary` points where it has them. Returns
    what was charged."""
    rules = {i.id: i.rule for i in key.fixes}
    items = {("recommends", i.id): i for i in key.rejects}
    items.update({("leans", i.id): i for i in key.rejects})
    items.update({("endorses", i.id): i for i in key.rejects})
    items.update({("rejects", i.id): i for i in key.fixes})
    shown = dict(key.facts)
    taken: set[tuple[str, str]] = set()
    out: list[Applied] = []
    for pen in rubric.penalties:
        for on, concept in dict.fromkeys(wrong):
            item = items.get((on, concept))
            if on != pen.when or item is None or (on, concept) in taken:
                continue
            again = set(pen.same_as) & {x.id for x in out}   # the same error, charged already
            argued = set((named_with or {}).get(concept, ()))   # the levers and regimes named with it
            by_regime = bool(set(pen.argued_by) & argued)   # refused for the regime: the trap itself
            beside = {*argued, *(() if again or by_regime else fixes or ())}
            if {rules.get(c) for c in beside} & set(pen.unless):
                continue   # its item says what it costs
            if pen.scope != "any" and asked(item, key, rubric) != (pen.scope == "asked"):
                continue
            if "*" in pen.rules or item.rule in pen.rules:
                taken.add((on, concept))
                text = fill(pen.feedback, {**shown, "because": item.because, "concept": words(concept)})
                if pen.argued_by and not again and not by_regime:
                    taken.discard((on, concept))   # "Hand-fusing for 2 weeks: not worth it" (sealed125
                    continue                       # b.s1277): refused for its cost, not the regime
                points = pen.same_points if again else pen.points
                if on == "recommends" and pen.secondary is not None and _after_a_key_fix(concept, key, fixes):
                    points = min(points, pen.secondary)
                out.append(Applied(pen.id, points, as_taught(text, rubric.significant)))
                if "*" not in pen.rules:
                    break
    return out, taken


def _after_a_key_fix(concept: str, key: Key, fixes: list[str] | None) -> bool:
    """True when one of the key's fixes comes before `concept` in the answer's fixes."""
    order = list(fixes or ())
    ids = {i.id for i in key.fixes}
    return concept in order and any(c in ids for c in order[:order.index(concept)])


def asked(item: Item, key: Key, rubric: Rubric) -> bool:
    """A rejection the worked solution asks for: of something the case proposes or claims, or
    of a tempting wrong answer (a rule a named penalty lists)."""
    named = (p.rules for p in rubric.penalties if "*" not in p.rules)
    return item.id in key.verdicts or any(item.rule in rules for rules in named)


def refused_with(a: Answer, concepts: Concepts | None) -> dict[str, set[str]]:
    """Each refused lever -> the other levers named in the items that refuse it."""
    out: dict[str, set[str]] = {}
    if concepts is None:
        return out
    for m in a.rejects:
        named = {c for kind in ("lever", "regime") for x in concepts.find(kind, m.reason) for c in x.concepts}
        for c in m.concepts:
            out.setdefault(c, set()).update(named - {c})
    return out


def borrowed_penalty(borrowed: tuple[list[str], str], rubric: Rubric) -> list[Applied]:
    """The penalty for building the answer on another case's figures: their argument is about
    that case, so they carry no reason for this one's levers either (sealed20 a.s228)."""
    figures, case = borrowed
    rule = rubric.borrowed
    if rule.points <= 0 or len(figures) < rule.min:
        return []
    text = fill(rule.feedback, {"figures": ", ".join(figures[:4]), "case": case})
    return [Applied("figures_from_another_case", rule.points, text)]


def extras(a: Answer, key: Key, fixes: list[str], rubric: Rubric, concepts: Concepts | None) -> list[Applied]:
    """Each fix the answer recommends that the key neither asks for nor rejects, named in an item
    of its own: the blind grades charge such an extra ("-4: unsupported recommendation: fp8 KV
    cache, not the problem", sealed12 c.s149). One named beside a key lever is that lever's how
    ("torch.compile to fuse the elementwise ops"), and one a key fix carries out (`done_by`:
    "fuse the elementwise ops" where the key compiles them) is that fix in other words. Called
    only for an answer charged nothing else: one that falls into a trap or argues from another
    case's figures is charged for that, not for each lever its wrong argument brings."""
    rule = rubric.unsupported
    known = {i.id for i in (*key.fixes, *key.rejects)} | set(key.verdicts)
    done_by = concepts.done_by if concepts is not None else {}
    known |= {c for c, by in done_by.items() if set(by) & {i.id for i in key.fixes}}
    if rule.points <= 0:
        return []
    beside = {m.line for kind in (a.fixes, a.rejects, a.hedged, a.deferred, a.discussed)
              for m in kind if set(m.concepts) & known}
    own = {c for m in a.fixes if m.kind == "lever" and m.line not in beside for c in m.concepts}
    return [Applied("unsupported_fix", rule.points, fill(rule.feedback, {"concept": words(c)}))
            for c in fixes if c not in known and c in own]
