"""Properties over generated cases (tests/casegen.py), issue 23: one lever, one verdict; every fix
with a speedup figure says at most N× with N ≥ 1 and names its basis, and an expected figure never
exceeds the bound; overhead-bound only with idle evidence or a profiler's pair, never from the
pass rate's lower bounds alone."""

from __future__ import annotations

import casegen
import pytest

from regime.engine import api


@pytest.fixture(scope="module")
def diagnoses(knowledge, tmp_path_factory):
    folder = tmp_path_factory.mktemp("one_verdict")
    out = []
    for name, mapping in casegen.generated(150, seed=23, levers=sorted(knowledge.levers)):
        result = api.outcome(casegen.write(mapping, folder / f"{name}.yaml"), knowledge, "compiled")
        if result.error is None:
            out.append(result.diagnosis)
    assert len(out) >= 100
    return out


def test_a_lever_is_never_both_fixed_and_rejected(diagnoses):
    for d in diagnoses:
        fixed = {c.lever for c in d.of_kind("fix")}
        rejected = {c.lever for c in d.of_kind("reject") if c.lever}
        assert not fixed & rejected, (d.case, fixed & rejected)


def test_speedup_figures_are_factors_with_a_basis(diagnoses):
    seen = 0
    for d in diagnoses:
        for c in d.of_kind("fix"):
            if c.speedup_bound is None:
                continue
            seen += 1
            assert c.speedup_basis, (d.case, c.lever)
            assert c.speedup_bound > 0, (d.case, c.lever)
            if c.speedup_expected is not None:
                assert c.speedup_expected <= c.speedup_bound * (1 + 1e-9), (d.case, c.lever)
    assert seen > 50


def test_overhead_bound_needs_idle_evidence_or_a_profilers_pair(diagnoses):
    for d in diagnoses:
        if d.fact_value("regime") != "overhead_bound":
            continue
        idle = d.fact_value("gpu_idle_share") is not None or d.fact_value("gap_fraction") is not None
        assert idle or d.fact_value("utils_from_pass_rate") is None, d.case
