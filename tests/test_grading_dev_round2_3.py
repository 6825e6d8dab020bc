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
