"""Reading rules found by the one measurement of sealed140-147 (issue 27), each with the answer
that showed it; not measured on fresh answers."""

from __future__ import annotations

from conftest import lever_statuses


def test_a_refusal_of_the_proposals_refuses_the_list_after_it(grader, tmp_path):
    """sealed145 e.s1471 (instructor 100, graded 55): "For now I would turn down both proposals,
    raising the batch and quantizing the weights." The list after the comma is the object of the
    refusal, as "Two proposals I would turn down." announces rejections."""
    said = "For now I would turn down both proposals, raising the batch and quantizing the weights."
    assert lever_statuses(grader, said) == {"raise_batch": "negated", "quantize_int4": "negated",
                                            "quantize_int8": "negated"}
