"""Case C's FlashAttention-for-fewer-FLOPs answers (issue 27): reasons read as the key's because
they share a resource word the key names only as an outcome, each with the answer that showed it."""

from __future__ import annotations

from conftest import read_body

from regime.engine.grading import reasons

HEAD = ("## Regime\nPrefill, compute-bound (TTFT complaint, 25,000-token prompt).\n\n"
        "## Evidence\n- TTFT complaint, ITL 4 ms fine; attention is 55% of prefill time.\n\n")


def _flash(grader, tmp_path, fix: str) -> str:
    body = (HEAD + "## Fixes\n1. " + fix
            + "\n2. Chunked prefill, so one long prompt cannot stall other users' decode.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    key = grader.key(a, None)[0]
    got = reasons.states(a, key, grader.concepts, grader.rubric.evidence.relative_tolerance)
    return got["flash_attention"]


def test_fewer_flops_is_not_flash_attentions_reason(grader, tmp_path):
    """sealed114 c.s1163 (instructor 47, graded 67.5): "FlashAttention, because it computes
    attention with fewer FLOPs (it skips the masked upper triangle and recomputes instead of
    storing), which should shrink the 55% share." The key says the FLOP rate climbs as an outcome;
    FLOPs are not what FlashAttention attacks, so 'FLOP' and 'compute' argue nothing for it."""
    fix = ("FlashAttention, because it computes attention with fewer FLOPs (it skips the masked upper "
           "triangle and recomputes instead of storing), which should shrink the 55% share. I would also "
           "chunk the prefill.")
    assert _flash(grader, tmp_path, fix) == reasons.WRONG


def test_the_resource_it_attacks_is_still_its_reason(grader, tmp_path):
    """The same fix argued by what it removes keeps the key's reason."""
    fix = "FlashAttention: the score matrix never leaves on-chip memory, so its HBM traffic goes away."
    assert _flash(grader, tmp_path, fix) == reasons.RIGHT
