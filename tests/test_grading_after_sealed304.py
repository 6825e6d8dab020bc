"""Classes from the sealed297-304 sets, now development data (issue 27), each with the student's
own sentences."""

from __future__ import annotations

from conftest import read_body

from regime.engine.grading.labels import section
from regime.engine.grading.reading import read_against
from regime.engine.grading.reasons import RIGHT, WRONG, judge

_CLAIM = "memory_ops_irrelevant_when_compute_bound"


def _levers(found) -> set[str]:
    return {c for m in found for c in m.concepts}


def _read(grader, tmp_path, case: str, body: str):
    a = read_body(grader, tmp_path, case, body)
    return read_against(a, grader.key(a, None)[0], grader.concepts.context.menu_share, grader.concepts)


def test_a_lever_refused_for_now_offered_on_another_condition(grader, tmp_path):
    """sealed297 e.s2998, sealed303 e.s3058 (instructors 69 and 74, graded 84 and 92 with batching
    read as refused for now): 'If users are queueing at peak times, also raise the batch so more
    requests share each step.' The key refuses batching until the overhead is gone; a condition
    about traffic is not that wait, so the lever is left open. A condition that is the key's wait
    (a regime, one of its fixes, a re-measure) still defers it in the solution's order."""
    head = ("Regime: launch-overhead-bound, 14% bandwidth and 3% FLOPs.\n\n1. CUDA graphs, so the ~450 "
            "launches become one submission.\n2. torch.compile to fuse small kernels.\n")
    offered = head + ("3. If users are queueing at peak times, also raise the batch so more requests share "
                      "each step.\n")
    read = _read(grader, tmp_path, "e_doesnt_add_up", offered)
    assert "raise_batch" in read.leans and "raise_batch" not in read.rejects
    for wait in ("3. If it is truly bandwidth-bound after that, raise the batch.\n",
                 "3. If the re-measure shows the gaps are gone, raise the batch.\n"):
        read = _read(grader, tmp_path, "e_doesnt_add_up", head + wait)
        assert "raise_batch" not in read.leans and "raise_batch" in read.rejects


def test_because_alone_is_no_part_of_the_keys_argument(grader, tmp_path):
    """sealed303 e.s3054, sealed298 e.s3005 (instructors 49 and 25: graphs 'for a wrong reason',
    half the item; graded 66 and 50 with the reason right): 'graph-compiled kernels run faster on
    the GPU because the driver can optimize them together' shared only 'because' and 'kernel'
    with the graph's justification. A connective weighs nothing toward the key's argument, but
    still marks a reason given: 'because a bigger batch uses more memory' is a wrong reason, not
    none (sealed211 e.s2136)."""
    g = grader
    key = g.key(read_body(g, tmp_path, "e_doesnt_add_up", "Regime: overhead-bound.\n"), None)[0]
    wrong = "graph-compiled kernels run faster on the GPU because the driver can optimize them together."
    assert judge(wrong, "CUDA graphs", "cuda_graphs", key, g.concepts, g.concepts.reasons, 0.1) != RIGHT
    right = "the ~450 launches go out as one submission, so the gaps between kernels disappear."
    assert judge(right, "CUDA graphs", "cuda_graphs", key, g.concepts, g.concepts.reasons, 0.1) == RIGHT
    memory = "Reject raising the batch, because a bigger batch uses more memory."
    assert judge(memory, "the batch", "raise_batch", key, g.concepts, g.concepts.reasons, 0.1) == WRONG


def test_a_quotation_predicated_of_a_noun_of_speech_is_reported(grader, tmp_path):
    """sealed298 e.s3009 (instructor 100, graded 35 as a keyword list): 'Ravi's suggestion in the
    standup was "just batch it and quantize, that's how the chatbot got faster." I don't think
    that's right for this loop.' The quotation is Ravi's, through the copula, and refuted."""
    said = ("Ravi's suggestion in the standup was \"just batch it and quantize, that's how the chatbot got "
            "faster.\" I don't think that's right for this loop.\n\nThe plan: first capture the decode step "
            "as a CUDA graph, then run torch.compile.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert _levers(a.fixes) == {"cuda_graphs", "torch_compile"} and not a.stuffed
    assert {"raise_batch", "quantize_int8"} & _levers(a.rejects)


def test_a_bare_negation_before_a_quotation_refuses_only_the_quotation(grader, tmp_path):
    """sealed298 b.s3009 (instructor 100, graded 43 with no regime): 'Compute-bound, 61% of peak
    FLOPs — but not "nothing to gain".' The negation ends its clause where a quotation opens: it
    refuses what it quotes, not the verdict before it. Without a quotation, "but not yet" still
    re-judges what came before."""
    said = 'Compute-bound, 61% of peak FLOPs — but not "nothing to gain".\n'
    assert read_body(grader, tmp_path, "b_training_run", said).regime == "compute_bound"
    later = read_body(grader, tmp_path, "e_doesnt_add_up", "Raise the batch, but not yet.\n")
    assert "raise_batch" in _levers(later.deferred) and not later.fixes


def test_a_heading_of_two_words_with_a_qualifier(grader):
    """sealed304 e.s3063 (instructor 100, graded 48 as a keyword list): 'dont (yet)' over the
    refused levers. "dont" is the two-word heading "do not"; a qualifier after a heading of two
    words names it too, as one after a heading of one word did ('Reject (for now)'). A lever
    after the heading is no qualifier: 'int4 reject' is a verdict, not a heading."""
    for head in ("dont (yet)", "don't yet", "Reject (for now)"):
        assert section(grader.concepts, head) == "reject"
    assert section(grader.concepts, "int4 reject") is None


def test_someone_elses_idea_refused_in_the_sentences_after_it(grader, tmp_path):
    """sealed298 a.s3004 (instructor 97, graded 64 with the fusion unjudged and the GPU
    recommended), under a 'What to do' heading: 'A colleague suggested we fuse the elementwise
    kernels. I don't think that buys anything here ... Someone else floated a GPU with more FLOPs;
    I'm not sure that is wise when we are using 4% of the FLOPs.' 'floated' reports a proposal; a
    sentence refusing 'that' joins the one it points back to, inside a Fixes item as in prose; a
    doubt of its merit refuses it. So does 'I would not spend time there' (sealed179 a.s1817)."""
    said = ("A colleague suggested we fuse the elementwise kernels. I don't think that buys anything here. "
            "Someone else floated a GPU with more FLOPs; I'm not sure that is wise when we are using 4% of "
            "the FLOPs.")
    for body in (said, f"## Regime\nBandwidth-bound.\n\n## What to do\n\n{said}"):
        a = read_body(grader, tmp_path, "a_chatbot", body + "\n")
        assert {"fuse_elementwise", "buy_more_flops"} <= _levers(a.rejects) and not a.fixes
    spent = ("Someone also floated fusing the elementwise kernels. At batch 1 those touch a negligible share "
             "of the bytes, so I would not spend time there.\n")
    assert "fuse_elementwise" in _levers(read_body(grader, tmp_path, "a_chatbot", spent).rejects)


def test_a_label_refused_by_a_doubt_and_a_speakers_words_in_brackets(grader, tmp_path):
    """sealed297 c.s2997 (instructor 100, graded 73 with int8 recommended): 'Quantizing weights: I'm
    not sure that's wise here; 16 GB over 25k tokens is ~0.6 MB/token'. sealed299 b.s3011
    (instructor 100, graded 70 with the claim endorsed): 'Second engineer (compute-bound, therefore
    the memory-bound ops are irrelevant): wrong.' The claim in brackets is the speaker's, refuted
    after the colon; the regime in it is the speaker's too, neither endorsed nor denied."""
    quant = ("Regime: compute-bound.\n\n8. Quantizing weights: I'm not sure that's wise here; 16 GB over 25k "
             "tokens is ~0.6 MB/token.\n")
    assert "quantize_int8" in _levers(read_body(grader, tmp_path, "c_document_summarizer", quant).rejects)
    claim = ("1. Regime: compute-bound.\n5. Second engineer (compute-bound, therefore the memory-bound ops "
             "are irrelevant): wrong. Compute-bound is a statement about the FLOP-heavy kernels.\n")
    a = read_body(grader, tmp_path, "b_training_run", claim)
    assert _CLAIM in _levers(a.rejects) and _CLAIM not in a.endorsed
    assert a.regime == "compute_bound" and not a.regimes_denied


def test_i_would_say_no_after_someone_elses_question_and_better_options(grader, tmp_path):
    """sealed303 d.s3057 (instructor 63, graded 37 with int4 unjudged and no fixes): 'Int4: the
    director asked whether the vendor's int4 would roughly double our throughput. I'd say no.' A
    verb of speech the student says is no report of someone else's. 'Better options: speculative
    decoding ..., and fp8 for the GEMMs.' recommends them."""
    said = ("Regime: compute-bound.\n\nInt4: the director asked whether the vendor's int4 would roughly "
            "double our throughput. I'd say no.\n\nBetter options: speculative decoding to cut the FLOPs "
            "per token, and fp8 for the GEMMs.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", said)
    assert "quantize_int4" in _levers(a.rejects)
    assert {"speculative_decoding", "fp8_gemm"} <= _levers(a.fixes)


def test_a_run_of_kernel_shares_reads_the_profile_and_hand_written_fused(grader, tmp_path):
    """sealed290 b.s2921 (instructor 100, graded 83 with the cast fix ahead of compile and no hand
    fusion): an Evidence paragraph read as prose, '8% layer_norm, 9% add/mul/silu and 5% to_copy',
    reads the profile, not a fix; 'spend engineer time on hand-written fused norm/activation
    kernels' names hand fusion."""
    said = ("Add up the kernels that do essentially no arithmetic: 8% layer_norm, 9% add/mul/silu and 5% "
            "to_copy, 22% of kernel time together.\n\nOnly if compile plus the cast fix leave a real gap, "
            "spend engineer time on hand-written fused norm/activation kernels.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert "fix_dtype_casts" not in _levers(a.fixes) and "hand_fused_kernels" in _levers(a.deferred)


def test_i_would_also_not_do_and_i_would_rather_not_refuse(grader, tmp_path):
    """sealed289 c.s2912 (instructor 92, graded 70 with batching recommended): 'Batching several
    documents together I would also not do — prefill is already compute-bound'. sealed299 c.s3015
    (instructor 76, graded 57 with int8 recommended): 'Quantizing the weights: I'd rather not, int8
    can hurt summary quality.' An adverb between the modal and the refusal, and 'rather not'."""
    for said, lever in (("Batching several documents together I would also not do — prefill is already "
                         "compute-bound.", "raise_batch"),
                        ("Quantizing the weights: I'd rather not, int8 can hurt summary quality.",
                         "quantize_int8")):
        a = read_body(grader, tmp_path, "c_document_summarizer", f"Regime: compute-bound.\n\n{said}\n")
        assert lever in _levers(a.rejects) and lever not in _levers(a.fixes)


def test_a_recommendation_two_sentences_back_and_only_once_after_the_levers(grader, tmp_path):
    """sealed304 a.s3066 (instructor 82, graded 56 with batching only described): 'What would
    actually help is letting requests share a step. Our traffic is bursty, ... wait in line; with
    continuous batching they ride along in the same decode step'. A recommending sentence naming
    nothing reaches past one more sentence naming nothing. 'batching/quantization only once it's
    truly bandwidth-bound' (sealed222 e.s2242, instructor 94) defers the levers before 'only once',
    so reaching 'Then measure again vs.' two sentences back recommends neither."""
    said = ("What would actually help is letting requests share a step. Our traffic is bursty, so when two "
            "chats are active at once they wait in line; with continuous batching they ride along in the "
            "same decode step.\n")
    assert "continuous_batching" in _levers(read_body(grader, tmp_path, "a_chatbot", said).fixes)
    later = ("Regime: launch-overhead-bound.\n\n6. Then measure again vs. the 215 tok/s ceiling; "
             "batching/quantization only once it's truly bandwidth-bound.\n")
    a, put_off = read_body(grader, tmp_path, "e_doesnt_add_up", later), {"raise_batch", "quantize_int8"}
    assert not put_off & _levers(a.fixes) and put_off <= _levers(a.deferred)


def test_and_they_do_nothing_here_refuses_what_the_clause_before_named(grader, tmp_path):
    """sealed309 e.s3111 (instructor 100, graded 70 as a keyword list, after the measurement): 'The
    two proposals on the table — raise the batch, quantize the weights — are the standard remedies
    for a real bandwidth-bound decode, and they do nothing here yet'. A clause joined by 'and' whose
    subject points back, refusing, refuses what was named; 'the second engineer is wrong that they
    don't matter' after a profile's figures still refuses nothing of them (sealed21 b.s240)."""
    said = ("Regime: overhead-bound.\n\nThe two proposals on the table — raise the batch, quantize the "
            "weights — are the standard remedies for a real bandwidth-bound decode, and they do nothing "
            "here yet.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert {"raise_batch", "quantize_int8"} <= _levers(a.rejects) and not a.fixes
    profile = ("Compute-bound. The memory-bound kernels (layer_norm 8%, add/mul/silu 9%, to_copy 5%) add up "
               "to 22%, so the second engineer is wrong that they don't matter.\n")
    assert "fix_dtype_casts" not in _levers(read_body(grader, tmp_path, "b_training_run", profile).rejects)


def test_a_limit_that_is_neither_memory_nor_math_is_the_launch_overhead(grader, tmp_path):
    """sealed310 e.s3122 (instructor 98, graded 71 as bandwidth-bound, after the measurement): 'When
    both numbers are that low, the limit is neither memory nor math; it is the overhead of launching
    work.' A limiter's word after a denial is denied; 'the overhead of launching work' names the
    regime."""
    said = ("When both numbers are that low, the limit is neither memory nor math; it is the overhead of "
            "launching work.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime == "overhead_bound"
    plain = "The loop is limited by memory bandwidth.\n"
    assert read_body(grader, tmp_path, "e_doesnt_add_up", plain).regime == "bandwidth_bound"
