"""Sensitivity: vary one fact over a range, re-diagnose at each value, find where the verdict flips.

Each point is a what-if on the same engine session (engine/whatif.py). The grid is geometric;
between two grid points with different verdicts the flip is found by bisection, to the unit
for counts written as integers.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Any

from regime.core.errors import RegimeError
from regime.engine import whatif
from regime.engine.knowledge.model import Knowledge
from regime.engine.knowledge.spec_types import evaluate
from regime.engine.report import display
from regime.facts.case import Case

RANGE = re.compile(r"^\s*([a-z][a-z0-9_]*)\s*=\s*(\S+?)\s*\.\.\s*(\S+?)\s*$")
MAX_POINTS = 64


@dataclass
class Point:
    value: float
    regime: str | None
    nominal: str | None
    fixes: list[str]
    rejections: list[str]
    ceiling: float | None
    ceiling_text: str

    def verdict(self) -> tuple:
        return (self.regime, self.nominal, tuple(self.fixes), tuple(self.rejections))


@dataclass
class Flip:
    before: Point
    after: Point
    what: list[str]


@dataclass
class Sweep:
    case: str
    fact: str
    points: list[Point] = field(default_factory=list)
    flips: list[Flip] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    ceiling_name: str = ""
    fact_name: str = ""                # the varied fact in words
    measured: Point | None = None      # at the case's own value of the fact, where it gives one

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict
        return asdict(self)


def parse_range(text: str) -> tuple[str, float, float, bool]:
    """`batch=1..512` -> ('batch', 1, 512, integer)."""
    m = RANGE.match(text)
    if not m:
        raise RegimeError("expected NAME=LOW..HIGH, e.g. batch=1..512", field=f"--vary {text}")
    try:
        lo, hi = float(m[2]), float(m[3])
    except ValueError:
        raise RegimeError("LOW and HIGH are plain numbers in the fact's unit",
                          field=f"--vary {text}") from None
    if not (0 < lo < hi) or not math.isfinite(hi):
        raise RegimeError("need 0 < LOW < HIGH", field=f"--vary {text}")
    return m[1], lo, hi, m[2].isdigit() and m[3].isdigit()


def run(case: Case, vary: str, k: Knowledge, engine: str = "durable") -> Sweep:
    """Each point is a what-if; a what-if's refusal is said of --vary, the option given."""
    try:
        return _run(case, vary, k, engine)
    except RegimeError as err:
        if err.field and err.field.startswith("--set "):
            err.field = f"--vary {vary}"
        raise


def _run(case: Case, vary: str, k: Knowledge, engine: str) -> Sweep:
    name, lo, hi, integer = parse_range(vary)
    whatif.parse_sets([f"{name}={lo:g}"], k)  # the fact must be settable
    ceiling = k.report.ceiling
    out = Sweep(case.id, name, ceiling_name=_words(ceiling.source, k) if ceiling else "",
                fact_name=_words(name, k))
    cache: dict[float, Point] = {}

    def at(v: float) -> Point:
        if v not in cache:
            cache[v] = _point(case, name, v, k, out, engine)
        return cache[v]

    grid = _grid(lo, hi, integer)
    points = [at(v) for v in grid]
    for a, b in itertools.pairwise(points):
        if a.verdict() != b.verdict():
            out.flips.append(_bisect(a, b, at, integer))
    out.points = sorted(cache.values(), key=lambda p: p.value)
    given = case.facts.get(name)
    if given is not None and isinstance(given.value, int | float) and not isinstance(given.value, bool):
        out.measured = cache.get(given.value) or _point(case, name, float(given.value), k, out, engine)
    return out


def _words(fact: str, k: Knowledge) -> str:
    return display.say(fact, k) or display.label(fact)


def _grid(lo: float, hi: float, integer: bool) -> list[float]:
    steps = min(MAX_POINTS - 1, max(1, math.ceil(math.log2(hi / lo))))
    vals = [lo * (hi / lo) ** (i / steps) for i in range(steps + 1)]
    if integer:
        vals = [float(round(v)) for v in vals]
    return sorted(set(vals))


def _bisect(a: Point, b: Point, at, integer: bool) -> Flip:
    lo, hi = a, b
    for _ in range(60):
        if (integer and hi.value - lo.value <= 1) or (not integer and hi.value / lo.value < 1.001):
            break
        mid = math.floor((lo.value + hi.value) / 2) if integer else math.sqrt(lo.value * hi.value)
        p = at(float(mid))
        if p.verdict() == lo.verdict():
            lo = p
        else:
            hi = p
    return Flip(lo, hi, _what(lo, hi))


def _what(a: Point, b: Point) -> list[str]:
    out = []
    if a.regime != b.regime:
        out.append(f"regime {display.category(a.regime)} → {display.category(b.regime)}")
    if a.nominal != b.nominal:
        out.append(f"nominal {display.category(a.nominal)} → {display.category(b.nominal)}")
    out += [f"{x} stops being a fix" for x in a.fixes if x not in b.fixes]
    out += [f"{x} becomes a fix" for x in b.fixes if x not in a.fixes]
    out += [f"{x} is no longer rejected" for x in a.rejections if x not in b.rejections]
    out += [f"{x} is rejected" for x in b.rejections if x not in a.rejections]
    if not out and a.fixes != b.fixes:
        out.append(f"fix order {', '.join(a.fixes)} → {', '.join(b.fixes)}")
    return out


def _point(case: Case, name: str, v: float, k: Knowledge, out: Sweep, engine: str) -> Point:
    w = whatif.run(case, [whatif.Change(name, f"{v:g}")], k, engine)
    out.dropped = w.dropped
    d = w.diagnosis
    facts = {**d.memory, **{n: r.value for n, r in d.facts.items()}}
    spec = k.report.ceiling
    ceiling = evaluate(spec, facts)
    text = display.value_text(spec.source, ceiling, k) if ceiling is not None and spec else "—"
    fixes = [c.lever or c.id for c in d.of_kind("fix")]
    rejections = [c.lever or c.claim or c.id for c in d.of_kind("reject")]
    return Point(v, d.fact_value("regime"), d.fact_value("nominal_regime"), fixes, rejections, ceiling, text)
