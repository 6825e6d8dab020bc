"""Reading rules found among case A's dev-pool disagreements of more than 10 points (issue 27),
each with the answer that showed it: strong essays whose refusals and verdict were lost."""

from __future__ import annotations

from conftest import read_body


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def _fixes(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def test_suggestions_that_were_floated_are_no_counterfactual(grader, tmp_path):
    """sealed164 a.s1663 (instructor 100, graded 51): 'On the two suggestions that were floated: I
    doubt fusing the elementwise ops would be measurable at all ... so I would leave that alone.'
    The cue 'that were' normalized to a bare 'were' and made the passive a counterfactual."""
    body = ("Bandwidth-bound.\n\nOn the two suggestions that were floated: I doubt fusing the elementwise "
            "ops would be measurable at all, so I would leave that alone.\n")
    assert "fuse_elementwise" in _rejected(read_body(grader, tmp_path, "a_chatbot", body))


def test_a_state_the_step_would_reach_is_not_the_verdict(grader, tmp_path):
    """sealed164 a.s1663 (instructor 100, read as compute-bound): 'when the chip only becomes
    compute-limited around 247 FLOP per byte. So: bandwidth-bound'; sealed158 a.s1603: 'far below
    the 247 FLOP/byte where the MI300X would turn compute-limited'."""
    body = ("The GEMMs have M = 1, so they do about one FLOP per byte, when the chip only becomes "
            "compute-limited around 247 FLOP per byte. So: bandwidth-bound, and near the ceiling.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert a.regime == "bandwidth_bound", a.regime
    body = ("Each projection does one FLOP per byte, far below the 247 FLOP/byte where the MI300X would "
            "turn compute-limited.\n")
    assert read_body(grader, tmp_path, "a_chatbot", body, name="y.md").regime != "compute_bound"


def test_a_doubt_pointing_back_refuses(grader, tmp_path):
    """sealed157 a.s1593 (instructor 100, graded 80): 'As for a bigger-FLOPs GPU, I doubt it would
    buy anything — we already leave 96% of the compute on the table.'"""
    body = ("Bandwidth-bound.\n\nAs for a bigger-FLOPs GPU, I doubt it would buy anything — we already "
            "leave 96% of the compute on the table.\n")
    assert "buy_more_flops" in _rejected(read_body(grader, tmp_path, "a_chatbot", body))


def test_a_hedged_little_to_gain_refuses_not_recommends(grader, tmp_path):
    """sealed97 a.s993 (instructor 55: 'fusion rejection hedged', graded 36.5 with the fusion
    penalty): 'As for fusing the elementwise kernels, it's probably not worth much here since they
    are a small part of the work'. Not 'Check the to_copy casts, might be unnecessary fp32
    conversions' (sealed137 b.s1394), where the hedge opens the clause and names a problem."""
    body = ("Bandwidth-bound.\n\nAs for fusing the elementwise kernels, it's probably not worth much here "
            "since they are a small part of the work.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert "fuse_elementwise" in _rejected(a) and "fuse_elementwise" not in _fixes(a)
    body = "Compute-bound.\n\n## Fixes\n1. Check the to_copy casts, might be unnecessary fp32 conversions.\n"
    a = read_body(grader, tmp_path, "b_training_run", body, name="y.md")
    assert "fix_dtype_casts" not in _rejected(a)


def test_a_passive_refusal_refuses(grader, tmp_path):
    """sealed94 a.s963 (instructor 100, graded 75 with the fusion penalty): 'The suggestion to fuse
    the elementwise ops should be turned down — those ops move something like 0.04% of the bytes'."""
    body = ("Bandwidth-bound.\n\nThe suggestion to fuse the elementwise ops should be turned down — those "
            "ops move something like 0.04% of the bytes that the weight read does.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert "fuse_elementwise" in _rejected(a) and "fuse_elementwise" not in _fixes(a)
