"""Measurements that beat a physical limit are findings naming the suspects, not crashes."""

from __future__ import annotations

import pytest

from regime.engine import api

BASE = """\
title: consistency
hardware: {hw}
facts:
  phase: {phase}
  batch: 1
  weight_dtype: fp16
  compute_dtype: fp16
  weight_bytes: 26 GB
{extra}"""


def diagnose(tmp_path, knowledge, extra: str, phase: str = "decode", hw: str = "MI300X"):
    path = tmp_path / "c.yaml"
    path.write_text(BASE.format(extra=extra, phase=phase, hw=hw), encoding="utf-8")
    return api.diagnose(path, knowledge)


def inconsistent(d) -> list[str]:
    return [c.because for c in d.of_kind("finding") if c.id == "inconsistent_data"]


def test_decode_faster_than_the_weight_read(tmp_path, knowledge):
    # 5.3 TB/s / 26 GB ≈ 204 tokens/s at batch 1 on MI300X: 300 tokens/s is impossible
    d = diagnose(tmp_path, knowledge, "  throughput: 300 tokens/s\n")
    [why] = inconsistent(d)
    assert "beats the bandwidth ceiling" in why and "throughput" in why and "weight_bytes" in why


def test_prefill_weight_read_above_peak(tmp_path, knowledge):
    # 26 GB / 100 tokens per pass = 260 MB per token; at 100,000 tokens/s that is 26 TB/s
    d = diagnose(tmp_path, knowledge, "  tokens_per_seq: 100\n  throughput: 100000 tokens/s\n",
                 phase="prefill")
    [why] = inconsistent(d)
    assert "more than the 5300 GB/s peak" in why


def test_transient_above_capacity(tmp_path, knowledge):
    d = diagnose(tmp_path, knowledge, "  transient_memory: 300 GB\n", hw="H100_SXM")
    [why] = inconsistent(d)
    assert "300 GB transient cannot fit in 80 GB" in why


def test_profiler_bandwidth_below_the_weight_read(tmp_path, knowledge):
    # 160 tokens/s × 26 GB = 78% of peak, but the profiler claims 30%
    d = diagnose(tmp_path, knowledge, "  throughput: 160 tokens/s\n  bw_util: 30%\n  flop_util: 4%\n")
    [why] = inconsistent(d)
    assert "suspect bw_util" in why


@pytest.mark.parametrize("extra", ["  throughput: 160 tokens/s\n  bw_util: 78%\n  flop_util: 4%\n"])
def test_consistent_data_raises_nothing(tmp_path, knowledge, extra):
    assert inconsistent(diagnose(tmp_path, knowledge, extra)) == []


def test_inline_hardware_with_a_missing_dtype(tmp_path, knowledge):
    inline = ("{name: lab card, peak_bw: 1 TB/s, hbm_capacity: 32 GB,"
              " peak_flops_by_dtype: {fp16: 100 TFLOP/s}}")
    d = diagnose(tmp_path, knowledge, "", hw=inline)
    assert round(d.fact_value("ridge_point")) == 100
    assert d.facts["peak_bw"].source == "measured"
    path = tmp_path / "fp8.yaml"
    path.write_text(BASE.format(extra="", phase="decode", hw=inline).replace("compute_dtype: fp16",
                                                                            "compute_dtype: fp8"))
    d = api.diagnose(path, knowledge)
    failed = [c.because for c in d.of_kind("finding") if c.id == "derivation_failed"]
    assert failed and "peak_flops_by_dtype__fp8" in failed[0]


def test_flop_util_that_needs_more_bandwidth_than_peak(tmp_path, knowledge):
    # 66% of the FLOP peak at a decode pass's intensity (weights and KV cache) needs more bytes per
    # second than the memory delivers: the profiler figure is wrong, whatever the throughput says
    path = tmp_path / "c.yaml"
    path.write_text("title: t\nhardware: H100_SXM\nmodel: llama-3-8b\nfacts:\n  phase: decode\n"
                    "  batch: 512\n  context_tokens: 1024\n  weight_dtype: bf16\n  compute_dtype: bf16\n"
                    "  flop_util: 66%\n  bw_util: 40%\n", encoding="utf-8")
    d = api.diagnose(path, knowledge)
    assert any("more than the 3350 GB/s peak" in why for why in inconsistent(d)), inconsistent(d)


def test_profiler_figure_and_measured_rate_disagree(tmp_path, knowledge):
    # 160 tokens/s of a 26 GB weight read is 78% of MI300X bandwidth; a profiler's 99% means 21 points
    # of traffic the weights do not explain: a finding, not an inconsistency
    d = diagnose(tmp_path, knowledge, "  throughput: 160 tokens/s\n  bw_util: 99%\n  flop_util: 4%\n")
    assert inconsistent(d) == []
    assert [c.id for c in d.of_kind("finding") if c.id == "uncounted_traffic"] == ["uncounted_traffic"]
