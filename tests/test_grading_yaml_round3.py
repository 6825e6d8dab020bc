"""YAML answers read by general rules (issue 27, round 3): what the blind grades charge for a
tempting wrong lever recommended after the key's own fix. Each answer-level test names the answer
that showed the rule, the instructor's grade and the grader's before it."""

from __future__ import annotations

from conftest import answer_file


def _penalties(grader, tmp_path, case: str, body: str) -> dict[str, float]:
    r = grader.grade(answer_file(tmp_path, case, body, "x.yaml"))
    return {p.id: p.points for p in r.penalties}


def test_a_trap_recommended_after_a_key_fix_is_a_secondary_step(grader, tmp_path):
    """sealed167 d.s1698 (instructor 60, graded 47.4): fp8 GEMMs first, then 'raise_batch: 512
    sequences': the instructor takes the batch's rejection and 5 more ("tempting wrong answer as a
    secondary fix"), not the trap's full 10."""
    body = ("regime: compute_bound\nevidence:\n  - {figure: flop_util, value: 71%}\n"
            "fixes:\n  - {lever: fp8_gemm, bound: higher compute ceiling}\n"
            "  - {lever: raise_batch, bound: '512 sequences, more tokens per weight read'}\n")
    assert _penalties(grader, tmp_path, "d_high_throughput_api", body) == {"batching_past_the_ridge": 5}


def test_a_trap_as_the_first_fix_costs_the_full_penalty(grader, tmp_path):
    """sealed130 d.s1330 (instructor 67): raising the batch 'as the main fix' costs its item and 10
    more; a trap first, before any key fix, is the plan, not a second step."""
    body = ("regime: compute_bound\n"
            "fixes:\n  - {lever: raise_batch, bound: go to 384}\n  - fp8_gemm\n")
    assert _penalties(grader, tmp_path, "d_high_throughput_api", body) == {"batching_past_the_ridge": 10}
