"""Reading rules for lists and menus of fixes, and refusals placed last (issue 27, development
round 2), each with the answer that showed it."""

from __future__ import annotations

from conftest import read_body


def _fixed(a) -> set[str]:
    return {c for m in a.fixes for c in m.concepts}


def _rejected(a) -> set[str]:
    return {c for m in a.rejects for c in m.concepts}


PROSE_D = ("We decode at batch 256 and the profile reads 71% of peak FLOPs against 30% of peak "
           "bandwidth: compute-bound.\n\n")


def test_a_goal_label_heads_a_menu_of_fixes(grader, tmp_path):
    """sealed155 d.s1574 and sealed127 d.s1300 (instructor 100, graded 82.4): 'For throughput on
    this endpoint: fp8 GEMMs (a higher compute ceiling), fused attention, ...' was read as a
    description; a label naming the goal heads fixes, as 'Fixes:' does."""
    body = PROSE_D + ("For throughput on this endpoint: fp8 GEMMs (a higher compute ceiling), fused "
                      "attention, tuned GEMM tiles.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert {"fp8_gemm", "fuse_attention"} <= _fixed(a)


def test_a_label_naming_no_goal_recommends_nothing(grader, tmp_path):
    """'For the director: int4 frees memory for longer contexts' is addressed, not a goal."""
    body = PROSE_D + "For the director and the team at large: int4 frees memory for longer contexts.\n"
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" not in _fixed(a)


def test_an_object_put_first_is_refused_at_the_end_of_its_clause(grader, tmp_path):
    """sealed142 d.s1441 (instructor 100, graded 78.2): 'Pushing the batch much past 256 I'd
    avoid: ...' was read as recommending more batch, a trap; the student's refusal closing the
    clause refuses the object put before it."""
    body = PROSE_D + ("Pushing the batch much past 256 I'd avoid: we're past the ridge, so extra batch "
                      "only hurts per-user latency.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "raise_batch" in _rejected(a) and "raise_batch" not in _fixed(a)


def test_a_refusal_after_and_is_its_own_clause(grader, tmp_path):
    """'Fusing attention helps and I would not worry about it' keeps its first verdict: the
    refusal must close the clause of what it refuses, with nothing joined between."""
    body = ("Regime: compute-bound.\n\nI'd start with the to_copy casts. Fusing attention helps and "
            "I would not worry about it.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert "fuse_attention" not in _rejected(a)


def test_a_purpose_label_heads_a_menu_of_fixes(grader, tmp_path):
    """sealed159 d.s1620 (instructor 91, graded 57.6 -> 75.3) and sealed158 d.s1603 (65: 35.2 ->
    48.9): 'To get more tokens/s: fp8 GEMMs on the matrix cores, fused attention, better tiling'
    recommends them, as 'For throughput:' does."""
    body = PROSE_D + "To get more tokens/s: fp8 GEMMs on the matrix cores, fused attention, better tiling.\n"
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert {"fp8_gemm", "fuse_attention"} <= _fixed(a)


def test_leave_at_without_its_pronoun_refuses_more(grader, tmp_path):
    """sealed159 d.s1620 (instructor 91, graded 75.3 -> 97.1): 'Batch: leave at 256.' holds the
    batch where it is, as 'leave it at 256' does; it recommends no more batch."""
    body = PROSE_D + "Batch: leave at 256. Past the ridge more batch costs latency.\n"
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "raise_batch" not in _fixed(a)


def test_a_long_label_naming_the_goal_before_names_alone_recommends_them(grader, tmp_path):
    """sealed121 d.s1240 (instructor 81, graded 57.4 -> 75): 'More throughput here means fewer or
    cheaper FLOPs: fp8 GEMMs, fused attention, speculative decoding.' is a menu of fixes."""
    body = PROSE_D + ("More throughput here means fewer or cheaper FLOPs: fp8 GEMMs, fused attention, "
                      "speculative decoding.\n")
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert {"fp8_gemm", "fuse_attention"} <= _fixed(a)


def test_a_goal_label_before_a_description_recommends_nothing(grader, tmp_path):
    """Only names alone follow a label that does not open on the goal: 'More throughput here is
    capped: int4 shrinks bytes we are not short of' recommends no int4."""
    body = PROSE_D + "More throughput here is a compute problem: int4 shrinks the weight bytes.\n"
    a = read_body(grader, tmp_path, "d_high_throughput_api", body)
    assert "quantize_int4" not in _fixed(a)
