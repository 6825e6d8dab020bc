"""Readings and scoring rules from the spent blind sets sealed124-131 (issue 27), kept as the
sentences students wrote them."""

from __future__ import annotations

from conftest import answer_file, lever_statuses, read_body


def _rejections(r) -> float:
    return next(p.points for p in r.parts if p.part == "rejections")


def test_leaving_flash_attention_alone_refuses_more_attention_fusion(grader, tmp_path):
    """sealed131 b.s1339 (instructor 85): in a kernel table, "| flash_attention | 7% | leave alone,
    not worth fusing further |" refuses what case B's key rejects (fusing attention further). Case
    C's key recommends FlashAttention: there the same refusal is a refused key fix."""
    table = ("Regime: compute-bound overall.\n\n| Kernel | Share | Action |\n|---|---|---|\n"
             "| layer_norm | 8% | fuse via torch.compile |\n"
             "| flash_attention | 7% | leave alone, not worth fusing further |\n")
    r = grader.grade(answer_file(tmp_path, "b_training_run", table))
    assert not any("fuse attention" in f for p in r.parts for f in p.feedback if "Not rejected" in f)
    assert _rejections(r) > 0
    rows = table.split("\n\n")[1]
    c = read_body(grader, tmp_path, "c_document_summarizer", "Compute-bound prefill.\n\n" + rows)
    assert [m.concepts for m in c.rejects] == [("flash_attention",)]   # no key verdict to stand for


def test_a_dash_saying_already_gives_a_refusal_its_reason(grader, tmp_path):
    """sealed124 b.s1266 (instructor 87): "leave alone — already fused" refuses; the elliptical
    "already fused" after the dash is why, and it turned the refusal into 'already in place'.
    With no refusal before it, "— already fused" still says the lever is in place."""
    refused = lever_statuses(grader, "flash_attention: leave alone — already fused")
    assert refused == {"flash_attention": "negated"}
    in_place = lever_statuses(grader, "We use flash attention — already fused.")
    assert in_place == {"flash_attention": "historical"}


def test_a_plan_column_is_a_plan(grader, tmp_path):
    """sealed130 b.s1324 (instructor 61): "| kernel | share of time | FLOPs | plan |" is a plan:
    "| to_copy | 5% | no | find where the casts come from |" answers the FLOP column."""
    body = ("Compute-bound overall.\n\n| kernel | share | carries FLOPs? | plan |\n|---|---|---|---|\n"
            "| to_copy | 5% | no | find where the casts come from |\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert ("fix_dtype_casts",) not in [m.concepts for m in a.rejects]


def test_a_limiter_in_what_a_claim_holds_for_is_not_this_steps(grader, tmp_path):
    """sealed128 d.s1308 (instructor 90): "That is true of a decode loop that spends its time
    waiting on weight reads, and this one doesn't. ... the bottleneck is the matrix cores, not
    memory." names compute as the limit; the first limiter describes the vendor's case."""
    essay = ("The vendor says int4 gives 4x. That is true of a decode loop that spends its time waiting "
             "on weight reads, and this one doesn't. Our profile shows 71% of peak FLOP rate against 30% "
             "of peak bandwidth, so the bottleneck is the matrix cores, not memory.\n")
    assert read_body(grader, tmp_path, "d_high_throughput_api", essay).regime == "compute_bound"
    waiting = "Our decode loop spends its time waiting on weight reads: 78% of peak bandwidth.\n"
    assert read_body(grader, tmp_path, "a_chatbot", waiting).regime == "bandwidth_bound"


def test_a_regime_a_claim_holds_for_or_a_loop_that_were_is_not_the_verdict(grader, tmp_path):
    """sealed125 e.s1273 (instructor 95, graded 64): "Those are the right treatments for a decode
    loop that is actually limited by bandwidth" says where batching pays, and "A loop that really
    were bandwidth-bound would be pinning HBM" is counterfactual; both were read as the verdict,
    over "neither resource is busy"."""
    essay = ("Neither resource is busy: bandwidth sits at 14% of peak and compute at 3%. A loop that really "
             "were bandwidth-bound would be pinning HBM. I would not raise the batch yet. Those are the "
             "right treatments for a decode loop that is actually limited by bandwidth.\n")
    assert read_body(grader, tmp_path, "e_doesnt_add_up", essay).regime == "overhead_bound"


def test_an_idea_table_is_a_plan_and_its_negative_cells_refuse(grader, tmp_path):
    """sealed131 a.s1338 (instructor 83, graded 54): "| Idea | Bytes per token | Effect on 160
    tok/s |" lists the options weighed; its rows with an effect are the fixes, in their order, and
    "no measurable change, not worth doing" refuses its row."""
    table = ("Regime: bandwidth-bound decode.\n\n| Idea | Bytes per token | Effect on 160 tok/s |\n"
             "|---|---|---|\n| Continuous batching | one 26 GB read, shared | throughput up ~N× |\n"
             "| int8 weights | 13 GB | single-stream ceiling 204 → 408 tok/s |\n"
             "| Fuse elementwise ops | ~0.04% of bytes | no measurable change, not worth doing |\n")
    a = read_body(grader, tmp_path, "a_chatbot", table)
    assert [m.concepts for m in a.fixes] == [("continuous_batching",), ("quantize_int8",)]
    assert ("fuse_elementwise",) in [m.concepts for m in a.rejects]


def test_a_batch_above_the_current_one_is_raising_the_batch(grader, tmp_path):
    """sealed124 d.s1264 (instructor 93, graded 62): "| batch above 256 | – | grows with the batch
    | no, it just adds per-user latency |" refuses raising the batch; unnamed, the row was guessed
    as a recommendation and charged as the trap."""
    table = ("Compute-bound.\n\n| Option | Bytes moved | FLOP side | Notes |\n|---|---|---|---|\n"
             "| fp8 GEMMs | – | higher compute ceiling | yes |\n"
             "| batch above 256 | – | grows with the batch | no, it just adds per-user latency |\n")
    r = grader.grade(answer_file(tmp_path, "d_high_throughput_api", table))
    assert not r.penalties


def test_a_memo_naming_no_regime_states_it_by_what_limits_the_step(grader, tmp_path):
    """sealed130 a.s1323 and sealed124 a.s1267 (instructor 100, graded 65 and 55): memos that
    never write 'bandwidth-bound' but say "HBM is doing nearly all it can while the compute units
    wait" or "every generated token has to pull all 26 GB of fp16 weights through HBM"."""
    for said in ("Our profile reads MFU 4% and MBU 78%, so HBM is doing nearly all it can while the "
                 "compute units wait.\n",
                 "MFU is 4% and MBU is 78%. Every generated token has to pull all 26 GB of fp16 weights "
                 "through HBM.\n"):
        assert read_body(grader, tmp_path, "a_chatbot", said).regime == "bandwidth_bound"


def test_but_they_are_useless_refuses_the_levers_its_sentence_named(grader):
    """sealed129 e.s1313 (instructor 90, graded 33): "Raising the batch or quantizing the weights
    would be the right moves for a saturated decode loop, but they are useless while the GPU
    spends a third of its time waiting" refuses both; they were charged as recommended traps."""
    said = ("Raising the batch or quantizing the weights would be the right moves for a saturated decode "
            "loop, but they are useless while the GPU spends a third of its time waiting.")
    statuses = lever_statuses(grader, said)
    assert statuses["raise_batch"] == "negated"
    assert {s for c, s in statuses.items() if c.startswith("quantize")} == {"negated"}


def test_also_a_no_refuses_the_quoted_proposal(grader, tmp_path):
    """sealed109 a.s1120 (a terse answer that quotes and refuses both proposals): '"Get a GPU with
    more FLOPs" — also no, the FLOPs are 96% idle.' refuses it; "a hard no" does the same."""
    assert lever_statuses(grader, "More FLOPs: a hard no.") == {"buy_more_flops": "negated"}
    body = ("- Regime: BW-bound decode.\n- \"Get a GPU with more FLOPs\" — also no, 96% idle.\n")
    assert ("buy_more_flops",) in [m.concepts for m in read_body(grader, tmp_path, "a_chatbot", body).rejects]


def test_a_bullet_of_numbered_steps_is_a_list_of_fixes(grader, tmp_path):
    """sealed130 c.s1330 (instructor 72, graded 41): "- 1) chunked prefill so big docs don't block
    others. 2) flash attention to get rid of the 40 GB." gives two fixes; its step number was read
    as the item's first clause, naming no lever, and the bullet was prose recommending nothing."""
    body = ("- Prefill problem (TTFT), compute-bound.\n"
            "- 1) chunked prefill so big docs flow. 2) flash attention to get rid of the 40 GB.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert [m.concepts for m in a.fixes] == [("chunked_prefill",), ("flash_attention",)]


def test_a_refusal_before_a_step_is_a_deferral(grader, tmp_path):
    """sealed124 b.s1264 (instructor 100, graded 78): "Don't: spend two weeks hand-fusing before
    step 1." is the worked solution's order (hand fusion only after the compiler), not a refusal
    of fusion; it was charged as dismissing fusion because the step is compute-bound."""
    assert lever_statuses(grader, "Don't: spend two weeks hand-fusing before step 1.") == {
        "hand_fused_kernels": "deferred"}
    assert lever_statuses(grader, "Don't: spend two weeks hand-fusing.") == {"hand_fused_kernels": "negated"}


def test_a_regime_of_the_way_a_part_runs_is_not_the_steps(grader, tmp_path):
    """sealed129 c.s1311 (instructor 100, graded 76): "Prefill, compute-bound in principle — but
    attention is being run in a memory-bound way." describes how attention runs; it was read as
    the verdict, with compute-bound only the nominal regime."""
    body = ("## Regime\nPrefill, compute-bound in principle — but attention is being run in a memory-bound "
            "way.\n")
    assert read_body(grader, tmp_path, "c_document_summarizer", body).regime == "compute_bound"


def test_a_move_conceded_for_another_regime_then_denied_is_refused(grader):
    """sealed130 e.s1323 (instructor 92, graded 66): "Increasing the batch or quantizing the
    weights would be the standard moves for a bandwidth-bound decoder, but this one isn't limited
    by bandwidth yet" concedes where they pay and denies that it is this step."""
    said = ("Increasing the batch or quantizing the weights would be the standard moves for a bandwidth-bound"
            " decoder, but this one isn't limited by bandwidth yet.")
    statuses = lever_statuses(grader, said)
    assert statuses["raise_batch"] == "negated"
    conceded = "Increasing the batch would be the standard move for a bandwidth-bound decoder."
    assert lever_statuses(grader, conceded) == {"raise_batch": "hypothetical"}
    from regime.engine.grading.scopes import conceded
    assert not conceded([], grader.concepts.context)   # a clause of punctuation only (sealed84 c.s864)


def test_a_bare_fix_argued_only_in_words_elsewhere_earns_part_of_its_credit(grader, tmp_path):
    """sealed120 c.s1225 (instructor 53, graded 75): "- chunk the prefil" names the fix bare, and the
    blind grades take its points ("chunked prefill without a reason"), though the answer's other
    words overlap its reason. Those words now earn `reasons.carried` of it, as a bare rejection's
    earn `reasons.elsewhere`; a figure its rule cites still argues it in full ("- flash attn" under "40 GB
    = attention scores")."""
    from regime.engine.grading import reasons
    body = ("- TTFT problem -> prefill, compute bound\n- 40 GB = attention scores (N^2)\n- flash attn\n"
            "- chunk the prefil\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    key = grader.key_for_case(grader.cases_dir / "c_document_summarizer.yaml")
    got = reasons.states(a, key, grader.concepts, grader.rubric.evidence.relative_tolerance)
    assert got["chunked_prefill"] == reasons.CARRIED and got["flash_attention"] == reasons.RIGHT
    assert reasons.credit(got, "chunked_prefill", grader.rubric.reasons) == grader.rubric.reasons.carried < 1


def test_borderline_or_barely_hedges_the_regime(grader, tmp_path):
    """sealed130 d.s1326 and sealed129 d.s1315 (instructor 25 and 51, graded 50 and 73):
    "compute-bound, but only just", "though only just" commit to nothing firmly; the blind grades take
    the regime's points as for a hedge. Written plainly, the verdict stands."""
    for said in ("Compute-bound, but only just.", "Barely compute-bound.", "Borderline compute-bound."):
        hedged = read_body(grader, tmp_path, "d_high_throughput_api", f"## Regime\n{said}\n")
        assert hedged.regime == "compute_bound" and hedged.regime_hedged, said
    plain = read_body(grader, tmp_path, "d_high_throughput_api", "## Regime\nCompute-bound.\n")
    assert plain.regime == "compute_bound" and not plain.regime_hedged


def test_memory_bound_ops_matter_less_states_the_second_engineers_claim(grader):
    """sealed128 b.s1310 (instructor 25, graded 48): "The second engineer probably has a point that
    memory-bound ops matter less once you're compute bound" leans to the claim; it was not read
    as the claim at all."""
    said = "Memory-bound ops matter less once you're compute bound."
    assert "memory_ops_irrelevant_when_compute_bound" in {
        c for m in grader.concepts.find("claim", said) for c in m.concepts}


def test_until_then_puts_what_follows_later(grader):
    """sealed134 e.s1363 (instructor 95, graded 45): after "once the loop is actually bandwidth-
    bound, that is when batching and quantization become the right tools", "Until then, raising
    the batch or quantizing weights would be optimizing a resource that isn't the bottleneck" waits;
    it was read as recommending both traps."""
    said = ("Until then, raising the batch or quantizing weights would be optimizing a resource that isn't "
            "the bottleneck.")
    assert lever_statuses(grader, said)["raise_batch"] == "deferred"


def test_a_cross_mark_in_a_plan_row_refuses_it(grader, tmp_path):
    """sealed134 c.s1365 (instructor 98, graded 48): a plan whose priority column marks the
    refused rows '✗' ("| ✗ | batch the prefills | more work per pass → longer TTFT |") was read
    as recommending both traps."""
    body = ("## Regime\nCompute-bound prefill.\n\n## Plan\n| priority | change | effect |\n|---|---|---|\n"
            "| 1 | FlashAttention | scores never written to HBM |\n"
            "| ✗ | batch the prefills | more work per pass → longer TTFT |\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert ("raise_batch",) in [m.concepts for m in a.rejects]
    assert ("flash_attention",) in [m.concepts for m in a.fixes]


def test_at_once_defers_nothing(grader, tmp_path):
    """sealed138 c.s1406 (instructor 80, graded 44): "With 25k tokens going through at once,
    prefill ought to be compute-bound" was read as a deferred regime ('once' opens a deferral)."""
    essay = "With 25k tokens going through at once, prefill ought to be compute-bound, yet we see 20%.\n"
    assert read_body(grader, tmp_path, "c_document_summarizer", essay).regime == "compute_bound"
    assert lever_statuses(grader, "Once the gaps are gone, raise the batch.") == {"raise_batch": "deferred"}
