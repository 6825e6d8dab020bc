"""Classes from the sealed273-280 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import read_body


def _fixes(grader, tmp_path, case: str, body: str) -> set[str]:
    return {c for m in read_body(grader, tmp_path, case, body).fixes for c in m.concepts}


def test_instead_heads_the_fixes(grader, tmp_path):
    """sealed276 d.s2790 (instructor 95, graded 74 with no compute fix): after refusing int4, a line
    labelled 'instead:' lists what to do in its place, as 'Fixes:' would."""
    said = ("regime: compute bound\n- MFU 71% / MBU 30% -> compute saturated, memory mostly idel\n"
            "- AI @ bs256 fp16 ≈ 256 flop/B > ridge 247. past the ridge\n"
            "int4: NO for thruput. bytes arnt the bottleneck; dequant adds work on the busy matrix "
            "cores, could even be slower\n"
            "instead: fp8 gemms (higher compute roof), spec decoding, smaller model\n"
            "dont raise batch more - past ridge, just adds latency\n")
    assert _fixes(grader, tmp_path, "d_high_throughput_api", said) >= {"fp8_gemm", "speculative_decoding"}


def test_what_a_vendor_told_someone_is_theirs_until_refuted_or_taken_up(grader, tmp_path):
    """sealed274 d.s2763 (instructor 97, graded 73 with int4 as its first fix): 'The vendor told the
    director that int4 "gives up to 4x ..."' reports the vendor, and the next sentence refutes it.
    Taken up in the next sentence ('I agree with the vendor; roll it out', sealed247 d.s2500,
    instructor 0) or later in the same one ('..., and I agree', sealed171 e.s1740) it is a fix."""
    told = ('The vendor told the director that int4 "gives up to 4× more tokens per second". That number is '
            "real, but it belongs to a different workload: decode at small batch.\n\n"
            "For more throughput I'd look at the compute side instead: fp8 GEMMs, speculative decoding.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", told)
    assert "quantize_int4" not in {c for m in a.fixes for c in m.concepts}
    assert "fp8_gemm" in {c for m in a.fixes for c in m.concepts}
    agreed = ("## Fixes\n1. The vendor told the director int4 gives ~4× on decode. I agree with the vendor; "
              "roll it out.\n2. fp8 GEMMs.\n")
    assert "quantize_int4" in _fixes(grader, tmp_path, "d_high_throughput_api", agreed)
    within = ("## Fixes\n1. The vendor's field engineer told us to capture the decode step in a HIP graph, "
              "and I agree: it removes the launch gaps between the small kernels.\n")
    assert "cuda_graphs" in _fixes(grader, tmp_path, "e_doesnt_add_up", within)


def test_yes_answers_the_question_before_it(grader, tmp_path):
    """sealed276 c.s2783 (instructor 92, graded 57 with chunked prefill missing): 'chunk the prefill?
    Yes, but second.' recommends what it asked, after the first fix; a bare 'Yes.' recommends it."""
    said = ("So: chunk the prefill? Yes, but second. First, switch to FlashAttention, which keeps the score "
            "tiles on chip. After that, chunk the prefill so one long document doesn't hog the GPU.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", said)
    assert [m.concepts for m in a.fixes] == [("flash_attention",)]
    assert ("chunked_prefill",) in [m.concepts for m in a.deferred]
    said = "Should we chunk the prefill? Yes. It keeps one long document from stalling other users' decode.\n"
    assert "chunked_prefill" in _fixes(grader, tmp_path, "c_document_summarizer", said)


def test_better_levers_heads_the_fixes(grader, tmp_path):
    """sealed280 d.s2827 (instructor 95, graded 77 with no compute fix): a bold 'Better levers:'
    after refusing int4 lists the fixes."""
    said = ("**Regime:** compute-bound decode.\n\n**On int4:** I probably wouldn't take the vendor's offer "
            "for this endpoint. Int4 saves bytes, and we're only using 30% of the bandwidth.\n\n"
            "**Better levers:** fp8 GEMMs to lift the compute ceiling; speculative decoding.\n")
    assert _fixes(grader, tmp_path, "d_high_throughput_api", said) >= {"fp8_gemm", "speculative_decoding"}


def test_stalling_on_launches_names_the_overhead_regime(grader, tmp_path):
    """sealed274 e.s2768 (instructor 57 with the regime in full, graded 39 with none): both
    resources ruled out, then 'the loop is stalling on launches'."""
    said = ("**Regime:** not really bandwidth-bound and not compute-bound either (14% and 3%); the loop is "
            "stalling on launches.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime == "overhead_bound"


def test_mostly_right_sides_with_a_claim_stated_as_secondary(grader, tmp_path):
    """sealed278 b.s2808 (instructor 38: the second engineer's claim endorsed, hedged; graded 59
    with it merely not rejected): 'The second engineer is mostly right: ... so the memory-bound ops
    are a secondary concern.'"""
    said = ("## Regime\nCompute-bound.\n\n## On the engineers\nThe second engineer is mostly right: once "
            "you're compute-bound the GEMMs set the step time, so the memory-bound ops are a secondary "
            "concern.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert a.endorsed == ["memory_ops_irrelevant_when_compute_bound"]


def test_a_reject_item_headed_by_a_speaker_answers_his_claim(grader, tmp_path):
    """sealed275 b.s2778 (instructor: the claim refuted; graded as rejecting torch.compile, the
    lever its words lean to): 'The second engineer's view; the 22% ... is real time.' A head that
    takes his side ('The second engineer has a point: ...') is not a rejection."""
    said = "## Reject\n- The second engineer's view; the 22% in norms and pointwise kernels is real time.\n"
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert [m.concepts for m in a.rejects] == [("memory_ops_irrelevant_when_compute_bound",)]
    said = ("## Reject\n- Fusing attention: already flash.\n- The second engineer has a point: the matmuls "
            "are where the FLOPs are.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert ("memory_ops_irrelevant_when_compute_bound",) not in [m.concepts for m in a.rejects]


def test_a_claim_refused_by_taking_sides_is_argued_where_it_is_quoted(grader, tmp_path):
    """sealed276 b.s2781 (instructor 100, graded 89 with the claim's reason missing): 'I side with
    the first engineer' refuses the claim in one paragraph; the paragraph quoting the second
    engineer argues why."""
    from pathlib import Path

    from regime.engine.grading.reasons import RIGHT, states
    key = grader.key_for_case(Path(grader.cases_dir) / "b_training_run.yaml")
    said = ("This step is compute-bound overall, and I side with the first engineer, though not with his "
            "plan as written.\n\nThe second engineer's line — \"compute-bound, therefore memory-bound ops "
            "can't matter\" — mixes up two things. \"Compute-bound\" is a statement about the kernels that "
            "carry the FLOPs. It says nothing about the 22% of wall time spent in kernels that carry none.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    claim = "memory_ops_irrelevant_when_compute_bound"
    assert states(a, key, grader.concepts, 0.1)[claim] == RIGHT


def test_what_the_student_was_convinced_of_is_a_first_take_set_aside(grader, tmp_path):
    """sealed258 b.s2601 (instructor 100, graded 88 with FlashAttention as an extra fix): '(Side
    note: I spent a while convinced the 7% flash-attention kernel was the next target. It isn't;
    see below.)'"""
    said = ("## Fixes\n1. torch.compile first.\n\n(Side note: I spent a while convinced the 7% "
            "flash-attention kernel was the next target. It isn't; see below.)\n")
    assert "flash_attention" not in _fixes(grader, tmp_path, "b_training_run", said)


def test_dragged_down_by_names_a_cause_not_the_verdict(grader, tmp_path):
    """sealed257 c.s2594 and sealed267 c.s2691 (instructors 92 and 100, the regime in full; graded
    bandwidth-bound): 'Prefill, compute-bound in principle — but currently dragged down by memory
    traffic in attention.' says what drags the compute-bound prefill down, as 'because of' does."""
    said = ("## Regime\nPrefill, compute-bound in principle — but currently dragged down by memory traffic "
            "in attention.\n")
    assert read_body(grader, tmp_path, "c_document_summarizer", said).regime == "compute_bound"


def test_not_sure_it_is_wise_leans_to_refusing(grader, tmp_path):
    """sealed269 d.s2715 (instructor 100, graded 81 with the batch left open): 'I'm also not sure
    pushing the batch past 256 is wise: we're over the ridge'. 'not sure ... is worth it' stays a
    hedge (sealed262 b.s2650: a quarter of the rejection)."""
    from conftest import lever_statuses
    said = "I'm also not sure pushing the batch past 256 is wise: we're over the ridge."
    assert lever_statuses(grader, said)["raise_batch"] == "negated"
    hedged = "I'm not sure fusing attention is worth it either."
    assert lever_statuses(grader, hedged)["fuse_attention"] == "possible"


def test_a_harm_a_lever_may_do_refuses_it(grader, tmp_path):
    """sealed261 d.s2631 (instructor 100, graded 84 with int4 left open): 'Int4 could even slow us
    down.' is a refusal with a hedge in it, not a hedged recommendation."""
    from conftest import lever_statuses
    assert lever_statuses(grader, "Int4 could even slow us down.")["quantize_int4"] == "negated"
    assert lever_statuses(grader, "Int4 could help a low-batch endpoint.")["quantize_int4"] == "possible"


def test_a_lever_with_its_target_is_no_profile_entry(grader, tmp_path):
    """sealed271 d.s2735 (instructor 24: raising the batch recommended as the main fix; graded 44
    with it unread): 'raise the batch to 512' names where the batch goes, not a share of the
    profile as 'to_copy 5%' does."""
    said = ("**Reading:** bandwidth sits at only 30%, so there is a lot of headroom left. That headroom is "
            "what we should use: **raise the batch to 512** so each weight read is shared.\n")
    assert "raise_batch" in _fixes(grader, tmp_path, "d_high_throughput_api", said)
