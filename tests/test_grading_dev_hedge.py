"""Hedged and conditional recommendations of a lever the key rejects (issue 27): left open, not
refused, each rule with the answer that showed it."""

from __future__ import annotations

from conftest import read_body

from regime.engine.grading.reading import read_against


def _read(grader, tmp_path, case: str, body: str):
    a = read_body(grader, tmp_path, case, body)
    key = grader.key(a, None)[0]
    return read_against(a, key, grader.concepts.context.menu_share, grader.concepts)


D_REFUTED_THEN_HEDGED = (
    "## Regime\nCompute-bound: 71% of peak FLOP/s, 30% of peak bandwidth.\n\n"
    "## The vendor\nThe vendor says \"int4 will give you 4x throughput.\" That's true for a "
    "bandwidth-bound decode, and we're not one. Still, int4 might give us something, so a pilot for "
    "throughput could be worth running.\n\n## Fixes\n- fp8 GEMMs\n")


def test_a_hedge_that_turns_back_on_a_refusal_leaves_the_lever_open(grader, tmp_path):
    """sealed159 d.s1616 (instructor 67, graded 94): the vendor refuted, then 'Still, int4 might
    give us something, so a pilot ... could be worth running' in the same item. The later hedged
    mention is no commentary on the refusal: it reopens int4, which the key rejects."""
    read = _read(grader, tmp_path, "d_high_throughput_api", D_REFUTED_THEN_HEDGED)
    assert "quantize_int4" not in read.rejects and "quantize_int4" in read.leans


def test_a_hedge_after_a_discussion_leaves_the_lever_open(grader, tmp_path):
    """sealed158 d.s1606 (instructor 68, graded 92): 'On int4: Mostly a bytes optimisation, and
    bytes aren't the constraint here. Still, int4 might give us some extra throughput, so a small
    pilot could be worth it.'"""
    body = ("## Regime\nCompute-bound. 71% FLOP utilisation, 30% bandwidth.\n\n## On int4\nMostly a bytes "
            "optimisation, and bytes aren't the constraint here. Still, int4 might give us some extra "
            "throughput, so a small pilot could be worth it.\n\n"
            "## Fixes\n1. fp8 GEMMs to raise the compute roof.\n")
    read = _read(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" in read.leans


def test_a_commentary_without_a_turn_keeps_the_refusal(grader, tmp_path):
    """A later mention that does not turn back ('int4 might shrink the bytes, which are idle') is
    commentary on the refusal, as before."""
    body = ("## Regime\nCompute-bound: 71% of peak FLOP/s, 30% of peak bandwidth.\n\n"
            "## Reject\n- int4: no, bytes are not the limit. int4 might shrink the weights, but they are "
            "not what we are short of.\n")
    read = _read(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" in read.rejects and "quantize_int4" not in read.leans


C_ONLY_IF = ("Regime: compute-bound prefill.\n\n## Fixes\n1. FlashAttention, so the scores never leave "
             "on-chip memory.\n2. Chunked prefill.\n3. {}\n")


def test_a_rejected_lever_offered_only_if_is_left_open(grader, tmp_path):
    """sealed158 c.s1607 (instructor 55, graded 82.5): 'Quantize weights to int8 only if memory is
    still tight after FlashAttention'; sealed157 c.s1596 (71 / 86): 'Only if several long documents
    arrive at the same moment, batch their prefills'. A conditional recommendation, not a refusal."""
    for said, lever in (("Quantize weights to int8 only if memory is still tight after FlashAttention.",
                         "quantize_int8"),
                        ("Only if several long documents arrive at the same moment, batch their prefills "
                         "together to fill the GPU.", "raise_batch")):
        read = _read(grader, tmp_path, "c_document_summarizer", C_ONLY_IF.format(said))
        assert lever not in read.rejects and lever in read.leans, said


def test_a_denied_or_remote_condition_still_refuses(grader, tmp_path):
    """sealed93 c.s959 (instructor 56): 'only if memory gets tight; the 16 GB of weights isn't
    what's slow' refuses; sealed100 c.s1028 (instructor 81): 'Weight quantization only if decode/ITL
    ever becomes the complaint' declines it ("conditional rejections")."""
    for said in ("Quantize weights only if memory gets tight, the 16 GB of weights isn't what's slow.",
                 "Weight quantization only if decode ITL ever becomes the complaint."):
        read = _read(grader, tmp_path, "c_document_summarizer", C_ONLY_IF.format(said))
        assert "quantize_int8" not in read.leans, said


def test_the_solutions_own_condition_is_not_left_open(grader, tmp_path):
    """E's own 'then, not before': batching only once graphs are in and a re-measure shows the loop
    bandwidth-bound (a lever the key rejects only for now) still places it."""
    body = ("## Regime\nOverhead-bound.\n\n## Fixes\n1. CUDA graphs.\n2. torch.compile.\n"
            "3. Only if a re-measure then shows it bandwidth-bound, raise the batch.\n")
    read = _read(grader, tmp_path, "e_doesnt_add_up", body)
    assert "raise_batch" not in read.leans
