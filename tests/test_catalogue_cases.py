"""Cases for issue 28 (models given as a config.json, the catalogue's new GPUs and models,
parallelism forms, verdicts): expectations written from first principles before the tool ran on
them; each case file's header shows the arithmetic. Nothing here was copied from a run."""

from __future__ import annotations

import pytest
import yaml

from regime.core.errors import RegimeError
from regime.engine import api
from regime.engine.knowledge.load import load_knowledge
from regime.engine.knowledge.paths import CASES_DIR, RULES_DIR
from regime.facts.vocabulary import load_vocabulary

H100_BW = 3.35e12
# Gemma-2-9B from its config.json: 9,241,705,984 parameters, all read (the LM head is tied, so the
# one vocabulary matrix is multiplied), bf16; KV 2 x 42 layers x 8 KV heads x 256 head_dim x 2 B.
GEMMA2_PARAMS = 9_241_705_984
GEMMA2_KV = 2 * 42 * 8 * 256 * 2

# Llama-3.1-8B, FSDP FULL_SHARD over 8 A100 40GB: bf16 weights and gradients, 12 B/param of Adam
# state, all split 8 ways; 3 x 7/8 of the replica sent per step; 3 x forward FLOPs per token.
L31_8B = 8_030_261_248
L31_8B_ACTIVE = L31_8B - 128_256 * 4096
FSDP_STEP_FLOPS = 3 * (2 * L31_8B_ACTIVE + 0.5 * 4 * 32 * 4096 * 4096) * 2 * 4096
A100_BF16, NVLINK_A100 = 312e12, 300e9

# Llama-3.1-8B prefill of 4,096 tokens on an A100 (312 TFLOP/s bf16, no fp8 matrix cores).
PREFILL_4K = 2 * ((L31_8B_ACTIVE - 128_256 * 4096) * 4096 + 128_256 * 4096) + 0.5 * 4 * 32 * 4096 * 4096**2
# Qwen2.5-0.5B (tied: every parameter multiplied) training, 8 x 2,048 tokens, one MI250X GCD.
QWEN05 = 494_032_768
QWEN05_STEP = 3 * (2 * QWEN05 + 0.5 * 4 * 24 * 896 * 2048) * 8 * 2048
GCD_BF16 = 191.5e12
# Llama-3.1-8B decode at batch 1, 1,024 tokens of context, on an L4 (300 GB/s, 121 TFLOP/s bf16).
L4_BW, L4_BF16 = 300e9, 121e12
KV_L31_8B = 2 * 32 * 8 * 128 * 2

FIGURES = {
    "k_gemma2_config_decode_h100": {
        "kv_bytes_per_token": GEMMA2_KV,
        "capacity_bytes": GEMMA2_PARAMS * 2,
        "ceiling_tokens_per_s": H100_BW / (GEMMA2_PARAMS * 2 + 2048 * GEMMA2_KV),
        "traffic_fraction": 120 / (H100_BW / (GEMMA2_PARAMS * 2 + 2048 * GEMMA2_KV)),
    },
    "k_fsdp_llama31_8b_a100_40gb": {
        "device_train_state_bytes": (2 * L31_8B + 2 * L31_8B + 12 * L31_8B) / 8,
        "device_capacity_bytes": 2 * L31_8B / 8,
        "dp_comm_bytes": 3 * 7 / 8 * 2 * L31_8B,
        "dp_comm_share": 3 * 7 / 8 * 2 * L31_8B / NVLINK_A100 / 2.4,
        "flop_util": FSDP_STEP_FLOPS / A100_BF16 / 2.4,
    },
    "k_fp8_gemm_a100_prefill": {"flop_util": PREFILL_4K / A100_BF16 / 0.3},
    "k_fp8_int8_training_mi250x": {
        "flop_util": QWEN05_STEP / GCD_BF16 / 0.5,
        "device_train_state_bytes": 16 * QWEN05,
    },
    "k_speculative_batch1_l4": {
        "ceiling_tokens_per_s": L4_BW / (2 * L31_8B_ACTIVE + 1024 * KV_L31_8B),
        "traffic_fraction": 16 / (L4_BW / (2 * L31_8B_ACTIVE + 1024 * KV_L31_8B)),
        "ridge_batch": L4_BF16 / L4_BW,  # bf16: 1 FLOP per byte per token of the pass
    },
}
# case -> (fixes that must be there, rejections that must be there, asks that must be there)
VERDICTS = {
    "k_fp8_gemm_a100_prefill": (set(), {"fp8_gemm"}, set()),
    "k_fp8_int8_training_mi250x": (set(), {"fp8_gemm", "quantize_int8"}, set()),
    "k_speculative_batch1_l4": ({"speculative_decoding"}, set(), {"accepted_tokens_per_pass"}),
}
# case -> (regime, findings that must be present)
REGIMES = {
    "k_gemma2_config_decode_h100": ("bandwidth_bound", {"config_fields_not_modelled"}),
    "k_fsdp_llama31_8b_a100_40gb": ("compute_bound", {"dp_comm_minor"}),
    "k_fp8_gemm_a100_prefill": ("compute_bound", set()),
    "k_fp8_int8_training_mi250x": ("compute_bound", set()),
    "k_speculative_batch1_l4": ("bandwidth_bound", set()),
    "k_itl_complaint_h100": ("bandwidth_bound", set()),
}
ABSENT = {  # findings that must not be there
    "k_fsdp_llama31_8b_a100_40gb": {"weights_exceed_device", "train_state_exceeds_device"},
    "k_fp8_int8_training_mi250x": {"train_state_exceeds_device"},
}


@pytest.fixture(scope="module")
def diagnoses(knowledge):
    names = {*FIGURES, *REGIMES, *VERDICTS}
    return {name: api.diagnose(CASES_DIR / f"{name}.yaml", knowledge) for name in names}


@pytest.mark.parametrize(("name", "fact", "expected"),
                         [(n, f, v) for n, figs in FIGURES.items() for f, v in figs.items()],
                         ids=[f"{n}-{f}" for n, figs in FIGURES.items() for f in figs])
def test_figure_from_first_principles(diagnoses, name, fact, expected):
    assert diagnoses[name].fact_value(fact) == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("name", sorted(REGIMES))
def test_regime_and_findings_from_first_principles(diagnoses, name):
    regime, findings = REGIMES[name]
    d = diagnoses[name]
    assert d.fact_value("regime") == regime
    assert findings <= {c.id for c in d.of_kind("finding")}
    assert not ABSENT.get(name, set()) & {c.id for c in d.of_kind("finding")}


def test_gemma2_config_names_what_it_does_not_model(diagnoses):
    written = str(diagnoses["k_gemma2_config_decode_h100"].facts["config_unread_fields"].written)
    assert {"attn_logit_softcapping", "final_logit_softcapping", "sliding_window"} <= set(written.split(", "))


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_verdicts_from_first_principles(diagnoses, name):
    fixes, rejects, asks = VERDICTS[name]
    d = diagnoses[name]
    assert fixes <= {c.lever for c in d.of_kind("fix")}
    assert rejects <= {c.lever for c in d.of_kind("reject")}
    assert asks <= {c.id for c in d.of_kind("ask")}


def test_fp8_is_rejected_on_the_capability_not_the_name(diagnoses):
    for name in ("k_fp8_gemm_a100_prefill", "k_fp8_int8_training_mi250x"):
        reject = next(c for c in diagnoses[name].of_kind("reject") if c.lever == "fp8_gemm")
        assert reject.rule == "no_fp8_matrix_cores" and "fp8_tensor_cores 0" in reject.because


def test_speculation_waits_on_its_acceptance_rate(diagnoses):
    fixes = diagnoses["k_speculative_batch1_l4"].of_kind("fix")
    fix = next(c for c in fixes if c.lever == "speculative_decoding")
    assert fix.condition and "accepted" in fix.condition


def test_itl_complaint_orders_the_fixes(diagnoses):
    """One user's ITL: the fixes that shorten a step lead, batching (aggregate throughput) trails."""
    d = diagnoses["k_itl_complaint_h100"]
    ranked = [c.lever for c in sorted(d.of_kind("fix"), key=lambda c: c.rank or 99) if c.rank]
    assert ranked[:2] == ["speculative_decoding", "quantize_int8"]
    assert ranked[-1] == "continuous_batching"
    ceiling = H100_BW / (2 * L31_8B_ACTIVE + 2048 * KV_L31_8B)
    assert d.fact_value("ceiling_tokens_per_s") == pytest.approx(ceiling, rel=0.01)


def test_without_a_complaint_the_solution_order_stands(knowledge, tmp_path):
    """The same case with no complaint ranks by the packs' priorities (continuous batching first)."""
    body = yaml.safe_load((CASES_DIR / "k_itl_complaint_h100.yaml").read_text(encoding="utf-8"))
    del body["facts"]["complaint"]
    path = tmp_path / "no_complaint.yaml"
    path.write_text(yaml.safe_dump(body), encoding="utf-8")
    d = api.diagnose(path, knowledge)
    ranked = [c.lever for c in sorted(d.of_kind("fix"), key=lambda c: c.rank or 99) if c.rank]
    assert ranked[0] == "continuous_batching"


@pytest.mark.parametrize(("order", "says"), [
    ("by: phase\n  orders:\n    decode: {first: [no_such_lever]}", "unknown lever 'no_such_lever'"),
    ("by: batch\n  orders: {}", "not a category fact"),
    ("by: complaint\n  orders:\n    latency: {first: [raise_batch]}", "'latency' is not a value"),
    ("by: complaint\n  orders:\n    itl: {first: [raise_batch], last: [raise_batch]}", "listed twice"),
])
def test_bad_fix_order_is_refused_at_load(tmp_path, order, says):
    layer = tmp_path / "site.yaml"
    layer.write_text(f"pack: site\ndescription: d\nfix_order:\n  {order}\n", encoding="utf-8")
    with pytest.raises(RegimeError) as info:
        load_knowledge(load_vocabulary(), [RULES_DIR, layer])
    assert says in str(info.value) and info.value.file == str(layer)
