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
