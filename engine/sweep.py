"""Sensitivity: vary one fact over a range, re-diagnose at each value, find where the verdict flips.

Each point is a what-if on the same engine session (engine/whatif.py). The grid is geometric;
between two grid points with different verdicts the flip is found by bisection, to the unit
for counts written as integers. A point is one unit of work (`probe`), diagnosed here or, with
`--scheduler`, on a Dask cluster: the grid as one map, the bisections in rounds of probes.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from regime.core.errors import RegimeError
from regime.engine import whatif
from regime.engine.knowledge.model import Knowledge
from regime.engine.knowledge.spec_types import evaluate
from regime.engine.report import display
from regime.facts.case import Case

RANGE = re.compile(r"^\s*([a-z][a-z0-9_]*)\s*=\s*(\S+?)\s*\.\.\s*(\S+?)\s*$")
MAX_POINTS = 64
BISECT_STEPS = 60  # enough for any float range to narrow to 0.1%


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


def run(case: Case, vary: str, k: Knowledge, engine: str = "durable", scheduler: Any = None) -> Sweep:
    """Each point is a what-if; a what-if's refusal is said of --vary, the option given. With
    `scheduler` (an address or a Dask Client), the points are diagnosed on that cluster: the grid
    in one map, the bisections in rounds; the same Sweep as here."""
    try:
        name, lo, hi, integer = parse_range(vary)
        whatif.parse_sets([f"{name}={lo:g}"], k)  # the fact must be settable
        setup = Probe(case, name, k, engine)
        if scheduler is None:
            return _run(setup, lo, hi, integer, _Here(setup))
        from regime.engine.distributed import cluster
        with cluster.session(scheduler, setup) as there:
            return _run(setup, lo, hi, integer, _There(there, name))
    except RegimeError as err:
        if err.field and err.field.startswith("--set "):
            err.field = f"--vary {vary}"
        raise


@dataclass
class Probe:
    """What diagnosing one point needs besides its value: made once by the command, pickled once
    to each `--scheduler` worker (the case is content: its trace's facts already beneath)."""

    case: Case
    name: str
    k: Knowledge
    engine: str

    def warm(self) -> None:
        """Build the evaluator now, once per worker, not inside the first point."""
        from regime.engine import api
        api.runner(self.k, self.engine)


@dataclass
class Probed:
    point: Point
    dropped: list[str]  # the given facts the what-if dropped here (the sweep says the last one's)


def probe(setup: Probe, value: float) -> Probed | RegimeError:
    """The unit of work of `regime sweep`: the case diagnosed with the varied fact at `value`, a
    pure function of both. A refusal is returned, not raised: it stops the sweep where the
    serial run would stop."""
    try:
        return _point(setup, value)
    except RegimeError as err:
        return err


class Evaluate(Protocol):
    """Diagnoses points, yielded in the order asked; `width` of them at once."""

    width: int

    def __call__(self, values: list[float]) -> Iterable[Probed | RegimeError]: ...


class _Here:
    """Points diagnosed in this process, lazily (the sweep stops at the first refusal)."""

    width = 1

    def __init__(self, setup: Probe) -> None:
        self.setup = setup

    def __call__(self, values: list[float]) -> Iterator[Probed | RegimeError]:
        return (probe(self.setup, v) for v in values)


class _There:
    """Points diagnosed on a Dask cluster (engine/distributed/), one task each, in order."""

    def __init__(self, session: Any, name: str) -> None:
        self.session, self.name, self.width = session, name, session.threads()

    def __call__(self, values: list[float]) -> Iterator[Probed | RegimeError]:
        return self.session.map(probe, values, self.lost)

    def lost(self, value: float, why: str) -> RegimeError:
        return RegimeError(f"at {self.name}={value:g}: {why}", field=f"--set {self.name}")


def _run(setup: Probe, lo: float, hi: float, integer: bool, evaluate: Evaluate) -> Sweep:
    """The grid, then a bisection between each two neighbours whose verdicts differ. The
    bisections run side by side in rounds (one evaluate call each), each looking as many steps
    ahead as the evaluator's width allows (_Search); here, one step: the serial order."""
    k = setup.k
    ceiling = k.report.ceiling
    out = Sweep(setup.case.id, setup.name, ceiling_name=_words(ceiling.source, k) if ceiling else "",
                fact_name=_words(setup.name, k))
    grid = _grid(lo, hi, integer)
    probed: list[Probed] = []
    for got in evaluate(grid):
        if isinstance(got, RegimeError):
            raise got
        probed.append(got)
    searches = [_Search(a.point, b.point, integer) for a, b in itertools.pairwise(probed)
                if a.point.verdict() != b.point.verdict()]
    while open_ := [s for s in searches if s.open()]:
        depth = _depth(len(open_), evaluate.width)
        wanted = [s.wanted(depth) for s in open_]
        results = iter(list(evaluate([v for values in wanted for v in values])))
        for search, values in zip(open_, wanted, strict=True):
            search.advance({v: next(results) for v in values})
    for search in searches:  # the serial run stops at the first refusal, bisecting flip by flip
        if search.error is not None:
            raise search.error
        probed += search.path
    out.dropped = probed[-1].dropped  # the last point the serial run diagnosed
    out.flips = [Flip(s.lo, s.hi, _what(s.lo, s.hi)) for s in searches]
    out.points = sorted((p.point for p in probed), key=lambda p: p.value)
    out.measured = _measured(setup, out.points, evaluate)
    return out


def _measured(setup: Probe, points: list[Point], evaluate: Evaluate) -> Point | None:
    """The point at the case's own value of the varied fact (the chart marks it), where the
    case gives a number: one of the points already diagnosed, or one more."""
    given = setup.case.facts.get(setup.name)
    if given is None or not isinstance(given.value, int | float) or isinstance(given.value, bool):
        return None
    value = float(given.value)
    known = next((p for p in points if p.value == value), None)
    if known is not None:
        return known
    got = next(iter(evaluate([value])))
    if isinstance(got, RegimeError):
        raise got
    return got.point


def _words(fact: str, k: Knowledge) -> str:
    return display.say(fact, k) or display.label(fact)


def _grid(lo: float, hi: float, integer: bool) -> list[float]:
    steps = min(MAX_POINTS - 1, max(1, math.ceil(math.log2(hi / lo))))
    vals = [lo * (hi / lo) ** (i / steps) for i in range(steps + 1)]
    if integer:
        vals = [float(round(v)) for v in vals]
    return sorted(set(vals))


def _depth(searches: int, width: int) -> int:
    """Steps to look ahead: the most whose probes (2**depth - 1 per search) fit in one round."""
    depth = 1
    while searches * (2 ** (depth + 1) - 1) <= width:
        depth += 1
    return depth


class _Search:
    """One flip's bisection, between two neighbouring grid points whose verdicts differ. Its
    steps depend on each other, so a round probes every midpoint the next `depth` steps could
    ask for (both halves of each), and the step whose verdict is known walks on: the same
    path, and the same points, as one step at a time. The intervals of two searches are
    disjoint, so they share no value."""

    def __init__(self, lo: Point, hi: Point, integer: bool) -> None:
        self.lo, self.hi, self.integer = lo, hi, integer
        self.steps = 0
        self.path: list[Probed] = []  # the points this bisection diagnosed, in order
        self.error: RegimeError | None = None

    def open(self) -> bool:
        lo, hi = self.lo.value, self.hi.value
        return self.error is None and self.steps < BISECT_STEPS and not self._done(lo, hi)

    def _done(self, lo: float, hi: float) -> bool:
        return (hi - lo <= 1) if self.integer else hi / lo < 1.001

    def _mid(self, lo: float, hi: float) -> float:
        return float(math.floor((lo + hi) / 2) if self.integer else math.sqrt(lo * hi))

    def wanted(self, depth: int) -> list[float]:
        """The midpoints the next `depth` steps may need, whichever way each goes."""
        def tree(lo: float, hi: float, d: int) -> list[float]:
            if d == 0 or self._done(lo, hi):
                return []
            mid = self._mid(lo, hi)
            return [mid, *tree(lo, mid, d - 1), *tree(mid, hi, d - 1)]
        return tree(self.lo.value, self.hi.value, min(depth, BISECT_STEPS - self.steps))

    def advance(self, got: dict[float, Probed | RegimeError]) -> None:
        """Walk on while the next midpoint's verdict is known."""
        while self.open() and (found := got.get(self._mid(self.lo.value, self.hi.value))) is not None:
            self.steps += 1
            if isinstance(found, RegimeError):
                self.error = found
                return
            self.path.append(found)
            if found.point.verdict() == self.lo.verdict():
                self.lo = found.point
            else:
                self.hi = found.point


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


def _point(setup: Probe, v: float) -> Probed:
    case, name, k = setup.case, setup.name, setup.k
    w = whatif.run(case, [whatif.Change(name, f"{v:g}")], k, setup.engine)
    d = w.diagnosis
    facts = {**d.memory, **{n: r.value for n, r in d.facts.items()}}
    spec = k.report.ceiling
    ceiling = evaluate(spec, facts)
    text = display.value_text(spec.source, ceiling, k) if ceiling is not None and spec else "—"
    fixes = [c.lever or c.id for c in d.of_kind("fix")]
    rejections = [c.lever or c.claim or c.id for c in d.of_kind("reject")]
    point = Point(v, d.fact_value("regime"), d.fact_value("nominal_regime"), fixes, rejections, ceiling, text)
    return Probed(point, w.dropped)
