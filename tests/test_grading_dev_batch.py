"""The bare word 'batch' as a verb names the batching levers, and 'leave it at N' refuses a
change (issue 27: strong answers graded more than 10 low), each with the answer that showed it."""

from __future__ import annotations

from conftest import read_body


def _levers(ms) -> set[str]:
    return {c for m in ms for c in m.concepts}


def test_batch_as_a_verb_under_reject_is_refused(grader, tmp_path):
    """sealed4 e.s64 (instructor 95, graded 80): '- batch now, int8 now — GPU is idle' under
    Reject refuses raising the batch."""
    body = ("## Regime\nLaunch-overhead-bound; nothing is saturated.\n\n## Reject\n"
            "- batch now, int8 now — GPU is idle\n")
    a = read_body(grader, tmp_path, "e_doesnt_add_up", body)
    assert "raise_batch" in _levers(a.rejects) and "raise_batch" not in _levers(a.fixes)


def test_a_negated_bare_batch_is_refused(grader, tmp_path):
    """sealed108 c.s1103 (instructor 89, graded 76): '- don't batch: adds work, TTFT gets worse'."""
    body = "## Regime\nPrefill, compute-bound.\n\n## Reject\n- don't batch: adds work, TTFT gets worse\n"
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert "raise_batch" in _levers(a.rejects)


def test_batch_as_a_noun_names_no_lever(grader):
    """'at batch 1', 'batch 256 did that', 'the batch size' describe the step; no lever."""
    for said in ("Decode at batch 1 is bandwidth-bound.", "Batch 256 did that.", "The batch size is 256."):
        assert not grader.concepts.find("lever", said), said


def test_leave_it_at_its_size_refuses_the_change(grader, tmp_path):
    """sealed156 d.s1583 (instructor 67, 'batch verdict' right; graded 49.7 once 'Batch:' was read
    as a lever): 'Batch: leave it at 256.' refuses raising it, as 'keep it where it is' does."""
    for verdict in ("leave it at 256", "keep it where it is", "stay at 256"):
        body = f"Regime: compute-bound.\n\nBatch: {verdict}. We're already past the ridge point.\n"
        a = read_body(grader, tmp_path, "d_high_throughput_api", body)
        assert "raise_batch" not in _levers(a.fixes), verdict
        assert "raise_batch" in _levers(a.rejects), verdict


def test_a_bare_batch_in_yaml_names_the_batching_levers(grader):
    """new e.s29 (instructor 72, graded 48.5): 'lever: batch' in a YAML answer was unknown."""
    assert set(grader.concepts.resolve("lever", "batch")) == {"continuous_batching", "raise_batch"}
