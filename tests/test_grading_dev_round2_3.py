"""Case C's regime and reasons misread in strong answers (issue 27, dev round 2, class 3): each
rule with the dev answer that showed it, the instructor's grade and the grader's before it."""

from __future__ import annotations

from conftest import read_body


def _states(grader, a) -> dict[str, str]:
    from regime.engine.grading import reasons
    key = grader.key(a, None)[0]
    return reasons.states(a, key, grader.concepts, grader.rubric.evidence.relative_tolerance)


def test_a_figure_in_another_items_reason_does_not_argue_a_bare_fix(grader, tmp_path):
    """sealed26 c.s284 (instructor 62: "-4: chunked prefill with no reason", graded 74): the bare
    '2. Chunked prefill.' was argued by '25k tokens', the figure its rule cites - written only as
    the int8 rejection's reason. A figure argues a bare item where it stands as evidence, not as
    another item's reason."""
    body = ("## Regime\nPrefill / compute-bound.\n\n## Fixes\n1. FlashAttention - the score matrix "
            "stays on chip.\n2. Chunked prefill.\n\n## Reject\n- int8 weights: not the bottleneck "
            "at 25k tokens.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert _states(grader, a)["chunked_prefill"] != "right"
    evidence = body.replace("## Fixes", "## Evidence\n- a 25k-token prompt.\n\n## Fixes")
    a = read_body(grader, tmp_path, "c_document_summarizer", evidence, name="y.md")
    assert _states(grader, a)["chunked_prefill"] == "right"   # stated as evidence, it still argues


def test_a_deferral_does_not_reach_across_so(grader, tmp_path):
    """sealed136 c.s1383 (instructor 89, graded 58): "Users are waiting on the first token, not on
    the ones after it (...), so this is a prefill problem, and prefill ... is compute-heavy work."
    The 'after' of a clause in passing was carried, as "Once X, Y" carries, over the 'so' to the
    verdict: a conclusion word ends what a condition or deferral carries (a contrast does not:
    "Not yet, but once FlashAttention is in I'd quantize" stays deferred)."""
    body = ("Users are waiting on the first token, not on the ones after it (4 ms between tokens is "
            "fine), so this is a prefill problem, and prefill of a 25k-token prompt is compute-heavy "
            "work.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert a.regime == "compute_bound"
    later = ("The fix is FlashAttention.\n\n"
             "Not yet, but once FlashAttention is in I'd quantize the weights to int8.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", later, name="y.md")
    assert "quantize_int8" not in {c for m in a.fixes for c in m.concepts}


def test_fused_attention_stands_for_flashattention_where_the_key_judges_only_that(grader, tmp_path):
    """sealed156 c.s1583 (instructor 100, graded 78: 'Missing fix #1: flash attention'): "go to a
    tiled, FA2-style fused attention kernel so the scores never hit HBM" names attention fusion,
    a lever case C's key has no verdict on; it is the FlashAttention the key recommends, and its
    reason is that fix's (concepts.yaml `stands_for`)."""
    from regime.engine.grading.reading import read_against
    body = ("Prefill of a 25k-token prompt is compute-bound.\n\nRecommendation: go to a tiled, "
            "FA2-style fused attention kernel so the scores never hit HBM; that kills the 40 GB "
            "and the traffic together.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    key = grader.key(a, None)[0]
    assert "flash_attention" in read_against(a, key, 1.0, grader.concepts).fixes
    assert _states(grader, a).get("flash_attention") == "right"


def test_fused_attention_is_itself_where_the_key_judges_it(grader, tmp_path):
    """Case B's key rejects attention fusion (already flash): the same words stay that lever."""
    from regime.engine.grading.reading import read_against
    body = "Regime: compute-bound.\n\nFixes:\n1. Fused attention kernel.\n"
    a = read_body(grader, tmp_path, "b_training_run", body)
    read = read_against(a, grader.key(a, None)[0], 1.0, grader.concepts)
    assert "fuse_attention" in read.fixes and "flash_attention" not in read.fixes


def test_time_spent_streaming_is_no_limiter_verdict(grader, tmp_path):
    """sealed170 c.s1721 (instructor 100, graded 76 as bandwidth-bound): "should be compute-bound,
    but we run it at only 20% ..." then "roughly one second spent just streaming memory": the
    gerund says what attention's time goes to, not what limits the step; a step that streams its
    weights still says it (sealed143 a.s1453)."""
    body = ("A 25k-token prefill should be compute-bound, but we run it at only 20% of peak FLOP/s "
            "because of the way attention is computed.\n\nIt moves ~5 TB per prompt - roughly one "
            "second spent just streaming memory (5 TB / 5.3 TB/s) with almost no arithmetic.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert a.regime != "bandwidth_bound" and a.nominal_regime == "compute_bound"
    body = "Every step streams the full 26 GB of fp16 weights through HBM for one token.\n"
    assert read_body(grader, tmp_path, "a_chatbot", body, name="y.md").regime == "bandwidth_bound"
