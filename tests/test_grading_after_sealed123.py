"""Readings and scoring rules from the spent blind sets sealed116-123 (issue 27), kept as the
sentences students wrote them."""

from __future__ import annotations

from conftest import answer_file, read_body


def _fixes(a) -> list[tuple[str, ...]]:
    return [m.concepts for m in a.fixes]


def test_a_gerund_between_the_refusal_and_it_is_what_is_refused(grader, tmp_path):
    """sealed123 a.s1253 (instructor 97): "fold it into the running batch instead of queueing it"
    refuses the queueing, not the continuous batching the sentence before recommends; "I'd avoid
    doing it" still refuses the lever before it."""
    essay = ("It is bandwidth-bound.\n\nFirst, and by far the biggest: continuous batching. When a "
             "second request arrives, fold it into the running batch instead of queueing it.\n")
    a = read_body(grader, tmp_path, "a_chatbot", essay)
    assert ("continuous_batching",) in _fixes(a)
    refused = ("It is bandwidth-bound.\n\nSomeone suggested fusing the elementwise ops. I'd avoid "
               "doing it.\n")
    a = read_body(grader, tmp_path, "a_chatbot", refused)
    assert ("fuse_elementwise",) in [m.concepts for m in a.rejects]


def test_not_sure_is_a_hedge_not_a_rejection(grader, tmp_path):
    """sealed122 a.s1246 (instructor 17): "Fusing the elementwise ops: possibly a small win, not
    sure." leans toward the trap; 'not sure' was read as 'not', a rejection with full marks."""
    bullets = ("- Probably bandwidth-bound?\n- Fusing the elementwise ops: possibly a small win, not sure.\n"
               "- I am not sure a GPU with more FLOPs helps.\n")
    statuses = {m.concepts: m for m in read_body(grader, tmp_path, "a_chatbot", bullets).rejects}
    assert ("fuse_elementwise",) not in statuses and ("buy_more_flops",) not in statuses


def test_a_rejected_lever_left_open_with_a_hedge_costs_points(grader, tmp_path):
    """sealed118 a.s1210 (instructor 22): "fusing the elementwise ops might help with that" offers
    case A's trap with a hedge; the blind grades take its rejection and 2-5 more. A lever the key
    refuses only for now ("maybe batching later" on case E) is the solution's own wait: no charge."""
    leaning = ("It is bandwidth-bound.\n\nThe first job is to tune the kernels; fusing the elementwise "
               "ops might help with that.\n")
    r = grader.grade(answer_file(tmp_path, "a_chatbot", leaning))
    assert [p.id for p in r.penalties] == ["leans_to_a_rejected_lever"]
    waiting = ("It is launch-overhead-bound.\n\nCapture the decode step in a CUDA graph. Batching might "
               "help later.\n")
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", waiting))
    assert not r.penalties


def test_a_premise_before_an_introduction_is_no_refusal(grader, tmp_path):
    """sealed34 a.s361 (instructor 100): "Because we can't go past ~204 tok/s while serving one
    request per step, the useful moves either change ... or shrink the weight read:" introduces
    the fixes; its "can't" is the premise's, and the list was read as rejections."""
    memo = ("It is bandwidth-bound.\n\nBecause we can't go past ~204 tok/s while serving one request "
            "per step, the useful moves either change how many tokens share one weight read, or shrink "
            "the weight read:\n\n1. Continuous batching first.\n2. Then int8 weights.\n\n"
            "What I would not do:\n- Buy a GPU with more FLOPs.\n")
    a = read_body(grader, tmp_path, "a_chatbot", memo)
    assert _fixes(a) == [("continuous_batching",), ("quantize_int8",)]


def test_batch_continuously_names_continuous_batching(grader, tmp_path):
    """sealed117 a.s1193 (instructor 100): "we should batch continuously: when a request arrives,
    put it into the batch that is already decoding" is the key's first fix in a verb."""
    essay = ("It is bandwidth-bound.\n\nSince the traffic comes in bursts, we should batch continuously: "
             "when a request arrives, put it into the batch that is already decoding.\n")
    assert ("continuous_batching",) in _fixes(read_body(grader, tmp_path, "a_chatbot", essay))


def test_a_quotation_after_a_verb_of_speech_is_reported_and_refuted(grader, tmp_path):
    """sealed120 a.s1223 (instructor 97): 'One teammate said "... fusing them is free speed." It
    isn't free speed here' reports the fusion and refutes it; "Buying a GPU with more FLOP/s is
    the other suggestion I'd turn down" refuses what it opens with."""
    essay = ("It is bandwidth-bound.\n\nOne teammate said \"the elementwise kernels are unfused, fusing "
             "them is free speed.\" It isn't free speed here: at batch 1 those ops move a sliver of the "
             "bytes. Buying a GPU with more FLOP/s is the other suggestion I'd turn down.\n")
    a = read_body(grader, tmp_path, "a_chatbot", essay)
    assert {m.concepts for m in a.rejects} >= {("fuse_elementwise",), ("buy_more_flops",)}
    assert not a.fixes


def _part(r, name: str) -> float:
    return next(p.points for p in r.parts if p.part == name)


def test_a_bare_ranked_list_earns_half_the_order_part(grader, tmp_path):
    """sealed120 a.s1224 (instructor 48, grader 62): "fix 1: batch the requests, fix 2: int8"
    ranks two fixes and argues neither; the order part rests half on the fixes' reasons."""
    bare = "- regime: memory bound\n- fix 1: continuous batching\n- fix 2: int8 quantization\n"
    argued = ("- regime: memory bound\n- fix 1: continuous batching: every sequence shares the one 26 GB "
              "weight read\n- fix 2: int8 quantization: 13 GB of weights, a 408 tokens/s ceiling\n")
    r_bare = grader.grade(answer_file(tmp_path, "a_chatbot", bare))
    r_argued = grader.grade(answer_file(tmp_path, "a_chatbot", argued))
    assert _part(r_argued, "order") == next(p.max_points for p in r_argued.parts if p.part == "order")
    assert _part(r_bare, "order") < _part(r_argued, "order")


def test_i_would_do_both_takes_up_the_levers_before_it(grader, tmp_path):
    """sealed120 c.s1224 (instructor 0): two traps described ("Batching several documents'
    prefills together would raise the FLOP utilization ..., and quantizing the weights to int8
    cuts the bytes") and then "I would do both" recommends them; "Possibly worth a small pilot
    for the memory it frees" (sealed121 d.s1236) takes nothing up."""
    essay = ("It is compute-bound.\n\nBatching several documents' prefills together would raise the FLOP "
             "utilization, and quantizing the weights to int8 cuts the bytes we read by half. I would do "
             "both, batching first since it's a config change.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", essay)
    assert ("quantize_int8",) in _fixes(a)
    pilot = ("It is compute-bound.\n\nInt4 cuts bytes and we're not short of bytes. Possibly worth a small "
             "pilot for the memory it frees.\n")
    assert ("quantize_int4",) not in _fixes(read_body(grader, tmp_path, "d_high_throughput_api", pilot))


def test_advise_against_it_refuses_the_lever_its_heading_names(grader, tmp_path):
    """sealed119 d.s1213 (instructor 63): under "## On int4", "I'd advise against it." refused
    nothing and int4 was charged as the trap recommended."""
    body = ("## Regime\nCompute-bound.\n\n## Fixes\n- fp8 matmuls\n\n## On int4\nI'd advise against it. "
            "Int4 is aggressive for code models.\n")
    r = grader.grade(answer_file(tmp_path, "d_high_throughput_api", body))
    assert "quantize_int4" not in r.wrong_levers


def test_a_regime_before_i_would_say_is_the_verdict(grader, tmp_path):
    """sealed119 b.s1217 (instructor 40): "mostly compute-bound I'd say (61%), maybe partly
    memory-bound" read 'would' after the regime as a kind of step ("a bandwidth-bound loop would
    ..."), dropped the verdict and kept the secondary memory-bound."""
    body = "Regime: mostly compute-bound I'd say (61%), maybe partly memory-bound because of the norms.\n"
    assert read_body(grader, tmp_path, "b_training_run", body).regime == "compute_bound"


def test_a_bare_rejection_argued_elsewhere_earns_part_of_its_credit(grader, tmp_path):
    """sealed41 c.s437 (instructor 40, grader 62.5): "- Batching the prefills." and "- Quantizing
    the weights." under Reject, with "TTFT is the complaint" in the Evidence, earned the whole
    rejections part; the blind grades charge each "rejected with no reason"."""
    body = ("## Regime\nPrefill / compute bound.\n\n## Evidence\n- TTFT is the complaint.\n"
            "- Attention is 55% of the time.\n\n## Fixes\n1. FlashAttention.\n2. Chunked prefill.\n\n"
            "## Reject\n- Batching the prefills.\n- Quantizing the weights.\n")
    r = grader.grade(answer_file(tmp_path, "c_document_summarizer", body))
    part = next(p for p in r.parts if p.part == "rejections")
    assert part.points < part.max_points
    assert any("argues it elsewhere" in line for line in part.feedback)


def test_an_extra_fix_the_case_does_not_ask_about_costs_less_than_a_trap(grader, tmp_path):
    """sealed94 e.s970, sealed38 e.s404 (bigger GPU for the idle server): a rejected lever the case
    neither proposes nor names as a trap, recommended, is an unsupported extra (the blind grades:
    3-5 points), not a trap (10); on case A, where the more-FLOPs GPU is proposed, it is the trap."""
    idle = ("## Regime\nLaunch-overhead-bound.\n\n## Fixes\n1. CUDA graphs.\n2. Buy a GPU with more FLOPs.\n")
    r = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", idle))
    assert [(p.id, p.points) for p in r.penalties] == [("unsupported_extra_fix", 5.0)]
    chat = "## Regime\nBandwidth-bound.\n\n## Fixes\n1. Continuous batching.\n2. Buy a GPU with more FLOPs.\n"
    r = grader.grade(answer_file(tmp_path, "a_chatbot", chat))
    assert [p.id for p in r.penalties] == ["recommends_rejected_lever"]


def test_a_measurement_restated_is_not_the_figure_derived_from_elsewhere(grader, tmp_path):
    """The blind sets take 8-12 points for "40 GB stated, not derived" on case C (283 of their
    499 deductions naming the 40 GB): the measured 40 GB restated is not the score matrix's
    40 GB unless its words or two of its formula's operands stand beside it, in prose or as a
    YAML value's arithmetic."""
    def evidence(case: str, body: str, name: str = "a.md") -> list[str]:
        r = grader.grade(answer_file(tmp_path, case, body, name))
        return next(p.feedback for p in r.parts if p.part == "evidence")
    echo = "## Regime\nCompute-bound prefill.\n\n## Evidence\n- The 40 GB transient allocation is large.\n"
    assert any("attention score matrix per layer" in x for x in evidence("c_document_summarizer", echo))
    derived = "## Regime\nCompute-bound prefill.\n\n## Evidence\n- 40 GB = 32 x 25,000² x 2 bytes.\n"
    assert not any("attention score matrix per layer" in x
                   for x in evidence("c_document_summarizer", derived))
    yaml_body = ("regime: compute_bound\nevidence:\n"
                 "  - {figure: transient_memory, value: 32 x 25000^2 x 2 B = 40 GB}\n")
    assert not any("attention score matrix per layer" in x
                   for x in evidence("c_document_summarizer", yaml_body, "a.yaml"))


def test_might_still_be_hedges_the_regime_after_it(grader, tmp_path):
    """sealed26 d.s287 (instructor 16): "71% FLOPs looks compute-bound, but it's decode, so it
    might still be bandwidth-bound" keeps another regime open; 'still' ended the hedge's scope
    as a contrast word would, and the verdict was read as committed."""
    body = ("## Regime\nHard to say — 71% FLOPs looks compute-bound, but it's decode, so it might still be "
            "bandwidth-bound.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", body).regime_hedged


def test_a_yaml_regime_naming_two_regimes_commits_to_neither(grader, tmp_path):
    """sealed119 d.s1219 (instructor 0, "two regimes given, none committed"): `regime:
    compute_bound, memory_bound` was read as compute-bound, 'memory_bound' being no alias."""
    body = "regime: compute_bound, memory_bound\n"
    a = read_body(grader, tmp_path, "d_high_throughput_api", body, "a.yaml")
    assert a.regime is None


def test_a_condition_after_a_dont_line_puts_the_step_later(grader, tmp_path):
    """sealed92 b.s943 (instructor 100): "3. Don't: start with two weeks of hand-fused kernels.
    Only if 1+2 leave a gap." is the worked solution's own order, not the rejection of fusion its
    penalty charges; "torch.compile first (auto-fuses norm/act/residual)" is the key's reason."""
    body = ("## Regime\nCompute-bound.\n\n## Fixes\n1. torch.compile first (auto-fuses norm/act/residual).\n"
            "2. Look at to_copy (5%).\n3. Don't: start with two weeks of hand-fused kernels. Only if 1+2 "
            "leave a gap.\n")
    r = grader.grade(answer_file(tmp_path, "b_training_run", body))
    assert not r.penalties
    assert not any("Right fix, not its reason: torch compile" in x for p in r.parts for x in p.feedback)


def test_not_unless_is_a_condition_not_a_refusal(grader, tmp_path):
    """sealed98 b.s1005 (instructor 94): a verdict table's "| hand-fused kernels (2 weeks) | not
    unless compile leaves a gap |" puts hand fusion after compile; 'not' refused compile and
    the answer was charged for rejecting fusion."""
    body = ("## Regime\nCompute-bound.\n\n## Proposals\n| proposal | verdict | reason |\n|---|---|---|\n"
            "| torch.compile | do first | fuses the elementwise chains for free |\n"
            "| hand-fused kernels (2 weeks) | not unless compile leaves a gap | |\n")
    r = grader.grade(answer_file(tmp_path, "b_training_run", body))
    assert not r.penalties


def test_a_head_that_refuses_its_own_subject_refuses_nothing_after_it(grader, tmp_path):
    """sealed14 b.s166 (instructor 85): "Engineer 2 is wrong: the run is compute-bound at 61% of
    peak, but ..." refuses the engineer, not the regime after the colon; "Don't: fuse attention"
    still refuses what follows."""
    essay = ("Engineer 2 is wrong: the run is compute-bound at 61% of peak, but 22% of the kernel time "
             "is spent in ops that do no FLOPs at all.\n")
    assert read_body(grader, tmp_path, "b_training_run", essay).regime == "compute_bound"
    dont = "## Regime\nCompute-bound.\n\n## Fixes\n1. torch.compile.\n2. Don't: fuse attention.\n"
    a = read_body(grader, tmp_path, "b_training_run", dont)
    assert ("fuse_attention",) in [m.concepts for m in a.rejects]


def test_a_verdict_in_apposition_after_so_the_regime_is_concludes(grader, tmp_path):
    """sealed93 a.s953 (instructor 100): "... where the MI300X needs 247 FLOP/byte to be
    compute-bound. So the regime is decode, bandwidth-bound" concludes bandwidth-bound; the comma
    kept the cue in the clause before the regime, and the threshold's regime was read instead."""
    essay = ("Each projection is a matrix-vector product, about 1 FLOP per byte, where the MI300X needs 247 "
             "FLOP/byte to be compute-bound. So the regime is decode, bandwidth-bound, and the "
             "implementation is fine.\n")
    assert read_body(grader, tmp_path, "a_chatbot", essay).regime == "bandwidth_bound"


def test_a_verdict_table_row_named_for_a_template_part_is_that_part(grader, tmp_path):
    """sealed97 a.s994 (instructor 100): a "| Item | Verdict | Why |" table's "| Regime |
    bandwidth-bound decode, near its ceiling | ... |" row is the answer's regime, not a fix read
    by its meaning."""
    body = ("## Diagnosis\n\n| Item | Verdict | Why |\n|---|---|---|\n"
            "| Regime | bandwidth-bound decode, near its ceiling | 4% of peak FLOPs vs 78% of peak BW |\n"
            "| Continuous batching | yes, first | every sequence shares one weight read |\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert a.regime == "bandwidth_bound" and ("fp8_gemm",) not in _fixes(a)


def test_a_plan_rows_step_number_is_no_int4(grader, tmp_path):
    """sealed116 e.s1188 (instructor 100): "| 4 | raise batch / quantize weights | not until step 3
    ... |" read the step number as int4's, and weight quantization was not refused for now."""
    body = ("**Regime:** overhead-bound.\n\n| step | fix | when |\n|---|---|---|\n"
            "| 1 | capture decode step in a HIP/CUDA graph | now |\n"
            "| 4 | raise batch / quantize weights | not until step 3 shows it's really BW-bound |\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert ("quantize_int4", "quantize_int8") in [m.concepts for m in a.deferred]


def test_a_yes_or_no_before_a_plans_action_column_refuses_nothing(grader, tmp_path):
    """sealed125 b.s1274 (instructor 77, graded 34): in "| kernel | share of time | does FLOPs? |
    what to do |", the row "| to_copy | 5% | no | find the stray dtype casts |" answers the FLOP
    column; it was read as refusing the cast fix, and charged as refusing fusion."""
    body = ("Regime: compute-bound overall (61% of peak FLOPs).\n\n"
            "| kernel | share of time | does FLOPs? | what to do |\n|---|---|---|---|\n"
            "| layer_norm | 8% | no | fuse (torch.compile) |\n"
            "| to_copy | 5% | no | find the stray dtype casts |\n")
    r = grader.grade(answer_file(tmp_path, "b_training_run", body))
    assert not r.penalties
