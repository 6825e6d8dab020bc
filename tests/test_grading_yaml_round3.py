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


def test_hand_fusion_refused_beside_compile_in_the_fix_list_costs_only_its_item(grader, tmp_path):
    """sealed56 b.s587 (instructor 30, graded 13.4): torch.compile in the fixes and 'hand_fused_kernels:
    two weeks is too long' under reject: the instructor takes 2 for hand fusion 'rejected for its
    length, not kept as the conditional step', not the 15 of dismissing fusion as compute-bound."""
    body = ("regime: compute_bound\nfixes:\n"
            "  - {lever: torch_compile, bound: fuses norm and activation kernels}\n"
            "reject:\n  - {lever: hand_fused_kernels, reason: two weeks is too long}\n")
    assert "fusion_dismissed_when_compute_bound" not in _penalties(grader, tmp_path, "b_training_run", body)


def test_hand_fusion_refused_with_the_claim_endorsed_is_still_one_error(grader, tmp_path):
    """corpus b.s03 (instructor 5, both penalties): the claim endorsed and fusion refused for it are
    one error charged from both sides, whatever else the fix list holds."""
    body = ("## Regime\nCompute-bound, 61% of peak.\n\n## Fixes\n1. torch.compile.\n\n## Reject\n"
            "- Hand-fused kernels: we are compute-bound, so the memory-bound ops do not matter.\n")
    r = grader.grade(answer_file(tmp_path, "b_training_run", body))
    got = {p.id: p.points for p in r.penalties}
    assert got == {"memory_ops_dismissed_when_compute_bound": 15, "fusion_dismissed_when_compute_bound": 10}
