"""The compiled evaluator against the engine of record: byte-identical reports, or identical errors.

Every shipped case, the fuzz corpus (tests/fuzz_corpus: its cases, and its packs run on shipped
cases), and a bounded number of generated and mutated cases (tests/casegen.py).
`make differential` runs the same comparison on >= 10,000.
"""

from __future__ import annotations

import gc
from pathlib import Path

import differential
import pytest

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.knowledge.paths import builtin_cases
from regime.engine.run.compiled import CompiledRunner

pytestmark = pytest.mark.slow

TESTS = Path(__file__).parent


def _agree(tally: differential.Tally) -> None:
    shown = [f"{p}\n  durable:  {a[:200]}\n  compiled: {b[:200]}" for p, a, b in tally.disagreements[:3]]
    assert not tally.disagreements, "\n".join(shown)


def test_every_shipped_case_gives_the_same_report(knowledge):
    tally = differential.compare(knowledge, builtin_cases(), differential.Tally())
    _agree(tally)
    assert tally.seen["diagnosed"] == len(builtin_cases())


def test_the_fuzz_corpus_gives_the_same_reports_or_errors():
    tally = differential.Tally()
    sets = list(differential.corpus_sets(shipped=4))
    for _, k, paths in sets:
        if not isinstance(k, Exception):
            differential.compare(k, paths, tally)
    _agree(tally)
    assert len(sets) >= 8 and sum(tally.seen.values()) >= 15


def test_generated_and_mutated_cases_give_the_same_reports(knowledge, tmp_path):
    paths = differential.written(knowledge, tmp_path, generated=100, mutated=100, seed=7)
    tally = differential.compare(knowledge, paths, differential.Tally())
    _agree(tally)
    assert tally.seen["diagnosed"] >= 130  # most generated cases are valid and reach the engines


def test_the_comparison_sees_a_wrong_firing_order(knowledge, monkeypatch):
    """The harness can fail: a compiled evaluator that picks rules in another order is caught."""
    k = api.knowledge()
    compiled = api.runner(k, "compiled")
    monkeypatch.setattr(compiled.program, "plans", list(reversed(compiled.program.plans)))
    monkeypatch.setattr(compiled, "_watchers", CompiledRunner(k)._watchers_for(compiled.program.plans))
    tally = differential.compare(k, builtin_cases()[:3], differential.Tally())
    assert len(tally.disagreements) == 3


def test_compiled_refuses_what_durable_refuses(tmp_path):
    # durable joins at most 31 expressions per rule (its error 113)
    clauses = " or ".join(f"batch > {i}" for i in range(40))
    (tmp_path / "big.yaml").write_text(
        "pack: big\ndescription: d\nrules:\n- id: too_big\n  description: d\n"
        f"  when: {clauses}\n  finding: big\n  because: b\n", encoding="utf-8")
    k = api.knowledge([tmp_path])
    errors = []
    for engine in differential.ENGINES:
        with pytest.raises(RegimeError) as info:
            api.runner(k, engine)
        errors.append(str(info.value))
    assert errors[0] == errors[1] and "too_big" in errors[0] and "big.yaml" in errors[0]


def test_a_dropped_knowledge_releases_its_durable_ruleset():
    k = api.knowledge()
    ruleset = api.runner(k, "durable").ruleset
    release = ruleset._release
    d = api.diagnose(Path(builtin_cases()[0]), k)
    assert d.trace and release.alive
    del k, ruleset, d
    gc.collect()
    assert not release.alive


PRECEDENCE_LAYER = """\
pack: site
description: a site layer whose rule outranks a built-in one on the same fact
rules:
  - id: my_ceiling
    description: a second opinion on the ceiling
    precedence: 1
    when: phase == "decode"
    derive: ceiling_tokens_per_s
    formula: tokens_per_pass * peak_bw / weight_bytes
    because: "{ceiling_tokens_per_s}"
"""


def test_layers_give_the_same_reports(tmp_path):
    """Site layers (replacements, precedence) change the firing order the same way in both."""
    layer = tmp_path / "site"
    layer.mkdir()
    (layer / "site.yaml").write_text(PRECEDENCE_LAYER, encoding="utf-8")
    k = api.knowledge([TESTS / "layers" / "site_kv", layer])
    tally = differential.compare(k, builtin_cases(), differential.Tally())
    _agree(tally)
    assert tally.seen["diagnosed"] == len(builtin_cases())
    assert "my_ceiling" in {f.rule for f in api.diagnose(builtin_cases()[0], k, "compiled").trace}
