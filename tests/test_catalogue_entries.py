"""The catalogue's entries for the models and GPUs users have (issue 28): each model read from its
config.json gives the same shape, each GPU states what its matrix cores can do."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from regime.engine.knowledge.model import Knowledge
from regime.facts import catalogue, hf_config

CONFIGS = Path(__file__).parent / "data" / "hf_configs"
EXPECTED = yaml.safe_load((CONFIGS / "EXPECTED.yaml").read_text(encoding="utf-8"))
# catalogue entry -> its config in tests/data/hf_configs
FROM_CONFIG = {
    "qwen2.5-7b": "Qwen2.5-7B-Instruct", "qwen2.5-0.5b": "Qwen2.5-0.5B", "qwen3-30b-a3b": "Qwen3-30B-A3B",
    "gemma-2-9b": "gemma-2-9b-it", "phi-3-mini": "Phi-3-mini-4k-instruct",
    "deepseek-v2-lite": "DeepSeek-V2-Lite", "gpt2": "gpt2", "opt-1.3b": "opt-1.3b", "opt-6.7b": "opt-6.7b",
    "llama-3.1-8b": "Llama-3.1-8B", "llama-3.1-70b": "Llama-3.1-70B",
    "mixtral-8x7b": "Mixtral-8x7B-v0.1", "mistral-7b": "Mistral-7B-v0.1",
}
CAPABILITIES = ("fp8_tensor_cores", "int8_tensor_cores", "sparsity_speedup")


@pytest.mark.parametrize("key", sorted(FROM_CONFIG))
def test_catalogue_model_is_what_its_config_says(knowledge: Knowledge, key: str) -> None:
    _, entry = catalogue.lookup("models", key)
    shape = hf_config.read(CONFIGS / FROM_CONFIG[key] / "config.json")
    read = {r.name: r.value for r in hf_config.records(shape, knowledge.vocabulary, key)}
    for fact in set(entry) - {"name", "aliases", "source"}:
        assert entry[fact] == read[fact], fact
    assert entry.get("source")


@pytest.mark.parametrize("key", sorted(k for k, d in FROM_CONFIG.items() if EXPECTED[d]["within_1pct"]))
def test_catalogue_params_within_one_percent_of_the_card(key: str) -> None:
    stated = EXPECTED[FROM_CONFIG[key]]["stated"]["total"]
    assert catalogue.lookup("models", key)[1]["params"] == pytest.approx(stated, rel=0.01)


@pytest.mark.parametrize("gpu", catalogue.names("hardware"))
def test_every_gpu_states_its_matrix_core_capabilities(gpu: str) -> None:
    _, entry = catalogue.lookup("hardware", gpu)
    assert set(CAPABILITIES) <= set(entry)
    for fact in CAPABILITIES:
        assert entry[fact]["source"]
    # the capability fact and the per-dtype peaks say the same thing
    has_fp8 = "fp8" in entry["peak_flops_by_dtype"]
    assert has_fp8 == (entry["fp8_tensor_cores"]["value"] == "1")
    assert ("int8" in entry["peak_flops_by_dtype"]) == (entry["int8_tensor_cores"]["value"] == "1")


@pytest.mark.parametrize("gpu", ["A100_40GB", "A100_PCIe", "H100_NVL", "L4"])
def test_new_gpus_have_bandwidth_capacity_and_dtype_peaks(gpu: str) -> None:
    _, entry = catalogue.lookup("hardware", gpu)
    assert {"hbm_capacity", "peak_bw", "link_bw", "peak_flops_by_dtype"} <= set(entry)
    assert {"bf16", "fp16", "int8", "fp32"} <= set(entry["peak_flops_by_dtype"])
