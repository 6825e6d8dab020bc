"""Score an answer against a key with a rubric: points per part, named penalties, and feedback
that quotes the key's own justification with its numbers."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from regime.engine.grading.answer import Answer, Mention
from regime.engine.grading.figures import matches
from regime.engine.grading.key import Key
from regime.engine.grading.rubric import PARTS, Rubric, fill


@dataclass
class Part:
    part: str
    points: float
    max_points: float
    feedback: list[str] = field(default_factory=list)


@dataclass
class Applied:
    id: str
    points: float
    feedback: str


@dataclass
class Scored:
    parts: list[Part]
    penalties: list[Applied]
    score: float
    max_score: float
    wrong_levers: list[str]   # levers the answer recommends that the key rejects


@dataclass
class _Partial:
    share: float | None                      # None: nothing to grade in this key
    feedback: list[str] = field(default_factory=list)


def score(answer: Answer, key: Key, rubric: Rubric) -> Scored:
    wrong: list[tuple[str, str]] = []        # (on, concept) the penalties look at
    partials = {
        "regime": _regime(answer, key, rubric),
        "evidence": _evidence(answer, key, rubric),
        "fixes": _fixes(answer, key, wrong),
        "order": _order(answer, key),
        "rejections": _rejections(answer, key, wrong),
        "proposals": _proposals(answer, key, wrong),
        "asks": _asks(answer, key),
    }
    live = [p for p in PARTS if partials[p].share is not None and rubric.weight(p) > 0]
    scale = rubric.total / sum(rubric.weight(p) for p in live) if live else 0.0
    parts = []
    for p in PARTS:
        got = partials[p]
        top = rubric.weight(p) * scale if p in live else 0.0
        parts.append(Part(p, _r(top * (got.share or 0.0)), _r(top), got.feedback))
    penalties = _penalties(wrong, key, rubric)
    earned = sum(x.points for x in parts) - sum(x.points for x in penalties)
    levers = sorted({c for on, c in wrong if on == "recommends"})
    return Scored(parts, penalties, _r(max(0.0, earned)), _r(rubric.total), levers)


def _r(x: float) -> float:
    return round(x + 0.0, 2)


# ---- parts -----------------------------------------------------------------------------------------

def _regime(a: Answer, key: Key, rubric: Rubric) -> _Partial:
    if key.regime is None:
        return _Partial(None)
    ns = rubric.regime.nominal_share if key.nominal_regime else 0.0
    out = _Partial(0.0)
    if a.regime == key.regime:
        out.share += 1 - ns
    else:
        out.feedback.append(f"Regime: you say {a.regime or 'nothing'}; the key says {key.regime}: "
                            f"{key.regime_because}")
    if key.nominal_regime:
        nominal = a.nominal_regime or a.regime
        if nominal == key.nominal_regime:
            out.share += ns
        else:
            out.feedback.append(f"Nominal regime: you say {nominal or 'nothing'}; the key says "
                                f"{key.nominal_regime}: {key.nominal_because}")
    return out


def _evidence(a: Answer, key: Key, rubric: Rubric) -> _Partial:
    wanted = [f for f in key.figures.values() if f.source in rubric.evidence.sources]
    if not wanted:
        return _Partial(None)
    tol = rubric.evidence.relative_tolerance
    found = 0
    out = _Partial(0.0)
    for f in wanted:
        named = a.named.get(f.name)
        if named is not None and not matches(named[0], f.value, f.unit, tol):
            out.feedback.append(f"{f.name}: you give {named[0].written} (line {named[1]}); the key has "
                                f"{f.text} = {f.formula}")
            continue
        if named is not None or any(matches(q, f.value, f.unit, tol) for q in a.numbers):
            found += 1
        else:
            how = f" = {f.formula}" if f.formula else ""
            out.feedback.append(f"Missing figure: {f.name} = {f.text}{how}")
    out.share = found / len(wanted)
    return out


def _single(m: Mention, out: _Partial, where: str) -> str | None:
    if len(m.concepts) == 1:
        return m.concepts[0]
    out.feedback.append(f"'{m.written}' under {where} (line {m.line}) could mean {' or '.join(m.concepts)}; "
                        "not credited: name one")
    return None


def _given_fixes(a: Answer, out: _Partial | None = None) -> list[str]:
    seen: list[str] = []
    for m in a.fixes:
        c = _single(m, out, "fixes") if out is not None else (m.concepts[0] if len(m.concepts) == 1 else None)
        if c is not None and c not in seen:
            seen.append(c)
    return seen


def _fixes(a: Answer, key: Key, wrong: list[tuple[str, str]]) -> _Partial:
    if not key.fixes:
        return _Partial(None)
    out = _Partial(0.0)
    given = _given_fixes(a, out)
    want = {i.id for i in key.fixes}
    rejected = {i.id: i for i in key.rejects}
    for c in given:
        if c in rejected:
            wrong.append(("recommends", c))
            out.feedback.append(f"You recommend {c}; the key rejects it: {rejected[c].because}")
    for item in key.fixes:
        if item.id not in given:
            bound = f" (bound: {item.bound})" if item.bound else ""
            out.feedback.append(f"Missing fix #{item.rank}: {item.id}: {item.because}{bound}")
    out.share = len(want & set(given)) / len(want)
    return out


def _order(a: Answer, key: Key) -> _Partial:
    """Pairwise (Kendall-style) agreement with the key's priority order over the fixes given."""
    if len(key.fixes) < 2:
        return _Partial(None)
    rank = {i.id: i.rank for i in key.fixes}
    given = [c for c in _given_fixes(a) if c in rank]
    pairs = list(combinations(given, 2))
    if not pairs:
        return _Partial(0.0, ["Order: give at least two of the key's fixes, in priority order"])
    agree = [(x, y) for x, y in pairs if rank[x] < rank[y]]
    out = _Partial(len(agree) / len(pairs))
    for x, y in pairs:
        if rank[x] > rank[y]:
            out.feedback.append(f"Order: the key puts {y} (#{rank[y]}) before {x} (#{rank[x]})")
    return out


def _rejections(a: Answer, key: Key, wrong: list[tuple[str, str]]) -> _Partial:
    if not key.rejects:
        return _Partial(None)
    out = _Partial(0.0)
    fixes = {i.id: i for i in key.fixes}
    named: list[str] = []
    for m in a.rejects:
        c = _single(m, out, "reject")
        if c is None or c in named:
            continue
        named.append(c)
        if c in fixes:
            wrong.append(("rejects", c))
            out.feedback.append(f"You reject {c}; the key recommends it: {fixes[c].because}")
    for c in a.endorsed:
        wrong.append(("endorses", c))
    for item in key.rejects:
        if item.id not in named:
            out.feedback.append(f"Not rejected: {item.id}: {item.because}")
    out.share = sum(1 for i in key.rejects if i.id in named) / len(key.rejects)
    return out


def _proposals(a: Answer, key: Key, wrong: list[tuple[str, str]]) -> _Partial:
    owed = {p: v for p, v in key.verdicts.items() if v != "none"}
    if not owed:
        return _Partial(None)
    out = _Partial(0.0)
    fixes = set(_given_fixes(a))
    rejects = {m.concepts[0] for m in a.rejects if len(m.concepts) == 1}
    right = 0
    for p, verdict in owed.items():
        given = a.verdicts.get(p) or ("fix" if p in fixes else "reject" if p in rejects else None)
        if given == verdict:
            right += 1
            continue
        if given == "fix" and verdict == "reject" and p not in fixes:
            wrong.append(("endorses" if p in key.claims else "recommends", p))
        item = key.item(p)
        out.feedback.append(f"Verdict on {p}: you say {given or 'nothing'}; the key says {verdict}"
                            + (f": {item.because}" if item else ""))
    out.share = right / len(owed)
    return out


def _asks(a: Answer, key: Key) -> _Partial:
    if not key.asks:
        return _Partial(None)
    out = _Partial(0.0)
    for item in key.asks:
        if item.id not in a.asks:
            out.feedback.append(f"Measure next: {item.id}: {item.because}")
    out.share = sum(1 for i in key.asks if i.id in a.asks) / len(key.asks)
    return out


# ---- penalties -------------------------------------------------------------------------------------

def _penalties(wrong: list[tuple[str, str]], key: Key, rubric: Rubric) -> list[Applied]:
    """Each named penalty applies once, to the first wrong side it covers; a wrong side that a
    specific penalty took is not charged again by a catch-all one."""
    items = {("recommends", i.id): i for i in key.rejects}
    items.update({("endorses", i.id): i for i in key.rejects})
    items.update({("rejects", i.id): i for i in key.fixes})
    taken: set[tuple[str, str]] = set()
    out = []
    for pen in rubric.penalties:
        for on, concept in dict.fromkeys(wrong):
            item = items.get((on, concept))
            if on != pen.when or item is None or (on, concept) in taken:
                continue
            if "*" in pen.rules or item.rule in pen.rules:
                taken.add((on, concept))
                text = fill(pen.feedback, {**key.facts, "because": item.because, "concept": concept})
                out.append(Applied(pen.id, pen.points, text))
                break
    return out
