"""Readings from the middling answers of the dev pool that the grader under-graded (instructor
50-84, graded more than 10 below; issue 27): hedged and conditional verdicts, kept as the
sentences students wrote them."""

from __future__ import annotations

from conftest import lever_statuses


def test_a_hedged_refusal_after_a_topic_s_colon_refuses(grader):
    """ "Quantization: probably not worth it, ..." (sealed155 c.s1576, instructor 62, graded
    43.5) leans to refusing, not to recommending; hedged again after it, it stays open."""
    said = "Quantization: probably not worth it, the weights likely aren't the bottleneck here."
    assert set(lever_statuses(grader, said).values()) == {"negated"}
    again = "Elementwise fusion: probably wont do much, could try it later if its cheap."   # sealed84 a.s865
    assert "negated" not in lever_statuses(grader, again).values()


def test_leaving_a_lever_alone_with_an_adverb_between_refuses_it(grader):
    """ "I'd also leave weight quantization alone" (sealed54 c.s565, instructor 76, graded 61.5
    as recommending int8; sealed155 b.s1571 "I'd also leave attention alone")."""
    said = "I'd also leave weight quantization alone — at 25k tokens per pass the weights are amortised."
    assert set(lever_statuses(grader, said).values()) == {"negated"}
