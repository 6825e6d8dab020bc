"""Reading rules found on case C's disagreements of more than 10 points (issue 27, dev pool
corpus..sealed173), each with the answer that showed it."""

from __future__ import annotations

from conftest import read_body


def test_a_statement_before_a_dash_and_a_why_question_stands(grader, tmp_path):
    """sealed162 c.s1642 (instructor 100, graded 63.8): "Prefill over 25k tokens is a compute-bound
    job — so why is the FLOP rate only 20%?" states the regime, then asks about the FLOP rate; the
    '?' asked the whole sentence and the essay named no regime (regime part 0 of 20)."""
    body = ("The wait before the first token is the prefill of a 25k-token document. Prefill over 25k "
            "tokens is a compute-bound job — so why is the FLOP rate only 20%?\n")
    a = read_body(grader, tmp_path, "c_document_summarizer", body)
    assert a.regime == "compute_bound" and not a.regime_hedged


def test_a_question_without_a_break_still_asks(grader, tmp_path):
    """The rule's other side: "Is this prefill compute-bound?" and "Compute-bound — or
    bandwidth-bound?" commit to nothing."""
    for body in ("Is this prefill compute-bound?\n", "Is it compute-bound — or bandwidth-bound?\n"):
        assert read_body(grader, tmp_path, "c_document_summarizer", body).regime is None
