"""The five cases of the worked solution: every figure it states, derived by the rules.

The expected figures are the solution's, at the solution's rounding; the code under test never
contains them.
"""

from __future__ import annotations

import pytest

from regime.engine import api
from regime.engine.knowledge.paths import CASES_DIR


@pytest.fixture(scope="module")
def cases(knowledge):
    names = ["a_chatbot", "b_training_run", "c_document_summarizer", "d_high_throughput_api",
             "e_doesnt_add_up"]
    return {n[0]: api.diagnose(CASES_DIR / f"{n}.yaml", knowledge) for n in names}


# (case, fact, expected as the solution writes it, scale to the solution's unit, digits)
FIGURES = [
    ("a", "ridge_point", 247, 1, 0),
    ("a", "arithmetic_intensity", 1, 1, 0),
    ("a", "weight_ceiling_tokens_per_s", 204, 1, 0),   # the solution's ceiling counts weights only
    ("a", "ceiling_fraction", 78, 100, 0),
    ("a", "int8_weight_bytes", 13, 1e-9, 0),
    ("a", "weight_ceiling_int8_tokens_per_s", 408, 1, 0),
    ("a", "elementwise_traffic_ratio", 0.04, 100, 2),
    ("b", "tokens_per_pass", 32768, 1, 0),
    ("b", "elementwise_traffic_ratio", 14, 1, 0),
    ("b", "zero_flop_share", 22, 100, 0),
    ("b", "amdahl_flop_util", 78, 100, 0),
    ("b", "fusion_speedup_bound", 28, 100, 0),
    ("c", "score_matrix_bytes", 40, 1e-9, 0),
    ("c", "score_matrix_bytes_all_layers", 1.28, 1e-12, 2),
    ("c", "naive_attention_traffic_per_layer", 160, 1e-9, 0),
    ("c", "naive_attention_traffic", 5, 1e-12, 0),
    ("c", "naive_attention_time", 1, 1, 0),
    ("c", "attention_crossover_tokens", 26624, 1, 0),
    ("c", "attention_flop_share", 48, 100, 0),
    ("c", "weight_bytes_per_token", 0.6, 1e-6, 1),
    ("d", "arithmetic_intensity", 256, 1, 0),
    ("d", "ridge_point", 247, 1, 0),
    ("d", "int4_freed_bytes", 51, 1e-9, 0),
    ("d", "int4_bandwidth_gain", 4, 1, 0),
    ("e", "weight_ceiling_tokens_per_s", 215, 1, 0),
    ("e", "ceiling_tokens_per_s", 215, 1, 0),           # no context given: nothing else to read
    ("e", "gap_fraction", 38, 100, 0),
    ("e", "idle_slowdown", 1.6, 1, 1),
    ("e", "ceiling_shortfall", 6, 1, 0),
]


@pytest.mark.parametrize(("case", "fact", "expected", "scale", "digits"), FIGURES,
                         ids=[f"{c}-{f}" for c, f, *_ in FIGURES])
def test_figure_is_derived_to_the_solutions_rounding(cases, case, fact, expected, scale, digits):
    record = cases[case].facts[fact]
    assert record.source == "derived" and record.formula and record.rule
    assert round(record.value * scale, digits) == expected


REGIMES = {"a": ("bandwidth_bound", "bandwidth_bound"), "b": ("compute_bound", "compute_bound"),
           "c": ("compute_bound", "compute_bound"), "d": ("compute_bound", "compute_bound"),
           "e": ("overhead_bound", "bandwidth_bound")}


@pytest.mark.parametrize("case", sorted(REGIMES))
def test_regime_and_nominal_regime(cases, case):
    d = cases[case]
    assert (d.fact_value("regime"), d.fact_value("nominal_regime")) == REGIMES[case]


FIXES = {"a": ["continuous_batching", "quantize_int8"],
         "b": ["torch_compile", "fix_dtype_casts", "hand_fused_kernels"],
         "c": ["flash_attention", "chunked_prefill"],
         "d": ["fp8_gemm", "fuse_attention", "better_gemm_tiling", "speculative_decoding", "smaller_model"],
         "e": ["cuda_graphs", "torch_compile"]}
REJECTS = {"a": {"fuse_elementwise", "buy_more_flops"},
           "b": {"memory_ops_irrelevant_when_compute_bound", "fuse_attention"},
           "c": {"raise_batch", "quantize_int8"},
           "d": {"quantize_int4", "raise_batch"},
           "e": {"raise_batch", "quantize_int8", "buy_more_flops"}}


@pytest.mark.parametrize("case", sorted(FIXES))
def test_fixes_in_the_solutions_order(cases, case):
    assert [c.lever for c in cases[case].of_kind("fix")] == FIXES[case]


@pytest.mark.parametrize("case", sorted(REJECTS))
def test_every_rejection_with_its_reason(cases, case):
    rejects = cases[case].of_kind("reject")
    assert {c.lever or c.claim for c in rejects} == REJECTS[case]
    assert all(len(c.because) > 40 for c in rejects)


def test_every_proposal_and_claim_gets_a_verdict(cases):
    for d in cases.values():
        assert not [c for c in d.conclusions if c.id == "no_verdict"], d.case


def test_case_a_reasons_carry_the_numbers(cases):
    a = cases["a"]
    int8 = a.of_kind("fix")[1]
    assert "26 GB → 13 GB" in int8.because and "408 tokens/s" in int8.because
    assert int8.bound[0].text == "408 tokens/s"
    near = next(c for c in a.of_kind("finding") if c.id == "near_ceiling")
    assert "160 tokens/s is 78.5% of the 204 tokens/s ceiling" in near.because
    fusion = next(c for c in a.of_kind("reject") if c.lever == "fuse_elementwise")
    assert "~0.0435% of the bytes" in fusion.because
    flops = next(c for c in a.of_kind("reject") if c.lever == "buy_more_flops")
    assert "4% of the FLOPs" in flops.because


def test_case_b_bound_is_amdahl(cases):
    hand = cases["b"].of_kind("fix")[2]
    assert "61% / (1 − 22%) = 78.2% of peak" in hand.because and "~28.2%" in hand.because
    assert [b.fact for b in hand.bound] == ["amdahl_flop_util", "fusion_speedup_bound"]
    attention = next(c for c in cases["b"].of_kind("reject") if c.lever == "fuse_attention")
    assert "7%" in attention.because


def test_case_c_explains_the_transient_and_the_flop_rate(cases):
    findings = {c.id: c.because for c in cases["c"].of_kind("finding")}
    assert "32 × 25,000² × 2 B = 40 GB per layer" in findings["materialized_scores"]
    assert "1.28 TB" in findings["materialized_scores"]
    assert "160 GB" in findings["attention_traffic"] and "5.12 TB" in findings["attention_traffic"]
    assert "48.4% of the FLOPs" in findings["attention_over_share"]
    assert "0.64 MB/token" in next(c.because for c in cases["c"].of_kind("reject")
                                  if c.lever == "quantize_int8")


def test_case_d_tells_the_director_no(cases):
    d = cases["d"]
    int4 = next(c for c in d.of_kind("reject") if c.lever == "quantize_int4")
    for text in ("71% of compute", "30% of bandwidth", "70% idle", "256 FLOP/byte", "247 FLOP/byte", "~4×"):
        assert text in int4.because
    capacity = next(c for c in d.of_kind("finding") if c.id == "int4_for_capacity")
    assert "~50.6 GB" in capacity.because


def test_case_e_is_nominally_bandwidth_bound_actually_idle(cases):
    e = cases["e"]
    findings = {c.id: c.because for c in e.of_kind("finding")}
    assert "≈ 37.9% of wall time doing nothing" in findings["idle_gaps"]
    assert "~1.61×" in findings["idle_gaps"]
    assert "5.97× below" in findings["far_below_ceiling"]
    assert "regime_mismatch" in findings
    assert [c.id for c in e.of_kind("ask")] == ["throughput"]
    assert "215 tokens/s" in e.of_kind("ask")[0].because


def test_missing_measurements_are_asked_for_in_the_synthesis_order(tmp_path, knowledge):
    path = tmp_path / "sparse.yaml"
    path.write_text("title: sparse\nhardware: MI300X\nmodel: llama-2-13b\nfacts:\n  phase: decode\n"
                    "  weight_dtype: fp16\n  compute_dtype: fp16\n", encoding="utf-8")
    d = api.diagnose(path, knowledge)
    asks = d.of_kind("ask")
    assert [c.id for c in asks] == ["tokens_per_pass", "flop_util", "bw_util"]
    assert d.fact_value("regime") is None
    assert d.fact_value("ridge_point") is not None  # the partial diagnosis still derives what it can


def test_assumptions_are_facts_with_their_source(cases):
    crossover = cases["b"].facts["elementwise_crossover_tokens"]
    assert (crossover.source, crossover.value) == ("assumed", 2300)
    assert "README §3.3" in crossover.origin
    assert cases["a"].facts["util_high"].source == "assumed"
