"""Scoring rules found among the middling answers (instructor 40-84) graded more than 10 away
(issue 27, the lone-fix order), each with the answer that showed it."""

from __future__ import annotations

from pathlib import Path

from conftest import answer_file

ANSWERS = Path(__file__).resolve().parent.parent / "answers"


def _part(result, name: str):
    return next(p for p in result.parts if p.part == name)


def test_one_key_fix_alone_of_any_rank_is_not_charged_for_order(grader, tmp_path):
    """corpus a.s09 (instructor 44, graded 30.5): 'Quantize the model weights to int8.' is the
    key's second fix, alone. The instructor charges the missing batching, not an order a single
    fix cannot have: like the first fix alone, it earns the order part's `first_alone` share."""
    result = grader.grade(ANSWERS / "corpus" / "a_chatbot.s09_partial.md")
    order = _part(result, "order")
    assert order.points > 0, order.feedback
    assert any("its #2 (quantize int8)" in f for f in order.feedback), order.feedback


def test_the_first_and_a_later_fix_alone_earn_alike(grader, tmp_path):
    """The share does not depend on which key fix stands alone."""
    first = grader.grade(answer_file(tmp_path, "a_chatbot", "Regime: bandwidth-bound.\nFixes:\n"
                                     "- Continuous batching.\n", name="first.md"))
    later = grader.grade(answer_file(tmp_path, "a_chatbot", "Regime: bandwidth-bound.\nFixes:\n"
                                     "- Quantize the weights to int8.\n", name="later.md"))
    assert _part(first, "order").points == _part(later, "order").points > 0


def test_two_fixes_out_of_order_still_earn_no_order(grader, tmp_path):
    """Two key fixes give a pair to order: the wrong order earns nothing, as before."""
    result = grader.grade(answer_file(tmp_path, "a_chatbot", "Regime: bandwidth-bound.\nFixes:\n"
                                      "1. Quantize the weights to int8.\n2. Continuous batching.\n"))
    assert _part(result, "order").points == 0


def test_figures_from_another_case_cost_six(grader, tmp_path):
    """sealed4 a.s67 (instructor 64: '-30: evidence is case E's numbers', nothing more for them;
    graded 44.5): the evidence part already earns nothing for the borrowed figures, so the charge
    on top is 6, not 8 (the charged answers of the dev pool read 2.1 points low on average)."""
    result = grader.grade(ANSWERS / "sealed4" / "a_chatbot.s67_other_case_numbers.md")
    charged = {p.id: p.points for p in result.penalties}
    assert charged.get("figures_from_another_case") == 6, charged
