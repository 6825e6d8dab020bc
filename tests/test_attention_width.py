"""Attention FLOPs count the attention's own width, heads × head_dim, not the model width
(issue 28): Gemma 2 (16 × 256 = 4,096 against a width of 3,584) and Qwen3 (32 × 128 = 4,096
against 2,048) set them apart. Expectations worked from the models' config.json files
(tests/data/hf_configs) and written before the derivations changed; nothing here was copied
from a run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from regime.engine import api

# Gemma-2-9B: 42 layers, width 3,584, 16 heads of 256, 8 KV heads, gated MLP of 14,336, vocabulary
# 256,000 (tied). One layer's GEMM weights: Q and O are 3,584 × 4,096, K and V 3,584 × 2,048,
# the MLP 3 × 3,584 × 14,336.
G_LAYERS, G_WIDTH, G_ATTN, G_KV = 42, 3584, 16 * 256, 8 * 256
G_LAYER_PARAMS = 2 * G_WIDTH * G_ATTN + 2 * G_WIDTH * G_KV + 3 * G_WIDTH * 14336
# ... which with the vocabulary matrix and the norms (4 per layer, 1 final, each 3,584 wide) is the
# Gemma 2 report's exact count: the layer count above is the model's.
G_NORMS = (4 * G_LAYERS + 1) * G_WIDTH
# Qwen3-30B-A3B: 48 layers, width 2,048, 32 heads of 128.
Q_LAYERS, Q_ATTN = 48, 32 * 128
PAIR = 4  # FLOPs per query token, context token and unit of attention width (QKᵀ and ·V)


def test_gemma2_layer_weights_add_up_to_the_published_count():
    assert G_LAYERS * G_LAYER_PARAMS + 256000 * G_WIDTH + G_NORMS == 9_241_705_984


def _diagnose(tmp_path, knowledge, model, facts, name="c"):
    case = {"title": f"{model} attention width", "hardware": "H100", "model": model,
            "facts": {"weight_dtype": "bf16", "compute_dtype": "bf16", **facts}}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(case))
    return api.diagnose(path, knowledge, engine="compiled")


def test_gemma2_decode_attention_counts_heads_times_head_dim(knowledge):
    d = api.diagnose(api.resolve_case("k_gemma2_config_decode_h100"), knowledge, engine="compiled")
    assert d.fact_value("decode_attention_flops") == pytest.approx(PAIR * G_LAYERS * G_ATTN * 2048)
    assert d.fact_value("layer_params") == pytest.approx(G_LAYER_PARAMS)
    # GEMMs (2 FLOPs per layer weight) equal attention (4 × width per context token) at N tokens
    assert d.fact_value("attention_crossover_tokens") == pytest.approx(2 * G_LAYER_PARAMS / (PAIR * G_ATTN))


def test_qwen3_prefill_attention_counts_heads_times_head_dim(tmp_path, knowledge):
    d = _diagnose(tmp_path, knowledge, "qwen3-30b-a3b",
                  {"phase": "prefill", "batch": 1, "tokens_per_seq": 4096})
    assert d.fact_value("prefill_attention_flops") == pytest.approx(0.5 * PAIR * Q_LAYERS * Q_ATTN * 4096**2)


def test_gemma2_training_attention_counts_heads_times_head_dim(tmp_path, knowledge):
    d = _diagnose(tmp_path, knowledge, "gemma-2-9b",
                  {"phase": "training", "batch": 8, "tokens_per_seq": 4096})
    attention = d.fact_value("forward_flops_per_token") - 2 * d.fact_value("active_params")
    assert attention == pytest.approx(0.5 * PAIR * G_LAYERS * G_ATTN * 4096)


def test_where_heads_split_the_width_nothing_moves(tmp_path, knowledge):
    d = _diagnose(tmp_path, knowledge, "llama-3.1-8b",
                  {"phase": "decode", "batch": 1, "context_tokens": 1024})
    assert d.fact_value("decode_attention_flops") == pytest.approx(PAIR * 32 * 4096 * 1024)


# DeepSeek-V2-Lite (MLA): 27 layers, 16 heads; QKᵀ runs over nope 128 + rope 64 = 192 per head, AV
# over v_head_dim 128. Per query token and context token: 2 × 16 × 192 + 2 × 16 × 128 FLOPs =
# PAIR × 16 × (192 + 128) / 2, so the attention width is 2,560 (the model width is 2,048).
D_LAYERS, D_ATTN = 27, 16 * (128 + 64 + 128) // 2


def test_mla_attention_counts_the_score_and_value_widths(tmp_path, knowledge):
    config = Path(__file__).parent / "data" / "hf_configs" / "DeepSeek-V2-Lite" / "config.json"
    shutil.copy(config, tmp_path / "config.json")
    d = _diagnose(tmp_path, knowledge, "config.json",
                  {"phase": "decode", "batch": 1, "context_tokens": 2048})
    assert d.fact_value("attention_width") == D_ATTN == 2560
    assert d.fact_value("decode_attention_flops") == pytest.approx(PAIR * D_LAYERS * D_ATTN * 2048)
