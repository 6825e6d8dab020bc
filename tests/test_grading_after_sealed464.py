"""Classes from the development pool through sealed464 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import read_body


def _regime(grader, tmp_path, case: str, body: str) -> str | None:
    return read_body(grader, tmp_path, case, body).regime


def test_a_regime_in_name_is_the_nominal_one(grader, tmp_path):
    """sealed457 e.s4599 (instructor 95, graded 62 as bandwidth-bound): "bandwidth-bound in name —
    it's batch-1 decode — but actually it is overhead-bound" commits to overhead-bound."""
    said = ("Regime: bandwidth-bound in name — it's batch-1 decode — but actually it is overhead-bound: "
            "the GPU is starved by kernel launches.")
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) == "overhead_bound"
    plain = "Regime: bandwidth-bound — it's batch-1 decode — and the launches add to it."
    assert _regime(grader, tmp_path, "e_doesnt_add_up", plain) == "bandwidth_bound"
