"""Mutation testing of the rule packs: do the tests notice when the knowledge changes?

Each mutant changes one thing in one pack under rules/: a comparison at its boundary
(>= <-> >, < <-> <=), == <-> !=, and <-> or, + <-> - in a condition or formula, or a scalar
parameter times 0.5 or 1.5. Every mutant runs against the pack tests (what `regime test`
runs, in-process, one diagnosis per distinct case shared by the tests that name it) and, with
--cases, against the reasoning chains the snapshot tests pin (output.to_dict of every
solution and k_ case, compared with the unmutated packs). A mutant is killed when a test fails;
one the loader refuses (a parameter pushed out of its declared range, say) is stillborn and
left out of the score. Prints the score and every surviving mutant.

    .venv/bin/python bench/mutation.py                 # all mutants, pack tests, 2 workers
    .venv/bin/python bench/mutation.py --cases         # ... and the snapshot cases
    .venv/bin/python bench/mutation.py --pack classify --kind boundary
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from regime.core.errors import RegimeError
from regime.core.yamlsrc import load_yaml, plain
from regime.engine.knowledge.model import TEST_SUFFIX
from regime.engine.knowledge.paths import CASES_DIR, RULES_DIR

FLIPS = {">=": ">", ">": ">=", "<=": "<", "<": "<=", "==": "!=", "!=": "=="}
KINDS = {">=": "boundary", ">": "boundary", "<=": "boundary", "<": "boundary", "==": "operator",
         "!=": "operator", "and": "operator", "or": "operator", "+": "operator", "-": "operator"}
# Quoted strings are skipped; then comparisons (longest first), boolean words, binary + and -.
TOKEN = re.compile(r'"[^"]*"|\'[^\']*\'|(>=|<=|==|!=|>|<)|\b(and|or)\b|(?<=\s)([+-])(?=\s)')
FACTORS = (0.5, 1.5)


@dataclass(frozen=True)
class Mutant:
    pack: str        # file name under rules/
    where: str       # rule id and field, or parameter name
    line: int
    kind: str        # boundary | operator | parameter
    change: str      # what was changed, for people
    path: tuple[Any, ...]  # keys into the YAML document
    new: Any         # the mutated value

    def __str__(self) -> str:
        return f"{self.pack}:{self.line} {self.where}: {self.change}"


def mutants(rules_dir: Path = RULES_DIR) -> list[Mutant]:
    out: list[Mutant] = []
    for path in sorted(rules_dir.glob("*.yaml")):
        if path.name.endswith(TEST_SUFFIX):
            continue
        doc = load_yaml(path)
        for i, rule in enumerate(doc.get("rules") or []):
            for key in ("when", "formula"):
                if isinstance(rule.get(key), str):
                    out += _expression_mutants(path.name, rule, i, key)
        for name, param in (doc.get("parameters") or {}).items():
            if isinstance(param, dict) and isinstance(param.get("value"), int | float) \
                    and not isinstance(param.get("value"), bool):
                for f in FACTORS:
                    out.append(Mutant(path.name, f"parameter {name}", param.line_of("value"), "parameter",
                                      f"value {param['value']} x{f}", ("parameters", name, "value"),
                                      param["value"] * f))
    return out


def _expression_mutants(pack: str, rule: dict, i: int, key: str) -> list[Mutant]:
    text = rule[key]
    out = []
    for m in TOKEN.finditer(text):
        token = m.group(1) or m.group(2) or m.group(3)
        if token is None:
            continue
        new = FLIPS.get(token) or {"and": "or", "or": "and", "+": "-", "-": "+"}[token]
        mutated = text[:m.start()] + new + text[m.end():]
        context = text[max(0, m.start() - 25):m.end() + 25].replace("\n", " ")
        out.append(Mutant(pack, f"{rule['id']}.{key}", rule.line_of(key), KINDS[token],
                          f"{token} -> {new} in '...{context}...'", ("rules", i, key), mutated))
    return out


# ---- running one mutant (in a worker process) -----------------------------------------------

def _write_mutant(m: Mutant, into: Path) -> None:
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(RULES_DIR, into)
    doc = plain(load_yaml(RULES_DIR / m.pack))
    node = doc
    for key in m.path[:-1]:
        node = node[key]
    node[m.path[-1]] = m.new
    (into / m.pack).write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _load(rules: Path):
    from regime.engine import api
    from regime.engine.knowledge.load import load_knowledge
    from regime.facts.vocabulary import load_vocabulary

    k = load_knowledge(load_vocabulary(), [rules])
    api.runner(k)
    return k


def _pack_tests_fail(k, rules: Path) -> str | None:
    """The first failing pack test ('file: name'), or None when every test passes."""
    from regime.engine.authoring import packtest

    seen: dict[str, Any] = {}
    for path in packtest.test_files([rules]):
        for body, test in packtest.read_file(path):
            key = json.dumps(plain({x: body[x] for x in body if x not in ("name", "expect")}),
                             sort_keys=True, default=str)
            try:
                packtest.check_names(test.expect, k)
                d = seen.get(key)
                if d is None:
                    d = seen[key] = packtest.diagnose(path, body, test, k)
                if any(want != got for _, want, got, _ in packtest.checks(test.expect, d, k)):
                    return f"{path.name}: {test.name}"
            except RegimeError as err:
                return f"{path.name}: {test.name}: {err.message}"
    return None


def _cases(k, rules: Path) -> dict[str, str]:
    from regime.engine import api
    from regime.engine.report import output

    out = {}
    for path in sorted(CASES_DIR.glob("*.yaml")):
        if path.stem[:2] in ("a_", "b_", "c_", "d_", "e_", "k_"):
            try:
                text = json.dumps(output.to_dict(api.diagnose(path, k), k), sort_keys=True, default=str)
            except RegimeError as err:
                text = f"error: {err.message}"
            out[path.stem] = text.replace(str(rules), "<rules>")
    return out


_WORK: Path | None = None
_BASELINE: dict[str, str] | None = None


def _init(with_cases: bool) -> None:
    global _WORK, _BASELINE
    _WORK = Path(tempfile.mkdtemp(prefix="regime-mutants-"))
    if with_cases:
        rules = _WORK / "rules"
        shutil.copytree(RULES_DIR, rules)
        _BASELINE = _cases(_load(rules), rules)


def run_one(m: Mutant) -> tuple[Mutant, str, str]:
    """(mutant, verdict, by what): verdict is killed, survived or stillborn."""
    assert _WORK is not None
    rules = _WORK / "rules"
    _write_mutant(m, rules)
    try:
        k = _load(rules)
    except RegimeError as err:
        return m, "stillborn", err.message
    failed = _pack_tests_fail(k, rules)
    if failed:
        return m, "killed", f"pack test {failed}"
    if _BASELINE is not None:
        got = _cases(k, rules)
        changed = [c for c in _BASELINE if got.get(c) != _BASELINE[c]]
        if changed:
            return m, "killed", f"reasoning chain of {', '.join(changed[:3])}"
    return m, "survived", ""


# ---- the command ----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cases", action="store_true", help="also compare the snapshot cases' reasoning")
    ap.add_argument("--pack", action="append", default=[], help="only this pack (file stem); repeatable")
    ap.add_argument("--kind", action="append", default=[], choices=["boundary", "operator", "parameter"])
    ap.add_argument("--json", type=Path, help="write every verdict here")
    args = ap.parse_args(argv)
    todo = [m for m in mutants() if (not args.pack or Path(m.pack).stem in args.pack)
            and (not args.kind or m.kind in args.kind)]
    from regime.engine.authoring import packtest

    try:  # a broken test file is the tests' fault, not a mutant's: say so once, up front
        for path in packtest.test_files([RULES_DIR]):
            packtest.read_file(path)
    except RegimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # durable's state is per process: no fork
    with ProcessPoolExecutor(args.jobs, mp_context=ctx, initializer=_init, initargs=(args.cases,)) as pool:
        results = list(pool.map(run_one, todo, chunksize=4))
    verdicts = Counter(v for _, v, _ in results)
    scored = verdicts["killed"] + verdicts["survived"]
    score = verdicts["killed"] / scored if scored else 1.0
    by_kind = Counter((m.kind, v) for m, v, _ in results)
    kinds = sorted(Counter(m.kind for m in todo).items())
    print(f"mutants: {len(results)} ({', '.join(f'{n} {k}' for k, n in kinds)})")
    for kind in ("boundary", "operator", "parameter"):
        k_, s_ = by_kind[(kind, "killed")], by_kind[(kind, "survived")]
        if k_ + s_:
            print(f"  {kind:<9} {k_}/{k_ + s_} killed")
    print(f"stillborn (refused by the loader): {verdicts['stillborn']}")
    print(f"mutation score: {verdicts['killed']}/{scored} = {score:.1%} "
          f"({'pack tests + snapshot cases' if args.cases else 'pack tests'}; "
          f"{time.perf_counter() - started:.0f} s, {args.jobs} workers)")
    survivors = [m for m, v, _ in results if v == "survived"]
    if survivors:
        print("survivors:")
        for m in survivors:
            print(f"  {m}")
    if args.json:
        args.json.write_text(json.dumps([{"mutant": str(m), "kind": m.kind, "verdict": v, "by": why}
                                         for m, v, why in results], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
