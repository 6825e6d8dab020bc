"""Classes from the blind sets sealed225-240 after their one measurement (issue 27), each with the
student's own sentences: declining and refuting refuse, "hold it at" keeps a lever where it is,
a vendor's "line" is attributed, "What to do instead:" recommends, a negation inside a quotation
is not the student's, and refusing "batch more requests" refuses the bigger batch."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def _levers(mentions) -> set[str]:
    return {c for m in mentions for c in m.concepts}


def test_declining_and_refuting_refuse(grader):
    """sealed237 d.s2391 ('I recommend we decline int4 ...', instructor 100, graded 56) and
    sealed236 d.s2387 ('So I'd refute the vendor: int4 attacks bytes', instructor 95, graded 52)."""
    assert lever_statuses(grader, "I recommend we decline int4 for this endpoint's throughput.") \
        == {"quantize_int4": "negated"}
    assert lever_statuses(grader, "So I'd refute the vendor: int4 attacks bytes.") \
        == {"quantize_int4": "negated"}
    assert lever_statuses(grader, "I recommend int4 for this endpoint.") == {"quantize_int4": "affirmed"}


def test_hold_it_at_keeps_the_batch_where_it_is(grader):
    """sealed236 d.s2387: 'Batch: I'd probably hold it at 256.' refuses more batch (hedged or not),
    as 'leave it at 256' does; it leans to no bigger batch."""
    for said in ("Batch: I'd probably hold it at 256.", "Batch: hold it at 256."):
        assert set(lever_statuses(grader, said).values()) == {"negated"}


def test_a_vendors_line_is_attributed(grader):
    said = 'The vendor\'s line to the director was, roughly, "int4 gives you up to four times the tokens."'
    assert lever_statuses(grader, said) == {"quantize_int4": "attributed"}


def test_what_to_do_instead_introduces_fixes(grader, tmp_path):
    """sealed237 d.s2391: '**What to do instead:** fp8 GEMMs ..., speculative decoding ...' were
    read as discussed, not recommended."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "**Regime: compute-bound.** 71% of peak FLOP rate.\n\n"
                  "**What to do instead:** fp8 GEMMs on the matrix cores, speculative decoding to cut "
                  "FLOPs.\n")
    assert {"fp8_gemm", "speculative_decoding"} <= _levers(a.fixes)


def test_a_negation_inside_a_quotation_opens_no_refusals(grader, tmp_path):
    """sealed240 e.s2425 (instructor 100, graded 60): 'My colleague's read ("it's the launches,
    not the model") is right, and the fix follows from it:' over the graph and compile steps; the
    'not' is the colleague's, and the list after it is the student's plan."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "1. **Regime.** Overhead-bound: 14% of bandwidth and 3% of FLOPs.\n"
                  "2. **My colleague's read** (\"it's the launches, not the model\") is right, and the fix "
                  "follows from it:\n"
                  "   - first, capture the step in a CUDA/HIP graph so the launches replay as one "
                  "submission;\n"
                  "   - second, torch.compile to fuse the little elementwise kernels.\n")
    assert {"cuda_graphs", "torch_compile"} <= _levers(a.fixes)
    assert not {"cuda_graphs", "torch_compile"} & _levers(a.rejects)


def test_refusing_batch_more_requests_refuses_the_bigger_batch(grader, tmp_path):
    """sealed240 e.s2425: 'The other colleague's suggestion ("just quantize it, and batch more
    requests") I would not follow at this point.' refuses the bigger batch case E rejects."""
    p = answer_file(tmp_path, "e_doesnt_add_up",
                    "1. **Regime.** Overhead-bound: 14% of bandwidth and 3% of FLOPs, ~38% of each step "
                    "idle.\n2. **The other colleague's suggestion** (\"just quantize it, and batch more "
                    "requests\") I would not follow at this point. Fewer bytes per step do not shorten a "
                    "gap in which nothing runs.\n")
    r = grader.grade(p)
    assert not any("Not rejected: raise batch" in line for part in r.parts for line in part.feedback)


def test_a_regime_said_of_a_part_through_a_copula_is_no_verdict(grader, tmp_path):
    """sealed238 c.s2404 (instructor 92, graded 54): '3. **Why 20% of peak.** The attention kernels
    are memory-bound in practice' after '1. **Regime.** Prefill and compute-bound' describes the
    attention kernels, as 'these memory-bound kernels' does; the step's verdict stays."""
    a = read_body(grader, tmp_path, "c_document_summarizer",
                  "1. **Regime.** Prefill and compute-bound, with a badly behaved attention.\n"
                  "2. **Why 20% of peak.** The attention kernels are memory-bound in practice: the score "
                  "matrix goes to HBM and back.\n")
    assert a.regime == "compute_bound"
    b = read_body(grader, tmp_path, "c_document_summarizer", "## Regime\nThe prefill is memory-bound.\n")
    assert b.regime == "bandwidth_bound"   # the step itself, through the same copula


def test_can_wait_defers(grader):
    """sealed235 e.s2378: 'Batching can wait until the gaps are gone.' (the solution's own order)
    was a recommendation of more batch for an idle GPU."""
    assert set(lever_statuses(grader, "Batching can wait until the gaps are gone.").values()) == {"deferred"}
    assert set(lever_statuses(grader, "Batching first, it cannot wait.").values()) != {"deferred"}


def test_a_first_reaction_and_what_levers_treat_are_no_verdicts(grader, tmp_path):
    """sealed233 e.s2351 (instructor 100, graded 66): the student's first reaction, set aside, and
    the kind of loop both proposals treat were read over its verdict, launch overhead."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "My first reaction was \"batch-1 decode, so bandwidth-bound\", and on paper it is. But the "
                  "profiler doesn't back that up: neither resource is busy, so the loop is limited by "
                  "kernel-launch overhead.\n\nRaising the batch and quantizing the weights: not yet. Both "
                  "treat a truly bandwidth-bound loop, and this one isn't there.\n")
    assert a.regime == "overhead_bound"


def test_utilization_alone_names_both_shares_and_reading_weights_limits(grader, tmp_path):
    """sealed237 e.s2397 ('Evidence: 14% / 3% utilization, both low', instructor: evidence in
    full, graded 0 of 30 for it) and sealed234 a.s2366 ('the chatbot is limited by how fast it can
    read its weights, not by arithmetic': no regime found)."""
    p = answer_file(tmp_path, "e_doesnt_add_up",
                    "Regime: overhead-bound.\n\nEvidence: 14% / 3% utilization, both low, so nothing is "
                    "the bottleneck.\n")
    r = grader.grade(p)
    evidence = next(part for part in r.parts if part.part == "evidence")
    assert not any("share of peak, 3%" in line or "share of peak, 14%" in line for line in evidence.feedback)
    a = read_body(grader, tmp_path, "a_chatbot",
                  "Short version: the chatbot is limited by how fast it can read its weights, not by "
                  "arithmetic.\n")
    assert a.regime == "bandwidth_bound"


def test_a_report_opening_with_a_premise_reports_its_main_clause_too(grader):
    """sealed236 b.s2382 (instructor 100, graded 66 for endorsing the claim it rejects): 'the second
    says that since the step is compute-bound, memory-bound ops are irrelevant' reports the claim
    after the comma as well; a report with no premise ends at its clause, as before."""
    from regime.engine.grading.context import judge
    c = grader.concepts
    said = "The second engineer says that since the step is compute-bound, memory-bound ops are irrelevant."
    assert {j.status for j in judge(c, c.context, ("claim",), said)} == {"attributed"}
    own = "The second engineer says that, and I agree: we are compute-bound, memory-bound ops are irrelevant."
    assert "affirmed" in {j.status for j in judge(c, c.context, ("claim",), own)}


def test_disagreeing_about_the_method_heads_the_students_own_plan(grader, tmp_path):
    """sealed239 b.s2412 (instructor 100, graded 67): 'So the first engineer is aiming at the right
    thing. I disagree about the method and the price:' over torch.compile, the casts and hand
    fusion after them; the list is the plan, not refusals. 'I disagree with these:' still refuses."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "So the first engineer is aiming at the right thing. I disagree about the method and the "
                  "price:\n\n1. torch.compile first. It fuses the norm and activation chains on its own.\n"
                  "2. Look at to_copy by itself: a cast at 5% means a precision boundary in the wrong "
                  "spot.\n")
    assert {"torch_compile", "fix_dtype_casts"} <= _levers(a.fixes)
    b = read_body(grader, tmp_path, "b_training_run",
                  "Proposals I disagree with:\n\n1. Fusing attention further: it is flash already, 7%.\n")
    assert "fuse_attention" in _levers(b.rejects)


def test_a_kind_of_loop_opening_a_clause_after_and_is_no_verdict(grader, tmp_path):
    """sealed239 e.s2411 (instructor 100, graded 71 as bandwidth-bound): '..., and a bandwidth-bound
    loop does not sit at 14% of bandwidth' names a kind of loop, as it would opening the sentence."""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "On paper this is batch-1 decode, which should be bandwidth-bound. But the counters say "
                  "14% of peak bandwidth and 3% of peak FLOPs, and a bandwidth-bound loop does not sit at "
                  "14% of bandwidth. So my diagnosis: launch overhead, not bandwidth, not compute.\n")
    assert a.regime == "overhead_bound"


def test_a_loop_that_was_really_x_would_is_a_kind_of_loop(grader, tmp_path):
    """sealed231 e.s2331 (instructor 100, graded 69 as bandwidth-bound): 'A loop that was really
    bandwidth-bound would have HBM pinned near its limit; this one leaves both resources idle.'"""
    a = read_body(grader, tmp_path, "e_doesnt_add_up",
                  "Nothing in this profile is saturated. A loop that was really bandwidth-bound would have "
                  "HBM pinned near its limit; this one leaves both resources mostly idle. It's launch "
                  "overhead.\n")
    assert a.regime == "overhead_bound"


def test_a_yaml_fix_bound_deferred_is_a_later_step(grader, tmp_path):
    """sealed235 e.s2372 (instructor 100, graded 72 for batching an idle GPU): '{lever: raise_batch,
    bound: deferred, only after a re-measure ...}' puts the batch off, in the solution's order."""
    p = answer_file(tmp_path, "e_doesnt_add_up",
                    "regime: overhead_bound\nfixes:\n  - {lever: cuda_graphs, bound: one submission for ~450 "
                    "launches}\n  - {lever: raise_batch, bound: deferred, only after a re-measure at 215 "
                    "tok/s}\n", name="x.yaml")
    r = grader.grade(p)
    assert not [q for q in r.penalties if "batch" in q.id]


def test_a_headings_lever_topic_stays_under_that_heading(grader, tmp_path):
    """sealed256 d.s2583 (instructor 100, graded 64 for recommending int4): '## Int4 (the vendor's
    proposal)' over a table, then '## Fixes' over '1. fp8 GEMMs': the heading's lever labelled the
    first list item under the next heading, 'Int4 (...): fp8 GEMMs', a recommendation of int4."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "## Int4 (the vendor's proposal)\n| question | answer |\n|---|---|\n"
                  "| Does it raise throughput here? | No, bytes aren't the limit at 30% bandwidth |\n\n"
                  "## Fixes\n1. fp8 GEMMs (raises the FLOP ceiling).\n")
    assert "quantize_int4" not in _levers(a.fixes)
    assert "fp8_gemm" in _levers(a.fixes)


def test_a_bare_label_with_a_qualifier_in_brackets_and_terse_short_forms(grader, tmp_path):
    """sealed250 b.s2528 (instructor 100, graded 36): 'regime - compute bnd overall', 'fixes (in
    order)' alone on its line over '1) torch.compile ...', '3) handfused kernels only if ...'."""
    a = read_body(grader, tmp_path, "b_training_run",
                  "regime - compute bnd overall (MFU 61%)\n\nevidnce\n- 22% of kern time in zero-flop "
                  "kernels\n\nfixes (in order)\n1) torch.compile - auto fuses the eltwise chains\n"
                  "2) handfused kernels only if 1 leaves a real gap\n\nreject\n- fusing attn: already "
                  "flash, 7% max\n")
    assert a.regime == "compute_bound"
    assert "torch_compile" in _levers(a.fixes)
    assert "hand_fused_kernels" in _levers([*a.fixes, *a.deferred, *a.hedged])


def test_a_numbered_item_reporting_someones_proposal_is_no_step(grader, tmp_path):
    """sealed245 a.s2476 (instructor 100, graded 55): '4. A colleague argued we should "just get a
    card with more TFLOPs". I disagree: ...' and '5. Someone else wants to fuse norms/RoPE/residuals.
    ... so no.' made the numbered list a list of fixes, both refusals recommendations."""
    a = read_body(grader, tmp_path, "a_chatbot",
                  "1. Regime: batch-1 decode, bound by HBM bandwidth.\n"
                  "2. A colleague argued we should \"just get a card with more TFLOPs\". I disagree: we use "
                  "4% of the TFLOPs we have.\n"
                  "3. Someone else wants to fuse norms/RoPE/residuals. At batch 1 those ops move a tenth of "
                  "a percent of the weight bytes, so no.\n")
    assert not {"buy_more_flops", "fuse_elementwise"} & _levers(a.fixes)


def test_what_a_colleague_also_wanted_is_attributed_not_recommended(grader, tmp_path):
    """sealed227 d.s2297 (instructor 100): under 'What I'd do.', 'The same colleague also wanted to
    push the batch to 512. I'd say no: ...' was read sentence by sentence, the first a fix."""
    a = read_body(grader, tmp_path, "d_high_throughput_api",
                  "**Regime.** Compute-bound.\n\n**What I'd do.** Speculative decoding to cut FLOPs per "
                  "token. The same colleague also wanted to push the batch to 512. I'd say no: beyond the "
                  "ridge, doubling the batch roughly doubles step time.\n")
    assert "speculative_decoding" in _levers(a.fixes)
    assert "raise_batch" not in _levers(a.fixes)
