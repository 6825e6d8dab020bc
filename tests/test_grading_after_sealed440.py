"""Classes from the development pool through sealed440 (issue 27), each with the student's own
sentences."""

from __future__ import annotations

from conftest import answer_file, read_body


def _rejected(grader, tmp_path, case: str, body: str) -> set[str]:
    return {c for m in read_body(grader, tmp_path, case, body).rejects for c in m.concepts}


def test_a_dont_line_under_fixes_rejects_the_claim_it_names_by_meaning(grader, tmp_path):
    """sealed432 b.s4346 (instructor 100: the second engineer's claim refused): '- Don't: accept
    "compute-bound, so the memory-bound kernels can be ignored" as settled.' under Fixes names no
    lever by alias; a negated item there rejects as a Reject item does, the claim included. An
    affirmed item naming no lever is still no rejection."""
    said = ("## Fixes\n1. torch.compile first.\n- Don't: accept \"compute-bound, so the memory-bound "
            "kernels can be ignored\" as settled. Compute-bound describes the FLOP-carrying kernels, "
            "not the 22% of time in kernels with no FLOPs.\n")
    claim = "memory_ops_irrelevant_when_compute_bound"
    assert claim in _rejected(grader, tmp_path, "b_training_run", said)
    kept = said.replace("Don't: accept", "Accept")
    assert claim not in _rejected(grader, tmp_path, "b_training_run", kept)


def test_a_label_naming_proposals_the_student_drops_refuses_what_follows(grader, tmp_path):
    """sealed361 b.s3631 (instructor 100): "One more proposal I'd drop: fusing attention. It
    already runs as flash-attention ..." refused the fusion as "What I would skip:" does."""
    for said in ("One more proposal I'd drop: fusing attention.",
                 "Two proposals I'd decline: fusing attention and raising the batch."):
        assert "fuse_attention" in _rejected(grader, tmp_path, "b_training_run", said)



def test_a_gain_written_as_its_factor_states_it(grader, tmp_path):
    """sealed372 b.s3742 (instructor 94: the bound in full): "61 / (1 - 0.22) ≈ 78% of peak, ~1.28x
    faster steps, not 2x" states the ~28% step-time gain; a factor of another gain does not."""
    def missing(said: str) -> bool:
        r = grader.grade(answer_file(tmp_path, "b_training_run", f"## Evidence\n- {said}\n"))
        return "step-time gain" in " ".join(next(p for p in r.parts if p.part == "evidence").feedback)
    assert not missing("Ceiling: 61 / (1 - 0.22) ≈ 78% of peak, ~1.28x faster steps, not 2x.")
    assert missing("Ceiling: 61 / (1 - 0.22) ≈ 78% of peak, ~1.5x faster steps.")


def test_a_verdict_qualified_away_from_the_keys_keeps_half_the_regime(grader, tmp_path):
    """sealed441 b.s4435 (instructor 68: "regime qualified away: half"): "compute-bound on paper,
    but in practice this step is memory-bound". The key's regime given in principle earns half
    the part, and its figures are not read to another regime; a plain wrong verdict earns none."""
    def regime_points(said: str) -> tuple[float, list[str]]:
        evidence = "## Evidence\n- 61% of peak FLOP rate; 22% of kernel time in no-FLOP ops.\n"
        r = grader.grade(answer_file(tmp_path, "b_training_run", f"## Regime\n{said}\n\n{evidence}"))
        parts = {p.part: p for p in r.parts}
        return parts["regime"].points / parts["regime"].max_points, parts["evidence"].feedback
    share, feedback = regime_points("Compute-bound on paper, but in practice this step is memory-bound.")
    assert abs(share - 0.5) < 0.01 and not any("another regime" in f for f in feedback)
    share, feedback = regime_points("Memory-bound.")
    assert share == 0.0 and any("another regime" in f for f in feedback)
