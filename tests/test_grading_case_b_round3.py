"""Case B (b_training_run), round 3 (issue 27): the second engineer's claim refused where students
refuse it - on a "Don't:" line that quotes or reports it, in a short form ('mem ops'), or with
'free' for "doesn't matter". Each answer-level test names the answer that showed the rule, the
instructor's grade and the grader's before it."""

from __future__ import annotations

from conftest import read_body

CLAIM = "memory_ops_irrelevant_when_compute_bound"


def _claims(ms) -> set[str]:
    return {c for m in ms if m.kind == "claim" for c in m.concepts}


def test_a_refusing_label_refuses_the_claim_it_quotes(grader, tmp_path):
    """sealed166 b.s1690 (instructor 100, graded 85): 'Don't: accept the "compute-bound so memory ops
    are free" argument.' quotes someone else's claim under a refusing label; it was read as a
    quotation only, the claim's rejection lost."""
    body = ("## Regime\nCompute-bound overall at 61% of peak.\n\n## Fixes\n1. torch.compile first.\n"
            "- Don't: fuse attention. It is flash-attention already, 7% of the time.\n"
            "- Don't: accept the \"compute-bound so memory ops are free\" argument. Compute-bound "
            "describes the GEMMs; the 22% sits in kernels that have no FLOPs to be bound by.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert CLAIM in _claims(a.rejects)
    assert CLAIM not in a.endorsed


def test_a_refusing_label_refuses_a_reported_claim(grader, tmp_path):
    """sealed184 b.s1867 (instructor 100, graded 82): 'Don't: buy the argument that compute-bound
    means memory-bound ops are free.'"""
    body = ("## Regime\nCompute-bound at the level of the whole step (61% of peak).\n\n## Fixes\n"
            "1. torch.compile before any handwritten kernel.\n"
            "- Don't: buy the argument that compute-bound means memory-bound ops are free. The 22% is "
            "time the GEMMs aren't running.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert CLAIM in _claims(a.rejects)


def test_a_short_form_names_the_claim(grader, tmp_path):
    """sealed169 b.s1719 (instructor 100, graded 81): 'Don't: listen to "compute bound so mem ops
    dont matter" - the 22% has no flops': 'mem' is how students shorten 'memory'; the claim went
    unread and its rejection with it (so sealed178 b.s1804 and sealed182 b.s1847, both 100)."""
    assert grader.concepts.find("claim", "compute bound so mem ops dont matter")
    body = ("Regime: compute bound overall (61% MFU)\n\nFixes:\n1. torch.compile frist\n"
            "Don't: fuse attention, already flash, <7% upside\n"
            "Don't: listen to \"compute bound so mem ops dont matter\" - the 22% has no flops and is "
            "exactly why we're at 61 not 80+\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert CLAIM in _claims(a.rejects)
    assert CLAIM not in a.endorsed


def test_a_misspelled_negation_still_negates(grader, tmp_path):
    """sealed148 b.s1509 (instructor 85): 'compute bound dosnt mean the memory ops are free' denies
    the claim; with 'free' read as the claim's word, an unread 'dosnt' would have endorsed it."""
    assert grader.concepts.words("dosnt mean") == ["does", "not", "mean"]
    body = ("Regime: compute bound, 61% of peak.\n\n"
            "Second enginer is wrong - compute bound dosnt mean the memory ops are free, they are 22% "
            "of the step.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    assert CLAIM not in a.endorsed


def test_what_a_fix_does_is_not_a_step_of_its_own(grader, tmp_path):
    """sealed174 b.s1763 (instructor 100, graded 88): 'Fix #1: torch.compile, which fuses
    norm/pointwise chains for you.' names the fusion compile carries out (concepts.yaml `done_by`);
    read as hand fusion put first, it cost the order part a pair the answer has right."""
    from regime.engine.grading.reading import read_against

    body = ("1. Regime: compute bound (MFU 61%).\n"
            "2. Fix #1: torch.compile, which fuses norm/pointwise chains for you. Cheap, try it first.\n"
            "3. Fix #2: chase the to_copy casts (5%), probably an fp32 upcast inside the norm.\n"
            "4. Fix #3: hand-fused kernels, but only if 2 and 3 leave a real gap.\n")
    a = read_body(grader, tmp_path, "b_training_run", body)
    key, _ = grader.key(a, None)
    read = read_against(a, key, 1.0, grader.concepts)
    assert read.fixes.index("fix_dtype_casts") < read.fixes.index("hand_fused_kernels")


def test_a_fix_refused_for_its_cost_is_not_the_compute_bound_trap(grader, tmp_path):
    """sealed125 b.s1277 (instructor 31, graded 12.5): 'Hand-fusing for 2 weeks: not worth it.'
    refuses hand fusion for its cost; the blind grades take its item ("-4: hand fusion dismissed
    outright"), not the 15 of "rejecting fusion because the step is compute-bound"."""
    def charged(body: str) -> set[str]:
        path = tmp_path / "b_training_run.s1.md"
        path.write_text(f"---\ncase: b_training_run\nstudent: s1\n---\n{body}")
        return {p.id for p in grader.grade(path).penalties}

    assert "fusion_dismissed_when_compute_bound" not in charged(
        "- Compute bound, 61% of peak.\n- Eng. 2 is probably mostly right: we're compute-bound, so the "
        "memory-bound kernels are second order. Still, torch.compile is cheap, could try it.\n"
        "- Hand-fusing for 2 weeks: not worth it.\n- Flash attn already in use (7%).\n")
    assert "fusion_dismissed_when_compute_bound" in charged(
        "Regime: compute bound, 61% of peak.\n\nReject:\n- Hand-fusing the norms: we are compute-bound, "
        "so those kernels are not the bottleneck.\n")
