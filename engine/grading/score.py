"""Score an answer against a key with a rubric: points per part, named penalties, and feedback
that quotes the key's own justification with its numbers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

from regime.engine.grading import reasons
from regime.engine.grading.answer import Answer
from regime.engine.grading.concepts import Concepts
from regime.engine.grading.figures import as_taught, matches, quantities
from regime.engine.grading.key import Figure, Item, Key
from regime.engine.grading.penalties import Applied, borrowed_penalty, charge, extras, refused_with
from regime.engine.grading.penalties import asked as _asked
from regime.engine.grading.penalties import words as _name
from regime.engine.grading.reading import Read, read_against
from regime.engine.grading.rubric import PARTS, Rubric
from regime.engine.grading.stated import stated
from regime.engine.grading.wrong_way import credited, misread_clause, misread_line


@dataclass
class Part:
    part: str
    points: float
    max_points: float
    feedback: list[str] = field(default_factory=list)
    weight: float = 0.0        # as the rubric writes it; max_points is it rescaled to the total


@dataclass
class Scored:
    parts: list[Part]
    penalties: list[Applied]
    score: float
    max_score: float
    wrong_levers: list[str]   # levers the answer recommends that the key rejects
    reasons: dict[str, str] = field(default_factory=dict)   # key item -> its reason's reading
    unsure: list[tuple[int, str]] = field(default_factory=list)   # deferrals read as rejections


@dataclass
class _Partial:
    share: float | None                      # None: nothing to grade in this key
    feedback: list[str] = field(default_factory=list)
    weight: float = 1.0                      # of the rubric's weight, for what this key asks


def score(answer: Answer, key: Key, rubric: Rubric, concepts: Concepts | None = None,
          foreign: bool = False, borrowed: tuple[list[str], str] = ([], "")) -> Scored:
    """Points per part and named penalties. A wrong side (a trap recommended, a key fix
    rejected) earns its item nothing and costs its penalty besides, as the blind grades charge it.
    `borrowed`: the figures the answer took from another case of the exercise, and that case."""
    t = concepts.context if concepts is not None else None
    read = read_against(answer, key, t.menu_share if t else 1.0, concepts)
    took = borrowed_penalty(borrowed, rubric)
    if concepts is not None and concepts.reasons is not None:
        reasons.take_argued_refusals(answer, key, concepts, read, rubric.evidence.relative_tolerance)
        read.reasons = reasons.states(answer, key, concepts, rubric.evidence.relative_tolerance,
                                      not foreign and not took and answer.regime in (None, key.regime))
    wrong = _wrong_sides(answer, key, read)
    penalties, charged = charge(wrong, key, rubric, concepts, refused_with(answer, concepts), read.fixes)
    penalties = penalties + took or extras(answer, key, read.fixes, rubric, concepts)
    partials = {
        "regime": _regime(answer, key, rubric),
        "evidence": _evidence(answer, key, rubric, concepts),
        "fixes": _fixes(read, key, rubric, charged, concepts),
        "order": _order(read, key, rubric),
        "rejections": _rejections(read, key, rubric, charged),
        "proposals": _proposals(answer, read, key),
        "asks": _asks(answer, key),
    }
    for part, text in answer.unread:
        partials[part if part in partials else "fixes"].feedback.append(text)
    for part, lines in read.lines.items():
        partials[part].feedback.extend(lines)
    weight = {p: rubric.weight(p) * partials[p].weight for p in PARTS}
    live = [p for p in PARTS if partials[p].share is not None and weight[p] > 0]
    scale = rubric.total / sum(weight[p] for p in live) if live else 0.0
    parts = []
    exact = 0.0   # the total from unrounded part points: rounding is for display only
    for p in PARTS:
        got = partials[p]
        top = weight[p] * scale if p in live else 0.0
        exact += top * (got.share or 0.0)
        shown = [as_taught(line, rubric.significant) for line in got.feedback]
        parts.append(Part(p, _r(top * (got.share or 0.0)), _r(top), shown, rubric.weight(p)))
    earned = exact - sum(x.points for x in penalties)
    levers = sorted({c for on, c in wrong if on == "recommends"})
    return Scored(parts, penalties, _r(max(0.0, earned)), _r(rubric.total), levers, read.reasons, read.unsure)


def _r(x: float) -> float:
    """Points as a person writes them: whole or one decimal."""
    return round(x + 0.0, 1)


def _regime_name(value: str | None) -> str:
    return value.replace("_", "-") if value else ""


def _wrong_sides(a: Answer, key: Key, read: Read) -> list[tuple[str, str]]:
    fixes, rejects = {i.id for i in key.fixes}, {i.id for i in key.rejects}
    wrong = [("recommends", c) for c in read.fixes if c in rejects]
    wrong += [("rejects", c) for c in read.rejects if c in fixes]
    wrong += [("endorses", c) for c in a.endorsed if c in rejects]
    return wrong + [("leans", c) for c in read.leans]


# ---- parts -----------------------------------------------------------------------------------------

def _qualified_away(a: Answer, key: Key) -> bool:
    """The key's regime named as what the step is in principle (where that is also the key's
    nominal one) and another given as what it is in practice: "compute-bound on paper, but in
    practice this step is memory-bound" (sealed441 b.s4435)."""
    return key.nominal_regime == key.regime and a.nominal_regime == key.regime \
        and a.regime not in (None, key.regime)


def _regime(a: Answer, key: Key, rubric: Rubric) -> _Partial:
    if key.regime is None:
        return _Partial(None)
    ns = rubric.regime.nominal_share if key.nominal_regime else 0.0
    share = 0.0
    out = _Partial(0.0)
    if a.regime == key.regime:
        share += (1 - ns) * rubric.regime.verdict(a.regime_hedged, a.regime_opined)
    elif a.regime is None:   # "not bandwidth-bound; something else limits it": the nominal one ruled out
        denied = key.nominal_regime not in (None, key.regime) and key.nominal_regime in a.regimes_denied
        share += (1 - ns) * rubric.regime.denied_nominal if denied else 0.0
        said = f"you rule out {_regime_name(key.nominal_regime)} but name none" if denied else \
            "I could not find which regime you name"
        out.feedback.append(f"Regime: {said}; the key says {_regime_name(key.regime)}: {key.regime_because}")
    else:
        share += (1 - ns) * rubric.regime.qualified if _qualified_away(a, key) else 0.0
        out.feedback.append(f"Regime: you say {_regime_name(a.regime)}; the key says "
                            f"{_regime_name(key.regime)}: {key.regime_because}")
    if key.nominal_regime:
        nominal = a.nominal_regime or (a.regime if a.regime == key.regime else None)
        if nominal == key.nominal_regime:
            share += ns
        else:
            said = (f"you say {_regime_name(nominal)}" if nominal else
                    f"you name only {_regime_name(a.regime)}, as the verdict" if a.regime else
                    "I could not find one in your answer")
            out.feedback.append(f"Nominal regime (what the batch size alone predicts): {said}; the key says "
                                f"{_regime_name(key.nominal_regime)}: {key.nominal_because}")
    out.share = share
    return out


def _evidence(a: Answer, key: Key, rubric: Rubric, concepts: Concepts | None) -> _Partial:
    """Decisive figures (what the key's conclusions turn on, each with the figures that carry the same
    argument) earn the part; supporting ones add up to their share. A number counts only near its concept
    (same sentence, bullet or label) unless its unit alone says what it is, within the digits' rounding"""
    ev = rubric.evidence
    decisive = [[key.figures[n] for n in names] for names in key.decided(ev.decided_by, ev.thresholds)]
    asked = {f.name for item in decisive for f in item}
    supporting = [f for f in key.figures.values() if f.name not in asked and f.source in ev.sources]
    if not decisive and not supporting:
        return _Partial(None)
    say = concepts.say if concepts else _name
    lines = [_decisive_line(a, item, ev.relative_tolerance, concepts, say, key) for item in decisive]
    out = _Partial(0.0, [x for x in lines if x])
    missing_s = [f for f in supporting if stated(a, f, ev.relative_tolerance, concepts, key) is not True]
    qualified = _qualified_away(a, key)   # figures for the verdict it gives "in principle"
    misread = misread_clause(a.text, key, ev.read_wrong_way, concepts)
    got_d = credited(key, decisive, lines, ev.read_wrong_way, None if qualified else a.regime,
                     misread is not None)
    if misread is not None and a.regime in (None, key.regime):
        out.feedback.append(misread_line(misread, ev.read_wrong_way))
    got_s = len(supporting) - len(missing_s)
    need_s = min(ev.supporting.enough, len(supporting))
    d_share = got_d / len(decisive) if decisive else 1.0
    s_share = min(1.0, got_s / need_s) if need_s else 1.0
    w = ev.supporting.share if decisive and need_s else (0.0 if decisive else 1.0)
    out.share = (1 - w) * d_share + w * s_share
    if a.regime is None and a.nominal_regime is None and key.regime is not None:
        out.share *= ev.without_regime   # figures that support no verdict decide nothing
        if ev.without_regime < 1:
            out.feedback.append("Figures support a verdict: with no regime named, they earn "
                                f"{ev.without_regime:.0%} of this part")
    elif a.regime is not None and key.regime is not None and a.regime != key.regime and not qualified:
        out.share *= ev.wrong_regime   # right figures read the wrong way
        if ev.wrong_regime < 1:
            out.feedback.append(f"Figures read to another regime earn {ev.wrong_regime:.0%} of this part")
    elif a.regime_hedged and ev.hedged_regime < 1:
        out.share *= ev.hedged_regime   # figures for a verdict not committed to argue it halfway
        out.feedback.append(f"Figures for a regime you only hedge earn {ev.hedged_regime:.0%} of this part")
    if s_share < 1 and missing_s:
        shown = ", ".join(f"{say(f.name)} ({f.text})" for f in missing_s[:3])
        out.feedback.append(f"Supporting figures would strengthen it, e.g. {shown}")
    return out


def _decisive_line(a: Answer, item: list[Figure], tol: float, concepts: Concepts | None,
                   say: Callable[[str], str], key: Key) -> str | None:
    """None when the answer states one of an item's figures; else the value it gives wrong for
    the item's own figure (the first), or the figure it misses (and the others that would do)."""
    said = [stated(a, f, tol, concepts, key) for f in item]
    wrong = next(((f, x) for f, x in zip(item, said, strict=True) if isinstance(x, str)
                  and not _one_of(x, item, tol)), None)
    if True in said and wrong is not None:   # the tokens per pass right, the crossover they are
        #   weighed against written wrong (sealed312 b.s3146): the item's argument is wrong
        return f"{say(wrong[0].name).capitalize()}: you give {wrong[1]}; the key has {wrong[0].text}"
    if True in said:
        return None
    if said[0]:
        return f"{say(item[0].name).capitalize()}: you give {said[0]}; the key has {item[0].text}"
    also = "; or ".join(list(dict.fromkeys(f"{say(f.name)}, {f.text}" for f in item[1:]
                                           if f.text != item[0].text))[:2])
    return f"Missing figure: {say(item[0].name)}, {item[0].text}" + (f" (or {also})" if also else "")


def _one_of(said: str, item: list[Figure], tol: float) -> bool:
    """A value given for one of the item's figures: the weight-read ceiling is not the ceiling
    with the KV cache read written wrong."""
    return any(matches(q, v, f.unit, tol) for q in quantities(said.split(" (line")[0])
               for f in item for v in f.readings())


def _fixes(read: Read, key: Key, rubric: Rubric, charged: set[tuple[str, str]],
           concepts: Concepts | None) -> _Partial:
    if not key.fixes:
        return _Partial(None)
    steps = key.steps()
    out = _Partial(0.0, weight=_fix_weight(steps, rubric))
    if out.weight < 1:
        asked = f"{len(steps)} step{'s' if len(steps) > 1 else ''}"
        out.feedback.append(f"This case asks {asked} of fixes (a full part asks {rubric.fixes.full_at}): "
                            f"this part and the order part weigh {out.weight:.0%} of their rubric weight")
    rejected = {i.id: i for i in key.rejects}
    want = list(key.fixes)  # a fix the answer rejects earns nothing here, and a penalty besides
    for c in read.fixes:
        if c in rejected and ("recommends", c) not in charged:
            out.feedback.append(f"You recommend {_name(c)}; the key rejects it: {rejected[c].because}")
    for c in read.rejects:
        item = next((i for i in want if i.id == c), None)
        if item is not None and ("rejects", c) not in charged:  # else its penalty says it
            out.feedback.append(f"You reject {_name(c)}; the key recommends it: {item.because}")
    hits = [i for i in want if i.id in read.fixes]
    enough = min(rubric.fixes.enough, len(steps)) if rubric.fixes.enough else len(steps)
    weight = [1.0 / r ** rubric.fixes.rank_power for r in range(1, len(steps) + 1)]   # the first matters most

    def given(i: Item) -> float:
        hedge = rubric.fixes.hedge(read.reasons.get(i.id) == reasons.RIGHT) if i.id in read.hedged else 1.0
        return hedge * reasons.credit(read.reasons, i.id, rubric.reasons) if i.id in read.fixes else 0.0

    alt = rubric.fixes.alternatives
    credit = sorted((w * _step(sorted(map(given, step), reverse=True), rubric.fixes.enough, alt)
                     for w, step in zip(weight, steps, strict=True)), reverse=True)
    top = sorted(weight, reverse=True)[:enough]
    out.share = min(1.0, sum(credit[:enough]) / sum(top)) if enough else 0.0
    out.feedback += reasons.feedback(read.reasons, hits, "fix", rubric.reasons)
    out.feedback += [f"Hedged: {_name(i.id)} is a fix the key commits to; you only say it might help: "
                     f"{i.because}" for i in hits if i.id in read.hedged and rubric.fixes.hedged < 1]
    for n, step in enumerate(steps, 1):   # a menu step: the others given earn the rest of it
        given_ = [i for i in step if i.id in read.fixes]
        if given_ and len(given_) < min(rubric.fixes.enough or len(step), len(step)) and alt > 0:
            rest = ", ".join(_name(i.id) for i in step if i not in given_)
            out.feedback.append(f"Fix #{n} is a menu: its other items earn the last {alt:.0%} of it: {rest}")
    if len(hits) < enough:
        for n, step in enumerate(steps, 1):
            if not any(i.id in read.fixes or i.id in read.rejects for i in step):
                names = " or ".join(_name(i.id) for i in step)
                out.feedback.append(f"Missing fix #{n}: {'one of ' if len(step) > 1 else ''}{names}: "
                                    f"{step[0].because}" + _bound(step[0].bound, concepts))
    return out


def _fix_weight(steps: list[list[Item]], rubric: Rubric) -> float:
    """The share of their rubric weight the fixes and order parts carry: a key asking fewer
    steps than `fixes.full_at` (D's one menu step) asks less of them."""
    full = rubric.fixes.full_at
    return min(1.0, len(steps) / full) if full else 1.0


def _step(credits: list[float], enough: int | None, others: float) -> float:
    """A step's credit from its items' (best first): one item, or a menu's best one earning
    1 - `others` and the rest, up to `enough` of them in all, the remainder."""
    if len(credits) == 1:
        return credits[0]
    rest = sum(credits[1:]) / max(1, min(enough or len(credits), len(credits)) - 1)
    return (1 - others) * credits[0] + others * min(1.0, rest)


def _bound(bound: str, concepts: Concepts | None) -> str:
    """A fix's bound in words: 'the FLOP rate after ...: 78%', never the fact's name."""
    if not bound:
        return ""
    say = concepts.say if concepts else _name
    parts = []
    for piece in bound.split(", "):
        name, _, text = piece.partition(" = ")
        parts.append(f"{say(name)} {text}" if text else piece)
    return f" (bound: {'; '.join(parts)})"


def _order(read: Read, key: Key, rubric: Rubric) -> _Partial:
    """Pairwise (Kendall-style) agreement with the key's priority order over the fixes given;
    the items of one menu step are in no order among themselves, so any order of them agrees."""
    if len(key.fixes) < 2:
        return _Partial(None)
    steps = key.steps()
    rank = {i.id: n for n, step in enumerate(steps, 1) for i in step}
    given = [c for c in read.fixes if c in rank and c not in read.hedged]   # a hedge orders nothing
    pairs = list(combinations(given, 2))
    if not pairs and len(given) == 1 and rubric.order.first_alone:   # one key fix alone, any rank
        th, nx = ("first", "next") if rank[given[0]] == 1 else (f"#{rank[given[0]]}", "others")
        said = f"Order: one of the key's fixes, its {th} ({_name(given[0])}); give the {nx} for the rest"
        return _Partial(rubric.order.first_alone, [said], weight=_fix_weight(steps, rubric))
    if not pairs:
        return _Partial(0.0, ["Order: give at least two of the key's fixes, in priority order"],
                        weight=_fix_weight(steps, rubric))
    agree = [(x, y) for x, y in pairs if rank[x] <= rank[y]]
    argued = max(reasons.credit(read.reasons, c, rubric.reasons) for c in given)   # one argued step
    share = len(agree) / len(pairs) * (1 - rubric.order.argued * (1 - argued))   # a bare ranked list
    out = _Partial(share, weight=_fix_weight(steps, rubric))
    for x, y in pairs:
        if rank[x] > rank[y]:
            out.feedback.append(f"Order: the key puts {_name(y)} (#{rank[y]}) before {_name(x)} (#{rank[x]})")
    return out


def _rejections(read: Read, key: Key, rubric: Rubric, charged: set[tuple[str, str]]) -> _Partial:
    """The rejections the worked solution asks for earn the part (`penalties.asked`); the engine's other
    rejections are optional credit: they make up for a missing one and never cost a point. A
    trap the answer falls into earns nothing here, and its penalty besides: the blind grades take
    the rejection's credit and 5-15 points more."""
    asked = [i for i in key.rejects if _asked(i, key, rubric)]
    if not asked:
        return _Partial(None)
    out = _Partial(0.0)
    fell = {c for on, c in charged if on in ("recommends", "endorses")}  # its penalty says why
    for item in asked:
        if item.id not in read.rejects and item.id not in fell:
            out.feedback.append(f"Not rejected: {_name(item.id)}: {item.because}")
    got = [i for i in key.rejects if i.id in read.rejects and i.id not in fell]
    credit = sum(reasons.credit(read.reasons, i.id, rubric.reasons) for i in got)
    out.share = min(1.0, credit / len(asked))
    out.feedback += reasons.feedback(read.reasons, got, "rejection", rubric.reasons)
    return out


def _proposals(a: Answer, read: Read, key: Key) -> _Partial:
    """Verdicts on the case's proposals that the fixes and rejections parts do not already grade."""
    graded = {i.id for i in [*key.fixes, *key.rejects]}
    owed = {p: v for p, v in key.verdicts.items() if v != "none" and p not in graded}
    if not owed:
        return _Partial(None)
    out = _Partial(0.0)
    right = 0
    for p, verdict in owed.items():
        given = a.verdicts.get(p) or ("fix" if p in read.fixes else "reject" if p in read.rejects else None)
        if given == verdict:
            right += 1
        else:
            yours = f"; you say {given}" if given else "; I found no verdict on it in your answer"
            out.feedback.append(f"Verdict on {_name(p)}: the key says {verdict}{yours}")
    out.share = right / len(owed)
    return out


def _asks(a: Answer, key: Key) -> _Partial:
    """Optional credit: the worked solution asks for a measurement in some cases only, so an
    answer that asks for none of the key's is not charged (the part drops out of the weights)."""
    if not key.asks or not any(i.id in a.asks for i in key.asks):
        return _Partial(None)
    out = _Partial(0.0)
    for item in key.asks:
        if item.id not in a.asks:
            out.feedback.append(f"Measure next: {item.because}")
    out.share = sum(1 for i in key.asks if i.id in a.asks) / len(key.asks)
    return out
