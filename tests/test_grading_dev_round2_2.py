"""Reading rules for a suggestion quoted or reported, and refuted, that was charged as the
student's own recommendation (issue 27, development round 2), each with the answer that showed it."""

from __future__ import annotations

from conftest import read_body


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


def _fixes(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def test_a_quoted_suggestion_is_someone_elses(grader, tmp_path):
    """sealed156 c.s1589 (instructor 92, graded 63) and sealed122 c.s1250 (87, 66): 'Product's
    suggestion was "just batch the prefills ...". That would be a mistake here': a noun of
    proposing before the quotation reports it, as 'suggested "' does; the refusal after it stands."""
    body = ("Regime: prefill, compute-bound.\n\n"
            "Product's suggestion was \"just batch the prefills to use the GPU better\". That would be a "
            "mistake here: adding sequences adds time in proportion.\n\n"
            "Fix: FlashAttention, so the 40 GB score matrix is never written.\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert "raise_batch" not in _fixes(a)
