"""Readings and scoring rules from the spent blind sets sealed100-115 (issue 27), kept as the
sentences students wrote them."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def _feedback(grader, tmp_path, case: str, body: str) -> str:
    r = grader.grade(answer_file(tmp_path, case, body))
    return "\n".join(line for p in r.parts for line in p.feedback)


def test_a_key_fix_put_off_behind_no_earlier_step_is_a_hedge(grader, tmp_path):
    """sealed109 c.s1114 (instructor 2): "Maybe FlashAttention later" after two traps puts off the
    key's first step; the instructors take 13-15 of its points. "Once compile is in, hand-fused
    kernels only if a gap remains" (the worked solution's own order) stays a fix."""
    put_off = ("## Fixes\n1. Batch the prefills: several documents per forward pass.\n"
               "2. int8 weights.\n3. Maybe FlashAttention later.\n")
    assert "Hedged: flash attention" in _feedback(grader, tmp_path, "c_document_summarizer", put_off)
    placed = ("## Fixes\n1. torch.compile the step.\n"
              "2. Later, hand-fused kernels, only if a gap remains.\n")
    assert "Hedged" not in _feedback(grader, tmp_path, "b_training_run", placed)


def test_nowhere_near_the_ridge_denies_the_balanced_regime(grader, tmp_path):
    """sealed115 a.s1173 (instructor 99): "one FLOP per byte, nowhere near the ridge point" read
    as a balanced verdict beside the essay's "So this is decode, bandwidth-bound"."""
    essay = ("It is matrix-vector work at around one FLOP per byte, nowhere near the ridge point. "
             "So this is decode, bandwidth-bound, and running near its ceiling.\n")
    assert read_body(grader, tmp_path, "a_chatbot", essay).regime == "bandwidth_bound"


def test_next_to_is_no_recommending_cue(grader, tmp_path):
    """sealed115 a.s1173: "Fusing the elementwise ops saves bytes that are a rounding error next
    to the weight read" refuses the fusion; 'next' there ranks no step."""
    essay = ("The memory system is the limit.\n\nFusing the elementwise ops saves bytes that are a "
             "rounding error next to the weight read.\n")
    a = read_body(grader, tmp_path, "a_chatbot", essay)
    assert ("fuse_elementwise",) not in [m.concepts for m in a.fixes]
    assert ("fuse_elementwise",) in [m.concepts for m in a.rejects]
    said = "The prefill is compute-bound.\n\nBatching the prefills only raises the time to first token.\n"
    assert ("raise_batch",) not in [m.concepts for m in read_body(grader, tmp_path, "c_document_summarizer",
                                                                   said).fixes]


def _levers(mentions) -> list[tuple[str, ...]]:
    return [m.concepts for m in mentions]


def test_pushing_back_refuses_what_follows(grader, tmp_path):
    """sealed109 a.s1113 (instructor 88): "Two suggestions I'd push back on. Fusing the
    elementwise ops would not move the needle ..." read the fusion as its first fix."""
    memo = ("The memory system is the limit.\n\nThe big one is continuous batching: the weight read is "
            "shared.\n\nTwo suggestions I'd push back on. Fusing the elementwise ops would not move the "
            "needle at batch 1.\n")
    a = read_body(grader, tmp_path, "a_chatbot", memo)
    assert _levers(a.fixes) == [("continuous_batching",)]
    assert ("fuse_elementwise",) in _levers(a.rejects)


def test_what_i_would_not_do_yet_refuses_for_now(grader, tmp_path):
    """sealed113 e.s1151 (instructor 100): "What I would not do yet is raise the batch or quantize
    the weights." was read as recommending both traps."""
    said = "What I would not do yet is raise the batch or quantize the weights.\n"
    a = read_body(grader, tmp_path, "e_doesnt_add_up", said)
    assert not a.fixes and ("raise_batch",) in _levers(a.rejects)


def test_an_option_table_reads_its_effect_cells(grader, tmp_path):
    """sealed110 d.s1126 (instructor 100): '| option | expected throughput gain | cost |' lists
    fp8 as a fix and refuses int4 ('none for throughput here') and more batch ('little')."""
    table = ("## Options\n| option | expected throughput gain | cost |\n|---|---|---|\n"
             "| int4 weights | none for throughput here, it's not a bytes problem | kernel work |\n"
             "| fp8 GEMMs | raises the compute ceiling | accuracy check |\n"
             "| bigger batch | little, we're past the ridge | latency |\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", table)
    assert _levers(a.fixes) == [("fp8_gemm",)]
    assert {("quantize_int4",), ("raise_batch",)} <= set(_levers(a.rejects))


def test_what_a_pitch_assumes_is_not_the_students_verdict(grader, tmp_path):
    """sealed108 d.s1101 (instructor 100): "The vendor's int4 pitch assumes we are limited by
    memory bandwidth. We are not." was read as a bandwidth-bound verdict."""
    letter = ("The vendor's int4 pitch assumes we are limited by memory bandwidth. We are not. "
              "Continuous batching has pushed us past the ridge, into compute-bound territory.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", letter).regime == "compute_bound"


def test_numbers_that_say_a_regime_are_the_students_reading(grader, tmp_path):
    """sealed111 a.s1133 (instructor 97): "Those two numbers together say bandwidth-bound, full
    stop." is the student's verdict, not someone else's."""
    said = ("We measure 78% of peak bandwidth and 4% of FLOPs. "
            "Those two numbers together say bandwidth-bound.\n")
    assert read_body(grader, tmp_path, "a_chatbot", said).regime == "bandwidth_bound"


def test_two_levers_joined_by_or_share_one_status(grader, tmp_path):
    """sealed109 e.s1118 (instructor 92): "Only if the re-measured profile shows HBM saturated
    would I raise the batch or quantize the weights" conditions both; the quantization past the
    trigger's window was read as recommended."""
    said = ("Only if the re-measured profile shows HBM saturated would I raise the batch or quantize "
            "the weights; with the GPU idle, fewer bytes buy nothing.")
    assert set(lever_statuses(grader, said).values()) == {"hypothetical"}


def test_a_longer_triggers_words_stay_content_in_a_reason(grader):
    """'little gain' refuses, and 'far from' negates; "gain" and "far" still argue a reason (the
    one-word triggers 'not', 'if' are how an item is asserted, not why)."""
    ignored = grader.concepts.reasons.ignore
    assert "not" in ignored and "if" in ignored
    assert "gain" not in ignored and "far" not in ignored


def test_a_fix_argued_by_a_resource_its_lever_does_not_attack_has_the_wrong_reason(grader, tmp_path):
    """sealed109 e.s1116 (instructor 45, graded 80): "CUDA graphs: a captured graph lets the GPU
    keep the weights in on-chip cache between steps, so each step reads far fewer bytes from HBM"
    shares 'capture' with the key's reason and was credited; graphs attack launches, not bytes.
    sealed108 c.s1107: FlashAttention "cuts the number of attention FLOPs" (it cuts HBM traffic)."""
    wrong = ("## Regime\nOverhead-bound.\n\n## Fixes\n1. CUDA graphs: a captured graph keeps the weights in "
             "on-chip cache, so each step reads far fewer bytes from HBM.\n")
    assert "Right fix, not its reason: cuda graphs" in _feedback(grader, tmp_path, "e_doesnt_add_up", wrong)
    right = ("## Regime\nOverhead-bound.\n\n## Fixes\n1. CUDA graphs: one submission per step instead of "
             "450 launches, so the gaps between kernels close.\n")
    assert "not its reason" not in _feedback(grader, tmp_path, "e_doesnt_add_up", right)
    flops = ("## Regime\nCompute-bound prefill.\n\n## Fixes\n1. FlashAttention: it cuts the number of "
             "attention FLOPs, so the O(N^2) part shrinks.\n")
    said = _feedback(grader, tmp_path, "c_document_summarizer", flops)
    assert "Right fix, not its reason: flash attention" in said


def test_a_bulleted_keyword_list_commits_to_no_regime(grader, tmp_path):
    """sealed113 b.s1159 (instructor 0, graded 44): '- compute-bound', '- memory-bound', '- fusion',
    '- torch.compile' ... one term a line: the first regime stood as the verdict and the levers as
    fixes. A terse '**Regime**: compute bound (MFU 71%)' beside 'near the ridge' still commits."""
    listed = "- compute-bound\n- memory-bound\n- fusion\n- torch.compile\n- flash attention\n- 61%\n"
    a = read_body(grader, tmp_path, "b_training_run", listed)
    assert a.regime is None and not a.fixes
    terse = ("**Regime**: compute bound (MFU 71%, MBU 30%)\n\n**Evidence**: at batch 256 the AI is about "
             "256 FLOP/byte, near the ridge.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", terse).regime == "compute_bound"


def test_is_not_going_to_refuses_the_lever_before_it(grader):
    """sealed108 d.s1107 (instructor 55): "So int4, which shrinks bytes, isn't going to buy much
    throughput here" was read as recommending int4."""
    said = "So int4, which shrinks bytes, isn't going to buy much throughput here."
    assert lever_statuses(grader, said) == {"quantize_int4": "negated"}


def test_a_regime_label_with_a_question_mark_is_a_hedged_verdict(grader, tmp_path):
    """sealed104 e.s1065 (instructor 45, graded 18.8): "- Regime: overhead bound? BW 14%, FLOPs 3%"
    read as a question, so no regime, and '- Fix: CUDA graphs' then fell into a keyword list."""
    terse = ("- Regime: overhead bound? BW 14%, FLOPs 3%, neither is maxed\n- Fix: CUDA graphs\n"
             "- Not quantizing, bytes aren't the problem\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", terse)
    assert a.regime == "overhead_bound" and a.regime_hedged
    assert _levers(a.fixes) == [("cuda_graphs",)]


def test_a_dont_line_under_a_numbered_fix_is_an_item_of_its_own(grader, tmp_path):
    """sealed112 a.s1150 (instructor 71, graded 48): "Don't: fuse the elementwise ops (too small
    to matter at batch 1)." on the line after '2. int8 weights: ...' was read as more of fix 2."""
    body = ("## Fixes\n1. continuous batching: one weight read serves every sequence\n"
            "2. int8 weights: halve the bytes\n"
            "Don't: fuse the elementwise ops (too small to matter at batch 1).\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert ("fuse_elementwise",) in _levers(a.rejects)
    assert ("fuse_elementwise",) not in _levers(a.fixes)


def test_a_fronted_lever_the_student_turns_down_as_well_is_refused(grader):
    """sealed112 a.s1143 (instructor 97): "The other idea floating around, moving to a GPU with
    more FLOPs, I'd turn down as well" recommended the GPU."""
    said = "The other idea floating around, moving to a GPU with more FLOPs, I'd turn down as well."
    assert lever_statuses(grader, said) == {"buy_more_flops": "negated"}


def test_a_regime_after_doing_describes_a_part_of_the_step(grader, tmp_path):
    """sealed103 c.s1058 (instructor 89, graded 64.8 as bandwidth-bound): "Prefill, compute-bound
    in principle ..., yet it only reaches 20% of peak because attention is doing memory-bound
    work" names what attention does, not the step's regime."""
    said = ("Prefill, compute-bound in principle, yet it only reaches 20% of peak because attention is "
            "doing memory-bound work.\n")
    assert read_body(grader, tmp_path, "c_document_summarizer", said).regime != "bandwidth_bound"


def test_it_refuses_the_first_lever_of_the_sentence_before_only(grader):
    """sealed120 c.s1229 (instructor 82): "Weight quantization: only if we run out of memory
    after FlashAttention. It won't help TTFT" refused FlashAttention too, the key's first fix;
    "both are pointless" still refuses both (sealed96 e.s983)."""
    said = ("Weight quantization: only if we run out of memory for longer documents after FlashAttention. "
            "It won't help TTFT, since the weights are read once per 25k tokens.")
    assert lever_statuses(grader, said).get("flash_attention") != "negated"
    both = "Raise the batch or quantize the weights. Both are pointless here."
    assert set(lever_statuses(grader, both).values()) == {"negated"}


def test_a_suggestion_that_does_not_survive_the_profile_is_refused(grader):
    """sealed121 a.s1240 (instructor 94): 'Priya's suggestion ("we just need a GPU with more
    FLOPs") doesn't survive the profile' recommended the GPU."""
    said = 'Priya\'s suggestion ("we just need a GPU with more FLOPs") doesn\'t survive the profile.'
    assert lever_statuses(grader, said) == {"buy_more_flops": "negated"}


def test_limited_by_how_fast_the_weights_can_be_read_states_bandwidth_bound(grader, tmp_path):
    """sealed121 a.s1240: "We are limited by how fast 26 GB of weights can be read, once per
    generated token" is an essay's verdict in words of what limits it (a phrase of
    concepts.yaml regime_words, not only a single word)."""
    memo = ("We use 4% of peak FLOP rate and 78% of peak HBM bandwidth. We are limited by how fast 26 GB "
            "of weights can be read, once per generated token.\n")
    assert read_body(grader, tmp_path, "a_chatbot", memo).regime == "bandwidth_bound"


def test_also_skip_refuses_either_side_and_fixes_this_recommends(grader, tmp_path):
    """sealed120 c.s1226 (instructor 70, graded 16.2): "Weight quantization I'd also skip: ..."
    recommended the quantization, and "FlashAttention fixes this directly: ..." in an essay was
    read as a description; sealed76 c.s783: "I'd also skip weight quantization" still refuses."""
    for said in ("Weight quantization I'd also skip: the weight read is spread thin.",
                 "I'd also skip weight quantization, the weights are a tiny share of the traffic."):
        assert set(lever_statuses(grader, said).values()) == {"negated"}
    essay = ("The prefill should be compute-bound.\n\nFlashAttention fixes this directly: it keeps the tiles "
             "on chip so the score matrix is never materialized.\n")
    assert ("flash_attention",) in _levers(read_body(grader, tmp_path, "c_document_summarizer", essay).fixes)


def test_a_conclusion_before_a_colon_states_the_verdict(grader, tmp_path):
    """sealed120 d.s1221 (instructor 100, graded 65.9 as bandwidth-bound): after "That is true for
    decode that is bandwidth-bound ... We are not there.", "Two independent readings, one
    conclusion: compute-bound." settles the verdict."""
    memo = ('The vendor\'s slide says "int4 gives up to 4x." That is true for decode that is '
            "bandwidth-bound, roughly batch 1 up to ~32. We are not there. Two independent readings, one "
            "conclusion: compute-bound.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", memo).regime == "compute_bound"


def test_the_wrong_first_move_defers_and_only_if_would_i_conditions(grader):
    """sealed118 b.s1201 (instructor 100, graded 68.2): "two weeks of hand-written kernels is the
    wrong first move" is the solution's own order, not a refusal; "Only if those two leave a
    meaningful gap would I spend the two weeks on hand-fused kernels" is its condition (the
    lever lay past the 'only if' trigger's window)."""
    first = "Two weeks of hand-written kernels is the wrong first move."
    assert lever_statuses(grader, first) == {"hand_fused_kernels": "deferred"}
    late = "Only if those two leave a meaningful gap would I spend the two weeks on hand-fused kernels."
    assert lever_statuses(grader, late) == {"hand_fused_kernels": "hypothetical"}


def test_the_templates_labels_argue_no_fix(grader, tmp_path):
    """sealed120 a.s1224 (instructor 48: "-5: continuous batching named without any reason"): '- regime:
    memory bound (batch 1 decode)' then '- fix 1: batch the requests' earned batching the key's
    reason, because the label's "regime" is a word of batching's justification ("change the
    regime"). Labels and headings are the template's words, not the student's argument."""
    terse = ("- regime: memory bound (batch 1 decode)\n- fix 1: batch the requests (continuous batching)\n"
             "- fix 2: int8 quantization\n")
    said = _feedback(grader, tmp_path, "a_chatbot", terse)
    assert "Continuous batching: say why" in said
