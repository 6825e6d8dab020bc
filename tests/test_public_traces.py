"""Public Kineto traces through `diagnose --trace`, each beneath a plausible case
(tests/data/public_traces/README.md): every verdict agrees with what the trace itself measures
(EXPECTED.yaml, written before the pairs were run) and none contradicts the trace's figures —
overhead-bound only with the idle share the pack asks for; CUDA graphs never for kernels already
graphed or for idle held in a few long gaps; every speedup figure at least 1×, an expected figure
within its bound, and a launch-gap bound no more than removing all idle time gives."""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT, TESTS

from regime.engine.cli import core

FOLDER = TESTS / "data" / "public_traces"
EXPECTED = yaml.safe_load((FOLDER / "EXPECTED.yaml").read_text(encoding="utf-8"))["cases"]


@pytest.fixture(scope="module")
def diagnoses(knowledge):
    return {name: core.diagnosis(FOLDER / f"{name}.yaml", knowledge, "compiled", trace=ROOT / e["trace"])
            for name, e in EXPECTED.items()}


def _fixes(d) -> dict:
    return {c.lever: c for c in d.of_kind("fix")}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_verdict_is_what_the_trace_says(diagnoses, name):
    d, e = diagnoses[name], EXPECTED[name]
    regime = d.fact_value("regime")
    if "regime" in e:
        assert regime == e["regime"], (name, regime)
    if "not_regime" in e:
        assert regime != e["not_regime"], (name, regime)
    fixes = _fixes(d)
    assert set(e.get("fixes", [])) <= set(fixes), (name, sorted(fixes))
    assert not set(e.get("not_fixes", [])) & set(fixes), (name, sorted(fixes))
    findings = {c.id for c in d.of_kind("finding")}
    assert set(e.get("findings", [])) <= findings, (name, sorted(findings))
    for c in fixes.values():
        if c.speedup_bound is not None and "max_bound" in e:
            assert c.speedup_bound <= e["max_bound"], (name, c.lever, c.speedup_bound)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_no_verdict_contradicts_the_trace(diagnoses, knowledge, name):
    d, p = diagnoses[name], knowledge.scalar_values()
    idle = d.fact_value("gpu_idle_share")
    assert idle is not None, name  # every pair here has a trace beneath it
    if d.fact_value("regime") == "overhead_bound":
        assert idle >= p["idle_overhead_bound"], (name, idle)
    fixes = _fixes(d)
    if "cuda_graphs" in fixes:
        assert (d.fact_value("graphed_kernel_share") or 0) < p["graphed_already"], name
        assert (d.fact_value("long_gap_idle_share") or 0) < p["long_gaps_dominate"] * idle, name
    for c in fixes.values():
        if c.speedup_bound is None:
            continue
        assert c.speedup_bound >= 1, (name, c.lever, c.speedup_bound)
        if c.speedup_expected is not None:
            assert c.speedup_expected <= c.speedup_bound * (1 + 1e-9), (name, c.lever)
        if c.speedup_fact == "launch_gap_speedup":
            assert c.speedup_bound <= 1 / (1 - min(idle, 0.999)) * (1 + 1e-9), (name, c.lever)
