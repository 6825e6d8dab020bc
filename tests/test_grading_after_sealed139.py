"""Readings and scoring rules from the spent blind sets sealed132-139 (issue 27), kept as the
sentences students wrote them."""

from __future__ import annotations

from conftest import lever_statuses, read_body


def test_host_overhead_names_the_overhead_regime(grader, tmp_path):
    """sealed133 e.s1353 (instructor 100, graded 65): "So the regime is launch/host overhead, even
    though nominally it is a bandwidth-bound workload." names overhead as the verdict."""
    essay = "So the regime is launch/host overhead, even though nominally it is a bandwidth-bound workload.\n"
    a = read_body(grader, tmp_path, "e_doesnt_add_up", essay)
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")


def test_two_sentences_each_naming_one_regime_offer_no_alternatives(grader, tmp_path):
    """sealed58 e.s605 (instructor 86): "Overhead-bound (launch latency / host overhead). Nominally
    BW-bound." is a verdict and its nominal regime, each the first clause of its own sentence; the
    alternatives test compared clauses by their number alone and paired the two sentences."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nOverhead-bound (launch latency / host overhead). Nominally BW-bound.\n")
    assert (a.regime, a.nominal_regime) == ("overhead_bound", "bandwidth_bound")
    both = read_body(grader, tmp_path, "e_doesnt_add_up", "## Regime\nOverhead-bound or bandwidth-bound.\n")
    assert both.regime is None


def test_a_dash_ends_a_side_of_a_slash(grader, tmp_path):
    """sealed138 e.s1410 (instructor 98): "Neither bandwidth- nor compute-bound — launch/host
    overhead." weighs no alternatives across the slash: the dash ends the negated side."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "## Regime\nNeither bandwidth- nor compute-bound — launch/host overhead. "
                  "(Nominally a bandwidth-bound batch-1 decode.)\n")
    assert a.regime == "overhead_bound"


def test_a_kind_of_step_as_a_sentences_subject_is_not_the_verdict(grader, tmp_path):
    """sealed135 e.s1371 (instructor 100, graded 69): "A bandwidth-bound or compute-bound loop pins
    one of them; when neither is pinned, the GPU is sitting idle" names kinds of step as the
    subject of a sentence. A verdict in apposition (sealed130 c.s1326) still stands."""
    essay = ("On paper this loop should be bandwidth-bound. It is bound by launch overhead. A "
             "bandwidth-bound or compute-bound loop pins one of them; when neither is pinned, the GPU is "
             "sitting idle.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", essay).regime == "overhead_bound"
    apposition = "A TTFT problem, so prefill; a compute-bound workload that is running inefficiently.\n"
    assert read_body(grader, tmp_path, "c_document_summarizer", apposition).regime == "compute_bound"


def test_memory_starved_is_a_verdict_and_before_it_becomes_is_not(grader, tmp_path):
    """sealed132 a.s1343 (instructor 100, graded 71): "MFU is 4% and MBU is 78%, which is what a
    memory-starved decode looks like" is the verdict; "the ~247 FLOP/byte an MI300X needs before it
    becomes compute-limited" is the threshold of another regime, not this step's."""
    starved = "MFU is 4% and MBU is 78%, which is what a memory-starved decode looks like.\n"
    assert read_body(grader, tmp_path, "a_chatbot", starved).regime == "bandwidth_bound"
    threshold = "We are nowhere near the ~247 FLOP/byte an MI300X needs before it becomes compute-limited.\n"
    assert read_body(grader, tmp_path, "a_chatbot", threshold).regime is None


def test_crossed_into_a_regime_concludes(grader, tmp_path):
    """sealed133 d.s1351 (instructor 100, graded 72): "A back-of-envelope check agrees: ... the
    MI300X's ridge point is 247 FLOP/byte, so we have crossed into compute-bound territory" is the
    verdict, not a nominal regime that a later limiter ("the small slice of time that is actually
    waiting on memory") replaces."""
    memo = ("A back-of-envelope check agrees: at batch 256 in fp16 each weight byte fetched is used for "
            "about 256 FLOPs, and the MI300X's ridge point is 247 FLOP/byte, so we have crossed into "
            "compute-bound territory.\n\nBy Amdahl the most int4 can give us is the small slice of time "
            "that is actually waiting on memory.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", memo).regime == "compute_bound"


def test_a_vendors_line_quoted_and_refuted_later_in_the_sentence_is_rejected(grader, tmp_path):
    """sealed136 d.s1388 (instructor 90, graded 53): 'The vendor's line is "int4 gives you 4x the
    tokens per second." That's true for a bandwidth-bound decode (batch 1 up to a few dozen) and
    false here.' reports the vendor's fix ('line' before the quotation) and refutes it two
    clauses later; the refutation no longer has to be the first clause after the quotation."""
    line = ('The vendor\'s line is "int4 gives you 4x the tokens per second." That\'s true for a '
            "bandwidth-bound decode (batch 1 up to a few dozen) and false here.")
    assert lever_statuses(grader, line) == {"quantize_int4": "negated"}


def test_a_quotation_refuted_in_the_next_sentence_is_rejected(grader, tmp_path):
    """sealed106 d.s1088 (instructor 76): 'The vendor claims "int4 gives up to 4x decode throughput."
    That's true at batch 1 to a few dozen, where decode is bandwidth-bound. It isn't true for us.'
    The sentence after the quotation's names nothing and refutes it."""
    said = ('The vendor claims "int4 gives up to 4x decode throughput." That\'s true at batch 1 to a few '
            "dozen, where decode is bandwidth-bound. It isn't true for us.")
    assert lever_statuses(grader, said) == {"quantize_int4": "negated"}


def test_a_lever_put_to_capacity_is_not_a_recommendation_for_throughput(grader, tmp_path):
    """sealed136 d.s1388 (instructor 90): "What I'd say yes to: int4 as a memory-capacity play
    (68 GB -> ~17 GB frees ~51 GB for more KV cache), evaluated for accuracy" is the worked
    solution's own "benchmark it for capacity, not for throughput", not the int4 trap."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "What I'd say yes to: int4 as a memory-capacity play (68 GB -> ~17 GB frees ~51 GB for "
                  "more KV cache), evaluated for accuracy.\n")
    assert ("quantize_int4",) not in [m.concepts for m in a.fixes]


def test_a_concession_then_a_turn_refuses_what_it_concedes(grader, tmp_path):
    """sealed121 a.s1233 (instructor 98, graded 69): "Fusing the elementwise ops sounds sensible,
    but at batch 1 those ops touch a tiny fraction of what the weight read does ..., so we would
    be polishing something nobody can measure." refuses the fusion; what the turn itself names,
    or re-judges ("but not yet"), keeps its own reading."""
    conceded = ("Fusing the elementwise ops sounds sensible, but at batch 1 those ops touch a tiny fraction "
                "of what the weight read does, so we would be polishing something nobody can measure.")
    assert lever_statuses(grader, conceded) == {"fuse_elementwise": "negated"}
    assert lever_statuses(grader, "Fusing the elementwise ops sounds sensible, but not yet.") == {
        "fuse_elementwise": "deferred"}
    assert lever_statuses(grader, "Fusing the elementwise ops is right, but the win is small.") == {
        "fuse_elementwise": "affirmed"}   # conceding a point is not a concession of the lever


def test_a_deferral_announcing_the_proposals_reads_them_as_refused_for_now(grader, tmp_path):
    """sealed137 e.s1391 (instructor 100, graded 80): "Not yet for the two proposals on the
    table. Bigger batches and quantized weights are the right medicine for a decode loop that is
    truly bandwidth-bound; ..." announces refusals, as "Two proposals I would turn down." does."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "Capture the step in a CUDA graph.\n\nNot yet for the two proposals on the table. Bigger "
                  "batches and quantized weights are the right medicine for a decode loop that is truly "
                  "bandwidth-bound.\n")
    assert {"raise_batch", "quantize_int8"} <= {c for m in a.rejects for c in m.concepts}


def test_levers_that_do_not_belong_are_refused(grader, tmp_path):
    """sealed139 e.s1413 (instructor 95, graded 80): "Batching and quantization don't belong in
    this round." refuses both (a backward negation, like "is off the table")."""
    assert lever_statuses(grader, "Batching and quantization don't belong in this round.") == {
        "raise_batch": "negated", "continuous_batching": "negated", "quantize_int4": "negated",
        "quantize_int8": "negated", "quantize_kv_fp8": "negated"}


def test_a_lever_narrowing_one_only_discussed_is_a_fix(grader, tmp_path):
    """sealed134 a.s1363 (instructor 100, graded 85.5): "So the real moves are to change what each
    weight read buys us, or to shrink the weights. First, continuous batching ... Second, weight
    quant to int8: half the bytes" recommends int8; the earlier, wider "shrink the weights" was
    only discussed, so the narrower mention is no mere commentary on it."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "So the real moves are to change what each weight read buys us, or to shrink the weights. "
                  "First, continuous batching. Second, weight quant to int8: half the bytes.\n")
    assert [m.concepts for m in a.fixes] == [("continuous_batching",), ("quantize_int8",)]


def test_agreeing_with_one_engineer_does_not_endorse_the_claim_refuted_after(grader, tmp_path):
    """sealed135 b.s1372 (instructor 82, graded 57): 'The first engineer says "these memory-bound
    ops are worth fusing". I agree with the goal. The second engineer says "we're compute-bound,
    so the memory-bound stuff doesn't matter" - that is wrong.' The agreement is with the first
    engineer; the paragraph's claim is the one the student refutes, so it is not endorsed."""
    a = read_body(grader, tmp_path, "b_training_run",
                  'The first engineer says "these memory-bound ops are worth fusing". I agree with the '
                  'goal. The second engineer says "we\'re compute-bound, so the memory-bound stuff '
                  'doesn\'t matter" - that is wrong. The compute-bound label describes the matmuls; it '
                  "tells you nothing about the time spent in kernels that have no FLOPs to speak of.\n")
    assert "memory_ops_irrelevant_when_compute_bound" not in a.endorsed
    assert ("memory_ops_irrelevant_when_compute_bound",) in [m.concepts for m in a.rejects]


def test_a_speaker_label_before_a_quotation_reports_it(grader, tmp_path):
    """sealed137 b.s1393: 'Engineer A: "give me two weeks and I'll hand-fuse the memory-bound
    ops."' quotes the engineer, as 'Engineer A says "..."' does; a label addressing someone ('Note
    to the engineer: "..."') is the student's own line."""
    quote = '"give me two weeks and I\'ll hand-fuse the memory-bound ops."'
    assert lever_statuses(grader, f"Engineer A: {quote}") == {"hand_fused_kernels": "attributed"}
    assert lever_statuses(grader, f"Note to the engineer: {quote}") == {"hand_fused_kernels": "affirmed"}


def test_a_lever_first_named_in_a_quotation_is_refused_by_the_students_own_words(grader, tmp_path):
    """sealed108 d.s1110 (instructor 72, graded 42): '- Vendor: "int4 = 4x throughput." Only true
    for bandwidth-bound decode at small batch. We're past the ridge; int4 shrinks bytes we aren't
    short of ...' (here worded 'The vendor says "..."'). The quotation is someone else's mention;
    the student's refusal after it is the student's reading, not commentary on the vendor's."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  '- MFU 71% / MBU 30% → compute-bound.\n- The vendor says "int4 = 4× throughput." Only '
                  "true for bandwidth-bound decode at small batch (≲32). We're past the ridge; int4 "
                  "shrinks bytes we aren't short of and adds dequant math on the saturated side. → no, for "
                  "throughput.\n")
    assert ("quantize_int4",) in [m.concepts for m in a.rejects]


def test_a_status_label_covers_its_line_past_a_semicolon(grader, tmp_path):
    """sealed128 c.s1303 (instructor 92, graded 70.5): "**No:** batching (more work per pass =
    longer TTFT); weight quant (16 GB read amortised over 25k tokens, not the bottleneck)." The
    label refuses both; the semicolon does not end its reach."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "**No:** batching (more work per pass = longer TTFT); weight quant (16 GB read amortised "
                  "over 25k tokens, not the bottleneck).\n")
    assert not a.fixes
    assert {c for m in a.rejects for c in m.concepts} >= {"raise_batch", "quantize_int8"}


def test_compute_heavy_work_names_the_compute_regime(grader, tmp_path):
    """sealed124 c.s1266 (instructor 59, graded 36 with no regime found): "The slow first token is
    a prefill problem. ... A 25k-token prefill is compute-heavy work, yet we only reach 20% of peak
    FLOPs"."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "The slow first token is a prefill problem. A 25k-token prefill is compute-heavy work, yet "
                  "we only reach 20% of peak FLOPs.\n")
    assert a.regime == "compute_bound"


def test_an_appearance_conceded_then_turned_commits_to_nothing(grader, tmp_path):
    """sealed116 d.s1185 (instructor: regime hedged between bandwidth and compute): "We're at 71% of
    compute and 30% of bandwidth, which looks compute-heavy, but the weights are 68 GB and int4
    would make them 17 GB, so there should still be some gain." The look is conceded, not
    concluded; "looks compute-bound to me" with no turn stays the student's reading."""
    turned = read_body(grader, tmp_path, "d_high_throughput_api",
                       'The vendor says "int4 gives you 4x the tokens per second on decode", and decode is '
                       "usually bandwidth-bound, so I think that's probably worth a pilot. We're at 71% "
                       "of compute and 30% of bandwidth, which looks compute-heavy, but the weights are "
                       "68 GB and int4 would make them 17 GB, so there should still be some gain.\n")
    assert turned.regime != "compute_bound" or turned.regime_hedged
    plain = read_body(grader, tmp_path, "d_high_throughput_api",
                      "71% of peak FLOPs against 30% of bandwidth: this looks compute-bound to me.\n")
    assert plain.regime == "compute_bound"


def test_a_prose_item_opening_with_a_cross_is_a_rejection(grader, tmp_path):
    """sealed115 b.s1178 (instructor 100, graded 87.5): terse bullets with no headings, "- ✗ fusing
    attention: already flash, <7% possible" refuses the attention fusion, as a cross in a table
    row refuses its row."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "- regime: compute-bound (61% MFU)\n- fix 1: torch.compile\n"
                  "- ✗ fusing attention: already flash, <7% possible\n")
    assert ("fuse_attention",) in [m.concepts for m in a.rejects]


def test_a_quotation_whose_predicate_refuses_it_is_rejected(grader, tmp_path):
    """sealed115 b.s1172 (instructor 100, graded 87.5): 'But "we're compute-bound, so memory-bound ops
    don't matter" mixes up where the bottleneck is for the GEMMs with where the time goes.' The
    quotation is the subject of a refusing predicate, as an unquoted subject already was."""
    said = ('But "we\'re compute-bound, so memory-bound ops don\'t matter" mixes up where the bottleneck is '
            "for the GEMMs with where the time goes.")
    a = read_body(grader, tmp_path, "b_training_run", said + "\n")
    assert ("memory_ops_irrelevant_when_compute_bound",) in [m.concepts for m in a.rejects]


def test_a_predicate_putting_a_named_lever_off_defers_it(grader, tmp_path):
    """sealed93 e.s955 (instructor 84, graded 58 with int8 read as recommended): the verdict row
    "| Quantize | helps later, once it's actually bandwidth-bound |" defers the quantization; a
    plan's "| 2 | chase the to_copy casts | after 1 |" stays a step (a one-word trigger opening a
    clause is no predicate)."""
    assert lever_statuses(grader, "Quantize: helps later, once it's actually bandwidth-bound.") == {
        "quantize_int4": "deferred", "quantize_int8": "deferred", "quantize_kv_fp8": "deferred"}
    plan = read_body(grader, tmp_path, "b_training_run",
                     "| step | fix | when | expected |\n|---|---|---|---|\n| 1 | torch.compile | today "
                     "| fuses the chain |\n| 2 | chase the to_copy casts | after 1 | 3-5% |\n")
    assert ("fix_dtype_casts",) in [m.concepts for m in plan.fixes]


def test_a_quotation_answered_with_i_dont_think_so_is_refuted(grader, tmp_path):
    """sealed125 a.s1273 (instructor 94, graded 74): 'Kevin suggested that "fusing the elementwise
    ops should buy us a good chunk". I don't think so.' refutes the suggestion; 'The idea of moving
    to a GPU with more FLOPs fails for a simpler reason: ...' refuses the bigger GPU."""
    said = ('Kevin suggested that "fusing the elementwise ops should buy us a good chunk". I don\'t think '
            "so. At batch 1 the norms move 0.04% of the bytes.")
    assert lever_statuses(grader, said) == {"fuse_elementwise": "negated"}
    gpu = "The idea of moving to a GPU with more FLOPs fails for a simpler reason: we use 4% of ours."
    assert lever_statuses(grader, gpu) == {"buy_more_flops": "negated"}
