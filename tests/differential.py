"""Run cases through both evaluators and compare what a user would get, byte for byte.

Each case is loaded once (loading is shared code, so a refused case is refused the same way by
both); then durable and compiled each produce the report JSON (`output.to_json`) or the error
line. Used by tests/test_differential.py (bounded) and `make differential` (>= 10,000 cases):

    python tests/differential.py [--generated N] [--mutated N] [--seed S]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))

import casegen  # noqa: E402

from regime.core.errors import RegimeError  # noqa: E402
from regime.engine import api  # noqa: E402
from regime.engine.knowledge.model import Knowledge  # noqa: E402
from regime.engine.knowledge.paths import builtin_cases  # noqa: E402
from regime.engine.report import output  # noqa: E402
from regime.engine.run.firing import EngineFault  # noqa: E402
from regime.facts.case import load_case  # noqa: E402

CORPUS = TESTS / "fuzz_corpus"
ENGINES = ("durable", "compiled")


@dataclass
class Tally:
    """What a differential run saw: diagnosed, refused alike, and every disagreement."""

    seen: Counter = field(default_factory=Counter)
    disagreements: list[tuple[str, str, str]] = field(default_factory=list)

    def line(self) -> str:
        return (f"{sum(self.seen.values())} cases: {self.seen['diagnosed']} diagnosed identically, "
                f"{self.seen['refused']} refused at load, {self.seen['crashed at load']} crashed at "
                f"load, {self.seen['failed']} failed identically in both evaluators, "
                f"{len(self.disagreements)} disagreements")


def outcome(k: Knowledge, engine: str, case, path: Path) -> str:
    """The report JSON, or the error line, as the CLI would print it."""
    try:
        d = api.runner(k, engine).diagnose(case)
    except RegimeError as err:
        return f"error: {err.located(file=str(path))}"
    except EngineFault as err:
        return f"error: engine fault: {err}"
    except Exception as err:  # a crash is compared too: both evaluators must crash alike
        return f"crash: {err!r}"
    return output.to_json(output.to_dict(d, k))


def compare(k: Knowledge, paths: Iterable[Path], tally: Tally) -> Tally:
    for path in paths:
        try:
            case = load_case(path, k.vocabulary, k.levers, k.claims)
        except RegimeError:
            tally.seen["refused"] += 1
            continue
        except Exception:  # the loader's crashes belong to the fuzz fixes, not to an evaluator
            tally.seen["crashed at load"] += 1
            continue
        durable, compiled = (outcome(k, e, case, path) for e in ENGINES)
        if durable != compiled:
            tally.disagreements.append((str(path), durable, compiled))
        else:
            tally.seen["failed" if durable.startswith("error:") else "diagnosed"] += 1
    return tally


def corpus_sets(shipped: int | None = None) -> Iterator[tuple[str, Knowledge | Exception, list[Path]]]:
    """The fuzz corpus (tests/fuzz_corpus): its cases on the shipped packs, then each of its
    packs on the first `shipped` shipped cases (all by default) and its edge cases."""
    yield "cases", api.knowledge(), sorted(CORPUS.glob("*.yaml"))
    for pack in sorted((CORPUS / "packs").glob("*.yaml")):
        try:
            k: Knowledge | Exception = api.knowledge([pack])
            for engine in ENGINES:
                api.runner(k, engine)  # type: ignore[arg-type]
        except Exception as err:  # refused (or, a loader bug, crashed) before any evaluator ran
            k = err
        yield pack.stem, k, [*builtin_cases()[:shipped], *sorted(CORPUS.glob("edge_*.yaml"))]


def written(k: Knowledge, directory: Path, generated: int, mutated: int, seed: int) -> list[Path]:
    """Generated and mutated cases written to `directory` as YAML files."""
    levers, claims = sorted(k.levers), sorted(k.claims)
    bases = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in builtin_cases()]
    made = [*casegen.generated(generated, seed, levers, claims),
            *casegen.mutated(mutated, seed, bases, levers)]
    return [casegen.write(case, directory / f"{name}.yaml") for name, case in made]


def run(generated: int, mutated: int, seed: int, with_corpus: bool = True) -> Tally:
    tally = Tally()
    k = api.knowledge()
    compare(k, builtin_cases(), tally)
    if with_corpus:
        for _, kc, paths in corpus_sets():
            if isinstance(kc, Exception):
                tally.seen["refused" if isinstance(kc, RegimeError) else "crashed at load"] += len(paths)
            else:
                compare(kc, paths, tally)
    with tempfile.TemporaryDirectory() as tmp:
        compare(k, written(k, Path(tmp), generated, mutated, seed), tally)
    return tally


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--generated", type=int, default=6000)
    parser.add_argument("--mutated", type=int, default=4500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    tally = run(args.generated, args.mutated, args.seed)
    for path, durable, compiled in tally.disagreements[:5]:
        print(f"DISAGREE {path}\n  durable:  {durable[:300]}\n  compiled: {compiled[:300]}")
    print(f"differential (seed {args.seed}): {tally.line()} in {time.perf_counter() - t0:.0f} s")
    return 1 if tally.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
