"""Classes from the sealed337-352 sets, development data once measured (issue 27), each with the
student's own sentences."""

from __future__ import annotations

from conftest import lever_statuses, read_body


def test_the_opposite_of_a_memory_starved_loop_with_busy_matrix_units_is_compute_bound(grader, tmp_path):
    """sealed350 d.s3521 (instructor 100, graded 61 as bandwidth-bound): 'That is the opposite of a
    memory-starved decode: the matrix units are the busy resource and the memory system is mostly
    idle.' 'opposite of' denies the limiter after it; 'matrix units' name the compute side."""
    said = ("That is the opposite of a memory-starved decode: the matrix units are the busy resource "
            "and the memory system is mostly idle.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", said)
    assert a.regime == "compute_bound"


def test_a_busy_resource_names_the_regime(grader, tmp_path):
    """sealed345 a.s3480 (instructor 76: the regime in full; graded with none): 'The matrix units are
    nearly idle (4% of peak FLOP/s) and HBM is busy (78% of peak)'."""
    said = "The matrix units are nearly idle (4% of peak FLOP/s) and HBM is busy (78% of peak).\n"
    assert read_body(grader, tmp_path, "a_chatbot", said).regime == "bandwidth_bound"


def test_when_i_looked_tells_a_time_and_puts_nothing_off(grader):
    """sealed348 b.s3505 (instructor 76, graded with compile deferred): 'When I looked at how our other
    training jobs handled the same pattern, the team there simply turned on torch.compile ..., so
    that's what I would do here first.' A 'when' clause with a person and a past verb tells when;
    'when we are bandwidth-bound' is still a condition."""
    told = ("When I looked at how our other jobs handled it, the team there simply turned on "
            "torch.compile, so that's what I would do here first.")
    assert lever_statuses(grader, told) == {"torch_compile": "affirmed"}
    waits = "When the loop is really bandwidth-bound, batching becomes worth it."
    assert set(lever_statuses(grader, waits).values()) != {"affirmed"}


def test_a_verb_of_speech_a_few_words_before_a_quotation_reports_it(grader):
    """sealed348 c.s3508 (instructor 92, graded 63 with batching recommended): 'Ravi said in standup,
    "batch the prefills and we'll use the GPU better."'"""
    said = 'Ravi said in standup, "batch the prefills and we\'ll use the GPU better."'
    assert "affirmed" not in set(lever_statuses(grader, said).values())


def test_aimed_at_the_wrong_thing_refuses(grader):
    """The same answer: 'The other proposal, quantizing the weights, is aimed at the wrong thing: 16 GB
    of weights over 25k tokens is well under a megabyte per token.' (`negated.backward`)"""
    for said in ("Quantizing the weights is aimed at the wrong thing.", "Int4 attacks the wrong resource."):
        assert set(lever_statuses(grader, said).values()) == {"negated"}, said


def test_a_topic_naming_the_ops_a_lever_fuses_takes_the_verdict_after_its_colon(grader):
    """sealed348 a.s3507 (instructor 98, graded 75 with fusion recommended): '5. Fusing the
    norms/RoPE/residuals: I'm not sure that's wise — at batch 1 those ops move well under a tenth of
    a percent of the bytes the weights do.' (context.yaml `heading`)"""
    said = "Fusing the norms/RoPE/residuals: I'm not sure that's wise at batch 1."
    assert lever_statuses(grader, said) == {"fuse_elementwise": "negated"}


def test_what_an_engineer_told_you_is_reported(grader):
    """sealed352 b.s3548 (instructor 94, graded 69 with the claim endorsed): 'The second engineer told
    you that since we are compute-bound, the memory-bound ops "don't matter". I'd push back on that.'"""
    from regime.engine.grading.context import judge
    said = "The second engineer told you that since we are compute-bound, the memory-bound ops don't matter."
    got = {j.status for j in judge(grader.concepts, grader.concepts.context, ("claim",), said)}
    assert got == {"attributed"}


def test_a_doubt_of_a_lever_as_the_opening_move_puts_it_later(grader):
    """sealed350 b.s3527 (instructor 100: hand fusion kept for what compile leaves; graded as refused):
    "I'm not sure spending two weeks on hand-fused kernels is wise as the opening move, though."""
    said = "I'm not sure spending two weeks on hand-fused kernels is wise as the opening move, though."
    assert lever_statuses(grader, said) == {"hand_fused_kernels": "deferred"}
    doubt = "I'm not sure hand-fused kernels are wise."
    assert lever_statuses(grader, doubt) == {"hand_fused_kernels": "negated"}
