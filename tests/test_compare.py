"""`regime compare`: what the H200 fixes measured against the BEFORE diagnosis's speedup figures
(tests/data/compare/README.md), and a bad input refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.cli.compare import comparison

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
    row = comparison(api.diagnose(_case(before), knowledge), api.diagnose(_case(after), knowledge), lever)
    assert row["measured_speedup"] == pytest.approx(measured, rel=0.01)
    [fix] = row["fixes"]
    assert fix["bound_holds"] and fix["speedup_basis"] in ("trace", "profiler", "counting")
    if fix["speedup_expected"] is not None:
        assert 1 / 1.5 <= fix["expected_over_measured"] <= 1.5


def test_a_lever_the_diagnosis_does_not_fix_is_refused(knowledge):
    before = api.diagnose(_case("r_decode_b1"), knowledge)
    with pytest.raises(RegimeError, match="no fix 'fp8_gemm'"):
        comparison(before, api.diagnose(COMPARE / "decode_b1_graphed.yaml", knowledge), "fp8_gemm")
