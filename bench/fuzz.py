"""The long fuzz profile (`make fuzz`): many more inputs than the suite's bounded run, fresh seeds.

Prints inputs tried, diagnosed, refused with a located one-line error (and how many of those
lines name a field), and anything else — the target for the last is 0. Each "anything else"
is listed with what happened, so it can be turned into a regression test.

    python bench/fuzz.py [--cases N] [--new-packs N] [--shipped-packs N] [--seed S]
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fuzzing
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st


class Tally:
    def __init__(self) -> None:
        self.kinds: collections.Counter[str] = collections.Counter()
        self.lines = self.fields = 0
        self.others: list[str] = []

    def add(self, v: fuzzing.Verdict) -> None:
        self.kinds[v.kind] += 1
        self.lines += v.lines
        self.fields += v.fields
        if v.kind == "other":
            self.others.append(v.detail)

    def show(self, name: str, seconds: float) -> str:
        total = sum(self.kinds.values())
        return (f"{name:<16} tried {total:>6}  diagnosed {self.kinds['diagnosed']:>6}  refused with a line "
                f"{self.kinds['refused']:>6} ({self.lines} error lines, {self.fields} naming a field)  "
                f"anything else {self.kinds['other']:>3}  [{seconds:.0f} s]")


def run(name: str, strategy: st.SearchStrategy, check, n: int, seed: int, tally: Tally) -> float:
    start = time.perf_counter()
    if n <= 0:
        return 0.0

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(value) -> None:
        tally.add(check(value))

    one._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    one()
    return time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=3000)
    p.add_argument("--new-packs", type=int, default=400)
    p.add_argument("--shipped-packs", type=int, default=60)
    p.add_argument("--seed", type=int, default=random.randrange(2**32))
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="regime-fuzz-"))
    k = fuzzing.shipped_knowledge()
    cases = fuzzing.CASE_FILES
    print(f"seed {args.seed}")
    results = []
    for name, strategy, check, n in [
        ("cases", fuzzing.yaml_text(fuzzing.case_docs()),
         lambda data: fuzzing.check_case(data, work, k), args.cases),
        ("new packs", fuzzing.yaml_text(fuzzing.new_packs()),
         lambda data: fuzzing.check_new_pack(data, work), args.new_packs),
        ("shipped packs", st.tuples(fuzzing.shipped_pack_mutations(), st.sampled_from(cases)),
         lambda mc: fuzzing.check_shipped_mutation(
             mc[0][0], yaml.safe_dump(mc[0][1], allow_unicode=True, sort_keys=False).encode(), work,
             [mc[1], cases[0]]), args.shipped_packs),
    ]:
        tally = Tally()
        seconds = run(name, strategy, check, n, args.seed, tally)
        results.append(tally)
        print(tally.show(name, seconds), flush=True)
        for detail in tally.others[:10]:
            print("   anything else:", detail.replace("\n", "\n      ")[:1500])
    total = Tally()
    for t in results:
        total.kinds.update(t.kinds)
        total.lines += t.lines
        total.fields += t.fields
    print(total.show("all", 0.0))
    return 1 if total.kinds["other"] else 0


if __name__ == "__main__":
    sys.exit(main())
