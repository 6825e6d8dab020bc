"""Classes from the sealed257-272 sets, now development data (issue 27), each with the student's
own sentences: plural resources named as the busy one state the regime; an essay's verdict stands
over a later generic sentence that names two regimes."""

from __future__ import annotations

from conftest import read_body


def _regime(grader, tmp_path, case: str, body: str) -> str | None:
    return read_body(grader, tmp_path, case, body).regime


def test_the_matrix_cores_are_the_busy_resource(grader, tmp_path):
    """sealed259 d.s2611 (instructor 100, graded 59 as bandwidth-bound): the essay names no regime;
    its verdict is which resource is busy, in the plural, before an aside on 'the small slice of
    time that is actually waiting on memory'."""
    said = ("At batch 256 the endpoint runs at 71% of peak FLOP/s and only 30% of peak HBM bandwidth, "
            "which is the mirror image of the chatbot: here the matrix cores are the busy resource.\n\n"
            "Int4 shrinks bytes. By Amdahl, the gain is capped by the small slice of time that is "
            "actually waiting on memory.\n")
    assert _regime(grader, tmp_path, "d_high_throughput_api", said) == "compute_bound"


def test_a_generic_either_or_does_not_undo_the_verdict(grader, tmp_path):
    """sealed260 e.s2621 (instructor 100, graded 62 with no regime): 'A workload that is genuinely
    bandwidth-bound or compute-bound pins one of those' is about workloads in general."""
    said = ("Nominally this is bandwidth-bound decode (batch 1, fp16), but right now it isn't limited by "
            "bandwidth or by compute. It's limited by kernel-launch overhead.\n\n"
            "The giveaway is that both meters are low: 14% of peak bandwidth and 3% of peak FLOPs. A "
            "workload that is genuinely bandwidth-bound or compute-bound pins one of those.\n")
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) == "overhead_bound"
    said = "- compute-bound\n- memory-bound\n- overhead\n"   # a keyword list still commits to none
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) is None


def test_to_go_faster_heads_the_fixes(grader, tmp_path):
    """sealed269 d.s2715 (instructor 100, graded 64 with the compute fixes described): a label
    naming the goal ('To actually go faster:') heads a menu of fixes, as 'To get more tokens/s:' does."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "We have crossed over into compute-bound territory.\n\nTo actually go faster: fp8 GEMMs "
                  "(raise the ceiling on compute), better tiling, fused attention, speculative decoding.\n")
    assert {c for m in a.fixes for c in m.concepts} >= {"fp8_gemm", "better_gemm_tiling", "fuse_attention"}


def test_a_clause_opening_only_if_conditions_the_lever_before_it(grader, tmp_path):
    """sealed262 e.s2647 (instructor 54, graded 21 with the bigger batch as the main fix): 'only if'
    after a comma puts a condition on the lever before it, as ', but only if' does."""
    said = "## Fixes\n1. Raise the batch to 8, only if the latency SLO allows it.\n2. CUDA graphs.\n"
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert "raise_batch" not in {c for m in a.fixes for c in m.concepts}
    assert "cuda_graphs" in {c for m in a.fixes for c in m.concepts}


def test_disagreeing_with_a_reported_colleague_leaves_the_verdict(grader, tmp_path):
    """sealed265 a.s2673 (instructor 94, graded 62 with no regime): 'I disagree' after a
    colleague's quoted words refutes the colleague, not the verdict in the sentence before."""
    said = ('## Diagnosis\nBandwidth-bound decode, one request at a time. A colleague said "just fuse the '
            'small kernels and it\'ll fly" — I disagree, see the table.\n')
    assert _regime(grader, tmp_path, "a_chatbot", said) == "bandwidth_bound"
    a = read_body(grader, tmp_path, "a_chatbot", "## Fixes\nFuse the elementwise ops. I'd skip it, though.\n")
    assert "fuse_elementwise" in {c for m in a.rejects for c in m.concepts}   # a plain refusal points back


def test_a_refusal_lists_a_lever_named_with_its_object(grader, tmp_path):
    """sealed267 c.s2692 (instructor 100, graded 68 with quantization not rejected): 'quantizing
    the weights' after 'batching the prefills,' is the list's second subject, not an aside; 'the
    weights' is a word its aliases use."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "What not to do: batching the prefills together (it only adds work, each user's TTFT goes "
                  "up), and quantizing the weights (a 16 GB weight read spread over 25k tokens is "
                  "negligible).\n")
    assert {c for m in a.rejects for c in m.concepts} >= {"raise_batch", "quantize_int8"}


def test_a_figure_that_drops_refuses_nothing(grader, tmp_path):
    """sealed267 c.s2692 (instructor 100, graded 78 rejecting its own first fix): 'Expect
    time-to-first-token to drop substantially once FlashAttention is in'; 'Drop int4.' still refuses."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "First, switch to a FlashAttention kernel: the score matrix stays on chip.\n\nNote for the "
                  "manager: expect time-to-first-token to drop substantially once FlashAttention is in.\n")
    assert "flash_attention" not in {c for m in a.rejects for c in m.concepts}
    a = read_body(grader, tmp_path, "d_high_throughput_api", "## Reject\nDrop int4.\n")
    assert "quantize_int4" in {c for m in a.rejects for c in m.concepts}


def test_engineer_two_is_the_second_engineer(grader, tmp_path):
    """sealed266 b.s2683 (instructor 90, graded 62 for endorsing the second engineer): 'Engineer
    two: "..."' names its speaker by number after the word; siding with 'engineer one' endorses
    nothing the second says. Who holds a claim is read sentence by sentence within paragraphs, so
    a heading's words do not run into the first quotation."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "## Regime\nCompute-bound (61% of peak FLOPs), with a sizeable memory-bound tail.\n\n"
                  "## The two engineers\nEngineer one: \"those norm and activation kernels are eating our "
                  "step, give me two weeks to fuse them.\" Engineer two: \"we are compute bound, so the "
                  "memory-bound kernels are irrelevant.\"\n\nI side with engineer one on the diagnosis and "
                  "with nobody on the schedule. Engineer two's argument doesn't hold: the norm kernels are "
                  "22% of kernel time in which almost no FLOPs happen.\n")
    assert not a.endorsed


def test_a_colleague_who_is_mistaken_is_refuted(grader, tmp_path):
    """sealed255 b.s2579 (instructor 73, graded 63 -> 48 once holders were read by paragraph):
    'the first engineer is right that the memory-bound kernels matter. The colleague who says
    compute-bound means we can ignore them is mistaken'."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "Priya — short answer: the step is compute-bound (61% of peak), and the first engineer is "
                  "right that the memory-bound kernels matter. The colleague who says compute-bound means we "
                  "can ignore them is mistaken: 22% of the kernel time is in ops that carry no FLOPs.\n")
    assert not a.endorsed


def test_a_new_gpu_is_the_bigger_flops_gpu(grader, tmp_path):
    """sealed264 a.s2665, sealed258 a.s2605, sealed257 a.s2597 (each instructor 40-47, the GPU
    rejection credited): 'Reject: A new GPU with extra FLOPs, since we only use 4%.'"""
    for said in ("**Reject:** A new GPU with extra FLOPs, since we only use 4%.\n",
                 "## Reject\n- New GPU: we don't need more compute.\n"):
        a = read_body(grader, tmp_path, "a_chatbot", said)
        assert "buy_more_flops" in {c for m in a.rejects for c in m.concepts}, said


def test_also_after_a_fix_is_one_more_fix(grader, tmp_path):
    """sealed270 c.s2726 (instructor 29, graded 0 with FlashAttention described): 'Main fix: ...',
    then 'Also: FlashAttention to reduce the 40 GB scratch allocation.'"""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "1. Main fix: batch several documents' prefills together to fill the matrix cores.\n"
                  "2. Also: FlashAttention to reduce the 40 GB scratch allocation.\n")
    assert "flash_attention" in {c for m in a.fixes for c in m.concepts}


def test_memory_bound_time_is_a_part_of_the_step(grader, tmp_path):
    """sealed268 c.s2703 (instructor 92, graded 64 as bandwidth-bound): 'That memory-bound time is
    the 55% spent in attention' describes a part of a compute-bound prefill."""
    said = ("1. **Regime.** Compute-bound prefill. TTFT is the complaint and that is decided by prefill.\n"
            "2. **Why 20%.** The score matrix is written and read again: about 5 TB of traffic that does no "
            "useful math. That memory-bound time is the 55% spent in attention and it pulls the overall "
            "FLOP rate down to 20%.\n")
    assert _regime(grader, tmp_path, "c_document_summarizer", said) == "compute_bound"


def test_doubting_a_quoted_argument_refutes_it(grader, tmp_path):
    """sealed265 b.s2677 (instructor 52: the claim half-rejected), sealed206 b.s2087: a refusal
    before a quoted claim refutes it; 'argument' after the quotation names whose it is and does
    not turn the refusal back into a report."""
    for said in ("## About the second engineer\nI'm not fully convinced by the \"memory ops don't matter\" "
                 "argument — there's a lot of time in those kernels.\n",
                 "6. Reject the \"memory ops are irrelevant when compute bound\" argument: 22% of the time "
                 "is in near-zero-FLOP kernels.\n"):
        a = read_body(grader, tmp_path, "b_training_run", said)
        assert "memory_ops_irrelevant_when_compute_bound" in {c for m in a.rejects for c in m.concepts}, said


def test_asked_whether_we_should_then_my_answer_is_no(grader, tmp_path):
    """sealed268 a.s2710 (instructor 80, graded 54 recommending the bigger-FLOPs GPU): a subject
    right after 'whether' opens the question's own clause, and 'My answer is no' answers it; 'After
    that I'd quantize' is still the student's own step."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "The director asked whether we should move to a card with more FLOPs. My answer is no: "
                  "we use 4% of the FLOPs this card already has.\n\n"
                  "After that I'd quantize the weights to int8.\n")
    assert "buy_more_flops" in {c for m in a.rejects for c in m.concepts}
    assert "quantize_int8" in {c for m in a.fixes for c in m.concepts}


def test_a_double_hyphen_ends_a_clause(grader, tmp_path):
    """sealed265 e.s2673 (instructor 95, graded 69 as bandwidth-bound): ' -- ' is a typed dash;
    'neither bw nor compute bound -- its launch overhead' denies two regimes and affirms the third."""
    said = "regime: neither bw nor compute bound -- its launch overhead. nominaly bandwidth bound\n"
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) == "overhead_bound"


def test_also_before_a_refusing_label(grader, tmp_path):
    """sealed270 b.s2721 (instructor 100, graded 74 recommending attention fusion): 'Also not worth
    it: fusing attention.' is the 'Not worth it:' label with one more subject."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "Not recommended: the \"compute-bound, therefore memory-bound ops are irrelevant\" line. "
                  "Also not worth it: fusing attention. Attention runs as flash-attention today.\n")
    assert "fuse_attention" in {c for m in a.rejects for c in m.concepts}
    assert "fuse_attention" not in {c for m in a.fixes for c in m.concepts}


def test_after_that_makes_the_described_lever_a_step(grader, tmp_path):
    """sealed270 c.s2724 (instructor 92, graded 69 with FlashAttention described): the next
    sentence's 'After that, I'd add chunked prefill' makes it the step before."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "FlashAttention computes attention tile by tile in on-chip memory, so the 40 GB never "
                  "exists and the traffic vanishes. After that, I'd add chunked prefill so other users keep "
                  "their decode steps.\n")
    assert "flash_attention" in {c for m in a.fixes for c in m.concepts}


def test_a_topic_label_refused_by_what_points_back(grader, tmp_path):
    """sealed259 d.s2614 (instructor 81, graded 58 raising the batch): '**Batch:** raising it further
    would not help' refuses the topic; 'Int4: I'm not fully convinced it's useless' (sealed152
    d.s1545, two negations) does not."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "**Batch:** raising it further would not help; we're past the ridge, so it mostly adds "
                  "latency.\n\n**Int4:** I'm not fully convinced it's useless.\n")
    assert "raise_batch" in {c for m in a.rejects for c in m.concepts}
    assert "quantize_int4" not in {c for m in a.rejects for c in m.concepts}


def test_a_regime_among_lever_names_is_a_keyword(grader, tmp_path):
    """sealed258 d.s2610 (instructor 0, 'no regime committed', graded 33): a regime named bare
    beside three or more bare lever names is a keyword list's term; a terse verdict beside its
    figures still states it."""
    said = ("Relevant: compute-bound, bandwidth, int4, fp8, ridge point 247, batch 256, speculative "
            "decoding, dequantization, the vendor.\n")
    assert _regime(grader, tmp_path, "d_high_throughput_api", said) is None
    said = "Regime: compute-bound, 71% FLOPs, 30% BW, past the ridge.\n"
    assert _regime(grader, tmp_path, "d_high_throughput_api", said) == "compute_bound"


def test_also_between_would_and_a_refusal(grader, tmp_path):
    """sealed268 a.s2701 (instructor 100, graded 80 recommending the bigger-FLOPs GPU)."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "The other suggestion, a GPU with more FLOPs, I would also turn down — we are using 4% of "
                  "the FLOPs this one already has.\n")
    assert "buy_more_flops" in {c for m in a.rejects for c in m.concepts}


def test_a_topic_heading_recommends_nothing(grader, tmp_path):
    """sealed263 e.s2658 (instructor 100, graded 80): '**On batching and int8.**' heads a paragraph
    that defers both; '**On fusing attention.** No.' (sealed219 b.s2211) still refuses its topic."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "**On batching and int8.** A colleague argued we should just raise the batch. I disagree "
                  "for now: the GPU is idle in the gaps. Only if the re-measured loop turns out to be "
                  "genuinely bandwidth-bound would I batch or quantize.\n")
    assert not {c for m in a.fixes for c in m.concepts} & {"raise_batch", "quantize_int8"}
    a = read_body(grader, tmp_path, "b_training_run",
                  "**On fusing attention.** No. It's already flash-attention, and it's 7% of time total.\n")
    assert "fuse_attention" in {c for m in a.rejects for c in m.concepts}


def test_a_fix_set_beside_another_fix_refuses_neither(grader, tmp_path):
    """sealed261 a.s2631 (instructor 100, graded 80.5): under 'What I would do, in order:', the int8
    item's 'batching does nothing for the speed of an individual reply' compares two fixes; 'Not
    now: bigger batch, int8' (sealed126 e.s1287) still refuses both."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "What I would do, in order:\n\n1. **Continuous batching.** Merge new requests into the "
                  "running decode step.\n2. **int8 weights.** Halves the bytes. It's the one option that "
                  "also makes a single user faster; batching does nothing for the speed of an individual "
                  "reply.\n")
    assert "continuous_batching" not in {c for m in a.rejects for c in m.concepts}


def test_a_claim_in_apposition_that_seems_not_quite_right(grader, tmp_path):
    """sealed264 b.s2668 (instructor 63, graded 23 endorsing the second engineer): 'The second
    engineer's point, that ..., seems probably not quite right to me' refutes the claim between its
    commas; 'seems' links as 'is' does."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "The second engineer's point, that being compute-bound means the memory-bound ops don't "
                  "count, seems probably not quite right to me, since 22% is a fair chunk of time.\n")
    assert not a.endorsed
    assert "memory_ops_irrelevant_when_compute_bound" in {c for m in a.rejects for c in m.concepts}


def test_reject_for_throughput_after_the_vendors_claim(grader, tmp_path):
    """sealed258 d.s2603 (instructor 100, graded 85 with int4 not refused): 'True only for
    bandwidth-bound decode' refutes the vendor's quoted claim, and a bare 'Reject for throughput.'
    refuses what the sentence before named, as 'No for throughput.' does."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## The vendor's claim\nThe vendor says \"int4 will give you up to 4× the tokens per "
                  "second.\" True only for bandwidth-bound decode (small batches).\n")
    assert "quantize_int4" in {c for m in a.rejects for c in m.concepts}
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "The vendor pitches int4 weights for a 4x speedup. Reject for throughput.\n")
    assert "quantize_int4" in {c for m in a.rejects for c in m.concepts}


def test_a_verdict_then_not_saturating_either_resource(grader, tmp_path):
    """sealed265 e.s2676 (instructor 78, graded 58 with no regime): 'either' in 'not saturating
    either resource' is a determiner, not a word pointing back at the verdict."""
    said = "**Regime:** latency/overhead-bound; not saturating either resource (14% BW, 3% FLOPs).\n"
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) == "overhead_bound"


def test_the_hardware_is_mostly_idle(grader, tmp_path):
    """sealed263 e.s2656 (instructor 64, graded 50 with no regime)."""
    said = ("**Regime:** neither bandwidth- nor compute-bound; 14% and 3% mean the hardware is mostly "
            "idle.\n")
    assert _regime(grader, tmp_path, "e_doesnt_add_up", said) == "overhead_bound"


def test_a_refusal_with_a_subject_of_its_own(grader, tmp_path):
    """sealed257 a.s2591 (instructor 100, graded 85.5 refusing int8): 'To go faster we change how
    many requests share a weight read, or we shrink the weights. Tuning kernels won't do it.'
    refuses the tuning; 'I'd skip it' still points back. 'A GPU with more FLOPs, is even further
    off' refuses the GPU."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "Note for my manager: to go faster we change how many requests share a weight read, or "
                  "we shrink the weights. Tuning kernels won't do it.\n\nThe other idea floating around, a "
                  "GPU with more FLOPs, is even further off: we use 4% of the compute we already paid for.\n")
    refused = {c for m in a.rejects for c in m.concepts}
    assert "quantize_int8" not in refused and "buy_more_flops" in refused


def test_a_bandwidth_bound_number_is_another_workloads(grader, tmp_path):
    """sealed274 d.s2767 (instructor 82, graded 43 as bandwidth-bound): 'The vendor's 4x is a
    bandwidth-bound number and we aren't bandwidth-bound' says where the figure comes from."""
    said = ("## Regime\nCompute-bound decode: 71% of peak FLOPs against 30% of peak bandwidth.\n\n## int4\n"
            "The vendor's 4× is a bandwidth-bound number and we aren't bandwidth-bound.\n")
    assert _regime(grader, tmp_path, "d_high_throughput_api", said) == "compute_bound"


def test_nobody_should_read_it_as(grader, tmp_path):
    """sealed280 b.s2827 (instructor 94, graded 59 as bandwidth-bound): 'nobody should read it as
    "memory-bound"' denies the reading."""
    said = ("The headline number, 61% of peak FLOP rate, says the step as a whole is compute-bound. That "
            "is a good figure for training, and nobody should read it as \"memory-bound\".\n")
    assert _regime(grader, tmp_path, "b_training_run", said) != "bandwidth_bound"


def test_an_intro_refusing_its_own_lever_heads_the_plan(grader, tmp_path):
    """sealed273 b.s2752 (instructor 100, graded 77 refusing its own plan): 'I would not start with
    the two weeks of hand-fusion though:' refuses the hand-fusion; the list after it is the plan."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "So the first engineer has the right target. I would not start with the two weeks of "
                  "hand-fusion though:\n\n1. Turn on torch.compile. Fusing norm/pointwise/cast chains is "
                  "precisely what it does.\n2. Chase the to_copy kernels separately.\n")
    assert "torch_compile" in {c for m in a.fixes for c in m.concepts}
    assert "torch_compile" not in {c for m in a.rejects for c in m.concepts}
