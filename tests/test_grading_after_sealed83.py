"""Readings from the blind sets sealed76-83 after their one measurement (issue 27): director and
team memos that the instructors gave 88-100 read short - a regime named as a place the step has
left, a verdict in words of the saturated side, a topic line over its answer, a description
read as a recommendation, and a refutation after a quotation or under a heading of its own."""

from __future__ import annotations

from conftest import read_body


def _statuses(grader, said: str, kinds: tuple[str, ...] = ("lever", "claim")):
    from regime.engine.grading.context import judge
    c = grader.concepts
    return [(j.match.concepts, j.status) for j in judge(c, c.context, kinds, said)]


def _ids(mentions) -> list[tuple[str, ...]]:
    return [m.concepts for m in mentions]


def test_a_regime_named_as_a_place_left_is_not_the_verdict(grader, tmp_path):
    """sealed77 d.s791 (instructor 100, graded 54): "Continuous batching has already taken us out
    of the bandwidth-bound regime" was read as a bandwidth-bound verdict; so was sealed81 d.s837's
    "The vendor is quoting numbers from the bandwidth-bound world". Being in a place is one."""
    for said in ("Continuous batching has already taken us out of the bandwidth-bound regime.",
                 "The vendor is quoting numbers from the bandwidth-bound world."):
        assert read_body(grader, tmp_path, "d_high_throughput_api", said + "\n").regime is None
    inside = "At batch 1 we are in bandwidth-bound territory.\n"
    assert read_body(grader, tmp_path, "a_chatbot", inside).regime == "bandwidth_bound"


def test_the_saturated_side_is_the_verdict_of_an_essay_naming_no_regime(grader, tmp_path):
    """sealed76 d.s783 (instructor 88, graded 41): "extra work on the compute side, the side that's
    actually full" names what limits the step; "neither bandwidth nor compute is saturated"
    names nothing saturated."""
    body = ("At batch 256 we run at 71% of peak compute and 30% of peak bandwidth. Int4 needs a "
            "dequantization step, which is extra work on the compute side, the side that's actually full.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", body).regime == "compute_bound"
    neither = "At 14% of bandwidth and 3% of FLOPs, neither bandwidth nor compute is saturated.\n"
    assert read_body(grader, tmp_path, "e_doesnt_add_up", neither).regime != "compute_bound"


def test_a_pronouns_s_is_is(grader):
    """"that's saturated" reads "that is saturated"; a noun's 's stays a possessive."""
    from regime.engine.grading.concepts import words
    assert words("the side that's saturated") == ["the", "side", "that", "is", "saturated"]
    assert words("the GPU's memory") == ["the", "gpu", "memory"]


def test_an_elliptical_denial_before_a_colon_refuses_nothing_after_it(grader, tmp_path):
    """sealed81 d.s837 (instructor 100): "If we were serving at batch 1 ..., int4 would give close
    to 4x. We aren't: at batch 256 ... we've crossed into compute-bound." states compute-bound;
    "One more thing I would not do: push the batch much higher." still refuses the batch."""
    body = ("If we were serving at batch 1, int4 would give close to 4x. We aren't: at batch 256 the "
            "intensity is about 256 FLOP/byte against a ridge of 247, so we've crossed into compute-bound.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", body).regime == "compute_bound"
    refused = "We are compute-bound. One more thing I would not do: push the batch much higher.\n"
    assert ("raise_batch",) in _ids(read_body(grader, tmp_path, "d_high_throughput_api", refused).rejects)


def test_a_topic_line_ending_in_a_colon_heads_the_paragraph_after_it(grader, tmp_path):
    """sealed77 d.s791 (instructor 100): "To the director, on the int4 pitch:" on its own line, then
    "Not for this endpoint." opening the next paragraph, refuses int4."""
    body = ("To the director, on the int4 pitch:\n\nNot for this endpoint. We run at 71% of peak compute "
            "and 30% of peak bandwidth: compute-bound.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert ("quantize_int4",) in _ids(a.rejects)
    assert ("quantize_int4",) not in _ids(a.fixes)


def test_one_lever_named_twice_in_a_description_is_no_recommendation(grader, tmp_path):
    """sealed82 d.s841 (instructor 100, graded 70 with the int4 penalty): "Int4 shrinks weight
    bytes." names int4 twice ('int4', 'shrink the weights') and describes it; a sentence of
    names alone ("Flash attention.") is still a list item, a recommendation."""
    body = "We are compute-bound at 71% of peak compute. Int4 shrinks weight bytes.\n"
    assert ("quantize_int4",) not in _ids(read_body(grader, tmp_path, "d_high_throughput_api", body).fixes)
    listed = "We are compute-bound at 20% of peak FLOPs with 40 GB of scores. Flash attention.\n"
    assert ("flash_attention",) in _ids(read_body(grader, tmp_path, "c_document_summarizer", listed).fixes)


def test_does_not_hold_refutes_the_claim_before_it(grader):
    """sealed76 b.s783 (instructor 100, graded 70 with the claim's penalty): "The second engineer's
    point, that memory-bound ops don't matter because we're compute-bound, doesn't hold"."""
    said = ("The second engineer's point, that memory-bound ops don't matter because we're compute-bound, "
            "doesn't hold: the regime says where the FLOP-carrying kernels are limited.")
    assert _statuses(grader, said, ("claim",)) == [(("memory_ops_irrelevant_when_compute_bound",), "negated")]


def test_a_heading_that_refuses_heads_rejections(grader, tmp_path):
    """sealed78 b.s802 (instructor 100, graded 69): "## Not worth it" over "Fusing attention - it's
    flash already, only 7% of time." rejects attention fusion; "## Fixes / Reject" joins two of
    the template's sections and reads as before."""
    body = ("## Regime\nCompute-bound, 61% of peak.\n\n## Not worth it\n"
            "Fusing attention — it's flash already, only 7% of time.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert ("fuse_attention",) in _ids(a.rejects)
    joined = ("## Regime\nCompute-bound, 61% of peak.\n\n## Fixes / Reject\n"
              "- torch.compile first: it fuses the norms and activations.\n")
    a = read_body(grader, tmp_path, "b_training_run", joined)
    assert ("torch_compile",) in _ids(a.fixes)


def test_a_sentence_ends_after_a_closing_quotation(grader, tmp_path):
    """sealed78 b.s802 (instructor 100): 'The second engineer says "we're compute-bound, so
    memory-bound ops don't matter." That mixes up where the bottleneck is ...' refutes the claim
    it quotes; read as one sentence, the quotation hid the refutation."""
    from regime.engine.grading.answer import SENTENCE
    said = 'He says "we are compute-bound." That mixes up two things. Use e.g. torch.compile.'
    assert SENTENCE.split(said) == ['He says "we are compute-bound."', "That mixes up two things.",
                                    "Use e.g. torch.compile."]
    body = ("Compute-bound at 61% of peak.\n\nThe second engineer says \"we're compute-bound, so "
            "memory-bound ops don't matter.\" That mixes up where the bottleneck is for the GEMMs "
            "with where the time goes; the 22% of zero-FLOP kernels is exactly what keeps us at 61%.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert ("memory_ops_irrelevant_when_compute_bound",) in _ids(a.rejects)


def test_are_wrong_refuses_the_lever_before_it(grader):
    """sealed77 e.s794 (instructor 100, graded 80): "Raising the batch or quantizing the weights
    are the usual bandwidth-bound remedies and both are wrong right now"."""
    said = "Quantizing the weights is the usual bandwidth-bound remedy and both are wrong right now."
    assert _statuses(grader, said) == [(("quantize_int4", "quantize_int8"), "negated")]


def test_an_adverb_inside_the_idle_gpu_and_the_busy_side(grader, tmp_path):
    """"the GPU is simply idle" (34 answers in the dev pool) is overhead-bound; sealed65 d.s672
    (instructor 100, graded 57): "extra work on the compute side where we are already busy"."""
    idle = "Nothing is near its peak: the GPU is simply idle between 450 tiny kernels.\n"
    assert read_body(grader, tmp_path, "e_doesnt_add_up", idle).regime == "overhead_bound"
    busy = ("At 71% of peak compute and 30% of bandwidth, int4's dequantization is extra work on the "
            "compute side where we are already busy.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", busy).regime == "compute_bound"


def test_a_dot_or_comma_inside_a_word_or_number_ends_no_clause(grader):
    """sealed76 b.s788 (instructor 38, graded 69): "Maybe try torch.compile, it might fuse some of
    these." split at the dot of torch.compile, so the hedge before it missed the lever."""
    assert _statuses(grader, "Maybe try torch.compile, it might fuse some of these.", ("lever",)) == \
        [(("torch_compile",), "possible")]
    assert _statuses(grader, "Use torch.compile.", ("lever",)) == [(("torch_compile",), "affirmed")]


def test_each_step_of_an_enumeration_the_fixes_heading_opens_recommends(grader, tmp_path):
    """sealed45 e.s474 (instructor 92): "Fixes: (1) CUDA graphs ...; (2) torch.compile to merge the
    small kernels" recommends both; its second step was read as a fix only because a split at
    the dot of torch.compile left an imperative 'compile'. A step naming no imperative verb."""
    body = ("Compute-bound at 61% of peak.\n\n"
            "Fixes: (1) torch.compile; (2) the to_copy casts, an fp32 upcast around "
            "the norm.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert ("fix_dtype_casts",) in _ids(a.fixes)


def test_a_heading_word_alone_on_its_line_heads_the_list_under_it(grader, tmp_path):
    """sealed30 b.s325 (instructor 77): "Fixes" alone on a line over "1. torch.compile, it'll fuse
    the norm/silu/add chains automatically." is the Fixes heading written without its '##'."""
    body = ("Regime: compute bound at prefill, 20% of peak FLOPs.\n\nFixes\n"
            "1. FlashAttention, which keeps the 40 GB of scores on chip.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert ("flash_attention",) in _ids(a.fixes)


def test_a_condition_under_no_verdict_leaves_the_option_open(grader, tmp_path):
    """sealed47 e.s495 (instructor 16, graded 42): under "Hard to say — could be bandwidth-bound,
    could be overhead", "If it's really bandwidth-bound then batching or int8 would be the fix"
    rejects nothing; after "Overhead-bound" the same sentence is the key's "then, not before"."""
    from conftest import answer_file

    def rejections(regime: str) -> float:
        body = (f"## Regime\n{regime}\n\n## Fixes\n- CUDA graphs for the decode step.\n"
                "- If it's really bandwidth-bound then batching or int8 would be the fix.\n")
        r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", body, f"{len(regime)}.md"))
        return next(p.points for p in r.parts if p.part == "rejections")

    assert rejections("Hard to say — could be bandwidth-bound, could be overhead.") == 0
    assert rejections("Overhead-bound: 14% and 3%, nothing is saturated.") > 0


def test_the_keys_first_fix_alone_earns_part_of_the_order(grader, tmp_path):
    """sealed32 e.s345 (instructor 80, graded 58.5): one fix, CUDA graphs, the key's first: the
    blind grades take points for the missing torch.compile, not for an order it cannot break.
    The key's second fix alone earns the same share (tests/test_grading_dev_lone_fix.py: the
    blind grades charge the missing first fix, not an order a lone fix cannot break)."""
    from conftest import answer_file

    def order(fix: str) -> float:
        body = f"## Regime\nOverhead-bound.\n\n## Fixes\n1. {fix}\n"
        r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", body, f"{len(fix)}.md"))
        return next(p.points / p.max_points for p in r.parts if p.part == "order")

    assert order("CUDA graphs: capture the whole decode step.") == grader.rubric.order.first_alone > 0
    assert order("torch.compile to fuse the small kernels.") == grader.rubric.order.first_alone


def test_a_limit_phrase_said_twice_is_read_at_each_place(grader):
    """The limiter's own loop once rebound the phrase it searched for, so a second "is the limit"
    after one with no resource before it went unread (found by mypy after the measurement)."""
    from regime.engine.grading.limiters import _the_limit
    said = "Whatever you think is the limit on paper, here arithmetic is the limit."
    assert _the_limit(grader.concepts, said) == "compute_bound"
