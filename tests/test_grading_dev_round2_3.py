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
