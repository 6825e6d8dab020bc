"""Warm diagnosis per case: the durable path (engine of record), the compiled path, and
durable-rules itself on the same ruleset, as ratios measured in the same run. Prints figures;
asserts nothing.

    python bench/engines.py [--rounds N] [--generated N]

Baselines, both replaying for each case the exact chain of events the durable path posts:
- raw durable: durable-rules' own Python API (Host.post, Closure.post) with no-op actions that
  only post the next event, handed over as prepared JSON text (no serialization is charged);
- C floor: Regime's driver of durable's C engine with the same no-op actions.
Engines run round-robin, each round timing every case once, in CPU time of this process (other
load on a shared machine is not counted); figures are medians over rounds and ratios are
medians of the per-round ratios. A second part times rule copies on the shipped cases: ×10
copies that never fire, ×5 that do.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import casegen  # noqa: E402

from regime.durable import engine as durable_engine  # noqa: E402
from regime.engine import api, lang  # noqa: E402
from regime.engine.knowledge.load import parse_context  # noqa: E402
from regime.engine.knowledge.model import Knowledge  # noqa: E402
from regime.engine.knowledge.paths import builtin_cases  # noqa: E402
from regime.engine.run import durable_bridge, session  # noqa: E402
from regime.engine.run.firing import Run  # noqa: E402
from regime.facts.case import Case, load_case  # noqa: E402


class _Prepared:
    """Stands in for `json` inside durable.engine: prepared text passes through unchanged."""

    loads = staticmethod(json.loads)

    @staticmethod
    def dumps(obj, **kw) -> str:
        return obj if isinstance(obj, str) else json.dumps(obj, **kw)


class _QuietHost(durable_engine.Host):
    def _run(self) -> None:  # no timer threads racing the measurement
        return None


def chain(runner: session.Runner, case: Case) -> tuple[str, list[str]]:
    """The events the durable path posts for `case`: the first, then one per firing."""
    d = runner.diagnose(case)
    run = Run(runner.program, case, sid="bench")
    memory = durable_bridge.Memory(run.wm)
    first = memory.text()
    return first, [memory.extended(run.fire(runner.program.by_id[f.rule])) for f in d.trace]


def raw_durable(runner: session.Runner, chains: list[tuple[str, list[str]]]) -> Callable[[], None]:
    durable_engine.json = _Prepared  # type: ignore[attr-defined]
    pending: list[str] = []

    def act(c) -> None:
        if pending:
            c.post(pending.pop())

    definition = session.definition(runner.program)
    for rule in definition.values():
        rule["run"] = act
    host = _QuietHost()
    name = f"raw_{id(runner)}"
    host.set_rulesets({name: definition})

    def once() -> None:
        for first, events in chains:
            pending[:] = events[::-1]
            host.post(name, first)
            host.delete_state(name, "bench")
    return once


def c_floor(runner: session.Runner, chains: list[tuple[str, list[str]]]) -> Callable[[], None]:
    def once() -> None:
        for first, events in chains:
            it = iter(events)
            runner.ruleset.run("bench", first, lambda rule_id, it=it: next(it, None))
    return once


def timed(label_fns: dict[str, Callable[[], None]], n_cases: int, rounds: int) -> dict[str, list[float]]:
    per_round: dict[str, list[float]] = {label: [] for label in label_fns}
    for fn in label_fns.values():
        fn()  # warm-up
    for _ in range(rounds):
        for label, fn in label_fns.items():
            t0 = time.process_time()
            fn()
            per_round[label].append((time.process_time() - t0) / n_cases * 1000)
    return per_round


def report_engines(k: Knowledge, cases: list[Case], rounds: int) -> None:
    durable, compiled = api.runner(k, "durable"), api.runner(k, "compiled")
    chains = [chain(durable, c) for c in cases]  # type: ignore[arg-type]
    firings = sum(len(e) for _, e in chains) / len(chains)
    ms = timed({"raw durable": raw_durable(durable, chains),  # type: ignore[arg-type]
                "C floor": c_floor(durable, chains),  # type: ignore[arg-type]
                "durable path": lambda: [durable.diagnose(c) for c in cases],
                "compiled path": lambda: [compiled.diagnose(c) for c in cases]}, len(cases), rounds)
    print(f"{len(cases)} cases, {firings:.1f} firings per case, {len(k.rules)} rules; "
          f"medians of {rounds} rounds (ms per case):")
    for label, values in ms.items():
        print(f"  {label:14s} {statistics.median(values):7.3f} ms/case")

    def ratio(a: str, b: str) -> float:
        return statistics.median(x / y for x, y in zip(ms[a], ms[b], strict=True))
    print(f"  durable path / raw durable = {ratio('durable path', 'raw durable'):.2f}  (target <= 1.2)")
    print(f"  durable path / C floor     = {ratio('durable path', 'C floor'):.2f}")
    print(f"  durable path / compiled    = {ratio('durable path', 'compiled path'):.1f}")


def copies(k: Knowledge, n: int, fire: bool) -> Knowledge:
    """`k` with `n` extra copies of every rule; copies that must not fire get a condition no
    case meets (a declared fact above the top of its range)."""
    ctx = parse_context(k)
    rules = list(k.rules)
    for i in range(1, n + 1):
        for r in k.rules:
            when = r.when
            if not fire:
                hi = k.vocabulary.get("batch").interval.hi * 10
                text = f"batch > {hi:g}" if when is None else f"({when.source}) and batch > {hi:g}"
                when = lang.parse(text, ctx, "condition")
            rules.append(dataclasses.replace(r, id=f"{r.id}_copy{i}", when=when))
    return dataclasses.replace(k, rules=rules, evaluators={})


def report_copies(k: Knowledge, cases: list[Case], rounds: int) -> None:
    variants = {"x1": k, "+x10 never firing": copies(k, 10, fire=False),
                "+x5 firing": copies(k, 5, fire=True)}
    print("rule copies (medians, ms per case):")
    for label, kv in variants.items():
        fns = {}
        for engine in ("durable", "compiled"):
            try:
                runner = api.runner(kv, engine)
                fns[engine] = lambda r=runner: [r.diagnose(c) for c in cases]
                fns[engine]()
            except Exception as err:  # e.g. the working-memory limit, reported as a pack error
                print(f"  {label:18s} {engine:8s} refused: {str(err)[:150]}")
                fns.pop(engine, None)
        ms = timed(fns, len(cases), max(1, rounds // 3))
        print(f"  {label:18s} ({len(kv.rules)} rules) " + "  ".join(
            f"{e} {statistics.median(v):.3f}" for e, v in ms.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--generated", type=int, default=48, help="generated cases added to the shipped ones")
    args = parser.parse_args()
    k = api.knowledge()
    with tempfile.TemporaryDirectory() as tmp:
        made = casegen.generated(args.generated, 3, sorted(k.levers), sorted(k.claims))
        paths = [*builtin_cases(), *(casegen.write(c, Path(tmp) / f"{n}.yaml") for n, c in made)]
        cases = []
        for p in paths:
            try:
                cases.append(load_case(p, k.vocabulary, k.levers, k.claims))
            except Exception:
                continue
    report_engines(k, cases, args.rounds)
    report_copies(k, cases[:len(builtin_cases())], args.rounds)


if __name__ == "__main__":
    main()
