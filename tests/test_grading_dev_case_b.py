"""Reading rules found in the case B (training run) disagreements of the dev pool (issue 27), each
with the answer that showed it."""

from __future__ import annotations

from conftest import read_body

CLAIM = "memory_ops_irrelevant_when_compute_bound"


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def test_siding_with_the_speaker_endorses_a_claim_negative_in_itself(grader, tmp_path):
    """sealed166 b.s1684 (instructor 0, graded 22.5): 'I side with the second engineer here. ...
    the layer norms and elementwise ops can't be the bottleneck': the student's own statement of
    the claim, not a rejection of it."""
    body = ("I side with the second engineer here. At 61% MFU the step is compute-bound, so the layer norms "
            "and elementwise ops can't be the bottleneck; they are memory-bound kernels and the memory "
            "system is not what limits a compute-bound job. Spending two weeks hand-fusing them would be "
            "wasted effort.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert CLAIM in a.endorsed and CLAIM not in _rejected(a)


def test_the_speaker_is_right_endorses_what_follows_the_colon(grader, tmp_path):
    """sealed81 b.s834 (instructor 1, graded 16.5): a Fixes item 'the second engineer is right:
    memory-bound ops like layer_norm and silu don't matter much'."""
    body = ("## Regime\nCompute-bound.\n\n## Fixes\n1. Since the step is compute-bound, the second "
            "engineer is right: memory-bound ops like layer_norm and silu don't matter much.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert CLAIM in a.endorsed and CLAIM not in _rejected(a)


def test_siding_with_the_other_party_endorses_nothing(grader, tmp_path):
    """sealed96 b.s983 (instructor 90): 'the first engineer is right that the memory-bound ops
    matter, and the second engineer's line - "..." - doesn't survive': the claim's holder, named
    in the answer, is not the one the student sides with."""
    body = ("Short version: the first engineer is right that the memory-bound ops matter, and the second "
            "engineer's line - \"we're compute-bound, so memory-bound ops don't matter\" - doesn't survive "
            "a look at the profile. Yes, 61% of peak is a properly compute-bound step.\n")
    assert CLAIM not in read_body(grader, tmp_path, "b_training_run", body).endorsed


def test_a_conceded_point_is_no_side(grader, tmp_path):
    """sealed100 b.s1026 (instructor 62): 'The second engineer has a point - the GEMMs are where the
    FLOPs are - but I don't think it means the memory-bound ops can be ignored'."""
    body = ("61% of peak is a compute-bound training step. The second engineer has a point - the GEMMs are "
            "where the FLOPs are - but I don't think it means the memory-bound ops can be ignored.\n")
    assert CLAIM not in read_body(grader, tmp_path, "b_training_run", body).endorsed
