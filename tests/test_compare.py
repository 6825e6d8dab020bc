"""`regime compare`: what the H200 fixes measured against the BEFORE diagnosis's speedup figures
(tests/data/compare/README.md), and a bad input refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.cli.compare import as_tried, comparison

ROOT = Path(__file__).resolve().parent.parent
COMPARE = ROOT / "tests" / "data" / "compare"
PAIRS = [("r_decode_b1", "decode_b1_graphed", "cuda_graphs", 7.20),
         ("r_decode_b1", "decode_b64", "raise_batch", 55.6),
         ("r_decode_b256", "decode_b256_static", "preallocate_kv_cache", 2.13),
         ("r_train_1b", "train_1b_compiled", "torch_compile", 1.16),
         ("r_prefill_eager_8192", "prefill_sdpa_8192", "flash_attention", 4.27)]


def _case(name: str) -> Path:
    built_in = ROOT / "cases" / f"{name}.yaml"
    return built_in if built_in.exists() else COMPARE / f"{name}.yaml"


@pytest.mark.parametrize(("before", "after", "lever", "measured"), PAIRS, ids=[p[2] for p in PAIRS])
def test_every_h200_fix_stays_within_its_bound(knowledge, before, after, lever, measured):
    b, a = api.diagnose(_case(before), knowledge), api.diagnose(_case(after), knowledge)
    row = comparison(as_tried(b, a, knowledge), a, lever)
    assert row["measured_speedup"] == pytest.approx(measured, rel=0.01)
    [fix] = row["fixes"]
    assert fix["bound_holds"] and fix["speedup_basis"] in ("trace", "profiler", "counting")
    if fix["speedup_expected"] is not None:
        assert 1 / 1.5 <= fix["expected_over_measured"] <= 1.5


def test_a_lever_the_diagnosis_does_not_fix_is_refused(knowledge):
    before = api.diagnose(_case("r_decode_b1"), knowledge)
    with pytest.raises(RegimeError, match="no fix 'fp8_gemm'"):
        comparison(before, api.diagnose(COMPARE / "decode_b1_graphed.yaml", knowledge), "fp8_gemm")


def test_a_batch_change_is_sized_at_the_batch_tried(knowledge):
    """Batch 1 -> 64: the bound is the one at batch 64 (at most 64x, a step never gets shorter),
    not the one at the batch memory allows; the expected figure keeps the fixed step."""
    before = api.diagnose(_case("r_decode_b1"), knowledge)
    after = api.diagnose(COMPARE / "decode_b64.yaml", knowledge)
    untried = comparison(before, after, "raise_batch")["fixes"][0]
    [fix] = comparison(as_tried(before, after, knowledge), after, "raise_batch")["fixes"]
    assert fix["speedup_bound"] == pytest.approx(after.fact_value("batch") / before.fact_value("batch"))
    assert fix["speedup_bound"] < untried["speedup_bound"] and fix["bound_holds"]
    assert fix["speedup_expected"] is not None and untried["speedup_expected"] is None


def test_a_change_that_keeps_the_batch_leaves_before_as_it_is(knowledge):
    before = api.diagnose(_case("r_decode_b1"), knowledge)
    assert as_tried(before, api.diagnose(COMPARE / "decode_b1_graphed.yaml", knowledge), knowledge) is before
