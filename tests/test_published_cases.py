"""The published-measurement cases (cases/p_*.yaml) against what was written about them before
any run (tests/data/published/EXPECTED.yaml, issue 23): each is shipped, names only known levers,
reads the regime its header's arithmetic expects, and every speedup bound holds against the
speedup the source measured. Where Regime disagrees today the test says so by name and why
(a strict xfail: a fix that makes it agree must also delete the entry)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from regime.engine import api
from regime.engine.knowledge.paths import CASES_DIR

EXPECTED = yaml.safe_load((Path(__file__).parent / "data" / "published" / "EXPECTED.yaml")
                          .read_text(encoding="utf-8"))["cases"]
# regime misses, as docs/calibration.md reports them
REGIME_MISSES = {
    "p_gptfast_eager_llama2_7b_a100_b1": "a rate only (no trace, no stated idle share): the issue-23 "
                                         "rule no longer calls a rate's lower bounds overhead-bound",
    "p_vllm_specdec_llama3_70b_4xh100_qps1": "theory only (no utilization measured): undetermined",
    "p_trtllm_fp8_llama2_7b_h100_b1": "theory only (no utilization measured): undetermined",
    "p_oci_llama31_405b_fp8_mi300x_b256": "batch 256 past the ridge reads compute-bound; the source's "
                                          "17.75 s per request points at serving overhead",
}
# (case, lever, measured speedup): bounds a measured fix broke
BOUND_MISSES = {
    ("p_vllm053_llama3_8b_h100_cpu_overhead", "cuda_graphs", 2.7):
        "vLLM 0.6.0's 2.7x is several changes at once, not one lever (docs/calibration.md)",
}


def _mark(table: dict, key) -> list:
    return [pytest.mark.xfail(strict=True, reason=table[key])] if key in table else []


@pytest.fixture(scope="module")
def diagnoses(knowledge):
    return {case: api.diagnose(CASES_DIR / f"{case}.yaml", knowledge, engine="compiled")
            for case in EXPECTED}


def test_every_expected_case_is_shipped_and_names_known_levers(knowledge):
    assert sorted(EXPECTED) == sorted(p.stem for p in CASES_DIR.glob("p_*.yaml"))
    for case, e in EXPECTED.items():
        named = [*(e.get("fixes") or []), *(e.get("rejections") or [])]
        named += [m.get("lever") or m.get("closest_lever") for m in e.get("measured_fixes") or []]
        assert set(named) <= set(knowledge.levers), (case, set(named) - set(knowledge.levers))


@pytest.mark.parametrize("case", [pytest.param(c, marks=_mark(REGIME_MISSES, c)) for c in EXPECTED])
def test_the_regime_the_arithmetic_expects(diagnoses, case):
    d = diagnoses[case]
    assert (d.fact_value("regime") if "regime" in d.facts else None) == EXPECTED[case]["regime"]


MEASURED = [(case, m.get("lever") or m.get("closest_lever"), float(m["measured_speedup"]))
            for case, e in EXPECTED.items() for m in e.get("measured_fixes") or []
            if isinstance(m["measured_speedup"], int | float)]


@pytest.mark.parametrize("case, lever, measured",
                         [pytest.param(*row, marks=_mark(BOUND_MISSES, row)) for row in MEASURED])
def test_a_fix_bound_holds_against_the_measured_speedup(diagnoses, case, lever, measured):
    fixes = [c for c in diagnoses[case].conclusions if c.kind == "fix" and c.lever == lever]
    for c in fixes:
        if c.speedup_bound is not None:
            assert c.speedup_bound >= measured, (c.rule, c.speedup_bound)
