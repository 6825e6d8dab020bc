"""Readings from the blind sets sealed60-67 after their one measurement (issue 27): the
largest misses were excellent answers read short - director memos, tables outside a Fixes
section, essays without headings, quoted-engineer essays - and one endorsement read as a refusal."""

from __future__ import annotations

from conftest import answer_file, read_body


def _statuses(grader, said: str, kinds: tuple[str, ...] = ("lever", "claim")):
    from regime.engine.grading.context import judge
    c = grader.concepts
    return [(j.match.concepts, j.status) for j in judge(c, c.context, kinds, said)]


_MEMO = ("To the director, re: the int4 proposal.\n\nShort version: not for this endpoint. Int4 is a "
         "fantastic lever for bandwidth-bound decode, where it can give up to ~4x at small batch, but we "
         "run at batch 256. At that batch each weight byte does about 256 FLOPs, just past the ridge point "
         "of 247, and the profiler agrees: 71% of peak compute against 30% of peak memory bandwidth. We "
         "are compute-bound.\n")


def test_where_a_lever_pays_is_no_verdict(grader, tmp_path):
    """sealed61 d.s633, sealed67 d.s692 (instructor 100 each, graded 61): 'Int4 is a fantastic
    lever for bandwidth-bound decode' says where int4 pays; 'We are compute-bound' is the verdict.
    The same regime with no lever before it ('This is bandwidth-bound decode') is one."""
    assert read_body(grader, tmp_path, "d_high_throughput_api", _MEMO).regime == "compute_bound"
    limiter = _MEMO.replace("Int4 is a fantastic lever for bandwidth-bound decode",
                            "Int4 roughly quadruples throughput for decode that is limited by memory "
                            "bandwidth")
    limiter = limiter.replace(" We are compute-bound.", "")
    assert read_body(grader, tmp_path, "d_high_throughput_api", limiter).regime is None
    plain = read_body(grader, tmp_path, "a_chatbot", "This is bandwidth-bound decode at batch 1.\n")
    assert plain.regime == "bandwidth_bound"


def test_a_verdict_table_is_read_wherever_it_stands(grader, tmp_path):
    """sealed61 c.s638 (instructor 92, graded 40): a '| proposal | do it? | reason |' table
    right under Evidence, with no Fixes heading, gives its fixes and rejections; a table of
    figures under Evidence gives none."""
    body = ("## Regime\nPrefill, compute-bound but attention is materialized.\n\n## Evidence\n"
            "40 GB per layer of scores.\n\n| proposal | do it? | reason |\n|---|---|---|\n"
            "| FlashAttention | yes, first | scores stay on chip |\n"
            "| chunked prefill | yes, second | protects other users' decode |\n"
            "| batch the prefills | no | already compute-bound at one sequence |\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert [m.concepts for m in a.fixes] == [("flash_attention",), ("chunked_prefill",)]
    assert [m.concepts for m in a.rejects] == [("raise_batch",)]
    figures = ("## Regime\nCompute-bound.\n\n## Evidence\n| kernel | share |\n|---|---|\n"
               "| FlashAttention | 7% |\n")
    assert not read_body(grader, tmp_path, "b_training_run", figures).fixes


def test_a_plan_heading_is_the_fixes_section(grader, tmp_path):
    """sealed62 e.s649, sealed64 e.s670 (instructor 100, graded 70 and 75): '## Plan' over a
    table of steps; a row saying 'not now' refuses its lever for now."""
    body = ("## Regime\nOverhead-bound.\n\n## Plan\n| step | action | note |\n|---|---|---|\n"
            "| 1 | HIP/CUDA graph capture | static decode shapes |\n"
            "| 2 | torch.compile | fuse small kernels |\n"
            "| - | raise batch | not now, GPU idle 38% |\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert [m.concepts for m in a.fixes][:2] == [("cuda_graphs",), ("torch_compile",)]
    assert ("raise_batch",) in [m.concepts for m in a.rejects + a.deferred]


def test_a_refusal_that_points_back_and_argues_on(grader):
    """sealed61 a.s633 (instructor 100, graded 80): 'Someone suggested fusing the elementwise
    ops. I would not do it: ... even a perfect fusion would not show up.' refuses the fusion,
    though the refusing sentence names it again; so does 'The other suggestion, a GPU with more
    FLOPs, misses the point', a predicate whose subject is what came before its comma."""
    said = ("Someone suggested fusing the elementwise ops. I would not do it: at batch 1 they move a tiny "
            "fraction of the bytes, so even a perfect fusion would not show up.")
    assert _statuses(grader, said)[0] == (("fuse_elementwise",), "negated")
    said = "The other suggestion, a GPU with more FLOPs, misses the point even more badly."
    assert _statuses(grader, said) == [(("buy_more_flops",), "negated")]
    assert _statuses(grader, "A GPU with more FLOPs, which is what the team wants.") == \
        [(("buy_more_flops",), "affirmed")]


def test_really_concludes_only_beside_the_nominal_regime(grader, tmp_path):
    """sealed61 e.s633 (instructor 100, graded 76): 'So: nominally bandwidth-bound, really
    launch-overhead-bound.' after a sentence on what a bandwidth-bound loop would show; sealed19
    d.s213 (a compute-bound memo): 'a small-batch endpoint, where decode really is bandwidth-bound'
    concludes nothing."""
    essay = ("A batch-1 decode loop ought to be bandwidth-bound, and in a bandwidth-bound loop the bandwidth "
             "figure would be high. Here it is 14%. So: nominally bandwidth-bound, really "
             "launch-overhead-bound.\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", essay)
    assert a.regime == "overhead_bound" and a.nominal_regime == "bandwidth_bound"
    memo = ("At batch 256 our decode is compute-bound. Int4 would be a large win for a small-batch endpoint, "
            "where decode really is bandwidth-bound.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", memo).regime == "compute_bound"


_B = ("The second engineer says \"we're compute-bound, so memory-bound ops don't matter.\" That is a "
      "category error. Yes, 61% of peak FLOP rate means the step is compute-bound overall. "
      "The layer_norm (8%), "
      "add/mul/silu (9%) and to_copy (5%) kernels carry no FLOPs, 22% of kernel time.\n\n"
      "I would turn on torch.compile first, since it fuses exactly these ops. Then I would look at to_copy. "
      "Only write hand-fused kernels if there's still a meaningful gap after that.\n")


def test_kernel_names_in_the_profile_are_no_fixes(grader, tmp_path):
    """sealed63 b.s654, sealed64 b.s664 (instructor 100, graded 68 and 73): 'add/mul/silu (9%)
    and to_copy (5%)' and 'to_copy at 5% add up to 22%' read the profile; 'add/mul/silu' is no
    imperative 'add', and a concession ('Yes, 61% ... is compute-bound') recommends nothing in the
    sentence after it. The fixes are the ones recommended, in order, with hand fusion conditional."""
    a = read_body(grader, tmp_path, "b_training_run", _B)
    assert [m.concepts for m in a.fixes] == [("torch_compile",), ("fix_dtype_casts",)]
    assert ("hand_fused_kernels",) in [m.concepts for m in a.deferred]
    shares = _B.replace("The layer_norm (8%), add/mul/silu (9%) and to_copy (5%) kernels carry",
                        "But the breakdown: layer_norm at 8%, add/mul/silu at 9% and to_copy at 5% add up,")
    assert [m.concepts for m in read_body(grader, tmp_path, "b_training_run", shares).fixes] == \
        [("torch_compile",), ("fix_dtype_casts",)]


def test_agreeing_with_someone_endorses_the_claim_stated_in_other_words(grader, tmp_path):
    """sealed63 b.s653 (instructor 7, graded 37.5): 'I agree with the second engineer. ... the
    memory-bound ops are not on the critical path' endorses the claim; its negation is the
    claim's own, not a refusal. Agreeing that the step is compute-bound endorses nothing."""
    said = ("I agree with the second engineer. At 61% of peak FLOP rate this training step is clearly "
            "compute-bound, and in a compute-bound workload the memory-bound ops are not on the critical "
            "path: anything that only moves bytes is hidden behind the matmuls.\n")
    a = read_body(grader, tmp_path, "b_training_run", said)
    assert a.endorsed == ["memory_ops_irrelevant_when_compute_bound"] and not a.rejects
    own = read_body(grader, tmp_path, "b_training_run",
                    "61% of peak FLOP rate is good, and I agree that overall this step is compute-bound.\n")
    assert not own.endorsed


def test_a_claim_said_not_right_is_refused(grader):
    """sealed6 b.s89 (instructor 46): 'The second engineer's point that memory ops don't matter is
    not right here' refuses the claim it names."""
    said = "The second engineer's point that memory ops don't matter is not right here since they are 22%."
    assert (("memory_ops_irrelevant_when_compute_bound",), "negated") in _statuses(grader, said)


def test_a_threshold_far_from_its_figure_is_one_more_way_to_state_it(grader):
    """85 of the 89 case C answers graded >= 90 blind and read 5+ short (sealed2-67) never wrote
    the 247 ridge: the worked solution argues C's compute-bound verdict from a 25,000-token
    prefill. 25,000 FLOP/byte against 247 needs no ridge; case D's 252 against 247 does."""
    from pathlib import Path
    c = grader.key_for_case(Path("cases/c_document_summarizer.yaml"))
    d = grader.key_for_case(Path("cases/d_high_throughput_api.yaml"))
    far = grader.rubric.evidence.thresholds
    assert ("ridge_point",) in c.decided(grader.rubric.evidence.decided_by)   # without the rubric's rule
    items = c.decided(grader.rubric.evidence.decided_by, far)
    assert ("ridge_point",) not in items and any("ridge_point" in i and "tokens_per_pass" in i for i in items)
    assert ("ridge_point",) in d.decided(grader.rubric.evidence.decided_by, far)


def test_denying_the_regime_a_lever_lifts_is_its_rejections_reason(grader, tmp_path):
    """sealed66 a.s684 (instructor: the more-FLOPs GPU rightly rejected): 'More FLOPs GPU - we are
    not compute bound' gives the key's argument (the lever attacks FLOPs; the step is bandwidth-
    bound). Not from an answer that diagnosed another regime (sealed67 e.s697: 'we're not memory
    bound' from a compute-bound misreading, 'rejected for a wrong reason')."""
    body = ("## Regime\nBandwidth-bound.\n\n## Evidence\n- 78% of bandwidth, 4% of FLOPs.\n\n## Fixes\n"
            "1. Continuous batching.\n\n## Reject\n- More FLOPs GPU - we are not compute bound.\n")
    r = grader.grade(answer_file(tmp_path, "a_chatbot", body, "r.md"))
    said = [line for p in r.parts for line in p.feedback]
    assert not any("buy more flops" in line for line in said)
    misread = body.replace("Bandwidth-bound.", "Overhead-bound.")
    wrong = grader.grade(answer_file(tmp_path, "a_chatbot", misread, "w.md"))
    assert any(line.startswith("Right rejection, not its reason: buy more flops")
               for p in wrong.parts for line in p.feedback)


def test_memo_openings_that_refuse_and_places_where_a_lever_pays(grader):
    """sealed50 d.s521 (instructor 100): 'Director - my recommendation on the int4 pitch is: not
    for this endpoint.' refuses int4; sealed34 d.s361 (100): 'Where int4 does make sense: it
    would free roughly 51 GB' says where it pays, no fix; 'Batch requests together where
    possible' (sealed60 a.s624) is still a fix."""
    said = "Director - my recommendation on the int4 pitch is: not for this endpoint."
    assert _statuses(grader, said) == [(("quantize_int4",), "negated")]
    said = "Where int4 does make sense: it would free roughly 51 GB of the 68 GB of weights."
    assert _statuses(grader, said) == [(("quantize_int4",), "hypothetical")]
    assert _statuses(grader, "Batch requests together where possible.")[0][1] == "affirmed"


def test_so_i_would_not_refuses_what_the_sentence_named(grader):
    """sealed48 a.s503 (instructor 100): 'Fusing the norms, RoPE and residual adds would save
    bytes that are a rounding error ..., so I would not spend time on it.' refuses the fusion;
    sealed58 a.s603: '... a memory-bandwidth-bound decode loop running pretty well, so I would not
    call it a bug' keeps its regime."""
    said = ("Fusing the norms, RoPE and residual adds would save bytes that are a rounding error next to "
            "the weight read, so I would not spend time on it.")
    assert {s for _, s in _statuses(grader, said)} == {"negated"}
    said = "That is a memory-bandwidth-bound decode loop running pretty well, so I would not call it a bug."
    assert _statuses(grader, said, ("regime",)) == [(("bandwidth_bound",), "affirmed")]


def test_a_bold_line_introduces_the_list_after_it(grader, tmp_path):
    """sealed56 a.s586 (instructor 86, graded 41): '**What I'd do**' over a numbered list and
    '**Not worth it**' over a bulleted one, headings written in bold, give fixes and rejections."""
    body = ("**Regime:** bandwidth-bound decode (batch 1).\n\n**What I'd do**\n1. Continuous batching.\n"
            "2. Weight quant to int8.\n\n**Not worth it**\n"
            "- fusing elementwise ops - a tiny fraction of the bytes.\n")
    a = read_body(grader, tmp_path, "a_chatbot", body)
    assert [m.concepts for m in a.fixes] == [("continuous_batching",), ("quantize_int8",)]
    assert [m.concepts for m in a.rejects] == [("fuse_elementwise",)]


def test_a_heading_that_names_a_lever_is_the_topic_of_what_follows(grader, tmp_path):
    """sealed63 d.s654 (instructor 53, graded 25): '## Int4' over '- Reject. Int4 hurts accuracy
    ...' refuses int4 (for the wrong reason); sealed60 d.s625: '## Recommendation on int4' over
    'I would not adopt int4.' refuses it; sealed56 d.s586: '## On int4' over 'Int4 might not give
    much ... worth a try' only hedges. 'Recommendation: FlashAttention first' (sealed23 c.s256)
    names no topic: it recommends."""
    head = "## Regime\nCompute-bound.\n\n"
    refused = read_body(grader, tmp_path, "d_high_throughput_api",
                        head + "## Int4\n- Reject. Int4 hurts accuracy on code generation.\n")
    assert [m.concepts for m in refused.rejects] == [("quantize_int4",)] and not refused.fixes
    adopt = read_body(grader, tmp_path, "d_high_throughput_api",
                      head + "## Recommendation on int4\nI would not adopt int4. It costs accuracy.\n")
    assert [m.concepts for m in adopt.rejects] == [("quantize_int4",)] and not adopt.fixes
    hedged = read_body(grader, tmp_path, "d_high_throughput_api",
                       head + "## On int4\nInt4 might not give much here, but it could be worth a try.\n")
    assert [m.concepts for m in hedged.hedged] == [("quantize_int4",)] and not hedged.fixes
    assert _statuses(grader, "Recommendation: FlashAttention first, then chunked prefill.")[0] == \
        (("flash_attention",), "affirmed")


def test_refusals_in_other_words(grader):
    """sealed64 a.s663 (100): 'The other suggestion, a GPU with more FLOPs, makes even less sense';
    sealed66 c.s687 (98): a fix table's row '| - | batching | not for TTFT, makes it worse |';
    sealed65 b.s677 (88): 'Attention fusion is off the table', and a claim that 'confuses where the
    bottleneck is'. A cell with a consequence ('| 1 | FlashAttention | no materialized scores |')
    still refuses nothing."""
    assert _statuses(grader, "The other suggestion, a GPU with more FLOPs, makes even less sense.") == \
        [(("buy_more_flops",), "negated")]
    assert _statuses(grader, "| - | batching | not for TTFT, makes it worse |")[0][1] == "negated"
    assert _statuses(grader, "| 1 | FlashAttention | no materialized scores |") == \
        [(("flash_attention",), "affirmed")]
    said = "That memory-bound ops don't matter confuses where the bottleneck is."
    assert _statuses(grader, said) == [(("memory_ops_irrelevant_when_compute_bound",), "negated")]
    assert _statuses(grader, "Attention fusion is off the table.") == [(("fuse_attention",), "negated")]


def test_more_refusals_and_a_thousands_comma_in_yaml(grader, tmp_path):
    """sealed57 c.s592, sealed65 c.s672 (instructor 100 and 92): 'Batching the prefills would make
    things worse', 'Quantizing weights does nothing useful either'; sealed62 b.s642 (99): a YAML
    flow mapping '{figure: tokens per pass, value: 8 x 4096 = 32,768}' split at the thousands
    comma reads back as 32,768, not '32, 768'."""
    assert _statuses(grader, "Batching the prefills would make things worse.")[0][1] == "negated"
    assert _statuses(grader, "Quantizing weights does nothing useful either.")[0][1] == "negated"
    body = ("regime: compute_bound\nevidence:\n  - {figure: tokens per pass, value: 8 x 4096 = 32,768}\n"
            "  - {figure: crossover, value: ~2,300 tokens}\nfixes: [torch_compile]\n")
    r = grader.grade(answer_file(tmp_path, "b_training_run", body, "c.yaml"))
    said = [line for p in r.parts for line in p.feedback]
    assert not any("could not read this figure" in line for line in said)
    assert not any(line.startswith("Missing figure: the tokens per forward pass") for line in said)


def test_a_regime_section_that_lists_regimes_over_bare_names_is_a_keyword_list(grader, tmp_path):
    """sealed63 b.s655, sealed62 d.s646 (instructor 0 each): 'compute-bound, memory-bound
    (elementwise), overhead?' or 'compute bound vs bandwidth bound (check roofline)' over a list
    of bare lever names commits to none. A terse 'prefill' over '1. FlashAttention' (sealed3
    c.s54, instructor 23, FlashAttention credited) still gives its fix."""
    names = "\n\n## Fixes\n- torch.compile\n- dtype casts\n- hand fused kernels\n"
    listed = read_body(grader, tmp_path, "b_training_run",
                       "## Regime\ncompute-bound, memory-bound (elementwise), overhead?" + names)
    assert not listed.fixes and listed.stuffed
    versus = read_body(grader, tmp_path, "d_high_throughput_api",
                       "## Regime\ncompute bound vs bandwidth bound (check roofline)\n\n## Fixes\n- fp8\n")
    assert versus.regime is None and not versus.fixes
    terse = read_body(grader, tmp_path, "c_document_summarizer",
                      "## Regime\nprefill\n## Fixes\n1. FlashAttention\n")
    assert [m.concepts for m in terse.fixes] == [("flash_attention",)]


def test_a_yaml_regime_in_words_that_hold_one_regime(grader, tmp_path):
    """sealed64 c.s669, sealed47 c.s497 (instructor 52, 49: no regime deduction): 'regime:
    prefill compute-bound' names one regime; 'regime: compute-bound or bandwidth-bound' names
    none, and says so on its own line."""
    one = read_body(grader, tmp_path, "c_document_summarizer", "regime: prefill compute-bound\n", "p.yaml")
    assert one.regime == "compute_bound" and not one.unread
    two = read_body(grader, tmp_path, "c_document_summarizer",
                    "regime: compute-bound or bandwidth-bound\n", "q.yaml")
    assert two.regime is None and two.unread
