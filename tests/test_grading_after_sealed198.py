"""Classes from the blind sets sealed185-198 after their one measurement (issue 27), each with the
student's own sentences: a verdict among announced rejections, a refusal of a quotation, a verdict
a later "not yet" does not put off, and a lever's name heading a paragraph that argues against it."""

from __future__ import annotations

from conftest import answer_file, read_body


def test_a_verdict_after_a_paragraph_announcing_rejections_is_still_the_verdict(grader, tmp_path):
    """sealed186 a.s1881 (instructor 100, graded 65): the opening paragraph turns both proposals
    down, and its last sentence states the regime."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "I want to start with what the profile is telling us, because I think both proposals on "
                  "the table come from not looking at it closely. The matrix cores are at 4% of their peak "
                  "rate while HBM is running at 78% of its peak bandwidth. So my diagnosis is: decode, "
                  "bandwidth-bound, and honestly already close to as good as it gets for batch 1.\n")
    assert a.regime == "bandwidth_bound"


def test_a_regime_where_a_lever_pays_on_a_condition_is_not_the_verdict(grader, tmp_path):
    """sealed191 d.s1931 (instructor 100): 'int4 roughly quadruples decode speed when decode is
    memory-limited' says where int4 pays; the verdict is the compute-limited clause after it."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "What I'd write to the director: \"No, not on this API. int4 roughly quadruples decode "
                  "speed when decode is memory-limited, i.e. batch 1 up to ~32; we run at 256 and are "
                  "compute-limited, so it would attack the resource we have spare.\"\n")
    assert a.regime == "compute_bound"


def test_a_refusal_right_after_a_quotation_refuses_the_quotation_only(grader, tmp_path):
    """sealed188 a.s1901 (instructor 100, graded 65): '..., so "optimizing the kernels" is the
    wrong framing' refuses the quoted idea, not the regime stated before it."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "Short version: this deployment is memory-bandwidth-bound in decode, and it is already "
                  "close to what the hardware allows at batch one, so \"optimizing the kernels\" is the "
                  "wrong framing.\n")
    assert a.regime == "bandwidth_bound"
    b = read_body(grader, tmp_path, "a_chatbot",
                  "This deployment is bandwidth-bound, so \"fuse the elementwise ops\" is the wrong fix.\n")
    assert b.regime == "bandwidth_bound" and [m.concepts for m in b.rejects] == [("fuse_elementwise",)]


def test_a_verdict_is_not_put_off_by_a_not_yet_about_something_else(grader, tmp_path):
    """sealed185 b.s1871 (instructor 100, graded 54): 'though not yet about the method' defers the
    engineer's method, not the regime."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "Bottom line: the step is compute-bound overall, and the engineer asking to fuse the "
                  "memory-bound ops is right about the problem — though not yet about the method.\n")
    assert a.regime == "compute_bound"


_INT4 = ("**Diagnosis.** This endpoint is compute-bound: 71% of peak FLOP rate, 30% of peak bandwidth, "
         "and 256 FLOP/byte at batch 256 against a ridge of 247.\n\n"
         "**Int4.** Quantizing weights removes bytes. Bytes are not our problem: bandwidth is ~70% idle. "
         "By Amdahl the win is capped at the small memory-stalled fraction, and dequantizing puts extra "
         "work on the compute side that is already saturated.\n")


def test_a_lever_heading_a_paragraph_that_argues_the_keys_refusal_is_rejected(grader, tmp_path):
    """sealed185 d.s1871, sealed194 d.s1961, sealed196 d.s1981 (instructor 100, graded 73 with the
    int4 penalty): '**Int4.**' is the paragraph's topic; the paragraph refuses it with the key's
    argument."""
    r = grader.grade(answer_file(tmp_path, "d_high_throughput_api", _INT4))
    assert not any(p.id == "int4_past_the_ridge" for p in r.penalties)
    a = read_body(grader, tmp_path, "d_high_throughput_api", _INT4)
    assert ("quantize_int4",) in [m.concepts for m in a.topics]


def test_a_lever_heading_a_fixes_item_stays_a_fix(grader, tmp_path):
    """sealed175 e.s1774 (instructor 0): under a Fixes heading 'Raise the batch size. Batch 1
    wastes the weight read ...' recommends batching, whatever the paragraph argues."""
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up",
                                 "## Regime\nBandwidth-bound (batch-1 decode).\n\n## Fixes\n"
                                 "1. Raise the batch size. Batch 1 wastes the weight read on one sequence, "
                                 "so batching to 16 or 32 should multiply throughput.\n"))
    assert any(p.id == "batching_an_idle_gpu" for p in r.penalties)


def test_a_regime_naming_a_kind_of_lever_is_not_the_verdict(grader, tmp_path):
    """sealed185 e.s1878 (instructor 95, graded 64): 'They're bandwidth-bound treatments' says what
    batching and int8 are for, not what the step is."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "A colleague looked at the trace and said \"this isn't bandwidth-bound, it's "
                  "launch-bound.\" "
                  "I agree. 14% BW and 3% FLOPs — nothing saturated.\n\n- batching and int8: not now. "
                  "They're "
                  "bandwidth-bound treatments; we aren't bandwidth-bound until the gaps are gone.\n")
    assert a.regime == "overhead_bound"


def test_slang_refusals_and_a_no_to_the_director_refuse(grader, tmp_path):
    """sealed191 c.s1933 (instructor 58): 'quantize weights - nah, ...'; sealed190 d.s1928
    (instructor 82): '**int4:** I'd tell the director no for this endpoint.'"""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "## Reject\nquantize weights - nah, weights arent the problem at 25k tokens\n")
    assert a.fixes == [] and a.rejects
    b = read_body(grader, tmp_path, "d_high_throughput_api",
                  "**int4:** I'd tell the director no for this endpoint. It cuts bytes, and bytes aren't "
                  "the limit here.\n")
    assert ("quantize_int4",) in [m.concepts for m in b.rejects] and not b.fixes


def test_a_quoted_verdict_the_student_agrees_with_is_the_students(grader, tmp_path):
    """sealed189 e.s1920 (instructor 65, graded 22.5): 'A colleague ... said "it's launch
    overhead, not bandwidth". I agree with her.' is the student's verdict, and no claim guessed
    from the paragraph; a quotation of a claim agreed with still endorses it."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "A colleague looked at the timeline and said \"it's launch-bound, not bandwidth-bound\". "
                  "I agree with her.\nBandwidth is at 14% and compute at 3%.\n")
    assert a.regime == "overhead_bound"
    b = read_body(grader, tmp_path, "a_chatbot", "A colleague said \"this is bandwidth-bound\".\n")
    assert b.regime is None   # heard, not taken up


def test_a_fix_put_after_another_fix_the_student_takes_is_placed_not_hedged(grader, tmp_path):
    """sealed197 a.s1997 (instructor 91, graded 66): 'Second fix: continuous batching once int8
    is in' commits to batching, second: the wrong order (the blind grade took 2), not a hedge."""
    r = grader.grade(answer_file(tmp_path, "a_chatbot",
                                 "## Regime\nBandwidth-bound decode.\n\n## Fixes\n"
                                 "1. **First fix: int8 weights.** Halves the 26 GB, so ~408 tok/s at batch "
                                 "1.\n"
                                 "2. **Second fix: continuous batching** once int8 is in, to share the "
                                 "weight "
                                 "read across users.\n"))
    fixes = next(p for p in r.parts if p.part == "fixes")
    assert fixes.points == fixes.max_points
    assert not any("Hedged" in f for f in fixes.feedback)


def test_ruling_out_the_nominal_regime_alone_earns_part_of_the_verdict(grader, tmp_path):
    """sealed186 e.s1889 (instructor: half of 20 for 'not bandwidth-bound ... something else limits
    it'); the regime the step is not in, ruled out, is half the argument; naming none is nothing."""
    def regime(body: str) -> float:
        r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", body))
        return next(p for p in r.parts if p.part == "regime").points
    denied = regime("**Regime:** not bandwidth-bound — 14% of bandwidth, 3% of FLOPs; something else limits "
                    "it.\n")
    nothing = regime("**Regime:** hard to say — 14% of bandwidth, 3% of FLOPs.\n")
    right = regime("**Regime:** overhead-bound, nominally bandwidth-bound: 14% of bandwidth, 3% of FLOPs.\n")
    assert nothing == 0 < denied < right
    assert regime("**Regime:** not overhead-bound.\n") == 0    # ruling out the real one earns nothing


def test_a_faster_flops_gpu_is_buying_more_flops(grader):
    from conftest import lever_statuses
    got = lever_statuses(grader, "Reject a faster-FLOPs GPU (compute is 4% busy).")
    assert got["buy_more_flops"] == "negated"


def test_a_cause_after_the_nominal_regime_is_no_verdict(grader, tmp_path):
    """sealed197 c.s1991 (instructor 100, graded 76): 'compute-bound in principle — but running far
    below that, because attention is spilling its scores to HBM' keeps compute-bound; HBM is the
    cause, not the regime."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "## Regime\nPrefill, compute-bound in principle — but running far below that, because "
                  "attention is spilling its scores to HBM.\n")
    assert a.regime == "compute_bound"
    b = read_body(grader, tmp_path, "e_doesnt_add_up",   # sealed45 e.s478: the verdict in a word
                  "## Regime\nBandwidth-bound in principle, but the 14% / 3% profile suggests overhead.\n")
    assert b.regime == "overhead_bound"


def test_a_labelled_sentence_and_the_one_after_its_semicolon_are_two_clauses(grader, tmp_path):
    """sealed193 a.s1951 (instructor 100, graded 80.5): under 'What I wouldn't do', 'Note to manager:
    please don't fund a kernel-tuning sprint for this; fund the batching change.' refuses tuning
    only; batching stays a fix."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "## Fixes\n1. Continuous batching.\n2. int8 weights.\n\n## Reject\n"
                  "- A GPU with more FLOPs: we use 4% of them.\n\n"
                  "Note to manager: please don't fund a kernel-tuning sprint for this; fund the batching "
                  "change.\n")
    rejected = {c for m in a.rejects for c in m.concepts}
    assert "better_gemm_tiling" in rejected and "continuous_batching" not in rejected


def test_also_in_a_reject_item_adds_to_what_it_refuses(grader, tmp_path):
    """sealed189 d.s1920 (instructor 100, graded 78): '...; also the vendor's follow-up idea to bump
    batch to 512 — we're past the ridge' refuses raising the batch too."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Reject\nthe int4 pitch for throughput (above); also the vendor's follow-up idea to "
                  "bump "
                  "batch to 512 — we're past the ridge, so that just trades latency for throughput.\n")
    assert {"quantize_int4", "raise_batch"} <= {c for m in a.rejects for c in m.concepts}


def test_a_condition_after_the_deferred_step_and_a_not_now_label(grader, tmp_path):
    """sealed210 e.s2122 (instructor 95, graded 47.5): 'then batching / quantization if it really is
    BW-bound by then' is the solution's own order, not a recommendation; sealed206 e.s2082
    (instructor 97, graded 52.5): a 'not now:' line after the numbered fixes is an item of its own,
    refusing what it names."""
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up",
                                 "## Regime\nLaunch/overhead-bound (nominally BW-bound, batch-1 decode).\n\n"
                                 "## Fixes\n1. Graph capture: one submission replaces ~450 launches.\n"
                                 "2. torch.compile to fuse the small kernels.\n"
                                 "3. Re-measure vs 215 tok/s; then batching / quantization if it really is "
                                 "BW-bound by then.\n"))
    assert not r.penalties
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "fixes\n1. cuda graph capture of the decode step\n2. torch.compile to fuse the small "
                  "kernels\n"
                  "3. then remeasure vs 215 tok/s; if its realy BW bound then, do batching/quant\n"
                  "not now: raise batch, quantize weights. gpu idles 38% of the time\n")
    assert {"raise_batch", "quantize_int8"} <= {c for m in a.rejects for c in m.concepts}


def test_once_as_one_time_defers_nothing(grader, tmp_path):
    """sealed202 e.s2041 (instructor 100, graded 55): 'Record the whole decode step once as a
    CUDA/HIP graph' recommends graphs."""
    from conftest import lever_statuses
    assert lever_statuses(grader, "Record the whole decode step once as a CUDA/HIP graph and replay it."
                          )["cuda_graphs"] == "affirmed"
    assert lever_statuses(grader, "Once graphs are in, raise the batch.")["raise_batch"] == "deferred"


def test_where_we_are_reports_the_verdict(grader, tmp_path):
    """sealed210 b.s2126 (instructor 57, graded 20): 'Where we are: compute-bound, 61% of peak'
    states the regime; 'Where int4 would pay:' still says where a lever pays, not a fix."""
    a = read_body(grader, tmp_path, "b_training_run", "Where we are: compute-bound, 61% of peak FLOP/s.\n")
    assert a.regime == "compute_bound"
    b = read_body(grader, tmp_path, "d_high_throughput_api",
                  "Where int4 would pay: it frees roughly 51 GB for a bigger batch.\n")
    assert not any("quantize_int4" in m.concepts for m in b.fixes)


def test_nominally_x_actually_y_overrides_a_first_guess(grader, tmp_path):
    """sealed212 e.s2141 (instructor 100, graded 71): 'My first reaction was "batch-1 decode, so
    it's bandwidth-bound," but the numbers don't support that. ... So: nominally bandwidth-bound,
    actually launch-overhead-bound.'"""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "My first reaction was \"batch-1 decode, so it's bandwidth-bound,\" but the numbers don't "
                  "support that. Bandwidth is at 14% of peak and the FLOP rate at 3%.\n\n"
                  "So: nominally bandwidth-bound, actually launch-overhead-bound.\n")
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_a_line_opening_with_a_refusing_label_is_an_item_of_its_own(grader, tmp_path):
    """sealed204 d.s2070 (instructor 100, graded 71): 'dont raise batch more: past ridge ...' after
    a 'fixes:' line is its own item, not more of the fixes."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "regime: compute bound (batch 256 decode)\n"
                  "fixes: fp8 gemms (raises compute ceiling), fused attn, better tiling, spec decoding\n"
                  "dont raise batch more: past ridge so more batch = more step time, worse per-user "
                  "latency\n")
    assert {"fp8_gemm", "fuse_attention"} <= {c for m in a.fixes for c in m.concepts}
    assert "raise_batch" in {c for m in a.rejects for c in m.concepts}


def test_pass_on_refuses(grader):
    """sealed207 d.s2091 (instructor 100, graded 73): "I'd pass on int4 for this endpoint." """
    from conftest import lever_statuses
    assert lever_statuses(grader, "I'd pass on int4 for this endpoint.")["quantize_int4"] == "negated"


def test_a_quoted_claim_with_once_inside_is_stated_and_refuted(grader, tmp_path):
    """sealed208 b.s2104 (instructor 100, graded 72.5): 'The "memory ops don't count once you're
    compute-bound" argument is wrong: ...' refutes the claim; its 'once' postpones nothing."""
    r = grader.grade(answer_file(tmp_path, "b_training_run",
                                 "1. Regime: compute-bound (61% of peak FLOPs is good for a training step).\n"
                                 "2. The \"memory ops don't count once you're compute-bound\" argument is "
                                 "wrong: "
                                 "being compute-bound is about the FLOP-carrying kernels.\n"))
    assert not any(p.id == "memory_ops_dismissed_when_compute_bound" for p in r.penalties)
    b = grader.grade(answer_file(tmp_path, "b_training_run",
                                 "## Regime\nCompute-bound (61% of peak).\n\nThe second engineer is right: "
                                 "memory ops don't count once you're compute-bound.\n"))
    assert any(p.id == "memory_ops_dismissed_when_compute_bound" for p in b.penalties)


def test_holding_off_on_the_proposals_announces_them_refused_for_now(grader, tmp_path):
    """sealed202 e.s2041 (instructor 100, graded 55): 'So I'd hold off on the two proposals.' names
    nothing and announces the sentences after it as refusals; on a lever it names, 'hold off'
    still defers it (sealed105 e.s1072, tests/test_grading_after_sealed99.py)."""
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up",
                                 "The real regime is launch/host-overhead-bound.\n\n"
                                 "So I'd hold off on the two proposals. Raising the batch and quantizing "
                                 "both "
                                 "help a loop that's limited by bandwidth, and this one isn't yet.\n"))
    assert not r.penalties
