"""Four workloads run and traced on a real H200 (tests/data/h200_*, tests/data/README.md): each is
diagnosed as its user wrote it with its trace, and must reach what a performance engineer
concluded from the measurements, with every printed bound at least the speedup measured when
that fix was applied. These are the ground truth the packs are checked against.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from regime.engine import api
from regime.engine.knowledge.paths import CASES_DIR
from regime.engine.trace import merge

DATA = Path(__file__).parent / "data"
TRACES = {"decode_b1": "h200_decode_b1", "decode_b256": "h200_decode_b256",
          "prefill_b1_4096": "h200_prefill_b1_4096", "train_1b": "h200_train_1b_b8x2048"}

# What the measurements say (tests/data/README.md, "What was measured when the obvious fixes were
# applied"): regime, the fixes that may come first, the levers that must be rejected, the ones that
# must not be, and for each fix that was measured, the bound it prints and the speedup measured.
EXPECTED = {
    "decode_b1": dict(regime="overhead_bound", first={"cuda_graphs", "torch_compile"},
                      rejected=set(), not_rejected={"raise_batch"}, fixes={"raise_batch"},
                      measured={"cuda_graphs": ("idle_slowdown", 7.2)}),
    "decode_b256": dict(regime="bandwidth_bound", first={"preallocate_kv_cache"}, rejected={"cuda_graphs"},
                        not_rejected=set(), fixes=set(),
                        measured={"preallocate_kv_cache": ("kv_copy_speedup", 2.13)}),
    "prefill_b1_4096": dict(regime="compute_bound", first=None, rejected={"raise_batch", "quantize_int8"},
                            not_rejected=set(), fixes=set(), measured={}),
    "train_1b": dict(regime="compute_bound", first={"torch_compile"}, rejected=set(), not_rejected=set(),
                     fixes=set(), measured={"torch_compile": ("fusion_speedup_bound", 1.16)}),
}


def _with_trace(name: str, knowledge):
    case = DATA / "h200_cases" / f"{name}.yaml"
    [outcome] = merge.diagnose_all(DATA / f"{TRACES[name]}.json.gz", [case], knowledge)
    assert outcome.error is None, outcome.error
    return outcome.diagnosis


def _verdicts(d, kind: str) -> list[str]:
    return [c.lever for c in d.conclusions if c.kind == kind and c.lever and c.folded_into is None]


def _gain(d, fact: str) -> float:
    """A bound as a speedup: multipliers as they are, fractional gains (unit 'fraction') as 1 + gain."""
    record = d.facts[fact]
    return 1 + record.value if record.unit == "fraction" else record.value


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_run_reads_as_measured(name, knowledge):
    d, want = _with_trace(name, knowledge), EXPECTED[name]
    assert d.fact_value("regime") == want["regime"]
    fixes = sorted((c for c in d.conclusions if c.kind == "fix" and c.rank), key=lambda c: c.rank)
    if want["first"]:
        assert fixes and fixes[0].lever in want["first"], [c.lever for c in fixes]
    rejected = set(_verdicts(d, "reject"))
    assert want["rejected"] <= rejected
    assert not (want["not_rejected"] & rejected)
    assert want["fixes"] <= set(_verdicts(d, "fix"))
    for lever, (bound, speedup) in want["measured"].items():
        [fix] = [c for c in fixes if c.lever == lever]
        assert bound in {b.fact for b in fix.bound} and _gain(d, bound) >= speedup, (lever, _gain(d, bound))


@pytest.mark.parametrize("name", ["decode_b256", "train_1b"])
def test_measured_rate_alone_gives_a_regime(name, knowledge):
    d = api.diagnose(DATA / "h200_cases" / f"{name}.yaml", knowledge)
    assert d.fact_value("regime") == EXPECTED[name]["regime"]
    assert d.facts["flop_util"].source == "derived" and d.facts["bw_util"].source == "derived"


def test_a_rate_alone_never_makes_a_case_overhead_bound(knowledge):
    """Issue 23: the pass rate's utilizations count only weights and KV cache (lower bounds); the
    idle batch-1 decode needs its trace (or a stated idle share) to read as overhead-bound."""
    d = api.diagnose(DATA / "h200_cases" / "decode_b1.yaml", knowledge)
    assert d.fact_value("regime") != "overhead_bound"
    assert "low_rates_are_lower_bounds" in {f.rule for f in d.trace}
    assert _with_trace("decode_b1", knowledge).fact_value("regime") == "overhead_bound"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shipped_case_is_the_user_case_over_its_trace(name, knowledge):
    """cases/r_*.yaml are the user's case over the trace's facts: the same verdicts either way."""
    shipped, traced = api.diagnose(CASES_DIR / f"r_{name}.yaml", knowledge), _with_trace(name, knowledge)
    assert shipped.fact_value("regime") == traced.fact_value("regime")
    for kind in ("fix", "reject"):
        assert _verdicts(shipped, kind) == _verdicts(traced, kind)


def test_the_kv_copy_is_sized_from_the_cache(knowledge):
    """The finding's copy is the whole cache read and written; at the H200's 4.8 TB/s datasheet
    bandwidth that is within a third of the 58% × 63 ms the concatenation kernels measured."""
    d = _with_trace("decode_b256", knowledge)
    assert "kv_cache_recopied" in {c.id for c in d.conclusions if c.kind == "finding"}
    copy = d.fact_value("kv_copy_time")
    kernels = d.fact_value("kernel_share__concatenation") * d.fact_value("pass_time")
    assert 0.67 < copy / kernels < 1.0
