"""Classes from the sealed281-288 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import read_body

_CLAIM = "memory_ops_irrelevant_when_compute_bound"


def _rejected(grader, tmp_path, case: str, body: str) -> set[str]:
    return {c for m in read_body(grader, tmp_path, case, body).rejects for c in m.concepts}


def test_a_claim_pointed_out_then_agreed_with_is_endorsed(grader, tmp_path):
    """sealed281 b.s2834 and sealed282 b.s2844 (instructors 1 and 5, graded 12 and 38 with the
    claim rejected): the second engineer 'pointed out' a claim negative in itself, and the
    student agrees with it in the same sentence or the next ('I think that's right'). The
    negation is the claim's, not the student's."""
    same = ("The step reaches 61% of peak, which makes it compute-bound. The second engineer pointed out "
            "that in a compute-bound job the memory-bound kernels are not on the critical path, and I "
            "think that is right: the GEMMs set the pace.\n")
    a = read_body(grader, tmp_path, "b_training_run", same)
    assert _CLAIM in a.endorsed and _CLAIM not in {c for m in a.rejects for c in m.concepts}
    nxt = ("The run is compute-bound at 61% of peak FLOPs. The second engineer pointed out that since we "
           "are compute-bound, the memory-bound ops shouldn't matter much. I think that's right: the "
           "GEMMs dominate the step.\n")
    assert _CLAIM not in _rejected(grader, tmp_path, "b_training_run", nxt)


def test_an_agreement_a_contrast_takes_back_agrees_with_nothing(grader, tmp_path):
    """sealed151 b.s1534 (instructor 100): 'I agree with the first engineer's diagnosis, though not
    with the first step of the plan' after refuting the second engineer endorses no claim."""
    said = ('The second engineer\'s line was, roughly: "we are compute-bound, so the memory-bound ops '
            'can\'t matter." The first half is true and the second half doesn\'t follow from it. I agree '
            "with the first engineer's diagnosis, though not with the first step of the plan.\n")
    assert _CLAIM not in read_body(grader, tmp_path, "b_training_run", said).endorsed


def test_an_agreement_whose_reason_names_a_lever_still_agrees(grader, tmp_path):
    """sealed288 b.s2910 (instructor 8, graded 30 with the claim rejected): 'I think that's right:
    ... so two weeks of hand-fusion would be mostly wasted.' The lever named after the colon is the
    agreement's reason; the agreement is with the claim reported before it."""
    said = ("The step is compute-bound at 61% of peak. One of the engineers pointed out that because we are "
            "compute-bound, the memory-bound ops don't really matter. I think that's right: the norms and "
            "elementwise ops are cheap kernels, and the matmuls are where the time goes, so two weeks of "
            "hand-fusion would be mostly wasted.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert _CLAIM in a.endorsed and _CLAIM not in {c for m in a.rejects for c in m.concepts}
