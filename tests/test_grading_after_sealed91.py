"""Readings from the blind sets sealed84-91 after their one measurement (issue 27): essays and
memos the instructors gave 91-100 that the grader read short - a refusal pointing back with
"both", a verdict after "right now" or "so the loop is", a regime named as "a memory-bandwidth
problem", a heading that denies "bound" before the regime, a qualified verdict, a claim's scope
("true for bandwidth-bound decode"), a fronted object refused after it, and a refusal that
recommends nothing after it."""

from __future__ import annotations

from conftest import read_body


def _ids(mentions) -> list[tuple[str, ...]]:
    return [m.concepts for m in mentions]


def test_turning_both_down_refuses_the_two_levers_named_before(grader, tmp_path):
    """sealed90 e.s926 (instructor 100, graded 55 with both traps charged): "The two proposals —
    raise the batch, quantize the weights — are the right medicine for a bandwidth-bound decode
    loop, but this loop isn't bandwidth-bound yet. ..., so I would turn both down for now.\""""
    body = ("Nothing is saturated: 14% of bandwidth and 3% of FLOPs, the GPU is simply idle. The two "
            "proposals — raise the batch, quantize the weights — are the right medicine for a "
            "bandwidth-bound decode loop, but this loop isn't bandwidth-bound yet. Moving fewer bytes "
            "can't fill time when no kernel is running, so I would turn both down for now.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert ("raise_batch",) in _ids(a.rejects)
    assert ("raise_batch",) not in _ids(a.fixes)


def test_a_denial_pointing_back_before_its_trigger_refuses_what_came_before(grader, tmp_path):
    """"That mixes up two things." (sealed84 b.s863): the word pointing back stands before a
    backward trigger; "if it's a dedicated box, it isn't needed" (sealed40 c.s425, instructor
    grade kept the fix) refuses nothing: a condition opens it."""
    body = ("We are compute-bound at 61%. Someone suggested fusing attention. That mixes up two things: "
            "attention is already flash-attention.\n")
    assert ("fuse_attention",) in _ids(read_body(grader, tmp_path, "b_training_run", body).rejects)
    kept = ("## Fixes\n1. FlashAttention.\n2. If this GPU is shared with chat users, chunked prefill; "
            "if it's a dedicated summarizer box, it isn't needed.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", kept)
    assert ("chunked_prefill",) not in _ids(a.rejects)


def test_right_now_and_so_the_loop_is_state_the_verdict(grader, tmp_path):
    """sealed88 e.s903 and sealed85 e.s873 (instructor 100 each, graded bandwidth-bound): "A real
    bandwidth-bound decode loop saturates the memory system ... right now it is launch-overhead
    bound"; "a bandwidth-bound loop saturates its bandwidth ... So the loop is bound by launch
    overhead"."""
    for said in ("A real bandwidth-bound decode loop saturates the memory system. So although it is "
                 "nominally a bandwidth-bound batch-1 decode, right now it is launch-overhead bound.\n",
                 "On paper a batch-1 decode loop is bandwidth-bound, but a bandwidth-bound loop saturates "
                 "its bandwidth, and this one uses 14% of it. So the loop is bound by launch overhead.\n"):
        assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime == "overhead_bound"


def test_telling_the_director_no_answers_the_case(grader, tmp_path):
    """sealed84 d.s870 (instructor 26, graded 1.5): "Tell the director no." refuses the one
    proposal case D asks about."""
    body = "Tell the director no. At batch 256 we are not bandwidth-bound any more.\n"
    assert read_body(grader, tmp_path, "d_high_throughput_api", body).says_no
    told = "Tell the director the int4 numbers are real for batch 1.\n"
    assert not read_body(grader, tmp_path, "d_high_throughput_api", told).says_no


def test_batching_prompts_together_is_raising_the_batch(grader, tmp_path):
    """sealed91 c.s940: "Don't batch prompts together, it would only delay the first token.\""""
    body = "## Reject\n- Don't batch prompts together, it would only delay the first token.\n"
    assert ("raise_batch",) in _ids(read_body(grader, tmp_path, "c_document_summarizer", body).rejects)


def test_a_heading_that_denies_bound_does_not_deny_the_regime_after_it(grader, tmp_path):
    """sealed89 e.s915 (instructor 95, graded no regime): "Neither bound: launch/overhead-bound";
    "Not clear from the counters alone: ... nothing is saturated" still commits to nothing
    (sealed35 e.s377, instructor: no regime committed)."""
    said = "## Regime\nNeither bound: launch/overhead-bound (nominally a bandwidth-bound batch-1 decode).\n"
    assert read_body(grader, tmp_path, "e_doesnt_add_up", said).regime == "overhead_bound"
    unsure = ("## Regime\nNot clear from the counters alone: 14% bandwidth and 3% FLOPs means nothing "
              "is saturated.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", unsure).regime is None


def test_a_contrast_with_words_of_its_own_qualifies_a_verdict(grader, tmp_path):
    """sealed86 b.s885 (instructor 100, graded no regime): 'compute-bound overall (61% MFU) — but
    not "done"'; "bandwidth-bound, but not really" still takes it back."""
    said = '## Regime\ncompute-bound overall (61% MFU) — but not "done".\n'
    assert read_body(grader, tmp_path, "b_training_run", said).regime == "compute_bound"
    back = "## Regime\nbandwidth-bound, but not really.\n"
    assert read_body(grader, tmp_path, "b_training_run", back).regime != "bandwidth_bound"


def test_a_regime_after_for_is_where_a_claim_holds(grader, tmp_path):
    """sealed90 d.s930 (instructor 95, graded bandwidth-bound): "The vendor told the director that
    int4 gives roughly 4x on decode. That's true — for bandwidth-bound decode ... The workload is
    compute-bound.\""""
    body = ("The vendor told the director that int4 gives roughly 4x on decode. That's true — for "
            "bandwidth-bound decode, somewhere between batch 1 and ~32. It is not true for this API. "
            "The workload is compute-bound.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", body).regime == "compute_bound"


def test_a_verb_before_a_number_is_a_noun_and_a_refusal_recommends_nothing(grader, tmp_path):
    """sealed89 d.s911 (instructor 100, graded 73 with the int4 trap charged): 'What I'd tell the
    director: "Not for this endpoint. Int4 gives up to ~4x on bandwidth-bound decode (batch 1 to
    ~32).' - "(batch 1 to ~32)" is no imperative; "Look at the 5%" still is one."""
    body = ("We are compute-bound at 71% of compute. What I'd tell the director: \"Not for this endpoint. "
            "Int4 gives up to ~4x on bandwidth-bound decode (batch 1 to ~32).\"\n")
    assert ("quantize_int4",) not in _ids(read_body(grader, tmp_path, "d_high_throughput_api", body).fixes)
    look = "We are compute-bound at 61%. Look at the 5 % in to_copy on its own.\n"
    assert ("fix_dtype_casts",) in _ids(read_body(grader, tmp_path, "b_training_run", look).fixes)


def test_a_regime_named_as_the_problem_is_the_verdict(grader, tmp_path):
    """sealed85 a.s873 (instructor 91, graded no regime): "This one is a memory-bandwidth problem,
    not a compute problem.\""""
    body = "This one is a memory-bandwidth problem, not a compute problem. MBU is 78% and MFU 4%.\n"
    assert read_body(grader, tmp_path, "a_chatbot", body).regime == "bandwidth_bound"
    denied = "This is not a memory problem at all. MBU is 14% and MFU 3%.\n"
    assert read_body(grader, tmp_path, "e_doesnt_add_up", denied).regime != "bandwidth_bound"


def test_a_fronted_object_is_refused_by_the_clause_after_it(grader, tmp_path):
    """sealed84 b.s863 (instructor 95, graded 52 with fuse_attention charged as a fix): "Fusing
    attention, which also came up, I would not pursue: it is already flash-attention ...\""""
    body = ("We are compute-bound at 61%. Fusing attention, which also came up, I would not pursue: it is "
            "already flash-attention and only 7% of the time.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert ("fuse_attention",) in _ids(a.rejects)
    assert ("fuse_attention",) not in _ids(a.fixes)


_TABLE = ("## Regime\nCompute-bound (61% of peak FLOPs).\n\n## Fixes and rejections\n\n"
          "| Option | Do it? | Why |\n|---|---|---|\n"
          "| torch.compile | Yes, first | fuses norms + pointwise ops automatically |\n"
          "| Hand-fused kernels (2 weeks) | Only if a gap remains | best case 61% -> ~78% of peak |\n"
          "| \"Memory ops don't matter, we're compute-bound\" | Wrong | the 22% in zero-FLOP kernels |\n")


def test_a_table_of_verdicts_reads_ordinals_conditions_and_a_refuted_quotation(grader, tmp_path):
    """sealed86 b.s883, sealed91 c.s937 (instructor 100 each, graded 77-81): "| FlashAttention |
    1st |" recommends; "| Hand-fused kernels (2 weeks) | Only if a gap remains |" puts a condition
    on the lever its head names, past the aside; '| "Memory ops don't matter, we're
    compute-bound" | Wrong |' refutes the claim it quotes across its comma."""
    a = read_body(grader, tmp_path, "b_training_run", _TABLE)
    assert ("hand_fused_kernels",) not in _ids(a.fixes)
    assert ("memory_ops_irrelevant_when_compute_bound",) in _ids(a.rejects)
    ordinal = ("## Regime\nCompute-bound prefill.\n\n## Options\n\n"
               "| option | verdict | reason |\n|---|---|---|\n"
               "| FlashAttention | 1st | score matrix stays on-chip |\n"
               "| chunked prefill | 2nd | keeps ITL |\n")
    assert ("flash_attention",) in _ids(read_body(grader, tmp_path, "c_document_summarizer", ordinal).fixes)


def test_a_refuting_word_refutes_only_after_a_quotation(grader, tmp_path):
    """'wrong' refutes what a quotation says; "a dtype boundary in the wrong place" does not
    refuse the cast fix, nor does "FlashAttention (tiled): no 40 GB buffer" refuse FlashAttention
    (sealed65 c.s676, which the aside reading first moved out): "no" before a number negates a
    quantity."""
    body = ("We are compute-bound at 61%. Fix the casts: a 5% to_copy usually means a dtype boundary in "
            "the wrong place.\n")
    assert ("fix_dtype_casts",) not in _ids(read_body(grader, tmp_path, "b_training_run", body).rejects)
    fixes = "## Fixes\n1. FlashAttention (tiled, on-chip scores): no 40 GB buffer, no 5 TB of traffic.\n"
    assert ("flash_attention",) in _ids(read_body(grader, tmp_path, "c_document_summarizer", fixes).fixes)


def test_a_bare_refusal_and_a_predicate_after_a_copula_refuse_the_suggestions(grader, tmp_path):
    """sealed90 a.s923 (instructor 100, graded 80 with no rejections): "Someone suggested fusing
    the elementwise ops. I wouldn't bother: the norms, RoPE and residual adds move ~0.04% of the
    bytes ..."; "The other suggestion, a GPU with more FLOPs, is even less useful"; a cell "won't
    help TTFT" still refuses (sealed84 c.s864, which the copula first moved out)."""
    body = ("At batch 1 we are bandwidth-bound at 78% of peak bandwidth. Someone suggested fusing the "
            "elementwise ops. I wouldn't bother: the norms, RoPE and residual adds move ~0.04% of the bytes. "
            "The other suggestion, a GPU with more FLOPs, is even less useful.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert {("fuse_elementwise",), ("buy_more_flops",)} <= set(_ids(a.rejects))
    cell = ("| | |\n|---|---|\n| Regime | compute-bound prefill |\n"
            "| Batch the prefills | ✗ won't help TTFT |\n")
    assert ("raise_batch",) in _ids(read_body(grader, tmp_path, "c_document_summarizer", cell).rejects)


def test_secondarily_recommends(grader, tmp_path):
    """sealed86 c.s890 (instructor 100, graded 78.5): "Secondarily, chunked prefill so one giant
    prompt doesn't freeze other users' decode.\""""
    body = ("Prefill at 25,000 tokens is compute-bound. Recommendation: FlashAttention. Secondarily, "
            "chunked prefill so one giant prompt doesn't freeze other users' decode.\n")
    assert ("chunked_prefill",) in _ids(read_body(grader, tmp_path, "c_document_summarizer", body).fixes)


def test_a_yaml_figure_stating_several_numbers_is_read_as_prose_is(grader, tmp_path):
    """sealed90 c.s926 (instructor 92, graded 77 with three figures 'unread'): a YAML evidence
    value such as "32 x 25k^2 x 2 B = 40 GB per layer" or "~5 TB per prefill, ~1 s at 5.3 TB/s"
    states its figures as a Markdown bullet would; text with no figure is still reported."""
    from conftest import write
    yaml = ("case: c_document_summarizer\nstudent: t\nregime: compute_bound\nevidence:\n"
            "  - {figure: score matrix, value: \"32 x 25k^2 x 2 B = 40 GB per layer\"}\n"
            "  - {figure: hbm traffic, value: \"~5 TB per prefill, ~1 s at 5.3 TB/s\"}\n"
            "  - {figure: verdict, value: \"prefill is the problem\"}\n"
            "fixes: [flash_attention, chunked_prefill]\n")
    r = grader.grade(write(tmp_path, "x.yaml", yaml))
    missing = " ".join(f for p in r.parts if p.part == "evidence" for f in p.feedback)
    assert "40 GB" not in missing and "5 TB" not in missing
    assert sum("could not read this figure" in x["sentence"] for x in r.readings
               if x["confidence"] < grader.concepts.context.review_below) == 1


def test_a_refusal_pointing_back_with_that_refuses_the_suggestion_before(grader, tmp_path):
    """sealed84 a.s863 (instructor 94), sealed93 a.s953 (instructor 100): "Someone suggested fusing
    the elementwise ops. I don't think that buys anything here: ..." - 'that' is a filler word
    elsewhere, so the refusal is read on the words as written; "... so two weeks needs to be
    justified against that" refuses nothing (sealed24 b.s262, which the first try moved out)."""
    body = ("We are bandwidth-bound at 78% of peak bandwidth. Someone suggested fusing the elementwise ops. "
            "I don't think that buys anything here: the norms move 0.04% of the weight bytes.\n")
    assert ("fuse_elementwise",) in _ids(read_body(grader, tmp_path, "a_chatbot", body).rejects)
    kept = ("## Fixes\n1. torch.compile\n2. hand-fused kernels only if a gap is left; best case 61% -> ~78% "
            "of peak, so two weeks needs to be justified against that\n")
    assert ("hand_fused_kernels",) not in _ids(read_body(grader, tmp_path, "b_training_run", kept).rejects)


def test_the_side_of_the_ridge_names_the_regime(grader, tmp_path):
    """sealed94 d.s963 (instructor 100, graded 59 with no regime): "The MI300X's ridge point is
    247 FLOP/byte, so we are on the compute side of it"; "not on the bandwidth side" names none."""
    body = ("At batch 256 decode does about 256 FLOPs per byte. The ridge point is 247 FLOP/byte, so we "
            "are on the compute side of it: 71% of peak compute, 30% of peak bandwidth.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", body).regime == "compute_bound"
    denied = "At batch 256 we are not on the bandwidth side any more.\n"
    assert read_body(grader, tmp_path, "d_high_throughput_api", denied).regime != "bandwidth_bound"


def test_a_kind_of_step_said_to_behave_some_way_is_not_this_step(grader, tmp_path):
    """sealed98 e.s1003 (instructor 100, graded bandwidth-bound): "a bandwidth-bound loop would have
    HBM near saturation, as in the chatbot case. ... So: launch-overhead-bound.\""""
    body = ("Bandwidth utilisation is 14% and compute is 3%; a bandwidth-bound loop would have HBM near "
            "saturation, as in the chatbot case. So: launch-overhead-bound.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", body).regime == "overhead_bound"
    verdict = "At 78% of peak bandwidth this decode loop is bandwidth-bound and would gain from int8.\n"
    assert read_body(grader, tmp_path, "a_chatbot", verdict).regime == "bandwidth_bound"


def test_a_refusal_pointing_back_keeps_what_a_deferral_waited_for(grader, tmp_path):
    """sealed96 e.s983 (instructor 96, graded 77.5 with CUDA graphs read as rejected): "If, after
    the graphs, the loop turns out to be bandwidth-bound ..., then batching and weight quantization
    are the next levers. Until then both are pointless: ..." refuses the two, not the graphs."""
    body = ("Nothing is saturated, so the GPU is idle. Capture the decode step as a CUDA graph.\n\n"
            "If, after the graphs, the loop turns out to be bandwidth-bound and close to the ceiling, then "
            "batching and weight quantization are the next levers. Until then both are pointless: the "
            "proposals to raise the batch or quantize make each step move fewer bytes per token, but they "
            "can't fill time in which no kernel runs.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert ("cuda_graphs",) not in _ids(a.rejects)
    assert ("raise_batch",) in _ids(a.rejects)
