"""Cases for issue 28 (models given as a config.json, the catalogue's new GPUs and models,
parallelism forms, verdicts): expectations written from first principles before the tool ran on
them; each case file's header shows the arithmetic. Nothing here was copied from a run."""

from __future__ import annotations

import pytest

from regime.engine import api
from regime.engine.knowledge.paths import CASES_DIR

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
}
# case -> (regime, findings that must be present)
REGIMES = {
    "k_gemma2_config_decode_h100": ("bandwidth_bound", {"config_fields_not_modelled"}),
    "k_fsdp_llama31_8b_a100_40gb": ("compute_bound", {"dp_comm_minor"}),
}
ABSENT = {  # findings that must not be there
    "k_fsdp_llama31_8b_a100_40gb": {"weights_exceed_device", "train_state_exceeds_device"},
}


@pytest.fixture(scope="module")
def diagnoses(knowledge):
    return {name: api.diagnose(CASES_DIR / f"{name}.yaml", knowledge) for name in {*FIGURES, *REGIMES}}


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
