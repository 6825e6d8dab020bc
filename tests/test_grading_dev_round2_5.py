"""Rules found on the development pool, round 2 class 5 (issue 27): case B's tempting claim
and attention fusion, each with the answer that showed it."""

from __future__ import annotations

from conftest import answer_file


def _penalties(grader, tmp_path, body: str) -> dict[str, float]:
    result = grader.grade(answer_file(tmp_path, "b_training_run", body))
    return {p.id: p.points for p in result.penalties}


ENDORSES_AND_REFUSES = (
    "## Regime\nCompute-bound. 61% of peak FLOPs is good for training.\n\n"
    "## Fixes\n1. Keep things as they are.\n\n"
    "## Reject\n- The two weeks of hand fusion. I agree with the second engineer: the step is "
    "compute-bound, so the memory-bound ops (layer_norm, silu, to_copy) are not on the critical path "
    "and fusing them won't move the step time.\n")


def test_the_claim_endorsed_and_the_fusion_it_dismisses_are_one_error(grader, tmp_path):
    """sealed70 b.s724 (instructor 21, graded 4.5): agrees with the second engineer and refuses
    the hand fusion on that ground. The blind grade charges the claim 15 and 10 more ("-15:
    endorses ... loses that rejection", "-10: extra penalty"), not the claim 15 and the refusal
    15 again (sealed25 b.s273: 15 vs 1.5; sealed54 b.s564: 12 vs 0)."""
    got = _penalties(grader, tmp_path, ENDORSES_AND_REFUSES)
    assert got == {"memory_ops_dismissed_when_compute_bound": 15.0,
                   "fusion_dismissed_when_compute_bound": 10.0}, got


def test_a_refusal_alone_still_costs_its_full_penalty(grader, tmp_path):
    """The fusion refused on the compute-bound excuse, with no claim endorsed, is the trap alone."""
    body = ("## Regime\nCompute-bound.\n\n## Fixes\n1. Better GEMM tiling.\n\n"
            "## Reject\n- Hand-fused kernels: not worth two weeks, we are compute-bound.\n")
    got = _penalties(grader, tmp_path, body)
    assert got.get("fusion_dismissed_when_compute_bound") == 15.0, got
    assert "memory_ops_dismissed_when_compute_bound" not in got, got


def test_whole_attention_fused_into_one_kernel_is_attention_fusion(grader):
    """sealed124 b.s1267 (instructor 4, graded 25.3): 'Fusing the whole attention computation into
    a single kernel would cut the biggest non-GEMM block in the step, so that is where I would put
    the engineering effort' recommends the attention fusion the key rejects."""
    found = {c for m in grader.concepts.find("lever", "Fusing the whole attention computation into "
                                                       "a single kernel would help.") for c in m.concepts}
    assert "fuse_attention" in found


def test_a_list_after_a_qualified_side_is_the_students_plan(grader, tmp_path):
    """sealed170 b.s1721 (instructor 100, graded 52.5): 'I side with the first engineer on *what*
    to attack, but not on *how*:' qualifies the side; the numbered list after it recommends
    torch.compile and the cast fix, it does not refuse them."""
    from conftest import read_body
    body = ("The step is compute-bound overall.\n\n"
            "I side with the first engineer on *what* to attack, but not on *how*:\n\n"
            "1. Switch on torch.compile first. It fuses norms and pointwise chains automatically.\n"
            "2. Look hard at to_copy. Casts as standalone kernels mean a misplaced precision boundary.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    fixes = {c for m in a.fixes for c in m.concepts}
    assert {"torch_compile", "fix_dtype_casts"} <= fixes, fixes
    assert not {c for m in a.rejects for c in m.concepts} & fixes


def test_a_negation_ending_its_clause_refuses_the_quotation_after_it(grader):
    """sealed167 b.s1691 (instructor 100, graded 88.3): 'My plan, though, is different from "two
    weeks of hand-written kernels":' refuses the hand fusion first, it does not put it first (the
    order part lost 6.7). So does 'I disagree with "memory-bound ops don't matter"' (sealed136
    b.s1388). Not an elliptical 'limited by neither: kernel-launch-overhead-bound'."""
    from conftest import lever_statuses
    said = 'My plan, though, is different from "two weeks of hand-written kernels":'
    assert lever_statuses(grader, said).get("hand_fused_kernels") == "negated"
