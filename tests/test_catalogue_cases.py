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

FIGURES = {
    "k_gemma2_config_decode_h100": {
        "kv_bytes_per_token": GEMMA2_KV,
        "capacity_bytes": GEMMA2_PARAMS * 2,
        "ceiling_tokens_per_s": H100_BW / (GEMMA2_PARAMS * 2 + 2048 * GEMMA2_KV),
        "traffic_fraction": 120 / (H100_BW / (GEMMA2_PARAMS * 2 + 2048 * GEMMA2_KV)),
    },
}
# case -> (regime, findings that must be present)
REGIMES = {
    "k_gemma2_config_decode_h100": ("bandwidth_bound", {"config_fields_not_modelled"}),
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


def test_gemma2_config_names_what_it_does_not_model(diagnoses):
    written = str(diagnoses["k_gemma2_config_decode_h100"].facts["config_unread_fields"].written)
    assert {"attn_logit_softcapping", "final_logit_softcapping", "sliding_window"} <= set(written.split(", "))
