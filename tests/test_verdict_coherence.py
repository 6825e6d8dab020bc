"""A verdict never contradicts a finding of the same report: over every shipped case and the
real-GPU runs with their traces, each finding below holds only where the verdict agrees with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from regime.engine import api
from regime.engine.knowledge.paths import builtin_cases
from regime.engine.trace import merge

DATA = Path(__file__).parent / "data"
REAL = sorted((DATA / "h200_cases").glob("*.yaml"))
TRACE_OF = {"decode_b1": "h200_decode_b1", "decode_b256": "h200_decode_b256",
            "prefill_b1_4096": "h200_prefill_b1_4096", "train_1b": "h200_train_1b_b8x2048"}


def _regime(d):
    return d.fact_value("regime") if "regime" in d.facts else None


# finding id -> what it asserts about the verdict of the same report
AGREES = {
    "gpu_busy_in_trace": lambda d: _regime(d) != "overhead_bound",
    "near_ceiling": lambda d: _regime(d) != "overhead_bound",
    "theory_only": lambda d: _regime(d) is None,
    "theory_agrees": lambda d: _regime(d) in (d.fact_value("nominal_regime"), "balanced"),
    "regime_mismatch": lambda d: _regime(d) != d.fact_value("nominal_regime"),
    "compute_bound_underperforming": lambda d: _regime(d) != "bandwidth_bound",
}


def _fixed_and_rejected(d) -> set[str]:
    fixed = {c.lever for c in d.conclusions if c.kind == "fix"}
    return fixed & {c.lever for c in d.conclusions if c.kind == "reject"}


def _check(d, k) -> None:
    for c in d.conclusions:
        if c.kind == "finding" and c.id in AGREES:
            assert AGREES[c.id](d), f"finding {c.id} ({c.rule}) against regime {_regime(d)}"
    idle = d.facts.get("gpu_idle_share")
    if idle is not None and idle.value >= k.parameters["idle_overhead_bound"].value:
        assert _regime(d) == "overhead_bound", "a GPU idle most of the window is overhead-bound"
    if idle is not None and idle.value < k.parameters["idle_notable"].value:
        assert _regime(d) != "overhead_bound" and "cuda_graphs" not in {
            c.lever for c in d.conclusions if c.kind == "fix"}
    assert not _fixed_and_rejected(d)


@pytest.mark.parametrize("path", builtin_cases(), ids=lambda p: p.stem)
def test_shipped_case_verdict_agrees_with_its_findings(path, knowledge):
    _check(api.diagnose(path, knowledge), knowledge)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.stem)
def test_real_run_with_trace_agrees_with_its_findings(path, knowledge):
    [outcome] = merge.diagnose_all(DATA / f"{TRACE_OF[path.stem]}.json.gz", [path], knowledge)
    _check(outcome.diagnosis, knowledge)
