"""Reasons the grader did not credit on strong answers (issue 27, instructor >= 85 graded more
than 10 lower), each with the answer that showed it."""

from __future__ import annotations

from conftest import answer_file, read_body

from regime.engine.grading import reasons

HEAD = ("## Regime\nOverhead-bound (launch gaps), nominally bandwidth-bound decode.\n\n"
        "## Evidence\n- 14% BW / 3% FLOPs: nothing saturated; ~450 kernels per step.\n\n"
        "## Fixes\n1. CUDA graphs: one launch per step instead of ~450.\n"
        "2. torch.compile: fewer, bigger kernels.\n\n")


def _states(grader, tmp_path, body: str, case: str = "e_doesnt_add_up") -> dict[str, str]:
    a = read_body(grader, tmp_path, case, body)
    key = grader.key(a, None)[0]
    return reasons.states(a, key, grader.concepts, grader.rubric.evidence.relative_tolerance)


def test_same_reason_takes_the_reason_of_the_item_before(grader, tmp_path):
    """sealed159 e.s1614 (instructor 93, graded 81.5): '| - | bigger batch: not now - GPU is idle,
    not bandwidth-limited |' then '| - | int8/int4 weights: not now, same reason |'. The second
    row's reason is the first's."""
    body = HEAD + ("## Reject\n- Bigger batch: not now, the GPU is idle, not bandwidth-limited.\n"
                   "- int8 weights: not now, same reason.\n")
    assert _states(grader, tmp_path, body)["quantize_int8"] == reasons.RIGHT


def test_without_same_reason_a_bare_refusal_is_not_the_keys_reason(grader, tmp_path):
    """The control: 'int8 weights: not now, too risky.' argues something else."""
    body = HEAD + ("## Reject\n- Bigger batch: not now, the GPU is idle, not bandwidth-limited.\n"
                   "- int8 weights: not now, accuracy risk.\n")
    assert _states(grader, tmp_path, body)["quantize_int8"] != reasons.RIGHT


def test_a_deferral_after_the_fixes_is_the_keys_argument_for_a_rejection_for_now(grader, tmp_path):
    """sealed87 e.s897 (instructor 95, graded 84): '| 3 | raise batch | not yet - only after 1-2,
    once truly BW-bound |'. The key refuses batching only until graphs and compile change the
    regime (its `for_now`): the answer's "then, not before" is that argument."""
    body = HEAD + "## Reject\n- Raise batch: not yet, only after 1-2, once truly BW-bound.\n"
    assert _states(grader, tmp_path, body)["raise_batch"] == reasons.RIGHT
    result = grader.grade(answer_file(tmp_path, "e_doesnt_add_up", body, name="y.md"))
    part = next(p for p in result.parts if p.part.startswith("rejections"))
    assert not any("not its reason" in f for f in part.feedback), part.feedback


def test_a_condition_that_is_no_deferral_is_not_the_argument(grader, tmp_path):
    """sealed154 e.s1566 (instructor 74): 'Raise the batch only if graphs don't close the gap'
    keeps batching under the wrong condition; sealed97 e.s998 (instructor 79): 'maybe later?'
    is a hedge. Neither argues the key's 'then, not before'."""
    said = "## Reject\n- Raise batch: only if graphs don't close the gap.\n"
    assert _states(grader, tmp_path, HEAD + said)["raise_batch"] != reasons.RIGHT
    table = ("## Plan\n\n| Lever | Verdict | Reason |\n|---|---|---|\n"
             "| CUDA/HIP graphs | do first | one launch per step instead of ~450 |\n"
             "| torch.compile | do second | fewer, bigger kernels |\n"
             "| int8 weights | maybe later? | could help with bandwidth |\n")
    assert _states(grader, tmp_path, HEAD.split("## Fixes")[0] + table)["quantize_int8"] != reasons.RIGHT


def test_a_deferral_from_another_regime_is_not_the_argument(grader, tmp_path):
    """sealed79 e.s819 (instructor 28, 'defers batching correctly but without the argument'):
    'Bandwidth-bound decode. ... Raising the batch: not yet, once graphs are in'."""
    body = ("## Regime\nBandwidth-bound decode.\n\n## Fixes\n1. CUDA graphs.\n2. torch.compile.\n\n"
            "## Reject\n- Raising the batch: not yet, once graphs are in we can look at it.\n")
    assert _states(grader, tmp_path, body)["raise_batch"] != reasons.RIGHT


def test_isnt_it_refuses_the_lever_before_it(grader):
    """sealed66 d.s681 (instructor 100, graded 84.2): 'Pushing the batch further isn't it either;
    we're past the ridge' refuses more batch ('leaves raise batch open' before)."""
    from conftest import lever_statuses
    said = "Pushing the batch further isn't it either; we're past the ridge."
    assert lever_statuses(grader, said)["raise_batch"] == "negated"
