"""Reading rules found by the one measurement of sealed140-147 (issue 27), each with the answer
that showed it; not measured on fresh answers."""

from __future__ import annotations

from conftest import lever_statuses, read_body


def test_a_refusal_of_the_proposals_refuses_the_list_after_it(grader, tmp_path):
    """sealed145 e.s1471 (instructor 100, graded 55): "For now I would turn down both proposals,
    raising the batch and quantizing the weights." The list after the comma is the object of the
    refusal, as "Two proposals I would turn down." announces rejections."""
    said = "For now I would turn down both proposals, raising the batch and quantizing the weights."
    assert lever_statuses(grader, said) == {"raise_batch": "negated", "quantize_int4": "negated",
                                            "quantize_int8": "negated"}


def test_a_quotation_refuted_after_a_concession_sentence_is_rejected(grader, tmp_path):
    """sealed146 d.s1488 (instructor 90, graded 51.5): 'The vendor's line is "int4 gives you 4x".
    That is true for a decode loop that is starved for bandwidth, somewhere between batch 1 and
    batch ~32. It is not true for us.' The refutation may come after a sentence naming nothing."""
    said = ('The vendor\'s line is "int4 gives you 4x". That is true for a decode loop that is starved for '
            "bandwidth. It is not true for us.")
    assert lever_statuses(grader, said) == {"quantize_int4": "negated"}


def test_bound_on_memory_bandwidth_states_the_regime(grader, tmp_path):
    """sealed147 a.s1496 (instructor 69, graded 32.5 with no regime found): "The chatbot is
    decode-bound on memory bandwidth." states the bandwidth regime in words, as "limited by" does."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "The chatbot is decode-bound on memory bandwidth. The profiler says 78% of bandwidth and "
                  "only 4% of compute.\n")
    assert a.regime == "bandwidth_bound"


def test_looks_x_at_first_is_the_nominal_reading(grader, tmp_path):
    """sealed147 e.s1499 (instructor 65, graded 17 with bandwidth-bound as its verdict): "it looks
    bandwidth-bound at first, but the timeline shows ~450 kernels per step with gaps of 8-15 µs
    between them, so a lot of the time is launch overhead." 'At first' marks the first reading."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "This loop is at 14% of peak bandwidth, so it looks bandwidth-bound at first, but the "
                  "timeline shows ~450 kernels per step with gaps of 8-15 µs between them, so a lot of the "
                  "time is launch overhead.\n")
    assert a.regime == "overhead_bound"


def test_i_disagree_after_a_quotation_refuses_it(grader, tmp_path):
    """sealed147 e.s1499: 'My teammate said "just batch it, batching always helps decode." I
    disagree, and I wouldn't quantize yet either' refuses the teammate's batching."""
    said = ('My teammate said "just batch it, batching always helps decode." I disagree, and I wouldn\'t '
            "quantize yet either.")
    assert lever_statuses(grader, said)["continuous_batching"] == "negated"


def _reason_states(grader, tmp_path, case: str, body: str) -> dict[str, str]:
    from regime.engine.grading import reasons
    a = read_body(grader, tmp_path, case, body)
    key, _ = grader.key(a, None)
    return reasons.states(a, key, grader.concepts, grader.rubric.evidence.relative_tolerance)


def test_a_reported_quotation_is_not_the_reason_given(grader, tmp_path):
    """sealed142 d.s1443 (instructor 67: int4 refused for accuracy, the wrong reason; graded 82.5
    with the right one): the vendor's "4x fewer bytes" is what the refusal answers, not its reason."""
    body = ("## Regime\nCompute-bound: 71% of peak FLOPs vs 30% of bandwidth.\n\n## Reject\n"
            '- The vendor says "int4 means 4x fewer bytes, so up to 4x the throughput." I would still say '
            "no: 4-bit weights lose too much accuracy for a production code model.\n")
    assert _reason_states(grader, tmp_path, "d_high_throughput_api", body)["quantize_int4"] == "wrong"


def test_the_students_own_words_in_quotes_are_its_reason(grader, tmp_path):
    """sealed92 d.s941 (instructor 100): 'what I'd tell the director: "Not for this endpoint. int4
    shrinks weight bytes, and bytes are not what limits us"' quotes the student's own argument."""
    body = ("## Regime\nCompute-bound.\n\n## Reject\n- int4, what I'd tell the director: \"Not for this "
            "endpoint: int4 shrinks weight bytes, and bytes are not what limits us: bandwidth is 70% "
            "idle.\"\n")
    assert _reason_states(grader, tmp_path, "d_high_throughput_api", body)["quantize_int4"] == "right"


def test_a_figure_elsewhere_does_not_argue_a_lever_given_another_reason(grader, tmp_path):
    """sealed141 d.s1433 (instructor 49, graded 61.4): int4 refused for accuracy in one place and as
    "int4 (accuracy)" in another, with 71% / 30% in the evidence: the figures its rule cites do not
    make the bare mention right when the answer argues it otherwise."""
    body = ("## Regime\nCompute-bound (71% FLOPs, 30% bandwidth).\n\n## Int4?\nNo. 4-bit weights lose too "
            "much accuracy for a code model, and our customers will notice worse completions.\n\n"
            "## Reject\n- int4 (accuracy).\n")
    assert _reason_states(grader, tmp_path, "d_high_throughput_api", body)["quantize_int4"] == "wrong"


def test_a_lever_kept_in_case_an_earlier_step_falls_short_is_left_open(grader, tmp_path):
    """sealed140 e.s1428 (instructor 57, graded 92.5): "If CUDA graphs don't close the gap, raise the
    batch size" keeps batching as a fallback, not the key's "then, not before"; the same condition
    on a fix the key keeps last (hand fusion after compile) still places it."""
    from regime.engine.grading.reading import read_against
    body = ("## Regime\nOverhead-bound.\n\n## Fixes\n1. CUDA graphs to remove the launch gaps.\n"
            "2. If CUDA graphs don't close the gap, raise the batch size to 8.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    key, _ = grader.key(a, None)
    read = read_against(a, key, 1.0)
    assert "raise_batch" in read.leans and "raise_batch" not in read.rejects
    body = ("## Regime\nCompute-bound.\n\n## Fixes\n1. torch.compile first.\n"
            "2. If compile doesn't close the gap, hand-fuse the remaining kernels.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    key, _ = grader.key(a, None)
    assert read_against(a, key, 1.0).fixes == ["torch_compile", "hand_fused_kernels"]
