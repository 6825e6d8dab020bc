"""Figures from another case (issue 27, dev round 2): which of an answer's figures are this
case's own, each rule with the answer that showed it."""

from __future__ import annotations

from conftest import answer_file

from regime.engine.grading.borrowed import borrowed
from regime.engine.grading.submission import read_answer

# sealed145 c.s1478 (instructor 31, graded 72): case C's answer on case A's ceiling and weights,
# with the 2,300-token elementwise crossover the exercise assumes for cases B and C alike.
C_ON_A = ("regime: compute_bound\nevidence:\n"
          "  - {figure: flop_util, value: 20%}\n"
          "  - {figure: elementwise crossover, value: 2300 tokens}\n"
          "  - {figure: ceiling, value: 204 tokens/s}\n"
          "  - {figure: weight_bytes, value: 26 GB}\n"
          "fixes:\n  - flash_attention\n  - chunked_prefill\n")


def test_a_figure_two_cases_state_under_one_name_is_not_this_cases_own(grader, tmp_path):
    """The 2,300 tokens C's key states is B's elementwise crossover too, under the same name: it
    says nothing about which case the answer was written on, so case A's 204 tokens/s and 26 GB
    outnumber the one figure of C's own (20%) and the answer is charged for them."""
    path = answer_file(tmp_path, "c_document_summarizer", C_ON_A, name="x.yaml")
    a = read_answer(path, grader.concepts, grader.rubric.limits.max_bytes)
    key = grader.key(a, None)[0]
    others = grader._exercise_keys()
    assert grader.rubric.borrowed.by_name
    found, case = borrowed(a, key, others, by_name=True)
    assert case == "a_chatbot" and len(found) == 2, found
    assert borrowed(a, key, others, by_name=False) == ([], "")   # 20% and 2,300 counted as C's
    result = grader.grade(path)
    assert "figures_from_another_case" in [p.id for p in result.penalties]


def test_a_figure_only_this_case_states_is_still_its_own(grader, tmp_path):
    """Case C's 40 GB score matrix and 20% beside A's two figures: two of its own, not charged."""
    body = C_ON_A.replace("value: 2300 tokens", "value: 40 GB")
    body = body.replace("elementwise crossover", "score matrix")
    path = answer_file(tmp_path, "c_document_summarizer", body, name="x.yaml")
    a = read_answer(path, grader.concepts, grader.rubric.limits.max_bytes)
    assert borrowed(a, grader.key(a, None)[0], grader._exercise_keys(), by_name=True) == ([], "")
